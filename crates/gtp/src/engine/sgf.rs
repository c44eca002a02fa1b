//! Game records: `loadsgf` reads one (through `tengen-sgf`), `printsgf`
//! answers the game as SGF text.

use super::args::{no_args, parse_u64};
use super::error::CommandResult;
use super::{CommandError, Engine};

/// Largest SGF file `loadsgf` reads.
pub const MAX_SGF_BYTES: u64 = 4 * 1024 * 1024;

impl Engine {
    /// `loadsgf file [move_number]`: the main line of the record, up to the
    /// position before `move_number` when given; answers the side to move.
    /// Only regular files of at most [`MAX_SGF_BYTES`] are read, so that a
    /// path such as a FIFO or `/dev/zero` cannot hang the engine.
    pub(super) fn loadsgf(&mut self, args: &[&str]) -> CommandResult {
        let (path, move_number) = match args {
            [path] => (path, None),
            [path, number] => {
                let number = parse_u64(number)?;
                (path, Some(usize::try_from(number).unwrap_or(usize::MAX)))
            }
            _ => return Err(CommandError::Syntax),
        };
        let text = read_small_file(path).ok_or(CommandError::CannotLoadFile)?;
        let record = tengen_sgf::read_game(&text).map_err(|error| {
            tracing::info!(%error, "loadsgf: unreadable record");
            CommandError::CannotLoadFile
        })?;
        let mut game = record.game;
        if let Some(number) = move_number {
            // Move n is the n-th turn; keep the n - 1 turns before it.
            while game.turn_count() >= number.max(1) {
                game.undo();
            }
        }
        let to_move = game.to_move();
        self.new_game(game);
        Ok(to_move.to_string())
    }

    /// `printsgf`: the record is the response, with the result once the game
    /// is over. Only the form without a file name: writing files on a
    /// controller's say-so is left out on purpose.
    pub(super) fn printsgf(&self, args: &[&str]) -> CommandResult {
        no_args(args).map(|_| {
            let result = if self.nogo() {
                self.game.result().map(|outcome| outcome.to_string())
            } else {
                self.game
                    .is_over()
                    .then(|| self.final_outcome().to_string())
            };
            let info = tengen_sgf::GameInfo {
                result,
                ..tengen_sgf::GameInfo::default()
            };
            tengen_sgf::write_game(&self.game, &info)
        })
    }
}

/// The text of a regular file of at most [`MAX_SGF_BYTES`], if there is one.
fn read_small_file(path: &str) -> Option<String> {
    use std::io::Read;
    // Asked before opening: opening a FIFO would already block.
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_SGF_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_SGF_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
