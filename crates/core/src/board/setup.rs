//! Why a setup position (handicap, SGF setup stones, a diagram) was refused.

use super::*;

/// Why a setup position was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The board size is outside 1×1 to 25×25.
    Size(crate::point::BoardSizeError),
    /// The point is not on this board.
    OffBoard(Point),
    /// Two stones were put on one point.
    Occupied(Point),
    /// The stone would capture, or be left without liberties.
    NoLiberties(Point),
    /// A diagram could not be read.
    Diagram(String),
    /// A handicap that the size or rules do not allow.
    Handicap(String),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Size(e) => write!(f, "{e}"),
            SetupError::OffBoard(p) => write!(f, "setup point {} is off the board", p.index()),
            SetupError::Occupied(p) => write!(f, "setup point {} is already occupied", p.index()),
            SetupError::NoLiberties(p) => write!(
                f,
                "setup stone at cell {} leaves a chain without liberties",
                p.index()
            ),
            SetupError::Diagram(reason) => write!(f, "bad diagram: {reason}"),
            SetupError::Handicap(reason) => write!(f, "{reason}"),
        }
    }
}

impl std::error::Error for SetupError {}
