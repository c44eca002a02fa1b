//! `VPDPWSSD` on 512-bit registers.

use std::arch::x86_64::*;

use super::{WordWeights, CHUNK_PAIRS, COLUMN_BLOCK};
use crate::forward::bf16::x86::{first_lanes, store_lanes};
use crate::forward::int8::largest_magnitude;

/// Rows of one register tile: 6 rows × 2 registers of 32-bit sums and 2 of
/// f32 totals, two registers of weights and one broadcast take 27 of the
/// 32 registers.
const TILE_ROWS: usize = 6;

/// [`super::quantise_row_portable`] on 512-bit registers, with the same
/// results for every finite row: the largest magnitude, then each value
/// times the inverse scale rounded to nearest even (`VCVTPS2DQ` under the
/// default rounding) and narrowed to 16 bits.
///
/// There is no clamp: in a finite row `|x| ≤ max`, so `|x · LEVELS / max|`
/// rounds to at most `LEVELS`. The narrowing saturates all the same, so a
/// value that is not finite still lands in 16 bits: −32768, where the
/// portable code makes 0 (a row the network does not make).
///
/// # Safety
/// The CPU must have AVX-512-VNNI (and BW, VL), and `dst` room for every
/// value of the row.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
pub(super) unsafe fn quantise_row(row: &[f32], dst: &mut [u32]) -> f32 {
    let (scale, inverse) = super::scales(largest_magnitude(row));
    let factor = _mm512_set1_ps(inverse);
    let halves: *mut i16 = dst.as_mut_ptr().cast();
    let mut i = 0;
    while i + 16 <= row.len() {
        // SAFETY: values i..i + 16 are inside `row`, halves i..i + 16
        // inside `dst` (the caller's promise).
        unsafe {
            let x = _mm512_loadu_ps(row.as_ptr().add(i));
            let q = _mm512_cvtsepi32_epi16(_mm512_cvtps_epi32(_mm512_mul_ps(x, factor)));
            _mm256_storeu_si256(halves.add(i).cast(), q);
        }
        i += 16;
    }
    if i < row.len() {
        let mask = first_lanes(row.len() - i);
        // SAFETY: the mask keeps the load inside `row` and the store inside
        // the row's halves of `dst`.
        unsafe {
            let x = _mm512_maskz_loadu_ps(mask, row.as_ptr().add(i));
            let q = _mm512_cvtsepi32_epi16(_mm512_cvtps_epi32(_mm512_mul_ps(x, factor)));
            _mm256_mask_storeu_epi16(halves.add(i).cast(), mask, q);
        }
    }
    // The padding: halves past the row hold zeros.
    for h in row.len()..dst.len() * 2 {
        // SAFETY: h is inside `dst`'s halves.
        unsafe { *halves.add(h) = 0 };
    }
    scale
}

/// See [`super::product`].
///
/// # Safety
/// The CPU must have AVX-512-VNNI; `data` must hold `row_scales.len()`
/// rows of `w.pairs` pairs and `out` as many rows of `w.n`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
pub(super) unsafe fn product(
    data: &[u32],
    row_scales: &[f32],
    w: &WordWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    let rows = row_scales.len();
    assert!(data.len() >= rows * w.pairs && out.len() >= rows * w.n);
    let blocks = w.n.div_ceil(COLUMN_BLOCK);
    let mut r = 0;
    while r < rows {
        let tile = (rows - r).min(TILE_ROWS);
        for block in 0..blocks {
            let cols = (w.n - block * COLUMN_BLOCK).min(COLUMN_BLOCK);
            let first_col = block * COLUMN_BLOCK;
            let operands = Operands {
                a: data[r * w.pairs..].as_ptr(),
                pairs: w.pairs,
                b: w.block(block).as_ptr(),
                row_scales: row_scales[r..].as_ptr(),
                column_scales: w.scales[first_col..].as_ptr(),
            };
            // SAFETY: the tile's rows and columns are inside `data`, `w`
            // and `out` (asserted above); the scales are padded to whole
            // blocks.
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

/// `acc + a · b` by `VPDPWSSD` itself, written out because the compiler
/// otherwise turns most of them into `VPMADDWD` and `VPADDD`, two
/// instructions where the CPU has one (`docs/performance.md`).
#[inline]
#[target_feature(enable = "avx512f,avx512vnni")]
fn dpwssd(acc: __m512i, a: __m512i, b: __m512i) -> __m512i {
    let mut acc = acc;
    // SAFETY: the instruction reads and writes these registers alone; the
    // function's target features include AVX-512-VNNI.
    unsafe {
        std::arch::asm!(
            "vpdpwssd {acc}, {a}, {b}",
            acc = inout(zmm_reg) acc,
            a = in(zmm_reg) a,
            b = in(zmm_reg) b,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    acc
}

/// What one register tile reads: rows of activations from `a` (`pairs` a
/// row), its block of packed weights from `b` (a pair's row every
/// [`COLUMN_BLOCK`]), the rows' scales and its columns' scales.
struct Operands {
    a: *const u32,
    pairs: usize,
    b: *const u32,
    row_scales: *const f32,
    column_scales: *const f32,
}

/// [`tile`] for `rows` (1 to [`TILE_ROWS`]) rows.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
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

/// `out[R][cols] (+)= a[R][pairs] · b[pairs][32]`: summed in 32-bit
/// integers [`CHUNK_PAIRS`] pairs at a time, each chunk's sums added in
/// f32, the totals scaled back, as [`super::product_portable`] does.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn tile<const R: usize>(
    operands: &Operands,
    out: *mut f32,
    out_stride: usize,
    cols: usize,
    accumulate: bool,
) {
    let Operands {
        a,
        pairs,
        b,
        row_scales,
        column_scales,
    } = *operands;
    let mut total = [[_mm512_setzero_ps(); 2]; R];
    let mut start = 0;
    while start < pairs {
        let end = (start + CHUNK_PAIRS).min(pairs);
        let mut acc = [[_mm512_setzero_si512(); 2]; R];
        for p in start..end {
            // SAFETY: the block's pair p is at b + p * 32, inside `b`.
            let (b0, b1) = unsafe {
                (
                    _mm512_loadu_si512(b.add(p * COLUMN_BLOCK).cast()),
                    _mm512_loadu_si512(b.add(p * COLUMN_BLOCK + 16).cast()),
                )
            };
            for (r, acc) in acc.iter_mut().enumerate() {
                // SAFETY: row r's pair p is at a + r * pairs + p, inside `a`.
                let x = _mm512_set1_epi32(unsafe { *a.add(r * pairs + p) } as i32);
                acc[0] = dpwssd(acc[0], x, b0);
                acc[1] = dpwssd(acc[1], x, b1);
            }
        }
        for (total, acc) in total.iter_mut().zip(&acc) {
            for half in 0..2 {
                total[half] = _mm512_add_ps(total[half], _mm512_cvtepi32_ps(acc[half]));
            }
        }
        start = end;
    }
    // SAFETY: the scales of a whole block are there (padded).
    let scales = unsafe {
        [
            _mm512_loadu_ps(column_scales),
            _mm512_loadu_ps(column_scales.add(16)),
        ]
    };
    let masks = [first_lanes(cols), first_lanes(cols.saturating_sub(16))];
    for (r, total) in total.iter().enumerate() {
        // SAFETY: the tile's row r has a scale.
        let row_scale = _mm512_set1_ps(unsafe { *row_scales.add(r) });
        for half in 0..2 {
            let mask = masks[half];
            if mask == 0 {
                continue;
            }
            let value = _mm512_mul_ps(total[half], _mm512_mul_ps(row_scale, scales[half]));
            // SAFETY: the mask keeps the store to the tile's columns.
            unsafe { store_lanes(out.add(r * out_stride + half * 16), mask, value, accumulate) };
        }
    }
}
