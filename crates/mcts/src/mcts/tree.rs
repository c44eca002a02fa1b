//! The search tree: nodes in one bounded arena, children stored side by side,
//! selection by MC-RAVE, backup of results and all-moves-as-first statistics,
//! and re-rooting for tree reuse between moves.
//!
//! A node's statistics are from the point of view of the player who made its
//! move: a parent picks the child with the highest value for itself.

use tengen_core::{Color, Move, Point};

use crate::evaluator::{AmafMap, Policy};
use crate::prior::Prior;

/// The move of a node in one `u16`: a point's index, or [`PASS`].
pub type NodeMove = u16;
/// The pass; index 0 is a wall cell, never a point.
pub const PASS: NodeMove = 0;

/// A node's move as a [`Move`].
pub fn to_move(mv: NodeMove) -> Move {
    match mv {
        PASS => Move::Pass,
        index => Move::Play(Point::from_index(index as usize).expect("a stored point index")),
    }
}

/// A [`Move`] as a node's move.
pub fn from_move(mv: Move) -> NodeMove {
    match mv {
        Move::Pass => PASS,
        Move::Play(point) => point.index() as NodeMove,
    }
}

/// One position of the tree.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// The move that led here.
    pub mv: NodeMove,
    /// Index of the first child; children are contiguous.
    pub first_child: u32,
    /// Number of children; meaningful once `expanded`.
    pub child_count: u16,
    /// Whether the children have been added.
    pub expanded: bool,
    /// Whether an evaluator's policy has been added to the children's
    /// priors (or found to have nothing to add).
    pub policy_added: bool,
    /// Simulations through this node.
    pub visits: u32,
    /// Their results for the player who made `mv` (1 win, 0 loss).
    pub wins: f32,
    /// Virtual visits from prior knowledge.
    pub prior_visits: f32,
    /// Virtual wins among them.
    pub prior_wins: f32,
    /// Simulations from the parent in which the mover played this point
    /// first later on (AMAF).
    pub amaf_visits: f32,
    /// Their results for the mover.
    pub amaf_wins: f32,
    /// Simulations now under way through this node (each counts as a loss
    /// until it returns, so that threads spread out).
    pub virtual_loss: u32,
    /// What the played-out simulations through this node said of its point
    /// ([`Tree::record_owners`]), for its criticality.
    pub owners: OwnerStats,
}

/// Who owned a node's point at the end of the simulations through it, and
/// who won them: enough for the point's criticality (Coulom, "Criticality:
/// a Monte-Carlo heuristic for Go programs", 2009), the covariance between
/// owning the point and winning the game.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OwnerStats {
    /// Played-out simulations counted.
    pub samples: f32,
    /// Those that Black won (half for a draw).
    pub black_wins: f32,
    /// Those in which Black owned the point at the end.
    pub black_owned: f32,
    /// Those in which the winner owned the point at the end.
    pub winner_owned: f32,
}

impl OwnerStats {
    /// The criticality of the point: how much more often the winner owned
    /// it than if owning it and winning were independent, from −1 to 1
    /// (`None` without samples).
    pub fn criticality(&self) -> Option<f32> {
        if self.samples <= 0.0 {
            return None;
        }
        let black_wins = self.black_wins / self.samples;
        let black_owns = self.black_owned / self.samples;
        let independent = black_owns * black_wins + (1.0 - black_owns) * (1.0 - black_wins);
        Some(self.winner_owned / self.samples - independent)
    }
}

impl Node {
    /// The win rate from real visits only, if any.
    pub fn winrate(&self) -> Option<f32> {
        (self.visits > 0).then(|| self.wins / self.visits as f32)
    }
}

/// How selection weighs what it knows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelectionParams {
    /// Visits at which a node's own win rate and its AMAF win rate weigh the
    /// same (Gelly and Silver's equivalence parameter, as in Michi and Pachi).
    pub rave_equivalence: f32,
    /// Weight of the UCB exploration term (0 leaves exploration to the
    /// priors and AMAF).
    pub exploration: f32,
    /// Weight of a move's criticality in its AMAF value (0: none): a node
    /// with `criticality_visits` visits or more counts `criticality` ×
    /// its criticality × its AMAF visits as extra AMAF wins (fewer when the
    /// criticality is negative), as Pachi does.
    pub criticality: f32,
    /// Visits a node needs before its criticality counts.
    pub criticality_visits: u32,
}

impl Default for SelectionParams {
    fn default() -> Self {
        SelectionParams {
            rave_equivalence: 3500.0,
            exploration: 0.0,
            criticality: 0.0,
            criticality_visits: 2000,
        }
    }
}

/// The tree: an arena of at most `limit` nodes, the root at index 0.
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    limit: usize,
}

impl Tree {
    /// A tree holding only a root, never to grow past `limit` nodes (at
    /// least 1).
    pub fn new(limit: usize) -> Tree {
        let limit = limit.max(1);
        let mut nodes = Vec::with_capacity(limit.min(1 << 16));
        nodes.push(Node::default());
        Tree { nodes, limit }
    }

    /// The node at `index`.
    #[inline]
    pub fn node(&self, index: usize) -> &Node {
        &self.nodes[index]
    }

    /// The node at `index`, mutably.
    #[inline]
    pub fn node_mut(&mut self, index: usize) -> &mut Node {
        &mut self.nodes[index]
    }

    /// The root.
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// Nodes in use.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether only the root exists (never empty otherwise).
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The most nodes the tree may hold.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes the node arena occupies now.
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
    }

    /// Indices of `parent`'s children.
    #[inline]
    pub fn children(&self, parent: usize) -> std::ops::Range<usize> {
        let node = &self.nodes[parent];
        if !node.expanded {
            return 0..0;
        }
        let start = node.first_child as usize;
        start..start + node.child_count as usize
    }

    /// Whether `count` more nodes fit.
    pub fn has_room(&self, count: usize) -> bool {
        self.nodes.len() + count <= self.limit
    }

    /// Gives `parent` its children, one per move with its prior. Returns
    /// false, changing nothing, if the arena has no room or `parent` already
    /// has children.
    pub fn expand(&mut self, parent: usize, moves: &[(NodeMove, Prior)]) -> bool {
        if self.nodes[parent].expanded || !self.has_room(moves.len()) || moves.is_empty() {
            return false;
        }
        let first = self.nodes.len();
        if self.nodes.capacity() < first + moves.len() {
            // Grow geometrically, but never reserve past the limit.
            let want = (self.nodes.capacity() * 2).clamp(first + moves.len(), self.limit);
            self.nodes.reserve_exact(want - self.nodes.len());
        }
        for &(mv, prior) in moves {
            self.nodes.push(Node {
                mv,
                prior_visits: prior.visits,
                prior_wins: prior.wins,
                ..Node::default()
            });
        }
        let node = &mut self.nodes[parent];
        node.first_child = first as u32;
        node.child_count = moves.len() as u16;
        node.expanded = true;
        true
    }

    /// Adds a policy's probabilities to the priors of `parent`'s children:
    /// the favourite gets `policy.weight` virtual visits, all won, and every
    /// other move that weight times its probability relative to the
    /// favourite's. Nothing changes if no child has a positive probability.
    pub fn add_policy(&mut self, parent: usize, policy: &Policy) {
        let probability = |mv: NodeMove| {
            if mv == PASS {
                policy.pass
            } else {
                policy.points.get(mv as usize).copied().unwrap_or(0.0)
            }
        };
        let children = self.children(parent);
        let best = self.nodes[children.clone()]
            .iter()
            .map(|node| probability(node.mv))
            .fold(0.0f32, f32::max);
        if best.is_nan() || best <= 0.0 {
            return;
        }
        for node in &mut self.nodes[children] {
            let boost = policy.weight * probability(node.mv) / best;
            node.prior_visits += boost;
            node.prior_wins += boost;
        }
    }

    /// The child of `parent` to explore next: the highest blend of its win
    /// rate (with priors and virtual losses) and its AMAF win rate, plus an
    /// optional exploration term. Ties go to the first child.
    pub fn select(&self, parent: usize, params: &SelectionParams) -> usize {
        let parent_visits = self.nodes[parent].visits as f32 + 1.0;
        let log_parent = parent_visits.ln();
        let mut best = usize::MAX;
        let mut best_value = f32::NEG_INFINITY;
        for child in self.children(parent) {
            let value = self.urgency(child, log_parent, params);
            if value > best_value {
                best_value = value;
                best = child;
            }
        }
        best
    }

    #[inline]
    fn urgency(&self, child: usize, log_parent: f32, params: &SelectionParams) -> f32 {
        let node = &self.nodes[child];
        let n = node.visits as f32 + node.prior_visits + node.virtual_loss as f32;
        let mut value = (node.wins + node.prior_wins) / n;
        if node.amaf_visits > 0.0 {
            let (mut amaf_wins, mut av) = (node.amaf_wins, node.amaf_visits);
            if params.criticality > 0.0 && node.visits >= params.criticality_visits {
                if let Some(criticality) = node.owners.criticality() {
                    // Wins for a critical point, losses taken back for one
                    // whose owner does not decide the game; never more than
                    // half the AMAF visits.
                    let extra = (params.criticality * criticality * av).max(-0.5 * av);
                    amaf_wins = (amaf_wins + extra).max(0.0);
                    av += extra;
                }
            }
            let amaf = amaf_wins / av;
            let beta = av / (av + n + n * av / params.rave_equivalence);
            value = beta * amaf + (1.0 - beta) * value;
        }
        if params.exploration > 0.0 {
            value += params.exploration * (log_parent / n).sqrt();
        }
        value
    }

    /// The child of `parent` with the most visits (the move to play), ties
    /// to the better win rate.
    pub fn most_visited(&self, parent: usize) -> Option<usize> {
        self.children(parent).max_by(|&a, &b| {
            let (na, nb) = (&self.nodes[a], &self.nodes[b]);
            na.visits.cmp(&nb.visits).then(
                na.winrate()
                    .unwrap_or(0.0)
                    .total_cmp(&nb.winrate().unwrap_or(0.0)),
            )
        })
    }

    /// Records one finished simulation along `path` (node indices from the
    /// root) whose moves were `moves` (`moves[i]` leads from `path[i]` to
    /// `path[i + 1]`, played by the colour given), ending with Black's
    /// result `black_value`. `amaf` holds the first player of each point in
    /// the playout after the last node; it is extended with the tree's moves
    /// as the update climbs. `root_mover` is the player who made the root's
    /// move (the opponent of the side to move at the root).
    ///
    /// With `distance_weight` above 0, an AMAF result weighs more the sooner
    /// after the node its move was played: 1 + `distance_weight` × the share
    /// of the simulation (from the node on) still to come when it was played,
    /// so from about 1 + `distance_weight` for the next move down to about 1
    /// for the last (as Pachi weighs its AMAF).
    pub fn backup(
        &mut self,
        path: &[usize],
        moves: &[(NodeMove, Color)],
        black_value: f32,
        amaf: &mut AmafMap,
        root_mover: Color,
        distance_weight: f32,
    ) {
        let value_for = |color: Color| match color {
            Color::Black => black_value,
            Color::White => 1.0 - black_value,
        };
        for (depth, &index) in path.iter().enumerate() {
            let mover = if depth == 0 {
                root_mover
            } else {
                moves[depth - 1].1
            };
            let node = &mut self.nodes[index];
            node.visits += 1;
            node.wins += value_for(mover);
            if depth > 0 {
                node.virtual_loss = node.virtual_loss.saturating_sub(1);
            }
        }
        // AMAF, from the leaf up: the children of path[d] are credited with
        // every later point their mover played first from there on. Turns
        // count from the playout's first move; the tree's moves come before.
        let tree_moves = moves.len() as i32;
        let end = amaf.recorded();
        for depth in (0..path.len()).rev() {
            let start = depth as i32 - tree_moves;
            if depth < moves.len() {
                let (mv, color) = moves[depth];
                if mv != PASS {
                    amaf.record_earlier(to_point(mv), color, start);
                }
            }
            let parent = path[depth];
            let mover = match depth {
                0 => !root_mover,
                d => !moves[d - 1].1,
            };
            let reward = value_for(mover);
            let span = (end - start + 1) as f32;
            for child in self.children(parent) {
                let node = &mut self.nodes[child];
                if node.mv == PASS {
                    continue;
                }
                let point = to_point(node.mv);
                if amaf.first(point) == Some(mover) {
                    let weight = if distance_weight > 0.0 {
                        let to_come = (end - amaf.first_turn(point)) as f32;
                        1.0 + distance_weight * to_come / span
                    } else {
                        1.0
                    };
                    node.amaf_visits += weight;
                    node.amaf_wins += weight * reward;
                }
            }
        }
    }

    /// Records who owned each node's point at the end of a played-out
    /// simulation along `path` (as in [`Tree::backup`]): `owner` gives the
    /// final owner of a point, `black_value` Black's result.
    pub fn record_owners(
        &mut self,
        path: &[usize],
        black_value: f32,
        owner: impl Fn(Point) -> Option<Color>,
    ) {
        let winner = if black_value > 0.5 {
            Some(Color::Black)
        } else if black_value < 0.5 {
            Some(Color::White)
        } else {
            None
        };
        for &index in &path[1..] {
            let node = &mut self.nodes[index];
            if node.mv == PASS {
                continue;
            }
            let owned_by = owner(to_point(node.mv));
            let stats = &mut node.owners;
            stats.samples += 1.0;
            stats.black_wins += black_value;
            if owned_by == Some(Color::Black) {
                stats.black_owned += 1.0;
            }
            if owned_by.is_some() && owned_by == winner {
                stats.winner_owned += 1.0;
            }
        }
    }

    /// A new tree whose root is the node reached from this root by `moves`
    /// (each must be a child of the previous), holding that node's whole
    /// subtree; `None` if the path leaves the tree. The root keeps its
    /// statistics; the copy is compact, so the freed nodes are reclaimed.
    pub fn reroot(&self, moves: &[NodeMove]) -> Option<Tree> {
        let mut index = 0;
        for &mv in moves {
            index = self.children(index).find(|&c| self.nodes[c].mv == mv)?;
        }
        let mut tree = Tree {
            nodes: Vec::with_capacity(self.nodes.len().min(self.limit)),
            limit: self.limit,
        };
        let mut root = self.nodes[index].clone();
        root.virtual_loss = 0;
        tree.nodes.push(root);
        // Breadth first: (index in the new arena, index in the old one).
        let mut queue = std::collections::VecDeque::from([(0usize, index)]);
        while let Some((new, old)) = queue.pop_front() {
            let children = self.children(old);
            if children.is_empty() {
                tree.nodes[new].expanded = false;
                continue;
            }
            let first = tree.nodes.len();
            for (i, child) in children.enumerate() {
                let mut node = self.nodes[child].clone();
                node.virtual_loss = 0;
                tree.nodes.push(node);
                queue.push_back((first + i, child));
            }
            tree.nodes[new].first_child = first as u32;
        }
        Some(tree)
    }

    /// The most visited line from `start`, at most `limit` moves long.
    pub fn principal_variation(&self, start: usize, limit: usize) -> Vec<NodeMove> {
        let mut line = vec![self.nodes[start].mv];
        let mut index = start;
        while line.len() < limit {
            match self.most_visited(index) {
                Some(child) if self.nodes[child].visits > 0 => {
                    line.push(self.nodes[child].mv);
                    index = child;
                }
                _ => break,
            }
        }
        line
    }
}

fn to_point(mv: NodeMove) -> Point {
    Point::from_index(mv as usize).expect("a stored point index")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn even(mv: NodeMove) -> (NodeMove, Prior) {
        (
            mv,
            Prior {
                visits: 10.0,
                wins: 5.0,
            },
        )
    }

    #[test]
    fn expansion_respects_the_limit() {
        let mut tree = Tree::new(5);
        assert!(tree.expand(0, &[even(11), even(12), even(13)]));
        assert!(!tree.expand(0, &[even(14)]), "already expanded");
        assert!(!tree.expand(1, &[even(14), even(15)]), "no room for two");
        assert!(tree.expand(1, &[even(14)]));
        assert_eq!(tree.len(), 5);
        assert!(!tree.has_room(1));
    }

    #[test]
    fn backup_counts_results_for_the_mover_and_amaf_for_later_moves() {
        let mut tree = Tree::new(100);
        tree.expand(0, &[even(11), even(12), even(13)]);
        let first = tree.children(0).start;
        tree.expand(first, &[even(12), even(13)]);
        // Black plays 11, White plays 12 (a child of 11), then the playout
        // has Black at 13 first.
        let path = [0, first, tree.children(first).start];
        let moves = [(11, Color::Black), (12, Color::White)];
        let mut amaf = AmafMap::default();
        amaf.record(to_point(13), Color::Black);
        tree.backup(&path, &moves, 1.0, &mut amaf, Color::White, 0.0);
        assert_eq!(tree.node(first).visits, 1);
        assert_eq!(tree.node(first).wins, 1.0, "Black's move, Black won");
        assert_eq!(tree.node(path[2]).wins, 0.0, "White's move");
        // Root children: 11 (played by Black first) and 13 (Black, in the
        // playout) get AMAF wins; 12 was White's.
        let root_children: Vec<_> = tree.children(0).collect();
        assert_eq!(tree.node(root_children[0]).amaf_visits, 1.0);
        assert_eq!(tree.node(root_children[1]).amaf_visits, 0.0);
        assert_eq!(tree.node(root_children[2]).amaf_visits, 1.0);
        assert_eq!(tree.node(root_children[2]).amaf_wins, 1.0);
        // Children of 11 (White to move): 12 was White's move, 13 Black's.
        let inner: Vec<_> = tree.children(first).collect();
        assert_eq!(tree.node(inner[0]).amaf_visits, 1.0);
        assert_eq!(tree.node(inner[0]).amaf_wins, 0.0);
        assert_eq!(tree.node(inner[1]).amaf_visits, 0.0);
    }

    #[test]
    fn amaf_weighs_moves_by_how_soon_they_came() {
        let mut tree = Tree::new(100);
        tree.expand(0, &[even(11), even(12), even(13), even(15)]);
        let first = tree.children(0).start;
        // Black plays 11 in the tree; the playout has Black 13, White 14,
        // Black 15: four turns from the root's children on.
        let mut amaf = AmafMap::default();
        amaf.record(to_point(13), Color::Black);
        amaf.record(to_point(14), Color::White);
        amaf.record(to_point(15), Color::Black);
        tree.backup(
            &[0, first],
            &[(11, Color::Black)],
            1.0,
            &mut amaf,
            Color::White,
            2.0,
        );
        let weights: Vec<f32> = tree.children(0).map(|c| tree.node(c).amaf_visits).collect();
        // 1 + 2 × (turns still to come) / (turns from the node on + 1).
        let expected = [
            1.0 + 2.0 * 4.0 / 5.0,
            0.0,
            1.0 + 2.0 * 3.0 / 5.0,
            1.0 + 2.0 / 5.0,
        ];
        for (got, want) in weights.iter().zip(expected) {
            assert!((got - want).abs() < 1e-6, "{weights:?} {expected:?}");
        }
        // Black won: every weighted visit is a win.
        for c in tree.children(0) {
            assert_eq!(tree.node(c).amaf_wins, tree.node(c).amaf_visits);
        }
    }

    #[test]
    fn criticality_is_the_covariance_of_owning_and_winning() {
        let mut tree = Tree::new(100);
        tree.expand(0, &[even(11), even(12)]);
        let (a, b) = (tree.children(0).start, tree.children(0).start + 1);
        // Point 11: whoever owns it wins. Point 12: Black always owns it,
        // and Black wins half the games.
        for i in 0..10 {
            let black_value = if i % 2 == 0 { 1.0 } else { 0.0 };
            let winner = if black_value > 0.5 {
                Color::Black
            } else {
                Color::White
            };
            tree.record_owners(&[0, a], black_value, |_| Some(winner));
            tree.record_owners(&[0, b], black_value, |_| Some(Color::Black));
        }
        let critical = tree.node(a).owners.criticality().unwrap();
        let indifferent = tree.node(b).owners.criticality().unwrap();
        // 1 − (½·½ + ½·½) = ½, and ½ − (1·½ + 0·½) = 0.
        assert!((critical - 0.5).abs() < 1e-6, "{critical}");
        assert!(indifferent.abs() < 1e-6, "{indifferent}");
        assert_eq!(tree.node(0).owners.samples, 0.0, "the root has no point");

        // With enough visits, the critical move gains in selection.
        for &(child, amaf) in &[(a, 0.5), (b, 0.5)] {
            let node = tree.node_mut(child);
            node.visits = 100;
            node.wins = 50.0;
            node.amaf_visits = 100.0;
            node.amaf_wins = 100.0 * amaf;
        }
        let params = SelectionParams {
            criticality: 1.1,
            criticality_visits: 50,
            ..SelectionParams::default()
        };
        assert_eq!(tree.select(0, &params), a);
        let ua = tree.urgency(a, 1.0, &params);
        let ub = tree.urgency(b, 1.0, &params);
        assert!(ua > ub + 0.01, "{ua} {ub}");
        // Off, or below the visits it needs, the two are equal.
        for params in [
            SelectionParams::default(),
            SelectionParams {
                criticality: 1.1,
                criticality_visits: 101,
                ..SelectionParams::default()
            },
        ] {
            let (ua, ub) = (tree.urgency(a, 1.0, &params), tree.urgency(b, 1.0, &params));
            assert_eq!(ua, ub);
        }
    }

    #[test]
    fn reroot_keeps_the_subtree_compactly() {
        let mut tree = Tree::new(100);
        tree.expand(0, &[even(11), even(12)]);
        let a = tree.children(0).start;
        let b = a + 1;
        tree.expand(b, &[even(13), even(14)]);
        tree.expand(a, &[even(15)]);
        let c = tree.children(b).start;
        tree.expand(c, &[even(16)]);
        tree.node_mut(b).visits = 7;
        let new = tree.reroot(&[12]).unwrap();
        assert_eq!(new.len(), 4);
        assert_eq!(new.root().visits, 7);
        let kids: Vec<_> = new.children(0).map(|i| new.node(i).mv).collect();
        assert_eq!(kids, vec![13, 14]);
        let grandkids: Vec<_> = new
            .children(new.children(0).start)
            .map(|i| new.node(i).mv)
            .collect();
        assert_eq!(grandkids, vec![16]);
        assert!(tree.reroot(&[12, 99]).is_none());
        assert_eq!(tree.reroot(&[]).unwrap().len(), tree.len());
    }

    #[test]
    fn a_policy_adds_won_visits_relative_to_the_favourite() {
        let mut tree = Tree::new(10);
        tree.expand(0, &[even(11), even(12), even(PASS)]);
        let mut points = vec![0.0; tengen_core::MAX_CELLS];
        points[11] = 0.5;
        points[12] = 0.25;
        let policy = Policy {
            points,
            pass: 0.05,
            weight: 40.0,
        };
        tree.add_policy(0, &policy);
        let priors: Vec<(f32, f32)> = tree
            .children(0)
            .map(|c| (tree.node(c).prior_visits, tree.node(c).prior_wins))
            .collect();
        assert_eq!(priors, vec![(50.0, 45.0), (30.0, 25.0), (14.0, 9.0)]);
        // A policy with nothing for these moves changes nothing.
        tree.add_policy(
            0,
            &Policy {
                points: vec![0.0; tengen_core::MAX_CELLS],
                pass: 0.0,
                weight: 40.0,
            },
        );
        assert_eq!(tree.node(tree.children(0).start).prior_visits, 50.0);
    }

    #[test]
    fn selection_prefers_priors_then_results() {
        let mut tree = Tree::new(10);
        let strong = Prior {
            visits: 20.0,
            wins: 18.0,
        };
        tree.expand(0, &[even(11), (12, strong)]);
        let params = SelectionParams::default();
        let [a, b] = [tree.children(0).start, tree.children(0).start + 1];
        assert_eq!(tree.select(0, &params), b);
        // Many losses through b turn selection to a.
        tree.node_mut(b).visits = 100;
        assert_eq!(tree.select(0, &params), a);
        // Virtual losses too.
        tree.node_mut(b).visits = 0;
        tree.node_mut(b).virtual_loss = 100;
        assert_eq!(tree.select(0, &params), a);
    }
}
