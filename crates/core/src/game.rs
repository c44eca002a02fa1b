//! The game: a board plus whose turn it is, the history, the superko record,
//! passes and resignation, all under one [`Rules`] value.
//!
//! The same `Game` plays Go and NoGo ([`crate::Variant`]): under NoGo,
//! [`Game::legal_as`] refuses captures, suicide and passes, the game is over
//! when the side to move has no legal move (or someone resigned), and the side
//! that cannot move loses ([`Outcome::NoLegalMove`]).

use std::collections::HashMap;
use std::fmt;

use crate::board::{Board, SetupError};
use crate::color::Color;
use crate::handicap::fixed_handicap_points;
use crate::point::{BoardSize, Move, Point};
use crate::rules::{HandicapBonus, KoRule, Rules, SuicideRule};
use crate::scoring::{self, Outcome, Score};
use crate::zobrist::WHITE_TO_MOVE;

/// What a player does on a turn: a move, or resigning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    /// Play a stone or pass.
    Move(Move),
    /// Give up the game.
    Resign,
}

impl From<Move> for Action {
    fn from(mv: Move) -> Action {
        Action::Move(mv)
    }
}

/// Why a move is not allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IllegalMove {
    /// The game has ended (two passes in a row, or a resignation; under NoGo,
    /// also the side to move having no legal move).
    GameOver,
    /// The point is not on this board.
    OffBoard,
    /// A stone is already there.
    Occupied,
    /// The stone's own chain would be left without liberties, which the rules
    /// forbid.
    Suicide,
    /// It retakes a single-stone ko at once.
    Ko,
    /// It recreates an earlier position, which the superko rule forbids.
    Superko,
    /// It would capture, which NoGo forbids.
    Capture,
    /// A pass, which NoGo forbids.
    Pass,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IllegalMove::GameOver => "the game is over",
            IllegalMove::OffBoard => "the point is off the board",
            IllegalMove::Occupied => "the point is occupied",
            IllegalMove::Suicide => "suicide is not allowed",
            IllegalMove::Ko => "the ko cannot be retaken at once",
            IllegalMove::Superko => "it repeats an earlier position (superko)",
            IllegalMove::Capture => "capturing is not allowed in NoGo",
            IllegalMove::Pass => "passing is not allowed in NoGo",
        })
    }
}

impl std::error::Error for IllegalMove {}

/// A move of a record that cannot be replayed ([`Game::replay`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplayError {
    /// The move's index in the record, from 0.
    pub index: usize,
    /// Who played it.
    pub color: Color,
    /// The move.
    pub mv: Move,
    /// Why it is illegal there.
    pub reason: IllegalMove,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {} is illegal: {}", self.index + 1, self.reason)
    }
}

impl std::error::Error for ReplayError {}

/// One turn of the history, with what is needed to take it back.
#[derive(Clone, Debug)]
struct Turn {
    color: Color,
    action: Action,
    board_before: Board,
    passes_before: u8,
}

/// A game of Go: the book's `GameState`.
///
/// ```
/// use tengen_core::{Game, BoardSize, Move, Rules};
/// let size = BoardSize::square(9).unwrap();
/// let mut game = Game::new(size, Rules::default());
/// let d4 = size.parse_gtp("D4").unwrap();
/// game.play(d4).unwrap();
/// assert!(game.play(d4).is_err()); // occupied
/// game.play(Move::Pass).unwrap();
/// game.play(Move::Pass).unwrap();
/// assert!(game.is_over());
/// assert_eq!(game.outcome().to_string(), "B+73.5");
/// ```
#[derive(Clone, Debug)]
pub struct Game {
    board: Board,
    rules: Rules,
    to_move: Color,
    turns: Vec<Turn>,
    consecutive_passes: u8,
    resigned: Option<Color>,
    /// Board hash and side to move of every position so far, the start included.
    positions: Vec<(u64, Color)>,
    /// How often each superko key occurs in `positions`.
    seen: HashMap<u64, u32>,
    handicap: usize,
}

impl Game {
    /// A new game on an empty board, Black to move.
    pub fn new(size: BoardSize, rules: Rules) -> Game {
        Game::from_position(Board::new(size), Color::Black, rules)
    }

    /// A game starting from a set-up position (free handicap, SGF `AB`/`AW`,
    /// a diagram). Every [`Board`] is a legal position, so this cannot fail.
    pub fn from_position(board: Board, to_move: Color, rules: Rules) -> Game {
        let mut game = Game {
            positions: vec![(board.hash(), to_move)],
            board,
            rules,
            to_move,
            turns: Vec::new(),
            consecutive_passes: 0,
            resigned: None,
            seen: HashMap::new(),
            handicap: 0,
        };
        game.rebuild_seen();
        game
    }

    /// A game with `stones` fixed handicap stones for Black (GTP placement, see
    /// [`crate::fixed_handicap_points`]), White to move. Zero means an even game.
    pub fn with_handicap(size: BoardSize, rules: Rules, stones: usize) -> Result<Game, SetupError> {
        if stones == 0 {
            return Ok(Game::new(size, rules));
        }
        let points = fixed_handicap_points(size, stones).ok_or_else(|| {
            SetupError::Handicap(format!(
                "a fixed handicap of {stones} stones is not possible on a {size} board (allowed: 2 to {})",
                crate::handicap::max_fixed_handicap(size)
            ))
        })?;
        Game::with_free_handicap(size, rules, &points)
    }

    /// A game with Black's handicap stones at `points` (GTP `set_free_handicap`),
    /// White to move. At least one point; repeated points are refused.
    pub fn with_free_handicap(
        size: BoardSize,
        rules: Rules,
        points: &[Point],
    ) -> Result<Game, SetupError> {
        if points.is_empty() || points.len() >= size.points_count() {
            return Err(SetupError::Handicap(format!(
                "invalid number of handicap stones: {}",
                points.len()
            )));
        }
        let mut board = Board::new(size);
        for &point in points {
            board.place_setup_stone(point, Color::Black)?;
        }
        let mut game = Game::from_position(board, Color::White, rules);
        game.handicap = points.len();
        Ok(game)
    }

    /// The current board.
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The board's dimensions.
    pub fn size(&self) -> BoardSize {
        self.board.size()
    }

    /// The rules in force.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Changes the rules mid-game (komi, or a whole rule set from a GTP client);
    /// the superko record is rebuilt for the new ko rule.
    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
        self.rebuild_seen();
    }

    /// The side to move.
    #[inline]
    pub fn to_move(&self) -> Color {
        self.to_move
    }

    /// Number of handicap stones the game started with.
    pub fn handicap(&self) -> usize {
        self.handicap
    }

    /// The moves and resignations so far, in order.
    pub fn history(&self) -> impl Iterator<Item = (Color, Action)> + '_ {
        self.turns.iter().map(|t| (t.color, t.action))
    }

    /// Number of turns played (passes and resignation included).
    pub fn turn_count(&self) -> usize {
        self.turns.len()
    }

    /// The last move made, if any.
    pub fn last_move(&self) -> Option<(Color, Move)> {
        self.turns.iter().rev().find_map(|t| match t.action {
            Action::Move(mv) => Some((t.color, mv)),
            Action::Resign => None,
        })
    }

    /// The moves of the history, in order (a resignation is not a move):
    /// the game's record, which [`Game::start`] and [`Game::replay`] play
    /// back.
    pub fn moves(&self) -> Vec<(Color, Move)> {
        self.turns
            .iter()
            .filter_map(|t| match t.action {
                Action::Move(mv) => Some((t.color, mv)),
                Action::Resign => None,
            })
            .collect()
    }

    /// A game at this one's start: its initial board and rules, the side
    /// that made the first turn to move (the side to move now where there
    /// was none).
    pub fn start(&self) -> Game {
        let first = self.turns.first().map_or(self.to_move, |t| t.color);
        Game::from_position(self.initial_board().clone(), first, self.rules)
    }

    /// The board before the first turn (setup and handicap stones only).
    pub fn initial_board(&self) -> &Board {
        self.turns.first().map_or(&self.board, |t| &t.board_before)
    }

    /// Passes in a row at the end of the history.
    pub fn consecutive_passes(&self) -> u8 {
        self.consecutive_passes
    }

    /// The side that resigned, if one did.
    pub fn resigned(&self) -> Option<Color> {
        self.resigned
    }

    /// Whether the game has ended: two passes in a row, or a resignation;
    /// under NoGo also when the side to move has no legal move (it has lost).
    ///
    /// Under NoGo this looks for a legal move and stops at the first one,
    /// which is usually among the first points tried; only near the end of a
    /// game does it test every empty point.
    #[inline]
    pub fn is_over(&self) -> bool {
        self.consecutive_passes >= 2
            || self.resigned.is_some()
            || (self.rules.is_nogo() && !self.has_nogo_move(self.to_move))
    }

    /// Whether `color` has a legal NoGo move on the board.
    fn has_nogo_move(&self, color: Color) -> bool {
        self.board
            .empty_points()
            .any(|p| self.board.is_legal_nogo(p, color))
    }

    /// The same game with `color` to move, for asking a bot to choose for
    /// the side that is not to move (GTP lets a controller ask for either).
    /// Board, history and ko stay, and the superko record gains the
    /// position with `color` to move, as if the other side had passed; but
    /// no turn is recorded and no pass counted: the side that moved last is
    /// asked again, and nobody has passed to it (a bot that passes after an
    /// opponent's pass would be misled). A game already over stays over.
    /// Moves played on the copy can be undone back to it, not beyond. With
    /// `color` already to move, a plain copy.
    pub fn with_mover(&self, color: Color) -> Game {
        let mut view = self.clone();
        if view.to_move != color {
            view.to_move = color;
            if view.consecutive_passes < 2 {
                view.consecutive_passes = 0;
            }
            view.record_position();
        }
        view
    }

    /// Adds the position now on the board, with its side to move, to the
    /// superko record.
    fn record_position(&mut self) {
        let position = (self.board.hash(), self.to_move);
        self.positions.push(position);
        *self
            .seen
            .entry(self.superko_key(position.0, position.1))
            .or_insert(0) += 1;
    }

    fn superko_key(&self, hash: u64, to_move: Color) -> u64 {
        match self.rules.ko {
            KoRule::SituationalSuperko if to_move == Color::White => hash ^ WHITE_TO_MOVE,
            _ => hash,
        }
    }

    fn rebuild_seen(&mut self) {
        self.seen.clear();
        for i in 0..self.positions.len() {
            let (hash, to_move) = self.positions[i];
            *self
                .seen
                .entry(self.superko_key(hash, to_move))
                .or_insert(0) += 1;
        }
    }

    /// The hashes of the boards in the history (this one included) that one
    /// move of the side to move could recreate: the only ones that can make
    /// a move from here a superko violation.
    ///
    /// A move adds one stone of the mover's and removes only the opponent's
    /// stones it captures, so the board it makes has one more stone of the
    /// mover's and no more of the opponent's than this one; a suicide (where
    /// the rules allow one) leaves the opponent's stones as they are and the
    /// mover with no more. Only boards with such stone counts are listed,
    /// found from each turn's placements and captures without counting any
    /// board. The list may hold boards no move reaches, and repeats a board
    /// the history repeats.
    pub fn boards_within_one_move(&self) -> Vec<u64> {
        let mover = self.to_move;
        let suicide = self.rules.suicide != SuicideRule::Forbidden;
        let reachable = |mover_gain: i64, opponent_gain: i64| {
            (mover_gain == -1 && opponent_gain >= 0)
                || (suicide && opponent_gain == 0 && mover_gain >= 0)
        };
        let mut found = Vec::new();
        if reachable(0, 0) {
            found.push(self.board.hash());
        }
        // This board's stone counts less the earlier one's, for the mover
        // and for the opponent.
        let (mut mover_gain, mut opponent_gain) = (0i64, 0i64);
        let mut after = &self.board;
        for turn in self.turns.iter().rev() {
            let before = &turn.board_before;
            if let Action::Move(mv) = turn.action {
                let placed = |color: Color| i64::from(turn.color == color && mv != Move::Pass);
                let lost = |color: Color| {
                    i64::from(after.captures()[!color]) - i64::from(before.captures()[!color])
                };
                mover_gain += placed(mover) - lost(mover);
                opponent_gain += placed(!mover) - lost(!mover);
                if reachable(mover_gain, opponent_gain) {
                    found.push(before.hash());
                }
            }
            after = before;
        }
        found
    }

    /// What the history adds to this position for superko: a hash of the
    /// positions in the superko record that one move could recreate
    /// ([`Game::boards_within_one_move`]), 0 when there are none or the ko
    /// rule is simple. Two games under the same rules with the same board,
    /// side to move, ko point and context forbid the same moves, whatever
    /// their histories, so a search may share what it learnt about one with
    /// the other.
    pub fn superko_context(&self) -> u64 {
        if self.rules.ko == KoRule::Simple {
            return 0;
        }
        // After the move the opponent is to move.
        let mut keys: Vec<u64> = self
            .boards_within_one_move()
            .into_iter()
            .map(|hash| self.superko_key(hash, !self.to_move))
            .filter(|key| self.seen.contains_key(key))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys.into_iter().fold(0, |context, key| {
            crate::rng::splitmix64(context ^ key).max(1)
        })
    }

    /// Whether the side to move may make `mv`, and if not, why.
    pub fn legal(&self, mv: Move) -> Result<(), IllegalMove> {
        self.legal_as(self.to_move, mv)
    }

    /// Whether `color` may make `mv` now (GTP lets either colour play at any
    /// time), and if not, why.
    ///
    /// Under NoGo a move is legal when the point is on the board and empty and
    /// the stone neither captures nor is captured ([`Board::is_legal_nogo`]);
    /// passes never are. When the side to move has no legal move the game is
    /// over, but each of its moves is refused for its own reason (occupied,
    /// capture, suicide) rather than [`IllegalMove::GameOver`], which under
    /// NoGo means a resignation; the other colour may still play where it
    /// legally can, as GTP allows.
    pub fn legal_as(&self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        if self.rules.is_nogo() {
            return self.legal_nogo(color, mv);
        }
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        self.legal_going_on_as(color, mv)
    }

    /// Whether the side to move could make `mv` if the game went on after
    /// its end: the board's rules only (occupied, suicide, ko, superko).
    /// KataGo's networks mark legal moves this way, also after the passes
    /// that end a game under territory scoring, where its search plays on.
    pub fn legal_going_on(&self, mv: Move) -> Result<(), IllegalMove> {
        if self.rules.is_nogo() {
            return self.legal_nogo(self.to_move, mv);
        }
        self.legal_going_on_as(self.to_move, mv)
    }

    fn legal_going_on_as(&self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        let Move::Play(point) = mv else {
            return Ok(());
        };
        let board = &self.board;
        if !board.size().contains(point) {
            return Err(IllegalMove::OffBoard);
        }
        if !board.is_empty_at(point) {
            return Err(IllegalMove::Occupied);
        }
        if board.is_suicide(point, color) {
            let lost = board.removals_after(point, color).lost;
            match self.rules.suicide {
                SuicideRule::Forbidden => return Err(IllegalMove::Suicide),
                SuicideRule::MultiStoneAllowed if lost < 2 => return Err(IllegalMove::Suicide),
                _ => {}
            }
        }
        if board.is_ko_retake(point, color) {
            return Err(IllegalMove::Ko);
        }
        if self.rules.ko != KoRule::Simple {
            let key = self.superko_key(board.hash_after(point, color), !color);
            if self.seen.contains_key(&key) {
                return Err(IllegalMove::Superko);
            }
        }
        Ok(())
    }

    /// [`Game::legal_as`] under NoGo. No ko or superko test: without captures
    /// every move adds a stone, so no position can come back.
    fn legal_nogo(&self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        if self.resigned.is_some() || self.consecutive_passes >= 2 {
            return Err(IllegalMove::GameOver);
        }
        let Move::Play(point) = mv else {
            return Err(IllegalMove::Pass);
        };
        let board = &self.board;
        if !board.size().contains(point) {
            return Err(IllegalMove::OffBoard);
        }
        if !board.is_empty_at(point) {
            return Err(IllegalMove::Occupied);
        }
        if board.is_legal_nogo(point, color) {
            Ok(())
        } else if board.is_capture(point, color) {
            Err(IllegalMove::Capture)
        } else {
            Err(IllegalMove::Suicide)
        }
    }

    /// Makes `mv` for the side to move, if legal; on error nothing changes.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        self.play_as(self.to_move, mv)
    }

    /// Makes `mv` for `color`, if legal; afterwards the opponent of `color` is to
    /// move. On error nothing changes.
    pub fn play_as(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        self.legal_as(color, mv)?;
        let takes_button = mv == Move::Pass && self.rules.button && self.button_taker().is_none();
        self.turns.push(Turn {
            color,
            action: Action::Move(mv),
            board_before: self.board.clone(),
            passes_before: self.consecutive_passes,
        });
        match mv {
            Move::Play(point) => {
                self.board.play_unchecked(point, color);
                self.consecutive_passes = 0;
            }
            Move::Pass => {
                self.board.pass();
                // The pass that takes the button does not count towards
                // the two that end the game.
                if takes_button {
                    self.consecutive_passes = 0;
                } else {
                    self.consecutive_passes += 1;
                }
            }
        }
        self.to_move = !color;
        self.record_position();
        Ok(())
    }

    /// This game, or, where it is over, a fresh game from its position with
    /// the same side to move: what a record that goes on after two passes
    /// (a dispute, a review past the end) is played from, as KataGo's
    /// analysis plays it.
    pub fn going_on(self) -> Game {
        if self.is_over() {
            Game::from_position(self.board.clone(), self.to_move, self.rules)
        } else {
            self
        }
    }

    /// Plays a record's `moves` from this game, each by its own colour, the
    /// game going on where it has ended ([`Game::going_on`]). `visit(turn,
    /// game)` sees the game before each move (turn 0 is this game) and after
    /// the last (turn `moves.len()`); the game after the last is returned.
    /// A record with an illegal move is refused as a whole: the first one
    /// and why.
    pub fn replay(
        self,
        moves: &[(Color, Move)],
        mut visit: impl FnMut(usize, &Game),
    ) -> Result<Game, ReplayError> {
        let mut game = self;
        for (index, &(color, mv)) in moves.iter().enumerate() {
            visit(index, &game);
            game = game.going_on();
            game.play_as(color, mv).map_err(|reason| ReplayError {
                index,
                color,
                mv,
                reason,
            })?;
        }
        visit(moves.len(), &game);
        Ok(game)
    }

    /// The side to move resigns.
    pub fn resign(&mut self) -> Result<(), IllegalMove> {
        self.resign_as(self.to_move)
    }

    /// `color` resigns (at any time, as GTP and servers allow).
    pub fn resign_as(&mut self, color: Color) -> Result<(), IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        self.turns.push(Turn {
            color,
            action: Action::Resign,
            board_before: self.board.clone(),
            passes_before: self.consecutive_passes,
        });
        self.resigned = Some(color);
        Ok(())
    }

    /// Applies an action for the side to move.
    pub fn apply(&mut self, action: Action) -> Result<(), IllegalMove> {
        match action {
            Action::Move(mv) => self.play(mv),
            Action::Resign => self.resign(),
        }
    }

    /// Takes back the last turn (a move, a pass or a resignation). Returns what
    /// was undone, or `None` at the start of the game.
    pub fn undo(&mut self) -> Option<(Color, Action)> {
        let turn = self.turns.pop()?;
        match turn.action {
            Action::Resign => self.resigned = None,
            Action::Move(_) => {
                if let Some((hash, to_move)) = self.positions.pop() {
                    let key = self.superko_key(hash, to_move);
                    if let Some(count) = self.seen.get_mut(&key) {
                        *count -= 1;
                        if *count == 0 {
                            self.seen.remove(&key);
                        }
                    }
                }
                self.to_move = turn.color;
            }
        }
        self.board = turn.board_before;
        self.consecutive_passes = turn.passes_before;
        Some((turn.color, turn.action))
    }

    /// Every legal move for the side to move, in point order, pass included
    /// under Go (never under NoGo); empty when the game is over.
    pub fn legal_moves(&self) -> Vec<Move> {
        if self.rules.is_nogo() {
            if self.resigned.is_some() || self.consecutive_passes >= 2 {
                return Vec::new();
            }
            let mut moves: Vec<Move> = self
                .board
                .empty_points()
                .filter(|&p| self.board.is_legal_nogo(p, self.to_move))
                .map(Move::Play)
                .collect();
            moves.sort_by_key(|m| m.point());
            return moves;
        }
        if self.is_over() {
            return Vec::new();
        }
        let mut moves: Vec<Move> = self
            .board
            .empty_points()
            .filter(|&p| self.legal(Move::Play(p)).is_ok())
            .map(Move::Play)
            .collect();
        moves.sort_by_key(|m| m.point());
        moves.push(Move::Pass);
        moves
    }

    /// The score of the current position under the game's rules, no stone
    /// dead, with the points the history gives (see [`Game::score_with_dead`]).
    pub fn score(&self) -> Score {
        self.score_with_dead(&[])
    }

    /// The score with the stones at `dead` removed as dead: the board's
    /// count ([`scoring::score`]) plus half a point to the side that took
    /// the button and White's handicap bonus.
    pub fn score_with_dead(&self, dead: &[Point]) -> Score {
        let mut score = scoring::score(&self.board, &self.rules, dead);
        match self.button_taker() {
            Some(Color::Black) => score.black += 0.5,
            Some(Color::White) => score.white += 0.5,
            None => {}
        }
        score.white += match self.rules.handicap_bonus {
            HandicapBonus::Zero => 0.0,
            HandicapBonus::N => self.handicap_stones() as f64,
            HandicapBonus::NMinusOne => self.handicap_stones().saturating_sub(1) as f64,
        };
        score
    }

    /// Under a button rule, the side whose pass took the button (the first
    /// pass of the game).
    pub fn button_taker(&self) -> Option<Color> {
        if !self.rules.button {
            return None;
        }
        self.turns
            .iter()
            .find(|t| t.action == Action::Move(Move::Pass))
            .map(|t| t.color)
    }

    /// The handicap stones White's bonus counts: the handicap the game was
    /// set up with, or else the Black stones of a starting position without
    /// White stones when there are two or more of them (handicap stones
    /// placed as setup, as SGF's `AB` and KataGo's `initialStones` do).
    pub fn handicap_stones(&self) -> usize {
        if self.handicap > 0 {
            return self.handicap;
        }
        let start = self.initial_board();
        let (mut black, mut white) = (0, 0);
        for point in start.size().points() {
            match start.stone(point) {
                Some(Color::Black) => black += 1,
                Some(Color::White) => white += 1,
                None => {}
            }
        }
        if white == 0 && black >= 2 {
            black
        } else {
            0
        }
    }

    /// The result: a resignation; under NoGo, once the side to move has no
    /// legal move, its loss ([`Outcome::NoLegalMove`]); otherwise the count of
    /// the current position (under NoGo, where nothing is counted, that is
    /// only a stand-in while the game goes on: see [`Game::result`]).
    pub fn outcome(&self) -> Outcome {
        if let Some(loser) = self.resigned {
            return Outcome::Resignation { winner: !loser };
        }
        if self.rules.is_nogo() && !self.has_nogo_move(self.to_move) {
            return Outcome::NoLegalMove {
                winner: !self.to_move,
            };
        }
        Outcome::Counted(self.score())
    }

    /// The result once the game is over ([`Game::outcome`]), `None` while it
    /// goes on.
    pub fn result(&self) -> Option<Outcome> {
        self.is_over().then(|| self.outcome())
    }
}
