//! The PUCT bot's settings, [`PuctConfig`], with KataGo's defaults.

use std::time::Duration;

use tengen_search::shell::ResignRule;

/// Visits per move when neither visits, nor a time, nor a clock says
/// otherwise.
pub const DEFAULT_VISITS: u64 = 800;

/// The PUCT search's settings, by concern, with KataGo's defaults where it
/// has one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PuctConfig {
    /// How long a search runs and what it keeps: visits, playouts, time, the
    /// tree's size, the tree kept between moves and pondering.
    pub limits: SearchLimits,
    /// How leaves are gathered for the evaluator: the batch, its size under the
    /// budget, and descents in flight.
    pub batching: Batching,
    /// How the search explores: PUCT's exploration constant, first-play
    /// urgency, the root's policy temperature and noise.
    pub exploration: Exploration,
    /// What a result is worth beside winning: KataGo's static and dynamic score
    /// utilities.
    pub utility: ScoreUtility,
    /// How evaluations are weighed and backed up: uncertainty weights, the
    /// subtree value bias, transpositions, value weighting and noise pruning.
    pub values: ValueUpdate,
    /// How the move is chosen from the search: the lower confidence bound,
    /// passing, anti-mirror play.
    pub selection: MoveSelection,
    /// When the bot resigns.
    pub resignation: ResignSettings,
}

/// How long a search runs and what it keeps: visits, playouts, time, the tree's
/// size, the tree kept between moves and pondering. Part of [`PuctConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct SearchLimits {
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
    /// Most nodes the tree may hold; the search stops growing there.
    pub max_nodes: usize,
    /// Keep the subtree of the moves played between searches.
    pub reuse: bool,
    /// Search on during the opponent's turn ([`Agent::ponder`](tengen_core::Agent::ponder)), the tree
    /// kept for the next move (KataGo's `ponderingEnabled`, off by
    /// default). Needs `reuse`.
    pub ponder: bool,
    /// The longest a ponder runs (KataGo's `maxTimePondering`, 60 s): a
    /// GUI left open does not keep a core busy for ever.
    pub ponder_time: Duration,
}

impl Default for SearchLimits {
    fn default() -> Self {
        SearchLimits {
            visits: None,
            playouts: None,
            time: None,
            max_nodes: 2_000_000,
            reuse: true,
            ponder: false,
            ponder_time: Duration::from_secs(60),
        }
    }
}

/// How leaves are gathered for the evaluator: the batch, its size under the
/// budget, and descents in flight. Part of [`PuctConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct Batching {
    /// Leaves evaluated per evaluator call (the network's batch). 1 is a
    /// plain sequential search; larger batches use virtual loss.
    pub size: usize,
    /// Make batches no larger than one leaf for every 32 visits of the
    /// budget: single positions up to 63 visits, batches of 2 at 64
    /// (virtual loss spreads a wide batch over moves a sequential search
    /// would not try, and on one CPU thread batching gains little), but
    /// never fewer than the evaluator's threads. Under a clock the budget
    /// is the visits the time left affords at the cost per visit measured
    /// so far.
    pub adaptive: bool,
    /// Descents kept in flight, as KataGo's search threads keep them (the
    /// analysis engine's `numSearchThreads`; 1, the default, is a plain
    /// synchronous batch). Each of KataGo's threads starts a new descent
    /// as soon as its own evaluation is back, so every descent sees the
    /// virtual losses of the other threads' descents, which spreads the
    /// visits over more moves. Above 1, a batch takes this many leaves
    /// (at most [`size`](Self::size), at least this many while the
    /// budget has them under [`adaptive`](Self::adaptive)),
    /// and its evaluations are backed up one at a time, oldest first, just
    /// before the descents that replace them: every descent sees the
    /// virtual losses of `in_flight − 1` others.
    pub in_flight: usize,
}

impl Default for Batching {
    fn default() -> Self {
        Batching {
            size: 16,
            adaptive: true,
            in_flight: 1,
        }
    }
}

/// How the search explores: PUCT's exploration constant, first-play urgency,
/// the root's policy temperature and noise. Part of [`PuctConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct Exploration {
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
    /// Temperature of the root's priors (`rootPolicyTemperature`, 1):
    /// above 1 the search spreads wider.
    pub root_policy_temperature: f32,
    /// KataGo's `wideRootNoise` (0, off): at the root, priors flattened
    /// and random bonuses to the moves' values, for analysis that looks at
    /// more moves; it does not change how a move is chosen.
    pub wide_root_noise: f32,
    /// Search one move of each set of moves that are images of one another
    /// when the root's board is symmetric, and report the others as its
    /// copies (KataGo's `rootSymmetryPruning`, on in its GTP and analysis
    /// engines; see [`symmetry`](crate::symmetry)).
    pub root_symmetry_pruning: bool,
    /// Weight of Dirichlet noise mixed into the root's priors (0 = off, the
    /// default; AlphaZero self-play uses 0.25).
    pub noise_weight: f32,
    /// Total concentration of that noise, spread over the root's moves
    /// (KataGo's 10.83, i.e. 0.03 per move on 19×19).
    pub noise_concentration: f32,
    /// Seed of the noise.
    pub noise_seed: u64,
}

impl Default for Exploration {
    fn default() -> Self {
        Exploration {
            c_puct: 1.0,
            c_puct_log: 0.45,
            c_puct_base: 500.0,
            fpu_reduction: 0.2,
            root_fpu_reduction: 0.1,
            fpu_parent_blend: true,
            cpuct_stdev_scale: 0.85,
            cpuct_stdev_prior: 0.40,
            cpuct_stdev_prior_weight: 2.0,
            root_policy_temperature: 1.0,
            wide_root_noise: 0.0,
            root_symmetry_pruning: true,
            noise_weight: 0.0,
            noise_concentration: 10.83,
            noise_seed: 0,
        }
    }
}

/// What a result is worth beside winning: KataGo's static and dynamic score
/// utilities. Part of [`PuctConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreUtility {
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
}

impl Default for ScoreUtility {
    fn default() -> Self {
        ScoreUtility {
            static_score_utility: 0.1,
            dynamic_score_utility: 0.3,
            dynamic_score_center_zero_weight: 0.2,
            dynamic_score_center_scale: 0.75,
            score_distribution: true,
        }
    }
}

/// How evaluations are weighed and backed up: uncertainty weights, the subtree
/// value bias, transpositions, value weighting and noise pruning. Part of
/// [`PuctConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct ValueUpdate {
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
    /// further below them it is ([`search::noise_pruned_weights`](crate::search::noise_pruned_weights)). On,
    /// as in KataGo's GTP engine.
    pub noise_pruning: bool,
}

impl Default for ValueUpdate {
    fn default() -> Self {
        ValueUpdate {
            uncertainty_weighting: true,
            uncertainty_coeff: 0.25,
            uncertainty_max_weight: 8.0,
            subtree_value_bias: 0.45,
            transpositions: true,
            value_weight_exponent: 0.25,
            noise_pruning: true,
        }
    }
}

/// How the move is chosen from the search: the lower confidence bound, passing,
/// anti-mirror play, the temperature of the choice. Part of [`PuctConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct MoveSelection {
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
    /// When the opponent has passed, value our own pass by the network as
    /// if the game went on instead of by the count of the board as it
    /// stands (KataGo's `conservativePass`, on in its GTP engine): the bare
    /// count knows no dead stones, so it would call a won game lost while
    /// dead stones are on the board, and the reverse.
    pub conservative_pass: bool,
    /// Points taken, at the root only, from moves that only prolong the
    /// game (KataGo's `rootEndingBonusPoints`, 0.5 in its GTP and analysis
    /// engines): a stone in an area the network is sure the player owns,
    /// away from the opponent and joining nothing, or in one it is sure
    /// the opponent owns, capturing nothing; under territory scoring a
    /// pass gives up two thirds of them instead. 0 turns it off (see
    /// `search::EndingBonus`).
    pub root_ending_bonus: f32,
    /// Do not pass (unless the opponent has just passed) while more than
    /// this fraction of the board is empty: an early pass is a mistake a
    /// network's value may not see. This is the only rule that overrides
    /// the search's choice of a pass.
    pub max_empty_to_pass: f32,
    /// Play against a mirroring opponent (KataGo's `antiMirror`, off):
    /// when the opponent has been answering every move with its reflection
    /// through the centre, lean towards the moves that break the mirror
    /// (see [`mirror`](crate::mirror)).
    pub anti_mirror: bool,
    /// The temperature of the move drawn among the searched ones at the
    /// start of the game (KataGo's `chosenMoveTemperatureEarly`: 0.5 in
    /// its GTP engine; here 0, the search's first choice): see
    /// [`temperature_at`](Self::temperature_at).
    pub temperature_early: f32,
    /// The temperature it falls towards (`chosenMoveTemperature`: 0.1 in
    /// KataGo's GTP engine; here 0).
    pub temperature_late: f32,
    /// Turns over which the temperature halves its distance to
    /// [`temperature_late`](Self::temperature_late) on 19×19, scaled by
    /// the board's side (`chosenMoveTemperatureHalflife`, 19).
    pub temperature_halflife: f32,
}

impl MoveSelection {
    /// The temperature of the chosen move at `turn` (turns played) on a
    /// board of `points`, as KataGo interpolates it: from
    /// [`temperature_early`](Self::temperature_early) halving towards
    /// [`temperature_late`](Self::temperature_late) every
    /// [`temperature_halflife`](Self::temperature_halflife) turns on
    /// 19×19, faster on a smaller board (every 9 turns on 9×9).
    pub fn temperature_at(&self, turn: usize, points: usize) -> f64 {
        let halflives =
            turn as f64 / f64::from(self.temperature_halflife) * 19.0 / (points as f64).sqrt();
        let (early, late) = (
            f64::from(self.temperature_early),
            f64::from(self.temperature_late),
        );
        late + (early - late) * 0.5f64.powf(halflives)
    }
}

impl Default for MoveSelection {
    fn default() -> Self {
        MoveSelection {
            lcb_selection: true,
            lcb_stdevs: 5.0,
            lcb_min_visits: 0.15,
            conservative_pass: true,
            root_ending_bonus: 0.5,
            max_empty_to_pass: 0.6,
            anti_mirror: false,
            temperature_early: 0.0,
            temperature_late: 0.0,
            temperature_halflife: 19.0,
        }
    }
}

/// When the bot resigns. Part of [`PuctConfig`].
#[derive(Clone, Debug, PartialEq)]
pub struct ResignSettings {
    /// Resign when the side to move's win rate has stayed below this for
    /// [`consecutive`](Self::consecutive) searches in a
    /// row (0 never resigns). KataGo's `resignThreshold` of −0.90 on the
    /// win−loss scale is a win rate of 0.05.
    pub threshold: f32,
    /// Searches in a row below the threshold before resigning
    /// (`resignConsecTurns`, 3).
    pub consecutive: u32,
    /// Root visits a search needs for its win rate to count towards
    /// resigning; a search whose visit limit is lower counts once it
    /// reaches that limit.
    pub min_visits: u64,
    /// No resignation before this many moves per point of the board
    /// (`resignMinMovesPerBoardArea`; 0.2 is move 17 on 9×9, 73 on 19×19).
    pub min_moves_per_point: f32,
}

impl ResignSettings {
    /// The rule the bot's lifecycle resigns by; `min_visits` stays with
    /// the search, which judges whether a search was large enough.
    pub fn rule(&self) -> ResignRule {
        ResignRule {
            threshold: self.threshold,
            consecutive: self.consecutive,
            min_moves_per_point: self.min_moves_per_point,
        }
    }
}

impl Default for ResignSettings {
    fn default() -> Self {
        ResignSettings {
            threshold: 0.05,
            consecutive: 3,
            min_visits: 16,
            min_moves_per_point: 0.2,
        }
    }
}
