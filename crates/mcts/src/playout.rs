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
    fn playouts_that_replay_learned_replies_stay_legal() {
        let policy = PlayoutPolicy {
            last_good_reply: true,
            ..PlayoutPolicy::default()
        };
        let mut rng = Rng::new(11);
        let mut scratch = PlayoutScratch::default();
        let size = BoardSize::square(9).unwrap();
        let mut replayed = 0;
        for _ in 0..200 {
            let mut board = Board::new(size);
            let mut moves = Vec::new();
            policy.playout(
                &mut board,
                Color::Black,
                None,
                &mut rng,
                300,
                &mut scratch,
                |p, c| moves.push((p, c)),
            );
            board.check_consistency().unwrap();
            // Replay the moves on a fresh board: each was legal and no eye.
            let mut replay = Board::new(size);
            for &(p, c) in &moves {
                assert!(replay.is_legal_simple(p, c), "{replay:?} {p:?}");
                assert!(!replay.is_point_an_eye(p, c));
                replay.play_unchecked(p, c);
            }
            replayed += moves
                .windows(2)
                .filter(|w| scratch.replies.reply(w[1].1, None, w[0].0) == Some(w[1].0))
                .count();
            let winner = if rng.below(2) == 0 {
                Color::Black
            } else {
                Color::White
            };
            policy.learn(&mut scratch, Some(winner));
        }
        // The tables were in use: many moves were a stored reply.
        assert!(replayed > 1000, "{replayed}");
    }

    #[test]
    fn real_eyes_keep_a_group_with_diagonal_eyes_alive() {
        // White's group has two eyes, A3 and B2, and no other liberty. The
        // book's test does not count A3 (an edge point with an empty
        // diagonal), so its playouts let White fill it now and then, and
        // Black captures at B2; with real eyes the group always lives.
        let start = Board::from_ascii(
            ". . . . . . .
             . . . . . . .
             x x x x . . .
             o o o x . . .
             . o o x . . .
             o . o x . . .
             o o o x . . .",
        )
        .unwrap();
        let at = |v: &str| start.size().parse_gtp(v).unwrap().point().unwrap();
        assert!(!start.is_point_an_eye(at("A3"), Color::White));
        assert!(start.is_real_eye(at("A3"), Color::White));
        let mut lost = [0, 0];
        for (k, eyes) in [EyeTest::Book, EyeTest::Real].into_iter().enumerate() {
            let policy = PlayoutPolicy {
                eyes,
                ..PlayoutPolicy::default()
            };
            let mut rng = Rng::new(5);
            let mut scratch = PlayoutScratch::default();
            for _ in 0..200 {
                let mut board = start.clone();
                policy.playout(
                    &mut board,
                    Color::Black,
                    None,
                    &mut rng,
                    200,
                    &mut scratch,
                    |p, c| {
                        assert!(
                            eyes == EyeTest::Book || !start.is_real_eye(p, c),
                            "{c:?} filled a real eye at {p:?}"
                        );
                    },
                );
                if board.stone(at("C4")) != Some(Color::White) {
                    lost[k] += 1;
                }
            }
        }
        assert!(
            lost[0] > 0,
            "the book's eyes lost the group {} times",
            lost[0]
        );
        assert_eq!(lost[1], 0, "real eyes lost the group");
    }

    /// Plays `games` random playouts of `policy` on 9×9 and counts the moves
    /// that were a one-stone self-atari attacking no chain short of
    /// liberties.
    fn pointless_lone_self_ataris(policy: &PlayoutPolicy, seed: u64, games: usize) -> usize {
        let mut rng = Rng::new(seed);
        let mut scratch = PlayoutScratch::default();
        let size = BoardSize::square(9).unwrap();
        let mut pointless = 0;
        for _ in 0..games {
            let mut board = Board::new(size);
            scratch.reset(&board);
            let (mut color, mut last) = (Color::Black, None);
            for _ in 0..200 {
                let Some(p) = policy.choose(&mut board, color, last, &mut rng, &mut scratch) else {
                    break;
                };
                if self_atari_size(&board, p, color) == 1 && !touches_short_enemy(&board, p, color)
                {
                    pointless += 1;
                }
                board.play_unchecked(p, color);
                scratch.note_move(&board, p);
                last = Some(p);
                color = !color;
            }
        }
        pointless
    }

    #[test]
    fn refused_lone_self_ataris_are_never_played() {
        // Random moves only, so that every move goes through the refusal.
        let random_only = PlayoutPolicy {
            capture_percent: 0,
            pattern_percent: 0,
            global_capture_percent: 0,
            self_atari_percent: 0,
            ..PlayoutPolicy::default()
        };
        let refusing = PlayoutPolicy {
            lone_self_atari_refusal: 100,
            ..random_only.clone()
        };
        assert!(pointless_lone_self_ataris(&random_only, 3, 40) > 0);
        assert_eq!(pointless_lone_self_ataris(&refusing, 3, 40), 0);
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
    fn the_policy_fights_chains_left_with_two_liberties() {
        // Black's B4 left White's C4-C3 with two liberties, D4 and D3.
        let board = Board::from_ascii(
            ". . . . . .
             . . x . . .
             . x o . . .
             . x o . . .
             . . x . . .
             . . . . . .",
        )
        .unwrap();
        let size = board.size();
        let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
        let mut rng = Rng::new(3);
        let mut scratch = PlayoutScratch::default();
        scratch.reset(&board);
        let on = PlayoutPolicy {
            two_liberty_percent: 100,
            ..PlayoutPolicy::default()
        };
        for _ in 0..50 {
            let mut b = board.clone();
            let chosen = on.choose(&mut b, Color::White, Some(at("B4")), &mut rng, &mut scratch);
            assert!(
                chosen == Some(at("D4")) || chosen == Some(at("D3")),
                "{chosen:?}"
            );
        }
        // Off, the shapes and random moves play elsewhere at times.
        let off = PlayoutPolicy::default();
        let elsewhere = (0..200)
            .filter(|_| {
                let mut b = board.clone();
                let chosen =
                    off.choose(&mut b, Color::White, Some(at("B4")), &mut rng, &mut scratch);
                chosen != Some(at("D4")) && chosen != Some(at("D3"))
            })
            .count();
        assert!(elsewhere > 0);
    }

    #[test]
    fn last_good_replies_keep_the_winners_moves_and_forget_the_losers() {
        let size = BoardSize::square(9).unwrap();
        let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
        let mut replies = LastGoodReplies::default();
        assert_eq!(replies.reply(Color::White, None, at("E5")), None);
        // After Black's E5 in the tree: White C3, Black D4, White passes,
        // Black G7; Black wins.
        replies.start(Color::White, Some(at("E5")));
        for mv in [Some(at("C3")), Some(at("D4")), None, Some(at("G7"))] {
            replies.record(mv);
        }
        replies.learn(Some(Color::Black));
        // Only the winner's moves were stored.
        assert_eq!(replies.reply(Color::White, None, at("E5")), None);
        assert_eq!(replies.reply(Color::Black, None, at("C3")), Some(at("D4")));
        assert_eq!(
            replies.reply(Color::Black, Some(at("E5")), at("C3")),
            Some(at("D4"))
        );
        // A reply after a pass is not stored.
        assert_eq!(replies.reply(Color::Black, None, at("D4")), None);

        // A draw teaches nothing.
        replies.start(Color::Black, Some(at("C3")));
        replies.record(Some(at("F6")));
        replies.learn(None);
        assert_eq!(replies.reply(Color::Black, None, at("C3")), Some(at("D4")));

        // After another first move, the two-move reply is unknown and the
        // one-move reply answers.
        assert_eq!(
            replies.reply(Color::Black, Some(at("A1")), at("C3")),
            Some(at("D4"))
        );

        // Black plays D4 after C3 again and loses: both entries are forgotten.
        replies.start(Color::White, Some(at("E5")));
        replies.record(Some(at("C3")));
        replies.record(Some(at("D4")));
        replies.learn(Some(Color::White));
        assert_eq!(replies.reply(Color::Black, None, at("C3")), None);
        assert_eq!(replies.reply(Color::Black, Some(at("E5")), at("C3")), None);
        // White's winning reply to E5 is stored now.
        assert_eq!(replies.reply(Color::White, None, at("E5")), Some(at("C3")));

        // A loser's move that differs from the stored reply leaves it.
        replies.start(Color::Black, Some(at("E5")));
        replies.record(Some(at("B2")));
        replies.learn(Some(Color::Black));
        assert_eq!(replies.reply(Color::White, None, at("E5")), Some(at("C3")));
    }

    #[test]
    fn the_playout_replays_a_good_reply_while_it_is_playable() {
        let size = BoardSize::square(9).unwrap();
        let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
        let policy = PlayoutPolicy {
            last_good_reply: true,
            ..PlayoutPolicy::default()
        };
        let mut rng = Rng::new(5);
        let mut scratch = PlayoutScratch::default();
        scratch.replies.start(Color::Black, Some(at("E5")));
        scratch.replies.record(Some(at("C7")));
        scratch.replies.learn(Some(Color::Black));

        let mut board = Board::new(size);
        board.play_unchecked(at("E5"), Color::White);
        scratch.reset(&board);
        scratch.replies.start(Color::Black, Some(at("E5")));
        for _ in 0..20 {
            let mut b = board.clone();
            let chosen =
                policy.choose(&mut b, Color::Black, Some(at("E5")), &mut rng, &mut scratch);
            assert_eq!(chosen, Some(at("C7")));
        }
        // Off, or once the point is taken, the reply is not played.
        let off = PlayoutPolicy {
            last_good_reply: false,
            ..PlayoutPolicy::default()
        };
        let chosen: Vec<_> = (0..20)
            .map(|_| {
                off.choose(
                    &mut board.clone(),
                    Color::Black,
                    Some(at("E5")),
                    &mut rng,
                    &mut scratch,
                )
            })
            .collect();
        assert!(chosen.iter().any(|&p| p != Some(at("C7"))), "{chosen:?}");
        board.play_unchecked(at("C7"), Color::White);
        for _ in 0..20 {
            let chosen = policy.choose(
                &mut board.clone(),
                Color::Black,
                Some(at("E5")),
                &mut rng,
                &mut scratch,
            );
            assert_ne!(chosen, Some(at("C7")));
        }
    }

    #[test]
    fn the_policy_plays_the_vital_point_of_an_eye_space() {
        // White's D1 has closed an eye space of three points, A1-C1, and
        // White's chain has no other liberty: whoever plays B1 decides.
        let board = Board::from_ascii(
            ". . . . . . .
             . . . . . . .
             . . . . . . .
             . . . . . . .
             x x x x x . .
             o o o o x . .
             . . . o x . .",
        )
        .unwrap();
        let size = board.size();
        let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
        let policy = PlayoutPolicy {
            nakade: true,
            ..PlayoutPolicy::default()
        };
        let mut rng = Rng::new(3);
        let mut scratch = PlayoutScratch::default();
        scratch.reset(&board);
        let mut black_after_d1 = |policy: &PlayoutPolicy| {
            policy.choose(
                &mut board.clone(),
                Color::Black,
                Some(at("D1")),
                &mut rng,
                &mut scratch,
            )
        };
        for _ in 0..50 {
            assert_eq!(black_after_d1(&policy), Some(at("B1")));
        }
        // Without the rule, B1 is one move among many.
        let off = PlayoutPolicy {
            nakade: false,
            ..policy.clone()
        };
        let b1 = (0..50)
            .filter(|_| black_after_d1(&off) == Some(at("B1")))
            .count();
        assert!(b1 < 25, "{b1}");
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
