//! Light playouts: uniformly random legal non-eye moves to the end of the game,
//! the measure of a board implementation's raw speed and the default rollout of
//! Monte Carlo bots.

use crate::board::Board;
use crate::color::Color;
use crate::point::Point;
use crate::rng::Rng;

/// A board light playouts can run on: [`PlayoutBoard`](crate::PlayoutBoard), made for them, or
/// the full [`Board`].
pub trait PlayoutPosition {
    /// A uniformly random legal move for `color` that is not its own eye;
    /// `None` means pass.
    fn random_playout_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point>;
    /// Plays a move the position just offered.
    fn play_move(&mut self, point: Point, color: Color);
    /// Passes (clears the ko point).
    fn pass_move(&mut self);

    /// Plays a light playout (see [`light_playout`]). A board may run it in
    /// code of its own, which must play exactly the moves of this one.
    fn run_light_playout(&mut self, to_move: Color, rng: &mut Rng, max_moves: u32) -> PlayoutStats
    where
        Self: Sized,
    {
        playout_loop(self, to_move, rng, max_moves)
    }
}

impl PlayoutPosition for Board {
    #[inline]
    fn random_playout_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point> {
        Board::random_playout_move(self, color, rng)
    }

    #[inline]
    fn play_move(&mut self, point: Point, color: Color) {
        self.play_unchecked(point, color);
    }

    #[inline]
    fn pass_move(&mut self) {
        self.pass();
    }
}

/// What one playout did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlayoutStats {
    /// Stones played (passes not included).
    pub moves: u32,
    /// Passes made.
    pub passes: u32,
    /// Whether the playout stopped at the move cap rather than on two passes.
    pub capped: bool,
}

/// Plays a light playout on `board` with `to_move` first: each turn a uniformly
/// random legal move that is not the mover's own eye (simple ko, suicide
/// forbidden), a pass when none is left, until two passes in a row or
/// `max_moves` turns (passes included).
#[inline]
pub fn light_playout(
    board: &mut impl PlayoutPosition,
    to_move: Color,
    rng: &mut Rng,
    max_moves: u32,
) -> PlayoutStats {
    board.run_light_playout(to_move, rng, max_moves)
}

/// The turns of [`light_playout`], through the position's own moves.
#[inline(always)]
pub(crate) fn playout_loop(
    board: &mut impl PlayoutPosition,
    mut to_move: Color,
    rng: &mut Rng,
    max_moves: u32,
) -> PlayoutStats {
    let mut stats = PlayoutStats::default();
    let mut passes_in_a_row = 0;
    let mut turns = 0;
    while turns < max_moves {
        turns += 1;
        match board.random_playout_move(to_move, rng) {
            Some(point) => {
                board.play_move(point, to_move);
                stats.moves += 1;
                passes_in_a_row = 0;
            }
            None => {
                board.pass_move();
                stats.passes += 1;
                passes_in_a_row += 1;
                if passes_in_a_row == 2 {
                    return stats;
                }
            }
        }
        to_move = !to_move;
    }
    stats.capped = true;
    stats
}

/// Black's score minus White's (before komi) at the end of a playout, counted
/// quickly point by point with [`final_owner`]. At the end of a light playout
/// empty regions are single points, where this equals area scoring.
pub fn playout_score(board: &Board) -> i32 {
    board
        .size()
        .points()
        .map(|point| match final_owner(board, point) {
            Some(Color::Black) => 1,
            Some(Color::White) => -1,
            None => 0,
        })
        .sum()
}

/// The colour a point counts for at the end of a playout: its stone's colour,
/// or for an empty point the colour of all its on-board neighbours if they are
/// stones of one colour; `None` otherwise.
pub fn final_owner(board: &Board, point: Point) -> Option<Color> {
    if let Some(color) = board.stone(point) {
        return Some(color);
    }
    let mut owner = None;
    for neighbor in board.on_board_neighbors(point) {
        match (board.stone(neighbor), owner) {
            (None, _) => return None,
            (Some(color), None) => owner = Some(color),
            (Some(color), Some(seen)) if color != seen => return None,
            _ => {}
        }
    }
    owner
}
