//! Heavy playouts: the move policy that plays a position out to the end for
//! the tree search, with the knowledge that made MoGo and Pachi strong.
//!
//! Each turn, in this order:
//! 1. with probability [`PlayoutPolicy::capture_percent`], answer the last
//!    move tactically: save own chains it put in atari (extend, unless the
//!    extension runs into a ladder, or capture an attacker in atari), or
//!    capture the chain it left in atari;
//! 2. with probability [`PlayoutPolicy::two_liberty_percent`] (off by
//!    default), the fights of chains the last move left with two
//!    liberties: extend an own one to three, or atari the last move's chain
//!    when the atari captures it in a ladder;
//! 3. when [`PlayoutPolicy::nakade`] is on, the vital point of an eye
//!    space of three to six points next to the last move
//!    ([`crate::tactics::nakade_point`]);
//! 4. when [`PlayoutPolicy::last_good_reply`] is on, the reply that last
//!    won a playout after the same two moves, or else after the same last
//!    move ([`LastGoodReplies`]);
//! 5. with probability [`PlayoutPolicy::pattern_percent`], play a point next
//!    to the last move that matches a 3×3 shape ([`crate::patterns`]);
//! 6. with probability [`PlayoutPolicy::global_capture_percent`], a capture
//!    or an escape from atari anywhere on the board;
//! 7. otherwise a uniformly random legal move that fills no own eye and is
//!    not a self-atari of two or more stones (unless, when
//!    [`PlayoutPolicy::nakade_sacrifice`] is on, the stones once captured
//!    leave a dead eye shape), on [`PlayoutPolicy::lone_self_atari_refusal`]
//!    percent of turns not a one-stone self-atari that neither captures nor
//!    gives atari, or a pass when none is left.
//!
//! Every move chosen is legal under simple ko with suicide forbidden, and no
//! move fills a point that is the mover's own eye. The playout ends after
//! two passes in a row or at the move cap.

use tengen_core::playout::PlayoutStats;
use tengen_core::{Board, Color, EyeTest, Point, Rng, MAX_CELLS};

use crate::patterns::Patterns;
use crate::tactics::{
    atari_liberty, escape_is_laddered, escape_moves, eye_space, is_nakade_sacrifice,
    self_atari_size, touches_short_enemy, two_liberty_replies, vital_point, LadderScratch,
    PointSet,
};

/// The playout move policy and its probabilities.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayoutPolicy {
    patterns: Patterns,
    /// Percent of turns on which tactical replies to the last move are
    /// looked for.
    pub capture_percent: usize,
    /// Percent of turns on which, when no capture or escape answered the
    /// last move, chains it left with two liberties are looked at: `color`'s
    /// own are extended to three liberties, the last move's own chain is
    /// put in atari when that captures it in a ladder
    /// ([`crate::tactics::two_liberty_replies`]).
    pub two_liberty_percent: usize,
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
    /// Percent of random moves on which a one-stone self-atari is refused
    /// unless it captures or puts an enemy chain in atari
    /// ([`crate::tactics::touches_short_enemy`]): a stone thrown in where it
    /// attacks nothing only gives the opponent a capture.
    pub lone_self_atari_refusal: usize,
    /// Whether the vital point of an eye space next to the last move is
    /// played ([`crate::tactics::nakade_point`]).
    pub nakade: bool,
    /// Whether replies that won earlier playouts are replayed
    /// ([`LastGoodReplies`]).
    pub last_good_reply: bool,
    /// The points never filled: the mover's own eyes under this test.
    pub eyes: EyeTest,
    /// Whether a random move may always be a self-atari whose chain, once
    /// captured, leaves a dead eye shape ([`is_nakade_sacrifice`]): the
    /// sacrifice that kills by nakade.
    pub nakade_sacrifice: bool,
}

impl Default for PlayoutPolicy {
    fn default() -> Self {
        PlayoutPolicy {
            patterns: Patterns::new(),
            capture_percent: 90,
            two_liberty_percent: 0,
            pattern_percent: 95,
            global_capture_percent: 100,
            self_atari_percent: 10,
            lone_self_atari_refusal: 0,
            // Neither measured stronger on 9×9
            // (docs/experiments/2026-11-25-nakade-lgr-amaf-criticality.md),
            // and the eye-space walk costs time: off unless asked for.
            nakade: false,
            last_good_reply: false,
            // Measured stronger at equal time against Pachi
            // (docs/experiments/2026-11-26-real-eyes.md): the book's test
            // lets a group fill one of two eyes that touch diagonally.
            eyes: EyeTest::Real,
            nakade_sacrifice: false,
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
    /// The replies learned from this scratch's earlier playouts.
    pub replies: LastGoodReplies,
}

/// Last good reply with forgetting (Baier and Drake, 2010): after each
/// playout, every move of the winner is stored as the reply to the move
/// before it (and to the two moves before it), and a stored reply that the
/// loser played is forgotten. Later playouts replay a stored reply when it is
/// still playable. It carries what the playouts learn about the local fights
/// of this one search from playout to playout.
#[derive(Clone)]
pub struct LastGoodReplies {
    /// Per colour and last point, the reply's index + 1 (0: none).
    one: Vec<u16>,
    /// Per colour, point before last and last point, the reply's index + 1.
    /// Allocated on the first playout that learns.
    two: Vec<u16>,
    /// The moves of the playout being played, from the leaf's last move on
    /// (`None`: a pass, or no move known).
    moves: Vec<Option<Point>>,
    /// The colour of the second entry of `moves` (the playout's first mover).
    first_mover: Color,
}

impl Default for LastGoodReplies {
    fn default() -> Self {
        LastGoodReplies {
            one: Vec::new(),
            two: Vec::new(),
            moves: Vec::new(),
            first_mover: Color::Black,
        }
    }
}

impl std::fmt::Debug for LastGoodReplies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let stored = self.one.iter().filter(|&&r| r != 0).count();
        f.debug_struct("LastGoodReplies")
            .field("stored_single_replies", &stored)
            .finish()
    }
}

impl LastGoodReplies {
    fn slot_one(color: Color, last: Point) -> usize {
        color as usize * MAX_CELLS + last.index()
    }

    fn slot_two(color: Color, before: Point, last: Point) -> usize {
        (color as usize * MAX_CELLS + before.index()) * MAX_CELLS + last.index()
    }

    fn decode(stored: u16) -> Option<Point> {
        stored
            .checked_sub(1)
            .and_then(|index| Point::from_index(index as usize))
    }

    /// The stored reply of `color` to `before` then `last`, or else to
    /// `last` alone.
    pub fn reply(&self, color: Color, before: Option<Point>, last: Point) -> Option<Point> {
        if let (Some(before), false) = (before, self.two.is_empty()) {
            if let Some(point) = Self::decode(self.two[Self::slot_two(color, before, last)]) {
                return Some(point);
            }
        }
        self.one
            .get(Self::slot_one(color, last))
            .and_then(|&stored| Self::decode(stored))
    }

    /// Starts recording a playout whose first mover is `to_move`, after
    /// `last` (the leaf's last stone, if any).
    pub fn start(&mut self, to_move: Color, last: Option<Point>) {
        self.moves.clear();
        self.moves.push(last);
        self.first_mover = to_move;
    }

    /// Records the playout's next turn (`None`: a pass).
    #[inline]
    pub fn record(&mut self, mv: Option<Point>) {
        self.moves.push(mv);
    }

    /// The last two turns recorded: (before last, last).
    fn recent(&self) -> (Option<Point>, Option<Point>) {
        let n = self.moves.len();
        let last = self.moves.last().copied().flatten();
        let before = if n >= 2 { self.moves[n - 2] } else { None };
        (before, last)
    }

    /// Learns from the playout just recorded: `winner`'s moves become the
    /// stored replies, and the loser's stored replies that it played are
    /// forgotten. A drawn playout (`None`) teaches nothing.
    pub fn learn(&mut self, winner: Option<Color>) {
        let Some(winner) = winner else { return };
        if self.one.is_empty() {
            self.one = vec![0; 2 * MAX_CELLS];
            self.two = vec![0; 2 * MAX_CELLS * MAX_CELLS];
        }
        let mut mover = self.first_mover;
        for i in 1..self.moves.len() {
            if let (Some(reply), Some(last)) = (self.moves[i], self.moves[i - 1]) {
                let stored = reply.index() as u16 + 1;
                let before = if i >= 2 { self.moves[i - 2] } else { None };
                let one = Self::slot_one(mover, last);
                let two = before.map(|before| Self::slot_two(mover, before, last));
                if mover == winner {
                    self.one[one] = stored;
                    if let Some(two) = two {
                        self.two[two] = stored;
                    }
                } else {
                    if self.one[one] == stored {
                        self.one[one] = 0;
                    }
                    if let Some(two) = two {
                        if self.two[two] == stored {
                            self.two[two] = 0;
                        }
                    }
                }
            }
            mover = !mover;
        }
    }
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
/// suicide and not `color`'s own eye under `eyes`.
#[inline]
fn playable(board: &Board, point: Point, color: Color, eyes: EyeTest) -> bool {
    board.is_legal_simple(point, color) && !board.is_eye(point, color, eyes)
}

impl PlayoutPolicy {
    /// The uniform policy: no tactics, no shapes; the random move still
    /// avoids large self-ataris.
    pub fn uniform() -> PlayoutPolicy {
        PlayoutPolicy {
            capture_percent: 0,
            two_liberty_percent: 0,
            pattern_percent: 0,
            global_capture_percent: 0,
            nakade: false,
            last_good_reply: false,
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
                if let Some(point) = pick(board, color, self.eyes, rng, &mut scratch.candidates) {
                    return Some(point);
                }
            }
            if self.two_liberty_percent > 0 && rng.below(100) < self.two_liberty_percent {
                scratch.candidates.clear();
                two_liberty_replies(
                    board,
                    color,
                    last,
                    &mut scratch.candidates,
                    &mut scratch.ladders,
                );
                if let Some(point) = pick(board, color, self.eyes, rng, &mut scratch.candidates) {
                    return Some(point);
                }
            }
            if self.nakade {
                nakade_replies(board, last, &mut scratch.candidates);
                if let Some(point) = pick(board, color, self.eyes, rng, &mut scratch.candidates) {
                    return Some(point);
                }
            }
            if self.last_good_reply {
                let (before, recorded_last) = scratch.replies.recent();
                let before = before.filter(|_| recorded_last == Some(last));
                if let Some(point) = scratch.replies.reply(color, before, last) {
                    if playable(board, point, color, self.eyes)
                        && self_atari_size(board, point, color) < 2
                    {
                        return Some(point);
                    }
                }
            }
            if self.pattern_percent > 0 && rng.below(100) < self.pattern_percent {
                self.shape_replies(board, color, last, &mut scratch.candidates);
                if let Some(point) = pick(board, color, self.eyes, rng, &mut scratch.candidates) {
                    return Some(point);
                }
            }
        }
        if self.global_capture_percent > 0 && rng.below(100) < self.global_capture_percent {
            scratch.atari_moves(board, color);
            if let Some(point) = pick(board, color, self.eyes, rng, &mut scratch.candidates) {
                return Some(point);
            }
        }
        // Large self-ataris are refused, except on a few turns: the throw-ins
        // that kill by nakade are self-ataris too.
        let allow_any = rng.below(100) < self.self_atari_percent;
        // Drawn only when the option is on, so that the default playouts
        // keep their random sequence.
        let refuse_lone = !allow_any
            && self.lone_self_atari_refusal > 0
            && rng.below(100) < self.lone_self_atari_refusal;
        let sacrifices = self.nakade_sacrifice;
        board.random_move_avoiding_eyes(color, rng, self.eyes, |board, point| {
            allow_any
                || match self_atari_size(board, point, color) {
                    0 => true,
                    1 => !refuse_lone || touches_short_enemy(board, point, color),
                    3..=6 if sacrifices => is_nakade_sacrifice(board, point, color),
                    _ => false,
                }
        })
    }

    /// Learns the replies of the playout just played on `scratch` from its
    /// `winner` (`None`: a draw; see
    /// [`tengen_core::scoring::winner_by_margin`]), when last good replies
    /// are on.
    pub fn learn(&self, scratch: &mut PlayoutScratch, winner: Option<Color>) {
        if self.last_good_reply {
            scratch.replies.learn(winner);
        }
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
        if self.last_good_reply {
            scratch.replies.start(to_move, last);
        }
        let mut passes_in_a_row = 0;
        for _ in 0..max_moves {
            match self.choose(board, to_move, last, rng, scratch) {
                Some(point) => {
                    board.play_unchecked(point, to_move);
                    scratch.note_move(board, point);
                    if self.last_good_reply {
                        scratch.replies.record(Some(point));
                    }
                    on_move(point, to_move);
                    stats.moves += 1;
                    passes_in_a_row = 0;
                    last = Some(point);
                }
                None => {
                    board.pass();
                    if self.last_good_reply {
                        scratch.replies.record(None);
                    }
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
    // A chain touching `last` twice is answered once: the second time would
    // find the same escapes and read the same ladder again.
    let mut answered = PointSet::<4>::new(last);
    for n in board.neighbors(last) {
        if board.stone(n) == Some(color) && board.liberties(n) == 1 {
            if let Some(head) = board.chain_head(n) {
                if answered.as_slice().contains(&head) {
                    continue;
                }
                answered.insert(head);
            }
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

/// The vital points of the eye spaces next to `last` ([`crate::tactics::nakade_point`]):
/// after a capture or a move that shapes an eye space, whoever plays there
/// first decides whether the group lives.
fn nakade_replies(board: &Board, last: Point, out: &mut Vec<Point>) {
    out.clear();
    // The eye space must be bounded by the last stone's colour.
    let Some(owner) = board.stone(last) else {
        return;
    };
    let mut regions = [PointSet::<7>::new(last); 4];
    for (i, n) in board.neighbors(last).into_iter().enumerate() {
        // A neighbour in a region already walked has the same answer.
        if regions[..i].iter().any(|r| r.as_slice().contains(&n)) {
            continue;
        }
        if eye_space(board, n, Some(owner), &mut regions[i]) {
            if let Some(point) = vital_point(board, regions[i].as_slice()) {
                out.push(point);
            }
        }
    }
}

/// A random playable point of `candidates` (which it reorders), if any.
fn pick(
    board: &Board,
    color: Color,
    eyes: EyeTest,
    rng: &mut Rng,
    candidates: &mut [Point],
) -> Option<Point> {
    let mut remaining = candidates.len();
    while remaining > 0 {
        let i = rng.below(remaining);
        let point = candidates[i];
        if playable(board, point, color, eyes) {
            return Some(point);
        }
        remaining -= 1;
        candidates.swap(i, remaining);
    }
    None
}

#[cfg(test)]
mod tests;
