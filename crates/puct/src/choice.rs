//! The move the search plays: KataGo's play selection over the root's
//! children, with the lower confidence bound.

use crate::search::Searcher;
use crate::*;

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
///   [`lcb_min_visits`](MoveSelection::lcb_min_visits) of the reference's
///   weight the one with the highest lower bound is raised above each
///   other child by how far its bound clears theirs, relative to their
///   uncertainty.
///
/// The heaviest after all this is played; ties go to the reference, then
/// to the earlier child. Returns its index and every child's weight (the
/// play-selection values a temperature draws from, [`draw_with_temperature`]).
pub(crate) fn play_choice<E: PositionEvaluator + ?Sized>(
    searcher: &Searcher<'_, E>,
    children: &[tree::NodeId],
    values: &[f64],
    bounds: &[(f64, f64)],
) -> Option<(usize, Vec<f64>)> {
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
    if config.selection.lcb_selection {
        let floor = f64::from(config.selection.lcb_min_visits) * weights[reference];
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
    let chosen = first_max(&order, |i| selection[i])?;
    Some((chosen, selection))
}

/// The index drawn among moves of play-selection `weights` at
/// `temperature`, as KataGo draws its chosen move: weights below one
/// visit (or below 1/64 of the heaviest, if that is less) are dropped,
/// the others raised to `1 / temperature` relative to the heaviest. At a
/// temperature of 1e-4 or less, or with no positive weight, the heaviest
/// (the first on ties); `None` if `weights` is empty.
pub(crate) fn draw_with_temperature(
    weights: &[f64],
    temperature: f64,
    rng: &mut tengen_core::Rng,
) -> Option<usize> {
    let heaviest = first_max(&(0..weights.len()).collect::<Vec<_>>(), |i| weights[i])?;
    let max = weights[heaviest];
    if temperature <= 1e-4 || max <= 0.0 {
        return Some(heaviest);
    }
    // Positive, since `max` is.
    let prune = (max / 64.0).min(1.0);
    let relative: Vec<f64> = weights
        .iter()
        .map(|&w| {
            if w < prune {
                0.0
            } else {
                ((w / max).ln() / temperature).exp()
            }
        })
        .collect();
    let total: f64 = relative.iter().sum();
    let mut x = rng.next_f64() * total;
    for (i, r) in relative.iter().enumerate() {
        if *r > 0.0 && x < *r {
            return Some(i);
        }
        x -= r;
    }
    Some(heaviest)
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
