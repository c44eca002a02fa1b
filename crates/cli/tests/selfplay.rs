//! `tengen selfplay`: bot against bot.

use std::process::{Command, Output};

fn selfplay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("selfplay")
        .args(args)
        .output()
        .expect("run tengen")
}

#[test]
fn a_seeded_game_ends_with_a_result_and_replays_exactly() {
    let args = [
        "--size", "5", "--black", "random", "--white", "random", "--seed", "42",
    ];
    let first = selfplay(&args);
    assert!(first.status.success());
    let text = String::from_utf8(first.stdout.clone()).unwrap();
    assert!(text.starts_with(
        "Self-play on 5x5: Black random, White random, rules aga, komi 7.5, seed 42\n"
    ));
    assert!(text.contains("\nBlack plays "), "{text}");
    assert!(text.contains("     A  B  C  D  E"), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("Result: "), "{text}");
    assert!(last.contains("with komi 7.5)"), "{text}");
    let second = selfplay(&args);
    assert_eq!(second.stdout, first.stdout);
    let other = selfplay(&["--size", "5", "--seed", "43"]);
    assert_ne!(other.stdout, first.stdout);
}

#[test]
fn komi_rules_and_rectangles() {
    let out = selfplay(&[
        "--size", "4x3", "--rules", "japanese", "--komi", "0.5", "--seed", "1",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("Self-play on 4x3:"), "{text}");
    assert!(text.contains("scoring=territory,komi=0.5"), "{text}");
    assert!(text.contains("     A  B  C  D"), "{text}");
    assert!(
        text.lines().last().unwrap().contains("with komi 0.5)"),
        "{text}"
    );
}

#[test]
fn the_seed_is_logged_at_info() {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["selfplay", "--size", "3"])
        .env("RUST_LOG", "info")
        .output()
        .unwrap();
    assert!(out.status.success());
    let log = String::from_utf8(out.stderr).unwrap();
    assert!(log.contains("replay with --seed"), "{log}");
}

/// A fresh, empty folder for one test.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-selfplay-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The files of a folder, by name, with their contents.
fn files_of(dir: &std::path::Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    files.sort();
    files
}

/// `tengen selfplay --games` with `SOURCE_DATE_EPOCH` fixed, so that `DT`
/// does not change with the day.
fn series(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("selfplay")
        .args(args)
        .env("SOURCE_DATE_EPOCH", "1780000000")
        .output()
        .expect("run tengen")
}

#[test]
fn a_series_writes_records_that_replay_and_repeat_from_the_seed() {
    let dir = temp_dir("series");
    let (first, second) = (dir.join("first"), dir.join("second"));
    let args = |out: &std::path::Path| {
        vec![
            "--size".to_string(),
            "7".into(),
            "--games".into(),
            "3".into(),
            "--sgf-dir".into(),
            out.display().to_string(),
            "--seed".into(),
            "11".into(),
            "--concurrency".into(),
            "2".into(),
            "--rules".into(),
            "chinese".into(),
        ]
    };
    let run = |out: &std::path::Path| {
        let args = args(out);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = series(&args);
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    let text = run(&first);
    // No boards in this mode: the totals only.
    assert!(!text.contains("     A  B  C"), "{text}");
    assert!(text.contains("Games: 3\n"), "{text}");
    assert!(text.contains("Black wins: "), "{text}");
    assert!(text.contains("Mean length: "), "{text}");
    assert!(text.contains("Records: 3 in "), "{text}");
    let records = files_of(&first);
    let names: Vec<&str> = records.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names, ["game-0001.sgf", "game-0002.sgf", "game-0003.sgf"]);
    let mut wins = [0; 3];
    for (name, record) in &records {
        let read = tengen_sgf::read_game(record).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(read.game.size().width(), 7);
        assert!(read.game.turn_count() > 10, "{name}");
        assert_eq!(read.info.black_name.as_deref(), Some("random"));
        assert_eq!(read.info.white_name.as_deref(), Some("random"));
        assert_eq!(read.info.date.as_deref(), Some("2026-05-28"));
        assert_eq!(read.info.komi, Some(7.5));
        assert!(record.contains("RU[Chinese]"), "{record}");
        // The result is the game's own.
        let result = read.info.result.clone().unwrap();
        assert_eq!(result, read.game.outcome().to_string(), "{name}");
        match read.game.outcome().winner() {
            Some(tengen_core::Color::Black) => wins[0] += 1,
            Some(tengen_core::Color::White) => wins[1] += 1,
            None => wins[2] += 1,
        }
    }
    assert!(
        text.contains(&format!("Black wins: {} (", wins[0])),
        "{text}"
    );
    // The same seed gives the same records, whatever the threads did.
    run(&second);
    assert_eq!(files_of(&second), records);
    // Game 1 is the single game of the same seed.
    let single = selfplay(&["--size", "7", "--seed", "11", "--rules", "chinese"]);
    let single = String::from_utf8(single.stdout).unwrap();
    let last = single.lines().last().unwrap();
    let first_result = tengen_sgf::read_game(&records[0].1)
        .unwrap()
        .info
        .result
        .unwrap();
    assert!(
        last.starts_with(&format!("Result: {first_result} ")),
        "{last}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn one_bot_for_both_colours() {
    let dir = temp_dir("bot");
    let out = series(&[
        "--size",
        "5",
        "--games",
        "2",
        "--bot",
        "random",
        "--sgf-dir",
        dir.to_str().unwrap(),
        "--seed",
        "3",
    ]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Black random, White random"), "{text}");
    assert_eq!(files_of(&dir).len(), 2);
    // --bot and --black together are refused, as is --sgf-dir without --games.
    assert!(!selfplay(&["--bot", "random", "--black", "random"])
        .status
        .success());
    assert!(!selfplay(&["--sgf-dir", dir.to_str().unwrap()])
        .status
        .success());
    std::fs::remove_dir_all(&dir).unwrap();
}
