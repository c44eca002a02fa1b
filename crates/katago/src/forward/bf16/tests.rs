//! The bf16 products on every path against each other and against exact
//! sums, and the packing of each operand against the dense packers.

use super::{pack_pairs, pack_pairs_portable, product, Bf16Path, PackedRows, PackedWeights};
use crate::forward::cpu::{Features, Unit};
use crate::forward::kernels::{round_to_bf16, Grid};
use crate::model::Activation;

/// Values of varied sign and magnitude, as activations and weights are.
pub(crate) fn values(count: usize, seed: u32) -> Vec<f32> {
    let mut state = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..count)
        .map(|_| {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let unit = (state >> 8) as f32 / (1u32 << 24) as f32 - 0.5;
            let scale = [0.01, 0.3, 1.0, 7.0][(state & 3) as usize];
            unit * scale
        })
        .collect()
}

/// The units of this CPU that have a bf16 path.
fn hardware_paths() -> Vec<Bf16Path> {
    Features::detect()
        .units()
        .into_iter()
        .filter_map(Unit::bf16_path)
        .collect()
}

/// `a · w` in f64 over the operands as the bf16 product sees them
/// (rounded, or split in two roundings), and the sum of the
/// magnitudes of the terms (the scale of the float error).
fn expected(
    a: &[f32],
    w: &[f32],
    rows: usize,
    k: usize,
    n: usize,
    split: bool,
) -> (Vec<f64>, Vec<f64>) {
    let (mut sums, mut scales) = (vec![0.0; rows * n], vec![0.0; rows * n]);
    for r in 0..rows {
        for c in 0..n {
            for i in 0..k {
                let x = a[r * k + i];
                let high = round_to_bf16(x);
                let x = if split {
                    high as f64 + round_to_bf16(x - high) as f64
                } else {
                    high as f64
                };
                let term = x * round_to_bf16(w[i * n + c]) as f64;
                sums[r * n + c] += term;
                scales[r * n + c] += term.abs();
            }
        }
    }
    (sums, scales)
}

#[test]
fn the_portable_product_is_the_product_of_the_rounded_operands() {
    for &(rows, k, n) in &[(1, 1, 1), (3, 5, 7), (13, 40, 33), (20, 64, 64)] {
        for split in [false, true] {
            let (a, w) = (values(rows * k, 1), values(k * n, 2));
            let packed = PackedWeights::new(k, n, &w);
            let mut rows_bf16 = PackedRows::default();
            rows_bf16.fill(Bf16Path::Portable, rows, k, &a[..], split, 1);
            let mut out = vec![0.0f32; rows * n];
            product(
                Bf16Path::Portable,
                &rows_bf16,
                0,
                rows,
                &packed,
                &mut out,
                false,
            );
            let (sums, scales) = expected(&a, &w, rows, k, n, split);
            for i in 0..rows * n {
                let error = (out[i] as f64 - sums[i]).abs();
                assert!(
                    error <= 1e-6 * scales[i] + 1e-30,
                    "{rows}×{k}×{n} split {split}: {} against {}",
                    out[i],
                    sums[i]
                );
            }
        }
    }
}

/// Every hardware path against the portable one, on shapes that
/// exercise whole tiles and every kind of edge, overwriting and
/// accumulating, one rounding and two.
#[test]
fn hardware_products_match_the_portable_one() {
    let paths = hardware_paths();
    if paths.is_empty() {
        eprintln!("no bf16 units on this CPU: only the portable path is tested");
    }
    let shapes = [
        (1, 2, 16),
        (5, 17, 3),
        (12, 32, 32),
        (13, 48, 45),
        (31, 100, 64),
        (64, 64, 64),
        (70, 130, 100),
        (96, 288, 96),
        (40, 32, 96),
        (9, 20, 64),
        (57, 30, 160),
    ];
    for path in paths {
        for &(rows, k, n) in &shapes {
            for split in [false, true] {
                for accumulate in [false, true] {
                    let (a, w) = (values(rows * k, 3), values(k * n, 4));
                    let start = values(rows * n, 5);
                    let packed = PackedWeights::new(k, n, &w);
                    let mut reference_rows = PackedRows::default();
                    reference_rows.fill(Bf16Path::Portable, rows, k, &a[..], split, 1);
                    let mut hardware_rows = PackedRows::default();
                    hardware_rows.fill(path, rows, k, &a[..], split, 2);
                    assert_eq!(
                        reference_rows.high, hardware_rows.high,
                        "{path:?} rounds as the reference"
                    );
                    assert_eq!(reference_rows.low, hardware_rows.low);
                    let mut expected = start.clone();
                    product(
                        Bf16Path::Portable,
                        &reference_rows,
                        0,
                        rows,
                        &packed,
                        &mut expected,
                        accumulate,
                    );
                    let mut got = start.clone();
                    product(path, &hardware_rows, 0, rows, &packed, &mut got, accumulate);
                    let (_, scales) = self::expected(&a, &w, rows, k, n, split);
                    for i in 0..rows * n {
                        let error = (got[i] - expected[i]).abs() as f64;
                        let bound = 1e-5 * (scales[i] + start[i].abs() as f64) + 1e-30;
                        assert!(
                            error <= bound,
                            "{path:?} {rows}×{k}×{n} split {split} accumulate {accumulate} at {i}: {} against {}",
                            got[i],
                            expected[i]
                        );
                    }
                }
            }
        }
    }
}

/// A row's sums do not depend on where it falls in a product: the rows
/// taken in two pieces, cut anywhere, give the whole product's sums bit
/// for bit. (AMX once left the rows past its last whole tile to
/// AVX-512, whose sums round differently, so a position's answer changed
/// with its batch and its threads.)
#[test]
fn a_product_in_pieces_is_the_whole_product() {
    for path in all_paths() {
        for &(rows, k, n) in &[(41, 64, 70), (75, 96, 64), (9, 130, 33), (41, 32, 128)] {
            for split in [false, true] {
                for accumulate in [false, true] {
                    let (a, w) = (values(rows * k, 6), values(k * n, 7));
                    let start = values(rows * n, 8);
                    let packed = PackedWeights::new(k, n, &w);
                    let mut packed_rows = PackedRows::default();
                    packed_rows.fill(path, rows, k, &a[..], split, 1);
                    let mut whole = start.clone();
                    product(path, &packed_rows, 0, rows, &packed, &mut whole, accumulate);
                    for cut in [1, 5, 16, rows / 2, rows - 1]
                        .into_iter()
                        .filter(|&c| c < rows)
                    {
                        let mut pieces = start.clone();
                        let (first, second) = pieces.split_at_mut(cut * n);
                        product(path, &packed_rows, 0, cut, &packed, first, accumulate);
                        product(
                            path,
                            &packed_rows,
                            cut,
                            rows - cut,
                            &packed,
                            second,
                            accumulate,
                        );
                        assert!(
                            pieces.iter().zip(&whole).all(|(x, y)| x.to_bits() == y.to_bits()),
                            "{path:?} {rows}×{k}×{n} split {split} accumulate {accumulate}, cut at row {cut}"
                        );
                    }
                }
            }
        }
    }
}

/// Every path, the portable one included.
fn all_paths() -> Vec<Bf16Path> {
    let mut paths = vec![Bf16Path::Portable];
    paths.extend(hardware_paths());
    paths
}

#[test]
fn attention_operands_pack_as_their_dense_matrices() {
    // (k, n, stride, offset): keys are d × points, values points × dv.
    for &(k, n, stride, offset) in &[
        (32, 81, 192, 32),
        (64, 361, 64, 0),
        (7, 5, 9, 2),
        (33, 40, 40, 0),
        (361, 32, 192, 32),
        (48, 64, 64, 0),
    ] {
        let src = values(offset + stride * (n.max(k) + 4) + n.max(k), 11);
        // Keys: column j is src[offset + j * stride..][..k].
        let mut transposed = vec![0.0f32; k * n];
        for i in 0..k {
            for j in 0..n {
                transposed[i * n + j] = src[offset + j * stride + i];
            }
        }
        let expected = PackedWeights::new(k, n, &transposed);
        for path in all_paths() {
            let mut keys = PackedWeights::empty();
            keys.fill_columns(path, k, n, n, &src, offset, stride);
            assert_eq!((keys.n, keys.pairs), (expected.n, expected.pairs));
            assert_eq!(keys.data, expected.data, "{path:?} keys {k}×{n}");
        }
        // Padded with zero columns to whole blocks, into a buffer used
        // before for another shape, and filled twice (the second fill keeps
        // the padding it found).
        let width = n.next_multiple_of(super::COLUMN_BLOCK);
        let mut wide = vec![0.0f32; k * width];
        for i in 0..k {
            wide[i * width..][..n].copy_from_slice(&transposed[i * n..][..n]);
        }
        let expected = PackedWeights::new(k, width, &wide);
        for path in all_paths() {
            let mut keys = PackedWeights::empty();
            keys.fill_columns(path, k - 1, n + 3, width + 32, &src, offset + 1, stride);
            for _ in 0..2 {
                keys.fill_columns(path, k, n, width, &src, offset, stride);
                assert_eq!((keys.n, keys.pairs), (width, expected.pairs));
                assert_eq!(keys.data, expected.data, "{path:?} keys {k}×{n} in {width}");
            }
        }
        // Values: row i is src[offset + i * stride..][..n], n ≤ stride.
        let n = n.min(stride);
        let mut dense = vec![0.0f32; k * n];
        for i in 0..k {
            dense[i * n..(i + 1) * n].copy_from_slice(&src[offset + i * stride..][..n]);
        }
        let expected = PackedWeights::new(k, n, &dense);
        for path in all_paths() {
            let mut rows = PackedWeights::empty();
            // Filled twice, larger first: nothing of the first stays.
            rows.fill_rows(path, k + 3, n, &src, 0, stride);
            rows.fill_rows(path, k, n, &src, offset, stride);
            assert_eq!(rows.data, expected.data, "{path:?} values {k}×{n}");
        }
        // Queries: rows of k at a stride, as a dense copy packs them.
        let dense_rows: Vec<f32> = (0..n)
            .flat_map(|r| src[offset + r * stride..][..k.min(stride)].to_vec())
            .collect();
        let k = k.min(stride);
        for path in all_paths() {
            for split in [false, true] {
                let mut expected = PackedRows::default();
                expected.fill(Bf16Path::Portable, n, k, &dense_rows[..], split, 1);
                let mut strided = PackedRows::default();
                strided.fill_strided(path, n, k, &src, offset, stride, split);
                assert_eq!(strided.high, expected.high, "{path:?} queries");
                assert_eq!(strided.low, expected.low, "{path:?} queries, split");
            }
        }
    }
}

#[test]
fn softmax_pairs_are_the_rounded_numerators_of_the_softmax() {
    for &(width, scale) in &[
        (1, 1.0),
        (17, 0.125),
        (81, 0.176_776_7),
        (361, 0.125),
        (64, 2.0),
    ] {
        let mut row = values(width, width as u32);
        // Scores of attention's size, one far below the rest.
        row.iter_mut().for_each(|x| *x *= 8.0);
        row[width / 2] -= 300.0;
        let max = row.iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x)) as f64;
        let exact: Vec<f64> = row
            .iter()
            .map(|&x| ((x as f64 - max) * scale as f64).exp())
            .collect();
        let inverse_exact = 1.0 / exact.iter().sum::<f64>();
        for path in all_paths() {
            let pairs = super::padded_pairs(width);
            let mut dst = vec![u32::MAX; pairs];
            let inverse = super::softmax_pairs(path, &row, scale, &mut dst);
            assert!(
                (inverse as f64 - inverse_exact).abs() <= 1e-4 * inverse_exact,
                "{path:?} width {width}: 1/sum {inverse} against {inverse_exact}"
            );
            // The largest score's numerator is 1 exactly.
            let largest = row.iter().position(|&x| x as f64 == max).unwrap();
            let pair = dst[largest / 2];
            let bits = if largest % 2 == 0 {
                pair << 16
            } else {
                pair & 0xffff_0000
            };
            assert_eq!(f32::from_bits(bits), 1.0, "{path:?} width {width}");
            for (i, &e) in exact.iter().enumerate() {
                let bits = if i % 2 == 0 {
                    dst[i / 2] << 16
                } else {
                    dst[i / 2] & 0xffff_0000
                };
                let got = f32::from_bits(bits) as f64;
                // bf16 keeps 8 bits: half an ulp is 2^-9 of the value.
                assert!(
                    (got - e).abs() <= e * (1.0 / 256.0) + 1e-30,
                    "{path:?} width {width} at {i}: {got} against {e}"
                );
            }
            if width % 2 == 1 {
                assert_eq!(dst[width / 2] >> 16, 0, "the pad of the last pair");
            }
            assert!(
                dst[width.div_ceil(2)..].iter().all(|&p| p == 0),
                "{path:?}: padding zero"
            );
        }
    }
}

#[test]
fn hardware_rounding_is_the_portable_rounding() {
    let mut src = values(1000, 6);
    src.extend([0.0, -0.0, 1.0, f32::MAX, f32::MIN, f32::INFINITY]);
    // Halfway cases, ties to even.
    src.extend([f32::from_bits(0x3f80_8000), f32::from_bits(0x3f81_8000)]);
    for path in hardware_paths() {
        let mut portable = vec![0u32; src.len().div_ceil(2) + 3];
        let mut hardware = vec![7u32; src.len().div_ceil(2) + 3];
        pack_pairs_portable(&src, &mut portable);
        pack_pairs(path, &src, &mut hardware);
        assert_eq!(portable, hardware, "{path:?}");
    }
}

#[test]
fn unrolled_rows_are_the_rows_of_the_unrolled_input() {
    let grid = Grid {
        batch: 2,
        width: 5,
        height: 4,
    };
    let channels = 6;
    let input = values(grid.rows() * channels, 7);
    // The unrolled input in f32, as the f32 convolution builds it.
    let (ky, kx) = (3, 3);
    let row = ky * kx * channels;
    let mut unrolled = vec![0.0f32; grid.rows() * row];
    for b in 0..grid.batch {
        for y in 0..grid.height {
            for x in 0..grid.width {
                for dy in 0..ky {
                    for dx in 0..kx {
                        let (sy, sx) = (y as isize + dy as isize - 1, x as isize + dx as isize - 1);
                        if sy < 0
                            || sx < 0
                            || sy >= grid.height as isize
                            || sx >= grid.width as isize
                        {
                            continue;
                        }
                        let src =
                            (b * grid.points() + sy as usize * grid.width + sx as usize) * channels;
                        let dst = (b * grid.points() + y * grid.width + x) * row
                            + (dy * kx + dx) * channels;
                        unrolled[dst..dst + channels].copy_from_slice(&input[src..src + channels]);
                    }
                }
            }
        }
    }
    // The unrolling writes every element: buffers that held other values
    // (another input, the other rounding, more rows) give the same rows.
    let mut garbage = vec![f32::NAN; grid.rows() * row];
    crate::forward::kernels::unroll(grid, (ky, kx), channels, &input, row, &mut garbage);
    assert!(garbage
        .iter()
        .zip(&unrolled)
        .all(|(a, b)| a.to_bits() == b.to_bits()));
    let mut direct = PackedRows::default();
    let larger = Grid { batch: 3, ..grid };
    let other = values(larger.rows() * channels, 8);
    direct.fill_unrolled(Bf16Path::Portable, larger, (ky, kx), channels, &other, true);
    for split in [true, false, true] {
        direct.fill_unrolled(Bf16Path::Portable, grid, (ky, kx), channels, &input, split);
        let mut via_f32 = PackedRows::default();
        via_f32.fill(
            Bf16Path::Portable,
            grid.rows(),
            row,
            &unrolled[..],
            split,
            2,
        );
        assert_eq!(direct.pairs, via_f32.pairs);
        assert_eq!(direct.high, via_f32.high);
        assert_eq!(direct.low, via_f32.low);
    }
}

#[test]
fn gated_rows_pack_as_the_gated_matrix() {
    // Enough values that the packing is shared between threads.
    let (rows, k) = (300, 256);
    let hidden = values(rows * k, 21);
    let gate = values(rows * k, 22);
    let mut gated = vec![0.0; rows * k];
    crate::forward::elementwise::silu_gate_rounded(&hidden, &gate, &mut gated);
    let made = super::GatedRows {
        values: &hidden,
        gate: &gate,
    };
    for path in all_paths() {
        for split in [false, true] {
            for threads in [1, 2] {
                let mut expected = PackedRows::default();
                expected.fill(path, rows, k, &gated[..], split, 1);
                let mut packed = PackedRows::default();
                packed.fill(path, rows, k, &made, split, threads);
                assert_eq!(
                    packed.high, expected.high,
                    "{path:?}, split {split}, {threads} threads"
                );
                assert_eq!(
                    packed.low, expected.low,
                    "{path:?}, split {split}, {threads} threads"
                );
            }
        }
    }
}

#[test]
fn a_block_of_softmax_rows_is_each_row_alone() {
    // Blocks of every count around the four rows taken at a time, rows of
    // attention's widths, each within a wider row of scores.
    for &(k, width) in &[(361, 384), (81, 96), (17, 32), (32, 32)] {
        for rows in [1, 3, 4, 5, 8, 9] {
            let scores: Vec<f32> = values(rows * width, (k + rows) as u32)
                .iter()
                .map(|x| x * 6.0)
                .collect();
            for path in all_paths() {
                let mut block = super::PackedRows::default();
                let mut inverse = vec![0.0; rows];
                block.fill_softmax(path, (rows, k, width), &scores, 0.17, &mut inverse);
                for (r, row) in scores.chunks(width).enumerate() {
                    let mut alone = vec![u32::MAX; super::padded_pairs(k)];
                    let sum = super::softmax_pairs(path, &row[..k], 0.17, &mut alone);
                    let pairs = &block.high[r * block.pairs..(r + 1) * block.pairs];
                    assert_eq!(pairs, &alone[..], "{path:?}, k {k}, row {r} of {rows}");
                    assert_eq!(inverse[r], sum, "{path:?}, k {k}, row {r} of {rows}");
                }
            }
        }
    }
}

#[test]
fn normalised_rows_are_the_norms_rows() {
    use super::Rows;
    let (rows, k) = (5, 83);
    let mut input = values(rows * k, 31);
    input.iter_mut().for_each(|x| *x *= 9.0);
    input[..6].copy_from_slice(&[-300.0, -90.0, -20.0, 0.0, 40.0, 300.0]);
    let norm = crate::model::Norm {
        name: "test".to_string(),
        scale: values(k, 32).iter().map(|s| 1.0 + s).collect(),
        bias: values(k, 33),
    };
    let mut row = Vec::new();
    for act in [Activation::Silu, Activation::Mish, Activation::Relu] {
        let mut want = Vec::new();
        crate::forward::elementwise::norm_act(&norm, act, &input, &mut want);
        let made = crate::forward::elementwise::NormActRows {
            norm: &norm,
            act,
            input: &input,
        };
        // Rounded right after, SiLU and Mish may be made to 2⁻²⁰ (more
        // where they are tiny, see `elementwise::silu_gate_rounded`).
        let tolerance = if act == Activation::Relu {
            0.0
        } else {
            1.0 / (1 << 20) as f32
        };
        for r in 0..rows {
            let got = made.row(r, k, &mut row);
            let rows = got
                .iter()
                .zip(&want[r * k..][..k])
                .zip(&input[r * k..][..k]);
            for ((&got, &want), &x) in rows {
                let x = x * (1.0 + norm.scale.iter().fold(0.0f32, |m, s| m.max(s.abs())));
                let bound = tolerance * (1.0 + x.abs() / 8.0) * want.abs() + 1e-30;
                assert!((got - want).abs() <= bound, "{act:?}: {got}, want {want}");
            }
        }
    }
    let mut want = Vec::new();
    crate::forward::elementwise::rms_norm_rows(&norm.scale, 1e-6, &input, &mut want);
    let made = crate::forward::elementwise::RmsRows {
        weight: &norm.scale,
        epsilon: 1e-6,
        input: &input,
    };
    for r in 0..rows {
        assert_eq!(made.row(r, k, &mut row), &want[r * k..][..k]);
    }
}

#[test]
fn heads_packed_directly_are_the_gathered_rows_packed() {
    // Heads as attention reads them: within rows of every head side by
    // side, turned in pairs by a rotary table or not, for boards whose
    // points fill the last block of columns or not.
    for &(k, points, width) in &[(32, 361, 384), (64, 49, 64), (32, 7, 32), (32, 40, 40)] {
        let (heads, head) = (3, 1);
        let stride = heads * k;
        let src = values(points * stride + 5, (k + points) as u32);
        let table: Vec<f32> = values(points * k, 77).iter().map(|x| x * 3.0).collect();
        for factors in [&[][..], &table[..]] {
            let at = head * k + 5;
            let rows = super::HeadRows {
                src: &src,
                at,
                stride,
                k,
                points,
                factors,
            };
            // The rows gathered and turned as the portable rotation does.
            let mut gathered = vec![0.0f32; points * k];
            for (p, row) in gathered.chunks_exact_mut(k).enumerate() {
                let v = &src[at + p * stride..][..k];
                for i in 0..k {
                    row[i] = if factors.is_empty() {
                        v[i]
                    } else {
                        let (cos, sin) = (factors[p * k + (i & !1)], factors[p * k + (i | 1)]);
                        let sin = if i % 2 == 0 { -sin } else { sin };
                        v[i] * cos + v[i ^ 1] * sin
                    };
                }
            }
            for path in hardware_paths() {
                if !rows.packed_directly(path) {
                    continue;
                }
                for split in [false, true] {
                    let (mut direct, mut want) = (PackedRows::default(), PackedRows::default());
                    direct.fill_head(path, &rows, split);
                    want.fill_strided(path, points, k, &gathered, 0, k, split);
                    assert_eq!(&direct.high[..], &want.high[..], "{path:?} k {k} rows");
                    assert_eq!(&direct.low[..], &want.low[..], "{path:?} k {k} remainders");
                }
                let (mut direct, mut want) = (PackedWeights::empty(), PackedWeights::empty());
                // Reused buffers first filled with something else: every
                // entry is written again.
                direct.fill_columns(path, k, points, width, &values(points * k, 3), 0, k);
                direct.fill_head_columns(path, &rows, width);
                want.fill_columns(path, k, points, width, &gathered, 0, k);
                assert_eq!(&direct.data[..], &want.data[..], "{path:?} k {k} columns");
            }
        }
    }
}
