//! How soon the analysis engine stops when told: the latencies its tests
//! leave to a measurement, reported as medians.
//!
//! - **terminate**: a 19×19 search of a billion visits is under way (it has
//!   reported once); the time from writing `{"action":"terminate"}` to the
//!   search's final response.
//! - **quit without waiting**: the same search, then the input ends under
//!   `-quit-without-waiting`; the time until the engine has returned.
//!
//! ```text
//! cargo run --release -p tengen-analysis --example stop_latency [ROUNDS]
//! ```
//!
//! The network is katrain 1.20.0's (`scripts/katago-model`), run in f32 on
//! two threads as the tests run it. On a shared machine the figures move;
//! quote the median with the CPU and the machine's load.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

/// A search that would take hours, reporting every 50 ms.
const LONG_QUERY: &str = r#"{"id":"long","moves":[["B","Q16"],["W","D4"]],"rules":"chinese","boardXSize":19,"boardYSize":19,"maxVisits":1000000000,"reportDuringSearchEvery":0.05}"#;

/// Starts the long search and returns once it has reported.
fn start_long_search(engine: &mut common::Running) {
    engine.send(LONG_QUERY);
    while engine.expect()["isDuringSearch"] != true {}
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn show(what: &str, samples: Vec<Duration>) {
    let list: Vec<String> = samples
        .iter()
        .map(|d| format!("{:.1}", d.as_secs_f64() * 1000.0))
        .collect();
    println!(
        "{what:<22} median {:>7.1} ms   rounds (ms): {}",
        median(samples).as_secs_f64() * 1000.0,
        list.join(" ")
    );
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse().expect("ROUNDS is a count"))
        .unwrap_or(9)
        .max(1);

    let mut engine = common::start("", false);
    let mut terminate = Vec::new();
    for _ in 0..rounds {
        start_long_search(&mut engine);
        let sent = Instant::now();
        engine.send(r#"{"id":"stop","action":"terminate","terminateId":"long"}"#);
        loop {
            let response = engine.expect();
            if response["id"] == "long" && response["isDuringSearch"] == false {
                break;
            }
        }
        terminate.push(sent.elapsed());
    }
    drop(engine);

    let mut quit = Vec::new();
    for _ in 0..rounds {
        let mut engine = common::start("", true);
        start_long_search(&mut engine);
        let closed = Instant::now();
        assert!(engine.close(common::answer_guard()), "the engine returned");
        quit.push(closed.elapsed());
    }

    println!("analysis engine, 19×19, f32 on 2 threads, {rounds} rounds");
    show("terminate", terminate);
    show("quit without waiting", quit);
}
