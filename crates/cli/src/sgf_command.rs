//! `tengen sgf`: show, check and convert SGF game records.
//!
//! Files are read as bytes and decoded with [`tengen_sgf::decode_sgf`] (the
//! character set named by `CA`), so records in any encoding are accepted.
//!
//! - [`show`]: game information and the board at a chosen move.
//! - [`check`]: replays every game tree's main line of every record under
//!   some paths and reports the records that do not replay.
//! - [`convert`]: the main line re-written canonically with
//!   [`tengen_sgf::write_record`], game information included.

use std::fmt;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tengen_core::{Game, Move};
use tengen_sgf::{decode_sgf, parse_collection, read_game, write_record, write_tree, RulesText};

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

/// Prints the game information of the first game tree in `path` (players
/// with ranks, result, date, event, game name, rules, komi, size, handicap
/// and time system, each when the record has it) and the board after move
/// `move_number` of its main line (default: the end), the last move in
/// brackets, followed by the comment and time left recorded at that move.
/// Moves are counted from the start of the replayed game: after setup stones
/// in the middle of a main line, from that setup.
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
    let info = &record.info;
    let player = |name: &Option<String>, rank: &Option<String>| {
        let name = name.as_deref().unwrap_or("?");
        match rank {
            Some(rank) => format!("{name} ({rank})"),
            None => name.to_string(),
        }
    };
    writeln!(
        out,
        "Black:  {}",
        player(&info.black_name, &info.black_rank)
    )?;
    writeln!(
        out,
        "White:  {}",
        player(&info.white_name, &info.white_rank)
    )?;
    writeln!(out, "Result: {}", info.result.as_deref().unwrap_or("?"))?;
    let optional = [
        ("Date:   ", &info.date),
        ("Event:  ", &info.event),
        ("Round:  ", &info.round),
        ("Place:  ", &info.place),
        ("Game:   ", &info.game_name),
    ];
    for (label, value) in optional {
        if let Some(value) = value {
            writeln!(out, "{label}{}", one_line(value))?;
        }
    }
    match &info.rules {
        RulesText::Given(text) => {
            writeln!(out, "Rules:  {} (read as {})", one_line(text), game.rules())?
        }
        RulesText::Absent | RulesText::FromGame => {
            writeln!(out, "Rules:  not given (read as {})", game.rules())?
        }
    }
    writeln!(out, "Komi:   {}", game.rules().komi)?;
    writeln!(out, "Size:   {}", game.size())?;
    if game.handicap() > 0 {
        writeln!(out, "Handicap: {}", game.handicap())?;
    } else if let Some(handicap) = info.handicap.filter(|&h| h > 0) {
        writeln!(
            out,
            "Handicap: {handicap} (from HA; replayed as set-up stones)"
        )?;
    }
    if let Some(time) = time_system(info.time_limit, info.overtime.as_deref()) {
        writeln!(out, "Time:   {time}")?;
    }
    writeln!(out, "Move {shown} of {available}")?;
    let last = match game.last_move() {
        Some((_, Move::Play(point))) => Some(point),
        _ => None,
    };
    write!(out, "{}", game.board().diagram(last))?;
    // The node of the shown move: the first whose turn count it reaches.
    if let Some(node) = record.main_line.iter().find(|n| n.turn == Some(shown)) {
        for (color, left, moves) in [
            ("Black", node.black_time_left, node.black_moves_left),
            ("White", node.white_time_left, node.white_moves_left),
        ] {
            if let Some(seconds) = left {
                write!(out, "{color} time left: {}", seconds_text(seconds))?;
                match moves {
                    Some(moves) => writeln!(out, ", {moves} moves to play")?,
                    None => writeln!(out)?,
                }
            }
        }
        if let Some(comment) = &node.comment {
            writeln!(out, "Comment:")?;
            for line in comment.lines() {
                writeln!(out, "  {line}")?;
            }
        }
    }
    Ok(())
}

/// Text shown on one line: line breaks become spaces.
fn one_line(text: &str) -> String {
    text.split(['\n', '\r']).collect::<Vec<_>>().join(" ")
}

/// Seconds as `1:30:00`, `5:00` or `12.5 s`.
fn seconds_text(seconds: f64) -> String {
    if seconds.fract() != 0.0 || seconds < 60.0 {
        return format!("{seconds} s");
    }
    // Whole seconds from a minute up; below 2^53 the conversion is exact.
    let whole = seconds.min(9e15) as u64;
    let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60);
    if hours > 0 {
        format!("{hours}:{minutes:02}:{secs:02}")
    } else {
        format!("{minutes}:{secs:02}")
    }
}

/// `TM` and `OT` together, such as `1:30:00 each, then 5x30 byo-yomi`.
fn time_system(main: Option<f64>, overtime: Option<&str>) -> Option<String> {
    match (main, overtime) {
        (None, None) => None,
        (Some(main), None) => Some(format!("{} each", seconds_text(main))),
        (None, Some(overtime)) => Some(format!("overtime {}", one_line(overtime))),
        (Some(main), Some(overtime)) => Some(format!(
            "{} each, then {}",
            seconds_text(main),
            one_line(overtime)
        )),
    }
}

/// The main line of the first game tree in `path` written canonically by
/// [`write_record`], keeping the record's game information (players, ranks,
/// date, event, result, time, ...). `RU` is written as the record gave it,
/// and left out when it gave none. Comments, variations and markup are not
/// kept: this is the game, not the whole record.
pub fn convert(path: &Path) -> Result<String, SgfCommandError> {
    let record = read_record(path)?;
    Ok(write_record(&record.game, &record.info))
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
