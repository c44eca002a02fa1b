//! Speed measurements: the forward pass, and the matrix product it is
//! built on, so that the network's GFLOP/s can be read against what the
//! same GEMM reaches on a plain product.

use std::time::{Duration, Instant};

use crate::forward::forward;
use crate::model::{ModelDesc, GLOBAL_INPUTS, SPATIAL_INPUTS};

/// A measured rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Positions (or products) per second.
    pub per_second: f64,
    /// Billions of floating-point operations per second.
    pub gflops: f64,
}

/// Runs the forward pass on `batch` empty `side`×`side` boards, again and
/// again for at least `duration` (after one warm-up pass), on `threads`
/// threads.
pub fn forward_rate(
    model: &ModelDesc,
    side: usize,
    batch: usize,
    threads: usize,
    duration: Duration,
) -> Rate {
    let points = side * side;
    let mut spatial = vec![0.0f32; batch * SPATIAL_INPUTS * points];
    for b in 0..batch {
        spatial[b * SPATIAL_INPUTS * points..][..points].fill(1.0);
    }
    let global = vec![0.0f32; batch * GLOBAL_INPUTS];
    let pool = rayon::ThreadPoolBuilder::new()
        .start_handler(|_| crate::forward::flush_subnormals())
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool");
    pool.install(|| {
        forward(model, batch, side, side, &spatial, &global, 0.0, threads);
        let start = Instant::now();
        let mut positions = 0usize;
        while start.elapsed() < duration || positions == 0 {
            forward(model, batch, side, side, &spatial, &global, 0.0, threads);
            positions += batch;
        }
        let per_second = positions as f64 / start.elapsed().as_secs_f64();
        Rate {
            per_second,
            gflops: per_second * model.flops(points) / 1e9,
        }
    })
}

/// Multiplies an `m`×`k` by a `k`×`n` matrix again and again for at least
/// `duration` on `threads` threads.
pub fn gemm_rate(m: usize, n: usize, k: usize, threads: usize, duration: Duration) -> Rate {
    let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 * 0.1).collect();
    let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 * 0.1).collect();
    let mut c = vec![0.0f32; m * n];
    let pool = rayon::ThreadPoolBuilder::new()
        .start_handler(|_| crate::forward::flush_subnormals())
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool");
    pool.install(|| {
        crate::forward::matmul(m, k, n, &a, &b, &mut c, false, threads);
        let start = Instant::now();
        let mut products = 0usize;
        while start.elapsed() < duration || products == 0 {
            crate::forward::matmul(m, k, n, &a, &b, &mut c, false, threads);
            products += 1;
        }
        let per_second = products as f64 / start.elapsed().as_secs_f64();
        Rate {
            per_second,
            gflops: per_second * 2.0 * (m * n * k) as f64 / 1e9,
        }
    })
}
