//! A node's statistics from its children, KataGo's way: weights pruned,
//! the subtree value bias, value weighting.

use super::*;

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
    /// [`ValueUpdate::value_weight_exponent`](crate::ValueUpdate::value_weight_exponent).
    pub exponent: f64,
    /// Whether transposed children read their position's owner.
    pub transpositions: bool,
    /// [`ValueUpdate::noise_pruning`](crate::ValueUpdate::noise_pruning).
    pub noise_pruning: bool,
    /// [`ValueUpdate::subtree_value_bias`](crate::ValueUpdate::subtree_value_bias) (0: off).
    pub subtree_bias: f64,
}

impl Recompute {
    /// The settings `config` gives.
    pub fn of(config: &PuctConfig) -> Recompute {
        Recompute {
            exponent: f64::from(config.values.value_weight_exponent),
            transpositions: config.values.transpositions,
            noise_pruning: config.values.noise_pruning,
            subtree_bias: f64::from(config.values.subtree_value_bias),
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
