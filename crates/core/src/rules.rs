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

/// What a living group pays for its life (KataGo's "tax").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tax {
    /// Nothing: every point a side surrounds counts, eyes in seki included.
    None,
    /// Eyes of groups in seki are not counted (Japanese and Korean rules).
    Seki,
    /// Seki eyes are not counted, and each group living on its own gives
    /// up two points (stone scoring: only the stones count, in effect).
    All,
}

/// Points White receives for Black's handicap stones.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandicapBonus {
    /// None.
    Zero,
    /// One per handicap stone (Chinese counting).
    N,
    /// One per handicap stone after the first (AGA, where the first
    /// stone stands for the komi not given).
    NMinusOne,
}

/// A complete rule set: the game, ko, suicide, how the end is counted, and
/// komi, with the details of KataGo's rules (tax, button, handicap bonus,
/// friendly passes) so that every rule set KataGo's clients name means the
/// same here.
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
    /// What living groups pay: seki eyes, or two points a group.
    pub tax: Tax,
    /// The AGA button: the first side to pass receives half a point, and
    /// that pass does not count towards the two that end the game.
    pub button: bool,
    /// Points White receives for Black's handicap stones, added to the
    /// count.
    pub handicap_bonus: HandicapBonus,
    /// Whether a side may pass with dead stones still on the board and
    /// expect them to be removed by agreement (area scoring as people play
    /// it); without, a game ended by passes is counted as the board stands
    /// (Tromp-Taylor). Programs trained on KataGo's rules read it; the
    /// count here takes dead stones as given either way.
    pub friendly_pass_ok: bool,
    /// Points given to White.
    pub komi: f64,
}

impl Default for Rules {
    /// The book's rules: situational superko, suicide forbidden, area
    /// scoring, komi 7.5 — the AGA preset.
    fn default() -> Rules {
        AGA
    }
}

/// KataGo's `aga`: the book's rules.
const AGA: Rules = Rules {
    variant: Variant::Go,
    ko: KoRule::SituationalSuperko,
    suicide: SuicideRule::Forbidden,
    scoring: Scoring::Area,
    tax: Tax::None,
    button: false,
    handicap_bonus: HandicapBonus::NMinusOne,
    friendly_pass_ok: true,
    komi: 7.5,
};

/// KataGo's `japanese`.
const JAPANESE: Rules = Rules {
    variant: Variant::Go,
    ko: KoRule::Simple,
    suicide: SuicideRule::Forbidden,
    scoring: Scoring::Territory,
    tax: Tax::Seki,
    button: false,
    handicap_bonus: HandicapBonus::Zero,
    friendly_pass_ok: false,
    komi: 6.5,
};

/// KataGo's `chinese-ogs`.
const CHINESE_OGS: Rules = Rules {
    ko: KoRule::PositionalSuperko,
    ..CHINESE
};

/// KataGo's `chinese`.
const CHINESE: Rules = Rules {
    variant: Variant::Go,
    ko: KoRule::Simple,
    suicide: SuicideRule::Forbidden,
    scoring: Scoring::Area,
    tax: Tax::None,
    button: false,
    handicap_bonus: HandicapBonus::N,
    friendly_pass_ok: true,
    komi: 7.5,
};

/// The named rule sets: KataGo's, with the meaning KataGo gives them, and
/// NoGo. Where two names mean the same rules the first is the one printed.
///
/// | name | ko | suicide | scoring | tax | button | handicap bonus | friendly pass | komi |
/// |---|---|---|---|---|---|---|---|---|
/// | `tromp-taylor` | positional | allowed | area | none | no | 0 | no | 7.5 |
/// | `chinese` | simple | forbidden | area | none | no | N | yes | 7.5 |
/// | `chinese-ogs`, `chinese-kgs` | positional | forbidden | area | none | no | N | yes | 7.5 |
/// | `japanese`, `korean` | simple | forbidden | territory | seki | no | 0 | no | 6.5 |
/// | `stone-scoring` | simple | forbidden | area | all | no | 0 | yes | 7.5 |
/// | `aga`, `bga`, `french` | situational | forbidden | area | none | no | N−1 | yes | 7.5 |
/// | `aga-button` | situational | forbidden | area | none | yes | N−1 | yes | 7 |
/// | `new-zealand` | situational | multi-stone | area | none | no | 0 | yes | 7 |
/// | `nogo` | NoGo: no captures, no suicide, no passes; who cannot move loses | | | | | | | 0 |
///
/// KataGo never allows a lone stone's suicide; tengen's `tromp-taylor`
/// allows it as Tromp and Taylor wrote it (the move changes nothing but
/// whose turn it is), and KataGo's networks see the two the same.
pub const PRESETS: [(&str, Rules); 15] = [
    (
        "tromp-taylor",
        Rules {
            variant: Variant::Go,
            ko: KoRule::PositionalSuperko,
            suicide: SuicideRule::AllAllowed,
            scoring: Scoring::Area,
            tax: Tax::None,
            button: false,
            handicap_bonus: HandicapBonus::Zero,
            friendly_pass_ok: false,
            komi: 7.5,
        },
    ),
    ("chinese", CHINESE),
    ("chinese-ogs", CHINESE_OGS),
    ("chinese-kgs", CHINESE_OGS),
    ("japanese", JAPANESE),
    ("korean", JAPANESE),
    (
        "stone-scoring",
        Rules {
            tax: Tax::All,
            handicap_bonus: HandicapBonus::Zero,
            ..CHINESE
        },
    ),
    ("aga", AGA),
    ("bga", AGA),
    ("french", AGA),
    (
        "aga-button",
        Rules {
            button: true,
            komi: 7.0,
            ..AGA
        },
    ),
    (
        "new-zealand",
        Rules {
            variant: Variant::Go,
            ko: KoRule::SituationalSuperko,
            suicide: SuicideRule::MultiStoneAllowed,
            scoring: Scoring::Area,
            tax: Tax::None,
            button: false,
            handicap_bonus: HandicapBonus::Zero,
            friendly_pass_ok: true,
            komi: 7.0,
        },
    ),
    (
        "nogo",
        // Ko, suicide and scoring are irrelevant under NoGo (see `Variant`);
        // simple ko keeps the game from keeping a superko record it never
        // needs, and komi 0 because nothing is counted; the KataGo details
        // are the default rules', so that they are not written out.
        Rules {
            variant: Variant::NoGo,
            ko: KoRule::Simple,
            suicide: SuicideRule::Forbidden,
            scoring: Scoring::Area,
            tax: Tax::None,
            button: false,
            handicap_bonus: HandicapBonus::NMinusOne,
            friendly_pass_ok: true,
            komi: 0.0,
        },
    ),
    (
        "ancient-territory",
        Rules {
            tax: Tax::All,
            ..JAPANESE
        },
    ),
    (
        "goe",
        Rules {
            variant: Variant::Go,
            ko: KoRule::PositionalSuperko,
            suicide: SuicideRule::MultiStoneAllowed,
            scoring: Scoring::Area,
            tax: Tax::None,
            button: false,
            handicap_bonus: HandicapBonus::Zero,
            friendly_pass_ok: true,
            komi: 7.5,
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
    /// The preset of that name (see [`PRESETS`]), spelt as KataGo and its
    /// clients spell them: case, spaces, `_` and `-` do not matter, so
    /// `new_zealand`, `New Zealand` and `Tromp-Taylor` work, and so do
    /// KataGo's short forms (`nz`, `tt`, `ancient-area`, `ing`).
    pub fn preset(name: &str) -> Option<Rules> {
        let squash = |text: &str| -> String {
            text.chars()
                .filter(char::is_ascii_alphanumeric)
                .map(|c| c.to_ascii_lowercase())
                .collect()
        };
        let wanted = squash(name);
        let wanted = match wanted.as_str() {
            "nz" => "newzealand",
            "tt" => "tromptaylor",
            "ancientarea" => "stonescoring",
            "ing" => "goe",
            other => other,
        };
        PRESETS
            .iter()
            .find(|(preset, _)| squash(preset) == wanted)
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

impl fmt::Display for Tax {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tax::None => "none",
            Tax::Seki => "seki",
            Tax::All => "all",
        })
    }
}

impl HandicapBonus {
    /// KataGo's spelling: `"0"`, `"N"`, `"N-1"`.
    pub fn from_katago(text: &str) -> Option<HandicapBonus> {
        match text {
            "0" => Some(HandicapBonus::Zero),
            "N" => Some(HandicapBonus::N),
            "N-1" => Some(HandicapBonus::NMinusOne),
            _ => None,
        }
    }
}

impl fmt::Display for HandicapBonus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HandicapBonus::Zero => "0",
            HandicapBonus::N => "n",
            HandicapBonus::NMinusOne => "n-1",
        })
    }
}

impl fmt::Display for Rules {
    /// A preset's name when the rules are one, otherwise the explicit form
    /// `ko=situational,suicide=forbidden,scoring=area,komi=7.5`, led by
    /// `variant=nogo,` for NoGo and followed by the KataGo details that
    /// differ from the default rules' (`tax=seki`, `button=yes`,
    /// `handicap-bonus=0`, `friendly-pass=no`); both parse back.
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
        )?;
        let default = Rules::default();
        // Written under territory scoring even when none: a scoring read
        // without a tax brings its usual one.
        if self.tax != default.tax || self.scoring == Scoring::Territory {
            write!(f, ",tax={}", self.tax)?;
        }
        if self.button != default.button {
            write!(f, ",button={}", yes_no(self.button))?;
        }
        if self.handicap_bonus != default.handicap_bonus {
            write!(f, ",handicap-bonus={}", self.handicap_bonus)?;
        }
        if self.friendly_pass_ok != default.friendly_pass_ok {
            write!(f, ",friendly-pass={}", yes_no(self.friendly_pass_ok))?;
        }
        Ok(())
    }
}

fn yes_no(flag: bool) -> &'static str {
    if flag {
        "yes"
    } else {
        "no"
    }
}

/// A yes/no value as people and KataGo write them.
fn parse_flag(key: &str, value: &str) -> Result<bool, RulesError> {
    match value {
        "yes" | "true" | "on" | "1" => Ok(true),
        "no" | "false" | "off" | "0" => Ok(false),
        _ => Err(RulesError(format!(
            "{key} must be yes or no, found '{value}'"
        ))),
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
        let mut tax_given = false;
        let mut scoring_given = false;
        for item in rest {
            let Some((key, value)) = item.split_once('=') else {
                return Err(RulesError(format!("expected key=value, found '{item}'")));
            };
            let (key, value) = (
                key.trim().to_ascii_lowercase().replace('_', "-"),
                value.trim().to_ascii_lowercase(),
            );
            match key.as_str() {
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
                    scoring_given = true;
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
                "tax" => {
                    tax_given = true;
                    rules.tax = match value.as_str() {
                        "none" => Tax::None,
                        "seki" => Tax::Seki,
                        "all" => Tax::All,
                        _ => {
                            return Err(RulesError(format!(
                                "unknown tax '{value}' (none, seki, all)"
                            )))
                        }
                    }
                }
                "button" | "hasbutton" => rules.button = parse_flag("button", &value)?,
                "handicap-bonus" | "whitehandicapbonus" => {
                    rules.handicap_bonus = match value.as_str() {
                        "0" | "zero" => HandicapBonus::Zero,
                        "n" => HandicapBonus::N,
                        "n-1" => HandicapBonus::NMinusOne,
                        _ => {
                            return Err(RulesError(format!(
                                "unknown handicap bonus '{value}' (0, n, n-1)"
                            )))
                        }
                    }
                }
                "friendly-pass" | "friendlypassok" => {
                    rules.friendly_pass_ok = parse_flag("friendly-pass", &value)?
                }
                _ => return Err(RulesError(format!("unknown key '{key}'"))),
            }
        }
        // As KataGo: a scoring given without a tax brings its usual tax
        // (seki under territory scoring, none under area scoring).
        if scoring_given && !tax_given {
            rules.tax = match rules.scoring {
                Scoring::Territory => Tax::Seki,
                Scoring::Area => Tax::None,
            };
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
            // Names that mean the same rules print as the first of them.
            let first = PRESETS.iter().find(|(_, r)| *r == rules).unwrap().0;
            assert_eq!(rules.to_string(), first);
        }
        assert_eq!(Rules::preset("korean"), Rules::preset("japanese"));
        assert_eq!(Rules::preset("korean").unwrap().to_string(), "japanese");
        assert_eq!(Rules::preset("chinese_kgs"), Rules::preset("chinese-ogs"));
        for (spelling, name) in [
            ("Tromp Taylor", "tromp-taylor"),
            ("TROMP_TAYLOR", "tromp-taylor"),
            ("tt", "tromp-taylor"),
            ("New Zealand", "new-zealand"),
            ("nz", "new-zealand"),
            ("stonescoring", "stone-scoring"),
            ("ancient area", "stone-scoring"),
            ("AGA Button", "aga-button"),
            ("ChineseOGS", "chinese-ogs"),
            ("No-Go", "nogo"),
        ] {
            assert_eq!(Rules::preset(spelling), Rules::preset(name), "{spelling}");
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
    fn katago_presets_mean_what_katago_means() {
        let japanese = Rules::preset("japanese").unwrap();
        assert_eq!(
            (japanese.ko, japanese.scoring, japanese.tax, japanese.komi),
            (KoRule::Simple, Scoring::Territory, Tax::Seki, 6.5)
        );
        assert!(!japanese.friendly_pass_ok);
        let chinese = Rules::preset("chinese").unwrap();
        assert_eq!(chinese.ko, KoRule::Simple);
        assert_eq!(chinese.handicap_bonus, HandicapBonus::N);
        let button = Rules::preset("aga-button").unwrap();
        assert!(button.button);
        assert_eq!(
            (button.komi, button.handicap_bonus),
            (7.0, HandicapBonus::NMinusOne)
        );
        assert_eq!(Rules::preset("stone-scoring").unwrap().tax, Tax::All);
        assert!(!Rules::preset("tromp-taylor").unwrap().friendly_pass_ok);
    }

    #[test]
    fn katago_details_as_keys() {
        let rules: Rules = "chinese,tax=seki,button=yes,handicap-bonus=0,friendly-pass=no"
            .parse()
            .unwrap();
        assert_eq!(
            (
                rules.tax,
                rules.button,
                rules.handicap_bonus,
                rules.friendly_pass_ok
            ),
            (Tax::Seki, true, HandicapBonus::Zero, false)
        );
        assert_eq!(rules.to_string().parse::<Rules>(), Ok(rules));
        // KataGo's own key names.
        let katago: Rules = "aga,hasButton=true,whiteHandicapBonus=N,friendlyPassOk=false"
            .parse()
            .unwrap();
        assert!(katago.button && !katago.friendly_pass_ok);
        assert_eq!(katago.handicap_bonus, HandicapBonus::N);
        // A scoring without a tax brings its usual tax, as in KataGo.
        let territory: Rules = "chinese,scoring=territory".parse().unwrap();
        assert_eq!(territory.tax, Tax::Seki);
        let untaxed: Rules = "chinese,scoring=territory,tax=none".parse().unwrap();
        assert_eq!(untaxed.tax, Tax::None);
        assert_eq!(untaxed.to_string().parse::<Rules>(), Ok(untaxed));
        for bad in ["aga,tax=some", "aga,button=maybe", "aga,handicap-bonus=2"] {
            assert!(bad.parse::<Rules>().is_err(), "{bad}");
        }
    }

    #[test]
    fn overrides_and_errors() {
        let rules: Rules = "japanese,komi=0".parse().unwrap();
        assert_eq!(rules.komi, 0.0);
        assert_eq!(rules.scoring, Scoring::Territory);
        assert_eq!(
            rules.to_string(),
            "ko=simple,suicide=forbidden,scoring=territory,komi=0,tax=seki,handicap-bonus=0,friendly-pass=no"
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
