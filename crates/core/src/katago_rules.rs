//! Rules as KataGo's programs and their clients write them: a rule set's
//! name (`japanese`, `Tromp Taylor`, `chinese_ogs`, ...) or a rules object
//! in JSON (`{"ko":"SIMPLE","scoring":"TERRITORY","tax":"SEKI",...}`), read
//! into [`Rules`]; and the JSON KataGo's `kata-get-rules` answers.
//!
//! One reader serves GTP's `kata-set-rules` and the analysis engine's
//! `rules` field. The JSON is KataGo's flat object of strings and booleans,
//! read here without a JSON library (the rules core has no dependencies).

use crate::rules::{HandicapBonus, KoRule, Rules, RulesError, Scoring, SuicideRule, Tax};

/// The names [`Rules::from_katago`] takes, for messages.
pub const KATAGO_NAMES: &str = "tromp-taylor, chinese, chinese-ogs, chinese-kgs, japanese, \
    korean, stone-scoring, aga, bga, aga-button, new-zealand";

impl Rules {
    /// Rules from KataGo's text: one of its rule set names in any of its
    /// spellings ([`Rules::preset`]; NoGo is not KataGo's), or a rules
    /// object. An object starts from KataGo's defaults for objects
    /// (positional superko, area scoring, multi-stone suicide, no button,
    /// no handicap bonus, no friendly passes), takes the tax its scoring
    /// usually has unless one is given, and komi 6.5 under territory
    /// scoring, 7 with a button, else 7.5 (komi is given apart). A rule
    /// tengen cannot play (the Spight ko rule) is refused with the reason.
    pub fn from_katago(text: &str) -> Result<Rules, RulesError> {
        let text = text.trim();
        if !text.starts_with('{') {
            return Rules::preset(text)
                .filter(|rules| !rules.is_nogo())
                .ok_or_else(|| {
                    RulesError(format!(
                        "unknown rules '{text}' ({KATAGO_NAMES}, or an object)"
                    ))
                });
        }
        let fields = flat_object(text)?;
        let mut rules = Rules {
            ko: KoRule::PositionalSuperko,
            scoring: Scoring::Area,
            suicide: SuicideRule::MultiStoneAllowed,
            button: false,
            handicap_bonus: HandicapBonus::Zero,
            friendly_pass_ok: false,
            ..Rules::default()
        };
        let mut tax = None;
        for (key, value) in fields {
            let word = || match &value {
                Json::Text(text) => Ok(text.to_ascii_uppercase()),
                Json::Flag(_) => Err(RulesError(format!("{key} must be a string"))),
            };
            let flag = || match value {
                Json::Flag(flag) => Ok(flag),
                Json::Text(_) => Err(RulesError(format!("{key} must be true or false"))),
            };
            match key.as_str() {
                "ko" => rules.ko = match word()?.as_str() {
                    "SIMPLE" => KoRule::Simple,
                    "POSITIONAL" => KoRule::PositionalSuperko,
                    "SITUATIONAL" => KoRule::SituationalSuperko,
                    "SPIGHT" => return Err(RulesError(
                        "ko SPIGHT is not a rule tengen plays (SIMPLE, POSITIONAL or SITUATIONAL)"
                            .to_string(),
                    )),
                    _ => {
                        return Err(RulesError(
                            "ko must be SIMPLE, POSITIONAL or SITUATIONAL".to_string(),
                        ))
                    }
                },
                "scoring" | "score" => {
                    rules.scoring = match word()?.as_str() {
                        "AREA" => Scoring::Area,
                        "TERRITORY" => Scoring::Territory,
                        _ => {
                            return Err(RulesError("scoring must be AREA or TERRITORY".to_string()))
                        }
                    }
                }
                "tax" => {
                    tax = Some(match word()?.as_str() {
                        "NONE" => Tax::None,
                        "SEKI" => Tax::Seki,
                        "ALL" => Tax::All,
                        _ => return Err(RulesError("tax must be NONE, SEKI or ALL".to_string())),
                    })
                }
                "suicide" => {
                    rules.suicide = if flag()? {
                        SuicideRule::MultiStoneAllowed
                    } else {
                        SuicideRule::Forbidden
                    }
                }
                "hasButton" => rules.button = flag()?,
                "friendlyPassOk" => rules.friendly_pass_ok = flag()?,
                "whiteHandicapBonus" => {
                    rules.handicap_bonus =
                        HandicapBonus::from_katago(&word()?).ok_or_else(|| {
                            RulesError(
                                "whiteHandicapBonus must be \"0\", \"N\" or \"N-1\"".to_string(),
                            )
                        })?
                }
                "komi" => {
                    return Err(RulesError(
                        "komi is not part of the rules here: give it apart".to_string(),
                    ))
                }
                other => return Err(RulesError(format!("unknown rules field \"{other}\""))),
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

    /// The rules as KataGo's `kata-get-rules` writes them, without komi:
    /// `{"friendlyPassOk":false,"hasButton":false,"ko":"SIMPLE",...}`.
    /// A lone stone's suicide, which KataGo never allows, is written as
    /// multi-stone suicide. NoGo has no KataGo form.
    pub fn to_katago_json(&self) -> Result<String, RulesError> {
        if self.is_nogo() {
            return Err(RulesError("NoGo has no KataGo rules".to_string()));
        }
        let ko = match self.ko {
            KoRule::Simple => "SIMPLE",
            KoRule::PositionalSuperko => "POSITIONAL",
            KoRule::SituationalSuperko => "SITUATIONAL",
        };
        let scoring = match self.scoring {
            Scoring::Area => "AREA",
            Scoring::Territory => "TERRITORY",
        };
        let tax = match self.tax {
            Tax::None => "NONE",
            Tax::Seki => "SEKI",
            Tax::All => "ALL",
        };
        let bonus = match self.handicap_bonus {
            HandicapBonus::Zero => "0",
            HandicapBonus::N => "N",
            HandicapBonus::NMinusOne => "N-1",
        };
        Ok(format!(
            "{{\"friendlyPassOk\":{},\"hasButton\":{},\"ko\":\"{ko}\",\"scoring\":\"{scoring}\",\
             \"suicide\":{},\"tax\":\"{tax}\",\"whiteHandicapBonus\":\"{bonus}\"}}",
            self.friendly_pass_ok,
            self.button,
            self.suicide != SuicideRule::Forbidden,
        ))
    }
}

/// A value of a flat rules object.
enum Json {
    Text(String),
    Flag(bool),
}

/// The fields of a flat JSON object whose values are strings or booleans
/// (numbers are read as text, for a clear message about them).
fn flat_object(text: &str) -> Result<Vec<(String, Json)>, RulesError> {
    let bad = |what: &str| RulesError(format!("bad rules object: {what}"));
    let mut chars = text.chars().peekable();
    let skip_space = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
    };
    let string =
        |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| -> Result<String, RulesError> {
            let mut out = String::new();
            loop {
                match chars.next() {
                    Some('"') => return Ok(out),
                    Some('\\') => match chars.next() {
                        Some(c @ ('"' | '\\' | '/')) => out.push(c),
                        _ => return Err(bad("an escape other than \\\", \\\\ or \\/")),
                    },
                    Some(c) => out.push(c),
                    None => return Err(bad("a string without its closing quote")),
                }
            }
        };
    let mut fields = Vec::new();
    skip_space(&mut chars);
    if chars.next() != Some('{') {
        return Err(bad("expected '{'"));
    }
    skip_space(&mut chars);
    if chars.peek() == Some(&'}') {
        chars.next();
    } else {
        loop {
            skip_space(&mut chars);
            if chars.next() != Some('"') {
                return Err(bad("expected a field name in quotes"));
            }
            let key = string(&mut chars)?;
            skip_space(&mut chars);
            if chars.next() != Some(':') {
                return Err(bad("expected ':' after a field name"));
            }
            skip_space(&mut chars);
            let value = match chars.peek() {
                Some('"') => {
                    chars.next();
                    Json::Text(string(&mut chars)?)
                }
                Some(c) if c.is_ascii_alphanumeric() || *c == '-' || *c == '.' => {
                    let mut word = String::new();
                    while let Some(&c) = chars.peek() {
                        if c.is_ascii_alphanumeric() || c == '-' || c == '.' || c == '+' {
                            word.push(c);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    match word.as_str() {
                        "true" => Json::Flag(true),
                        "false" => Json::Flag(false),
                        _ => Json::Text(word),
                    }
                }
                _ => return Err(bad("a value must be a string, true or false")),
            };
            fields.push((key, value));
            skip_space(&mut chars);
            match chars.next() {
                Some(',') => continue,
                Some('}') => break,
                _ => return Err(bad("expected ',' or '}'")),
            }
        }
    }
    skip_space(&mut chars);
    if chars.next().is_some() {
        return Err(bad("text after the closing '}'"));
    }
    Ok(fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_objects() {
        assert_eq!(
            Rules::from_katago("Japanese"),
            Ok(Rules::preset("japanese").unwrap())
        );
        assert!(Rules::from_katago("nogo").is_err());
        assert!(Rules::from_katago("chess").is_err());
        let rules = Rules::from_katago(
            r#" { "ko" : "situational", "scoring":"AREA", "hasButton":true, "whiteHandicapBonus":"N-1", "friendlyPassOk": true, "suicide":false } "#,
        )
        .unwrap();
        assert_eq!(rules, Rules::preset("aga-button").unwrap());
        let empty = Rules::from_katago("{}").unwrap();
        assert_eq!(empty.ko, KoRule::PositionalSuperko);
        assert_eq!(empty.suicide, SuicideRule::MultiStoneAllowed);
        assert!(!empty.friendly_pass_ok);
        let territory = Rules::from_katago(r#"{"scoring":"TERRITORY"}"#).unwrap();
        assert_eq!((territory.tax, territory.komi), (Tax::Seki, 6.5));
    }

    #[test]
    fn refusals_say_why() {
        for (text, words) in [
            (r#"{"ko":"SPIGHT"}"#, "SPIGHT"),
            (r#"{"ko":"NONE"}"#, "ko must be"),
            (r#"{"tax":"SOME"}"#, "tax must be"),
            (r#"{"suicide":"yes"}"#, "true or false"),
            (r#"{"komi":7.5}"#, "komi"),
            (r#"{"colour":"red"}"#, "unknown rules field"),
            (r#"{"ko":"SIMPLE""#, "bad rules object"),
            (r#"{"ko":"SIMPLE"} x"#, "after the closing"),
            (r#"{"ko":["SIMPLE"]}"#, "a value must be"),
            (r#"{"ko":"SIMPLE}"#, "closing quote"),
        ] {
            let error = Rules::from_katago(text).unwrap_err();
            assert!(error.0.contains(words), "{text}: {error}");
        }
    }

    #[test]
    fn the_json_reads_back() {
        for (name, _) in crate::rules::PRESETS {
            let rules = Rules::preset(name).unwrap();
            let Ok(json) = rules.to_katago_json() else {
                assert!(rules.is_nogo());
                continue;
            };
            let back = Rules::from_katago(&json).unwrap().with_komi(rules.komi);
            // A lone stone's suicide has no KataGo form.
            let expected = Rules {
                suicide: match rules.suicide {
                    SuicideRule::AllAllowed => SuicideRule::MultiStoneAllowed,
                    other => other,
                },
                ..rules
            };
            assert_eq!(back, expected, "{name}: {json}");
        }
        assert_eq!(
            Rules::preset("japanese").unwrap().to_katago_json().unwrap(),
            r#"{"friendlyPassOk":false,"hasButton":false,"ko":"SIMPLE","scoring":"TERRITORY","suicide":false,"tax":"SEKI","whiteHandicapBonus":"0"}"#
        );
    }
}
