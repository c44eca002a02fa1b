//! Every position of a game analysed by the analysis engine, inside this
//! process: a game is one query of all its turns, so its positions share
//! the network's batches with each other and with the other games under
//! way.

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use serde_json::{Map, Value};
use tengen_analysis::query::{Include, Position, Query};
use tengen_analysis::settings::{ReportAs, SearchSettings};
use tengen_analysis::{Engine, EngineSettings, Output, Workers};
use tengen_core::{BoardSize, Color, Game, Move};
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

/// One candidate move of a position, values from Black's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct CandidateAnalysis {
    /// The move.
    pub mv: Move,
    /// Visits it got.
    pub visits: u64,
    /// Black's win rate after it, 0 to 1.
    pub winrate: f64,
    /// Black's lead in points after it.
    pub score_lead: f64,
    /// The network's prior for it.
    pub prior: f64,
    /// The principal variation, starting with the move.
    pub pv: Vec<Move>,
}

/// The analysis of one position, values from Black's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionAnalysis {
    /// The turn: moves played before the position.
    pub turn: usize,
    /// Who is to move.
    pub to_move: Color,
    /// Visits of the root.
    pub visits: u64,
    /// Black's win rate, 0 to 1.
    pub winrate: f64,
    /// Black's lead in points.
    pub score_lead: f64,
    /// The candidates, the best first.
    pub candidates: Vec<CandidateAnalysis>,
    /// The engine's whole response (KataGo's format, Black's point of view,
    /// with ownership and policy), for the records that keep it.
    pub response: Map<String, Value>,
}

/// What a running query waits for.
type Waiting = Arc<Mutex<HashMap<String, Sender<Value>>>>;

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
        settings.search.puct.visits = Some(options.visits.max(1));
        settings.search.report_as = ReportAs::Black;
        let waiting: Waiting = Arc::default();
        let handler_waiting = Arc::clone(&waiting);
        let output = Arc::new(Output::to_handler(Box::new(move |value: Value| {
            let id = value.get("id").and_then(Value::as_str).map(str::to_string);
            let waiting = handler_waiting.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(sender) = id.and_then(|id| waiting.get(&id)) {
                let _ = sender.send(value);
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
    /// move; `done` is called after each position with the number done so
    /// far.
    pub fn analyse(
        &self,
        game: &Game,
        done: &mut dyn FnMut(usize),
    ) -> Result<Vec<PositionAnalysis>, ReviewError> {
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
        let result = collect(&receiver, game.size(), count, done);
        self.lock_waiting().remove(&id);
        if result.is_err() {
            self.engine.cancel(&id);
        }
        result
    }

    fn lock_waiting(&self) -> std::sync::MutexGuard<'_, HashMap<String, Sender<Value>>> {
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
    receiver: &Receiver<Value>,
    size: BoardSize,
    count: usize,
    done: &mut dyn FnMut(usize),
) -> Result<Vec<PositionAnalysis>, ReviewError> {
    let mut found: Vec<Option<PositionAnalysis>> = vec![None; count];
    let mut finished = 0;
    while finished < count {
        let Ok(value) = receiver.recv() else {
            return Err(ReviewError::Engine {
                turn: None,
                message: "the analysis engine stopped".to_string(),
            });
        };
        let turn = value
            .get("turnNumber")
            .and_then(Value::as_u64)
            .map(|t| t as usize);
        if let Some(message) = value.get("error").and_then(Value::as_str) {
            return Err(ReviewError::Engine {
                turn,
                message: message.to_string(),
            });
        }
        if value.get("warning").is_some()
            || value.get("isDuringSearch").and_then(Value::as_bool) != Some(false)
        {
            continue;
        }
        let Some(turn) = turn.filter(|&t| t < count) else {
            continue;
        };
        if value.get("noResults").and_then(Value::as_bool) == Some(true) {
            return Err(ReviewError::Engine {
                turn: Some(turn),
                message: "the search ended before any visit".to_string(),
            });
        }
        let Value::Object(response) = value else {
            continue;
        };
        let analysis =
            read_response(size, turn, response).map_err(|message| ReviewError::Engine {
                turn: Some(turn),
                message,
            })?;
        if found[turn].replace(analysis).is_none() {
            finished += 1;
            done(finished);
        }
    }
    Ok(found.into_iter().flatten().collect())
}

fn number(object: &Map<String, Value>, key: &str) -> Result<f64, String> {
    object
        .get(key)
        .and_then(Value::as_f64)
        .ok_or_else(|| format!("the response has no number {key}"))
}

fn read_response(
    size: BoardSize,
    turn: usize,
    response: Map<String, Value>,
) -> Result<PositionAnalysis, String> {
    let root = response
        .get("rootInfo")
        .and_then(Value::as_object)
        .ok_or("the response has no rootInfo")?;
    let to_move = match root.get("currentPlayer").and_then(Value::as_str) {
        Some("W") => Color::White,
        _ => Color::Black,
    };
    let mut candidates = Vec::new();
    for info in response
        .get("moveInfos")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let Some(info) = info.as_object() else {
            continue;
        };
        let parse = |text: &str| {
            size.parse_gtp(text)
                .map_err(|e| format!("move {text}: {e}"))
        };
        let mv = parse(info.get("move").and_then(Value::as_str).unwrap_or(""))?;
        let pv = info
            .get("pv")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(parse)
            .collect::<Result<Vec<_>, _>>()?;
        candidates.push(CandidateAnalysis {
            mv,
            visits: number(info, "visits")? as u64,
            winrate: number(info, "winrate")?,
            score_lead: number(info, "scoreLead")?,
            prior: number(info, "prior")?,
            pv,
        });
    }
    Ok(PositionAnalysis {
        turn,
        to_move,
        visits: number(root, "visits")? as u64,
        winrate: number(root, "winrate")?,
        score_lead: number(root, "scoreLead")?,
        candidates,
        response,
    })
}
