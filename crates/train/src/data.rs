//! Training data: game records as compact shards (move sequences, not
//! tensors), made from SGF collections and split into training and
//! validation sets by game.
//!
//! - [`record`]: [`GameRecord`], one game in replayable form, and
//!   [`winner_of_result`].
//! - [`shard`]: the shard format (`.tgs`), [`write_shard`], [`read_shard`]
//!   and [`Dataset`], a prepared folder loaded back.
//! - [`prepare`](mod@prepare): [`prepare`](fn@prepare), SGF files and
//!   folders to a data folder.
//!
//! A data folder written by [`prepare`](fn@prepare) holds:
//!
//! - `train-000.tgs`, `train-001.tgs`, ...: the training games,
//! - `validation-000.tgs`, ...: the validation games,
//! - `summary.txt`: what was read, kept and skipped, for people.
//!
//! [`Dataset::load`] reads such a folder back.
//!
//! Everything is re-exported here, so callers name `data::GameRecord`
//! without caring which file holds it.

use std::io;
use std::path::{Path, PathBuf};

pub mod prepare;
pub mod record;
pub mod shard;

pub use prepare::{
    find_record_files, is_validation, prepare, PrepareOptions, PrepareReport, SUMMARY_FILE,
};
pub use record::{winner_of_result, GameRecord, ReplayError};
pub use shard::{
    read_shard, write_shard, Dataset, ShardFault, MAGIC, PASS, SHARD_EXTENSION, VERSION,
};

/// Why reading, writing or preparing training data failed.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// A file or folder could not be read, written or listed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A shard's bytes are not a valid shard.
    #[error("{}: at byte {offset}: {fault}", path.display())]
    Corrupt {
        /// The shard.
        path: PathBuf,
        /// Where in the file the fault was found.
        offset: usize,
        /// What is wrong.
        fault: ShardFault,
    },
    /// A record that cannot be written in the shard format.
    #[error("{}: game {game}: {reason}", path.display())]
    Unwritable {
        /// The shard being written.
        path: PathBuf,
        /// The game, from 0.
        game: usize,
        /// Why it cannot be written.
        reason: String,
    },
    /// A data folder without any shard.
    #[error("{}: no train-NNN.{SHARD_EXTENSION} or validation-NNN.{SHARD_EXTENSION} shards", path.display())]
    NoShards {
        /// The folder.
        path: PathBuf,
    },
    /// Options that make no sense.
    #[error("bad options: {0}")]
    Options(String),
}

/// Turns an I/O error on `path` into a [`DataError`] that names the path,
/// since `io::Error` alone does not say which file failed.
fn io_error(path: &Path) -> impl FnOnce(io::Error) -> DataError + '_ {
    move |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    }
}
