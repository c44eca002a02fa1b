//! Bots by name: a spec string `name[:key=value,key=value…]` parsed into a
//! [`BotSpec`], the list of known bots with their options ([`BOTS`]), and
//! [`make_bot`] that builds one.
//!
//! ```
//! use tengen_bots::{make_bot, BotSpec};
//!
//! let spec: BotSpec = "random".parse().unwrap();
//! let bot = make_bot(&spec, 7).unwrap();
//! assert_eq!(bot.name(), "random");
//! assert!("alphago".parse::<BotSpec>().and_then(|s| make_bot(&s, 7)).is_err());
//! ```

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use tengen_core::{parse_duration, Agent, EyeTest, RandomBot};

use tengen_nn::model::Model;

use crate::evaluator::RolloutEvaluator;
use crate::katago::KataGoEvaluator;
use crate::mcts::{nodes_for_mib, MctsBot, MctsConfig};
use crate::network::{NetworkEvaluator, NetworkMix};
use crate::playout::PlayoutPolicy;
use crate::policy::PolicyBot;
use crate::prior::PriorSource;
use crate::puct::{PuctBot, PuctConfig};
use crate::termination::{Terminating, Termination};
use thiserror::Error;

/// One setting a bot accepts in its spec string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotOption {
    /// The key, as written in `name:key=value`.
    pub name: &'static str,
    /// The value used when the key is not given, as text.
    pub default: &'static str,
    /// What it does and which values it takes.
    pub help: &'static str,
}

/// A bot tengen knows, for listings (`tengen gtp --list-bots`, the web API).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotInfo {
    /// The name that selects it.
    pub name: &'static str,
    /// One line on how it plays.
    pub description: &'static str,
    /// The settings it accepts.
    pub options: &'static [BotOption],
}

impl BotInfo {
    /// The option called `name`, if this bot has one.
    pub fn option(&self, name: &str) -> Option<&'static BotOption> {
        self.options.iter().find(|option| option.name == name)
    }
}

/// `pass`, as every bot but the policy bot lists it (see [`crate::termination`]).
pub const PASS_OPTION: BotOption = BotOption {
    name: "pass",
    default: "never",
    help: "'opponent': pass when the opponent has passed and the count as it stands (dead stones estimated, komi) wins; 'never': the bot decides",
};

/// `resign`, a margin in points, as every bot lists it (see [`crate::termination`]).
pub const RESIGN_OPTION: BotOption = BotOption {
    name: "resign",
    default: "none",
    help: "resign when the expected lead (the mean count of playouts to the end, komi included) puts the bot behind by more than this many points, or 'none'",
};

/// Every bot [`make_bot`] can build, in the order they are listed to users.
pub const BOTS: &[BotInfo] = &[
    BotInfo {
        name: "random",
        description: "uniformly random legal moves that do not fill its own eyes (the book's RandomBot, Müller's Go1)",
        options: &[
            BotOption {
                name: "eyes",
                default: "keep",
                help: "'keep': never fill an own eye, pass when only eyes are left (Go1); 'fill': uniform over every legal move, own eyes included (Go0)",
            },
            PASS_OPTION,
            RESIGN_OPTION,
        ],
    },
    BotInfo {
        name: "mcts",
        description: "Monte Carlo tree search (MC-RAVE, prior knowledge, heavy playouts)",
        options: &[
            BotOption {
                name: "playouts",
                default: "none",
                help: "simulations per move; without it, time or the game's clock decides (10000 if neither is set)",
            },
            BotOption {
                name: "time",
                default: "none",
                help: "thinking time per move, such as 2s, 500ms or 1.5 (seconds); the game's clock may shorten it",
            },
            BotOption {
                name: "threads",
                default: "1",
                help: "search threads (1 to 256)",
            },
            BotOption {
                name: "memory",
                default: "512",
                help: "most MiB the search tree may use (1 to 65536)",
            },
            BotOption {
                name: "resignrate",
                default: "0.1",
                help: "resign when the best win rate is below this (0 never resigns)",
            },
            BotOption {
                name: "reuse",
                default: "true",
                help: "keep the search tree between moves (true or false)",
            },
            BotOption {
                name: "extend",
                default: "0",
                help: "with playouts: the share of them a search may add while its choice is unstable (a move with half the visits of the most visited one has a better win rate); 0.5 allows up to 1.5 times the playouts (0: off)",
            },
            BotOption {
                name: "rave",
                default: "3500",
                help: "RAVE equivalence: visits at which a move's own and AMAF win rates weigh the same",
            },
            BotOption {
                name: "criticality",
                default: "0",
                help: "weight of a move's criticality (how much owning its point goes with winning) in its AMAF value, for nodes of 2000 visits or more (0: off)",
            },
            BotOption {
                name: "ravedistance",
                default: "0",
                help: "extra AMAF weight of moves played soon after a node: 1 + this for the next move, down to 1 for the playout's last (0: every move weighs 1)",
            },
            BotOption {
                name: "explore",
                default: "0",
                help: "weight of the UCB exploration term",
            },
            BotOption {
                name: "expand",
                default: "8",
                help: "visits a node needs before it gets children",
            },
            BotOption {
                name: "playout",
                default: "heavy",
                help: "the playout policy: heavy (tactics with ladder reading, 3x3 shapes) or uniform (random moves that fill no eye)",
            },
            BotOption {
                name: "nakade",
                default: "false",
                help: "in heavy playouts, play the vital point of an eye space of three to six points next to the last move (true or false)",
            },
            BotOption {
                name: "twolib",
                default: "0",
                help: "in heavy playouts, percent of turns on which chains the last move left with two liberties are fought: own ones extended to three liberties, the last move's chain put in atari when that captures it in a ladder (0: off)",
            },
            BotOption {
                name: "selfatari1",
                default: "0",
                help: "in heavy playouts, percent of random moves on which a one-stone self-atari is refused unless it captures or puts an enemy chain in atari (0: off)",
            },
            BotOption {
                name: "margin",
                default: "0",
                help: "the share of a playout's value given by its score margin instead of its winner (0 to 1; 0.05 lets the search prefer the larger lead among moves that all win)",
            },
            BotOption {
                name: "sacrifice",
                default: "false",
                help: "in heavy playouts, let random moves be a self-atari of three to six stones whose capture leaves a dead eye shape (a nakade sacrifice; true or false)",
            },
            BotOption {
                name: "eyes",
                default: "real",
                help: "the points heavy playouts never fill: book (all neighbours own and three of four diagonals, all on the edge) or real (all neighbours own and not a false eye: at most one enemy diagonal, none on the edge; empty diagonals allowed)",
            },
            BotOption {
                name: "lgrf",
                default: "false",
                help: "in heavy playouts, replay the replies that won earlier playouts after the same moves (last good reply with forgetting; true or false)",
            },
            BotOption {
                name: "priors",
                default: "learned",
                help: "where new moves' priors come from: learned (the move model fitted to professional games) or rules (hand-written Go knowledge)",
            },
            BotOption {
                name: "movemodel",
                default: "builtin",
                help: "with learned priors: the move model, builtin or a file written by `tengen nn move-model`",
            },
            BotOption {
                name: "book",
                default: "builtin",
                help: "opening book: builtin (9x9, komi 7), none, or a file written by `tengen nn opening-book`; its move is played without a search where it knows the position",
            },
            BotOption {
                name: "priorweight",
                default: "150",
                help: "with learned priors: won visits a move of probability 1 would get (a move of probability p gets this times the square root of p)",
            },
            BotOption {
                name: "model",
                default: "none",
                help: "a model file whose policy guides the search and whose value is mixed with rollouts ('builtin' for the shipped 9x9 model)",
            },
            BotOption {
                name: "value",
                default: "0",
                help: "with a model: the value head's share of a leaf's evaluation (0 rollouts only, 1 no rollouts)",
            },
            BotOption {
                name: "prior",
                default: "40",
                help: "with a model: virtual won visits given to the policy's favourite move",
            },
            BotOption {
                name: "netvisits",
                default: "48",
                help: "with a model: visits a node needs before the network's policy joins its children's priors (the root's at once)",
            },
            PASS_OPTION,
            RESIGN_OPTION,
        ],
    },
    BotInfo {
        name: "policy",
        description: "a policy network's move, sampled from its probabilities cubed (the book's DeepLearningAgent)",
        options: &[
            BotOption {
                name: "model",
                default: "builtin",
                help: "the model file ('builtin': the shipped 9x9 model)",
            },
            BotOption {
                default: "opponent",
                ..PASS_OPTION
            },
            RESIGN_OPTION,
        ],
    },
    BotInfo {
        name: "katago",
        description: "PUCT tree search guided by a KataGo network's policy, value and score (model=PATH, a KataGo .bin.gz)",
        options: &[
            BotOption {
                name: "model",
                default: "none",
                help: "the KataGo network file (.bin.gz, model versions 8 to 17); required",
            },
            BotOption {
                name: "visits",
                default: "none",
                help: "root visits per move, kept ones included; without it, time or the game's clock decides (800 if neither is set)",
            },
            BotOption {
                name: "time",
                default: "none",
                help: "thinking time per move, such as 2s, 500ms or 1.5 (seconds); the game's clock may shorten it",
            },
            BotOption {
                name: "threads",
                default: "1",
                help: "threads of the network's forward pass (1 to 256)",
            },
            BotOption {
                name: "batch",
                default: "8",
                help: "leaves evaluated together in one forward pass (1 to 256)",
            },
            BotOption {
                name: "noise",
                default: "0",
                help: "weight of Dirichlet noise mixed into the root's priors, drawn anew each turn from the bot's seed (0 to 1; 0.25 as in AlphaZero's self-play, for varied games)",
            },
            BotOption {
                name: "resignrate",
                default: "0",
                help: "resign when the win rate stays below this for 3 moves (0 never resigns)",
            },
            BotOption {
                name: "reuse",
                default: "true",
                help: "keep the search tree between moves (true or false)",
            },
            PASS_OPTION,
            RESIGN_OPTION,
        ],
    },
];

/// Why a bot could not be chosen or built.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BotError {
    /// The spec string is empty.
    #[error("empty bot name")]
    Empty,
    /// No bot has this name.
    #[error("unknown bot '{name}' (known bots: {})", known_names())]
    UnknownBot {
        /// The name as given.
        name: String,
    },
    /// An option item is not `key=value`.
    #[error("bot option '{item}' is not of the form key=value")]
    MalformedOption {
        /// The item as given.
        item: String,
    },
    /// The same key twice.
    #[error("bot option '{key}' given twice")]
    DuplicateOption {
        /// The key.
        key: String,
    },
    /// The bot has no option by this name.
    #[error("bot '{bot}' has no option '{key}' ({})", known_options(bot))]
    UnknownOption {
        /// The bot's name.
        bot: String,
        /// The key as given.
        key: String,
    },
    /// The bot cannot play on the board asked for.
    #[error("bot '{bot}' cannot play this board: {reason}")]
    BoardSize {
        /// The bot's spec.
        bot: String,
        /// Why not.
        reason: String,
    },
    /// The bot's model cannot be loaded or does not fit.
    #[error("model '{path}': {reason}")]
    Model {
        /// The model file as given.
        path: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// The value does not suit the option.
    #[error("bad value '{value}' for option '{key}': {reason}")]
    BadValue {
        /// The key.
        key: String,
        /// The value as given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
}

fn known_names() -> String {
    BOTS.iter()
        .map(|bot| bot.name)
        .collect::<Vec<_>>()
        .join(", ")
}

fn known_options(bot: &str) -> String {
    match BOTS.iter().find(|info| info.name == bot) {
        Some(info) if !info.options.is_empty() => format!(
            "its options: {}",
            info.options
                .iter()
                .map(|option| option.name)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => "it takes no options".to_string(),
    }
}

/// A bot chosen by name with its settings: `mcts:playouts=20000,threads=2`.
///
/// Parsing checks the form only (a name, `key=value` items, no key twice);
/// [`make_bot`] checks the name, the keys and the values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BotSpec {
    /// The bot's name, lower-cased.
    pub name: String,
    /// The settings in the order given, keys lower-cased.
    pub options: Vec<(String, String)>,
}

impl BotSpec {
    /// A spec naming `name` with no settings.
    pub fn named(name: &str) -> BotSpec {
        BotSpec {
            name: name.trim().to_ascii_lowercase(),
            options: Vec::new(),
        }
    }

    /// The value given for `key`, if any.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.options
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Sets `key` to `value`, replacing a value given before (a server
    /// imposing a thinking budget, for instance).
    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        let key = key.to_ascii_lowercase();
        let value = value.into();
        match self.options.iter_mut().find(|(k, _)| *k == key) {
            Some(entry) => entry.1 = value,
            None => self.options.push((key, value)),
        }
    }

    /// The listing entry of the bot this spec names, if it is known.
    pub fn info(&self) -> Option<&'static BotInfo> {
        BOTS.iter().find(|info| info.name == self.name)
    }
}

impl FromStr for BotSpec {
    type Err = BotError;

    fn from_str(text: &str) -> Result<BotSpec, BotError> {
        let (name, rest) = match text.split_once(':') {
            Some((name, rest)) => (name, Some(rest)),
            None => (text, None),
        };
        let name = name.trim();
        if name.is_empty() {
            return Err(BotError::Empty);
        }
        let mut spec = BotSpec::named(name);
        for item in rest.into_iter().flat_map(|rest| rest.split(',')) {
            let item = item.trim();
            if item.is_empty() {
                continue;
            }
            let Some((key, value)) = item.split_once('=') else {
                return Err(BotError::MalformedOption {
                    item: item.to_string(),
                });
            };
            let (key, value) = (key.trim().to_ascii_lowercase(), value.trim());
            if key.is_empty() || value.is_empty() {
                return Err(BotError::MalformedOption {
                    item: item.to_string(),
                });
            }
            if spec.get(&key).is_some() {
                return Err(BotError::DuplicateOption { key });
            }
            spec.options.push((key, value.to_string()));
        }
        Ok(spec)
    }
}

impl fmt::Display for BotSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (key, value)) in self.options.iter().enumerate() {
            let separator = if i == 0 { ':' } else { ',' };
            write!(f, "{separator}{key}={value}")?;
        }
        Ok(())
    }
}

/// Builds the bot `spec` names, its random choices determined by `seed`.
pub fn make_bot(spec: &BotSpec, seed: u64) -> Result<Box<dyn Agent + Send>, BotError> {
    let Some(info) = spec.info() else {
        return Err(BotError::UnknownBot {
            name: spec.name.clone(),
        });
    };
    for (key, _) in &spec.options {
        if info.option(key).is_none() {
            return Err(BotError::UnknownOption {
                bot: spec.name.clone(),
                key: key.clone(),
            });
        }
    }
    let termination = termination(spec, info)?;
    let bot: Box<dyn Agent + Send> = match info.name {
        "random" => match spec.get("eyes").unwrap_or("keep") {
            "keep" => Box::new(RandomBot::new(seed)),
            "fill" => Box::new(RandomBot::filling_eyes(seed)),
            other => return Err(bad_value("eyes", other, "expected keep or fill")),
        },
        "mcts" => {
            let config = mcts_config(spec)?;
            let rollouts = RolloutEvaluator::new(playout_policy(spec)?, seed)
                .with_margin_weight(margin_weight(spec)?);
            match spec.get("model") {
                None | Some("none") => Box::new(MctsBot::new(config, rollouts)),
                Some(path) => {
                    let mix = network_mix(spec)?;
                    let model = load_model(path)?;
                    let evaluator = NetworkEvaluator::new(model, rollouts, mix);
                    Box::new(MctsBot::new(config, evaluator))
                }
            }
        }
        "policy" => {
            let model = load_model(spec.get("model").unwrap_or("builtin"))?;
            Box::new(PolicyBot::new(model, seed))
        }
        "katago" => {
            let config = PuctConfig {
                noise_seed: seed,
                ..puct_config(spec)?
            };
            let Some(path) = spec.get("model").filter(|p| *p != "none") else {
                return Err(BotError::Model {
                    path: "none".to_string(),
                    reason: "the katago bot needs model=PATH (a KataGo .bin.gz network)"
                        .to_string(),
                });
            };
            let threads = match spec.get("threads") {
                Some(value) => parse_whole(value, 1, 256)
                    .map_err(|r| bad_value("threads", value, &r))?
                    as usize,
                None => 1,
            };
            let network = crate::katago::load_network(std::path::Path::new(path), threads)
                .map_err(|reason| BotError::Model {
                    path: path.to_string(),
                    reason,
                })?;
            Box::new(PuctBot::new(config, KataGoEvaluator::new(network)).named("katago"))
        }
        other => unreachable!("bot '{other}' is listed but not built"),
    };
    Ok(Terminating::wrap(bot, termination))
}

/// Loads a model file, or the shipped one for `builtin`.
pub fn load_model(path: &str) -> Result<Model, BotError> {
    let result = if path == "builtin" {
        crate::builtin::model()
    } else {
        Model::load(std::path::Path::new(path))
    };
    result.map_err(|e| BotError::Model {
        path: path.to_string(),
        reason: e.to_string(),
    })
}

fn bad_value(key: &str, value: &str, reason: &str) -> BotError {
    BotError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

/// How a spec's model enters the search (`value`, `prior`).
pub fn network_mix(spec: &BotSpec) -> Result<NetworkMix, BotError> {
    let mut mix = NetworkMix::default();
    if let Some(value) = spec.get("value") {
        mix.value_weight =
            parse_real(value, 0.0, 1.0).map_err(|r| bad_value("value", value, &r))?;
    }
    if let Some(value) = spec.get("prior") {
        mix.prior_weight =
            parse_real(value, 0.0, 10_000.0).map_err(|r| bad_value("prior", value, &r))?;
    }
    Ok(mix)
}

/// The termination strategies a spec gives (`pass`, `resign`), with the
/// defaults of the bot's listing for the keys not given.
pub fn termination(spec: &BotSpec, info: &BotInfo) -> Result<Termination, BotError> {
    let mut termination = Termination::NONE;
    let value = |key: &str| {
        spec.get(key)
            .or_else(|| info.option(key).map(|option| option.default))
    };
    if let Some(text) = value("pass") {
        termination.pass_after_opponent = match text {
            "opponent" => true,
            "never" => false,
            _ => return Err(bad_value("pass", text, "expected opponent or never")),
        };
    }
    if let Some(text) = value("resign") {
        termination.resign_margin = match text {
            "none" => None,
            _ => Some(parse_real(text, 0.0, 1000.0).map_err(|r| bad_value("resign", text, &r))?),
        };
    }
    Ok(termination)
}

/// The PUCT settings a `katago` spec gives.
pub fn puct_config(spec: &BotSpec) -> Result<PuctConfig, BotError> {
    let mut config = PuctConfig {
        // Batching gains little on a CPU (about 7% from 1 to 8 on 19x19)
        // while wide batches spread visits by virtual loss.
        batch: 8,
        ..PuctConfig::default()
    };
    for (key, value) in &spec.options {
        let bad = |reason: &str| BotError::BadValue {
            key: key.clone(),
            value: value.clone(),
            reason: reason.to_string(),
        };
        match key.as_str() {
            "visits" => {
                config.visits = match value.as_str() {
                    "none" => None,
                    _ => Some(parse_whole(value, 1, 1_000_000_000).map_err(|r| bad(&r))?),
                }
            }
            "time" => config.time = time_option(value).map_err(|r| bad(&r))?,
            "batch" => config.batch = parse_whole(value, 1, 256).map_err(|r| bad(&r))? as usize,
            "resignrate" => {
                config.resign_threshold = parse_real(value, 0.0, 0.5).map_err(|r| bad(&r))?
            }
            "reuse" => config.reuse = parse_flag(value).map_err(|r| bad(&r))?,
            "noise" => config.noise_weight = parse_real(value, 0.0, 1.0).map_err(|r| bad(&r))?,
            // Read by `make_bot` and `termination`.
            "model" | "threads" | "pass" | "resign" => {}
            _ => unreachable!("options are checked against the listing"),
        }
    }
    Ok(config)
}

/// The eye test of `mcts:eyes=book|real`, for the tree's moves and the
/// playouts alike.
fn eye_test(spec: &BotSpec) -> Result<EyeTest, BotError> {
    match spec.get("eyes").unwrap_or("real") {
        "book" => Ok(EyeTest::Book),
        "real" => Ok(EyeTest::Real),
        other => Err(bad_value("eyes", other, "expected book or real")),
    }
}

/// The playout policy of `mcts:playout=heavy|uniform`.
fn playout_policy(spec: &BotSpec) -> Result<PlayoutPolicy, BotError> {
    let playout = spec.get("playout").unwrap_or("heavy");
    let heavy = playout == "heavy";
    let mut policy = match playout {
        "heavy" => PlayoutPolicy::default(),
        "uniform" => PlayoutPolicy::uniform(),
        other => return Err(bad_value("playout", other, "expected heavy or uniform")),
    };
    if let Some(value) = spec.get("twolib") {
        let percent =
            parse_whole(value, 0, 100).map_err(|reason| bad_value("twolib", value, &reason))?;
        policy.two_liberty_percent = if heavy { percent as usize } else { 0 };
    }
    if let Some(value) = spec.get("selfatari1") {
        let percent =
            parse_whole(value, 0, 100).map_err(|reason| bad_value("selfatari1", value, &reason))?;
        policy.lone_self_atari_refusal = if heavy { percent as usize } else { 0 };
    }
    policy.eyes = eye_test(spec)?;
    for (key, flag) in [
        ("lgrf", &mut policy.last_good_reply),
        ("nakade", &mut policy.nakade),
        ("sacrifice", &mut policy.nakade_sacrifice),
    ] {
        if let Some(value) = spec.get(key) {
            let on = parse_flag(value).map_err(|reason| bad_value(key, value, &reason))?;
            *flag = heavy && on;
        }
    }
    Ok(policy)
}

/// The share of a playout's value its score margin gives (`margin`).
fn margin_weight(spec: &BotSpec) -> Result<f32, BotError> {
    match spec.get("margin") {
        Some(value) => parse_real(value, 0.0, 1.0)
            .map(|w| w as f32)
            .map_err(|reason| bad_value("margin", value, &reason)),
        None => Ok(0.0),
    }
}

/// The MCTS settings a spec gives.
pub fn mcts_config(spec: &BotSpec) -> Result<MctsConfig, BotError> {
    let mut config = MctsConfig::default();
    // `priors=rules` (Some(Some(..))) or `learned` (Some(None)), and the
    // learned prior's weight, combined after the loop.
    let mut priors: Option<Option<PriorSource>> = None;
    let mut prior_weight: Option<f32> = None;
    let mut move_model = crate::prior::ModelChoice::Builtin;
    for (key, value) in &spec.options {
        let bad = |reason: &str| BotError::BadValue {
            key: key.clone(),
            value: value.clone(),
            reason: reason.to_string(),
        };
        match key.as_str() {
            "playouts" => {
                config.playouts = match value.as_str() {
                    "none" => None,
                    _ => Some(parse_whole(value, 1, 1_000_000_000).map_err(|r| bad(&r))?),
                }
            }
            "time" => config.time = time_option(value).map_err(|r| bad(&r))?,
            "threads" => config.threads = parse_whole(value, 1, 256).map_err(|r| bad(&r))? as usize,
            "memory" => {
                config.max_nodes =
                    nodes_for_mib(parse_whole(value, 1, 65_536).map_err(|r| bad(&r))?)
            }
            "resignrate" => {
                config.resign_below = parse_real(value, 0.0, 0.5).map_err(|r| bad(&r))?
            }
            "reuse" => config.reuse = parse_flag(value).map_err(|r| bad(&r))?,
            "extend" => config.extension = parse_real(value, 0.0, 10.0).map_err(|r| bad(&r))?,
            "rave" => {
                config.params.selection.rave_equivalence =
                    parse_real(value, 1.0, 1e9).map_err(|r| bad(&r))?
            }
            "criticality" => {
                config.params.selection.criticality =
                    parse_real(value, 0.0, 100.0).map_err(|r| bad(&r))?
            }
            "ravedistance" => {
                config.params.amaf_distance = parse_real(value, 0.0, 100.0).map_err(|r| bad(&r))?
            }
            "explore" => {
                config.params.selection.exploration =
                    parse_real(value, 0.0, 100.0).map_err(|r| bad(&r))?
            }
            "expand" => {
                config.params.expand_visits =
                    parse_whole(value, 1, 1_000_000).map_err(|r| bad(&r))? as u32
            }
            "netvisits" => {
                config.params.policy_visits =
                    parse_whole(value, 1, 1_000_000).map_err(|r| bad(&r))? as u32
            }
            "priors" => {
                priors = match value.as_str() {
                    "learned" => Some(None),
                    "rules" => Some(Some(PriorSource::Rules)),
                    _ => return Err(bad("expected learned or rules")),
                }
            }
            "priorweight" => {
                prior_weight = Some(parse_real(value, 0.0, 1e6).map_err(|r| bad(&r))? as f32)
            }
            "movemodel" => {
                move_model = match value.as_str() {
                    "builtin" => crate::prior::ModelChoice::Builtin,
                    path => crate::prior::ModelChoice::Loaded(
                        crate::features::MoveModel::from_file(std::path::Path::new(path))
                            .map_err(|r| bad(&r))?,
                    ),
                }
            }
            // The network's options are read by `network_mix`, the
            // playout policy by `playout_policy`, the termination options
            // by `termination`.
            "eyes" => config.params.eyes = eye_test(spec)?,
            "book" => {
                config.book = match value.as_str() {
                    "builtin" => Some(crate::book::OpeningBook::builtin()),
                    "none" => None,
                    path => Some(
                        crate::book::OpeningBook::from_file(std::path::Path::new(path))
                            .map_err(|e| bad(&e.to_string()))?,
                    ),
                }
            }
            "model" | "value" | "prior" | "playout" | "lgrf" | "nakade" | "sacrifice"
            | "twolib" | "selfatari1" | "margin" | "pass" | "resign" => {}
            _ => unreachable!("options are checked against the listing"),
        }
    }
    config.params.prior = match (priors, prior_weight) {
        (Some(Some(PriorSource::Rules)), Some(_)) => {
            return Err(BotError::BadValue {
                key: "priorweight".into(),
                value: format!("{}", prior_weight.unwrap_or_default()),
                reason: "only learned priors have a weight".into(),
            })
        }
        (Some(Some(source)), None) => {
            if let crate::prior::ModelChoice::Loaded(_) = move_model {
                return Err(BotError::BadValue {
                    key: "movemodel".into(),
                    value: spec.get("movemodel").unwrap_or_default().to_string(),
                    reason: "only learned priors have a move model".into(),
                });
            }
            source
        }
        (_, weight) => PriorSource::Learned {
            weight: weight.unwrap_or(crate::prior::LEARNED_WEIGHT),
            model: move_model,
        },
    };
    Ok(config)
}

/// A bot's `time` option: `none`, or a thinking time ([`parse_think_time`]).
fn time_option(text: &str) -> Result<Option<Duration>, String> {
    match text {
        "none" => Ok(None),
        _ => parse_think_time(text).map(Some),
    }
}

/// A yes/no option: `true`, `yes`, `1`, `on` or their opposites.
fn parse_flag(text: &str) -> Result<bool, String> {
    match text {
        "true" | "yes" | "1" | "on" => Ok(true),
        "false" | "no" | "0" | "off" => Ok(false),
        _ => Err("expected true or false".to_string()),
    }
}

/// A whole number from `min` to `max`, or the reason it is not one.
fn parse_whole(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let number: u64 = text
        .parse()
        .map_err(|_| "expected a whole number".to_string())?;
    if number < min || number > max {
        return Err(format!("must be from {min} to {max}"));
    }
    Ok(number)
}

/// A decimal number from `min` to `max` (both finite, both allowed), or the
/// reason it is not one: `expected a number`, or `must be from min to max`.
/// Not-a-number and infinities are refused by the bounds.
///
/// Bot options read their weights and margins with it, and the command line
/// its fractions, so the same text means the same number everywhere.
///
/// ```
/// use tengen_bots::registry::parse_real;
///
/// assert_eq!(parse_real("0.25", 0.0, 1.0), Ok(0.25));
/// assert_eq!(parse_real("2", 0.0f32, 1.0), Err("must be from 0 to 1".to_string()));
/// assert!(parse_real("NaN", 0.0, 1.0).is_err());
/// assert!(parse_real("half", 0.0, 1.0).is_err());
/// ```
pub fn parse_real<T>(text: &str, min: T, max: T) -> Result<T, String>
where
    T: FromStr + PartialOrd + fmt::Display + Copy,
{
    let number: T = text.parse().map_err(|_| "expected a number".to_string())?;
    // Written so that NaN, which compares false with everything, fails.
    if !(min <= number && number <= max) {
        return Err(format!("must be from {min} to {max}"));
    }
    Ok(number)
}

/// The longest thinking time a bot setting may ask for per move.
const MAX_THINK: Duration = Duration::from_secs(86_400);

/// A bot's `time` setting: a duration as [`tengen_core::parse_duration`]
/// reads it, more than zero (a bot given no time cannot choose a move) and
/// at most a day (longer is a typing mistake, not a plan).
pub fn parse_think_time(text: &str) -> Result<Duration, String> {
    let time = parse_duration(text).map_err(|e| e.to_string())?;
    if time.is_zero() || time > MAX_THINK {
        return Err("must be more than 0 and at most a day".to_string());
    }
    Ok(time)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(text: &str) -> BotSpec {
        text.parse().unwrap()
    }

    #[test]
    fn specs_parse_and_print() {
        let s = spec(" MCTS : Playouts=20000, threads=2 ");
        assert_eq!(s.name, "mcts");
        assert_eq!(s.get("playouts"), Some("20000"));
        assert_eq!(s.get("threads"), Some("2"));
        assert_eq!(s.to_string(), "mcts:playouts=20000,threads=2");
        assert_eq!(spec("random").to_string(), "random");
        assert_eq!(spec("random:").options, vec![]);
    }

    #[test]
    fn malformed_specs_are_refused_with_reasons() {
        assert_eq!("".parse::<BotSpec>(), Err(BotError::Empty));
        assert_eq!(":x=1".parse::<BotSpec>(), Err(BotError::Empty));
        assert_eq!(
            "mcts:playouts".parse::<BotSpec>().unwrap_err().to_string(),
            "bot option 'playouts' is not of the form key=value"
        );
        assert_eq!(
            "mcts:a=1,a=2".parse::<BotSpec>().unwrap_err().to_string(),
            "bot option 'a' given twice"
        );
        assert!("mcts:=3".parse::<BotSpec>().is_err());
    }

    #[test]
    fn every_listed_bot_builds_by_name() {
        for info in BOTS {
            if info.name == "katago" {
                // A network file is required; its absence is a clear error.
                let err = make_bot(&BotSpec::named(info.name), 1).err().unwrap();
                assert!(err.to_string().contains("needs model=PATH"), "{err}");
                continue;
            }
            let bot = make_bot(&BotSpec::named(info.name), 1).unwrap();
            assert_eq!(bot.name(), info.name);
        }
    }

    #[test]
    fn katago_models_that_cannot_be_read_are_refused_with_the_reason() {
        let dir = std::env::temp_dir().join(format!("tengen-katago-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let not_model = dir.join("notes.txt");
        std::fs::write(&not_model, "hello world\n").unwrap();
        let cases = [
            (
                format!("katago:model={}", dir.join("missing.bin.gz").display()),
                "cannot read",
            ),
            (format!("katago:model={}", dir.display()), "is a directory"),
            (
                format!("katago:model={}", not_model.display()),
                "not a KataGo model",
            ),
        ];
        for (text, reason) in cases {
            let err = make_bot(&spec(&text), 1).err().unwrap().to_string();
            assert!(err.contains(reason), "{text}: {err}");
        }
        for bad in [
            "katago:model=x,visits=0",
            "katago:model=x,batch=0",
            "katago:model=x,resignrate=2",
            "katago:model=x,resign=-1",
            "katago:model=x,pass=sometimes",
        ] {
            let err = make_bot(&spec(bad), 1).err().unwrap();
            assert!(matches!(err, BotError::BadValue { .. }), "{bad}: {err}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The defaults the listing shows (`tengen gtp --list-bots`, the web
    /// page) are the ones the search uses: spelling every one of them out
    /// gives the plain bot's settings.
    #[test]
    fn listed_mcts_defaults_are_the_defaults() {
        let info = BOTS.iter().find(|info| info.name == "mcts").unwrap();
        let options: Vec<String> = info
            .options
            .iter()
            .filter(|option| option.default != "none")
            .map(|option| format!("{}={}", option.name, option.default))
            .collect();
        assert!(options.len() >= 8, "{options:?}");
        let spelled = spec(&format!("mcts:{}", options.join(",")));
        assert_eq!(
            mcts_config(&spelled).unwrap(),
            mcts_config(&spec("mcts")).unwrap(),
            "{spelled}"
        );
    }

    #[test]
    fn unknown_bots_and_options_name_what_is_known() {
        let err = make_bot(&spec("nosuchbot"), 1).err().unwrap();
        assert!(err
            .to_string()
            .starts_with("unknown bot 'nosuchbot' (known bots: random"));
        let err = make_bot(&spec("random:depth=3"), 1).err().unwrap();
        assert_eq!(
            err.to_string(),
            "bot 'random' has no option 'depth' (its options: eyes, pass, resign)"
        );
    }

    #[test]
    fn prior_options_choose_the_source_and_its_weight() {
        let prior = |text: &str| mcts_config(&spec(text)).map(|c| c.params.prior);
        assert_eq!(prior("mcts"), Ok(PriorSource::default()));
        assert_eq!(
            prior("mcts:priors=learned"),
            Ok(PriorSource::Learned {
                weight: 150.0,
                model: crate::prior::ModelChoice::Builtin
            })
        );
        assert_eq!(
            prior("mcts:priorweight=60"),
            Ok(PriorSource::Learned {
                weight: 60.0,
                model: crate::prior::ModelChoice::Builtin
            })
        );
        assert_eq!(prior("mcts:priors=rules"), Ok(PriorSource::Rules));
        for (text, reason) in [
            (
                "mcts:priors=rules,priorweight=3",
                "only learned priors have a weight",
            ),
            ("mcts:priors=both", "expected learned or rules"),
            ("mcts:priorweight=-1", ""),
            ("mcts:priorweight=lots", ""),
        ] {
            let error = prior(text).unwrap_err().to_string();
            assert!(error.contains(reason), "{text}: {error}");
        }
    }

    #[test]
    fn the_book_option_is_builtin_none_or_a_file() {
        use crate::book::OpeningBook;
        let book = |text: &str| mcts_config(&spec(text)).map(|c| c.book);
        assert!(std::ptr::eq(
            book("mcts").unwrap().unwrap(),
            OpeningBook::builtin()
        ));
        assert!(std::ptr::eq(
            book("mcts:book=builtin").unwrap().unwrap(),
            OpeningBook::builtin()
        ));
        assert_eq!(book("mcts:book=none"), Ok(None));
        let dir = std::env::temp_dir().join(format!("tengen-book-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("book.txt");
        let row = ".........";
        let empty = [row; 9].join("/");
        std::fs::write(&file, format!("size 9\nkomi 7\n{empty} b J9\n")).unwrap();
        let text = format!("mcts:book={}", file.display());
        let loaded = book(&text).unwrap().unwrap();
        assert_eq!(loaded.len(), 1);
        // The same file again is the same book, not another copy.
        assert!(std::ptr::eq(book(&text).unwrap().unwrap(), loaded));
        let bad = dir.join("bad.txt");
        std::fs::write(&bad, format!("size 9\nkomi 7\n{empty} b Q9\n")).unwrap();
        for (text, reason) in [
            (
                format!("mcts:book={}", dir.join("none").display()),
                "reading",
            ),
            (format!("mcts:book={}", dir.display()), "reading"),
            (format!("mcts:book={}", bad.display()), "line 3: `Q9`"),
        ] {
            let error = book(&text).unwrap_err().to_string();
            assert!(error.contains(reason), "{text}: {error}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_move_model_option_reads_a_file_once() {
        use crate::features::MoveModel;
        use crate::prior::ModelChoice;
        let prior = |text: &str| mcts_config(&spec(text)).map(|c| c.params.prior);
        assert_eq!(prior("mcts:movemodel=builtin"), Ok(PriorSource::default()));
        let dir = std::env::temp_dir().join(format!("tengen-movemodel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("model.txt");
        std::fs::write(&file, MoveModel::builtin().to_text()).unwrap();
        let text = format!("mcts:movemodel={},priorweight=90", file.display());
        let Ok(PriorSource::Learned { weight, model }) = prior(&text) else {
            panic!("{text} gives learned priors");
        };
        assert_eq!(weight, 90.0);
        let ModelChoice::Loaded(loaded) = model else {
            panic!("{text} loads the file");
        };
        assert_eq!(loaded.to_text(), MoveModel::builtin().to_text());
        assert!(!std::ptr::eq(loaded, MoveModel::builtin()));
        // The same file again is the same model, not another copy.
        assert_eq!(
            prior(&text).unwrap(),
            PriorSource::Learned { weight, model }
        );
        for (text, reason) in [
            (
                format!("mcts:movemodel={}", dir.join("none").display()),
                "reading",
            ),
            (format!("mcts:movemodel={}", dir.display()), "reading"),
            (
                format!("mcts:priors=rules,movemodel={}", file.display()),
                "only learned priors have a move model",
            ),
        ] {
            let error = prior(&text).unwrap_err().to_string();
            assert!(error.contains(reason), "{text}: {error}");
        }
        std::fs::write(dir.join("bad.txt"), "pattern 0 -1\n").unwrap();
        let error = prior(&format!("mcts:movemodel={}", dir.join("bad.txt").display()))
            .unwrap_err()
            .to_string();
        assert!(error.contains("line 1"), "{error}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_playout_option_chooses_the_policy() {
        let policy = |text: &str| playout_policy(&spec(text));
        assert_eq!(policy("mcts").unwrap().capture_percent, 90);
        assert_eq!(policy("mcts:playout=heavy").unwrap().capture_percent, 90);
        let uniform = policy("mcts:playout=uniform").unwrap();
        assert_eq!((uniform.capture_percent, uniform.pattern_percent), (0, 0));
        let error = make_bot(&spec("mcts:playout=light"), 1).err().unwrap();
        assert!(
            error.to_string().contains("expected heavy or uniform"),
            "{error}"
        );
        assert!(make_bot(&spec("mcts:playout=uniform,playouts=10"), 1).is_ok());
        assert!(!policy("mcts").unwrap().last_good_reply);
        assert!(policy("mcts:lgrf=true").unwrap().last_good_reply);
        assert!(!policy("mcts:lgrf=false").unwrap().last_good_reply);
        assert!(
            !policy("mcts:playout=uniform,lgrf=true")
                .unwrap()
                .last_good_reply
        );
        // The eye test reaches the playouts and the tree alike.
        for (text, eyes) in [
            ("mcts:eyes=book", EyeTest::Book),
            ("mcts:eyes=real", EyeTest::Real),
            ("mcts:playout=uniform,eyes=real", EyeTest::Real),
        ] {
            assert_eq!(policy(text).unwrap().eyes, eyes, "{text}");
            assert_eq!(
                mcts_config(&spec(text)).unwrap().params.eyes,
                eyes,
                "{text}"
            );
        }
        let error = make_bot(&spec("mcts:eyes=false"), 1).err().unwrap();
        assert!(error.to_string().contains("book or real"), "{error}");
        assert!(!policy("mcts").unwrap().nakade_sacrifice);
        assert!(policy("mcts:sacrifice=true").unwrap().nakade_sacrifice);
        assert!(
            !policy("mcts:playout=uniform,sacrifice=true")
                .unwrap()
                .nakade_sacrifice
        );
        assert!(!policy("mcts").unwrap().nakade);
        assert!(policy("mcts:nakade=true").unwrap().nakade);
        assert!(!policy("mcts:nakade=off").unwrap().nakade);
        assert!(!policy("mcts:playout=uniform,nakade=true").unwrap().nakade);
        // The percent options of the heavy playouts: off by default, read
        // as given, off with uniform playouts, refused above 100.
        type Percent = fn(&PlayoutPolicy) -> usize;
        let percents: [(&str, Percent); 2] = [
            ("twolib", |p| p.two_liberty_percent),
            ("selfatari1", |p| p.lone_self_atari_refusal),
        ];
        for (name, percent) in percents {
            assert_eq!(percent(&policy("mcts").unwrap()), 0, "{name}");
            let given = policy(&format!("mcts:{name}=25")).unwrap();
            assert_eq!(percent(&given), 25, "{name}");
            let uniform = policy(&format!("mcts:playout=uniform,{name}=25")).unwrap();
            assert_eq!(percent(&uniform), 0, "{name}");
            let error = make_bot(&spec(&format!("mcts:{name}=101")), 1)
                .err()
                .unwrap();
            assert!(error.to_string().contains(name), "{error}");
        }
        assert_eq!(margin_weight(&spec("mcts")).unwrap(), 0.0);
        assert_eq!(margin_weight(&spec("mcts:margin=0.05")).unwrap(), 0.05);
        assert!(make_bot(&spec("mcts:margin=0.05"), 1).is_ok());
        let error = make_bot(&spec("mcts:margin=1.5"), 1).err().unwrap();
        assert!(error.to_string().contains("margin"), "{error}");
        let error = make_bot(&spec("mcts:lgrf=maybe"), 1).err().unwrap();
        assert!(
            error.to_string().contains("expected true or false"),
            "{error}"
        );
    }

    #[test]
    fn mcts_options_are_checked() {
        let config =
            mcts_config(&spec("mcts:playouts=2000,threads=2,time=1.5s,reuse=false")).unwrap();
        assert_eq!(config.playouts, Some(2000));
        assert_eq!(config.threads, 2);
        assert_eq!(config.time, Some(Duration::from_millis(1500)));
        assert!(!config.reuse);
        assert_eq!(config.params.amaf_distance, 0.0);
        assert_eq!(
            mcts_config(&spec("mcts:criticality=1.1"))
                .unwrap()
                .params
                .selection
                .criticality,
            1.1
        );
        let weighted = mcts_config(&spec("mcts:ravedistance=2.5")).unwrap();
        assert_eq!(weighted.params.amaf_distance, 2.5);
        let noisy = puct_config(&spec("katago:noise=0.25")).unwrap();
        assert_eq!(noisy.noise_weight, 0.25);
        assert_eq!(puct_config(&spec("katago")).unwrap().noise_weight, 0.0);
        for bad in ["katago:noise=2", "katago:noise=some"] {
            let err = puct_config(&spec(bad)).err().unwrap();
            assert!(matches!(err, BotError::BadValue { .. }), "{bad}: {err}");
        }
        assert_eq!(parse_think_time("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_think_time("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_think_time("1m"), Ok(Duration::from_secs(60)));
        // Hours are a unit like the others: what is too long is more than a
        // day, whatever the unit.
        assert_eq!(parse_think_time("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(
            mcts_config(&spec("mcts:time=1h")).unwrap().time,
            Some(Duration::from_secs(3600))
        );
        for bad in [
            "mcts:playouts=0",
            "mcts:playouts=lots",
            "mcts:threads=1000",
            "mcts:time=0s",
            "mcts:time=25h",
            "mcts:time=1d",
            "mcts:time=-1",
            "mcts:memory=0",
            "mcts:resignrate=0.9",
            "mcts:resign=lots",
            "random:eyes=maybe",
            "random:pass=always",
            "mcts:reuse=maybe",
            "mcts:rave=nan",
            "mcts:ravedistance=-1",
            "mcts:ravedistance=far",
        ] {
            let err = make_bot(&spec(bad), 1).err().unwrap();
            assert!(matches!(err, BotError::BadValue { .. }), "{bad}: {err}");
        }
        assert_eq!(
            make_bot(&spec("mcts:time=0s"), 1)
                .err()
                .unwrap()
                .to_string(),
            "bad value '0s' for option 'time': must be more than 0 and at most a day"
        );
    }

    /// `pass` and `resign` are offered by every bot and built by one
    /// wrapper; the options change what the bot does.
    #[test]
    fn every_bot_takes_the_termination_options() {
        use tengen_core::{Action, Board, BoardSize, Color, Game, Move, Rules};
        for info in BOTS {
            assert!(info.option("pass").is_some(), "{}", info.name);
            assert_eq!(
                info.option("resign").unwrap().default,
                "none",
                "{}",
                info.name
            );
        }
        assert_eq!(
            termination(
                &spec("policy"),
                BOTS.iter().find(|b| b.name == "policy").unwrap()
            ),
            Ok(Termination {
                pass_after_opponent: true,
                ..Termination::NONE
            })
        );
        // White to move after Black's pass on an empty board: komi wins.
        let mut game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        game.play(Move::Pass).unwrap();
        let mut plain = make_bot(&spec("random"), 1).unwrap();
        let mut passer = make_bot(&spec("random:pass=opponent"), 1).unwrap();
        assert!(matches!(
            plain.select_move(&game),
            Action::Move(Move::Play(_))
        ));
        assert_eq!(passer.select_move(&game), Action::Move(Move::Pass));
        let mut resigner = make_bot(&spec("mcts:resign=5,playouts=10"), 1).unwrap();
        assert!(
            matches!(resigner.select_move(&game), Action::Move(_)),
            "7.5 ahead"
        );
        let fresh = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        assert_eq!(resigner.select_move(&fresh), Action::Resign, "7.5 behind");
        assert_eq!(resigner.name(), "mcts");
        // Go0 fills its own eyes where Go1 passes.
        let board = Board::from_ascii(
            ". x . x .\n\
             x x x x x\n\
             o o o o o\n\
             o . o . o\n\
             o o o o o",
        )
        .unwrap();
        let game = Game::from_position(board, Color::Black, Rules::default());
        let mut go1 = make_bot(&spec("random:eyes=keep"), 1).unwrap();
        let mut go0 = make_bot(&spec("random:eyes=fill"), 1).unwrap();
        assert_eq!(go1.select_move(&game), Action::Move(Move::Pass));
        assert!(matches!(
            go0.select_move(&game),
            Action::Move(Move::Play(_))
        ));
    }

    #[test]
    fn set_replaces_or_adds() {
        let mut s = spec("random:a=1");
        s.set("a", "2");
        s.set("B", "3");
        assert_eq!(s.to_string(), "random:a=2,b=3");
    }
}
