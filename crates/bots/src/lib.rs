//! # tengen-bots
//!
//! Every bot tengen can play, found by a name and an option string such as
//! `random` or `mcts:playouts=20000,threads=2` (see [`registry`]). The
//! terminal, GTP, the match runner and the web server all build their bots
//! here, so a bot added here is available everywhere.
#![deny(missing_docs)]

pub mod registry;
pub mod seed;
pub mod settings;

pub use registry::{make_bot, parse_bot, BotError, BotInfo, BotSettings, BotSpec, BOTS};
pub use seed::fresh_seed;
pub mod book;
pub mod builtin;
pub mod evaluator;
pub mod features;
pub mod katago;
pub mod mcts;
pub mod network;
pub mod patterns;
pub mod playout;
pub mod policy;
pub mod prior;
pub mod puct;
pub mod tactics;
pub mod termination;
