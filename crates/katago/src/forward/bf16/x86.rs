//! `VDPBF16PS` on 512-bit registers.

use std::arch::x86_64::*;

use super::{PackedWeights, COLUMN_BLOCK};

/// The 512 bits of `x` as 32 bf16 values.
#[inline(always)]
fn as_bf16(x: __m512i) -> __m512bh {
    // SAFETY: both are 512 bits of plain data, every pattern valid in each.
    unsafe { std::mem::transmute::<__m512i, __m512bh>(x) }
}

/// The 512 bits of 32 bf16 values `x` as integers.
#[inline(always)]
fn bf16_bits(x: __m512bh) -> __m512i {
    // SAFETY: both are 512 bits of plain data, every pattern valid in each.
    unsafe { std::mem::transmute::<__m512bh, __m512i>(x) }
}

/// The 256 bits of 16 bf16 values `x` as integers.
#[inline(always)]
fn bf16_bits_256(x: __m256bh) -> __m256i {
    // SAFETY: both are 256 bits of plain data, every pattern valid in each.
    unsafe { std::mem::transmute::<__m256bh, __m256i>(x) }
}

/// Rows of one register tile: 12 rows × 2 registers of accumulators,
/// two of weights and one broadcast take 27 of the 32 registers.
const TILE_ROWS: usize = 12;

/// [`super::pack_pairs`] with `VCVTNE2PS2BF16`.
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
pub(super) unsafe fn pack_pairs(src: &[f32], dst: &mut [u32]) {
    let mut i = 0;
    while i + 32 <= src.len() {
        // SAFETY: 32 values from i are in `src`, 16 pairs from i / 2
        // in `dst`.
        let (lo, hi) = unsafe {
            (
                _mm512_loadu_ps(src.as_ptr().add(i)),
                _mm512_loadu_ps(src.as_ptr().add(i + 16)),
            )
        };
        let packed = bf16_bits(_mm512_cvtne2ps_pbh(hi, lo));
        // SAFETY: the 16 pairs from i / 2 are in `dst` (above).
        unsafe { _mm512_storeu_si512(dst.as_mut_ptr().add(i / 2).cast(), packed) };
        i += 32;
    }
    super::pack_pairs_portable(&src[i..], &mut dst[i / 2..]);
}

/// `2^t` of 16 values, to 2⁻¹³·⁵ relative (a sixteenth of the bf16
/// rounding its results go to), by a cubic fitted to `2^f` on `[0, 1)`
/// (least relative error) whose constant term is 1, so that `2^0`, the
/// numerator of a row's largest score, is exact
/// ([`exp2_polynomial`](crate::forward::elementwise::x86::exp2_polynomial)).
/// Two instructions fewer than a quartic on `[−½, ½]` after a rounding and
/// a subtraction, for every score of attention.
#[inline]
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl,avx512dq")]
fn exp2_16(t: __m512) -> __m512 {
    crate::forward::elementwise::x86::exp2_polynomial(t, &EXP2_CUBIC)
}

/// The cubic of [`exp2_16`] without its constant term, highest degree
/// first.
const EXP2_CUBIC: [f32; 3] = [0.077_065_62, 0.227_646_55, 0.695_116_46];

/// The lanes of the first `count` of 16 values.
#[inline]
pub(crate) fn first_lanes(count: usize) -> __mmask16 {
    if count >= 16 {
        0xffff
    } else {
        ((1u32 << count) - 1) as __mmask16
    }
}

/// Stores the lanes of `value` that `mask` keeps at `dst`, added to what
/// is there where `accumulate`: the end of every register tile.
///
/// # Safety
/// The lanes `mask` keeps must be readable and writable at `dst`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn store_lanes(dst: *mut f32, mask: __mmask16, value: __m512, accumulate: bool) {
    // SAFETY: the mask keeps the load and the store to lanes the caller
    // vouches for.
    unsafe {
        let value = if accumulate {
            _mm512_add_ps(value, _mm512_maskz_loadu_ps(mask, dst))
        } else {
            value
        };
        _mm512_mask_storeu_ps(dst, mask, value);
    }
}

/// Stores a register tile's rows (`acc[r]`, 32 columns in two halves) at
/// `out` (`out_stride` apart), only its first `cols` columns, added to
/// what is there where `accumulate`.
///
/// # Safety
/// The tile's rows and first `cols` columns must be readable and writable
/// at `out`.
#[inline]
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn store_tile(
    acc: &[[__m512; 2]],
    out: *mut f32,
    out_stride: usize,
    cols: usize,
    accumulate: bool,
) {
    let masks = [first_lanes(cols), first_lanes(cols.saturating_sub(16))];
    for (r, acc) in acc.iter().enumerate() {
        for half in 0..2 {
            let mask = masks[half];
            if mask == 0 {
                continue;
            }
            // SAFETY: the mask keeps the store to the tile's columns,
            // which the caller vouches for.
            unsafe {
                store_lanes(
                    out.add(r * out_stride + half * 16),
                    mask,
                    acc[half],
                    accumulate,
                )
            };
        }
    }
}

/// [`super::softmax_pairs`] on AVX-512 for `R` rows of one length at
/// once: their loops interleaved, so that one row's reductions and the
/// chain of its maxima overlap the others' arithmetic (a row alone waits
/// on them for most of its time). Whole 32s of a row unmasked, two
/// vectors at a time, the last values under masks.
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn softmax_rows<const R: usize>(
    rows: [&[f32]; R],
    scale: f32,
    dst: [&mut [u32]; R],
) -> [f32; R] {
    let n = rows[0].len();
    assert!(rows.iter().all(|row| row.len() == n), "rows of one length");
    assert!(dst.iter().all(|d| d.len() * 2 >= n), "room for every pair");
    let whole = n / 32 * 32;
    let (tail_a, tail_b) = (
        first_lanes(n - whole),
        first_lanes((n - whole).saturating_sub(16)),
    );
    // Called only for the whole 32s, which lie inside every row.
    let load = |j: usize, at: usize| {
        // SAFETY: 16 values from `at` are inside row `j` (above).
        unsafe { _mm512_loadu_ps(rows[j].as_ptr().add(at)) }
    };
    // Called only for the tail, with its masks.
    let load_masked = |j: usize, m, at: usize| {
        // SAFETY: the mask keeps the load inside row `j`.
        unsafe { _mm512_maskz_loadu_ps(m, rows[j].as_ptr().wrapping_add(at)) }
    };
    let lowest = _mm512_set1_ps(f32::NEG_INFINITY);
    let (mut max_a, mut max_b) = ([lowest; R], [lowest; R]);
    for i in (0..whole).step_by(32) {
        for j in 0..R {
            max_a[j] = _mm512_max_ps(max_a[j], load(j, i));
            max_b[j] = _mm512_max_ps(max_b[j], load(j, i + 16));
        }
    }
    // e^((x − max) · scale) = 2^(x · s − max · s) for s = scale · log2 e.
    let scale = scale * std::f32::consts::LOG2_E;
    let factor = _mm512_set1_ps(scale);
    let mut shift = [_mm512_setzero_ps(); R];
    for j in 0..R {
        let a = _mm512_mask_max_ps(max_a[j], tail_a, max_a[j], load_masked(j, tail_a, whole));
        let b = _mm512_mask_max_ps(
            max_b[j],
            tail_b,
            max_b[j],
            load_masked(j, tail_b, whole + 16),
        );
        shift[j] = _mm512_set1_ps(_mm512_reduce_max_ps(_mm512_max_ps(a, b)) * scale);
    }
    let exp = |j: usize, x| exp2_16(_mm512_fmsub_ps(x, factor, shift[j]));
    let (mut sum_a, mut sum_b) = ([_mm512_setzero_ps(); R], [_mm512_setzero_ps(); R]);
    for i in (0..whole).step_by(32) {
        for j in 0..R {
            let (a, b) = (exp(j, load(j, i)), exp(j, load(j, i + 16)));
            sum_a[j] = _mm512_add_ps(sum_a[j], a);
            sum_b[j] = _mm512_add_ps(sum_b[j], b);
            // SAFETY: the row's pairs, which `dst[j]` holds (asserted
            // above), include the 16 from i / 2.
            unsafe {
                _mm512_storeu_si512(
                    dst[j].as_mut_ptr().add(i / 2).cast(),
                    bf16_bits(_mm512_cvtne2ps_pbh(b, a)),
                )
            };
        }
    }
    let mut inverse = [0.0; R];
    for (j, dst) in dst.into_iter().enumerate() {
        if whole < n {
            let a = _mm512_maskz_mov_ps(tail_a, exp(j, load_masked(j, tail_a, whole)));
            let b = _mm512_maskz_mov_ps(tail_b, exp(j, load_masked(j, tail_b, whole + 16)));
            sum_a[j] = _mm512_add_ps(sum_a[j], a);
            sum_b[j] = _mm512_add_ps(sum_b[j], b);
            let pairs_here = (n - whole).div_ceil(2);
            // SAFETY: as above, for the tail's pairs.
            unsafe {
                _mm512_mask_storeu_epi32(
                    dst.as_mut_ptr().add(whole / 2).cast(),
                    first_lanes(pairs_here),
                    bf16_bits(_mm512_cvtne2ps_pbh(b, a)),
                )
            };
        }
        dst[n.div_ceil(2)..].fill(0);
        inverse[j] = 1.0 / _mm512_reduce_add_ps(_mm512_add_ps(sum_a[j], sum_b[j]));
    }
    inverse
}

/// [`super::pack_pairs`] of `src` into `high`, and of what that
/// rounding lost into `low`.
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
pub(super) unsafe fn pack_pairs_split(src: &[f32], high: &mut [u32], low: &mut [u32]) {
    let mut i = 0;
    while i + 32 <= src.len() {
        // SAFETY: 32 values from i are in `src`, 16 pairs from i / 2
        // in `high` and `low`.
        unsafe {
            let a = _mm512_loadu_ps(src.as_ptr().add(i));
            let b = _mm512_loadu_ps(src.as_ptr().add(i + 16));
            let (packed, lost) = split_32(a, b);
            _mm512_storeu_si512(high.as_mut_ptr().add(i / 2).cast(), packed);
            _mm512_storeu_si512(low.as_mut_ptr().add(i / 2).cast(), lost);
        }
        i += 32;
    }
    if i == src.len() {
        // Whole 32s only (attention's heads): the padding, if any.
        high[i / 2..].fill(0);
        low[i / 2..].fill(0);
        return;
    }
    let mut rest = Vec::new();
    super::pack_row(
        super::Bf16Path::Portable,
        &src[i..],
        &mut high[i / 2..],
        Some(&mut low[i / 2..]),
        &mut rest,
    );
}

/// See [`super::product`].
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
pub(super) unsafe fn product(
    high: &[u32],
    low: Option<&[u32]>,
    rows: usize,
    w: &PackedWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    // SAFETY: this function's target features; the caller's bounds.
    unsafe { product_columns(high, low, rows, w, 0, out, accumulate) }
}

/// [`product`] for the columns of blocks `first_block..` alone (`out`
/// still `w.n` wide). A row's sums do not depend on the height of the
/// register tile that takes it.
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
pub(super) unsafe fn product_columns(
    high: &[u32],
    low: Option<&[u32]>,
    rows: usize,
    w: &PackedWeights,
    first_block: usize,
    out: &mut [f32],
    accumulate: bool,
) {
    let blocks = w.n.div_ceil(COLUMN_BLOCK);
    let mut r = 0;
    while r < rows {
        let tile = (rows - r).min(TILE_ROWS);
        for block in first_block..blocks {
            let cols = (w.n - block * COLUMN_BLOCK).min(COLUMN_BLOCK);
            // SAFETY: the tile's rows and columns are inside `high`,
            // `low`, `w` and `out` (asserted by `super::product`).
            unsafe {
                tile_dispatch(
                    tile,
                    high.as_ptr().add(r * w.pairs),
                    low.map(|low| low.as_ptr().add(r * w.pairs)),
                    w.pairs,
                    w.block(block).as_ptr(),
                    out.as_mut_ptr().add(r * w.n + block * COLUMN_BLOCK),
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
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
unsafe fn tile_dispatch(
    rows: usize,
    a: *const u32,
    low: Option<*const u32>,
    pairs: usize,
    b: *const u32,
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
                $($n => unsafe {
                    match low {
                        None => tile::<$n, false>(a, a, pairs, b, out, out_stride, cols, accumulate),
                        Some(low) => tile::<$n, true>(a, low, pairs, b, out, out_stride, cols, accumulate),
                    }
                },)*
                _ => unreachable!("a tile has 1 to {TILE_ROWS} rows"),
            }
        };
    }
    go!(1 2 3 4 5 6 7 8 9 10 11 12)
}

/// `out[R][cols] (+)= a[R][pairs] · b[pairs][32]` in f32 accumulators;
/// with `SPLIT`, `low`'s rows are multiplied in too.
#[allow(clippy::too_many_arguments)]
#[inline]
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
unsafe fn tile<const R: usize, const SPLIT: bool>(
    a: *const u32,
    low: *const u32,
    pairs: usize,
    b: *const u32,
    out: *mut f32,
    out_stride: usize,
    cols: usize,
    accumulate: bool,
) {
    let mut acc = [[_mm512_setzero_ps(); 2]; R];
    for p in 0..pairs {
        // SAFETY: the block's pair p is at b + p * 32, inside `b`.
        let (b0, b1) = unsafe {
            (
                as_bf16(_mm512_loadu_si512(b.add(p * COLUMN_BLOCK).cast())),
                as_bf16(_mm512_loadu_si512(b.add(p * COLUMN_BLOCK + 16).cast())),
            )
        };
        for (r, acc) in acc.iter_mut().enumerate() {
            // SAFETY: row r's pair p is at a + r * pairs + p, inside `a`.
            let x = as_bf16(_mm512_set1_epi32(unsafe { *a.add(r * pairs + p) } as i32));
            acc[0] = _mm512_dpbf16_ps(acc[0], x, b0);
            acc[1] = _mm512_dpbf16_ps(acc[1], x, b1);
            if SPLIT {
                // SAFETY: `low` has `a`'s shape.
                let y = as_bf16(_mm512_set1_epi32(unsafe { *low.add(r * pairs + p) } as i32));
                acc[0] = _mm512_dpbf16_ps(acc[0], y, b0);
                acc[1] = _mm512_dpbf16_ps(acc[1], y, b1);
            }
        }
    }
    // SAFETY: the caller's `out` holds the tile's rows and columns.
    unsafe { store_tile(&acc, out, out_stride, cols, accumulate) };
}

/// 32 values of an attention head's row from `row`, and where `factors`
/// gives their pairs' cosines and sines (see [`super::HeadRows`]), turned
/// by them: `v · cos + swap(v) · sin`, with each lane's cosine and signed
/// sine spread from its pair's, rounded step by step as the portable
/// rotation rounds it (no fused multiply-add), so both give the same bits.
///
/// # Safety
/// 32 values must be readable from `row`, and from `factors` unless it is
/// null (no rotation).
#[inline]
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
unsafe fn head_values(row: *const f32, factors: *const f32) -> [__m512; 2] {
    // SAFETY: the caller vouches for 32 values at each pointer.
    unsafe {
        let values = [_mm512_loadu_ps(row), _mm512_loadu_ps(row.add(16))];
        if factors.is_null() {
            return values;
        }
        // The sign bit of the first lane of each pair.
        let first_lanes = _mm512_set1_epi64(0x8000_0000);
        let mut rotated = values;
        for (half, v) in rotated.iter_mut().enumerate() {
            let pairs = _mm512_loadu_ps(factors.add(16 * half));
            let cosines = _mm512_moveldup_ps(pairs);
            let sines = _mm512_castsi512_ps(_mm512_xor_si512(
                _mm512_castps_si512(_mm512_movehdup_ps(pairs)),
                first_lanes,
            ));
            let swapped = _mm512_permute_ps::<0b1011_0001>(*v);
            *v = _mm512_add_ps(_mm512_mul_ps(*v, cosines), _mm512_mul_ps(swapped, sines));
        }
        rotated
    }
}

/// Where `head`'s point `p` starts, and its factors (null where it does
/// not rotate).
///
/// # Safety
/// `p` must be one of the head's points, whose bounds
/// [`super::HeadRows::check`] has asserted.
#[inline(always)]
unsafe fn head_point(head: &super::HeadRows, p: usize) -> (*const f32, *const f32) {
    // SAFETY: inside `src` and `factors` for every point (the caller's
    // check).
    unsafe {
        let row = head.src.as_ptr().add(head.at + p * head.stride);
        let factors = match head.factors.is_empty() {
            true => std::ptr::null(),
            false => head.factors.as_ptr().add(p * head.k),
        };
        (row, factors)
    }
}

/// Values `c..` of a point's factors (null where it has none).
///
/// # Safety
/// Inside the point's factors.
#[inline(always)]
unsafe fn factors_from(factors: *const f32, c: usize) -> *const f32 {
    match factors.is_null() {
        true => factors,
        // SAFETY: the caller's.
        false => unsafe { factors.add(c) },
    }
}

/// Points ahead of the one being packed whose rows are fetched: the rows
/// lie a whole row of every head apart, which the cache's own prefetching
/// follows late.
const PREFETCH_POINTS: usize = 8;

/// Asks for point `p`'s row of `head` (nothing past its last point).
#[inline(always)]
fn prefetch_head_row(head: &super::HeadRows, p: usize) {
    if p >= head.points {
        return;
    }
    let at = head.at + p * head.stride;
    for line in (0..head.k).step_by(16) {
        // SAFETY: a prefetch reads nothing; the address is inside `src`
        // (every point's row is, `HeadRows::check`).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(head.src.as_ptr().add(at + line).cast()) };
    }
}

/// [`super::PackedRows::fill_head`]: each point's row rotated, then
/// rounded to pairs (`k / 2` a row), and in `low` what the rounding lost.
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
pub(super) unsafe fn head_rows(
    head: &super::HeadRows,
    high: &mut [u32],
    mut low: Option<&mut [u32]>,
) {
    head.check();
    let (k, pairs) = (head.k, head.k / 2);
    assert_eq!(k % 32, 0, "whole 32s of values");
    assert!(high.len() >= head.points * pairs, "room for every row");
    assert!(
        low.as_ref()
            .is_none_or(|low| low.len() >= head.points * pairs),
        "room for every row's remainders"
    );
    for p in 0..head.points {
        prefetch_head_row(head, p + PREFETCH_POINTS);
        // SAFETY: `p` is one of the head's points.
        let (row, factors) = unsafe { head_point(head, p) };
        for c in (0..k).step_by(32) {
            let at = p * pairs + c / 2;
            // SAFETY: values `c..c + 32` of the row and of its factors lie
            // inside them; pairs `at..at + 16` inside `high` and `low`
            // (asserted above).
            unsafe {
                let [a, b] = head_values(row.add(c), factors_from(factors, c));
                let Some(low) = low.as_deref_mut() else {
                    let packed = bf16_bits(_mm512_cvtne2ps_pbh(b, a));
                    _mm512_storeu_si512(high.as_mut_ptr().add(at).cast(), packed);
                    continue;
                };
                let (packed, lost) = split_32(a, b);
                _mm512_storeu_si512(high.as_mut_ptr().add(at).cast(), packed);
                _mm512_storeu_si512(low.as_mut_ptr().add(at).cast(), lost);
            }
        }
    }
}

/// [`super::PackedWeights::fill_head_columns`]: each point's row rotated
/// and rounded to pairs, then 16 points' pairs at a time transposed into
/// the columns of `data` (`k / 2` pairs by [`COLUMN_BLOCK`] columns a
/// block, as many blocks as it holds; columns past the points zero).
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
pub(super) unsafe fn head_columns(head: &super::HeadRows, data: &mut [u32]) {
    head.check();
    let (k, pairs) = (head.k, head.k / 2);
    assert_eq!(k % 32, 0, "whole 32s of values");
    let blocks = data.len() / (pairs * COLUMN_BLOCK);
    assert!(
        blocks * COLUMN_BLOCK >= head.points,
        "a column for every point"
    );
    let mut rows = [_mm512_setzero_si512(); COLUMN_BLOCK];
    for block in 0..blocks {
        for c in (0..k).step_by(32) {
            for (lane, packed) in rows.iter_mut().enumerate() {
                let p = block * COLUMN_BLOCK + lane;
                if c == 0 {
                    prefetch_head_row(head, p + PREFETCH_POINTS);
                }
                if p >= head.points {
                    *packed = _mm512_setzero_si512();
                    continue;
                }
                // SAFETY: `p` is one of the head's points; values `c..c +
                // 32` of its row and factors lie inside them.
                unsafe {
                    let (row, factors) = head_point(head, p);
                    let [a, b] = head_values(row.add(c), factors_from(factors, c));
                    *packed = bf16_bits(_mm512_cvtne2ps_pbh(b, a));
                }
            }
            for half in 0..COLUMN_BLOCK / 16 {
                let mut sixteen = [_mm512_setzero_si512(); 16];
                sixteen.copy_from_slice(&rows[16 * half..16 * (half + 1)]);
                for (j, column) in transpose_16(sixteen).into_iter().enumerate() {
                    let at = (block * pairs + c / 2 + j) * COLUMN_BLOCK + 16 * half;
                    assert!(at + 16 <= data.len(), "inside the block");
                    // SAFETY: asserted just above.
                    unsafe { _mm512_storeu_si512(data.as_mut_ptr().add(at).cast(), column) };
                }
            }
        }
    }
}

/// 32 values (`a`, then `b`) rounded to 16 bf16 pairs, and what that
/// rounding lost, itself rounded to 16 pairs.
#[inline]
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
fn split_32(a: __m512, b: __m512) -> (__m512i, __m512i) {
    let (ha, back_a) = round_16(a);
    let (hb, back_b) = round_16(b);
    let packed = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(ha), hb);
    let lost = bf16_bits(_mm512_cvtne2ps_pbh(
        _mm512_sub_ps(b, back_b),
        _mm512_sub_ps(a, back_a),
    ));
    (packed, lost)
}

/// 16 values rounded to bf16, and those back in f32.
#[inline]
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
fn round_16(x: __m512) -> (__m256i, __m512) {
    let rounded = bf16_bits_256(_mm512_cvtneps_pbh(x));
    let back = _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(rounded)));
    (rounded, back)
}

/// The transpose of 16 rows of 16 words: pairs of rows interleaved, then
/// fours, so that the 128-bit lane `l` of `fours[4i + m]` holds column
/// `4l + m` of rows `4i..4i + 4`; then those lanes gathered across the
/// fours.
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose_16(rows: [__m512i; 16]) -> [__m512i; 16] {
    let mut pairs = [_mm512_setzero_si512(); 16];
    for i in 0..8 {
        pairs[2 * i] = _mm512_unpacklo_epi32(rows[2 * i], rows[2 * i + 1]);
        pairs[2 * i + 1] = _mm512_unpackhi_epi32(rows[2 * i], rows[2 * i + 1]);
    }
    let mut fours = [_mm512_setzero_si512(); 16];
    for i in 0..4 {
        let (a, b, c, d) = (
            pairs[4 * i],
            pairs[4 * i + 1],
            pairs[4 * i + 2],
            pairs[4 * i + 3],
        );
        fours[4 * i] = _mm512_unpacklo_epi64(a, c);
        fours[4 * i + 1] = _mm512_unpackhi_epi64(a, c);
        fours[4 * i + 2] = _mm512_unpacklo_epi64(b, d);
        fours[4 * i + 3] = _mm512_unpackhi_epi64(b, d);
    }
    let mut columns = [_mm512_setzero_si512(); 16];
    for m in 0..4 {
        let (u0, u1, u2, u3) = (fours[m], fours[4 + m], fours[8 + m], fours[12 + m]);
        // Lanes 0 and 1 of each, then lanes 2 and 3.
        let (low01, high01) = (
            _mm512_shuffle_i32x4::<0x44>(u0, u1),
            _mm512_shuffle_i32x4::<0xee>(u0, u1),
        );
        let (low23, high23) = (
            _mm512_shuffle_i32x4::<0x44>(u2, u3),
            _mm512_shuffle_i32x4::<0xee>(u2, u3),
        );
        columns[m] = _mm512_shuffle_i32x4::<0x88>(low01, low23);
        columns[4 + m] = _mm512_shuffle_i32x4::<0xdd>(low01, low23);
        columns[8 + m] = _mm512_shuffle_i32x4::<0x88>(high01, high23);
        columns[12 + m] = _mm512_shuffle_i32x4::<0xdd>(high01, high23);
    }
    columns
}

/// [`super::PackedWeights::fill_rows`] for `n` a whole number of column
/// blocks: rows `2p` and `2p + 1` of `src` (`stride` apart) rounded, then
/// their bf16 values interleaved into the block rows of pair `p` (the last
/// row of an odd `k` paired with zeros).
///
/// # Safety
/// `k` rows of `n` values must lie in `src`, and `data` must hold `n /
/// COLUMN_BLOCK` blocks of `pairs` × [`COLUMN_BLOCK`] words.
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
pub(super) unsafe fn pair_rows(
    src: &[f32],
    stride: usize,
    k: usize,
    n: usize,
    pairs: usize,
    data: &mut [u32],
) {
    // Word `i` of the first half takes value `i` of each row, of the
    // second half value `16 + i`: even row from the first operand.
    let (first, second): ([u16; 32], [u16; 32]) = (
        std::array::from_fn(|j| (j / 2 + 32 * (j % 2)) as u16),
        std::array::from_fn(|j| (16 + j / 2 + 32 * (j % 2)) as u16),
    );
    // SAFETY: 32 words each.
    let (first, second) = unsafe {
        (
            _mm512_loadu_si512(first.as_ptr().cast()),
            _mm512_loadu_si512(second.as_ptr().cast()),
        )
    };
    let row = |i: usize, c: usize| {
        if i >= k {
            return _mm512_setzero_si512();
        }
        // SAFETY: row `i < k` holds values `c..c + 32` (the caller).
        unsafe {
            let at = src.as_ptr().add(i * stride + c);
            bf16_bits(_mm512_cvtne2ps_pbh(
                _mm512_loadu_ps(at.add(16)),
                _mm512_loadu_ps(at),
            ))
        }
    };
    for p in 0..k.div_ceil(2) {
        for c in (0..n).step_by(COLUMN_BLOCK) {
            let (even, odd) = (row(2 * p, c), row(2 * p + 1, c));
            let at = (c / COLUMN_BLOCK * pairs + p) * COLUMN_BLOCK;
            // SAFETY: the block row of pair `p` (the caller).
            unsafe {
                let dst = data.as_mut_ptr().add(at);
                _mm512_storeu_si512(dst.cast(), _mm512_permutex2var_epi16(even, first, odd));
                _mm512_storeu_si512(
                    dst.add(16).cast(),
                    _mm512_permutex2var_epi16(even, second, odd),
                );
            }
        }
    }
}
