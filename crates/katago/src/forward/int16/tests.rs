//! The int16 product on every path against each other, against the exact
//! sum of the quantised operands, and against the f32 product within the
//! quantisation's own bound.

use super::{
    padded_pairs, product, quantise_row, Int16Path, WordRows, WordWeights, CHUNK_PAIRS,
    COLUMN_BLOCK, LEVELS,
};
use crate::forward::bf16::tests::values;
use crate::forward::cpu::Features;
use crate::forward::int8::tests::{assert_within_levels, SHAPES};

/// The int16 paths this CPU has, beside the portable one.
fn hardware_paths() -> Vec<Int16Path> {
    let mut paths = Vec::new();
    if Features::detect().avx512_vnni {
        paths.push(Int16Path::Avx512Vnni);
    }
    paths
}

/// Shapes of [`SHAPES`], and depths of several chunks (with a partial last
/// one) at the largest magnitudes, where the sums come closest to 32 bits.
fn shapes() -> Vec<(usize, usize, usize)> {
    let mut shapes = SHAPES.to_vec();
    shapes.extend([
        (7, 2 * CHUNK_PAIRS * 2 + 6, 40),
        (13, 2 * CHUNK_PAIRS * 3, 33),
    ]);
    shapes
}

/// `a · w` (added to `init` where it is not all zeros) on `path`.
fn run(
    path: Int16Path,
    a: &[f32],
    w: &WordWeights,
    (rows, k): (usize, usize),
    init: &[f32],
) -> Vec<f32> {
    let mut quantised = WordRows::default();
    quantised.fill(path, rows, k, a, 1);
    let mut out = init.to_vec();
    let accumulate = !init.iter().all(|&x| x == 0.0);
    product(path, &quantised, 0, rows, w, &mut out, accumulate);
    out
}

#[test]
fn the_portable_product_is_the_exact_product_of_the_quantised_operands() {
    for (rows, k, n) in shapes() {
        let (a, w) = (values(rows * k, 1), values(k * n, 2));
        let out = run(
            Int16Path::Portable,
            &a,
            &WordWeights::new(k, n, &w),
            (rows, k),
            &vec![0.0; rows * n],
        );
        // Each value quantised as defined: times the f32 inverse of its
        // step, rounded to nearest even; the products summed exactly in f64.
        let quantise = |x: f32, max: f32| (x * (LEVELS / max)).round_ties_even() as f64;
        for r in 0..rows {
            let row = &a[r * k..(r + 1) * k];
            let max = row.iter().fold(0.0f32, |m, x| m.max(x.abs()));
            let a_scale = (max / LEVELS) as f64;
            for c in 0..n {
                let column_max = (0..k).fold(0.0f32, |m, i| m.max(w[i * n + c].abs()));
                let w_scale = (column_max / LEVELS) as f64;
                let products =
                    (0..k).map(|i| quantise(row[i], max) * quantise(w[i * n + c], column_max));
                let (sum, magnitude) =
                    products.fold((0.0f64, 0.0f64), |(s, m), p| (s + p, m + p.abs()));
                let exact = sum * a_scale * w_scale;
                let got = out[r * n + c] as f64;
                // Each chunk's integer sum is exact; its conversion to f32
                // and the f32 additions round, each within 2⁻²⁴ of sums no
                // larger than the sum of the products' magnitudes.
                let tolerance = 1e-6 * (exact.abs() + magnitude * a_scale * w_scale);
                assert!(
                    (got - exact).abs() <= tolerance,
                    "{rows}×{k}·{k}×{n} at ({r}, {c}): {got} against {exact}"
                );
            }
        }
    }
}

#[test]
fn the_product_is_within_the_quantisation_bound_of_the_f32_product() {
    for (rows, k, n) in shapes() {
        let (a, w) = (values(rows * k, 3), values(k * n, 4));
        let out = run(
            Int16Path::Portable,
            &a,
            &WordWeights::new(k, n, &w),
            (rows, k),
            &vec![0.0; rows * n],
        );
        // Each operand within half a step of its quantised value.
        let bound = |x: f64, y: f64, a_step: f64, w_step: f64| {
            x.abs() * w_step / 2.0 + y.abs() * a_step / 2.0 + a_step * w_step / 4.0
        };
        assert_within_levels((&a, &w, &out), (rows, k, n), LEVELS as f64, bound);
    }
}

#[test]
fn every_hardware_path_gives_the_portable_results_bit_for_bit() {
    let paths = hardware_paths();
    if paths.is_empty() {
        eprintln!("no AVX-512-VNNI on this CPU: only the portable int16 path is checked");
    }
    for path in paths {
        for (rows, k, n) in shapes() {
            let (a, w) = (values(rows * k, 5), values(k * n, 6));
            let packed = WordWeights::new(k, n, &w);
            for init in [vec![0.0; rows * n], values(rows * n, 7)] {
                let portable = run(Int16Path::Portable, &a, &packed, (rows, k), &init);
                let fast = run(path, &a, &packed, (rows, k), &init);
                for (i, (p, f)) in portable.iter().zip(&fast).enumerate() {
                    assert_eq!(
                        p.to_bits(),
                        f.to_bits(),
                        "{path:?} {rows}×{k}·{k}×{n} at {i}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_largest_sums_of_a_chunk_stay_within_32_bits_on_every_path() {
    // Every value at the largest magnitude with one sign: each product is
    // LEVELS², and a chunk's sum is as large as it can be.
    let (rows, k, n) = (3, 2 * CHUNK_PAIRS * 2 + 2, COLUMN_BLOCK);
    let (a, w) = (vec![-1.5f32; rows * k], vec![-0.25f32; k * n]);
    let packed = WordWeights::new(k, n, &w);
    let exact = (k as f64 * 1.5 * 0.25) as f32;
    for path in [Int16Path::Portable].into_iter().chain(hardware_paths()) {
        let out = run(path, &a, &packed, (rows, k), &vec![0.0; rows * n]);
        for (i, x) in out.iter().enumerate() {
            assert!(
                (x - exact).abs() <= exact * 1e-6,
                "{path:?} at {i}: {x} against {exact}"
            );
        }
    }
}

#[test]
fn rows_quantise_alike_on_every_path_and_pad_with_zeros() {
    let max = 3.7f32;
    let step = max / LEVELS;
    // Ties halfway between two steps, and the largest magnitude itself.
    let ties: Vec<f32> = (-40..40)
        .map(|k| (k as f32 + 0.5) * step)
        .chain([max, -max])
        .collect();
    for path in hardware_paths() {
        let rows = [0, 1, 15, 16, 17, 63, 64, 100, 384]
            .map(|len| values(len, len as u32))
            .into_iter()
            .chain([ties.clone()]);
        for row in rows {
            let pairs = padded_pairs(row.len());
            let (mut portable, mut fast) = (vec![7u32; pairs], vec![9u32; pairs]);
            let a = quantise_row(Int16Path::Portable, &row, &mut portable);
            let b = quantise_row(path, &row, &mut fast);
            let len = row.len();
            assert_eq!(
                a.to_bits(),
                b.to_bits(),
                "{path:?}: scale of a row of {len}"
            );
            assert_eq!(portable, fast, "{path:?}: halves of a row of {len}");
        }
    }
    let mut pairs = vec![7u32; padded_pairs(3)];
    let scale = quantise_row(Int16Path::Portable, &[2.0, -2.0, 1.0], &mut pairs);
    assert_eq!(scale, 2.0 / LEVELS);
    assert_eq!(
        pairs[0],
        (-4095i16 as u16 as u32) << 16 | 4095,
        "4095, −4095"
    );
    assert_eq!(pairs[1], 2048, "2048 (4095 / 2 rounded to even) and a pad");
    assert!(pairs[2..].iter().all(|&p| p == 0), "padding");
    let scale = quantise_row(Int16Path::Portable, &[0.0; 5], &mut pairs);
    assert_eq!(scale, 0.0);
    assert!(pairs.iter().all(|&p| p == 0), "a row of zeros");
}

#[test]
fn weights_are_quantised_per_column() {
    let (k, n) = (5, COLUMN_BLOCK + 3);
    let w: Vec<f32> = (0..k * n)
        .map(|i| (i % 7) as f32 - 3.0 + (i / n) as f32 * 0.01)
        .collect();
    let packed = WordWeights::new(k, n, &w);
    assert_eq!(packed.pairs, padded_pairs(k));
    assert_eq!(packed.scales.len(), 2 * COLUMN_BLOCK);
    for c in 0..n {
        let max = (0..k).fold(0.0f32, |m, i| m.max(w[i * n + c].abs()));
        assert_eq!(packed.scales[c], max / LEVELS, "column {c}'s scale");
        for i in 0..k {
            let word = packed.block(c / COLUMN_BLOCK)[(i / 2) * COLUMN_BLOCK + c % COLUMN_BLOCK];
            let half = (word >> (16 * (i % 2))) as u16 as i16 as i32;
            let q = (w[i * n + c] * (LEVELS / max)).round_ties_even() as i32;
            assert_eq!(half, q, "weight ({i}, {c})");
        }
    }
    assert!(packed.scales[n..].iter().all(|&s| s == 0.0));
}

#[test]
fn a_tiny_or_empty_column_quantises_to_zero() {
    // A largest magnitude whose inverse is not finite, as a subnormal's.
    let w = [1e-40f32, -1e-40, 0.0, 0.0];
    let packed = WordWeights::new(2, 2, &w);
    assert_eq!(&packed.scales[..2], &[0.0, 0.0]);
    assert!(packed.data.iter().all(|&p| p == 0));
}
