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

use std::io::{BufReader, Write};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use tengen_analysis::{Engine, EngineSettings, Output};
use tengen_katago::forward::Precision;
use tengen_katago::reference::model_path;

/// Lines written to it arrive, parsed, on a channel.
struct Lines {
    buffer: Vec<u8>,
    sender: Sender<Value>,
}

impl Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=end).collect();
            if let Ok(value) = serde_json::from_slice(&line) {
                let _ = self.sender.send(value);
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A search that would take hours, reporting every 50 ms.
const LONG_QUERY: &str = r#"{"id":"long","moves":[["B","Q16"],["W","D4"]],"rules":"chinese","boardXSize":19,"boardYSize":19,"maxVisits":1000000000,"reportDuringSearchEvery":0.05}"#;

/// Waits for a response that guards against a hang.
const HANG: Duration = Duration::from_secs(600);

/// An engine serving a pipe on a thread.
struct Served {
    input: Option<std::io::PipeWriter>,
    responses: Receiver<Value>,
    server: std::thread::JoinHandle<()>,
}

impl Served {
    fn start(network: &Arc<tengen_katago::network::Network>, quit_without_waiting: bool) -> Served {
        let (sender, responses) = channel();
        let output = Arc::new(Output::new(Box::new(Lines {
            buffer: Vec::new(),
            sender,
        })));
        let engine = Engine::new(
            EngineSettings::default(),
            Arc::clone(network),
            model_path(),
            output,
        );
        let (reader, input) = std::io::pipe().expect("a pipe");
        let server =
            std::thread::spawn(move || engine.serve(BufReader::new(reader), quit_without_waiting));
        Served {
            input: Some(input),
            responses,
            server,
        }
    }

    fn send(&mut self, line: &str) {
        let input = self.input.as_mut().expect("input open");
        writeln!(input, "{line}").expect("the engine reads its input");
    }

    fn next(&self) -> Value {
        self.responses.recv_timeout(HANG).expect("a response")
    }

    /// Starts the long search and returns once it has reported.
    fn start_long_search(&mut self) {
        self.send(LONG_QUERY);
        while self.next()["isDuringSearch"] != true {}
    }
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
    let network = tengen_puct::katago::load_network(model_path(), 2, Precision::F32)
        .expect("the network loads");

    let mut served = Served::start(&network, false);
    let mut terminate = Vec::new();
    for _ in 0..rounds {
        served.start_long_search();
        let sent = Instant::now();
        served.send(r#"{"id":"stop","action":"terminate","terminateId":"long"}"#);
        loop {
            let response = served.next();
            if response["id"] == "long" && response["isDuringSearch"] == false {
                break;
            }
        }
        terminate.push(sent.elapsed());
    }
    served.input = None;
    served.server.join().expect("the engine returns");

    let mut quit = Vec::new();
    for _ in 0..rounds {
        let mut served = Served::start(&network, true);
        served.start_long_search();
        let closed = Instant::now();
        served.input = None;
        served.server.join().expect("the engine returns");
        quit.push(closed.elapsed());
    }

    println!("analysis engine, 19×19, f32 on 2 threads, {rounds} rounds");
    show("terminate", terminate);
    show("quit without waiting", quit);
}
