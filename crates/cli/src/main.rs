//! The `tengen` command: argument parsing and wiring only; the work is done in
//! the `tengen` library.

use std::io::{self, IsTerminal, Write};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::path::PathBuf;
use tengen::bench::{self, BenchConfig};

use tengen::nn_prepare;
use tengen::options::{
    game_settings, parse_color, parse_duration, parse_komi, parse_rules, parse_size, parse_variant,
};
use tengen::selfplay::{self, BatchConfig, SelfPlayConfig};
use tengen::sgf_command;
use tengen::terminal::Session;
use tengen_core::{Agent, BoardSize, Color, Game, Rules, Variant};
use tengen_train::data::PrepareOptions;
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
    /// Serve a bot over the Go Text Protocol on stdin and stdout.
    Gtp(GtpArgs),
    /// Referee games between two GTP engines and report the statistics.
    Match(MatchArgs),
    /// Measure the engine's speed.
    Bench {
        #[command(subcommand)]
        bench: BenchCommand,
    },
    /// Show, check and convert SGF game records.
    Sgf {
        #[command(subcommand)]
        sgf: SgfCommand,
    },
    /// Play the bots in a browser: serve the page and the JSON API.
    Serve(ServeArgs),
    /// Neural networks: training data.
    Nn {
        #[command(subcommand)]
        nn: NnCommand,
    },
}

#[derive(Debug, Subcommand)]
enum NnCommand {
    /// Turn SGF records (.sgf, .mgt, folders recursively) into training
    /// shards: games of one board size that replay legally, split by game
    /// into training and validation sets.
    Prepare(NnPrepareArgs),
    /// Train a network on a prepared data folder: loss and top-1/top-5
    /// accuracy on both splits every epoch, a checkpoint after each.
    Train(NnTrainArgs),
    /// Measure a model's inference speed (positions per second) at the
    /// given batch sizes, on one thread.
    Bench(NnBenchArgs),
    /// Describe a model file: network, encoder, board, provenance.
    Info {
        /// The model file.
        model: PathBuf,
    },
}

#[derive(Debug, Args)]
struct NnPrepareArgs {
    /// Record files and folders.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The data folder to write (train-NNN.tgs, validation-NNN.tgs,
    /// summary.txt); earlier shards in it are replaced.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// The board size kept: 19, or WIDTHxHEIGHT.
    #[arg(long, value_parser = parse_size)]
    size: BoardSize,
    /// The share of games for validation, 0 to 1.
    #[arg(long, default_value_t = 0.1, value_parser = parse_fraction)]
    validation: f64,
    /// Games per shard file.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u32).range(1..))]
    games_per_shard: u32,
    /// Games with fewer moves are skipped.
    #[arg(long, default_value_t = 10)]
    min_moves: usize,
}

#[derive(Debug, Subcommand)]
enum SgfCommand {
    /// Print a record's game information and the board at a move.
    Show {
        /// The record (.sgf or .mgt); its first game tree is shown.
        file: PathBuf,
        /// Show the board after this move of the main line (default: the end).
        #[arg(long = "move", value_name = "N")]
        move_number: Option<usize>,
    },
    /// Replay every game of records and folders of records (.sgf, .mgt,
    /// recursively) and report those that do not replay.
    Check {
        /// Files and folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Re-write a record's main line canonically.
    Convert {
        /// The record; its first game tree is converted.
        file: PathBuf,
        /// Output file (default: standard output).
        #[arg(short = 'o', long = "output", value_name = "OUT")]
        output: Option<PathBuf>,
    },
}

/// Options every game shares.
#[derive(Debug, Args)]
struct GameArgs {
    /// The game: go, or nogo (no captures, no suicide, no passes; who cannot
    /// move loses; the nogo rules and a 7x7 board unless --size is given).
    #[arg(long, default_value = "go", value_parser = parse_variant)]
    game: Variant,
    /// Board size: 19, or WIDTHxHEIGHT such as 7x11 [default: 9, 7 for nogo].
    #[arg(long, value_parser = parse_size)]
    size: Option<BoardSize>,
    /// Rules: aga, chinese, japanese, tromp-taylor, new-zealand, optionally with
    /// overrides such as japanese,komi=0 [default: aga; nogo for --game nogo].
    #[arg(long, value_parser = parse_rules)]
    rules: Option<Rules>,
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
    /// Bot playing both colours (instead of --black and --white).
    #[arg(long, value_name = "SPEC", conflicts_with_all = ["black", "white"])]
    bot: Option<String>,
    /// Pause after each move, in milliseconds.
    #[arg(long, default_value_t = 0, conflicts_with = "games")]
    delay_ms: u64,
    /// Play this many games without printing boards: a progress bar, then
    /// wins by colour and the mean length. Game i's bots are seeded
    /// seed + 2i and seed + 2i + 1.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    games: Option<u32>,
    /// Folder for one SGF record per game (with --games).
    #[arg(long, value_name = "DIR", requires = "games")]
    sgf_dir: Option<PathBuf>,
    /// Games played at once, each on its own thread (with --games).
    #[arg(long, value_name = "K", default_value_t = 1, requires = "games",
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    concurrency: u32,
}

#[derive(Debug, Args)]
struct PlayArgs {
    #[command(flatten)]
    game: GameArgs,
    /// Your colour: black or white.
    #[arg(long, default_value = "black", value_parser = parse_color)]
    color: Color,
    /// The bot to play against, with optional settings (`tengen gtp
    /// --list-bots` lists them).
    #[arg(long, default_value = "random")]
    bot: String,
    /// Fixed handicap stones for Black (2 or more; White then moves first).
    /// Without --komi, a handicap game has komi 0.5.
    #[arg(long, default_value_t = 0)]
    handicap: usize,
}

#[derive(Debug, Args)]
struct GtpArgs {
    #[command(flatten)]
    game: GameArgs,
    /// The bot that answers genmove: a name with optional settings, such as
    /// `random` or `mcts:playouts=20000` (see --list-bots).
    #[arg(long, default_value = "random")]
    bot: String,
    /// List the bots and their settings, then exit.
    #[arg(long)]
    list_bots: bool,
}

#[derive(Debug, Args)]
struct MatchArgs {
    /// An engine's command line; give exactly two. The first plays Black in
    /// even-numbered games.
    #[arg(long = "engine", required = true, num_args = 1)]
    engines: Vec<String>,
    /// Number of games.
    #[arg(long, default_value_t = 10)]
    games: usize,
    /// The game the referee applies: go, or nogo (a pass, capture or suicide
    /// forfeits, the side that cannot move loses; start the engines in their
    /// NoGo mode, such as `tengen gtp --game nogo`).
    #[arg(long, default_value = "go", value_parser = parse_variant)]
    game: Variant,
    /// Board size (square; GTP engines take one number) [default: 9, 7 for
    /// nogo].
    #[arg(long, value_parser = parse_size)]
    size: Option<BoardSize>,
    /// Rules the referee counts by; engines that list tengen-rules or kgs-rules are told them, start others with matching options
    /// [default: chinese; nogo for --game nogo].
    #[arg(long, value_parser = parse_rules)]
    rules: Option<Rules>,
    /// Komi, overriding the rules' own.
    #[arg(long, value_parser = parse_komi, allow_negative_numbers = true)]
    komi: Option<f64>,
    /// Directory for one SGF record per game.
    #[arg(long)]
    sgf_dir: Option<PathBuf>,
    /// Results file, one JSON line per game; a rerun resumes from it
    /// (default: results.jsonl inside --sgf-dir when that is given).
    #[arg(long)]
    results: Option<PathBuf>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    concurrency: usize,
    /// Time per move given to the engines (e.g. 2s, 500ms).
    #[arg(long, value_parser = parse_duration, conflicts_with = "main_time")]
    time_per_move: Option<Duration>,
    /// Game clock: main time per engine (e.g. 60s, 5m); the referee keeps the
    /// time, tells the engines with time_left, and a flag falls on time.
    #[arg(long, value_parser = parse_duration)]
    main_time: Option<Duration>,
    /// Byo-yomi period after the main time (Canadian: --byo-yomi-stones moves
    /// per period; default 1 stone).
    #[arg(long, value_parser = parse_duration, requires = "main_time")]
    byo_yomi: Option<Duration>,
    /// Moves to play in each byo-yomi period.
    #[arg(long, requires = "byo_yomi", value_parser = clap::value_parser!(u32).range(1..))]
    byo_yomi_stones: Option<u32>,
    /// Turns after which a game is stopped and counted (default 3 x points).
    #[arg(long)]
    max_moves: Option<usize>,
}

#[derive(Debug, Args)]
struct ServeArgs {
    /// Address to listen on (0.0.0.0 to let other machines in).
    #[arg(long, default_value = "127.0.0.1")]
    bind: std::net::IpAddr,
    /// Port to listen on; 0 picks a free one (the address is printed).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Open the page in the desktop's browser.
    #[arg(long)]
    open: bool,
    /// Bot computations at once; requests beyond it are answered 503.
    #[arg(long, default_value_t = tengen_web::Limits::default().max_concurrent as u32,
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    max_concurrent: u32,
}

#[derive(Debug, Subcommand)]
enum BenchCommand {
    /// Playouts from the empty board on one thread (light or heavy).
    Playouts(PlayoutsArgs),
    /// The MCTS bot's whole search from the empty board, on one or more
    /// thread counts, with the speed-up over the first.
    Search(SearchArgs),
}

#[derive(Debug, Args)]
struct SearchArgs {
    /// Board size: 19, or WIDTHxHEIGHT such as 7x11.
    #[arg(long, default_value = "9", value_parser = parse_size)]
    size: BoardSize,
    /// Wall-clock seconds per measurement.
    #[arg(long, default_value_t = 5.0, value_parser = parse_seconds)]
    seconds: f64,
    /// Thread counts to measure, comma-separated (e.g. 1,2).
    #[arg(long, default_value = "1", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=256))]
    threads: Vec<u32>,
    /// Measurements per thread count, alternating between the counts; the
    /// median is reported.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    repeat: u32,
    /// Seed (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
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
    /// Playouts to play: light (uniformly random) or heavy (the MCTS bot's).
    #[arg(long, default_value = "light")]
    policy: bench::Policy,
}

fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!(
            "bad fraction '{text}': expected a number from 0 to 1"
        )),
    }
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
        Command::Gtp(args) => gtp(args),
        Command::Match(args) => run_match(args),
        Command::Bench {
            bench: BenchCommand::Playouts(args),
        } => bench_playouts(args),
        Command::Bench {
            bench: BenchCommand::Search(args),
        } => bench_search(args),
        Command::Sgf { sgf } => sgf_command(sgf),
        Command::Serve(args) => serve(args),
        Command::Nn {
            nn: NnCommand::Prepare(args),
        } => nn_prepare(args),
        Command::Nn {
            nn: NnCommand::Train(args),
        } => nn_train(args),
        Command::Nn {
            nn: NnCommand::Bench(args),
        } => nn_bench(args),
        Command::Nn {
            nn: NnCommand::Info { model },
        } => nn_info(model),
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

/// The board and rules the game options give (see [`game_settings`]).
fn board_and_rules(game: &GameArgs) -> Result<(BoardSize, Rules)> {
    game_settings(
        game.game,
        game.size,
        game.rules,
        game.komi,
        Rules::default(),
    )
    .map_err(anyhow::Error::msg)
}

/// Refuses a bot that cannot play the game's variant, before any play.
fn check_plays(bot: &dyn Agent, spec: &str, rules: &Rules, size: BoardSize) -> Result<()> {
    anyhow::ensure!(
        bot.plays(rules.variant),
        "the bot '{spec}' does not play {} (yet); use --bot random",
        if rules.is_nogo() { "NoGo" } else { "Go" }
    );
    bot.plays_size(size)
        .map_err(|reason| anyhow::anyhow!("the bot '{spec}' cannot play this board: {reason}"))
}

fn selfplay(args: SelfplayArgs) -> Result<()> {
    let (size, rules) = board_and_rules(&args.game)?;
    let (black, white) = match &args.bot {
        Some(bot) => (bot.clone(), bot.clone()),
        None => (args.black.clone(), args.white.clone()),
    };
    for spec in [&black, &white] {
        check_plays(tengen::make_agent(spec, 0)?.as_ref(), spec, &rules, size)?;
    }
    if let Some(games) = args.games {
        let config = BatchConfig {
            size,
            rules,
            black,
            white,
            seed: seed_or_clock(args.game.seed),
            games: games as usize,
            concurrency: args.concurrency as usize,
            sgf_dir: args.sgf_dir,
            date: selfplay::record_date(),
        };
        return selfplay_series(&config);
    }
    let config = SelfPlayConfig {
        size,
        rules,
        black,
        white,
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

/// A series of self-play games: a progress bar, then the totals.
fn selfplay_series(config: &BatchConfig) -> Result<()> {
    let bar = hidden_unless_terminal(ProgressBar::with_draw_target(
        Some(config.games as u64),
        ProgressDrawTarget::stderr(),
    ));
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games [{elapsed_precise}, {eta} left]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let summary = selfplay::run_batch(config, &mut |done, _| bar.set_position(done as u64))?;
    bar.finish_and_clear();
    println!(
        "Self-play on {}x{}: Black {}, White {}, rules {}, komi {}, seed {}",
        config.size.width(),
        config.size.height(),
        config.black,
        config.white,
        config.rules,
        config.rules.komi,
        config.seed
    );
    print!("{summary}");
    if let Some(dir) = &config.sgf_dir {
        println!("Records: {} in {}", summary.files.len(), dir.display());
    }
    Ok(())
}

/// The bar drawn on standard error when that is a terminal, hidden otherwise.
fn hidden_unless_terminal(bar: ProgressBar) -> ProgressBar {
    if !io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar
}

fn nn_prepare(args: NnPrepareArgs) -> Result<()> {
    let options = PrepareOptions {
        size: args.size,
        validation_fraction: args.validation,
        games_per_shard: args.games_per_shard as usize,
        min_moves: args.min_moves,
    };
    let bar = hidden_unless_terminal(ProgressBar::with_draw_target(
        None,
        ProgressDrawTarget::stderr(),
    ));
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} files [{elapsed_precise}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let mut out = SuspendingWriter {
        bar: &bar,
        inner: io::stdout().lock(),
    };
    let result = nn_prepare::run(
        &args.paths,
        &args.out,
        &options,
        &mut out,
        &mut |done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
    );
    bar.finish_and_clear();
    result?;
    Ok(())
}

fn play(args: PlayArgs) -> Result<()> {
    let (size, mut rules) = board_and_rules(&args.game)?;
    if args.handicap > 0 && args.game.komi.is_none() {
        rules = rules.with_komi(0.5);
    }
    let seed = seed_or_clock(args.game.seed);
    let bot = tengen::make_agent(&args.bot, seed)?;
    check_plays(bot.as_ref(), &args.bot, &rules, size)?;
    let game = Game::with_handicap(size, rules, args.handicap)?;
    let stdin = io::stdin();
    let echo = !stdin.is_terminal();
    let mut session =
        Session::new(game, args.color, bot, stdin.lock(), io::stdout().lock()).with_echo(echo);
    let end = session.run()?;
    tracing::info!(?end, "session over");
    Ok(())
}

fn gtp(args: GtpArgs) -> Result<()> {
    if args.list_bots {
        print!("{}", tengen::bot_listing());
        return Ok(());
    }
    let (size, rules) = board_and_rules(&args.game)?;
    let seed = seed_or_clock(args.game.seed);
    let bot = tengen::make_agent(&args.bot, seed)?;
    check_plays(bot.as_ref(), &args.bot, &rules, size)?;
    let mut engine = tengen_gtp::Engine::new(bot, size, rules).with_status_seed(seed);
    engine.run(io::BufReader::new(io::stdin()), io::stdout().lock())?;
    tracing::info!("gtp session over");
    Ok(())
}

fn run_match(args: MatchArgs) -> Result<()> {
    let [first, second]: [String; 2] = args.engines.try_into().map_err(|given: Vec<String>| {
        anyhow::anyhow!("give exactly two --engine options, not {}", given.len())
    })?;
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    anyhow::ensure!(args.concurrency > 0, "--concurrency must be at least 1");
    let mut config = tengen_match::MatchConfig::new([first, second], args.games);
    let chinese = Rules::preset("chinese").expect("the chinese preset");
    let (size, rules) = game_settings(args.game, args.size, args.rules, args.komi, chinese)
        .map_err(anyhow::Error::msg)?;
    config.size = size;
    config.rules = rules;
    config.komi = rules.komi;
    config.results_file = args
        .results
        .or_else(|| args.sgf_dir.as_ref().map(|dir| dir.join("results.jsonl")));
    config.sgf_dir = args.sgf_dir;
    config.concurrency = args.concurrency;
    config.time_per_move = args.time_per_move;
    if let Some(main_time) = args.main_time {
        let clock = match args.byo_yomi {
            Some(byo_yomi) => {
                anyhow::ensure!(!byo_yomi.is_zero(), "--byo-yomi must be positive");
                let stones = args.byo_yomi_stones.unwrap_or(1);
                tengen_match::Clock::with_byo_yomi(main_time, byo_yomi, stones)
            }
            None => {
                anyhow::ensure!(
                    !main_time.is_zero(),
                    "--main-time must be positive without --byo-yomi"
                );
                tengen_match::Clock::absolute(main_time)
            }
        };
        config.clock = Some(clock);
    }
    config.max_moves = args.max_moves;
    if let Some(dir) = &config.sgf_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let bar = ProgressBar::with_draw_target(Some(args.games as u64), ProgressDrawTarget::stderr());
    if !io::stderr().is_terminal() {
        bar.set_draw_target(ProgressDrawTarget::hidden());
    }
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let report = tengen_match::run_match(&config, |event| match event {
        tengen_match::MatchEvent::Started { resumed, .. } => bar.set_position(*resumed as u64),
        tengen_match::MatchEvent::GameFinished {
            record, finished, ..
        } => {
            bar.set_position(*finished as u64);
            bar.set_message(record.result.clone());
        }
    })?;
    bar.finish_and_clear();
    print!("{report}");
    Ok(())
}

fn bench_playouts(args: PlayoutsArgs) -> Result<()> {
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

fn bench_search(args: SearchArgs) -> Result<()> {
    let seed = seed_or_clock(args.seed);
    let duration = Duration::from_secs_f64(args.seconds);
    let runs = args.repeat as usize * args.threads.len();
    let bar = ProgressBar::with_draw_target(Some(runs as u64), ProgressDrawTarget::stderr());
    println!(
        "MCTS search on {} from the empty board, {:.1} s per run, {} run(s) per thread count, seed {seed}",
        args.size,
        args.seconds,
        args.repeat
    );
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); args.threads.len()];
    let mut cpu_rates: Vec<Vec<f64>> = vec![Vec::new(); args.threads.len()];
    for run in 0..args.repeat as u64 {
        for (i, &threads) in args.threads.iter().enumerate() {
            bar.set_message(format!("{threads} thread(s), run {}", run + 1));
            let m = bench::search_rate(args.size, duration, threads as usize, seed + run);
            bar.suspend(|| {
                println!(
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
                )
            });
            rates[i].push(m.rate());
            cpu_rates[i].push(m.rate_per_cpu_second().unwrap_or(0.0));
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let medians: Vec<f64> = rates
        .iter()
        .map(|r| bench::median(r).unwrap_or(0.0))
        .collect();
    for ((&threads, &median), cpu) in args.threads.iter().zip(&medians).zip(&cpu_rates) {
        println!(
            "median  threads {threads:>3}: {median:.0} simulations/s (wall), {:.2}x the first; {:.0} per CPU second",
            median / medians[0].max(1e-9),
            bench::median(cpu).unwrap_or(0.0)
        );
    }
    Ok(())
}

fn sgf_command(command: SgfCommand) -> Result<()> {
    match command {
        SgfCommand::Show { file, move_number } => {
            sgf_command::show(&file, move_number, &mut io::stdout().lock())?;
        }
        SgfCommand::Convert { file, output } => {
            let text = sgf_command::convert(&file)?;
            match output {
                Some(out) => std::fs::write(&out, text)
                    .with_context(|| format!("cannot write {}", out.display()))?,
                None => io::stdout().lock().write_all(text.as_bytes())?,
            }
        }
        SgfCommand::Check { paths } => {
            let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
            if !io::stderr().is_terminal() {
                bar.set_draw_target(ProgressDrawTarget::hidden());
            }
            bar.set_style(
                ProgressStyle::with_template("{bar:40} {pos}/{len} files")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            let mut out = SuspendingWriter {
                bar: &bar,
                inner: io::stdout().lock(),
            };
            let summary = sgf_command::check(&paths, &mut out, |done, total| {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
            })?;
            bar.finish_and_clear();
            println!("{summary}");
            anyhow::ensure!(
                summary.unreadable == 0,
                "{} path(s) could not be read",
                summary.unreadable
            );
        }
    }
    Ok(())
}

fn serve(args: ServeArgs) -> Result<()> {
    let mut config = tengen_web::ServerConfig {
        bind: args.bind,
        port: args.port,
        ..tengen_web::ServerConfig::default()
    };
    config.limits.max_concurrent = args.max_concurrent as usize;
    tengen_web::run(config, |address| {
        let url = format!("http://{address}/");
        // The one line on stdout: people open it, the browser test reads it.
        println!("tengen serve: open {url}");
        let _ = io::stdout().flush();
        if args.open {
            if let Err(error) = tengen_web::open_browser(&url) {
                tracing::warn!(%error, "cannot open a browser; open the address by hand");
            }
        }
    })?;
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

#[derive(Debug, Args)]
struct NnTrainArgs {
    /// A folder written by `tengen nn prepare`.
    #[arg(long, value_name = "DIR")]
    data: PathBuf,
    /// The encoder: oneplane, sevenplane, simple or zero.
    #[arg(long, default_value = "sevenplane")]
    encoder: String,
    /// The network: small, medium, large or residual[:BLOCKSxCHANNELS].
    #[arg(long, default_value = "small")]
    net: String,
    /// Epochs in all (a resumed run counts the checkpoint's).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    epochs: u32,
    /// Positions per batch.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    batch: u32,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 1e-3, value_parser = parse_learning_rate)]
    lr: f64,
    /// Seed of the initial weights, the order of positions and the symmetries.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Train on the positions as they are, without random symmetries.
    #[arg(long)]
    no_augment: bool,
    /// Train on at most this many randomly chosen positions per epoch.
    #[arg(long, value_name = "N")]
    positions_per_epoch: Option<usize>,
    /// Measure validation on at most this many positions.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    validation_limit: usize,
    /// Folder for checkpoints (epoch-NNN.tgm and epoch-NNN.optim).
    #[arg(long, value_name = "DIR", default_value = "checkpoints")]
    checkpoints: PathBuf,
    /// Continue from this checkpoint (a .tgm written by an earlier run).
    #[arg(long, value_name = "MODEL")]
    resume: Option<PathBuf>,
    /// Also write the final model to this file.
    #[arg(long, short = 'o', value_name = "MODEL")]
    output: Option<PathBuf>,
}

#[derive(Debug, Args)]
struct NnBenchArgs {
    /// The model file ('builtin' for the shipped model).
    #[arg(long, default_value = "builtin")]
    model: String,
    /// Batch sizes, comma-separated.
    #[arg(long, default_value = "1,64", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=4096))]
    batch: Vec<u32>,
    /// Seconds per batch size.
    #[arg(long, default_value_t = 3.0, value_parser = parse_seconds)]
    seconds: f64,
}

fn parse_learning_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 10.0 => Ok(x),
        _ => Err(format!(
            "bad learning rate '{text}': expected a number above 0, at most 10"
        )),
    }
}

fn nn_train(args: NnTrainArgs) -> Result<()> {
    let architecture: tengen_nn::net::Architecture = args.net.parse()?;
    let job = tengen::nn_train::TrainJob {
        data: args.data,
        config: tengen_train::train::TrainConfig {
            encoder: args.encoder,
            architecture,
            epochs: args.epochs as usize,
            batch: args.batch as usize,
            learning_rate: args.lr,
            seed: args.seed,
            augment: !args.no_augment,
            value_weight: 1.0,
            positions_per_epoch: args.positions_per_epoch,
            validation_limit: Some(args.validation_limit),
        },
        checkpoints: args.checkpoints,
        resume: args.resume,
        output: args.output,
    };
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "epoch {prefix} [{bar:30}] {pos}/{len} batches, loss {msg} ({eta})",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    let stdout = io::stdout();
    let mut out = LineOut {
        bar: &bar,
        stdout: stdout.lock(),
    };
    let result = tengen::nn_train::train(&job, &mut out, &mut |epoch, done, total, loss| {
        if done == 1 {
            bar.reset();
            bar.set_length(total as u64);
            bar.set_prefix(epoch.to_string());
        }
        bar.set_position(done as u64);
        bar.set_message(format!("{loss:.3}"));
    });
    bar.finish_and_clear();
    result.map(|_| ())
}

/// Prints whole lines above a progress bar.
struct LineOut<'a, W: Write> {
    bar: &'a ProgressBar,
    stdout: W,
}

impl<W: Write> Write for LineOut<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bar.suspend(|| self.stdout.write(buf))
    }
    fn flush(&mut self) -> io::Result<()> {
        self.stdout.flush()
    }
}

fn nn_bench(args: NnBenchArgs) -> Result<()> {
    let model = tengen_bots::registry::load_model(&args.model)?;
    let batches: Vec<usize> = args.batch.iter().map(|&b| b as usize).collect();
    println!(
        "model {} ({} on {}x{}, encoder {}), one thread",
        args.model,
        model.metadata().architecture,
        model.metadata().width,
        model.metadata().height,
        model.metadata().encoder
    );
    for speed in tengen::nn_train::bench_inference(&model, &batches, args.seconds) {
        println!(
            "batch {:4}: {:9.1} positions/s ({:.3} ms per batch, {} positions)",
            speed.batch,
            speed.per_second,
            1000.0 * speed.batch as f64 / speed.per_second,
            speed.positions
        );
    }
    Ok(())
}

fn nn_info(path: PathBuf) -> Result<()> {
    let model = tengen_bots::registry::load_model(&path.display().to_string())?;
    println!("{}", tengen::nn_train::describe(&path, &model));
    Ok(())
}
