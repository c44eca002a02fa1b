//! Typed bot settings built from one table of options per bot.
//!
//! Each bot's settings are one value (`MctsSettings`, `KataGoSettings`, …)
//! whose `Default` is the only place its defaults are written. A [`Table`]
//! lists the options a user may set on it, each a [`Setting`] of
//! `tengen-options`: its name, KataGo's names, the kind of value with its
//! range, a help line, when it applies, and how it reads and writes the
//! typed field. The `katago` bot's table takes the PUCT search's options
//! from `tengen_puct::options`, where the analysis engine takes them too. From that one table come the parser of
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

pub use tengen_options::{
    format_time, parse_flag, parse_real, parse_think_time, parse_whole, wide, Category, Condition,
    FileChoice, Kind, Setting,
};

use crate::registry::BotError;

/// The options of one bot's settings `S`: the parser, the checks, the help
/// and the docs all read it.
pub struct Table<S: 'static> {
    /// The options in sections (the bot's own, a search's shared ones),
    /// in the order they are listed.
    pub sections: &'static [&'static [Setting<S>]],
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
    /// Every option, in order.
    pub fn settings(&self) -> impl Iterator<Item = &'static Setting<S>> + '_ {
        self.sections.iter().flat_map(|section| section.iter())
    }

    /// The option called `name`.
    pub fn get(&self, name: &str) -> Option<&'static Setting<S>> {
        self.settings().find(|setting| setting.name == name)
    }

    /// The option KataGo calls `name`.
    pub fn get_katago(&self, name: &str) -> Option<&'static Setting<S>> {
        self.settings().find(|setting| setting.is_katago(name))
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
        self.settings().map(|setting| setting.name).collect()
    }

    /// The options whose value in `settings` differs from the default, as
    /// `key=value` items in the table's order: the canonical spec text.
    pub fn changed(&self, settings: &S) -> Vec<(&'static str, String)> {
        let defaults = S::default();
        self.settings()
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
    /// KataGo's names for it (`kata-set-param`), if KataGo has it.
    pub katago: &'static [&'static str],
    /// What it is about.
    pub category: Category,
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
    /// text in the form of `door`; `None` for an unknown name or settings
    /// of another bot.
    fn value(&self, settings: &dyn Any, name: &str, door: Door) -> Option<String>;

    /// Sets option `name` of `settings` from `text`, checked as in a spec
    /// (its range, and whether it applies with the other settings); on an
    /// error the settings are unchanged. `text` is in the form of `door`;
    /// `bot` names the bot in errors.
    fn set_value(
        &self,
        bot: &str,
        settings: &mut dyn Any,
        name: &str,
        text: &str,
        door: Door,
    ) -> Result<(), BotError>;
}

/// The form an option's value takes at a door: tengen's (`time=1500ms`,
/// `time=none`) or KataGo's (`maxTime = 1.5`, `maxTime = 0`; see
/// [`Setting::apply_katago`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Door {
    /// A spec's or `tengen-get-param`'s form.
    Tengen,
    /// KataGo's: times in seconds, 0 for no time limit.
    KataGo,
}

impl<S: Default + Clone + 'static> OptionList for Table<S> {
    fn value(&self, settings: &dyn Any, name: &str, door: Door) -> Option<String> {
        let settings = settings.downcast_ref::<S>()?;
        let setting = self.get(name)?;
        Some(match door {
            Door::Tengen => setting.kind.text(settings),
            Door::KataGo => setting.katago_text(settings),
        })
    }

    fn set_value(
        &self,
        bot: &str,
        settings: &mut dyn Any,
        name: &str,
        text: &str,
        door: Door,
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
        match door {
            Door::Tengen => apply_text(setting, &mut changed, name, text)?,
            Door::KataGo => {
                setting
                    .apply_katago(&mut changed, text)
                    .map_err(|reason| BotError::BadValue {
                        key: name.to_string(),
                        value: text.to_string(),
                        reason,
                    })?
            }
        }
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
        self.settings()
            .map(|setting| OptionDoc {
                name: setting.name,
                katago: setting.katago,
                category: setting.category,
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
