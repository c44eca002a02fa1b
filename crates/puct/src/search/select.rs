//! Which child a descent takes (PUCT with first-play urgency and
//! KataGo's exploration scaling), and how much an evaluation weighs.

use super::*;
use crate::mirror::Mirror;
use crate::tree::Node;

/// What the PUCT scores of one node's children are computed against.
struct ScoreBasis<'g> {
    /// The node whose children compete.
    id: NodeId,
    /// The side to move at that node.
    to_move: Color,
    /// The sign turning Black's utility into the side to move's.
    s: f64,
    /// The exploration scale of the PUCT formula there.
    explore: f64,
    /// The first-play urgency: the value of an unvisited child.
    fpu: f64,
    /// The worst utility, the value of visits in flight.
    worst: f64,
    /// The node's mean utility for the side to move.
    parent_value: f64,
    /// The total weight sum of the children not excluded.
    total_weight: f64,
    /// The mirroring opponent, while the line has kept mirroring.
    mirror: Option<&'g Mirror>,
    /// The game at the node.
    game: &'g Game,
}

/// Whether `child` has neither visits nor visits in flight.
#[inline]
fn is_unvisited(child: &Node) -> bool {
    child.edge_visits() + child.virtual_loss == 0
}

impl<'a, E: PositionEvaluator + ?Sized> Searcher<'a, E> {
    /// The PUCT choice among `id`'s children: the highest
    /// `Q + c·P·√W / (1 + w)`, Q in utility for the side to move at `id`,
    /// `w` a child's edge weight and `W` their total, virtual losses
    /// counted as visits of the worst utility, unvisited children valued
    /// by first-play urgency.
    pub(crate) fn select(&self, id: NodeId, depth: u32, game: &Game) -> Option<NodeId> {
        let tree = &*self.tree;
        let node = tree.node(id);
        let s = sign(node.to_move);
        let (total, total_weight, visited_policy) = self.child_totals(id);
        let explore = self.explore_scaling(total, node);
        let parent_value = mean_utility(tree, id).map_or(0.0, |u| s * u);
        // Against a mirroring opponent, while the line has kept mirroring.
        let mirror = self.mirror.as_ref().filter(|m| m.holds(game, 0));
        let basis = ScoreBasis {
            id,
            to_move: node.to_move,
            s,
            explore,
            fpu: self.first_play_urgency(id, parent_value, visited_policy),
            worst: self.utility.worst(),
            parent_value,
            total_weight,
            mirror,
            game,
        };
        let newcomer = self.newcomer(id, depth, &basis);
        let mut best: Option<(NodeId, f64)> = None;
        for c in tree.children(id) {
            let child = tree.node(c);
            if child.excluded || self.filtered_below_root(node.to_move, child.mv, depth) {
                continue;
            }
            if is_unvisited(child) && newcomer.is_some_and(|(n, _)| n != c) {
                continue;
            }
            let score = self.child_score(&basis, c);
            if best.is_none_or(|(_, b)| score > b) {
                best = Some((c, score));
            }
        }
        best.map(|(c, _)| c)
    }

    /// Whether selection skips a child playing `mv` for `to_move` at
    /// `depth`: below the root, moves filtered at this depth are skipped
    /// (the root's are excluded once, in `prepare_root`).
    #[inline]
    fn filtered_below_root(&self, to_move: Color, mv: Move, depth: u32) -> bool {
        depth > 1 && !self.filters.is_empty() && self.is_filtered(to_move, mv, depth)
    }

    /// Over `id`'s children not excluded: the total of their edge weights
    /// and virtual losses, the total of their weight sums, and the policy
    /// mass of those visited or in flight.
    #[inline]
    fn child_totals(&self, id: NodeId) -> (f64, f64, f64) {
        let tree = &*self.tree;
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
        (total, total_weight, visited_policy)
    }

    /// The first-play urgency at `id`: the value an unvisited child gets,
    /// the parent's value (`parent`, for the side to move) reduced by the
    /// square root of the policy mass already visited.
    #[inline]
    fn first_play_urgency(&self, id: NodeId, parent: f64, visited_policy: f64) -> f64 {
        let config = self.config;
        let node = self.tree.node(id);
        // While few children are visited the parent's average is mostly its
        // own evaluation anyway; KataGo leans on the network's value by
        // the square of the visited policy mass.
        let parent = if config.exploration.fpu_parent_blend {
            let weight = (visited_policy * visited_policy).min(1.0);
            weight * parent + (1.0 - weight) * sign(node.to_move) * f64::from(node.nn_utility)
        } else {
            parent
        };
        let reduction = if id == ROOT {
            config.exploration.root_fpu_reduction
        } else {
            config.exploration.fpu_reduction
        };
        parent - f64::from(reduction) * visited_policy.sqrt()
    }

    /// The one unvisited child of `basis.id` that competes, with its prior.
    ///
    /// Of the children not yet visited only the one the network likes
    /// best competes, as in KataGo (which creates one new child at a
    /// time): they share the first-play urgency, so without noise it
    /// would win among them anyway, and with the root's wide noise each
    /// would otherwise draw a bonus of its own and the best of many
    /// draws would spread the visits over far more moves than KataGo's.
    /// (Against a mirroring opponent the prior as the anti-mirror
    /// policy changes it, as KataGo picks its new child.)
    #[inline]
    fn newcomer(&self, id: NodeId, depth: u32, basis: &ScoreBasis<'_>) -> Option<(NodeId, f32)> {
        let tree = &*self.tree;
        let mut newcomer: Option<(NodeId, f32)> = None;
        for c in tree.children(id) {
            let child = tree.node(c);
            if child.excluded
                || self.filtered_below_root(basis.to_move, child.mv, depth)
                || !is_unvisited(child)
            {
                continue;
            }
            let prior = basis.mirror.map_or(child.prior, |m| {
                m.prior(child.prior, child.mv, basis.to_move, basis.game)
            });
            if newcomer.is_none_or(|(_, best)| prior > best) {
                newcomer = Some((c, prior));
            }
        }
        newcomer
    }

    /// The PUCT score of child `c`: its value (first-play urgency when
    /// unvisited, pulled toward a loss by its visits in flight, with the
    /// root's wide noise and the anti-mirror changes) plus the exploration
    /// term.
    #[inline]
    fn child_score(&self, basis: &ScoreBasis<'_>, c: NodeId) -> f64 {
        let tree = &*self.tree;
        let child = tree.node(c);
        let weight = child.edge_weight();
        let vl = f64::from(child.virtual_loss);
        let n = weight + vl;
        let q = if child.edge_visits() + child.virtual_loss == 0 {
            basis.fpu
        } else if child.edge_visits() == 0 {
            basis.worst
        } else {
            let mut own = mean_utility(tree, c).map_or(0.0, |u| basis.s * u);
            if basis.id == ROOT {
                own += basis.s * self.root_ending_utility(c);
            }
            // Visits in flight pull toward a loss by their share of
            // the weight (at least a quarter visit's, as KataGo).
            let share = vl / (vl + weight.max(0.25));
            own + (basis.worst - own) * share
        };
        let (mut q, mut prior) =
            if basis.id == ROOT && self.config.exploration.wide_root_noise > 0.0 {
                self.wide_root_noise(q, child.prior)
            } else {
                (q, child.prior)
            };
        if let Some(mirror) = basis.mirror {
            prior = mirror.prior(prior, child.mv, basis.to_move, basis.game);
            if child.visits > 0 {
                q = mirror.forced_value(
                    q,
                    basis.parent_value,
                    child.mv,
                    basis.to_move,
                    basis.game,
                    child.weight_sum,
                    basis.total_weight,
                    basis.id == ROOT,
                );
            }
        }
        q + basis.explore * f64::from(prior) / (1.0 + n)
    }

    /// KataGo's `wideRootNoise` at the root: the prior flattened to the
    /// power `1 / (4w + 1)`, and half the time a bonus of `w·|N(0, 1)|` to
    /// the move's value, so that the search spreads over more moves.
    pub(super) fn wide_root_noise(&self, value: f64, prior: f32) -> (f64, f32) {
        let w = f64::from(self.config.exploration.wide_root_noise);
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
    pub(super) fn next_uniform(&self) -> f64 {
        let state = self.noise_state.get();
        self.noise_state
            .set(state.wrapping_add(tengen_core::GOLDEN_GAMMA));
        (splitmix64(state) >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The exploration scale of the PUCT formula at `node` whose children
    /// weigh `total`: `cpuct(total) · √(total + 0.01)` times the spread
    /// factor of the node's utility.
    pub(super) fn explore_scaling(&self, total: f64, node: &crate::tree::Node) -> f64 {
        let config = self.config;
        let base = f64::from(config.exploration.c_puct_base).max(1.0);
        let cpuct = f64::from(config.exploration.c_puct)
            + f64::from(config.exploration.c_puct_log) * ((total + base) / base).ln();
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
    pub(super) fn utility_spread_factor(&self, node: &crate::tree::Node) -> f64 {
        let scale = f64::from(self.config.exploration.cpuct_stdev_scale);
        if scale == 0.0 {
            return 1.0;
        }
        let prior = f64::from(self.config.exploration.cpuct_stdev_prior).max(1e-6);
        let prior_weight = f64::from(self.config.exploration.cpuct_stdev_prior_weight);
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
        if !config.values.uncertainty_weighting
            || !winloss_error.is_finite()
            || !score_error.is_finite()
        {
            return 1.0;
        }
        let slope = self.utility.score_slope(f64::from(value.black_score));
        let uncertainty =
            f64::from(winloss_error.max(0.0)) + slope * f64::from(score_error.max(0.0));
        let coeff = f64::from(config.values.uncertainty_coeff).max(1e-6);
        let max = f64::from(config.values.uncertainty_max_weight).max(1.0);
        coeff / (uncertainty + coeff / max)
    }

    /// The weight of another visit to the finished node `id`:
    /// what its visits weighed on average, or an exact value's weight.
    pub(super) fn terminal_weight(&self, id: NodeId) -> f64 {
        let node = self.tree.node(id);
        if node.visits > 0 && node.weight_sum > 0.0 {
            node.weight_sum / f64::from(node.visits)
        } else {
            self.exact_weight()
        }
    }

    /// The weight of an exact value (a finished game): the most an
    /// evaluation can weigh.
    pub(super) fn exact_weight(&self) -> f64 {
        if self.config.values.uncertainty_weighting && self.evaluator.gives_uncertainty() {
            f64::from(self.config.values.uncertainty_max_weight).max(1.0)
        } else {
            1.0
        }
    }
}
