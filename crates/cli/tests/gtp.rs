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
        b"= ko=simple,suicide=forbidden,scoring=territory,komi=0.5\n\n= 13\n\n"
    );
}

#[test]
fn unknown_bots_are_refused_before_serving() {
    let output = run_gtp(&["--bot", "alphago"], b"name\n");
    assert!(!output.status.success());
    assert!(output.stdout.is_empty());
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown bot"));
}
