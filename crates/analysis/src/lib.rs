//! KataGo's JSON analysis engine (`katago analysis`) over tengen's PUCT
//! search, for the programs that study games with it (KaTrain, LizzieYzy,
//! Ogatak): one JSON query a line on the input, one JSON response a line
//! on the output.
//!
//! - [`query`]: a line checked field by field into typed requests (the
//!   positions of a game to analyse, the settings of their searches, what
//!   to report) or actions; errors name the field, as KataGo's do.
//! - [`settings`]: the settings by KataGo's names, one table for the config
//!   file, `--override-config`, `overrideSettings` and the docs.
//! - [`engine`]: the queue by priority, the analysis threads whose
//!   evaluations share the network's batches, terminate, the responses.
//! - [`response`]: the responses as typed values, and their JSON.

#![forbid(unsafe_code)]
pub mod engine;
pub mod query;
pub mod response;
pub mod settings;

pub use engine::{Engine, Output, ResponseHandler, Workers, PROTOCOL_VERSION};
pub use response::{PositionResponse, Response};
pub use settings::EngineSettings;
