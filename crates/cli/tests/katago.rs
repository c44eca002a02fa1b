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
    // f32: the claim is KataGo's own numbers (bf16 kernels, the default
    // where the CPU has them, are checked in tengen-katago's tests).
    let bot = format!("katago:model={},visits=8,precision=f32", model.display());
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

/// Runs `tengen gtp` with `args`, sending each of `steps` (a command and
/// how many lines of streamed analysis to wait for after it before the
/// next), and gives the whole output.
fn run_gtp_paced(args: &[&str], steps: &[(&str, usize)]) -> String {
    use std::sync::{Arc, Mutex};
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("gtp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tengen gtp");
    let mut stdin = child.stdin.take().unwrap();
    // Read as it comes: streamed analysis would fill the pipe and stall
    // the engine.
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let reader = {
        let lines = Arc::clone(&lines);
        std::thread::spawn(move || {
            for line in std::io::BufRead::lines(stdout) {
                lines.lock().unwrap().push(line.unwrap());
            }
        })
    };
    let guard = tengen_testing::answer_guard();
    for (command, reports) in steps {
        let seen = lines.lock().unwrap().len();
        stdin.write_all(command.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let sent = std::time::Instant::now();
        loop {
            let reported = lines.lock().unwrap()[seen..]
                .iter()
                .filter(|line| line.starts_with("info "))
                .count();
            if reported >= *reports {
                break;
            }
            assert!(
                sent.elapsed() < guard,
                "{reported} of {reports} reports after {command:?} in {guard:?} (a hang)"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
    drop(stdin);
    child.wait().unwrap();
    reader.join().unwrap();
    let lines = lines.lock().unwrap();
    lines.iter().map(|line| format!("{line}\n")).collect()
}

/// The words after `key` in an `info` entry, up to the next key of
/// `keys`.
fn field<'a>(entry: &'a str, key: &str) -> Vec<&'a str> {
    let words: Vec<&str> = entry.split_whitespace().collect();
    let Some(at) = words.iter().position(|w| *w == key) else {
        return Vec::new();
    };
    words[at + 1..]
        .iter()
        .take_while(|w| {
            w.parse::<f64>().is_ok()
                || (key == "pv"
                    && (w.chars().next().unwrap().is_ascii_uppercase() || **w == "pass"))
        })
        .copied()
        .collect()
}

#[test]
fn kata_analyze_reports_what_guis_ask_for_and_honours_avoid() {
    let model = model_path();
    let bot = format!("katago:model={},threads=1", model.display());
    let text = run_gtp_paced(
        &["--bot", &bot, "--size", "9"],
        &[
            ("komi 7", 0),
            ("play b E5", 0),
            (
                "kata-analyze w interval 20 rootInfo true pvVisits true ownership true \
                 ownershipStdev true movesOwnership true avoid w D4,F4,D6,F6,E4,E6,D5,F5 1",
                3,
            ),
            ("kata-set-param maxVisits 16", 0),
            ("kata-get-param visits", 0),
            ("kata-genmove_analyze w 10 avoid w C3,G3,C7,G7 1", 0),
        ],
    );
    let responses: Vec<&str> = text.trim_end().split("\n\n").collect();
    assert_eq!(responses.len(), 6, "{text}");
    let analysis = responses[2];
    let last = analysis.lines().last().unwrap();
    assert!(last.starts_with("info move "), "{analysis}");
    let avoided = ["D4", "F4", "D6", "F6", "E4", "E6", "D5", "F5"];
    let (infos, tail) = last.split_once(" rootInfo ").expect("rootInfo");
    for entry in infos.split("info move ").filter(|e| !e.is_empty()) {
        let mv = entry.split_whitespace().next().unwrap();
        assert!(!avoided.contains(&mv), "{mv} was avoided: {entry}");
        let pv = field(entry, "pv");
        let pv_visits = field(entry, "pvVisits");
        assert_eq!(pv.len(), pv_visits.len(), "{entry}");
        assert_eq!(pv[0], mv);
        assert_eq!(field(entry, "movesOwnership").len(), 81, "{entry}");
        for key in [
            "visits",
            "edgeVisits",
            "utility",
            "winrate",
            "scoreLead",
            "prior",
            "lcb",
            "order",
        ] {
            assert_eq!(field(entry, key).len(), 1, "{key} in {entry}");
        }
    }
    assert!(tail.starts_with("visits "), "{tail}");
    let ownership = field(tail, "ownership");
    assert_eq!(ownership.len(), 81, "{tail}");
    // From White's point of view: Black's stone on E5 is Black's.
    let e5: f64 = ownership[4 * 9 + 4].parse().unwrap();
    assert!(e5 < -0.5, "{e5}");
    let stdev = field(tail, "ownershipStdev");
    assert_eq!(stdev.len(), 81);
    assert!(stdev
        .iter()
        .all(|s| (0.0..=1.0).contains(&s.parse::<f64>().unwrap())));
    assert_eq!(responses[3].trim_end(), "=");
    assert_eq!(responses[4], "= 16");
    let genmove = responses[5];
    let played = genmove.lines().last().unwrap();
    let mv = played.strip_prefix("play ").expect(genmove);
    assert!(!["C3", "G3", "C7", "G7"].contains(&mv), "{mv}");
}

/// Reads one GTP response (up to its empty line).
fn read_response(reader: &mut impl std::io::BufRead) -> String {
    let mut response = String::new();
    loop {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the engine hung up"
        );
        if line.trim().is_empty() && !response.is_empty() {
            return response;
        }
        response.push_str(&line);
    }
}

#[test]
fn pondering_thinks_on_the_opponent_s_time_and_yields_to_the_next_command() {
    let model = model_path();
    let bot = format!(
        "katago:model={},visits=8,threads=1,ponder=true",
        model.display()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["gtp", "--bot", &bot, "--size", "9"])
        .env("RUST_LOG", "tengen_puct=debug,tengen_search=debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tengen gtp");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut send = |line: &str| {
        stdin.write_all(format!("{line}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    };
    send("kata-get-param ponderingEnabled");
    assert_eq!(read_response(&mut stdout).trim_end(), "= true");
    send("genmove b");
    let played = read_response(&mut stdout);
    assert!(played.starts_with("= "), "{played}");
    // The bot thinks while "White" does.
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let asked = std::time::Instant::now();
    send("play w C3");
    assert_eq!(read_response(&mut stdout).trim_end(), "=");
    // Pondering left alone goes on for a minute: the command ends it.
    // Half of that is a bound only a pondering that ignores commands breaks.
    let waited = asked.elapsed();
    eprintln!("the command was answered {waited:?} after it was sent");
    assert!(waited < std::time::Duration::from_secs(30), "{waited:?}");
    send("genmove b");
    assert!(read_response(&mut stdout).starts_with("= "));
    send("quit");
    read_response(&mut stdout);
    let output = child.wait_with_output().unwrap();
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(log.contains("pondered"), "{log}");
}

/// Logs written to a pipe (KaTrain's log, a GTP front end) are plain text:
/// no terminal colour codes.
#[test]
fn logs_to_a_pipe_carry_no_colour_codes() {
    let model = model_path();
    let spec = format!("katago:model={}", model.display());
    let out = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["gtp", "--bot", &spec])
        .env("RUST_LOG", "info")
        .env_remove("NO_COLOR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().unwrap().write_all(b"name\nquit\n")?;
            child.wait_with_output()
        })
        .expect("run tengen gtp");
    assert!(out.status.success());
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("INFO"), "an info line was logged:\n{log}");
    assert!(!log.contains('\u{1b}'), "colour codes in the log:\n{log:?}");
}

#[test]
fn rank_bots_play_legal_moves_on_19x19() {
    use tengen_core::{BoardSize, Game, Rules};
    let model = model_path();
    // Each rank answers 8 moves from the empty board (the policy's draw
    // up to 5 dan, the short search above); the game is replayed under the
    // rules to check every answer.
    for rank in ["20k", "3k", "7d"] {
        let bot = format!("katago:model={},threads=1,rank={rank}", model.display());
        let mut input = String::from("komi 7.5\n");
        for turn in 0..8 {
            let colour = if turn % 2 == 0 { "b" } else { "w" };
            input.push_str(&format!("genmove {colour}\n"));
        }
        input.push_str("quit\n");
        let output = run_gtp(&["--bot", &bot, "--size", "19", "--seed", "4"], &input);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{rank}: {stderr}");
        let answers = responses(&output.stdout);
        assert_eq!(answers.len(), 10, "{rank}: {answers:?}\n{stderr}");
        let size = BoardSize::square(19).unwrap();
        let mut game = Game::new(size, Rules::preset("chinese").unwrap());
        for answer in &answers[1..9] {
            let mv = answer
                .strip_prefix("= ")
                .unwrap_or_else(|| panic!("{rank}: {answer}"));
            let parsed = size
                .parse_gtp(mv.trim())
                .unwrap_or_else(|e| panic!("{rank}: {mv}: {e}"));
            assert_ne!(
                parsed,
                tengen_core::Move::Pass,
                "{rank} passed at move {}",
                game.moves().len() + 1
            );
            game.play(parsed)
                .unwrap_or_else(|e| panic!("{rank}: {mv} is illegal: {e}"));
        }
    }
}
