//! One option, defined once, and how KataGo's doors read it.

use crate::kind::Kind;
use crate::parse::parse_think_time;

/// What an option is about; docs group options by it, and a door may take
/// only some categories (the analysis engine takes [`Category::Machine`]
/// and [`Category::Batching`] from its command line only, and has no
/// turns or resignation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// The network file and the machine's share of the work: threads,
    /// precision, memory.
    Machine,
    /// How much a search may do: visits, playouts, time.
    Limits,
    /// How leaves are gathered for the network: batches, descents in
    /// flight.
    Batching,
    /// Which moves the search tries: exploration constants, first-play
    /// urgency, root noise.
    Exploration,
    /// How a node's value is made from its evaluations and children.
    Utility,
    /// How the network evaluates (its policy, symmetries, cache).
    Network,
    /// How the move played is chosen from the search.
    Selection,
    /// Passing and the rules of the game as the search sees them.
    Play,
    /// When the bot gives up.
    Resignation,
    /// What is kept from one move to the next, and pondering.
    Turns,
    /// The playouts and the Go knowledge of a playout search.
    Playouts,
}

impl Category {
    /// The category's name, as the docs print it.
    pub fn name(self) -> &'static str {
        match self {
            Category::Machine => "machine",
            Category::Limits => "limits",
            Category::Batching => "batching",
            Category::Exploration => "exploration",
            Category::Utility => "utility",
            Category::Network => "network",
            Category::Selection => "selection",
            Category::Play => "play",
            Category::Resignation => "resignation",
            Category::Turns => "turns",
            Category::Playouts => "playouts",
        }
    }
}

/// The test of when an option applies (`with playout=heavy`): setting an
/// option that does not apply is refused, never ignored.
pub struct Condition<S> {
    /// When it applies, as the docs say it: `playout=heavy`.
    pub text: &'static str,
    /// Whether it applies to these settings.
    pub holds: fn(&S) -> bool,
}

/// One option of the settings `S`: the only definition of it.
pub struct Setting<S> {
    /// tengen's name, as written in `name:key=value`.
    pub name: &'static str,
    /// KataGo's names for it, the one KataGo writes first (config files,
    /// `overrideSettings`, `kata-set-param`); empty when KataGo has no
    /// such option.
    pub katago: &'static [&'static str],
    /// What it is about.
    pub category: Category,
    /// What it does.
    pub help: &'static str,
    /// The value it takes and the field it sets.
    pub kind: Kind<S>,
    /// When it applies; `None`: always.
    pub applies: Option<Condition<S>>,
}

impl<S> Setting<S> {
    /// Whether KataGo calls it `name`.
    pub fn is_katago(&self, name: &str) -> bool {
        self.katago.contains(&name)
    }

    /// Reads `text` as KataGo's doors give it and writes it into
    /// `settings`: a time is a number of seconds, `0` no limit (KataGo's
    /// `maxTime = 0`); anything else as at tengen's door (KataGo too
    /// refuses `maxVisits = 0`).
    pub fn apply_katago(&self, settings: &mut S, text: &str) -> Result<(), String> {
        let text = text.trim();
        let Kind::Time { set, .. } = &self.kind else {
            return self.kind.apply(settings, text);
        };
        let time = match text.parse::<f64>() {
            Ok(0.0) => None,
            Ok(seconds) if seconds.is_finite() && seconds > 0.0 => {
                Some(parse_think_time(&format!("{text}s"))?)
            }
            Ok(_) => return Err("expected a number of seconds".to_string()),
            Err(_) => return self.kind.apply(settings, text),
        };
        set(settings, time);
        Ok(())
    }

    /// The value in `settings` as KataGo's doors give it: a time in
    /// seconds, no time limit as `0` (see [`Setting::apply_katago`]).
    pub fn katago_text(&self, settings: &S) -> String {
        match &self.kind {
            Kind::Time { get, .. } => {
                get(settings).map_or_else(|| "0".to_string(), |t| t.as_secs_f64().to_string())
            }
            _ => self.kind.text(settings),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[derive(Default)]
    struct Limits {
        time: Option<Duration>,
    }

    const TIME: Setting<Limits> = Setting {
        name: "time",
        katago: &["maxTime"],
        category: Category::Limits,
        help: "",
        kind: Kind::Time {
            get: |s| s.time,
            set: |s, t| s.time = t,
        },
        applies: None,
    };

    #[test]
    fn katago_doors_read_seconds_and_zero_as_no_limit() {
        let mut limits = Limits::default();
        TIME.apply_katago(&mut limits, "1.5").unwrap();
        assert_eq!(limits.time, Some(Duration::from_millis(1500)));
        assert_eq!(TIME.katago_text(&limits), "1.5");
        assert_eq!(TIME.kind.text(&limits), "1500ms");
        TIME.apply_katago(&mut limits, "2s").unwrap();
        assert_eq!(limits.time, Some(Duration::from_secs(2)));
        TIME.apply_katago(&mut limits, "0").unwrap();
        assert_eq!(limits.time, None);
        assert_eq!(TIME.katago_text(&limits), "0");
        assert!(TIME.apply_katago(&mut limits, "-1").is_err());
        assert!(TIME.apply_katago(&mut limits, "NaN").is_err());
        assert!(TIME.apply_katago(&mut limits, "1e20").is_err());
        assert!(
            TIME.kind.apply(&mut limits, "0").is_err(),
            "tengen's door refuses 0"
        );
    }
}
