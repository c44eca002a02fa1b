//! The bots the command line knows, by name.

use tengen_core::{Agent, RandomBot};
use thiserror::Error;

/// Names accepted by [`make_agent`], in the order they are listed to users.
pub const AGENT_NAMES: &[&str] = &["random"];

/// A bot name that [`make_agent`] does not know.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("unknown bot '{name}' (known bots: {})", AGENT_NAMES.join(", "))]
pub struct UnknownAgent {
    /// The name as given.
    pub name: String,
}

/// Builds the bot called `name` (case-insensitive), its random choices
/// determined by `seed`.
///
/// ```
/// let bot = tengen::make_agent("random", 7).unwrap();
/// assert_eq!(bot.name(), "random");
/// assert!(tengen::make_agent("alphago", 7).is_err());
/// ```
pub fn make_agent(name: &str, seed: u64) -> Result<Box<dyn Agent>, UnknownAgent> {
    match name.trim().to_ascii_lowercase().as_str() {
        "random" => Ok(Box::new(RandomBot::new(seed))),
        _ => Err(UnknownAgent {
            name: name.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_builds() {
        for name in AGENT_NAMES {
            assert_eq!(make_agent(name, 1).unwrap().name(), *name);
        }
        assert!(make_agent("RANDOM", 1).is_ok());
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let err = make_agent("nosuchbot", 1).err().unwrap();
        assert_eq!(
            err.to_string(),
            "unknown bot 'nosuchbot' (known bots: random)"
        );
    }
}
