//! The arithmetic of the forward pass: matrix products over `gemm`, and the
//! element-wise layers. Activations are stored point-major: one row of
//! channels per board point, positions of a batch one after another, so a
//! 1×1 convolution or a per-point matrix is a single matrix product.

use std::cell::RefCell;

use gemm::Parallelism;

use super::bf16::{self, Bf16Path, PackedCache, PackedRows, PackedWeights, Rows};
use super::cpu::{Bf16Rounding, Kernel};
use super::elementwise::on_row_blocks;
use super::integer;
use super::profile::{self, LayerClass};
use super::wide_f32;
use crate::model::{Conv, MatMul};

/// How a forward pass computes: the threads it may use and the arithmetic
/// of its matrix products.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exec {
    /// Threads of the current pool the pass may use (at least one).
    pub threads: usize,
    /// The arithmetic of the matrix products.
    pub kernel: Kernel,
}

impl Exec {
    /// f32 throughout on `threads` threads.
    pub fn f32(threads: usize) -> Exec {
        Exec {
            threads,
            kernel: Kernel::F32,
        }
    }

    /// The same, its matrix layers' inputs rounded as convolutions' are
    /// (split where the kernel splits those): for a layer that adds to the
    /// residual stream.
    pub(crate) fn for_residual(self) -> Exec {
        let rounding = if self.kernel.rounding.splits(true) {
            Bf16Rounding::Split
        } else {
            Bf16Rounding::Once
        };
        Exec {
            kernel: Kernel {
                rounding,
                ..self.kernel
            },
            ..self
        }
    }

    /// The bf16 implementation to use for a `rows` × `k` by `k` × `n`
    /// product, if any: products too narrow to fill the bf16 units (the
    /// heads' last layers) stay in f32.
    fn bf16_for(&self, rows: usize, k: usize, n: usize) -> Option<Bf16Path> {
        let path = self.kernel.unit.bf16_path()?;
        (rows >= 8 && k >= 16 && n >= 16).then_some(path)
    }
}

/// How a matrix lies in a slice: its first element and its row and column
/// strides.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Layout {
    pub offset: usize,
    pub row_stride: usize,
    pub col_stride: usize,
}

impl Layout {
    /// A dense row-major matrix `cols` wide, starting at `offset`.
    pub(crate) fn rows(offset: usize, cols: usize) -> Layout {
        Layout {
            offset,
            row_stride: cols,
            col_stride: 1,
        }
    }

    /// The index one past the last element of a `rows` × `cols` matrix.
    fn end(&self, rows: usize, cols: usize) -> usize {
        if rows == 0 || cols == 0 {
            return self.offset;
        }
        self.offset + (rows - 1) * self.row_stride + (cols - 1) * self.col_stride + 1
    }
}

/// `x` rounded to the nearest bfloat16 (the top 16 bits of an f32), ties
/// to even, as `VCVTNE2PS2BF16` rounds; NaN stays NaN, and values beyond the
/// largest bfloat16 round to infinity.
pub fn round_to_bf16(x: f32) -> f32 {
    let bits = x.to_bits();
    if x.is_nan() {
        // Quiet, with the sign and the top of the payload kept.
        return f32::from_bits((bits | 0x0040_0000) & 0xffff_0000);
    }
    let lowest_kept = (bits >> 16) & 1;
    f32::from_bits(bits.wrapping_add(0x7fff + lowest_kept) & 0xffff_0000)
}

/// `dst (+)= scale * lhs · rhs` for an `m` × `k` lhs and a `k` × `n` rhs,
/// each laid out as described; `accumulate` keeps what `dst` held.
#[allow(clippy::too_many_arguments)]
pub(crate) fn gemm_strided(
    m: usize,
    n: usize,
    k: usize,
    dst: &mut [f32],
    dst_layout: Layout,
    lhs: &[f32],
    lhs_layout: Layout,
    rhs: &[f32],
    rhs_layout: Layout,
    scale: f32,
    accumulate: bool,
    threads: usize,
) {
    assert!(
        dst_layout.end(m, n) <= dst.len(),
        "gemm: destination out of bounds"
    );
    assert!(
        lhs_layout.end(m, k) <= lhs.len(),
        "gemm: left operand out of bounds"
    );
    assert!(
        rhs_layout.end(k, n) <= rhs.len(),
        "gemm: right operand out of bounds"
    );
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 {
        if !accumulate {
            for i in 0..m {
                for j in 0..n {
                    dst[dst_layout.offset
                        + i * dst_layout.row_stride
                        + j * dst_layout.col_stride] = 0.0;
                }
            }
        }
        return;
    }
    // Threads pay only for products big enough to split.
    let parallelism = if threads > 1 && m * n * k >= 1 << 18 {
        Parallelism::Rayon(threads)
    } else {
        Parallelism::None
    };
    // SAFETY: the asserts above keep every element the product touches
    // inside the slices; `dst` is borrowed mutably, so it overlaps neither
    // operand.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr().add(dst_layout.offset),
            dst_layout.col_stride as isize,
            dst_layout.row_stride as isize,
            accumulate,
            lhs.as_ptr().add(lhs_layout.offset),
            lhs_layout.col_stride as isize,
            lhs_layout.row_stride as isize,
            rhs.as_ptr().add(rhs_layout.offset),
            rhs_layout.col_stride as isize,
            rhs_layout.row_stride as isize,
            1.0,
            scale,
            false,
            false,
            false,
            parallelism,
        );
    }
}

/// `out[rows][n] (+)= a[rows][k] · w[k][n]`, all dense row-major. With
/// several threads the rows are split between them, each block one
/// single-threaded product: the products of a network are too small for
/// GEMM's own splitting to pay.
#[allow(clippy::too_many_arguments)]
pub(crate) fn matmul(
    rows: usize,
    k: usize,
    n: usize,
    a: &[f32],
    w: &[f32],
    out: &mut [f32],
    accumulate: bool,
    threads: usize,
) {
    let min_rows_per_thread = 16;
    if threads <= 1 || rows < 2 * min_rows_per_thread || rows * n * k < 1 << 16 {
        gemm_strided(
            rows,
            n,
            k,
            out,
            Layout::rows(0, n),
            a,
            Layout::rows(0, k),
            w,
            Layout::rows(0, n),
            1.0,
            accumulate,
            1,
        );
        return;
    }
    let parts = threads.min(rows / min_rows_per_thread);
    let chunk = rows.div_ceil(parts);
    on_row_blocks(&mut out[..rows * n], n, chunk, |first, out_block| {
        let block_rows = out_block.len() / n;
        gemm_strided(
            block_rows,
            n,
            k,
            out_block,
            Layout::rows(0, n),
            &a[first * k..(first + block_rows) * k],
            Layout::rows(0, k),
            w,
            Layout::rows(0, n),
            1.0,
            accumulate,
            1,
        )
    });
}

/// A matrix layer applied to every row of `input`.
pub(crate) fn apply_matmul(
    layer: &MatMul,
    rows: usize,
    input: &[f32],
    out: &mut [f32],
    accumulate: bool,
    exec: Exec,
) {
    // A matrix's rows are read where they lie: nothing is made.
    let made_as = LayerClass::PackingAndLayout;
    apply_matmul_of_rows(
        layer,
        rows,
        input,
        made_as,
        &mut Vec::new(),
        out,
        accumulate,
        exec,
    );
}

/// `out (+)= input · weights` for rows made as they are read (the gated
/// feed-forward's hidden rows, attention's heads side by side): on the
/// bf16 and integer units each row is made as it is rounded, its time counted
/// as `made_as`; f32 reads the rows made whole into `made`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply_matmul_of_rows(
    layer: &MatMul,
    rows: usize,
    input: &(impl Rows + ?Sized),
    made_as: LayerClass,
    made: &mut Vec<f32>,
    out: &mut [f32],
    accumulate: bool,
    exec: Exec,
) {
    let (k, n) = (layer.in_channels, layer.out_channels);
    if let Some(integers) = exec.integers_for(rows, k, n, false) {
        let cache = PackedCache::of(&layer.derived);
        let (weights, threads) = (&layer.weights, exec.threads);
        let shape = (rows, k, n);
        integer::layer(
            integers, cache, shape, input, made_as, weights, out, accumulate, threads,
        );
        return;
    }
    if let Some(path) = exec.bf16_for(rows, k, n) {
        let packed = PackedCache::of(&layer.derived).get(k, n, &layer.weights);
        let split = exec.kernel.rounding.splits(false);
        bf16_layer(
            path,
            (rows, k),
            input,
            made_as,
            split,
            packed,
            out,
            accumulate,
            exec.threads,
        );
        return;
    }
    let input = made_whole(input, (rows, k), made, made_as);
    matmul_f32(
        PackedCache::of(&layer.derived),
        (rows, k, n),
        input,
        &layer.weights,
        out,
        accumulate,
        exec.threads,
    );
}

/// `out (+)= input · weights` in f32 (`rows` × `k` by `k` × `n`): on
/// 512-bit registers where the CPU has them (the weights packed once, in
/// `packed`), else over `gemm`.
fn matmul_f32(
    packed: &PackedCache,
    (rows, k, n): (usize, usize, usize),
    input: &[f32],
    weights: &[f32],
    out: &mut [f32],
    accumulate: bool,
    threads: usize,
) {
    if wide_f32::available() && n >= 16 {
        let w = packed.wide_f32(k, n, weights);
        on_product_rows(rows, n, threads, out, |first, rows, out| {
            wide_f32::product(&input[first * k..], rows, w, out, accumulate)
        });
        return;
    }
    matmul(rows, k, n, input, weights, out, accumulate, threads);
}

/// Several matrix layers applied to the same `input`, each into its own
/// output (overwritten): on bf16 and integer units the input is rounded once
/// for all, its rows made as they are rounded; f32 reads it made whole
/// (into `made` where it is not a matrix already).
pub(crate) fn apply_matmuls(
    layers: &mut [(&MatMul, &mut [f32])],
    rows: usize,
    input: &(impl Rows + ?Sized),
    made: &mut Vec<f32>,
    exec: Exec,
) {
    let k = layers[0].0.in_channels;
    let integers = layers
        .iter()
        .map(|(layer, _)| exec.integers_for(rows, layer.in_channels, layer.out_channels, false))
        .reduce(|a, b| if a == b { a } else { None })
        .flatten();
    if let Some(integers) = integers {
        integer::layers(integers, layers, rows, input, exec.threads);
        return;
    }
    let bf16_path = layers
        .iter()
        .map(|(layer, _)| exec.bf16_for(rows, layer.in_channels, layer.out_channels))
        .reduce(|a, b| if a == b { a } else { None })
        .flatten();
    let Some(path) = bf16_path else {
        let input = made_whole(input, (rows, k), made, LayerClass::NormAndActivation);
        for (layer, out) in layers.iter_mut() {
            apply_matmul(layer, rows, input, out, false, exec);
        }
        return;
    };
    BF16_ROWS.with_borrow_mut(|a| {
        {
            let _packing = profile::region(LayerClass::PackingAndLayout);
            a.fill(
                path,
                rows,
                k,
                input,
                exec.kernel.rounding.splits(false),
                exec.threads,
            );
        }
        for (layer, out) in layers.iter_mut() {
            assert_eq!(layer.in_channels, k, "layers of one input");
            let packed = PackedCache::of(&layer.derived).get(k, layer.out_channels, &layer.weights);
            matmul_bf16(path, a, packed, out, false, exec.threads);
        }
    });
}

thread_local! {
    /// The activations of the current product as bf16 pairs, kept between
    /// layers so that their memory is reused.
    static BF16_ROWS: RefCell<PackedRows> = RefCell::default();
}

/// `out (+)= a · w` on bf16 units, the rows split between `threads`
/// threads of the current pool.
fn matmul_bf16(
    path: Bf16Path,
    a: &PackedRows,
    w: &PackedWeights,
    out: &mut [f32],
    accumulate: bool,
    threads: usize,
) {
    on_product_rows(a.rows, w.n, threads, out, |first, rows, out| {
        bf16::product(path, a, first, rows, w, out, accumulate)
    });
}

/// Runs `product(first_row, rows, out_block)` over the `rows` rows of an
/// output `n` wide: at once on one thread, or in blocks of whole AMX tiles
/// (32 rows) shared between `threads` threads where there are enough rows.
pub(crate) fn on_product_rows(
    rows: usize,
    n: usize,
    threads: usize,
    out: &mut [f32],
    product: impl Fn(usize, usize, &mut [f32]) + Sync,
) {
    let min_rows_per_thread = 32;
    if threads <= 1 || rows < 2 * min_rows_per_thread {
        product(0, rows, out);
        return;
    }
    let parts = threads.min(rows / min_rows_per_thread);
    let chunk = rows.div_ceil(parts).div_ceil(32) * 32;
    on_row_blocks(&mut out[..rows * n], n, chunk, |first, out_block| {
        product(first, out_block.len() / n, out_block)
    });
}

/// Board geometry of a batch: `batch` positions on a `width` × `height` grid.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Grid {
    pub batch: usize,
    pub width: usize,
    pub height: usize,
}

impl Grid {
    /// Points per position.
    pub(crate) fn points(&self) -> usize {
        self.width * self.height
    }

    /// Points in the whole batch.
    pub(crate) fn rows(&self) -> usize {
        self.batch * self.points()
    }
}

/// `input`'s first `rows` rows as a matrix (made into `made` where they
/// are made), counted as `made_as` where they are made.
fn made_whole<'a>(
    input: &'a (impl Rows + ?Sized),
    (rows, k): (usize, usize),
    made: &'a mut Vec<f32>,
    made_as: LayerClass,
) -> &'a [f32] {
    let _made = profile::region(made_as);
    input.matrix(rows, k, made)
}

/// A convolution of rows made as they are read, `out (+)= conv(input)`:
/// a 1×1 one on bf16 or integer units makes the rows as it rounds them; the
/// others read them made whole into `made` (see [`apply_conv`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn apply_conv_of_rows(
    conv: &Conv,
    grid: Grid,
    input: &(impl Rows + ?Sized),
    made: &mut Vec<f32>,
    out: &mut [f32],
    accumulate: bool,
    scratch: &mut Vec<f32>,
    exec: Exec,
) {
    let (rows, k, n) = (grid.rows(), conv.in_channels, conv.out_channels);
    let pointwise = conv.kernel_y * conv.kernel_x == 1;
    let integers = exec.integers_for(rows, k, n, true);
    if let Some(integers) = integers.filter(|_| pointwise) {
        let cache = PackedCache::of(&conv.derived);
        let made_as = LayerClass::PackingAndLayout;
        let (shape, threads) = ((rows, k, n), exec.threads);
        let weights = &conv.weights;
        integer::layer(
            integers, cache, shape, input, made_as, weights, out, accumulate, threads,
        );
        return;
    }
    let bf16_path = if integers.is_some() {
        None
    } else {
        exec.bf16_for(rows, k, n).filter(|_| pointwise)
    };
    let Some(path) = bf16_path else {
        let made_as = LayerClass::NormAndActivation;
        let input = made_whole(input, (rows, k), made, made_as);
        apply_conv(conv, grid, input, out, accumulate, scratch, exec);
        return;
    };
    let packed = PackedCache::of(&conv.derived).get(k, n, &conv.weights);
    let split = exec.kernel.rounding.splits(true);
    let made_as = LayerClass::PackingAndLayout;
    bf16_layer(
        path,
        (rows, k),
        input,
        made_as,
        split,
        packed,
        out,
        accumulate,
        exec.threads,
    );
}

/// `out (+)= input · w` on bf16 units, `input` being `rows` rows of `k`
/// values rounded to pairs (with their remainders where `split`) as they
/// are made, the making counted as `made_as` in the profile.
#[allow(clippy::too_many_arguments)]
fn bf16_layer(
    path: Bf16Path,
    (rows, k): (usize, usize),
    input: &(impl Rows + ?Sized),
    made_as: LayerClass,
    split: bool,
    w: &PackedWeights,
    out: &mut [f32],
    accumulate: bool,
    threads: usize,
) {
    BF16_ROWS.with_borrow_mut(|a| {
        {
            let _making = profile::region(made_as);
            a.fill(path, rows, k, input, split, threads);
        }
        matmul_bf16(path, a, w, out, accumulate, threads);
    });
}

/// A "same" convolution (zero padding), `out (+)= conv(input)`.
/// `scratch` holds the unrolled patches of kernels wider than one point.
pub(crate) fn apply_conv(
    conv: &Conv,
    grid: Grid,
    input: &[f32],
    out: &mut [f32],
    accumulate: bool,
    scratch: &mut Vec<f32>,
    exec: Exec,
) {
    let threads = exec.threads;
    let cin = conv.in_channels;
    let taps = conv.kernel_y * conv.kernel_x;
    let (k, n) = (taps * cin, conv.out_channels);
    // Wider kernels stay on the bf16 units: unrolled, each point's
    // neighbourhood would need a scale of its own.
    let integers = exec.integers_for(grid.rows(), k, n, true);
    if let Some(integers) = integers.filter(|_| taps == 1) {
        let cache = PackedCache::of(&conv.derived);
        let (shape, weights) = ((grid.rows(), k, n), &conv.weights);
        let made_as = LayerClass::PackingAndLayout;
        integer::layer(
            integers, cache, shape, input, made_as, weights, out, accumulate, threads,
        );
        return;
    }
    let bf16_path = exec
        .bf16_for(grid.rows(), k, n)
        .filter(|_| taps == 1 || cin.is_multiple_of(2));
    if let Some(path) = bf16_path {
        let split = exec.kernel.rounding.splits(true);
        let packed = PackedCache::of(&conv.derived).get(k, n, &conv.weights);
        BF16_ROWS.with_borrow_mut(|a| {
            let packing = profile::region(LayerClass::PackingAndLayout);
            if taps == 1 {
                a.fill(path, grid.rows(), k, input, split, threads);
            } else {
                a.fill_unrolled(
                    path,
                    grid,
                    (conv.kernel_y, conv.kernel_x),
                    cin,
                    input,
                    split,
                );
            }
            drop(packing);
            matmul_bf16(path, a, packed, out, accumulate, threads);
        });
        return;
    }
    if taps == 1 {
        let shape = (grid.rows(), cin, conv.out_channels);
        matmul_f32(
            PackedCache::of(&conv.derived),
            shape,
            input,
            &conv.weights,
            out,
            accumulate,
            threads,
        );
        return;
    }
    let row = taps * cin;
    {
        let _layout = profile::region(LayerClass::PackingAndLayout);
        // Every element is written by `unroll`, so the buffer is only sized.
        super::elementwise::resize_for_overwrite(scratch, grid.rows() * row);
        unroll(
            grid,
            (conv.kernel_y, conv.kernel_x),
            cin,
            input,
            row,
            scratch,
        );
    }
    let shape = (grid.rows(), row, conv.out_channels);
    matmul_f32(
        PackedCache::of(&conv.derived),
        shape,
        scratch,
        &conv.weights,
        out,
        accumulate,
        threads,
    );
}

/// Unrolls a "same" convolution's input for a kernel (height, width) over
/// `grid`: each point's row of `dst` (`row` wide, at least taps × `width`)
/// holds its neighbourhood's `width` values per tap, in the weights'
/// `[y][x][in]` order, zero off the board and past the taps. `T` is an f32
/// channel, or a pair of bf16 channels. Every element of `dst` (sized by
/// the caller) is written.
pub(crate) fn unroll<T: Copy + Default>(
    grid: Grid,
    (kernel_y, kernel_x): (usize, usize),
    width: usize,
    src: &[T],
    row: usize,
    dst: &mut [T],
) {
    assert_eq!(dst.len(), grid.rows() * row, "one row a point");
    let (half_y, half_x) = (kernel_y as isize / 2, kernel_x as isize / 2);
    let points = grid.points();
    let on_board = |v: isize, size: usize| (0..size as isize).contains(&v);
    for b in 0..grid.batch {
        for y in 0..grid.height {
            for x in 0..grid.width {
                let dst_row = (b * points + y * grid.width + x) * row;
                for ky in 0..kernel_y {
                    let sy = y as isize + ky as isize - half_y;
                    for kx in 0..kernel_x {
                        let sx = x as isize + kx as isize - half_x;
                        let to = dst_row + (ky * kernel_x + kx) * width;
                        let to = &mut dst[to..to + width];
                        if on_board(sy, grid.height) && on_board(sx, grid.width) {
                            let from =
                                (b * points + sy as usize * grid.width + sx as usize) * width;
                            to.copy_from_slice(&src[from..from + width]);
                        } else {
                            to.fill(T::default());
                        }
                    }
                }
                dst[dst_row + kernel_y * kernel_x * width..dst_row + row].fill(T::default());
            }
        }
    }
}

/// Makes the calling thread treat subnormal floats as zero, in its inputs
/// (DAZ) and its results (FTZ). Trained weights and the activations they
/// give hold many values below `f32::MIN_POSITIVE`; on Intel cores every
/// multiply that meets one takes a microcode assist, which slowed the whole
/// forward pass about tenfold. Zero in their place changes an output by far
/// less than the network's own float error.
pub fn flush_subnormals() {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    {
        // Bit 15 of MXCSR is flush-to-zero, bit 6 denormals-are-zero.
        const FTZ_DAZ: u32 = 0x8040;
        #[allow(deprecated)]
        // SAFETY: reading and writing MXCSR changes only how this thread
        // rounds and treats subnormal floats.
        unsafe {
            use std::arch::x86_64::{_mm_getcsr, _mm_setcsr};
            let csr = _mm_getcsr();
            if csr & FTZ_DAZ != FTZ_DAZ {
                _mm_setcsr(csr | FTZ_DAZ);
            }
        }
    }
}

#[cfg(test)]
mod tests;
