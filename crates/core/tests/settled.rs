//! The dead-stone estimate on settled positions written as data
//! (`tests/data/settled.txt`): every case's dead stones, seki and area count
//! must come out exactly, whatever the seed.

use tengen_core::scoring::{
    estimate_status, score, settlement, PassAlive, DEFAULT_STATUS_PLAYOUTS,
};
use tengen_core::{Board, Color, Move, Outcome, Point, Rules};

struct Case {
    name: String,
    komi: f64,
    to_move: Color,
    dead: Vec<String>,
    seki: Vec<String>,
    result: String,
    contested: Vec<String>,
    neutral: Vec<String>,
    board: Board,
}

fn vertex_list(text: &str) -> Vec<String> {
    if text == "-" {
        return Vec::new();
    }
    let mut list: Vec<String> = text.split_whitespace().map(str::to_owned).collect();
    list.sort();
    list
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/settled.txt");
    let mut cases = Vec::new();
    for block in text.split("\n## ").skip(1) {
        let mut lines = block.lines();
        let name = lines.next().unwrap().trim().to_owned();
        let mut diagram = String::new();
        let (mut komi, mut to_move) = (None, Color::Black);
        let (mut dead, mut seki, mut result) = (None, None, None);
        let (mut contested, mut neutral) = (None, None);
        for line in lines {
            match line.split_once(':') {
                Some((key, value)) => {
                    let value = value.trim();
                    match key.trim() {
                        "komi" => komi = Some(value.parse().unwrap()),
                        "to-move" => to_move = Color::parse(value).unwrap(),
                        "dead" => dead = Some(vertex_list(value)),
                        "seki" => seki = Some(vertex_list(value)),
                        "result" => result = Some(value.to_owned()),
                        "contested" => contested = Some(vertex_list(value)),
                        "neutral" => neutral = Some(vertex_list(value)),
                        other => panic!("{name}: unknown key {other}"),
                    }
                }
                None => {
                    diagram.push_str(line);
                    diagram.push('\n');
                }
            }
        }
        let board = Board::from_ascii(&diagram).unwrap_or_else(|e| panic!("{name}: {e}"));
        cases.push(Case {
            komi: komi.unwrap_or_else(|| panic!("{name}: no komi")),
            to_move,
            dead: dead.unwrap_or_else(|| panic!("{name}: no dead")),
            seki: seki.unwrap_or_else(|| panic!("{name}: no seki")),
            result: result.unwrap_or_else(|| panic!("{name}: no result")),
            contested: contested.unwrap_or_else(|| panic!("{name}: no contested")),
            neutral: neutral.unwrap_or_else(|| panic!("{name}: no neutral")),
            board,
            name,
        });
    }
    cases
}

fn names(board: &Board, points: impl IntoIterator<Item = Point>) -> Vec<String> {
    let mut list: Vec<String> = points
        .into_iter()
        .map(|p| board.size().gtp(Move::Play(p)))
        .collect();
    list.sort();
    list
}

#[test]
fn the_data_has_every_kind_of_case() {
    assert!(cases().len() >= 10);
}

#[test]
fn settled_positions_are_counted_right() {
    let mut failures = Vec::new();
    for case in cases() {
        let rules: Rules = format!("chinese,komi={}", case.komi).parse().unwrap();
        for seed in 1..=5 {
            let status = estimate_status(&case.board, case.to_move, DEFAULT_STATUS_PLAYOUTS, seed);
            let dead = names(&case.board, status.dead_points());
            let seki = names(&case.board, status.seki.iter().flatten().copied());
            let counted = score(&case.board, &rules, &status.dead_points());
            let result = Outcome::Counted(counted).to_string();
            if dead != case.dead || seki != case.seki || result != case.result {
                failures.push(format!(
                    "{} (seed {seed}): dead {dead:?} seki {seki:?} result {result}; expected dead {:?} seki {:?} result {}",
                    case.name, case.dead, case.seki, case.result
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What each position leaves open: the chains the playouts split on and the
/// neutral points outside seki, under every seed; the estimate inside the
/// settlement is the plain estimate.
#[test]
fn what_settled_positions_leave_open() {
    let mut failures = Vec::new();
    for case in cases() {
        for seed in 1..=5 {
            let found = settlement(&case.board, case.to_move, DEFAULT_STATUS_PLAYOUTS, seed);
            assert_eq!(
                found.status,
                estimate_status(&case.board, case.to_move, DEFAULT_STATUS_PLAYOUTS, seed)
            );
            let contested = names(&case.board, found.contested.iter().copied());
            let neutral = names(&case.board, found.neutral.iter().copied());
            if contested != case.contested || neutral != case.neutral {
                failures.push(format!(
                    "{} (seed {seed}): contested {contested:?} neutral {neutral:?}; expected {:?} and {:?}",
                    case.name, case.contested, case.neutral
                ));
            }
            let open = !case.contested.is_empty() || !case.neutral.is_empty();
            assert_eq!(found.is_settled(), !open, "{}", case.name);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Chains that Benson's algorithm finds unconditionally alive are never
/// called dead, however few playouts run, and the enemy stones in the
/// territory they make safe are always dead.
#[test]
fn pass_alive_chains_are_never_dead() {
    for case in cases() {
        let certain = PassAlive::of(&case.board);
        for playouts in [0, 1, 7] {
            let status = estimate_status(&case.board, case.to_move, playouts, 3);
            for point in status.dead_points() {
                assert!(!certain.is_alive(point), "{}: {point:?}", case.name);
            }
            for point in case.board.size().points() {
                if certain.is_dead(&case.board, point) {
                    assert!(status.dead_points().contains(&point), "{}", case.name);
                }
            }
        }
    }
}
