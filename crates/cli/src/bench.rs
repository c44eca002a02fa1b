//! Benchmarks: how many playouts from the empty board one thread plays per
//! second (light, uniformly random ones, or the MCTS bot's heavy ones), and
//! how many simulations per second the whole tree search makes on one or
//! more threads ([`search_rate`]).
//!
//! Each light playout copies an empty [`PlayoutBoard`] (the board made for
//! playouts) into a work board with [`Clone::clone_from`] (which copies only
//! the part of the arrays the size uses), plays [`light_playout`] to the end
//! and counts it with [`PlayoutBoard::playout_score`], so that none of the
//! work can be optimised away. Heavy playouts do the same on a full
//! [`Board`], which their patterns and tactics need.

use std::io::{self, Write};
use std::time::{Duration, Instant};

use tengen_core::playout::{light_playout, playout_score, PlayoutStats};
use tengen_core::scoring::winner_by_margin;
use tengen_core::{Board, BoardSize, Color, EyeTest, Game, PlayoutBoard, Rng, Rules};
use tengen_mcts::evaluator::RolloutEvaluator;
use tengen_mcts::mcts::{MctsConfig, MctsSearch};
use tengen_mcts::playout::{PlayoutPolicy, PlayoutScratch};
use tengen_mcts::prior::PriorSource;

use crate::report::size_text;

/// Playouts between two looks at the clock.
pub const CLOCK_CHECK_INTERVAL: u64 = 64;

/// Komi used to decide who won a playout.
pub const BENCH_KOMI: f64 = 7.5;

/// What to measure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BenchConfig {
    /// Board size.
    pub size: BoardSize,
    /// Wall-clock time each measurement runs for.
    pub duration: Duration,
    /// Seed of the first measurement's random numbers; measurement `i` uses
    /// `seed + i`.
    pub seed: u64,
    /// Which playouts.
    pub policy: Policy,
    /// The own eyes heavy playouts never fill.
    pub eyes: EyeTest,
}

/// The playouts a benchmark plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Uniformly random legal non-eye moves ([`light_playout`] on a
    /// [`PlayoutBoard`]).
    Light,
    /// The MCTS bot's playouts ([`PlayoutPolicy::default`]).
    Heavy,
}

impl std::str::FromStr for Policy {
    type Err = String;

    fn from_str(text: &str) -> Result<Policy, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "light" => Ok(Policy::Light),
            "heavy" => Ok(Policy::Heavy),
            _ => Err(format!("unknown playout policy '{text}' (light or heavy)")),
        }
    }
}

impl BenchConfig {
    /// The move cap of one playout: three turns per point, passes included.
    pub fn max_moves(&self) -> u32 {
        3 * self.size.points_count() as u32
    }
}

/// The counts and times of one measurement.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Measurement {
    /// Playouts completed.
    pub playouts: u64,
    /// Stones placed, over all playouts.
    pub moves: u64,
    /// Passes made, over all playouts.
    pub passes: u64,
    /// Playouts stopped by the move cap instead of two passes.
    pub capped: u64,
    /// Playouts Black won with komi [`BENCH_KOMI`].
    pub black_wins: u64,
    /// Wall-clock time.
    pub wall: Duration,
    /// CPU time of the process, if the platform tells it.
    pub cpu: Option<Duration>,
}

impl Measurement {
    /// Adds one playout: what it did and its final count (Black's area
    /// minus White's, before komi).
    pub fn record(&mut self, stats: PlayoutStats, score: i32) {
        self.playouts += 1;
        self.moves += u64::from(stats.moves);
        self.passes += u64::from(stats.passes);
        self.capped += u64::from(stats.capped);
        self.black_wins += u64::from(f64::from(score) > BENCH_KOMI);
    }

    /// The CPU time, or the wall time where the CPU time is unknown.
    pub fn cpu_or_wall(&self) -> Duration {
        self.cpu.unwrap_or(self.wall)
    }

    /// Playouts per second of CPU time (wall time where CPU time is unknown).
    pub fn playouts_per_cpu_second(&self) -> f64 {
        per_second(self.playouts, self.cpu_or_wall())
    }

    /// Playouts per second of wall time.
    pub fn playouts_per_wall_second(&self) -> f64 {
        per_second(self.playouts, self.wall)
    }

    /// Stones placed per second of CPU time.
    pub fn moves_per_cpu_second(&self) -> f64 {
        per_second(self.moves, self.cpu_or_wall())
    }

    /// Mean stones placed per playout.
    pub fn mean_moves(&self) -> f64 {
        ratio(self.moves, self.playouts)
    }

    /// Mean turns per playout, passes included.
    pub fn mean_turns(&self) -> f64 {
        ratio(self.moves + self.passes, self.playouts)
    }

    /// The share of playouts Black won, from 0 to 1.
    pub fn black_win_rate(&self) -> f64 {
        ratio(self.black_wins, self.playouts)
    }

    /// A few lines describing the measurement.
    pub fn report(&self) -> String {
        let cpu = match self.cpu {
            Some(cpu) => format!("{:.2} s CPU", cpu.as_secs_f64()),
            None => "CPU time unknown, wall time used".to_string(),
        };
        format!(
            "playouts        {} in {:.2} s wall, {cpu}\n\
             playouts/s      {:.0} (CPU), {:.0} (wall)\n\
             moves/s         {:.0} (CPU)\n\
             moves/playout   {:.1} stones, {:.1} with passes ({} capped)\n\
             black win rate  {:.2}% (komi {BENCH_KOMI})\n",
            self.playouts,
            self.wall.as_secs_f64(),
            self.playouts_per_cpu_second(),
            self.playouts_per_wall_second(),
            self.moves_per_cpu_second(),
            self.mean_moves(),
            self.mean_turns(),
            self.capped,
            100.0 * self.black_win_rate(),
        )
    }
}

fn per_second(count: u64, time: Duration) -> f64 {
    let seconds = time.as_secs_f64();
    if seconds > 0.0 {
        count as f64 / seconds
    } else {
        0.0
    }
}

fn ratio(count: u64, total: u64) -> f64 {
    if total > 0 {
        count as f64 / total as f64
    } else {
        0.0
    }
}

/// Runs playouts of `config.policy` on one thread until `config.duration` of
/// wall time has passed (the clock is read every [`CLOCK_CHECK_INTERVAL`]
/// playouts). `progress` is called after each look at the clock with the
/// time elapsed.
pub fn measure(config: &BenchConfig, progress: &mut dyn FnMut(Duration)) -> Measurement {
    let mut rng = Rng::new(config.seed);
    let max_moves = config.max_moves();
    match config.policy {
        Policy::Light => {
            let empty = PlayoutBoard::new(config.size);
            let mut work = empty.clone();
            timed(config, progress, |m| {
                work.clone_from(&empty);
                let stats = light_playout(&mut work, Color::Black, &mut rng, max_moves);
                m.record(stats, work.playout_score());
            })
        }
        Policy::Heavy => {
            let empty = Board::new(config.size);
            let mut work = empty.clone();
            let mut heavy = PlayoutPolicy::default();
            heavy.eyes = config.eyes;
            let mut scratch = PlayoutScratch::default();
            timed(config, progress, |m| {
                work.clone_from(&empty);
                let stats = heavy.playout(
                    &mut work,
                    Color::Black,
                    None,
                    &mut rng,
                    max_moves,
                    &mut scratch,
                    |_, _| {},
                );
                let score = playout_score(&work);
                // Learn replies from the result, as the search's playouts do.
                heavy.learn(
                    &mut scratch,
                    winner_by_margin(f64::from(score) - BENCH_KOMI),
                );
                m.record(stats, score);
            })
        }
    }
}

/// Calls `playout` (which plays one playout and records it) until
/// `config.duration` has passed, and times it.
fn timed(
    config: &BenchConfig,
    progress: &mut dyn FnMut(Duration),
    mut playout: impl FnMut(&mut Measurement),
) -> Measurement {
    let mut m = Measurement::default();
    let cpu_start = process_cpu_time();
    let start = Instant::now();
    loop {
        for _ in 0..CLOCK_CHECK_INTERVAL {
            playout(&mut m);
        }
        let elapsed = start.elapsed();
        progress(elapsed);
        if elapsed >= config.duration {
            m.wall = elapsed;
            break;
        }
    }
    m.cpu = match (cpu_start, process_cpu_time()) {
        (Some(begin), Some(end)) => Some(end.saturating_sub(begin)),
        _ => None,
    };
    m
}

/// Runs `repeat` measurements (at least one) of `config`, seeds `seed`,
/// `seed + 1`, ..., writing a header, each measurement's report and the median
/// of playouts per CPU second to `out`. `progress` is called with the index of
/// the measurement under way and its time elapsed so far.
pub fn run(
    config: &BenchConfig,
    repeat: usize,
    out: &mut impl Write,
    progress: &mut dyn FnMut(usize, Duration),
) -> io::Result<Vec<Measurement>> {
    let repeat = repeat.max(1);
    writeln!(
        out,
        "{} playouts on {} ({} points), one thread, {:.1} s per run, {repeat} run{}, seed {}, move cap {}",
        match config.policy {
            Policy::Light => "Light".to_string(),
            Policy::Heavy => format!("Heavy (MCTS, {:?} eyes)", config.eyes),
        },
        size_text(config.size),
        config.size.points_count(),
        config.duration.as_secs_f64(),
        if repeat == 1 { "" } else { "s" },
        config.seed,
        config.max_moves(),
    )?;
    let mut results = Vec::with_capacity(repeat);
    for run in 0..repeat {
        let run_config = BenchConfig {
            seed: config.seed.wrapping_add(run as u64),
            ..*config
        };
        let m = measure(&run_config, &mut |elapsed| progress(run, elapsed));
        writeln!(
            out,
            "\nRun {} of {repeat} (seed {}):",
            run + 1,
            run_config.seed
        )?;
        write!(out, "{}", m.report())?;
        out.flush()?;
        results.push(m);
    }
    let rates: Vec<f64> = results
        .iter()
        .map(Measurement::playouts_per_cpu_second)
        .collect();
    if let Some(median) = median(&rates) {
        writeln!(
            out,
            "\nmedian playouts/s (CPU) over {repeat} run{}: {median:.0}",
            if repeat == 1 { "" } else { "s" }
        )?;
    }
    Ok(results)
}

/// One measurement of the tree search: simulations from the empty board
/// under `komi` 7.5 area rules for `duration`, on `threads` threads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchMeasurement {
    /// Threads searched with.
    pub threads: usize,
    /// Simulations made.
    pub playouts: u64,
    /// Wall time of the search.
    pub wall: Duration,
    /// CPU time of the process during the search, if the platform tells it.
    pub cpu: Option<Duration>,
}

impl SearchMeasurement {
    /// Simulations per second of wall time.
    pub fn rate(&self) -> f64 {
        per_second(self.playouts, self.wall)
    }

    /// Simulations per second of CPU time, over all threads: what the search
    /// does with the processor time it gets, whatever else the machine runs.
    pub fn rate_per_cpu_second(&self) -> Option<f64> {
        self.cpu.map(|cpu| per_second(self.playouts, cpu))
    }
}

/// Runs the MCTS bot's search (heavy playouts, tree, RAVE, priors) on the
/// empty `size` board for `duration` of wall time with `threads` threads and
/// no early stop; `seed` seeds it.
pub fn search_rate(
    size: BoardSize,
    duration: Duration,
    threads: usize,
    seed: u64,
    prior: PriorSource,
    eyes: EyeTest,
) -> SearchMeasurement {
    let mut config = MctsConfig {
        time: Some(duration),
        threads,
        reuse: false,
        resign_below: 0.0,
        early_stop: false,
        ..MctsConfig::default()
    };
    config.params.prior = prior;
    config.params.eyes = eyes;
    let mut policy = PlayoutPolicy::default();
    policy.eyes = eyes;
    let mut bot = MctsSearch::new(config, RolloutEvaluator::new(policy, seed)).into_bot();
    let game = Game::new(size, Rules::default());
    let cpu_start = process_cpu_time();
    let outcome = bot.search(&game);
    let (playouts, wall) = (outcome.playouts, outcome.elapsed);
    let cpu = match (cpu_start, process_cpu_time()) {
        (Some(begin), Some(end)) => Some(end.saturating_sub(begin)),
        _ => None,
    };
    SearchMeasurement {
        threads,
        playouts,
        wall,
        cpu,
    }
}

/// What `tengen bench search` measures.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchBenchConfig {
    /// Board size.
    pub size: BoardSize,
    /// Wall-clock time of each measurement.
    pub duration: Duration,
    /// Thread counts to measure, in order; the first is the baseline of the
    /// speed-ups.
    pub threads: Vec<usize>,
    /// Measurements per thread count (at least one).
    pub repeat: usize,
    /// Seed of round `r`'s searches: `seed + r`.
    pub seed: u64,
    /// Where the search's priors come from.
    pub prior: PriorSource,
    /// The own eyes the tree and the playouts never fill.
    pub eyes: EyeTest,
}

/// Where [`run_search`] is, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SearchProgress {
    /// A measurement begins: `threads` threads, in round `run` (from 0).
    Measuring {
        /// Threads of this measurement.
        threads: usize,
        /// The round, from 0.
        run: usize,
    },
    /// The measurement just begun is over and written.
    Measured,
    /// Every measurement is over; the medians follow.
    Finished,
}

/// Measures the search at every thread count of `config`, in rounds that
/// alternate between the counts (so that a machine slowing down over time
/// does not favour one of them), writing a header, each measurement, and per
/// thread count the median simulations per second with its speed-up over the
/// first count. Returns the measurements per thread count.
pub fn run_search(
    config: &SearchBenchConfig,
    out: &mut impl Write,
    progress: &mut dyn FnMut(SearchProgress),
) -> io::Result<Vec<Vec<SearchMeasurement>>> {
    let repeat = config.repeat.max(1);
    writeln!(
        out,
        "MCTS search on {} from the empty board, {:.1} s per run, {} run(s) per thread count, seed {}, {} priors, {:?} eyes",
        config.size,
        config.duration.as_secs_f64(),
        repeat,
        config.seed,
        match config.prior {
            PriorSource::Rules => "rule".to_string(),
            PriorSource::Learned { weight, .. } => format!("learned (weight {weight})"),
        },
        config.eyes,
    )?;
    let mut results: Vec<Vec<SearchMeasurement>> = vec![Vec::new(); config.threads.len()];
    for run in 0..repeat {
        for (i, &threads) in config.threads.iter().enumerate() {
            progress(SearchProgress::Measuring { threads, run });
            let seed = config.seed.wrapping_add(run as u64);
            let m = search_rate(
                config.size,
                config.duration,
                threads,
                seed,
                config.prior,
                config.eyes,
            );
            writeln!(
                out,
                "threads {:>3}  run {:>3}  simulations {:>9}  in {:.2} s wall = {:.0}/s, {}",
                threads,
                run + 1,
                m.playouts,
                m.wall.as_secs_f64(),
                m.rate(),
                match m.rate_per_cpu_second() {
                    Some(rate) => format!("{rate:.0}/s per CPU second"),
                    None => "time unknown".to_string(),
                }
            )?;
            results[i].push(m);
            progress(SearchProgress::Measured);
        }
    }
    progress(SearchProgress::Finished);
    let medians: Vec<f64> = results
        .iter()
        .map(|runs| {
            let rates: Vec<f64> = runs.iter().map(SearchMeasurement::rate).collect();
            median(&rates).unwrap_or(0.0)
        })
        .collect();
    for ((&threads, &median_rate), runs) in config.threads.iter().zip(&medians).zip(&results) {
        let cpu_rates: Vec<f64> = runs
            .iter()
            .map(|m| m.rate_per_cpu_second().unwrap_or(0.0))
            .collect();
        writeln!(
            out,
            "median  threads {threads:>3}: {median_rate:.0} simulations/s (wall), {:.2}x the first; {:.0} per CPU second",
            median_rate / medians[0].max(1e-9),
            median(&cpu_rates).unwrap_or(0.0)
        )?;
    }
    Ok(results)
}

/// The median of `values` (the mean of the middle two for an even count);
/// `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    })
}

/// CPU time used by this process so far (all threads), where the platform
/// tells it.
#[cfg(unix)]
pub fn process_cpu_time() -> Option<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the duration of the call,
    // and CLOCK_PROCESS_CPUTIME_ID is a clock every supported Unix provides.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return None;
    }
    Some(Duration::new(
        u64::try_from(ts.tv_sec).ok()?,
        u32::try_from(ts.tv_nsec).ok()?,
    ))
}

/// CPU time used by this process so far: not known on this platform.
#[cfg(not(unix))]
pub fn process_cpu_time() -> Option<Duration> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_measurement_counts_sensibly() {
        let config = BenchConfig {
            size: BoardSize::square(5).unwrap(),
            duration: Duration::from_millis(50),
            seed: 1,
            policy: Policy::Light,
            eyes: EyeTest::Book,
        };
        let mut calls = 0;
        let m = measure(&config, &mut |_| calls += 1);
        assert!(calls >= 1);
        assert!(m.playouts >= CLOCK_CHECK_INTERVAL);
        assert_eq!(m.playouts % CLOCK_CHECK_INTERVAL, 0);
        assert!(m.wall >= config.duration);
        assert!(m.black_wins <= m.playouts);
        // Every finished playout ends with two passes.
        assert!(m.passes >= 2 * (m.playouts - m.capped));
        assert!(m.mean_moves() > 5.0 && m.mean_moves() < 75.0);
        assert!(m.mean_turns() > m.mean_moves());
        let report = m.report();
        assert!(report.contains("playouts/s"), "{report}");
        assert!(report.contains("black win rate"), "{report}");
    }

    #[test]
    fn cpu_time_advances() {
        let Some(before) = process_cpu_time() else {
            return;
        };
        let mut x = 0u64;
        for i in 0..5_000_000u64 {
            x = std::hint::black_box(x.wrapping_add(i * i));
        }
        assert!(process_cpu_time().unwrap() >= before, "{x}");
    }

    #[test]
    fn repeated_runs_report_a_median() {
        let config = BenchConfig {
            size: BoardSize::new(3, 4).unwrap(),
            duration: Duration::from_millis(10),
            seed: 5,
            policy: Policy::Heavy,
            eyes: EyeTest::Real,
        };
        let mut out = Vec::new();
        let mut runs_seen = Vec::new();
        let results = run(&config, 3, &mut out, &mut |run, _| runs_seen.push(run)).unwrap();
        assert_eq!(results.len(), 3);
        assert_eq!(runs_seen.first(), Some(&0));
        assert_eq!(runs_seen.last(), Some(&2));
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with("Heavy (MCTS, Real eyes) playouts on 3x4 (12 points)"),
            "{text}"
        );
        assert!(text.contains("Run 3 of 3 (seed 7):"), "{text}");
        assert!(
            text.contains("median playouts/s (CPU) over 3 runs: "),
            "{text}"
        );
    }

    #[test]
    fn the_search_benchmark_searches_for_the_time_given() {
        let size = BoardSize::square(9).unwrap();
        let m = search_rate(
            size,
            Duration::from_millis(200),
            2,
            3,
            PriorSource::default(),
            EyeTest::Real,
        );
        assert_eq!(m.threads, 2);
        assert!(m.playouts > 50, "{m:?}");
        assert!(m.wall >= Duration::from_millis(200), "{m:?}");
        assert!(m.rate() > 0.0);
    }

    #[test]
    fn the_search_benchmark_alternates_thread_counts_and_reports_medians() {
        let config = SearchBenchConfig {
            size: BoardSize::square(5).unwrap(),
            duration: Duration::from_millis(30),
            threads: vec![1, 2],
            repeat: 2,
            seed: u64::MAX,
            prior: PriorSource::Rules,
            eyes: EyeTest::Book,
        };
        let mut out = Vec::new();
        let mut events = Vec::new();
        let results = run_search(&config, &mut out, &mut |event| events.push(event)).unwrap();
        assert_eq!(results.len(), 2);
        assert!(results.iter().all(|runs| runs.len() == 2));
        assert_eq!(results[1][0].threads, 2);
        assert_eq!(
            events[..4],
            [
                SearchProgress::Measuring { threads: 1, run: 0 },
                SearchProgress::Measured,
                SearchProgress::Measuring { threads: 2, run: 0 },
                SearchProgress::Measured,
            ]
        );
        assert_eq!(events.last(), Some(&SearchProgress::Finished));
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 1 + 4 + 2, "{text}");
        assert!(
            lines[0].starts_with("MCTS search on 5 from the empty board, 0.0 s per run, 2 run(s)")
        );
        assert!(
            lines[1].starts_with("threads   1  run   1  simulations"),
            "{text}"
        );
        assert!(
            lines[4].starts_with("threads   2  run   2  simulations"),
            "{text}"
        );
        assert!(lines[5].starts_with("median  threads   1: "), "{text}");
        assert!(lines[5].contains("1.00x the first"), "{text}");
        assert!(lines[6].starts_with("median  threads   2: "), "{text}");
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[5.0, 1.0, 3.0]), Some(3.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }
}
