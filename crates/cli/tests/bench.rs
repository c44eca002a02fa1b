//! `tengen bench playouts`: runs and reports, without asserting any speed.

use std::process::Command;

#[test]
fn a_one_second_benchmark_reports_rates() {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args([
            "bench",
            "playouts",
            "--size",
            "5",
            "--seconds",
            "1",
            "--seed",
            "3",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("Light playouts on 5x5 (25 points)"),
        "{text}"
    );
    for needle in [
        "playouts/s",
        "(CPU)",
        "(wall)",
        "moves/s",
        "moves/playout",
        "with passes",
        "black win rate",
        "median playouts/s (CPU) over 1 run: ",
    ] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
    // The progress bar is hidden when stderr is not a terminal.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn repeats_and_rectangles() {
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args([
            "bench",
            "playouts",
            "--size",
            "7x3",
            "--seconds",
            "0.1",
            "--repeat",
            "3",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("\nRun ").count(), 3, "{text}");
    assert!(
        text.contains("median playouts/s (CPU) over 3 runs: "),
        "{text}"
    );
}
