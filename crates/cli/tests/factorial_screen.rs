//! `scripts/factorial-screen` end to end: two pairs of games between
//! complementary mixes of two `katago` settings, at one visit a move, with
//! KataGo's network from the PyPI package katrain 1.20.0
//! (`scripts/katago-model`); the report's counts checked against the
//! games' own results and the design.

use std::path::Path;
use std::process::Command;
use tengen_katago::reference::model_path;

fn factorial_screen(args: &[&str], dir: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/factorial-screen");
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/openings/9x9.txt");
    let mut command = Command::new("python3");
    command.arg(script).args(args);
    if args[0] == "run" {
        command
            .arg("--model")
            .arg(model_path())
            .arg("--openings")
            .arg(openings);
    }
    let output = command
        .current_dir(dir)
        .env("TENGEN_BIN", env!("CARGO_BIN_EXE_tengen"))
        .output()
        .expect("run scripts/factorial-screen");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "factorial-screen {args:?}: {stderr}"
    );
    String::from_utf8(output.stdout).unwrap()
}

fn json_lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn each_setting_is_scored_by_the_side_that_had_it_on() {
    let dir = std::env::temp_dir().join(format!("tengen-factorial-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let factors = ["lcb", "cache"];
    let factor_list = factors.join(",");
    let run_args = [
        "run",
        "screen",
        "--pairs",
        "2",
        "--visits",
        "1",
        "--jobs",
        "1",
        "--factors",
        &factor_list,
    ];
    factorial_screen(&run_args, &dir);
    let report = factorial_screen(&["report", "screen"], &dir);

    let design = json_lines(&dir.join("screen/design.jsonl"));
    assert_eq!(design[0]["factors"], serde_json::json!(factors));
    for factor in factors {
        // Count from the games themselves: the side with the setting on is
        // engine 0 when the pair's mix (side A) has it, and its command
        // line says so.
        let (mut wins, mut draws, mut losses) = (0, 0, 0);
        for entry in &design[1..] {
            let pair = entry["pair"].as_u64().unwrap();
            let a_on = entry["a_on"]
                .as_array()
                .unwrap()
                .iter()
                .any(|n| n == factor);
            let on_side = if a_on { 0 } else { 1 };
            let games = json_lines(&dir.join(format!("screen/pair-{pair:04}/results.jsonl")));
            assert_eq!(games.len(), 2, "pair {pair}");
            for game in &games {
                let engines: Vec<&str> = game["match"].as_str().unwrap().split(" vs ").collect();
                let on_value = if factor == "lcb" {
                    "lcb=true"
                } else {
                    "cache=4096"
                };
                assert!(engines[on_side].contains(on_value), "{engines:?}");
                assert!(!engines[1 - on_side].contains(on_value), "{engines:?}");
                match game["winner"].as_u64() {
                    None => draws += 1,
                    Some(w) if w as usize == on_side => wins += 1,
                    Some(_) => losses += 1,
                }
            }
        }
        let row = report
            .lines()
            .find(|l| l.contains(&format!("`{factor}`")))
            .unwrap_or_else(|| panic!("no row for {factor}: {report}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[2], "4", "{row}");
        assert_eq!(cells[3], format!("{wins}–{draws}–{losses}"), "{row}");
    }
    // A rerun plays nothing again.
    let before = std::fs::metadata(dir.join("screen/pair-0000/results.jsonl"))
        .unwrap()
        .modified()
        .unwrap();
    factorial_screen(&run_args, &dir);
    let after = std::fs::metadata(dir.join("screen/pair-0000/results.jsonl"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after);
    std::fs::remove_dir_all(&dir).ok();
}
