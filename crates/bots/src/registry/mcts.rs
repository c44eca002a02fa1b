//! The `mcts` bot's settings: Monte Carlo tree search with RAVE, learned
//! priors, heavy playouts, an opening book, and optionally a tengen network.

use std::fmt;

use tengen_core::{Agent, EyeTest};

use super::{
    load_model, pass_setting, resign_margin_setting, write_spec, BotError, BotInfo, BotSettings,
    Budget, RESIGN_RENAMED,
};
use crate::settings::{experiments, wide, Category, Condition, FileChoice, Kind, Setting, Table};
use crate::termination::{Terminating, Termination};
use tengen_mcts::book::OpeningBook;
use tengen_mcts::evaluator::RolloutEvaluator;
use tengen_mcts::features::MoveModel;
use tengen_mcts::mcts::{nodes_for_mib, MctsConfig, MctsSearch, DEFAULT_MEMORY_MIB};
use tengen_mcts::network::{NetworkEvaluator, NetworkMix};
use tengen_mcts::playout::PlayoutPolicy;
use tengen_mcts::prior::{ModelChoice, PriorSource, LEARNED_WEIGHT};

/// Where new moves' priors come from (`prior-source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PriorKind {
    /// The move model fitted to professional games.
    Learned,
    /// Hand-written Go knowledge.
    Rules,
}

/// Settings of the `mcts` bot: the search's own configuration and the
/// parts the bot is built from (playouts, priors, book, network).
#[derive(Clone, Debug, PartialEq)]
pub struct MctsSettings {
    /// The search (`playouts`, `time`, `threads`, `reuse`, `rave`, …). Its
    /// `max_nodes`, `book` and prior are set from the fields below.
    pub search: MctsConfig,
    /// Most MiB the tree may use (`memory`).
    pub memory_mib: u64,
    /// Heavy playouts (`playout=heavy`) or uniform ones.
    pub heavy: bool,
    /// The heavy playout policy (its experiment switches included).
    pub playout: PlayoutPolicy,
    /// The share of a playout's value given by its score margin (an
    /// experiment).
    pub margin: f32,
    /// Where priors come from (`prior-source`).
    pub prior_kind: PriorKind,
    /// The learned prior's weight (`prior-weight`).
    pub prior_weight: f32,
    /// The learned prior's move model (`move-model`), as given.
    pub move_model: FileChoice,
    /// That model, read.
    move_model_read: ModelChoice,
    /// The opening book (`book`), as given; read into `search.book`.
    pub book: FileChoice,
    /// A tengen network guiding the search (`network`).
    pub network: FileChoice,
    /// How that network enters the search (`network-value`, `network-prior`).
    pub mix: NetworkMix,
    /// When it passes and resigns.
    pub termination: Termination,
}

impl Default for MctsSettings {
    fn default() -> Self {
        let search = MctsConfig::default();
        let (prior_kind, prior_weight, move_model_read) = match search.params.prior {
            PriorSource::Rules => (PriorKind::Rules, LEARNED_WEIGHT, ModelChoice::Builtin),
            PriorSource::Learned { weight, model } => (PriorKind::Learned, weight, model),
        };
        MctsSettings {
            book: match search.book {
                Some(_) => FileChoice::Builtin,
                None => FileChoice::None,
            },
            search,
            memory_mib: DEFAULT_MEMORY_MIB,
            heavy: true,
            playout: PlayoutPolicy::default(),
            margin: 0.0,
            prior_kind,
            prior_weight,
            move_model: FileChoice::Builtin,
            move_model_read,
            network: FileChoice::None,
            mix: NetworkMix::default(),
            termination: Termination::NONE,
        }
    }
}

super::terminates_by_field!(MctsSettings);

const WITH_NETWORK: Option<Condition<MctsSettings>> = Some(Condition {
    text: "network=FILE or network=builtin",
    holds: |s| s.network != FileChoice::None,
});

const WITH_LEARNED_PRIORS: Option<Condition<MctsSettings>> = Some(Condition {
    text: "prior-source=learned",
    holds: |s| s.prior_kind == PriorKind::Learned,
});

#[cfg(feature = "experiments")]
const WITH_HEAVY_PLAYOUTS: Option<Condition<MctsSettings>> = Some(Condition {
    text: "playout=heavy",
    holds: |s| s.heavy,
});

/// The `mcts` bot's options.
pub static MCTS: Table<MctsSettings> = Table {
    sections: &[&[
        Setting {
            name: "playouts",
            katago: &[],
            category: Category::Limits,
            help: "simulations per move; none: time or the game's clock decides (10000 if neither is set)",
            kind: Kind::OptionalWhole {
                min: 1,
                max: 1_000_000_000,
                get: |s| s.search.playouts,
                set: |s, n| s.search.playouts = n,
            },
            applies: None,
        },
        Setting {
            name: "time",
            katago: &["maxTime"],
            category: Category::Limits,
            help: "thinking time per move; the game's clock may shorten it",
            kind: Kind::Time {
                get: |s| s.search.time,
                set: |s, t| s.search.time = t,
            },
            applies: None,
        },
        Setting {
            name: "threads",
            katago: &["numSearchThreads"],
            category: Category::Machine,
            help: "search threads",
            kind: Kind::Whole {
                min: 1,
                max: 256,
                get: |s| s.search.threads as u64,
                set: |s, n| s.search.threads = n as usize,
            },
            applies: None,
        },
        Setting {
            name: "memory",
            katago: &[],
            category: Category::Machine,
            help: "most MiB the search tree may use",
            kind: Kind::Whole {
                min: 1,
                max: 65_536,
                get: |s| s.memory_mib,
                set: |s, n| s.memory_mib = n,
            },
            applies: None,
        },
        Setting {
            name: "resign-winrate",
            katago: &[],
            category: Category::Resignation,
            help: "resign when the best move's win rate is below this (0: never)",
            kind: Kind::Real {
                min: 0.0,
                max: 0.5,
                get: |s| wide(s.search.resign_below),
                set: |s, x| s.search.resign_below = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "reuse",
            katago: &[],
            category: Category::Turns,
            help: "keep the search tree between moves",
            kind: Kind::Flag {
                get: |s| s.search.reuse,
                set: |s, on| s.search.reuse = on,
            },
            applies: None,
        },
        Setting {
            name: "rave",
            katago: &[],
            category: Category::Playouts,
            help: "RAVE equivalence: visits at which a move's own and AMAF win rates weigh the same",
            kind: Kind::Real {
                min: 1.0,
                max: 1e9,
                get: |s| wide(s.search.params.selection.rave_equivalence),
                set: |s, x| s.search.params.selection.rave_equivalence = x as f32,
            },
            applies: None,
        },
        Setting {
            name: "expand",
            katago: &[],
            category: Category::Playouts,
            help: "visits a node needs before it gets children",
            kind: Kind::Whole {
                min: 1,
                max: 1_000_000,
                get: |s| u64::from(s.search.params.expand_visits),
                set: |s, n| s.search.params.expand_visits = n as u32,
            },
            applies: None,
        },
        Setting {
            name: "playout",
            katago: &[],
            category: Category::Playouts,
            help: "the playout policy: heavy (tactics with ladder reading, 3x3 shapes) or uniform (random moves that fill no eye)",
            kind: Kind::Choice {
                words: &["heavy", "uniform"],
                get: |s| if s.heavy { "heavy" } else { "uniform" },
                set: |s, word| s.heavy = word == "heavy",
            },
            applies: None,
        },
        Setting {
            name: "eyes",
            katago: &[],
            category: Category::Playouts,
            help: "the points the tree and the playouts never fill: book (all neighbours own and three of four diagonals, all on the edge) or real (all neighbours own and not a false eye: at most one enemy diagonal, none on the edge; empty diagonals allowed)",
            kind: Kind::Choice {
                words: &["book", "real"],
                get: |s| match s.search.params.eyes {
                    EyeTest::Book => "book",
                    EyeTest::Real => "real",
                },
                set: |s, word| {
                    s.search.params.eyes = if word == "book" {
                        EyeTest::Book
                    } else {
                        EyeTest::Real
                    }
                },
            },
            applies: None,
        },
        Setting {
            name: "prior-source",
            katago: &[],
            category: Category::Playouts,
            help: "where new moves' priors come from: learned (the move model fitted to professional games) or rules (hand-written Go knowledge)",
            kind: Kind::Choice {
                words: &["learned", "rules"],
                get: |s| match s.prior_kind {
                    PriorKind::Learned => "learned",
                    PriorKind::Rules => "rules",
                },
                set: |s, word| {
                    s.prior_kind = if word == "rules" {
                        PriorKind::Rules
                    } else {
                        PriorKind::Learned
                    }
                },
            },
            applies: None,
        },
        Setting {
            name: "prior-weight",
            katago: &[],
            category: Category::Playouts,
            help: "won visits a move of probability 1 would get from the learned prior (a move of probability p gets this times the square root of p)",
            kind: Kind::Real {
                min: 0.0,
                max: 1e6,
                get: |s| wide(s.prior_weight),
                set: |s, x| s.prior_weight = x as f32,
            },
            applies: WITH_LEARNED_PRIORS,
        },
        Setting {
            name: "move-model",
            katago: &[],
            category: Category::Playouts,
            help: "the move model of the learned prior: builtin or a file written by `tengen nn move-model`",
            kind: Kind::File {
                words: &["builtin"],
                get: |s| s.move_model.clone(),
                set: |s, file| {
                    s.move_model_read = match &file {
                        FileChoice::Path(path) => ModelChoice::Loaded(MoveModel::from_file(path)?),
                        _ => ModelChoice::Builtin,
                    };
                    s.move_model = file;
                    Ok(())
                },
            },
            applies: WITH_LEARNED_PRIORS,
        },
        Setting {
            name: "book",
            katago: &[],
            category: Category::Playouts,
            help: "opening book: builtin (9x9, komi 7), none, or a file written by `tengen nn opening-book`; its move is played without a search where it knows the position",
            kind: Kind::File {
                words: &["builtin", "none"],
                get: |s| s.book.clone(),
                set: |s, file| {
                    s.search.book = match &file {
                        FileChoice::Builtin => Some(OpeningBook::builtin()),
                        FileChoice::None => None,
                        FileChoice::Path(path) => {
                            Some(OpeningBook::from_file(path).map_err(|e| e.to_string())?)
                        }
                    };
                    s.book = file;
                    Ok(())
                },
            },
            applies: None,
        },
        Setting {
            name: "network",
            katago: &[],
            category: Category::Playouts,
            help: "a tengen model file whose policy guides the search and whose value may be mixed with rollouts (builtin: the shipped 9x9 model; none: rollouts only)",
            kind: Kind::File {
                words: &["builtin", "none"],
                get: |s| s.network.clone(),
                set: |s, file| {
                    s.network = file;
                    Ok(())
                },
            },
            applies: None,
        },
        Setting {
            name: "network-value",
            katago: &[],
            category: Category::Playouts,
            help: "the network value's share of a leaf's evaluation (0: rollouts only, 1: no rollouts)",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.mix.value_weight),
                set: |s, x| s.mix.value_weight = x as f32,
            },
            applies: WITH_NETWORK,
        },
        Setting {
            name: "network-prior",
            katago: &[],
            category: Category::Playouts,
            help: "virtual won visits given to the network policy's favourite move",
            kind: Kind::Real {
                min: 0.0,
                max: 10_000.0,
                get: |s| wide(s.mix.prior_weight),
                set: |s, x| s.mix.prior_weight = x as f32,
            },
            applies: WITH_NETWORK,
        },
        Setting {
            name: "network-visits",
            katago: &[],
            category: Category::Playouts,
            help: "visits a node needs before the network's policy joins its children's priors (the root's at once)",
            kind: Kind::Whole {
                min: 1,
                max: 1_000_000,
                get: |s| u64::from(s.search.params.policy_visits),
                set: |s, n| s.search.params.policy_visits = n as u32,
            },
            applies: WITH_NETWORK,
        },
        pass_setting(),
        resign_margin_setting(),
        #[cfg(feature = "experiments")]
        Setting {
            name: "extend",
            katago: &[],
            category: Category::Playouts,
            help: "with playouts: the share of them a search may add while its choice is unstable (a move with half the visits of the most visited one has a better win rate); 0.5 allows up to 1.5 times the playouts (0: off)",
            kind: Kind::Real {
                min: 0.0,
                max: 10.0,
                get: |s| s.search.extension,
                set: |s, x| s.search.extension = x,
            },
            applies: None,
        },
        #[cfg(feature = "experiments")]
        Setting {
            name: "criticality",
            katago: &[],
            category: Category::Playouts,
            help: "weight of a move's criticality (how much owning its point goes with winning) in its AMAF value, for nodes of 2000 visits or more (0: off)",
            kind: Kind::Real {
                min: 0.0,
                max: 100.0,
                get: |s| wide(s.search.params.selection.criticality),
                set: |s, x| s.search.params.selection.criticality = x as f32,
            },
            applies: None,
        },
        #[cfg(feature = "experiments")]
        Setting {
            name: "ravedistance",
            katago: &[],
            category: Category::Playouts,
            help: "extra AMAF weight of moves played soon after a node: 1 + this for the next move, down to 1 for the playout's last (0: every move weighs 1)",
            kind: Kind::Real {
                min: 0.0,
                max: 100.0,
                get: |s| wide(s.search.params.amaf_distance),
                set: |s, x| s.search.params.amaf_distance = x as f32,
            },
            applies: None,
        },
        #[cfg(feature = "experiments")]
        Setting {
            name: "explore",
            katago: &[],
            category: Category::Playouts,
            help: "weight of the UCB exploration term",
            kind: Kind::Real {
                min: 0.0,
                max: 100.0,
                get: |s| wide(s.search.params.selection.exploration),
                set: |s, x| s.search.params.selection.exploration = x as f32,
            },
            applies: None,
        },
        #[cfg(feature = "experiments")]
        Setting {
            name: "margin",
            katago: &[],
            category: Category::Playouts,
            help: "the share of a playout's value given by its score margin instead of its winner (0 to 1)",
            kind: Kind::Real {
                min: 0.0,
                max: 1.0,
                get: |s| wide(s.margin),
                set: |s, x| s.margin = x as f32,
            },
            applies: None,
        },
        #[cfg(feature = "experiments")]
        Setting {
            name: "nakade",
            katago: &[],
            category: Category::Playouts,
            help: "in heavy playouts, play the vital point of an eye space of three to six points next to the last move",
            kind: Kind::Flag {
                get: |s| s.playout.nakade,
                set: |s, on| s.playout.nakade = on,
            },
            applies: WITH_HEAVY_PLAYOUTS,
        },
        #[cfg(feature = "experiments")]
        Setting {
            name: "sacrifice",
            katago: &[],
            category: Category::Playouts,
            help: "in heavy playouts, let random moves be a self-atari of three to six stones whose capture leaves a dead eye shape (a nakade sacrifice)",
            kind: Kind::Flag {
                get: |s| s.playout.nakade_sacrifice,
                set: |s, on| s.playout.nakade_sacrifice = on,
            },
            applies: WITH_HEAVY_PLAYOUTS,
        },
        #[cfg(feature = "experiments")]
        Setting {
            name: "lgrf",
            katago: &[],
            category: Category::Playouts,
            help: "in heavy playouts, replay the replies that won earlier playouts after the same moves (last good reply with forgetting)",
            kind: Kind::Flag {
                get: |s| s.playout.last_good_reply,
                set: |s, on| s.playout.last_good_reply = on,
            },
            applies: WITH_HEAVY_PLAYOUTS,
        },
        #[cfg(feature = "experiments")]
        Setting {
            name: "twolib",
            katago: &[],
            category: Category::Playouts,
            help: "in heavy playouts, percent of turns on which chains the last move left with two liberties are fought: own ones extended to three liberties, the last move's chain put in atari when that captures it in a ladder (0: off)",
            kind: Kind::Whole {
                min: 0,
                max: 100,
                get: |s| s.playout.two_liberty_percent as u64,
                set: |s, n| s.playout.two_liberty_percent = n as usize,
            },
            applies: WITH_HEAVY_PLAYOUTS,
        },
        #[cfg(feature = "experiments")]
        Setting {
            name: "selfatari1",
            katago: &[],
            category: Category::Playouts,
            help: "in heavy playouts, percent of random moves on which a one-stone self-atari is refused unless it captures or puts an enemy chain in atari (0: off)",
            kind: Kind::Whole {
                min: 0,
                max: 100,
                get: |s| s.playout.lone_self_atari_refusal as u64,
                set: |s, n| s.playout.lone_self_atari_refusal = n as usize,
            },
            applies: WITH_HEAVY_PLAYOUTS,
        },
    ]],
    renamed: &[
        ("resignrate", "resign-winrate"),
        RESIGN_RENAMED,
        ("priors", "prior-source"),
        ("priorweight", "prior-weight"),
        ("movemodel", "move-model"),
        ("model", "network"),
        ("value", "network-value"),
        ("prior", "network-prior"),
        ("netvisits", "network-visits"),
    ],
    experiments: experiments(&[
        "extend",
        "criticality",
        "ravedistance",
        "explore",
        "margin",
        "nakade",
        "sacrifice",
        "lgrf",
        "twolib",
        "selfatari1",
    ]),
};

pub(super) const INFO: BotInfo = BotInfo {
    name: "mcts",
    description:
        "Monte Carlo tree search (MC-RAVE, learned priors, heavy playouts, a 9x9 opening book)",
    options: &MCTS,
    parse: |options| Ok(Box::new(MCTS.parse("mcts", options)?)),
};

impl MctsSettings {
    /// The search's configuration with the tree size, book and prior these
    /// settings give.
    pub fn search_config(&self) -> MctsConfig {
        let mut config = self.search.clone();
        config.max_nodes = nodes_for_mib(self.memory_mib);
        config.params.prior = match self.prior_kind {
            PriorKind::Rules => PriorSource::Rules,
            PriorKind::Learned => PriorSource::Learned {
                weight: self.prior_weight,
                model: self.move_model_read,
            },
        };
        config
    }

    /// The playout policy these settings give: the heavy one, or uniform
    /// playouts; either with the eye test of `eyes`.
    pub fn playout_policy(&self) -> PlayoutPolicy {
        let mut policy = if self.heavy {
            self.playout.clone()
        } else {
            PlayoutPolicy::uniform()
        };
        policy.eyes = self.search.params.eyes;
        policy
    }
}

impl fmt::Display for MctsSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_spec(f, INFO.name, &MCTS.changed(self))
    }
}

impl BotSettings for MctsSettings {
    fn info(&self) -> &'static BotInfo {
        &INFO
    }

    fn build(&self, seed: u64) -> Result<Box<dyn Agent + Send>, BotError> {
        let config = self.search_config();
        let rollouts =
            RolloutEvaluator::new(self.playout_policy(), seed).with_margin_weight(self.margin);
        let bot: Box<dyn Agent + Send> = match &self.network {
            FileChoice::None => Box::new(MctsSearch::new(config, rollouts).into_bot()),
            // `builtin` or the file's path, as `load_model` reads it.
            network => {
                let model = load_model(&network.to_string())?;
                Box::new(
                    MctsSearch::new(config, NetworkEvaluator::new(model, rollouts, self.mix))
                        .into_bot(),
                )
            }
        };
        Ok(Terminating::wrap(bot, self.termination))
    }

    fn budget(&self) -> Budget {
        Budget {
            count: Some(("playouts", self.search.playouts)),
            time: Some(self.search.time),
            threads: Some(self.search.threads),
            memory_mib: Some(self.memory_mib),
        }
    }

    fn set_budget(&mut self, budget: &Budget) {
        if let Some((_, count)) = budget.count {
            self.search.playouts = count;
        }
        if let Some(time) = budget.time {
            self.search.time = time;
        }
        if let Some(threads) = budget.threads {
            self.search.threads = threads;
        }
        if let Some(mib) = budget.memory_mib {
            self.memory_mib = mib;
        }
    }
}
