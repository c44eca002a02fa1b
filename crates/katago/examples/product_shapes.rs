//! The plain matrix product's speed at the shapes of a 19×19 position in
//! `b10c384h6nbttflrs` (361 rows a position; a trunk of 384 channels
//! whose nested bottlenecks enter 192; attention in six heads 32 wide; a
//! gated feed-forward 512 wide), at batch 1 and 8, the activations'
//! rounding included, beside the 1024³ product that
//! `tengen bench katago` quotes, on the kernel a precision picks:
//!
//! ```sh
//! cargo run --release -p tengen-katago --example product_shapes -- bf16 1
//! ```
//!
//! Arguments: the precision (default `bf16`) and the threads (default 1).

use std::time::Duration;

use tengen_katago::bench::gemm_rate;
use tengen_katago::forward::{Exec, Features, Precision};

fn main() {
    let mut args = std::env::args().skip(1);
    let precision: Precision = args
        .next()
        .map_or(Ok(Precision::Bf16), |p| p.parse())
        .expect("a precision: auto, f32, bf16 or int8");
    let threads: usize = args
        .next()
        .map_or(Ok(1), |t| t.parse())
        .expect("a number of threads");
    let kernel = precision.kernel(Features::detect());
    let exec = Exec { threads, kernel };
    println!("{precision} ({kernel}), {threads} thread(s); m × k by k × n, GFLOP/s");
    for (m, k, n, what) in [
        (1024, 1024, 1024, "the plain product"),
        (2888, 192, 192, "a projection, batch 8"),
        (361, 192, 192, "a projection, batch 1"),
        (2888, 192, 512, "the feed-forward's first, batch 8"),
        (2888, 512, 192, "the feed-forward's second, batch 8"),
        (2888, 384, 192, "the bottleneck's way in, batch 8"),
        (2888, 192, 384, "the bottleneck's way out, batch 8"),
        (361, 32, 361, "attention's scores, one head"),
        (361, 361, 32, "attention's values, one head"),
    ] {
        let rate = gemm_rate(m, n, k, exec, Duration::from_secs(2));
        println!(
            "{m:>5} × {k:<5} by {k:>5} × {n:<5} {:>8.0}  {what}",
            rate.gflops
        );
    }
}
