//! Matrix products on bfloat16 units: the weights of a layer packed once in
//! the pair layout that `VDPBF16PS` (AVX-512-BF16) and AMX's `TDPBF16PS`
//! read, activations rounded to bf16 (round to nearest, ties to even) as a
//! product is made, and every sum kept in f32.
//!
//! Three implementations compute the same product: [`Bf16Path::Portable`]
//! in plain Rust (the reference the others are checked against, on every
//! machine), [`Bf16Path::Avx512`] and [`Bf16Path::Amx`]. Which ones a CPU can
//! run is found once, at run time ([`crate::forward::cpu`]); a path the CPU
//! lacks is never called.

use super::kernels::{round_to_bf16, unroll, widest_simd, Grid};
#[cfg(target_arch = "x86_64")]
use super::kernels::{simd_level, SimdLevel};

/// Pairs of the inner dimension are padded to a multiple of this: one AMX
/// tile row holds 16 pairs (32 bf16).
pub(crate) const PAIR_BLOCK: usize = 16;
/// Columns of one packed block: two AVX-512 registers, two AMX tiles.
pub(crate) const COLUMN_BLOCK: usize = 32;

/// An implementation of the bf16 product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bf16Path {
    /// Plain Rust, any CPU: the reference.
    Portable,
    /// `VDPBF16PS` on 512-bit registers.
    Avx512,
    /// AMX tiles (`TDPBF16PS`), with [`Bf16Path::Avx512`] for the edges.
    Amx,
}

/// The bf16 bits of `x` rounded to nearest, ties to even.
#[inline]
fn bf16_bits(x: f32) -> u32 {
    round_to_bf16(x).to_bits() >> 16
}

/// Rounds pairs of f32 into packed bf16 pairs: `dst[p]` holds `src[2p]` in
/// its low half and `src[2p + 1]` in its high half (zero past the end).
pub(crate) fn pack_pairs(path: Bf16Path, src: &[f32], dst: &mut [u32]) {
    debug_assert!(dst.len() * 2 >= src.len());
    #[cfg(target_arch = "x86_64")]
    if path != Bf16Path::Portable {
        // SAFETY: the AVX-512 paths are chosen only where the CPU has
        // AVX-512-BF16 (`cpu::Features`).
        unsafe { x86::pack_pairs(src, dst) };
        return;
    }
    let _ = path;
    pack_pairs_portable(src, dst);
}

fn pack_pairs_portable(src: &[f32], dst: &mut [u32]) {
    let mut pairs = src.chunks_exact(2);
    let mut index = 0;
    for pair in &mut pairs {
        dst[index] = bf16_bits(pair[0]) | (bf16_bits(pair[1]) << 16);
        index += 1;
    }
    if let [last] = pairs.remainder() {
        dst[index] = bf16_bits(*last);
        index += 1;
    }
    dst[index..].fill(0);
}

/// The numerators of a softmax of `row` scaled by `scale` (positive),
/// `e^((x − max) · scale)`, rounded to bf16 pairs in `dst` (zero past the
/// row, to its end); returns one over their sum (of the f32 values).
/// Attention's weights, made ready for the product with the values in one
/// pass. The portable path computes the exponentials as the f32 softmax
/// does; the AVX-512 one with a shorter polynomial, within 2⁻¹⁴ of it
/// before the rounding to bf16 (2⁻⁹).
pub(crate) fn softmax_pairs(path: Bf16Path, row: &[f32], scale: f32, dst: &mut [u32]) -> f32 {
    assert!(dst.len() * 2 >= row.len(), "room for every pair");
    #[cfg(target_arch = "x86_64")]
    if path != Bf16Path::Portable {
        // SAFETY: the AVX-512 paths are chosen only where the CPU has
        // AVX-512-BF16 (`cpu::Features`).
        return unsafe { x86::softmax_pairs(row, scale, dst) };
    }
    let _ = path;
    let mut numerators = row.to_vec();
    let mut inverse = [0.0f32];
    super::kernels::softmax_numerators(&mut numerators, row.len().max(1), scale, &mut inverse);
    pack_pairs_portable(&numerators, dst);
    inverse[0]
}

/// The weights of a layer, `k` × `n` row-major in f32, packed for the bf16
/// units: column blocks of [`COLUMN_BLOCK`], and within a block, for each
/// pair of rows `2p`, `2p + 1`, one `u32` per column holding both weights
/// as bf16. Rows are padded to a multiple of [`PAIR_BLOCK`] pairs and
/// columns to a whole block, with zeros.
#[derive(Clone, Debug)]
pub(crate) struct PackedWeights {
    pub n: usize,
    /// Row pairs, padded.
    pub pairs: usize,
    /// Packed data, `n.div_ceil(COLUMN_BLOCK)` blocks of `pairs` ×
    /// [`COLUMN_BLOCK`].
    pub data: Vec<u32>,
}

impl PackedWeights {
    /// Packs `weights`, `k` × `n` row-major.
    pub(crate) fn new(k: usize, n: usize, weights: &[f32]) -> PackedWeights {
        assert_eq!(weights.len(), k * n, "weights are k × n");
        let pairs = padded_pairs(k);
        let blocks = n.div_ceil(COLUMN_BLOCK);
        let mut data = vec![0u32; blocks * pairs * COLUMN_BLOCK];
        for row in 0..k {
            let (p, high) = (row / 2, row % 2 == 1);
            for col in 0..n {
                let (block, lane) = (col / COLUMN_BLOCK, col % COLUMN_BLOCK);
                let bits = bf16_bits(weights[row * n + col]);
                data[(block * pairs + p) * COLUMN_BLOCK + lane] |=
                    if high { bits << 16 } else { bits };
            }
        }
        PackedWeights { n, pairs, data }
    }

    /// No weights yet: a buffer for [`PackedWeights::fill_columns`] and
    /// [`PackedWeights::fill_rows`].
    pub(crate) fn empty() -> PackedWeights {
        PackedWeights {
            n: 0,
            pairs: 0,
            data: Vec::new(),
        }
    }

    /// Sizes the buffer for a `k` × `n` matrix, all zeros.
    fn reset(&mut self, k: usize, n: usize) {
        self.n = n;
        self.pairs = padded_pairs(k);
        self.data.clear();
        self.data
            .resize(n.div_ceil(COLUMN_BLOCK) * self.pairs * COLUMN_BLOCK, 0);
    }

    /// Packs, as a `k` × `n` matrix, the transpose of `n` vectors of `k`
    /// values, column `j` being `src[offset + j * stride..][..k]`
    /// (attention's keys, one point a column).
    pub(crate) fn fill_columns(
        &mut self,
        path: Bf16Path,
        k: usize,
        n: usize,
        src: &[f32],
        offset: usize,
        stride: usize,
    ) {
        self.reset(k, n);
        let pairs = self.pairs;
        let mut column = vec![0u32; k.div_ceil(2)];
        for j in 0..n {
            pack_pairs(path, &src[offset + j * stride..][..k], &mut column);
            let (block, lane) = (j / COLUMN_BLOCK, j % COLUMN_BLOCK);
            let base = block * pairs * COLUMN_BLOCK + lane;
            for (p, &bits) in column.iter().enumerate() {
                self.data[base + p * COLUMN_BLOCK] = bits;
            }
        }
    }

    /// Packs a `k` × `n` matrix whose row `i` is `src[offset + i *
    /// stride..][..n]` (attention's values, one point a row).
    pub(crate) fn fill_rows(
        &mut self,
        k: usize,
        n: usize,
        src: &[f32],
        offset: usize,
        stride: usize,
    ) {
        self.reset(k, n);
        let pairs = self.pairs;
        let zeros = vec![0.0f32; n];
        for p in 0..k.div_ceil(2) {
            let even = &src[offset + 2 * p * stride..][..n];
            let odd = if 2 * p + 1 < k {
                &src[offset + (2 * p + 1) * stride..][..n]
            } else {
                &zeros[..]
            };
            for block in 0..n.div_ceil(COLUMN_BLOCK) {
                let first = block * COLUMN_BLOCK;
                let cols = (n - first).min(COLUMN_BLOCK);
                let dst = &mut self.data[(block * pairs + p) * COLUMN_BLOCK..][..cols];
                interleave_pairs(&even[first..][..cols], &odd[first..][..cols], dst);
            }
        }
    }

    /// The packed block of columns `block * COLUMN_BLOCK ..`.
    fn block(&self, block: usize) -> &[u32] {
        &self.data[block * self.pairs * COLUMN_BLOCK..(block + 1) * self.pairs * COLUMN_BLOCK]
    }
}

/// Pairs of an inner dimension `k`, padded to a whole [`PAIR_BLOCK`].
pub(crate) fn padded_pairs(k: usize) -> usize {
    k.div_ceil(2).div_ceil(PAIR_BLOCK) * PAIR_BLOCK
}

/// Activations rounded to bf16 pairs: `rows` rows of `pairs` pairs
/// (padded as [`PackedWeights`]), and in split mode a second set holding
/// what the first rounding lost, itself rounded to bf16.
#[derive(Default)]
pub(crate) struct PackedRows {
    pub rows: usize,
    pub pairs: usize,
    pub high: Vec<u32>,
    pub low: Vec<u32>,
}

impl PackedRows {
    /// Rounds `rows` rows of `k` values (row-major) to bf16 pairs; with
    /// `split`, the remainders too.
    /// The rows are shared between `threads` threads of the current pool
    /// when there are enough of them.
    pub(crate) fn fill(
        &mut self,
        path: Bf16Path,
        rows: usize,
        k: usize,
        src: &[f32],
        split: bool,
        threads: usize,
    ) {
        // Every pair is written below (padding included), so the buffers
        // are only sized, not cleared.
        let pairs = self.size(rows, k, split);
        let pack_rows = |src: &[f32], high: &mut [u32], mut low: Option<&mut [u32]>| {
            let mut rest = Vec::new();
            for (r, (row, high)) in src
                .chunks_exact(k)
                .zip(high.chunks_exact_mut(pairs))
                .enumerate()
            {
                let low = low
                    .as_deref_mut()
                    .map(|low| &mut low[r * pairs..(r + 1) * pairs]);
                pack_row(path, row, high, low, &mut rest);
            }
        };
        let src = &src[..rows * k];
        if threads <= 1 || rows < 2 * threads || rows * k < 1 << 16 {
            let low = split.then_some(&mut self.low[..]);
            pack_rows(src, &mut self.high, low);
            return;
        }
        let block = rows.div_ceil(threads);
        let mut lows: Vec<Option<&mut [u32]>> = if split {
            self.low.chunks_mut(block * pairs).map(Some).collect()
        } else {
            (0..threads).map(|_| None).collect()
        };
        super::profile::scoped(|| {
            rayon::scope(|scope| {
                for ((src, high), low) in src
                    .chunks(block * k)
                    .zip(self.high.chunks_mut(block * pairs))
                    .zip(lows.iter_mut().map(Option::take))
                {
                    let pack_rows = &pack_rows;
                    scope.spawn(move |_| super::profile::task(None, || pack_rows(src, high, low)));
                }
            })
        });
    }

    /// Sizes the rows for `rows` rows of `k` values, to be written row by
    /// row (no remainders), as [`PackedRows::row_mut`] gives them.
    pub(crate) fn reset(&mut self, rows: usize, k: usize) {
        self.size(rows, k, false);
    }

    /// Sizes the buffers for `rows` rows of `k` values (with remainders
    /// where `split`), without clearing them; returns the pairs of a row.
    fn size(&mut self, rows: usize, k: usize, split: bool) -> usize {
        let pairs = padded_pairs(k);
        self.rows = rows;
        self.pairs = pairs;
        self.high.resize(rows * pairs, 0);
        if split {
            self.low.resize(rows * pairs, 0);
        } else {
            self.low.clear();
        }
        pairs
    }

    /// Row `r`'s pairs (padding included).
    pub(crate) fn row_mut(&mut self, r: usize) -> &mut [u32] {
        &mut self.high[r * self.pairs..(r + 1) * self.pairs]
    }

    /// Unrolls a "same" convolution's input for a kernel `taps` = (height,
    /// width) over `grid`: each point's row holds its neighbourhood's
    /// `channels` values per tap, in the weights' `[y][x][in]` order, zero
    /// off the board. `channels` must be even, so that pairs stay within
    /// one tap.
    pub(crate) fn fill_unrolled(
        &mut self,
        path: Bf16Path,
        grid: Grid,
        (kernel_y, kernel_x): (usize, usize),
        channels: usize,
        input: &[f32],
        split: bool,
    ) {
        assert_eq!(channels % 2, 0, "an even number of channels");
        let rows = grid.rows();
        let half = channels / 2;
        // The input rounded once per point, then copied per tap.
        let mut packed_input = PackedRows {
            rows,
            pairs: half,
            high: vec![0; rows * half],
            low: vec![0; if split { rows * half } else { 0 }],
        };
        let mut rest = Vec::new();
        for r in 0..rows {
            let (high, low) = (
                &mut packed_input.high[r * half..(r + 1) * half],
                split.then(|| &mut packed_input.low[r * half..(r + 1) * half]),
            );
            pack_row(
                path,
                &input[r * channels..(r + 1) * channels],
                high,
                low,
                &mut rest,
            );
        }
        let pairs = padded_pairs(kernel_y * kernel_x * channels);
        self.rows = rows;
        self.pairs = pairs;
        unroll(
            grid,
            (kernel_y, kernel_x),
            half,
            &packed_input.high,
            pairs,
            &mut self.high,
        );
        if split {
            unroll(
                grid,
                (kernel_y, kernel_x),
                half,
                &packed_input.low,
                pairs,
                &mut self.low,
            );
        } else {
            self.low.clear();
        }
    }

    /// Rounds `rows` rows of `k` values, row `r` being `src[offset + r *
    /// stride..][..k]`, to bf16 pairs; with `split`, the remainders too.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn fill_strided(
        &mut self,
        path: Bf16Path,
        rows: usize,
        k: usize,
        src: &[f32],
        offset: usize,
        stride: usize,
        split: bool,
    ) {
        let pairs = self.size(rows, k, split);
        let mut rest = Vec::new();
        for r in 0..rows {
            let low = split.then(|| &mut self.low[r * pairs..(r + 1) * pairs]);
            pack_row(
                path,
                &src[offset + r * stride..][..k],
                &mut self.high[r * pairs..(r + 1) * pairs],
                low,
                &mut rest,
            );
        }
    }

    /// Whether the remainders were kept.
    pub(crate) fn split(&self) -> bool {
        !self.low.is_empty()
    }
}

/// Rounds one row to bf16 pairs in `high` and, where `low` is given, what
/// the rounding lost to pairs in `low`.
fn pack_row(
    path: Bf16Path,
    row: &[f32],
    high: &mut [u32],
    low: Option<&mut [u32]>,
    rest: &mut Vec<f32>,
) {
    #[cfg(target_arch = "x86_64")]
    if path != Bf16Path::Portable {
        if let Some(low) = low {
            // SAFETY: the AVX-512 paths are chosen only where the CPU has
            // AVX-512-BF16.
            unsafe { x86::pack_pairs_split(row, high, low) };
            return;
        }
    }
    pack_pairs(path, row, high);
    if let Some(low) = low {
        rest.clear();
        rest.extend(row.iter().enumerate().map(|(i, value)| {
            let half = if i % 2 == 0 {
                high[i / 2] & 0xffff
            } else {
                high[i / 2] >> 16
            };
            value - f32::from_bits(half << 16)
        }));
        pack_pairs(path, rest, low);
    }
}

/// `dst[i]` = the bf16 pair of `even[i]` (low half) and `odd[i]` (high
/// half), rounded to nearest, ties to even.
fn interleave_pairs(even: &[f32], odd: &[f32], dst: &mut [u32]) {
    interleave_pairs_simd(even, odd, dst)
}

widest_simd! {
    fn interleave_pairs_simd(even: &[f32], odd: &[f32], dst: &mut [u32]) {
        for ((d, &a), &b) in dst.iter_mut().zip(even).zip(odd) {
            *d = bf16_bits(a) | (bf16_bits(b) << 16);
        }
    }
}

/// `out[rows][n] (+)= a · w`: `a` as packed rows (both parts in split
/// mode), `w` packed, `out` dense row-major `n` wide, on `path`.
pub(crate) fn product(
    path: Bf16Path,
    a: &PackedRows,
    first_row: usize,
    rows: usize,
    w: &PackedWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    assert_eq!(a.pairs, w.pairs, "activations and weights of one depth");
    assert!(first_row + rows <= a.rows, "rows of the activations");
    assert!(out.len() >= rows * w.n, "the output holds every row");
    if rows == 0 || w.n == 0 {
        return;
    }
    let low = a.split().then(|| &a.low[first_row * a.pairs..]);
    let high = &a.high[first_row * a.pairs..];
    match path {
        Bf16Path::Portable => product_portable(high, low, rows, w, out, accumulate),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: these paths are chosen only where the CPU has
        // AVX-512-BF16, and AMX with its tile state granted.
        Bf16Path::Avx512 => unsafe { x86::product(high, low, rows, w, out, accumulate) },
        #[cfg(target_arch = "x86_64")]
        Bf16Path::Amx => unsafe { amx::product(high, low, rows, w, out, accumulate) },
        #[cfg(not(target_arch = "x86_64"))]
        _ => unreachable!("no bf16 units off x86-64"),
    }
}

/// One bf16 pair's products added to `sum`, in the order `VDPBF16PS`
/// documents (the odd element first), each step rounded to f32.
#[inline]
fn pair_dot(sum: f32, a: u32, b: u32) -> f32 {
    let part = |x: u32, high: bool| f32::from_bits(if high { x & 0xffff_0000 } else { x << 16 });
    let sum = sum + part(a, true) * part(b, true);
    sum + part(a, false) * part(b, false)
}

fn product_portable(
    high: &[u32],
    low: Option<&[u32]>,
    rows: usize,
    w: &PackedWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    let pairs = w.pairs;
    for r in 0..rows {
        for col in 0..w.n {
            let block = w.block(col / COLUMN_BLOCK);
            let lane = col % COLUMN_BLOCK;
            let mut sum = 0.0f32;
            for p in 0..pairs {
                let b = block[p * COLUMN_BLOCK + lane];
                sum = pair_dot(sum, high[r * pairs + p], b);
                if let Some(low) = low {
                    sum = pair_dot(sum, low[r * pairs + p], b);
                }
            }
            let dst = &mut out[r * w.n + col];
            *dst = if accumulate { *dst + sum } else { sum };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! `VDPBF16PS` on 512-bit registers.

    use std::arch::x86_64::*;

    use super::{PackedWeights, COLUMN_BLOCK};

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
            let packed: __m512i =
                std::mem::transmute::<__m512bh, __m512i>(_mm512_cvtne2ps_pbh(hi, lo));
            unsafe { _mm512_storeu_si512(dst.as_mut_ptr().add(i / 2).cast(), packed) };
            i += 32;
        }
        super::pack_pairs_portable(&src[i..], &mut dst[i / 2..]);
    }

    /// `2^t` of 16 values, to about 2⁻¹⁴ relative (far below the bf16
    /// rounding its results go to): `t = n + f` with `n` an integer and
    /// `|f| ≤ ½`, `2^f` by its Taylor polynomial of degree 4 in `f · ln 2`,
    /// and `2^n` by `VSCALEFPS`, which also takes very negative `t` to 0.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
    fn exp2_16(t: __m512) -> __m512 {
        // Round to nearest, no exceptions.
        let n = _mm512_roundscale_ps::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(t);
        let f = _mm512_sub_ps(t, n);
        const LN2: f32 = std::f32::consts::LN_2;
        // Coefficients of 2^f = Σ (f ln 2)^i / i!, highest first.
        let c4 = _mm512_set1_ps(LN2 * LN2 * LN2 * LN2 / 24.0);
        let c3 = _mm512_set1_ps(LN2 * LN2 * LN2 / 6.0);
        let c2 = _mm512_set1_ps(LN2 * LN2 / 2.0);
        let c1 = _mm512_set1_ps(LN2);
        let one = _mm512_set1_ps(1.0);
        let mut p = _mm512_fmadd_ps(c4, f, c3);
        p = _mm512_fmadd_ps(p, f, c2);
        p = _mm512_fmadd_ps(p, f, c1);
        p = _mm512_fmadd_ps(p, f, one);
        _mm512_scalef_ps(p, n)
    }

    /// The lanes of the first `count` of 16 values.
    #[inline]
    fn first_lanes(count: usize) -> __mmask16 {
        if count >= 16 {
            0xffff
        } else {
            ((1u32 << count) - 1) as __mmask16
        }
    }

    /// [`super::softmax_pairs`] on AVX-512.
    #[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
    pub(super) unsafe fn softmax_pairs(row: &[f32], scale: f32, dst: &mut [u32]) -> f32 {
        let n = row.len();
        let src = row.as_ptr();
        let mut maxima = _mm512_set1_ps(f32::NEG_INFINITY);
        let mut i = 0;
        while i < n {
            // SAFETY: the mask keeps the load inside `row`.
            let x =
                unsafe { _mm512_mask_loadu_ps(maxima, first_lanes(n - i), src.wrapping_add(i)) };
            maxima = _mm512_max_ps(maxima, x);
            i += 16;
        }
        let max = _mm512_set1_ps(_mm512_reduce_max_ps(maxima));
        // e^((x − max) · scale) = 2^((x − max) · scale · log2 e)
        let scale = _mm512_set1_ps(scale * std::f32::consts::LOG2_E);
        let mut sums = _mm512_setzero_ps();
        let (mut i, mut pair) = (0, 0);
        while i < n {
            let (m0, m1) = (first_lanes(n - i), first_lanes(n.saturating_sub(i + 16)));
            // SAFETY: the masks keep the loads inside `row`, and the store
            // to the pairs of the row, which `dst` holds (asserted by the
            // caller).
            unsafe {
                let load = |m, at: usize| _mm512_maskz_loadu_ps(m, src.wrapping_add(at));
                let a = _mm512_maskz_mov_ps(
                    m0,
                    exp2_16(_mm512_mul_ps(_mm512_sub_ps(load(m0, i), max), scale)),
                );
                let b = _mm512_maskz_mov_ps(
                    m1,
                    exp2_16(_mm512_mul_ps(_mm512_sub_ps(load(m1, i + 16), max), scale)),
                );
                sums = _mm512_add_ps(sums, _mm512_add_ps(a, b));
                let packed: __m512i =
                    std::mem::transmute::<__m512bh, __m512i>(_mm512_cvtne2ps_pbh(b, a));
                let pairs_here = (n - i).div_ceil(2).min(16);
                _mm512_mask_storeu_epi32(
                    dst.as_mut_ptr().add(pair).cast(),
                    first_lanes(pairs_here),
                    packed,
                );
            }
            i += 32;
            pair += 16;
        }
        let written = n.div_ceil(2);
        dst[written..].fill(0);
        1.0 / _mm512_reduce_add_ps(sums)
    }

    /// [`super::pack_pairs`] of `src` into `high`, and of what that
    /// rounding lost into `low`.
    #[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
    pub(super) unsafe fn pack_pairs_split(src: &[f32], high: &mut [u32], low: &mut [u32]) {
        /// 16 values rounded to bf16, and those back in f32.
        #[inline(always)]
        unsafe fn round(x: __m512) -> (__m256i, __m512) {
            let rounded: __m256i = std::mem::transmute::<__m256bh, __m256i>(_mm512_cvtneps_pbh(x));
            let back = _mm512_castsi512_ps(_mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(rounded)));
            (rounded, back)
        }
        let mut i = 0;
        while i + 32 <= src.len() {
            // SAFETY: 32 values from i are in `src`, 16 pairs from i / 2
            // in `high` and `low`.
            unsafe {
                let a = _mm512_loadu_ps(src.as_ptr().add(i));
                let b = _mm512_loadu_ps(src.as_ptr().add(i + 16));
                let (ha, back_a) = round(a);
                let (hb, back_b) = round(b);
                let packed = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(ha), hb);
                _mm512_storeu_si512(high.as_mut_ptr().add(i / 2).cast(), packed);
                let lost: __m512i = std::mem::transmute::<__m512bh, __m512i>(_mm512_cvtne2ps_pbh(
                    _mm512_sub_ps(b, back_b),
                    _mm512_sub_ps(a, back_a),
                ));
                _mm512_storeu_si512(low.as_mut_ptr().add(i / 2).cast(), lost);
            }
            i += 32;
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
        let blocks = w.n.div_ceil(COLUMN_BLOCK);
        let mut r = 0;
        while r < rows {
            let tile = (rows - r).min(TILE_ROWS);
            for block in 0..blocks {
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
    pub(super) unsafe fn tile_dispatch(
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
            // SAFETY (whole loop): row r's pair p is at a + r * pairs + p,
            // the block's pair p at b + p * 32, all inside the operands.
            let (b0, b1): (__m512bh, __m512bh) = unsafe {
                (
                    std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(
                        b.add(p * COLUMN_BLOCK).cast(),
                    )),
                    std::mem::transmute::<__m512i, __m512bh>(_mm512_loadu_si512(
                        b.add(p * COLUMN_BLOCK + 16).cast(),
                    )),
                )
            };
            for (r, acc) in acc.iter_mut().enumerate() {
                let x: __m512bh =
                    std::mem::transmute::<__m512i, __m512bh>(_mm512_set1_epi32(unsafe {
                        *a.add(r * pairs + p)
                    }
                        as i32));
                acc[0] = _mm512_dpbf16_ps(acc[0], x, b0);
                acc[1] = _mm512_dpbf16_ps(acc[1], x, b1);
                if SPLIT {
                    let y: __m512bh =
                        std::mem::transmute::<__m512i, __m512bh>(_mm512_set1_epi32(unsafe {
                            *low.add(r * pairs + p)
                        }
                            as i32));
                    acc[0] = _mm512_dpbf16_ps(acc[0], y, b0);
                    acc[1] = _mm512_dpbf16_ps(acc[1], y, b1);
                }
            }
        }
        let lanes = |count: usize| -> u16 {
            if count >= 16 {
                0xffff
            } else {
                ((1u32 << count) - 1) as u16
            }
        };
        let masks = [lanes(cols), lanes(cols.saturating_sub(16))];
        for (r, acc) in acc.iter().enumerate() {
            for half in 0..2 {
                let mask = masks[half];
                if mask == 0 {
                    continue;
                }
                // SAFETY: the mask keeps the store to the tile's columns.
                unsafe {
                    let dst = out.add(r * out_stride + half * 16);
                    let value = if accumulate {
                        _mm512_add_ps(acc[half], _mm512_maskz_loadu_ps(mask, dst))
                    } else {
                        acc[half]
                    };
                    _mm512_mask_storeu_ps(dst, mask, value);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod amx {
    //! AMX tiles: `TDPBF16PS` on 16 × 16 f32 accumulator tiles, 2 × 2 of
    //! them per step (32 rows × 32 columns), the edges on AVX-512.

    use std::arch::asm;

    use super::{PackedWeights, COLUMN_BLOCK, PAIR_BLOCK};

    /// The tile configuration (`LDTILECFG`'s 64-byte operand): palette 1;
    /// tiles 0–3 the accumulators (16 rows of 64 bytes), 4–5 activations
    /// (16 rows × 16 pairs), 6–7 weights (16 pairs × 16 columns).
    #[repr(C, align(64))]
    struct TileConfig {
        palette: u8,
        start_row: u8,
        reserved: [u8; 14],
        bytes_per_row: [u16; 16],
        rows: [u8; 16],
    }

    fn config() -> TileConfig {
        let mut c = TileConfig {
            palette: 1,
            start_row: 0,
            reserved: [0; 14],
            bytes_per_row: [0; 16],
            rows: [0; 16],
        };
        for t in 0..8 {
            c.bytes_per_row[t] = 64;
            c.rows[t] = 16;
        }
        c
    }

    /// See [`super::product`]: whole 32 × 32 blocks on tiles, the rest on
    /// AVX-512.
    #[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
    pub(super) unsafe fn product(
        high: &[u32],
        low: Option<&[u32]>,
        rows: usize,
        w: &PackedWeights,
        out: &mut [f32],
        accumulate: bool,
    ) {
        let full_rows = rows / 32 * 32;
        let full_blocks = w.n / COLUMN_BLOCK;
        if full_rows > 0 && full_blocks > 0 {
            let cfg = config();
            // SAFETY: the tile state was granted to the process before this
            // path was chosen; the configuration is valid for palette 1.
            unsafe { asm!("ldtilecfg [{}]", in(reg) &cfg as *const TileConfig, options(nostack)) };
            for r in (0..full_rows).step_by(32) {
                for block in 0..full_blocks {
                    // SAFETY: 32 rows from r and the block's 32 columns are
                    // inside the operands.
                    unsafe {
                        tile_block(
                            high.as_ptr().add(r * w.pairs),
                            low.map(|low| low.as_ptr().add(r * w.pairs)),
                            w.pairs,
                            w.block(block).as_ptr(),
                            out.as_mut_ptr().add(r * w.n + block * COLUMN_BLOCK),
                            w.n,
                            accumulate,
                        )
                    };
                }
            }
            unsafe { asm!("tilerelease", options(nostack, nomem)) };
        }
        // The columns past the whole blocks, for the rows done on tiles.
        if full_rows > 0 && full_blocks * COLUMN_BLOCK < w.n {
            let block = full_blocks;
            let cols = w.n - block * COLUMN_BLOCK;
            for r in (0..full_rows).step_by(8) {
                unsafe {
                    super::x86::tile_dispatch(
                        8,
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
        }
        // The rows past the whole tiles.
        if full_rows < rows {
            unsafe {
                super::x86::product(
                    &high[full_rows * w.pairs..],
                    low.map(|low| &low[full_rows * w.pairs..]),
                    rows - full_rows,
                    w,
                    &mut out[full_rows * w.n..],
                    accumulate,
                )
            };
        }
    }

    /// 32 rows × 32 columns: four accumulator tiles over the whole depth.
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile_block(
        a: *const u32,
        low: Option<*const u32>,
        pairs: usize,
        b: *const u32,
        out: *mut f32,
        out_stride: usize,
        accumulate: bool,
    ) {
        let a_stride = pairs * 4;
        let out_stride = out_stride * 4;
        let b_stride = COLUMN_BLOCK * 4;
        // SAFETY (whole function): every tile load and store stays inside
        // the 32 × 32 block of `out`, the 32 rows of `a` (and `low`), and the
        // block of `b`, as the caller guarantees.
        unsafe {
            if accumulate {
                asm!(
                    "tileloadd tmm0, [{o} + {s}*1]",
                    "tileloadd tmm1, [{o} + {s}*1 + 64]",
                    "tileloadd tmm2, [{o2} + {s}*1]",
                    "tileloadd tmm3, [{o2} + {s}*1 + 64]",
                    o = in(reg) out,
                    o2 = in(reg) out.byte_add(16 * out_stride),
                    s = in(reg) out_stride,
                    options(nostack, readonly),
                );
            } else {
                asm!(
                    "tilezero tmm0",
                    "tilezero tmm1",
                    "tilezero tmm2",
                    "tilezero tmm3",
                    options(nostack, nomem)
                );
            }
            let parts: &[*const u32] = match low {
                Some(ref low) => &[a, *low],
                None => &[a],
            };
            for p in (0..pairs).step_by(PAIR_BLOCK) {
                let bp = b.add(p * COLUMN_BLOCK);
                asm!(
                    "tileloadd tmm6, [{b} + {bs}*1]",
                    "tileloadd tmm7, [{b} + {bs}*1 + 64]",
                    b = in(reg) bp,
                    bs = in(reg) b_stride,
                    options(nostack, readonly),
                );
                for &part in parts {
                    let ap = part.add(p);
                    asm!(
                        "tileloadd tmm4, [{a} + {s}*1]",
                        "tileloadd tmm5, [{a2} + {s}*1]",
                        "tdpbf16ps tmm0, tmm4, tmm6",
                        "tdpbf16ps tmm1, tmm4, tmm7",
                        "tdpbf16ps tmm2, tmm5, tmm6",
                        "tdpbf16ps tmm3, tmm5, tmm7",
                        a = in(reg) ap,
                        a2 = in(reg) ap.byte_add(16 * a_stride),
                        s = in(reg) a_stride,
                        options(nostack, readonly),
                    );
                }
            }
            asm!(
                "tilestored [{o} + {s}*1], tmm0",
                "tilestored [{o} + {s}*1 + 64], tmm1",
                "tilestored [{o2} + {s}*1], tmm2",
                "tilestored [{o2} + {s}*1 + 64], tmm3",
                o = in(reg) out,
                o2 = in(reg) out.byte_add(16 * out_stride),
                s = in(reg) out_stride,
                options(nostack),
            );
        }
    }
}

/// A layer's weights packed for the bf16 units, made on first use and kept
/// with the layer (a network that never runs bf16 never packs).
#[derive(Default)]
pub struct PackedCache(std::sync::OnceLock<PackedWeights>);

impl PackedCache {
    /// The packed form of `weights` (`k` × `n`), packed on the first call.
    pub(crate) fn get(&self, k: usize, n: usize, weights: &[f32]) -> &PackedWeights {
        self.0.get_or_init(|| PackedWeights::new(k, n, weights))
    }
}

impl Clone for PackedCache {
    fn clone(&self) -> PackedCache {
        // Packed again on the clone's first use.
        PackedCache::default()
    }
}

impl std::fmt::Debug for PackedCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "PackedCache(packed)"
        } else {
            "PackedCache(empty)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{pack_pairs, pack_pairs_portable, product, Bf16Path, PackedRows, PackedWeights};
    use crate::forward::cpu::{Features, Unit};
    use crate::forward::kernels::{round_to_bf16, Grid};

    /// Values of varied sign and magnitude, as activations and weights are.
    fn values(count: usize, seed: u32) -> Vec<f32> {
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
                rows_bf16.fill(Bf16Path::Portable, rows, k, &a, split, 1);
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
        ];
        for path in paths {
            for &(rows, k, n) in &shapes {
                for split in [false, true] {
                    for accumulate in [false, true] {
                        let (a, w) = (values(rows * k, 3), values(k * n, 4));
                        let start = values(rows * n, 5);
                        let packed = PackedWeights::new(k, n, &w);
                        let mut reference_rows = PackedRows::default();
                        reference_rows.fill(Bf16Path::Portable, rows, k, &a, split, 1);
                        let mut hardware_rows = PackedRows::default();
                        hardware_rows.fill(path, rows, k, &a, split, 2);
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
                keys.fill_columns(path, k, n, &src, offset, stride);
                assert_eq!((keys.n, keys.pairs), (expected.n, expected.pairs));
                assert_eq!(keys.data, expected.data, "{path:?} keys {k}×{n}");
            }
            // Values: row i is src[offset + i * stride..][..n], n ≤ stride.
            let n = n.min(stride);
            let mut dense = vec![0.0f32; k * n];
            for i in 0..k {
                dense[i * n..(i + 1) * n].copy_from_slice(&src[offset + i * stride..][..n]);
            }
            let expected = PackedWeights::new(k, n, &dense);
            let mut rows = PackedWeights::empty();
            // Filled twice, larger first: nothing of the first stays.
            rows.fill_rows(k + 3, n, &src, 0, stride);
            rows.fill_rows(k, n, &src, offset, stride);
            assert_eq!(rows.data, expected.data, "values {k}×{n}");
            // Queries: rows of k at a stride, as a dense copy packs them.
            let dense_rows: Vec<f32> = (0..n)
                .flat_map(|r| src[offset + r * stride..][..k.min(stride)].to_vec())
                .collect();
            let k = k.min(stride);
            for path in all_paths() {
                for split in [false, true] {
                    let mut expected = PackedRows::default();
                    expected.fill(Bf16Path::Portable, n, k, &dense_rows, split, 1);
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
                            let (sy, sx) =
                                (y as isize + dy as isize - 1, x as isize + dx as isize - 1);
                            if sy < 0
                                || sx < 0
                                || sy >= grid.height as isize
                                || sx >= grid.width as isize
                            {
                                continue;
                            }
                            let src = (b * grid.points() + sy as usize * grid.width + sx as usize)
                                * channels;
                            let dst = (b * grid.points() + y * grid.width + x) * row
                                + (dy * kx + dx) * channels;
                            unrolled[dst..dst + channels]
                                .copy_from_slice(&input[src..src + channels]);
                        }
                    }
                }
            }
        }
        for split in [false, true] {
            let mut direct = PackedRows::default();
            direct.fill_unrolled(Bf16Path::Portable, grid, (ky, kx), channels, &input, split);
            let mut via_f32 = PackedRows::default();
            via_f32.fill(Bf16Path::Portable, grid.rows(), row, &unrolled, split, 2);
            assert_eq!(direct.pairs, via_f32.pairs);
            assert_eq!(direct.high, via_f32.high);
            assert_eq!(direct.low, via_f32.low);
        }
    }
}
