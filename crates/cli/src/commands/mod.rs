//! One handler per command: each takes its parsed arguments, calls into the
//! `tengen` library (or the crate that does the work) and wires it to
//! standard input and output and a progress bar.

pub mod analysis;
pub mod bench;
pub mod gtp;
pub mod match_cmd;
pub mod nn;
pub mod play;
pub mod review;
pub mod selfplay;
pub mod serve;
pub mod sgf;

use anyhow::Result;
use tengen::options::game_settings;
use tengen_core::{BoardSize, Rules};

use crate::args::GameArgs;

/// The given seed, or a fresh one ([`tengen_bots::fresh_seed`]); logged
/// either way so a run can be replayed.
pub fn seed_or_clock(seed: Option<u64>) -> u64 {
    let seed = seed.unwrap_or_else(tengen_bots::fresh_seed);
    tracing::info!(seed, "random seed (replay with --seed {seed})");
    seed
}

/// The board and rules the game options give (see [`game_settings`]).
pub fn board_and_rules(game: &GameArgs) -> Result<(BoardSize, Rules)> {
    game_settings(
        game.game,
        game.size,
        game.rules,
        game.komi,
        Rules::default(),
    )
    .map_err(anyhow::Error::msg)
}
