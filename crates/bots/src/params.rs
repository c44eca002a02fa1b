//! A bot's settings read and changed by name while it serves (GTP's
//! `kata-get-param`, `kata-set-param`, `kata-list-params`): the bot's own
//! options, and KataGo's names of the options it shares with KataGo, as
//! its option table defines them (times in KataGo's form: seconds, 0 for
//! no limit).

use tengen_core::Agent;

use crate::registry::BotSettings;
use crate::settings::Door;

/// Why a parameter could not be set.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// No such parameter.
    #[error("unknown parameter {0:?}")]
    Unknown(String),
    /// The value is not one the parameter takes, or the bot could not be
    /// built with it.
    #[error("{0}")]
    Refused(String),
}

/// A bot's typed settings, read and set by option name, and the bot
/// rebuilt from them.
pub struct Params {
    settings: Box<dyn BotSettings>,
    seed: u64,
}

impl Params {
    /// The settings of a bot built with `seed`.
    pub fn new(settings: Box<dyn BotSettings>, seed: u64) -> Params {
        Params { settings, seed }
    }

    /// The option `name` stands for, and the form of its value: the
    /// option of that name, else the one KataGo calls so.
    fn option(&self, name: &str) -> Option<(&'static str, Door)> {
        let docs = self.settings.info().options.docs();
        if let Some(doc) = docs.iter().find(|doc| doc.name == name) {
            return Some((doc.name, Door::Tengen));
        }
        docs.iter()
            .find(|doc| doc.katago.contains(&name))
            .map(|doc| (doc.name, Door::KataGo))
    }
}

impl Params {
    /// The names: the bot's options, then KataGo's names of those it has.
    pub fn names(&self) -> Vec<String> {
        let options = self.settings.info().options.docs();
        let mut names: Vec<String> = options.iter().map(|doc| doc.name.to_string()).collect();
        names.extend(
            options
                .iter()
                .flat_map(|doc| doc.katago.iter().map(|name| name.to_string())),
        );
        names
    }

    /// The value of `name` as text; `None` for an unknown name.
    pub fn get(&self, name: &str) -> Option<String> {
        let (option, door) = self.option(name)?;
        self.settings
            .info()
            .options
            .value(self.settings.as_any(), option, door)
    }

    /// Sets `name` to `value` and builds the bot anew; the settings are
    /// unchanged on an error.
    pub fn set(&mut self, name: &str, value: &str) -> Result<Box<dyn Agent + Send>, ParamError> {
        let (option, door) = self
            .option(name)
            .ok_or_else(|| ParamError::Unknown(name.to_string()))?;
        let mut settings = self.settings.clone_box();
        let info = settings.info();
        info.options
            .set_value(info.name, settings.as_any_mut(), option, value, door)
            .map_err(|error| ParamError::Refused(error.to_string()))?;
        let agent = settings
            .build(self.seed)
            .map_err(|error| ParamError::Refused(error.to_string()))?;
        self.settings = settings;
        Ok(agent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(spec: &str) -> Params {
        Params::new(crate::parse_bot(spec).unwrap(), 1)
    }

    #[test]
    fn parameters_are_the_options_and_katago_s_names_for_them() {
        let mut mcts = params("mcts:playouts=300");
        let names = mcts.names();
        assert!(names.contains(&"playouts".to_string()), "{names:?}");
        assert!(names.contains(&"maxTime".to_string()), "{names:?}");
        assert!(
            !names.contains(&"maxVisits".to_string()),
            "mcts has no visits"
        );
        assert_eq!(mcts.get("playouts").as_deref(), Some("300"));
        assert_eq!(
            mcts.get("maxTime").as_deref(),
            Some("0"),
            "KataGo's no limit"
        );
        mcts.set("maxTime", "1.5").unwrap();
        assert_eq!(mcts.get("time").as_deref(), Some("1500ms"));
        assert_eq!(mcts.get("maxTime").as_deref(), Some("1.5"));
        mcts.set("playouts", "50").unwrap();
        assert_eq!(mcts.get("playouts").as_deref(), Some("50"));
        assert_eq!(mcts.get("nonsense"), None);
        mcts.set("maxTime", "0").unwrap();
        assert_eq!(mcts.get("time").as_deref(), Some("none"));
    }

    /// KataGo's thread names map to the options that mean what KataGo's
    /// mean: the search's threads, the forward pass's threads.
    #[test]
    fn katago_s_thread_names_keep_their_meaning() {
        let mcts = params("mcts:threads=2");
        assert_eq!(mcts.get("numSearchThreads").as_deref(), Some("2"));
        let katago = params("katago:threads=3,in-flight=4,lcb-stdevs=7");
        assert_eq!(katago.get("numNNThreads").as_deref(), Some("3"));
        assert_eq!(katago.get("numEigenThreadsPerModel").as_deref(), Some("3"));
        assert_eq!(katago.get("numSearchThreads").as_deref(), Some("4"));
        assert_eq!(katago.get("lcbStdevs").as_deref(), Some("7"));
        assert_eq!(katago.get("lcb-stdevs").as_deref(), Some("7"));
        let names = katago.names();
        for name in [
            "maxVisits",
            "maxPlayouts",
            "cpuctExploration",
            "ponderingEnabled",
        ] {
            assert!(names.contains(&name.to_string()), "{name}: {names:?}");
        }
    }

    #[test]
    fn bad_names_and_values_leave_the_settings_unchanged() {
        let mut mcts = params("mcts:playouts=300");
        assert_eq!(
            mcts.set("nonsense", "1").err(),
            Some(ParamError::Unknown("nonsense".to_string()))
        );
        let Err(ParamError::Refused(reason)) = mcts.set("playouts", "-3") else {
            panic!("accepted a negative count");
        };
        assert!(reason.contains("playouts"), "{reason}");
        assert_eq!(mcts.get("playouts").as_deref(), Some("300"));
        mcts.set("prior-source", "rules").unwrap();
        let Err(ParamError::Refused(reason)) = mcts.set("prior-weight", "2") else {
            panic!("accepted an option that does not apply");
        };
        assert!(reason.contains("applies only"), "{reason}");
    }
}
