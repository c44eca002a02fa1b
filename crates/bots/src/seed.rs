//! Seeds for runs that are not given one.
//!
//! The seed is read from the clock here rather than in `tengen-core`, whose
//! generator stays deterministic and free of outside input; every program
//! that builds bots (the command line, the web server) depends on this crate
//! already.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// A seed that differs from call to call and from process to process: the
/// clock's nanoseconds, mixed with the process id (two processes started in
/// the same nanosecond) and a call counter (two calls within the clock's
/// resolution).
///
/// Programs log the seed they use, so that a run can be replayed with it.
///
/// ```
/// assert_ne!(tengen_bots::fresh_seed(), tengen_bots::fresh_seed());
/// ```
pub fn fresh_seed() -> u64 {
    static CALLS: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    // Consecutive calls are streams of the time and process: different in
    // many bits.
    tengen_core::stream_seed(nanos ^ u64::from(std::process::id()).rotate_left(32), call)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_in_a_row_differ() {
        let seeds: std::collections::HashSet<u64> = (0..1000).map(|_| fresh_seed()).collect();
        assert_eq!(seeds.len(), 1000);
    }
}
