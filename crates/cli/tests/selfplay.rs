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
