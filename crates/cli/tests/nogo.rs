//! NoGo through the binary: `tengen gtp --game nogo` through a pipe, the
//! argument checks, and a short `tengen match --game nogo` between two
//! `tengen gtp --game nogo --bot random` engines.

use std::io::Write;
use std::process::{Command, Stdio};

fn run_tengen(args: &[&str], input: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tengen");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn gtp_game_nogo_through_a_pipe() {
    let input = b"1 gogui-rules_game_id\n2 gogui-rules_board_size\n3 play b a1\n\
                  4 play w b1\n5 play w a2\n6 play b pass\n7 play w a2\n\
                  8 gogui-rules_final_result\n9 genmove b\n10 final_score\n11 tengen-rules\n";
    let output = run_tengen(&["gtp", "--game", "nogo", "--seed", "5"], input);
    assert!(output.status.success(), "{output:?}");
    let text = String::from_utf8(output.stdout).unwrap();
    let responses: Vec<&str> = text.strip_suffix("\n\n").unwrap().split("\n\n").collect();
    assert_eq!(responses.len(), 11, "{text}");
    assert_eq!(responses[0], "=1 NoGo");
    assert_eq!(responses[1], "=2 7");
    assert_eq!(responses[2], "=3 ");
    // White B1 leaves Black's A1 one liberty; White A2 would then capture it.
    assert_eq!(responses[3], "=4 ");
    assert_eq!(responses[4], "?5 illegal move: \"w a2\" capture");
    assert_eq!(responses[5], "?6 illegal move: \"b pass\" wrong coordinate");
    assert_eq!(responses[6], "?7 illegal move: \"w a2\" capture");
    assert_eq!(responses[7], "=8 unknown");
    assert!(responses[8].starts_with("=9 "), "{}", responses[8]);
    assert_ne!(responses[8], "=9 pass");
    assert_ne!(responses[8], "=9 resign");
    assert_eq!(responses[9], "?10 cannot score");
    assert_eq!(responses[10], "=11 nogo");

    // --size overrides the 7×7 default; on 1×1 Black has lost at once.
    let output = run_tengen(
        &["gtp", "--game", "nogo", "--size", "1"],
        b"gogui-rules_board_size\ngenmove b\ngogui-rules_final_result\n",
    );
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "= 1\n\n= resign\n\n= white\n\n"
    );
}

#[test]
fn nogo_arguments_are_checked() {
    let output = run_tengen(&["gtp", "--game", "nogo", "--rules", "chinese"], b"");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--rules chinese are Go rules"), "{stderr}");
    let output = run_tengen(&["gtp", "--game", "chess"], b"");
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("use go or nogo"));
    // The MCTS bot plays NoGo too: a legal move, and resign when stuck.
    let output = run_tengen(
        &[
            "gtp",
            "--game",
            "nogo",
            "--size",
            "3",
            "--bot",
            "mcts:playouts=200",
        ],
        b"play b b2\ngenmove w\n",
    );
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with("= \n\n= "), "{stdout}");
    assert!(!stdout.contains("pass"), "{stdout}");
}

#[test]
fn a_nogo_match_between_two_random_bots() {
    let tengen = env!("CARGO_BIN_EXE_tengen");
    let dir = std::env::temp_dir().join(format!("tengen-nogo-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = Command::new(tengen)
        .args(["match", "--game", "nogo", "--games", "2"])
        .arg("--engine")
        .arg(format!("{tengen} gtp --game nogo --bot random --seed 1"))
        .arg("--engine")
        .arg(format!("{tengen} gtp --game nogo --bot random --seed 2"))
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
    assert!(
        stdout.contains("want of a legal move: 2"),
        "both games end with a side unable to move:\n{stdout}"
    );
    let results = std::fs::read_to_string(dir.join("results.jsonl")).unwrap();
    assert_eq!(results.lines().count(), 2, "{results}");
    for line in results.lines() {
        assert!(line.contains("\"end\":\"no-legal-move\""), "{line}");
        assert!(!line.contains("\"winner\":null"), "{line}");
    }
    for index in 0..2 {
        let text = std::fs::read_to_string(dir.join(format!("game-{index:04}.sgf"))).unwrap();
        assert!(text.contains("GM[1]") && text.contains("SZ[7]"), "{text}");
        assert!(text.contains("RU[NoGo]"), "{text}");
        let record = tengen_sgf::read_game(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let result = record.result.expect("RE recorded");
        assert!(result == "B+" || result == "W+", "{result}");
        // The record replays under NoGo to a position where the loser is stuck.
        assert!(record.game.rules().is_nogo());
        assert!(record.game.is_over(), "{text}");
        assert_eq!(record.game.outcome().to_string(), result);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
