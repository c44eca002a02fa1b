//! The command line of `tengen`: every command, option, default and help
//! text, as clap derive structs. The handlers that act on them are in
//! `commands/`, one file per command.

use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use tengen::options::{
    parse_color, parse_duration, parse_fraction, parse_komi, parse_learning_rate, parse_rules,
    parse_seconds, parse_size, parse_variant,
};
use tengen_core::{BoardSize, Color, Rules, Variant};

mod bench_args;
pub use bench_args::*;

#[derive(Debug, Parser)]
#[command(name = "tengen", version, about = "The tengen Go engine")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Bot against bot, printing every move and the result.
    Selfplay(SelfplayArgs),
    /// Play against a bot in the terminal (or through a pipe).
    Play(PlayArgs),
    /// Serve a bot over the Go Text Protocol on stdin and stdout.
    Gtp(GtpArgs),
    /// KataGo's JSON analysis engine on stdin and stdout (KaTrain,
    /// LizzieYzy, Ogatak). KataGo's single-dash flags (-model, -config,
    /// -override-config, -quit-without-waiting) work too.
    Analysis(AnalysisArgs),
    /// Review game records: every position analysed with a KataGo network,
    /// the points each move lost and each side's mistakes, written into the
    /// records (Sabaki's and KaTrain's properties, comments).
    Review(ReviewArgs),
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
    /// Learned models: training data and networks, and the move model.
    Nn {
        #[command(subcommand)]
        nn: NnCommand,
    },
}

#[derive(Debug, Args)]
pub struct AnalysisArgs {
    /// The KataGo network file (.bin.gz).
    #[arg(long)]
    pub model: std::path::PathBuf,
    /// A KataGo-style config file (`name = value` lines; see
    /// docs/guide/analysis.md for the settings).
    #[arg(long)]
    pub config: Option<std::path::PathBuf>,
    /// Settings over the config's: name=value pairs separated by commas.
    #[arg(long)]
    pub override_config: Vec<String>,
    /// When the input ends, stop the searches at once instead of finishing
    /// the queued ones.
    #[arg(long)]
    pub quit_without_waiting: bool,
    /// KataGo's human-imitation network: not supported; accepted so that
    /// GUIs that pass it still start the engine, with a warning.
    #[arg(long)]
    pub human_model: Option<std::path::PathBuf>,
    /// Print the settings reference (Markdown) and exit.
    #[arg(long, hide = true)]
    pub settings_reference: bool,
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// SGF records, or folders of them (their .sgf files, in name order).
    #[arg(required = true, value_name = "RECORD")]
    pub records: Vec<std::path::PathBuf>,
    /// The KataGo network file (.bin.gz).
    #[arg(long)]
    pub model: std::path::PathBuf,
    /// The network's matrix products: auto (the fastest whose accuracy
    /// meets the bounds of docs/performance.md: bf16 on CPUs with AMX, int16
    /// on AMD's with AVX-512-BF16 and VNNI; f32 elsewhere), f32, bf16 (one
    /// rounding), int8 (8-bit integer products on AVX-512-VNNI, each operand
    /// split in two) or int16 (16-bit integer products on AVX-512-VNNI, one
    /// each); int8 and int16 are as accurate as auto.
    #[arg(long, default_value = "auto")]
    pub precision: tengen_katago::forward::Precision,
    /// With one record: the file its review goes to [default: NAME-review.sgf
    /// beside the record].
    #[arg(
        short = 'o',
        long = "output",
        value_name = "OUT.sgf",
        conflicts_with = "out"
    )]
    pub output: Option<std::path::PathBuf>,
    /// A folder for the reviews, each under its record's file name; a
    /// record whose review is already there is skipped, so a stopped run
    /// resumes where it was.
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
    /// Review under these rules instead of the record's own (its `RU`; aga
    /// when it has none): one of KataGo's rule sets (japanese, korean,
    /// chinese, chinese-ogs, aga, aga-button, new-zealand, stone-scoring,
    /// tromp-taylor) or tengen's rules text. The record's komi stays.
    #[arg(long, value_parser = parse_rules)]
    pub rules: Option<Rules>,
    /// Visits a position.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub visits: u64,
    /// Positions searched at once (their evaluations share the network's
    /// batches).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub positions_at_once: u64,
    /// Records reviewed at once, so one record's last positions overlap
    /// the next one's first.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=64))]
    pub records_at_once: u64,
    /// Threads of the network's forward pass [default: the cores].
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: Option<u64>,
    /// Search one position at a time (--positions-at-once 1
    /// --records-at-once 1), so that every forward pass of the network holds
    /// one search's positions only and a record's review is the same byte
    /// for byte on every run, in any shard, beside any other record. Shared
    /// batches otherwise change the network's outputs in their last bits,
    /// which now and then moves a rounded value by its last digit.
    #[arg(long, conflicts_with_all = ["positions_at_once", "records_at_once"])]
    pub reproducible: bool,
    /// Review only shard I of N of the records: those whose place in the
    /// list (from 0) is I modulo N; the shards' --out folders together hold
    /// what one run writes.
    #[arg(long, value_name = "I/N", requires = "out", value_parser = parse_shard)]
    pub shard: Option<tengen_match::Shard>,
}

/// Options every game shares.
#[derive(Debug, Args)]
pub struct GameArgs {
    /// The game: go, or nogo (no captures, no suicide, no passes; who cannot
    /// move loses; the nogo rules and a 7x7 board unless --size is given).
    #[arg(long, default_value = "go", value_parser = parse_variant)]
    pub game: Variant,
    /// Board size: 19, or WIDTHxHEIGHT such as 7x11 [default: 9, 7 for nogo].
    #[arg(long, value_parser = parse_size)]
    pub size: Option<BoardSize>,
    /// Rules: one of KataGo's rule sets (aga, chinese, chinese-ogs, japanese,
    /// korean, aga-button, new-zealand, stone-scoring, tromp-taylor),
    /// optionally with overrides such as japanese,komi=0 [default: aga; nogo
    /// for --game nogo].
    #[arg(long, value_parser = parse_rules)]
    pub rules: Option<Rules>,
    /// Komi, overriding the rules' own.
    #[arg(long, value_parser = parse_komi, allow_negative_numbers = true)]
    pub komi: Option<f64>,
    /// Seed of the bots' random choices (default: from the clock; logged at info).
    #[arg(long)]
    pub seed: Option<u64>,
}

#[derive(Debug, Args)]
pub struct SelfplayArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Bot playing Black.
    #[arg(long, default_value = "random")]
    pub black: String,
    /// Bot playing White.
    #[arg(long, default_value = "random")]
    pub white: String,
    /// Bot playing both colours (instead of --black and --white).
    #[arg(long, value_name = "SPEC", conflicts_with_all = ["black", "white"])]
    pub bot: Option<String>,
    /// Pause after each move, in milliseconds [default: 300 when standard
    /// output is a terminal, where the board is redrawn in place; 0 when it
    /// is piped].
    #[arg(long, conflicts_with = "games")]
    pub delay_ms: Option<u64>,
    /// Play this many games without printing boards: a progress bar, then
    /// wins by colour and the mean length. Game i's bots are seeded
    /// seed + 2i and seed + 2i + 1.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub games: Option<u32>,
    /// Folder for one SGF record per game (with --games).
    #[arg(long, value_name = "DIR", requires = "games")]
    pub sgf_dir: Option<PathBuf>,
    /// Games played at once, each on its own thread (with --games).
    #[arg(long, value_name = "K", default_value_t = 1, requires = "games",
          value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub concurrency: u32,
    /// Play only shard I of N of the series (with --games and --seed): the
    /// games whose index is I modulo N, with the seeds and record names the
    /// whole series gives them.
    #[arg(long, value_name = "I/N", requires = "games", value_parser = parse_shard)]
    pub shard: Option<tengen_match::Shard>,
}

#[derive(Debug, Args)]
pub struct PlayArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// Your colour: black or white.
    #[arg(long, default_value = "black", value_parser = parse_color)]
    pub color: Color,
    /// The bot to play against, with optional settings (`tengen gtp
    /// --list-bots` lists them).
    #[arg(long, default_value = "random")]
    pub bot: String,
    /// Fixed handicap stones for Black (2 or more; White then moves first).
    /// Without --komi, a handicap game has komi 0.5.
    #[arg(long, default_value_t = 0)]
    pub handicap: usize,
}

#[derive(Debug, Args)]
pub struct GtpArgs {
    #[command(flatten)]
    pub game: GameArgs,
    /// The bot that answers genmove: a name with optional settings, such as
    /// `random` or `mcts:playouts=20000` (see --list-bots).
    #[arg(long, default_value = "random")]
    pub bot: String,
    /// List the bots and their settings, then exit.
    #[arg(long)]
    pub list_bots: bool,
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct MatchArgs {
    #[command(subcommand)]
    pub command: Option<MatchCommand>,
    /// An engine's command line; give exactly two. The first plays Black in
    /// even-numbered games. `{seed}` in it is replaced by the engine's seed
    /// for each game (see --seed).
    #[arg(long = "engine", required = true, num_args = 1)]
    pub engines: Vec<String>,
    /// Number of games.
    #[arg(long, default_value_t = 10)]
    pub games: usize,
    /// The game the referee applies: go, or nogo (a pass, capture or suicide
    /// forfeits, the side that cannot move loses; start the engines in their
    /// NoGo mode, such as `tengen gtp --game nogo`).
    #[arg(long, default_value = "go", value_parser = parse_variant)]
    pub game: Variant,
    /// Board size (square; GTP engines take one number) [default: 9, 7 for
    /// nogo].
    #[arg(long, value_parser = parse_size)]
    pub size: Option<BoardSize>,
    /// Rules the referee counts by; engines that list tengen-rules or kgs-rules are told them, start others with matching options
    /// [default: chinese; nogo for --game nogo].
    #[arg(long, value_parser = parse_rules)]
    pub rules: Option<Rules>,
    /// Komi, overriding the rules' own.
    #[arg(long, value_parser = parse_komi, allow_negative_numbers = true)]
    pub komi: Option<f64>,
    /// Directory for one SGF record per game.
    #[arg(long)]
    pub sgf_dir: Option<PathBuf>,
    /// Results file, one JSON line per game; a rerun resumes from it
    /// (default: results.jsonl inside --sgf-dir when that is given).
    #[arg(long)]
    pub results: Option<PathBuf>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Time per move given to the engines (e.g. 2s, 500ms).
    #[arg(long, value_parser = parse_duration, conflicts_with = "main_time")]
    pub time_per_move: Option<Duration>,
    /// Game clock: main time per engine (e.g. 60s, 5m); the referee keeps the
    /// time, tells the engines with time_left, and a flag falls on time.
    #[arg(long, value_parser = parse_duration)]
    pub main_time: Option<Duration>,
    /// Byo-yomi period after the main time (Canadian: --byo-yomi-stones moves
    /// per period; default 1 stone).
    #[arg(long, value_parser = parse_duration, requires = "main_time")]
    pub byo_yomi: Option<Duration>,
    /// Moves to play in each byo-yomi period.
    #[arg(long, requires = "byo_yomi", value_parser = clap::value_parser!(u32).range(1..))]
    pub byo_yomi_stones: Option<u32>,
    /// Japanese byo-yomi: this many periods of one move each (an overrun
    /// period is lost, the last one loses); told to engines that know
    /// kgs-time_settings.
    #[arg(
        long,
        requires = "byo_yomi",
        conflicts_with = "byo_yomi_stones",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub byo_yomi_periods: Option<u32>,
    /// Turns after which a game is stopped and counted (default 3 x points).
    #[arg(long)]
    pub max_moves: Option<usize>,
    /// Black's handicap stones (2 to 9; 4 on 7x7 and even sizes), at the
    /// fixed points of the GTP specification; White moves first, and komi
    /// is 0.5 unless --komi says otherwise.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub handicap: usize,
    /// The first engine plays Black in every game (with --handicap: the
    /// second gives the stones); by default the engines take turns.
    #[arg(long)]
    pub first_plays_black: bool,
    /// Print the board and a score estimate after every move (redrawn in
    /// place on a terminal), as the book's play_local does.
    #[arg(long)]
    pub watch: bool,
    /// Play only shard I of N: the games whose index is I modulo N, each as
    /// the whole match would play it (index, colours, seeds); the shards'
    /// results files merge with `tengen match merge`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<tengen_match::Shard>,
    /// What `{seed}` in an engine's command line stands for: in game i,
    /// engine 0 gets seed + 2i and engine 1 seed + 2i + 1.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Start the games from set openings: an SGF record, a text file of
    /// move lists (one opening a line, GTP vertices, Black first), or a
    /// directory of both; each opening is played twice with the colours
    /// swapped (games 2k and 2k+1), in turn. Balanced sets ship in
    /// data/openings/.
    #[arg(long, value_name = "FILE|DIR")]
    pub openings: Option<std::path::PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum MatchCommand {
    /// Merge the results files of a match's shards (or reruns): one results
    /// file and the match's report. Files of different matches are refused;
    /// a game found twice is counted once.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The results files (JSON lines, as `tengen match --results` writes).
    #[arg(required = true, value_name = "RESULTS")]
    pub files: Vec<PathBuf>,
    /// Write the merged results file here (one line per game, in game order).
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// A `--shard` value: `I/N` with I below N.
fn parse_shard(text: &str) -> Result<tengen_match::Shard, String> {
    text.parse()
        .map_err(|e: tengen_match::ShardError| e.to_string())
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (0.0.0.0 to let other machines in).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// Port to listen on; 0 picks a free one (the address is printed).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Open the page in the desktop's browser.
    #[arg(long)]
    pub open: bool,
    /// Bot computations at once; requests beyond it are answered 503.
    #[arg(long, default_value_t = tengen_web::Limits::default().max_concurrent as u32,
          value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub max_concurrent: u32,
    /// A KataGo network (.bin.gz) to offer as the bot 'katago' ("KataGo
    /// network" on the page) on every board size up to 25x25; loaded at
    /// start-up, and the server does not start if it cannot be read.
    #[arg(long, value_name = "PATH")]
    pub model: Option<std::path::PathBuf>,
    /// The network's matrix products: auto (the fastest whose accuracy
    /// meets the bounds of docs/performance.md: bf16 on CPUs with AMX, int16
    /// on AMD's with AVX-512-BF16 and VNNI; f32 elsewhere), f32, bf16 (one
    /// rounding), int8 (8-bit integer products on AVX-512-VNNI, each operand
    /// split in two) or int16 (16-bit integer products on AVX-512-VNNI, one
    /// each); int8 and int16 are as accurate as auto.
    #[arg(long, default_value = "auto")]
    pub precision: tengen_katago::forward::Precision,
}

#[derive(Debug, Subcommand)]
pub enum SgfCommand {
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

#[derive(Debug, Subcommand)]
pub enum NnCommand {
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
    /// Fit the move model that the MCTS bot's priors use (strengths of
    /// shapes and tactical features, by minorization-maximization) to the
    /// moves of game records; prints how well it predicts held-out records.
    MoveModel(NnMoveModelArgs),
    /// Play games by drawing every move from a KataGo network's raw policy
    /// and write them as policy records: SGF with the network's move
    /// probabilities on every move (for `move-model --policies`).
    PolicyGames(NnPolicyGamesArgs),
    /// Build an opening book for the MCTS bot (`mcts:book=FILE`) with a
    /// KataGo network: its search picks the book's moves, its raw policy
    /// stands for the opponent, and the likeliest positions come first.
    OpeningBook(NnOpeningBookArgs),
    /// Make a set of openings for `tengen match --openings` that a KataGo
    /// network judges even: the positions after a few of its likeliest
    /// moves whose win rate for Black is nearest one half.
    BalancedOpenings(NnBalancedOpeningsArgs),
    /// Describe a model file: network, encoder, board, provenance.
    Info {
        /// The model file.
        model: PathBuf,
    },
}

#[derive(Debug, Args)]
pub struct NnMoveModelArgs {
    /// Record files and folders (.sgf, .mgt; folders recursively); may be
    /// left out when --positions or --policies are given.
    #[arg(required_unless_present_any = ["positions", "policies"])]
    pub paths: Vec<PathBuf>,
    /// Labelled positions: records (files and folders, as above) of which
    /// only the last move is learned, the moves before it leading to the
    /// position; may be given more than once.
    #[arg(long, value_name = "PATH")]
    pub positions: Vec<PathBuf>,
    /// Policy records (`tengen nn policy-games`; files and folders): every
    /// position with probabilities is learned as that distribution; may be
    /// given more than once.
    #[arg(long, value_name = "PATH")]
    pub policies: Vec<PathBuf>,
    /// Where to write the model.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Times a shape must be played to get its own strength.
    #[arg(long, default_value_t = 10)]
    pub min_wins: u32,
    /// Minorization-maximization sweeps.
    #[arg(long, default_value_t = 25)]
    pub iterations: usize,
    /// Hold out every N-th record (in name order) to measure the model; 0
    /// holds none out.
    #[arg(long, default_value_t = 10)]
    pub test_every: usize,
}

#[derive(Debug, Args)]
pub struct NnPolicyGamesArgs {
    /// The KataGo model file (`scripts/katago-model` fetches one).
    #[arg(long, value_name = "FILE")]
    pub model: PathBuf,
    /// The folder to write the records to (game-NNNNN.sgf).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Board size.
    #[arg(long, default_value = "9", value_parser = parse_size)]
    pub size: BoardSize,
    /// Rules.
    #[arg(long, default_value = "chinese", value_parser = parse_rules)]
    pub rules: Rules,
    /// Komi.
    #[arg(long, default_value_t = 7.0, value_parser = parse_komi, allow_negative_numbers = true)]
    pub komi: f64,
    /// Games played side by side: the network's batch.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub parallel: u32,
    /// Threads of the network's forward pass.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// Moves are drawn with probability p^(1/T); 1 plays the policy as it is.
    #[arg(long, default_value_t = 1.0)]
    pub temperature: f64,
    /// Turns after which a game is stopped [default: twice the points].
    #[arg(long)]
    pub max_turns: Option<usize>,
    /// Probabilities below this are left out of the records.
    #[arg(long, default_value_t = 0.001)]
    pub floor: f32,
    /// Seed of the draws; games are numbered from --first.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Number of the first game's file (to add to a folder).
    #[arg(long, default_value_t = 0)]
    pub first: usize,
}

#[derive(Debug, Args)]
pub struct NnOpeningBookArgs {
    /// The KataGo model file (`scripts/katago-model` fetches one).
    #[arg(long, value_name = "FILE")]
    pub model: PathBuf,
    /// Where to write the book.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Board size (square).
    #[arg(long, default_value = "9", value_parser = parse_size)]
    pub size: BoardSize,
    /// Rules the network is told.
    #[arg(long, default_value = "chinese", value_parser = parse_rules)]
    pub rules: Rules,
    /// Komi: the book is for it (and half a point either side).
    #[arg(long, default_value_t = 7.0, value_parser = parse_komi, allow_negative_numbers = true)]
    pub komi: f64,
    /// Visits of the search that picks each move of the book.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub visits: u32,
    /// Positions to search at most.
    #[arg(long, default_value_t = 1000)]
    pub positions: usize,
    /// Stop after this many seconds and write the positions searched so far.
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Positions are in the book only before this many moves are played.
    #[arg(long, default_value_t = 12)]
    pub max_turns: usize,
    /// The opponent's replies with less policy than this are not followed.
    #[arg(long, default_value_t = 0.03)]
    pub min_policy: f32,
    /// At most this many of the opponent's replies are followed in a position.
    #[arg(long, default_value_t = 6)]
    pub replies: usize,
    /// Workers searching at once, one thread each.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub workers: u32,
    /// Seed of the searches.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

#[derive(Debug, Args)]
pub struct NnBalancedOpeningsArgs {
    /// The KataGo model file (`scripts/katago-model` fetches one).
    #[arg(long, value_name = "FILE")]
    pub model: PathBuf,
    /// Where to write the set (a text file of move lists).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: PathBuf,
    /// Board size (square).
    #[arg(long, default_value = "9", value_parser = parse_size)]
    pub size: BoardSize,
    /// Rules the network is told.
    #[arg(long, default_value = "chinese", value_parser = parse_rules)]
    pub rules: Rules,
    /// Komi the openings are for.
    #[arg(long, default_value_t = 7.0, value_parser = parse_komi, allow_negative_numbers = true)]
    pub komi: f64,
    /// Moves in each opening.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=8))]
    pub moves: u32,
    /// The network's likeliest moves followed in each position.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub candidates: u32,
    /// Openings in the set.
    #[arg(long, default_value_t = 50)]
    pub count: usize,
    /// Threads of the network's forward pass.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
}

#[derive(Debug, Args)]
pub struct NnPrepareArgs {
    /// Record files and folders.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// The data folder to write (train-NNN.tgs, validation-NNN.tgs,
    /// summary.txt); earlier shards in it are replaced.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// The board size kept: 19, or WIDTHxHEIGHT.
    #[arg(long, value_parser = parse_size)]
    pub size: BoardSize,
    /// The share of games for validation, 0 to 1.
    #[arg(long, default_value_t = 0.1, value_parser = parse_fraction)]
    pub validation: f64,
    /// Games per shard file.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u32).range(1..))]
    pub games_per_shard: u32,
    /// Games with fewer moves are skipped.
    #[arg(long, default_value_t = 10)]
    pub min_moves: usize,
}

#[derive(Debug, Args)]
pub struct NnTrainArgs {
    /// A folder written by `tengen nn prepare`.
    #[arg(long, value_name = "DIR")]
    pub data: PathBuf,
    /// The encoder: oneplane, sevenplane, simple or zero.
    #[arg(long, default_value = "sevenplane")]
    pub encoder: String,
    /// The network: small, medium, large or residual[:BLOCKSxCHANNELS].
    #[arg(long, default_value = "small")]
    pub net: String,
    /// Epochs in all (a resumed run counts the checkpoint's).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub epochs: u32,
    /// Positions per batch.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65_536))]
    pub batch: u32,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 1e-3, value_parser = parse_learning_rate)]
    pub lr: f64,
    /// Seed of the initial weights, the order of positions and the symmetries.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Train on the positions as they are, without random symmetries.
    #[arg(long)]
    pub no_augment: bool,
    /// Train on at most this many randomly chosen positions per epoch.
    #[arg(long, value_name = "N")]
    pub positions_per_epoch: Option<usize>,
    /// Measure validation on at most this many positions.
    #[arg(long, value_name = "N", default_value_t = 20_000)]
    pub validation_limit: usize,
    /// Folder for checkpoints (epoch-NNN.tgm and epoch-NNN.optim).
    #[arg(long, value_name = "DIR", default_value = "checkpoints")]
    pub checkpoints: PathBuf,
    /// Continue from this checkpoint (a .tgm written by an earlier run).
    #[arg(long, value_name = "MODEL")]
    pub resume: Option<PathBuf>,
    /// Also write the final model to this file.
    #[arg(long, short = 'o', value_name = "MODEL")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct NnBenchArgs {
    /// The model file ('builtin' for the shipped model).
    #[arg(long, default_value = "builtin")]
    pub model: String,
    /// Batch sizes, comma-separated.
    #[arg(long, default_value = "1,64", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub batch: Vec<u32>,
    /// Seconds per batch size.
    #[arg(long, default_value_t = 3.0, value_parser = parse_seconds)]
    pub seconds: f64,
}
