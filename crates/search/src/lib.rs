//! # tengen-search
//!
//! What tengen's tree searches share beside the tree itself: one bot over
//! any tree search ([`bot`]: [`SearchBot`] over a [`TreeSearch`]), the
//! parts of its lifecycle ([`shell`]: the clock, the tree kept between
//! moves, analysis reports, resignation, answering a pass) and how long to
//! think for a move under the game's clock ([`time`]). The classical MCTS
//! (`tengen-mcts`) and the network-guided PUCT search (`tengen-puct`) are
//! both [`SearchBot`]s.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod bot;
pub mod shell;

pub use bot::{SearchBot, TreeSearch};
pub mod time;
