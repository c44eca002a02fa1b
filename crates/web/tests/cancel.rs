//! Bot computations stop when nobody waits for them: a maximal search is
//! stopped at the server's cap (and answers with its best move so far), or
//! as soon as its client disconnects, and gives back its slot, its core
//! and its memory. Measured on the server's
//! own process (this test binary holds only this test, so its CPU time is
//! the server's).

mod common;

use std::fs;
use std::io::Write;
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use common::http::Client;
use serde_json::json;
use tengen_web::{spawn, Limits, ServerConfig};

/// CPU seconds (user and system) this process has used so far.
fn cpu_seconds() -> f64 {
    let stat = fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // The command name may hold spaces; fields count from after its ')'.
    let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..]
        .split_whitespace()
        .collect();
    // utime and stime are fields 14 and 15 of the whole line (11 and 12
    // here), in clock ticks, which Linux reports at 100 per second.
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks as f64 / 100.0
}

/// The resident memory of this process, in MiB.
fn resident_mib() -> f64 {
    let statm = fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    (pages * 4096) as f64 / (1024.0 * 1024.0)
}

/// CPU seconds the process uses over the next `window`.
fn cpu_over(window: Duration) -> f64 {
    let before = cpu_seconds();
    thread::sleep(window);
    cpu_seconds() - before
}

/// A 19×19 MCTS search of a million playouts: about a minute on one core
/// of this machine if nothing stops it.
fn maximal_request() -> serde_json::Value {
    json!({"board_size": 19, "moves": ["Q16", "D4"], "budget": {"playouts": 1_000_000}})
}

#[test]
fn abandoned_searches_stop_and_give_back_their_core_and_slot() {
    if fs::metadata("/proc/self/stat").is_err() {
        eprintln!("note: no /proc on this system; skipping the CPU measurements");
        return;
    }
    let limits = Limits {
        max_concurrent: 1,
        max_playouts: 1_000_000,
        max_think: Duration::from_millis(1500),
        grace: Duration::from_millis(500),
        ..Limits::default()
    };
    let server = spawn(ServerConfig {
        port: 0,
        limits,
        ..ServerConfig::default()
    })
    .expect("the server starts");
    let mut client = Client::new(server.address);
    let resident_before = resident_mib();

    // 1. At the server's cap: the search is stopped 1.75 s in and answers
    //    with its best move so far, within the 2 s the server waits.
    let started = Instant::now();
    let cpu_before = cpu_seconds();
    let response = client
        .post_json("/select-move/mcts", &maximal_request())
        .unwrap();
    let waited = started.elapsed();
    // The search's own rate: CPU seconds per second while it ran (a whole
    // core on an idle machine, less when the machine is shared).
    let searching = (cpu_seconds() - cpu_before) / waited.as_secs_f64();
    assert_eq!(response.status, 200, "{}", response.text());
    let think_ms = response.json()["diagnostics"]["think_ms"].as_f64().unwrap();
    eprintln!("stopped at the cap after {think_ms:.0} ms, answered after {waited:?}");
    assert!((1700.0..2000.0).contains(&think_ms), "{think_ms} ms");
    assert!(waited < Duration::from_secs(2), "{waited:?}");
    // A search still running would go on at the same rate; a stopped one
    // leaves the process idle. Comparing the two rates keeps the test
    // meaningful on a busy machine.
    let cpu = cpu_over(Duration::from_secs(1));
    eprintln!(
        "searching: {searching:.2} CPU s/s; after the cap: {cpu:.2} CPU s in the next second"
    );
    assert!(
        searching > 0.1,
        "the search was not running: {searching:.2} CPU s/s"
    );
    assert!(
        cpu < searching / 3.0,
        "the search went on after the cap: {cpu:.2} CPU s/s"
    );
    // Its slot is free again (the server has only one).
    let response = client
        .post_json("/select-move/random", &json!({"board_size": 19}))
        .unwrap();
    assert_eq!(response.status, 200, "{}", response.text());

    // 2. A client that goes away: the search stops without waiting for its
    //    deadline.
    let body = maximal_request().to_string();
    let mut stream = TcpStream::connect(server.address).unwrap();
    write!(
        stream,
        "POST /select-move/mcts HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        server.address,
        body.len()
    )
    .unwrap();
    thread::sleep(Duration::from_millis(300));
    let busy = cpu_over(Duration::from_millis(500));
    eprintln!("while searching: {busy:.2} CPU s in 0.5 s");
    assert!(busy > 0.05, "the search was not running: {busy:.2}");
    drop(stream);
    // The server notices the closed connection when it next polls it;
    // 100 ms is enough for that and for the search's next stop check.
    thread::sleep(Duration::from_millis(100));
    let cpu = cpu_over(Duration::from_millis(500));
    eprintln!("after the disconnect: {cpu:.2} CPU s in the next 0.5 s");
    assert!(
        cpu < busy / 3.0,
        "the search went on without its client: {cpu:.2} CPU s"
    );
    let response = client
        .post_json("/select-move/random", &json!({"board_size": 19}))
        .unwrap();
    assert_eq!(
        response.status,
        200,
        "the slot is free: {}",
        response.text()
    );

    // The searches' trees are gone with them.
    let resident_after = resident_mib();
    eprintln!("resident memory: {resident_before:.0} MiB before, {resident_after:.0} MiB after");
    assert!(
        resident_after < resident_before + 64.0,
        "{resident_before:.0} MiB before, {resident_after:.0} MiB after"
    );
}
