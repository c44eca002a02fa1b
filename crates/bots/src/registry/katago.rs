//! The `katago` bot's settings: PUCT search guided by a KataGo network.

use std::fmt;
use std::sync::Arc;

use tengen_core::Agent;
use tengen_katago::forward::Precision;
use tengen_katago::network::Network;

use super::{
    pass_setting, resign_margin_setting, write_spec, BotError, BotInfo, BotSettings, Budget,
    RESIGN_RENAMED,
};
use crate::settings::{experiments, wide, Condition, FileChoice, Kind, Setting, Table};
use crate::termination::{Terminating, Termination};
use tengen_puct::cache::CachedEvaluator;
use tengen_puct::katago::{KataGoEvalSettings, KataGoEvaluator};
use tengen_puct::{PuctBot, PuctConfig};

/// Settings of the `katago` bot.
#[derive(Clone, Debug, PartialEq)]
pub struct KataGoSettings {
    /// The KataGo network file (required to build the bot alone; a server
    /// gives its own network to [`KataGoSettings::build_with`]).
    pub model: FileChoice,
    /// Threads of the network's forward pass.
    pub threads: usize,
    /// The arithmetic of the network's matrix products.
    pub precision: Precision,
    /// The search (`visits`, `time`, `batch`, `noise`, `resign-winrate`,
    /// `reuse`).
    pub search: PuctConfig,
    /// How the network evaluates (policy optimism, symmetries).
    pub eval: KataGoEvalSettings,
    /// Positions the evaluation cache holds per generation (0: none).
    pub cache: usize,
    /// When it passes and resigns.
    pub termination: Termination,
}

impl Default for KataGoSettings {
    fn default() -> Self {
        KataGoSettings {
            model: FileChoice::None,
            threads: 1,
            precision: Precision::Auto,
            search: PuctConfig {
                // Batching gains little on a CPU (about 7% from 1 to 8 on
                // 19x19) while wide batches spread visits by virtual loss.
                batch: 8,
                ..PuctConfig::default()
            },
            eval: KataGoEvalSettings::default(),
            cache: 4096,
            termination: Termination::NONE,
        }
    }
}

super::terminates_by_field!(KataGoSettings);

const WITH_LCB: Option<Condition<KataGoSettings>> = Some(Condition {
    text: "lcb=true",
    holds: |s| s.search.lcb_selection,
});

const WITH_REUSE: Option<Condition<KataGoSettings>> = Some(Condition {
    text: "reuse=true",
    holds: |s| s.search.reuse,
});

/// The `katago` bot's options.
pub static KATAGO: Table<KataGoSettings> = Table {
    settings: &[
        Setting {
            name: "model",
            help: "the KataGo network file (.bin.gz, model versions 8 to 17); required",
            kind: Kind::File {
                words: &["none"],
                get: |s| s.model.clone(),
                set: |s, file| {
                    s.model = file;
                    Ok(())
                },
            },
            applies: None,
        },
        Setting {
            name: "visits",
            help: "root visits per move, kept ones included; none: time or the game's clock decides (800 if neither is set)",
            kind: Kind::OptionalWhole {
                min: 1,
                max: 1_000_000_000,
                get: |s| s.search.visits,
                set: |s, n| s.search.visits = n,
            },
            applies: None,
        },
        Setting {
            name: "time",
            help: "thinking time per move; the game's clock may shorten it",
            kind: Kind::Time {
                get: |s| s.search.time,
                set: |s, t| s.search.time = t,
            },
            applies: None,
        },
        Setting {
            name: "threads",
            help: "threads of the network's forward pass",
            kind: Kind::Whole {
                min: 1,
                max: 256,
                get: |s| s.threads as u64,
                set: |s, n| s.threads = n as usize,
            },
            applies: None,
        },
        Setting {
            name: "precision",
            help: "the network's matrix products: 'auto' the fastest whose accuracy meets the bounds in docs/performance.md (bf16 on CPUs with AMX, or AMD's with AVX-512-BF16; f32 elsewhere); 'f32' KataGo's own arithmetic; 'bf16' one rounding, a little less accurate, the fastest where bf16 pays; 'int8' 8-bit integer products on CPUs with AVX-512-VNNI, each operand split in two, as accurate as auto and faster where the integer units are (auto elsewhere)",
            kind: Kind::Choice {
                words: &["auto", "f32", "bf16", "int8"],
                get: |s| s.precision.name(),
                set: |s, word| s.precision = word.parse().unwrap_or_default(),
            },
            applies: None,
        },
        Setting {
            name: "batch",
            help: "leaves evaluated together in one forward pass",
            kind: Kind::Whole {
                min: 1,
                max: 256,
                get: |s| s.search.batch as u64,
                set: |s, n| s.search.batch = n as usize,
            },
            applies: None,
        },
        Setting {
            name: "noise",
            help: "weight of Dirichlet noise mixed into the root's priors, drawn anew each turn from the bot's seed (0.25 as in AlphaZero's self-play, for varied games)",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.search.noise_weight),
                set: |s, x| s.search.noise_weight = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "resign-winrate",
            help: "resign when the win rate stays below this for resign-consecutive searches in a row, each of at least 16 visits or its visit limit (KataGo's 0.05; 0: never, for games that must be played out)",
            kind: Kind::Real {
                min: 0.0,
                max: 0.5,
                get: |s| wide(s.search.resign_threshold),
                set: |s, x| s.search.resign_threshold = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "resign-consecutive",
            help: "searches in a row below resign-winrate before resigning",
            kind: Kind::Whole {
                min: 1,
                max: 100,
                get: |s| u64::from(s.search.resign_consecutive),
                set: |s, n| s.search.resign_consecutive = n as u32,
            },
            applies: None,
        },
        Setting {
            name: "resign-min-moves",
            help: "no resignation before this many moves per point of the board (0.2: move 17 on 9x9, 73 on 19x19)",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.search.resign_min_moves_per_point),
                set: |s, x| s.search.resign_min_moves_per_point = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "conservative-pass",
            help: "after the opponent's pass, search passing as if the game went on (the opponent's reply pass ends it), not by the bare count of the board (KataGo's conservativePass)",
            kind: Kind::Flag {
                get: |s| s.search.conservative_pass,
                set: |s, on| s.search.conservative_pass = on,
            },
            applies: None,
        },
        Setting {
            name: "anti-mirror",
            help: "against an opponent who answers every move with its reflection through the centre, lean towards the moves that break the mirror (KataGo's antiMirror)",
            kind: Kind::Flag {
                get: |s| s.search.anti_mirror,
                set: |s, on| s.search.anti_mirror = on,
            },
            applies: None,
        },
        Setting {
            name: "lcb",
            help: "choose the move by a lower confidence bound on its utility, not by visits alone (KataGo's useLcbForSelection)",
            kind: Kind::Flag {
                get: |s| s.search.lcb_selection,
                set: |s, on| s.search.lcb_selection = on,
            },
            applies: None,
        },
        Setting {
            name: "lcb-stdevs",
            help: "standard errors below the mean for that bound (lcbStdevs)",
            kind: Kind::Real {
                min: 0.0,
                max: 20.0,
                get: |s| wide(s.search.lcb_stdevs),
                set: |s, x| s.search.lcb_stdevs = x as f32,
            },
            applies: WITH_LCB,
        },
        Setting {
            name: "lcb-min-visits",
            help: "share of the most visited move's visits a move needs to be chosen by its bound (minVisitPropForLCB)",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.search.lcb_min_visits),
                set: |s, x| s.search.lcb_min_visits = x as f32,
            },
            applies: WITH_LCB,
        },
        Setting {
            name: "score-utility",
            help: "'distribution': the score utility in expectation over the network's score mean and spread, as KataGo; 'lead': of the expected lead alone",
            kind: Kind::Choice {
                words: &["distribution", "lead"],
                get: |s| if s.search.score_distribution { "distribution" } else { "lead" },
                set: |s, word| s.search.score_distribution = word == "distribution",
            },
            applies: None,
        },
        Setting {
            name: "cpuct-stdev-scale",
            help: "scale exploration by the spread of the parent's utility (cpuctUtilityStdevScale; 0: off)",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.search.cpuct_stdev_scale),
                set: |s, x| s.search.cpuct_stdev_scale = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "fpu-parent-blend",
            help: "first-play urgency from the parent's average blended towards the network's value of the parent while little of its policy is visited (fpuParentWeightByVisitedPolicy)",
            kind: Kind::Flag {
                get: |s| s.search.fpu_parent_blend,
                set: |s, on| s.search.fpu_parent_blend = on,
            },
            applies: None,
        },
        Setting {
            name: "transpositions",
            help: "share the search of a position between the move orders that reach it: the first node expanded owns it, the others take its average and pass their visits into its subtree (useGraphSearch)",
            kind: Kind::Flag {
                get: |s| s.search.transpositions,
                set: |s, on| s.search.transpositions = on,
            },
            applies: None,
        },
        Setting {
            name: "value-weight",
            help: "weigh a node's children by the chance each is the best, to this power, when its value is made from theirs: moves tried and found bad drag it down less (valueWeightExponent; 0: the plain average)",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.search.value_weight_exponent),
                set: |s, x| s.search.value_weight_exponent = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "noise-pruning",
            help: "in a node's value, count less of the visits noise or luck gave a child worse than the likelier moves before it, beyond twice its share by policy (useNoisePruning)",
            kind: Kind::Flag {
                get: |s| s.search.noise_pruning,
                set: |s, on| s.search.noise_pruning = on,
            },
            applies: None,
        },
        Setting {
            name: "uncertainty",
            help: "weight each evaluation by the certainty the network gives it (its short-term error heads), finished games the most (useUncertainty)",
            kind: Kind::Flag {
                get: |s| s.search.uncertainty_weighting,
                set: |s, on| s.search.uncertainty_weighting = on,
            },
            applies: None,
        },
        Setting {
            name: "subtree-bias",
            help: "correct each node's network value by this share of the error the search found in the network's values of the same local situation in the tree, its own subtree included (subtreeValueBiasFactor; 0: off)",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.search.subtree_value_bias),
                set: |s, x| s.search.subtree_value_bias = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "adaptive-batch",
            help: "batches of at most one leaf per 32 visits the limit or the clock affords, and at least one per thread (batches spread their leaves by virtual loss)",
            kind: Kind::Flag {
                get: |s| s.search.adaptive_batch,
                set: |s, on| s.search.adaptive_batch = on,
            },
            applies: None,
        },
        Setting {
            name: "policy-optimism",
            help: "optimistic policy mixed in below the root (policyOptimism)",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.eval.policy_optimism),
                set: |s, x| s.eval.policy_optimism = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "root-policy-optimism",
            help: "optimistic policy mixed in at the root (rootPolicyOptimism)",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.eval.root_policy_optimism),
                set: |s, x| s.eval.root_policy_optimism = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "symmetry",
            help: "'random': each evaluation under a symmetry drawn at random, as KataGo; 'cycle': each batch under the next of the eight",
            kind: Kind::Choice {
                words: &["random", "cycle"],
                get: |s| if s.eval.random_symmetry { "random" } else { "cycle" },
                set: |s, word| s.eval.random_symmetry = word == "random",
            },
            applies: None,
        },
        Setting {
            name: "cache",
            help: "positions whose network evaluations are kept, twice over (the recent and the older half; 0: none), so that a position met again is not evaluated again",
            kind: Kind::Whole {
                min: 0,
                max: 10_000_000,
                get: |s| s.cache as u64,
                set: |s, n| s.cache = n as usize,
            },
            applies: None,
        },
        Setting {
            name: "ponder",
            help: "search on during the opponent's turn (GTP), the tree kept for the next move; stops at once on any command, and after 60 s",
            kind: Kind::Flag {
                get: |s| s.search.ponder,
                set: |s, on| s.search.ponder = on,
            },
            applies: WITH_REUSE,
        },
        Setting {
            name: "reuse",
            help: "keep the search tree between moves",
            kind: Kind::Flag {
                get: |s| s.search.reuse,
                set: |s, on| s.search.reuse = on,
            },
            applies: None,
        },
        pass_setting(),
        resign_margin_setting(),
    ],
    renamed: &[("resignrate", "resign-winrate"), RESIGN_RENAMED],
    experiments: experiments(&[]),
};

pub(super) const INFO: BotInfo = BotInfo {
    name: "katago",
    description: "PUCT tree search guided by a KataGo network's policy, value and score (model=PATH, a KataGo .bin.gz)",
    options: &KATAGO,
    parse: |options| Ok(Box::new(KATAGO.parse("katago", options)?)),
};

impl KataGoSettings {
    /// The bot searching with `network` (a server's, loaded once), its
    /// noise drawn from `seed`: the one place a `katago` bot is built.
    pub fn build_with(&self, network: Arc<Network>, seed: u64) -> Box<dyn Agent + Send> {
        let config = PuctConfig {
            noise_seed: seed,
            ..self.search.clone()
        };
        let eval = KataGoEvalSettings { seed, ..self.eval };
        let evaluator =
            CachedEvaluator::new(KataGoEvaluator::with_settings(network, eval), self.cache);
        let bot = PuctBot::new(config, evaluator).named(INFO.name);
        Terminating::wrap(Box::new(bot), self.termination)
    }
}

impl KataGoSettings {
    /// The network of `model` for `threads` threads at `precision`, loaded once per
    /// process and shared by every bot and tool that asks for it.
    pub fn network(&self) -> Result<Arc<Network>, BotError> {
        let FileChoice::Path(path) = &self.model else {
            return Err(BotError::Model {
                path: "none".to_string(),
                reason: "the katago bot needs model=PATH (a KataGo .bin.gz network)".to_string(),
            });
        };
        tengen_puct::katago::load_network(path, self.threads, self.precision).map_err(|reason| {
            BotError::Model {
                path: path.display().to_string(),
                reason,
            }
        })
    }
}

impl fmt::Display for KataGoSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_spec(f, INFO.name, &KATAGO.changed(self))
    }
}

impl BotSettings for KataGoSettings {
    fn info(&self) -> &'static BotInfo {
        &INFO
    }

    fn build(&self, seed: u64) -> Result<Box<dyn Agent + Send>, BotError> {
        Ok(self.build_with(self.network()?, seed))
    }

    fn budget(&self) -> Budget {
        Budget {
            count: Some(("visits", self.search.visits)),
            time: Some(self.search.time),
            threads: Some(self.threads),
            memory_mib: None,
        }
    }

    fn set_budget(&mut self, budget: &Budget) {
        if let Some((_, count)) = budget.count {
            self.search.visits = count;
        }
        if let Some(time) = budget.time {
            self.search.time = time;
        }
        if let Some(threads) = budget.threads {
            self.threads = threads;
        }
    }
}
