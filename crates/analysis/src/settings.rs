//! The analysis engine's settings, by KataGo's names: one table yields the
//! config-file parser, `--override-config`, a query's `overrideSettings`,
//! the defaults and the reference in the docs.
//!
//! Settings of the whole engine (threads, batch, cache) come from the
//! command line only; search settings also from each query.

use std::fmt::Write as _;
use std::time::Duration;

use tengen_katago::forward::Precision;
use tengen_puct::katago::KataGoEvalSettings;
use tengen_puct::PuctConfig;

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
                    visits: Some(500),
                    batch: 8,
                    reuse: false,
                    resign_threshold: 0.0,
                    // KataGo's analysis engine turns `conservativePass` on
                    // unless its config says otherwise, as its GTP engine
                    // does (self-play and matches leave it off).
                    conservative_pass: true,
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

/// Where a setting may be given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The command line only (`--config`, `--override-config`).
    Engine,
    /// Also a query's `overrideSettings`.
    Query,
}

/// A setting's type, with its reader and writer.
#[derive(Clone, Copy)]
pub enum Kind {
    /// `true` or `false`.
    Flag {
        /// The value.
        get: fn(&EngineSettings) -> bool,
        /// Sets it.
        set: fn(&mut EngineSettings, bool),
    },
    /// A whole number in a range.
    Whole {
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
        /// The value.
        get: fn(&EngineSettings) -> u64,
        /// Sets it.
        set: fn(&mut EngineSettings, u64),
    },
    /// A number in a range.
    Real {
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
        /// The value.
        get: fn(&EngineSettings) -> f64,
        /// Sets it.
        set: fn(&mut EngineSettings, f64),
    },
    /// One of some words (any case).
    Choice {
        /// The words.
        words: &'static [&'static str],
        /// The value.
        get: fn(&EngineSettings) -> &'static str,
        /// Sets it (given one of the words as written in `words`).
        set: fn(&mut EngineSettings, &'static str),
    },
    /// KataGo has it; tengen takes it and has no use for it.
    Ignored,
}

/// One setting.
#[derive(Clone, Copy)]
pub struct Setting {
    /// KataGo's name.
    pub name: &'static str,
    /// What it does.
    pub help: &'static str,
    /// Where it may be given.
    pub scope: Scope,
    /// Its type.
    pub kind: Kind,
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

fn secs(d: Option<Duration>) -> f64 {
    d.map_or(0.0, |d| d.as_secs_f64())
}

/// Every setting, in the order of the docs.
pub static SETTINGS: &[Setting] = &[
    Setting {
        name: "maxVisits",
        help: "root visits per analysed position",
        scope: Scope::Query,
        kind: Kind::Whole {
            min: 1,
            max: 1_000_000_000,
            get: |s| s.search.puct.visits.unwrap_or(0),
            set: |s, n| s.search.puct.visits = Some(n),
        },
    },
    Setting {
        name: "maxPlayouts",
        help: "new visits per analysed position (0: no limit)",
        scope: Scope::Query,
        kind: Kind::Whole {
            min: 0,
            max: 1_000_000_000,
            get: |s| s.search.puct.playouts.unwrap_or(0),
            set: |s, n| s.search.puct.playouts = (n > 0).then_some(n),
        },
    },
    Setting {
        name: "maxTime",
        help: "seconds per analysed position (0: no limit)",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 1e7,
            get: |s| secs(s.search.puct.time),
            set: |s, t| s.search.puct.time = (t > 0.0).then(|| Duration::from_secs_f64(t)),
        },
    },
    Setting {
        name: "wideRootNoise",
        help: "at the root, flatten the priors and add random bonuses so that more moves get visits (0: off)",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 5.0,
            get: |s| f64::from(s.search.puct.wide_root_noise),
            set: |s, v| s.search.puct.wide_root_noise = v as f32,
        },
    },
    Setting {
        name: "rootPolicyTemperature",
        help: "temperature of the root's priors; above 1 the search spreads wider",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.01,
            max: 100.0,
            get: |s| f64::from(s.search.puct.root_policy_temperature),
            set: |s, v| s.search.puct.root_policy_temperature = v as f32,
        },
    },
    Setting {
        name: "rootFpuReductionMax",
        help: "first-play urgency reduction at the root",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 2.0,
            get: |s| f64::from(s.search.puct.root_fpu_reduction),
            set: |s, v| s.search.puct.root_fpu_reduction = v as f32,
        },
    },
    Setting {
        name: "fpuReductionMax",
        help: "first-play urgency reduction below the root",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 2.0,
            get: |s| f64::from(s.search.puct.fpu_reduction),
            set: |s, v| s.search.puct.fpu_reduction = v as f32,
        },
    },
    Setting {
        name: "cpuctExploration",
        help: "base exploration constant",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 100.0,
            get: |s| f64::from(s.search.puct.c_puct),
            set: |s, v| s.search.puct.c_puct = v as f32,
        },
    },
    Setting {
        name: "cpuctExplorationLog",
        help: "growth of the exploration constant with the parent's visits",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 100.0,
            get: |s| f64::from(s.search.puct.c_puct_log),
            set: |s, v| s.search.puct.c_puct_log = v as f32,
        },
    },
    Setting {
        name: "cpuctExplorationBase",
        help: "visits scale of that growth",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 1.0,
            max: 1e9,
            get: |s| f64::from(s.search.puct.c_puct_base),
            set: |s, v| s.search.puct.c_puct_base = v as f32,
        },
    },
    Setting {
        name: "cpuctUtilityStdevScale",
        help: "scale exploration by the spread of the parent's utility (0: off)",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 10.0,
            get: |s| f64::from(s.search.puct.cpuct_stdev_scale),
            set: |s, v| s.search.puct.cpuct_stdev_scale = v as f32,
        },
    },
    Setting {
        name: "fpuParentWeightByVisitedPolicy",
        help: "first-play urgency leans on the network's value of the parent while little of its policy is visited",
        scope: Scope::Query,
        kind: Kind::Flag {
            get: |s| s.search.puct.fpu_parent_blend,
            set: |s, on| s.search.puct.fpu_parent_blend = on,
        },
    },
    Setting {
        name: "useGraphSearch",
        help: "share the search of a position between the move orders that reach it (transpositions)",
        scope: Scope::Query,
        kind: Kind::Flag {
            get: |s| s.search.puct.transpositions,
            set: |s, on| s.search.puct.transpositions = on,
        },
    },
    Setting {
        name: "valueWeightExponent",
        help: "weigh a node's children by the chance each is the best, to this power, when its value is made from theirs (0: the plain average)",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 1.0,
            get: |s| f64::from(s.search.puct.value_weight_exponent),
            set: |s, v| s.search.puct.value_weight_exponent = v as f32,
        },
    },
    Setting {
        name: "useNoisePruning",
        help: "in a node's value, count less of the visits noise or luck gave a child worse than the likelier moves before it",
        scope: Scope::Query,
        kind: Kind::Flag {
            get: |s| s.search.puct.noise_pruning,
            set: |s, on| s.search.puct.noise_pruning = on,
        },
    },
    Setting {
        name: "subtreeValueBiasFactor",
        help: "share of the error found in the network's values of a local situation that corrects the network's value of the nodes of the same situation (0: off)",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 1.0,
            get: |s| f64::from(s.search.puct.subtree_value_bias),
            set: |s, v| s.search.puct.subtree_value_bias = v as f32,
        },
    },
    Setting {
        name: "useLcbForSelection",
        help: "order the moves by a lower confidence bound of their utility",
        scope: Scope::Query,
        kind: Kind::Flag {
            get: |s| s.search.puct.lcb_selection,
            set: |s, on| s.search.puct.lcb_selection = on,
        },
    },
    Setting {
        name: "lcbStdevs",
        help: "standard errors below the mean for that bound",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 100.0,
            get: |s| f64::from(s.search.puct.lcb_stdevs),
            set: |s, v| s.search.puct.lcb_stdevs = v as f32,
        },
    },
    Setting {
        name: "minVisitPropForLCB",
        help: "share of the most visited move's visits a move needs to be ordered by its bound",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 1.0,
            get: |s| f64::from(s.search.puct.lcb_min_visits),
            set: |s, v| s.search.puct.lcb_min_visits = v as f32,
        },
    },
    Setting {
        name: "useUncertainty",
        help: "weight each evaluation by the network's certainty of it",
        scope: Scope::Query,
        kind: Kind::Flag {
            get: |s| s.search.puct.uncertainty_weighting,
            set: |s, on| s.search.puct.uncertainty_weighting = on,
        },
    },
    Setting {
        name: "staticScoreUtilityFactor",
        help: "weight of the score utility centred on a draw",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 10.0,
            get: |s| f64::from(s.search.puct.static_score_utility),
            set: |s, v| s.search.puct.static_score_utility = v as f32,
        },
    },
    Setting {
        name: "dynamicScoreUtilityFactor",
        help: "weight of the score utility centred near the root's expected score",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 10.0,
            get: |s| f64::from(s.search.puct.dynamic_score_utility),
            set: |s, v| s.search.puct.dynamic_score_utility = v as f32,
        },
    },
    Setting {
        name: "policyOptimism",
        help: "share of the optimistic policy mixed in below the root",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 1.0,
            get: |s| f64::from(s.search.eval.policy_optimism),
            set: |s, v| s.search.eval.policy_optimism = v as f32,
        },
    },
    Setting {
        name: "rootPolicyOptimism",
        help: "share of the optimistic policy mixed in at the root",
        scope: Scope::Query,
        kind: Kind::Real {
            min: 0.0,
            max: 1.0,
            get: |s| f64::from(s.search.eval.root_policy_optimism),
            set: |s, v| s.search.eval.root_policy_optimism = v as f32,
        },
    },
    Setting {
        name: "conservativePass",
        help: "value a game-ending pass by the network as if the game went on, rather than by the count",
        scope: Scope::Query,
        kind: Kind::Flag {
            get: |s| s.search.puct.conservative_pass,
            set: |s, on| s.search.puct.conservative_pass = on,
        },
    },
    Setting {
        name: "playoutDoublingAdvantage",
        help: "the network assumes the analysed side searches 2^this times as much as the other (-3 to 3)",
        scope: Scope::Query,
        kind: Kind::Real {
            min: -3.0,
            max: 3.0,
            get: |s| f64::from(s.search.playout_doubling_advantage),
            set: |s, v| s.search.playout_doubling_advantage = v as f32,
        },
    },
    Setting {
        name: "playoutDoublingAdvantagePla",
        help: "the player playoutDoublingAdvantage favours: BLACK, WHITE, or EMPTY for the side to move at the analysed position",
        scope: Scope::Query,
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
    },
    Setting {
        name: "antiMirror",
        help: "when the opponent has been mirroring every move through the centre, lean towards the moves that break the mirror (KataGo's heuristics); the values reported are biased by them",
        scope: Scope::Query,
        kind: Kind::Flag {
            get: |s| s.search.puct.anti_mirror,
            set: |s, on| s.search.puct.anti_mirror = on,
        },
    },
    Setting {
        name: "ignorePreRootHistory",
        help: "hide the moves before the analysed position from the network, so that the analysis does not depend on the order of the moves",
        scope: Scope::Query,
        kind: Kind::Flag {
            get: |s| s.search.ignore_pre_root_history,
            set: |s, on| s.search.ignore_pre_root_history = on,
        },
    },
    Setting {
        name: "reportAnalysisWinratesAs",
        help: "whose point of view win rates, scores and ownership take: BLACK, WHITE or SIDETOMOVE",
        scope: Scope::Query,
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
    },
    Setting {
        name: "analysisPVLen",
        help: "moves of each principal variation after the first (at most 20)",
        scope: Scope::Query,
        kind: Kind::Whole {
            min: 0,
            max: 1000,
            get: |s| s.search.pv_len as u64,
            set: |s, n| s.search.pv_len = n as usize,
        },
    },
    Setting {
        name: "numAnalysisThreads",
        help: "positions searched at the same time; their evaluations share the network's batches",
        scope: Scope::Engine,
        kind: Kind::Whole {
            min: 1,
            max: 256,
            get: |s| s.analysis_threads as u64,
            set: |s, n| s.analysis_threads = n as usize,
        },
    },
    Setting {
        name: "numNNThreads",
        help: "threads of the network's forward pass (default: the machine's cores)",
        scope: Scope::Engine,
        kind: Kind::Whole {
            min: 1,
            max: 256,
            get: |s| s.nn_threads as u64,
            set: |s, n| s.nn_threads = n as usize,
        },
    },
    Setting {
        name: "precision",
        help: "the network's matrix products (tengen's own): 'auto' the fastest whose accuracy meets the bounds in docs/performance.md (bf16 on CPUs with AMX, or AMD's with AVX-512-BF16; f32 elsewhere); 'f32' KataGo's own arithmetic; 'bf16' one rounding, a little less accurate, the fastest where bf16 pays; 'int8' 8-bit integer products on CPUs with AVX-512-VNNI, each operand split in two, as accurate as auto and faster where the integer units are (auto elsewhere)",
        scope: Scope::Engine,
        kind: Kind::Choice {
            words: &["auto", "f32", "bf16", "int8"],
            get: |s| s.precision.name(),
            set: |s, word| s.precision = word.parse().unwrap_or_default(),
        },
    },
    Setting {
        name: "numEigenThreadsPerModel",
        help: "the same as numNNThreads (the name of KataGo's CPU build)",
        scope: Scope::Engine,
        kind: Kind::Whole {
            min: 1,
            max: 256,
            get: |s| s.nn_threads as u64,
            set: |s, n| s.nn_threads = n as usize,
        },
    },
    Setting {
        name: "nnMaxBatchSize",
        help: "most positions in one forward pass",
        scope: Scope::Engine,
        kind: Kind::Whole {
            min: 1,
            max: 4096,
            get: |s| s.max_batch as u64,
            set: |s, n| s.max_batch = n as usize,
        },
    },
    Setting {
        name: "searchBatchSize",
        help: "leaves one search evaluates together",
        scope: Scope::Engine,
        kind: Kind::Whole {
            min: 1,
            max: 256,
            get: |s| s.search.puct.batch as u64,
            set: |s, n| s.search.puct.batch = n as usize,
        },
    },
    Setting {
        name: "numSearchThreadsPerAnalysisThread",
        help: "descents of one search kept in flight, as KataGo's search threads keep them: each new descent sees the virtual losses of this many minus one others, and batches take this many leaves (at most searchBatchSize)",
        scope: Scope::Engine,
        kind: Kind::Whole {
            min: 1,
            max: 256,
            get: |s| s.search.puct.in_flight as u64,
            set: |s, n| s.search.puct.in_flight = n as usize,
        },
    },
    Setting {
        name: "numSearchThreads",
        help: "the same as numSearchThreadsPerAnalysisThread (KataGo's older name, in KaTrain's config)",
        scope: Scope::Engine,
        kind: Kind::Whole {
            min: 1,
            max: 256,
            get: |s| s.search.puct.in_flight as u64,
            set: |s, n| s.search.puct.in_flight = n as usize,
        },
    },
    Setting {
        name: "nnCacheSizePowerOfTwo",
        help: "the evaluation cache holds 2^this positions (0: no cache); above 20 it holds 2^20, about 6 GB full on 19x19",
        scope: Scope::Engine,
        kind: Kind::Whole {
            min: 0,
            max: 64,
            get: |s| u64::from(s.cache_power),
            set: |s, n| s.cache_power = n.min(20) as u32,
        },
    },
    Setting {
        name: "nnRandomize",
        help: "evaluate each position under a random symmetry of the board; off: the identity",
        scope: Scope::Engine,
        kind: Kind::Flag {
            get: |s| s.nn_randomize,
            set: |s, on| s.nn_randomize = on,
        },
    },
    Setting {
        name: "nnRandSeed",
        help: "seed of the random symmetries and of the root noise",
        scope: Scope::Engine,
        kind: Kind::Whole {
            min: 0,
            max: u64::MAX,
            get: |s| s.seed,
            set: |s, n| s.seed = n,
        },
    },
    // KataGo's settings that have nothing to set here: logging, GPU
    // backends, its own thread layout.
    ignored("logDir"),
    ignored("logFile"),
    ignored("logAllRequests"),
    ignored("logAllResponses"),
    ignored("logErrorsAndWarnings"),
    ignored("logSearchInfo"),
    ignored("logToStderr"),
    ignored("logTimeStamp"),
    ignored("numNNServerThreadsPerModel"),
    ignored("nnMutexPoolSizePowerOfTwo"),
    ignored("cudaUseFP16"),
    ignored("cudaUseNHWC"),
    ignored("openclUseFP16"),
    ignored("trtUseFP16"),
    ignored("homeDataDir"),
    ignored("maxBoardXSizeForNNBuffer"),
    ignored("maxBoardYSizeForNNBuffer"),
    ignored("requireMaxBoardSize"),
];

const fn ignored(name: &'static str) -> Setting {
    Setting {
        name,
        help: "KataGo's; accepted and unused",
        scope: Scope::Engine,
        kind: Kind::Ignored,
    }
}

/// The setting of that name (exact, KataGo's spelling).
pub fn find(name: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.name == name)
}

impl Setting {
    /// Sets this setting to `value` (text as in a config file: `true`,
    /// `0.5`, `BLACK`).
    pub fn apply(&self, settings: &mut EngineSettings, value: &str) -> Result<(), SettingError> {
        let refuse = |reason: String| SettingError::Value {
            name: self.name.to_string(),
            value: value.to_string(),
            reason,
        };
        let text = value.trim();
        match self.kind {
            Kind::Flag { set, .. } => match text.to_ascii_lowercase().as_str() {
                "true" | "1" => set(settings, true),
                "false" | "0" => set(settings, false),
                _ => return Err(refuse("true or false".to_string())),
            },
            Kind::Whole { min, max, set, .. } => {
                let n: u64 = text
                    .parse()
                    .map_err(|_| refuse(format!("a whole number from {min} to {max}")))?;
                if n < min || n > max {
                    return Err(refuse(format!("a whole number from {min} to {max}")));
                }
                set(settings, n);
            }
            Kind::Real { min, max, set, .. } => {
                let v: f64 = text
                    .parse()
                    .ok()
                    .filter(|v: &f64| v.is_finite())
                    .ok_or_else(|| refuse(format!("a number from {min} to {max}")))?;
                if v < min || v > max {
                    return Err(refuse(format!("a number from {min} to {max}")));
                }
                set(settings, v);
            }
            Kind::Choice { words, set, .. } => {
                let word = words
                    .iter()
                    .find(|w| w.eq_ignore_ascii_case(text))
                    .ok_or_else(|| refuse(format!("one of {}", words.join(", "))))?;
                set(settings, word);
            }
            Kind::Ignored => {}
        }
        Ok(())
    }

    /// The value in `settings`, as text (`None` for an ignored setting).
    pub fn value(&self, settings: &EngineSettings) -> Option<String> {
        Some(match self.kind {
            Kind::Flag { get, .. } => get(settings).to_string(),
            Kind::Whole { get, .. } => get(settings).to_string(),
            Kind::Real { get, .. } => {
                let v = get(settings);
                // f32 fields print as their shortest decimal.
                format!("{}", v as f32)
            }
            Kind::Choice { get, .. } => get(settings).to_string(),
            Kind::Ignored => return None,
        })
    }
}

mod config_file;
pub use config_file::{apply_config, apply_overrides, reference};

#[cfg(test)]
mod tests;
