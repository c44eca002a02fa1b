//! `tengen bench playouts` and `tengen bench search`: the benchmarks of
//! [`tengen::bench`] under a progress bar.

use std::io;
use std::time::Duration;

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tengen::bench::{self, BenchConfig, SearchBenchConfig, SearchProgress};
use tengen::progress::SuspendingWriter;

use super::seed_or_clock;
use crate::args::{PlayoutsArgs, SearchArgs};

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
