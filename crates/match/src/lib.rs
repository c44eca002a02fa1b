//! # tengen-match
//!
//! The referee: matches between two GTP engines (GNU Go, tengen, anything that
//! speaks GTP), refereed on tengen's own rules core.
//!
//! Each game starts fresh processes of both engines; engine 0 takes Black in
//! even games. The side to move is asked `genmove`, the move is checked with
//! [`tengen_core::Game::legal`] and passed to the other engine with `play`. An
//! illegal move, a crash, an unreadable reply, a missed deadline or, under a
//! game [`Clock`], running out of time loses the game by forfeit. Two passes end the game, so does a resignation or the turn
//! limit; a counted game removes the dead stones both engines agree on and is
//! scored by tengen under the match rules, and each engine's `final_score` is
//! compared with that count. Games are saved as SGF and appended to a results
//! file ([`results`]) from which an interrupted match resumes.
//!
//! ```no_run
//! use tengen_core::{BoardSize, Rules};
//! use tengen_match::{run_match, MatchConfig, MatchEvent};
//!
//! let gnugo = "/usr/games/gnugo --mode gtp --level 1 --chinese-rules".to_string();
//! let mut config = MatchConfig::new([gnugo.clone(), gnugo], 10);
//! config.size = BoardSize::square(9).unwrap();
//! config.rules = Rules::preset("chinese").unwrap();
//! config.komi = 7.0;
//! let report = run_match(&config, |event| {
//!     if let MatchEvent::GameFinished { record, finished, total } = event {
//!         println!("{finished}/{total}: game {} {}", record.index, record.result);
//!     }
//! })?;
//! println!("{report}");
//! # Ok::<(), tengen_match::MatchError>(())
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod clock;
mod config;
pub mod merge;
pub mod openings;
mod record;
mod referee;
mod report;
pub mod results;
mod runner;
mod shard;
pub mod stats;

pub use clock::Clock;
pub use config::{
    MatchConfig, CLOCK_GRACE, DEFAULT_COMMAND_TIMEOUT, DEFAULT_MOVE_TIMEOUT, SEED_PLACEHOLDER,
};
pub use openings::{load_openings, Opening, OpeningsError};
pub use record::{EngineTime, Forfeit, ForfeitKind, GameEnd, GameRecord};
pub use report::MatchReport;
pub use runner::{run_match, sgf_path, MatchError, MatchEvent};
pub use shard::{Shard, ShardError};
pub use stats::Estimate;
