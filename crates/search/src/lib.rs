//! # tengen-search
//!
//! What tengen's tree searches share beside the tree itself: how long to
//! think for a move under the game's clock ([`time`]). The classical MCTS
//! (`tengen-mcts`) and the network-guided PUCT search (`tengen-puct`) both
//! plan their moves' time with it.
#![deny(missing_docs)]

pub mod time;
