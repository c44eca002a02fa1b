//! Why a record could not be reviewed.

/// Why a record could not be reviewed; the message is one line that names
/// the move where there is one.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReviewError {
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    File(String),
    /// The text is not a Go record the reader accepts (syntax, a bad
    /// value, an illegal move: the reader names the node).
    #[error("{0}")]
    Record(#[from] tengen_sgf::ReadError),
    /// The board is larger than the network plays.
    #[error("a {width}×{height} board: the network plays boards up to {max}×{max}")]
    Size {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
        /// The largest side the network plays.
        max: usize,
    },
    /// The game has no moves to review.
    #[error("the record has no moves to review")]
    NoMoves,
    /// A move of the game is illegal where it is replayed.
    #[error("move {number} ({mv}) is illegal: {reason}")]
    IllegalMove {
        /// Its number, from 1.
        number: usize,
        /// The move as `B D4`.
        mv: String,
        /// Why.
        reason: String,
    },
    /// The analysis engine answered an error.
    #[error("the analysis{} failed: {message}", turn.map(|t| format!(" of the position after move {t}")).unwrap_or_default())]
    Engine {
        /// The turn it concerned, if any.
        turn: Option<usize>,
        /// The engine's message.
        message: String,
    },
    /// The output could not be written.
    #[error("cannot write {path}: {reason}")]
    Write {
        /// Where.
        path: String,
        /// Why.
        reason: String,
    },
}
