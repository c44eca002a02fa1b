//! The PUCT search as a bot: [`PuctSearch`] is what the shared bot
//! lifecycle ([`SearchBot`]: the clock, the kept tree, pondering,
//! resignation, reports) asks of a search; [`PuctBot`] is the two together.

use crate::choice::{draw_with_temperature, play_choice};
use crate::{
    lcb_of, search, tree, PositionEvaluator, PuctAnalysis, PuctCandidate, PuctConfig, RawRoot,
    DEFAULT_VISITS,
};

use std::time::Duration;

use tengen_core::{Action, Analysis, BoardSize, Color, Game, Move};

use crate::search::{Limits, SearchStats, Searcher};
use crate::tree::{sign, Tree, ROOT};
use tengen_search::bot::{
    Decision, Job, Judgement, Lifecycle, Purpose, SearchBot, ThinkTimes, TreeSearch,
};
use tengen_search::shell::{lead_as_it_stands, Reroot};

/// The PUCT bot over a [`PositionEvaluator`]: the shared bot lifecycle
/// ([`SearchBot`]) over the PUCT search.
pub type PuctBot<E> = SearchBot<PuctSearch<E>>;

/// The PUCT search over a [`PositionEvaluator`], with its settings: what
/// [`PuctBot`] asks of its search.
pub struct PuctSearch<E: PositionEvaluator> {
    config: PuctConfig,
    evaluator: E,
    name: String,
}

impl<E: PositionEvaluator> PuctSearch<E> {
    /// The search with `evaluator`.
    pub fn new(config: PuctConfig, evaluator: E) -> Self {
        let name = format!("puct({})", evaluator.name());
        PuctSearch {
            config,
            evaluator,
            name,
        }
    }

    /// The same search under another name (the registry names a bot after
    /// the spec that built it, as every bot).
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// The bot over this search.
    pub fn into_bot(self) -> PuctBot<E> {
        SearchBot::new(self)
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

    /// Whether a pass chosen by the search may stand: always once the
    /// opponent has passed; otherwise not while much of the board is still
    /// empty.
    fn pass_allowed(&self, game: &Game) -> bool {
        if game.consecutive_passes() > 0 {
            return true;
        }
        let empty = game.board().empty_count() as f32;
        let points = game.size().points_count() as f32;
        empty <= self.config.selection.max_empty_to_pass * points
    }

    /// Puts first the candidate drawn at this turn's temperature
    /// ([`MoveSelection::temperature_at`](crate::MoveSelection::temperature_at));
    /// at no temperature the search's first choice stays first. The draw
    /// is its own stream of the bot's seed, one per turn.
    fn draw_move(&self, game: &Game, analysis: &mut PuctAnalysis) {
        let turn = game.turn_count();
        let temperature = self
            .config
            .selection
            .temperature_at(turn, game.size().points_count());
        if temperature <= 1e-4 || analysis.candidates.len() < 2 {
            return;
        }
        // Copies under the root's symmetries are not drawn: their move
        // was searched as another.
        let weights: Vec<f64> = analysis
            .candidates
            .iter()
            .map(|c| {
                if c.symmetry_of.is_some() {
                    0.0
                } else {
                    c.play_weight
                }
            })
            .collect();
        let seed = tengen_core::stream_seed(self.config.exploration.noise_seed, turn as u64 + 1);
        let mut rng = tengen_core::Rng::new(tengen_core::stream_seed(seed, MOVE_DRAW_STREAM));
        if let Some(i) = draw_with_temperature(&weights, temperature, &mut rng) {
            analysis.candidates[..=i].rotate_right(1);
        }
    }
}

/// The stream of a turn's seed that draws the move (stream 0 draws the
/// root's noise).
const MOVE_DRAW_STREAM: u64 = 1;

impl<E: PositionEvaluator> TreeSearch for PuctSearch<E> {
    type Tree = Tree;
    type Limits = Limits;
    type Analysis = PuctAnalysis;
    type Stats = SearchStats;

    fn name(&self) -> &str {
        &self.name
    }

    fn plays_size(&self, size: BoardSize) -> Result<(), String> {
        self.evaluator.supports(size)
    }

    fn lifecycle(&self) -> Lifecycle {
        let config = &self.config;
        Lifecycle {
            reuse: config.limits.reuse,
            time: config.limits.time,
            ponder: config.limits.ponder.then_some(config.limits.ponder_time),
            resign: config.resignation.rule(),
        }
    }

    fn limits(&self, _game: &Game, times: ThinkTimes, _purpose: Purpose) -> Limits {
        let mut limits = Limits {
            visits: self.config.limits.visits,
            playouts: self.config.limits.playouts,
            target_time: times.target,
            max_time: times.max,
            saves_time: times.saves_time,
        };
        if limits.visits.is_none() && limits.playouts.is_none() && limits.max_time.is_none() {
            limits.visits = Some(DEFAULT_VISITS);
        }
        limits
    }

    fn time_limits(&self, max_time: Option<Duration>) -> Limits {
        Limits {
            max_time,
            ..Limits::default()
        }
    }

    fn fresh_tree(&self, game: &Game) -> Tree {
        Tree::new(game.to_move(), self.config.limits.max_nodes)
    }

    /// A kept tree whose root's pass ends the game is searched afresh when
    /// passes are conservative: its pass was valued by the count.
    fn reusable(&self, tree: &Tree, _game: &Game) -> bool {
        !self.config.selection.conservative_pass || !tree.root_pass_is_terminal()
    }

    fn run(
        &mut self,
        tree: &mut Tree,
        game: &Game,
        limits: &Limits,
        job: Job<'_, '_, PuctAnalysis>,
    ) -> (PuctAnalysis, SearchStats) {
        let mut config = self.config.clone();
        // Each turn of a game draws its own noise.
        config.exploration.noise_seed = tengen_core::stream_seed(
            self.config.exploration.noise_seed,
            game.turn_count() as u64 + 1,
        );
        let size = game.size();
        let to_move = game.to_move();
        let Job {
            stop,
            cleanup,
            filters,
            detail,
            mut reporter,
        } = job;
        let mut searcher = Searcher::new(tree, game, &self.evaluator, &config, cleanup);
        searcher.filters = filters.to_vec();
        searcher.detail = detail;
        let mut monitor = |s: &Searcher<'_, E>, elapsed: Duration| -> bool {
            reporter.tick(elapsed, || analysis_of(s, size, to_move));
            stop()
        };
        searcher.run(*limits, &mut monitor, stop);
        let analysis = analysis_of(&searcher, size, to_move);
        let stats = searcher.stats.clone();
        if let Some(error) = &stats.error {
            tracing::error!(evaluator = self.evaluator.name(), %error, "search stopped");
        }
        tracing::info!(
            visits = stats.root_visits,
            new_visits = stats.new_visits,
            reused = stats.reused_visits,
            evaluations = stats.evaluations,
            batches = stats.batches,
            terminal = stats.terminal_visits,
            transposed = stats.transposed_visits,
            collisions = stats.collisions,
            seconds = stats.elapsed.as_secs_f64(),
            winrate = analysis.to_analysis().winrate,
            nodes = tree.len(),
            "puct search finished"
        );
        (analysis, stats)
    }

    /// Passing, as KataGo passes: the search decides, with the pass valued
    /// by the network as if the game went on
    /// ([`MoveSelection::conservative_pass`](crate::MoveSelection::conservative_pass)); a pass is overridden only in
    /// the opening ([`MoveSelection::max_empty_to_pass`](crate::MoveSelection::max_empty_to_pass)).
    fn decide(
        &mut self,
        tree: &Tree,
        game: &Game,
        limits: &Limits,
        _cleanup: bool,
        analysis: &mut PuctAnalysis,
    ) -> Decision {
        self.draw_move(game, analysis);
        // A search of one visit evaluates only the root: its move is the
        // policy's first choice.
        let best = analysis
            .candidates
            .first()
            .and_then(|c| tree.child_by_move(ROOT, c.mv))
            .or_else(|| tree.best_child(ROOT))
            .or_else(|| tree.likeliest_child(ROOT));
        let Some(best) = best else {
            // No evaluation at all (evaluator failure): a legal move, if any.
            return Decision {
                action: Action::Move(fallback_move(game)),
                judgement: None,
            };
        };
        let mut mv = tree.node(best).mv;
        if mv == Move::Pass && !self.pass_allowed(game) {
            if let Some(alternative) = best_non_pass(tree, game) {
                mv = alternative;
            }
        }
        if game.legal(mv).is_err() {
            mv = fallback_move(game);
        }
        // A search told to stop sooner is trusted at its limit.
        let needed = [limits.visits, limits.playouts]
            .into_iter()
            .flatten()
            .fold(self.config.resignation.min_visits, u64::min);
        Decision {
            action: Action::Move(mv),
            judgement: Some(Judgement {
                winrate: analysis.to_analysis().winrate,
                trusted: analysis.visits >= needed.max(1),
            }),
        }
    }

    /// A game already over is answered with a pass.
    fn without_search(&self, game: &Game) -> Option<Action> {
        game.is_over().then_some(Action::Move(Move::Pass))
    }

    /// The count as it stands, dead stones taken off (KataGo's friendly
    /// pass). Never passing while behind would leave a lost bot nothing to
    /// play but moves inside its own area.
    fn count_wins(&mut self, game: &Game) -> bool {
        lead_as_it_stands(game, game.to_move()) > 0.0
    }

    fn plain(analysis: &PuctAnalysis) -> Analysis {
        analysis.to_analysis()
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
    // The root ending bonus counts in the choice, not in what is reported.
    let ending = |c| s * searcher.root_ending_utility(c);
    let mut bounds: Vec<(f64, f64)> = children
        .iter()
        .map(|&c| {
            let (bound, radius) = lcb_of(
                tree.node(c),
                s,
                range,
                f64::from(config.selection.lcb_stdevs),
            );
            (bound + ending(c), radius)
        })
        .collect();
    // The chosen move goes first: the order is the choice.
    let values: Vec<f64> = children.iter().map(|&c| value(c) + ending(c)).collect();
    let mut weights = Vec::new();
    if let Some((i, selection)) = play_choice(searcher, &children, &values, &bounds) {
        weights = selection;
        children[..=i].rotate_right(1);
        bounds[..=i].rotate_right(1);
        weights[..=i].rotate_right(1);
    }
    finish_analysis(searcher, size, to_move, &children, &bounds, &weights)
}

/// The analysis of the root with its children in the order given, their
/// bounds and their play-selection weights (none: their edge weights).
fn finish_analysis<E: PositionEvaluator + ?Sized>(
    searcher: &Searcher<'_, E>,
    size: BoardSize,
    to_move: Color,
    children: &[tree::NodeId],
    bounds: &[(f64, f64)],
    play_weights: &[f64],
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
                play_weight: play_weights.get(k).copied().unwrap_or(node.weight_sum),
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
                symmetry_of: None,
            }
        })
        .collect();
    let candidates =
        crate::symmetry::with_copies(size, &searcher.root_symmetries, candidates, |mv| {
            searcher.filters.iter().any(|f| f.excludes(to_move, mv, 1))
        });
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

impl Reroot for Tree {
    fn reroot(&self, moves: &[Move]) -> Option<Tree> {
        Tree::reroot(self, moves)
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
