//! `tengen bench playouts`, `search` and `katago`: the benchmarks of
//! [`tengen::bench`] and [`tengen_katago::bench`] under a progress bar.

use std::io;
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tengen::bench::{self, BenchConfig, SearchBenchConfig, SearchProgress};
use tengen::progress::SuspendingWriter;

use super::seed_or_clock;
use crate::args::{KatagoBenchArgs, PlayoutsArgs, SearchArgs};

/// Runs `tengen bench playouts`.
pub fn playouts(args: PlayoutsArgs) -> Result<()> {
    let config = BenchConfig {
        size: args.size,
        duration: Duration::from_secs_f64(args.seconds),
        seed: seed_or_clock(args.seed),
        policy: args.policy,
    };
    let repeat = args.repeat as usize;
    let run_ms = config.duration.as_millis() as u64;
    let bar =
        ProgressBar::with_draw_target(Some(run_ms * repeat as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg} [{elapsed_precise}] {wide_bar} {percent}%")
            .context("progress bar template")?,
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
    };
    let runs = config.repeat * config.threads.len();
    let bar = ProgressBar::with_draw_target(Some(runs as u64), ProgressDrawTarget::stderr());
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
    use std::io::Write;
    use tengen_katago::bench::{forward_rate, gemm_rate};
    use tengen_katago::model::ModelDesc;

    let model = ModelDesc::load(&args.model)?;
    let duration = Duration::from_secs_f64(args.seconds);
    let runs = args.size.len() * args.batch.len() * args.threads.len() * args.repeat as usize;
    let bar = ProgressBar::with_draw_target(Some(runs as u64), ProgressDrawTarget::stderr());
    let mut out = SuspendingWriter::new(&bar, io::stdout().lock());
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
        "{:>5} {:>5} {:>7} {:>12} {:>10} {:>14} {:>8}",
        "size", "batch", "threads", "positions/s", "GFLOP/s", "plain GFLOP/s", "ratio"
    )?;
    for &size in &args.size {
        let side = size as usize;
        let gflop = model.flops(side * side) / 1e9;
        for &batch in &args.batch {
            for &threads in &args.threads {
                let (mut nets, mut plains) = (Vec::new(), Vec::new());
                for run in 0..args.repeat {
                    bar.set_message(format!("{size}x{size}, batch {batch}, {threads} thread(s), run {}", run + 1));
                    // Alternate the network and the plain product so that
                    // both see the same machine load.
                    nets.push(forward_rate(&model, side, batch as usize, threads as usize, duration).per_second);
                    plains.push(gemm_rate(1024, 1024, 1024, threads as usize, duration / 2).gflops);
                    bar.inc(1);
                }
                let positions = median(nets);
                let plain = median(plains);
                writeln!(
                    out,
                    "{:>5} {:>5} {:>7} {:>12.2} {:>10.1} {:>14.1} {:>8.2}",
                    format!("{size}x{size}"),
                    batch,
                    threads,
                    positions,
                    positions * gflop,
                    plain,
                    positions * gflop / plain
                )?;
            }
        }
    }
    bar.finish_and_clear();
    if args.visits > 0 {
        writeln!(out, "\nsearch from the empty board ({} visits, batch 16)", args.visits)?;
        writeln!(out, "{:>5} {:>7} {:>10} {:>10}", "size", "threads", "visits", "visits/s")?;
        for &size in &args.size {
            for &threads in &args.threads {
                let spec: tengen_bots::BotSpec = format!(
                    "katago:model={},visits={},threads={threads},reuse=false",
                    args.model.display(),
                    args.visits
                )
                .parse()?;
                let mut bot = tengen_bots::make_bot(&spec, 1)?;
                let size = tengen_core::BoardSize::square(size as usize)?;
                let game = tengen_core::Game::new(size, tengen_core::Rules::default());
                let start = std::time::Instant::now();
                let _ = bot.select_move(&game);
                let elapsed = start.elapsed().as_secs_f64();
                let visits = bot.analysis().map_or(args.visits, |a| a.playouts);
                writeln!(
                    out,
                    "{:>5} {:>7} {:>10} {:>10.1}",
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
