//! `tengen gtp` through a pipe: only responses on stdout, logs elsewhere, and
//! the end of input ends the program cleanly.

use std::io::Write;
use std::process::{Command, Stdio};

fn run_gtp(args: &[&str], input: &[u8]) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("gtp")
        .args(args)
        .env("RUST_LOG", "debug")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tengen gtp");
    child.stdin.take().unwrap().write_all(input).unwrap();
    child.wait_with_output().unwrap()
}

/// Splits GTP output into responses, checking each is well formed.
fn responses(stdout: &[u8]) -> Vec<String> {
    let text = String::from_utf8(stdout.to_vec()).expect("utf-8 output");
    let body = text.strip_suffix("\n\n").expect("ends with an empty line");
    body.split("\n\n")
        .map(|response| {
            assert!(
                response.starts_with('=') || response.starts_with('?'),
                "not a response: {response:?} in {text:?}"
            );
            response.to_string()
        })
        .collect()
}

#[test]
fn a_session_through_a_pipe() {
    let input = b"1 protocol_version\n# comment\n\n2 boardsize 9\r\n3 play b e5\n\
                  4 genmove w\n5 play b e5\n6 final_score\n7 frobnicate\n";
    let output = run_gtp(&["--seed", "3"], input);
    assert!(output.status.success(), "{output:?}");
    let responses = responses(&output.stdout);
    assert_eq!(responses.len(), 7, "{responses:?}");
    assert_eq!(responses[0], "=1 2");
    assert_eq!(responses[1], "=2 ");
    assert_eq!(responses[2], "=3 ");
    assert!(responses[3].starts_with("=4 ") && responses[3].len() >= 5);
    assert!(responses[4].starts_with("?5 illegal move"));
    assert!(responses[5].starts_with("=6 W+"), "{}", responses[5]);
    assert_eq!(responses[6], "?7 unknown command");
    // The debug log went to stderr, not into the responses.
    assert!(!output.stderr.is_empty());
}

#[test]
fn quit_and_end_of_input_both_exit_cleanly() {
    let output = run_gtp(&[], b"name\nquit\nname\n");
    assert!(output.status.success());
    assert_eq!(output.stdout, b"= tengen\n\n= \n\n");
    let output = run_gtp(&[], b"");
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
    let output = run_gtp(
        &["--rules", "japanese", "--komi", "0.5", "--size", "13"],
        b"tengen-rules\ngogui-rules_board_size",
    );
    assert!(output.status.success());
    assert_eq!(
        output.stdout,
        b"= ko=simple,suicide=forbidden,scoring=territory,komi=0.5,tax=seki,handicap-bonus=0,friendly-pass=no\n\n= 13\n\n"
    );
}

#[test]
fn unknown_bots_are_refused_before_serving() {
    let output = run_gtp(&["--bot", "alphago"], b"name\n");
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown bot"));
}

/// Reads lines from `reader` until one satisfies `done`, returning them all.
fn read_until(reader: &mut impl std::io::BufRead, done: impl Fn(&str) -> bool) -> Vec<String> {
    let mut lines = Vec::new();
    loop {
        let mut line = String::new();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "output ended: {lines:?}"
        );
        let line = line.trim_end_matches('\n').to_string();
        let stop = done(&line);
        lines.push(line);
        if stop {
            return lines;
        }
    }
}

#[test]
fn analysis_streams_until_the_next_command() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(["gtp", "--bot", "mcts:playouts=400", "--seed", "2"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tengen gtp");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    writeln!(stdin, "boardsize 9\nplay b e5\n5 lz-analyze w 5").unwrap();
    assert_eq!(read_until(&mut stdout, |l| l.is_empty()), ["= ", ""]);
    assert_eq!(read_until(&mut stdout, |l| l.is_empty()), ["= ", ""]);
    // Reports keep coming while no command arrives.
    let reports = read_until(&mut stdout, |l| l.starts_with("info move"));
    assert_eq!(reports[0], "=5");
    let info = read_until(&mut stdout, |l| l.starts_with("info move"))
        .pop()
        .unwrap();
    writeln!(stdin, "name").unwrap();
    // The analysis ends with an empty line, then the next command is answered.
    let rest = read_until(&mut stdout, |l| l.is_empty());
    assert!(
        rest.iter()
            .all(|l| l.starts_with("info move ") || l.is_empty()),
        "{rest:?}"
    );
    for field in [
        " visits ",
        " winrate ",
        " prior ",
        " lcb ",
        " order 0 ",
        " pv ",
    ] {
        assert!(info.contains(field), "{info}");
    }
    assert_eq!(read_until(&mut stdout, |l| l.is_empty()), ["= tengen", ""]);
    // lz-genmove_analyze reports while it searches, then plays.
    writeln!(stdin, "lz-genmove_analyze w 1").unwrap();
    let lines = read_until(&mut stdout, |l| l.starts_with("play "));
    assert_eq!(lines[0], "=");
    assert!(lines[1..lines.len() - 1]
        .iter()
        .all(|l| l.starts_with("info move ")));
    let played = lines
        .last()
        .unwrap()
        .trim_start_matches("play ")
        .to_string();
    assert_eq!(read_until(&mut stdout, |l| l.is_empty()), [""]);
    writeln!(
        stdin,
        "is_legal w {played}\nkata-analyze b 5 ownership true"
    )
    .unwrap();
    assert_eq!(
        read_until(&mut stdout, |l| l.is_empty()),
        ["= 0", ""],
        "{played} was played"
    );
    read_until(&mut stdout, |l| {
        l.starts_with("info move ") && l.contains(" winrate 0.")
    });
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
