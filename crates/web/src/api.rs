//! The routes: the page's files, `POST /select-move/{bot}`, `POST
//! /api/analyse/{bot}`, `POST /api/review`, `POST /api/score`, `POST
//! /api/sgf`, `GET /api/bots`, `GET /healthz`, and JSON errors for
//! everything else.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::rejection::{JsonRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, Method, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;
use tengen_bots::{BotSettings, BotSpec};
use tengen_core::SelectRequest;
use tengen_core::{Action, Agent, Analysis, Game};
use tengen_sgf::{date, write_game, GameInfo};

use crate::assets;
use crate::budget::{self, AppliedBudget};
use crate::error::ApiError;
use crate::katago;
use crate::request::GameRequest;
use crate::review::{self, ReviewAnswer, ReviewRequest};
use crate::score::{self, ScoreReport};
use crate::{AppState, SizeRange};

type Shared = State<Arc<AppState>>;
type Body = Result<Json<GameRequest>, JsonRejection>;

/// The whole application: routes, the body size limit, JSON fallbacks.
pub fn router(state: AppState) -> Router {
    let max_body = state.limits.max_body;
    Router::new()
        .route("/", get(assets::index))
        .route("/assets/{file}", get(assets::file))
        .route("/healthz", get(healthz))
        .route("/api/bots", get(bots))
        .route("/select-move/{bot}", post(select_move))
        .route("/api/analyse/{bot}", post(analyse))
        .route("/api/review", post(review_game))
        .route("/api/score", post(score_game))
        .route("/api/sgf", post(sgf))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(Arc::new(state))
}

async fn not_found(uri: Uri) -> ApiError {
    ApiError::NotFound(uri.path().to_string())
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::MethodNotAllowed {
        method: method.to_string(),
        path: uri.path().to_string(),
    }
}

#[derive(Serialize)]
struct Health {
    status: &'static str,
    version: &'static str,
}

async fn healthz() -> Json<Health> {
    Json(Health {
        status: "ok",
        version: env!("CARGO_PKG_VERSION"),
    })
}

#[derive(Serialize)]
struct BotListing {
    bots: Vec<BotEntry>,
    limits: LimitsView,
}

#[derive(Serialize)]
struct BotEntry {
    name: &'static str,
    description: &'static str,
    options: Vec<OptionEntry>,
    /// The square board sides it plays; `null` if they are not one range.
    sizes: Option<SizeRange>,
    /// Whether it analyses positions (`POST /api/analyse/{bot}`).
    analyses: bool,
}

#[derive(Serialize)]
struct OptionEntry {
    name: &'static str,
    default: String,
    values: String,
    help: &'static str,
    /// When the option applies (`playout=heavy`); absent: always.
    #[serde(skip_serializing_if = "Option::is_none")]
    applies: Option<&'static str>,
}

#[derive(Serialize)]
struct LimitsView {
    max_moves: usize,
    max_body_bytes: usize,
    max_playouts: u64,
    max_seconds: f64,
    max_threads: usize,
    max_memory_mib: u64,
}

async fn bots(State(state): Shared) -> Json<BotListing> {
    let limits = &state.limits;
    Json(BotListing {
        bots: state
            .offered()
            .map(|info| BotEntry {
                name: info.name,
                description: info.description,
                options: info
                    .options
                    .docs()
                    .into_iter()
                    .map(|option| OptionEntry {
                        name: option.name,
                        default: option.default,
                        values: option.values,
                        help: option.help,
                        applies: option.applies,
                    })
                    .collect(),
                sizes: state.sizes(info.name),
                analyses: state.analyses(info.name),
            })
            .collect(),
        limits: LimitsView {
            max_moves: limits.max_moves,
            max_body_bytes: limits.max_body,
            max_playouts: limits.max_playouts,
            max_seconds: limits.max_think.as_secs_f64(),
            max_threads: limits.max_threads,
            max_memory_mib: limits.max_memory_mib,
        },
    })
}

/// The answer of `POST /select-move/{bot}`, the book's shape.
#[derive(Debug, Serialize)]
struct SelectMoveResponse {
    bot_move: String,
    diagnostics: Diagnostics,
}

#[derive(Debug, Serialize)]
struct Diagnostics {
    /// The bot spec the move was chosen with, budget applied.
    bot: String,
    seed: u64,
    /// `black` or `white`: whom the bot played for.
    color: &'static str,
    think_ms: f64,
    budget: AppliedBudget,
    /// What a searching bot thought; `null` for bots that do not search.
    analysis: Option<AnalysisView>,
}

/// A search's view of a position. Every number is from the point of view
/// of the side to move (`perspective`): a win rate of 0.7 and a score lead
/// of 3.5 say that the player to move wins 70% of the time and leads by
/// 3.5 points.
#[derive(Debug, Serialize)]
struct AnalysisView {
    /// `black` or `white`: the side to move, whose view the numbers are.
    perspective: &'static str,
    playouts: u64,
    /// The side to move's estimated chance of winning, in 0..=1.
    winrate: f32,
    /// The side to move's expected lead in points; `null` when the bot does
    /// not estimate the score.
    #[serde(rename = "scoreLead")]
    score_lead: Option<f32>,
    candidates: Vec<CandidateView>,
    /// Black's expected ownership per point, rows from the top; empty when
    /// the bot does not estimate it.
    ownership: Vec<f32>,
}

#[derive(Debug, Serialize)]
struct CandidateView {
    #[serde(rename = "move")]
    mv: String,
    visits: u64,
    /// The side to move's win rate after this move.
    winrate: f32,
    /// The side to move's expected lead after this move; `null` when the
    /// bot does not estimate the score.
    #[serde(rename = "scoreLead")]
    score_lead: Option<f32>,
    prior: f32,
    pv: Vec<String>,
}

fn analysis_view(game: &Game, analysis: Analysis) -> AnalysisView {
    let size = game.size();
    // The root's own lead over every visit; a bot without root statistics
    // but with candidates' leads gives its first choice's.
    let score_lead = analysis
        .root
        .and_then(|root| root.score_lead)
        .or_else(|| analysis.candidates.first().and_then(|c| c.score_lead));
    AnalysisView {
        perspective: game.to_move().name(),
        playouts: analysis.playouts,
        winrate: analysis.winrate,
        score_lead,
        candidates: analysis
            .candidates
            .into_iter()
            .take(10)
            .map(|candidate| CandidateView {
                mv: size.gtp(candidate.mv),
                visits: candidate.visits,
                winrate: candidate.winrate,
                score_lead: candidate.score_lead,
                prior: candidate.prior,
                pv: candidate.pv.iter().map(|&mv| size.gtp(mv)).collect(),
            })
            .collect(),
        ownership: analysis.ownership,
    }
}

/// Tells a bot computation when nobody waits for it any more: its answer
/// deadline has passed, or the request was dropped (the client went away,
/// or the server already answered that the bot took too long).
#[derive(Clone, Debug)]
struct StopSignal {
    abandoned: Arc<AtomicBool>,
    deadline: Instant,
}

impl StopSignal {
    /// Whether the computation should stop now.
    fn is_set(&self) -> bool {
        self.abandoned.load(Ordering::Relaxed) || Instant::now() >= self.deadline
    }
}

/// Sets the flag when dropped: the request's future is dropped when its
/// client disconnects, and left when the answer is sent, so the bot hears
/// of both.
struct AbandonOnDrop(Arc<AtomicBool>);

impl Drop for AbandonOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `work` on a blocking thread holding one bot slot, within the time
/// cap. The slot is held by the thread until the work returns; the work is
/// given a [`StopSignal`] that is set at the cap (half the grace before the
/// answer is due) or as soon as the request is abandoned, and searching
/// bots stop on it (between simulations, or for the `katago` bot between
/// blocks of the network, in the middle of a batch), so an abandoned search
/// frees its slot, its cores and its memory at once.
async fn run_bot_work<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce(&StopSignal) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    run_bot_work_holding(state, None, work).await
}

/// [`run_bot_work`], holding `extra` (an analysis permit) as long as the slot.
async fn run_bot_work_holding<T: Send + 'static>(
    state: &AppState,
    extra: Option<tokio::sync::OwnedSemaphorePermit>,
    work: impl FnOnce(&StopSignal) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = state
        .slots
        .clone()
        .try_acquire_owned()
        .map_err(|_| ApiError::Busy(state.limits.max_concurrent))?;
    let timeout = state.limits.answer_timeout();
    let abandoned = Arc::new(AtomicBool::new(false));
    let _abandon = AbandonOnDrop(Arc::clone(&abandoned));
    // A search is stopped half the grace before the answer is due, so that
    // its best move so far still reaches the client.
    let signal = StopSignal {
        abandoned,
        deadline: Instant::now() + state.limits.max_think + state.limits.grace / 2,
    };
    let task = tokio::task::spawn_blocking(move || {
        let result = work(&signal);
        drop(permit);
        drop(extra);
        result
    });
    match tokio::time::timeout(timeout, task).await {
        Err(_) => Err(ApiError::Timeout(timeout)),
        Ok(Err(join)) => Err(ApiError::Internal(format!(
            "the bot's thread failed: {join}"
        ))),
        Ok(Ok(result)) => result,
    }
}

/// A request for a bot's work, read and checked: the bot's settings with
/// the budget applied, the server's network for `katago`, the game replayed.
struct BotJob {
    settings: Box<dyn BotSettings>,
    katago: Option<katago::KataGoModel>,
    applied: AppliedBudget,
    request: GameRequest,
    game: Game,
}

impl BotJob {
    /// Reads the bot of the path and the game of the body, every refusal
    /// as its [`ApiError`].
    fn read(
        state: &AppState,
        bot: Result<Path<String>, PathRejection>,
        body: Body,
    ) -> Result<BotJob, ApiError> {
        let Path(bot) = bot.map_err(|rejection| ApiError::BadBody {
            status: rejection.status(),
            message: rejection.body_text(),
        })?;
        let spec: BotSpec = bot.parse()?;
        // The server's own network for `katago` (a clear refusal when it has
        // none, or when the spec names options the server keeps to itself).
        let katago = if spec.name == katago::NAME {
            state.info(&spec)?;
            Some(state.katago.clone().expect("offered only with a network"))
        } else {
            None
        };
        let mut settings: Box<dyn BotSettings> = match &katago {
            Some(model) => Box::new(model.settings(&spec)?),
            None => {
                let info = state.info(&spec)?;
                refuse_files(&spec, info)?;
                (info.parse)(&spec.options)?
            }
        };
        let Json(request) = body?;
        let applied = budget::apply(settings.as_mut(), request.budget.as_ref(), &state.limits)?;
        let game = request.replay(&state.limits)?;
        if let Some(model) = &katago {
            model.fill_budget(settings.as_mut(), &state.limits);
        }
        Ok(BotJob {
            settings,
            katago,
            applied,
            request,
            game,
        })
    }

    /// Builds the bot, checking it plays the board's size.
    fn build(
        settings: &dyn BotSettings,
        katago: Option<&katago::KataGoModel>,
        seed: u64,
        size: tengen_core::BoardSize,
    ) -> Result<Box<dyn Agent + Send>, ApiError> {
        let bot = match katago {
            Some(model) => model.make_bot(settings, seed)?,
            None => settings.build(seed)?,
        };
        bot.plays_size(size)
            .map_err(|reason| tengen_bots::BotError::BoardSize {
                bot: settings.to_string(),
                reason,
            })?;
        Ok(bot)
    }
}

async fn select_move(
    State(state): Shared,
    bot: Result<Path<String>, PathRejection>,
    body: Body,
) -> Result<Json<SelectMoveResponse>, ApiError> {
    let BotJob {
        settings,
        katago,
        applied,
        request,
        game,
    } = BotJob::read(&state, bot, body)?;
    if game.is_over() {
        let why = if game.resigned().is_some() {
            "a player resigned"
        } else {
            "two passes in a row"
        };
        return Err(ApiError::GameOver(why));
    }
    let seed = request.seed.unwrap_or_else(tengen_bots::fresh_seed);
    let spec_text = settings.to_string();
    tracing::debug!(bot = %spec_text, moves = request.moves.len(), "select-move");
    let bot_text = spec_text.clone();
    let (bot_move, think_ms, analysis, color) = run_bot_work(&state, move |signal| {
        let mut bot = BotJob::build(settings.as_ref(), katago.as_ref(), seed, game.size())?;
        let start = Instant::now();
        let stop = || signal.is_set();
        let action = bot.select(&game, &mut SelectRequest::new().stop_when(&stop));
        let think_ms = start.elapsed().as_secs_f64() * 1000.0;
        let bot_move = match action {
            Action::Resign => "resign".to_string(),
            Action::Move(mv) => {
                // A bot is our own code, but a wrong move must not reach a
                // client as if it were legal.
                game.legal(mv).map_err(|reason| {
                    ApiError::Internal(format!(
                        "bot '{bot_text}' chose the illegal move {}: {reason}",
                        game.size().gtp(mv)
                    ))
                })?;
                game.size().gtp(mv)
            }
        };
        let analysis = bot
            .analysis()
            .map(|analysis| analysis_view(&game, analysis));
        Ok((bot_move, think_ms, analysis, game.to_move().name()))
    })
    .await?;
    Ok(Json(SelectMoveResponse {
        bot_move,
        diagnostics: Diagnostics {
            bot: spec_text,
            seed,
            color,
            think_ms,
            budget: applied,
            analysis,
        },
    }))
}

/// The answer of `POST /api/analyse/{bot}`: what the bot thinks of the
/// position after the moves, without playing.
#[derive(Debug, Serialize)]
struct AnalyseResponse {
    /// The bot spec the position was analysed with, budget applied.
    bot: String,
    seed: u64,
    think_ms: f64,
    budget: AppliedBudget,
    /// The visits (playouts) the analysis aimed at; `null` when it was
    /// bounded by time only.
    target_visits: Option<u64>,
    analysis: AnalysisView,
}

/// Visits of an analysis whose request and bot name no budget.
pub const DEFAULT_ANALYSIS_VISITS: u64 = 100;

/// How often a search reports while it analyses (the reports are where the
/// visits are counted).
const ANALYSIS_REPORT_INTERVAL: Duration = Duration::from_millis(5);

/// An analysis whose visits stop growing for this long has nothing left to
/// search (a full tree, a finished game): it ends there.
const ANALYSIS_STALL: Duration = Duration::from_secs(1);

/// `POST /api/analyse/{bot}`: the bot's analysis of the position after the
/// moves (after two passes, of the stones on the board with the same side
/// to move, the game going on), searched for the budget's playouts or
/// visits (else the bot's own, else [`DEFAULT_ANALYSIS_VISITS`]) or its
/// seconds, under the same slots, time cap and stop on disconnect as
/// select-move. Analyses hold at most [`crate::Limits::analysis_slots`]
/// slots, so that moves are never all kept waiting by reviews.
async fn analyse(
    State(state): Shared,
    bot: Result<Path<String>, PathRejection>,
    body: Body,
) -> Result<Json<AnalyseResponse>, ApiError> {
    let BotJob {
        settings,
        katago,
        applied,
        request,
        game,
    } = BotJob::read(&state, bot, body)?;
    if let Some(color) = game.resigned() {
        return Err(ApiError::GameOver(if color == tengen_core::Color::Black {
            "Black resigned"
        } else {
            "White resigned"
        }));
    }
    let held = settings.budget();
    let time = held.time.flatten();
    let target = match held.count {
        Some((_, Some(count))) => Some(count),
        _ if time.is_some() => None,
        _ => Some(DEFAULT_ANALYSIS_VISITS.min(state.limits.max_playouts)),
    };
    let analysis_permit = state
        .analysis_slots
        .clone()
        .try_acquire_owned()
        .map_err(|_| ApiError::AnalysesBusy(state.limits.analysis_slots()))?;
    let seed = request.seed.unwrap_or_else(tengen_bots::fresh_seed);
    let spec_text = settings.to_string();
    tracing::debug!(bot = %spec_text, moves = request.moves.len(), "analyse");
    let bot_text = spec_text.clone();
    let (analysis, think_ms) = run_bot_work_holding(&state, Some(analysis_permit), move |signal| {
        let mut bot = BotJob::build(settings.as_ref(), katago.as_ref(), seed, game.size())?;
        // After two passes the searches have nothing to explore: the
        // position on the board is analysed as a game going on, the same
        // side to move (as a search looks past a pass that ends the game).
        let game = game.going_on();
        let start = Instant::now();
        let enough = Cell::new(false);
        let mut last: Option<Analysis> = None;
        let mut grown = (0, Instant::now());
        let mut sink = |analysis: &Analysis| {
            let visits = analysis.playouts;
            if target.is_some_and(|target| visits >= target) {
                enough.set(true);
            }
            if visits != grown.0 {
                grown = (visits, Instant::now());
            } else if visits > 0 && grown.1.elapsed() >= ANALYSIS_STALL {
                enough.set(true);
            }
            last = Some(analysis.clone());
        };
        let stop =
            || enough.get() || signal.is_set() || time.is_some_and(|time| start.elapsed() >= time);
        let mut select = SelectRequest::new()
            .stop_when(&stop)
            .reporting(ANALYSIS_REPORT_INTERVAL, &mut sink);
        if !bot.analyze(&game, &mut select) {
            return Err(ApiError::NoAnalysis(bot_text));
        }
        drop(select);
        let think_ms = start.elapsed().as_secs_f64() * 1000.0;
        let analysis = bot
            .analysis()
            .or(last)
            .ok_or_else(|| ApiError::NoAnalysis(bot_text.clone()))?;
        Ok((analysis_view(&game, analysis), think_ms))
    })
    .await?;
    Ok(Json(AnalyseResponse {
        bot: spec_text,
        seed,
        think_ms,
        budget: applied,
        target_visits: target,
        analysis,
    }))
}

/// `POST /api/review`: the losses and mistakes of a game by the analyses
/// the page holds (see [`review`]).
async fn review_game(
    State(state): Shared,
    body: Result<Json<ReviewRequest>, JsonRejection>,
) -> Result<Json<ReviewAnswer>, ApiError> {
    let Json(request) = body?;
    Ok(Json(review::review(&request, &state.limits)?))
}

async fn score_game(State(state): Shared, body: Body) -> Result<Json<ScoreReport>, ApiError> {
    let Json(request) = body?;
    let game = request.replay(&state.limits)?;
    let dead = request.dead_stones(&game)?;
    let report = run_bot_work(&state, move |_| Ok(score::score(&game, dead))).await?;
    Ok(Json(report))
}

async fn sgf(State(state): Shared, body: Body) -> Result<Response, ApiError> {
    let Json(request) = body?;
    let game = request.replay(&state.limits)?;
    let dead = request.dead_stones(&game)?;
    let names = request.players.clone().unwrap_or_default();
    let text = run_bot_work(&state, move |_| {
        let result = if game.is_over() {
            Some(score::score(&game, dead).result)
        } else {
            None
        };
        let info = GameInfo {
            black_name: names.black,
            white_name: names.white,
            result,
            date: Some(date::today()),
            comment: None,
            event: None,
        };
        Ok(write_game(&game, &info))
    })
    .await?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-go-sgf; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"tengen.sgf\"",
            ),
        ],
        text,
    )
        .into_response())
}

/// Moves as GTP text, for tests and tools that build requests.
pub fn moves_text(game: &Game) -> Vec<String> {
    let size = game.size();
    game.history()
        .map(|(_, action)| match action {
            Action::Move(mv) => size.gtp(mv),
            Action::Resign => "resign".to_string(),
        })
        .collect()
}

/// Refuses a file by path in the spec's file options: a client must not make
/// the server open files by name, so only the files compiled into the binary
/// (`builtin`) or none are served.
fn refuse_files(spec: &BotSpec, info: &tengen_bots::BotInfo) -> Result<(), ApiError> {
    for option in info.options.docs() {
        let Some(words) = option.file_words else {
            continue;
        };
        if let Some(value) = spec.get(option.name) {
            if !words.contains(&value) {
                return Err(ApiError::OptionRefused(format!(
                    "bot option {}={value}: the server plays only {}",
                    option.name,
                    words
                        .iter()
                        .map(|word| format!("{}={word}", option.name))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )));
            }
        }
    }
    Ok(())
}
