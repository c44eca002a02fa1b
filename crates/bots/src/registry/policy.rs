//! The `policy` bot's settings: the book's DeepLearningAgent.

use std::fmt;

use tengen_core::Agent;

use super::{
    load_model, pass_setting, resign_margin_setting, write_spec, BotError, BotInfo, BotSettings,
    RESIGN_RENAMED,
};
use crate::settings::{experiments, Category, FileChoice, Kind, Setting, Table};
use crate::termination::{Terminating, Termination};
use tengen_nn::policy_bot::PolicyBot;

/// Settings of the `policy` bot.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicySettings {
    /// The tengen model file it plays (`builtin`: the shipped 9x9 model).
    pub model: FileChoice,
    /// When it passes and resigns.
    pub termination: Termination,
}

impl Default for PolicySettings {
    fn default() -> Self {
        PolicySettings {
            model: FileChoice::Builtin,
            // A policy network has no notion of the game's end: it passes
            // when its opponent has and the count wins.
            termination: Termination {
                pass_after_opponent: true,
                ..Termination::NONE
            },
        }
    }
}

super::terminates_by_field!(PolicySettings);

/// The `policy` bot's options.
pub static POLICY: Table<PolicySettings> = Table {
    sections: &[&[
        Setting {
            name: "model",
            katago: &[],
            category: Category::Machine,
            help: "the tengen model file (builtin: the shipped 9x9 model)",
            kind: Kind::File {
                words: &["builtin"],
                get: |s| s.model.clone(),
                set: |s, file| {
                    s.model = file;
                    Ok(())
                },
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
    name: "policy",
    description: "a policy network's move, sampled from its probabilities cubed (the book's DeepLearningAgent)",
    options: &POLICY,
    parse: |options| Ok(Box::new(POLICY.parse("policy", options)?)),
};

impl fmt::Display for PolicySettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_spec(f, INFO.name, &POLICY.changed(self))
    }
}

impl BotSettings for PolicySettings {
    fn info(&self) -> &'static BotInfo {
        &INFO
    }

    fn build(&self, seed: u64) -> Result<Box<dyn Agent + Send>, BotError> {
        let model = load_model(&self.model.to_string())?;
        Ok(Terminating::wrap(
            Box::new(PolicyBot::new(model, seed)),
            self.termination,
        ))
    }
}
