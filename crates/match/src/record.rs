//! What is kept of each game.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use tengen_core::Color;

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameEnd {
    /// Two passes in a row; the position was counted.
    Passes,
    /// A side resigned.
    Resignation,
    /// The turn limit was reached; the position was counted as it stood.
    MoveLimit,
    /// An engine forfeited (illegal move, crash, timeout, bad reply).
    Forfeit,
    /// NoGo: the side to move had no legal move and lost.
    NoLegalMove,
}

impl GameEnd {
    /// The word used in results files: `passes`, `resignation`, `move-limit`,
    /// `forfeit`, `no-legal-move`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameEnd::Passes => "passes",
            GameEnd::Resignation => "resignation",
            GameEnd::MoveLimit => "move-limit",
            GameEnd::Forfeit => "forfeit",
            GameEnd::NoLegalMove => "no-legal-move",
        }
    }

    /// The inverse of [`GameEnd::as_str`].
    pub fn parse(text: &str) -> Option<GameEnd> {
        [
            GameEnd::Passes,
            GameEnd::Resignation,
            GameEnd::MoveLimit,
            GameEnd::Forfeit,
            GameEnd::NoLegalMove,
        ]
        .into_iter()
        .find(|end| end.as_str() == text)
    }
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why an engine lost by forfeit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ForfeitKind {
    /// It played a move the referee's rules forbid.
    IllegalMove,
    /// It did not answer in time.
    Timeout,
    /// Its process exited.
    Crash,
    /// It answered something unreadable.
    Malformed,
    /// It answered a command with an error (for instance refusing a legal
    /// move of its opponent, or the board size).
    EngineError,
    /// It could not be started.
    Startup,
}

impl ForfeitKind {
    /// The word used in results files and reports: `illegal-move`, `timeout`,
    /// `crash`, `malformed`, `engine-error`, `startup`.
    pub fn as_str(self) -> &'static str {
        match self {
            ForfeitKind::IllegalMove => "illegal-move",
            ForfeitKind::Timeout => "timeout",
            ForfeitKind::Crash => "crash",
            ForfeitKind::Malformed => "malformed",
            ForfeitKind::EngineError => "engine-error",
            ForfeitKind::Startup => "startup",
        }
    }

    /// The inverse of [`ForfeitKind::as_str`].
    pub fn parse(text: &str) -> Option<ForfeitKind> {
        [
            ForfeitKind::IllegalMove,
            ForfeitKind::Timeout,
            ForfeitKind::Crash,
            ForfeitKind::Malformed,
            ForfeitKind::EngineError,
            ForfeitKind::Startup,
        ]
        .into_iter()
        .find(|kind| kind.as_str() == text)
    }
}

impl fmt::Display for ForfeitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A lost-by-forfeit verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    /// The engine (0 or 1) that forfeited.
    pub engine: usize,
    /// What it did.
    pub kind: ForfeitKind,
    /// The offending move in GTP text, for illegal moves.
    pub mv: Option<String>,
    /// A readable explanation.
    pub reason: String,
}

/// One engine's thinking time in one game (its `genmove` replies).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EngineTime {
    /// Moves generated (passes and resignation included).
    pub moves: usize,
    /// Their total time.
    pub total: Duration,
    /// The longest one.
    pub max: Duration,
}

impl EngineTime {
    /// Adds one move's time.
    pub fn add(&mut self, took: Duration) {
        self.moves += 1;
        self.total += took;
        self.max = self.max.max(took);
    }

    /// The mean time per move; zero with no moves.
    pub fn mean(&self) -> Duration {
        if self.moves == 0 {
            Duration::ZERO
        } else {
            self.total / self.moves as u32
        }
    }
}

/// Everything recorded about one game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The game's number in the match, from 0.
    pub index: usize,
    /// The engine (0 or 1) that played Black.
    pub black: usize,
    /// The engine that won; `None` for a draw.
    pub winner: Option<usize>,
    /// The result as SGF writes it: `B+3.5`, `W+R`, `B+F` (forfeit), `W+T`
    /// (timeout), `0` (draw); under NoGo `B+` or `W+` when the loser could
    /// not move, and `Void` (SGF's "no result") when the turn limit stopped
    /// the game, as nothing can be counted.
    pub result: String,
    /// How the game ended.
    pub end: GameEnd,
    /// Turns played (passes and resignation included; a forfeited move is not).
    pub moves: usize,
    /// The forfeit, if the game ended by one.
    pub forfeit: Option<Forfeit>,
    /// How many stones the referee removed as dead before counting.
    pub dead_stones: usize,
    /// For counted games: whether both engines listed the same dead stones
    /// (only then are they removed). `None` when the game was not counted.
    pub dead_agreed: Option<bool>,
    /// Each engine's own `final_score` (indexed by engine), when counted and
    /// answered.
    pub engine_scores: [Option<String>; 2],
    /// Whether each engine's `final_score` agrees with the referee's result
    /// (same winner, same margin when it gave one).
    pub scores_agree: [Option<bool>; 2],
    /// Each engine's thinking time (indexed by engine).
    pub time: [EngineTime; 2],
    /// The time each generated move took, in the order played (empty in
    /// records of older versions).
    pub move_times: Vec<Duration>,
    /// Names of the engines as they reported them (`name version`).
    pub names: [String; 2],
    /// The SGF record written for the game, if any.
    pub sgf: Option<PathBuf>,
    /// The set opening the game started from, if any.
    pub opening: Option<String>,
}

impl GameRecord {
    /// The colour `engine` played.
    pub fn color_of(&self, engine: usize) -> Color {
        if engine == self.black {
            Color::Black
        } else {
            Color::White
        }
    }

    /// The colour that won; `None` for a draw.
    pub fn winner_color(&self) -> Option<Color> {
        self.winner.map(|engine| self.color_of(engine))
    }

    /// Whether an engine's `final_score` contradicted the referee.
    pub fn scores_disagree(&self) -> bool {
        self.scores_agree.contains(&Some(false))
    }

    /// Engine 0's score in this game: 1 for a win, ½ for a draw, 0 for a loss.
    pub fn engine0_score(&self) -> f64 {
        match self.winner {
            Some(0) => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        }
    }
}
