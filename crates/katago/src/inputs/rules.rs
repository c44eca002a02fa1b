//! KataGo's rules as its network sees them, and how tengen's [`Rules`] map
//! onto them.

pub use tengen_core::{HandicapBonus, Tax};
use tengen_core::{KoRule, Rules, Scoring, SuicideRule};

use super::InputError;

/// KataGo's ko rules (the Spight rule has no tengen counterpart).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KataKo {
    /// Only the immediate single-stone ko recapture is banned.
    Simple,
    /// Positional superko.
    Positional,
    /// Situational superko.
    Situational,
}

/// KataGo's rules as the network sees them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KataRules {
    /// Repetition rule.
    pub ko: KataKo,
    /// Whether a move may kill its own chain of two or more stones.
    pub multi_stone_suicide: bool,
    /// Territory rather than area scoring.
    pub territory_scoring: bool,
    /// Group tax.
    pub tax: Tax,
    /// Whether the rules have a pass button (AGA-button style).
    pub has_button: bool,
    /// White's compensation for handicap stones.
    pub white_handicap_bonus: HandicapBonus,
    /// Whether passing after the opponent passed is "friendly" under area
    /// scoring (dead stones are removed by agreement, so the game is not
    /// lost by passing early); the network then sees no history when a pass
    /// would end the game.
    pub friendly_pass_ok: bool,
    /// Komi, for White.
    pub komi: f32,
}

impl KataRules {
    /// KataGo's `chinese` rules: area scoring, simple ko, no suicide, no
    /// tax, no button, handicap bonus N, friendly passes, komi 7.5.
    pub const CHINESE: KataRules = KataRules {
        ko: KataKo::Simple,
        multi_stone_suicide: false,
        territory_scoring: false,
        tax: Tax::None,
        has_button: false,
        white_handicap_bonus: HandicapBonus::N,
        friendly_pass_ok: true,
        komi: 7.5,
    };

    /// KataGo's rules for tengen's `rules`, one for one:
    ///
    /// - ko: simple, positional and situational map one to one;
    /// - suicide: forbidden is KataGo's "no multi-stone suicide";
    ///   multi-stone and all suicide both map to multi-stone suicide legal
    ///   (KataGo never allows a lone stone's suicide; the inputs do not
    ///   depend on it);
    /// - scoring, tax, button, handicap bonus, friendly passes and komi as
    ///   they are.
    ///
    /// NoGo has no KataGo counterpart and is refused.
    pub fn from_rules(rules: &Rules) -> Result<KataRules, InputError> {
        if rules.is_nogo() {
            return Err(InputError::NoGo);
        }
        if !rules.komi.is_finite() {
            return Err(InputError::BadKomi(rules.komi));
        }
        let ko = match rules.ko {
            KoRule::Simple => KataKo::Simple,
            KoRule::PositionalSuperko => KataKo::Positional,
            KoRule::SituationalSuperko => KataKo::Situational,
        };
        Ok(KataRules {
            ko,
            multi_stone_suicide: rules.suicide != SuicideRule::Forbidden,
            territory_scoring: rules.scoring == Scoring::Territory,
            tax: rules.tax,
            has_button: rules.button,
            white_handicap_bonus: rules.handicap_bonus,
            friendly_pass_ok: rules.friendly_pass_ok,
            komi: rules.komi as f32,
        })
    }

    /// The same rules with another handicap bonus (KataGo's `chinese` gives
    /// N, `aga` N - 1).
    pub fn with_handicap_bonus(self, white_handicap_bonus: HandicapBonus) -> KataRules {
        KataRules {
            white_handicap_bonus,
            ..self
        }
    }
}
