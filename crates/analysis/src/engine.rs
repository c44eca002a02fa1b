//! The engine: reads queries, queues their positions by priority, searches
//! them on several threads whose evaluations share the network's batches,
//! and writes each position's responses as they come (out of order across
//! positions). Every analysed position ends with exactly one final
//! response, or `noResults` when it was terminated before any visit.

use std::collections::hash_map::DefaultHasher;
use std::collections::BinaryHeap;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::Duration;

use tengen_core::{Color, Game, MoveFilter};
use tengen_katago::network::{Network, MAX_BOARD_SIDE};
use tengen_puct::batching::SharedBatches;
use tengen_puct::cache::{CachedEvaluator, EvaluationCache};
use tengen_puct::katago::{KataGoEvalSettings, KataGoEvaluator};
use tengen_puct::{AnalyseRequest, DetailedReport, PuctSearch};

use crate::query::QueryError;
use crate::query::{self, Action, ActionRequest, Include, Query, Request};
use crate::response::{ActionAnswer, Context, PositionResponse, Response};
use crate::settings::{EngineSettings, SearchSettings};

/// The KataGo release whose analysis protocol tengen speaks: the
/// `version` of `query_version` (clients compare it with the least
/// version they need).
pub const PROTOCOL_VERSION: &str = "1.17.2";

/// A function that receives each response.
pub type ResponseHandler = Box<dyn Fn(Response) + Send + Sync>;

/// Where responses go: one line each, whole, flushed at once, or to a
/// function of a program that runs the engine inside itself.
pub struct Output {
    sink: Mutex<Box<dyn Write + Send>>,
    handler: Option<ResponseHandler>,
    broken: AtomicBool,
}

impl Output {
    /// Responses written to `sink`.
    pub fn new(sink: Box<dyn Write + Send>) -> Output {
        Output {
            sink: Mutex::new(sink),
            handler: None,
            broken: AtomicBool::new(false),
        }
    }

    /// Responses given to `handler` as typed values, on the thread that
    /// made them.
    pub fn to_handler(handler: ResponseHandler) -> Output {
        Output {
            sink: Mutex::new(Box::new(std::io::sink())),
            handler: Some(handler),
            broken: AtomicBool::new(false),
        }
    }

    /// Writes one response, as a line of JSON or to the handler. A closed
    /// output (the client went away) is remembered and further responses
    /// dropped.
    pub fn send(&self, response: Response) {
        if let Some(handler) = &self.handler {
            handler(response);
            return;
        }
        let mut line = response.to_json().to_string();
        line.push('\n');
        let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        if self.broken.load(Ordering::Relaxed) {
            return;
        }
        if sink
            .write_all(line.as_bytes())
            .and_then(|()| sink.flush())
            .is_err()
        {
            self.broken.store(true, Ordering::Relaxed);
        }
    }
}

/// What the searches of one query share.
struct QueryShared {
    id: String,
    settings: SearchSettings,
    include: Include,
    filters: Vec<MoveFilter>,
    report_every: Option<Duration>,
    first_report: Option<Duration>,
}

/// One position waiting or being searched.
struct Task {
    priority: i64,
    sequence: u64,
    turn: usize,
    game: Game,
    query: Arc<QueryShared>,
    stop: Arc<AtomicBool>,
}

impl PartialEq for Task {
    fn eq(&self, other: &Self) -> bool {
        self.priority == other.priority && self.sequence == other.sequence
    }
}

impl Eq for Task {}

impl PartialOrd for Task {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Task {
    /// The highest priority first; among equals the earliest.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.priority
            .cmp(&other.priority)
            .then(other.sequence.cmp(&self.sequence))
    }
}

/// The queue and what is running.
#[derive(Default)]
struct Schedule {
    waiting: BinaryHeap<Task>,
    /// Query id, turn and stop flag of each running search.
    running: Vec<(String, usize, Arc<AtomicBool>)>,
    next_sequence: u64,
    closing: bool,
}

/// The analysis threads of a started engine.
pub struct Workers {
    engine: Arc<Engine>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Workers {
    /// Lets the threads finish the queued work, then waits for them.
    pub fn finish(self) {
        self.engine.lock().closing = true;
        self.engine.changed.notify_all();
        for thread in self.threads {
            let _ = thread.join();
        }
    }
}

/// The analysis engine.
pub struct Engine {
    settings: EngineSettings,
    model_file: String,
    batches: Arc<SharedBatches>,
    cache: Arc<EvaluationCache>,
    output: Arc<Output>,
    schedule: Mutex<Schedule>,
    changed: Condvar,
    searches: AtomicUsize,
}

impl Engine {
    /// An engine over `network` (read from `model_path`) writing to `output`.
    pub fn new(
        settings: EngineSettings,
        network: Arc<Network>,
        model_path: &Path,
        output: Arc<Output>,
    ) -> Arc<Engine> {
        let cache_size = if settings.cache_power == 0 {
            0
        } else {
            // Two generations of half the size each.
            (1usize << settings.cache_power) / 2
        };
        Arc::new(Engine {
            batches: Arc::new(SharedBatches::new(network, settings.max_batch)),
            cache: Arc::new(EvaluationCache::new(cache_size)),
            model_file: model_path.file_name().map_or_else(
                || model_path.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ),
            settings,
            output,
            schedule: Mutex::new(Schedule::default()),
            changed: Condvar::new(),
            searches: AtomicUsize::new(0),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Schedule> {
        self.schedule.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts the analysis threads; they search what is submitted until
    /// [`Workers::finish`].
    pub fn start(self: &Arc<Self>) -> Workers {
        let threads = (0..self.settings.analysis_threads.max(1))
            .map(|i| {
                let engine = Arc::clone(self);
                std::thread::Builder::new()
                    .name(format!("analysis-{i}"))
                    .spawn(move || engine.work())
                    .expect("an analysis thread")
            })
            .collect();
        Workers {
            engine: Arc::clone(self),
            threads,
        }
    }

    /// Serves every line of `input` until it ends, then finishes the
    /// queued work (or, with `quit_without_waiting`, ends it) and returns.
    pub fn serve(self: &Arc<Self>, input: impl BufRead, quit_without_waiting: bool) {
        let workers = self.start();
        for line in input.lines() {
            let Ok(line) = line else {
                // Not UTF-8, or the input broke: KataGo's general error.
                self.output.send(Response::Error(QueryError {
                    id: None,
                    field: None,
                    message: "could not read the line as UTF-8 text".to_string(),
                }));
                continue;
            };
            self.handle_line(&line);
        }
        if quit_without_waiting {
            self.terminate(None, None);
        }
        workers.finish();
    }

    /// Queues the positions of a query built in the program rather than
    /// read from a line; its responses go to the output as any query's.
    pub fn submit(&self, query: Query) {
        self.enqueue(query);
    }

    /// Stops the searches of query `id` (they answer with what they have)
    /// and drops its waiting positions (they answer `noResults`).
    pub fn cancel(&self, id: &str) {
        self.terminate(Some(id), None);
    }

    /// Handles one query line.
    pub fn handle_line(&self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        match query::parse(line, &self.settings, MAX_BOARD_SIDE) {
            Err(error) => self.output.send(Response::Error(error)),
            Ok(Request::Action(action)) => self.act(action),
            Ok(Request::Analyze(query)) => self.enqueue(*query),
        }
    }

    fn act(&self, request: ActionRequest) {
        let answer = match request.action {
            Action::QueryVersion => ActionAnswer::Version {
                protocol: PROTOCOL_VERSION,
                engine_version: env!("CARGO_PKG_VERSION"),
            },
            Action::ClearCache => {
                self.cache.clear();
                ActionAnswer::Done
            }
            Action::QueryModels => {
                let network = self.batches.network();
                let model = network.model();
                ActionAnswer::Models {
                    file: self.model_file.clone(),
                    internal_name: model.name.clone(),
                    max_batch: self.settings.max_batch,
                    version: model.version,
                }
            }
            Action::Terminate { id, turns } => {
                self.terminate(id.as_deref(), turns.as_deref());
                ActionAnswer::Done
            }
        };
        self.output.send(Response::Action {
            echo: request.echo,
            answer,
        });
    }

    /// Stops the matching searches (they answer with what they have) and
    /// drops the matching waiting positions (they answer `noResults`).
    fn terminate(&self, id: Option<&str>, turns: Option<&[usize]>) {
        let matches = |query: &str, turn: usize| {
            id.is_none_or(|id| id == query) && turns.is_none_or(|turns| turns.contains(&turn))
        };
        let dropped: Vec<Task> = {
            let mut schedule = self.lock();
            for (query, turn, stop) in &schedule.running {
                if matches(query, *turn) {
                    stop.store(true, Ordering::Relaxed);
                }
            }
            let (dropped, kept): (Vec<Task>, Vec<Task>) = std::mem::take(&mut schedule.waiting)
                .into_vec()
                .into_iter()
                .partition(|task| matches(&task.query.id, task.turn));
            schedule.waiting = kept.into();
            dropped
        };
        let mut dropped = dropped;
        dropped.sort_by_key(|t| t.sequence);
        for task in dropped {
            self.output.send(Response::NoResults {
                id: task.query.id.clone(),
                turn: task.turn,
            });
        }
    }

    fn enqueue(&self, query: Query) {
        for warning in &query.warnings {
            self.output.send(Response::Warning {
                id: query.id.clone(),
                warning: warning.clone(),
            });
        }
        let shared = Arc::new(QueryShared {
            id: query.id,
            settings: query.settings,
            include: query.include,
            filters: query.filters,
            report_every: query.report_every,
            first_report: query.first_report,
        });
        let mut schedule = self.lock();
        for position in query.positions {
            let sequence = schedule.next_sequence;
            schedule.next_sequence += 1;
            schedule.waiting.push(Task {
                priority: position.priority,
                sequence,
                turn: position.turn,
                game: position.game,
                query: Arc::clone(&shared),
                stop: Arc::new(AtomicBool::new(false)),
            });
        }
        drop(schedule);
        self.changed.notify_all();
    }

    /// A worker: searches the waiting positions, the most urgent first,
    /// until the input has ended and nothing waits.
    fn work(&self) {
        loop {
            let task = {
                let mut schedule = self.lock();
                loop {
                    if let Some(task) = schedule.waiting.pop() {
                        schedule.running.push((
                            task.query.id.clone(),
                            task.turn,
                            Arc::clone(&task.stop),
                        ));
                        break task;
                    }
                    if schedule.closing {
                        return;
                    }
                    schedule = self
                        .changed
                        .wait(schedule)
                        .unwrap_or_else(|e| e.into_inner());
                }
            };
            self.search(&task);
            let mut schedule = self.lock();
            schedule
                .running
                .retain(|(_, _, stop)| !Arc::ptr_eq(stop, &task.stop));
        }
    }

    /// Searches one position and sends its responses.
    fn search(&self, task: &Task) {
        let query = &*task.query;
        let game = &task.game.clone().going_on();
        if task.stop.load(Ordering::Relaxed) {
            self.output.send(Response::NoResults {
                id: query.id.clone(),
                turn: task.turn,
            });
            return;
        }
        let search_number = self.searches.fetch_add(1, Ordering::Relaxed) as u64;
        let settings = &query.settings;
        let eval = KataGoEvalSettings {
            seed: tengen_core::stream_seed(self.settings.seed, search_number),
            fixed_symmetry: (!self.settings.nn_randomize).then_some(0),
            playout_doubling_advantage: (settings.playout_doubling_advantage != 0.0).then_some((
                settings.playout_doubling_player.unwrap_or(game.to_move()),
                settings.playout_doubling_advantage,
            )),
            history_from: settings
                .ignore_pre_root_history
                .then_some(game.turn_count()),
            ..settings.eval
        };
        let salt = {
            let mut hasher = DefaultHasher::new();
            eval.root_policy_optimism.to_bits().hash(&mut hasher);
            eval.policy_optimism.to_bits().hash(&mut hasher);
            eval.fixed_symmetry.hash(&mut hasher);
            eval.playout_doubling_advantage
                .map(|(c, p)| (c == Color::Black, p.to_bits()))
                .hash(&mut hasher);
            eval.history_from.hash(&mut hasher);
            eval.passing_hacks.hash(&mut hasher);
            hasher.finish()
        };
        let evaluator = CachedEvaluator::sharing(
            KataGoEvaluator::shared(Arc::clone(&self.batches), eval),
            Arc::clone(&self.cache),
            salt,
        );
        let mut config = settings.puct.clone();
        config.exploration.noise_seed = eval.seed;
        let mut bot = PuctSearch::new(config, evaluator).into_bot();
        let context = Context {
            id: &query.id,
            turn: task.turn,
            game,
            include: query.include,
            report_as: settings.report_as,
            pv_len: settings.pv_len,
        };
        let stop = || task.stop.load(Ordering::Relaxed);
        // The first report after `firstReportDuringSearchAfter` (by default
        // one interval), the rest every interval.
        let started = std::time::Instant::now();
        let first = query
            .first_report
            .or(query.report_every)
            .unwrap_or_default();
        let mut during = |analysis: &tengen_puct::PuctAnalysis| {
            if analysis.visits > 0 && started.elapsed() >= first {
                let response = PositionResponse::new(analysis, &context, true);
                self.output.send(Response::Analysis(Box::new(response)));
            }
        };
        let analysis = bot.analyse(
            game,
            AnalyseRequest {
                stop: &stop,
                filters: &query.filters,
                detail: query.include.detail(),
                report: query.report_every.map(|interval| DetailedReport {
                    interval,
                    sink: &mut during,
                }),
            },
        );
        match analysis {
            Some(analysis) if analysis.visits > 0 => {
                let response = PositionResponse::new(&analysis, &context, false);
                self.output.send(Response::Analysis(Box::new(response)));
            }
            _ => {
                if let Some(error) = bot.last_search().and_then(|s| s.error.clone()) {
                    if !stop() {
                        self.output.send(Response::SearchFailed {
                            id: query.id.clone(),
                            turn: task.turn,
                            message: error.to_string(),
                        });
                        return;
                    }
                }
                self.output.send(Response::NoResults {
                    id: query.id.clone(),
                    turn: task.turn,
                });
            }
        }
    }

    /// Forward passes so far and the positions they held.
    pub fn batches_and_positions(&self) -> (u64, u64) {
        self.batches.batches_and_positions()
    }
}
