//! `tengen match` refereeing tengen's random bot against GNU Go: two short 9×9
//! games finish, are scored, are saved as SGF that reads back (by tengen and
//! by GNU Go), and are logged in the results file. Skipped with a note where
//! GNU Go is not installed; the test script installs it.

use std::io::Write;
use std::process::{Command, Stdio};

const GNUGO: &str = "/usr/games/gnugo";

/// GNU Go's answers to a GTP script.
fn gnugo_answers(script: &str) -> String {
    let mut gnugo = Command::new(GNUGO)
        .args(["--mode", "gtp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    gnugo
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    String::from_utf8_lossy(&gnugo.wait_with_output().unwrap().stdout).into_owned()
}

#[test]
fn random_bot_against_gnugo() {
    assert!(
        std::path::Path::new(GNUGO).exists(),
        "{GNUGO} is missing: install GNU Go (apt-get install gnugo; scripts/test installs it)"
    );
    let tengen = env!("CARGO_BIN_EXE_tengen");
    let dir = std::env::temp_dir().join(format!("tengen-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let output = Command::new(tengen)
        .args([
            "match", "--games", "2", "--size", "9", "--komi", "7", "--rules", "chinese",
        ])
        .arg("--engine")
        .arg(format!("{tengen} gtp --bot random --seed 11"))
        .arg("--engine")
        .arg(format!("{GNUGO} --mode gtp --level 1 --chinese-rules"))
        .arg("--sgf-dir")
        .arg(&dir)
        .output()
        .expect("run tengen match");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(stdout.contains("Games: 2"), "{stdout}");
    assert!(stdout.contains("GNU Go"), "{stdout}");

    let results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 2, "{results}");
    for index in 0..2 {
        let path = dir.join(format!("game-{index:04}.sgf"));
        let text = std::fs::read_to_string(&path).unwrap();
        let record = tengen_sgf::read_game(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let result = record.result.expect("RE recorded");
        assert!(
            result.starts_with("B+") || result.starts_with("W+") || result == "0",
            "{result}"
        );
        assert!(record.game.turn_count() > 0);
        assert!(record.black_name.is_some() && record.white_name.is_some());

        // GNU Go reads the record too.
        let reply = gnugo_answers(&format!("loadsgf {}\nquit\n", path.display()));
        assert!(
            reply.starts_with('='),
            "GNU Go could not load {}: {reply}",
            path.display()
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `--handicap` and `--watch`, as the book's `play_local`: GNU Go takes
/// three stones against tengen's random bot, White moves first, komi is
/// 0.5, every move is shown with the board and a score estimate, and the
/// record has `HA` and `AB` and loads into GNU Go with the stones.
#[test]
fn handicap_game_against_gnugo_watched() {
    assert!(
        std::path::Path::new(GNUGO).exists(),
        "{GNUGO} is missing: install GNU Go (apt-get install gnugo; scripts/test installs it)"
    );
    let tengen = env!("CARGO_BIN_EXE_tengen");
    let dir = std::env::temp_dir().join(format!("tengen-handicap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let output = Command::new(tengen)
        .args(["match", "--games", "1", "--size", "9", "--rules", "chinese"])
        .args(["--handicap", "3", "--watch", "--max-moves", "30"])
        .arg("--engine")
        .arg(format!("{GNUGO} --mode gtp --level 1 --chinese-rules"))
        .arg("--engine")
        .arg(format!("{tengen} gtp --bot random --seed 5"))
        .arg("--sgf-dir")
        .arg(&dir)
        .output()
        .expect("run tengen match");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    assert!(!stdout.contains('\x1b'), "piped output is not redrawn");
    let path = dir.join("game-0000.sgf");
    let text = std::fs::read_to_string(&path).unwrap();
    let record = tengen_sgf::read_game(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let turns = record.game.turn_count();
    assert!(turns > 0);
    assert_eq!(record.game.handicap(), 3);
    assert!(text.contains("HA[3]") && text.contains("KM[0.5]"), "{text}");
    assert!(text.contains("AB["), "{text}");
    // One frame per turn, the first White's, each with the board and a count.
    assert_eq!(
        stdout.matches("Game 0: Black GNU Go").count(),
        turns,
        "{stdout}"
    );
    assert!(stdout.contains(", handicap 3\nTurn 1: White "), "{stdout}");
    let counted = stdout.matches("Estimate: ").count() + stdout.matches("Result: ").count();
    assert_eq!(counted, turns, "{stdout}");
    assert!(stdout.contains("Games: 1"), "the report follows: {stdout}");

    // GNU Go loads the record with its handicap stones.
    let reply = gnugo_answers(&format!(
        "loadsgf {} 1\nlist_stones black\nquit\n",
        path.display()
    ));
    let stones = reply.split("\n\n").nth(1).unwrap_or_default();
    assert_eq!(
        stones.split_whitespace().count(),
        4,
        "'=' and 3 stones: {reply}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
