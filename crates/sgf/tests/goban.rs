//! Real records: the 596 professional games (1941–95) of Debian's
//! `goban-original-games` package, `.sgf` and `.mgt` (SGF text) files under
//! `/usr/share/goban`. Every game tree's main line is replayed (the first with
//! [`read_game_bytes`], later ones written back with [`write_tree`] and read
//! with [`read_game`]; the package has one tree per file); a record with a
//! move on an occupied point must come back as [`ReadError::IllegalMove`],
//! never as a panic. Skipped (with a note) where the package is not installed;
//! the test script installs it.

use std::path::{Path, PathBuf};
use std::time::Instant;

use tengen_sgf::{
    decode_sgf, parse_collection, read_game, read_game_bytes, read_game_with, write_tree,
    IllegalMovePolicy, ReadError,
};

const GOBAN: &str = "/usr/share/goban";

/// Games that must replay fully: 591 of the package's 596. Five old records
/// (M-65-5.sgf, M-77-1/2/4.mgt, T-22-4.mgt) have a move on an occupied point.
const MIN_FULLY_REPLAYED: usize = 591;

fn record_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            record_files(&path, out);
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("sgf" | "mgt")
        ) {
            out.push(path);
        }
    }
}

#[test]
fn goban_original_games_replay() {
    assert!(
        Path::new(GOBAN).is_dir(),
        "{GOBAN} is missing: install the records (apt-get install goban-original-games; scripts/test installs them)"
    );
    let start = Instant::now();
    let mut files = Vec::new();
    record_files(Path::new(GOBAN), &mut files);
    let (mut games, mut replayed, mut moves) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    let mut other_errors = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let text = decode_sgf(&bytes);
        let trees = match parse_collection(&text) {
            Ok(trees) => trees,
            Err(e) => {
                games += 1;
                other_errors += 1;
                failures.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        for (k, tree) in trees.iter().enumerate() {
            games += 1;
            let result = if k == 0 {
                read_game_bytes(&bytes)
            } else {
                read_game(&write_tree(tree))
            };
            match result {
                Ok(record) => {
                    replayed += 1;
                    moves += record.game.turn_count();
                }
                Err(e @ ReadError::IllegalMove { .. }) => {
                    failures.push(format!("{} (tree {k}): {e}", path.display()));
                }
                Err(e) => {
                    other_errors += 1;
                    failures.push(format!(
                        "{} (tree {k}): NOT AN ILLEGAL MOVE: {e}",
                        path.display()
                    ));
                }
            }
        }
    }
    for failure in &failures {
        eprintln!("{failure}");
    }
    eprintln!(
        "files {}, games {games}, fully replayed {replayed}, moves {moves}, failures {}, {:.2?}",
        files.len(),
        failures.len(),
        start.elapsed()
    );
    assert_eq!(
        other_errors, 0,
        "records rejected for other reasons than an illegal move"
    );
    assert!(
        replayed >= MIN_FULLY_REPLAYED,
        "only {replayed} of {games} games replayed fully"
    );

    // Executing illegal moves as the SGF specification says, every game
    // replays to its end; count the moves that had to be forced.
    let (mut executed, mut executed_moves, mut forced_games) = (0usize, 0usize, 0usize);
    for path in &files {
        let text = decode_sgf(&std::fs::read(path).unwrap());
        let record = read_game_with(&text, IllegalMovePolicy::Execute)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for illegal in &record.executed_illegal {
            eprintln!(
                "{}: executed node {} [{}]: {}",
                path.display(),
                illegal.node,
                illegal.value,
                illegal.reason
            );
        }
        executed += record.executed_illegal.len();
        forced_games += usize::from(!record.executed_illegal.is_empty());
        executed_moves += record.game.turn_count();
    }
    eprintln!(
        "executing illegal moves: {} files replayed, {executed} illegal moves executed in {forced_games} games",
        files.len()
    );
    assert_eq!(
        forced_games,
        files.len() - replayed,
        "the strictly failing games are the forced ones"
    );
    assert!(executed_moves > 0);
}
