//! The kinds of values an option takes, with their ranges, and how each
//! reads and writes the field it stands for.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::parse::{format_time, parse_flag, parse_real, parse_think_time, parse_whole};

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
    /// One of a few words (given in any case).
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
            Kind::Choice { words, set, .. } => {
                match words.iter().find(|word| word.eq_ignore_ascii_case(text)) {
                    Some(word) => set(settings, word),
                    None => return Err(format!("expected {}", words.join(" or "))),
                }
            }
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
