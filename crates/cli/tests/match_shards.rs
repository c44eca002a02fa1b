//! `tengen match --shard` and `tengen match merge` through the binary: the
//! shards of a match between seeded random engines, merged, are exactly the
//! games of the whole match; a shard resumes from its own results file;
//! merging refuses other matches and contradicting copies of a game; bad
//! `--shard` values are one-line errors.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tengen_match::results::from_line;
use tengen_match::{EngineTime, GameRecord};

const GAMES: usize = 12;

fn tengen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .expect("start tengen")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-shards-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A random bot seeded per game through `{seed}`, so every game differs and
/// each is the same wherever it is played.
fn engine() -> String {
    format!(
        "{} gtp --bot random --seed {{seed}}",
        env!("CARGO_BIN_EXE_tengen")
    )
}

/// Runs the match (or one shard of it) into `dir`, returning the output.
fn play(dir: &Path, komi: &str, shard: Option<&str>) -> Output {
    let engine = engine();
    let (results, sgf) = (dir.join("results.jsonl"), dir.join("sgf"));
    let games = GAMES.to_string();
    let mut args = vec![
        "match",
        "--engine",
        &engine,
        "--engine",
        &engine,
        "--games",
        &games,
        "--size",
        "7",
        "--komi",
        komi,
        "--seed",
        "21",
        "--concurrency",
        "2",
        "--results",
        results.to_str().unwrap(),
        "--sgf-dir",
        sgf.to_str().unwrap(),
    ];
    if let Some(shard) = shard {
        args.extend(["--shard", shard]);
    }
    let output = tengen(&args);
    assert!(output.status.success(), "{output:?}");
    output
}

/// The games of a results file in index order, without what depends on the
/// machine's speed or the folder (timings, the SGF path).
fn games(path: &Path) -> Vec<GameRecord> {
    let mut records: Vec<GameRecord> = fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| {
            let (_, record) = from_line(line).unwrap();
            GameRecord {
                time: record.time.map(|t| EngineTime {
                    moves: t.moves,
                    ..EngineTime::default()
                }),
                move_times: Vec::new(),
                sgf: None,
                ..record
            }
        })
        .collect();
    records.sort_by_key(|r| r.index);
    records
}

/// A game's SGF record without its date (the day the game was played).
fn sgf_without_date(path: &Path) -> String {
    let text = fs::read_to_string(path).unwrap();
    match text.find("DT[") {
        Some(start) => {
            let end = start + text[start..].find(']').unwrap();
            format!("{}{}", &text[..start], &text[end + 1..])
        }
        None => text,
    }
}

/// The report's lines that do not depend on timings or on how the games
/// were split.
fn figures(stdout: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter(|l| {
            [
                "Engine 0 score",
                "Elo difference",
                "Mean game length",
                "  Draws",
                "Score disagreements",
            ]
            .iter()
            .any(|start| l.starts_with(start))
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn merged_shards_are_exactly_the_whole_match() {
    let root = scratch("exact");
    let whole = play(&root.join("whole"), "7", None);
    let whole_games = games(&root.join("whole/results.jsonl"));
    assert_eq!(whole_games.len(), GAMES);
    // Seeded per game: the games differ from one another (were every engine
    // seeded alike, games of the same colours would repeat).
    let mut lengths: Vec<usize> = whole_games.iter().map(|g| g.moves).collect();
    lengths.dedup();
    assert!(lengths.len() > 3, "{lengths:?}");

    let mut files = Vec::new();
    for index in 0..4 {
        let dir = root.join(format!("shard{index}"));
        let output = play(&dir, "7", Some(&format!("{index}/4")));
        let text = String::from_utf8_lossy(&output.stdout);
        assert!(
            text.starts_with(&format!("Shard {index}/4 of match: games 3 of {GAMES}")),
            "{text}"
        );
        let shard_games = games(&dir.join("results.jsonl"));
        assert!(shard_games.iter().all(|g| g.index % 4 == index));
        // Each game's record is the whole match's, move for move.
        for game in &shard_games {
            let name = format!("sgf/game-{:04}.sgf", game.index);
            assert_eq!(
                sgf_without_date(&dir.join(&name)),
                sgf_without_date(&root.join("whole").join(&name)),
                "game {}",
                game.index
            );
        }
        files.push(dir.join("results.jsonl"));
    }
    let merged_path = root.join("merged.jsonl");
    let mut args = vec!["match".to_string(), "merge".to_string()];
    args.extend(files.iter().map(|f| f.to_str().unwrap().to_string()));
    args.extend(["-o".to_string(), merged_path.to_str().unwrap().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let merged = tengen(&args);
    assert!(merged.status.success(), "{merged:?}");
    let text = String::from_utf8_lossy(&merged.stdout);
    assert!(
        text.starts_with(&format!(
            "Merged {GAMES} games from 4 files (0 repeated lines counted once)"
        )),
        "{text}"
    );
    assert_eq!(games(&merged_path), whole_games);
    assert_eq!(figures(&merged.stdout), figures(&whole.stdout));
    assert_eq!(figures(&whole.stdout).len(), 5);

    // A file given twice adds nothing.
    let mut twice = args.clone();
    twice.insert(2, files[0].to_str().unwrap());
    let again = tengen(&twice);
    assert!(again.status.success(), "{again:?}");
    assert!(String::from_utf8_lossy(&again.stdout).contains("(3 repeated lines counted once)"));
    assert_eq!(games(&merged_path), whole_games);
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn a_shard_resumes_from_its_results_file() {
    let root = scratch("resume");
    let dir = root.join("shard");
    play(&dir, "7", Some("1/3"));
    let results = dir.join("results.jsonl");
    let before = games(&results);
    assert_eq!(
        before.iter().map(|g| g.index).collect::<Vec<_>>(),
        vec![1, 4, 7, 10]
    );
    // Lose the last two games, as if the shard had been stopped.
    let text = fs::read_to_string(&results).unwrap();
    let kept: Vec<&str> = text.lines().take(2).collect();
    fs::write(&results, kept.join("\n") + "\n").unwrap();
    let output = play(&dir, "7", Some("1/3"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("Games: 4 (2 resumed from the results file)"),
        "{stdout}"
    );
    assert_eq!(games(&results), before);
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn merge_refuses_other_matches_and_contradictions() {
    let root = scratch("refuse");
    play(&root.join("a"), "7", Some("0/6"));
    play(&root.join("b"), "5.5", Some("1/6"));
    let a = root.join("a/results.jsonl");
    let b = root.join("b/results.jsonl");
    let output = tengen(&["match", "merge", a.to_str().unwrap(), b.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("b/results.jsonl line 1 is from another match than"),
        "{stderr}"
    );
    assert!(stderr.contains("a/results.jsonl line 1"), "{stderr}");
    assert!(
        stderr.contains("komi 5.5") && stderr.contains("komi 7"),
        "{stderr}"
    );

    // The file's first game with another result.
    let text = fs::read_to_string(&a).unwrap();
    let first = text.lines().next().unwrap();
    let (_, record) = from_line(first).unwrap();
    let flipped = if record.result.starts_with('B') {
        "W+9"
    } else {
        "B+9"
    };
    let forged = first.replacen(
        &format!("\"result\":\"{}\"", record.result),
        &format!("\"result\":\"{flipped}\""),
        1,
    );
    assert_ne!(forged, first);
    let c = root.join("c.jsonl");
    fs::write(&c, forged + "\n").unwrap();
    let output = tengen(&["match", "merge", a.to_str().unwrap(), c.to_str().unwrap()]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    // With two games at a time the first line is not always game 0's.
    assert!(
        stderr.contains(&format!("game {} differs between", record.index)),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("result {} against {flipped}", record.result)),
        "{stderr}"
    );

    let missing = root.join("missing.jsonl");
    let output = tengen(&["match", "merge", missing.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("missing.jsonl"));
    fs::remove_dir_all(&root).unwrap();
}

#[test]
fn bad_shards_are_one_line_errors() {
    for (value, reason) in [
        ("0/0", "the number of shards N must be at least 1"),
        (
            "3/2",
            "the index must be below the number of shards (0 to 1)",
        ),
        ("x", "is not of the form I/N"),
        ("1/", "is not of the form I/N"),
    ] {
        for command in [
            vec!["match", "--engine", "a", "--engine", "b", "--shard", value],
            vec!["selfplay", "--games", "4", "--seed", "1", "--shard", value],
        ] {
            let output = tengen(&command);
            assert_eq!(output.status.code(), Some(2), "{command:?}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            let first = stderr.lines().next().unwrap_or_default();
            assert!(first.starts_with("error: invalid value"), "{stderr}");
            assert!(first.contains(reason), "{command:?}: {stderr}");
        }
    }
    let output = tengen(&["selfplay", "--games", "4", "--shard", "1/2"]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("--shard needs --seed"));
}
