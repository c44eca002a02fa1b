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

/// `tengen bench katago --layers`: the rates, then where the time of a
/// pass goes, every class of layer and the threads' waiting on a line of
/// its own; speeds are reported, never asserted.
#[test]
fn the_network_benchmark_reports_where_the_time_goes() {
    let model = tengen_katago::reference::model_path();
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["bench", "katago", "--model"])
        .arg(model)
        .args([
            "--size",
            "9",
            "--batch",
            "1",
            "--threads",
            "2",
            "--seconds",
            "0.2",
            "--repeat",
            "1",
            "--visits",
            "0",
            "--precision",
            "f32",
            "--layers",
        ])
        .env("TENGEN_KERNEL", "avx2")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("(TENGEN_KERNEL: avx2)"), "{text}");
    assert!(
        text.contains("where the time goes: f32 (f32), 9x9, batch 1, 2 thread(s):"),
        "{text}"
    );
    for class in tengen_katago::forward::profile::LayerClass::ALL {
        assert!(
            text.contains(class.name()),
            "{} missing from:\n{text}",
            class.name()
        );
    }
    assert!(text.contains("waiting between threads"), "{text}");
}
