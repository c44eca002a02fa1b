//! The bot: a [`PuctBot`] plays and analyses through tengen's `Agent`
//! interface, keeping its tree between moves, managing the clock,
//! resigning, and reporting analysis while it searches.

use crate::choice::play_choice;
use crate::report::{Reporting, SearchOptions};
use crate::{
    lcb_of, search, tree, AnalyseRequest, PositionEvaluator, PuctAnalysis, PuctCandidate,
    PuctConfig, RawRoot, DEFAULT_VISITS,
};

use std::time::Duration;

use tengen_core::{
    Action, Agent, Analysis, BoardSize, Color, Game, Move, SelectRequest, TimeLeft, TimeSettings,
};

use crate::search::{Limits, SearchStats, Searcher};
use crate::tree::{sign, Tree, ROOT};
use tengen_search::shell::{
    answers_pass, lead_as_it_stands, Clock, KeptTree, ReportCadence, Reroot, Resignation,
};

/// The PUCT bot over a [`PositionEvaluator`].
pub struct PuctBot<E: PositionEvaluator> {
    config: PuctConfig,
    evaluator: E,
    name: String,
    kept: KeptTree<Tree>,
    clock: Clock,
    analysis: Option<PuctAnalysis>,
    last_stats: Option<SearchStats>,
    resignation: Resignation,
}

impl<E: PositionEvaluator> PuctBot<E> {
    /// The bot searching with `evaluator`.
    pub fn new(config: PuctConfig, evaluator: E) -> Self {
        let name = format!("puct({})", evaluator.name());
        PuctBot {
            kept: KeptTree::new(config.reuse),
            clock: Clock::default(),
            analysis: None,
            last_stats: None,
            resignation: Resignation::new(config.resign_threshold, config.resign_consecutive)
                .after(config.resign_min_moves_per_point),
            config,
            evaluator,
            name,
        }
    }

    /// The same bot under another name (the registry names it after the
    /// spec that built it, as every bot).
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// The settings.
    pub fn config(&self) -> &PuctConfig {
        &self.config
    }

    /// The settings, to change between moves.
    pub fn config_mut(&mut self) -> &mut PuctConfig {
        &mut self.config
    }

    /// The evaluator.
    pub fn evaluator(&self) -> &E {
        &self.evaluator
    }

    /// What the last search did.
    pub fn last_search(&self) -> Option<&SearchStats> {
        self.last_stats.as_ref()
    }

    /// The last search's full analysis (leads and utilities included).
    pub fn detailed_analysis(&self) -> Option<&PuctAnalysis> {
        self.analysis.as_ref()
    }

    /// Nodes in the kept tree.
    pub fn tree_nodes(&self) -> usize {
        self.kept.tree().map_or(0, Tree::len)
    }

    /// Visits, in the kept tree, of the position reached from its root by
    /// `moves` (`None` if the tree does not hold it).
    pub fn kept_visits(&self, moves: &[Move]) -> Option<u64> {
        let tree = self.kept.tree()?;
        let id = tree.descendant(moves)?;
        Some(u64::from(tree.node(id).visits))
    }

    /// Searches `game` within the configured limits without choosing a
    /// move (the tree is kept for the next search when reuse is on).
    pub fn search(&mut self, game: &Game) -> SearchStats {
        let limits = self.limits(game);
        let tree = self.run_search(game, limits, None, &|| false, SearchOptions::default());
        self.keep(tree, game);
        self.last_stats.clone().unwrap_or_default()
    }

    /// Analyses `game` within the configured limits (visits, playouts,
    /// time) without choosing a move, reporting as asked; the analysis of
    /// the search, or `None` if the evaluator cannot evaluate this board.
    /// The tree is kept for the next search when reuse is on.
    pub fn analyse(&mut self, game: &Game, request: AnalyseRequest<'_>) -> Option<PuctAnalysis> {
        self.evaluator.supports(game.size()).ok()?;
        let limits = self.limits(game);
        let options = SearchOptions {
            cleanup: false,
            filters: request.filters,
            detail: request.detail,
        };
        let tree = match request.report {
            Some(mut sink) => self.run_search(
                game,
                limits,
                Some(Reporting::Detailed(&mut sink)),
                request.stop,
                options,
            ),
            None => self.run_search(game, limits, None, request.stop, options),
        };
        self.keep(tree, game);
        self.analysis.clone()
    }

    /// The search's limits for this move.
    fn limits(&self, game: &Game) -> Limits {
        let (target_time, max_time) = self.clock.think_times(self.config.time, game);
        let mut limits = Limits {
            visits: self.config.visits,
            playouts: self.config.playouts,
            target_time,
            max_time,
        };
        if limits.visits.is_none() && limits.playouts.is_none() && limits.max_time.is_none() {
            limits.visits = Some(DEFAULT_VISITS);
        }
        limits
    }

    /// The tree for `game`: the kept one re-rooted at this position when the
    /// game continues its history with alternating moves, else a fresh one.
    fn take_tree(&mut self, game: &Game) -> Tree {
        // The settings may change between moves (`config_mut`).
        self.kept.set_reuse(self.config.reuse);
        self.kept
            .take(game)
            .filter(|tree| !self.config.conservative_pass || !tree.root_pass_is_terminal())
            .unwrap_or_else(|| Tree::new(game.to_move(), self.config.max_nodes))
    }

    /// Runs one search of `game`, keeping its analysis, statistics and tree.
    fn run_search(
        &mut self,
        game: &Game,
        limits: Limits,
        report: Option<Reporting<'_, '_>>,
        stop: &dyn Fn() -> bool,
        options: SearchOptions<'_>,
    ) -> Tree {
        let mut tree = self.take_tree(game);
        let mut config = self.config.clone();
        // Each turn of a game draws its own noise.
        config.noise_seed =
            tengen_core::stream_seed(self.config.noise_seed, game.turn_count() as u64 + 1);
        let size = game.size();
        let to_move = game.to_move();
        let mut report = report;
        let mut cadence = ReportCadence::default();
        let mut searcher =
            Searcher::new(&mut tree, game, &self.evaluator, &config, options.cleanup);
        searcher.filters = options.filters.to_vec();
        searcher.detail = options.detail;
        let mut monitor = |s: &Searcher<'_, E>, elapsed: Duration| -> bool {
            match report.as_mut() {
                Some(Reporting::Plain(report)) => {
                    cadence.tick(Some(&mut **report), elapsed, || {
                        analysis_of(s, size, to_move).to_analysis()
                    });
                }
                Some(Reporting::Detailed(report)) if cadence.due(report.interval, elapsed) => {
                    (report.sink)(&analysis_of(s, size, to_move));
                }
                _ => {}
            }
            stop()
        };
        searcher.run(limits, &mut monitor, stop);
        let analysis = analysis_of(&searcher, size, to_move);
        let stats = searcher.stats.clone();
        if let Some(error) = &stats.error {
            tracing::error!(evaluator = self.evaluator.name(), %error, "search stopped");
        }
        tracing::info!(
            visits = stats.root_visits,
            new_visits = stats.new_visits,
            reused = stats.reused_visits,
            batches = stats.batches,
            seconds = stats.elapsed.as_secs_f64(),
            winrate = analysis.to_analysis().winrate,
            nodes = tree.len(),
            "puct search finished"
        );
        self.analysis = Some(analysis);
        self.last_stats = Some(stats);
        tree
    }

    /// Keeps `tree`, grown for `game`'s position, for the next search when
    /// reuse is on.
    fn keep(&mut self, tree: Tree, game: &Game) {
        self.kept.set_reuse(self.config.reuse);
        self.kept.keep(tree, game);
    }

    /// Searches and chooses the action for `game`.
    ///
    /// Passing, as KataGo passes: the search decides, with the pass valued
    /// by the network as if the game went on ([`PuctConfig::conservative_pass`]);
    /// a pass is overridden only in the opening
    /// ([`PuctConfig::max_empty_to_pass`]). When the opponent has passed and
    /// the count as it stands (dead stones taken off) wins, the bot passes
    /// at once (KataGo's friendly pass). Never passing while behind would
    /// leave a lost bot nothing to play but moves inside its own area.
    fn choose(
        &mut self,
        game: &Game,
        report: Option<Reporting<'_, '_>>,
        options: SearchOptions<'_>,
        stop: &dyn Fn() -> bool,
    ) -> Action {
        let cleanup = options.cleanup;
        let to_move = game.to_move();
        if game.is_over() {
            return Action::Move(Move::Pass);
        }
        if answers_pass(game, cleanup, || lead_as_it_stands(game, to_move) > 0.0) {
            self.analysis = None;
            return Action::Move(Move::Pass);
        }
        let limits = self.limits(game);
        let tree = self.run_search(game, limits, report, stop, options);
        // A search of one visit evaluates only the root: its move is the
        // policy's first choice.
        let best = self
            .analysis
            .as_ref()
            .and_then(|a| a.candidates.first())
            .and_then(|c| tree.child_by_move(ROOT, c.mv))
            .or_else(|| tree.best_child(ROOT))
            .or_else(|| tree.likeliest_child(ROOT));
        let Some(best) = best else {
            // No evaluation at all (evaluator failure): a legal move, if any.
            self.keep(tree, game);
            return Action::Move(fallback_move(game));
        };
        let mut mv = tree.node(best).mv;
        if mv == Move::Pass && !self.pass_allowed(game) {
            if let Some(alternative) = best_non_pass(&tree, game) {
                mv = alternative;
            }
        }
        if game.legal(mv).is_err() {
            mv = fallback_move(game);
        }
        self.keep(tree, game);
        if self.should_resign(game, limits) {
            return Action::Resign;
        }
        Action::Move(mv)
    }

    /// Whether a pass chosen by the search may stand: always once the
    /// opponent has passed; otherwise not while much of the board is still
    /// empty.
    fn pass_allowed(&self, game: &Game) -> bool {
        if game.consecutive_passes() > 0 {
            return true;
        }
        let empty = game.board().empty_count() as f32;
        let points = game.size().points_count() as f32;
        empty <= self.config.max_empty_to_pass * points
    }

    /// Updates the streak of low win rates with the last search of `game`
    /// (made within `limits`) and says whether to resign.
    fn should_resign(&mut self, game: &Game, limits: Limits) -> bool {
        let Some(analysis) = &self.analysis else {
            return false;
        };
        // The settings may change between moves (`config_mut`).
        self.resignation.threshold = self.config.resign_threshold;
        self.resignation.consecutive = self.config.resign_consecutive;
        self.resignation.min_moves_per_point = self.config.resign_min_moves_per_point;
        // A search told to stop sooner is trusted at its limit.
        let needed = [limits.visits, limits.playouts]
            .into_iter()
            .flatten()
            .fold(self.config.resign_min_visits, u64::min);
        let trusted = analysis.visits >= needed.max(1);
        self.resignation
            .update_in(game, analysis.to_analysis().winrate, trusted)
    }
}

/// The most visited root child other than a pass, legal in `game` (ties:
/// the higher prior); `None` if there is none.
fn best_non_pass(tree: &Tree, game: &Game) -> Option<Move> {
    tree.children(ROOT)
        .map(|c| tree.node(c))
        .filter(|n| n.mv != Move::Pass && !n.excluded && game.legal(n.mv).is_ok())
        .max_by(|a, b| {
            a.edge_visits()
                .cmp(&b.edge_visits())
                .then(a.raw_prior.total_cmp(&b.raw_prior))
        })
        .map(|n| n.mv)
}

/// A legal move when the search gave nothing: the first legal point, else
/// a pass.
fn fallback_move(game: &Game) -> Move {
    game.legal_moves()
        .into_iter()
        .find(|mv| *mv != Move::Pass)
        .unwrap_or(Move::Pass)
}

/// The analysis of a search's root, whose position has `to_move` to play.
fn analysis_of<E: PositionEvaluator + ?Sized>(
    searcher: &Searcher<'_, E>,
    size: BoardSize,
    to_move: Color,
) -> PuctAnalysis {
    let tree = &*searcher.tree;
    let utility = &searcher.utility;
    let s = sign(to_move);
    let mut children: Vec<_> = tree
        .children(ROOT)
        .filter(|&c| tree.node(c).visits > 0 && !tree.node(c).excluded)
        .collect();
    let value = |c| search::mean_utility(tree, c).map_or(0.0, |u| s * u);
    children.sort_by(|&a, &b| {
        tree.node(b)
            .edge_visits()
            .cmp(&tree.node(a).edge_visits())
            .then(value(b).total_cmp(&value(a)))
    });
    let config = searcher.config();
    let range = utility.range();
    let mut bounds: Vec<(f64, f64)> = children
        .iter()
        .map(|&c| lcb_of(tree.node(c), s, range, f64::from(config.lcb_stdevs)))
        .collect();
    // The chosen move goes first: the order is the choice.
    let values: Vec<f64> = children.iter().map(|&c| value(c)).collect();
    if let Some(i) = play_choice(searcher, &children, &values, &bounds).filter(|&i| i > 0) {
        children[..=i].rotate_right(1);
        bounds[..=i].rotate_right(1);
    }
    finish_analysis(searcher, size, to_move, &children, &bounds)
}

/// The analysis of the root with its children in the order given and
/// their bounds.
fn finish_analysis<E: PositionEvaluator + ?Sized>(
    searcher: &Searcher<'_, E>,
    size: BoardSize,
    to_move: Color,
    children: &[tree::NodeId],
    bounds: &[(f64, f64)],
) -> PuctAnalysis {
    let tree = &*searcher.tree;
    let s = sign(to_move);
    let value = |c| search::mean_utility(tree, c).map_or(0.0, |u| s * u);
    let candidates = children
        .iter()
        .enumerate()
        .map(|(k, &c)| {
            let node = tree.node(c);
            let mut pv = vec![node.mv];
            pv.extend(tree.principal_variation(c, 20));
            let mut pv_visits = vec![u64::from(node.edge_visits())];
            let mut at = c;
            while pv_visits.len() < pv.len() {
                let Some(next) = tree.best_child(at) else {
                    break;
                };
                pv_visits.push(u64::from(tree.node(next).edge_visits()));
                at = next;
            }
            let winrate = node.winrate_for(to_move).unwrap_or(0.5) as f32;
            let (utility_lcb, radius) = bounds[k];
            let (score, score_stdev) = node.black_score().unwrap_or((0.0, 0.0));
            let no_result = if node.weight_sum > 0.0 {
                (1.0 - (node.black_win_sum + node.white_win_sum) / node.weight_sum).clamp(0.0, 1.0)
            } else {
                0.0
            };
            PuctCandidate {
                mv: node.mv,
                visits: u64::from(node.edge_visits()),
                no_result: no_result as f32,
                winrate,
                lead: (s * node.black_lead().unwrap_or(0.0)) as f32,
                score_selfplay: (s * score) as f32,
                score_stdev: score_stdev as f32,
                weight: node.weight_sum,
                utility: value(c) as f32,
                utility_lcb: utility_lcb as f32,
                lcb: (winrate - (radius / 2.0) as f32).clamp(0.0, 1.0),
                prior: node.raw_prior,
                pv,
                pv_visits,
                ownership: searcher
                    .moves_ownership
                    .get(&c)
                    .map_or_else(Vec::new, |own| own.mean_rows(size)),
                ownership_stdev: match searcher.moves_ownership.get(&c) {
                    Some(own) if searcher.detail.ownership_stdev => own.stdev_rows(size),
                    _ => Vec::new(),
                },
            }
        })
        .collect();
    let root = tree.root();
    let ownership = &searcher.ownership;
    let (root_score, root_score_stdev) = root.black_score().unwrap_or((0.0, 0.0));
    PuctAnalysis {
        visits: u64::from(root.visits),
        root_winrate: root.winrate_for(to_move).unwrap_or(0.5) as f32,
        root_lead: (s * root.black_lead().unwrap_or(0.0)) as f32,
        root_utility: search::mean_utility(tree, ROOT).map_or(0.0, |u| s * u) as f32,
        root_score_selfplay: (s * root_score) as f32,
        root_score_stdev: root_score_stdev as f32,
        root_weight: root.weight_sum,
        raw: searcher
            .root_evaluation
            .as_ref()
            .map(|eval| RawRoot::new(eval, size)),
        candidates,
        ownership: ownership.mean_rows(size),
        ownership_stdev: if searcher.detail.ownership_stdev {
            ownership.stdev_rows(size)
        } else {
            Vec::new()
        },
    }
}

impl<E: PositionEvaluator> Agent for PuctBot<E> {
    fn name(&self) -> &str {
        &self.name
    }

    fn select_move(&mut self, game: &Game) -> Action {
        self.choose(game, None, SearchOptions::default(), &|| false)
    }

    fn select(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> Action {
        let options = SearchOptions {
            cleanup: request.cleanup,
            filters: &request.filters,
            detail: request.detail,
        };
        let report = request.report.as_mut().map(Reporting::Plain);
        self.choose(game, report, options, request.stop)
    }

    fn plays_size(&self, size: BoardSize) -> Result<(), String> {
        self.evaluator.supports(size)
    }

    fn reset(&mut self) {
        self.kept.clear();
        self.analysis = None;
        self.last_stats = None;
        self.resignation.reset();
    }

    fn set_time_settings(&mut self, settings: TimeSettings) {
        self.clock.set_settings(settings);
    }

    fn set_time_left(&mut self, color: Color, left: TimeLeft) {
        self.clock.set_left(color, left);
    }

    fn analysis(&self) -> Option<Analysis> {
        self.analysis.as_ref().map(PuctAnalysis::to_analysis)
    }

    fn ponder(&mut self, game: &Game, stop: &dyn Fn() -> bool) {
        if !self.config.ponder
            || !self.config.reuse
            || game.is_over()
            || self.evaluator.supports(game.size()).is_err()
        {
            return;
        }
        let limits = Limits {
            max_time: Some(self.config.ponder_time),
            ..Limits::default()
        };
        // The analysis of the bot's own move stays what GUIs read.
        let analysis = self.analysis.take();
        let stats = self.last_stats.take();
        let tree = self.run_search(game, limits, None, stop, SearchOptions::default());
        self.keep(tree, game);
        tracing::debug!(
            visits = self.last_stats.as_ref().map_or(0, |s| s.root_visits),
            "pondered"
        );
        self.analysis = analysis;
        self.last_stats = stats;
    }

    fn analyze(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> bool {
        if self.evaluator.supports(game.size()).is_err() {
            return false;
        }
        let limits = Limits::default();
        let stop = request.stop;
        let options = SearchOptions {
            cleanup: false,
            filters: &request.filters,
            detail: request.detail,
        };
        let report = request.report.as_mut().map(Reporting::Plain);
        let tree = self.run_search(game, limits, report, stop, options);
        self.keep(tree, game);
        // The tree may have filled up (or the game be over) before the stop:
        // keep reporting the last analysis until then.
        let mut last = std::time::Instant::now();
        while !stop() {
            let interval = request
                .report
                .as_ref()
                .map_or(Duration::from_millis(10), |report| report.interval);
            std::thread::sleep(Duration::from_millis(10).min(interval));
            if last.elapsed() >= interval {
                if let (Some(analysis), Some(report)) = (self.analysis(), request.report.as_mut()) {
                    (report.sink)(&analysis);
                }
                last = std::time::Instant::now();
            }
        }
        true
    }
}

impl Reroot for Tree {
    fn reroot(&self, moves: &[Move]) -> Option<Tree> {
        Tree::reroot(self, moves)
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
