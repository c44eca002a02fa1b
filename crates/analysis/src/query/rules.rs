//! A query's `rules`: KataGo's named rule sets and rule objects, read by
//! the rules core ([`Rules::from_katago`]) into tengen's [`Rules`], which
//! carry every one of KataGo's rules.

use super::*;
use tengen_core::HandicapBonus;

/// KataGo's rules by name or as an object; a rule tengen cannot play is
/// refused with the reason.
pub(super) fn parse_rules(value: &Value) -> Result<Rules, String> {
    let text = match value {
        Value::String(name) => name.clone(),
        Value::Object(_) => value.to_string(),
        _ => return Err("must be a rules name or object".to_string()),
    };
    Rules::from_katago(&text).map_err(|e| e.0)
}

/// KataGo's `"0"`, `"N"`, `"N-1"`.
pub(super) fn parse_handicap_bonus(value: &Value) -> Option<HandicapBonus> {
    value.as_str().and_then(HandicapBonus::from_katago)
}
