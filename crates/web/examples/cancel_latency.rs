//! How soon `tengen serve` stops a search nobody waits for: the latencies
//! the test `tests/cancel.rs` leaves to a measurement, reported as medians.
//!
//! For each searching bot (`mcts`, and `katago` on katrain 1.20.0's network
//! from `scripts/katago-model`), a 19×19 search of a million playouts:
//! - **cap**: the server's cap is 1.5 s of thinking plus 0.5 s of grace;
//!   the time from the request to its answer, and the search's own time;
//! - **disconnect**: the client sends the request, waits a second and goes
//!   away; the time from its leaving to the server's last CPU tick (good
//!   to the kernel's 10 ms ticks).
//!
//! ```text
//! cargo run --release -p tengen-web --example cancel_latency [ROUNDS]
//! ```
//!
//! Linux only (CPU time from /proc). On a shared machine the figures move;
//! quote the medians with the CPU and the machine's load.

#[path = "../tests/common/mod.rs"]
mod common;

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use common::capped::{capped_server, maximal_request};
use common::cpu;
use common::http::Client;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn show(what: &str, samples: Vec<f64>) {
    let list: Vec<String> = samples.iter().map(|ms| format!("{ms:.0}")).collect();
    println!(
        "{what:<36} median {:>7.0} ms   rounds (ms): {}",
        median(samples),
        list.join(" ")
    );
}

fn measure(address: SocketAddr, bot: &str, rounds: usize) {
    let mut answered = Vec::new();
    let mut thought = Vec::new();
    let mut stopped = Vec::new();
    let mut client = Client::new(address);
    for _ in 0..rounds {
        let started = Instant::now();
        let response = client
            .post_json(&format!("/select-move/{bot}"), &maximal_request())
            .expect("an answer");
        answered.push(started.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(response.status, 200, "{bot}: {}", response.text());
        thought.push(response.json()["diagnostics"]["think_ms"].as_f64().unwrap());

        let body = maximal_request().to_string();
        let mut stream = TcpStream::connect(address).expect("a connection");
        write!(
            stream,
            "POST /select-move/{bot} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .expect("the request is sent");
        thread::sleep(Duration::from_secs(1));
        drop(stream);
        let dropped = Instant::now();
        let last =
            cpu::last_busy_after(dropped, Duration::from_millis(300), Duration::from_secs(60))
                .expect("the server went idle within a minute");
        stopped.push(last.as_secs_f64() * 1000.0);
    }
    show(&format!("{bot}: cap, request to answer"), answered);
    show(&format!("{bot}: cap, the search's own time"), thought);
    show(&format!("{bot}: disconnect to last CPU tick"), stopped);
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse().expect("ROUNDS is a count"))
        .unwrap_or(5)
        .max(1);
    let server = capped_server(Duration::from_millis(500));
    println!("tengen serve, 19×19, cap 1.5 s + 0.5 s grace, {rounds} rounds");
    for bot in ["mcts", "katago"] {
        measure(server.address, bot, rounds);
    }
}
