//! Bad arguments: a non-zero exit and a message, never a panic.

use std::process::Command;

fn fails_with(args: &[&str], needle: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: expected '{needle}' in:\n{stderr}"
    );
}

#[test]
fn bad_arguments_are_explained() {
    fails_with(
        &["selfplay", "--size", "30"],
        "unacceptable board size '30'",
    );
    fails_with(&["play", "--size", "0x5"], "unacceptable board size");
    fails_with(
        &["bench", "playouts", "--size", "26"],
        "unacceptable board size",
    );
    fails_with(
        &["play", "--bot", "nosuchbot"],
        "unknown bot 'nosuchbot' (known bots: random",
    );
    fails_with(
        &["selfplay", "--white", "nosuchbot"],
        "unknown bot 'nosuchbot'",
    );
    fails_with(&["selfplay", "--rules", "nonsense"], "bad rules");
    fails_with(&["play", "--komi", "lots"], "bad komi 'lots'");
    fails_with(&["play", "--color", "red"], "unknown colour 'red'");
    fails_with(&["play", "--size", "5", "--handicap", "9"], "handicap");
    fails_with(&["bench", "playouts", "--seconds", "0"], "bad duration");
    fails_with(&["bench", "playouts", "--repeat", "0"], "--repeat");
    fails_with(&["nosuchcommand"], "unrecognized subcommand");
    fails_with(
        &[
            "match",
            "--engine",
            "a",
            "--engine",
            "b",
            "--time-per-move",
            "1s",
            "--main-time",
            "60s",
        ],
        "cannot be used with",
    );
    fails_with(
        &[
            "match",
            "--engine",
            "a",
            "--engine",
            "b",
            "--byo-yomi",
            "5s",
        ],
        "--main-time",
    );
    fails_with(
        &[
            "match",
            "--engine",
            "a",
            "--engine",
            "b",
            "--main-time",
            "0s",
        ],
        "--main-time must be positive",
    );
}
