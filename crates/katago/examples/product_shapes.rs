//! The plain matrix product's speed at the shapes of a 19×19 position in
//! `b10c384h6nbttflrs` (361 rows, 384 channels, a hidden layer of 1,024,
//! attention heads 64 wide), beside the 1024³ product that
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
        (361, 384, 384, "a projection"),
        (352, 384, 384, "a projection, whole 32-row blocks only"),
        (384, 384, 384, "a projection, 384 rows"),
        (361, 384, 1024, "the feed-forward's first"),
        (361, 1024, 384, "the feed-forward's second"),
        (361, 64, 384, "attention's scores (keys padded to 384)"),
        (361, 361, 64, "attention's values"),
    ] {
        let rate = gemm_rate(m, n, k, exec, Duration::from_secs(2));
        println!(
            "{m:>5} × {k:<5} by {k:>5} × {n:<5} {:>8.0}  {what}",
            rate.gflops
        );
    }
}
