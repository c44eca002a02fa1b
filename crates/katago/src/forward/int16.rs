//! Matrix products in 16-bit integers: a layer's weights quantised once per
//! output channel (column) and the activations per row as each product is
//! made, both to ±[`LEVELS`]; products summed exactly in 32-bit integers,
//! a chunk of the depth at a time, and scaled back to f32.
//!
//! `VPDPWSSD` (AVX-512-VNNI) multiplies two signed 16-bit pairs and adds
//! both products to a 32-bit lane: as many products an instruction as
//! `VDPBF16PS`, but of about 13 bits a value against bf16's 8, so one
//! product is about as accurate as int8's three (`docs/performance.md`).
//!
//! The sums wrap at 32 bits, so the depth is summed in chunks of
//! [`CHUNK_PAIRS`] pairs, whose sums cannot overflow
//! (`2 · CHUNK_PAIRS · LEVELS² < 2³¹`); each chunk's sum is converted to
//! f32 and added, in order, and the total scaled back:
//!
//! `out[r][j] = (Σ_chunks f32(Σ_{k in chunk} a[r][k] · w[k][j])) · (sa[r] · sw[j])`.
//!
//! Both implementations compute the same integers and the same f32
//! results, bit for bit: [`Int16Path::Portable`] in plain Rust (the
//! reference, on every machine) and [`Int16Path::Avx512Vnni`]. A path the
//! CPU lacks is never called ([`crate::forward::cpu`]).

use super::bf16::Rows;
use super::words::Words;

/// Pairs (two values of the inner dimension) are padded to a multiple of
/// this: 64 bytes, one cache line.
pub(crate) const PAIR_BLOCK: usize = 16;
/// Columns of one packed block: two AVX-512 registers of 32-bit sums.
pub(crate) const COLUMN_BLOCK: usize = 32;
/// The largest magnitude of a quantised value: 13 bits with the sign.
const LEVELS: f32 = 4095.0;
/// Pairs summed in 32-bit integers before the sum is added in f32: the
/// most whole [`PAIR_BLOCK`]s whose products, at most `LEVELS²` each, two
/// a pair, cannot overflow a signed 32-bit sum.
pub(crate) const CHUNK_PAIRS: usize = {
    let product = (LEVELS as i64) * (LEVELS as i64);
    let pairs = (i32::MAX as i64 / (2 * product)) as usize;
    pairs / PAIR_BLOCK * PAIR_BLOCK
};

const _: () = assert!(CHUNK_PAIRS >= PAIR_BLOCK, "a chunk holds a block");

/// An implementation of the int16 product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Int16Path {
    /// Plain Rust, any CPU: the reference.
    Portable,
    /// `VPDPWSSD` on 512-bit registers.
    Avx512Vnni,
}

/// Pairs of an inner dimension `k`, padded to a whole [`PAIR_BLOCK`].
pub(crate) fn padded_pairs(k: usize) -> usize {
    k.div_ceil(2).div_ceil(PAIR_BLOCK) * PAIR_BLOCK
}

/// The scale of a row or column whose largest magnitude is `max`, and its
/// inverse: zero for a row of zeros (or one that is not finite, or so
/// small that its inverse would not be), whose every value then
/// quantises to 0.
fn scales(max: f32) -> (f32, f32) {
    let inverse = LEVELS / max;
    if max > 0.0 && max.is_finite() && inverse.is_finite() {
        (max / LEVELS, inverse)
    } else {
        (0.0, 0.0)
    }
}

/// `x · inverse` rounded to the nearest integer (ties to even, as
/// `VCVTPS2DQ` rounds) and kept within ±[`LEVELS`].
#[inline]
fn quantise(x: f32, inverse: f32) -> i32 {
    let limit = LEVELS as i32;
    ((x * inverse).round_ties_even() as i32).clamp(-limit, limit)
}

/// Two quantised values in one 32-bit word, the first in the low half.
#[inline]
fn pair(first: i32, second: i32) -> u32 {
    (first as i16 as u16 as u32) | (second as i16 as u16 as u32) << 16
}

/// The weights of a layer, `k` × `n` row-major in f32, quantised per
/// column and packed for `VPDPWSSD`: blocks of [`COLUMN_BLOCK`] columns,
/// and within a block, for each pair of rows `2p, 2p + 1`, one `u32` per
/// column holding its two values (row `2p` low). Rows are padded to whole
/// [`PAIR_BLOCK`]s and columns to a whole block, with zeros.
#[derive(Clone, Debug)]
pub(crate) struct WordWeights {
    /// Columns.
    pub n: usize,
    /// Pairs of rows, padded.
    pub pairs: usize,
    /// Packed pairs, `n.div_ceil(COLUMN_BLOCK)` blocks of `pairs` ×
    /// [`COLUMN_BLOCK`].
    pub data: Words,
    /// Each column's scale (zero past `n`, to the end of the last block).
    pub scales: Vec<f32>,
}

impl WordWeights {
    /// Quantises and packs `weights`, `k` × `n` row-major.
    pub(crate) fn new(k: usize, n: usize, weights: &[f32]) -> WordWeights {
        assert_eq!(weights.len(), k * n, "weights are k × n");
        let pairs = padded_pairs(k);
        let blocks = n.div_ceil(COLUMN_BLOCK);
        let mut data = Words::zeros(blocks * pairs * COLUMN_BLOCK);
        // Row by row, as the weights lie in memory: the columns' largest
        // magnitudes, then their values.
        let max = super::int8::column_maxima(k, n, weights);
        let column = max.iter().map(|&max| scales(max)).collect::<Vec<_>>();
        let mut column_scales = vec![0.0f32; blocks * COLUMN_BLOCK];
        for (dst, (scale, _)) in column_scales.iter_mut().zip(&column) {
            *dst = *scale;
        }
        for (row, values) in weights.chunks_exact(n.max(1)).take(k).enumerate() {
            for (col, (x, (_, inverse))) in values.iter().zip(&column).enumerate() {
                let q = quantise(*x, *inverse);
                let (block, lane) = (col / COLUMN_BLOCK, col % COLUMN_BLOCK);
                let half = (q as i16 as u16 as u32) << (16 * (row % 2));
                data[(block * pairs + row / 2) * COLUMN_BLOCK + lane] |= half;
            }
        }
        WordWeights {
            n,
            pairs,
            data,
            scales: column_scales,
        }
    }

    /// The packed block of columns `block * COLUMN_BLOCK ..`.
    fn block(&self, block: usize) -> &[u32] {
        &self.data[block * self.pairs * COLUMN_BLOCK..(block + 1) * self.pairs * COLUMN_BLOCK]
    }
}

/// Activations quantised per row: `rows` rows of `pairs` pairs (padded
/// with zeros), and each row's scale.
#[derive(Default)]
pub(crate) struct WordRows {
    pub rows: usize,
    pub pairs: usize,
    pub data: Words,
    pub scales: Vec<f32>,
}

impl WordRows {
    /// Quantises `rows` rows of `k` values, each made as it is read, the
    /// rows shared between `threads` threads of the current pool when
    /// there are enough of them.
    pub(crate) fn fill(
        &mut self,
        path: Int16Path,
        rows: usize,
        k: usize,
        src: &(impl Rows + ?Sized),
        threads: usize,
    ) {
        let pairs = padded_pairs(k);
        self.rows = rows;
        self.pairs = pairs;
        // Every pair and scale is written below, so the buffers are only
        // sized.
        self.data.resize_for_overwrite(rows * pairs);
        self.scales.resize(rows, 0.0);
        // Each row is made (where it is made) just before it is quantised,
        // as its scale is its own: made rows never go to memory in f32.
        let quantise_rows = |first: usize, data: &mut [u32], scales: &mut [f32]| {
            let mut made = Vec::new();
            for (r, scale) in scales.iter_mut().enumerate() {
                let row = src.row(first + r, k, &mut made);
                *scale = quantise_row(path, row, &mut data[r * pairs..(r + 1) * pairs]);
            }
        };
        if threads <= 1 || rows < 2 * threads || rows * k < 1 << 16 {
            quantise_rows(0, &mut self.data, &mut self.scales);
            return;
        }
        let block = rows.div_ceil(threads);
        let parts = self
            .data
            .chunks_mut(block * pairs)
            .zip(self.scales.chunks_mut(block));
        super::profile::scoped(|| {
            rayon::scope(|scope| {
                for (index, (data, scales)) in parts.enumerate() {
                    let quantise_rows = &quantise_rows;
                    scope.spawn(move |_| {
                        super::profile::task(None, || quantise_rows(index * block, data, scales))
                    });
                }
            })
        });
    }
}

/// Quantises one row into `dst` (its pairs, padding included); returns its
/// scale.
fn quantise_row(path: Int16Path, row: &[f32], dst: &mut [u32]) -> f32 {
    assert!(dst.len() * 2 >= row.len(), "room for every value");
    match path {
        Int16Path::Portable => quantise_row_portable(row, dst),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: this path is chosen only where the CPU has AVX-512-VNNI
        // (`cpu::Features`); the room is asserted above.
        Int16Path::Avx512Vnni => unsafe { x86::quantise_row(row, dst) },
        #[cfg(not(target_arch = "x86_64"))]
        Int16Path::Avx512Vnni => unreachable!("no VNNI off x86-64"),
    }
}

fn quantise_row_portable(row: &[f32], dst: &mut [u32]) -> f32 {
    let max = row.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let (scale, inverse) = scales(max);
    let value = |i: usize| row.get(i).map_or(0, |&x| quantise(x, inverse));
    for (p, d) in dst.iter_mut().enumerate() {
        *d = pair(value(2 * p), value(2 * p + 1));
    }
    scale
}

/// `out[rows][n] (+)= a · w`, rows `first_row..` of `a`, on `path`.
pub(crate) fn product(
    path: Int16Path,
    a: &WordRows,
    first_row: usize,
    rows: usize,
    w: &WordWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    assert_eq!(a.pairs, w.pairs, "activations and weights of one depth");
    assert!(first_row + rows <= a.rows, "rows of the activations");
    assert!(out.len() >= rows * w.n, "the output holds every row");
    if rows == 0 || w.n == 0 {
        return;
    }
    let data = &a.data[first_row * a.pairs..(first_row + rows) * a.pairs];
    let row_scales = &a.scales[first_row..first_row + rows];
    match path {
        Int16Path::Portable => product_portable(data, row_scales, w, out, accumulate),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: this path is chosen only where the CPU has AVX-512-VNNI;
        // the shapes are asserted above.
        Int16Path::Avx512Vnni => unsafe { x86::product(data, row_scales, w, out, accumulate) },
        #[cfg(not(target_arch = "x86_64"))]
        Int16Path::Avx512Vnni => unreachable!("no VNNI off x86-64"),
    }
}

/// The two products of the 16-bit pairs of `a` and `b` added to `sum`, as
/// `VPDPWSSD` adds them (wrapping).
#[inline]
fn pair_dot(sum: i32, a: u32, b: u32) -> i32 {
    let (a0, a1) = (a as u16 as i16 as i32, (a >> 16) as u16 as i16 as i32);
    let (b0, b1) = (b as u16 as i16 as i32, (b >> 16) as u16 as i16 as i32);
    sum.wrapping_add(a0 * b0).wrapping_add(a1 * b1)
}

fn product_portable(
    data: &[u32],
    row_scales: &[f32],
    w: &WordWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    let pairs = w.pairs;
    for (r, (row, &row_scale)) in data.chunks_exact(pairs).zip(row_scales).enumerate() {
        for col in 0..w.n {
            let block = w.block(col / COLUMN_BLOCK);
            let lane = col % COLUMN_BLOCK;
            let mut total = 0.0f32;
            for chunk in (0..pairs).step_by(CHUNK_PAIRS) {
                let end = (chunk + CHUNK_PAIRS).min(pairs);
                let sum = (chunk..end).fold(0, |sum, p| {
                    pair_dot(sum, row[p], block[p * COLUMN_BLOCK + lane])
                });
                total += sum as f32;
            }
            let value = total * (row_scale * w.scales[col]);
            let dst = &mut out[r * w.n + col];
            *dst = if accumulate { *dst + value } else { value };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests;
