//! Preparing training data: SGF (and `.mgt`) files and folders read on all
//! cores, the games of one board size that replay legally kept, duplicates
//! dropped, each game put in the training or validation split by a hash of
//! its moves, and the splits written as shards.

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use tengen_core::BoardSize;
use tengen_sgf::{decode_sgf, parse_collection, read_game, write_tree, ReadError};

use super::record::{positions, winner_of_result, GameRecord};
use super::shard::{shards_of, write_shard, PASS, SHARD_EXTENSION};
use super::{io_error, DataError};

/// The name of the summary file [`prepare`] writes into its folder.
pub const SUMMARY_FILE: &str = "summary.txt";

/// What [`prepare`] keeps and how it splits and stores it.
#[derive(Clone, Debug, PartialEq)]
pub struct PrepareOptions {
    /// The board size kept; games of other sizes are skipped ("wrong size").
    pub size: BoardSize,
    /// The share of games put in the validation split, 0 to 1 (default 0.1).
    pub validation_fraction: f64,
    /// Games per shard file (default 5000).
    pub games_per_shard: usize,
    /// Games with fewer moves are skipped ("too short"; default 10).
    pub min_moves: usize,
}

impl PrepareOptions {
    /// The defaults for board `size`.
    pub fn new(size: BoardSize) -> PrepareOptions {
        PrepareOptions {
            size,
            validation_fraction: 0.1,
            games_per_shard: 5000,
            min_moves: 10,
        }
    }
}

impl Default for PrepareOptions {
    /// The defaults on 19x19.
    fn default() -> PrepareOptions {
        PrepareOptions::new(BoardSize::square(19).expect("19x19 is a board size"))
    }
}

/// What [`prepare`] read, kept, skipped and wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrepareReport {
    /// Record files read.
    pub files: usize,
    /// Game trees found in them (a file that does not parse counts as one).
    pub games_read: usize,
    /// Games kept.
    pub games_kept: usize,
    /// Games skipped, by reason: "parse error", "bad value", "not Go",
    /// "wrong size", "setup after moves", "non-alternating",
    /// "illegal move", "too short", "duplicate", "unreadable".
    pub skipped: BTreeMap<String, usize>,
    /// Games in the training split.
    pub train_games: usize,
    /// Games in the validation split.
    pub validation_games: usize,
    /// Positions (moves) in the training split.
    pub train_positions: usize,
    /// Positions (moves) in the validation split.
    pub validation_positions: usize,
}

impl fmt::Display for PrepareReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "files read:   {}", self.files)?;
        writeln!(f, "games read:   {}", self.games_read)?;
        writeln!(f, "games kept:   {}", self.games_kept)?;
        let skipped: usize = self.skipped.values().sum();
        writeln!(f, "games skipped: {skipped}")?;
        for (reason, count) in &self.skipped {
            writeln!(f, "  {reason}: {count}")?;
        }
        writeln!(
            f,
            "train:      {} games, {} positions",
            self.train_games, self.train_positions
        )?;
        writeln!(
            f,
            "validation: {} games, {} positions",
            self.validation_games, self.validation_positions
        )
    }
}

/// Whether a file found in a folder is a record: `.sgf` or `.mgt`, any case.
fn is_record_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("sgf") || e.eq_ignore_ascii_case("mgt"))
}

/// The record files under `inputs`: a file given by name whatever its
/// extension, and the `.sgf` and `.mgt` files of folders, recursively, in
/// name order.
pub fn find_record_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, DataError> {
    let mut files = Vec::new();
    let mut pending: Vec<(PathBuf, bool)> =
        inputs.iter().rev().map(|p| (p.clone(), true)).collect();
    while let Some((path, given)) = pending.pop() {
        let metadata = std::fs::metadata(&path).map_err(io_error(&path))?;
        if metadata.is_dir() {
            let mut entries = std::fs::read_dir(&path)
                .and_then(|dir| {
                    dir.map(|e| e.map(|e| e.path()))
                        .collect::<io::Result<Vec<_>>>()
                })
                .map_err(io_error(&path))?;
            entries.sort();
            pending.extend(entries.into_iter().rev().map(|p| (p, false)));
        } else if given || is_record_file(&path) {
            files.push(path);
        }
    }
    Ok(files)
}

/// The skip reason of a record that does not replay.
fn read_error_reason(error: &ReadError) -> &'static str {
    match error {
        ReadError::Syntax(_) => "parse error",
        ReadError::NotGo(_) => "not Go",
        ReadError::BadValue { .. } => "bad value",
        ReadError::IllegalMove { .. } => "illegal move",
    }
}

/// One game tree as a record of `size`, or the reason it is skipped.
fn game_of_tree(text: &str, options: &PrepareOptions) -> Result<GameRecord, &'static str> {
    let record = read_game(text).map_err(|e| read_error_reason(&e))?;
    if record.game.size() != options.size {
        return Err("wrong size");
    }
    if record.main_line.iter().any(|node| node.turn.is_none()) {
        return Err("setup after moves");
    }
    let winner = record.result.as_deref().and_then(winner_of_result);
    let game = GameRecord::from_game(&record.game, winner).ok_or("non-alternating")?;
    // The record's own rules may differ (simple ko, say): replay under the
    // rules training replays with.
    game.replay().map_err(|_| "illegal move")?;
    if game.moves.len() < options.min_moves {
        return Err("too short");
    }
    Ok(game)
}

/// Every game tree of one file, each kept or with its skip reason.
fn games_of_file(path: &Path, options: &PrepareOptions) -> Vec<Result<GameRecord, &'static str>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "cannot read a record file");
            return vec![Err("unreadable")];
        }
    };
    let text = decode_sgf(&bytes);
    match parse_collection(&text) {
        Err(_) => vec![Err("parse error")],
        Ok(trees) if trees.len() == 1 => vec![game_of_tree(&text, options)],
        Ok(trees) => trees
            .iter()
            .map(|tree| game_of_tree(&write_tree(tree), options))
            .collect(),
    }
}

/// A stable 64-bit FNV-1a hash of a game's board, setup and moves.
fn game_hash(game: &GameRecord) -> u64 {
    let mut hash = tengen_core::Fnv1a::new();
    let mut feed = |bytes: &[u8]| hash.write(bytes);
    feed(&[game.size.width() as u8, game.size.height() as u8]);
    for &(color, point) in &game.setup {
        feed(&[color.index() as u8]);
        feed(&point.to_le_bytes());
    }
    for &mv in &game.moves {
        feed(&mv.unwrap_or(PASS).to_le_bytes());
    }
    hash.finish()
}

/// Whether a game goes to the validation split: decided by a hash of its
/// moves (and board and setup), so the same game always lands in the same
/// split whatever else is prepared with it.
pub fn is_validation(game: &GameRecord, validation_fraction: f64) -> bool {
    // The top 53 bits as a number in [0, 1).
    let unit = (game_hash(game) >> 11) as f64 / (1u64 << 53) as f64;
    unit < validation_fraction
}

/// Reads SGF/MGT files and folders (recursively), keeps games of
/// `options.size` that replay legally, writes `train-NNN.tgs` /
/// `validation-NNN.tgs` shards into `out` plus a small human-readable
/// summary file ([`SUMMARY_FILE`]). The split is by game and deterministic:
/// decided by a hash of the game's moves (so the same game always lands in
/// the same split; see [`is_validation`]).
///
/// Every game tree of a collection file counts. Games are replayed with
/// [`Rules::default`](tengen_core::Rules::default) (situational superko); a
/// game the rules refuse is skipped as "illegal move". A game identical to
/// one already kept (same board, setup and moves) is skipped as "duplicate".
/// Files are read on all cores; `progress(done, total)` is told after each file. Shards of an
/// earlier run in `out` are removed first. Games are stored in the order of
/// the files, so the same inputs give the same shards.
pub fn prepare(
    inputs: &[PathBuf],
    out: &Path,
    options: &PrepareOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<PrepareReport, DataError> {
    if !(0.0..=1.0).contains(&options.validation_fraction) {
        return Err(DataError::Options(format!(
            "the validation fraction must be from 0 to 1, not {}",
            options.validation_fraction
        )));
    }
    if options.games_per_shard == 0 {
        return Err(DataError::Options(
            "games per shard must be at least 1".into(),
        ));
    }
    let files = find_record_files(inputs)?;
    let per_file = read_files(&files, options, progress);

    let mut report = PrepareReport {
        files: files.len(),
        ..PrepareReport::default()
    };
    let mut seen = HashSet::new();
    let (mut train, mut validation) = (Vec::new(), Vec::new());
    for games in per_file {
        for game in games {
            report.games_read += 1;
            let game = game.and_then(|game| {
                if seen.insert((game_hash(&game), game.setup.clone(), game.moves.clone())) {
                    Ok(game)
                } else {
                    Err("duplicate")
                }
            });
            match game {
                Err(reason) => *report.skipped.entry(reason.to_string()).or_insert(0) += 1,
                Ok(game) if is_validation(&game, options.validation_fraction) => {
                    validation.push(game)
                }
                Ok(game) => train.push(game),
            }
        }
    }
    report.games_kept = train.len() + validation.len();
    report.train_games = train.len();
    report.validation_games = validation.len();
    report.train_positions = positions(&train);
    report.validation_positions = positions(&validation);

    std::fs::create_dir_all(out).map_err(io_error(out))?;
    for prefix in ["train", "validation"] {
        for old in shards_of(out, prefix)? {
            std::fs::remove_file(&old).map_err(io_error(&old))?;
        }
    }
    for (prefix, games) in [("train", &train), ("validation", &validation)] {
        for (n, chunk) in games.chunks(options.games_per_shard).enumerate() {
            let path = out.join(format!("{prefix}-{n:03}.{SHARD_EXTENSION}"));
            write_shard(&path, chunk)?;
        }
    }
    let summary_path = out.join(SUMMARY_FILE);
    let summary = format!(
        "tengen training data, board {}x{}, validation fraction {}, at least {} moves a game\n\
         inputs: {}\n{report}",
        options.size.width(),
        options.size.height(),
        options.validation_fraction,
        options.min_moves,
        inputs
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
    );
    std::fs::write(&summary_path, summary).map_err(io_error(&summary_path))?;
    Ok(report)
}

/// The games of every file, in file order, read on all cores.
fn read_files(
    files: &[PathBuf],
    options: &PrepareOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<Vec<Result<GameRecord, &'static str>>> {
    let mut results: Vec<Option<Vec<_>>> = vec![None; files.len()];
    progress(0, files.len());
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(index) else {
                    break;
                };
                if sender.send((index, games_of_file(path, options))).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        for (done, (index, games)) in receiver.iter().enumerate() {
            results[index] = Some(games);
            progress(done + 1, files.len());
        }
    });
    results.into_iter().map(Option::unwrap_or_default).collect()
}
