//! tengen's neural networks: board [`encoder`]s (the book's oneplane,
//! sevenplane and simple, and an AlphaGo-Zero-style encoder with a pass
//! output), the eight board [`symmetry`] maps for augmentation, compact
//! training shards made from game records ([`data`]), and the networks, their
//! training and their model files.

pub mod data;
pub mod encoder;
pub mod model;
pub mod net;
pub mod symmetry;
pub mod train;
