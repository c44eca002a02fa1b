//! Every position of a game analysed by the analysis engine, inside this
//! process: a game is one query of all its turns, so its positions share
//! the network's batches with each other and with the other games under
//! way.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use tengen_analysis::query::{Include, Position, Query};
use tengen_analysis::settings::{ReportAs, SearchSettings};
use tengen_analysis::{Engine, EngineSettings, Output, PositionResponse, Response, Workers};
use tengen_core::Game;
use tengen_katago::network::Network;

use crate::error::ReviewError;

/// How the positions are searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnalyserOptions {
    /// Visits a position.
    pub visits: u64,
    /// Positions searched at once (their evaluations share batches). With
    /// one, every forward pass holds one search's positions and a review
    /// is the same byte for byte on every run, beside any other record.
    pub positions_at_once: usize,
    /// Most positions in one forward pass of the network.
    pub max_batch: usize,
    /// Threads of the network's forward pass.
    pub nn_threads: usize,
}

impl Default for AnalyserOptions {
    fn default() -> Self {
        AnalyserOptions {
            visits: 100,
            positions_at_once: 8,
            max_batch: 32,
            nn_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

/// What a running query waits for.
type Waiting = Arc<Mutex<HashMap<String, Sender<Response>>>>;

/// An analysis engine inside this process that analyses whole games; it
/// may be shared by threads, each analysing a game.
pub struct Analyser {
    engine: Arc<Engine>,
    workers: Option<Workers>,
    waiting: Waiting,
    next_id: AtomicU64,
    options: AnalyserOptions,
    /// The search settings of every query: the engine's own.
    search: SearchSettings,
}

impl Analyser {
    /// An analyser over `network`, read from `model_path`.
    pub fn new(network: Arc<Network>, model_path: &Path, options: AnalyserOptions) -> Analyser {
        let mut settings = EngineSettings {
            analysis_threads: options.positions_at_once.max(1),
            nn_threads: options.nn_threads.max(1),
            max_batch: options.max_batch.max(1),
            // Fixed symmetry: a record reviewed twice, or on another
            // machine of a cluster, gets the same numbers (exactly so when
            // positions are searched one at a time: a forward pass shared
            // between searches changes the outputs in their last bits).
            nn_randomize: false,
            cache_power: 16,
            ..EngineSettings::default()
        };
        settings.search.puct.limits.visits = Some(options.visits.max(1));
        settings.search.report_as = ReportAs::Black;
        let waiting: Waiting = Arc::default();
        let handler_waiting = Arc::clone(&waiting);
        let output = Arc::new(Output::to_handler(Box::new(move |response: Response| {
            let waiting = handler_waiting.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(sender) = response.id().and_then(|id| waiting.get(id)) {
                let _ = sender.send(response);
            }
        })));
        let search = settings.search.clone();
        let engine = Engine::new(settings, network, model_path, output);
        let workers = engine.start();
        Analyser {
            engine,
            workers: Some(workers),
            waiting,
            next_id: AtomicU64::new(0),
            options,
            search,
        }
    }

    /// The options it runs with.
    pub fn options(&self) -> AnalyserOptions {
        self.options
    }

    /// Analyses every position of `game`, from its start to after its last
    /// move, values from Black's point of view; `done` is called after each
    /// position with the number done so far.
    pub fn analyse(
        &self,
        game: &Game,
        done: &mut dyn FnMut(usize),
    ) -> Result<Vec<PositionResponse>, ReviewError> {
        let games = positions(game)?;
        let count = games.len();
        let id = format!("review-{}", self.next_id.fetch_add(1, Ordering::Relaxed));
        let (sender, receiver) = mpsc::channel();
        self.lock_waiting().insert(id.clone(), sender);
        self.engine.submit(Query {
            id: id.clone(),
            positions: games
                .into_iter()
                .enumerate()
                .map(|(turn, game)| Position {
                    turn,
                    // The earlier turns first, so a game's review fills
                    // in from its start.
                    priority: -(turn as i64),
                    game,
                })
                .collect(),
            settings: self.search.clone(),
            include: Include {
                ownership: true,
                policy: true,
                ..Include::default()
            },
            filters: Vec::new(),
            report_every: None,
            first_report: None,
            warnings: Vec::new(),
        });
        let result = collect(&receiver, count, done);
        self.lock_waiting().remove(&id);
        if result.is_err() {
            self.engine.cancel(&id);
        }
        result
    }

    fn lock_waiting(&self) -> std::sync::MutexGuard<'_, HashMap<String, Sender<Response>>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Analyser {
    fn drop(&mut self) {
        if let Some(workers) = self.workers.take() {
            workers.finish();
        }
    }
}

/// The game at each of its turns, from its start (the moves before a
/// restart of its history are not its turns). A game that goes on after
/// two passes goes on here too.
pub fn positions(game: &Game) -> Result<Vec<Game>, ReviewError> {
    let moves = game.moves();
    if moves.is_empty() {
        return Err(ReviewError::NoMoves);
    }
    let mut games = Vec::with_capacity(moves.len() + 1);
    game.start()
        .replay(&moves, |_, position| games.push(position.clone()))
        .map_err(|e| ReviewError::IllegalMove {
            number: e.index + 1,
            mv: format!("{} {}", e.color.letter(), game.size().gtp(e.mv)),
            reason: e.reason.to_string(),
        })?;
    Ok(games)
}

/// Waits for the final response of every turn.
fn collect(
    receiver: &Receiver<Response>,
    count: usize,
    done: &mut dyn FnMut(usize),
) -> Result<Vec<PositionResponse>, ReviewError> {
    let mut found: Vec<Option<PositionResponse>> = vec![None; count];
    let mut finished = 0;
    while finished < count {
        let Ok(response) = receiver.recv() else {
            return Err(ReviewError::Engine {
                turn: None,
                message: "the analysis engine stopped".to_string(),
            });
        };
        let position = match response {
            Response::Analysis(position) if !position.during_search => position,
            Response::Error(error) => {
                return Err(ReviewError::Engine {
                    turn: None,
                    message: error.message,
                })
            }
            Response::SearchFailed { turn, message, .. } => {
                return Err(ReviewError::Engine {
                    turn: Some(turn),
                    message,
                })
            }
            Response::NoResults { turn, .. } if turn < count => {
                return Err(ReviewError::Engine {
                    turn: Some(turn),
                    message: "the search ended before any visit".to_string(),
                })
            }
            _ => continue,
        };
        let turn = position.turn;
        if turn < count && found[turn].replace(*position).is_none() {
            finished += 1;
            done(finished);
        }
    }
    Ok(found.into_iter().flatten().collect())
}
