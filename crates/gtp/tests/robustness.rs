//! No input can panic or hang the engine: thousands of random and mutated
//! command lines, each answered with a well-formed response while the board
//! stays consistent. Seeded, so a failure replays exactly.

use std::io::Cursor;

use tengen_core::{Action, Agent, BoardSize, Game, RandomBot, Rng, Rules};
use tengen_gtp::engine::{Engine, COMMANDS};

const WORDS: &[&str] = &[
    "b",
    "w",
    "black",
    "WHITE",
    "B",
    "pass",
    "PASS",
    "a1",
    "A1",
    "t19",
    "j9",
    "i5",
    "z25",
    "d4",
    "Q16",
    "k10",
    "e5",
    "c3",
    "0",
    "1",
    "2",
    "3",
    "5",
    "9",
    "19",
    "25",
    "26",
    "-1",
    "-0",
    "7.5",
    "nan",
    "inf",
    "-inf",
    "1e999",
    "99999999999999999999",
    "alive",
    "dead",
    "seki",
    "none",
    "absolute",
    "byoyomi",
    "canadian",
    "japanese",
    "chinese",
    "aga",
    "new_zealand",
    "tromp-taylor",
    "komi=0",
    "x",
    "",
    "\u{0}",
    "é",
    "#",
    "\t",
    "\r",
];

/// A command line: a known command (or sometimes a made-up one) with random
/// arguments, sometimes with an id.
fn random_line(rng: &mut Rng) -> Vec<u8> {
    let mut line = String::new();
    if rng.below(3) == 0 {
        line.push_str(&format!("{} ", rng.below(1000)));
    }
    let name = if rng.below(20) == 0 {
        "bogus_command"
    } else {
        COMMANDS[rng.below(COMMANDS.len())]
    };
    line.push_str(name);
    for _ in 0..rng.below(5) {
        line.push(' ');
        line.push_str(WORDS[rng.below(WORDS.len())]);
    }
    line.into_bytes()
}

/// Changes a line at random: bytes replaced, inserted, removed, or the line
/// doubled.
fn mutate(rng: &mut Rng, mut line: Vec<u8>) -> Vec<u8> {
    for _ in 0..1 + rng.below(4) {
        match rng.below(5) {
            0 if !line.is_empty() => {
                let i = rng.below(line.len());
                line[i] = rng.next_u64() as u8;
            }
            1 => {
                let i = rng.below(line.len() + 1);
                let byte = [0u8, b'\r', b'\t', b'#', 0xff, b' ', b'\n'][rng.below(7)];
                line.insert(i, byte);
            }
            2 if !line.is_empty() => {
                line.remove(rng.below(line.len()));
            }
            3 if line.len() < 1000 => line.extend(line.clone()),
            _ => {}
        }
    }
    line
}

/// Checks one response: `=` or `?`, the id if any, a space, no empty line
/// inside, exactly one empty line at the end.
fn check_response(response: &str, expected_id: Option<&str>) -> Result<(), String> {
    let body = response
        .strip_suffix("\n\n")
        .ok_or_else(|| format!("no empty line at the end: {response:?}"))?;
    if body.ends_with('\n') || body.contains("\n\n") {
        return Err(format!("empty line inside: {response:?}"));
    }
    let rest = body
        .strip_prefix('=')
        .or_else(|| body.strip_prefix('?'))
        .ok_or_else(|| format!("does not start with = or ?: {response:?}"))?;
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let (id, after) = rest.split_at(digits);
    // Streamed analysis (lz-analyze and its kin, as Leela Zero and KataGo
    // write it): `=id` alone on its line, then only `info` lines and, for
    // lz-genmove_analyze, a final `play` line.
    let streamed = body.starts_with('=')
        && after.starts_with('\n')
        && after[1..]
            .lines()
            .all(|line| line.starts_with("info move ") || line.starts_with("play "));
    if !after.starts_with(' ') && !streamed {
        return Err(format!("no space after the id: {response:?}"));
    }
    if let Some(expected) = expected_id {
        if id != expected {
            return Err(format!("id {id:?} instead of {expected:?}: {response:?}"));
        }
    }
    Ok(())
}

/// The id a preprocessed line starts with, if any (the engine must echo it).
fn id_of(line: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(line);
    let text = text.split('#').next().unwrap_or("");
    let cleaned: String = text
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect();
    let first = cleaned.split_whitespace().next()?;
    first
        .bytes()
        .all(|b| b.is_ascii_digit())
        .then(|| first.to_string())
}

/// A Go engine, or every fourth session a NoGo one (`tengen gtp --game
/// nogo`), whose answers take other paths.
fn engine(seed: u64) -> Engine {
    let rules = if seed % 4 == 3 {
        Rules::preset("nogo").unwrap()
    } else {
        Rules::default()
    };
    Engine::new(
        Box::new(RandomBot::new(seed)),
        BoardSize::square(9).unwrap(),
        rules,
    )
    .with_status_seed(seed)
    .with_status_playouts(16)
}

#[test]
fn random_and_mutated_lines_get_well_formed_responses() {
    let mut rng = Rng::new(20240601);
    let mut answered = 0;
    for session in 0..20 {
        let mut engine = engine(session);
        for _ in 0..400 {
            let mut line = random_line(&mut rng);
            if rng.below(3) == 0 {
                line = mutate(&mut rng, line);
            }
            // The engine takes single lines; a mutation may have added line
            // breaks, so feed each part as its own line as `run` would.
            for part in line.split(|&b| b == b'\n') {
                let response = engine.handle_bytes(part);
                let id = id_of(part);
                let blank = String::from_utf8_lossy(part)
                    .split('#')
                    .next()
                    .unwrap_or("")
                    .chars()
                    .all(|c| c.is_whitespace() || c.is_control());
                match response {
                    None => assert!(blank, "no response to {part:?}"),
                    Some(response) => {
                        assert!(!blank, "response to a blank line {part:?}");
                        if let Err(e) = check_response(&response, id.as_deref()) {
                            panic!("input {part:?}: {e}");
                        }
                        answered += 1;
                    }
                }
                if let Err(e) = engine.game().board().check_consistency() {
                    panic!("after {part:?}: {e}");
                }
                if engine.has_quit() {
                    engine = self::engine(rng.next_u64());
                }
            }
        }
    }
    assert!(answered > 7000, "{answered}");
}

#[test]
fn whole_games_through_the_engine_stay_consistent() {
    // Random games driven only by genmove, then scored, on several sizes.
    for (seed, size) in [(1, 5), (2, 9), (3, 13), (4, 19), (5, 2), (6, 1)] {
        let mut engine = engine(seed).with_status_playouts(64);
        assert_eq!(
            engine.handle_line(&format!("boardsize {size}")).unwrap(),
            "= \n\n"
        );
        for turn in 0..(size * size * 3) {
            let color = if turn % 2 == 0 { "b" } else { "w" };
            let response = engine.handle_line(&format!("genmove {color}")).unwrap();
            check_response(&response, None).unwrap();
            engine.game().board().check_consistency().unwrap();
            if engine.game().is_over() {
                break;
            }
        }
        for command in ["final_score", "final_status_list dead", "showboard", "undo"] {
            check_response(&engine.handle_line(command).unwrap(), None).unwrap();
        }
    }
}

#[test]
fn run_survives_long_lines_nul_bytes_and_missing_final_newline() {
    let mut input = Vec::new();
    input.extend_from_slice(b"1 name\n");
    input.extend(std::iter::repeat_n(b'x', 200_000));
    input.extend_from_slice(b"\n2 boardsize \0 99999999999999999999\n\xff\xfe\n3 version");
    let mut output = Vec::new();
    let mut engine = engine(1);
    engine.run(Cursor::new(input), &mut output).unwrap();
    let output = String::from_utf8(output).unwrap();
    let version = env!("CARGO_PKG_VERSION");
    assert_eq!(
        output,
        format!(
            "=1 tengen\n\n? line too long\n\n?2 unacceptable size\n\n? unknown command\n\n=3 {version}\n\n"
        )
    );
}

#[test]
fn quit_stops_reading() {
    let mut output = Vec::new();
    let mut engine = engine(1);
    engine
        .run(Cursor::new(b"quit\nname\n".to_vec()), &mut output)
        .unwrap();
    assert_eq!(output, b"= \n\n");
    assert!(engine.has_quit());
}

/// An agent that always resigns.
struct Resigner;

impl Agent for Resigner {
    fn name(&self) -> &str {
        "resigner"
    }

    fn select_move(&mut self, _game: &Game) -> Action {
        Action::Resign
    }
}

/// An agent that answers a move that is never legal.
struct Cheater;

impl Agent for Cheater {
    fn name(&self) -> &str {
        "cheater"
    }

    fn select_move(&mut self, game: &Game) -> Action {
        Action::Move(
            game.last_move()
                .map_or(tengen_core::Move::Pass, |(_, mv)| mv),
        )
    }
}

#[test]
fn resignation_is_answered_and_recorded() {
    let size = BoardSize::square(9).unwrap();
    let mut engine = Engine::new(Box::new(Resigner), size, Rules::default());
    assert_eq!(
        engine.handle_line("gogui-rules_final_result").unwrap(),
        "= unknown\n\n"
    );
    assert_eq!(engine.handle_line("genmove w").unwrap(), "= resign\n\n");
    assert_eq!(engine.handle_line("final_score").unwrap(), "= B+R\n\n");
    assert_eq!(
        engine.handle_line("gogui-rules_final_result").unwrap(),
        "= B+R\n\n"
    );
    assert_eq!(
        engine.handle_line("gogui-rules_legal_moves").unwrap(),
        "= \n\n"
    );
    // Play after a resignation takes it back and goes on.
    assert_eq!(engine.handle_line("play b e5").unwrap(), "= \n\n");
    assert_eq!(engine.game().resigned(), None);
    assert_eq!(
        engine.handle_line("version").unwrap(),
        format!("= {}\n\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn an_illegal_answer_from_the_agent_becomes_a_pass() {
    let size = BoardSize::square(9).unwrap();
    let mut engine = Engine::new(Box::new(Cheater), size, Rules::default());
    assert_eq!(engine.handle_line("play b e5").unwrap(), "= \n\n");
    assert_eq!(engine.handle_line("genmove w").unwrap(), "= pass\n\n");
    engine.game().board().check_consistency().unwrap();
}
