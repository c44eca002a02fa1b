//! The `tengen` command: argument parsing and wiring only; the work is done in
//! the `tengen` library.

use std::io::{self, IsTerminal, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tengen::bench::{self, BenchConfig};
use tengen::options::{parse_color, parse_komi, parse_rules, parse_size};
use tengen::selfplay::{self, SelfPlayConfig};
use tengen::terminal::Session;
use tengen_core::{BoardSize, Color, Game, Rules};
use tracing_subscriber::EnvFilter;

#[derive(Debug, Parser)]
#[command(name = "tengen", version, about = "The tengen Go engine")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Bot against bot, printing every move and the result.
    Selfplay(SelfplayArgs),
    /// Play against a bot in the terminal (or through a pipe).
    Play(PlayArgs),
    /// Measure the engine's speed.
    Bench {
        #[command(subcommand)]
        bench: BenchCommand,
    },
}

/// Options every game shares.
#[derive(Debug, Args)]
struct GameArgs {
    /// Board size: 19, or WIDTHxHEIGHT such as 7x11.
    #[arg(long, default_value = "9", value_parser = parse_size)]
    size: BoardSize,
    /// Rules: aga, chinese, japanese, tromp-taylor, new-zealand, optionally with
    /// overrides such as japanese,komi=0.
    #[arg(long, default_value = "aga", value_parser = parse_rules)]
    rules: Rules,
    /// Komi, overriding the rules' own.
    #[arg(long, value_parser = parse_komi, allow_negative_numbers = true)]
    komi: Option<f64>,
    /// Seed of the bots' random choices (default: from the clock; logged at info).
    #[arg(long)]
    seed: Option<u64>,
}

#[derive(Debug, Args)]
struct SelfplayArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Bot playing Black.
    #[arg(long, default_value = "random")]
    black: String,
    /// Bot playing White.
    #[arg(long, default_value = "random")]
    white: String,
    /// Pause after each move, in milliseconds.
    #[arg(long, default_value_t = 0)]
    delay_ms: u64,
}

#[derive(Debug, Args)]
struct PlayArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Your colour: black or white.
    #[arg(long, default_value = "black", value_parser = parse_color)]
    color: Color,
    /// The bot to play against.
    #[arg(long, default_value = "random")]
    bot: String,
    /// Fixed handicap stones for Black (2 or more; White then moves first).
    /// Without --komi, a handicap game has komi 0.5.
    #[arg(long, default_value_t = 0)]
    handicap: usize,
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Light random playouts from the empty board on one thread.
    Playouts(PlayoutsArgs),
}

#[derive(Debug, Args)]
struct PlayoutsArgs {
    /// Board size: 19, or WIDTHxHEIGHT such as 7x11.
    #[arg(long, default_value = "9", value_parser = parse_size)]
    size: BoardSize,
    /// Wall-clock seconds per measurement.
    #[arg(long, default_value_t = 10.0, value_parser = parse_seconds)]
    seconds: f64,
    /// Number of measurements; the median is reported.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    repeat: u32,
    /// Seed of the first measurement's random numbers (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!(
            "bad duration '{text}': expected seconds such as 10 or 0.5"
        )),
    }
}

fn main() -> Result<()> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .init();
    let cli = Cli::parse();
    match cli.command {
        Command::Selfplay(args) => selfplay(args),
        Command::Play(args) => play(args),
        Command::Bench {
            bench: BenchCommand::Playouts(args),
        } => bench_playouts(args),
    }
}

/// The given seed, or one from the clock; logged either way so a run can be
/// replayed.
fn seed_or_clock(seed: Option<u64>) -> u64 {
    let seed = seed.unwrap_or_else(|| {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        nanos ^ u64::from(std::process::id()).rotate_left(32)
    });
    tracing::info!(seed, "random seed (replay with --seed {seed})");
    seed
}

fn rules_with_komi(game: &GameArgs) -> Rules {
    match game.komi {
        Some(komi) => game.rules.with_komi(komi),
        None => game.rules,
    }
}

fn selfplay(args: SelfplayArgs) -> Result<()> {
    let config = SelfPlayConfig {
        size: args.game.size,
        rules: rules_with_komi(&args.game),
        black: args.black,
        white: args.white,
        seed: seed_or_clock(args.game.seed),
        delay: Duration::from_millis(args.delay_ms),
    };
    let summary = selfplay::run(&config, &mut io::stdout().lock())?;
    tracing::info!(
        turns = summary.turns,
        capped = summary.capped,
        "self-play finished"
    );
    Ok(())
}

fn play(args: PlayArgs) -> Result<()> {
    let mut rules = rules_with_komi(&args.game);
    if args.handicap > 0 && args.game.komi.is_none() {
        rules = rules.with_komi(0.5);
    }
    let seed = seed_or_clock(args.game.seed);
    let bot = tengen::make_agent(&args.bot, seed)?;
    let game = Game::with_handicap(args.game.size, rules, args.handicap)?;
    let stdin = io::stdin();
    let echo = !stdin.is_terminal();
    let mut session =
        Session::new(game, args.color, bot, stdin.lock(), io::stdout().lock()).with_echo(echo);
    let end = session.run()?;
    tracing::info!(?end, "session over");
    Ok(())
}

fn bench_playouts(args: PlayoutsArgs) -> Result<()> {
    let config = BenchConfig {
        size: args.size,
        duration: Duration::from_secs_f64(args.seconds),
        seed: seed_or_clock(args.seed),
    };
    let repeat = args.repeat as usize;
    let run_ms = config.duration.as_millis() as u64;
    let bar =
        ProgressBar::with_draw_target(Some(run_ms * repeat as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{msg} [{elapsed_precise}] {wide_bar} {percent}%")
            .context("progress bar template")?,
    );
    let mut out = SuspendingWriter {
        bar: &bar,
        inner: io::stdout().lock(),
    };
    bench::run(&config, repeat, &mut out, &mut |run, elapsed| {
        bar.set_message(format!("run {}/{repeat}", run + 1));
        bar.set_position(run as u64 * run_ms + (elapsed.as_millis() as u64).min(run_ms));
    })?;
    bar.finish_and_clear();
    Ok(())
}

/// Writes with the progress bar lifted out of the way, so that report lines and
/// the bar do not garble each other on a terminal.
struct SuspendingWriter<'a, W> {
    bar: &'a ProgressBar,
    inner: W,
}

impl<W: Write> Write for SuspendingWriter<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bar.suspend(|| self.inner.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        self.bar.suspend(|| self.inner.flush())
    }
}
