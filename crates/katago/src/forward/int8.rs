//! Matrix products in 8-bit integers: a layer's weights quantised once per
//! output channel (column), the activations per row as each product is
//! made, products summed exactly in 32-bit integers and scaled back to f32.
//!
//! `VPDPBUSD` (AVX-512-VNNI) multiplies four unsigned bytes by four signed
//! bytes and adds the four products to a 32-bit lane. The activations are
//! therefore stored with an offset of 128 (`u8 = q + 128`, `q` in
//! −127..=127), and the offset's share, `128 · Σₖ w[k][j]`, is taken off each
//! column's sum before it is scaled:
//!
//! `out[r][j] = (Σₖ u[r][k] · w[k][j] − 128 · Σₖ w[k][j]) · sa[r] · sw[j]`.
//!
//! Split, each operand is quantised twice: the value, then what that lost
//! on a step 254 times finer (the loss is at most half a step, so its
//! bytes again span −127..=127). A split product is three integer
//! products: high by high, and the two cross products (low activations by
//! high weights, high activations by low weights), which share the finer
//! scale and so one integer sum. The low-by-low product, a 64,516th of a
//! step squared, is left out.
//!
//! Four implementations compute the same integers and the same f32
//! results, bit for bit: [`Int8Path::Portable`] in plain Rust (the
//! reference, on every machine), [`Int8Path::Avx512Vnni`],
//! [`Int8Path::AmxInt8`] (`TDPBUSD`, the same unsigned-by-signed quads) and
//! [`Int8Path::AvxVnni`] (256-bit). A path the CPU lacks is never called
//! ([`crate::forward::cpu`]).

use super::bf16::Rows;
use super::words::Words;

/// Quads (four bytes of the inner dimension) are padded to a multiple of
/// this: 64 bytes, one cache line and one AMX tile row.
pub(crate) const QUAD_BLOCK: usize = 16;
/// Columns of one packed block: two AVX-512 registers of 32-bit sums.
pub(crate) const COLUMN_BLOCK: usize = 32;
/// The offset of the activations' bytes, and the largest magnitude of a
/// quantised value (symmetric, so that −127..=127 + 128 fits a byte).
const OFFSET: i32 = 128;
const LEVELS: f32 = 127.0;
/// How much finer the low quantisation's step is than the high one's: a
/// value's loss, at most half a high step, spans ±127 low steps.
const LOW_LEVELS: f32 = 2.0 * LEVELS;
/// The low step as a fraction of the high one, `1 / LOW_LEVELS`: the
/// scale of the cross products' sum relative to the high one's.
const LOW_STEP: f32 = 1.0 / LOW_LEVELS;

/// An implementation of the int8 product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Int8Path {
    /// Plain Rust, any CPU: the reference.
    Portable,
    /// `VPDPBUSD` on 512-bit registers.
    Avx512Vnni,
    /// `TDPBUSD` on AMX tiles, the edges on `VPDPBUSD`.
    AmxInt8,
    /// `VPDPBUSD` on 256-bit registers (AVX-VNNI).
    AvxVnni,
}

/// Quads of an inner dimension `k`, padded to a whole [`QUAD_BLOCK`].
pub(crate) fn padded_quads(k: usize) -> usize {
    k.div_ceil(4).div_ceil(QUAD_BLOCK) * QUAD_BLOCK
}

/// The scale of a row or column whose largest magnitude is `max`, and its
/// inverse: zero for a row of zeros (or one that is not finite), whose
/// every value then quantises to 0.
fn scales(max: f32) -> (f32, f32) {
    if max > 0.0 && max.is_finite() {
        (max / LEVELS, LEVELS / max)
    } else {
        (0.0, 0.0)
    }
}

/// `x · inverse` rounded to the nearest integer (ties to even, as
/// `VCVTPS2DQ` rounds) and kept within ±127.
#[inline]
fn quantise(x: f32, inverse: f32) -> i32 {
    ((x * inverse).round_ties_even() as i32).clamp(-127, 127)
}

/// The low quantisation of a value whose high one is `x · inverse`
/// rounded: what the rounding lost (`t − q`, at most half a step),
/// counted in steps [`LOW_LEVELS`] times finer.
#[inline]
fn quantise_low(x: f32, inverse: f32) -> i32 {
    let t = x * inverse;
    let q = (t.round_ties_even() as i32).clamp(-127, 127);
    (((t - q as f32) * LOW_LEVELS).round_ties_even() as i32).clamp(-127, 127)
}

/// The largest magnitude of each column of `weights`, `k` × `n`
/// row-major, read row by row as they lie in memory.
pub(crate) fn column_maxima(k: usize, n: usize, weights: &[f32]) -> Vec<f32> {
    let mut max = vec![0.0f32; n];
    for row in weights.chunks_exact(n.max(1)).take(k) {
        for (max, x) in max.iter_mut().zip(row) {
            *max = max.max(x.abs());
        }
    }
    max
}

/// The weights of a layer, `k` × `n` row-major in f32, quantised per
/// column and packed for `VPDPBUSD`: blocks of [`COLUMN_BLOCK`] columns,
/// and within a block, for each quad of rows `4p..4p + 4`, one `u32` per
/// column holding its four signed bytes (row `4p` lowest). Rows are padded
/// to whole [`QUAD_BLOCK`]s and columns to a whole block, with zeros.
#[derive(Clone, Debug)]
pub(crate) struct QuantWeights {
    /// Columns.
    pub n: usize,
    /// Quads of rows, padded.
    pub quads: usize,
    /// Packed bytes, `n.div_ceil(COLUMN_BLOCK)` blocks of `quads` ×
    /// [`COLUMN_BLOCK`].
    pub data: Words,
    /// Each column's scale (zero past `n`, to the end of the last block).
    pub scales: Vec<f32>,
    /// Each column's `128 · Σₖ w[k][j]` in quantised units: what the
    /// activations' offset adds to its sum.
    pub offsets: Vec<i32>,
}

impl QuantWeights {
    /// Quantises and packs `weights`, `k` × `n` row-major.
    pub(crate) fn new(k: usize, n: usize, weights: &[f32]) -> QuantWeights {
        assert_eq!(weights.len(), k * n, "weights are k × n");
        QuantWeights::packed(
            k,
            n,
            |row, col, inverse| quantise(weights[row * n + col], inverse),
            weights,
            1.0,
        )
    }

    /// Packs the weights' quantised values `value(row, col, inverse)`, the
    /// columns' scales being their largest magnitudes' times `step`.
    fn packed(
        k: usize,
        n: usize,
        value: impl Fn(usize, usize, f32) -> i32,
        weights: &[f32],
        step: f32,
    ) -> QuantWeights {
        let quads = padded_quads(k);
        let blocks = n.div_ceil(COLUMN_BLOCK);
        let mut data = Words::zeros(blocks * quads * COLUMN_BLOCK);
        // Row by row, as the weights lie in memory: the columns' largest
        // magnitudes, then their values and sums.
        let max = column_maxima(k, n, weights);
        let column = max.iter().map(|&max| scales(max)).collect::<Vec<_>>();
        let mut column_scales = vec![0.0f32; blocks * COLUMN_BLOCK];
        for (dst, (scale, _)) in column_scales.iter_mut().zip(&column) {
            *dst = scale * step;
        }
        let mut sums = vec![0i32; n];
        for row in 0..k {
            for (col, ((_, inverse), sum)) in column.iter().zip(&mut sums).enumerate() {
                let q = value(row, col, *inverse);
                *sum += q;
                let (block, lane) = (col / COLUMN_BLOCK, col % COLUMN_BLOCK);
                let byte = (q as i8 as u8 as u32) << (8 * (row % 4));
                data[(block * quads + row / 4) * COLUMN_BLOCK + lane] |= byte;
            }
        }
        let mut offsets = vec![0i32; blocks * COLUMN_BLOCK];
        for (offset, sum) in offsets.iter_mut().zip(&sums) {
            *offset = OFFSET * sum;
        }
        QuantWeights {
            n,
            quads,
            data,
            scales: column_scales,
            offsets,
        }
    }

    /// The packed block of columns `block * COLUMN_BLOCK ..`.
    fn block(&self, block: usize) -> &[u32] {
        &self.data[block * self.quads * COLUMN_BLOCK..(block + 1) * self.quads * COLUMN_BLOCK]
    }
}

/// A layer's weights quantised twice: once, and what that lost on a step
/// [`LOW_LEVELS`] times finer (the two together keep about 15 bits of
/// each weight).
#[derive(Clone, Debug)]
pub(crate) struct QuantLayer {
    pub high: QuantWeights,
    /// The losses' bytes; their scales are the high ones' times
    /// [`LOW_STEP`].
    pub low: QuantWeights,
    /// Each column's offset in the cross products' sum: the high weights'
    /// and the low ones' together (padded as the offsets are).
    pub cross_offsets: Vec<i32>,
}

impl QuantLayer {
    /// Quantises `weights`, `k` × `n` row-major, and the remainders.
    pub(crate) fn new(k: usize, n: usize, weights: &[f32]) -> QuantLayer {
        assert_eq!(weights.len(), k * n, "weights are k × n");
        let high = QuantWeights::new(k, n, weights);
        let low = QuantWeights::packed(
            k,
            n,
            |row, col, inverse| quantise_low(weights[row * n + col], inverse),
            weights,
            LOW_STEP,
        );
        let cross_offsets = high
            .offsets
            .iter()
            .zip(&low.offsets)
            .map(|(h, l)| h.wrapping_add(*l))
            .collect();
        QuantLayer {
            high,
            low,
            cross_offsets,
        }
    }
}

impl QuantLayer {
    /// The rows, quads and columns of a split product of `rows` rows of
    /// (`high`, `low`) quads by this layer into an output of `out_len`,
    /// checked: both quantisations of one shape, every row there.
    pub(crate) fn split_shape(
        &self,
        (high, low): (&[u32], &[u32]),
        rows: usize,
        out_len: usize,
    ) -> (usize, usize, usize) {
        let (quads, n) = (self.high.quads, self.high.n);
        assert!(
            self.low.quads == quads && self.low.n == n,
            "two quantisations of one layer"
        );
        assert!(high.len() >= rows * quads && low.len() >= rows * quads);
        assert!(out_len >= rows * n, "the output holds every row");
        (rows, quads, n)
    }
}

/// Activations quantised per row: `rows` rows of `quads` quads of offset
/// bytes (padded with the offset, that is with zeros), and each row's
/// scale; in split mode a second set of bytes holding what the first
/// quantisation lost, on the row's step times [`LOW_STEP`] (about 15 bits
/// kept in all).
#[derive(Default)]
pub(crate) struct QuantRows {
    pub rows: usize,
    pub quads: usize,
    pub data: Words,
    pub scales: Vec<f32>,
    /// The losses' bytes (split mode), empty otherwise.
    pub low: Words,
    split: bool,
}

impl QuantRows {
    /// Quantises `rows` rows of `k` values, each made as it is read, with
    /// `split` the remainders too, the rows shared between `threads`
    /// threads of the current pool when there are enough of them.
    pub(crate) fn fill(
        &mut self,
        path: Int8Path,
        rows: usize,
        k: usize,
        src: &(impl Rows + ?Sized),
        split: bool,
        threads: usize,
    ) {
        let quads = padded_quads(k);
        self.rows = rows;
        self.quads = quads;
        self.split = split;
        // Every quad and scale is written below, so the buffers are only
        // sized.
        self.data.resize_for_overwrite(rows * quads);
        self.scales.resize(rows, 0.0);
        let low_rows = if split { rows } else { 0 };
        self.low.resize_for_overwrite(low_rows * quads);
        // Each row is made (where it is made) just before it is quantised,
        // as its scale is its own: made rows never go to memory in f32.
        let quantise_rows = |first: usize, high: Part<'_>, mut low: Option<&mut [u32]>| {
            let mut made = Vec::new();
            for r in 0..high.scales.len() {
                let row = src.row(first + r, k, &mut made);
                let dst = &mut high.data[r * quads..(r + 1) * quads];
                high.scales[r] = match low.as_mut() {
                    Some(low) => {
                        quantise_row_split(path, row, dst, &mut low[r * quads..(r + 1) * quads])
                    }
                    None => quantise_row(path, row, dst),
                };
            }
        };
        if threads <= 1 || rows < 2 * threads || rows * k < 1 << 16 {
            let high = Part {
                data: &mut self.data,
                scales: &mut self.scales,
            };
            quantise_rows(0, high, split.then_some(&mut self.low[..]));
            return;
        }
        let block = rows.div_ceil(threads);
        let highs = self
            .data
            .chunks_mut(block * quads)
            .zip(self.scales.chunks_mut(block))
            .map(|(data, scales)| Part { data, scales });
        let mut lows: Vec<Option<&mut [u32]>> = if split {
            self.low.chunks_mut(block * quads).map(Some).collect()
        } else {
            (0..threads).map(|_| None).collect()
        };
        super::profile::scoped(|| {
            rayon::scope(|scope| {
                for (index, (high, low)) in highs.zip(lows.iter_mut().map(Option::take)).enumerate()
                {
                    let quantise_rows = &quantise_rows;
                    scope.spawn(move |_| {
                        super::profile::task(None, || quantise_rows(index * block, high, low))
                    });
                }
            })
        });
    }

    /// Whether the remainders were kept.
    pub(crate) fn split(&self) -> bool {
        self.split
    }
}

/// The quads and scales of some rows.
struct Part<'a> {
    data: &'a mut [u32],
    scales: &'a mut [f32],
}

/// Quantises one row into `high`, and what that lost into `low` (their
/// quads, padding included); returns the row's scale.
fn quantise_row_split(path: Int8Path, row: &[f32], high: &mut [u32], low: &mut [u32]) -> f32 {
    match path {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: these paths are chosen only where the CPU has
        // AVX-512-VNNI (`cpu::Features`).
        Int8Path::Avx512Vnni | Int8Path::AmxInt8 => unsafe {
            x86::quantise_row_split(row, high, low)
        },
        _ => quantise_row_split_portable(row, high, low),
    }
}

fn quantise_row_split_portable(row: &[f32], high: &mut [u32], low: &mut [u32]) -> f32 {
    let max = row.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let (scale, inverse) = scales(max);
    pack_bytes(row.len(), high, |i| quantise(row[i], inverse));
    pack_bytes(row.len(), low, |i| quantise_low(row[i], inverse));
    scale
}

/// Quantises one row into `dst` (its quads, padding included); returns its
/// scale.
fn quantise_row(path: Int8Path, row: &[f32], dst: &mut [u32]) -> f32 {
    match path {
        Int8Path::Portable => quantise_row_portable(row, dst),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: these paths are chosen only where the CPU has
        // AVX-512-VNNI (`cpu::Features`).
        Int8Path::Avx512Vnni | Int8Path::AmxInt8 => unsafe { x86::quantise_row(row, dst) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: this path is chosen only where the CPU has AVX-VNNI.
        Int8Path::AvxVnni => unsafe { avx_vnni::quantise_row(row, dst) },
        #[cfg(not(target_arch = "x86_64"))]
        Int8Path::Avx512Vnni | Int8Path::AmxInt8 | Int8Path::AvxVnni => {
            unreachable!("no VNNI off x86-64")
        }
    }
}

fn quantise_row_portable(row: &[f32], dst: &mut [u32]) -> f32 {
    let max = row.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let (scale, inverse) = scales(max);
    quantise_bytes(row, inverse, dst);
    scale
}

/// `row`'s values times `inverse`, quantised and offset, packed four to a
/// quad of `dst`; the rest of `dst` holds the offset (zero).
fn quantise_bytes(row: &[f32], inverse: f32, dst: &mut [u32]) {
    pack_bytes(row.len(), dst, |i| quantise(row[i], inverse));
}

/// The quantised values `value(i)` of a row of `len`, offset, four to a
/// quad of `dst`; the rest of `dst` holds the offset (zero).
fn pack_bytes(len: usize, dst: &mut [u32], value: impl Fn(usize) -> i32) {
    let byte = |i: usize| -> u32 {
        if i < len {
            (value(i) + OFFSET) as u32
        } else {
            OFFSET as u32
        }
    };
    for (quad, d) in dst.iter_mut().enumerate() {
        let i = 4 * quad;
        *d = byte(i) | byte(i + 1) << 8 | byte(i + 2) << 16 | byte(i + 3) << 24;
    }
}

/// `out[rows][n] (+)= a · w`, rows `first_row..` of `a`, on `path`: one
/// product where `a` has one quantisation (the weights' high one), the
/// three of a split product where it has two.
pub(crate) fn product(
    path: Int8Path,
    a: &QuantRows,
    first_row: usize,
    rows: usize,
    layer: &QuantLayer,
    out: &mut [f32],
    accumulate: bool,
) {
    let w = &layer.high;
    assert_eq!(a.quads, w.quads, "activations and weights of one depth");
    assert!(first_row + rows <= a.rows, "rows of the activations");
    assert!(out.len() >= rows * w.n, "the output holds every row");
    if rows == 0 || w.n == 0 {
        return;
    }
    let quads = first_row * a.quads..(first_row + rows) * a.quads;
    let high = &a.data[quads.clone()];
    let row_scales = &a.scales[first_row..first_row + rows];
    if !a.split() {
        return product_part(path, high, row_scales, w, out, accumulate);
    }
    let low = &a.low[quads];
    match path {
        Int8Path::Portable => {
            product_split_portable((high, low), row_scales, layer, out, accumulate)
        }
        #[cfg(target_arch = "x86_64")]
        // SAFETY: this path is chosen only where the CPU has AVX-512-VNNI.
        Int8Path::Avx512Vnni => unsafe {
            x86::product_split((high, low), row_scales, layer, 0, out, accumulate)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: this path is chosen only where the CPU has AMX-INT8, the
        // process its tile state, and AVX-512-VNNI.
        Int8Path::AmxInt8 => unsafe {
            amx::product_split((high, low), row_scales, layer, out, accumulate)
        },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: this path is chosen only where the CPU has AVX-VNNI.
        Int8Path::AvxVnni => unsafe {
            avx_vnni::product_split((high, low), row_scales, layer, out, accumulate)
        },
        #[cfg(not(target_arch = "x86_64"))]
        Int8Path::Avx512Vnni | Int8Path::AmxInt8 | Int8Path::AvxVnni => {
            unreachable!("no VNNI off x86-64")
        }
    }
}

/// `out (+)= data · w` for the rows of `data` with scales `row_scales`.
fn product_part(
    path: Int8Path,
    data: &[u32],
    row_scales: &[f32],
    w: &QuantWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    match path {
        Int8Path::Portable => product_portable(data, row_scales, w, out, accumulate),
        #[cfg(target_arch = "x86_64")]
        // SAFETY: this path is chosen only where the CPU has AVX-512-VNNI.
        Int8Path::Avx512Vnni => unsafe { x86::product(data, row_scales, w, out, accumulate) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: this path is chosen only where the CPU has AMX-INT8, the
        // process its tile state, and AVX-512-VNNI.
        Int8Path::AmxInt8 => unsafe { amx::product(data, row_scales, w, out, accumulate) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: this path is chosen only where the CPU has AVX-VNNI.
        Int8Path::AvxVnni => unsafe { avx_vnni::product(data, row_scales, w, out, accumulate) },
        #[cfg(not(target_arch = "x86_64"))]
        Int8Path::Avx512Vnni | Int8Path::AmxInt8 | Int8Path::AvxVnni => {
            unreachable!("no VNNI off x86-64")
        }
    }
}

/// The sum of the four byte products of `a` (unsigned) and `b` (signed)
/// added to `sum`, as `VPDPBUSD` adds them (wrapping).
#[inline]
fn quad_dot(sum: i32, a: u32, b: u32) -> i32 {
    (0..4).fold(sum, |sum, byte| {
        let x = (a >> (8 * byte)) as u8 as i32;
        let y = (b >> (8 * byte)) as u8 as i8 as i32;
        sum.wrapping_add(x * y)
    })
}

/// One output: a column's integer sum, less its offset, scaled back.
#[inline]
fn dequantise(sum: i32, offset: i32, row_scale: f32, column_scale: f32) -> f32 {
    (sum.wrapping_sub(offset)) as f32 * (row_scale * column_scale)
}

/// One output of a split product: the high sum and the cross products'
/// sum, each less its offset, scaled back and added.
#[inline]
fn dequantise_split(
    (high, cross): (i32, i32),
    (high_offset, cross_offset): (i32, i32),
    row_scale: f32,
    column_scale: f32,
) -> f32 {
    let scale = row_scale * column_scale;
    let high = high.wrapping_sub(high_offset) as f32 * scale;
    let cross = cross.wrapping_sub(cross_offset) as f32 * (scale * LOW_STEP);
    high + cross
}

fn product_split_portable(
    (high, low): (&[u32], &[u32]),
    row_scales: &[f32],
    layer: &QuantLayer,
    out: &mut [f32],
    accumulate: bool,
) {
    let (wh, wl) = (&layer.high, &layer.low);
    let quads = wh.quads;
    let rows = high.chunks_exact(quads).zip(low.chunks_exact(quads));
    for (r, ((high, low), &row_scale)) in rows.zip(row_scales).enumerate() {
        for col in 0..wh.n {
            let (block, lane) = (col / COLUMN_BLOCK, col % COLUMN_BLOCK);
            let (bh, bl) = (wh.block(block), wl.block(block));
            let (mut sum, mut cross) = (0, 0);
            for p in 0..quads {
                let (h, l) = (bh[p * COLUMN_BLOCK + lane], bl[p * COLUMN_BLOCK + lane]);
                sum = quad_dot(sum, high[p], h);
                cross = quad_dot(quad_dot(cross, low[p], h), high[p], l);
            }
            let offsets = (wh.offsets[col], layer.cross_offsets[col]);
            let value = dequantise_split((sum, cross), offsets, row_scale, wh.scales[col]);
            let dst = &mut out[r * wh.n + col];
            *dst = if accumulate { *dst + value } else { value };
        }
    }
}

fn product_portable(
    data: &[u32],
    row_scales: &[f32],
    w: &QuantWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    let quads = w.quads;
    for (r, (row, &row_scale)) in data.chunks_exact(quads).zip(row_scales).enumerate() {
        for col in 0..w.n {
            let block = w.block(col / COLUMN_BLOCK);
            let lane = col % COLUMN_BLOCK;
            let sum = (0..quads).fold(0, |sum, p| {
                quad_dot(sum, row[p], block[p * COLUMN_BLOCK + lane])
            });
            let value = dequantise(sum, w.offsets[col], row_scale, w.scales[col]);
            let dst = &mut out[r * w.n + col];
            *dst = if accumulate { *dst + value } else { value };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod amx;
#[cfg(target_arch = "x86_64")]
mod avx_vnni;
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
pub(crate) use x86::largest_magnitude;

#[cfg(test)]
pub(super) mod tests;
