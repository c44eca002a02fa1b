//! What a game's analysis says about its moves: the points and the win
//! rate each lost, the move the engine preferred, and each side's biggest
//! mistakes.
//!
//! The points a move lost are the score lead before it minus the score
//! lead after it, from the mover's point of view: the rule of
//! [`crate::loss`], which the web server applies too.

use tengen_analysis::PositionResponse;
use tengen_core::{Color, Move};

use crate::loss::{self, LossUnit, MoveLoss, Value};
pub use crate::loss::{sign, MISTAKES_LISTED, MISTAKE_THRESHOLD};

/// One candidate move of a position, values from Black's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateAnalysis {
    /// The move.
    pub mv: Move,
    /// Visits it got.
    pub visits: u64,
    /// Black's win rate after it, 0 to 1.
    pub winrate: f64,
    /// Black's lead in points after it.
    pub score_lead: f64,
    /// The network's prior for it.
    pub prior: f64,
    /// The principal variation, starting with the move.
    pub pv: Vec<Move>,
}

/// The analysis of one position, values from Black's point of view: what
/// the review of a move reads.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionAnalysis {
    /// The turn: moves played before the position.
    pub turn: usize,
    /// Who is to move.
    pub to_move: Color,
    /// Visits of the root.
    pub visits: u64,
    /// Black's win rate, 0 to 1.
    pub winrate: f64,
    /// Black's lead in points.
    pub score_lead: f64,
    /// The candidates, the best first.
    pub candidates: Vec<CandidateAnalysis>,
}

impl CandidateAnalysis {
    /// Its value, as the rule reads it.
    pub fn value(&self) -> Value {
        Value {
            winrate: self.winrate,
            score_lead: Some(self.score_lead),
        }
    }
}

impl PositionAnalysis {
    /// Its value, as the rule reads it.
    pub fn value(&self) -> Value {
        Value {
            winrate: self.winrate,
            score_lead: Some(self.score_lead),
        }
    }

    /// The values of an analysis engine's `response`, which reports them
    /// from Black's point of view (`reportAnalysisWinratesAs = BLACK`, as
    /// [`crate::Analyser`] asks).
    pub fn from_response(response: &PositionResponse) -> PositionAnalysis {
        PositionAnalysis {
            turn: response.turn,
            to_move: response.root.to_move,
            visits: response.root.visits,
            winrate: response.root.winrate,
            score_lead: response.root.score_lead,
            candidates: response
                .moves
                .iter()
                .map(|info| CandidateAnalysis {
                    mv: info.mv,
                    visits: info.visits,
                    winrate: info.winrate,
                    score_lead: info.score_lead,
                    prior: info.prior,
                    pv: info.pv.clone(),
                })
                .collect(),
        }
    }
}

/// One move of the game under review.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveReview {
    /// Its number, from 1.
    pub number: usize,
    /// Who played it.
    pub color: Color,
    /// The move.
    pub mv: Move,
    /// Score lead before minus after, from the mover's point of view.
    pub points_lost: f64,
    /// Win rate before minus after, from the mover's point of view (0 to 1).
    pub winrate_lost: f64,
    /// One of the two passes that end the game. They are not rated: the
    /// search counts a game ended by passes strictly, as Tromp-Taylor does
    /// (stones left on the board are alive), where players take dead
    /// stones off by agreement, so a pass that leaves dead stones would
    /// look like a blunder.
    pub ends_game: bool,
    /// The engine's candidates in the position the move was played in,
    /// the best first, each with the points it loses against the
    /// position's own value (as the played move's are counted).
    pub preferred: Vec<(CandidateAnalysis, f64)>,
}

impl MoveReview {
    /// Whether the move was the engine's first choice.
    pub fn was_best(&self) -> bool {
        self.preferred.first().is_some_and(|(c, _)| c.mv == self.mv)
    }
}

/// A game's analysis and what it says of each move.
#[derive(Clone, Debug, PartialEq)]
pub struct GameReview {
    /// Each position, from the start to after the last move.
    pub positions: Vec<PositionAnalysis>,
    /// Each move, the first first.
    pub moves: Vec<MoveReview>,
}

impl GameReview {
    /// The review of a game whose moves are `moves` and whose positions
    /// (one more than the moves) were analysed as `positions`.
    ///
    /// # Panics
    /// When there is not exactly one position more than there are moves.
    pub fn new(moves: &[(Color, Move)], positions: Vec<PositionAnalysis>) -> GameReview {
        assert_eq!(
            positions.len(),
            moves.len() + 1,
            "a position before each move and after the last"
        );
        let played: Vec<Move> = moves.iter().map(|&(_, mv)| mv).collect();
        let rated = loss::rated_moves(&played);
        let moves = moves
            .iter()
            .enumerate()
            .map(|(index, &(color, mv))| {
                let before = &positions[index];
                let after = &positions[index + 1];
                let points = |a: &Value, b: &Value| {
                    loss::loss(a, b, color, LossUnit::Points)
                        .expect("the engine's values have leads")
                };
                MoveReview {
                    number: index + 1,
                    color,
                    mv,
                    points_lost: points(&before.value(), &after.value()),
                    winrate_lost: sign(color) * (before.winrate - after.winrate),
                    ends_game: index >= rated,
                    preferred: before
                        .candidates
                        .iter()
                        .map(|c| (c.clone(), points(&before.value(), &c.value())))
                        .collect(),
                }
            })
            .collect();
        GameReview { positions, moves }
    }

    /// `color`'s biggest mistakes, the biggest first: at most `count`
    /// rated moves that lost at least [`MISTAKE_THRESHOLD`] points (the
    /// rule of [`loss::mistakes`]).
    pub fn mistakes(&self, color: Color, count: usize) -> Vec<&MoveReview> {
        loss::mistakes(&self.losses(), color, count)
            .iter()
            .map(|m| &self.moves[m.number - 1])
            .collect()
    }

    /// What each move lost, as the rule reads it.
    pub fn losses(&self) -> Vec<MoveLoss> {
        self.moves
            .iter()
            .map(|m| MoveLoss {
                number: m.number,
                color: m.color,
                loss: Some(m.points_lost),
                rated: !m.ends_game,
            })
            .collect()
    }

    /// `color`'s playing strength estimated from its losses
    /// ([`crate::strength`]); `None` with too few rated moves.
    pub fn strength(&self, color: Color, area: usize) -> Option<crate::strength::StrengthEstimate> {
        crate::strength::estimate_strength(&self.losses(), color, area)
    }

    /// `color`'s rated moves and the points they lost in all (gains count
    /// against losses, as a game's score does).
    pub fn total_points_lost(&self, color: Color) -> (usize, f64) {
        self.moves
            .iter()
            .filter(|m| m.color == color && !m.ends_game)
            .fold((0, 0.0), |(n, sum), m| (n + 1, sum + m.points_lost))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::BoardSize;

    fn position(
        turn: usize,
        to_move: Color,
        winrate: f64,
        lead: f64,
        best: &str,
    ) -> PositionAnalysis {
        let size = BoardSize::square(9).unwrap();
        let mv = size.parse_gtp(best).unwrap();
        PositionAnalysis {
            turn,
            to_move,
            visits: 10,
            winrate,
            score_lead: lead,
            candidates: vec![CandidateAnalysis {
                mv,
                visits: 8,
                winrate,
                score_lead: lead + 0.25 * sign(to_move),
                prior: 0.5,
                pv: vec![mv],
            }],
        }
    }

    /// Black leads by 2; Black's E5 keeps it at 2.5, White's C3 lets it
    /// grow to 6 (White lost 3.5), Black's G7 gives back 5 (Black lost 5).
    fn sample() -> GameReview {
        let size = BoardSize::square(9).unwrap();
        let moves: Vec<(Color, Move)> = [
            (Color::Black, "E5"),
            (Color::White, "C3"),
            (Color::Black, "G7"),
        ]
        .iter()
        .map(|&(c, m)| (c, size.parse_gtp(m).unwrap()))
        .collect();
        let positions = vec![
            position(0, Color::Black, 0.6, 2.0, "E5"),
            position(1, Color::White, 0.62, 2.5, "G3"),
            position(2, Color::Black, 0.8, 6.0, "D4"),
            position(3, Color::White, 0.55, 1.0, "F3"),
        ];
        GameReview::new(&moves, positions)
    }

    #[test]
    fn points_lost_are_from_the_movers_view() {
        let review = sample();
        let lost: Vec<f64> = review.moves.iter().map(|m| m.points_lost).collect();
        assert_eq!(lost, vec![-0.5, 3.5, 5.0]);
        let winrate: Vec<f64> = review
            .moves
            .iter()
            .map(|m| (m.winrate_lost * 100.0).round())
            .collect();
        assert_eq!(winrate, vec![-2.0, 18.0, 25.0]);
        assert!(review.moves[0].was_best());
        assert!(!review.moves[1].was_best());
        // The preferred move's loss against the position's value, from the
        // mover's view: each sample candidate is a quarter point better for
        // the mover than the position (White's G3 leaves Black 2.25, not 2.5).
        assert_eq!(review.moves[1].preferred[0].1, -0.25);
        assert_eq!(review.moves[0].preferred[0].1, -0.25);
    }

    #[test]
    fn the_passes_that_end_the_game_are_not_rated() {
        let size = BoardSize::square(9).unwrap();
        let moves = [
            (Color::Black, size.parse_gtp("E5").unwrap()),
            (Color::White, Move::Pass),
            (Color::Black, Move::Pass),
        ];
        let positions = vec![
            position(0, Color::Black, 0.6, 2.0, "E5"),
            position(1, Color::White, 0.6, 2.0, "C3"),
            position(2, Color::Black, 0.99, 20.0, "C3"),
            position(3, Color::White, 0.6, 2.0, "C3"),
        ];
        let review = GameReview::new(&moves, positions);
        let ends: Vec<bool> = review.moves.iter().map(|m| m.ends_game).collect();
        assert_eq!(ends, [false, true, true]);
        assert!(review.mistakes(Color::White, 5).is_empty());
        assert!(review.mistakes(Color::Black, 5).is_empty());
        assert_eq!(review.total_points_lost(Color::White), (0, 0.0));
        // A pass answered by a move is rated.
        let moves = [
            (Color::Black, Move::Pass),
            (Color::White, size.parse_gtp("C3").unwrap()),
        ];
        let positions = vec![
            position(0, Color::Black, 0.6, 2.0, "E5"),
            position(1, Color::White, 0.3, -5.0, "C3"),
            position(2, Color::Black, 0.3, -5.0, "E5"),
        ];
        let review = GameReview::new(&moves, positions);
        assert!(!review.moves[0].ends_game);
        assert_eq!(review.mistakes(Color::Black, 5)[0].points_lost, 7.0);
    }

    #[test]
    fn mistakes_are_each_sides_biggest_losses() {
        let review = sample();
        let black: Vec<usize> = review
            .mistakes(Color::Black, 5)
            .iter()
            .map(|m| m.number)
            .collect();
        assert_eq!(black, vec![3]);
        let white: Vec<usize> = review
            .mistakes(Color::White, 5)
            .iter()
            .map(|m| m.number)
            .collect();
        assert_eq!(white, vec![2]);
        assert!(review.mistakes(Color::Black, 0).is_empty());
        assert_eq!(review.total_points_lost(Color::Black), (2, 4.5));
    }
}
