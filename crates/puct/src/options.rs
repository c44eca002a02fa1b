//! The options of the PUCT search, each defined once: its tengen name,
//! KataGo's names, category, range and help. The `katago` bot's spec,
//! GTP's `kata-set-param`, the analysis engine's config file,
//! `overrideSettings` and query fields, and both references in the docs
//! read these definitions, over whatever settings value holds the search's
//! ([`PuctSettings`]).
//!
//! Each door keeps its own defaults (the analysis engine's 500 visits, the
//! bot's 800), written in its settings' `Default`.

use tengen_katago::forward::Precision;
use tengen_options::{wide, Category, Condition, Kind, Setting};

use crate::katago::KataGoEvalSettings;
use crate::PuctConfig;

/// Settings that hold a PUCT search's: its [`PuctConfig`], the network's
/// evaluation settings, and the forward pass's threads and precision.
pub trait PuctSettings {
    /// The search's settings.
    fn puct(&self) -> &PuctConfig;
    /// The same, to change.
    fn puct_mut(&mut self) -> &mut PuctConfig;
    /// How the network evaluates.
    fn eval(&self) -> &KataGoEvalSettings;
    /// The same, to change.
    fn eval_mut(&mut self) -> &mut KataGoEvalSettings;
    /// Threads of the network's forward pass.
    fn nn_threads(&self) -> usize;
    /// Sets them.
    fn set_nn_threads(&mut self, threads: usize);
    /// The arithmetic of the network's matrix products.
    fn precision(&self) -> Precision;
    /// Sets it.
    fn set_precision(&mut self, precision: Precision);
}

/// What `precision` does, for every door.
const PRECISION_HELP: &str = "the network's matrix products: 'auto' the fastest whose accuracy meets the bounds in docs/performance.md (bf16 on CPUs with AMX, int16 on AMD's with AVX-512-BF16 and VNNI; f32 elsewhere); 'f32' KataGo's own arithmetic; 'bf16' one rounding, a little less accurate, the fastest where bf16 pays; 'int8' 8-bit integer products on CPUs with AVX-512-VNNI (on the AMX-INT8 tiles where the CPU has them), each operand split in two, as accurate as auto; 'int16' 16-bit integer products (13 bits a value) on CPUs with AVX-512-VNNI, one product each, as accurate as auto (auto where the CPU lacks the units)";

/// The options of the network's forward pass: its threads and precision.
pub const fn machine_options<S: PuctSettings>() -> [Setting<S>; 2] {
    [
        Setting {
            name: "threads",
            katago: &["numNNThreads", "numEigenThreadsPerModel"],
            category: Category::Machine,
            help: "threads of the network's forward pass (numEigenThreadsPerModel is the name in KataGo's CPU build)",
            kind: Kind::Whole {
                min: 1,
                max: 256,
                get: |s| s.nn_threads() as u64,
                set: |s, n| s.set_nn_threads(n as usize),
            },
            applies: None,
        },
        Setting {
            name: "precision",
            katago: &["precision"],
            category: Category::Machine,
            help: PRECISION_HELP,
            kind: Kind::Choice {
                words: &["auto", "f32", "bf16", "int8", "int16"],
                get: |s| s.precision().name(),
                set: |s, word| s.set_precision(word.parse().unwrap_or_default()),
            },
            applies: None,
        },
    ]
}

/// A real option over an `f32` field of the search's settings.
macro_rules! real {
    ($name:literal, $katago:expr, $category:ident, $min:expr, $max:expr, $($field:ident).+, $help:literal) => {
        Setting {
            name: $name,
            katago: $katago,
            category: Category::$category,
            help: $help,
            kind: Kind::Real {
                min: $min,
                max: $max,
                get: |s| wide(s.puct().$($field).+),
                set: |s, x| s.puct_mut().$($field).+ = x as f32,
            },
            applies: None,
        }
    };
}

/// A flag over a `bool` field of the search's settings.
macro_rules! flag {
    ($name:literal, $katago:expr, $category:ident, $($field:ident).+, $help:literal) => {
        Setting {
            name: $name,
            katago: $katago,
            category: Category::$category,
            help: $help,
            kind: Kind::Flag {
                get: |s| s.puct().$($field).+,
                set: |s, on| s.puct_mut().$($field).+ = on,
            },
            applies: None,
        }
    };
}

/// The PUCT search's options, one array per group of categories, in the
/// order the references list them.
pub struct SearchOptions<S: 'static> {
    /// The forward pass's: [`machine_options`].
    pub machine: [Setting<S>; 2],
    /// [`limit_options`].
    pub limits: [Setting<S>; LIMIT_OPTIONS],
    /// [`exploration_options`].
    pub exploration: [Setting<S>; EXPLORATION_OPTIONS],
    /// [`utility_options`].
    pub utility: [Setting<S>; UTILITY_OPTIONS],
    /// [`evaluation_options`].
    pub evaluation: [Setting<S>; EVALUATION_OPTIONS],
    /// [`play_options`].
    pub play: [Setting<S>; PLAY_OPTIONS],
}

impl<S: PuctSettings> SearchOptions<S> {
    /// Every option, for settings `S`.
    pub const fn new() -> Self {
        Self {
            machine: machine_options(),
            limits: limit_options(),
            exploration: exploration_options(),
            utility: utility_options(),
            evaluation: evaluation_options(),
            play: play_options(),
        }
    }

    /// The arrays in order.
    pub fn sections(&self) -> [&[Setting<S>]; 6] {
        [
            &self.machine,
            &self.limits,
            &self.exploration,
            &self.utility,
            &self.evaluation,
            &self.play,
        ]
    }

    /// Every option in order.
    pub fn iter(&self) -> impl Iterator<Item = &Setting<S>> {
        self.sections().into_iter().flatten()
    }
}

impl<S: PuctSettings> Default for SearchOptions<S> {
    fn default() -> Self {
        Self::new()
    }
}

/// How many options [`limit_options`] defines.
pub const LIMIT_OPTIONS: usize = 6;

/// The search's options on how much a search does and how its evaluations are batched.
pub const fn limit_options<S: PuctSettings>() -> [Setting<S>; LIMIT_OPTIONS] {
    [
        // Limits.
        Setting {
            name: "visits",
            katago: &["maxVisits"],
            category: Category::Limits,
            help: "root visits per search (of a move, or of an analysed position), kept ones included; none: time or the game's clock decides (800 if neither is set)",
            kind: Kind::OptionalWhole {
                min: 1,
                max: 1_000_000_000,
                get: |s| s.puct().limits.visits,
                set: |s, n| s.puct_mut().limits.visits = n,
            },
            applies: None,
        },
        Setting {
            name: "playouts",
            katago: &["maxPlayouts"],
            category: Category::Limits,
            help: "new visits per search, kept ones not counted; none: no such limit",
            kind: Kind::OptionalWhole {
                min: 1,
                max: 1_000_000_000,
                get: |s| s.puct().limits.playouts,
                set: |s, n| s.puct_mut().limits.playouts = n,
            },
            applies: None,
        },
        Setting {
            name: "time",
            katago: &["maxTime"],
            category: Category::Limits,
            help: "thinking time per search; the game's clock may shorten it",
            kind: Kind::Time {
                get: |s| s.puct().limits.time,
                set: |s, t| s.puct_mut().limits.time = t,
            },
            applies: None,
        },
        // Batching.
        Setting {
            name: "batch",
            katago: &["searchBatchSize"],
            category: Category::Batching,
            help: "leaves evaluated together in one forward pass (at least one per thread of the network where one search has it to itself, so that no thread waits)",
            kind: Kind::Whole {
                min: 1,
                max: 256,
                get: |s| s.puct().batching.size as u64,
                set: |s, n| s.puct_mut().batching.size = n as usize,
            },
            applies: None,
        },
        Setting {
            name: "in-flight",
            katago: &["numSearchThreadsPerAnalysisThread", "numSearchThreads"],
            category: Category::Batching,
            help: "descents kept in flight, as KataGo's search threads keep them: each new descent sees the virtual losses of this many minus one others, and batches take this many leaves (at most batch); 1: one synchronous batch per round",
            kind: Kind::Whole {
                min: 1,
                max: 256,
                get: |s| s.puct().batching.in_flight as u64,
                set: |s, n| s.puct_mut().batching.in_flight = n as usize,
            },
            applies: None,
        },
        flag!(
            "adaptive-batch",
            &[],
            Batching,
            batching.adaptive,
            "batches of at most one leaf per 32 visits the limit or the clock affords, and at least one per thread (batches spread their leaves by virtual loss)"
        ),
    ]
}

/// How many options [`exploration_options`] defines.
pub const EXPLORATION_OPTIONS: usize = 11;

/// The search's options on where the search explores: PUCT's constants, first-play urgency, noise and the root's policy.
pub const fn exploration_options<S: PuctSettings>() -> [Setting<S>; EXPLORATION_OPTIONS] {
    [
        // Exploration.
        real!("cpuct", &["cpuctExploration"], Exploration, 0.0, 100.0, exploration.c_puct, "base exploration constant"),
        real!(
            "cpuct-log",
            &["cpuctExplorationLog"],
            Exploration,
            0.0,
            100.0,
            exploration.c_puct_log,
            "growth of the exploration constant with the parent's visits"
        ),
        real!(
            "cpuct-base",
            &["cpuctExplorationBase"],
            Exploration,
            1.0,
            1e9,
            exploration.c_puct_base,
            "visits scale of that growth"
        ),
        real!(
            "cpuct-stdev-scale",
            &["cpuctUtilityStdevScale"],
            Exploration,
            0.0,
            10.0,
            exploration.cpuct_stdev_scale,
            "scale exploration by the spread of the parent's utility (0: off)"
        ),
        real!(
            "fpu-reduction",
            &["fpuReductionMax"],
            Exploration,
            0.0,
            2.0,
            exploration.fpu_reduction,
            "first-play urgency reduction below the root: an unvisited child is valued at the parent's value minus this times the square root of the policy already visited"
        ),
        real!(
            "root-fpu-reduction",
            &["rootFpuReductionMax"],
            Exploration,
            0.0,
            2.0,
            exploration.root_fpu_reduction,
            "the same at the root"
        ),
        flag!(
            "fpu-parent-blend",
            &["fpuParentWeightByVisitedPolicy"],
            Exploration,
            exploration.fpu_parent_blend,
            "first-play urgency from the parent's average blended towards the network's value of the parent while little of its policy is visited"
        ),
        real!(
            "root-policy-temperature",
            &["rootPolicyTemperature"],
            Exploration,
            0.01,
            100.0,
            exploration.root_policy_temperature,
            "temperature of the root's priors; above 1 the search spreads wider"
        ),
        real!(
            "wide-root-noise",
            &["wideRootNoise"],
            Exploration,
            0.0,
            5.0,
            exploration.wide_root_noise,
            "at the root, flatten the priors and add random bonuses so that more moves get visits, for analysis (0: off)"
        ),
        flag!(
            "root-symmetry-pruning",
            &["rootSymmetryPruning"],
            Exploration,
            exploration.root_symmetry_pruning,
            "when the root's stones are symmetric (and no ko is banned), search one move of each set of symmetric moves and report the others as its copies"
        ),
        real!(
            "noise",
            &[],
            Exploration,
            0.0,
            1.0,
            exploration.noise_weight,
            "weight of Dirichlet noise mixed into the root's priors, drawn anew each turn from the bot's seed (0.25 as in AlphaZero's self-play, for varied games)"
        ),
    ]
}

/// How many options [`utility_options`] defines.
pub const UTILITY_OPTIONS: usize = 8;

/// The search's options on what a visit is worth: score utility, value weighting, uncertainty, subtree bias, transpositions.
pub const fn utility_options<S: PuctSettings>() -> [Setting<S>; UTILITY_OPTIONS] {
    [
        // Utility.
        Setting {
            name: "score-utility",
            katago: &[],
            category: Category::Utility,
            help: "'distribution': the score utility in expectation over the network's score mean and spread, as KataGo; 'lead': of the expected lead alone",
            kind: Kind::Choice {
                words: &["distribution", "lead"],
                get: |s| if s.puct().utility.score_distribution { "distribution" } else { "lead" },
                set: |s, word| s.puct_mut().utility.score_distribution = word == "distribution",
            },
            applies: None,
        },
        real!(
            "static-score-utility",
            &["staticScoreUtilityFactor"],
            Utility,
            0.0,
            10.0,
            utility.static_score_utility,
            "weight of the score utility centred on a draw"
        ),
        real!(
            "dynamic-score-utility",
            &["dynamicScoreUtilityFactor"],
            Utility,
            0.0,
            10.0,
            utility.dynamic_score_utility,
            "weight of the score utility centred near the root's expected score"
        ),
        real!(
            "value-weight",
            &["valueWeightExponent"],
            Utility,
            0.0,
            1.0,
            values.value_weight_exponent,
            "weigh a node's children by the chance each is the best, to this power, when its value is made from theirs: moves tried and found bad drag it down less (0: the plain average)"
        ),
        flag!(
            "noise-pruning",
            &["useNoisePruning"],
            Utility,
            values.noise_pruning,
            "in a node's value, count less of the visits noise or luck gave a child worse than the likelier moves before it, beyond twice its share by policy"
        ),
        flag!(
            "uncertainty",
            &["useUncertainty"],
            Utility,
            values.uncertainty_weighting,
            "weight each evaluation by the certainty the network gives it (its short-term error heads), finished games the most"
        ),
        real!(
            "subtree-bias",
            &["subtreeValueBiasFactor"],
            Utility,
            0.0,
            1.0,
            values.subtree_value_bias,
            "correct each node's network value by this share of the error the search found in the network's values of the same local situation in the tree, its own subtree included (0: off)"
        ),
        flag!(
            "transpositions",
            &["useGraphSearch"],
            Utility,
            values.transpositions,
            "share the search of a position between the move orders that reach it: the first node expanded owns it, the others take its average and pass their visits into its subtree"
        ),
    ]
}

/// How many options [`evaluation_options`] defines.
pub const EVALUATION_OPTIONS: usize = 6;

/// The search's options on how the network is read and the move chosen.
pub const fn evaluation_options<S: PuctSettings>() -> [Setting<S>; EVALUATION_OPTIONS] {
    [
        // Network.
        Setting {
            name: "policy-optimism",
            katago: &["policyOptimism"],
            category: Category::Network,
            help: "share of the optimistic policy mixed in below the root",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.eval().policy_optimism),
                set: |s, x| s.eval_mut().policy_optimism = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "root-policy-optimism",
            katago: &["rootPolicyOptimism"],
            category: Category::Network,
            help: "share of the optimistic policy mixed in at the root",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.eval().root_policy_optimism),
                set: |s, x| s.eval_mut().root_policy_optimism = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "symmetry",
            katago: &[],
            category: Category::Network,
            help: "'random': each evaluation under a symmetry drawn at random, as KataGo; 'cycle': each batch under the next of the eight",
            kind: Kind::Choice {
                words: &["random", "cycle"],
                get: |s| if s.eval().random_symmetry { "random" } else { "cycle" },
                set: |s, word| s.eval_mut().random_symmetry = word == "random",
            },
            applies: None,
        },
        // Selection.
        flag!(
            "lcb",
            &["useLcbForSelection"],
            Selection,
            selection.lcb_selection,
            "choose the move (and order the moves reported) by a lower confidence bound on its utility, not by visits alone"
        ),
        Setting {
            applies: Some(Condition {
                text: "lcb=true",
                holds: |s| s.puct().selection.lcb_selection,
            }),
            ..real!(
                "lcb-stdevs",
                &["lcbStdevs"],
                Selection,
                0.0,
                100.0,
                selection.lcb_stdevs,
                "standard errors below the mean for that bound"
            )
        },
        Setting {
            applies: Some(Condition {
                text: "lcb=true",
                holds: |s| s.puct().selection.lcb_selection,
            }),
            ..real!(
                "lcb-min-visits",
                &["minVisitPropForLCB"],
                Selection,
                0.0,
                1.0,
                selection.lcb_min_visits,
                "share of the most visited move's visits a move needs to be chosen by its bound"
            )
        },
    ]
}

/// How many options [`play_options`] defines.
pub const PLAY_OPTIONS: usize = 11;

/// The search's options on how a game is played: passing, mirror play, resignation and the turns between searches.
pub const fn play_options<S: PuctSettings>() -> [Setting<S>; PLAY_OPTIONS] {
    [
        // Play.
        flag!(
            "conservative-pass",
            &["conservativePass"],
            Play,
            selection.conservative_pass,
            "after the opponent's pass, search passing as if the game went on (the opponent's reply pass ends it), not by the bare count of the board"
        ),
        real!(
            "root-ending-bonus",
            &["rootEndingBonusPoints"],
            Play,
            -1.0,
            1.0,
            selection.root_ending_bonus,
            "points taken at the root from moves that only prolong the game (in an area surely one's own, away from the opponent and joining nothing, or in one surely the opponent's, capturing nothing); under territory scoring from a pass instead, two thirds of them (0: off)"
        ),
        flag!(
            "anti-mirror",
            &["antiMirror"],
            Play,
            selection.anti_mirror,
            "against an opponent who answers every move with its reflection through the centre, lean towards the moves that break the mirror (the values reported are biased by it)"
        ),
        // The move's temperature.
        real!(
            "move-temperature-early",
            &["chosenMoveTemperatureEarly"],
            Play,
            0.0,
            5.0,
            selection.temperature_early,
            "draw the move among the searched ones with this temperature at the start of the game, by their play-selection weights raised to 1/temperature (KataGo's GTP engine 0.5; 0: the search's first choice)"
        ),
        real!(
            "move-temperature",
            &["chosenMoveTemperature"],
            Play,
            0.0,
            5.0,
            selection.temperature_late,
            "the temperature the draw of the move falls towards as the game goes on (KataGo's GTP engine 0.1; with both at 0 the move is always the search's first choice)"
        ),
        real!(
            "move-temperature-halflife",
            &["chosenMoveTemperatureHalflife"],
            Play,
            0.1,
            100000.0,
            selection.temperature_halflife,
            "turns over which the move's temperature halves its distance to move-temperature on 19x19 (fewer on smaller boards, in proportion to the side)"
        ),
        // Resignation.
        real!(
            "resign-winrate",
            &[],
            Resignation,
            0.0,
            0.5,
            resignation.threshold,
            "resign when the win rate stays below this for resign-consecutive searches in a row, each of at least 16 visits or its visit limit (KataGo's 0.05; 0: never, for games that must be played out)"
        ),
        Setting {
            name: "resign-consecutive",
            katago: &[],
            category: Category::Resignation,
            help: "searches in a row below resign-winrate before resigning",
            kind: Kind::Whole {
                min: 1,
                max: 100,
                get: |s| u64::from(s.puct().resignation.consecutive),
                set: |s, n| s.puct_mut().resignation.consecutive = n as u32,
            },
            applies: None,
        },
        real!(
            "resign-min-moves",
            &[],
            Resignation,
            0.0,
            1.0,
            resignation.min_moves_per_point,
            "no resignation before this many moves per point of the board (0.2: move 17 on 9x9, 73 on 19x19)"
        ),
        // Turns.
        flag!("reuse", &[], Turns, limits.reuse, "keep the search tree between moves"),
        Setting {
            applies: Some(Condition {
                text: "reuse=true",
                holds: |s| s.puct().limits.reuse,
            }),
            ..flag!(
                "ponder",
                &["ponderingEnabled"],
                Turns,
                limits.ponder,
                "search on during the opponent's turn (GTP), the tree kept for the next move; stops at once on any command, and after 60 s"
            )
        },
    ]
}
