//! A PUCT tree search guided by a policy/value network, AlphaZero and
//! KataGo style: no rollouts; every leaf is valued by the network, finished
//! games by the rules' own count.
//!
//! - Selection: `Q + c_puct · P · √N / (1 + n)` with `c_puct` growing slowly
//!   with the parent's visits (`c_puct + c_puct_log · ln((N + base) / base)`),
//!   first-play urgency for unvisited children (the parent's value minus
//!   `fpu_reduction · √(policy of the visited children)`, a smaller
//!   reduction at the root).
//! - Values are utilities: `P(win) − P(loss)` plus a bounded score term
//!   ([`search::Utility`]: KataGo's static and dynamic score utilities, an
//!   `atan` of the lead centred on 0 and near the root's expected lead).
//! - Batching: up to [`Batching::size`](crate::Batching::size) leaves per round, spread by
//!   virtual loss and evaluated in one [`PositionEvaluator::evaluate`] call.
//! - Tree reuse after the moves played since the last search, limits on
//!   visits, time (the game's clock through [`tengen_search::time`]) and tree
//!   size, careful passing, resignation, analysis for GUIs.
//!
//! The network plugs in through [`PositionEvaluator`].
//!
//! KataGo's refinements are fields of [`PuctConfig`], on by default as in
//! KataGo's GTP engine: LCB move selection, exploration scaled by the
//! utility's spread, first-play urgency blended towards the parent's
//! network value, uncertainty-weighted playouts, the score utility over the
//! score's distribution, subtree value bias ([`bias`]) and policy optimism.
//!
//! Not done as KataGo does: positions reached by different move orders are
//! separate nodes (an evaluation cache shares their network evaluations,
//! not their subtrees), and the search runs on the caller's thread (the
//! evaluator parallelises a batch itself). Each descent clones the root
//! [`Game`](tengen_core::Game) (history included, since the evaluator may want it), which is
//! cheap beside a network evaluation but not free.

#![forbid(unsafe_code)]
pub mod batching;
pub mod bias;
pub mod cache;
pub mod handicap;
pub mod katago;
pub mod mirror;
pub mod noise;
pub mod options;
pub mod rank;
pub mod search;
pub mod symmetry;
pub mod tree;

mod evaluator;
pub use evaluator::{EvaluatorError, NetEvaluation, PositionEvaluator};
mod config;
pub use config::{
    Batching, Exploration, MoveSelection, PuctConfig, ResignSettings, ScoreUtility, SearchLimits,
    ValueUpdate, DEFAULT_VISITS,
};
mod report;
pub use report::{AnalyseRequest, DetailedReport, PuctAnalysis, PuctCandidate, RawRoot};
mod choice;
pub use choice::lcb_of;
mod bot;
pub use bot::{PuctBot, PuctSearch};
