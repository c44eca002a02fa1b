//! # tengen-bots
//!
//! Every bot tengen can play, found by a name and an option string such as
//! `random` or `mcts:playouts=20000,threads=2` (see [`registry`]): its typed
//! settings are read from one table of options per bot ([`settings`]) and
//! build the bot from the crates that hold the searches (`tengen-mcts`,
//! `tengen-puct`) and the networks (`tengen-nn`). The terminal, GTP, the
//! match runner and the web server all build their bots here, so a bot added
//! here is available everywhere.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod params;
pub mod registry;
pub mod seed;
pub mod settings;
pub mod termination;

pub use registry::{make_bot, parse_bot, BotError, BotInfo, BotSettings, BotSpec, BOTS};
pub use seed::fresh_seed;
