//! # tengen-mcts
//!
//! The classical Monte Carlo tree search and its Go knowledge: MC-RAVE over
//! a node arena ([`mcts`]), heavy playouts ([`playout`]) with tactics and
//! ladder reading ([`tactics`]) and 3×3 shapes ([`patterns`]), priors from a
//! learned move model or hand-written rules ([`prior`], [`features`]), the
//! 9×9 opening book ([`book`]), and leaf evaluation by rollouts or a tengen
//! network mixed with them ([`evaluator`], [`network`]).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod book;
pub mod evaluator;
pub mod features;
pub mod mcts;
pub mod network;
pub mod patterns;
pub mod playout;
pub mod prior;
pub mod tactics;

pub use mcts::{MctsBot, MctsConfig, MctsSearch};
