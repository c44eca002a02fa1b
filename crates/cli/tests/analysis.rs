//! `tengen analysis` as GUIs start it: KataGo's single-dash flags, a KataGo
//! config file and overrides, queries on stdin and responses on stdout; a
//! network that cannot be read stops it before any query. The network is
//! the one the PyPI package katrain 1.20.0 ships (`scripts/katago-model`).

use std::io::Write;
use std::process::{Command, Stdio};
use tengen_katago::reference::model_path;

fn run(args: &[&str], input: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("analysis")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tengen analysis");
    // The engine may exit before reading everything (a bad model).
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    child.wait_with_output().unwrap()
}

#[test]
fn katago_flags_a_config_file_and_queries() {
    let dir = std::env::temp_dir().join(format!("tengen-analysis-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("analysis.cfg");
    // A KataGo config as KataGo ships them: known, unused and unknown keys.
    std::fs::write(
        &config,
        "# KataGo analysis config\nlogDir = analysis_logs\nmaxVisits = 3\nnumAnalysisThreads = 2\nnnRandomize = false\nsomethingNew = 1\n",
    )
    .unwrap();
    let model = model_path().to_str().unwrap();
    let output = run(
        &[
            "-model",
            model,
            "-config",
            config.to_str().unwrap(),
            "-override-config",
            "homeDataDir=/tmp,reportAnalysisWinratesAs=WHITE",
        ],
        concat!(
            r#"{"id":"v","action":"query_version"}"#,
            "\n",
            r#"{"id":"q","moves":[["B","E5"]],"rules":"chinese","komi":7,"boardXSize":9,"boardYSize":9}"#,
            "\n",
            "not json\n",
        ),
    );
    let _ = std::fs::remove_dir_all(&dir);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("somethingNew"),
        "unknown keys are noted: {stderr}"
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("every stdout line is JSON"))
        .collect();
    let version = lines.iter().find(|l| l["id"] == "v").expect("the version");
    assert_eq!(version["version"], tengen_analysis::PROTOCOL_VERSION);
    assert_eq!(version["engine"], "tengen");
    let answer = lines
        .iter()
        .find(|l| l["id"] == "q" && l["isDuringSearch"] == false)
        .expect("the analysis");
    // maxVisits from the config file.
    assert_eq!(answer["rootInfo"]["visits"], 3);
    assert_eq!(answer["rootInfo"]["currentPlayer"], "W");
    assert!(lines
        .iter()
        .any(|l| l.get("error").is_some() && l.get("id").is_none()));
    // With nothing to do, -quit-without-waiting ends at once.
    let output = run(&["-model", model, "-quit-without-waiting"], "");
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
}

#[test]
fn a_network_that_cannot_be_read_stops_the_engine_at_once() {
    let output = run(
        &["--model", "/nonexistent/network.bin.gz"],
        "{\"id\":\"q\",\"action\":\"query_version\"}\n",
    );
    assert!(!output.status.success());
    assert!(output.stdout.is_empty(), "no query was answered");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("/nonexistent/network.bin.gz"), "{stderr}");
    let output = run(
        &[
            "--model",
            model_path().to_str().unwrap(),
            "--config",
            "/nonexistent.cfg",
        ],
        "",
    );
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("/nonexistent.cfg"));
}
