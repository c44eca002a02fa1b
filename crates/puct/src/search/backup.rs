//! Backing a value up a path, the virtual losses taken off, and the
//! statistics of the nodes on it (and of a kept tree) recomputed.

use super::*;

impl<'a, E: PositionEvaluator + ?Sized> Searcher<'a, E> {
    /// Adds `value` to every node of `path`, taking its virtual loss off.
    pub(super) fn backup(&mut self, path: &[NodeId], value: &LeafValue, weight: f64) {
        let utility = self.utility.of_value(value);
        self.backup_with(path, value, utility, weight);
    }

    /// The same with the utility given.
    pub(super) fn backup_with(
        &mut self,
        path: &[NodeId],
        value: &LeafValue,
        utility: f64,
        weight: f64,
    ) {
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
    pub(super) fn after_backup(&mut self, path: &[NodeId]) {
        self.count_entries(path);
        self.recompute_path(path);
    }

    /// With value weighting ([`ValueUpdate::value_weight_exponent`](crate::ValueUpdate::value_weight_exponent)), noise
    /// pruning ([`ValueUpdate::noise_pruning`](crate::ValueUpdate::noise_pruning)) or the subtree value bias
    /// on, recomputes the statistics of the expanded nodes of `path`,
    /// deepest first, from their own evaluation and their children's.
    pub(super) fn recompute_path(&mut self, path: &[NodeId]) {
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
    pub(super) fn post_order(&self) -> Vec<NodeId> {
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
                if self.config.values.transpositions && key != 0 {
                    stack.extend(self.tree.owner(key).map(|o| (o, false)));
                }
            }
        }
        order
    }

    /// Counts the transpositions a backed-up `path` entered: a step to a
    /// node that is not a child.
    pub(super) fn count_entries(&mut self, path: &[NodeId]) {
        if !self.config.values.transpositions {
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
    pub(super) fn undo_virtual_loss(&mut self, path: &[NodeId]) {
        for &id in path {
            let node = self.tree.node_mut(id);
            node.virtual_loss = node.virtual_loss.saturating_sub(1);
        }
    }
}
