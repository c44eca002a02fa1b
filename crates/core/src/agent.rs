//! Bots: the [`Agent`] trait and the uniformly random player.

use crate::game::{Action, Game};
use crate::point::Move;
use crate::rng::Rng;

/// Anything that chooses moves: the random bot here, tree search and neural
/// players in other crates, a person behind a terminal.
///
/// An agent sees the position only through [`Game`]. Later hooks (time
/// controls, analysis output, pondering) come as provided methods so that
/// simple agents need only `select_move`.
pub trait Agent {
    /// A short name for logs, GTP `name` and match tables.
    fn name(&self) -> &str;

    /// The action for the side to move in `game`. It must be legal there
    /// (resignation always is while the game is not over).
    fn select_move(&mut self, game: &Game) -> Action;

    /// Called when the game has been set up anew (new board, undo, loaded
    /// record) so that agents with caches can drop them.
    fn reset(&mut self) {}
}

/// The book's `RandomBot`: a uniformly random legal move that does not fill
/// one of its own eyes ([`crate::Board::is_point_an_eye`]), and a pass when no
/// such move is left. Legality is the game's, superko included.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: Rng,
}

impl RandomBot {
    /// A random bot whose choices are determined by `seed`.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: Rng::new(seed),
        }
    }
}

impl Agent for RandomBot {
    fn name(&self) -> &str {
        "random"
    }

    fn select_move(&mut self, game: &Game) -> Action {
        let color = game.to_move();
        let board = game.board();
        let mut candidates: Vec<_> = board
            .empty_points()
            .filter(|&p| !board.is_point_an_eye(p, color))
            .collect();
        // Draw without replacement until a legal one turns up: uniform over the
        // legal non-eye points without testing every point.
        while !candidates.is_empty() {
            let i = self.rng.below(candidates.len());
            let point = candidates.swap_remove(i);
            if game.legal(Move::Play(point)).is_ok() {
                return Action::Move(Move::Play(point));
            }
        }
        Action::Move(Move::Pass)
    }
}
