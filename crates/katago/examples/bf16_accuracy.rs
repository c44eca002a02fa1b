//! What bfloat16 matrix products cost in accuracy, measured as KataGo
//! measures its FP16 paths (`katago testgpuerror`): positions of real games
//! evaluated in f32 and again on each bf16 kernel this CPU has (every
//! rounding of the activations, [`Bf16Rounding`]), and the differences
//! summed up: win rate, score lead, policy (KL divergence, the top move),
//! ownership. Then the int8 and int16 kernels (where the CPU has
//! AVX-512-VNNI). With `--emulate yes`, the portable units stand in for
//! those the CPU lacks ([`Unit::PortableBf16`], [`Int8Unit::Portable`],
//! [`Int16Unit::Portable`]: the same roundings in plain Rust; the integer
//! sums bit for bit, the bf16 ones in another order),
//! so that any CPU measures every kernel.
//!
//! ```sh
//! cargo run --release -p tengen-katago --example bf16_accuracy -- \
//!     --model "$(scripts/katago-model)" --positions 1000
//! ```
//!
//! Positions: the professional 19×19 records of `/usr/share/goban`
//! (Debian's goban-original-games), and tengen's own 9×9 and 13×13 games
//! against GNU Go (`crates/gtp/tests/data/finished/`), every 10th move of
//! each, a quarter of them 9×9 and 13×13 when there are enough.

use std::path::{Path, PathBuf};

use tengen_core::Game;
use tengen_katago::forward::{
    Bf16Rounding, Features, Int16Unit, Int8Unit, Kernel, Precision, Unit,
};
use tengen_katago::model::ModelDesc;
use tengen_katago::network::{EvalOptions, Network, Symmetries};
use tengen_katago::output::Evaluation;

struct Options {
    model: PathBuf,
    positions: usize,
    threads: usize,
    emulate: bool,
    only_int8: bool,
}

fn options() -> Options {
    let mut options = Options {
        model: PathBuf::new(),
        positions: 1000,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        emulate: false,
        only_int8: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().unwrap_or_else(|| panic!("{arg} needs a value"));
        match arg.as_str() {
            "--model" => options.model = PathBuf::from(value),
            "--positions" => options.positions = value.parse().expect("--positions N"),
            "--threads" => options.threads = value.parse().expect("--threads N"),
            "--emulate" => options.emulate = value == "yes",
            "--only-int8" => options.only_int8 = value == "yes",
            _ => panic!(
                "unknown argument {arg} (--model PATH --positions N --threads N --emulate yes|no --only-int8 yes|no)"
            ),
        }
    }
    assert!(
        !options.model.as_os_str().is_empty(),
        "--model PATH is needed"
    );
    options
}

/// Every 10th position (from move 10) of each record in `dir` with one of
/// `extensions`, records in name order, until `wanted`.
fn positions_from(dir: &Path, extensions: &[&str], wanted: usize) -> Vec<Game> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| extensions.contains(&e))
    });
    files.sort();
    let mut games = Vec::new();
    for file in files {
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let Ok(record) = tengen_sgf::read_game_bytes(&bytes) else {
            continue;
        };
        let moves = record.game.moves();
        if moves.is_empty() {
            continue;
        }
        // The positions before each 10th move; a record is read as a
        // legal game, so its replay cannot fail.
        let _ = record
            .game
            .start()
            .replay(&moves[..moves.len() - 1], |turn, game| {
                if turn > 0 && turn % 10 == 0 && games.len() < wanted {
                    games.push(game.clone());
                }
            });
        if games.len() == wanted {
            return games;
        }
    }
    games
}

fn evaluate(network: &Network, games: &[Game]) -> Vec<Evaluation> {
    let mut out = Vec::with_capacity(games.len());
    for chunk in games.chunks(8) {
        let refs: Vec<&Game> = chunk.iter().collect();
        out.extend(
            network
                .evaluate(&refs, Symmetries::One(0), &EvalOptions::default())
                .expect("the network evaluates the position"),
        );
    }
    out
}

/// Mean, 99th percentile and largest of `values`.
fn summary(mut values: Vec<f64>) -> (f64, f64, f64) {
    values.sort_by(f64::total_cmp);
    let mean = values.iter().sum::<f64>() / values.len() as f64;
    let p99 = values[((values.len() as f64 * 0.99).ceil() as usize).saturating_sub(1)];
    (mean, p99, *values.last().unwrap())
}

fn main() {
    let options = options();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let finished = root.join("crates/gtp/tests/data/finished");
    let small = options.positions / 8;
    let mut games = positions_from(&finished.join("mcts-vs-gnugo-level10-9x9"), &["sgf"], small);
    games.extend(positions_from(
        &finished.join("mcts-vs-gnugo-level1-13x13"),
        &["sgf"],
        small,
    ));
    let rest = options.positions.saturating_sub(games.len());
    games.extend(positions_from(
        Path::new("/usr/share/goban"),
        &["sgf", "mgt"],
        rest,
    ));
    let mut sizes: Vec<(usize, usize)> = Vec::new();
    for game in &games {
        let side = game.size().width();
        match sizes.iter_mut().find(|(s, _)| *s == side) {
            Some((_, n)) => *n += 1,
            None => sizes.push((side, 1)),
        }
    }
    eprintln!("{} positions by board side: {sizes:?}", games.len());
    let model = ModelDesc::load(&options.model).expect("the model loads");
    let network = Network::new(model.clone(), options.threads);
    let started = std::time::Instant::now();
    let exact = evaluate(&network, &games);
    let f32_seconds = started.elapsed().as_secs_f64();
    println!(
        "model {}, {} positions (by side: {sizes:?}), f32 in {f32_seconds:.1} s",
        network.model().name,
        games.len()
    );
    let mut rows = Vec::new();
    // The network on `kernel`, against f32: the summary row.
    let measure = |kernel: Kernel| {
        let network = Network::new(model.clone(), options.threads).with_kernel(kernel);
        assert_eq!(network.kernel(), kernel);
        let started = std::time::Instant::now();
        let answers = evaluate(&network, &games);
        let seconds = started.elapsed().as_secs_f64();
        println!("\n{kernel} (in {seconds:.1} s):\n");
        (kernel.to_string(), report(&exact, &answers))
    };
    let mut units = Features::detect().units();
    if options.emulate && units == [Unit::F32] {
        units.push(Unit::PortableBf16);
    }
    for unit in units {
        if unit == Unit::F32 || options.only_int8 {
            continue;
        }
        for rounding in [
            Bf16Rounding::Once,
            Bf16Rounding::SplitConvolutions,
            Bf16Rounding::Split,
        ] {
            let kernel = Kernel::bf16(unit, rounding);
            rows.push(measure(kernel));
        }
    }
    // The int8 products, each rounding of the activations (which in int8
    // splits both operands where it splits).
    let features = Features::detect();
    // AMX-INT8 gives AVX-512-VNNI's answers bit for bit (`tests/kernels.rs`).
    let int8_units: &[Int8Unit] = match (features.avx512_vnni, options.emulate) {
        (true, _) if features.amx_int8 => &[Int8Unit::AmxInt8],
        (true, _) => &[Int8Unit::Avx512Vnni],
        (false, true) => &[Int8Unit::Portable],
        (false, false) => &[],
    };
    for &int8 in int8_units {
        // As `precision=int8` runs it: the fastest unit for the rest.
        let base = Kernel::bf16(features.units()[0], Bf16Rounding::Once);
        for rounding in [
            Bf16Rounding::Once,
            Bf16Rounding::SplitConvolutions,
            Bf16Rounding::Split,
        ] {
            let kernel = Kernel {
                int8: Some(int8),
                rounding,
                ..base
            };
            rows.push(measure(kernel));
        }
    }
    // The int16 products, as `precision=int16` runs them (the portable
    // ones with --emulate where the CPU has no AVX-512-VNNI).
    let int16 = Precision::Int16.kernel(features);
    let int16 = match (int16.int16, options.emulate) {
        (Some(_), _) => Some(int16),
        (None, true) => Some(Kernel {
            int16: Some(Int16Unit::Portable),
            ..int16
        }),
        (None, false) => None,
    };
    if let Some(kernel) = int16 {
        rows.push(measure(kernel));
    }
    println!(
        "\n| kernel | win rate error mean / p99 / max | score lead error mean / p99 / max | policy KL mean / p99 | top move the same | ownership error mean / p99 |"
    );
    println!("|---|---|---|---|---:|---|");
    for (name, row) in rows {
        println!("| {name} | {row} |");
    }
}

/// The differences of `rounded` from `exact`, as a Markdown table, and as
/// the cells of one row of the summary.
fn report(exact: &[Evaluation], rounded: &[Evaluation]) -> String {
    let mut winrate = Vec::new();
    let mut lead = Vec::new();
    let mut kl = Vec::new();
    let mut ownership = Vec::new();
    let mut top_same = 0usize;
    for (e, r) in exact.iter().zip(rounded) {
        winrate.push((e.white_win - r.white_win).abs());
        lead.push((e.white_lead - r.white_lead).abs());
        let mut divergence = 0.0f64;
        for (&p, &q) in e.policy.iter().zip(&r.policy) {
            if p > 0.0 {
                divergence += f64::from(p) * (f64::from(p) / f64::from(q.max(1e-30))).ln();
            }
        }
        kl.push(divergence.max(0.0));
        let top = |policy: &[f32]| {
            policy
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1))
                .map(|(i, _)| i)
        };
        if top(&e.policy) == top(&r.policy) {
            top_same += 1;
        }
        let n = e.white_ownership.len() as f64;
        ownership.push(
            e.white_ownership
                .iter()
                .zip(&r.white_ownership)
                .map(|(a, b)| f64::from((a - b).abs()))
                .sum::<f64>()
                / n,
        );
    }
    let n = exact.len();
    println!("| measure | mean | 99th percentile | max |");
    println!("|---|---:|---:|---:|");
    let mut cells = Vec::new();
    for (name, values) in [
        ("win rate, absolute error", winrate),
        ("score lead, absolute error (points)", lead),
        ("policy KL divergence (f32 ‖ bf16)", kl),
        ("ownership, mean absolute error per point", ownership),
    ] {
        let (mean, p99, max) = summary(values);
        println!("| {name} | {mean:.6} | {p99:.6} | {max:.6} |");
        cells.push((mean, p99, max));
    }
    let top = 100.0 * top_same as f64 / n as f64;
    println!("top policy move the same: {top_same} of {n} ({top:.2}%)");
    format!(
        "{:.4} / {:.4} / {:.4} | {:.3} / {:.3} / {:.3} | {:.5} / {:.4} | {top:.1}% | {:.4} / {:.4}",
        cells[0].0,
        cells[0].1,
        cells[0].2,
        cells[1].0,
        cells[1].1,
        cells[1].2,
        cells[2].0,
        cells[2].1,
        cells[3].0,
        cells[3].1
    )
}
