//! What the search asks of a network: [`PositionEvaluator`] and its
//! answers, [`NetEvaluation`].

use tengen_core::{BoardSize, Game, Move};

/// What a network says of one position, from the side to move's point of view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NetEvaluation {
    /// Probabilities of the legal moves (pass included as `Move::Pass`),
    /// summing to about 1; illegal moves absent. The search drops any
    /// illegal move anyway and renormalises.
    pub policy: Vec<(Move, f32)>,
    /// P(side to move wins).
    pub win: f32,
    /// P(side to move loses).
    pub loss: f32,
    /// P(no result); `win + loss + no_result` is 1.
    pub no_result: f32,
    /// Expected score lead of the side to move, in points.
    pub lead: f32,
    /// The network's guess of its own short-term error in the win−loss
    /// value and in the score (KataGo's short-term error heads), if given:
    /// the weight of the evaluation when playouts are weighted by
    /// uncertainty.
    pub shortterm_error: Option<(f32, f32)>,
    /// Mean final score of the side to move (KataGo's `scoreMean`, the score
    /// of self-play, not the lead), if the evaluator gives it.
    pub score_mean: Option<f32>,
    /// Mean of that score's square (mean² + variance), if given.
    pub score_mean_sq: Option<f32>,
    /// The network's guess of how long a meaningful game is left (KataGo's
    /// `varTimeLeft`, no particular unit), if given.
    pub var_time_left: Option<f32>,
    /// Ownership per on-board point (index = [`tengen_core::Point::index`]),
    /// +1 = side to move owns it, −1 = the opponent; `None` if the evaluator
    /// does not give it.
    pub ownership: Option<Vec<f32>>,
}

/// Why an evaluator could not evaluate.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("evaluator error: {reason}")]
pub struct EvaluatorError {
    /// What went wrong.
    pub reason: String,
}

impl EvaluatorError {
    /// An error with this reason.
    pub fn new(reason: impl Into<String>) -> EvaluatorError {
        EvaluatorError {
            reason: reason.into(),
        }
    }
}

/// A policy/value network, or anything that stands in for one.
pub trait PositionEvaluator: Send + Sync {
    /// Evaluates several positions at once (a batch); one result per game,
    /// in order.
    fn evaluate(&self, positions: &[&Game]) -> Result<Vec<NetEvaluation>, EvaluatorError>;
    /// Whether [`PositionEvaluator::evaluate_until`] can give a batch up
    /// part-way; the search then watches its stop signal during batches.
    fn abandons(&self) -> bool {
        false
    }
    /// [`PositionEvaluator::evaluate`], given up (with any error) soon after
    /// `cancel` says so, if the evaluator [`abandons`](Self::abandons).
    fn evaluate_until(
        &self,
        positions: &[&Game],
        _cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        self.evaluate(positions)
    }
    /// The evaluation of a search's root, which an evaluator may make
    /// differently from the leaves below it (KataGo mixes less of its
    /// optimistic policy in at the root); given up when `cancel` says so if
    /// the evaluator [`abandons`](Self::abandons). The default evaluates it
    /// as any position.
    fn evaluate_root(
        &self,
        root: &Game,
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<NetEvaluation, EvaluatorError> {
        let mut evaluations = self.evaluate_until(&[root], cancel)?;
        if evaluations.len() != 1 {
            return Err(EvaluatorError::new(format!(
                "{} results for 1 position",
                evaluations.len()
            )));
        }
        Ok(evaluations.remove(0))
    }
    /// How many positions it evaluates at the same time (its threads, each
    /// taking positions of a batch): the adaptive batch never goes below
    /// it, so that no thread idles. One by default.
    fn positions_in_parallel(&self) -> usize {
        1
    }
    /// Whether its evaluations carry the network's short-term errors
    /// ([`NetEvaluation::shortterm_error`]), so that playouts can be
    /// weighted by uncertainty (finished games then weigh the most).
    fn gives_uncertainty(&self) -> bool {
        false
    }
    /// A value that changes whenever the evaluator's answer for a position
    /// would (the playout doubling advantage it shows its network); caches
    /// mix it into their keys. 0 by default: the answers never change.
    fn input_salt(&self) -> u64 {
        0
    }
    /// Whether it can evaluate boards of this size (`Err` with the reason
    /// otherwise).
    fn supports(&self, size: BoardSize) -> Result<(), String>;
    /// Name for logs and GTP.
    fn name(&self) -> &str;
    /// The network's raw answer as text in KataGo's `kata-raw-nn` format
    /// (what GTP's `kata-raw-nn` shows through `tengen_gtp`'s
    /// `RawNetwork`); `None` if the evaluator has none.
    fn raw_output(
        &self,
        _game: &Game,
        _symmetry: Option<u8>,
        _optimism: Option<f32>,
    ) -> Option<Result<String, String>> {
        None
    }
    /// Black's margin of `game`, finished by passes, counted as the
    /// search the network was trained with counts it (KataGo's, with
    /// pass-alive areas: [`tengen_katago::inputs::finished_margin`]);
    /// `None`, the default: the game's own count.
    fn finished_margin(&self, _game: &Game) -> Option<f32> {
        None
    }
    /// Whether `game`, which two passes ended, is not over for the search
    /// the network was trained with: KataGo's plays on into a cleanup phase
    /// under territory scoring, where dead stones are taken off and seki
    /// settled before the count. Then the search values the position with
    /// the network (which has learnt what the cleanup comes to) rather
    /// than counting the board as it stands, and does not search the
    /// cleanup itself. `false`, the default: the game is over.
    fn plays_on_after_passes(&self, _game: &Game) -> bool {
        false
    }
}

impl<T: PositionEvaluator + ?Sized> PositionEvaluator for std::sync::Arc<T> {
    fn evaluate(&self, positions: &[&Game]) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        (**self).evaluate(positions)
    }
    fn abandons(&self) -> bool {
        (**self).abandons()
    }
    fn evaluate_until(
        &self,
        positions: &[&Game],
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        (**self).evaluate_until(positions, cancel)
    }
    fn evaluate_root(
        &self,
        root: &Game,
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<NetEvaluation, EvaluatorError> {
        (**self).evaluate_root(root, cancel)
    }
    fn gives_uncertainty(&self) -> bool {
        (**self).gives_uncertainty()
    }
    fn positions_in_parallel(&self) -> usize {
        (**self).positions_in_parallel()
    }
    fn supports(&self, size: BoardSize) -> Result<(), String> {
        (**self).supports(size)
    }
    fn name(&self) -> &str {
        (**self).name()
    }
    fn raw_output(
        &self,
        game: &Game,
        symmetry: Option<u8>,
        optimism: Option<f32>,
    ) -> Option<Result<String, String>> {
        (**self).raw_output(game, symmetry, optimism)
    }
    fn finished_margin(&self, game: &Game) -> Option<f32> {
        (**self).finished_margin(game)
    }
    fn plays_on_after_passes(&self, game: &Game) -> bool {
        (**self).plays_on_after_passes(game)
    }
}
