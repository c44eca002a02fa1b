//! Which child a descent takes (PUCT with first-play urgency and
//! KataGo's exploration scaling), and how much an evaluation weighs.

use super::*;

impl<'a, E: PositionEvaluator + ?Sized> Searcher<'a, E> {
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
        // Of the children not yet visited only the one the network likes
        // best competes, as in KataGo (which creates one new child at a
        // time): they share the first-play urgency, so without noise it
        // would win among them anyway, and with the root's wide noise each
        // would otherwise draw a bonus of its own and the best of many
        // draws would spread the visits over far more moves than KataGo's.
        let unvisited = |c: NodeId| {
            let child = tree.node(c);
            child.edge_visits() + child.virtual_loss == 0
        };
        // (Against a mirroring opponent the prior as the anti-mirror
        // policy changes it, as KataGo picks its new child.)
        let mut newcomer: Option<(NodeId, f32)> = None;
        for c in tree.children(id) {
            let child = tree.node(c);
            if child.excluded || filtered(c) || !unvisited(c) {
                continue;
            }
            let prior = mirror.map_or(child.prior, |m| {
                m.prior(child.prior, child.mv, node.to_move, game)
            });
            if newcomer.is_none_or(|(_, best)| prior > best) {
                newcomer = Some((c, prior));
            }
        }
        let mut best: Option<(NodeId, f64)> = None;
        for c in tree.children(id) {
            let child = tree.node(c);
            if child.excluded || filtered(c) {
                continue;
            }
            if unvisited(c) && newcomer.is_some_and(|(n, _)| n != c) {
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
    pub(super) fn wide_root_noise(&self, value: f64, prior: f32) -> (f64, f32) {
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
    pub(super) fn utility_spread_factor(&self, node: &crate::tree::Node) -> f64 {
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
        if self.config.uncertainty_weighting && self.evaluator.gives_uncertainty() {
            f64::from(self.config.uncertainty_max_weight).max(1.0)
        } else {
            1.0
        }
    }
}
