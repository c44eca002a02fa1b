//! The book's simple encoder: absolute colours, stones by liberties, the side
//! to move and the ko point.

use tengen_core::{Board, Color};

use super::{set_ko_plane, set_liberty_planes};

define_encoder! {
    /// Eleven planes in absolute colours: planes 0–3 hold Black's stones whose
    /// chain has 1, 2, 3 and 4 or more liberties, planes 4–7 White's likewise,
    /// plane 8 is all ones when Black is to move, plane 9 all ones when White is
    /// to move, and plane 10 holds the point the side to move may not play because
    /// it would retake a ko at once. No pass output.
    ///
    /// Unlike the relative encoders, the colours stay put and the side to move is
    /// an input of its own, as in the book.
    SimpleEncoder {
        name: "simple",
        planes: 11,
        has_pass: false,
    }
}

impl SimpleEncoder {
    fn set_planes(board: &Board, to_move: Color, out: &mut [f32]) {
        let points = board.size().points_count();
        set_liberty_planes(board, Color::Black, 4, out);
        let turn_plane = match to_move {
            Color::Black => 8,
            Color::White => 9,
        };
        out[turn_plane * points..(turn_plane + 1) * points].fill(1.0);
        set_ko_plane(board, to_move, &mut out[10 * points..]);
    }
}
