//! `tengen gtp --bot katago:model=PATH` with KataGo's network from the PyPI
//! package katrain 1.20.0 (fetched by `scripts/katago-model`, cached under
//! `target/katago/`): `kata-raw-nn` answers as KataGo does, the bot plays,
//! and a model that cannot be read is refused at start-up.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use tengen_katago::reference::model_path;

fn run_gtp(args: &[&str], input: &str) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("gtp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tengen gtp");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn responses(stdout: &[u8]) -> Vec<String> {
    let text = String::from_utf8(stdout.to_vec()).unwrap();
    text.trim_end().split("\n\n").map(str::to_string).collect()
}

/// A `kata-raw-nn` block's numbers: by label, the policy rows (`None` for
/// `NAN`), the ownership rows.
type Block = (Vec<(String, f64)>, Vec<Option<f64>>, Vec<f64>);

/// The numbers of one `kata-raw-nn` block.
fn values(block: &str) -> Block {
    let (mut named, mut policy, mut ownership) = (Vec::new(), Vec::new(), Vec::new());
    let mut section = "";
    for line in block.lines() {
        let line = line.trim_start_matches("= ");
        let mut words = line.split_whitespace();
        match words.next() {
            Some("policy") => section = "policy",
            Some("whiteOwnership") => section = "ownership",
            Some("symmetry") | None => {}
            Some(label)
                if label.starts_with(|c: char| c.is_ascii_lowercase()) && label != "nan" =>
            {
                named.push((
                    label.to_string(),
                    words.next().unwrap().parse::<f64>().unwrap(),
                ))
            }
            Some(_) => {
                for word in line.split_whitespace() {
                    let value = word.parse::<f64>().ok().filter(|v| !v.is_nan());
                    match section {
                        "policy" => policy.push(value),
                        _ => ownership.push(value.unwrap()),
                    }
                }
            }
        }
    }
    (named, policy, ownership)
}

#[test]
fn kata_raw_nn_answers_as_katago_on_the_empty_board() {
    let model = model_path();
    let bot = format!("katago:model={},visits=8", model.display());
    let output = run_gtp(
        &["--bot", &bot, "--size", "9"],
        "tengen-rules chinese,ko=simple\nkomi 7.5\nkata-raw-nn 0\nkata-raw-nn all\nkata-raw-nn 8\n\
         kata-raw-nn w 0 0.5\ngenmove b\n",
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let r = responses(&output.stdout);
    assert_eq!(r.len(), 7, "{r:?}");
    assert_eq!(r[0].trim_end(), "=");

    // KataGo 1.18.1's own answer (crates/katago/tests/data/kata-raw-nn.txt).
    let reference = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../katago/tests/data/kata-raw-nn.txt"),
    )
    .unwrap();
    let theirs = reference
        .split("# empty9\n")
        .nth(1)
        .unwrap()
        .split("\n# ")
        .next()
        .unwrap();
    let (their_named, their_policy, their_ownership) = values(theirs);
    let (our_named, our_policy, our_ownership) = values(&r[2]);
    assert!(r[2].starts_with("= symmetry 0\nwhiteWin "), "{}", r[2]);
    assert_eq!(our_named.len(), their_named.len());
    for ((label, ours), (their_label, theirs)) in our_named.iter().zip(&their_named) {
        assert_eq!(label, their_label);
        assert!(
            (ours - theirs).abs() <= 0.0015,
            "{label}: {ours} vs KataGo's {theirs}"
        );
    }
    assert_eq!(our_policy.len(), 81);
    for (ours, theirs) in our_policy.iter().zip(&their_policy) {
        assert!((ours.unwrap() - theirs.unwrap()).abs() <= 2e-6);
    }
    for (ours, theirs) in our_ownership.iter().zip(&their_ownership) {
        assert!((ours - theirs).abs() <= 2e-6);
    }

    // `all`: the eight symmetries one after the other, as KataGo prints them.
    for s in 0..8 {
        assert!(r[3].contains(&format!("symmetry {s}\n")), "{}", r[3]);
    }
    assert!(r[4].starts_with("? "), "{}", r[4]);
    assert!(r[5].starts_with("= symmetry 0\n"), "{}", r[5]);
    // Black moves somewhere near the centre of the empty board.
    let mv = r[6].trim_start_matches("= ");
    assert!(
        ["E5", "D4", "F4", "D6", "F6", "E4", "E6", "D5", "F5", "C3", "G7", "C7", "G3"]
            .contains(&mv),
        "{mv}"
    );
}

#[test]
fn bots_without_a_network_and_unreadable_models_are_refused_with_the_reason() {
    let output = run_gtp(&["--bot", "random"], "kata-raw-nn 0\n");
    let r = responses(&output.stdout);
    assert!(
        r[0].starts_with("? this bot has no neural network"),
        "{}",
        r[0]
    );

    let dir = std::env::temp_dir().join(format!("tengen-katago-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text_file = dir.join("weights.bin.gz");
    std::fs::write(&text_file, "not a network").unwrap();
    let truncated = dir.join("truncated.bin.gz");
    let whole = std::fs::read(model_path()).unwrap();
    std::fs::write(&truncated, &whole[..whole.len() / 2]).unwrap();
    for (model, reason) in [
        (dir.join("missing.bin.gz"), "cannot read it"),
        (dir.clone(), "is a directory"),
        (text_file.clone(), "not a KataGo model"),
        (truncated.clone(), "corrupt or truncated"),
    ] {
        let output = run_gtp(
            &["--bot", &format!("katago:model={}", model.display())],
            "name\n",
        );
        assert!(!output.status.success(), "{}", model.display());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(reason), "{}: {stderr}", model.display());
        assert!(output.stdout.is_empty());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
