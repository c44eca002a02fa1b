//! The bots the command line knows, by spec string (`random`,
//! `mcts:playouts=20000`): a thin layer over [`tengen_bots::registry`].

use tengen_bots::{BotError, BotSpec};
use tengen_core::Agent;

/// Builds the bot a spec string such as `random` or `mcts:time=2s` names, its
/// random choices determined by `seed`.
///
/// ```
/// let bot = tengen::make_agent("random", 7).unwrap();
/// assert_eq!(bot.name(), "random");
/// assert!(tengen::make_agent("alphago", 7).is_err());
/// ```
pub fn make_agent(spec: &str, seed: u64) -> Result<Box<dyn Agent + Send>, BotError> {
    let spec: BotSpec = spec.parse()?;
    tengen_bots::make_bot(&spec, seed)
}

/// One line per known bot with its options, for `--list-bots`.
pub fn bot_listing() -> String {
    let mut text = String::new();
    for bot in tengen_bots::BOTS {
        text.push_str(&format!("{:<8} {}\n", bot.name, bot.description));
        for option in bot.options {
            text.push_str(&format!(
                "         {}={} (default)  {}\n",
                option.name, option.default, option.help
            ));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_builds() {
        for bot in tengen_bots::BOTS {
            assert_eq!(make_agent(bot.name, 1).unwrap().name(), bot.name);
            assert!(bot_listing().contains(bot.name));
        }
        assert!(make_agent("RANDOM", 1).is_ok());
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let err = make_agent("nosuchbot", 1).err().unwrap();
        assert!(err
            .to_string()
            .starts_with("unknown bot 'nosuchbot' (known bots: random"));
    }
}
