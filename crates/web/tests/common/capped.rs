//! A server with one slot and a short cap, and the most expensive move it
//! allows: how the test `cancel.rs` and the example `cancel_latency` watch
//! searches being stopped.

#![allow(dead_code)]

use std::time::Duration;

use serde_json::json;
use tengen_katago::reference::model_path;
use tengen_web::{spawn, KataGoModel, Limits, ServerConfig, ServerHandle};

/// A server with one slot, at most 2 threads a search and a cap of 1.5 s
/// of thinking plus `grace`, with katrain's network for the `katago` bot.
pub fn capped_server(grace: Duration) -> ServerHandle {
    let limits = Limits {
        max_concurrent: 1,
        max_playouts: 1_000_000,
        max_threads: 2,
        max_think: Duration::from_millis(1500),
        grace,
        ..Limits::default()
    };
    let katago = KataGoModel::load(model_path(), 2, tengen_katago::forward::Precision::F32)
        .expect("the network loads");
    spawn(ServerConfig {
        port: 0,
        limits,
        katago: Some(katago),
        ..ServerConfig::default()
    })
    .expect("the server starts")
}

/// A 19×19 search of a million playouts (visits for `katago`): about a
/// minute for `mcts` on one core if nothing stops it, and hours for
/// `katago`.
pub fn maximal_request() -> serde_json::Value {
    json!({"board_size": 19, "moves": ["Q16", "D4"], "budget": {"playouts": 1_000_000}})
}
