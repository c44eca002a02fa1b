//! `tengen sgf show`, `check` and `convert` (the work is in
//! [`tengen::sgf_command`]).

use std::io::{self, Write};

use anyhow::{Context, Result};
use tengen::progress::{stderr_bar, SuspendingWriter};
use tengen::sgf_command;

use crate::args::SgfCommand;

/// Runs `tengen sgf show`, `check` or `convert`; `check` fails when a path
/// could not be read.
pub fn run(command: SgfCommand) -> Result<()> {
    match command {
        SgfCommand::Show { file, move_number } => {
            sgf_command::show(&file, move_number, &mut io::stdout().lock())?;
        }
        SgfCommand::Convert { file, output } => {
            let text = sgf_command::convert(&file)?;
            match output {
                Some(out) => std::fs::write(&out, text)
                    .with_context(|| format!("cannot write {}", out.display()))?,
                None => io::stdout().lock().write_all(text.as_bytes())?,
            }
        }
        SgfCommand::Check { paths } => {
            let bar = stderr_bar(None, "{bar:40} {pos}/{len} files");
            let mut out = SuspendingWriter::new(&bar, io::stdout().lock());
            let summary = sgf_command::check(&paths, &mut out, |done, total| {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            })?;
            bar.finish_and_clear();
            println!("{summary}");
            anyhow::ensure!(
                summary.unreadable == 0,
                "{} path(s) could not be read",
                summary.unreadable
            );
        }
    }
    Ok(())
}
