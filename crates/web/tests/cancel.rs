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

use common::http::Client;
use serde_json::json;
use tengen_katago::reference::model_path;
use tengen_web::{spawn, KataGoModel, Limits, ServerConfig};

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

/// CPU ticks (user and system) of every thread of this process but the
/// calling one.
fn others_cpu_ticks() -> u64 {
    let me = fs::read_link("/proc/thread-self").expect("/proc/thread-self");
    let me = me.file_name().expect("a thread id").to_owned();
    let mut ticks = 0;
    for task in fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .flatten()
    {
        if task.file_name() == me {
            continue;
        }
        // A thread may end between the listing and the read.
        let Ok(stat) = fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..]
            .split_whitespace()
            .collect();
        ticks += fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    }
    ticks
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

/// How long after `since` this process last used CPU time, watched until
/// it has been idle for `quiet` (at most 5 s). The kernel counts CPU time
/// in 10 ms ticks, so this is good to about 10 ms.
/// Only the other threads count: this one's polling would move the count.
fn last_busy_after(since: Instant, quiet: Duration) -> Duration {
    let mut last = others_cpu_ticks();
    let mut last_change = Instant::now();
    while last_change.elapsed() < quiet && since.elapsed() < Duration::from_secs(5) {
        thread::sleep(Duration::from_millis(2));
        let now = others_cpu_ticks();
        if now != last {
            last = now;
            last_change = Instant::now();
        }
    }
    last_change.saturating_duration_since(since)
}

/// A 19×19 search of a million playouts (visits for `katago`): about a
/// minute for `mcts` on one core of this machine if nothing stops it, and
/// hours for `katago`.
fn maximal_request() -> serde_json::Value {
    json!({"board_size": 19, "moves": ["Q16", "D4"], "budget": {"playouts": 1_000_000}})
}

#[test]
fn abandoned_searches_stop_and_give_back_their_cores_and_slot() {
    // The CPU a process used is read from /proc: this test needs Linux.
    assert!(
        fs::metadata("/proc/self/stat").is_ok(),
        "/proc/self/stat is missing: this test measures CPU time through Linux's /proc"
    );
    let limits = Limits {
        max_concurrent: 1,
        max_playouts: 1_000_000,
        max_threads: 2,
        max_think: Duration::from_millis(1500),
        grace: Duration::from_millis(500),
        ..Limits::default()
    };
    let katago = KataGoModel::load(model_path(), 2, tengen_katago::forward::Precision::F32)
        .expect("the network loads");
    let server = spawn(ServerConfig {
        port: 0,
        limits,
        katago: Some(katago),
        ..ServerConfig::default()
    })
    .expect("the server starts");
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
    //    and is stopped at 1.75 s at the latest; it answers with its best
    //    move so far, within the 2 s the server waits.
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
    assert!((1000.0..2000.0).contains(&think_ms), "{bot}: {think_ms} ms");
    assert!(waited < Duration::from_secs(2), "{bot}: {waited:?}");
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
    let stopped = last_busy_after(dropped, Duration::from_millis(300));
    let cpu = cpu_over(Duration::from_millis(500));
    eprintln!(
        "{bot}: after the disconnect: last CPU tick {:.0} ms after it, then {cpu:.2} CPU s in 0.5 s",
        stopped.as_secs_f64() * 1000.0
    );
    assert!(
        stopped < Duration::from_millis(100),
        "{bot}: the search went on for {stopped:?} after its client left"
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
