//! `tengen sgf`: show, check and convert SGF game records.
//!
//! Files are read as bytes and decoded with [`tengen_sgf::decode_sgf`] (the
//! character set named by `CA`), so records in any encoding are accepted.
//!
//! - [`show`]: game information and the board at a chosen move.
//! - [`check`]: replays every game tree's main line of every record under
//!   some paths and reports the records that do not replay.
//! - [`convert`]: the main line re-written canonically with
//!   [`tengen_sgf::write_game`].

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tengen_core::{Game, Move};
use tengen_sgf::{decode_sgf, parse_collection, read_game, write_game, write_tree, GameInfo};

/// Why a `tengen sgf` command could not do its work.
#[derive(Debug, thiserror::Error)]
pub enum SgfCommandError {
    /// A path that cannot be read (or a folder that cannot be listed).
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// The record does not replay.
    #[error("{}: {source}", path.display())]
    Record {
        /// The file.
        path: PathBuf,
        /// Why it does not replay.
        source: tengen_sgf::ReadError,
    },
    /// `--move N` past the end of the main line.
    #[error("{}: move {requested} asked for, but the main line has {available} moves", path.display())]
    MoveOutOfRange {
        /// The file.
        path: PathBuf,
        /// The move asked for.
        requested: usize,
        /// Moves in the replayed main line.
        available: usize,
    },
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Output(#[from] io::Error),
}

fn read_text(path: &Path) -> Result<String, SgfCommandError> {
    std::fs::read(path)
        .map(|bytes| decode_sgf(&bytes))
        .map_err(|source| SgfCommandError::Io {
            path: path.to_path_buf(),
            source,
        })
}

fn read_record(path: &Path) -> Result<tengen_sgf::Record, SgfCommandError> {
    read_game(&read_text(path)?).map_err(|source| SgfCommandError::Record {
        path: path.to_path_buf(),
        source,
    })
}

/// Prints the game information of the first game tree in `path` (players,
/// result, rules, komi, size) and the board after move `move_number` of its
/// main line (default: the end), the last move in brackets. Moves are counted
/// from the start of the replayed game: after setup stones in the middle of a
/// main line, from that setup.
pub fn show(
    path: &Path,
    move_number: Option<usize>,
    out: &mut impl Write,
) -> Result<(), SgfCommandError> {
    let record = read_record(path)?;
    let mut game: Game = record.game;
    let available = game.turn_count();
    let shown = move_number.unwrap_or(available);
    if shown > available {
        return Err(SgfCommandError::MoveOutOfRange {
            path: path.to_path_buf(),
            requested: shown,
            available,
        });
    }
    while game.turn_count() > shown {
        game.undo();
    }
    let unknown = "?".to_string();
    writeln!(
        out,
        "Black:  {}",
        record.black_name.as_ref().unwrap_or(&unknown)
    )?;
    writeln!(
        out,
        "White:  {}",
        record.white_name.as_ref().unwrap_or(&unknown)
    )?;
    writeln!(
        out,
        "Result: {}",
        record.result.as_ref().unwrap_or(&unknown)
    )?;
    writeln!(out, "Rules:  {}", game.rules())?;
    writeln!(out, "Komi:   {}", game.rules().komi)?;
    writeln!(out, "Size:   {}", game.size())?;
    if game.handicap() > 0 {
        writeln!(out, "Handicap: {}", game.handicap())?;
    }
    writeln!(out, "Move {shown} of {available}")?;
    let last = match game.last_move() {
        Some((_, Move::Play(point))) => Some(point),
        _ => None,
    };
    write!(out, "{}", game.board().diagram(last))?;
    Ok(())
}

/// The main line of the first game tree in `path` written canonically by
/// [`write_game`], keeping the record's `PB`, `PW` and `RE`.
pub fn convert(path: &Path) -> Result<String, SgfCommandError> {
    let record = read_record(path)?;
    let info = GameInfo {
        black_name: record.black_name,
        white_name: record.white_name,
        result: record.result,
        ..GameInfo::default()
    };
    Ok(write_game(&record.game, &info))
}

/// Totals of a [`check`] run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckSummary {
    /// Record files read.
    pub files: usize,
    /// Game trees found (a file that is not SGF at all counts as one game).
    pub games: usize,
    /// Turns replayed, over the games that replay fully.
    pub moves: usize,
    /// Games that do not replay.
    pub failures: usize,
    /// Paths that could not be read or listed.
    pub unreadable: usize,
}

impl fmt::Display for CheckSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "files {}, games {}, moves {}, failures {}",
            self.files, self.games, self.moves, self.failures
        )?;
        if self.unreadable > 0 {
            write!(f, ", unreadable {}", self.unreadable)?;
        }
        Ok(())
    }
}

/// Whether a file found in a folder is a record: `.sgf` or `.mgt`, in any case.
fn is_record(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("sgf") || e.eq_ignore_ascii_case("mgt"))
}

/// The record files under `paths`: a file given by name whatever its
/// extension, and the `.sgf` and `.mgt` files of folders, recursively, in name
/// order. Paths that cannot be read come back separately.
pub fn find_records(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<SgfCommandError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut pending: Vec<(PathBuf, bool)> = paths.iter().rev().map(|p| (p.clone(), true)).collect();
    while let Some((path, given)) = pending.pop() {
        let metadata = match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(source) => {
                errors.push(SgfCommandError::Io { path, source });
                continue;
            }
        };
        if metadata.is_dir() {
            let entries = std::fs::read_dir(&path).and_then(|dir| {
                dir.map(|entry| entry.map(|e| e.path()))
                    .collect::<io::Result<Vec<_>>>()
            });
            match entries {
                Ok(mut entries) => {
                    entries.sort();
                    pending.extend(entries.into_iter().rev().map(|p| (p, false)));
                }
                Err(source) => errors.push(SgfCommandError::Io { path, source }),
            }
        } else if given || is_record(&path) {
            files.push(path);
        }
    }
    (files, errors)
}

/// Replays the main line of every game tree of every record under `paths`
/// (see [`find_records`]), writing one line `path: reason` to `out` per game
/// that does not replay (with `(game k)` for the k-th tree, counted from 1,
/// of a collection) and per unreadable path. `progress(done, total)` is told
/// after each file. Returns the totals; records that do not replay are
/// reported, not errors.
pub fn check(
    paths: &[PathBuf],
    out: &mut impl Write,
    mut progress: impl FnMut(usize, usize),
) -> io::Result<CheckSummary> {
    let (files, errors) = find_records(paths);
    let mut summary = CheckSummary {
        unreadable: errors.len(),
        ..CheckSummary::default()
    };
    for error in errors {
        writeln!(out, "{error}")?;
    }
    for (done, path) in files.iter().enumerate() {
        match read_text(path) {
            Err(error) => {
                summary.unreadable += 1;
                writeln!(out, "{error}")?;
            }
            Ok(text) => {
                summary.files += 1;
                check_text(path, &text, &mut summary, out)?;
            }
        }
        progress(done + 1, files.len());
    }
    Ok(summary)
}

fn check_text(
    path: &Path,
    text: &str,
    summary: &mut CheckSummary,
    out: &mut impl Write,
) -> io::Result<()> {
    let trees = match parse_collection(text) {
        Ok(trees) => trees,
        Err(error) => {
            summary.games += 1;
            summary.failures += 1;
            return writeln!(out, "{}: {error}", path.display());
        }
    };
    let several = trees.len() > 1;
    for (k, tree) in trees.iter().enumerate() {
        summary.games += 1;
        // The first tree is read from the file's own text; the others are
        // written back as a game tree of their own first.
        let result = if k == 0 {
            read_game(text)
        } else {
            read_game(&write_tree(tree))
        };
        match result {
            Ok(record) => summary.moves += record.game.turn_count(),
            Err(error) => {
                summary.failures += 1;
                if several {
                    writeln!(out, "{} (game {}): {error}", path.display(), k + 1)?;
                } else {
                    writeln!(out, "{}: {error}", path.display())?;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("tengen-sgf-command-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn check_counts_every_game_tree_of_a_collection() {
        let dir = temp_dir("collection");
        std::fs::write(
            dir.join("two.sgf"),
            "(;SZ[9];B[ee];W[dd])(;SZ[9];B[ee];W[ee])",
        )
        .unwrap();
        std::fs::write(dir.join("notes.txt"), "not a record").unwrap();
        let mut out = Vec::new();
        let summary = check(std::slice::from_ref(&dir), &mut out, |_, _| {}).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            summary,
            CheckSummary {
                files: 1,
                games: 2,
                moves: 2,
                failures: 1,
                unreadable: 0
            }
        );
        assert!(
            text.contains("two.sgf (game 2): node 2: illegal move"),
            "{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
