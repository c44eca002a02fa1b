//! Every kernel this CPU runs, on the real network, against f32: the
//! outputs of real positions stay within the accuracy bounds of
//! `docs/performance.md` (measured there over 1,000 positions; here a few
//! dozen, with the bounds on the largest error). A CPU without bf16 units
//! checks that asking for bf16 gives f32, bit for bit; the portable int8
//! and int16 products run everywhere.

use std::path::Path;

use tengen_core::Game;
use tengen_katago::forward::{
    Bf16Rounding, Features, Int16Unit, Int8Unit, Kernel, Precision, Unit,
};
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
    }
    let mut kernels = Vec::new();
    for &unit in &units {
        for rounding in [
            Bf16Rounding::Once,
            Bf16Rounding::SplitConvolutions,
            Bf16Rounding::Split,
        ] {
            kernels.push(Kernel::bf16(unit, rounding));
        }
    }
    // int8 as `precision=int8` runs it (one quantisation alone is not
    // within the bounds, and is not offered).
    let int8 = Precision::Int8.kernel(Features::detect());
    if int8.int8.is_some() {
        kernels.push(int8);
    }
    let int16 = Precision::Int16.kernel(Features::detect());
    if int16.int16.is_some() {
        kernels.push(int16);
    }
    for kernel in kernels {
        let network = Network::new(model.clone(), 2).with_kernel(kernel);
        assert_eq!(network.kernel(), kernel);
        let rounded = evaluate(&network, &games);
        assert_ne!(rounded, exact, "{kernel} rounds");
        assert_close(&kernel.to_string(), &exact, &rounded);
    }
}

/// The largest errors of `rounded` against `exact` within the bounds of
/// every kernel: over 1,000 positions the largest were 0.028 in the win
/// rate and 0.8 points in the lead (bf16, one rounding); the top move
/// differs where two are nearly tied, about one position in a hundred.
fn assert_close(kernel: &str, exact: &[Evaluation], rounded: &[Evaluation]) {
    let mut worst = (0.0f64, 0.0f64);
    let mut same_top = 0;
    for (e, r) in exact.iter().zip(rounded) {
        worst.0 = worst.0.max((e.white_win - r.white_win).abs());
        worst.1 = worst.1.max((e.white_lead - r.white_lead).abs());
        same_top += usize::from(top(&e.policy) == top(&r.policy));
    }
    eprintln!(
        "{kernel}: largest win rate error {:.4}, lead error {:.3}, top move the same {same_top}/{}",
        worst.0,
        worst.1,
        exact.len()
    );
    assert!(worst.0 < 0.03, "{kernel}: win rate off by {}", worst.0);
    assert!(worst.1 < 1.0, "{kernel}: lead off by {}", worst.1);
    assert!(
        same_top + 2 >= exact.len(),
        "{kernel}: top move the same in {same_top} of {}",
        exact.len()
    );
}

/// The portable int8 products, on any CPU: through the whole network they
/// give the answers of every int8 unit the CPU has (AVX-512-VNNI,
/// AMX-INT8, AVX-VNNI) bit for bit, and stay within the bounds of f32 everywhere (a few positions: the
/// portable products are slow).
#[test]
fn portable_int8_gives_the_fast_kernels_answers_and_stays_close_to_f32() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gtp/tests/data/finished");
    let games = positions(&data.join("mcts-vs-gnugo-level10-9x9"), 1, 12);
    assert!(games.len() >= 3, "{} positions", games.len());
    let model = ModelDesc::load(model_path()).unwrap();
    let features = Features::detect();
    let fast = Precision::Int8.kernel(features);
    let portable = Kernel {
        int8: Some(Int8Unit::Portable),
        ..Kernel::bf16(features.units()[0], Bf16Rounding::Split)
    };
    let network = Network::new(model.clone(), 2).with_kernel(portable);
    assert_eq!(network.kernel(), portable);
    let answers = evaluate(&network, &games);
    if fast.int8.is_none() {
        eprintln!("no int8 unit on this CPU: the portable products only");
    }
    // Every int8 unit of this CPU, beside the one the setting picks.
    for unit in [Int8Unit::Avx512Vnni, Int8Unit::AmxInt8, Int8Unit::AvxVnni] {
        if !unit.runs_on(features) {
            continue;
        }
        let kernel = Kernel {
            int8: Some(unit),
            ..fast
        };
        let network = Network::new(model.clone(), 2).with_kernel(kernel);
        assert_eq!(network.kernel(), kernel);
        assert_eq!(
            evaluate(&network, &games),
            answers,
            "{kernel} against {portable}"
        );
    }
    let exact = evaluate(&Network::new(model, 2), &games);
    assert_close(&portable.to_string(), &exact, &answers);
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
        let network = Network::new(model.clone(), 1)
            .with_kernel(Kernel::bf16(Unit::AmxBf16, Bf16Rounding::Once));
        assert_eq!(network.kernel(), Kernel::F32);
    }
    for unit in [Int8Unit::Avx512Vnni, Int8Unit::AmxInt8, Int8Unit::AvxVnni] {
        if !unit.runs_on(features) {
            let network = Network::new(model.clone(), 1).with_kernel(Kernel {
                int8: Some(unit),
                ..Kernel::F32
            });
            assert_eq!(network.kernel(), Kernel::F32);
        }
    }
    if !Int16Unit::Avx512Vnni.runs_on(features) {
        let network = Network::new(model.clone(), 1).with_kernel(Kernel {
            int16: Some(Int16Unit::Avx512Vnni),
            ..Kernel::F32
        });
        assert_eq!(network.kernel(), Kernel::F32);
    }
}

/// The portable int16 products, on any CPU: through the whole network they
/// give the answers of AVX-512-VNNI's bit for bit where the CPU has it,
/// and stay within the bounds of f32 everywhere.
#[test]
fn portable_int16_gives_the_fast_kernels_answers_and_stays_close_to_f32() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../gtp/tests/data/finished");
    let games = positions(&data.join("mcts-vs-gnugo-level10-9x9"), 1, 12);
    assert!(games.len() >= 3, "{} positions", games.len());
    let model = ModelDesc::load(model_path()).unwrap();
    let features = Features::detect();
    let fast = Precision::Int16.kernel(features);
    let portable = Kernel {
        int16: Some(Int16Unit::Portable),
        ..fast
    };
    let network = Network::new(model.clone(), 2).with_kernel(portable);
    assert_eq!(network.kernel(), portable);
    let answers = evaluate(&network, &games);
    if fast.int16.is_some() {
        let network = Network::new(model.clone(), 2).with_kernel(fast);
        assert_eq!(
            evaluate(&network, &games),
            answers,
            "{fast} against {portable}"
        );
    } else {
        eprintln!("no AVX-512-VNNI on this CPU: the portable int16 products only");
    }
    let exact = evaluate(&Network::new(model, 2), &games);
    assert_close(&portable.to_string(), &exact, &answers);
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
        let kernel = Kernel::bf16(unit, Bf16Rounding::Once);
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
