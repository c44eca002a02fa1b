//! `tengen nn prepare`: SGF records to training shards.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use tengen_train::data::Dataset;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-nn-prepare-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn nn_prepare(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["nn", "prepare"])
        .args(args)
        .output()
        .expect("run tengen")
}

/// Twelve moves on 9x9 that capture nothing, from a given first point.
fn game(first: &str, result: &str) -> String {
    let moves = [
        first, "cc", "gg", "cg", "gc", "ec", "ce", "eg", "ge", "dd", "ff", "df",
    ];
    let mut text = format!("(;GM[1]SZ[9]KM[6.5]RE[{result}]");
    for (n, mv) in moves.iter().enumerate() {
        let color = if n.is_multiple_of(2) { 'B' } else { 'W' };
        text.push_str(&format!(";{color}[{mv}]"));
    }
    text.push(')');
    text
}

/// Records under `dir`: five good 9x9 games (one file holding two), one
/// 19x19 game, one that does not parse, one with an illegal move.
fn fixtures(dir: &Path) {
    std::fs::create_dir_all(dir.join("more")).unwrap();
    std::fs::write(dir.join("one.sgf"), game("ee", "B+R")).unwrap();
    std::fs::write(dir.join("two.sgf"), game("aa", "W+0.5")).unwrap();
    std::fs::write(
        dir.join("more/pair.sgf"),
        format!("{}\n{}", game("ab", "0"), game("ba", "B+2.5")),
    )
    .unwrap();
    std::fs::write(dir.join("more/five.mgt"), game("ha", "W+R")).unwrap();
    std::fs::write(dir.join("big.sgf"), "(;SZ[19];B[pd];W[dp];B[pp];W[dd])").unwrap();
    std::fs::write(dir.join("broken.sgf"), "(;SZ[9];B[ee]").unwrap();
    std::fs::write(
        dir.join("more/illegal.sgf"),
        game("ee", "B+R").replace("W[cc]", "W[ee]"),
    )
    .unwrap();
}

#[test]
fn prepare_prints_the_report_and_writes_the_shards() {
    let dir = temp_dir("report");
    let inputs = dir.join("records");
    fixtures(&inputs);
    let out = dir.join("data");
    let output = nn_prepare(&[
        inputs.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--size",
        "9",
        "--validation",
        "0.5",
        "--min-moves",
        "5",
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let text = String::from_utf8(output.stdout).unwrap();
    for line in [
        "files read:   7\n",
        "games read:   8\n",
        "games kept:   5\n",
        "games skipped: 3\n",
        "  illegal move: 1\n",
        "  parse error: 1\n",
        "  wrong size: 1\n",
    ] {
        assert!(text.contains(line), "{line:?} missing from:\n{text}");
    }
    let data = Dataset::load(&out).unwrap();
    assert_eq!(data.train.len() + data.validation.len(), 5);
    assert!(
        text.contains(&format!(
            "train:      {} games, {} positions\n",
            data.train.len(),
            data.train_positions()
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "validation: {} games, {} positions\n",
            data.validation.len(),
            data.validation_positions()
        )),
        "{text}"
    );
    assert_eq!(data.train_positions() + data.validation_positions(), 60);
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(summary.contains("games kept:   5"), "{summary}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn prepare_refuses_what_gives_no_data() {
    let dir = temp_dir("refuse");
    let inputs = dir.join("records");
    fixtures(&inputs);
    let out = dir.join("data");
    let out_text = out.to_str().unwrap();
    // No 13x13 game among the records.
    let output = nn_prepare(&[inputs.to_str().unwrap(), "--out", out_text, "--size", "13"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("no game of size 13x13 was kept"),
        "{stderr}"
    );
    // A path that does not exist.
    let missing = dir.join("missing");
    let output = nn_prepare(&[missing.to_str().unwrap(), "--out", out_text, "--size", "9"]);
    assert!(!output.status.success());
    assert!(String::from_utf8(output.stderr)
        .unwrap()
        .contains("missing"));
    // A fraction out of range, and no --size.
    let output = nn_prepare(&[
        inputs.to_str().unwrap(),
        "--out",
        out_text,
        "--size",
        "9",
        "--validation",
        "1.5",
    ]);
    assert!(!output.status.success());
    let output = nn_prepare(&[inputs.to_str().unwrap(), "--out", out_text]);
    assert!(!output.status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}
