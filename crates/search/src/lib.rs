//! # tengen-search
//!
//! What tengen's tree searches share beside the tree itself: the bot's
//! lifecycle around a search ([`shell`]: the clock, the tree kept between
//! moves, analysis reports, resignation, answering a pass) and how long to
//! think for a move under the game's clock ([`time`]). The classical MCTS
//! (`tengen-mcts`) and the network-guided PUCT search (`tengen-puct`) both
//! use them.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod shell;
pub mod time;
