//! # tengen-core
//!
//! The rules of Go, exactly and fast: board geometry and vertex text, the board
//! with incremental chains, liberties and Zobrist hash, rules as a value, the
//! game with history, superko and undo, scoring and the dead-stone estimate,
//! the eye test, the [`Agent`] trait and the random bot, and light playouts.
//!
//! No I/O and no dependencies.
//!
//! ```
//! use tengen_core::{Agent, Game, BoardSize, Rules, RandomBot, Action};
//!
//! let mut game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
//! let mut black = RandomBot::new(1);
//! let mut white = RandomBot::new(2);
//! while !game.is_over() {
//!     let action = if game.to_move() == tengen_core::Color::Black {
//!         black.select_move(&game)
//!     } else {
//!         white.select_move(&game)
//!     };
//!     game.apply(action).unwrap();
//! }
//! println!("{}", game.outcome()); // e.g. "W+12.5"
//! ```
#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]
#![deny(missing_docs)]

mod agent;
mod board;
mod color;
mod game;
mod handicap;
mod katago_rules;
mod notation;
pub mod playout;
mod playout_board;
mod point;
mod rank;
mod rng;
mod rules;
pub mod scoring;
mod time;
pub mod zobrist;

pub use agent::{
    Agent, Analysis, AnalysisDetail, Candidate, MoveFilter, RandomBot, Report, RootInfo,
    SelectRequest,
};
pub use board::{Board, ConsistencyError, EyeTest, Removals, SetupError};
pub use color::{ByColor, Color};
pub use game::{Action, Game, IllegalMove, ReplayError};
pub use handicap::{fixed_handicap_points, max_fixed_handicap};
pub use katago_rules::KATAGO_NAMES;
pub use notation::{VertexError, VertexErrorKind, GTP_COLUMNS};
pub use playout_board::PlayoutBoard;
pub use point::{BoardSize, BoardSizeError, Move, Point, MAX_CELLS, MAX_POINTS, MAX_SIDE};
pub use rank::{pick_at_rank, Pick, PickReason, Rank, RankError};
pub use rng::{mix64, splitmix64, stream_seed, Fnv1a, Rng, GOLDEN_GAMMA};
pub use rules::{
    HandicapBonus, KoRule, Rules, RulesError, Scoring, SuicideRule, Tax, Variant, PRESETS,
};
pub use scoring::{Outcome, Score};
pub use time::{parse_duration, DurationError, TimeLeft, TimeSettings, MAX_DURATION_SECS};
