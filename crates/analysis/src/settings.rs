//! The analysis engine's settings, by KataGo's names. The PUCT search's
//! and the forward pass's come from their one definition in
//! `tengen_puct::options` (the `katago` bot reads the same); the engine's
//! own are defined here. Together they yield the config-file parser,
//! `--override-config`, a query's `overrideSettings` and search fields,
//! the defaults and the reference in the docs.
//!
//! Settings of the whole engine (threads, batch, cache) come from the
//! command line only; search settings also from each query.

use std::fmt::Write as _;

use tengen_katago::forward::Precision;
use tengen_options::{wide, Category, Kind, Setting};
use tengen_puct::katago::KataGoEvalSettings;
use tengen_puct::options::{PuctSettings, SearchOptions};
use tengen_puct::{Batching, MoveSelection, PuctConfig, ResignSettings, SearchLimits};

/// Whose point of view the reported values take (KataGo's
/// `reportAnalysisWinratesAs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReportAs {
    /// Black's, what KaTrain expects.
    Black,
    /// White's.
    White,
    /// The side to move's at the analysed position.
    SideToMove,
}

/// The settings a query's search runs with.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchSettings {
    /// The PUCT search's settings (limits, exploration, utility).
    pub puct: PuctConfig,
    /// The network's settings (policy optimism).
    pub eval: KataGoEvalSettings,
    /// `playoutDoublingAdvantage`.
    pub playout_doubling_advantage: f32,
    /// The player it favours (`playoutDoublingAdvantagePla`); `None`: the
    /// side to move at the analysed position.
    pub playout_doubling_player: Option<tengen_core::Color>,
    /// `reportAnalysisWinratesAs`.
    pub report_as: ReportAs,
    /// Moves of each principal variation after the first (`analysisPVLen`).
    pub pv_len: usize,
    /// Hide the moves before the analysed position from the network
    /// (`ignorePreRootHistory`, on in KataGo's analysis engine).
    pub ignore_pre_root_history: bool,
}

/// The engine's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineSettings {
    /// Positions searched at once (`numAnalysisThreads`).
    pub analysis_threads: usize,
    /// Threads of the network's forward pass (`numNNThreads`).
    pub nn_threads: usize,
    /// The arithmetic of the network's matrix products (`precision`).
    pub precision: Precision,
    /// Most positions in one forward pass (`nnMaxBatchSize`).
    pub max_batch: usize,
    /// The evaluation cache holds 2^this positions (`nnCacheSizePowerOfTwo`).
    pub cache_power: u32,
    /// A random symmetry per evaluation (`nnRandomize`); off: symmetry 0.
    pub nn_randomize: bool,
    /// Seed of the random symmetries and noise (`nnRandSeed`).
    pub seed: u64,
    /// The search settings every query starts from.
    pub search: SearchSettings,
}

impl Default for EngineSettings {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        EngineSettings {
            analysis_threads: 2,
            nn_threads: cores,
            precision: Precision::Auto,
            max_batch: 32,
            cache_power: 14,
            nn_randomize: true,
            seed: 0,
            search: SearchSettings {
                puct: PuctConfig {
                    // KataGo's analysis engine turns `conservativePass` on
                    // unless its config says otherwise, as its GTP engine
                    // does (self-play and matches leave it off).
                    limits: SearchLimits {
                        visits: Some(500),
                        reuse: false,
                        ..SearchLimits::default()
                    },
                    batching: Batching {
                        size: 8,
                        ..Batching::default()
                    },
                    selection: MoveSelection {
                        conservative_pass: true,
                        ..MoveSelection::default()
                    },
                    resignation: ResignSettings {
                        threshold: 0.0,
                        ..ResignSettings::default()
                    },
                    ..PuctConfig::default()
                },
                eval: KataGoEvalSettings::default(),
                playout_doubling_advantage: 0.0,
                playout_doubling_player: None,
                // KataGo's analysis engine reports from the side to move
                // unless its config names a colour (its example config
                // says BLACK, as KaTrain's does).
                report_as: ReportAs::SideToMove,
                pv_len: 15,
                ignore_pre_root_history: true,
            },
        }
    }
}

impl PuctSettings for EngineSettings {
    fn puct(&self) -> &PuctConfig {
        &self.search.puct
    }
    fn puct_mut(&mut self) -> &mut PuctConfig {
        &mut self.search.puct
    }
    fn eval(&self) -> &KataGoEvalSettings {
        &self.search.eval
    }
    fn eval_mut(&mut self) -> &mut KataGoEvalSettings {
        &mut self.search.eval
    }
    fn nn_threads(&self) -> usize {
        self.nn_threads
    }
    fn set_nn_threads(&mut self, threads: usize) {
        self.nn_threads = threads;
    }
    fn precision(&self) -> Precision {
        self.precision
    }
    fn set_precision(&mut self, precision: Precision) {
        self.precision = precision;
    }
}

/// Where a setting may be given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The command line only (`--config`, `--override-config`).
    Engine,
    /// Also a query's `overrideSettings`.
    Query,
}

/// The scope of a shared option of `category` here; `None`: the engine
/// has no such option (it keeps no tree between queries and never
/// resigns).
fn scope_of(category: Category) -> Option<Scope> {
    match category {
        Category::Machine | Category::Batching => Some(Scope::Engine),
        Category::Resignation | Category::Turns | Category::Playouts => None,
        _ => Some(Scope::Query),
    }
}

/// Why a setting was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SettingError {
    /// No such setting.
    #[error("unknown setting {0:?}")]
    Unknown(String),
    /// A setting of the whole engine, given in a query.
    #[error("{0} can only be set on the command line")]
    EngineOnly(String),
    /// A value the setting does not take.
    #[error("{name} cannot be {value:?}: {reason}")]
    Value {
        /// The setting.
        name: String,
        /// The value given.
        value: String,
        /// What it takes.
        reason: String,
    },
}

/// The forward pass's and the search's settings, as the `katago` bot has
/// them.
static SEARCH: SearchOptions<EngineSettings> = SearchOptions::new();

/// Search settings of the analysis engine alone.
static QUERY: [Setting<EngineSettings>; 5] = [
    Setting {
        name: "playout-doubling-advantage",
        katago: &["playoutDoublingAdvantage"],
        category: Category::Network,
        help: "the network assumes the analysed side searches 2^this times as much as the other (-3 to 3)",
        kind: Kind::Real {
            min: -3.0,
            max: 3.0,
            get: |s| wide(s.search.playout_doubling_advantage),
            set: |s, v| s.search.playout_doubling_advantage = v as f32,
        },
        applies: None,
    },
    Setting {
        name: "playout-doubling-player",
        katago: &["playoutDoublingAdvantagePla"],
        category: Category::Network,
        help: "the player playoutDoublingAdvantage favours: BLACK, WHITE, or EMPTY for the side to move at the analysed position",
        kind: Kind::Choice {
            words: &["EMPTY", "BLACK", "WHITE"],
            get: |s| match s.search.playout_doubling_player {
                None => "EMPTY",
                Some(tengen_core::Color::Black) => "BLACK",
                Some(tengen_core::Color::White) => "WHITE",
            },
            set: |s, word| {
                s.search.playout_doubling_player = match word {
                    "BLACK" => Some(tengen_core::Color::Black),
                    "WHITE" => Some(tengen_core::Color::White),
                    _ => None,
                }
            },
        },
        applies: None,
    },
    Setting {
        name: "ignore-pre-root-history",
        katago: &["ignorePreRootHistory"],
        category: Category::Network,
        help: "hide the moves before the analysed position from the network, so that the analysis does not depend on the order of the moves",
        kind: Kind::Flag {
            get: |s| s.search.ignore_pre_root_history,
            set: |s, on| s.search.ignore_pre_root_history = on,
        },
        applies: None,
    },
    Setting {
        name: "report-as",
        katago: &["reportAnalysisWinratesAs"],
        category: Category::Selection,
        help: "whose point of view win rates, scores and ownership take: BLACK, WHITE or SIDETOMOVE",
        kind: Kind::Choice {
            words: &["BLACK", "WHITE", "SIDETOMOVE"],
            get: |s| match s.search.report_as {
                ReportAs::Black => "BLACK",
                ReportAs::White => "WHITE",
                ReportAs::SideToMove => "SIDETOMOVE",
            },
            set: |s, word| {
                s.search.report_as = match word {
                    "BLACK" => ReportAs::Black,
                    "WHITE" => ReportAs::White,
                    _ => ReportAs::SideToMove,
                }
            },
        },
        applies: None,
    },
    Setting {
        name: "pv-len",
        katago: &["analysisPVLen"],
        category: Category::Selection,
        help: "moves of each principal variation after the first (at most 20)",
        kind: Kind::Whole {
            min: 0,
            max: 1000,
            get: |s| s.search.pv_len as u64,
            set: |s, n| s.search.pv_len = n as usize,
        },
        applies: None,
    },
];

/// Settings of the whole analysis engine alone (command line only).
static ENGINE: [Setting<EngineSettings>; 5] = [
    Setting {
        name: "analysis-threads",
        katago: &["numAnalysisThreads"],
        category: Category::Machine,
        help: "positions searched at the same time; their evaluations share the network's batches",
        kind: Kind::Whole {
            min: 1,
            max: 256,
            get: |s| s.analysis_threads as u64,
            set: |s, n| s.analysis_threads = n as usize,
        },
        applies: None,
    },
    Setting {
        name: "max-batch",
        katago: &["nnMaxBatchSize"],
        category: Category::Batching,
        help: "most positions in one forward pass",
        kind: Kind::Whole {
            min: 1,
            max: 4096,
            get: |s| s.max_batch as u64,
            set: |s, n| s.max_batch = n as usize,
        },
        applies: None,
    },
    Setting {
        name: "cache-power",
        katago: &["nnCacheSizePowerOfTwo"],
        category: Category::Machine,
        help: "the evaluation cache holds 2^this positions (0: no cache); above 20 it holds 2^20, about 6 GB full on 19x19",
        kind: Kind::Whole {
            min: 0,
            max: 64,
            get: |s| u64::from(s.cache_power),
            set: |s, n| s.cache_power = n.min(20) as u32,
        },
        applies: None,
    },
    Setting {
        name: "randomize",
        katago: &["nnRandomize"],
        category: Category::Machine,
        help: "evaluate each position under a random symmetry of the board; off: the identity",
        kind: Kind::Flag {
            get: |s| s.nn_randomize,
            set: |s, on| s.nn_randomize = on,
        },
        applies: None,
    },
    Setting {
        name: "seed",
        katago: &["nnRandSeed"],
        category: Category::Machine,
        help: "seed of the random symmetries and of the root noise",
        kind: Kind::Whole {
            min: 0,
            max: u64::MAX,
            get: |s| s.seed,
            set: |s, n| s.seed = n,
        },
        applies: None,
    },
];

/// KataGo's settings that have nothing to set here: logging, GPU
/// backends, its own thread layout. They are accepted and unused.
pub static IGNORED: &[&str] = &[
    "logDir",
    "logFile",
    "logAllRequests",
    "logAllResponses",
    "logErrorsAndWarnings",
    "logSearchInfo",
    "logToStderr",
    "logTimeStamp",
    "numNNServerThreadsPerModel",
    "nnMutexPoolSizePowerOfTwo",
    "cudaUseFP16",
    "cudaUseNHWC",
    "openclUseFP16",
    "trtUseFP16",
    "homeDataDir",
    "maxBoardXSizeForNNBuffer",
    "maxBoardYSizeForNNBuffer",
    "requireMaxBoardSize",
];

/// A setting the engine takes, and where it may be given.
#[derive(Clone, Copy)]
pub struct Entry {
    /// Its one definition.
    pub setting: &'static Setting<EngineSettings>,
    /// Where it may be given.
    pub scope: Scope,
    /// Whether the `katago` bot has it too (under its tengen name).
    pub shared: bool,
}

/// Every setting the engine takes, in the order of the docs: the search's
/// (those KataGo has), the engine's own for queries, then the command
/// line's.
pub fn entries() -> impl Iterator<Item = Entry> {
    let shared = SEARCH.iter().filter_map(|setting| {
        let scope = scope_of(setting.category)?;
        (!setting.katago.is_empty()).then_some(Entry {
            setting,
            scope,
            shared: true,
        })
    });
    let query = QUERY.iter().map(|setting| Entry {
        setting,
        scope: Scope::Query,
        shared: false,
    });
    let engine = ENGINE.iter().map(|setting| Entry {
        setting,
        scope: Scope::Engine,
        shared: false,
    });
    // Queries' settings first, as KataGo's example config lists them.
    let (shared_query, shared_engine): (Vec<_>, Vec<_>) =
        shared.partition(|entry| entry.scope == Scope::Query);
    shared_query
        .into_iter()
        .chain(query)
        .chain(shared_engine)
        .chain(engine)
}

/// The setting KataGo calls `name` (exact spelling).
pub fn find(name: &str) -> Option<Entry> {
    entries().find(|entry| entry.setting.is_katago(name))
}

impl Entry {
    /// Sets this setting to `value` (text as in a config file: `true`,
    /// `0.5`, `BLACK`), given under KataGo's `name`.
    pub fn apply(
        &self,
        settings: &mut EngineSettings,
        name: &str,
        value: &str,
    ) -> Result<(), SettingError> {
        self.setting
            .apply_katago(settings, value)
            .map_err(|reason| SettingError::Value {
                name: name.to_string(),
                value: value.to_string(),
                reason,
            })
    }

    /// The value in `settings`, as KataGo's text.
    pub fn value(&self, settings: &EngineSettings) -> String {
        self.setting.katago_text(settings)
    }
}

mod config_file;
pub use config_file::{apply_config, apply_overrides, reference};

#[cfg(test)]
mod tests;
