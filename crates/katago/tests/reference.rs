//! tengen's evaluation of KataGo's network against KataGo's own
//! `kata-raw-nn 0` answers for 30 positions (tests/data/README.md).
//!
//! The network comes from the PyPI package katrain 1.20.0 through
//! `scripts/katago-model`, cached under `target/katago/`.

use std::path::Path;
use tengen_katago::reference::{model_path, read_answers};

use tengen_core::{BoardSize, Color, Game, KoRule, Rules};
use tengen_katago::network::{EvalOptions, Network, Symmetries};

fn game_of(size: usize, moves: &str) -> Game {
    let size = BoardSize::square(size).unwrap();
    let mut rules = Rules::preset("chinese").unwrap().with_komi(7.5);
    rules.ko = KoRule::Simple;
    let mut game = Game::new(size, rules);
    for mv in moves.split(',').filter(|m| !m.trim().is_empty()) {
        let (color, vertex) = mv.trim().split_once(' ').unwrap();
        let color = if color == "b" {
            Color::Black
        } else {
            Color::White
        };
        let mv = size.parse_gtp(vertex).unwrap();
        game.play_as(color, mv).unwrap();
    }
    game
}

#[test]
fn every_reference_position_matches_katago_within_tolerance() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let positions = std::fs::read_to_string(data.join("positions.txt")).unwrap();
    let expected = read_answers(&std::fs::read_to_string(data.join("kata-raw-nn.txt")).unwrap());
    let network = Network::load(model_path(), 2).expect("load the network");
    let mut worst = [0.0f64; 4];
    let mut compared = 0;
    for (line, exp) in positions
        .lines()
        .filter(|l| !l.trim().is_empty())
        .zip(&expected)
    {
        let mut fields = line.splitn(3, '|');
        let name = fields.next().unwrap();
        assert_eq!(name, exp.name, "positions and answers in the same order");
        let size: usize = fields.next().unwrap().parse().unwrap();
        let game = game_of(size, fields.next().unwrap_or(""));
        let got = &network
            .evaluate(&[&game], Symmetries::One(0), &EvalOptions::default())
            .unwrap()[0];
        let value = |key: &str| exp.values.iter().find(|(k, _)| k == key).unwrap().1;
        let mut check = |what: &str, slot: usize, ours: f64, theirs: f64, tolerance: f64| {
            let diff = (ours - theirs).abs();
            worst[slot] = worst[slot].max(diff);
            assert!(
                diff <= tolerance,
                "{name}: {what} is {ours}, KataGo says {theirs} (tolerance {tolerance})"
            );
        };
        check("whiteWin", 1, got.white_win, value("whiteWin"), 0.005);
        check("whiteLoss", 1, got.white_loss, value("whiteLoss"), 0.005);
        check("whiteLead", 2, got.white_lead, value("whiteLead"), 0.05);
        assert_eq!(
            exp.policy.len(),
            size * size,
            "{name}: reference policy size"
        );
        for (i, theirs) in exp.policy.iter().enumerate() {
            let ours = got.policy[i];
            match theirs {
                None => assert!(
                    ours < 0.0,
                    "{name}: point {i} is illegal for KataGo, legal here"
                ),
                Some(theirs) => {
                    assert!(
                        ours >= 0.0,
                        "{name}: point {i} is legal for KataGo, illegal here"
                    );
                    check("policy", 0, f64::from(ours), *theirs, 0.005);
                }
            }
        }
        check(
            "policyPass",
            0,
            f64::from(got.policy[size * size]),
            exp.pass.unwrap(),
            0.005,
        );
        for (i, theirs) in exp.ownership.iter().enumerate() {
            check(
                "ownership",
                3,
                f64::from(got.white_ownership[i]),
                *theirs,
                0.01,
            );
        }
        compared += 1;
    }
    assert_eq!(compared, 30, "all 30 reference positions compared");
    eprintln!(
        "largest differences: policy {:.2e}, win/loss {:.2e}, lead {:.2e}, ownership {:.2e}",
        worst[0], worst[1], worst[2], worst[3]
    );
}

/// The positions of the reference set, as games.
fn reference_games() -> Vec<Game> {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    std::fs::read_to_string(data.join("positions.txt"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let mut fields = line.splitn(3, '|');
            let _name = fields.next();
            let size: usize = fields.next().unwrap().parse().unwrap();
            game_of(size, fields.next().unwrap_or(""))
        })
        .collect()
}

/// A batch of positions of several sizes, on one or two threads, gives what
/// each position gives alone; and every symmetry is turned back to the
/// board: the network, trained to be nearly symmetric, then agrees with
/// itself under all eight.
#[test]
fn batches_threads_and_symmetries_agree() {
    let games = reference_games();
    let refs: Vec<&Game> = games.iter().step_by(3).collect();
    let one = Network::load(model_path(), 1).unwrap();
    let two = Network::load(model_path(), 2).unwrap();
    let options = EvalOptions::default();
    let batched = two.evaluate(&refs, Symmetries::One(0), &options).unwrap();
    for (game, together) in refs.iter().zip(&batched) {
        let alone = &one.evaluate(&[game], Symmetries::One(0), &options).unwrap()[0];
        assert!((alone.white_win - together.white_win).abs() < 1e-5);
        assert!((alone.white_lead - together.white_lead).abs() < 1e-3);
        for (a, b) in alone.policy.iter().zip(&together.policy) {
            assert!((a - b).abs() < 1e-5);
        }
    }
    // A symmetry per game: each as it would be alone under its own.
    let each: Vec<u8> = (0..refs.len()).map(|i| (i % 8) as u8).collect();
    let mixed = two
        .evaluate(&refs, Symmetries::Each(each.clone()), &options)
        .unwrap();
    for ((game, together), &symmetry) in refs.iter().zip(&mixed).zip(&each) {
        let alone = &one
            .evaluate(&[game], Symmetries::One(symmetry), &options)
            .unwrap()[0];
        assert!((alone.white_win - together.white_win).abs() < 1e-5);
        for (a, b) in alone.policy.iter().zip(&together.policy) {
            assert!((a - b).abs() < 1e-5);
        }
    }
    assert!(two
        .evaluate(&refs, Symmetries::Each(vec![0]), &options)
        .is_err());
    let (mut worst, mut moved) = (0.0f32, 0.0f32);
    for game in refs.iter().take(4) {
        let base = &one.evaluate(&[game], Symmetries::One(0), &options).unwrap()[0];
        for symmetry in 1..8 {
            let other = &one
                .evaluate(&[game], Symmetries::One(symmetry), &options)
                .unwrap()[0];
            let mut l1 = 0.0f32;
            for (a, b) in base.policy.iter().zip(&other.policy) {
                assert_eq!(
                    *a < 0.0,
                    *b < 0.0,
                    "legality does not depend on the symmetry"
                );
                worst = worst.max((a - b).abs());
                l1 += (a - b).abs();
            }
            // Half the L1 distance is the probability mass that moved.
            assert!(
                l1 / 2.0 < 0.25,
                "symmetry {symmetry} moves {} of the policy",
                l1 / 2.0
            );
            moved = moved.max(l1 / 2.0);
            for (a, b) in base.white_ownership.iter().zip(&other.white_ownership) {
                worst = worst.max((a - b).abs());
            }
        }
        let all = &one.evaluate(&[game], Symmetries::All, &options).unwrap()[0];
        let total: f32 = all.policy.iter().filter(|p| **p >= 0.0).sum();
        assert!(
            (total - 1.0).abs() < 1e-4,
            "averaged policy sums to {total}"
        );
    }
    eprintln!("largest difference between symmetries: {worst} at a point, {moved} of the policy");
    assert!(
        worst < 0.2,
        "symmetries disagree by {worst}: an output is not turned back"
    );
}

/// A cancelled evaluation stops at the next block: `cancel` is asked before
/// every block and before the heads, so saying yes at the n-th question
/// ends it there (`Cancelled`), and an evaluation never cancelled asks at
/// every one of those places and gives the ordinary answer.
#[test]
fn cancelled_evaluations_stop_at_the_next_block() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tengen_katago::network::EvalError;

    let games = reference_games();
    let game = &games[0];
    let network = Network::load(model_path(), 1).unwrap();
    let options = EvalOptions::default();
    let asked = AtomicUsize::new(0);
    let full = network
        .evaluate_until(&[game], Symmetries::One(0), &options, &|| {
            asked.fetch_add(1, Ordering::SeqCst);
            false
        })
        .unwrap();
    let questions = asked.load(Ordering::SeqCst);
    // The b10 nested-bottleneck trunk: before the stem, before each block
    // and each block nested in one, and before the heads.
    assert!(questions > 12, "asked only {questions} times");
    let plain = network
        .evaluate(&[game], Symmetries::One(0), &options)
        .unwrap();
    assert_eq!(full[0].policy, plain[0].policy);
    for stop_at in [1, 2, questions / 2, questions] {
        let asked = AtomicUsize::new(0);
        let result = network.evaluate_until(&[game], Symmetries::One(0), &options, &|| {
            asked.fetch_add(1, Ordering::SeqCst) + 1 >= stop_at
        });
        assert!(
            matches!(result, Err(EvalError::Cancelled)),
            "not cancelled at question {stop_at}"
        );
        assert_eq!(asked.load(Ordering::SeqCst), stop_at, "went on after a yes");
    }
}
