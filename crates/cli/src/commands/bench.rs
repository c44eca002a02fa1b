//! `tengen bench playouts`, `search` and `katago`: the benchmarks of
//! [`tengen::bench`] and [`tengen_katago::bench`] under a progress bar.

use std::io;
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::ProgressBar;
use tengen::bench::{self, BenchConfig, SearchBenchConfig, SearchProgress};
use tengen::progress::{stderr_bar, SuspendingWriter};
use tengen_katago::bench::{forward_rate, gemm_rate, layer_profile};
use tengen_katago::forward::profile::Profile;
use tengen_katago::forward::{Exec, Features, Kernel, Precision};
use tengen_katago::model::ModelDesc;

use super::seed_or_clock;
use crate::args::{KatagoBenchArgs, PlayoutsArgs, PolicyBenchArgs, SearchArgs};

/// The eye test named on the command line, or the MCTS bot's own.
fn eye_test(name: Option<&str>) -> tengen_core::EyeTest {
    match name {
        Some("book") => tengen_core::EyeTest::Book,
        Some("real") => tengen_core::EyeTest::Real,
        _ => tengen_mcts::playout::PlayoutPolicy::default().eyes,
    }
}

/// Runs `tengen bench playouts`.
pub fn playouts(args: PlayoutsArgs) -> Result<()> {
    let config = BenchConfig {
        size: args.size,
        duration: Duration::from_secs_f64(args.seconds),
        seed: seed_or_clock(args.seed),
        policy: args.policy,
        eyes: eye_test(args.eyes.as_deref()),
    };
    let repeat = args.repeat as usize;
    let run_ms = config.duration.as_millis() as u64;
    let bar = stderr_bar(
        Some(run_ms * repeat as u64),
        "{msg} [{elapsed_precise}] {wide_bar} {percent}%",
    );
    let mut out = SuspendingWriter::new(&bar, io::stdout().lock());
    bench::run(&config, repeat, &mut out, &mut |run, elapsed| {
        bar.set_message(format!("run {}/{repeat}", run + 1));
        bar.set_position(run as u64 * run_ms + (elapsed.as_millis() as u64).min(run_ms));
    })?;
    bar.finish_and_clear();
    Ok(())
}

/// Runs `tengen bench search`.
pub fn search(args: SearchArgs) -> Result<()> {
    let config = SearchBenchConfig {
        size: args.size,
        duration: Duration::from_secs_f64(args.seconds),
        threads: args.threads.iter().map(|&t| t as usize).collect(),
        repeat: args.repeat as usize,
        seed: seed_or_clock(args.seed),
        prior: match args.priors.as_str() {
            "rules" => tengen_mcts::prior::PriorSource::Rules,
            _ => tengen_mcts::prior::PriorSource::default(),
        },
        eyes: eye_test(args.eyes.as_deref()),
    };
    let runs = config.repeat * config.threads.len();
    let bar = stderr_bar(
        Some(runs as u64),
        "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} runs",
    );
    let mut out = SuspendingWriter::new(&bar, io::stdout().lock());
    bench::run_search(&config, &mut out, &mut |event| match event {
        SearchProgress::Measuring { threads, run } => {
            bar.set_message(format!("{threads} thread(s), run {}", run + 1));
        }
        SearchProgress::Measured => bar.inc(1),
        SearchProgress::Finished => bar.finish_and_clear(),
    })?;
    Ok(())
}

/// The median of measurements.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Runs `tengen bench katago`: for each size, batch and thread count, the
/// network's positions/s and GFLOP/s, the GFLOP/s of a plain product on the
/// same GEMM in the same run, and the katago bot's visits per second.
pub fn katago(args: KatagoBenchArgs) -> Result<()> {
    let model = ModelDesc::load(&args.model)?;
    let features = Features::detect();
    let kernels = distinct_kernels(&args.precision, features);
    let runs = kernels.len()
        * args.size.len()
        * args.batch.len()
        * args.threads.len()
        * args.repeat as usize;
    let bar = stderr_bar(
        Some(runs as u64),
        "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} runs",
    );
    let mut out = SuspendingWriter::new(&bar, io::stdout().lock());
    write_katago_header(&mut out, &model, &args, features)?;
    let bench = NetworkBench {
        model: &model,
        args: &args,
        bar: &bar,
        duration: Duration::from_secs_f64(args.seconds),
    };
    let profiles = bench.measure_all(&mut out, &kernels)?;
    bar.finish_and_clear();
    write_profiles(&mut out, &profiles)?;
    if args.visits > 0 {
        bench_bot_search(&mut out, &args, &kernels)?;
    }
    Ok(())
}

/// A layer profile with the precision, kernel, size, batch and threads it
/// was measured with.
type ProfileRun = (Precision, Kernel, u32, u32, u32, Profile);

/// Each kernel once, with the first precision that picks it.
fn distinct_kernels(precisions: &[Precision], features: Features) -> Vec<(Precision, Kernel)> {
    let mut kernels = Vec::new();
    for &precision in precisions {
        let kernel = precision.kernel(features);
        if !kernels.iter().any(|&(_, k)| k == kernel) {
            kernels.push((precision, kernel));
        }
    }
    kernels
}

/// The lines above the table of `tengen bench katago`: the network, the
/// CPU's features, and the table's header.
fn write_katago_header(
    out: &mut impl io::Write,
    model: &ModelDesc,
    args: &KatagoBenchArgs,
    features: Features,
) -> Result<()> {
    writeln!(
        out,
        "network {} (model version {}, {:.1} M weights); medians of {} runs of {:.1} s",
        model.name,
        model.version,
        model.parameter_count() as f64 / 1e6,
        args.repeat,
        args.seconds
    )?;
    writeln!(
        out,
        "CPU: AVX-512-BF16 {}, AMX-BF16 {}, AVX-512-VNNI {}, AMX-INT8 {}, AVX-VNNI {} (TENGEN_KERNEL: {}); the plain GFLOP/s is a 1024×1024×1024 product on the same kernel",
        if features.avx512_bf16 { "yes" } else { "no" },
        if features.amx_bf16 { "yes" } else { "no" },
        if features.avx512_vnni { "yes" } else { "no" },
        if features.amx_int8 { "yes" } else { "no" },
        if features.avx_vnni { "yes" } else { "no" },
        tengen_katago::forward::KernelCap::from_env().name(),
    )?;
    writeln!(
        out,
        "{:>9} {:<40} {:>5} {:>5} {:>7} {:>12} {:>10} {:>14} {:>8}",
        "precision",
        "kernel",
        "size",
        "batch",
        "threads",
        "positions/s",
        "GFLOP/s",
        "plain GFLOP/s",
        "ratio"
    )?;
    Ok(())
}

/// The network's speed measured under `tengen bench katago`.
struct NetworkBench<'a> {
    model: &'a ModelDesc,
    args: &'a KatagoBenchArgs,
    bar: &'a ProgressBar,
    /// The length of one run.
    duration: Duration,
}

impl NetworkBench<'_> {
    /// Measures every kernel, size, batch and thread count, a table line
    /// each; returns the layer profiles when they are asked for.
    fn measure_all(
        &self,
        out: &mut impl io::Write,
        kernels: &[(Precision, Kernel)],
    ) -> Result<Vec<ProfileRun>> {
        let args = self.args;
        let mut profiles = Vec::new();
        for &(precision, kernel) in kernels {
            for &size in &args.size {
                for &batch in &args.batch {
                    for &threads in &args.threads {
                        let profile = self.measure(out, precision, kernel, size, batch, threads)?;
                        if let Some(profile) = profile {
                            profiles.push((precision, kernel, size, batch, threads, profile));
                        }
                    }
                }
            }
        }
        Ok(profiles)
    }

    /// Measures one kernel, size, batch and thread count: the medians of
    /// the network's and the plain product's rates, then the layer profile
    /// if asked for; writes the table line and returns the profile.
    fn measure(
        &self,
        out: &mut impl io::Write,
        precision: Precision,
        kernel: Kernel,
        size: u32,
        batch: u32,
        threads: u32,
    ) -> Result<Option<Profile>> {
        let (model, bar, duration) = (self.model, self.bar, self.duration);
        let side = size as usize;
        let gflop = model.flops(side * side) / 1e9;
        let exec = Exec {
            threads: threads as usize,
            kernel,
        };
        let (mut nets, mut plains) = (Vec::new(), Vec::new());
        for run in 0..self.args.repeat {
            bar.set_message(format!(
                "{size}x{size}, batch {batch}, {threads} thread(s), run {}",
                run + 1
            ));
            // Alternate the network and the plain product so that
            // both see the same machine load.
            nets.push(forward_rate(model, side, batch as usize, exec, duration).per_second);
            plains.push(gemm_rate(1024, 1024, 1024, exec, duration / 2).gflops);
            bar.inc(1);
        }
        let positions = median(nets);
        let plain = median(plains);
        let profile = if self.args.layers {
            bar.set_message(format!(
                "{size}x{size}, batch {batch}, {threads} thread(s), layers"
            ));
            Some(layer_profile(model, side, batch as usize, exec, duration))
        } else {
            None
        };
        writeln!(
            out,
            "{:>9} {:<40} {:>5} {:>5} {:>7} {:>12.2} {:>10.1} {:>14.1} {:>8.2}",
            precision.to_string(),
            kernel.to_string(),
            format!("{size}x{size}"),
            batch,
            threads,
            positions,
            positions * gflop,
            plain,
            positions * gflop / plain
        )?;
        Ok(profile)
    }
}

/// Where the time goes, for each layer profile measured.
fn write_profiles(out: &mut impl io::Write, profiles: &[ProfileRun]) -> Result<()> {
    for (precision, kernel, size, batch, threads, profile) in profiles {
        writeln!(
            out,
            "\nwhere the time goes: {precision} ({kernel}), {size}x{size}, batch {batch}, {threads} thread(s): {:.1} ms a pass ({} passes)",
            profile.pass_millis(),
            profile.passes
        )?;
        writeln!(
            out,
            "  {:<30} {:>9} {:>7} {:>12}",
            "layers", "ms/pass", "share", "waiting ms"
        )?;
        for line in profile.lines() {
            let name = line
                .class
                .map_or("waiting between threads", |class| class.name());
            writeln!(
                out,
                "  {:<30} {:>9.2} {:>6.1}% {:>12.2}",
                name,
                line.millis,
                line.share * 100.0,
                line.waiting_millis
            )?;
        }
    }
    Ok(())
}

/// The katago bot's visits per second from the empty board, for each
/// precision, size and thread count.
fn bench_bot_search(
    out: &mut impl io::Write,
    args: &KatagoBenchArgs,
    kernels: &[(Precision, Kernel)],
) -> Result<()> {
    writeln!(
        out,
        "\nsearch from the empty board ({} visits, the bot's default batches: one position per 32 visits, at most 8, at least one per thread; after a short untimed search that packs the weights)",
        args.visits
    )?;
    writeln!(
        out,
        "{:>9} {:>5} {:>7} {:>10} {:>10}",
        "precision", "size", "threads", "visits", "visits/s"
    )?;
    for &(precision, _) in kernels {
        for &size in &args.size {
            for &threads in &args.threads {
                let spec = |visits: u64| -> Result<tengen_bots::BotSpec> {
                    Ok(format!(
                        "katago:model={},visits={visits},threads={threads},reuse=false,precision={precision}",
                        args.model.display(),
                    )
                    .parse()?)
                };
                let size = tengen_core::BoardSize::square(size as usize)?;
                let game = tengen_core::Game::new(size, tengen_core::Rules::default());
                // A short search by another bot first, untimed: the network
                // (loaded once a process, shared by both bots) packs or
                // quantises each layer's weights when the layer is first
                // used, which is no part of a search's speed; the timed
                // bot's evaluation cache starts empty all the same.
                let _ = tengen_bots::make_bot(&spec(16)?, 1)?.select_move(&game);
                let mut bot = tengen_bots::make_bot(&spec(args.visits)?, 1)?;
                let start = std::time::Instant::now();
                let _ = bot.select_move(&game);
                let elapsed = start.elapsed().as_secs_f64();
                let visits = bot.analysis().map_or(args.visits, |a| a.playouts);
                writeln!(
                    out,
                    "{:>9} {:>5} {:>7} {:>10} {:>10.1}",
                    precision.to_string(),
                    format!("{}x{}", size.width(), size.height()),
                    threads,
                    visits,
                    visits as f64 / elapsed
                )?;
            }
        }
    }
    Ok(())
}

/// Runs `tengen bench policy`: top-1 and top-5 agreement of a KataGo
/// network's raw policy with the moves of game records.
pub fn policy(args: PolicyBenchArgs) -> Result<()> {
    use std::io::Write;
    use tengen_core::{Action, Game, Move};
    use tengen_katago::network::{grid_point, EvalOptions, Network, Symmetries};

    let network = Network::load(&args.model, args.threads as usize)?;
    let (mut files, errors) = tengen::sgf_command::find_records(&args.paths);
    for error in &errors {
        tracing::warn!(%error, "skipped");
    }
    files.sort();
    if let Some(limit) = args.games {
        files.truncate(limit);
    }
    // Every position before a stone of the side to move, with that move.
    let mut positions: Vec<(Game, Move)> = Vec::new();
    let mut games = 0;
    for file in &files {
        let bytes = std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
        let record = match tengen_sgf::read_game_bytes(&bytes) {
            Ok(record) => record,
            Err(error) => {
                tracing::warn!(file = %file.display(), %error, "skipped");
                continue;
            }
        };
        games += 1;
        let mut game = record.game;
        while let Some((color, action)) = game.undo() {
            if let Action::Move(mv @ Move::Play(_)) = action {
                if color == game.to_move() {
                    positions.push((game.clone(), mv));
                }
            }
        }
    }
    let bar = stderr_bar(
        Some(positions.len() as u64),
        "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} (eta {eta})",
    );
    let (mut top1, mut top5, mut counted) = (0usize, 0usize, 0usize);
    let options = EvalOptions::default();
    let start = std::time::Instant::now();
    for chunk in positions.chunks(args.batch as usize) {
        let games: Vec<&Game> = chunk.iter().map(|(g, _)| g).collect();
        let evaluations = match network.evaluate(&games, Symmetries::One(0), &options) {
            Ok(e) => e,
            Err(error) => {
                tracing::warn!(%error, "positions skipped");
                bar.inc(chunk.len() as u64);
                continue;
            }
        };
        for ((game, played), evaluation) in chunk.iter().zip(&evaluations) {
            let size = game.size();
            let width = size.width();
            let mut ranked: Vec<(f32, Move)> = (0..size.height())
                .flat_map(|y| (0..width).map(move |x| (x, y)))
                .map(|(x, y)| {
                    (
                        evaluation.policy[y * width + x],
                        Move::Play(grid_point(size, x, y)),
                    )
                })
                .chain(std::iter::once((
                    evaluation.policy[width * size.height()],
                    Move::Pass,
                )))
                .collect();
            ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
            let rank = ranked.iter().position(|(_, mv)| mv == played);
            counted += 1;
            top1 += usize::from(rank == Some(0));
            top5 += usize::from(rank.is_some_and(|r| r < 5));
        }
        bar.inc(chunk.len() as u64);
        bar.set_message(format!(
            "top-1 {:.1}%",
            100.0 * top1 as f64 / counted.max(1) as f64
        ));
    }
    bar.finish_and_clear();
    let seconds = start.elapsed().as_secs_f64();
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "{games} records, {counted} positions: top-1 {:.1}% ({top1}), top-5 {:.1}% ({top5}); {:.1} positions/s",
        100.0 * top1 as f64 / counted.max(1) as f64,
        100.0 * top5 as f64 / counted.max(1) as f64,
        counted as f64 / seconds
    )?;
    Ok(())
}

/// `tengen bench analysis`: a whole game as one query to each engine (this
/// binary's `analysis`, and KataGo's when given), timed from the query to
/// its last final response.
pub fn analysis(args: crate::args::AnalysisBenchArgs) -> Result<()> {
    use std::io::Write;
    use tengen::analysis_bench::{game_query, time_engine, EngineCommand};

    let text = std::fs::read_to_string(&args.sgf)?;
    let record =
        tengen_sgf::read_game(&text).map_err(|e| anyhow::anyhow!("{}: {e}", args.sgf.display()))?;
    let query = game_query(&record.game, args.turns);
    let positions = query.positions;
    let exe = std::env::current_exe()?;
    // Each engine's command line for a thread count and a count of
    // positions searched at once.
    type CommandFor = Box<dyn Fn(usize, usize) -> EngineCommand>;
    let mut engines: Vec<(String, CommandFor)> = Vec::new();
    let model = args.model.clone();
    let tengen = move |threads: usize, analysis: usize| EngineCommand {
        program: exe.clone().into_os_string(),
        args: vec![
            "analysis".into(),
            "--model".into(),
            model.clone().into_os_string(),
            "--override-config".into(),
            format!("numNNThreads={threads},numAnalysisThreads={analysis}").into(),
        ],
    };
    engines.push(("tengen".to_string(), Box::new(tengen)));
    if let Some(katago) = &args.katago {
        let katago = katago.clone();
        engines.push((
            "katago".to_string(),
            Box::new(move |threads: usize, analysis: usize| EngineCommand {
                program: "sh".into(),
                args: vec![
                    "-c".into(),
                    format!(
                        "exec {katago} -override-config numEigenThreadsPerModel={threads},numNNServerThreadsPerModel=1,numAnalysisThreads={analysis},numSearchThreadsPerAnalysisThread=1"
                    )
                    .into(),
                ],
            }),
        ));
    }
    let runs = args.visits.len() * args.threads.len() * 2 * engines.len() * args.repeat;
    let bar = stderr_bar(
        Some(runs as u64),
        "{msg} [{elapsed_precise}] {wide_bar} {pos}/{len} runs",
    );
    let mut out = SuspendingWriter::new(&bar, io::stdout().lock());
    writeln!(
        out,
        "{}: {positions} positions of a {}x{} game; medians of {} run(s)",
        args.sgf.display(),
        query.size.0,
        query.size.1,
        args.repeat
    )?;
    writeln!(
        out,
        "{:>7} {:>7} {:>8} {:>8} {:>12} {:>14}",
        "engine", "visits", "threads", "queries", "positions/s", "tengen/katago"
    )?;
    for &visits in &args.visits {
        for &threads in &args.threads {
            for analysis in [1, args.analysis_threads.max(1)] {
                let mut rates = Vec::new();
                for (name, command) in &engines {
                    let mut samples = Vec::new();
                    for run in 0..args.repeat {
                        bar.set_message(format!(
                            "{name}, {visits} visits, {threads} thread(s), {analysis} at once, run {}",
                            run + 1
                        ));
                        let elapsed = time_engine(
                            &command(threads, analysis),
                            query.size,
                            &query.line(visits),
                        )?;
                        samples.push(positions as f64 / elapsed.as_secs_f64());
                        bar.inc(1);
                    }
                    samples.sort_by(f64::total_cmp);
                    rates.push((name.clone(), samples[samples.len() / 2]));
                }
                let katago = rates.iter().find(|(n, _)| n == "katago").map(|(_, r)| *r);
                for (name, rate) in &rates {
                    let ratio = match (name.as_str(), katago) {
                        ("tengen", Some(k)) => format!("{:.2}", rate / k),
                        _ => String::new(),
                    };
                    writeln!(
                        out,
                        "{name:>7} {visits:>7} {threads:>8} {analysis:>8} {rate:>12.2} {ratio:>14}"
                    )?;
                }
            }
        }
    }
    bar.finish_and_clear();
    Ok(())
}
