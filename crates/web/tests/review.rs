//! `POST /api/review`: the page's analyses sent back with the game, and
//! the losses and mistakes by `tengen review`'s rule, against a real
//! server; bad analyses get a JSON error and the server goes on.

mod common;

use common::http::Client;
use serde_json::{json, Value};
use tengen_web::{spawn, ServerConfig};

/// An analysis as the page keeps it: the side to move's view.
fn analysis(
    perspective: &str,
    winrate: f64,
    lead: Option<f64>,
    candidates: &[(f64, f64)],
) -> Value {
    json!({
        "perspective": perspective,
        "winrate": winrate,
        "scoreLead": lead,
        "candidates": candidates
            .iter()
            .map(|&(w, l)| json!({"winrate": w, "scoreLead": l}))
            .collect::<Vec<_>>(),
    })
}

fn post(body: &Value) -> common::http::Response {
    let server = spawn(ServerConfig {
        port: 0,
        ..ServerConfig::default()
    })
    .expect("the server starts");
    Client::new(server.address)
        .post_json("/api/review", body)
        .expect("the server answers")
}

#[test]
fn losses_and_mistakes_follow_the_review_rule() {
    // Black leads by 2; Black's E5 keeps 2.5, White's C3 lets it grow to 6
    // (White lost 3.5), Black's G7 gives back 5 (Black lost 5); position 1
    // and 3 are White's to move, so their numbers are White's view.
    let body = json!({
        "board_size": 9,
        "moves": ["E5", "C3", "G7"],
        "analyses": [
            analysis("black", 0.6, Some(2.0), &[(0.61, 2.25), (0.5, 1.0)]),
            analysis("white", 0.38, Some(-2.5), &[(0.4, -2.25)]),
            analysis("black", 0.8, Some(6.0), &[]),
            analysis("white", 0.45, Some(-1.0), &[]),
        ],
    });
    let response = post(&body);
    assert_eq!(response.status, 200, "{}", response.text());
    let answer = response.json();
    assert_eq!(answer["unit"], "points");
    let losses: Vec<Value> = answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["loss"].clone())
        .collect();
    assert_eq!(losses, [json!(-0.5), json!(3.5), json!(5.0)]);
    assert_eq!(answer["moves"][1]["color"], "white");
    // Candidates against the position's own value, the mover's view.
    assert_eq!(answer["candidates"][0], json!([-0.25, 1.0]));
    assert_eq!(answer["candidates"][1], json!([-0.25]));
    assert_eq!(
        answer["mistakes"]["black"],
        json!([{"move": 3, "text": "G7", "loss": 5.0}])
    );
    assert_eq!(
        answer["mistakes"]["white"],
        json!([{"move": 2, "text": "C3", "loss": 3.5}])
    );
}

#[test]
fn holes_passes_and_bots_without_a_score() {
    // No score lead anywhere: win rate in percentage points. A hole
    // leaves the moves around it unknown; the two final passes are not
    // rated.
    let body = json!({
        "board_size": 9,
        "moves": ["E5", "C3", "pass", "pass"],
        "analyses": [
            analysis("black", 0.5, None, &[]),
            analysis("white", 0.3, None, &[]),
            null,
            analysis("white", 0.1, None, &[]),
        ],
    });
    let answer = post(&body).json();
    assert_eq!(answer["unit"], "percent");
    let moves = answer["moves"].as_array().unwrap();
    assert!((moves[0]["loss"].as_f64().unwrap() - -20.0).abs() < 1e-9);
    assert_eq!(moves[1]["loss"], Value::Null);
    assert_eq!(moves[3]["rated"], false);
    assert_eq!(moves[1]["rated"], true);
    assert_eq!(answer["candidates"][2], Value::Null);
    assert_eq!(answer["candidates"].as_array().unwrap().len(), 4);
    assert_eq!(answer["mistakes"], json!({"black": [], "white": []}));
}

#[test]
fn bad_analyses_are_refused_with_reasons() {
    let game = |analyses: Value| json!({"board_size": 9, "moves": ["E5"], "analyses": analyses});
    let cases = [
        (
            game(json!([analysis("white", 0.5, None, &[])])),
            "black is to move",
        ),
        (
            game(json!([analysis("red", 0.5, None, &[])])),
            "perspective",
        ),
        (
            game(json!([analysis("black", 1.5, None, &[])])),
            "between 0 and 1",
        ),
        (
            game(json!([analysis("black", 0.5, Some(1e9), &[])])),
            "not a lead",
        ),
        (
            game(json!([null, null, null])),
            "3 analyses for 2 positions",
        ),
        (json!({"board_size": 9, "moves": ["E5", "E5"]}), "illegal"),
        (game(json!("none")), "analyses"),
    ];
    for (body, part) in cases {
        let response = post(&body);
        assert_eq!(response.status / 100, 4, "{body}: {}", response.text());
        let message = response.json()["error"]
            .as_str()
            .unwrap_or("")
            .to_lowercase();
        assert!(
            message.contains(&part.to_lowercase()),
            "{body}: '{message}' lacks '{part}'"
        );
    }
}

#[test]
fn each_side_s_strength_is_estimated_from_enough_rated_moves() {
    // 60 moves on 9x9: Black loses nothing, White a point a move (its
    // lead drops by 1 after each White move, from Black's view rising).
    let columns = "ABCDEFGHJ";
    let mut moves = Vec::new();
    for row in 1..=7 {
        for column in columns.chars() {
            if moves.len() < 60 {
                moves.push(format!("{column}{row}"));
            }
        }
    }
    let mut analyses = Vec::new();
    let mut black_lead = 0.0;
    for t in 0..=moves.len() {
        let (perspective, lead) = if t % 2 == 0 {
            ("black", black_lead)
        } else {
            ("white", -black_lead)
        };
        analyses.push(analysis(perspective, 0.5, Some(lead), &[]));
        if t % 2 == 1 {
            black_lead += 1.0;
        }
    }
    let body = json!({"board_size": 9, "moves": moves, "analyses": analyses});
    let answer = post(&body).json();
    let white = &answer["strength"]["white"];
    let black = &answer["strength"]["black"];
    assert_eq!(white["moves"], 30, "{answer}");
    assert_eq!(white["mean_loss"], 1.0);
    assert_eq!(black["mean_loss"], 0.0);
    let kyu = |rank: &Value| {
        let text = rank.as_str().unwrap();
        let (number, kind) = text.split_at(text.len() - 1);
        let number: i32 = number.parse().unwrap();
        if kind == "k" {
            number
        } else {
            1 - number
        }
    };
    assert!(kyu(&white["rank"]) > kyu(&black["rank"]), "{answer}");
    // Without a score, or with few moves, no estimate.
    assert_eq!(
        post(&json!({"board_size": 9, "moves": ["E5"], "analyses": [analysis("black", 0.5, Some(1.0), &[]), analysis("white", 0.5, Some(-1.0), &[])]})).json()["strength"],
        json!({"black": null, "white": null})
    );
}
