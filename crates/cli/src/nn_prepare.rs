//! `tengen nn prepare`: SGF records to training shards (see
//! [`tengen_train::data::prepare`]), with the report printed.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tengen_train::data::{prepare, DataError, PrepareOptions, PrepareReport};

/// Why `tengen nn prepare` failed.
#[derive(Debug, thiserror::Error)]
pub enum NnPrepareError {
    /// Reading the records or writing the shards failed.
    #[error(transparent)]
    Data(#[from] DataError),
    /// No game was kept: an empty data folder would only fail later.
    #[error("no game of size {size} was kept from {files} file(s); nothing to train on")]
    NothingKept {
        /// The board size asked for, such as `19x19`.
        size: String,
        /// Record files read.
        files: usize,
    },
    /// The report could not be written.
    #[error("cannot write the report: {0}")]
    Output(#[from] io::Error),
}

/// Prepares the records under `inputs` into the data folder `out` and writes
/// the report to `report_out`: files and games read, games kept, games
/// skipped by reason, and games and positions per split. `progress(done,
/// total)` is told after each file read. Keeping no game at all is an error.
pub fn run(
    inputs: &[PathBuf],
    out: &Path,
    options: &PrepareOptions,
    report_out: &mut impl Write,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<PrepareReport, NnPrepareError> {
    let report = prepare(inputs, out, options, progress)?;
    write!(report_out, "{report}")?;
    writeln!(report_out, "written to {}", out.display())?;
    if report.games_kept == 0 {
        return Err(NnPrepareError::NothingKept {
            size: format!("{}x{}", options.size.width(), options.size.height()),
            files: report.files,
        });
    }
    Ok(report)
}
