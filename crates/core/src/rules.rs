//! Rules as a value: ko, suicide, scoring and komi, with named presets.

use std::fmt;
use std::str::FromStr;

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
pub const PRESETS: [(&str, Rules); 5] = [
    (
        "tromp-taylor",
        Rules {
            ko: KoRule::PositionalSuperko,
            suicide: SuicideRule::AllAllowed,
            scoring: Scoring::Area,
            komi: 7.5,
        },
    ),
    (
        "chinese",
        Rules {
            ko: KoRule::PositionalSuperko,
            suicide: SuicideRule::Forbidden,
            scoring: Scoring::Area,
            komi: 7.5,
        },
    ),
    (
        "aga",
        Rules {
            ko: KoRule::SituationalSuperko,
            suicide: SuicideRule::Forbidden,
            scoring: Scoring::Area,
            komi: 7.5,
        },
    ),
    (
        "japanese",
        Rules {
            ko: KoRule::Simple,
            suicide: SuicideRule::Forbidden,
            scoring: Scoring::Territory,
            komi: 6.5,
        },
    ),
    (
        "new-zealand",
        Rules {
            ko: KoRule::SituationalSuperko,
            suicide: SuicideRule::MultiStoneAllowed,
            scoring: Scoring::Area,
            komi: 7.0,
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
            other => other,
        };
        PRESETS
            .iter()
            .find(|(preset, _)| *preset == wanted)
            .map(|(_, rules)| *rules)
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
    /// `ko=situational,suicide=forbidden,scoring=area,komi=7.5`; both parse back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.preset_name() {
            Some(name) => f.write_str(name),
            None => write!(
                f,
                "ko={},suicide={},scoring={},komi={}",
                self.ko, self.suicide, self.scoring, self.komi
            ),
        }
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
