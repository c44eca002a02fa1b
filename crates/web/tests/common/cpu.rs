//! The CPU time and memory of this process, read from Linux's /proc: how
//! the tests and examples see that a search has stopped.

#![allow(dead_code)]

use std::fs;
use std::thread;
use std::time::{Duration, Instant};

/// CPU seconds (user and system) this process has used so far.
pub fn cpu_seconds() -> f64 {
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
pub fn others_cpu_ticks() -> u64 {
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
pub fn resident_mib() -> f64 {
    let statm = fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    (pages * 4096) as f64 / (1024.0 * 1024.0)
}

/// CPU seconds the process uses over the next `window`.
pub fn cpu_over(window: Duration) -> f64 {
    let before = cpu_seconds();
    thread::sleep(window);
    cpu_seconds() - before
}

/// How long after `since` this process last used CPU time, watched until
/// it has been idle for `quiet`; `None` if it never was within `guard`.
/// The kernel counts CPU time in 10 ms ticks, so this is good to about
/// 10 ms. Only the other threads count: this one's polling would move the
/// count.
pub fn last_busy_after(since: Instant, quiet: Duration, guard: Duration) -> Option<Duration> {
    let mut last = others_cpu_ticks();
    let mut last_change = Instant::now();
    while last_change.elapsed() < quiet {
        if since.elapsed() > guard {
            return None;
        }
        thread::sleep(Duration::from_millis(2));
        let now = others_cpu_ticks();
        if now != last {
            last = now;
            last_change = Instant::now();
        }
    }
    Some(last_change.saturating_duration_since(since))
}
