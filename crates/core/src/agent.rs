//! Bots: the [`Agent`] trait and the uniformly random player.

use std::time::Duration;

use crate::color::Color;
use crate::game::{Action, Game};
use crate::point::Move;
use crate::rng::Rng;
use crate::rules::Variant;
use crate::time::{TimeLeft, TimeSettings};

/// Anything that chooses moves: the random bot here, tree search and neural
/// players in other crates, a person behind a terminal.
///
/// An agent sees the position only through [`Game`]. A simple agent needs
/// only [`name`](Agent::name) and [`select_move`](Agent::select_move); a
/// searching one overrides [`select`](Agent::select), which carries what a
/// front end asks of the search (a stop signal, an analysis sink, cleanup
/// mode), and [`analyze`](Agent::analyze).
pub trait Agent {
    /// A short name for logs, GTP `name` and match tables.
    fn name(&self) -> &str;

    /// The action for the side to move in `game`. It must be legal there
    /// (resignation always is while the game is not over).
    fn select_move(&mut self, game: &Game) -> Action;

    /// The action for the side to move in `game`, as `request` asks: stop
    /// early when its stop signal is set (a searching agent then answers at
    /// once with the best move it has), report the search's analysis while
    /// it thinks, and in cleanup mode capture dead stones rather than pass.
    /// Agents that answer at once ignore the request: by default,
    /// [`select_move`](Agent::select_move).
    fn select(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> Action {
        let _ = request;
        self.select_move(game)
    }

    /// Thinks about `game` without choosing a move, reporting to
    /// `request`'s sink until its stop signal is set (GTP `lz-analyze`:
    /// until the next command arrives). Returns false, at once, if the agent
    /// cannot analyse.
    fn analyze(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> bool {
        let _ = (game, request);
        false
    }

    /// Whether the agent can play `variant` (see [`Variant`]). Front ends
    /// refuse to serve an agent for a game it cannot play. By default only
    /// Go; an agent that handles NoGo (no captures, suicide or passes;
    /// resigning when it has no legal move) says so here.
    fn plays(&self, variant: Variant) -> bool {
        variant == Variant::Go
    }

    /// Whether the agent can play on a board of `size`: `Err` with the
    /// reason if not (a network trained for one board size). Front ends
    /// refuse such a board before asking for a move. By default, any size.
    fn plays_size(&self, _size: crate::point::BoardSize) -> Result<(), String> {
        Ok(())
    }

    /// Called when the game has been set up anew (new board, undo, loaded
    /// record) so that agents with caches can drop them.
    fn reset(&mut self) {}

    /// The game's clock, as GTP `time_settings` or `kgs-time_settings` set
    /// it. Agents that do not budget their thinking ignore it.
    fn set_time_settings(&mut self, _settings: TimeSettings) {}

    /// The time `color` has left, as GTP `time_left` reports it before a move.
    fn set_time_left(&mut self, _color: Color, _left: TimeLeft) {}

    /// What the agent thought of the position at its last move or analysis:
    /// candidates, win rate, ownership. `None` for agents that do not search.
    fn analysis(&self) -> Option<Analysis> {
        None
    }

    /// Thinks about `game`, the opponent to move, until `stop` returns true,
    /// keeping what it finds for its own next move (pondering, KataGo's
    /// `ponderingEnabled`). It must return soon after `stop` says so. The
    /// default, for agents that do not ponder, returns at once.
    fn ponder(&mut self, game: &Game, stop: &dyn Fn() -> bool) {
        let _ = (game, stop);
    }
}

/// What a front end asks of one [`Agent::select`] or [`Agent::analyze`].
///
/// ```
/// use std::time::Duration;
/// use tengen_core::{Action, Agent, BoardSize, Game, RandomBot, Rules, SelectRequest};
///
/// let game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
/// let mut seen = 0;
/// let mut sink = |_: &tengen_core::Analysis| seen += 1;
/// let mut request = SelectRequest::new()
///     .stop_when(&|| false)
///     .reporting(Duration::from_millis(100), &mut sink);
/// let Action::Move(mv) = RandomBot::new(1).select(&game, &mut request) else {
///     panic!("the random bot does not resign");
/// };
/// assert!(game.legal(mv).is_ok());
/// ```
pub struct SelectRequest<'a> {
    /// Stop searching as soon as this returns true.
    pub stop: &'a dyn Fn() -> bool,
    /// Where to send the search's analysis while it thinks, and how often.
    pub report: Option<Report<'a>>,
    /// The move is for `kgs-genmove_cleanup`: play the game out until every
    /// dead stone is captured, passing only when nothing else is left.
    pub cleanup: bool,
    /// Moves the search must not explore near the root (KataGo's `avoid`
    /// and `allow`); agents that do not search ignore them.
    pub filters: Vec<MoveFilter>,
    /// What an analysis should carry beyond the candidates.
    pub detail: AnalysisDetail,
}

/// Moves kept out of a search for one colour in its first plies: KataGo's
/// `avoid PLAYER VERTICES UNTILDEPTH` and `allow PLAYER VERTICES
/// UNTILDEPTH`.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveFilter {
    /// Whose moves.
    pub color: Color,
    /// The moves named.
    pub moves: Vec<Move>,
    /// Plies from the root the filter holds for: 1 is the root's moves
    /// only.
    pub until_depth: u32,
    /// `allow`: every board point except those named is kept out (a pass is
    /// never kept out by `allow`, as in KataGo); otherwise (`avoid`) the
    /// named moves are.
    pub allow: bool,
}

impl MoveFilter {
    /// Whether `mv` by `color`, `depth` plies from the root (1: a move of
    /// the root), is kept out by this filter.
    pub fn excludes(&self, color: Color, mv: Move, depth: u32) -> bool {
        if color != self.color || depth > self.until_depth {
            return false;
        }
        if self.allow {
            mv != Move::Pass && !self.moves.contains(&mv)
        } else {
            self.moves.contains(&mv)
        }
    }
}

/// The optional parts of an [`Analysis`] a client asked for (they cost
/// memory or time to gather).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AnalysisDetail {
    /// Each candidate's own ownership ([`Candidate::ownership`]).
    pub moves_ownership: bool,
    /// The spread of the ownership over the search
    /// ([`Analysis::ownership_stdev`]).
    pub ownership_stdev: bool,
}

/// The analysis sink of a [`SelectRequest`].
pub struct Report<'a> {
    /// About how often to report.
    pub interval: Duration,
    /// Called with the search's current analysis.
    pub sink: &'a mut dyn FnMut(&Analysis),
}

impl Default for SelectRequest<'_> {
    fn default() -> Self {
        SelectRequest::new()
    }
}

impl<'a> SelectRequest<'a> {
    /// A plain request: never stopped, no reports, not cleanup.
    pub fn new() -> SelectRequest<'a> {
        SelectRequest {
            stop: &|| false,
            report: None,
            cleanup: false,
            filters: Vec::new(),
            detail: AnalysisDetail::default(),
        }
    }

    /// The same request with these move filters (`avoid`, `allow`).
    pub fn filtered(self, filters: Vec<MoveFilter>) -> SelectRequest<'a> {
        SelectRequest { filters, ..self }
    }

    /// The same request asking for these optional parts of the analysis.
    pub fn with_detail(self, detail: AnalysisDetail) -> SelectRequest<'a> {
        SelectRequest { detail, ..self }
    }

    /// Whether the filters keep `mv` by `color` out at `depth` plies from
    /// the root.
    pub fn excludes(&self, color: Color, mv: Move, depth: u32) -> bool {
        self.filters.iter().any(|f| f.excludes(color, mv, depth))
    }

    /// The same request, stopped when `stop` returns true.
    pub fn stop_when(self, stop: &'a dyn Fn() -> bool) -> SelectRequest<'a> {
        SelectRequest { stop, ..self }
    }

    /// The same request, reporting to `sink` about every `interval`.
    pub fn reporting(
        self,
        interval: Duration,
        sink: &'a mut dyn FnMut(&Analysis),
    ) -> SelectRequest<'a> {
        SelectRequest {
            report: Some(Report { interval, sink }),
            ..self
        }
    }

    /// The same request in cleanup mode (`kgs-genmove_cleanup`).
    pub fn cleanup(self) -> SelectRequest<'a> {
        SelectRequest {
            cleanup: true,
            ..self
        }
    }

    /// Whether the stop signal is set.
    pub fn stopped(&self) -> bool {
        (self.stop)()
    }
}

/// A searching agent's view of a position, for GUIs (`lz-analyze`), the web
/// page and logs. Win rates are for the side to move, in `0.0..=1.0`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    /// Playouts (or network evaluations) the search made for this position.
    pub playouts: u64,
    /// The side to move's estimated probability of winning.
    pub winrate: f32,
    /// Candidate moves, the most visited first.
    pub candidates: Vec<Candidate>,
    /// For each point in row-major order from the top-left (`A19`-style
    /// corner), how surely Black owns it at the end: `1.0` Black, `-1.0`
    /// White. Empty when the agent does not estimate ownership.
    pub ownership: Vec<f32>,
    /// The standard deviation of that ownership over the search's
    /// evaluations, in the same order; empty unless asked for
    /// ([`AnalysisDetail::ownership_stdev`]) and estimated.
    pub ownership_stdev: Vec<f32>,
    /// The root's own statistics over every visit (KataGo's `rootInfo`),
    /// for agents that keep them.
    pub root: Option<RootInfo>,
}

/// The statistics of a search's root, over all its visits, for the side to
/// move.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RootInfo {
    /// Visits of the root.
    pub visits: u64,
    /// Win rate.
    pub winrate: f32,
    /// Expected lead in points, if estimated.
    pub score_lead: Option<f32>,
    /// Utility (win rate and score together), if the search has one.
    pub utility: Option<f32>,
}

/// One candidate move of an [`Analysis`].
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The move.
    pub mv: Move,
    /// Visits the search gave it.
    pub visits: u64,
    /// The side to move's win rate after it, in `0.0..=1.0`.
    pub winrate: f32,
    /// The prior probability the agent gave it before searching.
    pub prior: f32,
    /// The side to move's expected lead in points after it, for agents
    /// whose evaluation estimates the score (KataGo networks).
    pub score_lead: Option<f32>,
    /// The expected continuation, starting with `mv`.
    pub pv: Vec<Move>,
    /// Visits of the position after each move of `pv`; empty if unknown.
    pub pv_visits: Vec<u64>,
    /// The side to move's utility after it, if the search has one.
    pub utility: Option<f32>,
    /// A lower confidence bound of `winrate`, if the search keeps one.
    pub lcb: Option<f32>,
    /// The ownership after it, as [`Analysis::ownership`]; empty unless
    /// asked for ([`AnalysisDetail::moves_ownership`]).
    pub ownership: Vec<f32>,
    /// The move this one copies under a symmetry of the root's board, when
    /// the search pruned the symmetric moves and reports this one with the
    /// other's values (KataGo's `isSymmetryOf`).
    pub symmetry_of: Option<Move>,
}

impl Default for Candidate {
    fn default() -> Self {
        Candidate {
            mv: Move::Pass,
            visits: 0,
            winrate: 0.5,
            prior: 0.0,
            score_lead: None,
            pv: Vec::new(),
            pv_visits: Vec::new(),
            utility: None,
            lcb: None,
            ownership: Vec::new(),
            symmetry_of: None,
        }
    }
}

/// The book's `RandomBot`: a uniformly random legal move that does not fill
/// one of its own eyes ([`crate::Board::is_point_an_eye`]), and a pass when no
/// such move is left. Legality is the game's, superko included. This is
/// Müller's Go1; [`RandomBot::filling_eyes`] is his Go0, uniform over every
/// legal move, own eyes included, passing only when no move is legal.
///
/// Under NoGo it draws uniformly among the legal moves that do not fill one
/// of its own eyes, and only when none is left uniformly among the legal
/// eye-filling ones (passing is illegal there); it resigns when it has no
/// legal move at all. Filling its own eye is legal in NoGo, but an own eye is
/// a point the opponent can never play (a stone there would capture or be
/// captured), so it is a move kept in reserve: spending it while other moves
/// exist only shortens the bot's own game.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: Rng,
    fill_eyes: bool,
}

impl RandomBot {
    /// A random bot (Go1: it keeps its own eyes) whose choices are
    /// determined by `seed`.
    pub fn new(seed: u64) -> RandomBot {
        RandomBot {
            rng: Rng::new(seed),
            fill_eyes: false,
        }
    }

    /// Müller's Go0: uniformly random among all legal moves, its own eyes
    /// included (so it can kill its own groups), passing only when no move
    /// is legal; under NoGo, uniform over the legal moves.
    pub fn filling_eyes(seed: u64) -> RandomBot {
        RandomBot {
            fill_eyes: true,
            ..RandomBot::new(seed)
        }
    }

    /// Whether the bot fills its own eyes (Go0) or keeps them (Go1).
    pub fn fills_eyes(&self) -> bool {
        self.fill_eyes
    }
}

impl Agent for RandomBot {
    fn name(&self) -> &str {
        "random"
    }

    fn plays(&self, _variant: Variant) -> bool {
        true
    }

    fn select_move(&mut self, game: &Game) -> Action {
        if game.rules().is_nogo() {
            return self.select_nogo_move(game);
        }
        let color = game.to_move();
        let board = game.board();
        let mut candidates: Vec<_> = board
            .empty_points()
            .filter(|&p| self.fill_eyes || !board.is_point_an_eye(p, color))
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

impl RandomBot {
    /// [`Agent::select_move`] under NoGo (see [`RandomBot`]).
    fn select_nogo_move(&mut self, game: &Game) -> Action {
        let color = game.to_move();
        let board = game.board();
        let mut candidates: Vec<_> = board.empty_points().collect();
        let mut legal_eyes = Vec::new();
        // Drawn without replacement as in Go; a legal eye is set aside, so
        // that when no other move turns up every legal eye has been seen and
        // one of them is drawn uniformly.
        while !candidates.is_empty() {
            let point = candidates.swap_remove(self.rng.below(candidates.len()));
            if game.legal(Move::Play(point)).is_err() {
                continue;
            }
            if !self.fill_eyes && board.is_point_an_eye(point, color) {
                legal_eyes.push(point);
                continue;
            }
            return Action::Move(Move::Play(point));
        }
        if legal_eyes.is_empty() {
            return Action::Resign;
        }
        let point = legal_eyes[self.rng.below(legal_eyes.len())];
        Action::Move(Move::Play(point))
    }
}
