//! `VPDPBUSD` on 512-bit registers.

use std::arch::x86_64::*;

use super::{QuantLayer, QuantWeights, COLUMN_BLOCK, LOW_LEVELS, LOW_STEP, OFFSET};
use crate::forward::bf16::x86::{first_lanes, store_lanes};

/// Rows of one register tile: 12 rows × 2 registers of sums, two of
/// weights and one broadcast take 27 of the 32 registers.
const TILE_ROWS: usize = 12;

/// [`super::quantise_row_portable`] on 512-bit registers, with the same
/// results for every finite row: the largest magnitude, then each value
/// times the inverse scale rounded to nearest even (`VCVTPS2DQ` under the
/// default rounding), offset and narrowed to a byte.
///
/// There is no clamp: in a finite row `|x| ≤ max`, so `|x · 127 / max|`
/// rounds to at most 127, and what a rounding loses is at most half a
/// step, 127 fine steps. The narrowing saturates all the same
/// ([`offset_bytes`], [`store_tail`]), so a value that is not finite
/// still lands in a byte: −128, where the portable code makes 0 (a row
/// the network does not make).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
pub(super) unsafe fn quantise_row(row: &[f32], dst: &mut [u32]) -> f32 {
    assert!(dst.len() * 4 >= row.len(), "room for every byte");
    // SAFETY: this function's target features; the room asserted above.
    unsafe { quantise_by_max(row, dst, largest_magnitude(row)) }
}

/// The largest magnitude in `row` (0 for an empty one): whole 64s on four
/// registers, whole 16s on one, the last values under a mask.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
pub(crate) fn largest_magnitude(row: &[f32]) -> f32 {
    let mut max = [_mm512_setzero_ps(); 4];
    let mut i = 0;
    while i + 64 <= row.len() {
        for (j, max) in max.iter_mut().enumerate() {
            // SAFETY: values i..i + 64 are inside `row`.
            let x = unsafe { _mm512_loadu_ps(row.as_ptr().add(i + 16 * j)) };
            *max = _mm512_max_ps(*max, _mm512_abs_ps(x));
        }
        i += 64;
    }
    while i < row.len() {
        let mask = first_lanes(row.len() - i);
        // SAFETY: the mask keeps the load inside `row`.
        let x = unsafe { _mm512_maskz_loadu_ps(mask, row.as_ptr().add(i)) };
        max[0] = _mm512_max_ps(max[0], _mm512_abs_ps(x));
        i += 16;
    }
    let [a, b, c, d] = max;
    _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(a, b), _mm512_max_ps(c, d)))
}

/// The second half of [`quantise_row`], given the row's largest magnitude
/// `max`: each value quantised, offset and narrowed to a byte, and the
/// padding; returns the row's scale.
///
/// # Safety
/// `dst` must have room for every byte of the row.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn quantise_by_max(row: &[f32], dst: &mut [u32], max: f32) -> f32 {
    let (scale, inverse) = super::scales(max);
    let factor = _mm512_set1_ps(inverse);
    let bytes: *mut u8 = dst.as_mut_ptr().cast();
    let mut i = 0;
    while i + 64 <= row.len() {
        let quantised: [__m512i; 4] = std::array::from_fn(|j| {
            // SAFETY: values i..i + 64 are inside `row`.
            let x = unsafe { _mm512_loadu_ps(row.as_ptr().add(i + 16 * j)) };
            _mm512_cvtps_epi32(_mm512_mul_ps(x, factor))
        });
        // SAFETY: bytes i..i + 64 of the row's quads, inside `dst`
        // (asserted by the caller).
        unsafe { _mm512_storeu_si512(bytes.add(i).cast(), offset_bytes(quantised)) };
        i += 64;
    }
    while i < row.len() {
        let mask = first_lanes(row.len() - i);
        // SAFETY: the mask keeps the load inside `row`, and the store
        // inside the row's bytes of `dst` (asserted by the caller).
        unsafe {
            let x = _mm512_maskz_loadu_ps(mask, row.as_ptr().add(i));
            store_tail(
                bytes.add(i),
                mask,
                _mm512_cvtps_epi32(_mm512_mul_ps(x, factor)),
            );
        }
        i += 16;
    }
    // The padding: bytes past the row hold the offset (a zero).
    for b in row.len()..dst.len() * 4 {
        // SAFETY: b is inside `dst`'s bytes.
        unsafe { *bytes.add(b) = OFFSET as u8 };
    }
    scale
}

/// 64 quantised values (four registers of 32-bit integers, within ±127
/// for a finite row) offset and narrowed to bytes in order: saturating
/// packs, which keep those as they are and anything else within a signed
/// byte, then the 32-bit groups put back in order.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
fn offset_bytes([a, b, c, d]: [__m512i; 4]) -> __m512i {
    // Within each 128-bit lane `l`: values 4l..4l + 4 of a, b, c, d.
    let lanes = _mm512_packs_epi16(_mm512_packs_epi32(a, b), _mm512_packs_epi32(c, d));
    let order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    let bytes = _mm512_permutexvar_epi32(order, lanes);
    // The offset of 128 added to each signed byte: its top bit flipped.
    _mm512_xor_si512(bytes, _mm512_set1_epi8(OFFSET as u8 as i8))
}

/// The first values of 16 quantised ones (those `mask` keeps) narrowed to
/// signed bytes with saturation, as [`offset_bytes`] narrows, offset, and
/// stored at `dst`.
///
/// # Safety
/// The bytes of `dst` that `mask` keeps must be writable.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn store_tail(dst: *mut u8, mask: __mmask16, quantised: __m512i) {
    let bytes = _mm_xor_si128(
        _mm512_cvtsepi32_epi8(quantised),
        _mm_set1_epi8(OFFSET as u8 as i8),
    );
    // SAFETY: the caller's promise.
    unsafe { _mm_mask_storeu_epi8(dst.cast(), mask, bytes) };
}

/// [`super::quantise_row_split_portable`] on 512-bit registers, with the
/// same results for every finite row: the row's largest magnitude, then
/// each value times the inverse scale (`t`) rounded to nearest even
/// (`q`), and what that lost (`t − q`) times [`LOW_LEVELS`] rounded again;
/// both offset and narrowed to bytes, saturating instead of clamped as
/// [`quantise_row`] says. Returns the row's scale.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
pub(super) unsafe fn quantise_row_split(row: &[f32], high: &mut [u32], low: &mut [u32]) -> f32 {
    assert!(high.len() * 4 >= row.len(), "room for every byte");
    assert!(
        low.len() * 4 >= row.len(),
        "room for every byte of the loss"
    );
    let (scale, inverse) = super::scales(largest_magnitude(row));
    let (factor, finer) = (_mm512_set1_ps(inverse), _mm512_set1_ps(LOW_LEVELS));
    // Both quantisations of 16 values.
    let quantised = |x: __m512| {
        let t = _mm512_mul_ps(x, factor);
        let q = _mm512_cvtps_epi32(t);
        let lost = _mm512_mul_ps(_mm512_sub_ps(t, _mm512_cvtepi32_ps(q)), finer);
        (q, _mm512_cvtps_epi32(lost))
    };
    let (high_bytes, low_bytes): (*mut u8, *mut u8) =
        (high.as_mut_ptr().cast(), low.as_mut_ptr().cast());
    let mut i = 0;
    while i + 64 <= row.len() {
        let mut q = [_mm512_setzero_si512(); 4];
        let mut l = [_mm512_setzero_si512(); 4];
        for j in 0..4 {
            // SAFETY: values i..i + 64 are inside `row`.
            let x = unsafe { _mm512_loadu_ps(row.as_ptr().add(i + 16 * j)) };
            (q[j], l[j]) = quantised(x);
        }
        // SAFETY: bytes i..i + 64 of the row's quads, inside `high` and
        // `low` (asserted above).
        unsafe {
            _mm512_storeu_si512(high_bytes.add(i).cast(), offset_bytes(q));
            _mm512_storeu_si512(low_bytes.add(i).cast(), offset_bytes(l));
        }
        i += 64;
    }
    while i < row.len() {
        let mask = first_lanes(row.len() - i);
        // SAFETY: the mask keeps the load inside `row`, and the stores
        // inside the row's bytes of `high` and `low` (asserted above).
        unsafe {
            let (q, l) = quantised(_mm512_maskz_loadu_ps(mask, row.as_ptr().add(i)));
            store_tail(high_bytes.add(i), mask, q);
            store_tail(low_bytes.add(i), mask, l);
        }
        i += 16;
    }
    // The padding: bytes past the row hold the offset (a zero).
    for b in row.len()..high.len() * 4 {
        // SAFETY: b is inside `high`'s bytes.
        unsafe { *high_bytes.add(b) = OFFSET as u8 };
    }
    for b in row.len()..low.len() * 4 {
        // SAFETY: b is inside `low`'s bytes.
        unsafe { *low_bytes.add(b) = OFFSET as u8 };
    }
    scale
}

/// See [`super::product`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
pub(super) unsafe fn product(
    data: &[u32],
    row_scales: &[f32],
    w: &QuantWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    // SAFETY: this function's target features; bounds checked there.
    unsafe { product_columns(data, row_scales, w, 0, out, accumulate) }
}

/// [`product`] for the columns of blocks `first_block..` alone (`out`
/// still `w.n` wide).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
pub(super) unsafe fn product_columns(
    data: &[u32],
    row_scales: &[f32],
    w: &QuantWeights,
    first_block: usize,
    out: &mut [f32],
    accumulate: bool,
) {
    let rows = row_scales.len();
    assert!(data.len() >= rows * w.quads && out.len() >= rows * w.n);
    let blocks = w.n.div_ceil(COLUMN_BLOCK);
    let mut r = 0;
    while r < rows {
        let tile = (rows - r).min(TILE_ROWS);
        for block in first_block..blocks {
            let cols = (w.n - block * COLUMN_BLOCK).min(COLUMN_BLOCK);
            let first_col = block * COLUMN_BLOCK;
            let operands = Operands {
                a: data[r * w.quads..].as_ptr(),
                quads: w.quads,
                b: w.block(block).as_ptr(),
                row_scales: row_scales[r..].as_ptr(),
                column_scales: w.scales[first_col..].as_ptr(),
                offsets: w.offsets[first_col..].as_ptr(),
            };
            // SAFETY: the tile's rows and columns are inside `data`, `w`
            // and `out` (asserted above and by `super::product`); the
            // scales and offsets are padded to whole blocks.
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

/// What one register tile reads: rows of activations from `a` (`quads` a
/// row), its columns of a packed block from `b` (a quad's row every
/// [`COLUMN_BLOCK`]), the rows' scales, and its columns' scales and
/// offsets. The 512-bit tile takes a whole block, the 256-bit one
/// (`super::avx_vnni`) half of one.
pub(super) struct Operands {
    pub a: *const u32,
    pub quads: usize,
    pub b: *const u32,
    pub row_scales: *const f32,
    pub column_scales: *const f32,
    pub offsets: *const i32,
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
    go!(1 2 3 4 5 6 7 8 9 10 11 12)
}

/// `out[R][cols] (+)= a[R][quads] · b[quads][32]`, summed in 32-bit
/// integers and scaled back to f32 as [`super::dequantise`] does.
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
        quads,
        b,
        row_scales,
        column_scales,
        offsets,
    } = *operands;
    let mut acc = [[_mm512_setzero_si512(); 2]; R];
    for p in 0..quads {
        // SAFETY: the block's quad p is at b + p * 32, inside `b`.
        let (b0, b1) = unsafe {
            (
                _mm512_loadu_si512(b.add(p * COLUMN_BLOCK).cast()),
                _mm512_loadu_si512(b.add(p * COLUMN_BLOCK + 16).cast()),
            )
        };
        for (r, acc) in acc.iter_mut().enumerate() {
            // SAFETY: row r's quad p is at a + r * quads + p, inside `a`.
            let x = _mm512_set1_epi32(unsafe { *a.add(r * quads + p) } as i32);
            acc[0] = _mm512_dpbusd_epi32(acc[0], x, b0);
            acc[1] = _mm512_dpbusd_epi32(acc[1], x, b1);
        }
    }
    // SAFETY: the scales and offsets of a whole block are there (padded).
    let (scales, offs) = unsafe { block_scales(column_scales, offsets) };
    let masks = [first_lanes(cols), first_lanes(cols.saturating_sub(16))];
    for (r, acc) in acc.iter().enumerate() {
        // SAFETY: the tile's row r has a scale.
        let row_scale = _mm512_set1_ps(unsafe { *row_scales.add(r) });
        for half in 0..2 {
            let mask = masks[half];
            if mask == 0 {
                continue;
            }
            let value = dequantise_16(acc[half], offs[half], row_scale, scales[half]);
            // SAFETY: the mask keeps the store to the tile's columns.
            unsafe { store_lanes(out.add(r * out_stride + half * 16), mask, value, accumulate) };
        }
    }
}

/// Rows of one register tile of a split product: 6 rows × 2 registers of
/// each of the two sums, two registers of each quantisation of the
/// weights and two broadcasts take 30 of the 32 registers.
const SPLIT_TILE_ROWS: usize = 6;

/// See [`super::product`]'s split case, for the columns of blocks
/// `first_block..` alone (`out` still `n` wide).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
pub(super) unsafe fn product_split(
    (high, low): (&[u32], &[u32]),
    row_scales: &[f32],
    layer: &QuantLayer,
    first_block: usize,
    out: &mut [f32],
    accumulate: bool,
) {
    let (wh, wl) = (&layer.high, &layer.low);
    let (rows, quads, n) = layer.split_shape((high, low), row_scales.len(), out.len());
    let blocks = n.div_ceil(COLUMN_BLOCK);
    let mut r = 0;
    while r < rows {
        let tile = (rows - r).min(SPLIT_TILE_ROWS);
        for block in first_block..blocks {
            let first_col = block * COLUMN_BLOCK;
            let operands = SplitOperands {
                a: (high[r * quads..].as_ptr(), low[r * quads..].as_ptr()),
                quads,
                b: (wh.block(block).as_ptr(), wl.block(block).as_ptr()),
                row_scales: row_scales[r..].as_ptr(),
                column_scales: wh.scales[first_col..].as_ptr(),
                offsets: (
                    wh.offsets[first_col..].as_ptr(),
                    layer.cross_offsets[first_col..].as_ptr(),
                ),
            };
            let cols = (n - first_col).min(COLUMN_BLOCK);
            // SAFETY: the tile's rows and columns are inside the operands
            // and `out` (asserted above); scales and offsets are padded to
            // whole blocks.
            unsafe {
                split_tile_dispatch(
                    tile,
                    &operands,
                    out.as_mut_ptr().add(r * n + first_col),
                    n,
                    cols,
                    accumulate,
                )
            };
        }
        r += tile;
    }
}

/// What one register tile of a split product reads: [`Operands`] with
/// the high and low quantisations of both operands, and each column's
/// offsets for the high sum and the cross products' sum.
pub(super) struct SplitOperands {
    pub a: (*const u32, *const u32),
    pub quads: usize,
    pub b: (*const u32, *const u32),
    pub row_scales: *const f32,
    pub column_scales: *const f32,
    pub offsets: (*const i32, *const i32),
}

/// [`split_tile`] for `rows` (1 to [`SPLIT_TILE_ROWS`]) rows.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn split_tile_dispatch(
    rows: usize,
    operands: &SplitOperands,
    out: *mut f32,
    out_stride: usize,
    cols: usize,
    accumulate: bool,
) {
    macro_rules! go {
        ($($n:literal)*) => {
            match rows {
                // SAFETY: the caller's pointers and sizes, passed on;
                // `split_tile` has this function's target features.
                $($n => unsafe { split_tile::<$n>(operands, out, out_stride, cols, accumulate) },)*
                _ => unreachable!("a tile has 1 to {SPLIT_TILE_ROWS} rows"),
            }
        };
    }
    go!(1 2 3 4 5 6)
}

/// `out[R][cols] (+)= a · b` split: the high sum and the cross products'
/// sum of each output in 32-bit integers, scaled back and added as
/// [`super::dequantise_split`] does.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
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
    let mut sums = [[_mm512_setzero_si512(); 2]; R];
    let mut cross = [[_mm512_setzero_si512(); 2]; R];
    for p in 0..quads {
        // SAFETY: the block's quad p is at b + p * 32 in each
        // quantisation, inside the blocks.
        let (h, l) = unsafe {
            (
                [
                    _mm512_loadu_si512(b_high.add(p * COLUMN_BLOCK).cast()),
                    _mm512_loadu_si512(b_high.add(p * COLUMN_BLOCK + 16).cast()),
                ],
                [
                    _mm512_loadu_si512(b_low.add(p * COLUMN_BLOCK).cast()),
                    _mm512_loadu_si512(b_low.add(p * COLUMN_BLOCK + 16).cast()),
                ],
            )
        };
        for r in 0..R {
            // SAFETY: row r's quad p is at r * quads + p in each
            // quantisation of the rows.
            let (xh, xl) = unsafe {
                (
                    _mm512_set1_epi32(*a_high.add(r * quads + p) as i32),
                    _mm512_set1_epi32(*a_low.add(r * quads + p) as i32),
                )
            };
            for half in 0..2 {
                sums[r][half] = _mm512_dpbusd_epi32(sums[r][half], xh, h[half]);
                cross[r][half] = _mm512_dpbusd_epi32(cross[r][half], xl, h[half]);
                cross[r][half] = _mm512_dpbusd_epi32(cross[r][half], xh, l[half]);
            }
        }
    }
    // SAFETY: the scales and offsets of a whole block are there (padded).
    let (scales, high_offs) = unsafe { block_scales(column_scales, high_offsets) };
    // SAFETY: as above, for the cross products' offsets.
    let (_, cross_offs) = unsafe { block_scales(column_scales, cross_offsets) };
    let masks = [first_lanes(cols), first_lanes(cols.saturating_sub(16))];
    for r in 0..R {
        // SAFETY: the tile's row r has a scale.
        let row_scale = _mm512_set1_ps(unsafe { *row_scales.add(r) });
        for half in 0..2 {
            let mask = masks[half];
            if mask == 0 {
                continue;
            }
            let value = dequantise_split_16(
                (sums[r][half], cross[r][half]),
                (high_offs[half], cross_offs[half]),
                row_scale,
                scales[half],
            );
            // SAFETY: the mask keeps the store to the tile's columns.
            unsafe { store_lanes(out.add(r * out_stride + half * 16), mask, value, accumulate) };
        }
    }
}

/// 16 outputs of a split product scaled back as
/// [`super::dequantise_split`] does: the high sums and the cross products'
/// sums, less their offsets, times the row's scale times the columns'
/// (the cross sums' also times [`LOW_STEP`]), added. Every path on 512-bit
/// registers goes through here, so all give the same f32.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn dequantise_split_16(
    (sums, cross): (__m512i, __m512i),
    (offsets, cross_offsets): (__m512i, __m512i),
    row_scale: __m512,
    column_scales: __m512,
) -> __m512 {
    let scale = _mm512_mul_ps(row_scale, column_scales);
    let high = _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(sums, offsets)), scale);
    let cross_scale = _mm512_mul_ps(scale, _mm512_set1_ps(LOW_STEP));
    let cross = _mm512_cvtepi32_ps(_mm512_sub_epi32(cross, cross_offsets));
    _mm512_add_ps(high, _mm512_mul_ps(cross, cross_scale))
}

/// The 32 column scales and offsets of a block, in two halves.
///
/// # Safety
/// 32 of each must be readable from `column_scales` and `offsets`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn block_scales(
    column_scales: *const f32,
    offsets: *const i32,
) -> ([__m512; 2], [__m512i; 2]) {
    // SAFETY: the caller's.
    unsafe {
        (
            [
                _mm512_loadu_ps(column_scales),
                _mm512_loadu_ps(column_scales.add(16)),
            ],
            [
                _mm512_loadu_si512(offsets.cast()),
                _mm512_loadu_si512(offsets.add(16).cast()),
            ],
        )
    }
}

/// 16 integer sums scaled back as [`super::dequantise`] does: less the
/// columns' offsets, times the row's scale times the columns' scales. Every
/// path on 512-bit registers goes through here, so all give the same f32.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) fn dequantise_16(
    sums: __m512i,
    offsets: __m512i,
    row_scale: __m512,
    column_scales: __m512,
) -> __m512 {
    let sums = _mm512_cvtepi32_ps(_mm512_sub_epi32(sums, offsets));
    _mm512_mul_ps(sums, _mm512_mul_ps(row_scale, column_scales))
}
