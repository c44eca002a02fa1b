//! The book's one-plane encoder: the stones seen by the side to move.

use tengen_core::{BoardSize, Game};

use super::{check_encode_args, Encoder};

/// One plane: `+1` for a stone of the side to move, `-1` for an opponent's
/// stone, `0` for an empty point. No pass output.
///
/// Relative colours let one network play both sides; the price is that
/// nothing tells it who receives komi.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnePlaneEncoder {
    size: BoardSize,
}

impl OnePlaneEncoder {
    /// The registered name.
    pub const NAME: &'static str = "oneplane";

    /// The encoder for boards of `size`.
    pub fn new(size: BoardSize) -> OnePlaneEncoder {
        OnePlaneEncoder { size }
    }
}

impl Encoder for OnePlaneEncoder {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn size(&self) -> BoardSize {
        self.size
    }

    fn planes(&self) -> usize {
        1
    }

    fn has_pass(&self) -> bool {
        false
    }

    fn encode(&self, game: &Game, out: &mut [f32]) {
        check_encode_args(self, game, out);
        let board = game.board();
        let to_move = game.to_move();
        let out = &mut out[..self.input_len()];
        // Every point is written, so no zeroing pass is needed.
        for (value, point) in out.iter_mut().zip(self.size.points()) {
            *value = match board.stone(point) {
                None => 0.0,
                Some(color) if color == to_move => 1.0,
                Some(_) => -1.0,
            };
        }
    }
}
