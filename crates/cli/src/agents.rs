//! The bots the command line knows, by spec string (`random`,
//! `mcts:playouts=20000`): a thin layer over [`tengen_bots::registry`].

use tengen_bots::params::{ParamError, Params};
use tengen_bots::registry::KataGoSettings;
use tengen_bots::settings::FileChoice;
use tengen_bots::{BotError, BotSpec};
use tengen_core::{Agent, BoardSize, Rules};
use tengen_gtp::{RawNetwork, SetParamError, Tunable};
use tengen_puct::katago::KataGoEvaluator;
use tengen_puct::PositionEvaluator;

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

/// The network of the bot `spec` names, for `kata-raw-nn`: the `katago`
/// bot's (a network file is loaded once per process, so the bot and this
/// share it); `None` for bots without one.
pub fn raw_network(spec: &str) -> Result<Option<Box<dyn RawNetwork>>, BotError> {
    let settings = tengen_bots::parse_bot(spec)?;
    let Some(katago) = settings.as_any().downcast_ref::<KataGoSettings>() else {
        return Ok(None);
    };
    if katago.model == FileChoice::None {
        return Ok(None);
    }
    Ok(Some(Box::new(KataGoRawNetwork(KataGoEvaluator::new(
        katago.network()?,
    )))))
}

/// The settings of the bot `spec` names by name, for `kata-set-param` and
/// friends: changing one rebuilds the bot with `seed`.
pub fn bot_params(spec: &str, seed: u64) -> Result<Box<dyn Tunable>, BotError> {
    Ok(Box::new(GtpParams(Params::new(
        tengen_bots::parse_bot(spec)?,
        seed,
    ))))
}

/// [`Params`] as the GTP engine asks for them.
struct GtpParams(Params);

impl Tunable for GtpParams {
    fn names(&self) -> Vec<String> {
        self.0.names()
    }

    fn get(&self, name: &str) -> Option<String> {
        self.0.get(name)
    }

    fn set(&mut self, name: &str, value: &str) -> Result<Box<dyn Agent + Send>, SetParamError> {
        self.0.set(name, value).map_err(|error| match error {
            ParamError::Unknown(name) => SetParamError::Unknown(name),
            ParamError::Refused(reason) => SetParamError::Refused(reason),
        })
    }
}

/// A KataGo network answering `kata-raw-nn`.
struct KataGoRawNetwork(KataGoEvaluator);

impl RawNetwork for KataGoRawNetwork {
    fn raw_output(
        &self,
        game: &tengen_core::Game,
        symmetry: Option<u8>,
        optimism: Option<f32>,
    ) -> Result<String, String> {
        self.0
            .raw_output(game, symmetry, optimism)
            .unwrap_or_else(|| Err("the network gives no raw output".to_string()))
    }
}

/// Why a bot cannot play the game it was chosen for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlaysError {
    /// The bot does not play the rules' variant.
    #[error("the bot '{spec}' does not play {game} (yet); random and mcts do")]
    Variant {
        /// The bot as given.
        spec: String,
        /// The game: `Go` or `NoGo`.
        game: &'static str,
    },
    /// The bot does not play on the board (a network trained for another
    /// size, say).
    #[error("the bot '{spec}' cannot play this board: {reason}")]
    Size {
        /// The bot as given.
        spec: String,
        /// The bot's own reason.
        reason: String,
    },
}

/// Refuses a bot (named `spec`) that cannot play the game's variant or
/// board, before any play: better than a game that fails at the bot's first
/// move.
pub fn check_plays(
    bot: &dyn Agent,
    spec: &str,
    rules: &Rules,
    size: BoardSize,
) -> Result<(), PlaysError> {
    if !bot.plays(rules.variant) {
        return Err(PlaysError::Variant {
            spec: spec.to_string(),
            game: if rules.is_nogo() { "NoGo" } else { "Go" },
        });
    }
    bot.plays_size(size).map_err(|reason| PlaysError::Size {
        spec: spec.to_string(),
        reason,
    })
}

/// One line per known bot with its options, for `--list-bots`.
pub fn bot_listing() -> String {
    tengen_bots::registry::bot_listing()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_builds() {
        for bot in tengen_bots::BOTS {
            // The katago bot needs a network file.
            let spec = match bot.name {
                "katago" => format!(
                    "katago:model={}",
                    tengen_katago::reference::model_path().display()
                ),
                name => name.to_string(),
            };
            assert_eq!(make_agent(&spec, 1).unwrap().name(), bot.name);
            assert!(bot_listing().contains(bot.name));
        }
        assert!(make_agent("RANDOM", 1).is_ok());
    }

    #[test]
    fn bots_that_cannot_play_the_game_are_refused() {
        let nine = BoardSize::square(9).unwrap();
        let random = make_agent("random", 1).unwrap();
        assert_eq!(
            check_plays(random.as_ref(), "random", &Rules::default(), nine),
            Ok(())
        );
        let nogo = Rules::preset("nogo").unwrap();
        assert_eq!(check_plays(random.as_ref(), "random", &nogo, nine), Ok(()));
        let err = check_plays(&GoOnly, "go-only", &nogo, nine).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the bot 'go-only' does not play NoGo (yet); random and mcts do"
        );
        let err = check_plays(
            &GoOnly,
            "go-only",
            &Rules::default(),
            BoardSize::square(5).unwrap(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "the bot 'go-only' cannot play this board: only 9x9"
        );
    }

    /// A bot for Go on 9x9 only.
    struct GoOnly;

    impl Agent for GoOnly {
        fn name(&self) -> &str {
            "go-only"
        }

        fn plays_size(&self, size: BoardSize) -> Result<(), String> {
            match size.width() {
                9 => Ok(()),
                _ => Err("only 9x9".to_string()),
            }
        }

        fn select_move(&mut self, _game: &tengen_core::Game) -> tengen_core::Action {
            tengen_core::Action::Resign
        }
    }

    #[test]
    fn unknown_names_list_the_known_ones() {
        let err = make_agent("nosuchbot", 1).err().unwrap();
        assert!(err
            .to_string()
            .starts_with("unknown bot 'nosuchbot' (known bots: random"));
    }
}
