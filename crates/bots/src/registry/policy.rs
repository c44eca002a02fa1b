//! The `policy` bot's settings: the book's DeepLearningAgent.

use std::fmt;

use tengen_core::{Agent, Rank};

use super::{
    load_model, pass_setting, rank_setting, resign_margin_setting, write_spec, BotError, BotInfo,
    BotSettings, Ranked, RESIGN_RENAMED,
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
    /// The human rank whose choices it draws as (`None`: the book's
    /// sampling).
    pub rank: Option<Rank>,
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
            rank: None,
        }
    }
}

super::terminates_by_field!(PolicySettings);

impl Ranked for PolicySettings {
    fn rank(&self) -> Option<Rank> {
        self.rank
    }
    fn set_rank(&mut self, rank: Option<Rank>) {
        self.rank = rank;
    }
}

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
        rank_setting(
            "draw moves as a person of this rank chooses them (20k to 9d; off: the book's sampling): the network's obvious moves, else the best of a rank's number of moves drawn at random. Not calibrated for tengen's own networks: a rank names the breadth of the choice, not a strength",
        ),
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
        let mut bot = PolicyBot::new(model, seed);
        if let Some(rank) = self.rank {
            bot = bot.at_rank(rank);
        }
        Ok(Terminating::wrap(Box::new(bot), self.termination))
    }
}
