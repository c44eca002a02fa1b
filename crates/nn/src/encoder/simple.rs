//! The book's simple encoder: absolute colours, stones by liberties, the side
//! to move and the ko point.

use tengen_core::{BoardSize, Color, Game};

use super::{check_encode_args, set_ko_plane, set_liberty_planes, Encoder};

/// Eleven planes in absolute colours: planes 0–3 hold Black's stones whose
/// chain has 1, 2, 3 and 4 or more liberties, planes 4–7 White's likewise,
/// plane 8 is all ones when Black is to move, plane 9 all ones when White is
/// to move, and plane 10 holds the point the side to move may not play because
/// it would retake a ko at once. No pass output.
///
/// Unlike the relative encoders, the colours stay put and the side to move is
/// an input of its own, as in the book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimpleEncoder {
    size: BoardSize,
}

impl SimpleEncoder {
    /// The registered name.
    pub const NAME: &'static str = "simple";

    /// The encoder for boards of `size`.
    pub fn new(size: BoardSize) -> SimpleEncoder {
        SimpleEncoder { size }
    }
}

impl Encoder for SimpleEncoder {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn size(&self) -> BoardSize {
        self.size
    }

    fn planes(&self) -> usize {
        11
    }

    fn has_pass(&self) -> bool {
        false
    }

    fn encode(&self, game: &Game, out: &mut [f32]) {
        check_encode_args(self, game, out);
        let board = game.board();
        let to_move = game.to_move();
        let points = self.size.points_count();
        let out = &mut out[..self.input_len()];
        out.fill(0.0);
        set_liberty_planes(board, Color::Black, 4, out);
        let turn_plane = match to_move {
            Color::Black => 8,
            Color::White => 9,
        };
        out[turn_plane * points..(turn_plane + 1) * points].fill(1.0);
        set_ko_plane(board, to_move, &mut out[10 * points..]);
    }
}
