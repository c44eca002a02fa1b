//! The terminal game driven through a pipe, as a script or another program
//! would drive it.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `tengen play` with `args`, feeding `input` on stdin.
fn play(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tengen");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().expect("wait for tengen")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Lines that are reasons for refusing input.
fn refusals(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.starts_with("Invalid input") || l.starts_with("Illegal move"))
        .collect()
}

#[test]
fn bad_input_is_refused_line_by_line_and_resigning_ends_the_game() {
    let input = "undo\nhello\nZ9\nI3\n\nc3\nC3\nresign\n";
    let output = play(
        &[
            "--size", "5", "--color", "black", "--bot", "random", "--seed", "11",
        ],
        input,
    );
    let text = stdout(&output);
    assert!(output.status.success(), "{text}");
    assert!(
        output.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!text.contains("panicked"));
    assert!(text.contains("\nNothing to undo: you have not moved yet in this game.\n"));
    assert_eq!(
        refusals(&text),
        [
            "Invalid input: 'hello' is neither a move such as C3 nor a command (pass, resign, undo, help, quit)",
            "Invalid input: vertex 'Z9' is off the 5x5 board",
            "Invalid input: invalid vertex 'I3': column letters skip I",
            "Illegal move C3: the point is occupied",
        ]
    );
    // The game went on after each refusal: Black's C3 was played, White replied,
    // and a prompt followed every line read (8 lines, the blank one included).
    assert_eq!(text.matches("Black plays C3\n").count(), 1);
    assert_eq!(text.matches("\nWhite plays ").count(), 1, "{text}");
    assert_eq!(
        text.matches("Black to play (C3, pass, resign, undo, help): ")
            .count(),
        8
    );
    assert!(text.contains("Black resigns\n"));
    assert!(
        text.trim_end().ends_with("Result: W+R (Black resigned)"),
        "{text}"
    );
}

#[test]
fn black_plays_a_few_moves_then_resigns() {
    // Any of these may be taken by White's replies; then the line is refused
    // and the game goes on, which is fine here.
    let input = "a1\ne5\nb4\nd2\nhelp\nresign\n";
    let output = play(&["--size", "5", "--seed", "2"], input);
    let text = stdout(&output);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("Commands (any case):"), "{text}");
    assert!(text.contains("Black plays A1\n"), "{text}");
    let black_moves = text.matches("\nBlack plays ").count();
    let white_moves =
        text.matches("\nWhite plays ").count() + text.matches("\nWhite passes").count();
    assert!(black_moves >= 1);
    assert_eq!(black_moves, white_moves, "{text}");
    for line in refusals(&text) {
        assert!(line.starts_with("Illegal move "), "{line}");
    }
    assert!(
        text.trim_end().ends_with("Result: W+R (Black resigned)"),
        "{text}"
    );
}

#[test]
fn the_bot_moves_first_when_the_person_is_white() {
    let output = play(
        &["--size", "5", "--color", "white", "--seed", "5"],
        "undo\nresign\n",
    );
    let text = stdout(&output);
    assert!(output.status.success(), "{text}");
    let first_move = text.find("Black plays ").expect("the bot opened");
    let first_prompt = text.find("White to play (").expect("a prompt for White");
    assert!(first_move < first_prompt, "{text}");
    assert!(text.contains("Nothing to undo"), "{text}");
    assert!(
        text.trim_end().ends_with("Result: B+R (White resigned)"),
        "{text}"
    );
}

#[test]
fn with_a_handicap_the_bot_as_white_moves_first() {
    let output = play(&["--size", "9", "--handicap", "2", "--seed", "5"], "quit\n");
    let text = stdout(&output);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("komi 0.5, handicap 2"), "{text}");
    assert!(text.contains("\nWhite plays "), "{text}");
    assert!(
        text.trim_end().ends_with("Leaving the game unfinished."),
        "{text}"
    );
}

#[test]
fn end_of_input_mid_game_exits_cleanly_with_a_note() {
    let output = play(&["--size", "5", "--seed", "3"], "c3\nd4\n");
    let text = stdout(&output);
    assert!(output.status.success(), "{text}");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("panicked"));
    assert!(
        text.trim_end()
            .ends_with("End of input before the game ended; leaving the game unfinished."),
        "{text}"
    );
    assert!(!text.contains("Result:"));
}

#[test]
fn empty_input_exits_cleanly() {
    let output = play(&["--size", "3"], "");
    assert!(output.status.success());
    assert!(stdout(&output).contains("End of input before the game ended"));
}

#[test]
fn passing_on_a_tiny_board_ends_with_a_count() {
    // On 2x2 the random bot soon has nothing but its own eyes left and passes.
    let output = play(&["--size", "2", "--seed", "9"], &"pass\n".repeat(20));
    let text = stdout(&output);
    assert!(output.status.success(), "{text}");
    let last = text.lines().last().unwrap();
    assert!(last.starts_with("Result: W+"), "{text}");
    assert!(last.ends_with("with komi 7.5)"), "{text}");
}
