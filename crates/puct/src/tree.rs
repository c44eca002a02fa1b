//! The search tree of [`super::PuctBot`]: an arena of nodes, each holding
//! its move, its prior and the sums of the values backed up through it.
//!
//! Values are kept from Black's point of view (win and loss probabilities of
//! Black, Black's lead), so a backup adds the same numbers at every node of
//! the path; reading a node for the side to move at its parent flips the
//! sign for White. This is the usual per-ply negation, done when reading
//! instead of when writing.

use std::collections::HashMap;

use tengen_core::{splitmix64, Color, Game, Move, Scoring};

use crate::bias::{BiasTable, EntryId, NO_ENTRY};

/// Index of a node in the arena; the root is 0.
pub type NodeId = u32;

/// The root's index.
pub const ROOT: NodeId = 0;

/// What is known of a node's position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// Not evaluated yet (no children).
    Leaf,
    /// Evaluated by the network; its children are in the arena.
    Expanded,
    /// The game is over there: every visit backs up the exact count.
    Terminal,
}

/// One node: a move from its parent's position and the statistics of the
/// position it leads to.
#[derive(Clone, Debug)]
pub struct Node {
    /// The move from the parent (a pass for the root).
    pub mv: Move,
    /// The side to move in this node's position.
    pub to_move: Color,
    /// The prior used in selection (the network's, mixed with noise at the
    /// root when noise is on).
    pub prior: f32,
    /// The network's prior, as it gave it (renormalised over legal moves).
    pub raw_prior: f32,
    /// First child's index (meaningful when expanded).
    pub first_child: NodeId,
    /// Number of children.
    pub child_count: u32,
    /// Evaluation state.
    pub state: NodeState,
    /// Excluded from selection: its move turned out illegal in the game
    /// (superko), or it is a pass excluded while cleaning up.
    pub excluded: bool,
    /// Queued for evaluation in the batch being collected.
    pub pending: bool,
    /// Completed visits.
    pub visits: u32,
    /// Total weight of those visits: 1 each, or each evaluation's
    /// certainty when playouts are weighted by uncertainty; the sums below
    /// are weighted sums.
    pub weight_sum: f64,
    /// Sum of the squares of those weights (for the effective sample size
    /// of a lower confidence bound).
    pub weight_sq_sum: f64,
    /// Visits in flight (virtual losses).
    pub virtual_loss: u32,
    /// Sum of P(Black wins) over the visits.
    pub black_win_sum: f64,
    /// Sum of P(White wins) over the visits.
    pub white_win_sum: f64,
    /// Sum of Black's expected lead over the visits.
    pub black_lead_sum: f64,
    /// Sum of Black's expected score over the visits.
    pub black_score_sum: f64,
    /// Sum of the expected squares of the score over the visits.
    pub score_sq_sum: f64,
    /// Sum of Black's utility over the visits, each as the search valued it
    /// when backing it up.
    pub utility_sum: f64,
    /// Sum of the squares of those utilities (their spread drives LCB move
    /// selection and the exploration's scale).
    pub utility_sq_sum: f64,
    /// Black's utility of the network's own evaluation of this position
    /// (set when expanded): first-play urgency leans on it while few of the
    /// children have been visited.
    pub nn_utility: f32,
    /// The subtree value bias entry this node feeds and reads
    /// ([`crate::bias`]); [`NO_ENTRY`] for none.
    pub bias_entry: EntryId,
    /// The weight of the node's own evaluation among its visits.
    pub own_weight: f64,
    /// Black's utility its own evaluation was backed up with (the
    /// network's, corrected by the subtree value bias).
    pub own_utility: f64,
    /// Its own evaluation's values (set when evaluated): what its
    /// statistics start from when they are recomputed from its children.
    pub own_value: LeafValue,
    /// What this node last added to its bias entry: (weight × difference,
    /// weight).
    pub bias_last: (f64, f64),
    /// The key of its position for transpositions ([`position_key`]), once
    /// a descent has reached it; 0 before, or for a position never shared
    /// (after a pass).
    pub position_key: u64,
    /// Visits that went to another node's search of the same position:
    /// catch-ups and descents into the owner's subtree. The others are its
    /// own evaluation and its children's visits.
    pub transposed: u32,
    /// Visits that came through another node of the same position (a
    /// transposition entered) rather than from its parent. Its parent's
    /// choice weighs only the rest: [`Node::edge_visits`].
    pub entered: u32,
}

impl Node {
    /// A fresh leaf.
    pub fn new(mv: Move, to_move: Color, prior: f32) -> Node {
        Node {
            mv,
            to_move,
            prior,
            raw_prior: prior,
            first_child: 0,
            child_count: 0,
            state: NodeState::Leaf,
            excluded: false,
            pending: false,
            visits: 0,
            weight_sum: 0.0,
            weight_sq_sum: 0.0,
            virtual_loss: 0,
            black_win_sum: 0.0,
            white_win_sum: 0.0,
            black_lead_sum: 0.0,
            black_score_sum: 0.0,
            score_sq_sum: 0.0,
            utility_sum: 0.0,
            utility_sq_sum: 0.0,
            nn_utility: 0.0,
            bias_entry: NO_ENTRY,
            own_weight: 0.0,
            own_utility: 0.0,
            own_value: LeafValue::from_lead(0.0, 0.0, 0.0),
            bias_last: (0.0, 0.0),
            position_key: 0,
            transposed: 0,
            entered: 0,
        }
    }

    /// Visits that came from its parent: those its parent's choice counts
    /// (KataGo's edge visits). All of its visits make its value.
    pub fn edge_visits(&self) -> u32 {
        self.visits - self.entered
    }

    /// The weight its parent's choice gives it (KataGo's child weight):
    /// its total weight scaled to the visits that came from the parent.
    /// Equal to [`Node::edge_visits`] when every visit weighs 1; less for
    /// a node whose evaluations were uncertain, more for confident ones.
    pub fn edge_weight(&self) -> f64 {
        if self.visits == 0 {
            return 0.0;
        }
        self.weight_sum * f64::from(self.edge_visits()) / f64::from(self.visits)
    }

    /// Whether any visit has been counted (with a positive weight).
    fn counted(&self) -> bool {
        self.visits > 0 && self.weight_sum > 0.0
    }

    /// Average of P(Black wins) − P(White wins), if visited.
    pub fn black_win_loss(&self) -> Option<f64> {
        self.counted()
            .then(|| (self.black_win_sum - self.white_win_sum) / self.weight_sum)
    }

    /// Black's average expected score and its standard deviation over the
    /// visits (the spread within each evaluation and between them), if
    /// visited.
    pub fn black_score(&self) -> Option<(f64, f64)> {
        self.counted().then(|| {
            let n = self.weight_sum;
            let mean = self.black_score_sum / n;
            (mean, (self.score_sq_sum / n - mean * mean).max(0.0).sqrt())
        })
    }

    /// Black's average expected lead, if visited.
    pub fn black_lead(&self) -> Option<f64> {
        self.counted()
            .then(|| self.black_lead_sum / self.weight_sum)
    }

    /// The win rate of `color`, KataGo's way: `(1 + win − loss) / 2`, so a
    /// draw or no result counts half.
    pub fn winrate_for(&self, color: Color) -> Option<f64> {
        self.black_win_loss()
            .map(|wl| 0.5 * (1.0 + sign(color) * wl))
    }

    /// Adds one visit with these values (Black's point of view), the
    /// utility the search gives them and the visit's weight (1 unless
    /// playouts are weighted by uncertainty).
    pub fn add(&mut self, value: &LeafValue, utility: f64, weight: f64) {
        self.visits += 1;
        self.weight_sum += weight;
        self.weight_sq_sum += weight * weight;
        self.black_win_sum += weight * f64::from(value.black_win);
        self.white_win_sum += weight * f64::from(value.white_win);
        self.black_lead_sum += weight * f64::from(value.black_lead);
        self.black_score_sum += weight * f64::from(value.black_score);
        self.score_sq_sum += weight * f64::from(value.score_sq);
        self.utility_sum += weight * utility;
        self.utility_sq_sum += weight * utility * utility;
    }

    /// Adds one visit carrying `source`'s averages: its mean values, mean
    /// utility and mean squares (so that the spread of its utility carries
    /// over), at its average weight per visit. A transposition's catch-up:
    /// the position was searched elsewhere in the tree, and this path
    /// takes what was learned there.
    pub fn add_average_of(&mut self, source: &Node) {
        if !source.counted() {
            return;
        }
        let n = source.weight_sum;
        let weight = n / f64::from(source.visits);
        let share = weight / n;
        self.visits += 1;
        self.weight_sum += weight;
        self.weight_sq_sum += weight * weight;
        self.black_win_sum += share * source.black_win_sum;
        self.white_win_sum += share * source.white_win_sum;
        self.black_lead_sum += share * source.black_lead_sum;
        self.black_score_sum += share * source.black_score_sum;
        self.score_sq_sum += share * source.score_sq_sum;
        self.utility_sum += share * source.utility_sum;
        self.utility_sq_sum += share * source.utility_sq_sum;
    }

    /// The weighted mean and variance of Black's backed-up utility, if
    /// visited.
    pub fn utility_moments(&self) -> Option<(f64, f64)> {
        self.counted().then(|| {
            let n = self.weight_sum;
            let mean = self.utility_sum / n;
            (mean, (self.utility_sq_sum / n - mean * mean).max(0.0))
        })
    }
}

/// +1 for Black, −1 for White: the factor that turns a Black-view value
/// into `color`'s.
pub fn sign(color: Color) -> f64 {
    match color {
        Color::Black => 1.0,
        Color::White => -1.0,
    }
}

/// The value of one evaluated position, from Black's point of view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LeafValue {
    /// P(Black wins).
    pub black_win: f32,
    /// P(White wins).
    pub white_win: f32,
    /// Black's expected lead in points.
    pub black_lead: f32,
    /// Black's expected final score (the lead when the evaluator has no
    /// score of its own).
    pub black_score: f32,
    /// The expected square of that score (mean² + variance).
    pub score_sq: f32,
}

impl LeafValue {
    /// A value whose score is the lead, with no spread.
    pub fn from_lead(black_win: f32, white_win: f32, black_lead: f32) -> LeafValue {
        LeafValue {
            black_win,
            white_win,
            black_lead,
            black_score: black_lead,
            score_sq: black_lead * black_lead,
        }
    }

    /// The score's standard deviation.
    pub fn score_stdev(&self) -> f64 {
        let mean = f64::from(self.black_score);
        (f64::from(self.score_sq) - mean * mean).max(0.0).sqrt()
    }
}

/// The arena.
#[derive(Clone, Debug)]
pub struct Tree {
    nodes: Vec<Node>,
    max_nodes: usize,
    /// The subtree value bias learned in this tree.
    pub bias: BiasTable,
    /// For each position key, the node whose subtree searches that
    /// position ([`Tree::owner`]).
    owners: HashMap<u64, NodeId>,
}

impl Tree {
    /// A tree holding only an unevaluated root with `to_move` to play, which
    /// may grow to `max_nodes` nodes.
    pub fn new(to_move: Color, max_nodes: usize) -> Tree {
        Tree {
            nodes: vec![Node::new(Move::Pass, to_move, 1.0)],
            max_nodes: max_nodes.max(1),
            bias: BiasTable::default(),
            owners: HashMap::new(),
        }
    }

    /// The node whose subtree searches the position of `key`, when one
    /// has been expanded.
    pub fn owner(&self, key: u64) -> Option<NodeId> {
        self.owners.get(&key).copied()
    }

    /// Makes `id` (expanded, with its position's key set) the owner of its
    /// position unless an expanded node already is.
    pub fn claim(&mut self, id: NodeId) {
        let key = self.node(id).position_key;
        if key == 0 || self.node(id).state != NodeState::Expanded {
            return;
        }
        let taken = self
            .owner(key)
            .is_some_and(|o| o != id && self.node(o).state == NodeState::Expanded);
        if !taken {
            self.owners.insert(key, id);
        }
    }

    /// Nodes in the arena.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Always false: a tree has at least its root.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The most nodes it may hold.
    pub fn max_nodes(&self) -> usize {
        self.max_nodes
    }

    /// Whether `extra` more nodes fit.
    pub fn has_room(&self, extra: usize) -> bool {
        self.nodes.len() + extra <= self.max_nodes
    }

    /// A node.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// A node, mutably.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    /// The root.
    pub fn root(&self) -> &Node {
        &self.nodes[0]
    }

    /// The children's ids of `id` (empty unless expanded).
    pub fn children(&self, id: NodeId) -> std::ops::Range<NodeId> {
        let node = self.node(id);
        if node.state == NodeState::Expanded {
            node.first_child..node.first_child + node.child_count
        } else {
            0..0
        }
    }

    /// Makes `id` an expanded node with these children (moves and priors),
    /// whose positions have `child_to_move` to play. The caller checks
    /// [`Tree::has_room`] first.
    pub fn expand(&mut self, id: NodeId, child_to_move: Color, children: &[(Move, f32)]) {
        let first = self.nodes.len() as NodeId;
        self.nodes.extend(
            children
                .iter()
                .map(|&(mv, prior)| Node::new(mv, child_to_move, prior)),
        );
        let node = self.node_mut(id);
        node.first_child = first;
        node.child_count = children.len() as u32;
        node.state = NodeState::Expanded;
    }

    /// The child of `id` reached by `mv`, if any.
    pub fn child_by_move(&self, id: NodeId, mv: Move) -> Option<NodeId> {
        self.children(id).find(|&c| self.node(c).mv == mv)
    }

    /// Whether the root's pass has been valued as the end of the game (by
    /// the count): a tree grown before the opponent passed, whose pass now
    /// needs valuing as the game going on.
    pub fn root_pass_is_terminal(&self) -> bool {
        self.child_by_move(ROOT, Move::Pass)
            .is_some_and(|c| self.node(c).state == NodeState::Terminal && self.node(c).visits > 0)
    }

    /// The child of `id` with the most visits (ties: the higher win-loss
    /// value for the side to move at `id`, then the earlier child), among
    /// children not excluded; `None` if no child has a visit.
    pub fn best_child(&self, id: NodeId) -> Option<NodeId> {
        let color = self.node(id).to_move;
        let mut best: Option<(NodeId, u32, f64)> = None;
        for c in self.children(id) {
            let child = self.node(c);
            let visits = child.edge_visits();
            if child.excluded || visits == 0 {
                continue;
            }
            let value = sign(color) * child.black_win_loss().unwrap_or(0.0);
            let better = match best {
                None => true,
                Some((_, v, q)) => visits > v || (visits == v && value > q),
            };
            if better {
                best = Some((c, visits, value));
            }
        }
        best.map(|(c, _, _)| c)
    }

    /// The child of `id` with the highest prior (noise included) among
    /// children not excluded, ties to the earlier child: the network's own
    /// choice when the search has visited no child (a search of one visit).
    pub fn likeliest_child(&self, id: NodeId) -> Option<NodeId> {
        let mut best: Option<(NodeId, f32)> = None;
        for c in self.children(id) {
            let child = self.node(c);
            if child.excluded {
                continue;
            }
            if best.is_none_or(|(_, p)| child.prior > p) {
                best = Some((c, child.prior));
            }
        }
        best.map(|(c, _)| c)
    }

    /// The expected continuation from `id`: the best child, its best child,
    /// and so on, at most `limit` moves.
    pub fn principal_variation(&self, id: NodeId, limit: usize) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut at = id;
        while pv.len() < limit {
            match self.best_child(at) {
                Some(c) => {
                    pv.push(self.node(c).mv);
                    at = c;
                }
                None => break,
            }
        }
        pv
    }

    /// The node reached from the root by `moves`, if the tree holds it.
    pub fn descendant(&self, moves: &[Move]) -> Option<NodeId> {
        let mut at = ROOT;
        for &mv in moves {
            at = self.child_by_move(at, mv)?;
        }
        Some(at)
    }

    /// The subtree of the node reached by `moves`, as a tree of its own
    /// (same node limit), or `None` if the tree does not hold that node.
    /// In-flight marks are cleared.
    pub fn reroot(&self, moves: &[Move]) -> Option<Tree> {
        let new_root = self.descendant(moves)?;
        let mut nodes = Vec::with_capacity(self.subtree_size(new_root));
        let mut root = self.node(new_root).clone();
        root.mv = Move::Pass;
        root.prior = 1.0;
        root.raw_prior = 1.0;
        root.excluded = false;
        nodes.push(root);
        // Breadth first: each node's children are copied together, keeping
        // them contiguous.
        let mut queue = std::collections::VecDeque::new();
        queue.push_back((new_root, ROOT));
        while let Some((old, new)) = queue.pop_front() {
            let range = self.children(old);
            if range.is_empty() {
                continue;
            }
            let first = nodes.len() as NodeId;
            for c in range {
                let mut child = self.node(c).clone();
                child.pending = false;
                child.virtual_loss = 0;
                nodes.push(child);
                queue.push_back((c, first + (c - self.node(old).first_child)));
            }
            nodes[new as usize].first_child = first;
        }
        for node in &mut nodes {
            node.pending = false;
            node.virtual_loss = 0;
        }
        // The new root is a position reached, no longer a move searched:
        // it feeds no entry.
        let root = &mut nodes[ROOT as usize];
        root.bias_entry = NO_ENTRY;
        root.bias_last = (0.0, 0.0);
        let (bias, remap) = self.bias.kept(
            nodes.iter().map(|n| (n.bias_entry, n.bias_last)),
            crate::bias::FREED_SHARE,
        );
        for node in &mut nodes {
            if node.bias_entry != NO_ENTRY {
                node.bias_entry = remap[node.bias_entry as usize];
            }
        }
        // Each position's owner: its most visited expanded node.
        let mut owners: HashMap<u64, NodeId> = HashMap::new();
        for (id, node) in nodes.iter().enumerate() {
            if node.position_key == 0 || node.state != NodeState::Expanded {
                continue;
            }
            let id = id as NodeId;
            let entry = owners.entry(node.position_key).or_insert(id);
            if nodes[*entry as usize].visits < node.visits {
                *entry = id;
            }
        }
        Some(Tree {
            nodes,
            max_nodes: self.max_nodes,
            bias,
            owners,
        })
    }

    /// Nodes in the subtree of `id`, itself included.
    pub fn subtree_size(&self, id: NodeId) -> usize {
        let mut count = 0;
        let mut stack = vec![id];
        while let Some(at) = stack.pop() {
            count += 1;
            stack.extend(self.children(at));
        }
        count
    }
}

/// The key under which transposed positions meet: the stones, the side to
/// move, the ko point, the superko context (the earlier positions one move
/// could recreate, [`Game::superko_context`], so that lines meet only where
/// superko forbids the same moves) and, when captures count (territory
/// scoring), the prisoners. `None` for a finished game or a position after
/// a pass, which are never shared (a pass changes what a second pass
/// means). Never 0.
pub fn position_key(game: &Game) -> Option<u64> {
    if game.consecutive_passes() > 0 || game.is_over() {
        return None;
    }
    let board = game.board();
    let mut key = board.hash();
    let mut mix = |x: u64| {
        key = splitmix64(key ^ x);
    };
    mix(match game.to_move() {
        Color::Black => 0x6a09_e667,
        Color::White => 0xbb67_ae85,
    });
    mix(board
        .ko_point()
        .map_or(0x3c6e_f372, |p| p.index() as u64 + 1));
    let context = game.superko_context();
    if context != 0 {
        mix(context);
    }
    if game.rules().scoring == Scoring::Territory {
        let captures = board.captures();
        mix(u64::from(captures[Color::Black]) << 32 | u64::from(captures[Color::White]));
    }
    Some(key.max(1))
}
