//! # tengen-sgf
//!
//! SGF FF\[4\] game records: [`write_game`] turns a [`Game`] into a record, and
//! [`read_game`] replays the main line of a record into a [`Game`].
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
//! ```
#![deny(missing_docs)]

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
