//! A bounded load test of `tengen serve` on loopback: `--games` games played
//! at once, each its own client thread and keep-alive connection, every move
//! asked of `POST /select-move/{bot}` with the whole history (both sides are
//! the bot), until two passes. Reports throughput, latency percentiles,
//! errors by status, and the server's resident memory before and after.
//!
//! ```sh
//! cargo build --release
//! cargo run --release -p tengen-web --example load -- --games 200
//! ```
//!
//! Options: `--games N` (200), `--size N` (9), `--bot SPEC` (random),
//! `--rounds N` (2: the memory figure after each), `--tengen PATH` (the
//! server binary; default: `tengen` beside this example's folder), `--max-concurrent N`
//! (passed to the server), `--heavy N` (0: N more clients that, while the
//! games run, ask for the most expensive move the server allows, one
//! after another: a 19×19 `mcts` search of 1,000,000 playouts, which the
//! server stops at its 10 s cap; their answer times are reported apart,
//! and so is the server's CPU time in the second after each round).

#[path = "../tests/common/http.rs"]
mod http;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use http::Client;
use serde_json::json;

struct Options {
    games: usize,
    size: usize,
    bot: String,
    rounds: usize,
    tengen: Option<PathBuf>,
    max_concurrent: Option<usize>,
    heavy: usize,
}

fn parse_options() -> Result<Options, String> {
    let mut options = Options {
        games: 200,
        size: 9,
        bot: "random".to_string(),
        rounds: 2,
        tengen: None,
        max_concurrent: None,
        heavy: 0,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |text: String| {
            text.parse::<usize>()
                .map_err(|_| format!("{flag}: '{text}' is not a number"))
        };
        match flag.as_str() {
            "--games" => options.games = number(value()?)?,
            "--size" => options.size = number(value()?)?,
            "--bot" => options.bot = value()?,
            "--rounds" => options.rounds = number(value()?)?.max(1),
            "--tengen" => options.tengen = Some(PathBuf::from(value()?)),
            "--max-concurrent" => options.max_concurrent = Some(number(value()?)?),
            "--heavy" => options.heavy = number(value()?)?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    if options.games == 0 {
        return Err("--games must be at least 1".to_string());
    }
    Ok(options)
}

/// The `tengen` binary of the same build: target/release/examples/load →
/// target/release/tengen.
fn default_tengen() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let path = exe.parent()?.parent()?.join("tengen");
    path.exists().then_some(path)
}

struct Server {
    child: Child,
    address: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(options: &Options) -> Result<Server, String> {
    let tengen = options
        .tengen
        .clone()
        .or_else(default_tengen)
        .ok_or("no tengen binary beside this example: run `cargo build --release` first, or give --tengen PATH")?;
    let mut command = Command::new(&tengen);
    command.args(["serve", "--port", "0"]);
    if let Some(n) = options.max_concurrent {
        command.args(["--max-concurrent", &n.to_string()]);
    }
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", tengen.display()))?;
    let stdout = child.stdout.take().ok_or("no stdout")?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.trim().trim_end_matches('/').parse().ok())
        .ok_or_else(|| format!("the server printed no address: {line:?}"))?;
    Ok(Server { child, address })
}

/// Resident memory of a process in KiB (Linux), from /proc.
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|line| line.starts_with("VmRSS:"))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

#[derive(Default)]
struct GameStats {
    latencies: Vec<Duration>,
    errors: Vec<u16>,
    io_errors: usize,
    moves: usize,
}

fn play_game(address: SocketAddr, size: usize, bot: &str, seed: u64) -> GameStats {
    let mut client = Client::new(address);
    let mut stats = GameStats::default();
    let mut moves: Vec<String> = Vec::new();
    let path = format!("/select-move/{bot}");
    let cap = size * size * 3;
    for turn in 0..cap {
        let body = json!({"board_size": size, "moves": moves, "rules": "chinese", "seed": seed * 1000 + turn as u64});
        let start = Instant::now();
        let response = client.post_json(&path, &body);
        stats.latencies.push(start.elapsed());
        let response = match response {
            Ok(response) => response,
            Err(_) => {
                stats.io_errors += 1;
                break;
            }
        };
        if response.status != 200 {
            stats.errors.push(response.status);
            break;
        }
        let Some(mv) = serde_json::from_slice::<serde_json::Value>(&response.body)
            .ok()
            .and_then(|v| v["bot_move"].as_str().map(str::to_string))
        else {
            stats.errors.push(0);
            break;
        };
        if mv == "resign" {
            break;
        }
        moves.push(mv);
        let n = moves.len();
        if n >= 2 && moves[n - 1] == "pass" && moves[n - 2] == "pass" {
            break;
        }
    }
    stats.moves = moves.len();
    stats
}

/// CPU seconds (user and system) a process has used (Linux), from /proc.
fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

/// A client asking for maximal searches one after another until `done`;
/// returns each request's answer time and the non-200 statuses.
fn heavy_client(address: SocketAddr, done: &std::sync::atomic::AtomicBool) -> GameStats {
    let mut client = Client::new(address);
    let mut stats = GameStats::default();
    let body = json!({"board_size": 19, "moves": ["Q16", "D4"], "budget": {"playouts": 1_000_000}});
    while !done.load(std::sync::atomic::Ordering::Relaxed) {
        let start = Instant::now();
        match client.post_json("/select-move/mcts", &body) {
            Ok(response) => {
                stats.latencies.push(start.elapsed());
                if response.status != 200 {
                    stats.errors.push(response.status);
                }
            }
            Err(_) => {
                stats.io_errors += 1;
                client = Client::new(address);
            }
        }
    }
    stats
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn round(options: &Options, address: SocketAddr, round: usize) -> (GameStats, Duration, GameStats) {
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let heavy: Vec<_> = (0..options.heavy)
        .map(|_| {
            let done = Arc::clone(&done);
            thread::spawn(move || heavy_client(address, &done))
        })
        .collect();
    let barrier = Arc::new(Barrier::new(options.games));
    let start = Instant::now();
    let threads: Vec<_> = (0..options.games)
        .map(|game| {
            let barrier = Arc::clone(&barrier);
            let bot = options.bot.clone();
            let size = options.size;
            let seed = (round * 100_000 + game) as u64;
            thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || {
                    barrier.wait();
                    play_game(address, size, &bot, seed)
                })
                .expect("a client thread starts")
        })
        .collect();
    let mut total = GameStats::default();
    for thread in threads {
        let stats = thread.join().expect("a client thread finishes");
        total.latencies.extend(stats.latencies);
        total.errors.extend(stats.errors);
        total.io_errors += stats.io_errors;
        total.moves += stats.moves;
    }
    let wall = start.elapsed();
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut heavy_total = GameStats::default();
    for thread in heavy {
        let stats = thread.join().expect("a heavy client finishes");
        heavy_total.latencies.extend(stats.latencies);
        heavy_total.errors.extend(stats.errors);
        heavy_total.io_errors += stats.io_errors;
    }
    (total, wall, heavy_total)
}

fn main() {
    let options = match parse_options() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("load: {message}");
            std::process::exit(2);
        }
    };
    let server = match start_server(&options) {
        Ok(server) => server,
        Err(message) => {
            eprintln!("load: {message}");
            std::process::exit(2);
        }
    };
    let pid = server.child.id();
    let kib =
        |v: Option<u64>| v.map_or("?".to_string(), |k| format!("{:.1} MiB", k as f64 / 1024.0));
    println!(
        "server {} (pid {pid}); {} concurrent games on {}x{} against '{}', {} round(s)",
        server.address, options.games, options.size, options.size, options.bot, options.rounds
    );
    println!("server RSS at start: {}", kib(rss_kib(pid)));
    let mut failed = false;
    for r in 0..options.rounds {
        let (mut stats, wall, mut heavy) = round(&options, server.address, r);
        stats.latencies.sort();
        let requests = stats.latencies.len();
        let mut statuses = stats.errors.clone();
        statuses.sort();
        statuses.dedup();
        let by_status: Vec<String> = statuses
            .iter()
            .map(|s| format!("{s}: {}", stats.errors.iter().filter(|e| *e == s).count()))
            .collect();
        println!(
            "round {}: {} requests ({} moves) in {:.2} s = {:.0} requests/s; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms; errors: {} HTTP [{}], {} connection; server RSS after: {}",
            r + 1,
            requests,
            stats.moves,
            wall.as_secs_f64(),
            requests as f64 / wall.as_secs_f64(),
            ms(percentile(&stats.latencies, 50.0)),
            ms(percentile(&stats.latencies, 90.0)),
            ms(percentile(&stats.latencies, 99.0)),
            ms(percentile(&stats.latencies, 100.0)),
            stats.errors.len(),
            by_status.join(", "),
            stats.io_errors,
            kib(rss_kib(pid)),
        );
        failed |= !stats.errors.is_empty() || stats.io_errors > 0;
        if options.heavy > 0 {
            heavy.latencies.sort();
            let cpu_at_end = cpu_seconds(pid);
            thread::sleep(Duration::from_secs(1));
            let idle = cpu_seconds(pid).zip(cpu_at_end).map(|(a, b)| a - b);
            println!(
                "  heavy: {} maximal requests, answered in p50 {:.2} s, max {:.2} s; {} not 200, {} connection errors; server CPU in the second after the round: {}",
                heavy.latencies.len(),
                percentile(&heavy.latencies, 50.0).as_secs_f64(),
                percentile(&heavy.latencies, 100.0).as_secs_f64(),
                heavy.errors.len(),
                heavy.io_errors,
                idle.map_or("?".to_string(), |s| format!("{s:.2} s")),
            );
        }
    }
    if failed {
        std::process::exit(1);
    }
}
