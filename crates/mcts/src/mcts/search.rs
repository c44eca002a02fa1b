//! Running simulations: one or more threads share the tree behind a lock,
//! taking it only to walk down (with virtual losses) and to record results;
//! playouts and prior knowledge run outside it (tree parallelism).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tengen_core::{scoring, Board, Color, EyeTest, Point, Rules};

use super::tree::{from_move, NodeMove, SelectionParams, Tree, PASS};
use crate::evaluator::{AmafMap, Evaluator, Leaf};
use crate::prior::{self, Knowledge, Prior, PriorSource};

/// The position searched, as the threads need it.
#[derive(Clone, Debug)]
pub struct RootPosition {
    /// The board.
    pub board: Board,
    /// The side to move.
    pub to_move: Color,
    /// The last stone played, if the last turn was a stone.
    pub last: Option<Point>,
    /// The stone played the turn before, if that turn was a stone.
    pub before_last: Option<Point>,
    /// Passes in a row that led here (0, or 1 after the opponent passed).
    pub passes: u8,
    /// The rules: komi and scoring for games the tree ends with two passes.
    pub rules: Rules,
}

/// Fixed settings of a search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchParams {
    /// Selection weights.
    pub selection: SelectionParams,
    /// Visits a node needs before it gets children.
    pub expand_visits: u32,
    /// Visits a node needs before an evaluator's policy (a network's) is
    /// added to its children's priors; the root gets it at once. A network
    /// evaluation costs as much as a few dozen rollouts, so it is spent only
    /// where the search keeps coming back.
    pub policy_visits: u32,
    /// Where new moves' priors come from.
    pub prior: PriorSource,
    /// How much more an AMAF result counts when its move came soon after
    /// the node rather than at the playout's end ([`Tree::backup`]; 0: all
    /// the same).
    pub amaf_distance: f32,
    /// The own eyes the tree never fills (the playouts' test, so that the
    /// tree does not search moves the playouts never play).
    pub eyes: EyeTest,
}

impl Default for SearchParams {
    fn default() -> Self {
        SearchParams {
            selection: SelectionParams::default(),
            expand_visits: 8,
            policy_visits: 48,
            prior: PriorSource::default(),
            amaf_distance: 0.0,
            eyes: EyeTest::Real,
        }
    }
}

/// What ends a search; whichever comes first.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Simulations to run (in this search, not counting reused ones).
    pub playouts: Option<u64>,
    /// Time to stop at when the choice looks clear.
    pub target_time: Option<Duration>,
    /// Time never to pass; a close choice may run from the target to here.
    pub max_time: Option<Duration>,
    /// With a playout limit, stop as soon as the most visited root move can
    /// no longer be overtaken by the simulations left. The search checks it
    /// itself every [`DECIDED_CHECK_INTERVAL`] simulations rather than on
    /// the clock, so that a one-thread search with a seed is repeatable.
    pub stop_when_decided: bool,
    /// With a playout limit, the share of it that a search may run past the
    /// limit while its choice is unstable ([`is_unstable`]): 0.5 lets it go
    /// on to one and a half times the limit. Time is spent where the search
    /// has not yet settled on a move, as in the time management of Huang,
    /// Coulom and Lin (2010). 0: stop at the limit.
    pub extension: f64,
}

impl Limits {
    /// These limits with the playouts and times multiplied by `share`
    /// (at least one playout, so that the search has a root to report).
    pub fn scaled(self, share: f64) -> Limits {
        Limits {
            playouts: self
                .playouts
                .map(|p| ((p as f64 * share).round() as u64).max(1)),
            target_time: self.target_time.map(|t| t.mul_f64(share)),
            max_time: self.max_time.map(|t| t.mul_f64(share)),
            stop_when_decided: self.stop_when_decided,
            extension: self.extension,
        }
    }

    /// The most simulations the search may run: the playout limit, raised
    /// by the extension for an unstable choice.
    fn playout_cap(&self) -> u64 {
        self.playouts.map_or(u64::MAX, |p| {
            p.saturating_add((p as f64 * self.extension.max(0.0)).round() as u64)
        })
    }
}

/// Simulations between two checks of [`Limits::stop_when_decided`].
pub const DECIDED_CHECK_INTERVAL: u64 = 32;

/// Visits of the two most visited root children.
pub fn top_two(tree: &Tree) -> (u32, u32) {
    let mut top = (0, 0);
    for child in tree.children(0) {
        let v = tree.node(child).visits;
        if v > top.0 {
            top = (v, top.0);
        } else if v > top.1 {
            top.1 = v;
        }
    }
    top
}

/// Whether the search has not settled on its move: a root move with at
/// least half the visits of the most visited one (the move that would be
/// played) has a higher win rate, so more simulations may well change the
/// choice.
pub fn is_unstable(tree: &Tree) -> bool {
    let Some(best) = tree.most_visited(0) else {
        return false;
    };
    let best = tree.node(best);
    let best_rate = best.winrate().unwrap_or(0.0);
    // The most visited move itself, and unvisited moves, never beat it.
    tree.children(0).any(|child| {
        let node = tree.node(child);
        2 * node.visits >= best.visits && node.winrate().unwrap_or(0.0) > best_rate
    })
}

/// Whether the most visited root move is decided: `remaining` simulations
/// more could not give another move as many visits.
pub fn is_decided(tree: &Tree, remaining: u64) -> bool {
    let (best, second) = top_two(tree);
    u64::from(best.saturating_sub(second)) > remaining
}

/// Who owned each point at the end of the played-out leaves so far.
#[derive(Clone, Debug)]
pub struct OwnershipSum {
    /// Per point index, Black's ownership summed over played-out leaves (+1
    /// Black, −1 White).
    pub sum: Vec<i32>,
    /// Leaves counted.
    pub samples: u32,
}

impl Default for OwnershipSum {
    fn default() -> Self {
        OwnershipSum {
            sum: vec![0; tengen_core::MAX_CELLS],
            samples: 0,
        }
    }
}

impl OwnershipSum {
    fn add(&mut self, other: &OwnershipSum) {
        for (sum, add) in self.sum.iter_mut().zip(&other.sum) {
            *sum += add;
        }
        self.samples += other.samples;
    }

    fn clear(&mut self) {
        self.sum.fill(0);
        self.samples = 0;
    }
}

/// Counts from a finished search.
#[derive(Clone, Debug, Default)]
pub struct SearchOutcome {
    /// Simulations run.
    pub playouts: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// Ownership over the played-out leaves.
    pub ownership: OwnershipSum,
}

/// Played-out leaves a worker counts before adding them to the shared sum.
const OWNERSHIP_FLUSH: u32 = 32;

/// Children of a node: the points where `to_move` may play (simple ko,
/// suicide forbidden, no own eye under `eyes`), with priors, and a pass. In
/// NoGo: every legal point, with even priors, and no pass.
#[allow(clippy::too_many_arguments)] // The working buffers of the hot path.
pub fn candidate_children(
    board: &Board,
    to_move: Color,
    last: Option<Point>,
    before_last: Option<Point>,
    nogo: bool,
    eyes: EyeTest,
    knowledge: &mut Knowledge,
    points: &mut Vec<Point>,
    priors: &mut Vec<Prior>,
    out: &mut Vec<(NodeMove, Prior)>,
) {
    points.clear();
    if nogo {
        points.extend(
            board
                .empty_points()
                .filter(|&p| board.is_legal_nogo(p, to_move)),
        );
        nogo_children(points, out);
        return;
    }
    points.extend(
        board
            .empty_points()
            .filter(|&p| board.is_legal_simple(p, to_move) && !board.is_eye(p, to_move, eyes)),
    );
    children_with_priors(
        board,
        to_move,
        (last, before_last),
        knowledge,
        points,
        priors,
        out,
    );
}

/// `points` (legal NoGo moves) with even priors: Go's tactical knowledge
/// means nothing where nothing can be captured.
pub fn nogo_children(points: &mut [Point], out: &mut Vec<(NodeMove, Prior)>) {
    points.sort_unstable();
    out.clear();
    out.extend(points.iter().map(|&p| {
        (
            from_move(tengen_core::Move::Play(p)),
            Prior {
                visits: prior::EVEN,
                wins: prior::EVEN / 2.0,
            },
        )
    }));
}

/// `points` (legal for `to_move`) with their priors, then a pass; `recent`
/// holds the stones of the last two turns.
pub fn children_with_priors(
    board: &Board,
    to_move: Color,
    recent: (Option<Point>, Option<Point>),
    knowledge: &mut Knowledge,
    points: &mut [Point],
    priors: &mut Vec<Prior>,
    out: &mut Vec<(NodeMove, Prior)>,
) {
    // A fixed order keeps searches reproducible whatever the empty list's.
    points.sort_unstable();
    priors.clear();
    knowledge.priors(board, to_move, recent, points, priors);
    out.clear();
    out.extend(
        points
            .iter()
            .zip(priors.iter())
            .map(|(&p, &prior)| (from_move(tengen_core::Move::Play(p)), prior)),
    );
    out.push((
        PASS,
        Prior {
            visits: prior::PASS.0,
            wins: prior::PASS.1,
        },
    ));
}

/// Black's result of a position the tree ended with two passes: the board
/// counted as it stands under the rules.
fn final_value(board: &Board, rules: &Rules) -> f32 {
    let margin = scoring::score(board, rules, &[]).margin();
    if margin > 0.0 {
        1.0
    } else if margin < 0.0 {
        0.0
    } else {
        0.5
    }
}

/// State shared by the search threads.
struct Shared<'a> {
    tree: Mutex<&'a mut Tree>,
    root: &'a RootPosition,
    params: SearchParams,
    stop: AtomicBool,
    playouts: AtomicU64,
    /// Simulations the search runs when its choice is stable.
    playout_limit: u64,
    /// Simulations it never passes, the extension included.
    playout_cap: u64,
    /// Whether workers stop the search once its choice is decided.
    stop_when_decided: bool,
    ownership: Mutex<OwnershipSum>,
}

/// One thread's working space.
struct Worker<E> {
    evaluator: E,
    knowledge: Knowledge,
    board: Board,
    amaf: AmafMap,
    path: Vec<usize>,
    moves: Vec<(NodeMove, Color)>,
    points: Vec<Point>,
    priors: Vec<Prior>,
    children: Vec<(NodeMove, Prior)>,
    ownership: OwnershipSum,
    /// Whether the evaluator has a policy for the search to ask for.
    uses_policy: bool,
}

impl<E: Evaluator> Worker<E> {
    fn new(evaluator: E, root: &RootPosition, prior: PriorSource) -> Worker<E> {
        let uses_policy = !root.rules.is_nogo() && evaluator.has_policy();
        Worker {
            evaluator,
            knowledge: Knowledge::new(prior),
            board: root.board.clone(),
            amaf: AmafMap::default(),
            path: Vec::with_capacity(64),
            moves: Vec::with_capacity(64),
            points: Vec::with_capacity(400),
            priors: Vec::with_capacity(400),
            children: Vec::with_capacity(400),
            ownership: OwnershipSum::default(),
            uses_policy,
        }
    }

    fn run(&mut self, shared: &Shared<'_>) {
        while !shared.stop.load(Ordering::Relaxed) {
            let done = shared.playouts.fetch_add(1, Ordering::Relaxed);
            if done >= shared.playout_cap {
                shared.stop.store(true, Ordering::Relaxed);
                break;
            }
            if done >= shared.playout_limit
                && (done == shared.playout_limit || done.is_multiple_of(DECIDED_CHECK_INTERVAL))
            {
                // In the extension: go on only while the choice is unstable.
                let tree = shared.tree.lock().unwrap_or_else(|e| e.into_inner());
                if !is_unstable(&tree) {
                    // This simulation is not run.
                    shared.playouts.fetch_sub(1, Ordering::Relaxed);
                    shared.stop.store(true, Ordering::Relaxed);
                    break;
                }
            }
            self.simulate(shared);
            let done = done + 1;
            if shared.stop_when_decided
                && done < shared.playout_limit
                && done >= 100
                && done.is_multiple_of(DECIDED_CHECK_INTERVAL)
            {
                let tree = shared.tree.lock().unwrap_or_else(|e| e.into_inner());
                // With an extension, an unstable choice goes on to the
                // limit and is looked at again there.
                if is_decided(&tree, shared.playout_limit.saturating_sub(done))
                    && (shared.playout_cap == shared.playout_limit || !is_unstable(&tree))
                {
                    shared.stop.store(true, Ordering::Relaxed);
                }
            }
            if self.ownership.samples >= OWNERSHIP_FLUSH {
                self.flush_ownership(shared);
            }
        }
        self.flush_ownership(shared);
    }

    fn flush_ownership(&mut self, shared: &Shared<'_>) {
        if self.ownership.samples > 0 {
            let mut total = shared.ownership.lock().unwrap_or_else(|e| e.into_inner());
            total.add(&self.ownership);
            self.ownership.clear();
        }
    }

    /// One simulation: walk down, expand, evaluate, record.
    fn simulate(&mut self, shared: &Shared<'_>) {
        let root = shared.root;
        self.board.clone_from(&root.board);
        self.amaf.clear();
        self.path.clear();
        self.moves.clear();
        self.path.push(0);
        let mut to_move = root.to_move;
        let mut last = root.last;
        let mut before_last = root.before_last;
        let mut passes = root.passes;
        let mut node = 0;
        let mut ended = false;
        let mut tree = shared.tree.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if !tree.node(node).expanded {
                if tree.node(node).visits < shared.params.expand_visits && node != 0 {
                    break;
                }
                // Compute children and priors without holding the lock.
                drop(tree);
                candidate_children(
                    &self.board,
                    to_move,
                    last,
                    before_last,
                    root.rules.is_nogo(),
                    shared.params.eyes,
                    &mut self.knowledge,
                    &mut self.points,
                    &mut self.priors,
                    &mut self.children,
                );
                tree = shared.tree.lock().unwrap_or_else(|e| e.into_inner());
                if !tree.node(node).expanded && !tree.expand(node, &self.children) {
                    break; // The arena is full: evaluate here.
                }
            }
            if self.uses_policy
                && !tree.node(node).policy_added
                && (node == 0 || tree.node(node).visits >= shared.params.policy_visits)
            {
                drop(tree);
                let policy = self.evaluator.policy(&self.board, to_move, root.rules.komi);
                tree = shared.tree.lock().unwrap_or_else(|e| e.into_inner());
                // Another thread may have added it meanwhile.
                if !tree.node(node).policy_added {
                    tree.node_mut(node).policy_added = true;
                    if let Some(policy) = policy {
                        tree.add_policy(node, &policy);
                    }
                }
            }
            let child = tree.select(node, &shared.params.selection);
            if child == usize::MAX {
                break;
            }
            tree.node_mut(child).virtual_loss += 1;
            let mv = tree.node(child).mv;
            if mv == PASS {
                self.board.pass();
                passes += 1;
                before_last = last;
                last = None;
            } else {
                let point = Point::from_index(mv as usize).expect("a stored point index");
                self.board.play_unchecked(point, to_move);
                passes = 0;
                before_last = last;
                last = Some(point);
            }
            self.moves.push((mv, to_move));
            self.path.push(child);
            node = child;
            to_move = !to_move;
            if passes >= 2 {
                ended = true;
                break;
            }
        }
        drop(tree);

        let mut played_out = false;
        let black_value = if ended {
            final_value(&self.board, &root.rules)
        } else {
            let evaluation = self.evaluator.evaluate(
                Leaf {
                    board: &mut self.board,
                    to_move,
                    last,
                    komi: root.rules.komi,
                    nogo: root.rules.is_nogo(),
                },
                &mut self.amaf,
            );
            if evaluation.played_out {
                self.count_ownership();
            }
            played_out = evaluation.played_out;
            evaluation.black_value
        };
        let mut tree = shared.tree.lock().unwrap_or_else(|e| e.into_inner());
        tree.backup(
            &self.path,
            &self.moves,
            black_value,
            &mut self.amaf,
            !root.to_move,
            shared.params.amaf_distance,
        );
        if played_out && shared.params.selection.criticality > 0.0 {
            let board = &self.board;
            tree.record_owners(&self.path, black_value, |point| {
                tengen_core::playout::final_owner(board, point)
            });
        }
    }

    fn count_ownership(&mut self) {
        for point in self.board.size().points() {
            self.ownership.sum[point.index()] +=
                match tengen_core::playout::final_owner(&self.board, point) {
                    Some(Color::Black) => 1,
                    Some(Color::White) => -1,
                    None => 0,
                };
        }
        self.ownership.samples += 1;
    }
}

/// What the controlling thread does while the workers search: called every
/// few milliseconds with the tree, the ownership so far, the time so far and
/// the simulations started; returns true to stop.
pub type Monitor<'m> = dyn FnMut(&Tree, &OwnershipSum, Duration, u64) -> bool + 'm;

/// Runs a search on `tree` (whose root must be `root`'s position; it is
/// expanded here if it is not yet) with one thread per evaluator, until
/// `limits` or `monitor` stop it.
pub fn run<E: Evaluator>(
    tree: &mut Tree,
    root: &RootPosition,
    root_children: &[(NodeMove, Prior)],
    evaluators: Vec<E>,
    params: SearchParams,
    limits: Limits,
    monitor: &mut Monitor<'_>,
) -> SearchOutcome {
    let start = Instant::now();
    if !tree.node(0).expanded {
        tree.expand(0, root_children);
    }
    let shared = Shared {
        tree: Mutex::new(tree),
        root,
        params,
        stop: AtomicBool::new(false),
        playouts: AtomicU64::new(0),
        playout_limit: limits.playouts.unwrap_or(u64::MAX),
        playout_cap: limits.playout_cap(),
        stop_when_decided: limits.stop_when_decided && limits.playouts.is_some(),
        ownership: Mutex::new(OwnershipSum::default()),
    };
    let workers: Vec<Worker<E>> = evaluators
        .into_iter()
        .map(|e| Worker::new(e, root, params.prior))
        .collect();
    std::thread::scope(|scope| {
        for mut worker in workers {
            let shared = &shared;
            scope.spawn(move || worker.run(shared));
        }
        loop {
            std::thread::sleep(Duration::from_millis(2));
            let elapsed = start.elapsed();
            let done = shared.playouts.load(Ordering::Relaxed);
            if shared.stop.load(Ordering::Relaxed) {
                break;
            }
            if limits.max_time.is_some_and(|max| elapsed >= max) {
                shared.stop.store(true, Ordering::Relaxed);
                break;
            }
            let stop = {
                let ownership = shared.ownership.lock().unwrap_or_else(|e| e.into_inner());
                let tree = shared.tree.lock().unwrap_or_else(|e| e.into_inner());
                monitor(&tree, &ownership, elapsed, done)
            };
            if stop {
                shared.stop.store(true, Ordering::Relaxed);
                break;
            }
        }
    });
    let ownership = shared
        .ownership
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    SearchOutcome {
        playouts: shared
            .playouts
            .load(Ordering::Relaxed)
            .min(shared.playout_cap),
        elapsed: start.elapsed(),
        ownership,
    }
}
