//! The int8 product on every path against each other, against the exact
//! sum of the quantised operands, and against the f32 product within the
//! quantisation's own bound.

use super::{
    padded_quads, product, quantise_row, quantise_row_split, Int8Path, QuantLayer, QuantRows,
    QuantWeights, COLUMN_BLOCK, OFFSET,
};
use crate::forward::bf16::tests::values;
use crate::forward::cpu::Features;

/// The int8 paths this CPU has, beside the portable one.
fn hardware_paths() -> Vec<Int8Path> {
    let features = Features::detect();
    let mut paths = Vec::new();
    if features.avx512_vnni {
        paths.push(Int8Path::Avx512Vnni);
    }
    if features.amx_int8 {
        paths.push(Int8Path::AmxInt8);
    }
    if features.avx_vnni {
        paths.push(Int8Path::AvxVnni);
    }
    paths
}

/// Sizes with edges: fewer rows than a tile and more, columns short of a
/// block, an inner dimension that is not a multiple of four.
pub(crate) const SHAPES: [(usize, usize, usize); 8] = [
    (1, 1, 1),
    (3, 5, 7),
    (13, 40, 33),
    (20, 64, 64),
    (25, 131, 70),
    (12, 384, 32),
    // Whole blocks of 32 × 32 for the tiles, and rows, columns and quads
    // past them.
    (64, 128, 64),
    (75, 150, 70),
];

fn run(path: Int8Path, a: &[f32], w: &QuantLayer, rows: usize, k: usize, init: &[f32]) -> Vec<f32> {
    run_split(path, a, w, rows, k, init, false)
}

/// `a · w` (added to `init` where it is not all zeros), both operands
/// split where `split`.
fn run_split(
    path: Int8Path,
    a: &[f32],
    w: &QuantLayer,
    rows: usize,
    k: usize,
    init: &[f32],
    split: bool,
) -> Vec<f32> {
    let mut quantised = QuantRows::default();
    quantised.fill(path, rows, k, a, split, 1);
    let mut out = init.to_vec();
    let accumulate = !init.iter().all(|&x| x == 0.0);
    product(path, &quantised, 0, rows, w, &mut out, accumulate);
    out
}

#[test]
fn the_portable_product_is_the_exact_product_of_the_quantised_operands() {
    for &(rows, k, n) in &SHAPES {
        let (a, w) = (values(rows * k, 1), values(k * n, 2));
        let packed = QuantLayer::new(k, n, &w);
        let out = run(
            Int8Path::Portable,
            &a,
            &packed,
            rows,
            k,
            &vec![0.0; rows * n],
        );
        // Each value quantised as defined: times the f32 inverse of its
        // step, rounded to nearest even (a value near half a step may round
        // otherwise in f64).
        let quantise = |x: f32, max: f32| (x * (127.0 / max)).round_ties_even() as f64;
        for r in 0..rows {
            let row = &a[r * k..(r + 1) * k];
            let max = row.iter().fold(0.0f32, |m, x| m.max(x.abs()));
            let a_scale = (max / 127.0) as f64;
            for c in 0..n {
                let column_max = (0..k).fold(0.0f32, |m, i| m.max(w[i * n + c].abs()));
                let w_scale = (column_max / 127.0) as f64;
                let exact: f64 = (0..k)
                    .map(|i| quantise(row[i], max) * quantise(w[i * n + c], column_max))
                    .sum::<f64>()
                    * a_scale
                    * w_scale;
                let got = out[r * n + c] as f64;
                let tolerance = 1e-5 * (exact.abs() + a_scale * w_scale * k as f64);
                assert!(
                    (got - exact).abs() <= tolerance,
                    "{rows}×{k}·{k}×{n} at ({r}, {c}): {got} against {exact}"
                );
            }
        }
    }
}

/// Checks every output of `a · w` (`rows` × `k` by `k` × `n`) against the
/// f64 product, within the sum over the terms of `term_bound(x, y, a_step,
/// w_step)`, the steps being one quantisation's of the row and column
/// (127 levels each side of zero).
fn assert_within(
    operands: (&[f32], &[f32], &[f32]),
    shape: (usize, usize, usize),
    term_bound: impl Fn(f64, f64, f64, f64) -> f64,
) {
    assert_within_levels(operands, shape, 127.0, term_bound);
}

/// [`assert_within`] for a quantisation of `levels` levels each side of
/// zero.
pub(crate) fn assert_within_levels(
    (a, w, out): (&[f32], &[f32], &[f32]),
    (rows, k, n): (usize, usize, usize),
    levels: f64,
    term_bound: impl Fn(f64, f64, f64, f64) -> f64,
) {
    for r in 0..rows {
        let row = &a[r * k..(r + 1) * k];
        let a_step = row.iter().fold(0.0f64, |m, x| m.max(x.abs() as f64)) / levels;
        for c in 0..n {
            let w_step = (0..k).fold(0.0f64, |m, i| m.max(w[i * n + c].abs() as f64)) / levels;
            let (mut exact, mut bound) = (0.0f64, 0.0f64);
            for i in 0..k {
                let (x, y) = (row[i] as f64, w[i * n + c] as f64);
                exact += x * y;
                bound += term_bound(x, y, a_step, w_step);
            }
            let got = out[r * n + c] as f64;
            assert!(
                (got - exact).abs() <= bound * 1.001 + 1e-6,
                "{rows}×{k}·{k}×{n} at ({r}, {c}): {got} against {exact} (bound {bound})"
            );
        }
    }
}

#[test]
fn the_product_is_within_the_quantisation_bound_of_the_f32_product() {
    for &(rows, k, n) in &SHAPES {
        let (a, w) = (values(rows * k, 3), values(k * n, 4));
        let packed = QuantLayer::new(k, n, &w);
        let out = run(
            Int8Path::Portable,
            &a,
            &packed,
            rows,
            k,
            &vec![0.0; rows * n],
        );
        // Each operand within half a step of its quantised value.
        assert_within((&a, &w, &out), (rows, k, n), |x, y, a_step, w_step| {
            x.abs() * w_step / 2.0 + y.abs() * a_step / 2.0 + a_step * w_step / 4.0
        });
    }
}

#[test]
fn every_hardware_path_gives_the_portable_results_bit_for_bit() {
    let paths = hardware_paths();
    if paths.is_empty() {
        eprintln!("no int8 unit on this CPU: only the portable path is checked");
    }
    for path in paths {
        for &(rows, k, n) in &SHAPES {
            let (a, w) = (values(rows * k, 5), values(k * n, 6));
            let packed = QuantLayer::new(k, n, &w);
            for init in [vec![0.0; rows * n], values(rows * n, 7)] {
                for split in [false, true] {
                    let portable =
                        run_split(Int8Path::Portable, &a, &packed, rows, k, &init, split);
                    let fast = run_split(path, &a, &packed, rows, k, &init, split);
                    for (i, (p, f)) in portable.iter().zip(&fast).enumerate() {
                        assert_eq!(
                            p.to_bits(),
                            f.to_bits(),
                            "{path:?} {rows}×{k}·{k}×{n} split {split:?} at {i}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn rows_quantise_alike_on_every_path_and_pad_with_zeros() {
    for path in hardware_paths() {
        for len in [0, 1, 15, 16, 17, 63, 64, 100, 384] {
            let row = values(len, len as u32);
            let quads = padded_quads(len);
            let mut portable = vec![7u32; quads];
            let mut fast = vec![9u32; quads];
            let a = quantise_row(Int8Path::Portable, &row, &mut portable);
            let b = quantise_row(path, &row, &mut fast);
            assert_eq!(
                a.to_bits(),
                b.to_bits(),
                "{path:?}: scale of a row of {len}"
            );
            assert_eq!(portable, fast, "{path:?}: bytes of a row of {len}");
            // Split: the row, then what its quantisation lost.
            let (mut portable_low, mut fast_low) = (vec![7u32; quads], vec![9u32; quads]);
            let a = quantise_row_split(Int8Path::Portable, &row, &mut portable, &mut portable_low);
            let b = quantise_row_split(path, &row, &mut fast, &mut fast_low);
            assert_eq!(a.to_bits(), b.to_bits(), "{path:?}: split scale {len}");
            assert_eq!(
                (&portable, &portable_low),
                (&fast, &fast_low),
                "{path:?}: split {len}"
            );
        }
    }
    let mut quads = vec![0u32; padded_quads(5)];
    let scale = quantise_row(Int8Path::Portable, &[0.0; 5], &mut quads);
    assert_eq!(scale, 0.0);
    assert!(
        quads.iter().all(|&q| q == 0x8080_8080),
        "zeros are the offset"
    );
    let mut quads = vec![0u32; padded_quads(3)];
    quantise_row(Int8Path::Portable, &[2.0, -2.0, 1.0], &mut quads);
    assert_eq!(quads[0], 0x80_c0_01_ff, "127, −127, 64 and a pad, offset");
}

/// Rows whose values sit where a quantisation is closest to leaving its
/// byte: the largest magnitude itself (either sign), ties halfway between
/// two steps (the loss is then half a step, 127 fine steps) and values a
/// hair inside them, at a scale that is not a power of two.
fn edge_rows() -> Vec<Vec<f32>> {
    let max = 3.7f32;
    let step = max / 127.0;
    let mut values = vec![max, -max, max * (1.0 - f32::EPSILON), 0.0];
    for k in -127..127 {
        let tie = (k as f32 + 0.5) * step;
        values.extend([
            tie,
            -tie,
            tie * (1.0 + f32::EPSILON),
            tie * (1.0 - f32::EPSILON),
        ]);
    }
    values.retain(|x| x.abs() <= max);
    [1, 15, 16, 17, 64, 70, values.len()]
        .into_iter()
        .map(|len| {
            let mut row: Vec<f32> = values.iter().copied().cycle().skip(len).take(len).collect();
            row[0] = if len % 2 == 0 { max } else { -max };
            row
        })
        .collect()
}

#[test]
fn the_clamp_never_binds_in_a_finite_row_so_every_path_needs_none() {
    for row in edge_rows() {
        let max = row.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let inverse = 127.0 / max;
        for &x in &row {
            let t = x * inverse;
            let q = t.round_ties_even();
            assert!(q.abs() <= 127.0, "{x} quantises to {q}");
            let fine = ((t - q) * 254.0).round_ties_even();
            assert!(fine.abs() <= 127.0, "{x} loses {fine} fine steps");
        }
        let quads = padded_quads(row.len());
        for path in hardware_paths() {
            let (mut portable, mut fast) = (vec![7u32; quads], vec![9u32; quads]);
            let a = quantise_row(Int8Path::Portable, &row, &mut portable);
            let b = quantise_row(path, &row, &mut fast);
            assert_eq!((a.to_bits(), &portable), (b.to_bits(), &fast), "{path:?}");
            let (mut portable_low, mut fast_low) = (vec![7u32; quads], vec![9u32; quads]);
            quantise_row_split(Int8Path::Portable, &row, &mut portable, &mut portable_low);
            quantise_row_split(path, &row, &mut fast, &mut fast_low);
            assert_eq!(
                (&portable, &portable_low),
                (&fast, &fast_low),
                "{path:?}: split row of {}",
                row.len()
            );
        }
    }
}

#[test]
fn weights_are_quantised_per_column_with_their_offsets() {
    let (k, n) = (5, COLUMN_BLOCK + 3);
    let w: Vec<f32> = (0..k * n)
        .map(|i| (i % 7) as f32 - 3.0 + (i / n) as f32 * 0.01)
        .collect();
    let packed = QuantWeights::new(k, n, &w);
    assert_eq!(packed.quads, padded_quads(k));
    assert_eq!(packed.scales.len(), 2 * COLUMN_BLOCK);
    for c in 0..n {
        let max = (0..k).fold(0.0f32, |m, i| m.max(w[i * n + c].abs()));
        assert_eq!(packed.scales[c], max / 127.0, "column {c}'s scale");
        let sum: i32 = (0..k)
            .map(|i| ((w[i * n + c] * (127.0 / max)).round_ties_even() as i32).clamp(-127, 127))
            .sum();
        assert_eq!(packed.offsets[c], 128 * sum, "column {c}'s offset");
    }
    assert!(packed.scales[n..].iter().all(|&s| s == 0.0));
}

/// The signed value of byte `i` of a row of offset quads.
fn byte(quads: &[u32], i: usize) -> i32 {
    (quads[i / 4] >> (8 * (i % 4))) as u8 as i32 - OFFSET
}

/// The loss of a value quantised at `inverse`, in steps 254 times finer.
fn loss(x: f32, inverse: f32) -> i32 {
    let t = x * inverse;
    let q = t.round_ties_even().clamp(-127.0, 127.0);
    ((t - q) * 254.0).round_ties_even() as i32
}

#[test]
fn a_split_row_keeps_what_its_quantisation_lost_on_a_finer_step() {
    let row = [2.0f32, -2.0, 1.0, 0.3, -0.013];
    let quads = padded_quads(row.len());
    let (mut high, mut low) = (vec![0u32; quads], vec![0u32; quads]);
    let scale = quantise_row_split(Int8Path::Portable, &row, &mut high, &mut low);
    assert_eq!(scale, 2.0 / 127.0);
    let inverse = 127.0 / 2.0;
    for (i, &x) in row.iter().enumerate() {
        let q = (x * inverse).round_ties_even() as i32;
        assert_eq!(byte(&high, i), q, "high byte {i}");
        assert_eq!(byte(&low, i), loss(x, inverse), "low byte {i}");
        // Together within half a fine step of the value.
        let kept = (q as f32 + byte(&low, i) as f32 / 254.0) * scale;
        assert!((kept - x).abs() <= scale / 508.0 * 1.001, "value {i}");
    }
    assert_eq!(byte(&low, 0), 0, "the largest is exact");
    assert_eq!(
        byte(&low, 2),
        -127,
        "63.5 steps round to 64: half a step lost"
    );
    assert!(
        (row.len()..4 * quads).all(|i| byte(&low, i) == 0),
        "padded with zeros"
    );
}

#[test]
fn a_split_layer_keeps_each_weights_loss_and_both_offsets() {
    let (k, n) = (7, COLUMN_BLOCK + 3);
    let w = values(k * n, 12);
    let layer = QuantLayer::new(k, n, &w);
    for c in 0..n {
        let max = (0..k).fold(0.0f32, |m, i| m.max(w[i * n + c].abs()));
        let inverse = 127.0 / max;
        let block = layer.low.block(c / COLUMN_BLOCK);
        let lane = c % COLUMN_BLOCK;
        let mut sum = 0;
        for i in 0..k {
            let word = block[(i / 4) * COLUMN_BLOCK + lane];
            let l = (word >> (8 * (i % 4))) as u8 as i8 as i32;
            assert_eq!(l, loss(w[i * n + c], inverse), "column {c}, row {i}");
            sum += l;
        }
        assert_eq!(layer.low.offsets[c], 128 * sum, "column {c}'s low offset");
        let cross = layer.high.offsets[c] + layer.low.offsets[c];
        assert_eq!(layer.cross_offsets[c], cross, "column {c}'s cross offset");
        assert_eq!(layer.low.scales[c], layer.high.scales[c] / 254.0);
    }
}

#[test]
fn the_portable_split_product_is_the_exact_sum_of_its_three_products() {
    for &(rows, k, n) in &SHAPES {
        let (a, w) = (values(rows * k, 13), values(k * n, 14));
        let layer = QuantLayer::new(k, n, &w);
        let mut quantised = QuantRows::default();
        quantised.fill(Int8Path::Portable, rows, k, &a[..], true, 1);
        let out = run_split(
            Int8Path::Portable,
            &a,
            &layer,
            rows,
            k,
            &vec![0.0; rows * n],
            true,
        );
        let weight = |i: usize, c: usize, low: bool| {
            let part = if low { &layer.low } else { &layer.high };
            let word = part.block(c / COLUMN_BLOCK)[(i / 4) * COLUMN_BLOCK + c % COLUMN_BLOCK];
            (word >> (8 * (i % 4))) as u8 as i8 as f64
        };
        for r in 0..rows {
            let quads = &quantised.data[r * quantised.quads..][..quantised.quads];
            let low = &quantised.low[r * quantised.quads..][..quantised.quads];
            for c in 0..n {
                // High by high, and the two cross products on the finer
                // step; low by low is left out.
                let exact: f64 = (0..k)
                    .map(|i| {
                        let (ah, al) = (byte(quads, i) as f64, byte(low, i) as f64);
                        ah * weight(i, c, false)
                            + (al * weight(i, c, false) + ah * weight(i, c, true)) / 254.0
                    })
                    .sum::<f64>()
                    * quantised.scales[r] as f64
                    * layer.high.scales[c] as f64;
                let step = quantised.scales[r] as f64 * layer.high.scales[c] as f64;
                let got = out[r * n + c] as f64;
                let tolerance = 1e-5 * (exact.abs() + step * k as f64);
                assert!(
                    (got - exact).abs() <= tolerance,
                    "{rows}×{k}·{k}×{n} at ({r}, {c}): {got} against {exact}"
                );
            }
        }
    }
}

/// Both split: each operand kept to about 15 bits; the error is what each
/// fine quantisation lost, and the low-by-low product left out (at most a
/// quarter of one step times the other).
#[test]
fn split_weights_and_activations_leave_a_small_error() {
    for &(rows, k, n) in &SHAPES {
        let (a, w) = (values(rows * k, 10), values(k * n, 11));
        let packed = QuantLayer::new(k, n, &w);
        let zeros = vec![0.0; rows * n];
        let out = run_split(Int8Path::Portable, &a, &packed, rows, k, &zeros, true);
        assert_within((&a, &w, &out), (rows, k, n), |x, y, a_step, w_step| {
            x.abs() * w_step / 508.0 + (y.abs() + w_step) * a_step / 508.0 + a_step * w_step / 4.0
        });
    }
}

#[test]
fn rows_made_as_they_are_quantised_are_the_made_matrix_quantised() {
    // The gated feed-forward's hidden rows, enough of them that the
    // quantising is shared between threads: each row made just before it
    // is quantised gives the bytes and scales of the rows made first.
    let (rows, k) = (300, 256);
    let hidden = values(rows * k, 41);
    let gate = values(rows * k, 42);
    let mut gated = vec![0.0; rows * k];
    crate::forward::elementwise::silu_gate_rounded(&hidden, &gate, &mut gated);
    let made = crate::forward::bf16::GatedRows {
        values: &hidden,
        gate: &gate,
    };
    for path in std::iter::once(Int8Path::Portable).chain(hardware_paths()) {
        for split in [false, true] {
            let mut expected = QuantRows::default();
            expected.fill(path, rows, k, &gated[..], split, 1);
            for threads in [1, 2] {
                let mut quantised = QuantRows::default();
                quantised.fill(path, rows, k, &made, split, threads);
                let case = format!("{path:?}, split {split}, {threads} threads");
                assert_eq!(quantised.data, expected.data, "{case}");
                assert_eq!(quantised.scales, expected.scales, "{case}");
                assert_eq!(quantised.low, expected.low, "{case}");
            }
        }
    }
}

#[test]
fn a_split_layer_in_several_groups_of_columns_gives_the_portable_results() {
    // Weights of 2 × 1024 × 320 bytes: more than the AMX product takes in
    // one group of columns, and rows past the last whole tile.
    let (rows, k, n) = (20, 1024, 320);
    let (a, w) = (values(rows * k, 8), values(k * n, 9));
    let packed = QuantLayer::new(k, n, &w);
    let init = values(rows * n, 10);
    let portable = run_split(Int8Path::Portable, &a, &packed, rows, k, &init, true);
    for path in hardware_paths() {
        let fast = run_split(path, &a, &packed, rows, k, &init, true);
        let same = portable
            .iter()
            .zip(&fast)
            .all(|(p, f)| p.to_bits() == f.to_bits());
        assert!(same, "{path:?}");
    }
}
