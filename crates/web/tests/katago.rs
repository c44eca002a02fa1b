//! The `katago` bot over real HTTP: a server given a KataGo network (the one
//! the PyPI package katrain 1.20.0 ships, fetched by `scripts/katago-model`
//! and cached under `target/katago/`) offers it and plays legal moves with
//! the server's budget; a server without one neither lists nor plays it; and
//! no client can make the server open a model file.

mod common;

use tengen_katago::reference::model_path;

use common::http::{Client, Response};
use serde_json::{json, Value};
use tengen_core::{BoardSize, Game, Rules};
use tengen_web::{spawn, AppState, KataGoModel, Limits, ServerConfig, ServerHandle, SizeRange};

/// Limits that keep every search tiny: at most 4 visits a move.
fn small_limits() -> Limits {
    Limits {
        max_playouts: 4,
        max_threads: 2,
        ..Limits::default()
    }
}

fn server(katago: Option<KataGoModel>) -> ServerHandle {
    spawn(ServerConfig {
        port: 0,
        limits: small_limits(),
        katago,
        ..ServerConfig::default()
    })
    .expect("the server starts")
}

fn server_with_model() -> ServerHandle {
    let model = KataGoModel::load(model_path(), 2, tengen_katago::forward::Precision::F32)
        .expect("the network loads");
    server(Some(model))
}

fn bot_names(client: &mut Client) -> Vec<String> {
    client.get("/api/bots").unwrap().json()["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|bot| bot["name"].as_str().unwrap().to_string())
        .collect()
}

#[track_caller]
fn assert_error(response: &Response, status: u16, part: &str) {
    assert_eq!(response.status, status, "body: {}", response.text());
    let message = response.json()["error"]
        .as_str()
        .expect("an error message")
        .to_string();
    assert!(
        message.contains(part),
        "'{message}' does not mention '{part}'"
    );
}

fn replay(size: usize, moves: &[&str]) -> Game {
    let size = BoardSize::square(size).unwrap();
    let mut game = Game::new(size, Rules::default());
    for mv in moves {
        game.play(size.parse_gtp(mv).unwrap()).unwrap();
    }
    game
}

/// Asks the server's katago bot for a move and checks it is legal; returns
/// the answer.
fn legal_move(client: &mut Client, bot: &str, size: usize, moves: &[&str], budget: Value) -> Value {
    let mut request = json!({"board_size": size, "moves": moves, "seed": 3});
    if !budget.is_null() {
        request["budget"] = budget;
    }
    let response = client
        .post_json(&format!("/select-move/{bot}"), &request)
        .unwrap();
    assert_eq!(response.status, 200, "{size}x{size}: {}", response.text());
    let body = response.json();
    let bot_move = body["bot_move"].as_str().unwrap();
    let game = replay(size, moves);
    let mv = game
        .size()
        .parse_gtp(bot_move)
        .unwrap_or_else(|e| panic!("{size}x{size}: '{bot_move}': {e}"));
    assert_eq!(game.legal(mv), Ok(()), "{size}x{size}: {bot_move}");
    body
}

#[test]
fn a_server_with_a_network_offers_katago_and_plays_legal_moves() {
    let server = server_with_model();
    let mut client = Client::new(server.address);

    let listing = client.get("/api/bots").unwrap().json();
    let names = bot_names(&mut client);
    assert_eq!(names.iter().filter(|name| *name == "katago").count(), 1);
    let katago = listing["bots"]
        .as_array()
        .unwrap()
        .iter()
        .find(|bot| bot["name"] == "katago")
        .unwrap();
    let description = katago["description"].as_str().unwrap();
    assert!(description.contains("KataGo network"), "{description}");
    assert!(description.contains("b10c384h6nbttflrs"), "{description}");
    let options: Vec<&str> = katago["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|option| option["name"].as_str().unwrap())
        .collect();
    assert!(options.contains(&"visits"), "{options:?}");
    assert!(!options.contains(&"model"), "{options:?}");
    assert!(!options.contains(&"threads"), "{options:?}");

    // The request's budget becomes the bot's visits.
    let body = legal_move(
        &mut client,
        "katago",
        9,
        &["E5", "C3"],
        json!({"playouts": 2}),
    );
    let diagnostics = &body["diagnostics"];
    assert_eq!(diagnostics["color"], "black");
    assert_eq!(diagnostics["budget"]["playouts"], 2);
    let spec = diagnostics["bot"].as_str().unwrap();
    assert!(spec.starts_with("katago:visits=2,time="), "{spec}");
    // The server's file is never shown to clients.
    assert!(!spec.contains("model"), "{spec}");
    let analysis = &diagnostics["analysis"];
    assert!(analysis["playouts"].as_u64().unwrap() >= 1, "{analysis}");
    let winrate = analysis["winrate"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&winrate), "{winrate}");
    assert!(!analysis["candidates"].as_array().unwrap().is_empty());
    assert_eq!(analysis["ownership"].as_array().unwrap().len(), 81);

    // Without a budget the server's own applies: its max_playouts here.
    let body = legal_move(&mut client, "katago", 19, &["Q16"], Value::Null);
    let spec = body["diagnostics"]["bot"].as_str().unwrap();
    assert!(spec.starts_with("katago:visits=4,time="), "{spec}");
    assert_eq!(
        body["diagnostics"]["analysis"]["ownership"]
            .as_array()
            .unwrap()
            .len(),
        361
    );

    // Small and odd boards too.
    legal_move(&mut client, "katago", 2, &[], json!({"playouts": 1}));
    legal_move(&mut client, "katago", 7, &["D4"], json!({"playouts": 1}));
    // Settings of the search a client may choose.
    legal_move(&mut client, "katago:batch=1,visits=3", 9, &[], Value::Null);
    // A time instead of visits, within the server's cap.
    let body = legal_move(&mut client, "katago", 9, &[], json!({"seconds": 0.2}));
    assert_eq!(body["diagnostics"]["bot"], "katago:time=200ms");
    // A search given visits plans to stop by max_think too (a longer time
    // is refused by the budget).
    let body = legal_move(&mut client, "katago:visits=1", 9, &[], Value::Null);
    assert_eq!(body["diagnostics"]["bot"], "katago:visits=1,time=10s");
}

#[test]
fn clients_cannot_choose_the_model_or_exceed_the_budget() {
    let server = server_with_model();
    let mut client = Client::new(server.address);
    let request = json!({"board_size": 9, "moves": []});
    // As a client sends it: the path's slashes encoded.
    let model = model_path().display().to_string().replace('/', "%2F");
    for bot in [
        format!("katago:model={model}"),
        "katago:model=%2Fetc%2Fpasswd".to_string(),
        "katago:model=builtin".to_string(),
    ] {
        let response = client
            .post_json(&format!("/select-move/{bot}"), &request)
            .unwrap();
        assert_error(&response, 400, "cannot choose a model file");
    }
    // Nor through the other bots that take a model.
    let response = client
        .post_json(&format!("/select-move/mcts:network={model}"), &request)
        .unwrap();
    assert_error(&response, 400, "only network=builtin");
    let response = client
        .post_json("/select-move/katago:threads=2", &request)
        .unwrap();
    assert_error(&response, 400, "threads");
    let response = client
        .post_json("/select-move/katago:reuse=false", &request)
        .unwrap();
    assert_error(&response, 400, "no option 'reuse'");
    let response = client
        .post_json(
            "/select-move/katago",
            &json!({"board_size": 9, "moves": [], "budget": {"playouts": 5}}),
        )
        .unwrap();
    assert_error(&response, 400, "1 to 4");
    let response = client
        .post_json("/select-move/katago:visits=1000", &request)
        .unwrap();
    assert_error(&response, 400, "1000 visits");
    let response = client
        .post_json("/select-move/katago:time=1h", &request)
        .unwrap();
    assert_error(&response, 400, "out of range");
}

#[test]
fn a_server_without_a_network_neither_lists_nor_plays_katago() {
    let server = server(None);
    let mut client = Client::new(server.address);
    let names = bot_names(&mut client);
    assert!(!names.iter().any(|name| name == "katago"), "{names:?}");
    assert!(names.iter().any(|name| name == "mcts"), "{names:?}");
    let request = json!({"board_size": 9, "moves": []});
    for bot in [
        "katago".to_string(),
        "katago:visits=1".to_string(),
        format!(
            "katago:model={}",
            model_path().display().to_string().replace('/', "%2F")
        ),
    ] {
        let response = client
            .post_json(&format!("/select-move/{bot}"), &request)
            .unwrap();
        assert_error(&response, 404, "started with --model PATH");
    }
}

#[test]
fn networks_that_cannot_be_read_are_refused_when_loading() {
    let dir = std::env::temp_dir().join(format!("tengen-web-katago-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = dir.join("notes.bin.gz");
    std::fs::write(&text, "not a network").unwrap();
    for (path, reason) in [
        (dir.join("missing.bin.gz"), "cannot read it"),
        (dir.clone(), "is a directory"),
        (text, "not a KataGo model"),
    ] {
        let error = KataGoModel::load(&path, 1, tengen_katago::forward::Precision::F32)
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with(&format!(
                "cannot serve the KataGo network '{}'",
                path.display()
            )),
            "{error}"
        );
        assert!(error.contains(reason), "{error}");
        assert!(!error.contains('\n'), "{error}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_network_plays_every_side_up_to_25() {
    let model = KataGoModel::load(model_path(), 1, tengen_katago::forward::Precision::F32)
        .expect("the network loads");
    let state = AppState::from_config(ServerConfig {
        katago: Some(model),
        ..ServerConfig::default()
    });
    assert_eq!(state.sizes("katago"), Some(SizeRange { min: 1, max: 25 }));
}

#[test]
fn the_network_analyses_positions_with_its_score_lead() {
    let server = server_with_model();
    let mut client = Client::new(server.address);
    let analyse = |client: &mut Client, moves: &[&str]| {
        let response = client
            .post_json(
                "/api/analyse/katago",
                &json!({"board_size": 9, "moves": moves, "budget": {"playouts": 4}, "seed": 1}),
            )
            .unwrap();
        assert_eq!(response.status, 200, "{}", response.text());
        response.json()
    };
    let body = analyse(&mut client, &["E5", "C3"]);
    assert!(body.get("bot_move").is_none(), "{body}");
    assert_eq!(body["target_visits"], 4);
    let analysis = &body["analysis"];
    assert_eq!(analysis["perspective"], "black");
    assert!(analysis["playouts"].as_u64().unwrap() >= 4, "{analysis}");
    let lead = analysis["scoreLead"].as_f64().expect("a root score lead");
    // Black, a stone up in the centre on 9x9 with 7.5 komi: a few points either way.
    assert!(lead.abs() < 30.0, "{lead}");
    let candidates = analysis["candidates"].as_array().unwrap();
    assert!(!candidates.is_empty());
    let game = replay(9, &["E5", "C3"]);
    for candidate in candidates {
        assert!(candidate["scoreLead"].is_number(), "{candidate}");
        let mv = game
            .size()
            .parse_gtp(candidate["move"].as_str().unwrap())
            .unwrap();
        assert_eq!(game.legal(mv), Ok(()), "{candidate}");
    }

    // After a pass White is to move on the same board: White's view.
    let white = analyse(&mut client, &["E5", "C3", "pass"]);
    assert_eq!(white["analysis"]["perspective"], "white");
    assert!(white["analysis"]["scoreLead"].is_number());

    // A game over after two passes is still analysed.
    let over = analyse(&mut client, &["E5", "pass", "pass"]);
    assert!(!over["analysis"]["candidates"]
        .as_array()
        .unwrap()
        .is_empty());

    // The select-move answer carries the score lead too.
    let body = legal_move(&mut client, "katago", 9, &["E5"], json!({"playouts": 2}));
    let analysis = &body["diagnostics"]["analysis"];
    assert_eq!(analysis["perspective"], "white");
    assert!(analysis["scoreLead"].is_number(), "{analysis}");
    assert!(
        analysis["candidates"][0]["scoreLead"].is_number(),
        "{analysis}"
    );
}
