//! `VPDPBUSD` on 256-bit registers (AVX-VNNI, the VEX form of the CPUs
//! without AVX-512): the same integers and the same f32 results as
//! [`super::product_portable`], half a block of 16 columns at a time.

use std::arch::x86_64::*;

use super::x86::{Operands, SplitOperands};
use super::{QuantLayer, QuantWeights, COLUMN_BLOCK, LEVELS, LOW_STEP, OFFSET};

/// Rows of one register tile: 6 rows × 2 registers of sums, two of
/// weights and one broadcast take 15 of the 16 registers.
const TILE_ROWS: usize = 6;
/// Columns of one register tile: half a packed block.
const TILE_COLUMNS: usize = 16;

/// [`super::quantise_row_portable`] on 256-bit registers, with the same
/// results: eight values at a time, the last ones as the portable path
/// takes them.
#[target_feature(enable = "avx2,fma,avxvnni")]
pub(super) unsafe fn quantise_row(row: &[f32], dst: &mut [u32]) -> f32 {
    assert!(dst.len() * 4 >= row.len(), "room for every byte");
    let whole = row.len() / 8 * 8;
    let sign = _mm256_set1_ps(-0.0);
    let mut max = _mm256_setzero_ps();
    for i in (0..whole).step_by(8) {
        // SAFETY: 8 values from i are inside `row`.
        let x = unsafe { _mm256_loadu_ps(row.as_ptr().add(i)) };
        max = _mm256_max_ps(max, _mm256_andnot_ps(sign, x));
    }
    let mut lanes = [0.0f32; 8];
    // SAFETY: 8 floats into an array of 8.
    unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), max) };
    let max = row[whole..]
        .iter()
        .chain(&lanes)
        .fold(0.0f32, |m, x| m.max(x.abs()));
    let (scale, inverse) = super::scales(max);
    let factor = _mm256_set1_ps(inverse);
    let (low, high, offset) = (
        _mm256_set1_epi32(-(LEVELS as i32)),
        _mm256_set1_epi32(LEVELS as i32),
        _mm256_set1_epi32(OFFSET),
    );
    // The low byte of each 32-bit lane to the first four bytes of its
    // 128-bit half, then the two halves' words side by side.
    let bytes = _mm256_setr_epi8(
        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, //
        0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
    );
    let words = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
    for i in (0..whole).step_by(8) {
        // SAFETY: 8 values from i are inside `row`.
        let x = unsafe { _mm256_loadu_ps(row.as_ptr().add(i)) };
        // Rounded to nearest even under the default rounding, as
        // `round_ties_even`.
        let q = _mm256_cvtps_epi32(_mm256_mul_ps(x, factor));
        let q = _mm256_add_epi32(_mm256_min_epi32(_mm256_max_epi32(q, low), high), offset);
        let packed = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(q, bytes), words);
        let pair = _mm_cvtsi128_si64(_mm256_castsi256_si128(packed)) as u64;
        dst[i / 4] = pair as u32;
        dst[i / 4 + 1] = (pair >> 32) as u32;
    }
    super::quantise_bytes(&row[whole..], inverse, &mut dst[whole / 4..]);
    scale
}

/// See [`super::product`].
#[target_feature(enable = "avx2,fma,avxvnni")]
pub(super) unsafe fn product(
    data: &[u32],
    row_scales: &[f32],
    w: &QuantWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    let rows = row_scales.len();
    assert!(data.len() >= rows * w.quads && out.len() >= rows * w.n);
    let halves = w.n.div_ceil(TILE_COLUMNS);
    let mut r = 0;
    while r < rows {
        let tile = (rows - r).min(TILE_ROWS);
        for half in 0..halves {
            let first_col = half * TILE_COLUMNS;
            let (block, lane) = (first_col / COLUMN_BLOCK, first_col % COLUMN_BLOCK);
            let operands = Operands {
                a: data[r * w.quads..].as_ptr(),
                quads: w.quads,
                b: w.block(block)[lane..].as_ptr(),
                row_scales: row_scales[r..].as_ptr(),
                column_scales: w.scales[first_col..].as_ptr(),
                offsets: w.offsets[first_col..].as_ptr(),
            };
            let cols = (w.n - first_col).min(TILE_COLUMNS);
            // SAFETY: the tile's rows and columns are inside `data`, `w`
            // and `out` (asserted above); the scales and offsets are padded
            // to whole blocks, so 16 from `first_col` are there.
            unsafe {
                tile_dispatch(
                    tile,
                    &operands,
                    out.as_mut_ptr().add(r * w.n + first_col),
                    w.n,
                    cols,
                    accumulate,
                )
            };
        }
        r += tile;
    }
}

/// [`tile`] for `rows` (1 to [`TILE_ROWS`]) rows.
#[target_feature(enable = "avx2,fma,avxvnni")]
unsafe fn tile_dispatch(
    rows: usize,
    operands: &Operands,
    out: *mut f32,
    out_stride: usize,
    cols: usize,
    accumulate: bool,
) {
    macro_rules! go {
        ($($n:literal)*) => {
            match rows {
                // SAFETY: the caller's pointers and sizes, passed on;
                // `tile` has this function's target features.
                $($n => unsafe { tile::<$n>(operands, out, out_stride, cols, accumulate) },)*
                _ => unreachable!("a tile has 1 to {TILE_ROWS} rows"),
            }
        };
    }
    go!(1 2 3 4 5 6)
}

/// `out[R][cols] (+)= a[R][quads] · b[quads][16]`, summed in 32-bit
/// integers and scaled back to f32 as [`super::dequantise`] does.
#[inline]
#[target_feature(enable = "avx2,fma,avxvnni")]
unsafe fn tile<const R: usize>(
    operands: &Operands,
    out: *mut f32,
    out_stride: usize,
    cols: usize,
    accumulate: bool,
) {
    let Operands {
        a,
        quads,
        b,
        row_scales,
        column_scales,
        offsets,
    } = *operands;
    let mut acc = [[_mm256_setzero_si256(); 2]; R];
    for p in 0..quads {
        // SAFETY: the block's quad p holds 16 columns from b + p * 32.
        let (b0, b1) = unsafe {
            (
                _mm256_loadu_si256(b.add(p * COLUMN_BLOCK).cast()),
                _mm256_loadu_si256(b.add(p * COLUMN_BLOCK + 8).cast()),
            )
        };
        for (r, acc) in acc.iter_mut().enumerate() {
            // SAFETY: row r's quad p is at a + r * quads + p, inside `a`.
            let x = _mm256_set1_epi32(unsafe { *a.add(r * quads + p) } as i32);
            acc[0] = _mm256_dpbusd_avx_epi32(acc[0], x, b0);
            acc[1] = _mm256_dpbusd_avx_epi32(acc[1], x, b1);
        }
    }
    // SAFETY: 16 scales and offsets from the tile's first column (padded).
    let (scales, offs) = unsafe {
        (
            [
                _mm256_loadu_ps(column_scales),
                _mm256_loadu_ps(column_scales.add(8)),
            ],
            [
                _mm256_loadu_si256(offsets.cast()),
                _mm256_loadu_si256(offsets.add(8).cast()),
            ],
        )
    };
    for (r, acc) in acc.iter().enumerate() {
        // SAFETY: the tile's row r has a scale.
        let row_scale = _mm256_set1_ps(unsafe { *row_scales.add(r) });
        for part in 0..2 {
            let sum = _mm256_cvtepi32_ps(_mm256_sub_epi32(acc[part], offs[part]));
            let value = _mm256_mul_ps(sum, _mm256_mul_ps(row_scale, scales[part]));
            let first = part * 8;
            if first >= cols {
                continue;
            }
            // SAFETY: row r's columns first.. of the tile are inside `out`
            // up to `cols`.
            unsafe {
                store_8(
                    out.add(r * out_stride + first),
                    value,
                    cols - first,
                    accumulate,
                )
            };
        }
    }
}

/// Stores the first `count` (up to 8) lanes of `value` at `dst`, added to
/// what is there where `accumulate`.
///
/// # Safety
/// `count.min(8)` floats must be readable and writable at `dst`.
#[inline]
#[target_feature(enable = "avx2,fma,avxvnni")]
unsafe fn store_8(dst: *mut f32, value: __m256, count: usize, accumulate: bool) {
    let count = count.min(8);
    if count == 8 {
        // SAFETY: 8 columns from `dst` (the caller's).
        unsafe {
            let value = if accumulate {
                _mm256_add_ps(value, _mm256_loadu_ps(dst))
            } else {
                value
            };
            _mm256_storeu_ps(dst, value);
        }
    } else {
        let mut lanes = [0.0f32; 8];
        // SAFETY: 8 floats into an array of 8.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), value) };
        for (c, &v) in lanes[..count].iter().enumerate() {
            // SAFETY: column c < count, the caller's.
            unsafe {
                let d = dst.add(c);
                *d = if accumulate { *d + v } else { v };
            }
        }
    }
}

/// Rows of one register tile of a split product: 2 rows × 2 registers of
/// each of the two sums, two registers of each quantisation of the
/// weights and two broadcasts take 14 of the 16 registers.
const SPLIT_TILE_ROWS: usize = 2;

/// See [`super::product`]'s split case: the same integers and f32 results
/// as [`super::product_split_portable`], half a block at a time.
#[target_feature(enable = "avx2,fma,avxvnni")]
pub(super) unsafe fn product_split(
    (high, low): (&[u32], &[u32]),
    row_scales: &[f32],
    layer: &QuantLayer,
    out: &mut [f32],
    accumulate: bool,
) {
    let (wh, wl) = (&layer.high, &layer.low);
    let (rows, quads, n) = layer.split_shape((high, low), row_scales.len(), out.len());
    let halves = n.div_ceil(TILE_COLUMNS);
    let mut r = 0;
    while r < rows {
        let tile = (rows - r).min(SPLIT_TILE_ROWS);
        for half in 0..halves {
            let first_col = half * TILE_COLUMNS;
            let (block, lane) = (first_col / COLUMN_BLOCK, first_col % COLUMN_BLOCK);
            let operands = SplitOperands {
                a: (high[r * quads..].as_ptr(), low[r * quads..].as_ptr()),
                quads,
                b: (
                    wh.block(block)[lane..].as_ptr(),
                    wl.block(block)[lane..].as_ptr(),
                ),
                row_scales: row_scales[r..].as_ptr(),
                column_scales: wh.scales[first_col..].as_ptr(),
                offsets: (
                    wh.offsets[first_col..].as_ptr(),
                    layer.cross_offsets[first_col..].as_ptr(),
                ),
            };
            let cols = (n - first_col).min(TILE_COLUMNS);
            let out = out[r * n + first_col..].as_mut_ptr();
            // SAFETY: the tile's rows and columns are inside the operands
            // and `out` (asserted above); the scales and offsets are
            // padded to whole blocks, so 16 from `first_col` are there.
            unsafe {
                match tile {
                    1 => split_tile::<1>(&operands, out, n, cols, accumulate),
                    _ => split_tile::<2>(&operands, out, n, cols, accumulate),
                }
            };
        }
        r += tile;
    }
}

/// `out[R][cols] (+)= a · b` split, 16 columns: the high sum and the cross
/// products' sum of each output in 32-bit integers, scaled back and added
/// as [`super::dequantise_split`] does.
#[inline]
#[target_feature(enable = "avx2,fma,avxvnni")]
unsafe fn split_tile<const R: usize>(
    operands: &SplitOperands,
    out: *mut f32,
    out_stride: usize,
    cols: usize,
    accumulate: bool,
) {
    let SplitOperands {
        a: (a_high, a_low),
        quads,
        b: (b_high, b_low),
        row_scales,
        column_scales,
        offsets: (high_offsets, cross_offsets),
    } = *operands;
    let mut sums = [[_mm256_setzero_si256(); 2]; R];
    let mut cross = [[_mm256_setzero_si256(); 2]; R];
    for p in 0..quads {
        // SAFETY: the block's quad p holds 16 columns from b + p * 32 in
        // each quantisation.
        let (h, l) = unsafe {
            (
                [
                    _mm256_loadu_si256(b_high.add(p * COLUMN_BLOCK).cast()),
                    _mm256_loadu_si256(b_high.add(p * COLUMN_BLOCK + 8).cast()),
                ],
                [
                    _mm256_loadu_si256(b_low.add(p * COLUMN_BLOCK).cast()),
                    _mm256_loadu_si256(b_low.add(p * COLUMN_BLOCK + 8).cast()),
                ],
            )
        };
        for r in 0..R {
            // SAFETY: row r's quad p is at r * quads + p in each
            // quantisation of the rows.
            let (xh, xl) = unsafe {
                (
                    _mm256_set1_epi32(*a_high.add(r * quads + p) as i32),
                    _mm256_set1_epi32(*a_low.add(r * quads + p) as i32),
                )
            };
            for part in 0..2 {
                sums[r][part] = _mm256_dpbusd_avx_epi32(sums[r][part], xh, h[part]);
                cross[r][part] = _mm256_dpbusd_avx_epi32(cross[r][part], xl, h[part]);
                cross[r][part] = _mm256_dpbusd_avx_epi32(cross[r][part], xh, l[part]);
            }
        }
    }
    let low_step = _mm256_set1_ps(LOW_STEP);
    for r in 0..R {
        // SAFETY: the tile's row r has a scale.
        let row_scale = _mm256_set1_ps(unsafe { *row_scales.add(r) });
        for part in 0..2 {
            let first = part * 8;
            if first >= cols {
                continue;
            }
            // SAFETY: 16 scales and offsets from the tile's first column
            // (padded).
            let (column_scale, high_offset, cross_offset) = unsafe {
                (
                    _mm256_loadu_ps(column_scales.add(first)),
                    _mm256_loadu_si256(high_offsets.add(first).cast()),
                    _mm256_loadu_si256(cross_offsets.add(first).cast()),
                )
            };
            // The operations of `super::dequantise_split`, in its order.
            let scale = _mm256_mul_ps(row_scale, column_scale);
            let high = _mm256_cvtepi32_ps(_mm256_sub_epi32(sums[r][part], high_offset));
            let high = _mm256_mul_ps(high, scale);
            let cross = _mm256_cvtepi32_ps(_mm256_sub_epi32(cross[r][part], cross_offset));
            let cross = _mm256_mul_ps(cross, _mm256_mul_ps(scale, low_step));
            let value = _mm256_add_ps(high, cross);
            // SAFETY: row r's columns first.. of the tile are inside `out`
            // up to `cols`.
            unsafe {
                store_8(
                    out.add(r * out_stride + first),
                    value,
                    cols - first,
                    accumulate,
                )
            };
        }
    }
}
