//! The book's seven-plane encoder: stones by liberties, and the ko point.

use tengen_core::{BoardSize, Game};

use super::{check_encode_args, set_ko_plane, set_liberty_planes, Encoder};

/// Seven planes, relative to the side to move: planes 0–2 hold its stones
/// whose chain has 1, 2 and 3 or more liberties, planes 3–5 the opponent's
/// likewise, and plane 6 the point the side to move may not play because it
/// would retake a ko at once. No pass output.
///
/// Liberty counts make captures and ataris visible to a small network, which
/// cannot count them itself from the stones alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SevenPlaneEncoder {
    size: BoardSize,
}

impl SevenPlaneEncoder {
    /// The registered name.
    pub const NAME: &'static str = "sevenplane";

    /// The encoder for boards of `size`.
    pub fn new(size: BoardSize) -> SevenPlaneEncoder {
        SevenPlaneEncoder { size }
    }
}

impl Encoder for SevenPlaneEncoder {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn size(&self) -> BoardSize {
        self.size
    }

    fn planes(&self) -> usize {
        7
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
        set_liberty_planes(board, to_move, 3, out);
        set_ko_plane(board, to_move, &mut out[6 * points..]);
    }
}
