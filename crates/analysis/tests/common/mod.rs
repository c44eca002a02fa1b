//! An analysis engine on a thread, with the real network (the one the PyPI
//! package katrain 1.20.0 ships, fetched by `scripts/katago-model` and
//! cached under `target/katago/`): queries written to a pipe, responses
//! read as JSON values with the time they came.

#![allow(dead_code)]

use std::io::{BufReader, Write};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::Value;
use tengen_analysis::{settings, Engine, EngineSettings, Output};
use tengen_katago::network::Network;
use tengen_katago::reference::model_path;
pub use tengen_testing::answer_guard;

/// The network, loaded once for every test of the binary.
pub fn network() -> Arc<Network> {
    static NETWORK: OnceLock<Arc<Network>> = OnceLock::new();
    NETWORK
        .get_or_init(|| {
            tengen_puct::katago::load_network(
                model_path(),
                2,
                tengen_katago::forward::Precision::F32,
            )
            .expect("the network loads")
        })
        .clone()
}

/// Lines written to it arrive, parsed, on a channel.
struct Lines {
    buffer: Vec<u8>,
    sender: Sender<(Instant, Value)>,
}

impl Write for Lines {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.buffer.extend_from_slice(bytes);
        while let Some(end) = self.buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.buffer.drain(..=end).collect();
            let text = String::from_utf8(line).expect("responses are UTF-8");
            let value: Value = serde_json::from_str(text.trim_end())
                .unwrap_or_else(|e| panic!("a response is not JSON ({e}): {text}"));
            let _ = self.sender.send((Instant::now(), value));
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A running engine.
pub struct Running {
    pub engine: Arc<Engine>,
    input: Option<std::io::PipeWriter>,
    responses: Receiver<(Instant, Value)>,
    server: Option<JoinHandle<()>>,
}

/// Starts an engine with these `--override-config` settings.
pub fn start(overrides: &str, quit_without_waiting: bool) -> Running {
    let mut engine_settings = EngineSettings::default();
    settings::apply_overrides(&mut engine_settings, overrides).expect("valid settings");
    let (sender, responses) = channel();
    let output = Arc::new(Output::new(Box::new(Lines {
        buffer: Vec::new(),
        sender,
    })));
    let engine = Engine::new(engine_settings, network(), model_path(), output);
    let (reader, writer) = std::io::pipe().expect("a pipe");
    let server = {
        let engine = Arc::clone(&engine);
        std::thread::spawn(move || engine.serve(BufReader::new(reader), quit_without_waiting))
    };
    Running {
        engine,
        input: Some(writer),
        responses,
        server: Some(server),
    }
}

impl Running {
    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        let input = self.input.as_mut().expect("input open");
        input.write_all(line.as_bytes()).unwrap();
        input.write_all(b"\n").unwrap();
        input.flush().unwrap();
    }

    /// The next response, within `timeout`.
    pub fn next(&self, timeout: Duration) -> Option<(Instant, Value)> {
        match self.responses.recv_timeout(timeout) {
            Ok(response) => Some(response),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => None,
        }
    }

    /// The next response; a hang fails after [`answer_guard`].
    pub fn expect(&self) -> Value {
        let guard = answer_guard();
        self.next(guard)
            .unwrap_or_else(|| panic!("no response within {guard:?} (a hang)"))
            .1
    }

    /// The next final response (not a report during the search).
    pub fn expect_final(&self) -> Value {
        loop {
            let response = self.expect();
            if response["isDuringSearch"] != Value::Bool(true) {
                return response;
            }
        }
    }

    /// Closes the input and waits for the engine to return, at most
    /// `timeout`; whether it did.
    pub fn close(&mut self, timeout: Duration) -> bool {
        self.input = None;
        let server = self.server.take().expect("running");
        let start = Instant::now();
        while !server.is_finished() {
            if start.elapsed() > timeout {
                return false;
            }
            // Fine enough for the example `stop_latency` to time it.
            std::thread::sleep(Duration::from_millis(1));
        }
        server.join().expect("the engine returns");
        true
    }

    /// Every response until the engine has returned.
    pub fn drain(&self) -> Vec<Value> {
        self.responses.try_iter().map(|(_, v)| v).collect()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.server.is_some() && !std::thread::panicking() {
            self.send(r#"{"id":"end","action":"terminate_all"}"#);
            self.close(answer_guard());
        }
    }
}
