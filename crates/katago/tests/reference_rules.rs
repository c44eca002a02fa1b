//! tengen's evaluation of KataGo's network against KataGo's own
//! `kata-raw-nn 0` answers under every rule set KataGo names, not only
//! Chinese: 32 positions of `tests/data/rules-positions.txt`, each with its
//! rules, komi and fixed handicap, among them seki, passes at the end of a
//! game, the start of the cleanup phase that KataGo's search plays after
//! them under territory scoring (names ending in `:cleanup`, evaluated with
//! `InputOptions::cleanup_after_passes`), and a handicap game
//! (tests/data/README.md). The inputs that the
//! rules change (komi with the handicap bonus and the territory parity,
//! ko, suicide, scoring, tax, button, the passes, the area features) must
//! give KataGo's outputs within the tolerances of `reference.rs`.
//!
//! The network comes from the PyPI package katrain 1.20.0 through
//! `scripts/katago-model`, cached under `target/katago/`.

use std::path::Path;
use tengen_katago::reference::{model_path, read_answers, RawAnswer};

use tengen_core::{fixed_handicap_points, BoardSize, Color, Game, Move, Rules};
use tengen_katago::network::{EvalOptions, Network, Symmetries};
use tengen_katago::output::Evaluation;

/// One line of `rules-positions.txt`: `NAME|SIZE|RULES|KOMI|HANDICAP|MOVES`.
struct Position {
    name: String,
    size: usize,
    rules: String,
    komi: f64,
    handicap: usize,
    moves: String,
}

fn positions() -> Vec<Position> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    std::fs::read_to_string(data.join("rules-positions.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.splitn(6, '|').collect();
            assert_eq!(fields.len(), 6, "malformed line {line}");
            Position {
                name: fields[0].to_string(),
                size: fields[1].parse().unwrap(),
                rules: fields[2].to_string(),
                komi: fields[3].parse().unwrap(),
                handicap: fields[4].parse().unwrap(),
                moves: fields[5].to_string(),
            }
        })
        .collect()
}

fn game_of(p: &Position) -> Game {
    let size = BoardSize::square(p.size).unwrap();
    let rules = Rules::preset(&p.rules)
        .unwrap_or_else(|| panic!("{}: no preset {}", p.name, p.rules))
        .with_komi(p.komi);
    let mut game = Game::with_handicap(size, rules, p.handicap)
        .unwrap_or_else(|e| panic!("{}: handicap {}: {e:?}", p.name, p.handicap));
    for mv in p.moves.split(',').filter(|m| !m.trim().is_empty()) {
        let (color, vertex) = mv.trim().split_once(' ').unwrap();
        let color = if color == "b" {
            Color::Black
        } else {
            Color::White
        };
        let point = size.parse_gtp(vertex).unwrap();
        game.play_as(color, point)
            .unwrap_or_else(|e| panic!("{}: {mv} refused: {e}", p.name));
    }
    game
}

/// The outputs compared, their tolerances (those of `reference.rs`; no
/// result as win and loss, the self-play score as the lead).
const OUTPUTS: [(&str, f64); 7] = [
    ("policy", 0.005),
    ("policyPass", 0.005),
    ("whiteWin/Loss", 0.005),
    ("noResult", 0.005),
    ("whiteLead", 0.05),
    ("whiteScoreSelfplay", 0.05),
    ("ownership", 0.01),
];

/// The largest difference of each output of [`OUTPUTS`] from KataGo's
/// answer, and the points (or `pass`) legal on one side only, as
/// `(legal for KataGo only, legal here only)`.
fn differences(
    size: usize,
    got: &Evaluation,
    exp: &RawAnswer,
) -> ([f64; 7], (Vec<String>, Vec<String>)) {
    let mut worst = [0.0f64; 7];
    let (mut theirs_only, mut ours_only) = (Vec::new(), Vec::new());
    let board = BoardSize::square(size).unwrap();
    assert_eq!(
        exp.policy.len(),
        size * size,
        "{}: reference policy size",
        exp.name
    );
    for (i, theirs) in exp.policy.iter().enumerate() {
        let ours = got.policy[i];
        let (col, row) = (i % size, size - 1 - i / size);
        let vertex = || board.gtp(Move::Play(board.point(col, row).unwrap()));
        match theirs {
            None if ours >= 0.0 => ours_only.push(vertex()),
            Some(_) if ours < 0.0 => theirs_only.push(vertex()),
            Some(theirs) => worst[0] = worst[0].max((f64::from(ours) - theirs).abs()),
            None => {}
        }
    }
    // KataGo writes an illegal pass as NAN, tengen as a negative number.
    match (exp.pass, got.policy[size * size]) {
        (Some(theirs), ours) if ours >= 0.0 => worst[1] = (f64::from(ours) - theirs).abs(),
        (Some(_), _) => theirs_only.push("pass".to_string()),
        (None, ours) if ours >= 0.0 => ours_only.push("pass".to_string()),
        (None, _) => {}
    }
    worst[2] = (got.white_win - exp.value("whiteWin"))
        .abs()
        .max((got.white_loss - exp.value("whiteLoss")).abs());
    worst[3] = (got.no_result - exp.value("noResult")).abs();
    worst[4] = (got.white_lead - exp.value("whiteLead")).abs();
    worst[5] = (got.white_score_mean - exp.value("whiteScoreSelfplay")).abs();
    assert_eq!(
        exp.ownership.len(),
        size * size,
        "{}: reference ownership size",
        exp.name
    );
    for (ours, theirs) in got.white_ownership.iter().zip(&exp.ownership) {
        worst[6] = worst[6].max((f64::from(*ours) - theirs).abs());
    }
    (worst, (theirs_only, ours_only))
}

/// A few points of a list, and how many in all.
fn some(points: &[String]) -> String {
    let shown: Vec<&str> = points.iter().take(6).map(String::as_str).collect();
    let more = if points.len() > shown.len() {
        ", ..."
    } else {
        ""
    };
    format!("{} ({}{more})", points.len(), shown.join(", "))
}

/// Every position under its rules, compared output by output; prints a
/// line per position with its largest differences (`*` past the tolerance)
/// and fails listing the positions that differ.
#[test]
fn every_rules_position_matches_katago_within_tolerance() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let positions = positions();
    let expected =
        read_answers(&std::fs::read_to_string(data.join("kata-raw-nn-rules.txt")).unwrap());
    assert_eq!(positions.len(), 32, "32 positions");
    assert_eq!(
        expected.len(),
        positions.len(),
        "an answer for every position"
    );
    let network = Network::load(model_path(), 1).expect("load the network");
    let mut failures = Vec::new();
    let mut overall = [0.0f64; 7];
    eprintln!(
        "{:<40} {}",
        "position",
        OUTPUTS.map(|(name, _)| format!("{name:>12.12}")).join(" ")
    );
    for (p, exp) in positions.iter().zip(&expected) {
        assert_eq!(p.name, exp.name, "positions and answers in the same order");
        let game = game_of(p);
        let mut options = EvalOptions::default();
        options.inputs.cleanup_after_passes = p.name.ends_with(":cleanup");
        let got = &network
            .evaluate(&[&game], Symmetries::One(0), &options)
            .unwrap()[0];
        let (worst, (theirs_only, ours_only)) = differences(p.size, got, exp);
        let mut line = format!("{:<40}", p.name);
        let mut bad = Vec::new();
        for (i, ((name, tolerance), diff)) in OUTPUTS.iter().zip(worst).enumerate() {
            overall[i] = overall[i].max(diff);
            let mark = if diff > *tolerance { '*' } else { ' ' };
            line += &format!(" {diff:>11.2e}{mark}");
            if diff > *tolerance {
                bad.push(format!("{name} off by {diff:.4} (tolerance {tolerance})"));
            }
        }
        for (side, points) in [("KataGo", &theirs_only), ("tengen", &ours_only)] {
            if !points.is_empty() {
                let text = format!("legal for {side} only: {}", some(points));
                line += &format!(" {text}");
                bad.push(text);
            }
        }
        eprintln!("{line}");
        if !bad.is_empty() {
            failures.push(format!("{}: {}", p.name, bad.join("; ")));
        }
    }
    eprintln!(
        "{:<40} {}",
        "largest",
        overall.map(|d| format!("{d:>11.2e} ")).join("")
    );
    assert!(
        failures.is_empty(),
        "{} of {} positions differ from KataGo:\n{}",
        failures.len(),
        positions.len(),
        failures.join("\n")
    );
}

/// KataGo's `fixed_handicap` (`PlayUtils::placeFixedHandicap`): the stones
/// on the third line below 13×13 and on the fourth from 13×13, the sides
/// and the centre; `None` where KataGo refuses.
fn katago_fixed_handicap(side: usize, n: usize) -> Option<Vec<String>> {
    if side < 7
        || (side.is_multiple_of(2) && n > 4)
        || (side <= 7 && n > 4)
        || !(2..=9).contains(&n)
    {
        return None;
    }
    let coords = if side <= 12 {
        [2, side - 3, side / 2]
    } else {
        [3, side - 4, side / 2]
    };
    let pairs: &[(usize, usize)] = match n {
        2 => &[(0, 1), (1, 0)],
        3 => &[(0, 1), (1, 0), (0, 0)],
        4 => &[(0, 1), (1, 0), (0, 0), (1, 1)],
        5 => &[(0, 1), (1, 0), (0, 0), (1, 1), (2, 2)],
        6 => &[(0, 1), (1, 0), (0, 0), (1, 1), (0, 2), (1, 2)],
        7 => &[(0, 1), (1, 0), (0, 0), (1, 1), (0, 2), (1, 2), (2, 2)],
        8 => &[
            (0, 1),
            (1, 0),
            (0, 0),
            (1, 1),
            (0, 2),
            (1, 2),
            (2, 0),
            (2, 1),
        ],
        _ => &[
            (0, 1),
            (1, 0),
            (0, 0),
            (1, 1),
            (0, 2),
            (1, 2),
            (2, 0),
            (2, 1),
            (2, 2),
        ],
    };
    // KataGo counts y from the top row.
    let mut names: Vec<String> = pairs
        .iter()
        .map(|&(x, y)| {
            let letter = tengen_core::GTP_COLUMNS[coords[x]] as char;
            format!("{letter}{}", side - coords[y])
        })
        .collect();
    names.sort();
    Some(names)
}

/// The handicap positions are set up by KataGo's `fixed_handicap` and by
/// tengen's `Game::with_handicap`: the same stones on every square board
/// from 7×7 to 19×19 and every number of stones.
#[test]
fn fixed_handicap_points_are_katagos() {
    for side in 2..=19 {
        let Ok(size) = BoardSize::square(side) else {
            continue;
        };
        for n in 0..=10 {
            let ours = fixed_handicap_points(size, n).map(|points| {
                let mut names: Vec<String> = points
                    .into_iter()
                    .map(|p| size.gtp(Move::Play(p)))
                    .collect();
                names.sort();
                names
            });
            assert_eq!(
                ours,
                katago_fixed_handicap(side, n),
                "{side}x{side}, {n} stones"
            );
        }
    }
}
