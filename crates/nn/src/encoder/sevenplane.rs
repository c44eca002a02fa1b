//! The book's seven-plane encoder: stones by liberties, and the ko point.

use tengen_core::{Board, Color};

use super::{set_ko_plane, set_liberty_planes};

define_encoder! {
    /// Seven planes, relative to the side to move: planes 0–2 hold its stones
    /// whose chain has 1, 2 and 3 or more liberties, planes 3–5 the opponent's
    /// likewise, and plane 6 the point the side to move may not play because it
    /// would retake a ko at once. No pass output.
    ///
    /// Liberty counts make captures and ataris visible to a small network, which
    /// cannot count them itself from the stones alone.
    SevenPlaneEncoder {
        name: "sevenplane",
        planes: 7,
        has_pass: false,
    }
}

impl SevenPlaneEncoder {
    fn set_planes(board: &Board, to_move: Color, out: &mut [f32]) {
        let points = board.size().points_count();
        set_liberty_planes(board, to_move, 3, out);
        set_ko_plane(board, to_move, &mut out[6 * points..]);
    }
}
