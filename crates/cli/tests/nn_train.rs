//! `tengen nn train`, `nn info` and `nn bench` through the binary: a tiny
//! network trains on prepared shards, writes checkpoints, resumes, and the
//! model it writes is described, timed and played by `--bot policy`.

use std::path::PathBuf;
use std::process::{Command, Output};

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-nn-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tengen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .expect("run tengen")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Random-bot games on 5×5 as SGF, then shards.
fn prepared(dir: &std::path::Path) -> PathBuf {
    let sgf = dir.join("sgf");
    let out = tengen(&[
        "selfplay",
        "--size",
        "5",
        "--bot",
        "random",
        "--games",
        "12",
        "--seed",
        "3",
        "--sgf-dir",
        sgf.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let data = dir.join("data");
    let out = tengen(&[
        "nn",
        "prepare",
        sgf.to_str().unwrap(),
        "--out",
        data.to_str().unwrap(),
        "--size",
        "5",
        "--validation",
        "0.25",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    data
}

#[test]
fn train_checkpoint_resume_describe_and_play() {
    let dir = temp_dir("all");
    let data = prepared(&dir);
    let checkpoints = dir.join("ck");
    let model = dir.join("model.tgm");
    let train = |epochs: &str, resume: Option<&str>| {
        let mut args = vec![
            "nn",
            "train",
            "--data",
            data.to_str().unwrap(),
            "--encoder",
            "zero",
            "--net",
            "residual:1x4",
            "--epochs",
            epochs,
            "--batch",
            "16",
            "--seed",
            "9",
            "--checkpoints",
            checkpoints.to_str().unwrap(),
            "-o",
            model.to_str().unwrap(),
        ];
        if let Some(path) = resume {
            args.extend(["--resume", path]);
        }
        tengen(&args)
    };
    let out = train("1", None);
    let report = text(&out);
    assert!(out.status.success(), "{report}");
    assert!(report.contains("epoch 1/1"), "{report}");
    assert!(
        report.contains("top-1") && report.contains("top-5"),
        "{report}"
    );
    assert!(report.contains("validation:"), "{report}");
    let first = checkpoints.join("epoch-001.tgm");
    assert!(first.exists() && checkpoints.join("epoch-001.optim").exists());

    let out = train("2", Some(first.to_str().unwrap()));
    let report = text(&out);
    assert!(out.status.success(), "{report}");
    assert!(
        report.contains("epoch 2/2") && !report.contains("epoch 1/2"),
        "{report}"
    );
    // Nothing left to do: a clear refusal.
    let out = train(
        "2",
        Some(checkpoints.join("epoch-002.tgm").to_str().unwrap()),
    );
    assert!(!out.status.success());
    assert!(
        text(&out).contains("already trained 2 epochs"),
        "{}",
        text(&out)
    );

    let out = tengen(&["nn", "info", model.to_str().unwrap()]);
    let info = text(&out);
    assert!(out.status.success(), "{info}");
    assert!(
        info.contains("residual:1x4") && info.contains("encoder zero"),
        "{info}"
    );
    assert!(info.contains("2 epochs"), "{info}");

    let out = tengen(&[
        "nn",
        "bench",
        "--model",
        model.to_str().unwrap(),
        "--batch",
        "1,8",
        "--seconds",
        "0.2",
    ]);
    let bench = text(&out);
    assert!(out.status.success(), "{bench}");
    assert!(
        bench.contains("batch    1:") && bench.contains("batch    8:"),
        "{bench}"
    );

    let spec = format!("policy:model={}", model.display());
    let out = tengen(&[
        "selfplay", "--size", "5", "--black", &spec, "--white", "random", "--seed", "1",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    // The model is for 5×5: on 9×9 the bot is refused with the reason.
    let out = tengen(&[
        "selfplay", "--size", "9", "--black", &spec, "--white", "random", "--seed", "1",
    ]);
    assert!(!out.status.success());
    assert!(text(&out).contains("5x5"), "{}", text(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_training_arguments_are_refused() {
    let dir = temp_dir("bad");
    let out = tengen(&["nn", "train", "--data", dir.join("none").to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(text(&out).contains("none"), "{}", text(&out));
    let data = prepared(&dir);
    let out = tengen(&[
        "nn",
        "train",
        "--data",
        data.to_str().unwrap(),
        "--net",
        "huge",
    ]);
    assert!(!out.status.success());
    assert!(text(&out).contains("unknown network"), "{}", text(&out));
    let out = tengen(&[
        "nn",
        "train",
        "--data",
        data.to_str().unwrap(),
        "--encoder",
        "tenplane",
    ]);
    assert!(!out.status.success());
    assert!(text(&out).contains("tenplane"), "{}", text(&out));
    let damaged = dir.join("damaged.tgm");
    std::fs::write(&damaged, b"not a model").unwrap();
    let out = tengen(&["nn", "info", damaged.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(text(&out).contains("not a tengen model"), "{}", text(&out));
    std::fs::remove_dir_all(&dir).unwrap();
}
