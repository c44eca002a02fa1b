//! Rules as a value: the game played (Go or NoGo), ko, suicide, scoring and
//! komi, with named presets.

use std::fmt;
use std::str::FromStr;

/// Which game is played on the board.
///
/// NoGo (the game of Martin Müller's CMPUT 455 course) uses Go's board and
/// stones with other goals: capturing is illegal, suicide is illegal,
/// passing is illegal, and the player who cannot move loses. Ko, suicide and
/// scoring rules do not matter under NoGo (without captures no position can
/// repeat, suicide is always forbidden, nothing is counted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Go.
    #[default]
    Go,
    /// NoGo: no captures, no suicide, no passes; who cannot move loses.
    NoGo,
}

impl Variant {
    /// The name used in rules texts and on command lines: `go`, `nogo`.
    pub fn as_str(self) -> &'static str {
        match self {
            Variant::Go => "go",
            Variant::NoGo => "nogo",
        }
    }

    /// The inverse of [`Variant::as_str`], case-insensitive.
    pub fn parse(text: &str) -> Option<Variant> {
        match text.trim().to_ascii_lowercase().as_str() {
            "go" => Some(Variant::Go),
            "nogo" => Some(Variant::NoGo),
            _ => None,
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which repetitions are forbidden.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KoRule {
    /// Only the immediate retake of a single-stone ko.
    Simple,
    /// No move may recreate an earlier board position.
    PositionalSuperko,
    /// No move may recreate an earlier board position with the same player to move.
    SituationalSuperko,
}

/// Whether a move may leave its own chain without liberties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SuicideRule {
    /// Never.
    Forbidden,
    /// Only when the chain removed has two or more stones (a lone stone's
    /// suicide would change nothing on the board).
    MultiStoneAllowed,
    /// Always, a lone stone's suicide included.
    AllAllowed,
}

/// How the final position is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scoring {
    /// Stones plus empty points reaching only one colour (Tromp-Taylor, Chinese).
    Area,
    /// Empty points surrounded by one colour plus prisoners (Japanese, Korean).
    Territory,
}

/// A complete rule set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rules {
    /// The game played: Go, or NoGo (see [`Variant`]).
    pub variant: Variant,
    /// Repetition rule.
    pub ko: KoRule,
    /// Suicide rule.
    pub suicide: SuicideRule,
    /// Counting method.
    pub scoring: Scoring,
    /// Points given to White.
    pub komi: f64,
}

impl Default for Rules {
    /// The book's rules: situational superko, suicide forbidden, area scoring,
    /// komi 7.5.
    fn default() -> Rules {
        Rules {
            variant: Variant::Go,
            ko: KoRule::SituationalSuperko,
            suicide: SuicideRule::Forbidden,
            scoring: Scoring::Area,
            komi: 7.5,
        }
    }
}

/// The named rule sets and what each one means here.
///
/// | name | ko | suicide | scoring | komi |
/// |---|---|---|---|---|
/// | `tromp-taylor` | positional superko | allowed | area | 7.5 |
/// | `chinese` | positional superko | forbidden | area | 7.5 |
/// | `aga` | situational superko | forbidden | area | 7.5 |
/// | `japanese` | simple | forbidden | territory | 6.5 |
/// | `new-zealand` | situational superko | multi-stone allowed | area | 7 |
/// | `nogo` | NoGo: no captures, no suicide, no passes; who cannot move loses | | | 0 |
pub const PRESETS: [(&str, Rules); 6] = [
    (
        "tromp-taylor",
        Rules {
            variant: Variant::Go,
            ko: KoRule::PositionalSuperko,
            suicide: SuicideRule::AllAllowed,
            scoring: Scoring::Area,
            komi: 7.5,
        },
    ),
    (
        "chinese",
        Rules {
            variant: Variant::Go,
            ko: KoRule::PositionalSuperko,
            suicide: SuicideRule::Forbidden,
            scoring: Scoring::Area,
            komi: 7.5,
        },
    ),
    (
        "aga",
        Rules {
            variant: Variant::Go,
            ko: KoRule::SituationalSuperko,
            suicide: SuicideRule::Forbidden,
            scoring: Scoring::Area,
            komi: 7.5,
        },
    ),
    (
        "japanese",
        Rules {
            variant: Variant::Go,
            ko: KoRule::Simple,
            suicide: SuicideRule::Forbidden,
            scoring: Scoring::Territory,
            komi: 6.5,
        },
    ),
    (
        "new-zealand",
        Rules {
            variant: Variant::Go,
            ko: KoRule::SituationalSuperko,
            suicide: SuicideRule::MultiStoneAllowed,
            scoring: Scoring::Area,
            komi: 7.0,
        },
    ),
    (
        "nogo",
        // Ko, suicide and scoring are irrelevant under NoGo (see `Variant`);
        // simple ko keeps the game from keeping a superko record it never
        // needs, and komi 0 because nothing is counted.
        Rules {
            variant: Variant::NoGo,
            ko: KoRule::Simple,
            suicide: SuicideRule::Forbidden,
            scoring: Scoring::Area,
            komi: 0.0,
        },
    ),
];

/// Why a rules text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesError(pub String);

impl fmt::Display for RulesError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bad rules: {}", self.0)
    }
}

impl std::error::Error for RulesError {}

impl Rules {
    /// The preset of that name (see [`PRESETS`]); `_` and `-` are equivalent and
    /// case does not matter, so `new_zealand` and `Tromp-Taylor` work too.
    pub fn preset(name: &str) -> Option<Rules> {
        let wanted = name.trim().to_ascii_lowercase().replace('_', "-");
        let wanted = match wanted.as_str() {
            "nz" => "new-zealand",
            "tt" | "tromptaylor" => "tromp-taylor",
            "no-go" => "nogo",
            other => other,
        };
        PRESETS
            .iter()
            .find(|(preset, _)| *preset == wanted)
            .map(|(_, rules)| *rules)
    }

    /// Whether the game is NoGo rather than Go.
    #[inline]
    pub fn is_nogo(&self) -> bool {
        self.variant == Variant::NoGo
    }

    /// The same rules with another komi.
    pub fn with_komi(self, komi: f64) -> Rules {
        Rules { komi, ..self }
    }

    /// The preset's name if these rules are exactly one.
    pub fn preset_name(&self) -> Option<&'static str> {
        PRESETS
            .iter()
            .find(|(_, rules)| rules == self)
            .map(|(name, _)| *name)
    }
}

impl fmt::Display for KoRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KoRule::Simple => "simple",
            KoRule::PositionalSuperko => "positional",
            KoRule::SituationalSuperko => "situational",
        })
    }
}

impl fmt::Display for SuicideRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SuicideRule::Forbidden => "forbidden",
            SuicideRule::MultiStoneAllowed => "multi-stone",
            SuicideRule::AllAllowed => "allowed",
        })
    }
}

impl fmt::Display for Scoring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scoring::Area => "area",
            Scoring::Territory => "territory",
        })
    }
}

impl fmt::Display for Rules {
    /// A preset's name when the rules are one, otherwise the explicit form
    /// `ko=situational,suicide=forbidden,scoring=area,komi=7.5`, led by
    /// `variant=nogo,` for NoGo (Go, the default, is not written, so that Go
    /// rules print as they always have); both parse back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(name) = self.preset_name() {
            return f.write_str(name);
        }
        if self.variant != Variant::Go {
            write!(f, "variant={},", self.variant)?;
        }
        write!(
            f,
            "ko={},suicide={},scoring={},komi={}",
            self.ko, self.suicide, self.scoring, self.komi
        )
    }
}

impl FromStr for Rules {
    type Err = RulesError;

    /// Reads a preset name, optionally followed by overrides
    /// (`japanese,komi=0`), or the explicit `key=value` list; keys not given take
    /// the default rules' values.
    fn from_str(text: &str) -> Result<Rules, RulesError> {
        let mut parts = text.split(',').map(str::trim);
        let first = parts.next().unwrap_or("");
        let (mut rules, rest): (Rules, Vec<&str>) = match Rules::preset(first) {
            Some(rules) => (rules, parts.collect()),
            None if first.contains('=') => {
                (Rules::default(), text.split(',').map(str::trim).collect())
            }
            None => {
                let names: Vec<&str> = PRESETS.iter().map(|(n, _)| *n).collect();
                return Err(RulesError(format!(
                    "unknown rule set '{first}' (known: {})",
                    names.join(", ")
                )));
            }
        };
        for item in rest {
            let Some((key, value)) = item.split_once('=') else {
                return Err(RulesError(format!("expected key=value, found '{item}'")));
            };
            let (key, value) = (key.trim(), value.trim().to_ascii_lowercase());
            match key {
                "variant" | "game" => {
                    rules.variant = Variant::parse(&value)
                        .ok_or_else(|| RulesError(format!("unknown variant '{value}'")))?
                }
                "ko" => {
                    rules.ko = match value.as_str() {
                        "simple" => KoRule::Simple,
                        "positional" | "psk" => KoRule::PositionalSuperko,
                        "situational" | "ssk" => KoRule::SituationalSuperko,
                        _ => return Err(RulesError(format!("unknown ko rule '{value}'"))),
                    }
                }
                "suicide" => {
                    rules.suicide = match value.as_str() {
                        "forbidden" | "no" => SuicideRule::Forbidden,
                        "multi-stone" | "multi" => SuicideRule::MultiStoneAllowed,
                        "allowed" | "yes" | "all" => SuicideRule::AllAllowed,
                        _ => return Err(RulesError(format!("unknown suicide rule '{value}'"))),
                    }
                }
                "scoring" => {
                    rules.scoring = match value.as_str() {
                        "area" => Scoring::Area,
                        "territory" => Scoring::Territory,
                        _ => return Err(RulesError(format!("unknown scoring '{value}'"))),
                    }
                }
                "komi" => {
                    rules.komi = match value.parse::<f64>() {
                        Ok(komi) if komi.is_finite() && komi.abs() <= 1000.0 => komi,
                        _ => return Err(RulesError(format!("bad komi '{value}'"))),
                    }
                }
                _ => return Err(RulesError(format!("unknown key '{key}'"))),
            }
        }
        Ok(rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_round_trip() {
        for (name, rules) in PRESETS {
            assert_eq!(name.parse::<Rules>(), Ok(rules));
            assert_eq!(rules.to_string(), name);
        }
        assert_eq!(Rules::preset("new_zealand"), Rules::preset("new-zealand"));
        assert_eq!(
            Rules::preset("JAPANESE").map(|r| r.scoring),
            Some(Scoring::Territory)
        );
    }

    #[test]
    fn default_is_the_books() {
        let rules = Rules::default();
        assert_eq!(rules.ko, KoRule::SituationalSuperko);
        assert_eq!(rules.suicide, SuicideRule::Forbidden);
        assert_eq!(rules.scoring, Scoring::Area);
        assert_eq!(rules.komi, 7.5);
        // The book's rules happen to be exactly the AGA preset.
        assert_eq!(rules.to_string(), "aga");
        let explicit = "ko=situational,suicide=forbidden,scoring=area,komi=7.5";
        assert_eq!(explicit.parse::<Rules>(), Ok(rules));
        let custom = Rules { komi: 0.5, ..rules };
        assert_eq!(
            custom.to_string(),
            "ko=situational,suicide=forbidden,scoring=area,komi=0.5"
        );
        assert_eq!(custom.to_string().parse::<Rules>(), Ok(custom));
    }

    #[test]
    fn nogo_preset_and_explicit_form() {
        let nogo = Rules::preset("nogo").unwrap();
        assert!(nogo.is_nogo());
        assert_eq!(nogo.to_string(), "nogo");
        assert_eq!(Rules::preset("No_Go"), Some(nogo));
        assert!(!Rules::default().is_nogo());
        let with_komi: Rules = "nogo,komi=0.5".parse().unwrap();
        assert_eq!(
            with_komi.to_string(),
            "variant=nogo,ko=simple,suicide=forbidden,scoring=area,komi=0.5"
        );
        assert_eq!(with_komi.to_string().parse::<Rules>(), Ok(with_komi));
        // The variant alone, over the default rules' other keys.
        let explicit: Rules = "variant=nogo".parse().unwrap();
        assert_eq!(explicit.variant, Variant::NoGo);
        assert_eq!(explicit.ko, KoRule::SituationalSuperko);
        assert_eq!(explicit.to_string().parse::<Rules>(), Ok(explicit));
        // And back to Go from the preset.
        let go: Rules = "nogo,variant=go".parse().unwrap();
        assert_eq!(go.variant, Variant::Go);
        assert!(!go.to_string().contains("variant"), "{go}");
        assert!("variant=chess".parse::<Rules>().is_err());
        assert_eq!(Variant::parse(" NoGo "), Some(Variant::NoGo));
        assert_eq!(Variant::NoGo.to_string(), "nogo");
    }

    #[test]
    fn overrides_and_errors() {
        let rules: Rules = "japanese,komi=0".parse().unwrap();
        assert_eq!(rules.komi, 0.0);
        assert_eq!(rules.scoring, Scoring::Territory);
        assert_eq!(
            rules.to_string(),
            "ko=simple,suicide=forbidden,scoring=territory,komi=0"
        );
        assert_eq!(rules.to_string().parse::<Rules>(), Ok(rules));
        for bad in [
            "",
            "go",
            "ko=none",
            "komi=x",
            "komi=inf",
            "japanese,komi",
            "aga,color=red",
        ] {
            assert!(bad.parse::<Rules>().is_err(), "{bad}");
        }
    }
}
