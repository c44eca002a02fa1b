//! `tengen review` as a person runs it: one record with `-o` or beside
//! itself, a folder into `--out` (a rerun skips what is done, shards
//! together write what one run writes), and records that cannot be
//! reviewed named on one line each while the others are reviewed. The
//! network is the one the PyPI package katrain 1.20.0 ships
//! (`scripts/katago-model`).

use std::path::{Path, PathBuf};
use std::process::Command;

use tengen_katago::reference::model_path;

fn tengen(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("review")
        .args(args)
        .output()
        .expect("run tengen review")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-review-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Real 9×9 games of tengen's mcts bot against GNU Go, copied into `dir`.
fn games(dir: &Path, numbers: &[u32]) {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gtp/tests/data/finished/mcts-vs-gnugo-level10-9x9");
    for number in numbers {
        let name = format!("game-{number:04}.sgf");
        std::fs::copy(source.join(&name), dir.join(&name)).unwrap();
    }
}

/// The files of a folder, by name, with their contents.
fn folder(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&p).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn one_record_is_written_with_its_review() {
    let dir = scratch("one");
    games(&dir, &[1]);
    let model = model_path().to_str().unwrap();
    let record = dir.join("game-0001.sgf");
    let out = dir.join("reviewed.sgf");
    let output = tengen(&[
        record.to_str().unwrap(),
        "--model",
        model,
        "--visits",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&output.stdout);
    assert!(output.status.success(), "{stdout}{}", text(&output.stderr));
    assert!(stdout.contains("Black: 24 moves rated"), "{stdout}");
    assert!(stdout.contains("  plays about "), "{stdout}");
    assert!(
        stdout.contains("1 records reviewed (51 positions, 2 visits each)"),
        "{stdout}"
    );
    let reviewed = std::fs::read_to_string(&out).unwrap();
    assert_eq!(reviewed.matches("SBKV[").count(), 51);
    // Without -o the review goes beside the record.
    let output = tengen(&[record.to_str().unwrap(), "--model", model, "--visits", "1"]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(dir.join("game-0001-review.sgf").is_file());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_folder_is_resumable_and_its_shards_write_what_one_run_writes() {
    let dir = scratch("folder");
    let records = dir.join("records");
    std::fs::create_dir_all(&records).unwrap();
    games(&records, &[1, 8, 14]);
    let model = model_path().to_str().unwrap();
    let whole = dir.join("whole");
    // One position at a time: byte-for-byte comparisons need every forward
    // pass to hold one search's positions.
    let common = ["--model", model, "--visits", "2", "--reproducible"];
    let run = |out: &Path, extra: &[&str]| {
        let mut args = vec![records.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend_from_slice(&common);
        args.extend_from_slice(extra);
        tengen(&args)
    };
    let output = run(&whole, &[]);
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert!(text(&output.stdout).contains("3 records reviewed"));
    let written = folder(&whole);
    assert_eq!(
        written.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        ["game-0001.sgf", "game-0008.sgf", "game-0014.sgf"]
    );

    // A rerun finds everything done.
    let output = run(&whole, &[]);
    assert!(output.status.success());
    let stdout = text(&output.stdout);
    assert!(
        stdout.contains("3 of this run's 3 records already reviewed"),
        "{stdout}"
    );
    assert!(stdout.contains("nothing to review"), "{stdout}");
    assert_eq!(folder(&whole), written);

    // A run stopped halfway: one review missing, reviewed again alone.
    std::fs::remove_file(whole.join("game-0008.sgf")).unwrap();
    let output = run(&whole, &[]);
    assert!(output.status.success());
    assert!(text(&output.stdout).contains("1 records reviewed"));
    assert_eq!(folder(&whole), written);

    // Two shards into one folder each: together, byte for byte, the whole.
    let mut sharded = Vec::new();
    for shard in ["0/2", "1/2"] {
        let out = dir.join(format!("shard-{}", &shard[..1]));
        let output = run(&out, &["--shard", shard]);
        assert!(output.status.success(), "{}", text(&output.stderr));
        sharded.extend(folder(&out));
    }
    sharded.sort();
    assert_eq!(sharded, written);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn records_that_cannot_be_reviewed_are_named_and_the_others_reviewed() {
    let dir = scratch("bad");
    games(&dir, &[1]);
    let bad = [
        (
            "empty.sgf",
            "(;GM[1]FF[4]SZ[9]KM[7])",
            "empty.sgf: the record has no moves to review",
        ),
        (
            "illegal.sgf",
            "(;GM[1]FF[4]SZ[9];B[ee];W[ee])",
            "illegal.sgf: node 2: illegal move [ee]",
        ),
        (
            "big.sgf",
            "(;GM[1]FF[4]SZ[37];B[aa])",
            "big.sgf: node 0: bad SZ[37]",
        ),
        ("broken.sgf", "(;GM[1]FF[4]SZ[9];B[ee", "broken.sgf: "),
    ];
    for (name, content, _) in bad {
        std::fs::write(dir.join(name), content).unwrap();
    }
    let out = dir.join("out");
    let output = tengen(&[
        dir.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--model",
        model_path().to_str().unwrap(),
        "--visits",
        "1",
    ]);
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    for (_, _, reason) in bad {
        let line = stderr
            .lines()
            .find(|l| l.contains(reason))
            .unwrap_or_else(|| panic!("no line with {reason:?} in {stderr}"));
        assert!(
            line.contains(dir.to_str().unwrap()),
            "the file named: {line}"
        );
    }
    assert!(
        stderr.contains("4 of 5 records could not be reviewed"),
        "{stderr}"
    );
    let written: Vec<String> = folder(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(written, ["game-0001.sgf"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn arguments_that_cannot_work_are_refused() {
    let dir = scratch("args");
    games(&dir, &[1, 8]);
    let model = model_path().to_str().unwrap();
    let one = dir.join("game-0001.sgf");
    let two = dir.join("game-0008.sgf");
    let cases: [(Vec<&str>, &str); 5] = [
        (
            vec![
                one.to_str().unwrap(),
                two.to_str().unwrap(),
                "--model",
                model,
            ],
            "2 records: give --out DIR",
        ),
        (
            vec![one.to_str().unwrap(), "--model", model, "--shard", "0/2"],
            "--out",
        ),
        (
            vec!["/nonexistent/records", "--model", model],
            "/nonexistent/records: no such file or folder",
        ),
        (
            vec![
                one.to_str().unwrap(),
                "--model",
                "/nonexistent/model.bin.gz",
            ],
            "model /nonexistent/model.bin.gz",
        ),
        (
            vec![
                one.to_str().unwrap(),
                "--model",
                model,
                "--reproducible",
                "--positions-at-once",
                "4",
            ],
            "cannot be used with",
        ),
    ];
    for (args, reason) in cases {
        let output = tengen(&args);
        let stderr = text(&output.stderr);
        assert!(!output.status.success(), "{args:?}");
        assert!(stderr.contains(reason), "{args:?}: {stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
