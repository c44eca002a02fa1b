//! One bot over any tree search: [`SearchBot`] keeps the lifecycle of a
//! searching bot — the clock, the tree kept between moves, pondering,
//! resignation, answering a pass, cleanup play and analysis reports — and
//! asks its [`TreeSearch`] only what differs between searches: the limits
//! of a search, one search, and the move it chooses. KataGo keeps its
//! `AsyncBot` apart from its `Search` the same way.
//!
//! The classical MCTS (`tengen-mcts`) and the network-guided PUCT search
//! (`tengen-puct`) are both bots this way.

use std::time::{Duration, Instant};

use tengen_core::{
    Action, Agent, Analysis, AnalysisDetail, BoardSize, Color, Game, Move, MoveFilter, Report,
    SelectRequest, TimeLeft, TimeSettings, Variant,
};

use crate::shell::{answers_pass, Clock, KeptTree, ReportCadence, Reroot, ResignRule, Resignation};

/// What a searching bot's lifecycle needs of its search. The shell,
/// [`SearchBot`], calls these in this order for a move: [`limits`]
/// (with the clock's thinking times), [`run`] on the kept or a fresh tree,
/// [`decide`]; the rest answer the lifecycle's questions.
///
/// [`limits`]: TreeSearch::limits
/// [`run`]: TreeSearch::run
/// [`decide`]: TreeSearch::decide
pub trait TreeSearch {
    /// The tree, kept between moves.
    type Tree: Reroot;
    /// The limits of one search.
    type Limits;
    /// The search's own view of its root; GTP and the web page read its
    /// [`plain`](TreeSearch::plain) form.
    type Analysis: Clone + 'static;
    /// What one search did (visits, time, errors).
    type Stats: Clone;

    /// The bot's name.
    fn name(&self) -> &str;

    /// Whether the search can play `variant` ([`Agent::plays`]).
    fn plays(&self, variant: Variant) -> bool {
        variant == Variant::Go
    }

    /// Whether the search can play on a board of `size`
    /// ([`Agent::plays_size`]).
    fn plays_size(&self, _size: BoardSize) -> Result<(), String> {
        Ok(())
    }

    /// The lifecycle settings as they stand now (they may change between
    /// moves).
    fn lifecycle(&self) -> Lifecycle;

    /// The limits of a search of `game` for `purpose`, within the clock's
    /// thinking `times`: the bot's own limits.
    fn limits(&self, game: &Game, times: ThinkTimes, purpose: Purpose) -> Self::Limits;

    /// The limits of a search bounded by time alone: at most `max_time`
    /// (pondering), or, given `None`, until stopped or the tree is full
    /// (GTP's `lz-analyze`).
    fn time_limits(&self, max_time: Option<Duration>) -> Self::Limits;

    /// An empty tree for `game`'s position.
    fn fresh_tree(&self, game: &Game) -> Self::Tree;

    /// Whether a kept tree, re-rooted at `game`'s position, may be searched
    /// on (by default, always).
    fn reusable(&self, _tree: &Self::Tree, _game: &Game) -> bool {
        true
    }

    /// Searches `game` in `tree` (which it may replace) within `limits`,
    /// reporting and stopping as `job` says; the analysis of the root and
    /// what the search did.
    fn run(
        &mut self,
        tree: &mut Self::Tree,
        game: &Game,
        limits: &Self::Limits,
        job: Job<'_, '_, Self::Analysis>,
    ) -> (Self::Analysis, Self::Stats);

    /// The move to play after a search of `game` within `limits`
    /// (`cleanup`: for `kgs-genmove_cleanup`), and how it judged the
    /// position for resignation. The analysis may be reordered so that the
    /// move played comes first.
    fn decide(
        &mut self,
        tree: &Self::Tree,
        game: &Game,
        limits: &Self::Limits,
        cleanup: bool,
        analysis: &mut Self::Analysis,
    ) -> Decision;

    /// An action `game` calls for without any search (a game already
    /// over); by default none.
    fn without_search(&self, _game: &Game) -> Option<Action> {
        None
    }

    /// Whether the side to move wins by the count of the board as it
    /// stands, asked when the opponent has passed ([`answers_pass`]).
    fn count_wins(&mut self, game: &Game) -> bool;

    /// The [`Analysis`] that GTP and the web page read.
    fn plain(analysis: &Self::Analysis) -> Analysis;
}

/// The settings of a searching bot's lifecycle, as its search holds them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lifecycle {
    /// Keep the subtree of the moves played between searches.
    pub reuse: bool,
    /// The bot's own thinking time per move, capped further by the clock.
    pub time: Option<Duration>,
    /// Search on during the opponent's turn for at most this long (`None`:
    /// no pondering). Needs `reuse`.
    pub ponder: Option<Duration>,
    /// When to give up.
    pub resign: ResignRule,
}

/// What a search within the bot's own limits is for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Purpose {
    /// A move to play (`cleanup`: for `kgs-genmove_cleanup`).
    Play {
        /// `kgs-genmove_cleanup`.
        cleanup: bool,
    },
    /// A search without choosing a move (benchmarks, the analysis engine).
    Think,
}

/// The thinking times of a move, under the bot's own time and the clock
/// ([`crate::time::think_times`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ThinkTimes {
    /// The time to aim for.
    pub target: Option<Duration>,
    /// The most the move may take.
    pub max: Option<Duration>,
    /// Whether time not used now is kept for later moves, so that the
    /// search should stop as soon as its choice cannot change.
    pub saves_time: bool,
}

/// The move a search chose, and its judgement of the position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// The move (or a resignation the rules call for: NoGo without a
    /// legal move).
    pub action: Action,
    /// The chosen move's win rate for the side to move, and whether the
    /// search was large enough to trust it; `None` leaves the resignation
    /// streak as it is (a book move, a search that evaluated nothing).
    pub judgement: Option<Judgement>,
}

/// A search's judgement of its chosen move, for resignation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Judgement {
    /// The win rate of the side to move.
    pub winrate: f32,
    /// Whether the search was large enough to trust it.
    pub trusted: bool,
}

/// What one search is asked beyond its limits.
pub struct Job<'a, 'r, A> {
    /// Stops the search early.
    pub stop: &'a dyn Fn() -> bool,
    /// `kgs-genmove_cleanup`: capture dead stones before passing.
    pub cleanup: bool,
    /// Moves kept out near the root (`avoid`, `allow`).
    pub filters: &'a [MoveFilter],
    /// The optional parts of the analysis to gather.
    pub detail: AnalysisDetail,
    /// Where the analysis goes while the search runs.
    pub reporter: Reporter<'a, 'r, A>,
}

/// Reports of a search's own analysis ([`TreeSearch::Analysis`]).
pub struct DetailedReport<'a, A> {
    /// About how often.
    pub interval: Duration,
    /// Called with the search's current analysis.
    pub sink: &'a mut dyn FnMut(&A),
}

/// What [`SearchBot::analyse`] is asked beyond the bot's own limits.
pub struct AnalyseRequest<'a, A> {
    /// Stops the search early (a terminate).
    pub stop: &'a dyn Fn() -> bool,
    /// Moves kept out near the root.
    pub filters: &'a [MoveFilter],
    /// The optional parts of the analysis to gather.
    pub detail: AnalysisDetail,
    /// Reports during the search: how often, and where.
    pub report: Option<DetailedReport<'a, A>>,
}

/// Where a search's analysis goes while it runs, at the sink's cadence:
/// nowhere, to an [`Analysis`] sink (GTP, the web page), or to a sink of
/// the search's own analysis (the analysis engine).
pub struct Reporter<'a, 'r, A> {
    sink: Sink<'a, 'r, A>,
    cadence: ReportCadence,
}

enum Sink<'a, 'r, A> {
    Silent,
    Plain {
        report: &'a mut Report<'r>,
        plain: fn(&A) -> Analysis,
    },
    Detailed(&'a mut DetailedReport<'r, A>),
}

impl<'a, 'r, A> Reporter<'a, 'r, A> {
    /// Reports nowhere.
    pub fn silent() -> Self {
        Reporter {
            sink: Sink::Silent,
            cadence: ReportCadence::default(),
        }
    }

    /// Reports the `plain` form of the analysis to `report`, if any.
    pub fn plain(report: Option<&'a mut Report<'r>>, plain: fn(&A) -> Analysis) -> Self {
        Reporter {
            sink: report.map_or(Sink::Silent, |report| Sink::Plain { report, plain }),
            cadence: ReportCadence::default(),
        }
    }

    /// Reports the search's own analysis to `report`, if any.
    pub fn detailed(report: Option<&'a mut DetailedReport<'r, A>>) -> Self {
        Reporter {
            sink: report.map_or(Sink::Silent, Sink::Detailed),
            cadence: ReportCadence::default(),
        }
    }

    /// Sends `analysis()` if a report is due `elapsed` into the search (the
    /// first at once); the analysis is made only then.
    pub fn tick(&mut self, elapsed: Duration, analysis: impl FnOnce() -> A) {
        match &mut self.sink {
            Sink::Silent => {}
            Sink::Plain { report, plain } => {
                if self.cadence.due(report.interval, elapsed) {
                    (report.sink)(&plain(&analysis()));
                }
            }
            Sink::Detailed(report) => {
                if self.cadence.due(report.interval, elapsed) {
                    (report.sink)(&analysis());
                }
            }
        }
    }
}

/// A bot over the tree search `S`: the lifecycle around its searches,
/// written once.
pub struct SearchBot<S: TreeSearch> {
    search: S,
    kept: KeptTree<S::Tree>,
    clock: Clock,
    resignation: Resignation,
    analysis: Option<S::Analysis>,
    stats: Option<S::Stats>,
}

impl<S: TreeSearch> SearchBot<S> {
    /// The bot playing with `search`.
    pub fn new(search: S) -> Self {
        SearchBot {
            kept: KeptTree::new(search.lifecycle().reuse),
            search,
            clock: Clock::default(),
            resignation: Resignation::default(),
            analysis: None,
            stats: None,
        }
    }

    /// The search, with its settings.
    pub fn tree_search(&self) -> &S {
        &self.search
    }

    /// The search, to change its settings between moves.
    pub fn tree_search_mut(&mut self) -> &mut S {
        &mut self.search
    }

    /// The tree kept from the last search, if any.
    pub fn kept_tree(&self) -> Option<&S::Tree> {
        self.kept.tree()
    }

    /// The last search's own analysis.
    pub fn detailed_analysis(&self) -> Option<&S::Analysis> {
        self.analysis.as_ref()
    }

    /// What the last search did.
    pub fn last_search(&self) -> Option<&S::Stats> {
        self.stats.as_ref()
    }

    /// Searches `game` within the bot's limits without choosing a move (the
    /// tree is kept for the next search when reuse is on); what the search
    /// did.
    pub fn search(&mut self, game: &Game) -> S::Stats {
        let limits = self.own_limits(game, Purpose::Think);
        let job = Job {
            stop: &|| false,
            cleanup: false,
            filters: &[],
            detail: AnalysisDetail::default(),
            reporter: Reporter::silent(),
        };
        self.run(game, &limits, job);
        self.stats.clone().expect("a search was run")
    }

    /// Analyses `game` within the bot's limits (visits, playouts, time)
    /// without choosing a move, reporting as asked; the analysis of the
    /// search, or `None` if the search cannot play this board. The tree is
    /// kept for the next search when reuse is on.
    pub fn analyse(
        &mut self,
        game: &Game,
        mut request: AnalyseRequest<'_, S::Analysis>,
    ) -> Option<S::Analysis> {
        self.search.plays_size(game.size()).ok()?;
        let limits = self.own_limits(game, Purpose::Think);
        let job = Job {
            stop: request.stop,
            cleanup: false,
            filters: request.filters,
            detail: request.detail,
            reporter: Reporter::detailed(request.report.as_mut()),
        };
        self.run(game, &limits, job);
        self.analysis.clone()
    }

    /// The search's own limits for `purpose`, within the clock's thinking
    /// times for `game`.
    fn own_limits(&self, game: &Game, purpose: Purpose) -> S::Limits {
        let times = self.clock.think_times(self.search.lifecycle().time, game);
        self.search.limits(game, times, purpose)
    }

    /// The tree for `game`: the kept one re-rooted at this position when the
    /// game continues its history with alternating moves and the search
    /// accepts it, else a fresh one.
    fn take_tree(&mut self, game: &Game) -> S::Tree {
        // The settings may change between moves.
        self.kept.set_reuse(self.search.lifecycle().reuse);
        self.kept
            .take(game)
            .filter(|tree| self.search.reusable(tree, game))
            .unwrap_or_else(|| self.search.fresh_tree(game))
    }

    /// Keeps `tree`, grown for `game`'s position, when reuse is on.
    fn keep(&mut self, tree: S::Tree, game: &Game) {
        self.kept.set_reuse(self.search.lifecycle().reuse);
        self.kept.keep(tree, game);
    }

    /// One search of `game` within `limits`, its analysis and statistics
    /// kept and its tree kept for the next.
    fn run(&mut self, game: &Game, limits: &S::Limits, job: Job<'_, '_, S::Analysis>) {
        let mut tree = self.take_tree(game);
        let (analysis, stats) = self.search.run(&mut tree, game, limits, job);
        self.keep(tree, game);
        self.analysis = Some(analysis);
        self.stats = Some(stats);
    }

    /// The action for `game`: an answer without search where the position
    /// calls for one, else the search's choice, or a resignation.
    fn choose(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> Action {
        if let Some(action) = self.search.without_search(game) {
            return action;
        }
        let search = &mut self.search;
        if answers_pass(game, request.cleanup, || search.count_wins(game)) {
            self.analysis = None;
            return Action::Move(Move::Pass);
        }
        let limits = self.own_limits(
            game,
            Purpose::Play {
                cleanup: request.cleanup,
            },
        );
        let job = Job {
            stop: request.stop,
            cleanup: request.cleanup,
            filters: &request.filters,
            detail: request.detail,
            reporter: Reporter::plain(request.report.as_mut(), S::plain),
        };
        let mut tree = self.take_tree(game);
        let (mut analysis, stats) = self.search.run(&mut tree, game, &limits, job);
        let decision = self
            .search
            .decide(&tree, game, &limits, request.cleanup, &mut analysis);
        self.keep(tree, game);
        self.analysis = Some(analysis);
        self.stats = Some(stats);
        let rule = self.search.lifecycle().resign;
        match decision.judgement {
            Some(j)
                if self
                    .resignation
                    .update_in(&rule, game, j.winrate, j.trusted) =>
            {
                Action::Resign
            }
            _ => decision.action,
        }
    }
}

impl<S: TreeSearch> Agent for SearchBot<S> {
    fn name(&self) -> &str {
        self.search.name()
    }

    fn select_move(&mut self, game: &Game) -> Action {
        self.choose(game, &mut SelectRequest::new())
    }

    fn select(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> Action {
        self.choose(game, request)
    }

    fn plays(&self, variant: Variant) -> bool {
        self.search.plays(variant)
    }

    fn plays_size(&self, size: BoardSize) -> Result<(), String> {
        self.search.plays_size(size)
    }

    fn reset(&mut self) {
        self.kept.clear();
        self.analysis = None;
        self.stats = None;
        self.resignation.reset();
    }

    fn set_time_settings(&mut self, settings: TimeSettings) {
        self.clock.set_settings(settings);
    }

    fn set_time_left(&mut self, color: Color, left: TimeLeft) {
        self.clock.set_left(color, left);
    }

    fn analysis(&self) -> Option<Analysis> {
        self.analysis.as_ref().map(S::plain)
    }

    fn ponder(&mut self, game: &Game, stop: &dyn Fn() -> bool) {
        let lifecycle = self.search.lifecycle();
        let Some(time) = lifecycle.ponder else {
            return;
        };
        if !lifecycle.reuse || game.is_over() || self.search.plays_size(game.size()).is_err() {
            return;
        }
        // The analysis of the bot's own move stays what GUIs read.
        let analysis = self.analysis.take();
        let stats = self.stats.take();
        let job = Job {
            stop,
            cleanup: false,
            filters: &[],
            detail: AnalysisDetail::default(),
            reporter: Reporter::silent(),
        };
        let limits = self.search.time_limits(Some(time));
        self.run(game, &limits, job);
        tracing::debug!(bot = self.search.name(), "pondered");
        self.analysis = analysis;
        self.stats = stats;
    }

    fn analyze(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> bool {
        if self.search.plays_size(game.size()).is_err() {
            return false;
        }
        let stop = request.stop;
        let job = Job {
            stop,
            cleanup: false,
            filters: &request.filters,
            detail: request.detail,
            reporter: Reporter::plain(request.report.as_mut(), S::plain),
        };
        let limits = self.search.time_limits(None);
        self.run(game, &limits, job);
        // The tree may have filled up (or the game be over) before the stop:
        // keep reporting the last analysis until then.
        let mut last = Instant::now();
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
                last = Instant::now();
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use tengen_core::Rules;

    use super::*;

    /// A "tree": the moves it was re-rooted along since it was grown.
    #[derive(Clone, Debug, Default, PartialEq)]
    struct Path(Vec<Move>);

    impl Reroot for Path {
        fn reroot(&self, moves: &[Move]) -> Option<Path> {
            let mut path = self.0.clone();
            path.extend_from_slice(moves);
            Some(Path(path))
        }
    }

    /// The limits a [`Recorder`] is given: what they were asked for.
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum Asked {
        Own(Purpose),
        Time(Option<Duration>),
    }

    /// A search that records what it was asked and judges every position
    /// as told.
    struct Recorder {
        /// Each run's limits and the tree it was given.
        runs: Vec<(Asked, Path)>,
        lifecycle: Lifecycle,
        judgement: Option<Judgement>,
        count_wins: bool,
    }

    impl Recorder {
        fn new() -> Recorder {
            Recorder {
                runs: Vec::new(),
                lifecycle: Lifecycle {
                    reuse: true,
                    time: None,
                    ponder: Some(Duration::from_secs(1)),
                    resign: ResignRule::NEVER,
                },
                judgement: None,
                count_wins: false,
            }
        }
    }

    impl TreeSearch for Recorder {
        type Tree = Path;
        type Limits = Asked;
        /// The number of the run.
        type Analysis = usize;
        type Stats = ();

        fn name(&self) -> &str {
            "recorder"
        }

        fn lifecycle(&self) -> Lifecycle {
            self.lifecycle
        }

        fn limits(&self, _game: &Game, _times: ThinkTimes, purpose: Purpose) -> Asked {
            Asked::Own(purpose)
        }

        fn time_limits(&self, max_time: Option<Duration>) -> Asked {
            Asked::Time(max_time)
        }

        fn fresh_tree(&self, _game: &Game) -> Path {
            Path::default()
        }

        fn run(
            &mut self,
            tree: &mut Path,
            _game: &Game,
            limits: &Asked,
            mut job: Job<'_, '_, usize>,
        ) -> (usize, ()) {
            self.runs.push((*limits, tree.clone()));
            let run = self.runs.len();
            job.reporter.tick(Duration::ZERO, || run);
            (run, ())
        }

        fn decide(
            &mut self,
            _tree: &Path,
            game: &Game,
            _limits: &Asked,
            _cleanup: bool,
            _analysis: &mut usize,
        ) -> Decision {
            let mv = game
                .legal_moves()
                .into_iter()
                .find(|mv| *mv != Move::Pass)
                .unwrap_or(Move::Pass);
            Decision {
                action: Action::Move(mv),
                judgement: self.judgement,
            }
        }

        fn count_wins(&mut self, _game: &Game) -> bool {
            self.count_wins
        }

        fn plain(analysis: &usize) -> Analysis {
            Analysis {
                playouts: *analysis as u64,
                ..Analysis::default()
            }
        }
    }

    fn game() -> Game {
        Game::new(BoardSize::square(9).unwrap(), Rules::default())
    }

    #[test]
    fn the_kept_tree_follows_the_game() {
        let mut bot = SearchBot::new(Recorder::new());
        let mut game = game();
        let Action::Move(first) = bot.select_move(&game) else {
            panic!("a move");
        };
        game.play(first).unwrap();
        let reply = game.legal_moves()[0];
        game.play(reply).unwrap();
        bot.select_move(&game);
        let runs = &bot.tree_search().runs;
        assert_eq!(runs[0].1, Path(vec![]));
        assert_eq!(runs[1].1, Path(vec![first, reply]), "re-rooted");
        assert_eq!(runs[1].0, Asked::Own(Purpose::Play { cleanup: false }));
        bot.reset();
        bot.select_move(&game);
        assert_eq!(bot.tree_search().runs[2].1, Path(vec![]), "forgotten");
    }

    #[test]
    fn resigns_on_a_streak_of_judged_searches_only() {
        let mut search = Recorder::new();
        search.lifecycle.resign = ResignRule {
            threshold: 0.1,
            consecutive: 2,
            min_moves_per_point: 0.0,
        };
        let lost = Some(Judgement {
            winrate: 0.01,
            trusted: true,
        });
        search.judgement = lost;
        let mut bot = SearchBot::new(search);
        let game = game();
        assert!(matches!(bot.select_move(&game), Action::Move(_)));
        // A move the search did not judge (a book move) leaves the streak.
        bot.tree_search_mut().judgement = None;
        assert!(matches!(bot.select_move(&game), Action::Move(_)));
        bot.tree_search_mut().judgement = lost;
        assert_eq!(bot.select_move(&game), Action::Resign);
        bot.reset();
        assert!(
            matches!(bot.select_move(&game), Action::Move(_)),
            "a new game"
        );
    }

    #[test]
    fn a_winning_count_answers_a_pass_without_a_search() {
        let mut search = Recorder::new();
        search.count_wins = true;
        let mut bot = SearchBot::new(search);
        let mut game = game();
        bot.select_move(&game);
        game.play(Move::Pass).unwrap();
        assert_eq!(bot.select_move(&game), Action::Move(Move::Pass));
        assert_eq!(bot.tree_search().runs.len(), 1, "no search for the pass");
        assert_eq!(bot.analysis(), None, "no analysis of a move not searched");
        // Cleaning up, the bot searches on.
        let mut request = SelectRequest::new().cleanup();
        assert!(matches!(bot.select(&game, &mut request), Action::Move(_)));
        assert_eq!(
            bot.tree_search().runs[1].0,
            Asked::Own(Purpose::Play { cleanup: true })
        );
    }

    #[test]
    fn pondering_keeps_the_analysis_of_the_move() {
        let mut bot = SearchBot::new(Recorder::new());
        let mut game = game();
        let Action::Move(mv) = bot.select_move(&game) else {
            panic!("a move");
        };
        game.play(mv).unwrap();
        bot.ponder(&game, &|| false);
        let runs = &bot.tree_search().runs;
        assert_eq!(runs[1].0, Asked::Time(Some(Duration::from_secs(1))));
        assert_eq!(runs[1].1, Path(vec![mv]), "pondered on the kept tree");
        assert_eq!(bot.analysis().unwrap().playouts, 1, "the move's analysis");
        // Without pondering, or without reuse, it does nothing.
        bot.tree_search_mut().lifecycle.ponder = None;
        bot.ponder(&game, &|| false);
        bot.tree_search_mut().lifecycle.ponder = Some(Duration::from_secs(1));
        bot.tree_search_mut().lifecycle.reuse = false;
        bot.ponder(&game, &|| false);
        assert_eq!(bot.tree_search().runs.len(), 2);
    }

    #[test]
    fn analysis_reports_until_stopped() {
        let mut bot = SearchBot::new(Recorder::new());
        let reports = Cell::new(0);
        let mut sink = |analysis: &Analysis| {
            assert_eq!(analysis.playouts, 1);
            reports.set(reports.get() + 1);
        };
        let stop = || reports.get() >= 3;
        let mut request = SelectRequest::new()
            .stop_when(&stop)
            .reporting(Duration::from_millis(1), &mut sink);
        assert!(bot.analyze(&game(), &mut request));
        assert_eq!(
            reports.get(),
            3,
            "the search's report, then the last one again"
        );
        assert_eq!(bot.tree_search().runs[0].0, Asked::Time(None));
    }
}
