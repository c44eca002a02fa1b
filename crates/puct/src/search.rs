//! The search loop: PUCT selection with virtual loss, batched network
//! evaluation, exact scoring of finished games, backup.
//!
//! One round collects up to `batch` leaves: each descent from the root
//! adds a virtual loss to every node it passes, so the next descent of the
//! same round is steered elsewhere. The leaves go to the evaluator in one
//! call; then each is expanded with its policy and its value is backed up
//! (the virtual losses come off). A descent that ends in a finished game
//! (two passes) backs up the game's own count at once, without the network.
//! Everything runs on the caller's thread, so a search is deterministic for
//! a deterministic evaluator. The one exception: an evaluator that can give
//! a batch up part-way ([`PositionEvaluator::abandons`]) runs its batch on a
//! helper thread while the caller's thread watches the stop signal, so that
//! a search told to stop does not first finish a batch that may take a
//! second.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tengen_core::scoring::{game_status, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED};
use tengen_core::splitmix64;
use tengen_core::{AnalysisDetail, BoardSize, Color, Game, Move, MoveFilter, Outcome, MAX_CELLS};

use super::bias::{situation_key, NO_ENTRY};
use super::noise::dirichlet;
use super::tree::{position_key, sign, LeafValue, NodeId, NodeState, Tree, ROOT};
use super::{EvaluatorError, NetEvaluation, PositionEvaluator, PuctConfig};

/// When a search stops.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// Visits of the root to reach, those kept from earlier searches
    /// included (KataGo's `maxVisits`).
    pub visits: Option<u64>,
    /// New visits to make in this search (KataGo's `maxPlayouts`).
    pub playouts: Option<u64>,
    /// Time to stop at when the most visited move leads clearly.
    pub target_time: Option<Duration>,
    /// Time never to pass.
    pub max_time: Option<Duration>,
}

/// Visits of the budget per leaf of a batch under `adaptive_batch`.
///
/// On one CPU thread a batch of 8 evaluates only a few percent more
/// positions a second than single positions (7% on 9×9, none on 19×19, for
/// katrain's b10c384 network), while its virtual losses spread the leaves
/// over moves a sequential search would not try (at 64 visits a move on
/// 9×9, batches of 8 scored 31% against KataGo's one-at-a-time search; see
/// docs/experiments). So a batch takes at most one leaf for every 32
/// visits of the budget: 1 up to 63 visits, 2 at 64, 8 from 256; but at
/// least one per thread of the evaluator.
const VISITS_PER_BATCH_LEAF: u64 = 32;

/// Ownership summed over the evaluations of a search, from Black's point of
/// view, by [`tengen_core::Point::index`].
#[derive(Clone, Debug)]
pub struct OwnershipSum {
    /// Sum per point index.
    pub sum: Vec<f64>,
    /// Sum of squares per point index.
    pub sum_sq: Vec<f64>,
    /// Evaluations summed.
    pub samples: u32,
}

impl Default for OwnershipSum {
    fn default() -> Self {
        OwnershipSum {
            sum: vec![0.0; MAX_CELLS],
            sum_sq: vec![0.0; MAX_CELLS],
            samples: 0,
        }
    }
}

impl OwnershipSum {
    /// The mean per point, row-major from the top-left corner (as
    /// [`tengen_core::Analysis::ownership`]); empty without samples.
    pub fn mean_rows(&self, size: BoardSize) -> Vec<f32> {
        self.rows(size, |sum, _| sum / f64::from(self.samples))
    }

    /// The standard deviation per point, in the same order; empty without
    /// samples.
    pub fn stdev_rows(&self, size: BoardSize) -> Vec<f32> {
        let n = f64::from(self.samples);
        self.rows(size, |sum, sq| {
            let mean = sum / n;
            (sq / n - mean * mean).max(0.0).sqrt()
        })
    }

    fn rows(&self, size: BoardSize, f: impl Fn(f64, f64) -> f64) -> Vec<f32> {
        if self.samples == 0 {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(size.points_count());
        for row in (0..size.height()).rev() {
            for col in 0..size.width() {
                let point = size.point(col, row).expect("on the board");
                let i = point.index();
                out.push(f(self.sum[i], self.sum_sq[i]) as f32);
            }
        }
        out
    }
}

impl OwnershipSum {
    /// Adds one evaluation's ownership (side to move `to_move`'s view).
    pub fn add(&mut self, game: &Game, to_move: Color, ownership: &[f32]) {
        let s = sign(to_move);
        let size = game.size();
        for point in size.points() {
            if let Some(&v) = ownership.get(point.index()) {
                if v.is_finite() {
                    let value = s * f64::from(v.clamp(-1.0, 1.0));
                    self.sum[point.index()] += value;
                    self.sum_sq[point.index()] += value * value;
                }
            }
        }
        self.samples += 1;
    }
}

/// What a search did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SearchStats {
    /// Root visits kept from the previous search (tree reuse).
    pub reused_visits: u64,
    /// Visits made by this search.
    pub new_visits: u64,
    /// Root visits at the end.
    pub root_visits: u64,
    /// Positions sent to the evaluator.
    pub evaluations: u64,
    /// Calls of [`PositionEvaluator::evaluate`] (batches).
    pub batches: u64,
    /// Visits that ended in a finished game, scored by the rules.
    pub terminal_visits: u64,
    /// Visits that took a transposition's average instead of searching
    /// ([`PuctConfig::transpositions`]).
    pub transposed_visits: u64,
    /// Descents abandoned because their leaf was already queued in the batch.
    pub collisions: u64,
    /// Whether growth stopped because the tree reached its node limit.
    pub tree_full: bool,
    /// Time taken.
    pub elapsed: Duration,
    /// The evaluator's error, if one ended the search.
    pub error: Option<String>,
}

/// The score part of the utility, after KataGo: a static term centred on a
/// draw and a dynamic one centred near the root's expected score, each
/// `(2/π)·atan(x / scale)` of the score, so a point matters most near the
/// centre and the total stays bounded. As KataGo, it is taken in
/// expectation over the score's distribution (a normal one with the
/// network's mean and spread, by 20-point Gauss–Hermite quadrature) when
/// [`PuctConfig::score_distribution`] is on; otherwise of the expected lead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Utility {
    static_factor: f64,
    dynamic_factor: f64,
    static_scale: f64,
    dynamic_scale: f64,
    /// Black's score the dynamic term is centred on.
    center: f64,
    /// Whether the score's distribution is used (else the lead).
    distribution: bool,
}

/// Nodes and weights of 20-point Gauss–Hermite quadrature (the positive
/// half; the rule is symmetric): `∫ e^{-x²} f(x) dx ≈ Σ wᵢ f(xᵢ)`.
const GAUSS_HERMITE: [(f64, f64); 10] = [
    (0.245_340_708_300_901_24, 0.462_243_669_600_610_1),
    (0.737_473_728_545_394_3, 0.286_675_505_362_834_04),
    (1.234_076_215_395_323, 0.109_017_206_020_023_3),
    (1.738_537_712_116_586_1, 0.024_810_520_887_463_626),
    (2.254_974_002_089_275_7, 0.003_243_773_342_237_852_8),
    (2.788_806_058_428_130_5, 0.000_228_338_636_016_352_64),
    (3.347_854_567_383_216_3, 7.802_556_478_532_067e-6),
    (3.944_764_040_115_625, 1.086_069_370_769_281_5e-7),
    (4.603_682_449_550_744, 4.399_340_992_273_18e-10),
    (5.387_480_890_011_233, 2.229_393_645_534_152_3e-13),
];

impl Utility {
    /// The utility for `config` on a board of `points` points, centred at 0
    /// until [`Utility::recentre`] is told the root's expected lead.
    pub fn new(config: &PuctConfig, points: usize) -> Utility {
        let root = (points as f64).sqrt().max(1.0);
        Utility {
            static_factor: f64::from(config.static_score_utility),
            dynamic_factor: f64::from(config.dynamic_score_utility),
            static_scale: 2.0 * root,
            dynamic_scale: f64::from(config.dynamic_score_center_scale).max(0.05) * root,
            center: 0.0,
            distribution: config.score_distribution,
        }
    }

    /// The score utility for Black of a score with this mean and standard
    /// deviation: the expectation of [`Utility::score`] under a normal
    /// distribution.
    pub fn expected_score(&self, mean: f64, stdev: f64) -> f64 {
        if stdev < 1e-6 {
            return self.score(mean);
        }
        let spread = std::f64::consts::SQRT_2 * stdev;
        let sum: f64 = GAUSS_HERMITE
            .iter()
            .map(|&(x, w)| w * (self.score(mean + spread * x) + self.score(mean - spread * x)))
            .sum();
        sum / std::f64::consts::PI.sqrt()
    }

    /// The utility for Black of a backed-up value.
    pub fn of_value(&self, value: &LeafValue) -> f64 {
        let win_loss = f64::from(value.black_win) - f64::from(value.white_win);
        if self.distribution {
            win_loss + self.expected_score(f64::from(value.black_score), value.score_stdev())
        } else {
            win_loss + self.score(f64::from(value.black_lead))
        }
    }

    /// Whether the score's distribution is used.
    pub fn uses_distribution(&self) -> bool {
        self.distribution
    }

    /// Centres the dynamic term on `black_lead` pulled `zero_weight` of the
    /// way to 0, no further from `black_lead` than the dynamic scale.
    pub fn recentre(&mut self, black_lead: f64, zero_weight: f64) {
        let pulled = black_lead * (1.0 - zero_weight.clamp(0.0, 1.0));
        self.center = pulled.clamp(
            black_lead - self.dynamic_scale,
            black_lead + self.dynamic_scale,
        );
    }

    /// The centre of the dynamic term (Black's lead).
    pub fn center(&self) -> f64 {
        self.center
    }

    /// The score utility of Black's lead, for Black.
    pub fn score(&self, black_lead: f64) -> f64 {
        let f = std::f64::consts::FRAC_2_PI;
        self.static_factor * f * (black_lead / self.static_scale).atan()
            + self.dynamic_factor * f * ((black_lead - self.center) / self.dynamic_scale).atan()
    }

    /// The slope of [`Utility::score`] at Black's score `x` (KataGo's
    /// `getApproxScoreUtilityDerivative`).
    pub fn score_slope(&self, x: f64) -> f64 {
        let f = std::f64::consts::FRAC_2_PI;
        let term = |scale: f64, centre: f64| {
            let u = (x - centre) / scale;
            f / (scale * (1.0 + u * u))
        };
        self.static_factor * term(self.static_scale, 0.0)
            + self.dynamic_factor * term(self.dynamic_scale, self.center)
    }

    /// The whole utility for Black: win − loss plus the score utility.
    pub fn black(&self, win_loss: f64, black_lead: f64) -> f64 {
        win_loss + self.score(black_lead)
    }

    /// The largest size a utility can have: win−loss plus both score
    /// terms at their bounds.
    pub fn range(&self) -> f64 {
        1.0 + self.static_factor.abs() + self.dynamic_factor.abs()
    }

    /// The worst utility there is, the value of a virtual loss.
    pub fn worst(&self) -> f64 {
        -self.range()
    }
}

/// A node's average utility for Black, if visited: the weighted mean of
/// the utilities its visits were backed up with, each under the score
/// utility of its time, subtree value bias included (KataGo's
/// `utilityAvg`, what exploration and the move's choice compare).
pub fn mean_utility(tree: &Tree, id: NodeId) -> Option<f64> {
    tree.node(id).utility_moments().map(|(mean, _)| mean)
}

/// The utility for Black of a node's average values (its mean win−loss and
/// score), if visited: what a node without children is recomputed to when
/// the score utility changes.
pub fn node_utility(tree: &Tree, id: NodeId, utility: &Utility) -> Option<f64> {
    let node = tree.node(id);
    let win_loss = node.black_win_loss()?;
    if utility.uses_distribution() {
        let (mean, stdev) = node.black_score()?;
        Some(win_loss + utility.expected_score(mean, stdev))
    } else {
        Some(utility.black(win_loss, node.black_lead()?))
    }
}

/// A leaf queued for evaluation.
struct Pending {
    path: Vec<NodeId>,
    game: Game,
}

/// The game after the root's pass that would end it, as the search
/// continues it under [`PuctConfig::conservative_pass`] (KataGo's
/// non-terminal pass from the root): the same board, the opponent to
/// move after one pass, so that the opponent's pass ends the game and any
/// other move goes on with it. The earlier history is gone, as KataGo
/// keeps only the last turn of a game played on after its end.
fn going_on_after_pass(game: &Game) -> Game {
    let passer = !game.to_move();
    let mut going_on = Game::from_position(game.board().clone(), passer, *game.rules());
    going_on
        .play(Move::Pass)
        .expect("a pass is always legal in a game going on");
    going_on
}

/// What a descent does at a node whose position another node owns.
enum Transposition {
    /// Nothing: go on as in a tree.
    None,
    /// Back up the owner's average and stop.
    CatchUp(NodeId),
    /// Continue the descent in the owner's subtree.
    Enter(NodeId),
}

/// How a descent ended.
enum Descent {
    /// At an unevaluated position, queued.
    Leaf(Box<Pending>),
    /// At a finished game, already backed up.
    Terminal,
    /// At a transposition with more visits, its average already backed up.
    Transposed,
    /// At a leaf already queued; virtual losses undone.
    Collision,
    /// A move turned out illegal and was excluded; virtual losses undone.
    Retry,
}

/// The search over one root.
pub struct Searcher<'a, E: PositionEvaluator + ?Sized> {
    /// The tree, rooted at `game`'s position.
    pub tree: &'a mut Tree,
    game: &'a Game,
    evaluator: &'a E,
    config: &'a PuctConfig,
    cleanup: bool,
    /// The score utility in use.
    pub utility: Utility,
    /// Ownership of this search's evaluations.
    pub ownership: OwnershipSum,
    /// Ownership of this search's evaluations below each root child, when
    /// asked for ([`AnalysisDetail::moves_ownership`]).
    pub moves_ownership: std::collections::HashMap<NodeId, OwnershipSum>,
    /// Moves kept out near the root (`avoid`, `allow`).
    pub filters: Vec<MoveFilter>,
    /// The optional parts of the analysis to gather.
    pub detail: AnalysisDetail,
    /// What the search did.
    pub stats: SearchStats,
    /// The network's evaluation of the root, when this search made it (a
    /// kept tree's root was evaluated by an earlier one).
    pub root_evaluation: Option<NetEvaluation>,
    root_prepared: bool,
    /// State of the draws of wide root noise (a SplitMix64 counter).
    noise_state: std::cell::Cell<u64>,
    /// The mirroring opponent, when anti-mirror is on and the game shows
    /// one ([`PuctConfig::anti_mirror`]).
    mirror: Option<crate::mirror::Mirror>,
}

impl<'a, E: PositionEvaluator + ?Sized> Searcher<'a, E> {
    /// A search of `game` (whose position `tree`'s root is) with
    /// `evaluator`. With `cleanup` (KGS's `kgs-genmove_cleanup`, asked when
    /// the players disagreed on dead stones), the root does not pass while
    /// stones of the opponent's that the count calls dead
    /// ([`game_status`]) are on the board and another move is legal: they
    /// are to be captured first. Once none are left, passing is the
    /// search's choice again (excluding it outright would leave only moves
    /// inside the bot's own area).
    pub fn new(
        tree: &'a mut Tree,
        game: &'a Game,
        evaluator: &'a E,
        config: &'a PuctConfig,
        cleanup: bool,
    ) -> Self {
        let reused = u64::from(tree.root().visits);
        let cleanup = cleanup && !game.rules().is_nogo() && {
            let opponent = !game.to_move();
            game_status(game, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED)
                .dead_points()
                .iter()
                .any(|&p| game.board().stone(p) == Some(opponent))
        };
        Searcher {
            tree,
            game,
            evaluator,
            config,
            cleanup,
            utility: Utility::new(config, game.size().points_count()),
            ownership: OwnershipSum::default(),
            moves_ownership: std::collections::HashMap::new(),
            filters: Vec::new(),
            detail: AnalysisDetail::default(),
            stats: SearchStats {
                reused_visits: reused,
                root_visits: reused,
                ..SearchStats::default()
            },
            root_evaluation: None,
            root_prepared: false,
            noise_state: std::cell::Cell::new(config.noise_seed ^ 0x5851_f42d_4c95_7f2d),
            mirror: if config.anti_mirror {
                crate::mirror::Mirror::detect(game)
            } else {
                None
            },
        }
    }

    /// The largest batch for a budget of `visits`: one leaf per
    /// [`VISITS_PER_BATCH_LEAF`], but never fewer than the evaluator works
    /// on at once.
    fn batch_for_budget(&self, visits: u64) -> u64 {
        let parallel = self.evaluator.positions_in_parallel().max(1) as u64;
        (visits / VISITS_PER_BATCH_LEAF).max(parallel)
    }

    /// Searches until `limits` or `monitor` (called after every round with
    /// the searcher and the time so far) says stop, or `stop` does: it is
    /// also asked while a batch is being evaluated, and a batch it stops is
    /// dropped (its leaves stay unvisited).
    pub fn run(
        &mut self,
        limits: Limits,
        monitor: &mut dyn FnMut(&Self, Duration) -> bool,
        stop: &dyn Fn() -> bool,
    ) {
        let start = Instant::now();
        if self.game.is_over() {
            self.stats.elapsed = start.elapsed();
            return;
        }
        let per_node = self.game.size().points_count() + 1;
        loop {
            if self.tree.root().state == NodeState::Expanded && !self.root_prepared {
                self.prepare_root();
            }
            let root_visits = u64::from(self.tree.root().visits);
            let mut want = self.config.batch.max(1) as u64;
            let mut left = u64::MAX;
            if let Some(visits) = limits.visits {
                left = left.min(visits.saturating_sub(root_visits));
            }
            if let Some(playouts) = limits.playouts {
                left = left.min(playouts.saturating_sub(self.stats.new_visits));
            }
            want = want.min(left);
            // A batch spreads its leaves by virtual loss: with few visits to
            // make that costs more than batching gains, so a small budget
            // gets small batches.
            if self.config.adaptive_batch && left != u64::MAX {
                let total = left + self.stats.new_visits;
                want = want.min(self.batch_for_budget(total));
            }
            if self.tree.root().state == NodeState::Leaf {
                want = want.min(1);
            }
            // Under a time limit a round must fit in the time left: one
            // network evaluation of a large board can take a quarter of a
            // second, so a full batch could overrun a short clock by
            // seconds. The first round measures the cost of a visit, and
            // the visits the clock affords are then a budget like a visit
            // limit: at 1 s a move on 9×9 about 60, so single positions.
            if let Some(limit) = limits.max_time.or(limits.target_time) {
                let elapsed = start.elapsed();
                let done = self.stats.new_visits;
                want = if done == 0 {
                    want.min(1)
                } else {
                    let per_visit = (elapsed.as_secs_f64() / done as f64).max(1e-9);
                    let left = limit.saturating_sub(elapsed).as_secs_f64();
                    let affordable = ((left / per_visit) as u64).max(1);
                    let cap = if self.config.adaptive_batch {
                        affordable.min(self.batch_for_budget(done + affordable))
                    } else {
                        affordable
                    };
                    want.min(cap)
                };
            }
            if want == 0 {
                break;
            }
            if !self.tree.has_room(want as usize * per_node) {
                self.stats.tree_full = true;
                break;
            }
            match self.round(want, stop) {
                Ok(Round::Done) => {}
                Ok(Round::Stopped) | Err(_) => break,
            }
            let elapsed = start.elapsed();
            self.stats.elapsed = elapsed;
            if monitor(self, elapsed) {
                break;
            }
            if limits.max_time.is_some_and(|max| elapsed >= max) {
                break;
            }
            if limits.target_time.is_some_and(|t| elapsed >= t) {
                let (first, second) = self.top_two();
                if f64::from(first) >= 1.5 * f64::from(second) {
                    break;
                }
            }
        }
        self.stats.elapsed = start.elapsed();
        self.stats.root_visits = u64::from(self.tree.root().visits);
    }

    /// Visits of the two most visited root children.
    pub fn top_two(&self) -> (u32, u32) {
        let mut top = (0, 0);
        for c in self.tree.children(ROOT) {
            let v = self.tree.node(c).edge_visits();
            if v > top.0 {
                top = (v, top.0);
            } else if v > top.1 {
                top.1 = v;
            }
        }
        top
    }

    /// The settings searched with.
    pub fn config(&self) -> &PuctConfig {
        self.config
    }

    /// Once the root is expanded: the dynamic score centre, exclusions
    /// (moves illegal now, a pass while cleaning up) and root noise.
    fn prepare_root(&mut self) {
        self.root_prepared = true;
        // KataGo centres on the expected score; without the distribution
        // the lead is what the utility reads.
        let centre = if self.utility.uses_distribution() {
            self.tree.root().black_score().map(|(mean, _)| mean)
        } else {
            self.tree.root().black_lead()
        };
        if let Some(centre) = centre {
            self.utility.recentre(
                centre,
                f64::from(self.config.dynamic_score_center_zero_weight),
            );
        }
        // The root's own evaluation was backed up before the centre was
        // known, and a kept tree's under the last search's centre: KataGo
        // centres first, then values.
        self.recompute_kept_tree();
        let children: Vec<NodeId> = self.tree.children(ROOT).collect();
        let legal: Vec<bool> = children
            .iter()
            .map(|&c| self.game.legal(self.tree.node(c).mv).is_ok())
            .collect();
        let others = children
            .iter()
            .zip(&legal)
            .any(|(&c, &ok)| ok && self.tree.node(c).mv != Move::Pass);
        let to_move = self.game.to_move();
        // A root policy temperature above 1 flattens the priors
        // (`rootPolicyTemperature`): p^(1/T), renormalised.
        let temperature = f64::from(self.config.root_policy_temperature);
        let tempered: Vec<f64> = children
            .iter()
            .map(|&c| {
                let p = f64::from(self.tree.node(c).raw_prior);
                if temperature > 0.0 && temperature != 1.0 {
                    p.max(0.0).powf(1.0 / temperature)
                } else {
                    p
                }
            })
            .collect();
        let raw_total: f64 = children
            .iter()
            .map(|&c| f64::from(self.tree.node(c).raw_prior))
            .sum();
        let tempered_total: f64 = tempered.iter().sum();
        let rescale = if tempered_total > 0.0 {
            raw_total / tempered_total
        } else {
            1.0
        };
        for ((&c, &ok), p) in children.iter().zip(&legal).zip(&tempered) {
            let filtered = self.is_filtered(to_move, self.tree.node(c).mv, 1);
            let node = self.tree.node_mut(c);
            node.excluded = !ok || filtered || (self.cleanup && others && node.mv == Move::Pass);
            node.prior = (p * rescale) as f32;
        }
        if self.config.noise_weight > 0.0 && !children.is_empty() {
            let alpha = f64::from(self.config.noise_concentration) / children.len() as f64;
            let noise = dirichlet(self.config.noise_seed, alpha, children.len());
            let w = self.config.noise_weight.clamp(0.0, 1.0);
            for (&c, n) in children.iter().zip(noise) {
                let node = self.tree.node_mut(c);
                node.prior = (1.0 - w) * node.raw_prior + w * n as f32;
            }
        }
    }

    /// Whether the move filters keep `mv` by `color` out `depth` plies from
    /// the root.
    fn is_filtered(&self, color: Color, mv: Move, depth: u32) -> bool {
        self.filters.iter().any(|f| f.excludes(color, mv, depth))
    }

    /// One round: up to `want` visits, their leaves evaluated in one batch.
    fn round(&mut self, want: u64, stop: &dyn Fn() -> bool) -> Result<Round, EvaluatorError> {
        let mut leaves: Vec<Pending> = Vec::new();
        let mut terminal = 0u64;
        let mut transposed = 0u64;
        let mut failures = 0u64;
        let max_failures = want + 16;
        while (leaves.len() as u64 + terminal + transposed) < want && failures < max_failures {
            match self.descend() {
                Descent::Leaf(leaf) => leaves.push(*leaf),
                Descent::Terminal => terminal += 1,
                Descent::Transposed => transposed += 1,
                Descent::Collision => {
                    self.stats.collisions += 1;
                    failures += 1;
                    // The batch has gone as wide as virtual loss spreads it.
                    if !leaves.is_empty() {
                        break;
                    }
                }
                Descent::Retry => failures += 1,
            }
        }
        self.stats.terminal_visits += terminal;
        self.stats.transposed_visits += transposed;
        self.stats.new_visits += terminal + transposed;
        if leaves.is_empty() {
            if terminal + transposed == 0 {
                // Nothing could be visited (should not happen): stop.
                let error = EvaluatorError::new("no leaf could be reached");
                self.stats.error = Some(error.to_string());
                return Err(error);
            }
            return Ok(Round::Done);
        }
        let games: Vec<&Game> = leaves.iter().map(|l| &l.game).collect();
        let root = leaves.len() == 1 && leaves[0].path.len() == 1;
        let result =
            evaluate_batch(self.evaluator, &games, root, stop).and_then(|evals| match evals {
                Some(evals) if evals.len() != games.len() => Err(EvaluatorError::new(format!(
                    "{} results for {} positions",
                    evals.len(),
                    games.len()
                ))),
                evals => Ok(evals),
            });
        let count = games.len() as u64;
        let evals = match result {
            Ok(Some(evals)) => {
                self.stats.batches += 1;
                self.stats.evaluations += count;
                evals
            }
            other => {
                for leaf in &leaves {
                    self.undo_virtual_loss(&leaf.path);
                    let last = *leaf.path.last().expect("a path has a root");
                    self.tree.node_mut(last).pending = false;
                }
                return match other {
                    Err(error) => {
                        self.stats.error = Some(error.to_string());
                        Err(error)
                    }
                    _ => Ok(Round::Stopped),
                };
            }
        };
        for (leaf, eval) in leaves.into_iter().zip(evals) {
            self.absorb(leaf, eval);
        }
        Ok(Round::Done)
    }

    /// Expands a leaf with its evaluation and backs its value up.
    fn absorb(&mut self, leaf: Pending, mut eval: NetEvaluation) {
        let id = *leaf.path.last().expect("a path has a root");
        let game = &leaf.game;
        let to_move = game.to_move();
        if let Some(mirror) = self.mirror.as_ref().filter(|m| m.revalues(game)) {
            let center = mirror.center().expect("a centre when revalued");
            if let Some(own) = eval.ownership.as_ref().map(|o| o[center.index()]) {
                (eval.win, eval.loss) = mirror.revalue(eval.win, eval.loss, own);
            }
        }
        if leaf.path.len() == 1 {
            self.root_evaluation = Some(eval.clone());
        }
        let children = legal_policy(game, &eval.policy);
        if self.tree.has_room(children.len()) {
            self.tree.expand(id, !to_move, &children);
            if self.config.transpositions {
                self.tree.claim(id);
            }
        } else {
            self.stats.tree_full = true;
        }
        self.tree.node_mut(id).pending = false;
        if let Some(own) = &eval.ownership {
            self.ownership.add(game, to_move, own);
            if self.detail.moves_ownership {
                if let Some(&child) = leaf.path.get(1) {
                    self.moves_ownership
                        .entry(child)
                        .or_default()
                        .add(game, to_move, own);
                }
            }
        }
        let value = leaf_value(to_move, &eval);
        let nn_utility = self.utility.of_value(&value);
        let weight = self.evaluation_weight(&eval, &value);
        // The network's value corrected by what the search has learned of
        // positions like this one (KataGo's subtree value bias).
        let entry = self.tree.node(id).bias_entry;
        let bias = if entry != NO_ENTRY {
            let mean = self.tree.bias.get(entry).mean().unwrap_or(0.0);
            f64::from(self.config.subtree_value_bias) * mean
        } else {
            0.0
        };
        let utility = nn_utility + bias;
        let node = self.tree.node_mut(id);
        node.nn_utility = nn_utility as f32;
        node.own_weight = weight;
        node.own_utility = utility;
        node.own_value = value;
        self.backup_with(&leaf.path, &value, utility, weight);
        self.stats.new_visits += 1;
    }

    /// Gives `child` of `parent` (whose position is `game`'s, before the
    /// child's move) its subtree value bias entry, the first time a descent
    /// passes through it on the way to evaluating it.
    fn assign_bias_entry(&mut self, parent: NodeId, child: NodeId, game: &Game) {
        if self.config.subtree_value_bias <= 0.0 {
            return;
        }
        let node = self.tree.node(child);
        if node.state != NodeState::Leaf || node.pending || node.bias_entry != NO_ENTRY {
            return;
        }
        // The move before: the parent's, or the game's last one at the root
        // (none at the start of a game: KataGo keys only from the second
        // move on).
        let previous = if parent == ROOT {
            match game.last_move() {
                Some((_, mv)) => mv,
                None => return,
            }
        } else {
            self.tree.node(parent).mv
        };
        let mover = game.to_move();
        if let Some(key) = situation_key(game.board(), mover, previous, node.mv) {
            let entry = self.tree.bias.entry_for(key);
            self.tree.node_mut(child).bias_entry = entry;
        }
    }

    /// One descent from the root along PUCT choices.
    fn descend(&mut self) -> Descent {
        let mut game = self.game.clone();
        let mut path = vec![ROOT];
        // Moves played from the root (a path also passes through the
        // owners of transposed positions, which are no moves).
        let mut depth = 1u32;
        self.tree.node_mut(ROOT).virtual_loss += 1;
        loop {
            let mut id = *path.last().expect("a path has a root");
            if self.config.transpositions && path.len() > 1 {
                match self.transposition(id, &game, &path) {
                    Transposition::None => {}
                    Transposition::CatchUp(owner) => {
                        let source = self.tree.node(owner).clone();
                        for &at in &path {
                            let node = self.tree.node_mut(at);
                            node.virtual_loss = node.virtual_loss.saturating_sub(1);
                            node.add_average_of(&source);
                        }
                        self.tree.node_mut(id).transposed += 1;
                        self.after_backup(&path);
                        return Descent::Transposed;
                    }
                    Transposition::Enter(owner) => {
                        self.tree.node_mut(owner).virtual_loss += 1;
                        path.push(owner);
                        id = owner;
                    }
                }
            }
            match self.tree.node(id).state {
                NodeState::Terminal => {
                    let value = self.terminal_value(id, &game);
                    let weight = self.terminal_weight(id);
                    self.backup(&path, &value, weight);
                    return Descent::Terminal;
                }
                NodeState::Leaf => {
                    if self.tree.node(id).pending {
                        self.undo_virtual_loss(&path);
                        return Descent::Collision;
                    }
                    if game.is_over() {
                        self.tree.node_mut(id).state = NodeState::Terminal;
                        let value = self.terminal_value(id, &game);
                        self.backup(&path, &value, self.exact_weight());
                        return Descent::Terminal;
                    }
                    self.tree.node_mut(id).pending = true;
                    return Descent::Leaf(Box::new(Pending { path, game }));
                }
                NodeState::Expanded => {
                    let Some(child) = self.select(id, depth, &game) else {
                        // Every move excluded: score the position as it stands.
                        let value = exact_value(&game);
                        self.backup(&path, &value, self.exact_weight());
                        return Descent::Terminal;
                    };
                    let mv = self.tree.node(child).mv;
                    self.assign_bias_entry(id, child, &game);
                    if game.play(mv).is_err() {
                        self.tree.node_mut(child).excluded = true;
                        self.undo_virtual_loss(&path);
                        return Descent::Retry;
                    }
                    self.tree.node_mut(child).virtual_loss += 1;
                    path.push(child);
                    depth += 1;
                    if self.config.conservative_pass
                        && path.len() == 2
                        && mv == Move::Pass
                        && game.is_over()
                    {
                        game = going_on_after_pass(&game);
                    }
                }
            }
        }
    }

    /// What a descent at `id` (not the root), whose position is `game`'s,
    /// does about other nodes of the same position: nothing when `id` owns
    /// its position or none is expanded elsewhere; take the owner's
    /// average while `id` has fewer visits (KataGo's edge catch-up); go on
    /// into the owner's subtree once it has as many. An owner on the path
    /// (a repetition) is left alone.
    fn transposition(&mut self, id: NodeId, game: &Game, path: &[NodeId]) -> Transposition {
        let node = self.tree.node(id);
        if node.pending || node.state == NodeState::Terminal {
            return Transposition::None;
        }
        let key = if node.position_key != 0 {
            node.position_key
        } else {
            match position_key(game) {
                Some(key) => {
                    self.tree.node_mut(id).position_key = key;
                    key
                }
                None => return Transposition::None,
            }
        };
        let Some(owner) = self.tree.owner(key) else {
            return Transposition::None;
        };
        let owned = self.tree.node(owner);
        if owner == id || owned.state != NodeState::Expanded || path.contains(&owner) {
            return Transposition::None;
        }
        if self.tree.node(id).edge_visits() < owned.visits {
            Transposition::CatchUp(owner)
        } else {
            Transposition::Enter(owner)
        }
    }

    /// The value of a finished game at `id`: the average kept there (every
    /// visit added the same exact count), or the count itself.
    fn terminal_value(&self, id: NodeId, game: &Game) -> LeafValue {
        let node = self.tree.node(id);
        if node.visits > 0 {
            let n = node.weight_sum.max(1e-12);
            LeafValue {
                black_win: (node.black_win_sum / n) as f32,
                white_win: (node.white_win_sum / n) as f32,
                black_lead: (node.black_lead_sum / n) as f32,
                black_score: (node.black_score_sum / n) as f32,
                score_sq: (node.score_sq_sum / n) as f32,
            }
        } else {
            self.finished_value(game)
        }
    }

    /// The exact value of a finished `game`: a game ended by passes counted
    /// as the evaluator's network counts it
    /// ([`PositionEvaluator::finished_margin`]), else by its own outcome.
    fn finished_value(&self, game: &Game) -> LeafValue {
        if let Outcome::Counted(_) = game.outcome() {
            if let Some(margin) = self.evaluator.finished_margin(game) {
                let winner = match margin.total_cmp(&0.0) {
                    std::cmp::Ordering::Greater => Some(Color::Black),
                    std::cmp::Ordering::Less => Some(Color::White),
                    std::cmp::Ordering::Equal => None,
                };
                return decided_value(winner, margin);
            }
        }
        exact_value(game)
    }

    /// The PUCT choice among `id`'s children: the highest
    /// `Q + c·P·√W / (1 + w)`, Q in utility for the side to move at `id`,
    /// `w` a child's edge weight and `W` their total, virtual losses
    /// counted as visits of the worst utility, unvisited children valued
    /// by first-play urgency.
    pub(crate) fn select(&self, id: NodeId, depth: u32, game: &Game) -> Option<NodeId> {
        let tree = &*self.tree;
        let node = tree.node(id);
        // Below the root, moves filtered at this depth are skipped (the
        // root's are excluded once, in `prepare_root`).
        let filtered = |c: NodeId| {
            depth > 1 && !self.filters.is_empty() && {
                self.is_filtered(node.to_move, tree.node(c).mv, depth)
            }
        };
        let s = sign(node.to_move);
        let config = self.config;
        let mut total = 0.0f64;
        let mut total_weight = 0.0f64;
        let mut visited_policy = 0.0f64;
        for c in tree.children(id) {
            let child = tree.node(c);
            if child.excluded {
                continue;
            }
            // Exploration counts weight, not visits, as KataGo's does: a
            // child whose evaluations were uncertain weighs less than its
            // visits and is explored again sooner.
            let n = child.edge_weight() + f64::from(child.virtual_loss);
            total += n;
            total_weight += child.weight_sum;
            if child.edge_visits() + child.virtual_loss > 0 {
                visited_policy += f64::from(child.prior);
            }
        }
        let explore = self.explore_scaling(total, node);
        let parent = mean_utility(tree, id).map_or(0.0, |u| s * u);
        let parent_value = parent;
        // Against a mirroring opponent, while the line has kept mirroring.
        let mirror = self.mirror.as_ref().filter(|m| m.holds(game, 0));
        // While few children are visited the parent's average is mostly its
        // own evaluation anyway; KataGo leans on the network's value by
        // the square of the visited policy mass.
        let parent = if config.fpu_parent_blend {
            let weight = (visited_policy * visited_policy).min(1.0);
            weight * parent + (1.0 - weight) * s * f64::from(node.nn_utility)
        } else {
            parent
        };
        let reduction = if id == ROOT {
            config.root_fpu_reduction
        } else {
            config.fpu_reduction
        };
        let fpu = parent - f64::from(reduction) * visited_policy.sqrt();
        let worst = self.utility.worst();
        let mut best: Option<(NodeId, f64)> = None;
        for c in tree.children(id) {
            let child = tree.node(c);
            if child.excluded || filtered(c) {
                continue;
            }
            let weight = child.edge_weight();
            let vl = f64::from(child.virtual_loss);
            let n = weight + vl;
            let q = if child.edge_visits() + child.virtual_loss == 0 {
                fpu
            } else if child.edge_visits() == 0 {
                worst
            } else {
                let own = mean_utility(tree, c).map_or(0.0, |u| s * u);
                // Visits in flight pull toward a loss by their share of
                // the weight (at least a quarter visit's, as KataGo).
                let share = vl / (vl + weight.max(0.25));
                own + (worst - own) * share
            };
            let (mut q, mut prior) = if id == ROOT && config.wide_root_noise > 0.0 {
                self.wide_root_noise(q, child.prior)
            } else {
                (q, child.prior)
            };
            if let Some(mirror) = mirror {
                prior = mirror.prior(prior, child.mv, node.to_move, game);
                if child.visits > 0 {
                    q = mirror.forced_value(
                        q,
                        parent_value,
                        child.mv,
                        node.to_move,
                        game,
                        child.weight_sum,
                        total_weight,
                        id == ROOT,
                    );
                }
            }
            let score = q + explore * f64::from(prior) / (1.0 + n);
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((c, score));
            }
        }
        best.map(|(c, _)| c)
    }

    /// KataGo's `wideRootNoise` at the root: the prior flattened to the
    /// power `1 / (4w + 1)`, and half the time a bonus of `w·|N(0, 1)|` to
    /// the move's value, so that the search spreads over more moves.
    fn wide_root_noise(&self, value: f64, prior: f32) -> (f64, f32) {
        let w = f64::from(self.config.wide_root_noise);
        let prior = f64::from(prior.max(0.0)).powf(1.0 / (4.0 * w + 1.0)) as f32;
        let first = self.next_uniform();
        if first < 0.5 {
            return (value, prior);
        }
        // Box–Muller: |N(0, 1)| from two uniform draws.
        let u1 = self.next_uniform().max(1e-300);
        let u2 = self.next_uniform();
        let gaussian = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        (value + w * gaussian.abs(), prior)
    }

    /// A uniform draw in [0, 1) from the searcher's own generator.
    fn next_uniform(&self) -> f64 {
        let state = self.noise_state.get();
        self.noise_state
            .set(state.wrapping_add(0x9e37_79b9_7f4a_7c15));
        (splitmix64(state) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The exploration scale of the PUCT formula at `node` whose children
    /// weigh `total`: `cpuct(total) · √(total + 0.01)` times the spread
    /// factor of the node's utility.
    fn explore_scaling(&self, total: f64, node: &super::tree::Node) -> f64 {
        let config = self.config;
        let base = f64::from(config.c_puct_base).max(1.0);
        let cpuct =
            f64::from(config.c_puct) + f64::from(config.c_puct_log) * ((total + base) / base).ln();
        cpuct * (total + 0.01).sqrt() * self.utility_spread_factor(node)
    }

    /// The same at the root.
    pub(crate) fn root_explore_scaling(&self, total: f64) -> f64 {
        self.explore_scaling(total, self.tree.node(ROOT))
    }

    /// How much wider to explore below `node` for the spread of its
    /// utility (KataGo's `cpuctUtilityStdevScale`): `1 + scale · (σ / σ₀ −
    /// 1)`, σ the standard deviation of the utilities backed up through it
    /// with a prior of σ₀ weighing `prior_weight` visits. A node whose
    /// value swings explores more; a settled one less.
    fn utility_spread_factor(&self, node: &super::tree::Node) -> f64 {
        let scale = f64::from(self.config.cpuct_stdev_scale);
        if scale == 0.0 {
            return 1.0;
        }
        let prior = f64::from(self.config.cpuct_stdev_prior).max(1e-6);
        let prior_weight = f64::from(self.config.cpuct_stdev_prior_weight);
        let n = node.weight_sum;
        let stdev = if n <= 1.0 {
            prior
        } else {
            let mean = node.utility_sum / n;
            let mean_sq = (node.utility_sq_sum / n).max(mean * mean);
            let pooled = ((mean * mean + prior * prior) * prior_weight + mean_sq * n)
                / (prior_weight + n - 1.0)
                - mean * mean;
            pooled.max(0.0).sqrt()
        };
        1.0 + scale * (stdev / prior - 1.0)
    }

    /// The weight of a network evaluation: its certainty when playouts
    /// are weighted by uncertainty (KataGo's `computeWeightFromNNOutput`),
    /// else 1. The utility's uncertainty is the win−loss error plus the
    /// score error times the score utility's slope at the score.
    pub(crate) fn evaluation_weight(&self, eval: &NetEvaluation, value: &LeafValue) -> f64 {
        let config = self.config;
        let Some((winloss_error, score_error)) = eval.shortterm_error else {
            return 1.0;
        };
        if !config.uncertainty_weighting || !winloss_error.is_finite() || !score_error.is_finite() {
            return 1.0;
        }
        let slope = self.utility.score_slope(f64::from(value.black_score));
        let uncertainty =
            f64::from(winloss_error.max(0.0)) + slope * f64::from(score_error.max(0.0));
        let coeff = f64::from(config.uncertainty_coeff).max(1e-6);
        let max = f64::from(config.uncertainty_max_weight).max(1.0);
        coeff / (uncertainty + coeff / max)
    }

    /// The weight of another visit to the finished node `id`:
    /// what its visits weighed on average, or an exact value's weight.
    fn terminal_weight(&self, id: NodeId) -> f64 {
        let node = self.tree.node(id);
        if node.visits > 0 && node.weight_sum > 0.0 {
            node.weight_sum / f64::from(node.visits)
        } else {
            self.exact_weight()
        }
    }

    /// The weight of an exact value (a finished game): the most an
    /// evaluation can weigh.
    fn exact_weight(&self) -> f64 {
        if self.config.uncertainty_weighting && self.evaluator.gives_uncertainty() {
            f64::from(self.config.uncertainty_max_weight).max(1.0)
        } else {
            1.0
        }
    }

    /// Adds `value` to every node of `path`, taking its virtual loss off.
    fn backup(&mut self, path: &[NodeId], value: &LeafValue, weight: f64) {
        let utility = self.utility.of_value(value);
        self.backup_with(path, value, utility, weight);
    }

    /// The same with the utility given.
    fn backup_with(&mut self, path: &[NodeId], value: &LeafValue, utility: f64, weight: f64) {
        for &id in path {
            let node = self.tree.node_mut(id);
            node.virtual_loss = node.virtual_loss.saturating_sub(1);
            node.add(value, utility, weight);
        }
        self.after_backup(path);
    }

    /// What follows every visit backed up along `path`: the transpositions
    /// it crossed counted, the values recomputed (and with them the bias
    /// entries).
    fn after_backup(&mut self, path: &[NodeId]) {
        self.count_entries(path);
        self.recompute_path(path);
    }

    /// With value weighting ([`PuctConfig::value_weight_exponent`]), noise
    /// pruning ([`PuctConfig::noise_pruning`]) or the subtree value bias
    /// on, recomputes the statistics of the expanded nodes of `path`,
    /// deepest first, from their own evaluation and their children's.
    fn recompute_path(&mut self, path: &[NodeId]) {
        let settings = Recompute::of(self.config);
        if settings.exponent <= 0.0 && !settings.noise_pruning && settings.subtree_bias <= 0.0 {
            return;
        }
        for &id in path.iter().rev() {
            let node = self.tree.node(id);
            if node.state == NodeState::Expanded && node.own_weight > 0.0 {
                recompute_node(&mut *self.tree, id, settings);
            }
        }
    }

    /// Recomputes every utility of a kept tree for this search's score
    /// utility, whose centre moved to the new root's expected score, as
    /// KataGo's `recursivelyRecomputeStats` does when a search begins:
    /// nodes without children from their average values, the others from
    /// their own evaluation (its subtree value bias read afresh) and their
    /// children, each after the nodes it reads.
    pub(crate) fn recompute_kept_tree(&mut self) {
        let settings = Recompute::of(self.config);
        for id in self.post_order() {
            let node = self.tree.node(id);
            if node.visits == 0 || node.weight_sum <= 0.0 {
                continue;
            }
            if node.state == NodeState::Expanded && node.own_weight > 0.0 {
                let nn_utility = self.utility.of_value(&node.own_value);
                let node = self.tree.node_mut(id);
                node.nn_utility = nn_utility as f32;
                node.own_utility = nn_utility;
                recompute_node(&mut *self.tree, id, settings);
            } else if let Some(u) = node_utility(self.tree, id, &self.utility) {
                let node = self.tree.node_mut(id);
                node.utility_sum = node.weight_sum * u;
                node.utility_sq_sum = node.weight_sum * u * u;
            }
        }
    }

    /// The nodes reachable from the root, each after its children and
    /// after the owners its transposed children read from.
    fn post_order(&self) -> Vec<NodeId> {
        let mut order = Vec::new();
        let mut seen = vec![false; self.tree.len()];
        let mut stack = vec![(ROOT, false)];
        while let Some((id, children_done)) = stack.pop() {
            if children_done {
                order.push(id);
                continue;
            }
            if std::mem::replace(&mut seen[id as usize], true) {
                continue;
            }
            stack.push((id, true));
            for c in self.tree.children(id) {
                stack.push((c, false));
                let key = self.tree.node(c).position_key;
                if self.config.transpositions && key != 0 {
                    stack.extend(self.tree.owner(key).map(|o| (o, false)));
                }
            }
        }
        order
    }

    /// Counts the transpositions a backed-up `path` entered: a step to a
    /// node that is not a child.
    fn count_entries(&mut self, path: &[NodeId]) {
        if !self.config.transpositions {
            return;
        }
        for step in path.windows(2) {
            if !self.tree.children(step[0]).contains(&step[1]) {
                self.tree.node_mut(step[0]).transposed += 1;
                self.tree.node_mut(step[1]).entered += 1;
            }
        }
    }

    /// Takes the virtual losses of `path` off.
    fn undo_virtual_loss(&mut self, path: &[NodeId]) {
        for &id in path {
            let node = self.tree.node_mut(id);
            node.virtual_loss = node.virtual_loss.saturating_sub(1);
        }
    }
}

/// Recomputes the statistics of expanded node `id` from its own
/// evaluation and its visited children's averages (a transposed child's
/// from its position's owner, when `transpositions`), as KataGo's
/// `recomputeNodeStats` does: each child weighs its weight scaled to the
/// visits it had from `id`, less the excess [`noise_pruned_weights`]
/// removes when `noise_pruning`, times `(P(best) + 0.0001)^exponent`, the
/// weights then scaled back to their total. Its visit count is left as it
/// is.
///
/// With a subtree value bias, the node's contribution to its entry is
/// brought up to date first (its children's average utility less its
/// network utility, weighted by their weight before pruning to the power
/// [`crate::bias::WEIGHT_EXPONENT`]), and its own evaluation then counts
/// at its network utility corrected by the entry as it now stands, its own
/// contribution included: a node whose children keep disagreeing with the
/// network leans towards them even before other nodes of its situation
/// have spoken.
pub fn recompute_node(tree: &mut Tree, id: NodeId, settings: Recompute) {
    let Recompute {
        exponent,
        transpositions,
        noise_pruning,
        subtree_bias,
    } = settings;
    let node = tree.node(id);
    let s = sign(node.to_move);
    // (source of the statistics, weight, utility for the side to move, prior).
    let mut children: Vec<(NodeId, f64, f64, f32)> = Vec::new();
    for c in tree.children(id) {
        let child = tree.node(c);
        let edge = child.edge_visits();
        if edge == 0 || child.excluded {
            continue;
        }
        let source = if transpositions && child.position_key != 0 {
            tree.owner(child.position_key)
                .filter(|&o| tree.node(o).visits > 0)
                .unwrap_or(c)
        } else {
            c
        };
        let from = tree.node(source);
        if from.visits == 0 || from.weight_sum <= 0.0 {
            continue;
        }
        let share = f64::from(edge.min(from.visits)) / f64::from(from.visits);
        let weight = from.weight_sum * share;
        children.push((
            source,
            weight,
            s * from.utility_sum / from.weight_sum,
            child.prior,
        ));
    }
    let mut weighted: Vec<(f64, f64)> = children.iter().map(|&(_, w, u, _)| (w, u)).collect();
    if noise_pruning {
        // Pruning reads the children in policy order, as they were made.
        children.sort_by(|a, b| b.3.total_cmp(&a.3));
        let ordered: Vec<(f64, f64, f64)> = children
            .iter()
            .map(|&(_, w, u, p)| (w, u, f64::from(p)))
            .collect();
        let pruned = noise_pruned_weights(&ordered);
        weighted = ordered
            .iter()
            .zip(pruned)
            .map(|(&(_, u, _), w)| (w, u))
            .collect();
    }
    let before_pruning: f64 = children.iter().map(|&(_, w, _, _)| w).sum();
    let adjusted = value_weights(&weighted, exponent);
    let total: f64 = weighted.iter().map(|&(w, _)| w).sum();
    let node = tree.node(id);
    let entry = node.bias_entry;
    if subtree_bias > 0.0 && entry != NO_ENTRY {
        let nn_utility = f64::from(node.nn_utility);
        let adjusted_total: f64 = adjusted.iter().sum();
        if adjusted_total > 1e-10 {
            let children_utility = children
                .iter()
                .zip(&adjusted)
                .map(|(&(source, ..), &a)| {
                    let from = tree.node(source);
                    a * from.utility_sum / from.weight_sum
                })
                .sum::<f64>()
                / adjusted_total;
            let weight = before_pruning.powf(crate::bias::WEIGHT_EXPONENT);
            let new = ((children_utility - nn_utility) * weight, weight);
            let last = std::mem::replace(&mut tree.node_mut(id).bias_last, new);
            tree.bias.replace(entry, last, new);
        }
        let correction = tree.bias.get(entry).mean().unwrap_or(0.0);
        tree.node_mut(id).own_utility = nn_utility + subtree_bias * correction;
    }
    let node = tree.node(id);
    let (w0, own, u0) = (node.own_weight, node.own_value, node.own_utility);
    let mut sums = [
        w0 * f64::from(own.black_win),
        w0 * f64::from(own.white_win),
        w0 * f64::from(own.black_lead),
        w0 * f64::from(own.black_score),
        w0 * f64::from(own.score_sq),
        w0 * u0,
        w0 * u0 * u0,
    ];
    let mut weight_sq = w0 * w0;
    for (&(source, ..), &a) in children.iter().zip(&adjusted) {
        let from = tree.node(source);
        let scale = a / from.weight_sum;
        let parts = [
            from.black_win_sum,
            from.white_win_sum,
            from.black_lead_sum,
            from.black_score_sum,
            from.score_sq_sum,
            from.utility_sum,
            from.utility_sq_sum,
        ];
        for (sum, part) in sums.iter_mut().zip(parts) {
            *sum += scale * part;
        }
        weight_sq += scale * scale * from.weight_sq_sum;
    }
    let node = tree.node_mut(id);
    node.weight_sum = w0 + total;
    node.weight_sq_sum = weight_sq;
    [
        node.black_win_sum,
        node.white_win_sum,
        node.black_lead_sum,
        node.black_score_sum,
        node.score_sq_sum,
        node.utility_sum,
        node.utility_sq_sum,
    ] = sums;
}

/// What [`recompute_node`] takes into account.
#[derive(Clone, Copy, Debug)]
pub struct Recompute {
    /// [`PuctConfig::value_weight_exponent`].
    pub exponent: f64,
    /// Whether transposed children read their position's owner.
    pub transpositions: bool,
    /// [`PuctConfig::noise_pruning`].
    pub noise_pruning: bool,
    /// [`PuctConfig::subtree_value_bias`] (0: off).
    pub subtree_bias: f64,
}

impl Recompute {
    /// The settings `config` gives.
    pub fn of(config: &PuctConfig) -> Recompute {
        Recompute {
            exponent: f64::from(config.value_weight_exponent),
            transpositions: config.transpositions,
            noise_pruning: config.noise_pruning,
            subtree_bias: f64::from(config.subtree_value_bias),
        }
    }
}

/// How far below the average of the better-prior children a child's
/// utility must fall for [`noise_pruned_weights`] to take most of its
/// excess weight (KataGo's `noisePruneUtilityScale`).
const NOISE_PRUNE_UTILITY_SCALE: f64 = 0.15;

/// The weights of children given as (weight, utility for the side to
/// move, prior) in policy order, highest first, with the weight that
/// noise gave them taken off (KataGo's `pruneNoiseWeight`): a child whose
/// utility lies below the weighted average of the children before it,
/// and whose weight exceeds twice its share by policy of theirs, loses
/// that excess times `1 − exp(−gap / 0.15)`. Visits that root noise, or
/// an early lucky evaluation, sent to a poor move then count less in the
/// parent's value; a child within its policy share keeps its weight.
pub fn noise_pruned_weights(children: &[(f64, f64, f64)]) -> Vec<f64> {
    let mut weights: Vec<f64> = children.iter().map(|&(w, _, _)| w).collect();
    if children.len() <= 1 || weights.iter().sum::<f64>() <= 1e-5 {
        return weights;
    }
    let (mut utility_sum, mut weight_sum, mut prior_sum) = (0.0, 0.0, 0.0);
    for (i, &(weight, utility, prior)) in children.iter().enumerate() {
        let prior = prior.max(1e-30);
        if weight_sum > 0.0 && prior_sum > 0.0 {
            let gap = utility_sum / weight_sum - utility;
            let lenient_share = 2.0 * weight_sum * prior / prior_sum;
            if gap > 0.0 && weight > lenient_share {
                let excess = weight - lenient_share;
                weights[i] = weight - excess * (1.0 - (-gap / NOISE_PRUNE_UTILITY_SCALE).exp());
            }
        }
        utility_sum += utility * weights[i];
        weight_sum += weights[i];
        prior_sum += prior;
    }
    weights
}

/// The weights of children given as (weight, utility for the side to
/// move), each times `(P(best) + 0.0001)^exponent` and scaled back to the
/// same total. `P(best)` is the normal probability that a child's value
/// lies above their weighted average, its uncertainty `1 / √(1.5 √w)`
/// (KataGo's `downweightBadChildrenAndNormalizeWeight`).
pub fn value_weights(children: &[(f64, f64)], exponent: f64) -> Vec<f64> {
    let total: f64 = children.iter().map(|&(w, _)| w).sum();
    if total <= 0.0 || exponent <= 0.0 {
        return children.iter().map(|&(w, _)| w).collect();
    }
    let mean = children.iter().map(|&(w, u)| w * u).sum::<f64>() / total;
    let raw: Vec<f64> = children
        .iter()
        .map(|&(w, u)| {
            let precision = 1.5 * w.sqrt();
            let stdev = (1e-8 + 1.0 / precision).sqrt();
            let p = normal_cdf((u - mean) / stdev) + 0.0001;
            w * p.powf(exponent)
        })
        .collect();
    let raw_total: f64 = raw.iter().sum();
    raw.iter().map(|w| w * total / raw_total).collect()
}

/// The standard normal distribution function, through the complementary
/// error function's rational approximation (Abramowitz and Stegun 7.1.26,
/// absolute error below 1.5e-7).
pub fn normal_cdf(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erfc = poly * (-x * x).exp();
    if z >= 0.0 {
        1.0 - 0.5 * erfc
    } else {
        0.5 * erfc
    }
}

/// The exact value of a finished game (or of the position as it stands):
/// the winner by the game's own count, the margin as the lead.
pub fn exact_value(game: &Game) -> LeafValue {
    let (winner, lead) = match game.outcome() {
        Outcome::Counted(score) => (score.winner(), score.margin() as f32),
        other => (other.winner(), 0.0),
    };
    decided_value(winner, lead)
}

/// The value of a decided game: certain for `winner` (half each for a
/// draw), Black's `lead` as the lead.
fn decided_value(winner: Option<Color>, lead: f32) -> LeafValue {
    let (black_win, white_win) = match winner {
        Some(Color::Black) => (1.0, 0.0),
        Some(Color::White) => (0.0, 1.0),
        None => (0.5, 0.5),
    };
    LeafValue::from_lead(black_win, white_win, lead)
}

/// A network's value turned to Black's point of view, sanitised.
pub fn leaf_value(to_move: Color, eval: &NetEvaluation) -> LeafValue {
    let finite = |x: f32| {
        if x.is_finite() {
            x.clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let (win, loss) = (finite(eval.win), finite(eval.loss));
    let lead = if eval.lead.is_finite() {
        eval.lead
    } else {
        0.0
    };
    // The score and its square, or the lead with no spread.
    let (score, score_sq) = match (eval.score_mean, eval.score_mean_sq) {
        (Some(mean), Some(sq)) if mean.is_finite() && sq.is_finite() => (mean, sq.max(mean * mean)),
        _ => (lead, lead * lead),
    };
    let s = if to_move == Color::Black { 1.0 } else { -1.0 };
    let (black_win, white_win) = if to_move == Color::Black {
        (win, loss)
    } else {
        (loss, win)
    };
    LeafValue {
        black_win,
        white_win,
        black_lead: s * lead,
        black_score: s * score,
        score_sq,
    }
}

/// The policy restricted to moves legal in `game` (superko included), each
/// once, renormalised and sorted by prior (highest first, ties in the
/// evaluator's order). Uniform over the legal moves if the evaluator gave
/// none of them any weight.
pub fn legal_policy(game: &Game, policy: &[(Move, f32)]) -> Vec<(Move, f32)> {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<(Move, f32)> = policy
        .iter()
        .filter(|(mv, p)| p.is_finite() && *p >= 0.0 && game.legal(*mv).is_ok())
        .filter(|(mv, _)| seen.insert(*mv))
        .copied()
        .collect();
    let total: f32 = out.iter().map(|(_, p)| p).sum();
    if total > 0.0 {
        for (_, p) in &mut out {
            *p /= total;
        }
    } else {
        let moves = game.legal_moves();
        let p = 1.0 / moves.len().max(1) as f32;
        out = moves.into_iter().map(|mv| (mv, p)).collect();
    }
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Round {
    /// Its leaves were evaluated and backed up.
    Done,
    /// The stop signal came while its batch was being evaluated; the batch
    /// was dropped.
    Stopped,
}

/// Evaluates `games`, or gives up (`Ok(None)`) when `stop` says so. An
/// evaluator that can abandon a batch runs it on a helper thread while this
/// thread asks `stop` (which need not be thread-safe) every 2 ms and passes
/// the answer on through an atomic flag; any other evaluator just runs.
fn evaluate_batch<E: PositionEvaluator + ?Sized>(
    evaluator: &E,
    games: &[&Game],
    root: bool,
    stop: &dyn Fn() -> bool,
) -> Result<Option<Vec<NetEvaluation>>, EvaluatorError> {
    // The root is evaluated alone, and as the evaluator evaluates roots.
    let run = |cancel: &(dyn Fn() -> bool + Sync)| match (root, games) {
        (true, [game]) => evaluator.evaluate_root(game, cancel).map(|e| vec![e]),
        _ => evaluator.evaluate_until(games, cancel),
    };
    if !evaluator.abandons() {
        return run(&|| false).map(Some);
    }
    if stop() {
        return Ok(None);
    }
    let cancelled = AtomicBool::new(false);
    let watcher = std::thread::current();
    let result = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let result = run(&|| cancelled.load(Ordering::Relaxed));
            watcher.unpark();
            result
        });
        while !worker.is_finished() {
            if !cancelled.load(Ordering::Relaxed) && stop() {
                cancelled.store(true, Ordering::Relaxed);
            }
            std::thread::park_timeout(Duration::from_millis(2));
        }
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    match result {
        Ok(evals) => Ok(Some(evals)),
        Err(_) if cancelled.load(Ordering::Relaxed) => Ok(None),
        Err(error) => Err(error),
    }
}
