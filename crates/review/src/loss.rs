//! The one rule of what a move loses and what a mistake is, for every
//! review: `tengen review`'s records and the web page's (whose server
//! applies it; the page only draws what it gets).
//!
//! A move loses its position's value before it minus the value after it,
//! from the mover's point of view (KaTrain's and AI Sensei's measure): the
//! score lead in points, or, for bots that estimate no score, the win rate
//! in percentage points. A candidate move loses the position's value minus
//! the candidate's own, the same way round (KaTrain's `pointsLost`). A
//! move better than the engine expected loses less than zero. A mistake is
//! a rated move that lost at least [`MISTAKE_THRESHOLD`]; the two passes
//! that end a game are not rated.

use tengen_core::{Color, Move};

/// Moves that lose less than this (points, or percentage points of win
/// rate) are not listed as mistakes.
pub const MISTAKE_THRESHOLD: f64 = 0.5;

/// How many mistakes of each side a review lists.
pub const MISTAKES_LISTED: usize = 5;

/// What losses are counted in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LossUnit {
    /// Points of score lead.
    Points,
    /// Percentage points of win rate, for bots that estimate no score.
    Percent,
}

impl LossUnit {
    /// Points when every value known has a score lead, else percent.
    pub fn of<'a>(values: impl IntoIterator<Item = &'a Value>) -> LossUnit {
        let mut values = values.into_iter().peekable();
        if values.peek().is_some() && values.all(|v| v.score_lead.is_some()) {
            LossUnit::Points
        } else {
            LossUnit::Percent
        }
    }

    /// Its name on the wire: `points` or `percent`.
    pub fn name(self) -> &'static str {
        match self {
            LossUnit::Points => "points",
            LossUnit::Percent => "percent",
        }
    }
}

/// A position's or a candidate's value, from Black's point of view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Value {
    /// Black's win rate, 0 to 1.
    pub winrate: f64,
    /// Black's score lead, when the bot estimates one.
    pub score_lead: Option<f64>,
}

impl Value {
    /// The value in `unit` from `color`'s point of view; none in points
    /// without a score lead.
    pub fn seen_by(&self, color: Color, unit: LossUnit) -> Option<f64> {
        match unit {
            LossUnit::Points => self.score_lead.map(|lead| sign(color) * lead),
            LossUnit::Percent => Some(
                100.0
                    * match color {
                        Color::Black => self.winrate,
                        Color::White => 1.0 - self.winrate,
                    },
            ),
        }
    }
}

/// `1` for Black, `-1` for White: Black's view turned into `color`'s.
pub fn sign(color: Color) -> f64 {
    match color {
        Color::Black => 1.0,
        Color::White => -1.0,
    }
}

/// What `mover` loses going from `before` to `after`, in `unit`: a move
/// played (the positions before and after it) or a candidate (the
/// position and the candidate's value).
pub fn loss(before: &Value, after: &Value, mover: Color, unit: LossUnit) -> Option<f64> {
    Some(before.seen_by(mover, unit)? - after.seen_by(mover, unit)?)
}

/// How many of `moves` are rated: all but the two passes that end the
/// game. The search counts a game ended by passes as it stands (stones
/// left on the board are alive), where players take dead stones off by
/// agreement, so a pass that leaves dead stones would look like a blunder.
pub fn rated_moves(moves: &[Move]) -> usize {
    match moves {
        [.., Move::Pass, Move::Pass] => moves.len() - 2,
        _ => moves.len(),
    }
}

/// What one move of a game lost.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveLoss {
    /// Its number, from 1.
    pub number: usize,
    /// Who played it.
    pub color: Color,
    /// What it lost; none when a position around it is not analysed.
    pub loss: Option<f64>,
    /// Whether it is rated (see [`rated_moves`]).
    pub rated: bool,
}

/// `color`'s biggest mistakes among `moves`, the biggest first (the
/// earlier of equal ones first): at most `count` rated moves that lost at
/// least [`MISTAKE_THRESHOLD`].
pub fn mistakes(moves: &[MoveLoss], color: Color, count: usize) -> Vec<MoveLoss> {
    let mut found: Vec<MoveLoss> = moves
        .iter()
        .filter(|m| {
            m.color == color && m.rated && m.loss.is_some_and(|loss| loss >= MISTAKE_THRESHOLD)
        })
        .copied()
        .collect();
    found.sort_by(|a, b| {
        let (a_loss, b_loss) = (a.loss.unwrap_or(0.0), b.loss.unwrap_or(0.0));
        b_loss.total_cmp(&a_loss).then(a.number.cmp(&b.number))
    });
    found.truncate(count);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(winrate: f64, lead: Option<f64>) -> Value {
        Value {
            winrate,
            score_lead: lead,
        }
    }

    #[test]
    fn losses_are_from_the_movers_view_in_points_or_percent() {
        let before = value(0.6, Some(2.0));
        let after = value(0.8, Some(6.0));
        assert_eq!(
            loss(&before, &after, Color::White, LossUnit::Points),
            Some(4.0)
        );
        assert_eq!(
            loss(&before, &after, Color::Black, LossUnit::Points),
            Some(-4.0)
        );
        let percent = loss(&before, &after, Color::White, LossUnit::Percent).unwrap();
        assert!((percent - 20.0).abs() < 1e-9);
        let no_lead = value(0.5, None);
        assert_eq!(
            loss(&before, &no_lead, Color::Black, LossUnit::Points),
            None
        );
        assert!(loss(&before, &no_lead, Color::Black, LossUnit::Percent).is_some());
    }

    #[test]
    fn the_unit_is_points_only_when_every_value_has_a_lead() {
        let led = value(0.5, Some(1.0));
        let bare = value(0.5, None);
        assert_eq!(LossUnit::of([&led, &led]), LossUnit::Points);
        assert_eq!(LossUnit::of([&led, &bare]), LossUnit::Percent);
        assert_eq!(LossUnit::of([]), LossUnit::Percent);
    }

    #[test]
    fn the_two_passes_that_end_a_game_are_not_rated() {
        let e5 = tengen_core::BoardSize::square(9)
            .unwrap()
            .parse_gtp("E5")
            .unwrap();
        assert_eq!(rated_moves(&[e5, Move::Pass, Move::Pass]), 1);
        assert_eq!(rated_moves(&[Move::Pass, e5]), 2);
        assert_eq!(rated_moves(&[e5, Move::Pass]), 2);
    }

    #[test]
    fn mistakes_are_the_biggest_rated_losses_over_the_threshold() {
        let m = |number, color, loss: Option<f64>, rated| MoveLoss {
            number,
            color,
            loss,
            rated,
        };
        let moves = [
            m(1, Color::Black, Some(0.4), true),
            m(2, Color::White, Some(3.0), true),
            m(3, Color::Black, Some(5.0), true),
            m(4, Color::White, None, true),
            m(5, Color::Black, Some(5.0), true),
            m(6, Color::White, Some(9.0), false),
            m(7, Color::Black, Some(0.5), true),
        ];
        let numbers = |color, count| -> Vec<usize> {
            mistakes(&moves, color, count)
                .iter()
                .map(|m| m.number)
                .collect()
        };
        assert_eq!(numbers(Color::Black, 5), [3, 5, 7]);
        assert_eq!(numbers(Color::Black, 2), [3, 5]);
        assert_eq!(numbers(Color::White, 5), [2]);
        assert!(numbers(Color::White, 0).is_empty());
    }
}
