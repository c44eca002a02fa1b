//! # tengen-sgf
//!
//! SGF FF\[4\] game records: [`write_game`] and [`write_record`] turn a
//! [`Game`] into a record, and [`read_game`] replays the main line of a
//! record into a [`Game`], with the game information typed
//! ([`RecordInfo`]: players, ranks, date, event, rules, komi, handicap,
//! time, result, ...), each main-line node's move, comment and time left
//! typed ([`NodeInfo`]), and the whole parsed tree kept ([`Record::tree`]).
//! [`date`] gives the `DT` (`YYYY-MM-DD`) of records written now.
//!
//! ```
//! use tengen_core::{BoardSize, Game, Move, Rules};
//! use tengen_sgf::{read_game, write_game, GameInfo};
//!
//! let size = BoardSize::square(9).unwrap();
//! let mut game = Game::new(size, Rules::default());
//! game.play(size.parse_gtp("E5").unwrap()).unwrap();
//! game.play(Move::Pass).unwrap();
//! let text = write_game(&game, &GameInfo::default());
//! let record = read_game(&text).unwrap();
//! assert_eq!(record.game.board(), game.board());
//!
//! let record = read_game("(;SZ[9]PB[Alice]BR[3d]TM[600];B[ee]C[Centre!]BL[590])").unwrap();
//! assert_eq!(record.info.black_rank.as_deref(), Some("3d"));
//! assert_eq!(record.info.time_limit, Some(600.0));
//! assert_eq!(record.main_line[1].comment.as_deref(), Some("Centre!"));
//! assert_eq!(record.main_line[1].black_time_left, Some(590.0));
//! ```
//!
//! [`Game`]: tengen_core::Game
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod date;
mod decode;
mod info;
mod parse;
mod read;
mod write;

pub use decode::{decode_sgf, read_game_bytes};
pub use info::{Expected, IgnoredValue, NodeInfo, RecordInfo, RulesText};
pub use parse::{parse_collection, write_tree, Node, ParseError, Property};
pub use read::{read_game, read_game_with, ExecutedIllegal, IllegalMovePolicy, ReadError, Record};
pub use write::{write_game, write_record, GameInfo};
