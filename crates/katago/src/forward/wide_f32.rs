//! f32 matrix products on 512-bit registers: a layer's weights packed once
//! in blocks of 32 columns, and 12 × 32 register tiles of `VFMADD231PS`,
//! each sum kept in f32 in the order of the inner dimension. The `gemm`
//! crate's kernels run 256-bit on x86-64; on a CPU with AVX-512 this
//! path takes the f32 products of the network's layers.
//!
//! [`product_portable`] computes the same sums in the same order, one
//! fused multiply-add at a time, so the two agree bit for bit.

use super::elementwise;

/// Columns of one packed block: two AVX-512 registers.
pub(crate) const COLUMN_BLOCK: usize = 32;

/// The weights of a layer, `k` × `n` row-major, packed as blocks of
/// [`COLUMN_BLOCK`] columns, each block `k` rows of 32 values (columns
/// past `n` zero).
#[derive(Clone, Debug, Default)]
pub(crate) struct PackedF32 {
    pub k: usize,
    pub n: usize,
    pub data: Vec<f32>,
}

impl PackedF32 {
    /// Packs `weights`, `k` × `n` row-major.
    pub(crate) fn new(k: usize, n: usize, weights: &[f32]) -> PackedF32 {
        assert_eq!(weights.len(), k * n, "weights are k × n");
        let mut packed = PackedF32::default();
        packed.pack_with(k, n, |row, col| weights[row * n + col]);
        packed
    }

    /// Packs the `k` × `n` matrix whose element (`row`, `col`) is
    /// `value(row, col)` in place of what this held (its memory kept): for
    /// operands laid out otherwise, such as attention's keys and values.
    pub(crate) fn pack_with(&mut self, k: usize, n: usize, value: impl Fn(usize, usize) -> f32) {
        let blocks = n.div_ceil(COLUMN_BLOCK);
        (self.k, self.n) = (k, n);
        // Every element is written below, the padding lanes of the last
        // block as zeros, so the buffer is not cleared first.
        elementwise::resize_for_overwrite(&mut self.data, blocks * k * COLUMN_BLOCK);
        for block in 0..blocks {
            let first = block * COLUMN_BLOCK;
            let lanes = (n - first).min(COLUMN_BLOCK);
            for row in 0..k {
                let dst = &mut self.data[(block * k + row) * COLUMN_BLOCK..][..COLUMN_BLOCK];
                let (used, padding) = dst.split_at_mut(lanes);
                for (lane, d) in used.iter_mut().enumerate() {
                    *d = value(row, first + lane);
                }
                padding.fill(0.0);
            }
        }
    }

    /// The packed block of columns `block * COLUMN_BLOCK ..`.
    fn block(&self, block: usize) -> &[f32] {
        &self.data[block * self.k * COLUMN_BLOCK..(block + 1) * self.k * COLUMN_BLOCK]
    }
}

/// Whether this CPU runs the 512-bit path (AVX-512F, and `TENGEN_KERNEL`
/// not capped at `avx2`).
pub(crate) fn available() -> bool {
    super::cpu::Features::detect().avx512f
}

/// `out[rows][n] (+)= a[rows][k] · w`, `a` dense row-major; on 512-bit
/// registers where [`available`], else [`product_portable`].
pub(crate) fn product(a: &[f32], rows: usize, w: &PackedF32, out: &mut [f32], accumulate: bool) {
    assert!(a.len() >= rows * w.k, "the rows of the activations");
    assert!(out.len() >= rows * w.n, "the output holds every row");
    if rows == 0 || w.n == 0 {
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if available() {
        // SAFETY: AVX-512F is there (`available`); the sizes are asserted.
        unsafe { x86::product(a, rows, w, out, accumulate) };
        return;
    }
    product_portable(a, rows, w, out, accumulate);
}

/// [`product`] in plain Rust, the same fused multiply-adds in the same
/// order.
pub(crate) fn product_portable(
    a: &[f32],
    rows: usize,
    w: &PackedF32,
    out: &mut [f32],
    accumulate: bool,
) {
    for r in 0..rows {
        let row = &a[r * w.k..(r + 1) * w.k];
        for col in 0..w.n {
            let block = w.block(col / COLUMN_BLOCK);
            let lane = col % COLUMN_BLOCK;
            let sum = row.iter().enumerate().fold(0.0f32, |sum, (i, &x)| {
                x.mul_add(block[i * COLUMN_BLOCK + lane], sum)
            });
            let dst = &mut out[r * w.n + col];
            *dst = if accumulate { *dst + sum } else { sum };
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(test)]
mod tests;
