//! The arguments of `tengen bench`: playouts, the search, the analysis
//! engine, a KataGo network's policy and its forward pass.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use tengen::bench;
use tengen::options::{parse_seconds, parse_size};
use tengen_core::BoardSize;

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// Playouts from the empty board on one thread (light or heavy).
    Playouts(PlayoutsArgs),
    /// The MCTS bot's whole search from the empty board, on one or more
    /// thread counts, with the speed-up over the first.
    Search(SearchArgs),
    /// A KataGo network: forward passes per second and GFLOP/s at each batch
    /// size and thread count, beside a plain matrix product on the same
    /// GEMM, and the katago bot's visits per second.
    Katago(KatagoBenchArgs),
    /// Analysis engines (tengen's, and KataGo's beside it when given): a
    /// whole game sent as one query, positions analysed per second at each
    /// visit count and thread count.
    Analysis(AnalysisBenchArgs),
    /// How often a KataGo network's raw policy (symmetry 0) puts the move
    /// played in game records first, and among its first five, over every
    /// position of every record.
    Policy(PolicyBenchArgs),
}

#[derive(Debug, Args)]
pub struct AnalysisBenchArgs {
    /// The KataGo network (.bin.gz) tengen's engine runs.
    #[arg(long)]
    pub model: PathBuf,
    /// The game analysed (SGF): every position of its main line.
    #[arg(long)]
    pub sgf: PathBuf,
    /// Analyse only the positions before this many moves.
    #[arg(long)]
    pub turns: Option<usize>,
    /// Visits per position, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1u64, 16, 100])]
    pub visits: Vec<u64>,
    /// Threads of the network, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1usize, 2])]
    pub threads: Vec<usize>,
    /// Positions searched at once (numAnalysisThreads); each thread count
    /// is also run with one, where no batches are shared.
    #[arg(long, default_value_t = 8)]
    pub analysis_threads: usize,
    /// KataGo's analysis engine as a shell command without settings (for
    /// example `katago analysis -model M -config analysis.cfg`); its
    /// threads are set with -override-config to match tengen's.
    #[arg(long)]
    pub katago: Option<String>,
    /// Runs of each configuration (the median is reported).
    #[arg(long, default_value_t = 1)]
    pub repeat: usize,
}

#[derive(Debug, Args)]
pub struct PolicyBenchArgs {
    /// The KataGo network (.bin.gz).
    #[arg(long)]
    pub model: PathBuf,
    /// Records (.sgf, .mgt) and folders of records, searched recursively.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Use only the first N records, in path order (default: all).
    #[arg(long)]
    pub games: Option<usize>,
    /// Positions evaluated together.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub batch: u32,
    /// Threads of the forward pass.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
}

#[derive(Debug, Args)]
pub struct KatagoBenchArgs {
    /// The KataGo network (.bin.gz).
    #[arg(long)]
    pub model: PathBuf,
    /// Board sizes (square), comma-separated.
    #[arg(long, default_value = "19", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(2..=25))]
    pub size: Vec<u32>,
    /// Batch sizes, comma-separated.
    #[arg(long, default_value = "1,8", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=256))]
    pub batch: Vec<u32>,
    /// Thread counts, comma-separated.
    #[arg(long, default_value = "1,2", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Vec<u32>,
    /// Wall-clock seconds per measurement.
    #[arg(long, default_value_t = 5.0, value_parser = parse_seconds)]
    pub seconds: f64,
    /// Measurements per setting; the median is reported.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Visits of one search from the empty board per size and thread count
    /// for the search speed (0 skips it).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub visits: u64,
    /// Precisions to measure, comma-separated (auto, f32, bf16, int8, int16); each
    /// runs on the kernel it picks on this CPU, and a kernel picked twice
    /// is measured once.
    #[arg(long, default_value = "f32,bf16,auto", value_delimiter = ',')]
    pub precision: Vec<tengen_katago::forward::Precision>,
    /// Also print where the time of a forward pass goes, by class of layer
    /// (products, attention, softmax, normalisation, packing, heads, and
    /// the threads' waiting), for each setting measured.
    #[arg(long)]
    pub layers: bool,
}

#[derive(Debug, Args)]
pub struct PlayoutsArgs {
    /// Board size: 19, or WIDTHxHEIGHT such as 7x11.
    #[arg(long, default_value = "9", value_parser = parse_size)]
    pub size: BoardSize,
    /// Wall-clock seconds per measurement.
    #[arg(long, default_value_t = 10.0, value_parser = parse_seconds)]
    pub seconds: f64,
    /// Number of measurements; the median is reported.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Seed of the first measurement's random numbers (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Playouts to play: light (uniformly random) or heavy (the MCTS bot's).
    #[arg(long, default_value = "light")]
    pub policy: bench::Policy,
    /// The own eyes heavy playouts never fill: book or real, as the mcts
    /// bot's `eyes` option (default: the bot's).
    #[arg(long, value_parser = ["book", "real"])]
    pub eyes: Option<String>,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// Board size: 19, or WIDTHxHEIGHT such as 7x11.
    #[arg(long, default_value = "9", value_parser = parse_size)]
    pub size: BoardSize,
    /// Wall-clock seconds per measurement.
    #[arg(long, default_value_t = 5.0, value_parser = parse_seconds)]
    pub seconds: f64,
    /// Thread counts to measure, comma-separated (e.g. 1,2).
    #[arg(long, default_value = "1", value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: Vec<u32>,
    /// Measurements per thread count, alternating between the counts; the
    /// median is reported.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: u32,
    /// Seed (default: from the clock).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Where the search's priors come from: learned (the move model) or
    /// rules (hand-written knowledge), as the mcts bot's `prior-source` option.
    #[arg(long, default_value = "learned", value_parser = ["learned", "rules"])]
    pub priors: String,
    /// The own eyes the tree and the playouts never fill: book or real, as
    /// the mcts bot's `eyes` option (default: the bot's).
    #[arg(long, value_parser = ["book", "real"])]
    pub eyes: Option<String>,
}
