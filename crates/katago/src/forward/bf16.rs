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

use super::elementwise::widest_simd;
#[cfg(target_arch = "x86_64")]
use super::elementwise::{simd_level, SimdLevel};
use super::kernels::{round_to_bf16, unroll, Grid};
use super::words::Words;

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

impl Bf16Path {
    /// The columns to give a product of `n` columns whose extra columns
    /// may be zero: on AMX whole tiles, so that no column is left to the
    /// slower vector units; elsewhere `n`.
    pub(crate) fn product_width(self, n: usize) -> usize {
        match self {
            Bf16Path::Amx => n.next_multiple_of(COLUMN_BLOCK),
            Bf16Path::Portable | Bf16Path::Avx512 => n,
        }
    }
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
/// does; the AVX-512 one with a cubic, within 2⁻¹³·⁵ of it before the
/// rounding to bf16 (2⁻⁹), and exact for the row's largest score, whose
/// numerator is 1.
pub(crate) fn softmax_pairs(path: Bf16Path, row: &[f32], scale: f32, dst: &mut [u32]) -> f32 {
    assert!(dst.len() * 2 >= row.len(), "room for every pair");
    #[cfg(target_arch = "x86_64")]
    if path != Bf16Path::Portable {
        // SAFETY: the AVX-512 paths are chosen only where the CPU has
        // AVX-512-BF16 and AVX-512-DQ (`cpu::Features`).
        return unsafe { x86::softmax_rows([row], scale, [dst])[0] };
    }
    let _ = path;
    let mut numerators = row.to_vec();
    let mut inverse = [0.0f32];
    super::elementwise::softmax_numerators(&mut numerators, row.len().max(1), scale, &mut inverse);
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
    pub data: Words,
    /// The rows and the columns written by the last fill of a reused
    /// buffer: a fill of the same shape writes the same entries, so the
    /// padding is still zero and need not be cleared again.
    filled: Option<(usize, usize)>,
}

impl PackedWeights {
    /// Packs `weights`, `k` × `n` row-major.
    pub(crate) fn new(k: usize, n: usize, weights: &[f32]) -> PackedWeights {
        assert_eq!(weights.len(), k * n, "weights are k × n");
        let pairs = padded_pairs(k);
        let blocks = n.div_ceil(COLUMN_BLOCK);
        let mut data = Words::zeros(blocks * pairs * COLUMN_BLOCK);
        for row in 0..k {
            let (p, high) = (row / 2, row % 2 == 1);
            for col in 0..n {
                let (block, lane) = (col / COLUMN_BLOCK, col % COLUMN_BLOCK);
                let bits = bf16_bits(weights[row * n + col]);
                data[(block * pairs + p) * COLUMN_BLOCK + lane] |=
                    if high { bits << 16 } else { bits };
            }
        }
        PackedWeights {
            n,
            pairs,
            data,
            filled: None,
        }
    }

    /// No weights yet: a buffer for [`PackedWeights::fill_columns`] and
    /// [`PackedWeights::fill_rows`].
    pub(crate) fn empty() -> PackedWeights {
        PackedWeights {
            n: 0,
            pairs: 0,
            data: Words::default(),
            filled: None,
        }
    }

    /// Sizes the buffer for a `k` × `width` matrix of which the first
    /// `columns` columns are about to be written whole (and the pad of an
    /// odd `k` with them); every other entry zero.
    fn reset(&mut self, k: usize, width: usize, columns: usize) {
        if self.filled == Some((k, columns)) && self.n == width {
            return;
        }
        self.n = width;
        self.pairs = padded_pairs(k);
        self.filled = Some((k, columns));
        self.data.clear();
        self.data
            .resize(width.div_ceil(COLUMN_BLOCK) * self.pairs * COLUMN_BLOCK, 0);
    }

    /// Packs, as a `k` × `width` matrix, the transpose of `n` vectors of
    /// `k` values, column `j` being `src[offset + j * stride..][..k]`
    /// (attention's keys, one point a column), and `width - n` columns of
    /// zeros after them (a whole block of columns for the AMX tiles).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn fill_columns(
        &mut self,
        path: Bf16Path,
        k: usize,
        n: usize,
        width: usize,
        src: &[f32],
        offset: usize,
        stride: usize,
    ) {
        assert!(width >= n, "room for every column");
        self.reset(k, width, n);
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

    /// Packs, as [`PackedWeights::fill_columns`], the transpose of a
    /// head's rows (its keys), each rotated as it is read, with zero
    /// columns after them up to `width`. Only where
    /// [`HeadRows::packed_directly`].
    pub(crate) fn fill_head_columns(&mut self, path: Bf16Path, head: &HeadRows, width: usize) {
        assert!(
            head.packed_directly(path),
            "a path that packs heads directly"
        );
        assert!(width >= head.points, "room for every column");
        self.reset(head.k, width, head.points);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the AVX-512 paths (asserted above) are chosen only where
        // the CPU has AVX-512-BF16; every column block is written whole.
        unsafe {
            x86::head_columns(head, &mut self.data)
        };
    }

    /// Packs a `k` × `n` matrix whose row `i` is `src[offset + i *
    /// stride..][..n]` (attention's values, one point a row).
    pub(crate) fn fill_rows(
        &mut self,
        path: Bf16Path,
        k: usize,
        n: usize,
        src: &[f32],
        offset: usize,
        stride: usize,
    ) {
        self.reset(k, n, n);
        let pairs = self.pairs;
        if k > 0 {
            assert!(
                src.len() >= offset + (k - 1) * stride + n,
                "every row in the source"
            );
        }
        #[cfg(target_arch = "x86_64")]
        if path != Bf16Path::Portable && n.is_multiple_of(COLUMN_BLOCK) {
            // SAFETY: the AVX-512 paths are chosen only where the CPU has
            // AVX-512-BF16; the rows are inside `src` (asserted above) and
            // the buffer holds `n / COLUMN_BLOCK` blocks of `pairs` pairs.
            unsafe { x86::pair_rows(&src[offset..], stride, k, n, pairs, &mut self.data) };
            return;
        }
        let _ = path;
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

/// One attention head's rows in its projection's output, rotated as they
/// are read: point `p`'s `k` values are `src[at + p · stride..][..k]`, and
/// where `factors` is not empty each pair `(a, b)` is turned by the cosine
/// and sine at the same place in `factors[p · k..]` to `(a cos + b (−sin),
/// b cos + a sin)` (a head's part of attention's rotary table).
#[derive(Clone, Copy)]
pub(crate) struct HeadRows<'a> {
    /// The projection's output, every head of a point side by side.
    pub src: &'a [f32],
    /// Where the head's first point starts in `src`.
    pub at: usize,
    /// From one point to the next in `src`.
    pub stride: usize,
    /// The head's width.
    pub k: usize,
    /// Points of the board.
    pub points: usize,
    /// Each point's cosine and sine for each pair, or none.
    pub factors: &'a [f32],
}

impl HeadRows<'_> {
    /// Whether `path` rotates and rounds these rows in one pass
    /// ([`PackedRows::fill_head`], [`PackedWeights::fill_head_columns`]);
    /// elsewhere they are gathered into rows first.
    pub(crate) fn packed_directly(&self, path: Bf16Path) -> bool {
        cfg!(target_arch = "x86_64") && path != Bf16Path::Portable && self.k.is_multiple_of(32)
    }

    /// Every point's row and factors inside the slices.
    fn check(&self) {
        if self.points > 0 {
            let last = self.at + (self.points - 1) * self.stride + self.k;
            assert!(self.src.len() >= last, "every point's row in the source");
        }
        assert!(
            self.factors.is_empty() || self.factors.len() >= self.points * self.k,
            "factors for every point"
        );
    }
}

/// Pairs of an inner dimension `k`, padded to a whole [`PAIR_BLOCK`].
pub(crate) fn padded_pairs(k: usize) -> usize {
    k.div_ceil(2).div_ceil(PAIR_BLOCK) * PAIR_BLOCK
}

/// The rows [`PackedRows::fill`] packs: a row-major matrix, or rows made
/// as they are packed.
pub(crate) trait Rows: Sync {
    /// Row `r`, `k` values; `made` holds it where it is made. Rounded
    /// right after, a made row may be made to 2⁻²⁰ instead of to the last
    /// bit (see `elementwise::silu_gate_rounded`).
    fn row<'a>(&'a self, r: usize, k: usize, made: &'a mut Vec<f32>) -> &'a [f32];

    /// The first `rows` rows as a row-major matrix, for the products that
    /// read one: the rows themselves where they are one, else made whole
    /// into `out` (by the threads of the pass).
    fn matrix<'a>(&'a self, rows: usize, k: usize, out: &'a mut Vec<f32>) -> &'a [f32];
}

impl Rows for [f32] {
    fn row<'a>(&'a self, r: usize, k: usize, _: &'a mut Vec<f32>) -> &'a [f32] {
        &self[r * k..][..k]
    }

    fn matrix<'a>(&'a self, rows: usize, k: usize, _: &'a mut Vec<f32>) -> &'a [f32] {
        &self[..rows * k]
    }
}

/// The gated feed-forward's hidden rows, `silu(values) · gate`, made a row
/// at a time as they are packed: they never go to memory in f32, which at
/// a batch's size is what the gating costs.
pub(crate) struct GatedRows<'a> {
    pub values: &'a [f32],
    pub gate: &'a [f32],
}

impl Rows for GatedRows<'_> {
    fn row<'a>(&'a self, r: usize, k: usize, made: &'a mut Vec<f32>) -> &'a [f32] {
        super::elementwise::resize_for_overwrite(made, k);
        let (values, gate) = (&self.values[r * k..][..k], &self.gate[r * k..][..k]);
        super::elementwise::silu_gate_rounded(values, gate, made);
        made
    }

    fn matrix<'a>(&'a self, rows: usize, k: usize, out: &'a mut Vec<f32>) -> &'a [f32] {
        super::elementwise::resize_for_overwrite(out, rows * k);
        super::elementwise::for_row_blocks(out, k, |first_row, block| {
            let at = first_row * k..first_row * k + block.len();
            super::elementwise::silu_gate_into(&self.values[at.clone()], &self.gate[at], block);
        });
        out
    }
}

/// Activations rounded to bf16 pairs: `rows` rows of `pairs` pairs
/// (padded as [`PackedWeights`]), and in split mode a second set holding
/// what the first rounding lost, itself rounded to bf16.
#[derive(Default)]
pub(crate) struct PackedRows {
    pub rows: usize,
    pub pairs: usize,
    pub high: Words,
    pub low: Words,
}

impl PackedRows {
    /// Rounds `rows` rows of `k` values (from `src`, a row-major matrix or
    /// rows made on the way) to bf16 pairs; with `split`, the remainders
    /// too. The rows are shared between `threads` threads of the current
    /// pool when there are enough of them.
    pub(crate) fn fill(
        &mut self,
        path: Bf16Path,
        rows: usize,
        k: usize,
        src: &(impl Rows + ?Sized),
        split: bool,
        threads: usize,
    ) {
        // Every pair is written below (padding included), so the buffers
        // are only sized, not cleared.
        let pairs = self.size(rows, k, split);
        let pack_rows = |first: usize, high: &mut [u32], mut low: Option<&mut [u32]>| {
            let (mut rest, mut made) = (Vec::new(), Vec::new());
            for (r, high) in high.chunks_exact_mut(pairs).enumerate() {
                let low = low
                    .as_deref_mut()
                    .map(|low| &mut low[r * pairs..(r + 1) * pairs]);
                pack_row(path, src.row(first + r, k, &mut made), high, low, &mut rest);
            }
        };
        if threads <= 1 || rows < 2 * threads || rows * k < 1 << 16 {
            let low = split.then_some(&mut self.low[..]);
            pack_rows(0, &mut self.high, low);
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
                for (index, (high, low)) in self
                    .high
                    .chunks_mut(block * pairs)
                    .zip(lows.iter_mut().map(Option::take))
                    .enumerate()
                {
                    let pack_rows = &pack_rows;
                    scope.spawn(move |_| {
                        super::profile::task(None, || pack_rows(index * block, high, low))
                    });
                }
            })
        });
    }

    /// Sizes the buffers for `rows` rows of `k` values (with remainders
    /// where `split`), without clearing them; returns the pairs of a row.
    fn size(&mut self, rows: usize, k: usize, split: bool) -> usize {
        let pairs = padded_pairs(k);
        self.rows = rows;
        self.pairs = pairs;
        self.high.resize_for_overwrite(rows * pairs);
        if split {
            self.low.resize_for_overwrite(rows * pairs);
        } else {
            self.low.clear();
        }
        pairs
    }

    /// The softmax numerators of `rows` rows of scores (see
    /// [`softmax_pairs`]), each the first `k` values of a row `width` wide
    /// in `scores`, as rows of pairs (no remainders); one over each row's
    /// sum into `inverse`. On AVX-512 four rows at a time, as one row
    /// alone waits on its own reductions.
    pub(crate) fn fill_softmax(
        &mut self,
        path: Bf16Path,
        (rows, k, width): (usize, usize, usize),
        scores: &[f32],
        scale: f32,
        inverse: &mut [f32],
    ) {
        let pairs = self.size(rows, k, false);
        let mut dsts = self.high[..rows * pairs].chunks_exact_mut(pairs);
        let mut sources = scores.chunks(width).map(|row| &row[..k]);
        let mut inverse = inverse[..rows].iter_mut();
        #[cfg(target_arch = "x86_64")]
        if path != Bf16Path::Portable {
            while dsts.len() >= 4 {
                let dst = std::array::from_fn(|_| dsts.next().expect("four rows left"));
                let src = std::array::from_fn(|_| sources.next().expect("a row of scores each"));
                // SAFETY: the AVX-512 paths are chosen only where the CPU
                // has AVX-512-BF16 and AVX-512-DQ (`cpu::Features`); each
                // row has room for its pairs (padded pairs of `k`).
                let sums = unsafe { x86::softmax_rows::<4>(src, scale, dst) };
                // The sums first: a zip takes from its first side before
                // it finds the second one ended.
                for (sum, to) in sums.into_iter().zip(&mut inverse) {
                    *to = sum;
                }
            }
        }
        for ((dst, src), to) in dsts.zip(sources).zip(inverse) {
            *to = softmax_pairs(path, src, scale, dst);
        }
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
        // The input rounded once per point (every pair written), then
        // copied per tap; its buffers kept for the next convolution.
        let mut packed_input = POINTS.take();
        packed_input.rows = rows;
        packed_input.pairs = half;
        packed_input.high.resize_for_overwrite(rows * half);
        packed_input
            .low
            .resize_for_overwrite(if split { rows * half } else { 0 });
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
        // Every pair is written by `unroll`, so the buffers are only sized.
        self.high.resize_for_overwrite(rows * pairs);
        unroll(
            grid,
            (kernel_y, kernel_x),
            half,
            &packed_input.high,
            pairs,
            &mut self.high,
        );
        if split {
            self.low.resize_for_overwrite(rows * pairs);
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
        POINTS.set(packed_input);
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

    /// Rounds a head's rows, each rotated as it is read, to bf16 pairs;
    /// with `split`, the remainders too. Only where
    /// [`HeadRows::packed_directly`].
    pub(crate) fn fill_head(&mut self, path: Bf16Path, head: &HeadRows, split: bool) {
        assert!(
            head.packed_directly(path),
            "a path that packs heads directly"
        );
        self.size(head.points, head.k, split);
        #[cfg(target_arch = "x86_64")]
        // SAFETY: the AVX-512 paths (asserted above) are chosen only where
        // the CPU has AVX-512-BF16; the buffers hold every row (sized
        // above; `k` is a whole number of pair blocks, so no padding).
        unsafe {
            x86::head_rows(head, &mut self.high, split.then_some(&mut self.low[..]))
        };
    }

    /// Whether the remainders were kept.
    pub(crate) fn split(&self) -> bool {
        !self.low.is_empty()
    }
}

thread_local! {
    /// The points of [`PackedRows::fill_unrolled`]'s input, rounded, kept
    /// between convolutions.
    static POINTS: std::cell::RefCell<PackedRows> = std::cell::RefCell::default();
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
        // SAFETY: as above.
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
pub(super) mod x86;

#[cfg(target_arch = "x86_64")]
mod amx;

/// A layer's weights packed for the bf16 units, quantised for the int8
/// and int16 ones and packed for the 512-bit f32 products, each made on first use and kept with the layer (a network that
/// never runs bf16 or int8 never packs).
#[derive(Default)]
pub struct PackedCache {
    bf16: std::sync::OnceLock<PackedWeights>,
    int8: std::sync::OnceLock<super::int8::QuantLayer>,
    int16: std::sync::OnceLock<super::int16::WordWeights>,
    wide_f32: std::sync::OnceLock<super::wide_f32::PackedF32>,
}

impl PackedCache {
    /// The cache kept in a layer's room for derived forms.
    pub(crate) fn of(derived: &crate::model::Derived) -> &PackedCache {
        derived.get_or_init(PackedCache::default)
    }

    /// The packed form of `weights` (`k` × `n`), packed on the first call.
    pub(crate) fn get(&self, k: usize, n: usize, weights: &[f32]) -> &PackedWeights {
        self.bf16.get_or_init(|| PackedWeights::new(k, n, weights))
    }

    /// The quantised form of `weights` (`k` × `n`), made on the first call.
    pub(crate) fn int8(&self, k: usize, n: usize, weights: &[f32]) -> &super::int8::QuantLayer {
        self.int8
            .get_or_init(|| super::int8::QuantLayer::new(k, n, weights))
    }

    /// The 16-bit form of `weights` (`k` × `n`), made on the first call.
    pub(crate) fn int16(&self, k: usize, n: usize, weights: &[f32]) -> &super::int16::WordWeights {
        self.int16
            .get_or_init(|| super::int16::WordWeights::new(k, n, weights))
    }

    /// The weights packed for the 512-bit f32 products, on the first call.
    pub(crate) fn wide_f32(
        &self,
        k: usize,
        n: usize,
        weights: &[f32],
    ) -> &super::wide_f32::PackedF32 {
        self.wide_f32
            .get_or_init(|| super::wide_f32::PackedF32::new(k, n, weights))
    }
}

#[cfg(test)]
pub(super) mod tests;
