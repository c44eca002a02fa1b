//! `scripts/move-loss` end to end: positions sampled from a short series
//! played by `tengen match`, answered by the MCTS bot, judged by KataGo's
//! network from the PyPI package katrain 1.20.0 (`scripts/katago-model`).

use std::path::Path;
use std::process::Command;
use tengen_katago::reference::model_path;

fn move_loss(args: &[&str], dir: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/move-loss");
    let output = Command::new("python3")
        .arg(script)
        .args(args)
        .current_dir(dir)
        .env("TENGEN_BIN", env!("CARGO_BIN_EXE_tengen"))
        .env("KATAGO_MODEL", model_path())
        .output()
        .expect("run scripts/move-loss");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "move-loss {args:?}: {stderr}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn positions_of_a_series_are_answered_and_judged() {
    let dir = std::env::temp_dir().join(format!("tengen-move-loss-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin = env!("CARGO_BIN_EXE_tengen");
    let engine =
        format!("{bin} gtp --bot mcts:playouts=60,resign-winrate=0,book=none --seed {{seed}}");
    let series = dir.join("series");
    let output = Command::new(bin)
        .args(["match", "--engine", &engine, "--engine", &engine])
        .args(["--games", "2", "--size", "9", "--komi", "7", "--seed", "3"])
        .arg("--sgf-dir")
        .arg(&series)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let report = move_loss(
        &["sample", "positions.json", "series", "--count", "6"],
        &dir,
    );
    assert!(report.contains("positions, mean chance"), "{report}");
    let positions: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("positions.json")).unwrap())
            .unwrap();
    assert!(!positions.is_empty() && positions.len() <= 6, "{report}");
    for p in &positions {
        let before = p["before"].as_f64().unwrap();
        let number = p["number"].as_u64().unwrap();
        assert!((0.15..=0.92).contains(&before), "{p}");
        assert!((8..=60).contains(&number), "{p}");
    }

    let answer = format!("{bin} gtp --bot mcts:playouts=100,resign-winrate=0,book=none --seed 1");
    move_loss(&["play", "positions.json", "a.jsonl", &answer], &dir);
    let played: Vec<serde_json::Value> = std::fs::read_to_string(dir.join("a.jsonl"))
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(played.len(), positions.len());
    for (p, answer) in positions.iter().zip(&played) {
        assert_eq!(p["sgf"], answer["sgf"]);
        let (before, after, loss) = (
            answer["before"].as_f64().unwrap(),
            answer["after"].as_f64().unwrap(),
            answer["loss"].as_f64().unwrap(),
        );
        assert!((0.0..=1.0).contains(&after), "{answer}");
        assert!((loss - (before - after)).abs() < 1e-12, "{answer}");
        let mv = answer["move"].as_str().unwrap();
        assert!(
            mv.eq_ignore_ascii_case("pass")
                || tengen_core::BoardSize::square(9)
                    .unwrap()
                    .parse_gtp(mv)
                    .is_ok(),
            "{answer}"
        );
    }

    // A file against itself: every move the same, no difference.
    let same = move_loss(&["compare", "a.jsonl", "a.jsonl"], &dir);
    assert!(
        same.contains("+0.0000") && same.contains("other move in 0"),
        "{same}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
