//! The book's AlphaGo-Zero-style encoder (chapter 14): relative colours,
//! stones by liberties, who receives komi, the ko point, and a pass output.

use tengen_core::{Board, Color};

use super::{set_ko_plane, set_liberty_planes};

define_encoder! {
    /// Eleven planes, relative to the side to move: planes 0–3 hold its stones
    /// whose chain has 1, 2, 3 and 4 or more liberties, planes 4–7 the
    /// opponent's likewise, plane 8 is all ones when the side to move is White
    /// (the side that receives komi), plane 9 all ones when the opponent is
    /// White, and plane 10 holds the point the side to move may not play because
    /// it would retake a ko at once. The move space has `width * height + 1`
    /// indices, the last one the pass, because self-play needs to be able to
    /// pass.
    ///
    /// The komi planes say only who receives komi, not how much, as in the book:
    /// they are the one place where the relative encoding tells the colours apart.
    ZeroEncoder {
        name: "zero",
        planes: 11,
        has_pass: true,
    }
}

impl ZeroEncoder {
    fn set_planes(board: &Board, to_move: Color, out: &mut [f32]) {
        let points = board.size().points_count();
        set_liberty_planes(board, to_move, 4, out);
        let komi_plane = match to_move {
            Color::White => 8,
            Color::Black => 9,
        };
        out[komi_plane * points..(komi_plane + 1) * points].fill(1.0);
        set_ko_plane(board, to_move, &mut out[10 * points..]);
    }
}
