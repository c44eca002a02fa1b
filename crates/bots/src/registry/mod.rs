//! Bots by name. A spec `name[:key=value,key=value…]` ([`BotSpec`]) names
//! a bot of [`BOTS`]; its table of options turns the spec into the bot's
//! typed settings ([`BotSettings`]: [`MctsSettings`], [`KataGoSettings`],
//! …), which build the bot. Every front end (terminal, GTP, matches, the
//! web server) goes through here, so a bot added here is available
//! everywhere.
//!
//! ```
//! use tengen_bots::registry::{parse_bot, BotSettings};
//!
//! let settings = parse_bot("random").unwrap();
//! let bot = settings.build(7).unwrap();
//! assert_eq!(bot.name(), "random");
//! assert!(parse_bot("alphago").is_err());
//! ```

use std::any::Any;
use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use tengen_core::Agent;
use tengen_nn::model::Model;
use thiserror::Error;

use crate::settings::{OptionList, Setting};
use crate::termination::Termination;

mod katago;
mod mcts;
mod policy;
mod random;

pub use katago::{KataGoSettings, KATAGO};
pub use mcts::{MctsSettings, PriorKind, MCTS};
pub use policy::{PolicySettings, POLICY};
pub use random::{RandomSettings, RANDOM};

/// A bot tengen knows: its name, what it is, its options, and how its
/// settings are read.
#[derive(Clone, Copy)]
pub struct BotInfo {
    /// The name that selects it.
    pub name: &'static str,
    /// One line on how it plays.
    pub description: &'static str,
    /// Its options, for listings and docs.
    pub options: &'static dyn OptionList,
    /// Reads its settings from a spec's options (keys lower-cased, each
    /// once), checked.
    pub parse: SettingsParser,
}

/// Reads a bot's typed settings from a spec's `key=value` options.
pub type SettingsParser = fn(&[(String, String)]) -> Result<Box<dyn BotSettings>, BotError>;

impl fmt::Debug for BotInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BotInfo").field("name", &self.name).finish()
    }
}

/// Every bot tengen can build, in the order they are listed to users.
pub static BOTS: &[BotInfo] = &[random::INFO, mcts::INFO, policy::INFO, katago::INFO];

/// What a server holds to its limits in a bot's settings. Each part is
/// `None` where the bot has no such setting.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Budget {
    /// What the bot counts per move (`"playouts"` or `"visits"`) and how
    /// many it is set to (`None`: time or the clock decides).
    pub count: Option<(&'static str, Option<u64>)>,
    /// The thinking time per move it is set to (`Some(None)`: none set).
    pub time: Option<Option<Duration>>,
    /// Its search threads.
    pub threads: Option<usize>,
    /// The most MiB its search tree may take.
    pub memory_mib: Option<u64>,
}

/// A bot's typed settings, whatever the bot: printed back as the canonical
/// spec (the options that differ from the defaults, in the table's order),
/// held to limits through [`Budget`], and built into a bot.
pub trait BotSettings: AnySettings + fmt::Display + fmt::Debug + Send + Sync {
    /// The bot these settings are for.
    fn info(&self) -> &'static BotInfo;

    /// Builds the bot, its random choices determined by `seed`.
    fn build(&self, seed: u64) -> Result<Box<dyn Agent + Send>, BotError>;

    /// The settings a server limits.
    fn budget(&self) -> Budget {
        Budget::default()
    }

    /// Writes back the parts of `budget` the bot has (see [`Self::budget`]).
    fn set_budget(&mut self, budget: &Budget) {
        let _ = budget;
    }
}

/// The concrete settings behind a [`BotSettings`], for callers that know the
/// bot, and copies; every `Clone` settings type has it.
pub trait AnySettings {
    /// The concrete settings.
    fn as_any(&self) -> &dyn Any;

    /// The concrete settings, to change.
    fn as_any_mut(&mut self) -> &mut dyn Any;

    /// A copy.
    fn clone_box(&self) -> Box<dyn BotSettings>;
}

impl<S: BotSettings + Clone + 'static> AnySettings for S {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    fn clone_box(&self) -> Box<dyn BotSettings> {
        Box::new(self.clone())
    }
}

/// Implements [`Terminates`] for settings with a `termination` field.
macro_rules! terminates_by_field {
    ($settings:ty) => {
        impl $crate::registry::Terminates for $settings {
            fn termination(&self) -> &Termination {
                &self.termination
            }
            fn termination_mut(&mut self) -> &mut Termination {
                &mut self.termination
            }
        }
    };
}
pub(crate) use terminates_by_field;

impl Clone for Box<dyn BotSettings> {
    fn clone(&self) -> Self {
        self.clone_box()
    }
}

/// Writes `name` and the `key=value` items as a spec.
pub(crate) fn write_spec(
    f: &mut fmt::Formatter<'_>,
    name: &str,
    items: &[(&'static str, String)],
) -> fmt::Result {
    f.write_str(name)?;
    for (i, (key, value)) in items.iter().enumerate() {
        let separator = if i == 0 { ':' } else { ',' };
        write!(f, "{separator}{key}={value}")?;
    }
    Ok(())
}

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
    #[error("bot '{bot}' has no option '{key}' ({})", if known.is_empty() { "it takes no options".to_string() } else { format!("its options: {known}") })]
    UnknownOption {
        /// The bot's name.
        bot: String,
        /// The key as given.
        key: String,
        /// The options it has, comma-separated.
        known: String,
    },
    /// The option was renamed.
    #[error("bot option '{old}' is now called '{new}'")]
    Renamed {
        /// The old name, as given.
        old: String,
        /// The name to use.
        new: String,
    },
    /// The option is a measured experiment, left out of this build.
    #[error("bot option '{key}' is an experiment that is not in this build (build with --features experiments; see docs/experiments/)")]
    Experiment {
        /// The key as given.
        key: String,
    },
    /// The option does not apply with the other settings.
    #[error("bot option '{key}' applies only with {condition}")]
    NotApplicable {
        /// The key.
        key: String,
        /// When it applies.
        condition: String,
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

/// A bot chosen by name with its options as text: `mcts:playouts=20000,threads=2`.
///
/// Parsing checks the form only (a name, `key=value` items, no key twice);
/// [`BotSpec::settings`] checks the name, the keys and the values.
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

    /// The entry of [`BOTS`] this spec names, if it is known.
    pub fn info(&self) -> Option<&'static BotInfo> {
        BOTS.iter().find(|info| info.name == self.name)
    }

    /// The typed settings this spec gives, from the bots of [`BOTS`].
    pub fn settings(&self) -> Result<Box<dyn BotSettings>, BotError> {
        let info = self.info().ok_or_else(|| BotError::UnknownBot {
            name: self.name.clone(),
        })?;
        (info.parse)(&self.options)
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

/// The typed settings a spec text gives: `mcts:playouts=2000`.
pub fn parse_bot(text: &str) -> Result<Box<dyn BotSettings>, BotError> {
    text.parse::<BotSpec>()?.settings()
}

/// Builds the bot `spec` names, its random choices determined by `seed`.
pub fn make_bot(spec: &BotSpec, seed: u64) -> Result<Box<dyn Agent + Send>, BotError> {
    spec.settings()?.build(seed)
}

/// Loads a tengen model file, or the shipped one for `builtin`.
pub fn load_model(path: &str) -> Result<Model, BotError> {
    let result = if path == "builtin" {
        tengen_nn::builtin::model()
    } else {
        Model::load(std::path::Path::new(path))
    };
    result.map_err(|e| BotError::Model {
        path: path.to_string(),
        reason: e.to_string(),
    })
}

/// Settings that end games: `pass` and `resign-margin` (see
/// [`crate::termination`]), which every bot takes.
pub(crate) trait Terminates {
    /// The termination strategies.
    fn termination(&self) -> &Termination;
    /// The same, to change.
    fn termination_mut(&mut self) -> &mut Termination;
}

/// The `pass` option of every bot.
pub(crate) const fn pass_setting<S: Terminates>() -> Setting<S> {
    use crate::settings::{Category, Kind};
    Setting {
        name: "pass",
        katago: &[],
        category: Category::Play,
        help: "'opponent': pass when the opponent has passed and the count as it stands (dead stones estimated, komi) wins; 'never': the bot decides",
        kind: Kind::Choice {
            words: &["opponent", "never"],
            get: |s| {
                if s.termination().pass_after_opponent {
                    "opponent"
                } else {
                    "never"
                }
            },
            set: |s, word| s.termination_mut().pass_after_opponent = word == "opponent",
        },
        applies: None,
    }
}

/// Settings of bots that can play at a human rank: `rank`.
pub(crate) trait Ranked {
    /// The rank it plays at; `None`: its full strength.
    fn rank(&self) -> Option<tengen_core::Rank>;
    /// The same, to change.
    fn set_rank(&mut self, rank: Option<tengen_core::Rank>);
}

/// The words of the `rank` option: `off`, then 20 kyu to 9 dan.
pub const RANK_WORDS: [&str; 30] = [
    "off", "20k", "19k", "18k", "17k", "16k", "15k", "14k", "13k", "12k", "11k", "10k", "9k", "8k",
    "7k", "6k", "5k", "4k", "3k", "2k", "1k", "1d", "2d", "3d", "4d", "5d", "6d", "7d", "8d", "9d",
];

/// The word of `rank` among [`RANK_WORDS`].
fn rank_word(rank: Option<tengen_core::Rank>) -> &'static str {
    let text = rank.map_or("off".to_string(), |rank| rank.to_string());
    RANK_WORDS
        .iter()
        .find(|word| **word == text)
        .copied()
        .unwrap_or("off")
}

/// The `rank` option of the bots that play at a rank, with its help.
pub(crate) const fn rank_setting<S: Ranked>(help: &'static str) -> Setting<S> {
    use crate::settings::{Category, Kind};
    Setting {
        name: "rank",
        katago: &[],
        category: Category::Play,
        help,
        kind: Kind::Choice {
            words: &RANK_WORDS,
            get: |s| rank_word(s.rank()),
            set: |s, word| s.set_rank(word.parse().ok()),
        },
        applies: None,
    }
}

/// The `resign-margin` option of every bot.
pub(crate) const fn resign_margin_setting<S: Terminates>() -> Setting<S> {
    use crate::settings::{Category, Kind};
    Setting {
        name: "resign-margin",
        katago: &[],
        category: Category::Resignation,
        help: "resign when the expected lead (the mean count of playouts to the end, komi included) puts the bot behind by more than this many points; none: never",
        kind: Kind::OptionalReal {
            min: 0.0,
            max: 1000.0,
            get: |s| s.termination().resign_margin,
            set: |s, margin| s.termination_mut().resign_margin = margin,
        },
        applies: None,
    }
}

/// The old name of `resign-margin`, which every bot had.
pub(crate) const RESIGN_RENAMED: (&str, &str) = ("resign", "resign-margin");

/// The options reference (`docs/options.md`): every bot with each option's
/// values, default, when it applies and what it does, written from the
/// tables.
pub fn options_reference() -> String {
    let mut text = String::from(
        "# Bot options\n\n\
         Every bot is chosen by a spec `name:key=value,key=value`, the same on the\n\
         command line (`tengen gtp --bot`, `tengen play`, `tengen match`) and in the\n\
         web API's URLs (`/select-move/mcts:playouts=2000`). This page is written from\n\
         the bots' option tables (`crates/bots/src/registry/`) with\n\
         `TENGEN_UPDATE_DOCS=1 cargo test -p tengen-bots options_reference`; that\n\
         test fails when the page is out of date.\n\
         An option that does not apply with the other settings is refused with the\n\
         reason, never ignored. Where KataGo has the same option, its name is given\n\
         beside tengen's: GTP's `kata-set-param` takes either (with KataGo's, a time\n\
         is in seconds, `0` no limit), and the analysis engine takes KataGo's.\n\
         The `katago` bot's search options are defined once, in\n\
         `crates/puct/src/options.rs`, for this page, the bot and the analysis engine.\n",
    );
    for bot in BOTS {
        text.push_str(&format!("\n## `{}`\n\n{}.\n\n", bot.name, bot.description));
        let docs = bot.options.docs();
        if docs.is_empty() {
            text.push_str("No options.\n");
            continue;
        }
        text.push_str(
            "| option | KataGo's | category | values | default | what it does |\n|---|---|---|---|---|---|\n",
        );
        for option in docs {
            let katago: Vec<String> = option.katago.iter().map(|n| format!("`{n}`")).collect();
            let applies = option
                .applies
                .map(|condition| format!(" Applies only with {condition}."))
                .unwrap_or_default();
            text.push_str(&format!(
                "| `{}` | {} | {} | {} | `{}` | {}.{} |\n",
                option.name,
                katago.join(", "),
                option.category.name(),
                option.values,
                option.default,
                option.help.replace('|', "\\|"),
                applies
            ));
        }
    }
    text
}

/// One paragraph per known bot with its options, for `--list-bots`.
pub fn bot_listing() -> String {
    let mut text = String::new();
    for bot in BOTS {
        text.push_str(&format!("{:<8} {}\n", bot.name, bot.description));
        for option in bot.options.docs() {
            let applies = option
                .applies
                .map(|condition| format!(" [with {condition}]"))
                .unwrap_or_default();
            text.push_str(&format!(
                "         {}={} (default; {})  {}{}\n",
                option.name, option.default, option.values, option.help, applies
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests;
