//! Heavy playouts: the move policy that plays a position out to the end for
//! the tree search, with the knowledge that made MoGo and Pachi strong.
//!
//! Each turn, in this order:
//! 1. with probability [`PlayoutPolicy::capture_percent`], answer the last
//!    move tactically: save own chains it put in atari (extend, unless the
//!    extension runs into a ladder, or capture an attacker in atari), or
//!    capture the chain it left in atari;
//! 2. with probability [`PlayoutPolicy::pattern_percent`], play a point next
//!    to the last move that matches a 3×3 shape ([`crate::patterns`]);
//! 3. otherwise a uniformly random legal move that fills no own eye and is
//!    not a self-atari of two or more stones, or a pass when none is left.
//!
//! Every move chosen is legal under simple ko with suicide forbidden, and no
//! move fills a point that is the mover's own eye. The playout ends after
//! two passes in a row or at the move cap.

use tengen_core::playout::PlayoutStats;
use tengen_core::{Board, Color, Point, Rng};

use crate::patterns::Patterns;
use crate::tactics::{
    atari_liberty, escape_is_laddered, escape_moves, self_atari_size, LadderScratch,
};

/// The playout move policy and its probabilities.
#[derive(Clone, Debug)]
pub struct PlayoutPolicy {
    patterns: Patterns,
    /// Percent of turns on which tactical replies to the last move are
    /// looked for.
    pub capture_percent: usize,
    /// Percent of turns on which 3×3 shapes next to the last move are looked
    /// for (when no tactical reply was played).
    pub pattern_percent: usize,
    /// Percent of turns on which, when neither of the above played, a
    /// capture or an escape (not into a ladder) anywhere on the board is
    /// looked for.
    pub global_capture_percent: usize,
    /// Percent of random moves allowed to be a self-atari of two or more
    /// stones.
    pub self_atari_percent: usize,
}

impl Default for PlayoutPolicy {
    fn default() -> Self {
        PlayoutPolicy {
            patterns: Patterns::new(),
            capture_percent: 90,
            pattern_percent: 95,
            global_capture_percent: 100,
            self_atari_percent: 10,
        }
    }
}

/// Working space of a playout: candidate lists, and the chains that may be
/// in atari.
///
/// A chain's liberties only fall when a stone is played next to it, so the
/// chains in atari are found by one scan when a playout starts and then by
/// looking at each move's neighbours; entries that are no longer in atari
/// are dropped when the list is read.
#[derive(Clone, Debug, Default)]
pub struct PlayoutScratch {
    candidates: Vec<Point>,
    ataris: Vec<Point>,
    ladders: LadderScratch,
}

impl PlayoutScratch {
    /// Scans `board` for chains in atari; call before playing on a new board.
    pub fn reset(&mut self, board: &Board) {
        self.ataris.clear();
        for point in board.size().points() {
            if board.liberties(point) == 1 && board.chain_head(point) == Some(point) {
                self.ataris.push(point);
            }
        }
    }

    /// Notes the chains a stone just played at `point` may have put in
    /// atari (its own included).
    #[inline]
    pub fn note_move(&mut self, board: &Board, point: Point) {
        if board.liberties(point) == 1 {
            self.ataris.push(point);
        }
        for n in board.neighbors(point) {
            if board.liberties(n) == 1 {
                self.ataris.push(n);
            }
        }
    }

    /// Captures of enemy chains in atari, and extensions of `color`'s chains
    /// in atari that gain liberties, anywhere on the board.
    fn atari_moves(&mut self, board: &Board, color: Color) {
        self.candidates.clear();
        let mut i = 0;
        while i < self.ataris.len() {
            let stone = self.ataris[i];
            let head = board.chain_head(stone);
            let duplicate = self.ataris[..i]
                .iter()
                .any(|&other| board.chain_head(other) == head);
            if head.is_none() || board.liberties(stone) != 1 || duplicate {
                self.ataris.swap_remove(i);
                continue;
            }
            i += 1;
            let Some(liberty) = atari_liberty(board, stone) else {
                continue;
            };
            if board.stone(stone) != Some(color) || self_atari_size(board, liberty, color) == 0 {
                self.candidates.push(liberty);
            }
        }
    }
}

#[cfg(test)]
impl PlayoutScratch {
    /// Whether every chain in atari on `board` has a stone in the list (the
    /// incremental list checked against a full scan).
    fn tracks_every_atari(&self, board: &Board) -> bool {
        board.size().points().all(|p| {
            board.liberties(p) != 1
                || self
                    .ataris
                    .iter()
                    .any(|&s| board.chain_head(s) == board.chain_head(p))
        })
    }
}

/// A point the playout may play for `color`: legal under simple ko without
/// suicide and not `color`'s own eye.
#[inline]
fn playable(board: &Board, point: Point, color: Color) -> bool {
    board.is_legal_simple(point, color) && !board.is_point_an_eye(point, color)
}

impl PlayoutPolicy {
    /// The uniform policy: no tactics, no shapes; the random move still
    /// avoids large self-ataris.
    pub fn uniform() -> PlayoutPolicy {
        PlayoutPolicy {
            capture_percent: 0,
            pattern_percent: 0,
            global_capture_percent: 0,
            ..PlayoutPolicy::default()
        }
    }

    /// The move `color` plays in a playout after `last` (the opponent's last
    /// stone, if the last turn was a stone), or `None` to pass. `scratch`
    /// must have been [reset](PlayoutScratch::reset) for this board and told
    /// of every move since.
    pub fn choose(
        &self,
        board: &mut Board,
        color: Color,
        last: Option<Point>,
        rng: &mut Rng,
        scratch: &mut PlayoutScratch,
    ) -> Option<Point> {
        if let Some(last) = last {
            if self.capture_percent > 0 && rng.below(100) < self.capture_percent {
                tactical_replies(board, color, last, scratch);
                if let Some(point) = pick(board, color, rng, &mut scratch.candidates) {
                    return Some(point);
                }
            }
            if self.pattern_percent > 0 && rng.below(100) < self.pattern_percent {
                self.shape_replies(board, color, last, &mut scratch.candidates);
                if let Some(point) = pick(board, color, rng, &mut scratch.candidates) {
                    return Some(point);
                }
            }
        }
        if self.global_capture_percent > 0 && rng.below(100) < self.global_capture_percent {
            scratch.atari_moves(board, color);
            if let Some(point) = pick(board, color, rng, &mut scratch.candidates) {
                return Some(point);
            }
        }
        // Large self-ataris are refused, except on a few turns: the throw-ins
        // that kill by nakade are self-ataris too.
        let allow_any = rng.below(100) < self.self_atari_percent;
        board.random_playout_move_where(color, rng, |board, point| {
            allow_any || self_atari_size(board, point, color) < 2
        })
    }

    /// Empty points around `last` (orthogonal and diagonal) that match a
    /// shape and are no self-atari.
    fn shape_replies(&self, board: &Board, color: Color, last: Point, out: &mut Vec<Point>) {
        out.clear();
        let around = board
            .neighbors(last)
            .into_iter()
            .chain(board.diagonals(last));
        for point in around {
            if board.is_empty_at(point)
                && self.patterns.matches(board, point)
                && self_atari_size(board, point, color) == 0
            {
                out.push(point);
            }
        }
    }

    /// Plays `board` out with `to_move` first after `last`, calling
    /// `on_move` for every stone played, until two passes in a row or
    /// `max_moves` turns.
    #[allow(clippy::too_many_arguments)] // The hot loop's state, passed as is.
    pub fn playout(
        &self,
        board: &mut Board,
        mut to_move: Color,
        mut last: Option<Point>,
        rng: &mut Rng,
        max_moves: u32,
        scratch: &mut PlayoutScratch,
        mut on_move: impl FnMut(Point, Color),
    ) -> PlayoutStats {
        let mut stats = PlayoutStats::default();
        scratch.reset(board);
        let mut passes_in_a_row = 0;
        for _ in 0..max_moves {
            match self.choose(board, to_move, last, rng, scratch) {
                Some(point) => {
                    board.play_unchecked(point, to_move);
                    scratch.note_move(board, point);
                    on_move(point, to_move);
                    stats.moves += 1;
                    passes_in_a_row = 0;
                    last = Some(point);
                }
                None => {
                    board.pass();
                    stats.passes += 1;
                    passes_in_a_row += 1;
                    last = None;
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
}

/// The tactical answers to `last`: escapes for `color`'s chains next to it
/// that are in atari, and the capture of its own chain if it is in atari.
pub(crate) fn tactical_replies(
    board: &Board,
    color: Color,
    last: Point,
    scratch: &mut PlayoutScratch,
) {
    let out = &mut scratch.candidates;
    out.clear();
    if board.stone(last) == Some(!color) {
        if let Some(liberty) = atari_liberty(board, last) {
            out.push(liberty);
        }
    }
    for n in board.neighbors(last) {
        if board.stone(n) == Some(color) && board.liberties(n) == 1 {
            escape_moves(board, n, color, out);
            // A playout that keeps extending a chain caught in a ladder
            // loses the moves and misjudges the fight.
            if let Some(liberty) = atari_liberty(board, n) {
                if out.contains(&liberty)
                    && escape_is_laddered(board, liberty, color, &mut scratch.ladders)
                {
                    out.retain(|&p| p != liberty);
                }
            }
        }
    }
}

/// A random playable point of `candidates` (which it reorders), if any.
fn pick(board: &Board, color: Color, rng: &mut Rng, candidates: &mut [Point]) -> Option<Point> {
    let mut remaining = candidates.len();
    while remaining > 0 {
        let i = rng.below(remaining);
        let point = candidates[i];
        if playable(board, point, color) {
            return Some(point);
        }
        remaining -= 1;
        candidates.swap(i, remaining);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::BoardSize;

    #[test]
    fn playouts_are_legal_and_keep_the_board_consistent() {
        let policy = PlayoutPolicy::default();
        let mut rng = Rng::new(9);
        let mut scratch = PlayoutScratch::default();
        for (side, games) in [(9, 40), (5, 100), (13, 10), (19, 4)] {
            let size = BoardSize::square(side).unwrap();
            for _ in 0..games {
                let mut board = Board::new(size);
                scratch.reset(&board);
                let mut color = Color::Black;
                let mut last = None;
                let mut passes = 0;
                for _ in 0..3 * size.points_count() {
                    match policy.choose(&mut board, color, last, &mut rng, &mut scratch) {
                        Some(p) => {
                            assert!(board.is_legal_simple(p, color), "{board:?} {p:?}");
                            assert!(!board.is_point_an_eye(p, color));
                            board.play_unchecked(p, color);
                            scratch.note_move(&board, p);
                            last = Some(p);
                            passes = 0;
                        }
                        None => {
                            board.pass();
                            last = None;
                            passes += 1;
                        }
                    }
                    board.check_consistency().unwrap();
                    assert!(scratch.tracks_every_atari(&board), "{board:?}");
                    if passes == 2 {
                        break;
                    }
                    color = !color;
                }
            }
        }
    }

    #[test]
    fn the_policy_answers_ataris() {
        // The black stone at C4 has one liberty, C3, and running there
        // gives it three.
        let board = Board::from_ascii(
            ". . . . . . .
             . . . . . . .
             . . o . . . .
             . o x o . . .
             . . . . . . .
             . . . . . . .
             . . . . . . .",
        )
        .unwrap();
        let size = board.size();
        let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
        let policy = PlayoutPolicy {
            capture_percent: 100,
            ..PlayoutPolicy::default()
        };
        let mut rng = Rng::new(1);
        let mut scratch = PlayoutScratch::default();
        scratch.reset(&board);
        // Black, after White's D4: escape to C3.
        for _ in 0..50 {
            let mut b = board.clone();
            let chosen =
                policy.choose(&mut b, Color::Black, Some(at("D4")), &mut rng, &mut scratch);
            assert_eq!(chosen, Some(at("C3")));
        }
        // White to move after Black's C4 stone: capture it at C3.
        for _ in 0..50 {
            let mut b = board.clone();
            let chosen =
                policy.choose(&mut b, Color::White, Some(at("C4")), &mut rng, &mut scratch);
            assert_eq!(chosen, Some(at("C3")));
        }
    }

    #[test]
    fn the_policy_reads_ladders() {
        // Black's C4 has put White's C3 in atari; running at D3 only
        // extends it into a ladder towards the upper right.
        let board = Board::from_ascii(
            ". . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . x . . . . . .
             . x o . . . . . .
             . . x x . . . . .
             . . . . . . . . .",
        )
        .unwrap();
        let size = board.size();
        let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
        let mut scratch = PlayoutScratch::default();
        scratch.reset(&board);
        tactical_replies(&board, Color::White, at("C4"), &mut scratch);
        assert_eq!(scratch.candidates, vec![]);
        // Black captures it when White plays elsewhere.
        scratch.atari_moves(&board, Color::Black);
        assert_eq!(scratch.candidates, vec![at("D3")]);

        // With a white stone on the ladder's path, White runs.
        let mut broken = board.clone();
        broken.play_unchecked(at("G7"), Color::White);
        scratch.reset(&broken);
        tactical_replies(&broken, Color::White, at("C4"), &mut scratch);
        assert_eq!(scratch.candidates, vec![at("D3")]);
    }
}
