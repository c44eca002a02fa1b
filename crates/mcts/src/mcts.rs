//! The Monte Carlo tree search bot: MC-RAVE selection with prior knowledge,
//! heavy playouts through an [`Evaluator`], tree parallelism over threads,
//! tree reuse between moves, a bounded node arena, time management, passing
//! and resigning, and analysis for GUIs.
//!
//! - [`tree`]: nodes, selection, backup, re-rooting.
//! - [`search`]: the simulation loop and its threads.
//! - [`time`]: thinking time under a clock.

pub mod search;
pub mod tree;

use std::time::Duration;

use tengen_search::shell::{answers_pass, Clock, KeptTree, ReportCadence, Reroot, Resignation};

use tengen_core::scoring::{self, Settlement};
use tengen_core::{
    Action, Agent, Analysis, Candidate, Color, Game, Move, Point, Report, SelectRequest, TimeLeft,
    TimeSettings, Variant,
};

use self::search::{
    children_with_priors, nogo_children, Limits, OwnershipSum, RootPosition, SearchOutcome,
    SearchParams,
};
use self::tree::{from_move, to_move, Node, NodeMove, Tree};
use crate::book::OpeningBook;
use crate::evaluator::{Evaluator, RolloutEvaluator};
use crate::playout::PlayoutPolicy;
use crate::prior::{Knowledge, Prior};

/// How often to report, and where: the analysis sink of
/// [`Agent::select_move_reporting`] and [`Agent::analyze`].
type Reporter<'a, 'b> = &'a mut Report<'b>;

/// Playouts per move when neither a playout count, nor a time, nor a clock
/// says otherwise.
pub const DEFAULT_PLAYOUTS: u64 = 10_000;

/// Settings of the MCTS bot (the `mcts:key=value,…` options).
#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// Simulations per move (`playouts`).
    pub playouts: Option<u64>,
    /// Thinking time per move (`time`), capped further by the game's clock.
    pub time: Option<Duration>,
    /// Search threads (`threads`).
    pub threads: usize,
    /// Most nodes the tree may hold (`memory`, given in MiB).
    pub max_nodes: usize,
    /// Resign when the best move's win rate falls below this (`resign-winrate`;
    /// 0 never resigns).
    pub resign_below: f32,
    /// Keep the subtree of the moves played between searches (`reuse`).
    pub reuse: bool,
    /// Selection weights (`rave`, `explore`) and expansion (`expand`).
    pub params: SearchParams,
    /// Stop as soon as the most visited move cannot be overtaken in the
    /// playouts or time left (off for benchmarks).
    pub early_stop: bool,
    /// The share of `playouts` a search may add while its choice is
    /// unstable (`extend`; [`Limits::extension`]).
    pub extension: f64,
    /// The opening book whose moves are played with a short search beside
    /// them, for the analysis (`book`).
    pub book: Option<&'static OpeningBook>,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            playouts: None,
            time: None,
            threads: 1,
            max_nodes: nodes_for_mib(DEFAULT_MEMORY_MIB),
            resign_below: 0.1,
            reuse: true,
            params: SearchParams::default(),
            early_stop: true,
            extension: 0.0,
            book: Some(OpeningBook::builtin()),
        }
    }
}

/// The most MiB a search tree may use unless told otherwise (`memory`).
pub const DEFAULT_MEMORY_MIB: u64 = 512;

/// Nodes that fit in `mib` MiB.
pub fn nodes_for_mib(mib: u64) -> usize {
    (mib as usize * (1 << 20)) / std::mem::size_of::<Node>()
}

/// The MCTS bot, generic over its leaf evaluation.
pub struct MctsBot<E: Evaluator + Clone = RolloutEvaluator> {
    config: MctsConfig,
    evaluator: E,
    knowledge: Knowledge,
    kept: KeptTree<Tree>,
    clock: Clock,
    resignation: Resignation,
    analysis: Option<Analysis>,
    searches: u64,
    last_outcome: Option<SearchOutcome>,
    /// Whether the current search is for `kgs-genmove_cleanup`.
    cleanup: bool,
}

impl MctsBot<RolloutEvaluator> {
    /// The bot with heavy-playout rollouts, random choices from `seed`.
    pub fn with_rollouts(config: MctsConfig, seed: u64) -> Self {
        MctsBot::new(
            config,
            RolloutEvaluator::new(PlayoutPolicy::default(), seed),
        )
    }
}

impl<E: Evaluator + Clone> MctsBot<E> {
    /// The bot evaluating leaves with `evaluator` (forked once per thread).
    pub fn new(config: MctsConfig, evaluator: E) -> Self {
        MctsBot {
            evaluator,
            knowledge: Knowledge::default(),
            kept: KeptTree::new(config.reuse),
            clock: Clock::default(),
            // The most visited move's win rate, once: a search of the MCTS
            // bot is large enough to trust at once (see `choose`).
            resignation: Resignation::new(config.resign_below, 1),
            config,
            analysis: None,
            searches: 0,
            last_outcome: None,
            cleanup: false,
        }
    }

    /// The settings.
    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// Nodes in the tree kept from the last search.
    pub fn tree_nodes(&self) -> usize {
        self.kept.tree().map_or(0, Tree::len)
    }

    /// Bytes the kept tree's arena occupies.
    pub fn tree_memory(&self) -> usize {
        self.kept.tree().map_or(0, Tree::memory_bytes)
    }

    /// Simulations and time of the last search.
    pub fn last_search(&self) -> Option<(u64, Duration)> {
        self.last_outcome.as_ref().map(|o| (o.playouts, o.elapsed))
    }

    /// Keeps `tree`, grown for `game`'s position, for the next search when
    /// reuse is on.
    fn keep(&mut self, tree: Tree, game: &Game) {
        self.kept.keep(tree, game);
    }

    /// The tree for `game`: the kept one re-rooted at this position when the
    /// game continues it, else a fresh one.
    fn take_tree(&mut self, game: &Game) -> Tree {
        self.kept
            .take(game)
            .unwrap_or_else(|| Tree::new(self.config.max_nodes))
    }

    /// The root's children: moves legal in `game` (superko included) that
    /// fill no own single-point eye, with priors, and a pass.
    fn root_children(&mut self, game: &Game, root: &RootPosition) -> Vec<(NodeMove, Prior)> {
        let board = game.board();
        if game.rules().is_nogo() {
            let mut points: Vec<Point> = board
                .empty_points()
                .filter(|&p| game.legal(Move::Play(p)).is_ok())
                .collect();
            let mut out = Vec::new();
            nogo_children(&mut points, &mut out);
            return out;
        }
        let mut points: Vec<Point> = board
            .empty_points()
            .filter(|&p| {
                !board.is_eye(p, root.to_move, self.config.params.eyes)
                    && board.is_legal_simple(p, root.to_move)
                    && game.legal(Move::Play(p)).is_ok()
            })
            .collect();
        let mut priors = Vec::new();
        let mut out = Vec::new();
        self.knowledge.source = self.config.params.prior;
        children_with_priors(
            board,
            root.to_move,
            (root.last, root.before_last),
            &mut self.knowledge,
            &mut points,
            &mut priors,
            &mut out,
        );
        // Cleaning up, the bot passes only when nothing else is left, so that
        // dead stones get captured before the game ends.
        if self.cleanup && out.len() > 1 {
            out.pop();
        }
        out
    }

    /// The search's limits for this move.
    fn limits(&self, game: &Game) -> Limits {
        let (target_time, max_time) = self.clock.think_times(self.config.time, game);
        let mut limits = Limits {
            playouts: self.config.playouts,
            target_time,
            max_time,
            stop_when_decided: self.config.early_stop,
            extension: self.config.extension,
        };
        if limits.playouts.is_none() && limits.max_time.is_none() {
            limits.playouts = Some(DEFAULT_PLAYOUTS);
        }
        limits
    }

    /// Searches `game`'s position and returns the tree and the outcome.
    fn search(
        &mut self,
        game: &Game,
        limits: Limits,
        report: Option<Reporter<'_, '_>>,
        stop: &dyn Fn() -> bool,
    ) -> (Tree, RootPosition, SearchOutcome) {
        let (last, before_last) = crate::features::recent_stones(game);
        let root = RootPosition {
            board: game.board().clone(),
            to_move: game.to_move(),
            last,
            before_last,
            passes: game.consecutive_passes(),
            rules: *game.rules(),
        };
        let mut tree = self.take_tree(game);
        let children = self.root_children(game, &root);
        // A reused root must offer exactly the moves legal now (superko can
        // forbid one its children include); otherwise start afresh.
        if tree.root().expanded {
            let kept: Vec<NodeMove> = tree.children(0).map(|c| tree.node(c).mv).collect();
            let wanted: Vec<NodeMove> = children.iter().map(|(mv, _)| *mv).collect();
            if kept != wanted {
                tree = Tree::new(self.config.max_nodes);
            }
        }
        self.searches += 1;
        let evaluators: Vec<E> = (0..self.config.threads.max(1))
            .map(|i| self.evaluator.fork(self.searches << 8 | i as u64))
            .collect();
        let size = game.size();
        let early_stop = self.config.early_stop;
        let mut cadence = ReportCadence::default();
        let mut report = report;
        let mut monitor =
            |tree: &Tree, ownership: &OwnershipSum, elapsed: Duration, done: u64| -> bool {
                cadence.tick(report.as_deref_mut(), elapsed, || {
                    analysis_of(tree, size, Some(ownership))
                });
                if stop() {
                    return true;
                }
                should_stop(tree, &limits, elapsed, done, early_stop)
            };
        let outcome = search::run(
            &mut tree,
            &root,
            &children,
            evaluators,
            self.config.params,
            limits,
            &mut monitor,
        );
        (tree, root, outcome)
    }

    /// Searches `game` within the configured limits without choosing a
    /// move, returning the simulations made and the time taken.
    pub fn search_only(&mut self, game: &Game) -> (u64, Duration) {
        let limits = self.limits(game);
        let (_, _, outcome) = self.search(game, limits, None, &|| false);
        (outcome.playouts, outcome.elapsed)
    }

    fn choose(
        &mut self,
        game: &Game,
        report: Option<Reporter<'_, '_>>,
        cleanup: bool,
        stop: &dyn Fn() -> bool,
    ) -> Action {
        let to_move = game.to_move();
        self.cleanup = cleanup;
        let counted = !cleanup && !game.rules().is_nogo();
        // The book decides where it knows the position; a short search
        // still runs, so that the analysis (candidates, ownership) is there
        // as after any other move, and the time saved goes to the moves the
        // book does not know.
        let book_move = self
            .config
            .book
            .filter(|_| !cleanup)
            .and_then(|b| b.lookup(game));
        // Whether the position is settled, once known (it costs playouts).
        let mut settled = None;
        // The opponent passed, nothing is left open and the count (the one
        // the referee, final_score and the web page make) wins: pass too.
        let count_wins = || {
            let settlement = settlement_of(game);
            settled = Some(settlement.is_settled());
            let score =
                scoring::score(game.board(), game.rules(), &settlement.status.dead_points());
            settlement.is_settled() && score.winner() == Some(to_move)
        };
        if !game.rules().is_nogo() && answers_pass(game, cleanup, count_wins) {
            self.analysis = None;
            return Action::Move(Move::Pass);
        }
        let mut limits = self.limits(game);
        if book_move.is_some() {
            limits = limits.scaled(BOOK_MOVE_SEARCH_SHARE);
        }
        let (tree, _root, outcome) = self.search(game, limits, report, stop);
        let mut analysis = analysis_of(&tree, game.size(), Some(&outcome.ownership));
        let mut best = tree.most_visited(0);
        if counted {
            best = best.map(|pass| play_on_while_open(&tree, pass, game, settled));
        }
        let action = if let Some(point) = book_move {
            tracing::info!(mv = %game.size().gtp(Move::Play(point)), "opening book");
            put_first(&mut analysis, Move::Play(point));
            Action::Move(Move::Play(point))
        } else {
            match best {
                // NoGo without a legal move: the game is lost.
                None if game.rules().is_nogo() => Action::Resign,
                None => Action::Move(Move::Pass),
                Some(best) => {
                    let node = tree.node(best);
                    let winrate = node.winrate().unwrap_or(0.5);
                    // Resign only on a search large enough to trust.
                    let trusted = node.visits >= 200 && tree.root().visits >= 1_000;
                    if self.resignation.update(winrate, trusted) {
                        Action::Resign
                    } else {
                        Action::Move(to_move_checked(node.mv, game))
                    }
                }
            }
        };
        tracing::info!(
            playouts = outcome.playouts,
            seconds = outcome.elapsed.as_secs_f64(),
            rate = (outcome.playouts as f64 / outcome.elapsed.as_secs_f64().max(1e-9)) as u64,
            winrate = analysis.winrate,
            nodes = tree.len(),
            chosen = %game.size().gtp(match action { Action::Move(mv) => mv, Action::Resign => Move::Pass }),
            "search finished"
        );
        self.analysis = Some(analysis);
        self.last_outcome = Some(outcome);
        self.keep(tree, game);
        action
    }
}

/// The share of the move's budget (playouts and time) searched beside a
/// book move, for its analysis.
const BOOK_MOVE_SEARCH_SHARE: f64 = 1.0 / 16.0;

/// Puts `mv`, the move played, first among the analysis's candidates (as
/// the most visited move is when the search chooses), with no visits if
/// the search left it out.
fn put_first(analysis: &mut Analysis, mv: Move) {
    match analysis.candidates.iter().position(|c| c.mv == mv) {
        Some(index) => analysis.candidates[..=index].rotate_right(1),
        None => analysis.candidates.insert(
            0,
            Candidate {
                mv,
                visits: 0,
                winrate: analysis.winrate,
                prior: 0.0,
                score_lead: None,
                pv: vec![mv],
                ..Candidate::default()
            },
        ),
    }
}

/// A win rate this close to the pass's is as good as passing.
const PLAY_ON_MARGIN: f32 = 0.05;

/// The estimate of `game`'s position as every counter makes it.
fn settlement_of(game: &Game) -> Settlement {
    scoring::settlement(
        game.board(),
        game.to_move(),
        scoring::DEFAULT_STATUS_PLAYOUTS,
        scoring::DEFAULT_STATUS_SEED,
    )
}

/// The root child to play instead of `chosen` when `chosen` is a pass that
/// leaves the position open (a fight, a ko, a stone in atari, dame or an
/// unclosed border; see [`Settlement`]): the most visited other move, if
/// its win rate is within [`PLAY_ON_MARGIN`] of the pass's. A search that
/// only maximises its chance of winning sees nothing to gain once the game
/// is decided, and would pass with the board half open; the game would then
/// end in a position that counters judge differently. When every move is
/// clearly worse than passing (filling the last dame would put a group in
/// atari), the pass stands. `settled` is the settlement's verdict when it
/// is known already.
fn play_on_while_open(tree: &Tree, chosen: usize, game: &Game, settled: Option<bool>) -> usize {
    let pass = tree.node(chosen);
    if to_move(pass.mv) != Move::Pass || settled.unwrap_or_else(|| settlement_of(game).is_settled())
    {
        return chosen;
    }
    let pass_rate = pass.winrate().unwrap_or(0.0);
    let alternative = tree
        .children(0)
        .filter(|&c| to_move(tree.node(c).mv) != Move::Pass && tree.node(c).visits > 0)
        .max_by_key(|&c| tree.node(c).visits);
    match alternative {
        Some(c) if tree.node(c).winrate().unwrap_or(0.0) >= pass_rate - PLAY_ON_MARGIN => c,
        _ => chosen,
    }
}

/// The move of a root child, which is legal in `game` by construction; a
/// pass if something went wrong.
fn to_move_checked(mv: NodeMove, game: &Game) -> Move {
    let mv = to_move(mv);
    if game.legal(mv).is_ok() {
        mv
    } else {
        Move::Pass
    }
}

/// Whether the controlling thread stops the search: once past the target
/// time with a clear choice, or, under a time limit alone, once the choice
/// is decided at the current rate. (Under a playout limit the workers stop
/// a decided search themselves: [`Limits::stop_when_decided`].)
fn should_stop(tree: &Tree, limits: &Limits, elapsed: Duration, done: u64, early: bool) -> bool {
    if let (true, None, Some(max)) = (early, limits.playouts, limits.max_time) {
        if done >= 100 {
            // Simulations still to come, at most.
            let rate = done as f64 / elapsed.as_secs_f64().max(1e-3);
            let remaining = rate * max.saturating_sub(elapsed).as_secs_f64();
            if search::is_decided(tree, remaining as u64) {
                return true;
            }
        }
    }
    if let Some(target) = limits.target_time {
        // Past the target, stop unless the choice is close.
        let (best, second) = search::top_two(tree);
        if elapsed >= target && best as f64 >= 1.5 * second as f64 {
            return true;
        }
    }
    false
}

/// The analysis of the root of `tree`.
fn analysis_of(
    tree: &Tree,
    size: tengen_core::BoardSize,
    ownership_sum: Option<&OwnershipSum>,
) -> Analysis {
    let mut children: Vec<usize> = tree
        .children(0)
        .filter(|&c| tree.node(c).visits > 0)
        .collect();
    children.sort_by(|&a, &b| {
        tree.node(b)
            .visits
            .cmp(&tree.node(a).visits)
            .then(tree.node(a).mv.cmp(&tree.node(b).mv))
    });
    let prior_total: f32 = tree
        .children(0)
        .map(|c| tree.node(c).prior_wins / tree.node(c).prior_visits.max(1.0))
        .sum();
    let candidates: Vec<Candidate> = children
        .iter()
        .take(20)
        .map(|&c| {
            let node = tree.node(c);
            Candidate {
                mv: to_move(node.mv),
                visits: node.visits as u64,
                winrate: node.winrate().unwrap_or(0.0),
                prior: node.prior_wins / node.prior_visits.max(1.0) / prior_total.max(1e-6),
                score_lead: None,
                pv: tree
                    .principal_variation(c, 12)
                    .into_iter()
                    .map(to_move)
                    .collect(),
                ..Candidate::default()
            }
        })
        .collect();
    let winrate = candidates.first().map_or(0.5, |c| c.winrate);
    let mut ownership = Vec::new();
    if let Some(own) = ownership_sum.filter(|o| o.samples > 0) {
        for row in (0..size.height()).rev() {
            for col in 0..size.width() {
                let point = size.point(col, row).expect("on the board");
                ownership.push(own.sum[point.index()] as f32 / own.samples as f32);
            }
        }
    }
    Analysis {
        playouts: tree.root().visits as u64,
        winrate,
        candidates,
        ownership,
        ..Analysis::default()
    }
}

impl<E: Evaluator + Clone> Agent for MctsBot<E> {
    fn name(&self) -> &str {
        "mcts"
    }

    fn plays(&self, _variant: Variant) -> bool {
        true
    }

    fn select_move(&mut self, game: &Game) -> Action {
        self.choose(game, None, false, &|| false)
    }

    fn select(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> Action {
        let report = request.report.as_mut();
        self.choose(game, report, request.cleanup, request.stop)
    }

    fn reset(&mut self) {
        self.kept.clear();
        self.resignation.reset();
        self.analysis = None;
    }

    fn set_time_settings(&mut self, settings: TimeSettings) {
        self.clock.set_settings(settings);
    }

    fn set_time_left(&mut self, color: Color, left: TimeLeft) {
        self.clock.set_left(color, left);
    }

    fn analysis(&self) -> Option<Analysis> {
        self.analysis.clone()
    }

    fn analyze(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> bool {
        let stop = request.stop;
        let report = request.report.as_mut();
        let limits = Limits::default();
        self.cleanup = false;
        let (tree, _, outcome) = self.search(game, limits, report, stop);
        self.analysis = Some(analysis_of(&tree, game.size(), Some(&outcome.ownership)));
        self.keep(tree, game);
        true
    }
}

#[cfg(test)]
mod tests;

impl Reroot for Tree {
    fn reroot(&self, moves: &[Move]) -> Option<Tree> {
        let moves: Vec<NodeMove> = moves.iter().map(|&mv| from_move(mv)).collect();
        Tree::reroot(self, &moves)
    }
}
