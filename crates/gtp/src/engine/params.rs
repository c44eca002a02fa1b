//! `kata-list-params`, `kata-get-param` and `kata-set-param`: the bot's
//! settings read and changed by name while the engine serves, as KataGo
//! lets GUIs change its search parameters. The names are the bot's own
//! options (`docs/options.md`), plus KataGo's names for those it shares
//! (`maxVisits`, `maxTime`, `numSearchThreads`, `conservativePass`).

use tengen_core::Agent;

use super::error::CommandResult;
use super::{CommandError, Engine};

/// A bot's settings by name, and a way to rebuild the bot from them.
pub trait Tunable: Send {
    /// The parameters' names, in order.
    fn names(&self) -> Vec<String>;
    /// The value of `name` as text, `None` for an unknown name.
    fn get(&self, name: &str) -> Option<String>;
    /// Sets `name` to `value` and returns the bot to serve from now on;
    /// `Err` with the reason (the settings unchanged) when the name is
    /// unknown or the value unusable.
    fn set(&mut self, name: &str, value: &str) -> Result<Box<dyn Agent + Send>, SetParamError>;
}

/// Why `kata-set-param` failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetParamError {
    /// No such parameter.
    #[error("unknown parameter {0:?}")]
    Unknown(String),
    /// The value is not one the parameter takes, or the bot could not be
    /// built with it.
    #[error("{0}")]
    Refused(String),
}

impl Engine {
    /// `kata-list-params`: the names, separated by spaces.
    pub(super) fn kata_list_params(&mut self, args: &[&str]) -> CommandResult {
        if !args.is_empty() {
            return Err(CommandError::Syntax);
        }
        Ok(self
            .tunable
            .as_ref()
            .map_or_else(Vec::new, |t| t.names())
            .join(" "))
    }

    /// `kata-get-param NAME`: the value.
    pub(super) fn kata_get_param(&mut self, args: &[&str]) -> CommandResult {
        let [name] = args else {
            return Err(CommandError::Syntax);
        };
        self.tunable
            .as_ref()
            .and_then(|t| t.get(name))
            .ok_or_else(|| CommandError::UnknownParameter(name.to_string()))
    }

    /// `kata-set-param NAME VALUE`: rebuilds the bot with the new value
    /// (its clock settings kept; its search tree starts afresh).
    pub(super) fn kata_set_param(&mut self, args: &[&str]) -> CommandResult {
        let [name, value] = args else {
            return Err(CommandError::Syntax);
        };
        let Some(tunable) = self.tunable.as_mut() else {
            return Err(CommandError::UnknownParameter(name.to_string()));
        };
        let agent = tunable.set(name, value).map_err(|error| match error {
            SetParamError::Unknown(name) => CommandError::UnknownParameter(name),
            SetParamError::Refused(reason) => CommandError::Invalid(reason),
        })?;
        self.replace_agent(agent);
        Ok(String::new())
    }
}
