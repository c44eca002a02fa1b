//! Which chains are alive, dead or in seki at the end of a game, for
//! `final_score` and `final_status_list`.
//!
//! The estimate belongs to the rules core, beside the counting it feeds
//! ([`tengen_core::scoring::estimate_status`]), where the web count uses it
//! too; nothing of it is GTP's. This module keeps the engine's names for it.

pub use tengen_core::scoring::{all_alive, ChainStatus};

/// Estimates the status of every chain on `board` with `playouts` light
/// playouts, `to_move` starting the first; see
/// [`tengen_core::scoring::estimate_status`].
pub use tengen_core::scoring::estimate_status as estimate;

// The engine's default and the core's must stay one number, so that GTP
// and the web count a position alike.
const _: () =
    assert!(super::DEFAULT_STATUS_PLAYOUTS == tengen_core::scoring::DEFAULT_STATUS_PLAYOUTS);
