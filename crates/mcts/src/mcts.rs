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

use tengen_search::bot::{
    Decision, Job, Judgement, Lifecycle, Purpose, SearchBot, ThinkTimes, TreeSearch,
};
use tengen_search::shell::{Reroot, ResignRule};

use tengen_core::scoring::{self, Settlement};
use tengen_core::{Action, Analysis, Candidate, Game, Move, Point, Variant};

use self::search::{
    children_with_priors, nogo_children, Limits, OwnershipSum, RootPosition, SearchOutcome,
    SearchParams,
};
use self::tree::{from_move, to_move, Node, NodeMove, Tree};
use crate::book::OpeningBook;
use crate::evaluator::{Evaluator, RolloutEvaluator};
use crate::playout::PlayoutPolicy;
use crate::prior::{Knowledge, Prior};

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

/// The MCTS bot, generic over its leaf evaluation: the shared bot
/// lifecycle ([`SearchBot`]) over the MCTS search.
pub type MctsBot<E = RolloutEvaluator> = SearchBot<MctsSearch<E>>;

/// The MCTS search with its settings and Go knowledge: what [`MctsBot`]
/// asks of its search.
pub struct MctsSearch<E: Evaluator + Clone = RolloutEvaluator> {
    config: MctsConfig,
    evaluator: E,
    knowledge: Knowledge,
    searches: u64,
    /// Whether the position last counted (by its board hash and turn) is
    /// settled: counting it costs playouts, and choosing the move asks
    /// again.
    settled: Option<(u64, usize, bool)>,
}

impl MctsSearch<RolloutEvaluator> {
    /// The search with heavy-playout rollouts, random choices from `seed`.
    pub fn with_rollouts(config: MctsConfig, seed: u64) -> Self {
        MctsSearch::new(
            config,
            RolloutEvaluator::new(PlayoutPolicy::default(), seed),
        )
    }
}

impl<E: Evaluator + Clone> MctsSearch<E> {
    /// The search evaluating leaves with `evaluator` (forked once per
    /// thread).
    pub fn new(config: MctsConfig, evaluator: E) -> Self {
        MctsSearch {
            evaluator,
            knowledge: Knowledge::default(),
            config,
            searches: 0,
            settled: None,
        }
    }

    /// The bot over this search.
    pub fn into_bot(self) -> MctsBot<E> {
        SearchBot::new(self)
    }

    /// The settings.
    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// The settings, to change between moves.
    pub fn config_mut(&mut self) -> &mut MctsConfig {
        &mut self.config
    }

    /// The root's children: moves legal in `game` (superko included) that
    /// fill no own single-point eye, with priors, and a pass (unless
    /// `cleanup`).
    fn root_children(
        &mut self,
        game: &Game,
        root: &RootPosition,
        cleanup: bool,
    ) -> Vec<(NodeMove, Prior)> {
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
        if cleanup && out.len() > 1 {
            out.pop();
        }
        out
    }

    /// The opening book's move for `game`, outside cleanup play.
    fn book_move(&self, game: &Game, cleanup: bool) -> Option<Point> {
        self.config
            .book
            .filter(|_| !cleanup)
            .and_then(|b| b.lookup(game))
    }

    /// Whether `game`'s position is settled, if it was counted already
    /// (to answer a pass).
    fn known_settlement(&self, game: &Game) -> Option<bool> {
        let (hash, turn, settled) = self.settled?;
        ((hash, turn) == (game.board().hash(), game.turn_count())).then_some(settled)
    }
}

impl<E: Evaluator + Clone> TreeSearch for MctsSearch<E> {
    type Tree = Tree;
    type Limits = Limits;
    type Analysis = Analysis;
    type Stats = SearchOutcome;

    fn name(&self) -> &str {
        "mcts"
    }

    fn plays(&self, _variant: Variant) -> bool {
        true
    }

    fn lifecycle(&self) -> Lifecycle {
        Lifecycle {
            reuse: self.config.reuse,
            time: self.config.time,
            ponder: None,
            // The most visited move's win rate, once: a search of the MCTS
            // bot is large enough to trust at once (see `decide`).
            resign: ResignRule {
                threshold: self.config.resign_below,
                consecutive: 1,
                min_moves_per_point: 0.0,
            },
        }
    }

    /// The configured limits; a move the book knows gets a short search
    /// beside it, for the analysis, and the time saved goes to the moves
    /// the book does not know.
    fn limits(&self, game: &Game, times: ThinkTimes, purpose: Purpose) -> Limits {
        let book = match purpose {
            Purpose::Play { cleanup } => self.book_move(game, cleanup).is_some(),
            Purpose::Think => false,
        };
        let mut limits = Limits {
            playouts: self.config.playouts,
            target_time: times.target,
            max_time: times.max,
            stop_when_decided: self.config.early_stop,
            extension: self.config.extension,
        };
        if limits.playouts.is_none() && limits.max_time.is_none() {
            limits.playouts = Some(DEFAULT_PLAYOUTS);
        }
        if book {
            limits = limits.scaled(BOOK_MOVE_SEARCH_SHARE);
        }
        limits
    }

    fn time_limits(&self, max_time: Option<Duration>) -> Limits {
        Limits {
            max_time,
            ..Limits::default()
        }
    }

    fn fresh_tree(&self, _game: &Game) -> Tree {
        Tree::new(self.config.max_nodes)
    }

    fn run(
        &mut self,
        tree: &mut Tree,
        game: &Game,
        limits: &Limits,
        job: Job<'_, '_, Analysis>,
    ) -> (Analysis, SearchOutcome) {
        let (last, before_last) = crate::features::recent_stones(game);
        let root = RootPosition {
            board: game.board().clone(),
            to_move: game.to_move(),
            last,
            before_last,
            passes: game.consecutive_passes(),
            rules: *game.rules(),
        };
        let children = self.root_children(game, &root, job.cleanup);
        // A reused root must offer exactly the moves legal now (superko can
        // forbid one its children include); otherwise start afresh.
        if tree.root().expanded {
            let kept: Vec<NodeMove> = tree.children(0).map(|c| tree.node(c).mv).collect();
            let wanted: Vec<NodeMove> = children.iter().map(|(mv, _)| *mv).collect();
            if kept != wanted {
                *tree = Tree::new(self.config.max_nodes);
            }
        }
        self.searches += 1;
        let evaluators: Vec<E> = (0..self.config.threads.max(1))
            .map(|i| self.evaluator.fork(self.searches << 8 | i as u64))
            .collect();
        let size = game.size();
        let early_stop = self.config.early_stop;
        let Job {
            stop, mut reporter, ..
        } = job;
        let mut monitor =
            |tree: &Tree, ownership: &OwnershipSum, elapsed: Duration, done: u64| -> bool {
                reporter.tick(elapsed, || analysis_of(tree, size, Some(ownership)));
                if stop() {
                    return true;
                }
                should_stop(tree, limits, elapsed, done, early_stop)
            };
        let outcome = search::run(
            tree,
            &root,
            &children,
            evaluators,
            self.config.params,
            *limits,
            &mut monitor,
        );
        let analysis = analysis_of(tree, size, Some(&outcome.ownership));
        tracing::info!(
            playouts = outcome.playouts,
            seconds = outcome.elapsed.as_secs_f64(),
            rate = (outcome.playouts as f64 / outcome.elapsed.as_secs_f64().max(1e-9)) as u64,
            winrate = analysis.winrate,
            nodes = tree.len(),
            "search finished"
        );
        (analysis, outcome)
    }

    /// The most visited move, played on while the position is open rather
    /// than passing; the book's move where it knows the position.
    fn decide(
        &mut self,
        tree: &Tree,
        game: &Game,
        _limits: &Limits,
        cleanup: bool,
        analysis: &mut Analysis,
    ) -> Decision {
        let nogo = game.rules().is_nogo();
        if let Some(point) = self.book_move(game, cleanup) {
            tracing::info!(mv = %game.size().gtp(Move::Play(point)), "opening book");
            put_first(analysis, Move::Play(point));
            return Decision {
                action: Action::Move(Move::Play(point)),
                judgement: None,
            };
        }
        let mut best = tree.most_visited(0);
        if !cleanup && !nogo {
            let settled = self.known_settlement(game);
            best = best.map(|pass| play_on_while_open(tree, pass, game, settled));
        }
        match best {
            // NoGo without a legal move: the game is lost.
            None if nogo => Decision {
                action: Action::Resign,
                judgement: None,
            },
            None => Decision {
                action: Action::Move(Move::Pass),
                judgement: None,
            },
            Some(best) => {
                let node = tree.node(best);
                Decision {
                    action: Action::Move(to_move_checked(node.mv, game)),
                    judgement: Some(Judgement {
                        winrate: node.winrate().unwrap_or(0.5),
                        // Resign only on a search large enough to trust.
                        trusted: node.visits >= 200 && tree.root().visits >= 1_000,
                    }),
                }
            }
        }
    }

    /// The opponent passed, nothing is left open and the count (the one
    /// the referee, `final_score` and the web page make) wins.
    fn count_wins(&mut self, game: &Game) -> bool {
        if game.rules().is_nogo() {
            return false;
        }
        let settlement = settlement_of(game);
        let settled = settlement.is_settled();
        self.settled = Some((game.board().hash(), game.turn_count(), settled));
        let score = scoring::score(game.board(), game.rules(), &settlement.status.dead_points());
        settled && score.winner() == Some(game.to_move())
    }

    fn plain(analysis: &Analysis) -> Analysis {
        analysis.clone()
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

#[cfg(test)]
mod tests;

impl Reroot for Tree {
    fn reroot(&self, moves: &[Move]) -> Option<Tree> {
        let moves: Vec<NodeMove> = moves.iter().map(|&mv| from_move(mv)).collect();
        Tree::reroot(self, &moves)
    }
}
