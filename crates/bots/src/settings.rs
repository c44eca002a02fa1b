//! Typed bot settings built from one table of options per bot.
//!
//! Each bot's settings are one value (`MctsSettings`, `KataGoSettings`, …)
//! whose `Default` is the only place its defaults are written. A [`Table`]
//! lists the options a user may set on it: for each, its name, the kind of
//! value with its range, a help line, when it applies, and how it reads
//! and writes the typed field. From that one table come the parser of
//! `name:key=value,…` specs, the checks, the listing of
//! `tengen gtp --list-bots` and `GET /api/bots`, and `docs/options.md`.
//!
//! ```
//! use tengen_bots::parse_bot;
//!
//! let settings = parse_bot("mcts:threads=2,playouts=2000").unwrap();
//! assert_eq!(settings.to_string(), "mcts:playouts=2000,threads=2");
//! let error = parse_bot("mcts:playouts=0").unwrap_err();
//! assert_eq!(error.to_string(), "bad value '0' for option 'playouts': must be from 1 to 1000000000");
//! ```

use std::any::Any;
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use tengen_core::parse_duration;

use crate::registry::BotError;

/// A file option's value: the shipped file, no file, or a file by path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum FileChoice {
    /// The file shipped inside tengen (`builtin`).
    Builtin,
    /// No file (`none`).
    #[default]
    None,
    /// A file by its path.
    Path(PathBuf),
}

impl fmt::Display for FileChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileChoice::Builtin => f.write_str("builtin"),
            FileChoice::None => f.write_str("none"),
            FileChoice::Path(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The kind of value an option takes, with its range, and how it reads and
/// writes the field of the settings `S` it stands for.
pub enum Kind<S> {
    /// A whole number from `min` to `max`.
    Whole {
        /// The smallest value allowed.
        min: u64,
        /// The largest value allowed.
        max: u64,
        /// Reads the field.
        get: fn(&S) -> u64,
        /// Writes the field.
        set: fn(&mut S, u64),
    },
    /// A whole number from `min` to `max`, or `none`.
    OptionalWhole {
        /// The smallest value allowed.
        min: u64,
        /// The largest value allowed.
        max: u64,
        /// Reads the field.
        get: fn(&S) -> Option<u64>,
        /// Writes the field.
        set: fn(&mut S, Option<u64>),
    },
    /// A decimal number from `min` to `max`.
    Real {
        /// The smallest value allowed.
        min: f64,
        /// The largest value allowed.
        max: f64,
        /// Reads the field.
        get: fn(&S) -> f64,
        /// Writes the field.
        set: fn(&mut S, f64),
    },
    /// A decimal number from `min` to `max`, or `none`.
    OptionalReal {
        /// The smallest value allowed.
        min: f64,
        /// The largest value allowed.
        max: f64,
        /// Reads the field.
        get: fn(&S) -> Option<f64>,
        /// Writes the field.
        set: fn(&mut S, Option<f64>),
    },
    /// `true` or `false` (also `yes`/`no`, `on`/`off`, `1`/`0`).
    Flag {
        /// Reads the field.
        get: fn(&S) -> bool,
        /// Writes the field.
        set: fn(&mut S, bool),
    },
    /// One of a few words.
    Choice {
        /// The words allowed.
        words: &'static [&'static str],
        /// Reads the field as its word.
        get: fn(&S) -> &'static str,
        /// Writes the field from one of `words`.
        set: fn(&mut S, &'static str),
    },
    /// A thinking time per move (`2s`, `500ms`, `1.5`), or `none`.
    Time {
        /// Reads the field.
        get: fn(&S) -> Option<Duration>,
        /// Writes the field.
        set: fn(&mut S, Option<Duration>),
    },
    /// A file: its path, or one of a few words (`builtin`, `none`).
    File {
        /// The words allowed besides a path.
        words: &'static [&'static str],
        /// Reads the field.
        get: fn(&S) -> FileChoice,
        /// Writes the field, reading the file if it must be read now; the
        /// reason it cannot be used otherwise.
        set: fn(&mut S, FileChoice) -> Result<(), String>,
    },
}

impl<S> Kind<S> {
    /// The values taken, for people: `a whole number from 1 to 256`.
    pub fn describe(&self) -> String {
        match self {
            Kind::Whole { min, max, .. } => format!("whole number, {min} to {max}"),
            Kind::OptionalWhole { min, max, .. } => {
                format!("whole number, {min} to {max}, or none")
            }
            Kind::Real { min, max, .. } => format!("number, {min} to {max}"),
            Kind::OptionalReal { min, max, .. } => format!("number, {min} to {max}, or none"),
            Kind::Flag { .. } => "true or false".to_string(),
            Kind::Choice { words, .. } => words.join(" or "),
            Kind::Time { .. } => "time (2s, 500ms, 1.5) or none".to_string(),
            Kind::File { words, .. } => {
                let mut text = "file".to_string();
                for word in *words {
                    text.push_str(" or ");
                    text.push_str(word);
                }
                text
            }
        }
    }

    /// The field's value in `settings`, as an option's text.
    pub fn text(&self, settings: &S) -> String {
        fn or_none<T: fmt::Display>(value: Option<T>) -> String {
            value.map_or_else(|| "none".to_string(), |value| value.to_string())
        }
        match self {
            Kind::Whole { get, .. } => get(settings).to_string(),
            Kind::OptionalWhole { get, .. } => or_none(get(settings)),
            Kind::Real { get, .. } => get(settings).to_string(),
            Kind::OptionalReal { get, .. } => or_none(get(settings)),
            Kind::Flag { get, .. } => get(settings).to_string(),
            Kind::Choice { get, .. } => get(settings).to_string(),
            Kind::Time { get, .. } => or_none(get(settings).map(format_time)),
            Kind::File { get, .. } => get(settings).to_string(),
        }
    }

    /// Reads `text` and writes it into `settings`, or says why it is not a
    /// value of this kind.
    pub fn apply(&self, settings: &mut S, text: &str) -> Result<(), String> {
        match self {
            Kind::Whole { min, max, set, .. } => set(settings, parse_whole(text, *min, *max)?),
            Kind::OptionalWhole { min, max, set, .. } => set(
                settings,
                match text {
                    "none" => None,
                    _ => Some(parse_whole(text, *min, *max)?),
                },
            ),
            Kind::Real { min, max, set, .. } => set(settings, parse_real(text, *min, *max)?),
            Kind::OptionalReal { min, max, set, .. } => set(
                settings,
                match text {
                    "none" => None,
                    _ => Some(parse_real(text, *min, *max)?),
                },
            ),
            Kind::Flag { set, .. } => set(settings, parse_flag(text)?),
            Kind::Choice { words, set, .. } => match words.iter().find(|word| **word == text) {
                Some(word) => set(settings, word),
                None => return Err(format!("expected {}", words.join(" or "))),
            },
            Kind::Time { set, .. } => set(
                settings,
                match text {
                    "none" => None,
                    _ => Some(parse_think_time(text)?),
                },
            ),
            Kind::File { words, set, .. } => {
                let choice = match text {
                    "builtin" if words.contains(&"builtin") => FileChoice::Builtin,
                    "none" if words.contains(&"none") => FileChoice::None,
                    _ => FileChoice::Path(PathBuf::from(text)),
                };
                set(settings, choice)?
            }
        }
        Ok(())
    }
}

/// The test of when an option applies (`with playout=heavy`): setting an
/// option that does not apply is refused, never ignored.
pub struct Condition<S> {
    /// When it applies, as the docs say it: `playout=heavy`.
    pub text: &'static str,
    /// Whether it applies to these settings.
    pub holds: fn(&S) -> bool,
}

/// One option of a bot's settings `S`.
pub struct Setting<S> {
    /// The key, as written in `name:key=value`.
    pub name: &'static str,
    /// What it does.
    pub help: &'static str,
    /// The value it takes and the field it sets.
    pub kind: Kind<S>,
    /// When it applies; `None`: always.
    pub applies: Option<Condition<S>>,
}

/// The options of one bot's settings `S`: the parser, the checks, the help
/// and the docs all read it.
pub struct Table<S: 'static> {
    /// The options, in the order they are listed.
    pub settings: &'static [Setting<S>],
    /// Options that were renamed: the old name and the new one.
    pub renamed: &'static [(&'static str, &'static str)],
    /// Options that exist only in builds with the `experiments` feature,
    /// named so that a spec using one is told why it is refused.
    pub experiments: &'static [&'static str],
}

/// The names of the options that are measured experiments: they exist
/// only in builds with the `experiments` feature (see ARCHITECTURE.md).
#[cfg(not(feature = "experiments"))]
pub(crate) const fn experiments(names: &'static [&'static str]) -> &'static [&'static str] {
    names
}

/// The names of the options that are measured experiments; with the
/// `experiments` feature they are ordinary options.
#[cfg(feature = "experiments")]
pub(crate) const fn experiments(_names: &'static [&'static str]) -> &'static [&'static str] {
    &[]
}

impl<S: Default + 'static> Table<S> {
    /// The option called `name`.
    pub fn get(&self, name: &str) -> Option<&Setting<S>> {
        self.settings.iter().find(|setting| setting.name == name)
    }

    /// The settings `options` give (keys lower-cased, each key once) over
    /// the defaults, each value checked, every option given checked to
    /// apply. `bot` names the bot in errors.
    pub fn parse(&self, bot: &str, options: &[(String, String)]) -> Result<S, BotError> {
        let mut settings = S::default();
        let mut given = Vec::with_capacity(options.len());
        for (key, text) in options {
            let setting = self.find(bot, key)?;
            apply_text(setting, &mut settings, key, text)?;
            given.push(setting);
        }
        for setting in given {
            check_applies(setting, &settings)?;
        }
        Ok(settings)
    }

    /// The option `key` of `bot`'s table, or why there is none: renamed,
    /// an experiment left out of this build, or unknown.
    pub fn find(&self, bot: &str, key: &str) -> Result<&Setting<S>, BotError> {
        if let Some(setting) = self.get(key) {
            return Ok(setting);
        }
        if let Some((old, new)) = self.renamed.iter().find(|(old, _)| *old == key) {
            return Err(BotError::Renamed {
                old: old.to_string(),
                new: new.to_string(),
            });
        }
        if self.experiments.contains(&key) {
            return Err(BotError::Experiment {
                key: key.to_string(),
            });
        }
        Err(BotError::UnknownOption {
            bot: bot.to_string(),
            key: key.to_string(),
            known: self.names().join(", "),
        })
    }

    /// The options' names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.settings.iter().map(|setting| setting.name).collect()
    }

    /// The options whose value in `settings` differs from the default, as
    /// `key=value` items in the table's order: the canonical spec text.
    pub fn changed(&self, settings: &S) -> Vec<(&'static str, String)> {
        let defaults = S::default();
        self.settings
            .iter()
            .filter_map(|setting| {
                let text = setting.kind.text(settings);
                (text != setting.kind.text(&defaults)).then_some((setting.name, text))
            })
            .collect()
    }
}

/// Writes `text`, the value given for option `key`, into `settings`, or
/// says why it is not one.
fn apply_text<S>(
    setting: &Setting<S>,
    settings: &mut S,
    key: &str,
    text: &str,
) -> Result<(), BotError> {
    setting
        .kind
        .apply(settings, text)
        .map_err(|reason| BotError::BadValue {
            key: key.to_string(),
            value: text.to_string(),
            reason,
        })
}

/// Whether `setting` applies with the rest of `settings` (its condition,
/// if it has one).
fn check_applies<S>(setting: &Setting<S>, settings: &S) -> Result<(), BotError> {
    match &setting.applies {
        Some(condition) if !(condition.holds)(settings) => Err(BotError::NotApplicable {
            key: setting.name.to_string(),
            condition: condition.text.to_string(),
        }),
        _ => Ok(()),
    }
}

/// One option as listings and docs show it, whatever the bot's settings type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionDoc {
    /// The key.
    pub name: &'static str,
    /// The default, as text.
    pub default: String,
    /// The values taken: `whole number, 1 to 256`.
    pub values: String,
    /// What it does.
    pub help: &'static str,
    /// When it applies (`playout=heavy`); `None`: always.
    pub applies: Option<&'static str>,
    /// For a file option, the words it takes besides a path (`builtin`,
    /// `none`); `None` for other options.
    pub file_words: Option<&'static [&'static str]>,
}

/// A bot's options as listings see them, whatever its settings type.
pub trait OptionList: Sync {
    /// The options with their defaults, in order.
    fn docs(&self) -> Vec<OptionDoc>;

    /// The value of option `name` in `settings` (the bot's own settings
    /// type, as [`crate::BotSettings::as_any`] gives it), as an option's
    /// text; `None` for an unknown name or settings of another bot.
    fn value(&self, settings: &dyn Any, name: &str) -> Option<String>;

    /// Sets option `name` of `settings` from `text`, checked as in a spec
    /// (its range, and whether it applies with the other settings); on an
    /// error the settings are unchanged. `bot` names the bot in errors.
    fn set_value(
        &self,
        bot: &str,
        settings: &mut dyn Any,
        name: &str,
        text: &str,
    ) -> Result<(), BotError>;
}

impl<S: Default + Clone + 'static> OptionList for Table<S> {
    fn value(&self, settings: &dyn Any, name: &str) -> Option<String> {
        let settings = settings.downcast_ref::<S>()?;
        Some(self.get(name)?.kind.text(settings))
    }

    fn set_value(
        &self,
        bot: &str,
        settings: &mut dyn Any,
        name: &str,
        text: &str,
    ) -> Result<(), BotError> {
        let Some(settings) = settings.downcast_mut::<S>() else {
            return Err(BotError::UnknownOption {
                bot: bot.to_string(),
                key: name.to_string(),
                known: self.names().join(", "),
            });
        };
        let setting = self.find(bot, name)?;
        let mut changed = settings.clone();
        apply_text(setting, &mut changed, name, text)?;
        // The option set, and every other option away from its default,
        // must still apply.
        check_applies(setting, &changed)?;
        for (key, _) in self.changed(&changed) {
            if let Some(other) = self.get(key) {
                check_applies(other, &changed)?;
            }
        }
        *settings = changed;
        Ok(())
    }

    fn docs(&self) -> Vec<OptionDoc> {
        let defaults = S::default();
        self.settings
            .iter()
            .map(|setting| OptionDoc {
                name: setting.name,
                default: setting.kind.text(&defaults),
                values: setting.kind.describe(),
                help: setting.help,
                applies: setting.applies.as_ref().map(|condition| condition.text),
                file_words: match setting.kind {
                    Kind::File { words, .. } => Some(words),
                    _ => None,
                },
            })
            .collect()
    }
}

/// An `f32` field as the `f64` a `Real` option reads and writes, the one
/// that prints the same (`0.05`, not `0.0500000007`).
pub(crate) fn wide(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::from(value))
}

/// A thinking time as an option's text: whole seconds as `2s`, others in
/// milliseconds or seconds with a fraction, read back to the same time.
fn format_time(time: Duration) -> String {
    if time.subsec_nanos() == 0 {
        format!("{}s", time.as_secs())
    } else if time.subsec_nanos().is_multiple_of(1_000_000) {
        format!("{}ms", time.as_millis())
    } else {
        format!("{}s", time.as_secs_f64())
    }
}

/// A yes/no option: `true`, `yes`, `1`, `on` or their opposites.
pub fn parse_flag(text: &str) -> Result<bool, String> {
    match text {
        "true" | "yes" | "1" | "on" => Ok(true),
        "false" | "no" | "0" | "off" => Ok(false),
        _ => Err("expected true or false".to_string()),
    }
}

/// A whole number from `min` to `max`, or the reason it is not one.
pub fn parse_whole(text: &str, min: u64, max: u64) -> Result<u64, String> {
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
/// use tengen_bots::settings::parse_real;
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

    #[test]
    fn times_print_as_they_read_back() {
        for text in ["2s", "500ms", "1500ms", "3600s"] {
            let time = parse_think_time(text).unwrap();
            assert_eq!(format_time(time), text);
        }
        let odd = Duration::from_micros(1_500_250);
        assert_eq!(parse_think_time(&format_time(odd)), Ok(odd));
    }
}
