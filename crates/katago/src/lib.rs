//! # tengen-katago
//!
//! KataGo's networks inside tengen, in pure Rust: reading KataGo's model
//! files (`.bin.gz`), computing the network's inputs exactly as KataGo does
//! (input version 7), and the forward pass on the CPU.
#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]
#![deny(missing_docs)]

pub mod bench;
pub mod forward;
pub mod inputs;
pub mod model;
pub mod network;
pub mod output;
pub mod raw_nn;
pub mod reference;
pub mod symmetry;
