//! Training tengen's networks: game records and the shards they are stored
//! in, preparing shards from SGF collections ([`data`]), and supervised
//! training with checkpoints ([`train`]).
//!
//! The networks, encoders and model files are `tengen-nn`'s; this crate adds
//! what only training needs, so that playing with a model never compiles
//! burn's autodiff and optimizers.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod data;
pub mod move_model;
pub mod policy_record;
pub mod train;
