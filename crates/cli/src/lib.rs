//! # tengen
//!
//! The library behind the `tengen` binary: everything the command line does that
//! a test can drive without a terminal. The binary (`main.rs`, its arguments in
//! `args.rs` and one handler per command in `commands/`) only parses the
//! command line and wires these modules to standard input, output and
//! progress bars.
//!
//! - [`agents`]: the registry of bots by name, and the check that a bot plays
//!   the game it was chosen for.
//! - [`options`]: parsers for board sizes, rules, colours, durations and
//!   numbers as given on the command line, and the settings options make
//!   together.
//! - [`report`]: the result line printed at the end of a game.
//! - [`selfplay`]: bot against bot, printing every move (the book's `bot_v_bot`).
//! - [`terminal`]: a person against a bot over any [`std::io::BufRead`] /
//!   [`std::io::Write`] pair.
//! - [`bench`](mod@bench): the playout and search benchmarks.
//! - [`sgf_command`]: `tengen sgf show`, `check` and `convert`.
//! - [`nn_prepare`]: `tengen nn prepare`, SGF records to training shards.
//! - [`nn_train`]: `tengen nn train`, `nn bench` and `nn info`.
//! - [`progress`]: report lines written around a progress bar.
#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]
#![deny(missing_docs)]

pub mod agents;
pub mod analysis_bench;
pub mod bench;
pub mod nn_prepare;
pub mod nn_train;
pub mod options;
pub mod progress;
pub mod report;
pub mod selfplay;
pub mod sgf_command;
pub mod terminal;

pub use agents::{bot_listing, bot_params, check_plays, make_agent, raw_network};
pub use tengen_bots::BotError;
