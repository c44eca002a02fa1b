//! The GTP controller against GNU Go (when installed) and against fake engines
//! written as tiny shell scripts, one per error path.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tengen_core::{BoardSize, Color, Move};
use tengen_gtp::controller::{
    Controller, ControllerError, FinalScore, GenMove, StoneStatus, DEFAULT_TIMEOUT,
};
use tengen_testing::hang_guard;

const GNUGO: &str = "/usr/games/gnugo";

/// Fails the test, saying what to install, when GNU Go is missing.
fn require_gnugo() {
    assert!(
        Path::new(GNUGO).exists(),
        "{GNUGO} is missing: install GNU Go (apt-get install gnugo; scripts/test installs it)"
    );
}

/// A fresh directory for one test's scripts.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tengen-gtp-controller-{}-{test}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes a `/bin/sh` script and returns the command line that runs it.
///
/// The shell reads the script rather than the kernel executing it: a
/// script just written can fail to start with "text file busy" while
/// another test thread's fork still holds a copy of the writing descriptor.
fn script(test: &str, body: &str) -> String {
    let path = temp_dir(test).join("engine.sh");
    fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    format!("/bin/sh {}", path.to_str().unwrap())
}

#[test]
fn drives_gnugo() {
    require_gnugo();
    let mut gnugo = Controller::spawn(&format!("{GNUGO} --mode gtp --level 1 --chinese-rules"))
        .expect("gnugo starts");
    assert_eq!(gnugo.timeout(), Some(DEFAULT_TIMEOUT));
    assert_eq!(gnugo.name().unwrap(), "GNU Go");
    assert!(!gnugo.version().unwrap().is_empty());
    assert_eq!(gnugo.protocol_version().unwrap(), "2");
    assert!(gnugo.known_command("final_status_list").unwrap());
    assert!(!gnugo.known_command("no_such_command").unwrap());
    assert!(gnugo
        .list_commands()
        .unwrap()
        .iter()
        .any(|c| c == "genmove"));

    let size = BoardSize::square(9).unwrap();
    gnugo.boardsize(size).unwrap();
    assert_eq!(gnugo.size(), size);
    gnugo.clear_board().unwrap();
    gnugo.komi(7.0).unwrap();
    gnugo
        .time_settings(Duration::ZERO, Duration::from_secs(5), 1)
        .unwrap();
    gnugo
        .time_left(Color::Black, Duration::from_secs(5), 1)
        .unwrap();

    let e5 = size.parse_gtp("E5").unwrap();
    gnugo.play(Color::Black, e5).unwrap();
    // Playing on an occupied point is the engine's `? illegal move`.
    match gnugo.play(Color::White, e5) {
        Err(ControllerError::Engine { command, message }) => {
            assert_eq!(command, "play white E5");
            assert_eq!(message, "illegal move");
        }
        other => panic!("expected an engine error, got {other:?}"),
    }
    let reply = gnugo.genmove(Color::White).unwrap();
    assert!(matches!(reply, GenMove::Move(Move::Play(p)) if p != e5.point().unwrap()));

    // A black stone alone in a corner of white ones is dead; GNU Go says so.
    gnugo.clear_board().unwrap();
    for (color, vertex) in [
        (Color::Black, "A1"),
        (Color::White, "B2"),
        (Color::White, "C1"),
        (Color::White, "A3"),
        (Color::White, "C3"),
    ] {
        gnugo.play(color, size.parse_gtp(vertex).unwrap()).unwrap();
    }
    let dead = gnugo.final_status_list(StoneStatus::Dead).unwrap();
    assert_eq!(dead, vec![size.parse_gtp("A1").unwrap().point().unwrap()]);
    let alive = gnugo.final_status_list(StoneStatus::Alive).unwrap();
    assert_eq!(alive.len(), 4);
    let score = gnugo.final_score().unwrap();
    assert_eq!(score.winner, Some(Color::White));
    gnugo.quit().unwrap();
}

#[test]
fn spawn_failure_is_reported() {
    match Controller::spawn("/no/such/engine --mode gtp") {
        Err(ControllerError::Spawn { program, .. }) => assert_eq!(program, "/no/such/engine"),
        other => panic!("expected a spawn error, got {other:?}"),
    }
    assert!(matches!(
        Controller::spawn("   "),
        Err(ControllerError::CommandLine { .. })
    ));
    assert!(matches!(
        Controller::spawn("sh -c 'unclosed"),
        Err(ControllerError::CommandLine { .. })
    ));
}

#[test]
fn quoted_command_lines_reach_the_engine() {
    // The whole script is one quoted argument of `sh -c`.
    let mut engine = Controller::spawn(
        r#"sh -c 'while read id cmd rest; do printf "=%s %s\n\n" "$id" "$cmd"; done'"#,
    )
    .unwrap();
    assert_eq!(engine.send("name").unwrap(), "name");
    assert_eq!(engine.send("version").unwrap(), "version");
    engine.quit().unwrap();
}

#[test]
fn garbage_is_malformed() {
    let engine = script(
        "garbage",
        "while read line; do echo 'hello world'; echo; done",
    );
    let mut engine = Controller::spawn(&engine).unwrap();
    match engine.name() {
        Err(ControllerError::Malformed {
            command, response, ..
        }) => {
            assert_eq!(command, "name");
            assert_eq!(response, "hello world");
        }
        other => panic!("expected a malformed response, got {other:?}"),
    }
}

#[test]
fn unreadable_moves_are_malformed() {
    let engine = script(
        "badvertex",
        r#"while read id cmd rest; do
  case "$cmd" in
    genmove) printf '=%s Z99\n\n' "$id" ;;
    final_score) printf '=%s a lot\n\n' "$id" ;;
    final_status_list) printf '=%s A1 B2\nQQ\n\n' "$id" ;;
    *) printf '=%s\n\n' "$id" ;;
  esac
done"#,
    );
    let mut engine = Controller::spawn(&engine).unwrap();
    engine.boardsize(BoardSize::square(9).unwrap()).unwrap();
    for result in [
        engine.genmove(Color::Black).map(drop),
        engine.final_score().map(drop),
        engine.final_status_list(StoneStatus::Dead).map(drop),
    ] {
        assert!(
            matches!(result, Err(ControllerError::Malformed { .. })),
            "{result:?}"
        );
    }
}

#[test]
fn multi_line_replies_and_resign() {
    let engine = script(
        "multiline",
        r#"while read id cmd rest; do
  case "$cmd" in
    showboard) printf '=%s\nline one\nline two\n\n' "$id" ;;
    genmove) printf '=%s Resign\n\n' "$id" ;;
    final_score) printf '=%s W+7.5\n\n' "$id" ;;
    final_status_list) printf '=%s A1 B1\nC3\n\n' "$id" ;;
    *) printf '\n=%s\n\n' "$id" ;;
  esac
done"#,
    );
    let mut engine = Controller::spawn(&engine).unwrap();
    assert_eq!(engine.send("showboard").unwrap(), "\nline one\nline two");
    // A blank line before a reply is tolerated.
    engine.boardsize(BoardSize::square(5).unwrap()).unwrap();
    assert_eq!(engine.genmove(Color::White).unwrap(), GenMove::Resign);
    assert_eq!(
        engine.final_score().unwrap(),
        FinalScore {
            winner: Some(Color::White),
            margin: Some(7.5)
        }
    );
    let size = engine.size();
    let dead = engine.final_status_list(StoneStatus::Dead).unwrap();
    let expected: Vec<_> = ["A1", "B1", "C3"]
        .iter()
        .map(|v| size.parse_gtp(v).unwrap().point().unwrap())
        .collect();
    assert_eq!(dead, expected);
}

#[test]
fn engine_errors_carry_the_message() {
    let engine = script(
        "refuses",
        r#"while read id cmd rest; do printf '?%s no way\n\n' "$id"; done"#,
    );
    let mut engine = Controller::spawn(&engine).unwrap();
    match engine.komi(6.5) {
        Err(ControllerError::Engine { command, message }) => {
            assert_eq!(command, "komi 6.5");
            assert_eq!(message, "no way");
        }
        other => panic!("expected an engine error, got {other:?}"),
    }
}

#[test]
fn hung_engine_times_out() {
    let engine = script("hangs", "while read line; do :; done");
    let mut engine = Controller::spawn(&engine).unwrap();
    engine.set_timeout(Some(Duration::from_millis(300)));
    let start = Instant::now();
    match engine.genmove(Color::Black) {
        Err(ControllerError::Timeout { command, timeout }) => {
            assert_eq!(command, "genmove black");
            assert_eq!(timeout, Duration::from_millis(300));
        }
        other => panic!("expected a timeout, got {other:?}"),
    }
    // Hang guards: a controller that waited on the engine would never return.
    let guard = hang_guard(Duration::from_secs(30));
    assert!(start.elapsed() < guard, "{:?}", start.elapsed());
    // Dropping the controller kills the hung engine rather than waiting on it.
    let dropped = Instant::now();
    drop(engine);
    assert!(dropped.elapsed() < guard, "{:?}", dropped.elapsed());
}

#[test]
fn late_replies_are_skipped() {
    let engine = script(
        "late",
        r#"read id cmd rest
sleep 1
printf '=%s late\n\n' "$id"
while read id cmd rest; do printf '=%s fresh\n\n' "$id"; done"#,
    );
    let mut engine = Controller::spawn(&engine).unwrap();
    let result = engine.send_with_timeout("name", Some(Duration::from_millis(100)));
    assert!(
        matches!(result, Err(ControllerError::Timeout { .. })),
        "{result:?}"
    );
    // The late reply to `name` arrives first and must not be taken for this one.
    assert_eq!(engine.send("version").unwrap(), "fresh");
}

#[test]
fn exiting_engine_is_reported() {
    let engine = script(
        "exits",
        r#"n=0
while read id cmd rest; do
  n=$((n + 1))
  if [ "$n" -gt 2 ]; then echo 'engine: fatal error' >&2; exit 3; fi
  printf '=%s ok\n\n' "$id"
done"#,
    );
    let mut engine = Controller::spawn(&engine).unwrap();
    assert_eq!(engine.name().unwrap(), "ok");
    assert_eq!(engine.version().unwrap(), "ok");
    match engine.genmove(Color::Black) {
        Err(ControllerError::EngineExited {
            command,
            status,
            stderr,
        }) => {
            assert_eq!(command, "genmove black");
            let status = status.expect("the exit status is known");
            assert!(status.contains('3'), "{status}");
            assert!(stderr.contains("fatal error"), "{stderr}");
        }
        other => panic!("expected the engine to have exited, got {other:?}"),
    }
    // Writing to the dead engine fails the same way.
    assert!(matches!(
        engine.name(),
        Err(ControllerError::EngineExited { .. })
    ));
}

#[test]
fn noisy_stderr_does_not_block() {
    // Far more than a pipe buffer of diagnostics before each reply.
    let engine = script(
        "noisy",
        r#"while read id cmd rest; do
  i=0
  while [ "$i" -lt 2000 ]; do
    echo "diagnostic line $i with some padding to fill the pipe quickly" >&2
    i=$((i + 1))
  done
  printf '=%s done\n\n' "$id"
done"#,
    );
    let mut engine = Controller::spawn(&engine).unwrap();
    engine.set_timeout(Some(hang_guard(Duration::from_secs(60))));
    assert_eq!(engine.name().unwrap(), "done");
    assert_eq!(engine.name().unwrap(), "done");
    // The drain thread may still be catching up with the last lines.
    let deadline = Instant::now() + hang_guard(Duration::from_secs(30));
    while !engine.stderr_tail().contains("diagnostic line 1999") {
        assert!(Instant::now() < deadline, "{}", engine.stderr_tail());
        std::thread::sleep(Duration::from_millis(10));
    }
    engine.quit().unwrap();
}
