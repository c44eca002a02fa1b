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

use std::time::{Duration, Instant};

use tengen_core::scoring::{game_status, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED};
use tengen_core::splitmix64;
use tengen_core::{AnalysisDetail, BoardSize, Color, Game, Move, MoveFilter, Outcome, MAX_CELLS};

use super::bias::{situation_key, NO_ENTRY};
use super::noise::dirichlet;
use super::tree::{position_key, sign, LeafValue, NodeId, NodeState, Tree, ROOT};
use super::{NetEvaluation, PositionEvaluator, PuctConfig};

mod ownership;
pub use ownership::OwnershipSum;
mod utility;
pub use utility::{mean_utility, node_utility, Utility};
mod backup;
mod ending;
pub use ending::EndingBonus;
mod recompute;
mod round;
mod select;
pub use recompute::{noise_pruned_weights, normal_cdf, recompute_node, value_weights, Recompute};
use round::{InFlight, Round};
mod values;
use values::decided_value;
pub use values::{exact_value, leaf_value, legal_policy};

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
    /// Whether time not used now is kept for later moves: then the search
    /// stops as soon as no other move can overtake the most visited one
    /// before `max_time`, and an obvious move stops early at its target.
    pub saves_time: bool,
}

/// A settled choice is judged from the visit rate only after this long,
/// when the rate is no longer the first batches' start-up cost.
const SETTLED_AFTER: Duration = Duration::from_millis(100);

/// The policy entropy (in nats) at which a move counts as obvious with
/// weight 1/e; a forced reply's policy is far below it.
const OBVIOUS_ENTROPY: f64 = 0.3;

/// The share of its target an obvious move is given: a strong player does
/// not think long over a forced reply when the time saved is kept.
const OBVIOUS_TIME_FACTOR: f64 = 0.4;

/// Visits of the budget per leaf of a batch under [`Batching::adaptive`](crate::Batching::adaptive).
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
    /// ([`ValueUpdate::transpositions`](crate::ValueUpdate::transpositions)).
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

/// A leaf queued for evaluation.
struct Pending {
    path: Vec<NodeId>,
    game: Game,
}

/// The game after the root's pass that would end it, as the search
/// continues it under [`MoveSelection::conservative_pass`](crate::MoveSelection::conservative_pass) (KataGo's
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
    /// The root ending bonus's points for each root move, once the root is
    /// prepared ([`MoveSelection::root_ending_bonus`](crate::MoveSelection::root_ending_bonus)).
    ending: Option<EndingBonus>,
    /// The root's symmetries, when root symmetry pruning is on
    /// ([`Exploration::root_symmetry_pruning`](crate::Exploration::root_symmetry_pruning)):
    /// the analysis reports each move's images as its copies.
    pub root_symmetries: Vec<crate::symmetry::Symmetry>,
    /// Per point index, whether the root's move there is a copy under
    /// those symmetries of a move searched, and so left out.
    root_duplicates: Vec<bool>,
    /// State of the draws of wide root noise (a SplitMix64 counter).
    noise_state: std::cell::Cell<u64>,
    /// The mirroring opponent, when anti-mirror is on and the game shows
    /// one ([`MoveSelection::anti_mirror`](crate::MoveSelection::anti_mirror)).
    mirror: Option<crate::mirror::Mirror>,
    /// Leaves evaluated and not yet backed up, oldest first
    /// ([`Batching::in_flight`](crate::Batching::in_flight)).
    in_flight: InFlight,
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
        let root_symmetries = if config.exploration.root_symmetry_pruning {
            crate::symmetry::root_symmetries(game)
        } else {
            Vec::new()
        };
        let root_duplicates =
            crate::symmetry::duplicate_points(game.size(), game.to_move(), &root_symmetries);
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
            ending: None,
            root_symmetries,
            root_duplicates,
            noise_state: std::cell::Cell::new(
                config.exploration.noise_seed ^ 0x5851_f42d_4c95_7f2d,
            ),
            mirror: if config.selection.anti_mirror {
                crate::mirror::Mirror::detect(game)
            } else {
                None
            },
            in_flight: InFlight::new(),
        }
    }

    /// Positions the evaluator works on at once (at least one).
    fn positions_in_parallel(&self) -> u64 {
        self.evaluator.positions_in_parallel().max(1) as u64
    }

    /// The largest batch for a budget of `visits`: one leaf per
    /// [`VISITS_PER_BATCH_LEAF`], but never fewer than the evaluator works
    /// on at once, nor than [`Batching::in_flight`](crate::Batching::in_flight).
    fn batch_for_budget(&self, visits: u64) -> u64 {
        (visits / VISITS_PER_BATCH_LEAF)
            .max(self.positions_in_parallel())
            .max(self.config.batching.in_flight as u64)
    }

    /// Searches until `limits` or `monitor` (called after every round with
    /// the searcher and the time so far) says stop, or `stop` does: it is
    /// also asked while a batch is being evaluated, and a batch it stops is
    /// dropped (its leaves stay unvisited). The evaluations still in flight
    /// ([`Batching::in_flight`](crate::Batching::in_flight)) are backed up before it returns.
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
            let root_visits = u64::from(self.tree.root().visits) + self.in_flight.len() as u64;
            // Never fewer leaves than the evaluator works on at once: with
            // fewer positions than threads, the threads share each layer and
            // wait for each other.
            let mut want =
                (self.config.batching.size.max(1) as u64).max(self.positions_in_parallel());
            // Modelled search threads each gather one leaf at a time.
            if self.config.batching.in_flight > 1 {
                want = want.min(self.config.batching.in_flight as u64);
            }
            let mut left = u64::MAX;
            if let Some(visits) = limits.visits {
                left = left.min(visits.saturating_sub(root_visits));
            }
            if let Some(playouts) = limits.playouts {
                left = left.min(playouts.saturating_sub(self.visits_made()));
            }
            want = want.min(left);
            // A batch spreads its leaves by virtual loss: with few visits to
            // make that costs more than batching gains, so a small budget
            // gets small batches.
            if self.config.batching.adaptive && left != u64::MAX {
                let total = left + self.visits_made();
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
                let done = self.visits_made();
                want = if done == 0 {
                    want.min(1)
                } else {
                    let per_visit = (elapsed.as_secs_f64() / done as f64).max(1e-9);
                    let left = limit.saturating_sub(elapsed).as_secs_f64();
                    let affordable = ((left / per_visit) as u64).max(1);
                    let cap = if self.config.batching.adaptive {
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
            if !self
                .tree
                .has_room((want as usize + self.in_flight.len()) * per_node)
            {
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
            let target = limits.target_time.map(|t| {
                if limits.saves_time {
                    t.mul_f64(self.obvious_time_factor())
                } else {
                    t
                }
            });
            if target.is_some_and(|t| elapsed >= t) {
                let (first, second) = self.top_two();
                if f64::from(first) >= 1.5 * f64::from(second) {
                    break;
                }
            }
            if limits.saves_time
                && limits
                    .max_time
                    .is_some_and(|max| self.choice_settled(elapsed, max))
            {
                break;
            }
        }
        self.land(0);
        self.stats.elapsed = start.elapsed();
        self.stats.root_visits = u64::from(self.tree.root().visits);
    }

    /// Whether, at the visit rate so far, no root move can overtake the
    /// most visited one in the time left before `max`.
    pub(crate) fn choice_settled(&self, elapsed: Duration, max: Duration) -> bool {
        let done = self.visits_made();
        if elapsed < SETTLED_AFTER || done == 0 {
            return false;
        }
        let per_visit = elapsed.as_secs_f64() / done as f64;
        let affordable = max.saturating_sub(elapsed).as_secs_f64() / per_visit;
        let (first, second) = self.top_two();
        f64::from(first) > f64::from(second) + affordable
    }

    /// The share of the target time the move deserves by how obvious it
    /// is: 1, down to [`OBVIOUS_TIME_FACTOR`] as the root policy's entropy
    /// falls under [`OBVIOUS_ENTROPY`], when the search agrees with the
    /// policy's first choice.
    pub(crate) fn obvious_time_factor(&self) -> f64 {
        let children = || self.tree.children(ROOT).map(|c| self.tree.node(c));
        let total: f64 = children().map(|n| f64::from(n.raw_prior)).sum();
        if total <= 0.0 {
            return 1.0;
        }
        let mut entropy = 0.0;
        let (mut top_prior, mut top_prior_visits, mut most_visits) = (-1.0f32, 0, 0);
        for node in children() {
            let p = f64::from(node.raw_prior) / total;
            if p > 0.0 {
                entropy -= p * p.ln();
            }
            if node.raw_prior > top_prior {
                (top_prior, top_prior_visits) = (node.raw_prior, node.edge_visits());
            }
            most_visits = most_visits.max(node.edge_visits());
        }
        if top_prior_visits < most_visits {
            return 1.0;
        }
        let obviousness = (-entropy / OBVIOUS_ENTROPY).exp();
        1.0 - obviousness * (1.0 - OBVIOUS_TIME_FACTOR)
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
                f64::from(self.config.utility.dynamic_score_center_zero_weight),
            );
        }
        // The root's own evaluation was backed up before the centre was
        // known, and a kept tree's under the last search's centre: KataGo
        // centres first, then values.
        self.recompute_kept_tree();
        self.ending = self.ending_bonus();
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
        let temperature = f64::from(self.config.exploration.root_policy_temperature);
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
            let mv = self.tree.node(c).mv;
            let filtered = self.is_filtered(to_move, mv, 1);
            let copy = matches!(mv, Move::Play(p) if self.root_duplicates[p.index()]);
            let node = self.tree.node_mut(c);
            node.excluded =
                !ok || filtered || copy || (self.cleanup && others && node.mv == Move::Pass);
            node.prior = (p * rescale) as f32;
        }
        if self.config.exploration.noise_weight > 0.0 && !children.is_empty() {
            let alpha =
                f64::from(self.config.exploration.noise_concentration) / children.len() as f64;
            let noise = dirichlet(self.config.exploration.noise_seed, alpha, children.len());
            let w = self.config.exploration.noise_weight.clamp(0.0, 1.0);
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
        // A game the evaluator plays on after passes is valued once and
        // then stays as valued: its cleanup is not searched.
        let ends_here = game.is_over();
        if !ends_here {
            let children = legal_policy(game, &eval.policy);
            if self.tree.has_room(children.len()) {
                self.tree.expand(id, !to_move, &children);
                if self.config.values.transpositions {
                    self.tree.claim(id);
                }
            } else {
                self.stats.tree_full = true;
            }
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
            f64::from(self.config.values.subtree_value_bias) * mean
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
        if ends_here {
            self.tree.node_mut(id).state = NodeState::Terminal;
        }
        self.stats.new_visits += 1;
    }

    /// Gives `child` of `parent` (whose position is `game`'s, before the
    /// child's move) its subtree value bias entry, the first time a descent
    /// passes through it on the way to evaluating it.
    fn assign_bias_entry(&mut self, parent: NodeId, child: NodeId, game: &Game) {
        if self.config.values.subtree_value_bias <= 0.0 {
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
            if self.config.values.transpositions && path.len() > 1 {
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
                    if game.is_over() && !self.evaluator.plays_on_after_passes(&game) {
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
                    if self.config.selection.conservative_pass
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
}
