//! The `katago` bot's settings: PUCT search guided by a KataGo network.

use std::fmt;
use std::sync::Arc;

use tengen_core::{Agent, Rank};
use tengen_katago::forward::Precision;
use tengen_katago::network::Network;

use super::{
    pass_setting, rank_setting, resign_margin_setting, write_spec, BotError, BotInfo, BotSettings,
    Budget, Ranked, RESIGN_RENAMED,
};
use crate::settings::{experiments, Category, FileChoice, Kind, Setting, Table};
use crate::termination::{Terminating, Termination};
use tengen_puct::cache::CachedEvaluator;
use tengen_puct::handicap::{HandicapPlay, DEFAULT_CAP_PER_LEAD};
use tengen_puct::katago::{KataGoEvalSettings, KataGoEvaluator};
use tengen_puct::options::{PuctSettings, SearchOptions};
use tengen_puct::rank::RankBot;
use tengen_puct::{Batching, PuctConfig, PuctSearch};

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
    /// The human rank it plays at (`None`: full strength); see
    /// [`tengen_puct::rank`].
    pub rank: Option<Rank>,
    /// Playout doubling advantage a point of the opponent's initial lead,
    /// for handicap games (0: none); see [`tengen_puct::handicap`].
    pub handicap_advantage: f32,
    /// A fixed playout doubling advantage for its own side instead (0: the
    /// rule of `handicap_advantage`).
    pub fixed_advantage: f32,
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
                batching: Batching {
                    size: 8,
                    ..Batching::default()
                },
                ..PuctConfig::default()
            },
            eval: KataGoEvalSettings::default(),
            cache: 4096,
            termination: Termination::NONE,
            rank: None,
            handicap_advantage: DEFAULT_CAP_PER_LEAD,
            fixed_advantage: 0.0,
        }
    }
}

super::terminates_by_field!(KataGoSettings);

impl Ranked for KataGoSettings {
    fn rank(&self) -> Option<Rank> {
        self.rank
    }
    fn set_rank(&mut self, rank: Option<Rank>) {
        self.rank = rank;
    }
}

impl PuctSettings for KataGoSettings {
    fn puct(&self) -> &PuctConfig {
        &self.search
    }
    fn puct_mut(&mut self) -> &mut PuctConfig {
        &mut self.search
    }
    fn eval(&self) -> &KataGoEvalSettings {
        &self.eval
    }
    fn eval_mut(&mut self) -> &mut KataGoEvalSettings {
        &mut self.eval
    }
    fn nn_threads(&self) -> usize {
        self.threads
    }
    fn set_nn_threads(&mut self, threads: usize) {
        self.threads = threads;
    }
    fn precision(&self) -> Precision {
        self.precision
    }
    fn set_precision(&mut self, precision: Precision) {
        self.precision = precision;
    }
}

/// The bot's own options: its network file, evaluation cache, rank and
/// handicap play.
const OWN: [Setting<KataGoSettings>; 5] = [
    Setting {
        name: "model",
        katago: &[],
        category: Category::Machine,
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
        name: "cache",
        katago: &[],
        category: Category::Network,
        help: "positions whose network evaluations are kept, twice over (the recent and the older half; 0: none), so that a position met again is not evaluated again",
        kind: Kind::Whole {
            min: 0,
            max: 10_000_000,
            get: |s| s.cache as u64,
            set: |s, n| s.cache = n as usize,
        },
        applies: None,
    },
    rank_setting(
        "play as a person of this rank (20k to 9d; off: full strength): up to 5d a move drawn from the policy as that rank chooses, blunders far outside the rank refused; above, a short search's moves drawn by their score loss. The search's limits do not apply",
    ),
    Setting {
        name: "handicap-advantage",
        katago: &["dynamicPlayoutDoublingAdvantageCapPerOppLead"],
        category: Category::Play,
        help: "in handicap games (or with komi far from fair), the side giving the points searches as if it had this much playout doubling advantage a point of the opponent's initial lead (up to 2.75), stepped between moves to keep its win/loss value between -0.9 and -0.5, so that it plays for the win instead of slack moves; analyses never use it (0: never)",
        kind: Kind::Real {
            min: 0.0,
            max: 1.0,
            get: |s| f64::from(s.handicap_advantage),
            set: |s, x| s.handicap_advantage = x as f32,
        },
        applies: None,
    },
    Setting {
        name: "pda",
        katago: &["playoutDoublingAdvantage"],
        category: Category::Play,
        help: "a fixed playout doubling advantage for its own side on every move instead (-3 to 3; 0: handicap-advantage's rule): the network assumes it searches 2^pda times as much as its opponent",
        kind: Kind::Real {
            min: -3.0,
            max: 3.0,
            get: |s| f64::from(s.fixed_advantage),
            set: |s, x| s.fixed_advantage = x as f32,
        },
        applies: None,
    },
];

/// The forward pass's and the PUCT search's options, shared with the
/// analysis engine.
static SEARCH: SearchOptions<KataGoSettings> = SearchOptions::new();

/// When every bot passes and resigns.
const ENDS: [Setting<KataGoSettings>; 2] = [pass_setting(), resign_margin_setting()];

/// The `katago` bot's options.
pub static KATAGO: Table<KataGoSettings> = Table {
    sections: &[
        &OWN,
        &SEARCH.machine,
        &SEARCH.limits,
        &SEARCH.exploration,
        &SEARCH.utility,
        &SEARCH.evaluation,
        &SEARCH.play,
        &ENDS,
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
        let mut config = self.search.clone();
        config.exploration.noise_seed = seed;
        let eval = KataGoEvalSettings { seed, ..self.eval };
        let evaluator = KataGoEvaluator::with_settings(network, eval);
        let advantage = evaluator.advantage();
        let evaluator = CachedEvaluator::new(evaluator, self.cache);
        if let Some(rank) = self.rank {
            let bot = RankBot::new(rank, config, evaluator, seed).named(INFO.name);
            return Terminating::wrap(Box::new(bot), self.termination);
        }
        let bot = PuctSearch::new(config, evaluator)
            .named(INFO.name)
            .into_bot();
        let bot = HandicapPlay::new(
            bot,
            advantage,
            self.handicap_advantage,
            Some(self.fixed_advantage),
        );
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
            count: Some(("visits", self.search.limits.visits)),
            time: Some(self.search.limits.time),
            threads: Some(self.threads),
            memory_mib: None,
        }
    }

    fn set_budget(&mut self, budget: &Budget) {
        if let Some((_, count)) = budget.count {
            self.search.limits.visits = count;
        }
        if let Some(time) = budget.time {
            self.search.limits.time = time;
        }
        if let Some(threads) = budget.threads {
            self.threads = threads;
        }
    }
}
