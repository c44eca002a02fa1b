//! A bot's settings read and changed by name while it serves (GTP's
//! `kata-get-param`, `kata-set-param`, `kata-list-params`): the bot's own
//! options, and KataGo's names of the options it shares with KataGo.

use tengen_core::Agent;

use crate::registry::BotSettings;

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

/// KataGo's names for the options that tengen's bots share with it, as
/// GUIs send them to `kata-set-param`: (KataGo's name, the option).
const KATAGO_NAMES: &[(&str, &str)] = &[
    ("maxVisits", "visits"),
    ("maxTime", "time"),
    ("numSearchThreads", "threads"),
    ("conservativePass", "conservative-pass"),
    ("antiMirror", "anti-mirror"),
    ("ponderingEnabled", "ponder"),
    ("useLcbForSelection", "lcb"),
    ("useUncertainty", "uncertainty"),
    ("lcbStdevs", "lcb-stdevs"),
    ("minVisitPropForLCB", "lcb-min-visits"),
    ("cpuctUtilityStdevScale", "cpuct-stdev-scale"),
    ("fpuParentWeightByVisitedPolicy", "fpu-parent-blend"),
    ("subtreeValueBiasFactor", "subtree-bias"),
    ("useGraphSearch", "transpositions"),
    ("valueWeightExponent", "value-weight"),
    ("useNoisePruning", "noise-pruning"),
    ("policyOptimism", "policy-optimism"),
    ("rootPolicyOptimism", "root-policy-optimism"),
];

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

    /// The option `name` stands for: itself, or the one a KataGo name
    /// maps to when the bot has it.
    fn option<'a>(&self, name: &'a str) -> &'a str {
        KATAGO_NAMES
            .iter()
            .find(|(katago, _)| *katago == name)
            .map_or(name, |(_, option)| option)
    }

    fn has(&self, option: &str) -> bool {
        self.settings
            .info()
            .options
            .docs()
            .iter()
            .any(|doc| doc.name == option)
    }
}

impl Params {
    /// The names: the bot's options, then KataGo's names of those it has.
    pub fn names(&self) -> Vec<String> {
        let options = self.settings.info().options.docs();
        let mut names: Vec<String> = options.iter().map(|doc| doc.name.to_string()).collect();
        names.extend(
            KATAGO_NAMES
                .iter()
                .filter(|(_, option)| self.has(option))
                .map(|(katago, _)| katago.to_string()),
        );
        names
    }

    /// The value of `name` as text; `None` for an unknown name.
    pub fn get(&self, name: &str) -> Option<String> {
        let option = self.option(name);
        let value = self
            .settings
            .info()
            .options
            .value(self.settings.as_any(), option)?;
        // KataGo gives its times in seconds.
        if name == "maxTime" {
            return Some(
                crate::settings::parse_think_time(&value)
                    .map_or(value, |time| time.as_secs_f64().to_string()),
            );
        }
        Some(value)
    }

    /// Sets `name` to `value` and builds the bot anew; the settings are
    /// unchanged on an error.
    pub fn set(&mut self, name: &str, value: &str) -> Result<Box<dyn Agent + Send>, ParamError> {
        let option = self.option(name);
        if !self.has(option) {
            return Err(ParamError::Unknown(name.to_string()));
        }
        let mut value = value.to_string();
        if name == "maxTime" && value.parse::<f64>().is_ok() {
            value.push('s');
        }
        let mut settings = self.settings.clone_box();
        let info = settings.info();
        info.options
            .set_value(info.name, settings.as_any_mut(), option, &value)
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
        assert_eq!(mcts.get("maxTime").as_deref(), Some("none"));
        mcts.set("maxTime", "1.5").unwrap();
        assert_eq!(mcts.get("time").as_deref(), Some("1500ms"));
        assert_eq!(mcts.get("maxTime").as_deref(), Some("1.5"));
        mcts.set("playouts", "50").unwrap();
        assert_eq!(mcts.get("playouts").as_deref(), Some("50"));
        assert_eq!(mcts.get("nonsense"), None);
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
