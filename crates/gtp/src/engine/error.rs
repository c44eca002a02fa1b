//! What a command answers when it fails: [`CommandError`], whose text is the
//! GTP error message, and NoGo's refusals of a move.

use tengen_core::IllegalMove;
use thiserror::Error;

/// Why a command failed; the `Display` text is the GTP error message, the
/// conventional wording first.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CommandError {
    /// The bot cannot analyse positions.
    #[error("this bot does not analyse positions")]
    AnalysisUnsupported,
    /// The command name is not one the engine knows.
    #[error("unknown command")]
    UnknownCommand,
    /// Arguments missing, extra or malformed.
    #[error("syntax error")]
    Syntax,
    /// Arguments well formed but unusable; the reason is the message.
    #[error("{0}")]
    Invalid(String),
    /// `kata-get-param`/`kata-set-param` with a name the bot does not have.
    #[error("unknown parameter {0:?} (kata-list-params lists them)")]
    UnknownParameter(String),
    /// The move is not allowed; the reason follows when known.
    #[error("illegal move{}", .0.map(|r| format!(": {r}")).unwrap_or_default())]
    IllegalMove(Option<IllegalMove>),
    /// `boardsize` outside 1 to 25.
    #[error("unacceptable size")]
    UnacceptableSize,
    /// `undo` at the start of the game.
    #[error("cannot undo")]
    CannotUndo,
    /// `loadsgf` could not read a game.
    #[error("cannot load file")]
    CannotLoadFile,
    /// Handicap setup on a board with stones or moves.
    #[error("board not empty")]
    BoardNotEmpty,
    /// A handicap the board does not allow.
    #[error("invalid number of stones")]
    InvalidNumberOfStones,
    /// `set_free_handicap` with a repeated, off-board or pass vertex.
    #[error("bad vertex list")]
    BadVertexList,
    /// A command line longer than [`super::protocol::MAX_LINE_BYTES`].
    #[error("line too long")]
    LineTooLong,
    /// `kgs-rules` or `tengen-rules` with a rule set the engine cannot use.
    #[error("unknown rules: {0}")]
    UnknownRules(String),
    /// `kata-set-rules` or `kata-get-rules` with rules KataGo's form cannot
    /// carry or tengen cannot play, and why.
    #[error("rules refused: {0}")]
    RulesRefused(String),
    /// `kata-raw-nn` for a bot without a neural network.
    #[error(
        "this bot has no neural network (kata-raw-nn needs one, e.g. --bot katago:model=PATH)"
    )]
    NoNetwork,
    /// The network could not evaluate the position.
    #[error("the network cannot evaluate this position: {0}")]
    Network(String),
    /// `final_score` under NoGo before the game is over (nothing is counted
    /// in NoGo; only the end decides).
    #[error("cannot score")]
    CannotScore,
    /// NoGo's `play` refused the move; the colour and vertex are echoed as
    /// the controller sent them, as the CMPUT 455 engines do.
    #[error("illegal move: \"{color} {vertex}\" {reason}")]
    NoGoIllegalMove {
        /// The colour argument, as given.
        color: String,
        /// The vertex argument, as given.
        vertex: String,
        /// Why.
        reason: NoGoRefusal,
    },
}

/// Why NoGo's `play` refused a move, in the CMPUT 455 engines' words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum NoGoRefusal {
    /// The colour is not `b`, `w`, `black` or `white`.
    #[error("wrong color")]
    WrongColor,
    /// The vertex is malformed, off the board, or `pass`.
    #[error("wrong coordinate")]
    WrongCoordinate,
    /// A stone is already there.
    #[error("occupied")]
    Occupied,
    /// The stone would capture.
    #[error("capture")]
    Capture,
    /// The stone would have no liberty.
    #[error("suicide")]
    Suicide,
    /// Any other reason the rules give (none arises under NoGo, where play
    /// after a resignation resumes the game).
    #[error("{0}")]
    Other(IllegalMove),
}

impl From<IllegalMove> for NoGoRefusal {
    fn from(reason: IllegalMove) -> NoGoRefusal {
        match reason {
            IllegalMove::Occupied => NoGoRefusal::Occupied,
            IllegalMove::Capture => NoGoRefusal::Capture,
            IllegalMove::Suicide => NoGoRefusal::Suicide,
            IllegalMove::Pass | IllegalMove::OffBoard => NoGoRefusal::WrongCoordinate,
            other => NoGoRefusal::Other(other),
        }
    }
}

/// What every command method returns: the response text, or the error.
pub(super) type CommandResult = Result<String, CommandError>;
