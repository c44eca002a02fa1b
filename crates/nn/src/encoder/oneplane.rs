//! The book's one-plane encoder: the stones seen by the side to move.

use tengen_core::{Board, Color};

define_encoder! {
    /// One plane: `+1` for a stone of the side to move, `-1` for an opponent's
    /// stone, `0` for an empty point. No pass output.
    ///
    /// Relative colours let one network play both sides; the price is that
    /// nothing tells it who receives komi.
    OnePlaneEncoder {
        name: "oneplane",
        planes: 1,
        has_pass: false,
    }
}

impl OnePlaneEncoder {
    fn set_planes(board: &Board, to_move: Color, out: &mut [f32]) {
        for (value, point) in out.iter_mut().zip(board.size().points()) {
            if let Some(color) = board.stone(point) {
                *value = if color == to_move { 1.0 } else { -1.0 };
            }
        }
    }
}
