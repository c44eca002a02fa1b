//! Game review: every position of a record analysed, the points each move
//! lost, each side's biggest mistakes, and the record written back with
//! all of it in it for Sabaki, KaTrain and any SGF reader.
//!
//! - [`analyse`]: the analysis engine inside this process; a game is one
//!   query of all its turns, its positions batched together and with the
//!   other games under way.
//! - [`loss`]: the one rule of what a move loses and what a mistake is,
//!   which the web server applies too.
//! - [`review`]: the points and win rate each move lost (score lead before
//!   minus after, from the mover's view), the preferred moves, the
//!   mistakes.
//! - [`annotate`]: the record with `SBKV`/`SBKS` (Sabaki), `KT` (KaTrain),
//!   comments and the root's summary.
//! - [`strength`]: each side's playing strength, a rank estimated from
//!   the points its moves lost.
//! - [`collection`]: folders of records, resumable, split into shards.

#![forbid(unsafe_code)]
pub mod analyse;
pub mod annotate;
pub mod collection;
pub mod error;
pub mod loss;
pub mod review;
pub mod strength;

use std::path::Path;

pub use analyse::{Analyser, AnalyserOptions};
pub use annotate::{annotate, Reviewer};
pub use error::ReviewError;
pub use review::{CandidateAnalysis, GameReview, MoveReview, PositionAnalysis};

use tengen_sgf::Record;

/// Reads the record at `path` (any text encoding the SGF reader knows).
pub fn read_record(path: &Path) -> Result<Record, ReviewError> {
    let bytes = std::fs::read(path).map_err(|e| ReviewError::File(e.to_string()))?;
    Ok(tengen_sgf::read_game_bytes(&bytes)?)
}

/// Refuses a record whose board the network cannot play or that has no
/// moves, before any analysis.
pub fn check(record: &Record, max_side: usize) -> Result<(), ReviewError> {
    let size = record.game.size();
    if size.width() > max_side || size.height() > max_side {
        return Err(ReviewError::Size {
            width: size.width(),
            height: size.height(),
            max: max_side,
        });
    }
    if record.game.moves().is_empty() {
        return Err(ReviewError::NoMoves);
    }
    Ok(())
}

/// Reviews `record`: analyses every position (calling `done` with the
/// number of positions analysed so far) and returns the review and the
/// annotated record's text.
pub fn review_record(
    analyser: &Analyser,
    record: &Record,
    reviewer: &Reviewer,
    done: &mut dyn FnMut(usize),
) -> Result<(GameReview, String), ReviewError> {
    check(record, tengen_katago::network::MAX_BOARD_SIDE)?;
    let responses = analyser.analyse(&record.game, done)?;
    let positions = responses
        .iter()
        .map(PositionAnalysis::from_response)
        .collect();
    let review = GameReview::new(&record.game.moves(), positions);
    let text = annotate(record, &review, &responses, reviewer);
    Ok((review, text))
}
