//! KataGo's root ending bonus (`rootEndingBonusPoints`): at the root only,
//! a fraction of a point taken from moves that only prolong the game — a
//! stone inside an area the network is sure the player owns, away from the
//! opponent's stones and joining nothing that needs joining, or inside an
//! area it is sure the opponent owns, capturing nothing — so that, when no
//! move gains anything, the search prefers to pass; under territory
//! scoring a pass gives up two thirds of the bonus instead, so that the
//! dame are filled first. Nothing changes while a ko is on the board.
//!
//! The points go through the score utility of each child's score, so the
//! nudge counts for as much as that many points would there.

use tengen_core::scoring::PassAlive;
use tengen_core::{Board, Color, Game, Move, Point, Scoring};

/// How sure of an owner the network must be (its ownership, from −1 to 1)
/// for the nudge to start, and over how much more it grows to the whole
/// bonus.
const SURE: f64 = 0.95;
const TAIL: f64 = 1.0 - SURE;

/// The points each root move is nudged by, for Black, from the root's
/// ownership (+1: the side to move owns the point).
#[derive(Clone, Debug, Default)]
pub struct EndingBonus {
    /// Per point index, Black's points for the move there.
    points: Vec<f64>,
    /// Black's points for a pass.
    pass: f64,
}

impl EndingBonus {
    /// The nudges of `bonus` points for the root `game`, whose side to move
    /// sees `ownership` (one value per point index).
    pub fn new(game: &Game, ownership: &[f32], bonus: f64) -> EndingBonus {
        let board = game.board();
        let player = game.to_move();
        let black = |points: f64| {
            if player == Color::Black {
                points
            } else {
                -points
            }
        };
        let mut safe: Option<PassAlive> = None;
        let mut points = vec![0.0; ownership.len()];
        if board.ko_point().is_none() {
            for point in board.empty_points() {
                let Some(&own) = ownership.get(point.index()) else {
                    continue;
                };
                let own = f64::from(own);
                let nudge = if own <= -SURE {
                    let captures =
                        game.rules().scoring == Scoring::Area && board.is_capture(point, player);
                    if captures {
                        0.0
                    } else {
                        (-SURE - own) / TAIL
                    }
                } else if own >= SURE
                    && !touches(board, point, !player)
                    && !joins_unsafe_chains(board, point, player, &mut safe)
                {
                    (own - SURE) / TAIL
                } else {
                    0.0
                };
                points[point.index()] = black(-bonus * nudge);
            }
        }
        let pass = match game.rules().scoring {
            Scoring::Territory => black(-bonus * 2.0 / 3.0),
            Scoring::Area => 0.0,
        };
        EndingBonus { points, pass }
    }

    /// Black's points for `mv` at the root.
    pub fn black_points(&self, mv: Move) -> f64 {
        match mv {
            Move::Pass => self.pass,
            Move::Play(point) => self.points.get(point.index()).copied().unwrap_or(0.0),
        }
    }
}

/// Whether a stone of `color` is next to `point`.
fn touches(board: &Board, point: Point, color: Color) -> bool {
    board
        .on_board_neighbors(point)
        .any(|n| board.stone(n) == Some(color))
}

/// Whether a stone of `player` at `point` would join one of its chains that
/// is not pass-alive to another chain of its own, where `point` is not its
/// safe territory: a connection that may matter, so not a wasted move.
/// Benson's analysis is made once, on first need, into `safe`.
fn joins_unsafe_chains(
    board: &Board,
    point: Point,
    player: Color,
    safe: &mut Option<PassAlive>,
) -> bool {
    let safe = safe.get_or_insert_with(|| PassAlive::of(board));
    if safe.territory(point) == Some(player) {
        return false;
    }
    let own: Vec<Point> = board
        .on_board_neighbors(point)
        .filter(|&n| board.stone(n) == Some(player))
        .collect();
    let Some(unsafe_head) = own
        .iter()
        .find(|&&n| !safe.is_alive(n))
        .and_then(|&n| board.chain_head(n))
    else {
        return false;
    };
    own.iter()
        .any(|&n| board.chain_head(n) != Some(unsafe_head))
}

impl<E: crate::PositionEvaluator + ?Sized> super::Searcher<'_, E> {
    /// The root ending bonus of this search's root, if it is on and the
    /// root's ownership is known: from the root's own evaluation, or for a
    /// kept tree's root (evaluated by an earlier search, whose ownership
    /// was not kept) from an evaluation asked for now, which an evaluation
    /// cache answers at no cost.
    pub(super) fn ending_bonus(&self) -> Option<EndingBonus> {
        let bonus = f64::from(self.config.selection.root_ending_bonus);
        if bonus == 0.0 || self.game.rules().is_nogo() || self.game.is_over() {
            return None;
        }
        let asked;
        let evaluation = match &self.root_evaluation {
            Some(evaluation) => evaluation,
            None => {
                asked = self.evaluator.evaluate(&[self.game]).ok()?.pop()?;
                &asked
            }
        };
        let ownership = evaluation.ownership.as_deref()?;
        Some(EndingBonus::new(self.game, ownership, bonus))
    }

    /// What the root ending bonus adds to root child `child`'s utility, for
    /// Black: its points for Black through the score utility of the
    /// child's scores (0 below the root, or with the bonus off).
    pub(crate) fn root_ending_utility(&self, child: super::NodeId) -> f64 {
        let Some(ending) = &self.ending else {
            return 0.0;
        };
        let node = self.tree.node(child);
        let points = ending.black_points(node.mv);
        if points == 0.0 {
            return 0.0;
        }
        let utility = &self.utility;
        if utility.uses_distribution() {
            node.black_score().map_or(0.0, |(mean, stdev)| {
                utility.expected_score(mean + points, stdev) - utility.expected_score(mean, stdev)
            })
        } else {
            node.black_lead().map_or(0.0, |lead| {
                utility.score(lead + points) - utility.score(lead)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::{Board, Rules};

    fn game(diagram: &str, to_move: Color, rules: Rules) -> Game {
        Game::from_position(Board::from_ascii(diagram).unwrap(), to_move, rules)
    }

    /// Ownership `own` for the side to move everywhere but at the points
    /// given.
    fn ownership(game: &Game, own: f32, at: &[(&str, f32)]) -> Vec<f32> {
        let mut ownership = vec![own; tengen_core::MAX_CELLS];
        for &(point, value) in at {
            let Move::Play(p) = game.size().parse_gtp(point).unwrap() else {
                unreachable!("a point")
            };
            ownership[p.index()] = value;
        }
        ownership
    }

    fn points(game: &Game, bonus: &EndingBonus, point: &str) -> f64 {
        bonus.black_points(game.size().parse_gtp(point).unwrap())
    }

    const CORNERS: &str = ". x . o .
                           x x . o o
                           . . . . .
                           . . . . .
                           . . . . .";

    #[test]
    fn sure_areas_cost_the_bonus_unless_next_to_the_opponent() {
        let g = game(CORNERS, Color::Black, Rules::default());
        let own = ownership(
            &g,
            0.0,
            &[("A5", 1.0), ("C4", 1.0), ("E5", -1.0), ("A3", 0.975)],
        );
        let bonus = EndingBonus::new(&g, &own, 0.5);
        // Inside Black's own corner: the whole bonus.
        assert!((points(&g, &bonus, "A5") + 0.5).abs() < 1e-9);
        // Half way from sure to certain: half of it.
        assert!((points(&g, &bonus, "A3") + 0.25).abs() < 1e-6);
        // Next to a white stone: nothing, whoever owns it.
        assert_eq!(points(&g, &bonus, "C4"), 0.0);
        // Inside White's corner, capturing nothing.
        assert!((points(&g, &bonus, "E5") + 0.5).abs() < 1e-9);
        // Unsure points and an area-scoring pass: nothing.
        assert_eq!(points(&g, &bonus, "C2"), 0.0);
        assert_eq!(bonus.black_points(Move::Pass), 0.0);
    }

    #[test]
    fn white_to_move_gives_black_the_points() {
        let g = game(CORNERS, Color::White, Rules::default());
        // White owns its corner for sure.
        let own = ownership(&g, 0.0, &[("E5", 1.0)]);
        let bonus = EndingBonus::new(&g, &own, 0.5);
        assert!((points(&g, &bonus, "E5") - 0.5).abs() < 1e-9);
    }

    #[test]
    fn territory_scoring_takes_from_the_pass() {
        let japanese = Rules::preset("japanese").unwrap();
        let g = game(CORNERS, Color::Black, japanese);
        let bonus = EndingBonus::new(&g, &ownership(&g, 0.0, &[]), 0.6);
        assert!((bonus.black_points(Move::Pass) + 0.4).abs() < 1e-9);
    }

    #[test]
    fn joining_two_chains_and_capturing_are_not_wasted() {
        let g = game(
            "x . x . .
             . . . . o
             . . . o .
             . . o . .
             . . . . .",
            Color::Black,
            Rules::default(),
        );
        // B5 joins A5 and C5, neither pass-alive.
        let own = ownership(&g, 1.0, &[]);
        let bonus = EndingBonus::new(&g, &own, 0.5);
        assert_eq!(points(&g, &bonus, "B5"), 0.0);
        assert!((points(&g, &bonus, "A1") + 0.5).abs() < 1e-9);
        // A capture inside the opponent's sure area costs nothing.
        let g = game(
            ". . . x o
             . . . . .
             . . . . .
             . . . . .
             . . . . .",
            Color::Black,
            Rules::default(),
        );
        let bonus = EndingBonus::new(&g, &ownership(&g, -1.0, &[]), 0.5);
        assert_eq!(points(&g, &bonus, "E4"), 0.0, "a capture of E5");
        assert!((points(&g, &bonus, "A1") + 0.5).abs() < 1e-9);
    }

    #[test]
    fn a_ko_on_the_board_turns_it_off() {
        let mut g = game(
            ". x o . .
             x o . o .
             . x o . .
             . . . . .
             . . . . .",
            Color::Black,
            Rules::default(),
        );
        g.play(g.size().parse_gtp("C4").unwrap()).unwrap();
        assert!(g.board().ko_point().is_some(), "the capture made a ko");
        let bonus = EndingBonus::new(&g, &ownership(&g, 1.0, &[]), 0.5);
        assert_eq!(points(&g, &bonus, "E1"), 0.0);
    }
}
