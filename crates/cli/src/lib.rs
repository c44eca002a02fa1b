//! # tengen
//!
//! The library behind the `tengen` binary: everything the command line does that
//! a test can drive without a terminal.
//!
//! - [`agents`]: the registry of bots by name.
//! - [`options`]: parsers for board sizes, rules and colours as given on the
//!   command line.
//! - [`report`]: the result line printed at the end of a game.
//! - [`selfplay`]: bot against bot, printing every move (the book's `bot_v_bot`).
//! - [`terminal`]: a person against a bot over any [`std::io::BufRead`] /
//!   [`std::io::Write`] pair.
//! - [`bench`](mod@bench): the light-playout benchmark.
//! - [`sgf_command`]: `tengen sgf show`, `check` and `convert`.
//! - [`nn_prepare`]: `tengen nn prepare`, SGF records to training shards.
#![deny(missing_docs)]

pub mod agents;
pub mod bench;
pub mod nn_prepare;
pub mod nn_train;
pub mod options;
pub mod report;
pub mod selfplay;
pub mod sgf_command;
pub mod terminal;

pub use agents::{bot_listing, make_agent};
pub use tengen_bots::BotError;
