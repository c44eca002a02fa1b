//! The `katago` bot in endgames, with KataGo's network (katrain 1.20.0's,
//! fetched by `scripts/katago-model` and cached under `target/katago/`):
//! it passes or resigns when behind and out of useful moves, never
//! destroying its own groups to avoid a pass, and plays on where a point
//! or a group is still to be won. The positions are data:
//! `tests/data/endgames.txt`.
//!
//! The bot is seeded with 1 (its random symmetries). `ENDGAMES_SEED=N`
//! seeds it with N and `ENDGAMES_EXTRA=precision=bf16` adds options to
//! every case's spec, to see how a case fares beyond the one search the
//! test plays; `ENDGAMES_DEBUG=1` prints the searches and the moves.

use tengen_bots::registry::{make_bot, BotSpec};
use tengen_bots::termination::lead_as_it_stands;
use tengen_core::{Action, Board, Color, Game, Move, Rules};
use tengen_katago::reference::model_path;

/// One position and what the bot must do there.
struct Case {
    name: String,
    komi: f64,
    to_move: Color,
    after_pass: bool,
    options: String,
    expect: Vec<String>,
    board: String,
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/endgames.txt");
    let mut cases = Vec::new();
    for block in text.split("\n## ").skip(1) {
        let mut lines = block.lines();
        let mut case = Case {
            name: lines.next().unwrap().trim().to_string(),
            komi: 7.0,
            to_move: Color::Black,
            after_pass: false,
            options: String::new(),
            expect: Vec::new(),
            board: String::new(),
        };
        let mut in_board = false;
        for line in lines {
            if in_board {
                // Row numbers and column letters are for people.
                let cells: Vec<&str> = line
                    .split_whitespace()
                    .filter(|w| matches!(*w, "." | "x" | "o"))
                    .collect();
                if !cells.is_empty() {
                    case.board.push_str(&cells.join(" "));
                    case.board.push('\n');
                }
                continue;
            }
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let (key, value) = line.split_once(':').expect("key: value");
            let value = value.trim();
            match key {
                "komi" => case.komi = value.parse().unwrap(),
                "to-move" => {
                    case.to_move = match value {
                        "black" => Color::Black,
                        "white" => Color::White,
                        other => panic!("to-move {other}"),
                    }
                }
                "after-pass" => case.after_pass = value == "yes",
                "options" => case.options = value.to_string(),
                "expect" => case.expect = value.split_whitespace().map(String::from).collect(),
                "board" => in_board = true,
                other => panic!("unknown key {other} in {}", case.name),
            }
        }
        cases.push(case);
    }
    cases
}

/// The game of a case: the board set up with the opponent to move, who
/// passes when the case says so.
fn game_of(case: &Case) -> Game {
    let board = Board::from_ascii(&case.board).unwrap_or_else(|e| panic!("{}: {e}", case.name));
    let rules: Rules = "chinese".parse().unwrap();
    let rules = rules.with_komi(case.komi);
    if case.after_pass {
        let mut game = Game::from_position(board, !case.to_move, rules);
        game.play(Move::Pass).unwrap();
        game
    } else {
        Game::from_position(board, case.to_move, rules)
    }
}

fn bot_for(case: &Case) -> Box<dyn tengen_core::Agent + Send> {
    let mut spec = format!("katago:model={},visits=64", model_path().display());
    if !case.options.is_empty() {
        spec.push(',');
        spec.push_str(&case.options);
    }
    if let Ok(extra) = std::env::var("ENDGAMES_EXTRA") {
        spec.push(',');
        spec.push_str(&extra);
    }
    let seed = std::env::var("ENDGAMES_SEED").map_or(1, |s| s.parse().unwrap());
    let spec: BotSpec = spec.parse().unwrap();
    make_bot(&spec, seed).unwrap()
}

/// What went wrong in `case`, if anything.
fn check(case: &Case) -> Result<(), String> {
    let mut game = game_of(case);
    let mut bot = bot_for(case);
    let color = case.to_move;
    let what = case.expect[0].as_str();
    let first = bot.select_move(&game);
    if std::env::var_os("ENDGAMES_DEBUG").is_some() {
        if let Some(a) = bot.analysis() {
            eprintln!("{}: winrate {:.3}", case.name, a.winrate);
            for c in a.candidates.iter().take(6) {
                eprintln!(
                    "  {} visits {} winrate {:.3} lead {:?} prior {:.3}",
                    game.size().gtp(c.mv),
                    c.visits,
                    c.winrate,
                    c.score_lead,
                    c.prior
                );
            }
        }
    }
    let size = game.size();
    let describe = |action: Action| match action {
        Action::Move(mv) => size.gtp(mv),
        Action::Resign => "resign".to_string(),
    };
    match what {
        "pass" if first == Action::Move(Move::Pass) => Ok(()),
        "pass-or-resign" if matches!(first, Action::Move(Move::Pass) | Action::Resign) => Ok(()),
        "one-of" => {
            let wanted: Vec<Move> = case.expect[1..]
                .iter()
                .map(|p| size.parse_gtp(p).unwrap())
                .collect();
            match first {
                Action::Move(mv) if wanted.contains(&mv) => Ok(()),
                other => Err(format!("played {}", describe(other))),
            }
        }
        "settles" => {
            let limit: usize = case.expect[1].parse().unwrap();
            let stones = game.board().stone_count(color);
            let lead = lead_as_it_stands(&game, color);
            let mut action = first;
            let mut played = Vec::new();
            for _ in 0..limit {
                match action {
                    Action::Resign | Action::Move(Move::Pass) => {
                        if std::env::var_os("ENDGAMES_DEBUG").is_some() {
                            eprintln!("{}: settled after {played:?}", case.name);
                        }
                        return Ok(());
                    }
                    Action::Move(Move::Play(point)) => {
                        played.push(describe(action));
                        if game.board().is_point_an_eye(point, color) {
                            return Err(format!("filled its own eye at {}", describe(action)));
                        }
                        game.play(Move::Play(point)).unwrap();
                        if game.board().stone_count(color) < stones {
                            return Err(format!("lost stones after {played:?}"));
                        }
                        if lead_as_it_stands(&game, color) < lead - 0.01 {
                            return Err(format!("the count got worse after {played:?}"));
                        }
                    }
                }
                game.play(Move::Pass).unwrap();
                action = bot.select_move(&game);
            }
            Err(format!("still playing after {played:?}"))
        }
        _ => Err(format!("{} instead of {what}", describe(first))),
    }
}

#[test]
fn the_katago_bot_ends_games_as_a_player_would() {
    let failures: Vec<String> = cases()
        .iter()
        .filter_map(|case| check(case).err().map(|e| format!("{}: {e}", case.name)))
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn the_cases_are_read() {
    let cases = cases();
    assert!(cases.len() >= 7);
    for case in &cases {
        let game = game_of(case);
        assert_eq!(game.to_move(), case.to_move, "{}", case.name);
        assert!(!case.expect.is_empty(), "{}", case.name);
    }
}
