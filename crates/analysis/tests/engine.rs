//! The analysis engine with the real network: agreement with KataGo's raw
//! network answers, self-consistent responses, bad input, terminate,
//! priorities, batching across queries and the end of the input.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::Value;
use tengen_katago::reference::read_answers;

fn reference_data(file: &str) -> String {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../katago/tests/data");
    std::fs::read_to_string(data.join(file)).unwrap()
}

/// `b Q16,w D4` as the query's moves.
fn moves_json(moves: &str) -> String {
    let moves: Vec<String> = moves
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(|m| {
            let (color, vertex) = m.split_once(' ').unwrap();
            format!("[\"{}\",\"{}\"]", color.to_ascii_uppercase(), vertex)
        })
        .collect();
    format!("[{}]", moves.join(","))
}

fn f(value: &Value) -> f64 {
    value
        .as_f64()
        .unwrap_or_else(|| panic!("{value} is not a number"))
}

/// With one visit the root is the network's answer: its win rate, lead and
/// policy equal KataGo's `kata-raw-nn 0` for the 30 reference positions
/// (symmetry 0 through `nnRandomize = false`, the history shown through
/// `ignorePreRootHistory = false`, KataGo's `chinese` rules), within the
/// tolerances of the network's own reference test.
#[test]
fn one_visit_answers_what_katago_answers() {
    let mut engine = common::start("nnRandomize=false", false);
    let positions = reference_data("positions.txt");
    let answers = read_answers(&reference_data("kata-raw-nn.txt"));
    let mut compared = 0;
    let mut worst = [0.0f64; 3];
    for (line, answer) in positions
        .lines()
        .filter(|l| !l.trim().is_empty())
        .zip(&answers)
    {
        let mut fields = line.splitn(3, '|');
        let name = fields.next().unwrap();
        assert_eq!(name, answer.name);
        let size: usize = fields.next().unwrap().parse().unwrap();
        let moves = moves_json(fields.next().unwrap_or(""));
        engine.send(&format!(
            r#"{{"id":"{name}","moves":{moves},"rules":"chinese","komi":7.5,"boardXSize":{size},"boardYSize":{size},"maxVisits":1,"includePolicy":true,"overrideSettings":{{"ignorePreRootHistory":false,"reportAnalysisWinratesAs":"WHITE"}}}}"#
        ));
        let response = engine.expect_final();
        assert_eq!(response["id"], name, "{response}");
        let root = &response["rootInfo"];
        assert_eq!(root["visits"], 1, "{name}");
        let mut check = |what: &str, slot: usize, ours: f64, theirs: f64, tolerance: f64| {
            let diff = (ours - theirs).abs();
            worst[slot] = worst[slot].max(diff);
            assert!(
                diff <= tolerance,
                "{name}: {what} is {ours}, KataGo says {theirs}"
            );
        };
        let winrate = 0.5 * (1.0 + answer.value("whiteWin") - answer.value("whiteLoss"));
        check("winrate", 0, f(&root["winrate"]), winrate, 0.005);
        check("rawWinrate", 0, f(&root["rawWinrate"]), winrate, 0.005);
        check(
            "scoreLead",
            1,
            f(&root["scoreLead"]),
            answer.value("whiteLead"),
            0.05,
        );
        let policy = response["policy"].as_array().expect("a policy");
        assert_eq!(policy.len(), size * size + 1, "{name}");
        for (i, theirs) in answer.policy.iter().enumerate() {
            let ours = f(&policy[i]);
            match theirs {
                None => assert_eq!(ours, -1.0, "{name}: point {i} is illegal for KataGo"),
                Some(theirs) => check("policy", 2, ours, *theirs, 0.005),
            }
        }
        check(
            "pass",
            2,
            f(&policy[size * size]),
            answer.pass.unwrap(),
            0.005,
        );
        compared += 1;
    }
    assert_eq!(compared, 30);
    eprintln!(
        "largest differences: win rate {:.2e}, lead {:.2e}, policy {:.2e}",
        worst[0], worst[1], worst[2]
    );
}

/// Every field of a searched position agrees with the others: visits add
/// up, `order` is the ranking, each `pv` starts with its move and its
/// visits fall along it, the bounds are below the values, the policy is a
/// distribution, the ownership in range.
#[test]
fn responses_are_self_consistent() {
    let mut engine = common::start("", false);
    for (size, moves, visits) in [
        (9, "b E5,w C3,b G7,w C7", 60),
        (19, "b Q16,w D4,b Q3,w D16,b R5", 40),
        (13, "", 30),
    ] {
        engine.send(&format!(
            r#"{{"id":"s{size}","moves":{},"rules":"japanese","komi":6.5,"boardXSize":{size},"boardYSize":{size},"maxVisits":{visits},"includePolicy":true,"includeOwnership":true,"includeOwnershipStdev":true,"includeMovesOwnership":true,"includePVVisits":true,"overrideSettings":{{"reportAnalysisWinratesAs":"SIDETOMOVE"}}}}"#,
            moves_json(moves)
        ));
        let mut response = engine.expect_final();
        while response.get("warning").is_some() {
            assert_eq!(response["field"], "rules", "{response}");
            response = engine.expect_final();
        }
        let infos = response["moveInfos"].as_array().expect("moveInfos");
        assert!(!infos.is_empty());
        let root = &response["rootInfo"];
        let root_visits = root["visits"].as_u64().unwrap();
        assert_eq!(root_visits, visits, "the visit limit is reached");
        // Copies under the root's symmetries repeat a move searched.
        let child_visits: u64 = infos
            .iter()
            .filter(|i| i.get("isSymmetryOf").is_none())
            .map(|i| i["visits"].as_u64().unwrap())
            .sum();
        assert_eq!(
            child_visits + 1,
            root_visits,
            "the root's own visit plus its children's"
        );
        let points = size * size;
        let mut seen = std::collections::HashSet::new();
        for (k, info) in infos.iter().enumerate() {
            assert_eq!(info["order"], k, "order is the ranking");
            let mv = info["move"].as_str().unwrap();
            assert!(seen.insert(mv.to_string()), "{mv} twice");
            assert_eq!(info["edgeVisits"], info["visits"]);
            let pv = info["pv"].as_array().unwrap();
            assert_eq!(pv[0], mv, "the pv starts with the move");
            let pv_visits = info["pvVisits"].as_array().unwrap();
            assert_eq!(pv_visits.len(), pv.len());
            assert_eq!(pv_visits[0], info["visits"]);
            assert!(pv_visits.windows(2).all(|w| w[0].as_u64() >= w[1].as_u64()));
            let winrate = f(&info["winrate"]);
            assert!((0.0..=1.0).contains(&winrate));
            assert!(f(&info["lcb"]) <= winrate + 1e-9, "{info}");
            assert!(
                f(&info["utilityLcb"]) <= f(&info["utility"]) + 1e-9,
                "{info}"
            );
            assert!(f(&info["scoreStdev"]) >= 0.0);
            assert!(f(&info["weight"]) > 0.0);
            assert!((0.0..=1.0).contains(&f(&info["prior"])));
            let own = info["ownership"].as_array().unwrap();
            assert_eq!(own.len(), points);
        }
        // The first in order is the one chosen by the bound (or the most
        // visited): no move with enough visits has a higher bound.
        let most = infos
            .iter()
            .map(|i| i["visits"].as_u64().unwrap())
            .max()
            .unwrap();
        let best_bound = f(&infos[0]["utilityLcb"]);
        for info in infos {
            if info["visits"].as_u64().unwrap() as f64 >= 0.15 * most as f64 {
                assert!(f(&info["utilityLcb"]) <= best_bound + 1e-9, "{info}");
            }
        }
        let policy = response["policy"].as_array().unwrap();
        assert_eq!(policy.len(), points + 1);
        let total: f64 = policy.iter().map(f).filter(|p| *p >= 0.0).sum();
        assert!((total - 1.0).abs() < 1e-3, "policy sums to {total}");
        let ownership = response["ownership"].as_array().unwrap();
        assert_eq!(ownership.len(), points);
        assert!(ownership.iter().map(f).all(|o| (-1.0..=1.0).contains(&o)));
        let stdev = response["ownershipStdev"].as_array().unwrap();
        assert_eq!(stdev.len(), points);
        assert!(stdev.iter().map(f).all(|s| (0.0..=1.0).contains(&s)));
        let winrate = f(&root["winrate"]);
        assert!((0.0..=1.0).contains(&winrate));
    }
}

/// Each bad query gets KataGo's error shape naming the field at fault (or
/// a general error), and the engine goes on serving: a good query after
/// each is answered.
#[test]
fn bad_queries_get_errors_and_the_engine_keeps_serving() {
    let mut engine = common::start("", false);
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/bad-queries.txt");
    let text = std::fs::read_to_string(data).unwrap();
    let mut cases = 0;
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (field, query) = line.split_once('\t').unwrap();
        engine.send(query);
        let response = engine.expect();
        assert!(response.get("error").is_some(), "{query}: {response}");
        assert!(!response["error"].as_str().unwrap().is_empty());
        if field == "-" {
            assert!(response.get("field").is_none(), "{query}: {response}");
        } else {
            assert_eq!(response["field"], field, "{query}: {response}");
        }
        engine.send(r#"{"id":"after","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":1}"#);
        let after = engine.expect_final();
        assert_eq!(after["id"], "after", "still serving after {query}: {after}");
        assert_eq!(after["rootInfo"]["visits"], 1);
        cases += 1;
    }
    assert!(cases >= 40, "{cases} cases");
}

/// Terminating a search of a billion visits ends it with what it has (the
/// final response, `isDuringSearch` false, far short of its visit limit),
/// acknowledged by the echo of the action. How soon is a latency, measured
/// by `cargo run --release -p tengen-analysis --example stop_latency`.
#[test]
fn terminate_stops_a_search() {
    let mut engine = common::start("", false);
    let mut delays = Vec::new();
    for k in 0..3 {
        engine.send(&format!(
            r#"{{"id":"long{k}","moves":[["B","Q16"],["W","D4"]],"rules":"chinese","boardXSize":19,"boardYSize":19,"maxVisits":1000000000,"reportDuringSearchEvery":0.05}}"#
        ));
        // The search is under way once it reports.
        let report = engine.expect();
        assert_eq!(report["isDuringSearch"], true, "{report}");
        let sent = Instant::now();
        engine.send(&format!(
            r#"{{"id":"stop{k}","action":"terminate","terminateId":"long{k}"}}"#
        ));
        let mut acknowledged = false;
        loop {
            let response = engine.expect();
            if response["action"] == "terminate" {
                assert_eq!(response["terminateId"], format!("long{k}"));
                acknowledged = true;
                continue;
            }
            if response["isDuringSearch"] == false {
                assert_eq!(response["id"], format!("long{k}"));
                let visits = response["rootInfo"]["visits"].as_u64().unwrap();
                assert!((1..1_000_000_000).contains(&visits), "{visits} visits");
                delays.push(sent.elapsed());
                break;
            }
        }
        if !acknowledged {
            let ack = engine.expect();
            assert_eq!(ack["action"], "terminate", "{ack}");
        }
    }
    eprintln!("terminate to final response: {delays:?}");
}

/// Ten thousand queued queries: one search runs, the rest wait; a
/// terminate_all answers every one (`noResults` for those that never
/// started), and the engine serves on.
#[test]
fn ten_thousand_queued_queries_are_all_answered() {
    let mut engine = common::start("numAnalysisThreads=1", false);
    engine.send(r#"{"id":"busy","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":1000000000}"#);
    for k in 0..10_000 {
        engine.send(&format!(
            r#"{{"id":"q{k}","moves":[["B","E5"]],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":100}}"#
        ));
    }
    engine.send(r#"{"id":"all","action":"terminate_all"}"#);
    let mut finals = std::collections::HashSet::new();
    let mut no_results = 0;
    let mut acknowledged = false;
    while finals.len() < 10_001 || !acknowledged {
        let response = engine.expect();
        if response["action"] == "terminate_all" {
            acknowledged = true;
            continue;
        }
        assert_ne!(response["isDuringSearch"], true);
        let id = response["id"].as_str().unwrap().to_string();
        if response["noResults"] == true {
            no_results += 1;
        }
        assert!(finals.insert(id.clone()), "{id} answered twice");
    }
    assert!(no_results >= 9_000, "{no_results} never started");
    engine.send(r#"{"id":"later","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":2}"#);
    assert_eq!(engine.expect_final()["id"], "later");
}

/// Turns of a query are served by priority (the highest first, ties in
/// order), one final response each.
#[test]
fn priorities_order_the_work() {
    let mut engine = common::start("numAnalysisThreads=1", false);
    engine.send(r#"{"id":"p","moves":[["B","E5"],["W","C3"],["B","G7"],["W","C7"]],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":4,"analyzeTurns":[0,1,2,3,4],"priorities":[1,5,3,5,-2]}"#);
    let turns: Vec<u64> = (0..5)
        .map(|_| engine.expect_final()["turnNumber"].as_u64().unwrap())
        .collect();
    // The first turn may start before the others are queued.
    let rest: Vec<u64> = turns.iter().copied().filter(|&t| t != turns[0]).collect();
    let mut expected: Vec<u64> = vec![1, 3, 2, 0, 4];
    expected.retain(|&t| t != turns[0]);
    assert_eq!(rest, expected, "served in the order {turns:?}");
}

/// Searches of several queries at once share the network's forward
/// passes: the same work on four analysis threads runs in larger batches
/// than on one.
#[test]
fn queries_share_batches() {
    let mean_batch = |threads: usize| {
        let mut engine = common::start(
            &format!("numAnalysisThreads={threads},nnCacheSizePowerOfTwo=0"),
            false,
        );
        for k in 0..8 {
            engine.send(&format!(
                r#"{{"id":"b{k}","moves":[["B","E5"],["W","{}"]],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":32}}"#,
                ["C3", "C7", "G3", "G7", "D4", "F6", "D6", "F4"][k]
            ));
        }
        for _ in 0..8 {
            engine.expect_final();
        }
        let (batches, positions) = engine.engine.batches_and_positions();
        positions as f64 / batches as f64
    };
    let one = mean_batch(1);
    let four = mean_batch(4);
    eprintln!(
        "mean positions per forward pass: {one:.2} on one analysis thread, {four:.2} on four"
    );
    assert!(four > 1.5 * one, "one thread {one:.2}, four {four:.2}");
}

/// When the input ends the queued work is finished and the engine
/// returns; with `quit_without_waiting` a long search is cut short.
#[test]
fn the_end_of_the_input_finishes_or_stops_the_work() {
    let mut engine = common::start("numAnalysisThreads=1", false);
    for k in 0..3 {
        engine.send(&format!(
            r#"{{"id":"w{k}","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":8}}"#
        ));
    }
    assert!(engine.close(common::answer_guard()), "the engine returned");
    let ids: Vec<String> = engine
        .drain()
        .iter()
        .filter(|r| r["isDuringSearch"] == false)
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids, ["w0", "w1", "w2"]);
    assert!(engine.drain().is_empty());

    let mut engine = common::start("", true);
    engine.send(r#"{"id":"forever","moves":[],"rules":"chinese","boardXSize":19,"boardYSize":19,"maxVisits":1000000000,"reportDuringSearchEvery":0.05}"#);
    assert_eq!(engine.expect()["isDuringSearch"], true);
    let start = Instant::now();
    assert!(engine.close(common::answer_guard()), "the engine returned");
    eprintln!(
        "the engine returned {:?} after its input ended",
        start.elapsed()
    );
    let finals: Vec<Value> = engine
        .drain()
        .into_iter()
        .filter(|r| r["isDuringSearch"] == false)
        .collect();
    assert_eq!(finals.len(), 1);
    assert_eq!(finals[0]["id"], "forever");
}

/// The queries KaTrain 1.20.0 sent KataGo 1.17.2 (recorded in
/// `clients/katrain/captured-queries.jsonl`, with KataGo's answers): each
/// is analysed (at two visits, without its time limit and reports), and
/// every field of KataGo's answer is in tengen's — top level, `rootInfo`
/// and each move — but those tengen documents it does not send.
#[test]
fn katrain_queries_get_every_field_katago_gives() {
    const NOT_SENT: [&str; 4] = ["thisHash", "symHash", "playSelectionValue", "isSymmetryOf"];
    let clients = Path::new(env!("CARGO_MANIFEST_DIR")).join("clients/katrain");
    let read = |file: &str| -> Vec<Value> {
        std::fs::read_to_string(clients.join(file))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let queries = read("captured-queries.jsonl");
    let answers = read("captured-responses.jsonl");
    let mut engine = common::start("", false);
    let keys = |v: &Value| -> Vec<String> {
        v.as_object()
            .map(|o| {
                o.keys()
                    .filter(|k| !NOT_SENT.contains(&k.as_str()))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    };
    let mut compared = 0;
    for query in queries.iter().filter(|q| q.get("action").is_none()) {
        let id = query["id"].as_str().unwrap();
        let Some(theirs) = answers.iter().find(|a| {
            a["id"] == id && a["isDuringSearch"] == false && a.get("moveInfos").is_some()
        }) else {
            continue;
        };
        let mut query = query.clone();
        let object = query.as_object_mut().unwrap();
        object.insert("maxVisits".into(), Value::from(2));
        object.remove("reportDuringSearchEvery");
        if let Some(settings) = object
            .get_mut("overrideSettings")
            .and_then(Value::as_object_mut)
        {
            settings.remove("maxTime");
        }
        engine.send(&query.to_string());
        let ours = loop {
            let response = engine.expect_final();
            assert!(response.get("error").is_none(), "{id}: {response}");
            if response.get("warning").is_some() {
                continue;
            }
            break response;
        };
        assert_eq!(ours["id"], id);
        let missing = |what: &str, theirs: &Value, ours: &Value| {
            let ours = keys(ours);
            for key in keys(theirs) {
                assert!(ours.contains(&key), "{id}: {what} lacks {key}");
            }
        };
        missing("the response", theirs, &ours);
        missing("rootInfo", &theirs["rootInfo"], &ours["rootInfo"]);
        missing("a move", &theirs["moveInfos"][0], &ours["moveInfos"][0]);
        assert_eq!(
            ours["policy"].as_array().map(Vec::len),
            theirs["policy"].as_array().map(Vec::len)
        );
        assert_eq!(
            ours["ownership"].as_array().map(Vec::len),
            theirs["ownership"].as_array().map(Vec::len)
        );
        compared += 1;
    }
    assert!(compared >= 10, "{compared} queries compared");
}

/// A record ending in two passes, or going on after them, is analysed at
/// every turn, the last included, as KataGo analyses it: GUIs ask for the
/// final position of every finished game.
#[test]
fn positions_after_both_players_passed_are_analysed() {
    let mut engine = common::start("", false);
    engine.send(r#"{"id":"passed","moves":[["B","E5"],["W","C3"],["B","pass"],["W","pass"],["B","G7"]],"rules":"chinese","komi":7,"boardXSize":9,"boardYSize":9,"maxVisits":3,"analyzeTurns":[4,5]}"#);
    let mut turns = Vec::new();
    for _ in 0..2 {
        let response = engine.expect_final();
        assert!(response.get("error").is_none(), "{response}");
        assert!(response.get("noResults").is_none(), "{response}");
        assert!(
            !response["moveInfos"].as_array().unwrap().is_empty(),
            "{response}"
        );
        assert_eq!(response["rootInfo"]["visits"], 3);
        turns.push(response["turnNumber"].as_u64().unwrap());
    }
    turns.sort_unstable();
    assert_eq!(turns, [4, 5]);
}

/// Against a mirroring opponent, `antiMirror` makes the search break the
/// mirror: on a 13×13 board where White has answered fourteen moves with
/// their reflections, the centre gets a good share of the visits with it
/// and more than without it.
#[test]
fn anti_mirror_breaks_the_mirror() {
    let size = 13;
    let black = [
        "C3", "D3", "E3", "F3", "H3", "J3", "K3", "L3", "C2", "E2", "G2", "J2", "L2", "G3",
    ];
    let mirror = |vertex: &str| {
        let columns = "ABCDEFGHJKLMN";
        let col = columns.find(&vertex[..1]).unwrap();
        let row: usize = vertex[1..].parse().unwrap();
        format!("{}{}", &columns[size - 1 - col..size - col], size + 1 - row)
    };
    let moves: Vec<String> = black
        .iter()
        .flat_map(|b| {
            [
                format!("[\"B\",\"{b}\"]"),
                format!("[\"W\",\"{}\"]", mirror(b)),
            ]
        })
        .collect();
    let mut engine = common::start("numAnalysisThreads=1", false);
    let mut center_share = |anti: bool| {
        engine.send(&format!(
            r#"{{"id":"m{anti}","moves":[{}],"rules":"chinese","komi":7.5,"boardXSize":13,"boardYSize":13,"maxVisits":120,"overrideSettings":{{"antiMirror":{anti}}}}}"#,
            moves.join(",")
        ));
        let response = engine.expect_final();
        assert!(response.get("error").is_none(), "{response}");
        assert!(response.get("warning").is_none(), "{response}");
        let root = response["rootInfo"]["visits"].as_u64().unwrap() as f64;
        let center: u64 = response["moveInfos"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["move"] == "G7")
            .map(|i| i["visits"].as_u64().unwrap())
            .sum();
        center as f64 / root
    };
    let with = center_share(true);
    let without = center_share(false);
    eprintln!(
        "share of the root's visits on the centre: {with:.3} with antiMirror, {without:.3} without"
    );
    assert!(with >= 0.06, "{with}");
    assert!(with > without, "with {with}, without {without}");
}

/// The search settings a query sets take effect: wide root noise and a
/// root policy temperature spread the visits over more moves, a playout
/// doubling advantage moves the network's own win rate its way, `maxTime`
/// ends a search of a billion visits, and the point of view flips the
/// values.
#[test]
fn search_settings_in_queries_take_effect() {
    // The position (E5, C3) is symmetric about the diagonal: without root
    // symmetry pruning every move is searched, so the spread is all the
    // settings'.
    let mut engine = common::start(
        "nnRandomize=false,numAnalysisThreads=1,rootSymmetryPruning=false",
        false,
    );
    let mut ask = |settings: &str| -> Value {
        engine.send(&format!(
            r#"{{"id":"s","moves":[["B","E5"],["W","C3"]],"rules":"chinese","komi":7,"boardXSize":9,"boardYSize":9,"maxVisits":80,"overrideSettings":{{{settings}}}}}"#
        ));
        let response = engine.expect_final();
        assert!(
            response.get("error").is_none() && response.get("warning").is_none(),
            "{response}"
        );
        response
    };
    let moves = |r: &Value| r["moveInfos"].as_array().unwrap().len();
    let plain = ask(r#""reportAnalysisWinratesAs":"BLACK""#);
    let wide = ask(r#""wideRootNoise":1.0"#);
    let tempered = ask(r#""rootPolicyTemperature":4.0"#);
    assert!(
        moves(&wide) > moves(&plain),
        "{} moves against {}",
        moves(&wide),
        moves(&plain)
    );
    assert!(
        moves(&tempered) > moves(&plain),
        "{} moves against {}",
        moves(&tempered),
        moves(&plain)
    );
    let raw = |r: &Value| f(&r["rootInfo"]["rawWinrate"]);
    let ahead = ask(r#""playoutDoublingAdvantage":2.0,"reportAnalysisWinratesAs":"SIDETOMOVE""#);
    let behind = ask(r#""playoutDoublingAdvantage":-2.0,"reportAnalysisWinratesAs":"SIDETOMOVE""#);
    assert!(
        raw(&ahead) > raw(&behind) + 0.01,
        "{} against {}",
        raw(&ahead),
        raw(&behind)
    );
    let as_white = ask(r#""reportAnalysisWinratesAs":"WHITE""#);
    assert!((raw(&plain) + raw(&as_white) - 1.0).abs() < 1e-4);
    assert!((f(&plain["rootInfo"]["rawLead"]) + f(&as_white["rootInfo"]["rawLead"])).abs() < 1e-3);
    engine.send(r#"{"id":"t","moves":[],"rules":"chinese","boardXSize":9,"boardYSize":9,"maxVisits":1000000000,"overrideSettings":{"maxTime":0.5}}"#);
    let start = Instant::now();
    let timed = engine.expect_final();
    // Ended by its time, not by its visit limit, whatever count of visits
    // the machine managed in it.
    assert!(
        start.elapsed() >= Duration::from_millis(500),
        "{:?}",
        start.elapsed()
    );
    let visits = timed["rootInfo"]["visits"].as_u64().unwrap();
    assert!((1..1_000_000_000).contains(&visits), "{visits} visits");
}
