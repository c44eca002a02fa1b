//! A query's `rules`: KataGo's named rule sets and rule objects, read into
//! tengen's [`Rules`], which carry every one of KataGo's rules.

use super::*;
use tengen_core::{HandicapBonus, Tax};

/// KataGo's rules by name or as an object. A name is one of KataGo's
/// presets in any of its spellings ([`Rules::preset`]); an object starts
/// from KataGo's defaults for objects (Tromp-Taylor: positional superko,
/// area scoring, multi-stone suicide, no friendly passes), takes a tax from
/// its scoring unless one is given, and komi 6.5 under territory scoring or
/// 7 with a button. A rule tengen cannot play is refused with the reason.
pub(super) fn parse_rules(value: &Value) -> Result<Rules, String> {
    match value {
        Value::String(name) => {
            let rules = Rules::preset(name).filter(|r| !r.is_nogo()).ok_or_else(|| {
                format!("unknown rules {name:?} (tromp-taylor, chinese, chinese-ogs, chinese-kgs, japanese, korean, stone-scoring, aga, bga, aga-button, new-zealand, or an object)")
            })?;
            Ok(rules)
        }
        Value::Object(object) => {
            let mut rules = Rules {
                suicide: SuicideRule::MultiStoneAllowed,
                friendly_pass_ok: false,
                handicap_bonus: HandicapBonus::Zero,
                ..Rules::preset("tromp-taylor").expect("a preset")
            };
            let mut tax = None;
            for (key, v) in object {
                let text = || v.as_str().map(str::to_ascii_uppercase);
                match key.as_str() {
                    "ko" => {
                        rules.ko = match text().as_deref() {
                            Some("SIMPLE") => KoRule::Simple,
                            Some("POSITIONAL") => KoRule::PositionalSuperko,
                            Some("SITUATIONAL") => KoRule::SituationalSuperko,
                            Some("SPIGHT") => {
                                return Err("ko SPIGHT is not a rule tengen plays (SIMPLE, POSITIONAL or SITUATIONAL)".to_string())
                            }
                            _ => {
                                return Err(
                                    "ko must be SIMPLE, POSITIONAL or SITUATIONAL".to_string()
                                )
                            }
                        }
                    }
                    "scoring" | "score" => {
                        rules.scoring = match text().as_deref() {
                            Some("AREA") => Scoring::Area,
                            Some("TERRITORY") => Scoring::Territory,
                            _ => return Err("scoring must be AREA or TERRITORY".to_string()),
                        }
                    }
                    "tax" => {
                        tax = Some(match text().as_deref() {
                            Some("NONE") => Tax::None,
                            Some("SEKI") => Tax::Seki,
                            Some("ALL") => Tax::All,
                            _ => return Err("tax must be NONE, SEKI or ALL".to_string()),
                        })
                    }
                    "suicide" => {
                        rules.suicide = if v.as_bool().ok_or("suicide must be a boolean")? {
                            SuicideRule::MultiStoneAllowed
                        } else {
                            SuicideRule::Forbidden
                        }
                    }
                    "hasButton" => {
                        rules.button = v.as_bool().ok_or("hasButton must be a boolean")?
                    }
                    "friendlyPassOk" => {
                        rules.friendly_pass_ok =
                            v.as_bool().ok_or("friendlyPassOk must be a boolean")?
                    }
                    "whiteHandicapBonus" => {
                        rules.handicap_bonus = parse_handicap_bonus(v).ok_or(
                            "whiteHandicapBonus must be \"0\", \"N\" or \"N-1\"".to_string(),
                        )?
                    }
                    other => return Err(format!("unknown rules field {other:?}")),
                }
            }
            rules.tax = tax.unwrap_or(match rules.scoring {
                Scoring::Territory => Tax::Seki,
                Scoring::Area => Tax::None,
            });
            rules.komi = if rules.scoring == Scoring::Territory {
                6.5
            } else if rules.button {
                7.0
            } else {
                7.5
            };
            Ok(rules)
        }
        _ => Err("must be a rules name or object".to_string()),
    }
}

/// KataGo's `"0"`, `"N"`, `"N-1"`.
pub(super) fn parse_handicap_bonus(value: &Value) -> Option<HandicapBonus> {
    match value.as_str()? {
        "0" => Some(HandicapBonus::Zero),
        "N" => Some(HandicapBonus::N),
        "N-1" => Some(HandicapBonus::NMinusOne),
        _ => None,
    }
}
