//! tengen's neural networks for play: board [`encoder`]s (the book's
//! oneplane, sevenplane and simple, and an AlphaGo-Zero-style encoder with a
//! pass output), the eight board [`symmetry`] maps, the networks ([`net`])
//! and their model files with batched inference ([`model`]).
//!
//! Training (game records, shards, the trainer) is the `tengen-train`
//! crate's: this one builds burn without autodiff or optimizers, so a bot
//! that only loads and runs a model does not compile them.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod builtin;
pub mod encoder;
pub mod model;
pub mod net;
pub mod policy_bot;
pub mod symmetry;
