//! Every kernel this CPU runs, on the real network, against f32: the
//! outputs of real positions stay within the accuracy bounds of
//! `docs/performance.md` (measured there over 1,000 positions; here a few
//! dozen, with the bounds on the largest error). A CPU without bf16 units
//! checks that asking for bf16 gives f32, bit for bit.

use std::path::Path;

use tengen_core::Game;
use tengen_katago::forward::{Bf16Rounding, Features, Kernel, Precision, Unit};
use tengen_katago::model::ModelDesc;
use tengen_katago::network::{EvalOptions, Network, Symmetries};
use tengen_katago::output::Evaluation;
use tengen_katago::reference::model_path;

/// Every `step`th position of the first `records` records in `dir`.
fn positions(dir: &Path, records: usize, step: usize) -> Vec<Game> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "sgf"))
        .collect();
    files.sort();
    let mut games = Vec::new();
    for file in files.into_iter().take(records) {
        let record = tengen_sgf::read_game(&std::fs::read_to_string(file).unwrap()).unwrap();
        let moves = record.game.moves();
        record
            .game
            .start()
            .replay(&moves[..moves.len() - 1], |turn, game| {
                if turn % step == step / 2 {
                    games.push(game.clone());
                }
            })
            .unwrap();
    }
    games
}

fn evaluate(network: &Network, games: &[Game]) -> Vec<Evaluation> {
    games
        .chunks(8)
        .flat_map(|chunk| {
            let refs: Vec<&Game> = chunk.iter().collect();
            network
                .evaluate(&refs, Symmetries::One(0), &EvalOptions::default())
                .unwrap()
        })
        .collect()
}

fn top(policy: &[f32]) -> usize {
    policy
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(i, _)| i)
        .unwrap()
}

#[test]
fn every_kernel_of_this_cpu_stays_close_to_f32() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gtp/tests/data/finished");
    let mut games = positions(&data.join("mcts-vs-gnugo-level10-9x9"), 3, 6);
    games.extend(positions(&data.join("mcts-vs-gnugo-level1-13x13"), 1, 12));
    assert!(games.len() >= 30, "{} positions", games.len());
    let model = ModelDesc::load(model_path()).unwrap();
    let exact = evaluate(&Network::new(model.clone(), 2), &games);
    let units: Vec<Unit> = Features::detect()
        .units()
        .into_iter()
        .filter(|&u| u != Unit::F32)
        .collect();
    if units.is_empty() {
        eprintln!("no bf16 units on this CPU: bf16 must fall back to f32");
        let network = Network::new(model.clone(), 2).with_precision(Precision::Bf16);
        assert_eq!(network.kernel(), Kernel::F32);
        assert_eq!(evaluate(&network, &games), exact);
        return;
    }
    for unit in units {
        for rounding in [
            Bf16Rounding::Once,
            Bf16Rounding::SplitConvolutions,
            Bf16Rounding::Split,
        ] {
            let kernel = Kernel { unit, rounding };
            let network = Network::new(model.clone(), 2).with_kernel(kernel);
            assert_eq!(network.kernel(), kernel);
            let rounded = evaluate(&network, &games);
            assert_ne!(rounded, exact, "{kernel} rounds");
            let mut worst = (0.0f64, 0.0f64);
            let mut same_top = 0;
            for (e, r) in exact.iter().zip(&rounded) {
                worst.0 = worst.0.max((e.white_win - r.white_win).abs());
                worst.1 = worst.1.max((e.white_lead - r.white_lead).abs());
                same_top += usize::from(top(&e.policy) == top(&r.policy));
            }
            eprintln!(
                "{kernel}: largest win rate error {:.4}, lead error {:.3}, top move the same {same_top}/{}",
                worst.0,
                worst.1,
                games.len()
            );
            // The largest errors over 1,000 positions were 0.025 and 0.8
            // points for one rounding; the top move differs where two are
            // nearly tied, about one position in a hundred.
            assert!(worst.0 < 0.03, "{kernel}: win rate off by {}", worst.0);
            assert!(worst.1 < 1.0, "{kernel}: lead off by {}", worst.1);
            assert!(
                same_top + 2 >= games.len(),
                "{kernel}: top move the same in {same_top} of {}",
                games.len()
            );
        }
    }
}

#[test]
fn precisions_pick_kernels_this_cpu_has() {
    let features = Features::detect();
    let model = ModelDesc::load(model_path()).unwrap();
    for precision in Precision::ALL {
        let network = Network::new(model.clone(), 1).with_precision(precision);
        assert!(features.units().contains(&network.kernel().unit));
        assert_eq!(network.kernel(), precision.kernel(features));
    }
    // A kernel the CPU lacks is refused for f32.
    if !features.amx_bf16 {
        let network = Network::new(model, 1).with_kernel(Kernel {
            unit: Unit::AmxBf16,
            rounding: Bf16Rounding::Once,
        });
        assert_eq!(network.kernel(), Kernel::F32);
    }
}

/// Batches shared between threads (a part of the positions on each thread,
/// one position at a time) and layers shared between threads (fewer
/// positions than threads) give each position's own answer, in order: the
/// same as evaluating it alone on one thread, to float rounding.
#[test]
fn threads_and_batches_do_not_change_the_answers() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gtp/tests/data/finished");
    let mut games = positions(&data.join("mcts-vs-gnugo-level10-9x9"), 1, 9);
    games.extend(positions(&data.join("mcts-vs-gnugo-level1-13x13"), 1, 40));
    // Two 19×19 positions: one alone is large enough for its layers to be
    // shared between threads (smaller boards run on one thread).
    for sgf in [
        "(;GM[1]SZ[19]KM[7.5])",
        "(;GM[1]SZ[19]KM[7.5];B[pd];W[dp];B[pp];W[dd];B[fc])",
    ] {
        games.push(tengen_sgf::read_game(sgf).unwrap().game);
    }
    assert!(games.len() >= 9, "{} positions", games.len());
    let model = ModelDesc::load(model_path()).unwrap();
    for unit in Features::detect().units() {
        let kernel = Kernel {
            unit,
            rounding: Bf16Rounding::Once,
        };
        let alone: Vec<Evaluation> = {
            let network = Network::new(model.clone(), 1).with_kernel(kernel);
            games
                .iter()
                .flat_map(|game| {
                    network
                        .evaluate(&[game], Symmetries::One(0), &EvalOptions::default())
                        .unwrap()
                })
                .collect()
        };
        // Positions of one size go in one batch.
        let mut batches: Vec<std::ops::Range<usize>> = Vec::new();
        for (i, game) in games.iter().enumerate() {
            match batches.last_mut() {
                Some(last) if games[last.start].size() == game.size() => last.end = i + 1,
                _ => batches.push(i..i + 1),
            }
        }
        for threads in [2, 3] {
            let network = Network::new(model.clone(), threads).with_kernel(kernel);
            for batch in &batches {
                let refs: Vec<&Game> = games[batch.clone()].iter().collect();
                let together = network
                    .evaluate(&refs, Symmetries::One(0), &EvalOptions::default())
                    .unwrap();
                // And the first alone: its layers shared between the threads.
                let shared = network
                    .evaluate(&refs[..1], Symmetries::One(0), &EvalOptions::default())
                    .unwrap();
                let answers = together
                    .iter()
                    .zip(batch.clone())
                    .chain([(&shared[0], batch.start)]);
                for (got, index) in answers {
                    let want = &alone[index];
                    let close = |x: f64, y: f64| (x - y).abs() <= 1e-4 * (1.0 + y.abs());
                    assert!(
                        close(got.white_win, want.white_win) && close(got.white_lead, want.white_lead),
                        "{kernel}, {threads} threads, position {index}: {} / {} against {} / {} alone",
                        got.white_win,
                        got.white_lead,
                        want.white_win,
                        want.white_lead
                    );
                    for (p, q) in got.policy.iter().zip(&want.policy) {
                        assert!((p - q).abs() <= 1e-4, "{kernel}: policy {p} against {q}");
                    }
                }
            }
        }
    }
}
