//! A query's `rules`: KataGo's named rule sets and rule objects.

use super::*;

/// KataGo's handicap bonus rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum HandicapBonus {
    Zero,
    N,
    NMinusOne,
}

/// A query's rules, the handicap bonus they give, and what was noted on
/// the way.
pub(super) struct ParsedRules {
    pub(super) rules: Rules,
    pub(super) handicap_bonus: HandicapBonus,
    pub(super) notes: Vec<String>,
}

/// KataGo's rules by name or as an object, in tengen's terms.
pub(super) fn parse_rules(value: &Value) -> Result<ParsedRules, String> {
    let mut ko = KoRule::Simple;
    let mut scoring = Scoring::Area;
    let mut tax = "NONE".to_string();
    let mut suicide = false;
    let mut button = false;
    let mut bonus = HandicapBonus::Zero;
    match value {
        Value::String(name) => {
            // KataGo's names in any case and spelling: "tromp-taylor",
            // "Tromp Taylor", "TROMP_TAYLOR".
            let key: String = name
                .chars()
                .filter(|c| c.is_ascii_alphanumeric())
                .map(|c| c.to_ascii_lowercase())
                .collect();
            match key.as_str() {
                "tromptaylor" => {
                    ko = KoRule::PositionalSuperko;
                    suicide = true;
                }
                "chinese" => bonus = HandicapBonus::N,
                "chineseogs" | "chinesekgs" => {
                    ko = KoRule::PositionalSuperko;
                    bonus = HandicapBonus::N;
                }
                "japanese" | "korean" => {
                    scoring = Scoring::Territory;
                    tax = "SEKI".to_string();
                }
                "stonescoring" => tax = "ALL".to_string(),
                "aga" | "bga" | "french" => {
                    ko = KoRule::SituationalSuperko;
                    bonus = HandicapBonus::NMinusOne;
                }
                "agabutton" => {
                    ko = KoRule::SituationalSuperko;
                    bonus = HandicapBonus::NMinusOne;
                    button = true;
                }
                "newzealand" | "nz" => {
                    ko = KoRule::SituationalSuperko;
                    suicide = true;
                }
                _ => return Err(format!("unknown rules {name:?} (tromp-taylor, chinese, chinese-ogs, chinese-kgs, japanese, korean, stone-scoring, aga, bga, aga-button, new-zealand, or an object)")),
            }
        }
        Value::Object(object) => {
            for (key, v) in object {
                let text = || v.as_str().map(str::to_ascii_uppercase);
                match key.as_str() {
                    "ko" => {
                        ko = match text().as_deref() {
                            Some("SIMPLE") => KoRule::Simple,
                            Some("POSITIONAL") => KoRule::PositionalSuperko,
                            Some("SITUATIONAL") => KoRule::SituationalSuperko,
                            _ => {
                                return Err(
                                    "ko must be SIMPLE, POSITIONAL or SITUATIONAL".to_string()
                                )
                            }
                        }
                    }
                    "scoring" => {
                        scoring = match text().as_deref() {
                            Some("AREA") => Scoring::Area,
                            Some("TERRITORY") => Scoring::Territory,
                            _ => return Err("scoring must be AREA or TERRITORY".to_string()),
                        }
                    }
                    "tax" => {
                        tax = match text().as_deref() {
                            Some(t @ ("NONE" | "SEKI" | "ALL")) => t.to_string(),
                            _ => return Err("tax must be NONE, SEKI or ALL".to_string()),
                        }
                    }
                    "suicide" => suicide = v.as_bool().ok_or("suicide must be a boolean")?,
                    "hasButton" => button = v.as_bool().ok_or("hasButton must be a boolean")?,
                    "friendlyPassOk" => {
                        v.as_bool().ok_or("friendlyPassOk must be a boolean")?;
                    }
                    "whiteHandicapBonus" => {
                        bonus = match v.as_str() {
                            Some("0") => HandicapBonus::Zero,
                            Some("N") => HandicapBonus::N,
                            Some("N-1") => HandicapBonus::NMinusOne,
                            _ => {
                                return Err("whiteHandicapBonus must be \"0\", \"N\" or \"N-1\""
                                    .to_string())
                            }
                        }
                    }
                    other => return Err(format!("unknown rules field {other:?}")),
                }
            }
        }
        _ => return Err("must be a rules name or object".to_string()),
    }
    let mut notes = Vec::new();
    if tax != "NONE" {
        notes.push(format!(
            "tax {tax} is not supported: the count and the network's inputs use tax NONE (eyes in seki count as territory)"
        ));
    }
    if button {
        notes.push("a button is not supported: the game is counted without one".to_string());
    }
    let rules = Rules {
        variant: Variant::Go,
        ko,
        suicide: if suicide {
            SuicideRule::MultiStoneAllowed
        } else {
            SuicideRule::Forbidden
        },
        scoring,
        komi: if scoring == Scoring::Territory {
            6.5
        } else {
            7.5
        },
    };
    Ok(ParsedRules {
        rules,
        handicap_bonus: bonus,
        notes,
    })
}
