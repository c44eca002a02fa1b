//! Every way a request can fail, each with its HTTP status and a message
//! that tells the client what to change.

use std::time::Duration;

use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use tengen_bots::BotError;
use tengen_core::IllegalMove;
use thiserror::Error;

/// Why an API request was refused. Every variant becomes a JSON body
/// `{"error": "..."}` (plus `"index"` for a bad move) with the status of
/// [`ApiError::status`]; none is a server fault except [`ApiError::Internal`].
#[derive(Debug, Error)]
pub enum ApiError {
    /// The body could not be read as the JSON the endpoint expects: wrong
    /// content type, too large, a syntax error, a missing or mistyped field.
    #[error("{message}")]
    BadBody {
        /// The status axum chose for the rejection (400, 413, 415 or 422).
        status: StatusCode,
        /// axum's explanation.
        message: String,
    },
    /// A review's analyses do not fit its game (`POST /api/review`).
    #[error("analyses: {0}")]
    BadAnalysis(String),
    /// `board_size` is outside what the rules core supports.
    #[error("board_size {0} is out of range: it must be between 1 and {max}", max = tengen_core::MAX_SIDE)]
    BoardSize(u64),
    /// The `rules` text did not parse.
    #[error("{0}")]
    Rules(tengen_core::RulesError),
    /// `komi` is not a sensible number.
    #[error("komi {0} is out of range: it must be between -1000 and 1000")]
    Komi(f64),
    /// The handicap or setup stones cannot be placed.
    #[error("{0}")]
    Setup(String),
    /// More moves than the server replays.
    #[error("the move list has {count} moves; at most {max} are accepted")]
    TooManyMoves {
        /// Moves sent.
        count: usize,
        /// The server's limit.
        max: usize,
    },
    /// A move of the list is not a vertex of this board, or is illegal where
    /// it stands.
    #[error("moves[{index}] = '{text}': {reason}")]
    BadMove {
        /// Its position in the list, from 0.
        index: usize,
        /// The move as sent.
        text: String,
        /// Why it cannot be played.
        reason: String,
    },
    /// The game has ended (two passes or a resignation): no move to choose.
    #[error("the game is already over ({0}); there is no move to choose")]
    GameOver(&'static str),
    /// A dead-stone list names something other than a stone.
    #[error("dead[{index}] = '{text}': {reason}")]
    BadDeadStone {
        /// Its position in the list, from 0.
        index: usize,
        /// The vertex as sent.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The thinking budget or a bot setting asks for more than the server
    /// allows, or is not a positive number.
    #[error("{0}")]
    Budget(String),
    /// The bot spec is malformed or names an unknown option or value.
    #[error("{0}")]
    BotSpec(BotError),
    /// No bot has this name.
    #[error("{0}")]
    UnknownBot(BotError),
    /// The bot exists but this server does not offer it (the `katago` bot
    /// of a server started without a network).
    #[error("{0}")]
    BotNotOffered(String),
    /// A bot option the server does not let clients set (a model file, the
    /// network's threads).
    #[error("{0}")]
    OptionRefused(String),
    /// No such page or endpoint.
    #[error("no such endpoint: {0}")]
    NotFound(String),
    /// The endpoint exists but not with this method.
    #[error("method {method} is not allowed on {path}")]
    MethodNotAllowed {
        /// The method used.
        method: String,
        /// The path asked for.
        path: String,
    },
    /// The bot cannot analyse a position (it does not search).
    #[error("bot '{0}' cannot analyse a position: it reports no analysis (choose a searching bot such as mcts or katago)")]
    NoAnalysis(String),
    /// Every slot analyses may hold is busy; moves may still be asked for.
    #[error("the server is busy analysing: all {0} analysis slots are in use, try again shortly")]
    AnalysesBusy(usize),
    /// Every bot slot is busy; try again shortly.
    #[error("the server is busy: all {0} bot slots are in use, try again shortly")]
    Busy(usize),
    /// The bot did not answer within the server's time cap.
    #[error("the bot did not answer within {:.1} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// A bug: the bot's thread failed.
    #[error("internal error: {0}")]
    Internal(String),
}

impl ApiError {
    /// The HTTP status this error is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            ApiError::BadBody { status, .. } => *status,
            ApiError::UnknownBot(_) | ApiError::BotNotOffered(_) | ApiError::NotFound(_) => {
                StatusCode::NOT_FOUND
            }
            ApiError::MethodNotAllowed { .. } => StatusCode::METHOD_NOT_ALLOWED,
            ApiError::TooManyMoves { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ApiError::NoAnalysis(_) => StatusCode::UNPROCESSABLE_ENTITY,
            ApiError::Busy(_) | ApiError::AnalysesBusy(_) | ApiError::Timeout(_) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            ApiError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
            _ => StatusCode::BAD_REQUEST,
        }
    }

    /// A move of the list that is illegal where it stands.
    pub fn illegal_move(index: usize, text: &str, reason: IllegalMove) -> ApiError {
        ApiError::BadMove {
            index,
            text: text.to_string(),
            reason: format!("illegal move: {reason}"),
        }
    }
}

impl From<JsonRejection> for ApiError {
    fn from(rejection: JsonRejection) -> ApiError {
        ApiError::BadBody {
            status: rejection.status(),
            message: rejection.body_text(),
        }
    }
}

impl From<BotError> for ApiError {
    fn from(error: BotError) -> ApiError {
        match error {
            BotError::UnknownBot { .. } => ApiError::UnknownBot(error),
            other => ApiError::BotSpec(other),
        }
    }
}

/// The JSON body of every error answer.
#[derive(Debug, Serialize)]
struct ErrorBody {
    error: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<usize>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        let index = match &self {
            ApiError::BadMove { index, .. } | ApiError::BadDeadStone { index, .. } => Some(*index),
            _ => None,
        };
        if status.is_server_error() {
            tracing::warn!(%status, error = %self, "request failed");
        } else {
            tracing::debug!(%status, error = %self, "request refused");
        }
        let body = ErrorBody {
            error: self.to_string(),
            index,
        };
        (status, Json(body)).into_response()
    }
}

/// Why the server could not start or stopped.
#[derive(Debug, Error)]
pub enum ServeError {
    /// The address could not be bound (in use, not local, no permission).
    #[error("cannot listen on {address}: {source}")]
    Bind {
        /// The address asked for.
        address: String,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The KataGo network to serve cannot be loaded.
    #[error("cannot serve the KataGo network '{path}': {reason}")]
    Model {
        /// The file as given.
        path: String,
        /// Why it cannot be used (one line).
        reason: String,
    },
    /// The async runtime could not be started, or the server failed.
    #[error("server error: {0}")]
    Io(#[from] std::io::Error),
}
