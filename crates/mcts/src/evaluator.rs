//! Leaf evaluation for the tree search: the [`Evaluator`] trait, and
//! [`RolloutEvaluator`], which plays the position out with the heavy playout
//! policy and counts the result. A neural network's value head is the other
//! kind of evaluator.

use tengen_core::scoring::winner_by_margin;
use tengen_core::{playout::playout_score, Board, Color, Point, Rng};

use crate::playout::{PlayoutPolicy, PlayoutScratch};

/// Which colour first played each point during one simulation, and when,
/// for AMAF (all-moves-as-first) statistics.
///
/// Turns are counted from the first move the evaluator records (0); the
/// tree's moves, filled in afterwards from the leaf up, have negative turns.
#[derive(Clone, Debug)]
pub struct AmafMap {
    first: Vec<u8>,
    turn: Vec<i32>,
    recorded: i32,
}

impl Default for AmafMap {
    fn default() -> Self {
        AmafMap {
            first: vec![0; tengen_core::MAX_CELLS],
            turn: vec![0; tengen_core::MAX_CELLS],
            recorded: 0,
        }
    }
}

impl AmafMap {
    /// Forgets every point.
    pub fn clear(&mut self) {
        self.first.fill(0);
        self.recorded = 0;
    }

    /// Notes that `color` played `point` on the next turn, unless someone
    /// played it earlier.
    #[inline]
    pub fn record(&mut self, point: Point, color: Color) {
        let slot = &mut self.first[point.index()];
        if *slot == 0 {
            *slot = color as u8 + 1;
            self.turn[point.index()] = self.recorded;
        }
        self.recorded += 1;
    }

    /// Notes that `color` played `point` on `turn` (before the recorded
    /// moves: negative), overriding any later player: for filling the map
    /// from the end of a simulation backwards.
    #[inline]
    pub fn record_earlier(&mut self, point: Point, color: Color, turn: i32) {
        self.first[point.index()] = color as u8 + 1;
        self.turn[point.index()] = turn;
    }

    /// The colour that first played `point`, if any.
    #[inline]
    pub fn first(&self, point: Point) -> Option<Color> {
        match self.first[point.index()] {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }

    /// The turn on which `point` was first played (meaningful only when
    /// [`AmafMap::first`] names a colour).
    #[inline]
    pub fn first_turn(&self, point: Point) -> i32 {
        self.turn[point.index()]
    }

    /// How many moves [`AmafMap::record`] has noted since the last clear.
    #[inline]
    pub fn recorded(&self) -> i32 {
        self.recorded
    }
}

/// A position at a leaf of the search tree.
pub struct Leaf<'a> {
    /// The board; an evaluator may play it out (the search does not reuse it).
    pub board: &'a mut Board,
    /// The side to move.
    pub to_move: Color,
    /// The last stone played, if the last turn was a stone.
    pub last: Option<Point>,
    /// Komi, added to White's score.
    pub komi: f64,
    /// Whether the game is NoGo (no captures, suicide or passes; the side
    /// that cannot move loses) rather than Go.
    pub nogo: bool,
}

/// What an evaluator says of a leaf.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Evaluation {
    /// Black's chance of winning, in `0.0..=1.0` (a playout gives 0, ½ or 1).
    pub black_value: f32,
    /// Whether the leaf's board was played to the end, so that its stones and
    /// single-point eyes show who owns every point (ownership statistics).
    pub played_out: bool,
}

/// Evaluates leaves of the search tree. Each search thread owns one, made by
/// [`Evaluator::fork`].
pub trait Evaluator: Send + 'static {
    /// Evaluates `leaf`, recording the moves it plays (if any) in `amaf`.
    fn evaluate(&mut self, leaf: Leaf<'_>, amaf: &mut AmafMap) -> Evaluation;

    /// An evaluator for another search thread; `stream` makes its random
    /// choices independent of the others'.
    fn fork(&self, stream: u64) -> Self
    where
        Self: Sized;

    /// Whether [`Evaluator::policy`] may give anything; the search asks for
    /// a policy only if so.
    fn has_policy(&self) -> bool {
        false
    }

    /// Move probabilities for `to_move` on `board` (a policy network's),
    /// added to the prior knowledge of a node's children once the node has
    /// been visited often enough. `None`, the default: no policy.
    fn policy(&mut self, _board: &Board, _to_move: Color, _komi: f64) -> Option<Policy> {
        None
    }
}

/// A policy network's view of a position, for the tree's priors.
#[derive(Clone, Debug, PartialEq)]
pub struct Policy {
    /// Probability of each point, indexed by [`Point::index`] (zero off the
    /// board and where the network gives nothing).
    pub points: Vec<f32>,
    /// Probability of passing.
    pub pass: f32,
    /// How many virtual visits, all won, the network's favourite move gets;
    /// other moves get this times their probability relative to the
    /// favourite's.
    pub weight: f32,
}

/// Plays a NoGo position out with `to_move` first: each turn a uniformly
/// random legal move that is not the mover's own eye, or, when only own eyes
/// are left, a random one of those (an eye is a move the opponent can never
/// take, kept in reserve). Returns the colour that could not move, which
/// loses. Every move is reported to `on_move`.
pub fn nogo_playout(
    board: &mut Board,
    mut to_move: Color,
    rng: &mut Rng,
    mut on_move: impl FnMut(Point, Color),
) -> Color {
    loop {
        let color = to_move;
        let chosen = board
            .random_playout_move_where(color, rng, |b, p| b.is_legal_nogo(p, color))
            .or_else(|| {
                // Only own eyes may be left; any empty point is worth a look.
                let legal: Vec<Point> = board
                    .empty_points()
                    .filter(|&p| board.is_legal_nogo(p, color))
                    .collect();
                (!legal.is_empty()).then(|| legal[rng.below(legal.len())])
            });
        match chosen {
            Some(point) => {
                board.play_unchecked(point, color);
                on_move(point, color);
                to_move = !color;
            }
            None => return color,
        }
    }
}

/// Plays leaves out with a [`PlayoutPolicy`] and scores the final board
/// (area counting with single-point eyes, komi to White).
#[derive(Clone, Debug)]
pub struct RolloutEvaluator {
    policy: PlayoutPolicy,
    rng: Rng,
    scratch: PlayoutScratch,
    /// The share of a playout's value given by its score margin
    /// ([`playout_value`]).
    margin_weight: f32,
}

impl RolloutEvaluator {
    /// Rollouts with `policy`, random choices seeded by `seed`.
    pub fn new(policy: PlayoutPolicy, seed: u64) -> RolloutEvaluator {
        RolloutEvaluator {
            policy,
            rng: Rng::new(seed),
            scratch: PlayoutScratch::default(),
            margin_weight: 0.0,
        }
    }

    /// These rollouts with `weight` of each playout's value given by its
    /// score margin ([`playout_value`]; 0, the default: by the winner only).
    pub fn with_margin_weight(mut self, weight: f32) -> RolloutEvaluator {
        self.margin_weight = weight.clamp(0.0, 1.0);
        self
    }
}

/// Black's value of a played-out board that Black leads by `margin` points
/// (komi included) on a board of `points` points: 1 for a win, ½ for a
/// draw, 0 for a loss, of which `margin_weight` is given instead by the
/// margin, scaled from −`points` (0) to +`points` (1).
///
/// With a small weight the winner still decides almost everything, but
/// among moves that all win (or all lose) the search prefers the larger
/// margin: when every playout of every move wins, the winner alone cannot
/// tell a move that keeps a lead from one that throws points away, and
/// those points are the reserve against what the playouts misjudge.
/// Fuego's score modification works the same way.
pub fn playout_value(margin: f64, points: usize, margin_weight: f32) -> f32 {
    let by_winner = match winner_by_margin(margin) {
        Some(Color::Black) => 1.0,
        Some(Color::White) => 0.0,
        None => 0.5,
    };
    if margin_weight <= 0.0 {
        return by_winner;
    }
    let by_margin = (0.5 + 0.5 * margin / points.max(1) as f64).clamp(0.0, 1.0) as f32;
    (1.0 - margin_weight) * by_winner + margin_weight * by_margin
}

impl Evaluator for RolloutEvaluator {
    fn evaluate(&mut self, leaf: Leaf<'_>, amaf: &mut AmafMap) -> Evaluation {
        if leaf.nogo {
            let loser = nogo_playout(leaf.board, leaf.to_move, &mut self.rng, |point, color| {
                amaf.record(point, color)
            });
            return Evaluation {
                black_value: if loser == Color::White { 1.0 } else { 0.0 },
                played_out: false,
            };
        }
        let cap = 3 * leaf.board.size().points_count() as u32 + 20;
        let stats = self.policy.playout(
            leaf.board,
            leaf.to_move,
            leaf.last,
            &mut self.rng,
            cap,
            &mut self.scratch,
            |point, color| amaf.record(point, color),
        );
        let margin = playout_score(leaf.board) as f64 - leaf.komi;
        let winner = winner_by_margin(margin);
        let black_value =
            playout_value(margin, leaf.board.size().points_count(), self.margin_weight);
        // A capped playout did not reach its end: its winner says little.
        if !stats.capped {
            self.policy.learn(&mut self.scratch, winner);
        }
        Evaluation {
            black_value,
            played_out: !stats.capped,
        }
    }

    fn fork(&self, stream: u64) -> Self {
        let seed = tengen_core::stream_seed(self.rng.clone().next_u64(), stream);
        RolloutEvaluator::new(self.policy.clone(), seed).with_margin_weight(self.margin_weight)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_margin_weight_the_winner_alone_decides() {
        assert_eq!(playout_value(0.5, 81, 0.0), 1.0);
        assert_eq!(playout_value(80.5, 81, 0.0), 1.0);
        assert_eq!(playout_value(-0.5, 81, 0.0), 0.0);
        assert_eq!(playout_value(0.0, 81, 0.0), 0.5);
    }

    #[test]
    fn the_margin_orders_results_of_the_same_winner() {
        let weight = 0.05;
        let margins: Vec<f64> = (-162..=162).map(|m| m as f64 / 2.0).collect();
        let values: Vec<f32> = margins
            .iter()
            .map(|&m| playout_value(m, 81, weight))
            .collect();
        for pair in values.windows(2) {
            assert!(pair[0] < pair[1], "{pair:?}");
        }
        // Every win is worth more than every draw, every draw more than
        // every loss: the winner still comes first.
        let smallest_win = playout_value(0.5, 81, weight);
        let largest_loss = playout_value(-0.5, 81, weight);
        assert!(smallest_win > 0.5 && largest_loss < 0.5);
        assert!(smallest_win >= 1.0 - weight && largest_loss <= weight);
        assert_eq!(playout_value(0.0, 81, weight), 0.5);
        assert_eq!(playout_value(81.0, 81, weight), 1.0);
        assert_eq!(playout_value(-81.0, 81, weight), 0.0);
        // Past the board's area (a huge komi) the margin's part stays in range.
        assert_eq!(playout_value(-200.0, 81, weight), 0.0);
    }

    #[test]
    fn a_settled_board_is_valued_by_its_count() {
        // Black 13 stones and 2 eyes, White 8 stones and 2 eyes: nothing
        // is left to play, so the playout ends where it starts.
        let diagram = "
            x x x x x
            x . x . x
            x x x x x
            o o o o o
            o . o . o
        ";
        // Black's value of the diagram's board, `to_move` to play, by `evaluator`.
        let value = |evaluator: &mut RolloutEvaluator, to_move: Color, komi: f64| {
            let mut board = Board::from_ascii(diagram).unwrap();
            let leaf = Leaf {
                board: &mut board,
                to_move,
                last: None,
                komi,
                nogo: false,
            };
            evaluator
                .evaluate(leaf, &mut AmafMap::default())
                .black_value
        };
        for (weight, komi) in [(0.0, 0.5), (0.2, 0.5), (0.2, 7.5), (1.0, 0.5)] {
            let mut evaluator =
                RolloutEvaluator::new(PlayoutPolicy::default(), 1).with_margin_weight(weight);
            let black_value = value(&mut evaluator, Color::Black, komi);
            // Counted by hand: 15 points to 10.
            let margin = 15.0 - 10.0 - komi;
            let winner = if margin > 0.0 { 1.0 } else { 0.0 };
            let expected = (1.0 - weight) * winner + weight * (0.5 + 0.5 * margin / 25.0) as f32;
            assert!(
                (black_value - expected).abs() < 1e-6,
                "weight {weight}, komi {komi}: {black_value} against {expected}"
            );
            // A fork keeps the weight.
            let forked = value(&mut evaluator.fork(7), Color::White, komi);
            assert!((forked - expected).abs() < 1e-6);
        }
    }
}
