//! A PUCT tree search guided by a policy/value network, AlphaZero and
//! KataGo style: no rollouts; every leaf is valued by the network, finished
//! games by the rules' own count.
//!
//! - Selection: `Q + c_puct · P · √N / (1 + n)` with `c_puct` growing slowly
//!   with the parent's visits (`c_puct + c_puct_log · ln((N + base) / base)`),
//!   first-play urgency for unvisited children (the parent's value minus
//!   `fpu_reduction · √(policy of the visited children)`, a smaller
//!   reduction at the root).
//! - Values are utilities: `P(win) − P(loss)` plus a bounded score term
//!   ([`search::Utility`]: KataGo's static and dynamic score utilities, an
//!   `atan` of the lead centred on 0 and near the root's expected lead).
//! - Batching: up to [`PuctConfig::batch`] leaves per round, spread by
//!   virtual loss and evaluated in one [`PositionEvaluator::evaluate`] call.
//! - Tree reuse after the moves played since the last search, limits on
//!   visits, time (the game's clock through [`tengen_search::time`]) and tree
//!   size, careful passing, resignation, analysis for GUIs.
//!
//! The network plugs in through [`PositionEvaluator`].
//!
//! KataGo's refinements are fields of [`PuctConfig`], on by default as in
//! KataGo's GTP engine: LCB move selection, exploration scaled by the
//! utility's spread, first-play urgency blended towards the parent's
//! network value, uncertainty-weighted playouts, the score utility over the
//! score's distribution, subtree value bias ([`bias`]) and policy optimism.
//!
//! Not done as KataGo does: positions reached by different move orders are
//! separate nodes (an evaluation cache shares their network evaluations,
//! not their subtrees), and the search runs on the caller's thread (the
//! evaluator parallelises a batch itself). Each descent clones the root
//! [`Game`] (history included, since the evaluator may want it), which is
//! cheap beside a network evaluation but not free.

pub mod batching;
pub mod bias;
pub mod cache;
pub mod katago;
pub mod mirror;
pub mod noise;
pub mod search;
pub mod tree;

use std::time::Duration;

use tengen_core::{
    Action, Agent, Analysis, AnalysisDetail, BoardSize, Candidate, Color, Game, Move, MoveFilter,
    Report, RootInfo, SelectRequest, TimeLeft, TimeSettings,
};

use self::search::{Limits, SearchStats, Searcher};
use self::tree::{sign, Tree, ROOT};
use tengen_search::shell::{
    answers_pass, lead_as_it_stands, Clock, KeptTree, ReportCadence, Reroot, Resignation,
};

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
    /// Whether it can evaluate boards of this size (`Err` with the reason
    /// otherwise).
    fn supports(&self, size: BoardSize) -> Result<(), String>;
    /// Name for logs and GTP.
    fn name(&self) -> &str;
    /// The network's raw answer as text (see
    /// [`Agent::raw_network_output`]); `None` if the evaluator has none.
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
}

/// Visits per move when neither visits, nor a time, nor a clock says
/// otherwise.
pub const DEFAULT_VISITS: u64 = 800;

/// Settings of [`PuctBot`], with KataGo's defaults where it has one.
#[derive(Clone, Debug, PartialEq)]
pub struct PuctConfig {
    /// Root visits to reach per move, visits kept from the previous move
    /// included (KataGo's `maxVisits`). `None`: no visit limit (then a time
    /// or the clock limits the search, or [`DEFAULT_VISITS`] when neither
    /// does).
    pub visits: Option<u64>,
    /// New visits per move, not counting kept ones (KataGo's
    /// `maxPlayouts`). `None`: no such limit.
    pub playouts: Option<u64>,
    /// Thinking time per move, capped further by the game's clock.
    pub time: Option<Duration>,
    /// Leaves evaluated per evaluator call (the network's batch). 1 is a
    /// plain sequential search; larger batches use virtual loss.
    pub batch: usize,
    /// Most nodes the tree may hold; the search stops growing there.
    pub max_nodes: usize,
    /// Base exploration constant (KataGo's `cpuctExploration`, 1.0).
    pub c_puct: f32,
    /// Growth of the exploration constant with the parent's visits
    /// (`cpuctExplorationLog`, 0.45).
    pub c_puct_log: f32,
    /// Visits scale of that growth (`cpuctExplorationBase`, 500).
    pub c_puct_base: f32,
    /// First-play urgency reduction below the root (`fpuReductionMax`, 0.2):
    /// an unvisited child is valued at the parent's value minus this times
    /// the square root of the policy mass already visited.
    pub fpu_reduction: f32,
    /// The same at the root (`rootFpuReductionMax`, 0.1).
    pub root_fpu_reduction: f32,
    /// Temperature of the root's priors (`rootPolicyTemperature`, 1):
    /// above 1 the search spreads wider.
    pub root_policy_temperature: f32,
    /// KataGo's `wideRootNoise` (0, off): at the root, priors flattened
    /// and random bonuses to the moves' values, for analysis that looks at
    /// more moves; it does not change how a move is chosen.
    pub wide_root_noise: f32,
    /// Play against a mirroring opponent (KataGo's `antiMirror`, off):
    /// when the opponent has been answering every move with its reflection
    /// through the centre, lean towards the moves that break the mirror
    /// (see [`mirror`]).
    pub anti_mirror: bool,
    /// The value first-play urgency starts from: the parent's average
    /// blended towards the network's own value of the parent by
    /// `1 − (visited policy)²` (KataGo's `fpuParentWeightByVisitedPolicy`,
    /// on).
    pub fpu_parent_blend: bool,
    /// Scale exploration by the spread of the parent's utility
    /// (`cpuctUtilityStdevScale`, 0.85; 0 turns it off).
    pub cpuct_stdev_scale: f32,
    /// The spread assumed before any visit (`cpuctUtilityStdevPrior`, 0.40).
    pub cpuct_stdev_prior: f32,
    /// How many visits that assumption weighs
    /// (`cpuctUtilityStdevPriorWeight`, 2).
    pub cpuct_stdev_prior_weight: f32,
    /// Choose the move by a lower confidence bound on its utility rather
    /// than by visits alone (`useLcbForSelection`, on): among the moves with
    /// at least [`lcb_min_visits`](Self::lcb_min_visits) of the most visited
    /// one's visits, the one whose utility minus
    /// [`lcb_stdevs`](Self::lcb_stdevs) standard errors is highest.
    pub lcb_selection: bool,
    /// Standard errors below the mean for the bound (`lcbStdevs`, 5).
    pub lcb_stdevs: f32,
    /// Share of the most visited move's visits a move needs to be chosen
    /// by its bound (`minVisitPropForLCB`, 0.15).
    pub lcb_min_visits: f32,
    /// Weight each evaluation by the network's certainty of it
    /// (`useUncertainty`): `coeff / (u + coeff / max)`, u the utility's
    /// short-term error the network predicts; finished games weigh `max`.
    pub uncertainty_weighting: bool,
    /// `uncertaintyCoeff`, 0.25.
    pub uncertainty_coeff: f32,
    /// `uncertaintyMaxWeight`, 8.
    pub uncertainty_max_weight: f32,
    /// Subtree value bias (`subtreeValueBiasFactor`, 0.45; 0 turns it
    /// off): the share of the difference between searched and network
    /// values that nodes of the same local situation showed, added to a
    /// new leaf's network value ([`crate::bias`]).
    pub subtree_value_bias: f32,
    /// Share what is learned of a position between the lines that reach
    /// it (KataGo's `useGraphSearch`, on): the first expanded node of a
    /// position owns its search; another node of the same position (a
    /// transposition) takes the owner's average while it has fewer visits
    /// than the owner, and passes its visits on into the owner's subtree
    /// once it has as many. A shared position costs one evaluation.
    /// Positions meet only where superko forbids the same moves
    /// ([`tengen_core::Game::superko_context`] is part of the key), so no
    /// line inherits another's illegal moves or misses its own.
    pub transpositions: bool,
    /// Weigh a node's children by how likely each is the best (KataGo's
    /// `valueWeightExponent`, 0.25; 0, the plain average, turns it off): a
    /// node's value is recomputed after every visit through it from its
    /// own evaluation and its children's values, each child's weight
    /// times `P(best)^exponent`, `P(best)` from its value's distance to
    /// their average in units of its uncertainty. Moves the search tried
    /// and found bad then drag their parent's value down less.
    pub value_weight_exponent: f32,
    /// Take out of a node's value the weight that noise gave its poorer
    /// children (KataGo's `useNoisePruning`): a child worse than the
    /// children of higher prior before it, with more than twice its share
    /// by policy of their weight, counts with less of that excess the
    /// further below them it is ([`search::noise_pruned_weights`]). On,
    /// as in KataGo's GTP engine.
    pub noise_pruning: bool,
    /// Make batches no larger than one leaf for every 32 visits of the
    /// budget: single positions up to 63 visits, batches of 2 at 64
    /// (virtual loss spreads a wide batch over moves a sequential search
    /// would not try, and on one CPU thread batching gains little), but
    /// never fewer than the evaluator's threads. Under a clock the budget
    /// is the visits the time left affords at the cost per visit measured
    /// so far.
    pub adaptive_batch: bool,
    /// Weight of the score utility centred on a draw
    /// (`staticScoreUtilityFactor`, 0.1).
    pub static_score_utility: f32,
    /// Weight of the score utility centred near the root's expected lead
    /// (`dynamicScoreUtilityFactor`, 0.3).
    pub dynamic_score_utility: f32,
    /// How far that centre is pulled from the expected lead towards 0
    /// (`dynamicScoreCenterZeroWeight`, 0.2).
    pub dynamic_score_center_zero_weight: f32,
    /// Width of the dynamic score utility, times √(board points)
    /// (`dynamicScoreCenterScale`, 0.75).
    pub dynamic_score_center_scale: f32,
    /// Take the score utility in expectation over the score's distribution
    /// (the network's score mean and standard deviation, as KataGo), rather
    /// than of the expected lead alone.
    pub score_distribution: bool,
    /// Weight of Dirichlet noise mixed into the root's priors (0 = off, the
    /// default; AlphaZero self-play uses 0.25).
    pub noise_weight: f32,
    /// Total concentration of that noise, spread over the root's moves
    /// (KataGo's 10.83, i.e. 0.03 per move on 19×19).
    pub noise_concentration: f32,
    /// Seed of the noise.
    pub noise_seed: u64,
    /// Resign when the side to move's win rate has stayed below this for
    /// [`resign_consecutive`](PuctConfig::resign_consecutive) searches in a
    /// row (0 never resigns). KataGo's `resignThreshold` of −0.90 on the
    /// win−loss scale is a win rate of 0.05.
    pub resign_threshold: f32,
    /// Searches in a row below the threshold before resigning
    /// (`resignConsecTurns`, 3).
    pub resign_consecutive: u32,
    /// Root visits a search needs for its win rate to count towards
    /// resigning; a search whose visit limit is lower counts once it
    /// reaches that limit.
    pub resign_min_visits: u64,
    /// No resignation before this many moves per point of the board
    /// (`resignMinMovesPerBoardArea`; 0.2 is move 17 on 9×9, 73 on 19×19).
    pub resign_min_moves_per_point: f32,
    /// When the opponent has passed, value our own pass by the network as
    /// if the game went on instead of by the count of the board as it
    /// stands (KataGo's `conservativePass`, on in its GTP engine): the bare
    /// count knows no dead stones, so it would call a won game lost while
    /// dead stones are on the board, and the reverse.
    pub conservative_pass: bool,
    /// Keep the subtree of the moves played between searches.
    pub reuse: bool,
    /// Search on during the opponent's turn ([`Agent::ponder`]), the tree
    /// kept for the next move (KataGo's `ponderingEnabled`, off by
    /// default). Needs `reuse`.
    pub ponder: bool,
    /// The longest a ponder runs (KataGo's `maxTimePondering`, 60 s): a
    /// GUI left open does not keep a core busy for ever.
    pub ponder_time: Duration,
    /// Do not pass (unless the opponent has just passed) while more than
    /// this fraction of the board is empty: an early pass is a mistake a
    /// network's value may not see. This is the only rule that overrides
    /// the search's choice of a pass.
    pub max_empty_to_pass: f32,
}

impl Default for PuctConfig {
    fn default() -> Self {
        PuctConfig {
            visits: None,
            playouts: None,
            time: None,
            batch: 16,
            max_nodes: 2_000_000,
            c_puct: 1.0,
            c_puct_log: 0.45,
            c_puct_base: 500.0,
            fpu_reduction: 0.2,
            root_fpu_reduction: 0.1,
            root_policy_temperature: 1.0,
            wide_root_noise: 0.0,
            anti_mirror: false,
            fpu_parent_blend: true,
            cpuct_stdev_scale: 0.85,
            cpuct_stdev_prior: 0.40,
            cpuct_stdev_prior_weight: 2.0,
            lcb_selection: true,
            lcb_stdevs: 5.0,
            lcb_min_visits: 0.15,
            adaptive_batch: true,
            subtree_value_bias: 0.45,
            transpositions: true,
            value_weight_exponent: 0.25,
            noise_pruning: true,
            uncertainty_weighting: true,
            uncertainty_coeff: 0.25,
            uncertainty_max_weight: 8.0,
            static_score_utility: 0.1,
            dynamic_score_utility: 0.3,
            dynamic_score_center_zero_weight: 0.2,
            dynamic_score_center_scale: 0.75,
            score_distribution: true,
            noise_weight: 0.0,
            noise_concentration: 10.83,
            noise_seed: 0,
            resign_threshold: 0.05,
            resign_consecutive: 3,
            resign_min_visits: 16,
            resign_min_moves_per_point: 0.2,
            conservative_pass: true,
            reuse: true,
            ponder: false,
            ponder_time: Duration::from_secs(60),
            max_empty_to_pass: 0.6,
        }
    }
}

/// One candidate of a [`PuctAnalysis`].
#[derive(Clone, Debug, PartialEq)]
pub struct PuctCandidate {
    /// The move.
    pub mv: Move,
    /// Visits of its subtree.
    pub visits: u64,
    /// Probability of no result after it (a long cycle under rules without
    /// superko).
    pub no_result: f32,
    /// Win rate of the side to move (at the root) after it, `(1 + win −
    /// loss) / 2`.
    pub winrate: f32,
    /// Expected lead of the side to move after it, in points.
    pub lead: f32,
    /// Expected final score of the side to move after it, as in self-play
    /// (the network's score mean; the lead when the evaluator has none).
    pub score_selfplay: f32,
    /// Standard deviation of that final score over the visits.
    pub score_stdev: f32,
    /// Total weight of its visits (each visit's certainty when playouts
    /// are weighted by uncertainty, else 1 a visit).
    pub weight: f64,
    /// Utility of the side to move after it.
    pub utility: f32,
    /// A lower confidence bound of that utility ([`lcb_of`]).
    pub utility_lcb: f32,
    /// The same bound on the win rate's scale (half the utility's radius
    /// below the win rate).
    pub lcb: f32,
    /// The network's prior (legal moves renormalised, before noise).
    pub prior: f32,
    /// The expected continuation, starting with the move.
    pub pv: Vec<Move>,
    /// Visits of the position after each move of `pv`.
    pub pv_visits: Vec<u64>,
    /// Black's ownership after the move (as [`PuctAnalysis::ownership`]),
    /// over this search's evaluations below it; empty unless asked for.
    pub ownership: Vec<f32>,
    /// The standard deviation of that ownership over the same
    /// evaluations; empty unless both are asked for.
    pub ownership_stdev: Vec<f32>,
}

/// The full view of a search: [`Analysis`] plus score leads and utilities,
/// which [`Analysis`] has no place for.
#[derive(Clone, Debug, PartialEq)]
pub struct PuctAnalysis {
    /// Root visits.
    pub visits: u64,
    /// The side to move's win rate over the whole root.
    pub root_winrate: f32,
    /// The side to move's expected lead over the whole root.
    pub root_lead: f32,
    /// The side to move's utility over the whole root.
    pub root_utility: f32,
    /// The side to move's expected final score (as in self-play) over the
    /// whole root.
    pub root_score_selfplay: f32,
    /// Standard deviation of that score over the whole root.
    pub root_score_stdev: f32,
    /// Total weight of the root's visits.
    pub root_weight: f64,
    /// The network's own evaluation of the root, before any search; `None`
    /// when an earlier search evaluated the root (a kept tree).
    pub raw: Option<RawRoot>,
    /// Candidates with a visit, the most visited first (ties: the better
    /// value first).
    pub candidates: Vec<PuctCandidate>,
    /// Black's ownership, row-major from the top-left corner (as
    /// [`Analysis::ownership`]), averaged over the evaluations this search
    /// made in the root's subtree; empty if the evaluator gives none, or if
    /// the search made no evaluation (a kept tree already at the limit).
    pub ownership: Vec<f32>,
    /// The standard deviation of that ownership over the same evaluations;
    /// empty unless asked for.
    pub ownership_stdev: Vec<f32>,
}

impl PuctAnalysis {
    /// The [`Analysis`] GTP and the web page read: the win rate is the most
    /// visited candidate's (the root's when there is none).
    pub fn to_analysis(&self) -> Analysis {
        Analysis {
            playouts: self.visits,
            winrate: self
                .candidates
                .first()
                .map_or(self.root_winrate, |c| c.winrate),
            candidates: self
                .candidates
                .iter()
                .map(|c| Candidate {
                    mv: c.mv,
                    visits: c.visits,
                    winrate: c.winrate,
                    prior: c.prior,
                    score_lead: Some(c.lead),
                    pv: c.pv.clone(),
                    pv_visits: c.pv_visits.clone(),
                    utility: Some(c.utility),
                    lcb: Some(c.lcb),
                    ownership: c.ownership.clone(),
                })
                .collect(),
            ownership: self.ownership.clone(),
            ownership_stdev: self.ownership_stdev.clone(),
            root: Some(RootInfo {
                visits: self.visits,
                winrate: self.root_winrate,
                score_lead: Some(self.root_lead),
                utility: Some(self.root_utility),
            }),
        }
    }
}

/// The network's evaluation of a search's root, from the side to move's
/// point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct RawRoot {
    /// Win rate, `(1 + win − loss) / 2`.
    pub winrate: f32,
    /// Expected lead in points.
    pub lead: f32,
    /// Expected final score as in self-play, if the evaluator gives it.
    pub score_selfplay: Option<f32>,
    /// Standard deviation of that score, if given.
    pub score_stdev: Option<f32>,
    /// Probability of no result.
    pub no_result: f32,
    /// The network's short-term errors of the win−loss value and of the
    /// score, if given.
    pub shortterm_error: Option<(f32, f32)>,
    /// How long a meaningful game is left, if given.
    pub var_time_left: Option<f32>,
    /// The policy row by row from the top-left corner, the pass last; −1
    /// for illegal moves.
    pub policy: Vec<f32>,
}

impl RawRoot {
    /// The raw view of `eval`, the evaluation of a position of this size.
    pub fn new(eval: &NetEvaluation, size: BoardSize) -> RawRoot {
        let (width, height) = (size.width(), size.height());
        let mut policy = vec![-1.0f32; width * height + 1];
        for &(mv, p) in &eval.policy {
            let index = match mv {
                Move::Pass => width * height,
                Move::Play(point) => {
                    let (col, row) = size.col_row(point);
                    (height - 1 - row) * width + col
                }
            };
            policy[index] = p;
        }
        let (score_selfplay, score_stdev) = match (eval.score_mean, eval.score_mean_sq) {
            (Some(mean), Some(sq)) => (
                Some(mean),
                Some(
                    (f64::from(sq) - f64::from(mean) * f64::from(mean))
                        .max(0.0)
                        .sqrt() as f32,
                ),
            ),
            (mean, _) => (mean, None),
        };
        RawRoot {
            winrate: 0.5 * (1.0 + eval.win - eval.loss),
            lead: eval.lead,
            score_selfplay,
            score_stdev,
            no_result: eval.no_result,
            shortterm_error: eval.shortterm_error,
            var_time_left: eval.var_time_left,
            policy,
        }
    }
}

/// What [`PuctBot::analyse`] is asked beyond the bot's own limits.
pub struct AnalyseRequest<'a> {
    /// Stops the search early (a terminate).
    pub stop: &'a dyn Fn() -> bool,
    /// Moves kept out near the root.
    pub filters: &'a [MoveFilter],
    /// The optional parts of the analysis to gather.
    pub detail: AnalysisDetail,
    /// Reports during the search: how often, and where.
    pub report: Option<DetailedReport<'a>>,
}

/// How often to report, and where: [`Analysis`] for GTP and the web page,
/// or the full [`PuctAnalysis`].
enum Reporting<'a, 'b> {
    Plain(&'a mut Report<'b>),
    Detailed(&'a mut DetailedReport<'b>),
}

/// Reports of the full analysis during a search.
pub struct DetailedReport<'a> {
    /// About how often.
    pub interval: Duration,
    /// Called with the search's current analysis.
    pub sink: &'a mut dyn FnMut(&PuctAnalysis),
}

/// What a request asks of one search beyond its limits.
#[derive(Clone, Copy, Debug, Default)]
struct SearchOptions<'a> {
    /// `kgs-genmove_cleanup`: capture dead stones before passing.
    cleanup: bool,
    /// Moves kept out near the root (`avoid`, `allow`).
    filters: &'a [MoveFilter],
    /// The optional parts of the analysis to gather.
    detail: AnalysisDetail,
}

/// The PUCT bot over a [`PositionEvaluator`].
pub struct PuctBot<E: PositionEvaluator> {
    config: PuctConfig,
    evaluator: E,
    name: String,
    kept: KeptTree<Tree>,
    clock: Clock,
    analysis: Option<PuctAnalysis>,
    last_stats: Option<SearchStats>,
    resignation: Resignation,
}

impl<E: PositionEvaluator> PuctBot<E> {
    /// The bot searching with `evaluator`.
    pub fn new(config: PuctConfig, evaluator: E) -> Self {
        let name = format!("puct({})", evaluator.name());
        PuctBot {
            kept: KeptTree::new(config.reuse),
            clock: Clock::default(),
            analysis: None,
            last_stats: None,
            resignation: Resignation::new(config.resign_threshold, config.resign_consecutive)
                .after(config.resign_min_moves_per_point),
            config,
            evaluator,
            name,
        }
    }

    /// The same bot under another name (the registry names it after the
    /// spec that built it, as every bot).
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// The settings.
    pub fn config(&self) -> &PuctConfig {
        &self.config
    }

    /// The settings, to change between moves.
    pub fn config_mut(&mut self) -> &mut PuctConfig {
        &mut self.config
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &E {
        &self.evaluator
    }

    /// What the last search did.
    pub fn last_search(&self) -> Option<&SearchStats> {
        self.last_stats.as_ref()
    }

    /// The last search's full analysis (leads and utilities included).
    pub fn detailed_analysis(&self) -> Option<&PuctAnalysis> {
        self.analysis.as_ref()
    }

    /// Nodes in the kept tree.
    pub fn tree_nodes(&self) -> usize {
        self.kept.tree().map_or(0, Tree::len)
    }

    /// Visits, in the kept tree, of the position reached from its root by
    /// `moves` (`None` if the tree does not hold it).
    pub fn kept_visits(&self, moves: &[Move]) -> Option<u64> {
        let tree = self.kept.tree()?;
        let id = tree.descendant(moves)?;
        Some(u64::from(tree.node(id).visits))
    }

    /// Searches `game` within the configured limits without choosing a
    /// move (the tree is kept for the next search when reuse is on).
    pub fn search(&mut self, game: &Game) -> SearchStats {
        let limits = self.limits(game);
        let tree = self.run_search(game, limits, None, &|| false, SearchOptions::default());
        self.keep(tree, game);
        self.last_stats.clone().unwrap_or_default()
    }

    /// Analyses `game` within the configured limits (visits, playouts,
    /// time) without choosing a move, reporting as asked; the analysis of
    /// the search, or `None` if the evaluator cannot evaluate this board.
    /// The tree is kept for the next search when reuse is on.
    pub fn analyse(&mut self, game: &Game, request: AnalyseRequest<'_>) -> Option<PuctAnalysis> {
        self.evaluator.supports(game.size()).ok()?;
        let limits = self.limits(game);
        let options = SearchOptions {
            cleanup: false,
            filters: request.filters,
            detail: request.detail,
        };
        let tree = match request.report {
            Some(mut sink) => self.run_search(
                game,
                limits,
                Some(Reporting::Detailed(&mut sink)),
                request.stop,
                options,
            ),
            None => self.run_search(game, limits, None, request.stop, options),
        };
        self.keep(tree, game);
        self.analysis.clone()
    }

    /// The search's limits for this move.
    fn limits(&self, game: &Game) -> Limits {
        let (target_time, max_time) = self.clock.think_times(self.config.time, game);
        let mut limits = Limits {
            visits: self.config.visits,
            playouts: self.config.playouts,
            target_time,
            max_time,
        };
        if limits.visits.is_none() && limits.playouts.is_none() && limits.max_time.is_none() {
            limits.visits = Some(DEFAULT_VISITS);
        }
        limits
    }

    /// The tree for `game`: the kept one re-rooted at this position when the
    /// game continues its history with alternating moves, else a fresh one.
    fn take_tree(&mut self, game: &Game) -> Tree {
        // The settings may change between moves (`config_mut`).
        self.kept.set_reuse(self.config.reuse);
        self.kept
            .take(game)
            .filter(|tree| !self.config.conservative_pass || !tree.root_pass_is_terminal())
            .unwrap_or_else(|| Tree::new(game.to_move(), self.config.max_nodes))
    }

    /// Runs one search of `game`, keeping its analysis, statistics and tree.
    fn run_search(
        &mut self,
        game: &Game,
        limits: Limits,
        report: Option<Reporting<'_, '_>>,
        stop: &dyn Fn() -> bool,
        options: SearchOptions<'_>,
    ) -> Tree {
        let mut tree = self.take_tree(game);
        let mut config = self.config.clone();
        // Each turn of a game draws its own noise.
        config.noise_seed = self.config.noise_seed
            ^ (game.turn_count() as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let size = game.size();
        let to_move = game.to_move();
        let mut report = report;
        let mut cadence = ReportCadence::default();
        let mut searcher =
            Searcher::new(&mut tree, game, &self.evaluator, &config, options.cleanup);
        searcher.filters = options.filters.to_vec();
        searcher.detail = options.detail;
        let mut monitor = |s: &Searcher<'_, E>, elapsed: Duration| -> bool {
            match report.as_mut() {
                Some(Reporting::Plain(report)) => {
                    cadence.tick(Some(&mut **report), elapsed, || {
                        analysis_of(s, size, to_move).to_analysis()
                    });
                }
                Some(Reporting::Detailed(report)) if cadence.due(report.interval, elapsed) => {
                    (report.sink)(&analysis_of(s, size, to_move));
                }
                _ => {}
            }
            stop()
        };
        searcher.run(limits, &mut monitor, stop);
        let analysis = analysis_of(&searcher, size, to_move);
        let stats = searcher.stats.clone();
        if let Some(error) = &stats.error {
            tracing::error!(evaluator = self.evaluator.name(), %error, "search stopped");
        }
        tracing::info!(
            visits = stats.root_visits,
            new_visits = stats.new_visits,
            reused = stats.reused_visits,
            batches = stats.batches,
            seconds = stats.elapsed.as_secs_f64(),
            winrate = analysis.to_analysis().winrate,
            nodes = tree.len(),
            "puct search finished"
        );
        self.analysis = Some(analysis);
        self.last_stats = Some(stats);
        tree
    }

    /// Keeps `tree`, grown for `game`'s position, for the next search when
    /// reuse is on.
    fn keep(&mut self, tree: Tree, game: &Game) {
        self.kept.set_reuse(self.config.reuse);
        self.kept.keep(tree, game);
    }

    /// Searches and chooses the action for `game`.
    ///
    /// Passing, as KataGo passes: the search decides, with the pass valued
    /// by the network as if the game went on ([`PuctConfig::conservative_pass`]);
    /// a pass is overridden only in the opening
    /// ([`PuctConfig::max_empty_to_pass`]). When the opponent has passed and
    /// the count as it stands (dead stones taken off) wins, the bot passes
    /// at once (KataGo's friendly pass). Never passing while behind would
    /// leave a lost bot nothing to play but moves inside its own area.
    fn choose(
        &mut self,
        game: &Game,
        report: Option<Reporting<'_, '_>>,
        options: SearchOptions<'_>,
        stop: &dyn Fn() -> bool,
    ) -> Action {
        let cleanup = options.cleanup;
        let to_move = game.to_move();
        if game.is_over() {
            return Action::Move(Move::Pass);
        }
        if answers_pass(game, cleanup, || lead_as_it_stands(game, to_move) > 0.0) {
            self.analysis = None;
            return Action::Move(Move::Pass);
        }
        let limits = self.limits(game);
        let tree = self.run_search(game, limits, report, stop, options);
        // A search of one visit evaluates only the root: its move is the
        // policy's first choice.
        let best = self
            .analysis
            .as_ref()
            .and_then(|a| a.candidates.first())
            .and_then(|c| tree.child_by_move(ROOT, c.mv))
            .or_else(|| tree.best_child(ROOT))
            .or_else(|| tree.likeliest_child(ROOT));
        let Some(best) = best else {
            // No evaluation at all (evaluator failure): a legal move, if any.
            self.keep(tree, game);
            return Action::Move(fallback_move(game));
        };
        let mut mv = tree.node(best).mv;
        if mv == Move::Pass && !self.pass_allowed(game) {
            if let Some(alternative) = best_non_pass(&tree, game) {
                mv = alternative;
            }
        }
        if game.legal(mv).is_err() {
            mv = fallback_move(game);
        }
        self.keep(tree, game);
        if self.should_resign(game, limits) {
            return Action::Resign;
        }
        Action::Move(mv)
    }

    /// Whether a pass chosen by the search may stand: always once the
    /// opponent has passed; otherwise not while much of the board is still
    /// empty.
    fn pass_allowed(&self, game: &Game) -> bool {
        if game.consecutive_passes() > 0 {
            return true;
        }
        let empty = game.board().empty_count() as f32;
        let points = game.size().points_count() as f32;
        empty <= self.config.max_empty_to_pass * points
    }

    /// Updates the streak of low win rates with the last search of `game`
    /// (made within `limits`) and says whether to resign.
    fn should_resign(&mut self, game: &Game, limits: Limits) -> bool {
        let Some(analysis) = &self.analysis else {
            return false;
        };
        // The settings may change between moves (`config_mut`).
        self.resignation.threshold = self.config.resign_threshold;
        self.resignation.consecutive = self.config.resign_consecutive;
        self.resignation.min_moves_per_point = self.config.resign_min_moves_per_point;
        // A search told to stop sooner is trusted at its limit.
        let needed = [limits.visits, limits.playouts]
            .into_iter()
            .flatten()
            .fold(self.config.resign_min_visits, u64::min);
        let trusted = analysis.visits >= needed.max(1);
        self.resignation
            .update_in(game, analysis.to_analysis().winrate, trusted)
    }
}

/// The most visited root child other than a pass, legal in `game` (ties:
/// the higher prior); `None` if there is none.
fn best_non_pass(tree: &Tree, game: &Game) -> Option<Move> {
    tree.children(ROOT)
        .map(|c| tree.node(c))
        .filter(|n| n.mv != Move::Pass && !n.excluded && game.legal(n.mv).is_ok())
        .max_by(|a, b| {
            a.edge_visits()
                .cmp(&b.edge_visits())
                .then(a.raw_prior.total_cmp(&b.raw_prior))
        })
        .map(|n| n.mv)
}

/// A legal move when the search gave nothing: the first legal point, else
/// a pass.
fn fallback_move(game: &Game) -> Move {
    game.legal_moves()
        .into_iter()
        .find(|mv| *mv != Move::Pass)
        .unwrap_or(Move::Pass)
}

/// The analysis of a search's root, whose position has `to_move` to play.
fn analysis_of<E: PositionEvaluator + ?Sized>(
    searcher: &Searcher<'_, E>,
    size: BoardSize,
    to_move: Color,
) -> PuctAnalysis {
    let tree = &*searcher.tree;
    let utility = &searcher.utility;
    let s = sign(to_move);
    let mut children: Vec<_> = tree
        .children(ROOT)
        .filter(|&c| tree.node(c).visits > 0 && !tree.node(c).excluded)
        .collect();
    let value = |c| search::mean_utility(tree, c).map_or(0.0, |u| s * u);
    children.sort_by(|&a, &b| {
        tree.node(b)
            .edge_visits()
            .cmp(&tree.node(a).edge_visits())
            .then(value(b).total_cmp(&value(a)))
    });
    let config = searcher.config();
    let range = utility.range();
    let mut bounds: Vec<(f64, f64)> = children
        .iter()
        .map(|&c| lcb_of(tree.node(c), s, range, f64::from(config.lcb_stdevs)))
        .collect();
    // The chosen move goes first: the order is the choice.
    let values: Vec<f64> = children.iter().map(|&c| value(c)).collect();
    if let Some(i) = play_choice(searcher, &children, &values, &bounds).filter(|&i| i > 0) {
        children[..=i].rotate_right(1);
        bounds[..=i].rotate_right(1);
    }
    finish_analysis(searcher, size, to_move, &children, &bounds)
}

/// The index of the root child to play among `children` (visited, with
/// their utilities for the side to move and their lower bounds), as
/// KataGo's play selection picks it:
///
/// - each child weighs its [`edge weight`](tree::Node::edge_weight);
/// - the reference child is the heaviest, less one visit's worth of its
///   weight (the last visit may be overweighted) and plus twice its prior,
///   so that a tie at few visits goes to the policy's favourite;
/// - every other child keeps no more weight than the search would have
///   given it knowing what it knows now: the weight at which its PUCT
///   value would equal the reference's, rounded up;
/// - with LCB selection, among the children with at least
///   [`lcb_min_visits`](PuctConfig::lcb_min_visits) of the reference's
///   weight the one with the highest lower bound is raised above each
///   other child by how far its bound clears theirs, relative to their
///   uncertainty.
///
/// The heaviest after all this is played; ties go to the reference, then
/// to the earlier child.
fn play_choice<E: PositionEvaluator + ?Sized>(
    searcher: &Searcher<'_, E>,
    children: &[tree::NodeId],
    values: &[f64],
    bounds: &[(f64, f64)],
) -> Option<usize> {
    let tree = &*searcher.tree;
    let config = searcher.config();
    let nodes: Vec<&tree::Node> = children.iter().map(|&c| tree.node(c)).collect();
    let weights: Vec<f64> = nodes.iter().map(|n| n.edge_weight()).collect();
    let goodness = |i: usize| {
        let visits = f64::from(nodes[i].edge_visits());
        weights[i] * (visits - 1.0).max(0.0) / visits.max(1.0) + 2.0 * f64::from(nodes[i].prior)
    };
    let all: Vec<usize> = (0..children.len()).collect();
    let reference = first_max(&all, goodness)?;
    let total: f64 = weights.iter().sum();
    let scaling = searcher.root_explore_scaling(total);
    // The reference's PUCT value, with no visit in flight.
    let target = values[reference]
        + scaling * f64::from(nodes[reference].prior) / (1.0 + weights[reference]);
    let mut selection = weights.clone();
    for (i, w) in selection.iter_mut().enumerate() {
        if i == reference {
            continue;
        }
        let room = target - values[i];
        let wanted = if room <= 0.0 {
            f64::INFINITY
        } else {
            (scaling * f64::from(nodes[i].prior) / room - 1.0).max(0.0)
        };
        *w = w.min(wanted).ceil();
    }
    // Ties go to the reference, then to the earlier child.
    let order: Vec<usize> = std::iter::once(reference)
        .chain((0..children.len()).filter(|&i| i != reference))
        .collect();
    if config.lcb_selection {
        let floor = f64::from(config.lcb_min_visits) * weights[reference];
        let eligible = |i: usize| selection[i] > 0.0 && selection[i] >= floor;
        let best = first_max(&order, |i| {
            if eligible(i) {
                bounds[i].0
            } else {
                f64::NEG_INFINITY
            }
        })
        .filter(|&i| eligible(i));
        if let Some(k) = best {
            let mut raised = selection[k];
            for i in (0..children.len()).filter(|&i| i != k) {
                let excess = bounds[k].0 - bounds[i].0;
                if excess < 0.0 {
                    // Better bounded, but not searched enough to choose.
                    continue;
                }
                let radius = bounds[i].1;
                // Variance falls as the weight grows: a bound cleared by
                // `excess` is worth the weight that would shrink the
                // other's radius that much (at most 25 times).
                let factor = (radius + excess) / (radius + 0.2 * excess);
                let equivalent = factor * factor * selection[i];
                if equivalent > raised {
                    raised = equivalent;
                }
            }
            selection[k] = raised;
        }
    }
    first_max(&order, |i| selection[i])
}

/// The first index of `order` where `f` is greatest; `None` if `order` is
/// empty. NaN never wins.
fn first_max(order: &[usize], f: impl Fn(usize) -> f64) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for &i in order {
        let x = f(i);
        if best.is_none_or(|(_, b)| x > b) && !x.is_nan() {
            best = Some((i, x));
        }
    }
    best.map(|(i, _)| i)
}

/// A lower confidence bound of the utility of `node` for the side with
/// sign `s`, and its radius, as KataGo bounds it: the mean less `stdevs`
/// standard errors, the variance given a prior of the widest spread there
/// is (`range`) weighing `1/n²` visits so that few visits mean a wide
/// bound. An unvisited node gets the widest bound.
pub fn lcb_of(node: &tree::Node, s: f64, range: f64, stdevs: f64) -> (f64, f64) {
    let widest = 2.0 * range * stdevs;
    let Some((mean, variance)) = node.utility_moments() else {
        return (-widest, widest);
    };
    // The effective sample size of the (possibly weighted) visits.
    let n = node.weight_sum;
    let ess = n * n / node.weight_sq_sum.max(1e-12);
    let mean_sq = variance + mean * mean;
    let prior_weight = n / (ess * ess * ess);
    let mean_sq = (mean_sq * n + (mean_sq + range * range) * prior_weight) / (n + prior_weight);
    let weight = n + prior_weight;
    let weight_sq = node.weight_sq_sum + prior_weight * prior_weight;
    let ess = weight * weight / weight_sq;
    let radius = ((mean_sq - mean * mean).max(0.0) / ess).sqrt() * stdevs;
    (s * mean - radius, radius)
}

/// The analysis of the root with its children in the order given and
/// their bounds.
fn finish_analysis<E: PositionEvaluator + ?Sized>(
    searcher: &Searcher<'_, E>,
    size: BoardSize,
    to_move: Color,
    children: &[tree::NodeId],
    bounds: &[(f64, f64)],
) -> PuctAnalysis {
    let tree = &*searcher.tree;
    let s = sign(to_move);
    let value = |c| search::mean_utility(tree, c).map_or(0.0, |u| s * u);
    let candidates = children
        .iter()
        .enumerate()
        .map(|(k, &c)| {
            let node = tree.node(c);
            let mut pv = vec![node.mv];
            pv.extend(tree.principal_variation(c, 20));
            let mut pv_visits = vec![u64::from(node.edge_visits())];
            let mut at = c;
            while pv_visits.len() < pv.len() {
                let Some(next) = tree.best_child(at) else {
                    break;
                };
                pv_visits.push(u64::from(tree.node(next).edge_visits()));
                at = next;
            }
            let winrate = node.winrate_for(to_move).unwrap_or(0.5) as f32;
            let (utility_lcb, radius) = bounds[k];
            let (score, score_stdev) = node.black_score().unwrap_or((0.0, 0.0));
            let no_result = if node.weight_sum > 0.0 {
                (1.0 - (node.black_win_sum + node.white_win_sum) / node.weight_sum).clamp(0.0, 1.0)
            } else {
                0.0
            };
            PuctCandidate {
                mv: node.mv,
                visits: u64::from(node.edge_visits()),
                no_result: no_result as f32,
                winrate,
                lead: (s * node.black_lead().unwrap_or(0.0)) as f32,
                score_selfplay: (s * score) as f32,
                score_stdev: score_stdev as f32,
                weight: node.weight_sum,
                utility: value(c) as f32,
                utility_lcb: utility_lcb as f32,
                lcb: (winrate - (radius / 2.0) as f32).clamp(0.0, 1.0),
                prior: node.raw_prior,
                pv,
                pv_visits,
                ownership: searcher
                    .moves_ownership
                    .get(&c)
                    .map_or_else(Vec::new, |own| own.mean_rows(size)),
                ownership_stdev: match searcher.moves_ownership.get(&c) {
                    Some(own) if searcher.detail.ownership_stdev => own.stdev_rows(size),
                    _ => Vec::new(),
                },
            }
        })
        .collect();
    let root = tree.root();
    let ownership = &searcher.ownership;
    let (root_score, root_score_stdev) = root.black_score().unwrap_or((0.0, 0.0));
    PuctAnalysis {
        visits: u64::from(root.visits),
        root_winrate: root.winrate_for(to_move).unwrap_or(0.5) as f32,
        root_lead: (s * root.black_lead().unwrap_or(0.0)) as f32,
        root_utility: search::mean_utility(tree, ROOT).map_or(0.0, |u| s * u) as f32,
        root_score_selfplay: (s * root_score) as f32,
        root_score_stdev: root_score_stdev as f32,
        root_weight: root.weight_sum,
        raw: searcher
            .root_evaluation
            .as_ref()
            .map(|eval| RawRoot::new(eval, size)),
        candidates,
        ownership: ownership.mean_rows(size),
        ownership_stdev: if searcher.detail.ownership_stdev {
            ownership.stdev_rows(size)
        } else {
            Vec::new()
        },
    }
}

impl<E: PositionEvaluator> Agent for PuctBot<E> {
    fn name(&self) -> &str {
        &self.name
    }

    fn select_move(&mut self, game: &Game) -> Action {
        self.choose(game, None, SearchOptions::default(), &|| false)
    }

    fn select(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> Action {
        let options = SearchOptions {
            cleanup: request.cleanup,
            filters: &request.filters,
            detail: request.detail,
        };
        let report = request.report.as_mut().map(Reporting::Plain);
        self.choose(game, report, options, request.stop)
    }

    fn plays_size(&self, size: BoardSize) -> Result<(), String> {
        self.evaluator.supports(size)
    }

    fn reset(&mut self) {
        self.kept.clear();
        self.analysis = None;
        self.last_stats = None;
        self.resignation.reset();
    }

    fn set_time_settings(&mut self, settings: TimeSettings) {
        self.clock.set_settings(settings);
    }

    fn set_time_left(&mut self, color: Color, left: TimeLeft) {
        self.clock.set_left(color, left);
    }

    fn analysis(&self) -> Option<Analysis> {
        self.analysis.as_ref().map(PuctAnalysis::to_analysis)
    }

    fn ponder(&mut self, game: &Game, stop: &dyn Fn() -> bool) {
        if !self.config.ponder
            || !self.config.reuse
            || game.is_over()
            || self.evaluator.supports(game.size()).is_err()
        {
            return;
        }
        let limits = Limits {
            max_time: Some(self.config.ponder_time),
            ..Limits::default()
        };
        // The analysis of the bot's own move stays what GUIs read.
        let analysis = self.analysis.take();
        let stats = self.last_stats.take();
        let tree = self.run_search(game, limits, None, stop, SearchOptions::default());
        self.keep(tree, game);
        tracing::debug!(
            visits = self.last_stats.as_ref().map_or(0, |s| s.root_visits),
            "pondered"
        );
        self.analysis = analysis;
        self.last_stats = stats;
    }

    fn analyze(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> bool {
        if self.evaluator.supports(game.size()).is_err() {
            return false;
        }
        let limits = Limits::default();
        let stop = request.stop;
        let options = SearchOptions {
            cleanup: false,
            filters: &request.filters,
            detail: request.detail,
        };
        let report = request.report.as_mut().map(Reporting::Plain);
        let tree = self.run_search(game, limits, report, stop, options);
        self.keep(tree, game);
        // The tree may have filled up (or the game be over) before the stop:
        // keep reporting the last analysis until then.
        let mut last = std::time::Instant::now();
        while !stop() {
            let interval = request
                .report
                .as_ref()
                .map_or(Duration::from_millis(10), |report| report.interval);
            std::thread::sleep(Duration::from_millis(10).min(interval));
            if last.elapsed() >= interval {
                if let (Some(analysis), Some(report)) = (self.analysis(), request.report.as_mut()) {
                    (report.sink)(&analysis);
                }
                last = std::time::Instant::now();
            }
        }
        true
    }
}

#[cfg(test)]
mod tests;

impl Reroot for Tree {
    fn reroot(&self, moves: &[Move]) -> Option<Tree> {
        Tree::reroot(self, moves)
    }
}
