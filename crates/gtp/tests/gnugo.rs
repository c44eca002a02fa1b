//! Cross-check against GNU Go: tengen plays random games on 9×9 through its
//! GTP engine, GNU Go (`gnugo --mode gtp --chinese-rules`) confirms every move
//! with `is_legal` and replays it, and both must give the same `final_score`
//! for the finished position. Skipped, with a note, where GNU Go is not
//! installed (`/usr/games/gnugo`, the Debian package).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use tengen_core::{BoardSize, RandomBot, Rules};
use tengen_gtp::Engine;

const GNUGO: &str = "/usr/games/gnugo";

/// A minimal GTP client for the test: one command, one response.
struct GnuGo {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl GnuGo {
    fn start() -> GnuGo {
        let mut child = Command::new(GNUGO)
            .args(["--mode", "gtp", "--chinese-rules", "--level", "1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start gnugo");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        GnuGo {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends `command`; returns the response text after `= `, or panics on
    /// an error response.
    fn send(&mut self, command: &str) -> String {
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
        let mut response = String::new();
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "gnugo ended");
            if line.trim_end().is_empty() {
                break;
            }
            response.push_str(&line);
        }
        let text = response.trim_end();
        let ok = text
            .strip_prefix('=')
            .unwrap_or_else(|| panic!("gnugo refused {command:?}: {text}"));
        ok.trim().to_string()
    }
}

impl Drop for GnuGo {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.child.wait();
    }
}

/// The text after `= ` of one of our engine's responses.
fn ours(engine: &mut Engine, command: &str) -> String {
    let response = engine.handle_line(command).expect("a response");
    let text = response
        .strip_prefix("= ")
        .unwrap_or_else(|| panic!("tengen refused {command:?}: {response}"));
    text.trim_end().to_string()
}

#[test]
fn random_games_agree_with_gnugo() {
    assert!(
        Path::new(GNUGO).exists(),
        "{GNUGO} is missing: install GNU Go (apt-get install gnugo; scripts/test installs it)"
    );
    for seed in 1..=3 {
        let mut engine = Engine::new(
            Box::new(RandomBot::new(seed)),
            BoardSize::square(9).unwrap(),
            Rules::preset("chinese").unwrap(),
        )
        .with_status_seed(seed);
        let mut gnugo = GnuGo::start();
        for command in ["boardsize 9", "clear_board", "komi 7.5"] {
            ours(&mut engine, command);
            gnugo.send(command);
        }
        let mut colors = ["b", "w"].into_iter().cycle();
        let mut turns = 0;
        while !engine.game().is_over() {
            let color = colors.next().unwrap();
            let vertex = ours(&mut engine, &format!("genmove {color}"));
            if vertex != "pass" {
                assert_eq!(
                    gnugo.send(&format!("is_legal {color} {vertex}")),
                    "1",
                    "seed {seed}: gnugo thinks {color} {vertex} is illegal"
                );
            }
            gnugo.send(&format!("play {color} {vertex}"));
            turns += 1;
            assert!(turns < 1000, "seed {seed}: game does not end");
        }
        let board = ours(&mut engine, "showboard");
        assert_eq!(
            ours(&mut engine, "final_score"),
            gnugo.send("final_score"),
            "seed {seed} after {turns} turns:\n{board}"
        );
    }
}

#[test]
fn a_position_with_dead_stones_agrees_with_gnugo() {
    assert!(
        Path::new(GNUGO).exists(),
        "{GNUGO} is missing: install GNU Go (apt-get install gnugo; scripts/test installs it)"
    );
    // The walls of tests/data/scoring.gtp: Black A-E, White F-J, one dead
    // stone in each area.
    let mut engine = Engine::new(
        Box::new(RandomBot::new(1)),
        BoardSize::square(9).unwrap(),
        Rules::preset("chinese").unwrap(),
    );
    let mut gnugo = GnuGo::start();
    let mut commands = vec!["boardsize 9".to_string(), "komi 7.5".to_string()];
    for row in 1..=9 {
        commands.push(format!("play b e{row}"));
        commands.push(format!("play w f{row}"));
    }
    commands.push("play w b5".to_string());
    commands.push("play b h5".to_string());
    for command in &commands {
        ours(&mut engine, command);
        gnugo.send(command);
    }
    assert_eq!(ours(&mut engine, "final_score"), "B+1.5");
    assert_eq!(gnugo.send("final_score"), "B+1.5");
    assert_eq!(
        ours(&mut engine, "final_status_list dead"),
        gnugo.send("final_status_list dead")
    );
}
