//! The `random` bot's settings: the book's RandomBot and Müller's Go0/Go1.

use std::fmt;

use tengen_core::{Agent, RandomBot};

use super::{
    pass_setting, resign_margin_setting, write_spec, BotError, BotInfo, BotSettings, RESIGN_RENAMED,
};
use crate::settings::{experiments, Category, Kind, Setting, Table};
use crate::termination::{Terminating, Termination};

/// Settings of the `random` bot.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RandomSettings {
    /// Fill its own eyes too (Go0) instead of passing when only they are
    /// left (Go1, the book's RandomBot).
    pub fill_eyes: bool,
    /// When it passes and resigns.
    pub termination: Termination,
}

super::terminates_by_field!(RandomSettings);

/// The `random` bot's options.
pub static RANDOM: Table<RandomSettings> = Table {
    sections: &[&[
        Setting {
            name: "eyes",
            katago: &[],
            category: Category::Playouts,
            help: "'keep': never fill an own eye, pass when only eyes are left (Go1); 'fill': uniform over every legal move, own eyes included (Go0)",
            kind: Kind::Choice {
                words: &["keep", "fill"],
                get: |s| if s.fill_eyes { "fill" } else { "keep" },
                set: |s, word| s.fill_eyes = word == "fill",
            },
            applies: None,
        },
        pass_setting(),
        resign_margin_setting(),
    ]],
    renamed: &[RESIGN_RENAMED],
    experiments: experiments(&[]),
};

pub(super) const INFO: BotInfo = BotInfo {
    name: "random",
    description: "uniformly random legal moves that do not fill its own eyes (the book's RandomBot, Müller's Go1)",
    options: &RANDOM,
    parse: |options| Ok(Box::new(RANDOM.parse("random", options)?)),
};

impl fmt::Display for RandomSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_spec(f, INFO.name, &RANDOM.changed(self))
    }
}

impl BotSettings for RandomSettings {
    fn info(&self) -> &'static BotInfo {
        &INFO
    }

    fn build(&self, seed: u64) -> Result<Box<dyn Agent + Send>, BotError> {
        let bot: Box<dyn Agent + Send> = if self.fill_eyes {
            Box::new(RandomBot::filling_eyes(seed))
        } else {
            Box::new(RandomBot::new(seed))
        };
        Ok(Terminating::wrap(bot, self.termination))
    }
}
