//! `tengen review`: game records analysed and written back with their
//! review, one record or whole folders, resumable and split into shards.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use indicatif::ProgressBar;
use tengen::progress::stderr_bar;
use tengen_core::BoardSize;
use tengen_review::collection::{self, Job, Plan};
use tengen_review::{Analyser, AnalyserOptions, GameReview, ReviewError, Reviewer};
use tengen_sgf::Record;

use crate::args::ReviewArgs;

/// A record read and checked, or why it cannot be reviewed.
struct Prepared {
    job: Job,
    record: Result<Record, ReviewError>,
}

pub fn run(args: ReviewArgs) -> Result<()> {
    let records = collection::records(&args.records).map_err(anyhow::Error::msg)?;
    let (plan, single) = plan_of(&args, &records)?;
    if !plan.done.is_empty() {
        println!(
            "{} of this run's {} records already reviewed in {}: skipped",
            plan.done.len(),
            plan.done.len() + plan.jobs.len(),
            args.out.as_deref().unwrap_or(Path::new(".")).display()
        );
    }
    if plan.jobs.is_empty() {
        println!("nothing to review");
        return Ok(());
    }

    let (analyser, reviewer) = start_analyser(&args)?;
    let prepared = prepare(&args, plan.jobs);
    let failures = Mutex::new(Vec::new());
    for item in &prepared {
        if let Err(error) = &item.record {
            report_failure(&failures, &item.job.input, error);
        }
    }
    let (bar, reviewable) = progress_bar(&prepared);
    let started = Instant::now();
    let session = Session {
        analyser: &analyser,
        reviewer: &reviewer,
        prepared: &prepared,
        failures: &failures,
        bar: &bar,
        reviewable,
        next: AtomicUsize::new(0),
        finished: AtomicUsize::new(0),
        reviewed_positions: AtomicUsize::new(0),
        summaries: Mutex::new(Vec::new()),
    };
    std::thread::scope(|scope| {
        let records_at_once = if args.reproducible {
            1
        } else {
            args.records_at_once.max(1)
        };
        for _ in 0..records_at_once {
            scope.spawn(|| session.work());
        }
    });
    bar.finish_and_clear();
    let done = session.finished.load(Ordering::Relaxed);
    let analysed = session.reviewed_positions.load(Ordering::Relaxed);
    let summaries = session
        .summaries
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    drop(analyser);
    let seconds = started.elapsed().as_secs_f64();
    if single {
        if let Some((review, size)) = summaries.first() {
            print_mistakes(review, *size);
        }
    }
    if done > 0 {
        println!(
            "{done} records reviewed ({analysed} positions, {} visits each) in {seconds:.1} s: \
             {:.2} records a minute, {:.2} positions a second",
            args.visits,
            done as f64 * 60.0 / seconds.max(1e-9),
            analysed as f64 / seconds.max(1e-9),
        );
    }
    let failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    if !failures.is_empty() {
        bail!(
            "{} of {} records could not be reviewed",
            failures.len(),
            prepared.len()
        );
    }
    Ok(())
}

/// The records to review and where their reviews go: into `--out` (made
/// if need be) for this run's shard, else the one record's review beside
/// it or at `-o`. Says too whether it is that single record.
fn plan_of(args: &ReviewArgs, records: &[PathBuf]) -> Result<(Plan, bool)> {
    Ok(match &args.out {
        Some(out) => {
            std::fs::create_dir_all(out)
                .with_context(|| format!("cannot make the folder {}", out.display()))?;
            let shard = args.shard.unwrap_or(tengen_match::Shard::WHOLE);
            let plan = collection::plan(records, out, shard.index(), shard.count())
                .map_err(anyhow::Error::msg)?;
            (plan, false)
        }
        None => {
            let [record] = records else {
                bail!(
                    "{} records: give --out DIR for their reviews (-o names the review of one record)",
                    records.len()
                );
            };
            let output = args.output.clone().unwrap_or_else(|| beside(record));
            let plan = Plan {
                jobs: vec![Job {
                    index: 0,
                    input: record.clone(),
                    output,
                }],
                done: Vec::new(),
                total: 1,
            };
            (plan, true)
        }
    })
}

/// Loads the network and starts the analyser, with the reviewer's
/// credit for the reviews.
fn start_analyser(args: &ReviewArgs) -> Result<(Analyser, Reviewer)> {
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |t| t as usize,
    );
    let network = tengen_puct::katago::load_network(&args.model, threads, args.precision)
        .map_err(|reason| anyhow::anyhow!("model {}: {reason}", args.model.display()))?;
    let reviewer = Reviewer {
        program: format!("tengen {}", env!("CARGO_PKG_VERSION")),
        network: network.model().name.clone(),
        visits: args.visits,
    };
    let analyser = Analyser::new(
        network,
        &args.model,
        AnalyserOptions {
            visits: args.visits,
            positions_at_once: if args.reproducible {
                1
            } else {
                args.positions_at_once as usize
            },
            nn_threads: threads,
            ..AnalyserOptions::default()
        },
    );
    Ok((analyser, reviewer))
}

/// Reads every record first, under `--rules` if given, and checks it: the
/// bar counts positions, and a record that cannot be reviewed is said at
/// once.
fn prepare(args: &ReviewArgs, jobs: Vec<Job>) -> Vec<Prepared> {
    jobs.into_iter()
        .map(|job| {
            let record = tengen_review::read_record(&job.input).and_then(|mut record| {
                if let Some(rules) = args.rules {
                    let komi = record.game.rules().komi;
                    record.game.set_rules(rules.with_komi(komi));
                }
                tengen_review::check(&record, tengen_katago::network::MAX_BOARD_SIDE)
                    .map(|()| record)
            });
            Prepared { job, record }
        })
        .collect()
}

/// The progress bar over the positions of the reviewable records, and how
/// many records those are.
fn progress_bar(prepared: &[Prepared]) -> (ProgressBar, usize) {
    let positions: usize = prepared
        .iter()
        .filter_map(|p| p.record.as_ref().ok())
        .map(record_positions)
        .sum();
    let reviewable = prepared.iter().filter(|p| p.record.is_ok()).count();
    let bar = stderr_bar(
        Some(positions as u64),
        "{spinner} reviewing [{bar:40}] {pos}/{len} positions, {msg} ({elapsed}, {eta} left)",
    );
    bar.set_message(format!("0/{reviewable} records"));
    (bar, reviewable)
}

/// What the threads reviewing the records share.
struct Session<'a> {
    analyser: &'a Analyser,
    reviewer: &'a Reviewer,
    prepared: &'a [Prepared],
    failures: &'a Mutex<Vec<PathBuf>>,
    bar: &'a ProgressBar,
    /// Records that can be reviewed.
    reviewable: usize,
    /// The next record to take.
    next: AtomicUsize,
    /// Records reviewed and written.
    finished: AtomicUsize,
    /// Positions of those records.
    reviewed_positions: AtomicUsize,
    /// Each review written, with its board size.
    summaries: Mutex<Vec<(GameReview, BoardSize)>>,
}

impl Session<'_> {
    /// One thread's loop: takes the next record until none is left and
    /// reviews it if it can be reviewed.
    fn work(&self) {
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = self.prepared.get(index) else {
                break;
            };
            let Ok(record) = &item.record else {
                continue;
            };
            self.review(item, record);
        }
    }

    /// Reviews one record and writes the review, advancing the bar by its
    /// positions; says where it went, or why it failed.
    fn review(&self, item: &Prepared, record: &Record) {
        let bar = self.bar;
        let mut last = 0;
        let result = tengen_review::review_record(self.analyser, record, self.reviewer, &mut |n| {
            bar.inc((n - last) as u64);
            last = n;
        })
        .and_then(|(review, text)| {
            collection::write_whole(&item.job.output, &text).map_err(|e| ReviewError::Write {
                path: item.job.output.display().to_string(),
                reason: e.to_string(),
            })?;
            Ok(review)
        });
        match result {
            Ok(review) => {
                self.reviewed_positions
                    .fetch_add(review.positions.len(), Ordering::Relaxed);
                let done = self.finished.fetch_add(1, Ordering::Relaxed) + 1;
                bar.set_message(format!("{done}/{} records", self.reviewable));
                let line = format!(
                    "{} → {}",
                    item.job.input.display(),
                    item.job.output.display()
                );
                bar.suspend(|| println!("{line}"));
                self.summaries
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((review, record.game.size()));
            }
            Err(error) => {
                bar.inc(((record_positions(record)) - last) as u64);
                bar.suspend(|| report_failure(self.failures, &item.job.input, &error));
            }
        }
    }
}

/// Positions of a record: one before each move and one after the last.
fn record_positions(record: &Record) -> usize {
    record.game.moves().len() + 1
}

/// `NAME-review.sgf` beside the record.
fn beside(record: &Path) -> PathBuf {
    let stem = record
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "record".to_string());
    record.with_file_name(format!("{stem}-review.sgf"))
}

/// Says why a record could not be reviewed, on one line naming the file.
fn report_failure(failures: &Mutex<Vec<PathBuf>>, input: &Path, error: &ReviewError) {
    eprintln!("{}: {error}", input.display());
    failures
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(input.to_path_buf());
}

/// Each side's biggest mistakes, for a person at the terminal.
fn print_mistakes(review: &tengen_review::GameReview, size: tengen_core::BoardSize) {
    for color in [tengen_core::Color::Black, tengen_core::Color::White] {
        let (moves, lost) = review.total_points_lost(color);
        let mistakes: Vec<String> = review
            .mistakes(color, tengen_review::review::MISTAKES_LISTED)
            .iter()
            .map(|m| format!("{} {} ({:.1})", m.number, size.gtp(m.mv), m.points_lost))
            .collect();
        println!(
            "{}: {moves} moves rated, {lost:.1} points lost; biggest mistakes (move, points lost): {}",
            match color {
                tengen_core::Color::Black => "Black",
                tengen_core::Color::White => "White",
            },
            if mistakes.is_empty() {
                "none".to_string()
            } else {
                mistakes.join(", ")
            }
        );
        if let Some(strength) = review.strength(color, size.points_count()) {
            println!(
                "  plays about {} ({:.1} points lost a move, each counted up to {} points)",
                strength.rank,
                strength.mean_loss,
                tengen_review::strength::LOSS_CAP
            );
        }
    }
}
