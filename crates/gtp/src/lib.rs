//! # tengen-gtp
//!
//! The Go Text Protocol (GTP v2) for tengen.
//!
//! - [`engine`]: the engine side, serving any [`tengen_core::Agent`] to GTP
//!   controllers (GoGui, Sabaki, Lizzie, gtp2ogs, match runners).
//! - [`controller`]: the controller side, driving another engine's process
//!   (GNU Go, Pachi, tengen itself) command by command.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod controller;
pub mod engine;

pub use engine::{Engine, RawNetwork, SetParamError, Tunable};
