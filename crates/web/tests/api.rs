//! The API against a real server on an ephemeral port: the book's
//! select-move, the extensions, scoring, SGF, and every way a request can be
//! refused, each answered with a JSON error and the right 4xx status.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use common::http::{Client, Response};
use serde_json::{json, Value};
use std::fmt;

use tengen_bots::registry::Budget;
use tengen_bots::settings::{Category, Kind, Setting, Table};
use tengen_bots::{BotError, BotInfo, BotSettings};
use tengen_core::{Action, Agent, Analysis, BoardSize, Candidate, Color, Game, Move, Rules};
use tengen_web::{spawn, Bots, Limits, ServerConfig, ServerHandle};

fn server_with(limits: Limits, bots: Bots) -> ServerHandle {
    spawn(ServerConfig {
        port: 0,
        limits,
        bots,
        ..ServerConfig::default()
    })
    .expect("the server starts")
}

fn server() -> ServerHandle {
    server_with(Limits::default(), Bots::default())
}

/// Asserts a JSON error answer with this status whose message contains `part`.
#[track_caller]
fn assert_error(response: &Response, status: u16, part: &str) -> Value {
    assert_eq!(response.status, status, "body: {}", response.text());
    assert!(
        response
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/json")),
        "content type {:?}",
        response.header("content-type")
    );
    let body = response.json();
    let message = body["error"].as_str().expect("an error message");
    assert!(
        message.to_lowercase().contains(&part.to_lowercase()),
        "'{message}' does not mention '{part}'"
    );
    body
}

/// Replays `moves` with the rules core, as the server should.
fn replay(size: usize, rules: Rules, moves: &[String]) -> Game {
    let size = BoardSize::square(size).unwrap();
    let mut game = Game::new(size, rules);
    for mv in moves {
        if mv == "resign" {
            game.resign().unwrap();
        } else {
            game.play(size.parse_gtp(mv).unwrap()).unwrap();
        }
    }
    game
}

#[test]
fn health_bots_and_the_page() {
    let server = server();
    let mut client = Client::new(server.address);
    let health = client.get("/healthz").unwrap();
    assert_eq!(health.status, 200);
    assert_eq!(health.json()["status"], "ok");

    let bots = client.get("/api/bots").unwrap().json();
    let names: Vec<&str> = bots["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    // The registry's katago bot needs a network the server names
    // (`--model`); without one it is not offered.
    let expected: Vec<&str> = tengen_bots::BOTS
        .iter()
        .map(|b| b.name)
        .filter(|name| *name != "katago")
        .collect();
    assert_eq!(names, expected);
    assert_eq!(bots["limits"]["max_seconds"], 10.0);
    // The sides each bot plays: the shipped network's 9x9 for policy.
    let sizes = |name: &str| {
        bots["bots"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name)
            .map(|b| b["sizes"].clone())
            .unwrap()
    };
    assert_eq!(sizes("policy"), json!({"min": 9, "max": 9}));
    assert_eq!(sizes("random"), json!({"min": 1, "max": 25}));

    let page = client.get("/").unwrap();
    assert_eq!(page.status, 200);
    assert!(page
        .header("content-type")
        .unwrap()
        .starts_with("text/html"));
    let html = page.text();
    for name in tengen_web::assets::file_names() {
        let asset = client.get(&format!("/assets/{name}")).unwrap();
        assert_eq!(asset.status, 200, "{name}");
        assert!(!asset.body.is_empty(), "{name} is empty");
        if name.ends_with(".css") || name == "app.js" {
            assert!(
                html.contains(&format!("/assets/{name}")),
                "{name} not linked"
            );
        }
    }
    // Nothing outside: every script, style sheet and icon is ours or inline.
    for attribute in ["src=\"", "href=\""] {
        for (at, _) in html.match_indices(attribute) {
            let value = &html[at + attribute.len()..];
            assert!(
                (value.starts_with('/') && !value.starts_with("//")) || value.starts_with("data:"),
                "outside reference: {}",
                &value[..value.len().min(60)]
            );
        }
    }
    assert_error(&client.get("/assets/missing.js").unwrap(), 404, "no such");
}

#[test]
fn select_move_answers_the_books_request_with_a_legal_move() {
    let server = server();
    let mut client = Client::new(server.address);
    let moves = vec!["D4".to_string(), "pass".to_string(), "E5".to_string()];
    for _ in 0..20 {
        let response = client
            .post_json(
                "/select-move/random",
                &json!({"board_size": 9, "moves": moves}),
            )
            .unwrap();
        assert_eq!(response.status, 200, "{}", response.text());
        let body = response.json();
        let bot_move = body["bot_move"].as_str().unwrap();
        let game = replay(9, Rules::default(), &moves);
        let mv = game.size().parse_gtp(bot_move).unwrap();
        assert_eq!(game.legal(mv), Ok(()), "{bot_move}");
        assert_eq!(body["diagnostics"]["color"], "white");
        assert_eq!(body["diagnostics"]["bot"], "random");
        assert!(body["diagnostics"]["analysis"].is_null());
    }
    // The same seed, the same move.
    let request = json!({"board_size": 13, "moves": ["K10"], "seed": 42});
    let first = client
        .post_json("/select-move/random", &request)
        .unwrap()
        .json();
    let second = client
        .post_json("/select-move/random", &request)
        .unwrap()
        .json();
    assert_eq!(first["bot_move"], second["bot_move"]);
    // Upper-case names and a trailing colon are the same bot.
    let response = client
        .post_json(
            "/select-move/RANDOM:",
            &json!({"board_size": 5, "moves": []}),
        )
        .unwrap();
    assert_eq!(response.status, 200, "{}", response.text());
}

#[test]
fn handicap_setup_komi_and_rules() {
    let server = server();
    let mut client = Client::new(server.address);
    // Handicap: White moves first.
    let body = client
        .post_json(
            "/select-move/random",
            &json!({"board_size": 9, "moves": [], "handicap": 4}),
        )
        .unwrap()
        .json();
    assert_eq!(body["diagnostics"]["color"], "white");
    let bot_move = body["bot_move"].as_str().unwrap();
    assert!(!["C3", "G7", "C7", "G3"].contains(&bot_move), "{bot_move}");

    // Setup stones with White to move; the bot never plays on them.
    for _ in 0..10 {
        let body = client
            .post_json(
                "/select-move/random",
                &json!({"board_size": 5, "moves": [], "rules": "chinese", "komi": 0.5,
                        "setup": {"black": ["A1", "B2", "C3"], "white": ["E5", "D4"], "to_move": "white"}}),
            )
            .unwrap()
            .json();
        assert_eq!(body["diagnostics"]["color"], "white");
        let bot_move = body["bot_move"].as_str().unwrap();
        assert!(!["A1", "B2", "C3", "E5", "D4"].contains(&bot_move));
    }

    // Komi and rules reach the count.
    let score = client
        .post_json(
            "/api/score",
            &json!({"board_size": 5, "moves": ["pass", "pass"], "rules": "japanese", "komi": 3}),
        )
        .unwrap()
        .json();
    assert_eq!(score["result"], "W+3");
    assert_eq!(score["scoring"], "territory");
    assert_eq!(score["komi"], 3.0);
    assert_eq!(score["game_over"], true);
}

#[test]
fn a_whole_game_through_the_api_then_its_score_and_record() {
    let server = server();
    let mut client = Client::new(server.address);
    let mut moves: Vec<String> = Vec::new();
    let mut seed = 1;
    loop {
        let response = client
            .post_json(
                "/select-move/random",
                &json!({"board_size": 9, "moves": moves, "rules": "chinese", "seed": seed}),
            )
            .unwrap();
        assert_eq!(response.status, 200, "{}", response.text());
        moves.push(response.json()["bot_move"].as_str().unwrap().to_string());
        seed += 1;
        let n = moves.len();
        if n >= 2 && moves[n - 1] == "pass" && moves[n - 2] == "pass" {
            break;
        }
        assert!(n < 400, "the game does not end");
    }
    // Once over, there is no move to choose.
    let over = client
        .post_json(
            "/select-move/random",
            &json!({"board_size": 9, "moves": moves, "rules": "chinese"}),
        )
        .unwrap();
    assert_error(&over, 400, "game is already over");

    let game = replay(9, "chinese".parse().unwrap(), &moves);
    let score = client
        .post_json(
            "/api/score",
            &json!({"board_size": 9, "moves": moves, "rules": "chinese"}),
        )
        .unwrap()
        .json();
    // The random bot fills everything but single eyes: no stone is dead and
    // the area count is the core's.
    assert_eq!(score["result"], game.outcome().to_string());
    assert_eq!(score["dead"], json!([]));
    let rows = score["ownership"].as_array().unwrap();
    assert_eq!(rows.len(), 9);
    let black_points = rows
        .iter()
        .map(|r| r.as_str().unwrap().matches('B').count())
        .sum::<usize>() as f64;
    assert_eq!(black_points, score["black"].as_f64().unwrap());

    let sgf = client
        .post_json(
            "/api/sgf",
            &json!({"board_size": 9, "moves": moves, "rules": "chinese",
                    "players": {"black": "tengen random", "white": "You"}}),
        )
        .unwrap();
    assert_eq!(sgf.status, 200);
    assert!(sgf
        .header("content-type")
        .unwrap()
        .starts_with("application/x-go-sgf"));
    let record = tengen_sgf::read_game(&sgf.text()).expect("the record re-reads");
    assert_eq!(record.game.board(), game.board());
    assert_eq!(record.game.turn_count(), moves.len());
    assert!(sgf.text().contains(&format!("RE[{}]", game.outcome())));
    assert!(sgf.text().contains("PB[tengen random]"));
}

#[test]
fn scores_with_agreed_or_estimated_dead_stones() {
    let server = server();
    let mut client = Client::new(server.address);
    // White's lone stone inside Black's area is dead; Black walls off the
    // left side of a 5x5 board.
    let moves = json!(["C1", "E5", "C2", "pass", "C3", "pass", "C4", "pass", "C5", "pass", "pass"]);
    let estimated = client
        .post_json(
            "/api/score",
            &json!({"board_size": 5, "moves": moves, "rules": "chinese", "komi": 0.5}),
        )
        .unwrap()
        .json();
    assert_eq!(estimated["dead"], json!(["E5"]), "{estimated}");
    assert_eq!(estimated["dead_estimated"], true);
    assert_eq!(estimated["result"], "B+24.5");
    assert_eq!(estimated["ownership"][0], "BBBBB");

    let agreed = client
        .post_json(
            "/api/score",
            &json!({"board_size": 5, "moves": moves, "rules": "chinese", "komi": 0.5, "dead": []}),
        )
        .unwrap()
        .json();
    assert_eq!(agreed["dead_estimated"], false);
    assert_eq!(agreed["ownership"][0], "BBB.W");

    let response = client
        .post_json(
            "/api/score",
            &json!({"board_size": 5, "moves": moves, "dead": ["B2"]}),
        )
        .unwrap();
    let body = assert_error(&response, 400, "no stone there");
    assert_eq!(body["index"], 0);

    // A resignation is the result whatever the board.
    let resigned = client
        .post_json(
            "/api/score",
            &json!({"board_size": 9, "moves": ["E5", "resign"]}),
        )
        .unwrap()
        .json();
    assert_eq!(resigned["result"], "B+R");
    assert_eq!(resigned["winner"], "black");
}

#[test]
fn illegal_moves_are_named_by_index_and_reason() {
    let server = server();
    let mut client = Client::new(server.address);
    let cases: &[(&[&str], usize, &str)] = &[
        (&["D4", "D4"], 1, "occupied"),
        (&["D4", "pass", "D4"], 2, "occupied"),
        // Black A2 B1 around a White A1 corner: White A1 is suicide.
        (&["A2", "pass", "B1", "A1"], 3, "suicide"),
        // Black takes the ko at E4; White retakes at D4 at once.
        (
            &["D5", "E5", "C4", "D4", "D3", "F4", "pass", "E3", "E4", "D4"],
            9,
            "ko",
        ),
        (&["D4", "Z9"], 1, "off the 9x9 board"),
        (&["D4", "I5"], 1, "'I5'"),
        (&["D4", ""], 1, "''"),
        (&["D4", "resign", "E5"], 2, "game is over"),
    ];
    for (moves, index, reason) in cases {
        let response = client
            .post_json(
                "/select-move/random",
                &json!({"board_size": 9, "moves": moves}),
            )
            .unwrap();
        let body = assert_error(&response, 400, reason);
        assert_eq!(body["index"], *index, "{moves:?}: {body}");
        assert!(
            body["error"]
                .as_str()
                .unwrap()
                .starts_with(&format!("moves[{index}]")),
            "{body}"
        );
        // The score endpoint replays the same way.
        let response = client
            .post_json("/api/score", &json!({"board_size": 9, "moves": moves}))
            .unwrap();
        assert_error(&response, 400, reason);
    }
    // After a threat and its answer the retake is legal.
    let moves = json!(["D5", "E5", "C4", "D4", "D3", "F4", "pass", "E3", "E4", "A9", "J1", "D4"]);
    let response = client
        .post_json("/api/score", &json!({"board_size": 9, "moves": moves}))
        .unwrap();
    assert_eq!(response.status, 200, "{}", response.text());
    assert_eq!(response.json()["captures"], json!({"black": 1, "white": 1}));
}

#[test]
fn malformed_requests_get_json_errors() {
    let server = server();
    let mut client = Client::new(server.address);
    let json_type = [("Content-Type", "application/json")];
    // JSON syntax.
    let response = client
        .request(
            "POST",
            "/select-move/random",
            &json_type,
            b"{\"board_size\": 9,",
        )
        .unwrap();
    assert_error(&response, 400, "");
    // Wrong or missing content type.
    let response = client
        .request(
            "POST",
            "/select-move/random",
            &[("Content-Type", "text/plain")],
            b"{\"board_size\": 9}",
        )
        .unwrap();
    assert_error(&response, 415, "content-type");
    let response = client
        .request("POST", "/api/score", &[], b"{\"board_size\": 9}")
        .unwrap();
    assert_error(&response, 415, "content-type");
    // Missing and mistyped fields.
    let response = client
        .post_json("/select-move/random", &json!({"moves": []}))
        .unwrap();
    assert_error(&response, 422, "board_size");
    let response = client
        .post_json("/select-move/random", &json!({"board_size": "nine"}))
        .unwrap();
    assert_error(&response, 422, "invalid type");
    let response = client
        .post_json(
            "/select-move/random",
            &json!({"board_size": 9, "moves": [4, 4]}),
        )
        .unwrap();
    assert_error(&response, 422, "invalid type");
    let response = client
        .post_json("/select-move/random", &json!("9"))
        .unwrap();
    assert_error(&response, 422, "expected struct");
    // Board sizes out of range.
    for size in [json!(0), json!(26), json!(1000), json!(u64::MAX)] {
        let response = client
            .post_json("/select-move/random", &json!({"board_size": size}))
            .unwrap();
        assert_error(&response, 400, "out of range");
    }
    let response = client
        .post_json("/select-move/random", &json!({"board_size": -1}))
        .unwrap();
    assert_error(&response, 422, "board_size");
    // Rules, komi, handicap, setup.
    let response = client
        .post_json(
            "/select-move/random",
            &json!({"board_size": 9, "rules": "fischer"}),
        )
        .unwrap();
    assert_error(&response, 400, "unknown rule set 'fischer'");
    let response = client
        .post_json(
            "/select-move/random",
            &json!({"board_size": 9, "komi": 1e9}),
        )
        .unwrap();
    assert_error(&response, 400, "komi");
    let response = client
        .post_json(
            "/select-move/random",
            &json!({"board_size": 9, "handicap": 10}),
        )
        .unwrap();
    assert_error(&response, 400, "handicap of 10 stones");
    let response = client
        .post_json(
            "/select-move/random",
            &json!({"board_size": 9, "handicap": 2, "setup": {"black": ["A1"]}}),
        )
        .unwrap();
    assert_error(&response, 400, "not both");
    let response = client
        .post_json(
            "/select-move/random",
            &json!({"board_size": 9, "setup": {"black": ["A1"], "to_move": "red"}}),
        )
        .unwrap();
    assert_error(&response, 400, "not a colour");
    // Unknown routes and methods.
    assert_error(&client.get("/nowhere").unwrap(), 404, "no such endpoint");
    assert_error(&client.get("/select-move/random").unwrap(), 405, "GET");
    let response = client.post_json("/healthz", &json!({})).unwrap();
    assert_error(&response, 405, "not allowed");
}

#[test]
fn bots_are_found_by_spec() {
    let server = server();
    let mut client = Client::new(server.address);
    let request = json!({"board_size": 9, "moves": []});
    let response = client.post_json("/select-move/alphago", &request).unwrap();
    assert_error(&response, 404, "unknown bot 'alphago'");
    let response = client
        .post_json("/select-move/random:depth=3", &request)
        .unwrap();
    assert_error(&response, 400, "no option 'depth'");
    let response = client
        .post_json("/select-move/random:depth", &request)
        .unwrap();
    assert_error(&response, 400, "key=value");
    // The spec is percent-decoded like any path.
    let response = client
        .post_json("/select-move/random%3Adepth%3D3", &request)
        .unwrap();
    assert_error(&response, 400, "no option 'depth'");
    let response = client.post_json("/select-move/%20", &request).unwrap();
    assert_error(&response, 400, "empty bot name");
}

#[test]
fn oversized_bodies_and_move_lists_are_refused() {
    let limits = Limits::default();
    let server = server();
    let mut client = Client::new(server.address);
    let mut body = br#"{"board_size": 9, "moves": ["#.to_vec();
    while body.len() <= limits.max_body {
        body.extend_from_slice(br#""pass","#);
    }
    body.extend_from_slice(br#""pass"]}"#);
    let response = client
        .request(
            "POST",
            "/select-move/random",
            &[("Content-Type", "application/json")],
            &body,
        )
        .unwrap();
    assert_error(&response, 413, "length limit");

    // Small enough in bytes, too long in moves.
    let moves: Vec<&str> = vec!["a"; limits.max_moves + 1];
    let response = client
        .post_json(
            "/select-move/random",
            &json!({"board_size": 9, "moves": moves}),
        )
        .unwrap();
    assert_error(&response, 413, "at most 2000");
    // The server still answers afterwards.
    assert_eq!(client.get("/healthz").unwrap().status, 200);
}

#[test]
fn unreasonable_budgets_are_refused_and_ignored_ones_reported() {
    let server = server();
    let mut client = Client::new(server.address);
    for (budget, part) in [
        (json!({"playouts": 0}), "out of range"),
        (json!({"playouts": 2_000_000}), "1 to 1000000"),
        (json!({"seconds": 60}), "at most 10"),
        (json!({"seconds": -1}), "out of range"),
        (json!({"seconds": 0}), "out of range"),
        (json!({"playouts": -5}), "invalid value"),
        (json!({"seconds": "lots"}), "invalid type"),
    ] {
        let response = client
            .post_json(
                "/select-move/random",
                &json!({"board_size": 9, "budget": budget}),
            )
            .unwrap();
        let status = if part.starts_with("invalid") {
            422
        } else {
            400
        };
        assert_error(&response, status, part);
    }
    let body = client
        .post_json(
            "/select-move/random",
            &json!({"board_size": 9, "budget": {"playouts": 500, "seconds": 1.5}}),
        )
        .unwrap()
        .json();
    assert_eq!(
        body["diagnostics"]["budget"]["ignored"],
        json!(["playouts", "seconds"])
    );
}

#[test]
fn the_search_bot_reports_its_analysis_within_its_budget() {
    let server = server();
    let mut client = Client::new(server.address);
    let response = client
        .post_json(
            "/select-move/mcts",
            &json!({"board_size": 9, "moves": ["E5"], "budget": {"playouts": 300}, "seed": 3}),
        )
        .unwrap();
    assert_eq!(response.status, 200, "{}", response.text());
    let body = response.json();
    assert_eq!(body["diagnostics"]["bot"], "mcts:playouts=300");
    let analysis = &body["diagnostics"]["analysis"];
    let winrate = analysis["winrate"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&winrate), "{analysis}");
    let candidates = analysis["candidates"].as_array().unwrap();
    assert!(!candidates.is_empty(), "{analysis}");
    let game = replay(9, Rules::default(), &["E5".to_string()]);
    let best = game
        .size()
        .parse_gtp(candidates[0]["move"].as_str().unwrap());
    assert!(best.is_ok_and(|mv| game.legal(mv).is_ok()), "{analysis}");
    // Its settings are held to the server's limits.
    for (spec, part) in [
        ("mcts:memory=65536", "memory=65536"),
        // Within the bot's own range (1 to 256) but over the server's limit.
        ("mcts:threads=256", "threads=256"),
        // Outside the bot's range: the bot's own reason.
        ("mcts:threads=1000", "must be from 1 to 256"),
        ("mcts:playouts=5000000", "out of range"),
        ("mcts:time=20s", "at most 10"),
    ] {
        let response = client
            .post_json(&format!("/select-move/{spec}"), &json!({"board_size": 9}))
            .unwrap();
        assert_error(&response, 400, part);
    }
}

// Bots of the tests' own, to check what the real registry cannot show yet:
// budgets mapped onto options, analysis, slow and broken bots.

/// A bot that plays the first legal point and reports an analysis.
struct Probe {
    delay: Duration,
}

impl Agent for Probe {
    fn name(&self) -> &str {
        "probe"
    }

    fn select_move(&mut self, game: &Game) -> Action {
        thread::sleep(self.delay);
        let mv = game.legal_moves()[0];
        Action::Move(mv)
    }

    fn analysis(&self) -> Option<Analysis> {
        Some(Analysis {
            playouts: 100,
            winrate: 0.625,
            candidates: vec![Candidate {
                mv: Move::Pass,
                visits: 60,
                winrate: 0.6,
                prior: 0.1,
                score_lead: None,
                pv: vec![Move::Pass, Move::Pass],
                ..Candidate::default()
            }],
            ownership: Vec::new(),
            ..Analysis::default()
        })
    }
}

/// A bot that plays an occupied point.
struct Liar;

impl Agent for Liar {
    fn name(&self) -> &str {
        "liar"
    }

    fn select_move(&mut self, game: &Game) -> Action {
        let occupied = game
            .size()
            .points()
            .find(|&p| game.board().stone(p).is_some());
        Action::Move(occupied.map_or(Move::Pass, Move::Play))
    }
}

/// The settings of the tests' bots: a playout count and a time for the
/// probe (it sleeps for the time), nothing for the others.
#[derive(Clone, Debug, Default, PartialEq)]
struct TestSettings {
    bot: &'static str,
    playouts: Option<u64>,
    time: Option<Duration>,
}

static PROBE_OPTIONS: Table<TestSettings> = Table {
    sections: &[&[
        Setting {
            name: "playouts",
            katago: &[],
            category: Category::Limits,
            help: "playouts per move",
            kind: Kind::OptionalWhole {
                min: 1,
                max: u64::MAX,
                get: |s| s.playouts,
                set: |s, n| s.playouts = n,
            },
            applies: None,
        },
        Setting {
            name: "time",
            katago: &["maxTime"],
            category: Category::Limits,
            help: "thinking time per move",
            kind: Kind::Time {
                get: |s| s.time,
                set: |s, t| s.time = t,
            },
            applies: None,
        },
    ]],
    renamed: &[],
    experiments: &[],
};

static NO_OPTIONS: Table<TestSettings> = Table {
    sections: &[],
    renamed: &[],
    experiments: &[],
};

fn parse_test_bot(
    name: &'static str,
    options: &[(String, String)],
) -> Result<Box<dyn BotSettings>, BotError> {
    let table = if name == "probe" {
        &PROBE_OPTIONS
    } else {
        &NO_OPTIONS
    };
    Ok(Box::new(TestSettings {
        bot: name,
        ..table.parse(name, options)?
    }))
}

const TEST_BOTS: &[BotInfo] = &[
    BotInfo {
        name: "probe",
        description: "first legal move, with an analysis",
        options: &PROBE_OPTIONS,
        parse: |options| parse_test_bot("probe", options),
    },
    BotInfo {
        name: "sleeper",
        description: "thinks for two seconds whatever it is told",
        options: &NO_OPTIONS,
        parse: |options| parse_test_bot("sleeper", options),
    },
    BotInfo {
        name: "liar",
        description: "plays on stones",
        options: &NO_OPTIONS,
        parse: |options| parse_test_bot("liar", options),
    },
];

impl fmt::Display for TestSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.bot)?;
        if self.bot == "probe" {
            for (i, (key, value)) in PROBE_OPTIONS.changed(self).iter().enumerate() {
                let separator = if i == 0 { ':' } else { ',' };
                write!(f, "{separator}{key}={value}")?;
            }
        }
        Ok(())
    }
}

static PROBES_BUILT: AtomicUsize = AtomicUsize::new(0);

impl BotSettings for TestSettings {
    fn info(&self) -> &'static BotInfo {
        TEST_BOTS.iter().find(|info| info.name == self.bot).unwrap()
    }

    fn build(&self, _seed: u64) -> Result<Box<dyn Agent + Send>, BotError> {
        match self.bot {
            "probe" => {
                PROBES_BUILT.fetch_add(1, Ordering::SeqCst);
                Ok(Box::new(Probe {
                    delay: self.time.unwrap_or_default(),
                }))
            }
            "liar" => Ok(Box::new(Liar)),
            _ => Ok(Box::new(Probe {
                delay: Duration::from_secs(2),
            })),
        }
    }

    fn budget(&self) -> Budget {
        match self.bot {
            "probe" => Budget {
                count: Some(("playouts", self.playouts)),
                time: Some(self.time),
                ..Budget::default()
            },
            _ => Budget::default(),
        }
    }

    fn set_budget(&mut self, budget: &Budget) {
        if let Some((_, count)) = budget.count {
            self.playouts = count;
        }
        if let Some(time) = budget.time {
            self.time = time;
        }
    }
}

fn test_bots() -> Bots {
    Bots { list: TEST_BOTS }
}

#[test]
fn budgets_map_onto_the_bots_options_and_analysis_is_passed_on() {
    let server = server_with(Limits::default(), test_bots());
    let mut client = Client::new(server.address);
    let body = client
        .post_json(
            "/select-move/probe",
            &json!({"board_size": 9, "moves": ["A1"], "budget": {"playouts": 2000, "seconds": 0.01}}),
        )
        .unwrap()
        .json();
    assert_eq!(body["bot_move"], "B1");
    assert_eq!(body["diagnostics"]["bot"], "probe:playouts=2000,time=10ms");
    assert_eq!(body["diagnostics"]["budget"]["playouts"], 2000);
    assert_eq!(body["diagnostics"]["color"], "white");
    let analysis = &body["diagnostics"]["analysis"];
    assert_eq!(analysis["winrate"], 0.625);
    assert_eq!(analysis["candidates"][0]["move"], "pass");
    assert_eq!(analysis["candidates"][0]["pv"], json!(["pass", "pass"]));
    // Limits hold for settings written into the spec too.
    let response = client
        .post_json(
            "/select-move/probe:playouts=5000000",
            &json!({"board_size": 9}),
        )
        .unwrap();
    assert_error(&response, 400, "out of range");
    let response = client
        .post_json("/select-move/probe:time=1m", &json!({"board_size": 9}))
        .unwrap();
    assert_error(&response, 400, "at most 10");
    // A bot that answers an illegal move is the server's fault, and says so.
    let response = client
        .post_json(
            "/select-move/liar",
            &json!({"board_size": 9, "moves": ["E5"]}),
        )
        .unwrap();
    assert_error(&response, 500, "illegal move E5");
}

#[test]
fn a_saturated_server_answers_503_and_slow_bots_are_cut_off() {
    let limits = Limits {
        max_concurrent: 1,
        max_think: Duration::from_secs(10),
        grace: Duration::from_secs(1),
        ..Limits::default()
    };
    let server = server_with(limits, test_bots());
    let address = server.address;
    let built_before = PROBES_BUILT.load(Ordering::SeqCst);
    // One request thinks for 5 s, holding the only slot while the two
    // requests below are refused (a busy machine still makes them in time).
    let slow = thread::spawn(move || {
        Client::new(address)
            .post_json(
                "/select-move/probe",
                &json!({"board_size": 9, "budget": {"seconds": 5.0}}),
            )
            .unwrap()
    });
    while PROBES_BUILT.load(Ordering::SeqCst) == built_before {
        thread::sleep(Duration::from_millis(5));
    }
    let mut client = Client::new(address);
    let response = client
        .post_json("/select-move/probe", &json!({"board_size": 9}))
        .unwrap();
    assert_error(&response, 503, "busy");
    // Scoring needs a slot too.
    let response = client
        .post_json("/api/score", &json!({"board_size": 9}))
        .unwrap();
    assert_error(&response, 503, "busy");
    let slow = slow.join().unwrap();
    assert_eq!(slow.status, 200, "{}", slow.text());
    // The slot is free again.
    let response = client
        .post_json("/select-move/probe", &json!({"board_size": 9}))
        .unwrap();
    assert_eq!(response.status, 200);

    // A bot that overruns the cap is answered 503 after the cap.
    let limits = Limits {
        max_think: Duration::from_millis(300),
        grace: Duration::from_millis(100),
        ..Limits::default()
    };
    let server = server_with(limits, test_bots());
    let mut client = Client::new(server.address);
    let response = client
        .post_json("/select-move/probe:time=5s", &json!({"board_size": 9}))
        .unwrap();
    assert_error(&response, 400, "at most 0.3");
    let response = client
        .post_json("/select-move/sleeper", &json!({"board_size": 9}))
        .unwrap();
    assert_error(&response, 503, "did not answer within 0.4 s");
}

#[test]
fn colours_alternate_from_the_right_player() {
    let server = server();
    let mut client = Client::new(server.address);
    for (request, color) in [
        (json!({"board_size": 9, "moves": []}), Color::Black),
        (json!({"board_size": 9, "moves": ["pass"]}), Color::White),
        (json!({"board_size": 9, "handicap": 2}), Color::White),
        (
            json!({"board_size": 9, "handicap": 2, "moves": ["E5"]}),
            Color::Black,
        ),
    ] {
        let body = client
            .post_json("/select-move/random", &request)
            .unwrap()
            .json();
        let expected = if color == Color::Black {
            "black"
        } else {
            "white"
        };
        assert_eq!(body["diagnostics"]["color"], expected, "{request}");
    }
}

#[test]
fn the_neural_bots_play_with_the_shipped_model_only() {
    let server = server();
    let mut client = Client::new(server.address);
    let response = client
        .post_json(
            "/select-move/policy",
            &json!({"board_size": 9, "moves": ["E5", "C3"], "seed": 1}),
        )
        .unwrap();
    assert_eq!(response.status, 200, "{}", response.text());
    let chosen = response.json()["bot_move"].as_str().unwrap().to_string();
    let game = replay(9, Rules::default(), &["E5".to_string(), "C3".to_string()]);
    let mv = game.size().parse_gtp(&chosen).unwrap();
    assert!(game.legal(mv).is_ok(), "{chosen}");

    let response = client
        .post_json(
            "/select-move/mcts:network=builtin",
            &json!({"board_size": 9, "moves": [], "budget": {"playouts": 200}, "seed": 1}),
        )
        .unwrap();
    assert_eq!(response.status, 200, "{}", response.text());

    // The shipped model is for 9×9.
    let response = client
        .post_json(
            "/select-move/policy",
            &json!({"board_size": 13, "moves": []}),
        )
        .unwrap();
    assert_error(&response, 400, "9x9");
    // No file on the server is opened by a client's name for it.
    let response = client
        .post_json(
            "/select-move/policy:model=%2Fetc%2Fpasswd",
            &json!({"board_size": 9, "moves": []}),
        )
        .unwrap();
    assert_error(&response, 400, "model=builtin");
    // Nor for the move model of the priors.
    let response = client
        .post_json(
            "/select-move/mcts:move-model=%2Fetc%2Fpasswd",
            &json!({"board_size": 9, "moves": []}),
        )
        .unwrap();
    assert_error(&response, 400, "move-model=builtin");
    // Nor for the opening book or the network of the search.
    for (spec, part) in [
        ("mcts:book=%2Fetc%2Fpasswd", "book=builtin or book=none"),
        (
            "mcts:network=%2Fetc%2Fpasswd",
            "network=builtin or network=none",
        ),
    ] {
        let response = client
            .post_json(
                &format!("/select-move/{spec}"),
                &json!({"board_size": 9, "moves": []}),
            )
            .unwrap();
        assert_error(&response, 400, part);
    }
}

/// Analyses the position after `moves` with `bot`; the answer, checked to be 200.
fn analyse(client: &mut Client, bot: &str, moves: &[&str], budget: Value) -> Value {
    let response = client
        .post_json(
            &format!("/api/analyse/{bot}"),
            &json!({"board_size": 9, "moves": moves, "budget": budget, "seed": 5}),
        )
        .unwrap();
    assert_eq!(response.status, 200, "{}", response.text());
    response.json()
}

#[test]
fn a_position_is_analysed_without_a_move_being_played() {
    let server = server();
    let mut client = Client::new(server.address);
    let body = analyse(&mut client, "mcts", &["E5", "C3"], json!({"playouts": 200}));
    assert!(body.get("bot_move").is_none(), "{body}");
    assert_eq!(body["bot"], "mcts:playouts=200");
    assert_eq!(body["target_visits"], 200);
    let analysis = &body["analysis"];
    // Black is to move: the numbers are Black's.
    assert_eq!(analysis["perspective"], "black");
    let playouts = analysis["playouts"].as_u64().unwrap();
    // The search stops at the budget, give or take one report's worth.
    assert!((200..2000).contains(&playouts), "{analysis}");
    let winrate = analysis["winrate"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&winrate), "{analysis}");
    // mcts estimates no score.
    assert!(analysis["scoreLead"].is_null(), "{analysis}");
    let game = replay(9, Rules::default(), &["E5".into(), "C3".into()]);
    let candidates = analysis["candidates"].as_array().unwrap();
    assert!(!candidates.is_empty(), "{analysis}");
    for candidate in candidates {
        let mv = game
            .size()
            .parse_gtp(candidate["move"].as_str().unwrap())
            .unwrap();
        assert_eq!(game.legal(mv), Ok(()), "{candidate}");
        assert!(candidate["scoreLead"].is_null(), "{candidate}");
        let pv = candidate["pv"].as_array().unwrap();
        assert_eq!(pv[0], candidate["move"], "{candidate}");
    }
    assert_eq!(analysis["ownership"].as_array().unwrap().len(), 81);

    // White to move: White's view.
    let body = analyse(&mut client, "mcts", &["E5"], json!({"playouts": 50}));
    assert_eq!(body["analysis"]["perspective"], "white");
    assert!(body["analysis"]["playouts"].as_u64().unwrap() >= 50);

    // A game ended by two passes: the stones on the board, the game going on.
    let body = analyse(
        &mut client,
        "mcts",
        &["E5", "pass", "pass"],
        json!({"playouts": 50}),
    );
    assert_eq!(body["analysis"]["perspective"], "white");
    assert!(!body["analysis"]["candidates"]
        .as_array()
        .unwrap()
        .is_empty());

    // select-move's analysis carries the same fields.
    let response = client
        .post_json(
            "/select-move/mcts",
            &json!({"board_size": 9, "moves": ["E5"], "budget": {"playouts": 50}}),
        )
        .unwrap();
    let analysis = &response.json()["diagnostics"]["analysis"];
    assert_eq!(analysis["perspective"], "white", "{analysis}");
    assert!(analysis["scoreLead"].is_null(), "{analysis}");
    assert!(analysis["candidates"][0]
        .as_object()
        .unwrap()
        .contains_key("scoreLead"));
}

#[test]
fn analysis_refusals_say_what_to_change() {
    let server = server();
    let mut client = Client::new(server.address);
    let post =
        |client: &mut Client, path: &str, body: Value| client.post_json(path, &body).unwrap();
    // A bot that does not search.
    let response = post(&mut client, "/api/analyse/random", json!({"board_size": 9}));
    assert_error(&response, 422, "cannot analyse");
    // No such bot.
    let response = post(
        &mut client,
        "/api/analyse/alphago",
        json!({"board_size": 9}),
    );
    assert_error(&response, 404, "alphago");
    // A bad move, named by its index.
    let response = post(
        &mut client,
        "/api/analyse/mcts",
        json!({"board_size": 9, "moves": ["E5", "E5"]}),
    );
    let body = assert_error(&response, 400, "moves[1]");
    assert_eq!(body["index"], 1);
    // A resigned game has no position to think about.
    let response = post(
        &mut client,
        "/api/analyse/mcts",
        json!({"board_size": 9, "moves": ["E5", "resign"]}),
    );
    assert_error(&response, 400, "resigned");
    // Budgets are held to the limits as for moves.
    let response = post(
        &mut client,
        "/api/analyse/mcts",
        json!({"board_size": 9, "budget": {"playouts": 0}}),
    );
    assert_error(&response, 400, "out of range");
    assert_error(&client.get("/api/analyse/mcts").unwrap(), 405, "GET");
}

#[test]
fn analyses_leave_slots_for_moves_and_stop_when_their_client_goes() {
    use std::io::Write;
    // Two slots: analyses may hold one of them.
    // The long analysis is given far longer than the test takes, so its
    // slot comes back only if its client's leaving stopped it.
    let limits = Limits {
        max_concurrent: 2,
        max_think: Duration::from_secs(600),
        ..Limits::default()
    };
    assert_eq!(limits.analysis_slots(), 1);
    let server = server_with(limits, Bots::default());
    let address = server.address;
    let long = json!({"board_size": 19, "budget": {"seconds": 600.0}}).to_string();
    let mut stream = std::net::TcpStream::connect(address).unwrap();
    write!(
        stream,
        "POST /api/analyse/mcts HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{long}",
        long.len()
    )
    .unwrap();
    thread::sleep(Duration::from_millis(300));
    let mut client = Client::new(address);
    // A second analysis waits for the first...
    let response = client
        .post_json("/api/analyse/mcts", &json!({"board_size": 9}))
        .unwrap();
    assert_error(&response, 503, "analysing");
    // ...but a move does not.
    let response = client
        .post_json(
            "/select-move/mcts",
            &json!({"board_size": 9, "budget": {"playouts": 20}}),
        )
        .unwrap();
    assert_eq!(response.status, 200, "{}", response.text());
    // The first client goes away: its search stops and frees the slot long
    // before its 600 seconds (a hang guard shorter than them fails a search
    // that went on).
    drop(stream);
    let dropped = std::time::Instant::now();
    let guard = tengen_testing::hang_guard(Duration::from_secs(60)).min(Duration::from_secs(590));
    loop {
        let response = client
            .post_json(
                "/api/analyse/mcts",
                &json!({"board_size": 9, "budget": {"playouts": 20}}),
            )
            .unwrap();
        if response.status == 200 {
            break;
        }
        assert_error(&response, 503, "analysing");
        assert!(
            dropped.elapsed() < guard,
            "the abandoned analysis still holds its slot after {guard:?}"
        );
        thread::sleep(Duration::from_millis(50));
    }
}
