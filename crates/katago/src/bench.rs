//! Speed measurements: the forward pass, and the matrix product it is
//! built on, so that the network's GFLOP/s can be read against what the
//! same GEMM reaches on a plain product.

use std::time::{Duration, Instant};

use crate::forward::profile::Profile;
use crate::forward::{forward, Exec};
use crate::model::{MatMul, ModelDesc, GLOBAL_INPUTS, SPATIAL_INPUTS};

/// A measured rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rate {
    /// Positions (or products) per second.
    pub per_second: f64,
    /// Billions of floating-point operations per second.
    pub gflops: f64,
}

/// The inputs of `batch` empty `side`×`side` boards: spatial and global.
fn empty_boards(side: usize, batch: usize) -> (Vec<f32>, Vec<f32>) {
    let points = side * side;
    let mut spatial = vec![0.0f32; batch * SPATIAL_INPUTS * points];
    for b in 0..batch {
        spatial[b * SPATIAL_INPUTS * points..][..points].fill(1.0);
    }
    (spatial, vec![0.0f32; batch * GLOBAL_INPUTS])
}

/// A pool of `threads` threads that run the network (subnormals flushed).
fn forward_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .start_handler(|_| crate::forward::flush_subnormals())
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool")
}

/// Runs the forward pass on `batch` empty `side`×`side` boards, again and
/// again for at least `duration` (after one warm-up pass), as `exec` says.
pub fn forward_rate(
    model: &ModelDesc,
    side: usize,
    batch: usize,
    exec: Exec,
    duration: Duration,
) -> Rate {
    let threads = exec.threads;
    let (spatial, global) = empty_boards(side, batch);
    let pool = forward_pool(threads);
    pool.install(|| {
        forward(model, batch, side, side, &spatial, &global, 0.0, exec);
        let start = Instant::now();
        let mut positions = 0usize;
        while start.elapsed() < duration || positions == 0 {
            forward(model, batch, side, side, &spatial, &global, 0.0, exec);
            positions += batch;
        }
        let per_second = positions as f64 / start.elapsed().as_secs_f64();
        Rate {
            per_second,
            gflops: per_second * model.flops(side * side) / 1e9,
        }
    })
}

/// Where the time of the forward pass goes on `batch` empty `side`×`side`
/// boards, by class of layer: passes again and again for at least
/// `duration` (after one warm-up pass), counted as [`Profile`] says.
pub fn layer_profile(
    model: &ModelDesc,
    side: usize,
    batch: usize,
    exec: Exec,
    duration: Duration,
) -> Profile {
    let threads = exec.threads.max(1);
    let (spatial, global) = empty_boards(side, batch);
    let pool = forward_pool(threads);
    pool.install(|| {
        forward(model, batch, side, side, &spatial, &global, 0.0, exec);
        Profile::measure(threads, || {
            let (start, mut passes) = (Instant::now(), 0);
            while start.elapsed() < duration || passes == 0 {
                forward(model, batch, side, side, &spatial, &global, 0.0, exec);
                passes += 1;
            }
            passes
        })
    })
}

/// Multiplies an `m`×`k` by a `k`×`n` matrix again and again for at least
/// `duration`, as a layer of the network would with `exec` (bf16 products
/// included: the activations are rounded on every product, the weights
/// once).
pub fn gemm_rate(m: usize, n: usize, k: usize, exec: Exec, duration: Duration) -> Rate {
    let threads = exec.threads;
    let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32 * 0.1).collect();
    let layer = MatMul {
        name: "plain".to_string(),
        in_channels: k,
        out_channels: n,
        weights: (0..k * n).map(|i| (i % 5) as f32 * 0.1).collect(),
        derived: Default::default(),
    };
    let mut c = vec![0.0f32; m * n];
    let pool = rayon::ThreadPoolBuilder::new()
        .start_handler(|_| crate::forward::flush_subnormals())
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool");
    pool.install(|| {
        crate::forward::apply_matmul(&layer, m, &a, &mut c, false, exec);
        let start = Instant::now();
        let mut products = 0usize;
        while start.elapsed() < duration || products == 0 {
            crate::forward::apply_matmul(&layer, m, &a, &mut c, false, exec);
            products += 1;
        }
        let per_second = products as f64 / start.elapsed().as_secs_f64();
        Rate {
            per_second,
            gflops: per_second * 2.0 * (m * n * k) as f64 / 1e9,
        }
    })
}
