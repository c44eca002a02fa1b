//! Bot computations stop when nobody waits for them: a maximal search is
//! stopped at the server's cap (and answers with its best move so far), or
//! as soon as its client disconnects, and gives back its slot, its cores
//! and its memory. Both searching bots: `mcts`, which checks between
//! simulations, and `katago` (the network the PyPI package katrain 1.20.0
//! ships, cached under `target/katago/`), whose batches of evaluations take
//! about a second on 19×19 here and are stopped between blocks of the
//! network. Measured on the server's own process (this test binary holds
//! only this test, so its CPU time is the server's).

mod common;

use std::fs;
use std::io::Write;
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use common::capped::{capped_server, maximal_request};
use common::cpu::{cpu_over, cpu_seconds, last_busy_after, resident_mib};
use common::http::Client;
use serde_json::json;

#[test]
fn abandoned_searches_stop_and_give_back_their_cores_and_slot() {
    // The CPU a process used is read from /proc: this test needs Linux.
    assert!(
        fs::metadata("/proc/self/stat").is_ok(),
        "/proc/self/stat is missing: this test measures CPU time through Linux's /proc"
    );
    // The search is stopped at max_think + grace / 2 and answered for until
    // max_think + grace: room for a busy machine's last batch.
    let server = capped_server(Duration::from_secs(2));
    for bot in ["mcts", "katago"] {
        abandon_searches(server.address, bot);
    }
}

/// Asks `bot` for a maximal search twice: once left to the server's cap,
/// once abandoned by its client half-way; after each, the server must be
/// idle and its one slot free.
fn abandon_searches(address: std::net::SocketAddr, bot: &str) {
    let mut client = Client::new(address);
    let resident_before = resident_mib();

    // 1. At the server's cap: the search plans to end by max_think (1.5 s)
    //    and is stopped at 2.5 s at the latest; it answers with its best
    //    move so far, within the 3.5 s the server waits, long before its
    //    million playouts.
    let started = Instant::now();
    let cpu_before = cpu_seconds();
    let response = client
        .post_json(&format!("/select-move/{bot}"), &maximal_request())
        .unwrap();
    let waited = started.elapsed();
    // The search's own rate: CPU seconds per second while it ran (up to
    // its threads' share of the machine, less when the machine is shared).
    let searching = (cpu_seconds() - cpu_before) / waited.as_secs_f64();
    assert_eq!(response.status, 200, "{bot}: {}", response.text());
    let think_ms = response.json()["diagnostics"]["think_ms"].as_f64().unwrap();
    eprintln!("{bot}: stopped at the cap after {think_ms:.0} ms, answered after {waited:?}");
    assert!(think_ms >= 1000.0, "{bot}: {think_ms} ms");
    let playouts = response.json()["diagnostics"]["analysis"]["playouts"]
        .as_u64()
        .unwrap();
    assert!(playouts < 1_000_000, "{bot}: {playouts} playouts");
    // A search still running would go on at the same rate; a stopped one
    // leaves the process idle. Comparing the two rates keeps the test
    // meaningful on a busy machine.
    let cpu = cpu_over(Duration::from_secs(1));
    eprintln!(
        "{bot}: searching: {searching:.2} CPU s/s; after the cap: {cpu:.2} CPU s in the next second"
    );
    assert!(
        searching > 0.1,
        "{bot}: the search was not running: {searching:.2} CPU s/s"
    );
    assert!(
        cpu < searching / 3.0,
        "{bot}: the search went on after the cap: {cpu:.2} CPU s/s"
    );
    // Its slot is free again (the server has only one).
    let response = client
        .post_json("/select-move/random", &json!({"board_size": 19}))
        .unwrap();
    assert_eq!(response.status, 200, "{bot}: {}", response.text());

    // 2. A client that goes away: the search stops without waiting for its
    //    deadline, in the middle of a batch for `katago`.
    let body = maximal_request().to_string();
    let mut stream = TcpStream::connect(address).unwrap();
    write!(
        stream,
        "POST /select-move/{bot} HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    thread::sleep(Duration::from_millis(300));
    let busy = cpu_over(Duration::from_millis(500));
    eprintln!("{bot}: while searching: {busy:.2} CPU s in 0.5 s");
    assert!(busy > 0.05, "{bot}: the search was not running: {busy:.2}");
    drop(stream);
    let dropped = Instant::now();
    // The server notices the closed connection when it next polls it, and
    // the search at its next stop check: the server's threads go idle.
    // Latency is measured by the example `cancel_latency`; here a search
    // that went on would keep the process busy past a generous guard.
    let guard = tengen_testing::hang_guard(Duration::from_secs(30));
    let stopped = last_busy_after(dropped, Duration::from_millis(300), guard)
        .unwrap_or_else(|| panic!("{bot}: the search went on for {guard:?} after its client left"));
    let cpu = cpu_over(Duration::from_millis(500));
    eprintln!(
        "{bot}: after the disconnect: last CPU tick {:.0} ms after it, then {cpu:.2} CPU s in 0.5 s",
        stopped.as_secs_f64() * 1000.0
    );
    assert!(
        cpu < busy / 3.0,
        "{bot}: the search went on without its client: {cpu:.2} CPU s"
    );
    let response = client
        .post_json("/select-move/random", &json!({"board_size": 19}))
        .unwrap();
    assert_eq!(
        response.status,
        200,
        "{bot}: the slot is free: {}",
        response.text()
    );

    // The searches' trees are gone with them.
    let resident_after = resident_mib();
    eprintln!(
        "{bot}: resident memory: {resident_before:.0} MiB before, {resident_after:.0} MiB after"
    );
    assert!(
        resident_after < resident_before + 64.0,
        "{bot}: {resident_before:.0} MiB before, {resident_after:.0} MiB after"
    );
}
