//! The arithmetic of the forward pass: matrix products over `gemm`, and the
//! element-wise layers. Activations are stored point-major: one row of
//! channels per board point, positions of a batch one after another, so a
//! 1×1 convolution or a per-point matrix is a single matrix product.

use std::sync::atomic::{AtomicU8, Ordering};

use std::cell::RefCell;

use gemm::Parallelism;

use super::bf16::{self, Bf16Path, PackedRows, PackedWeights};
use super::cpu::{Bf16Rounding, Kernel};
use super::profile::{self, LayerClass};
use crate::model::{Activation, Conv, MatMul, Norm};

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

/// How matrix products emulate bfloat16 matrix units, for measuring what
/// bf16 costs in accuracy (see [`set_bf16_emulation`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bf16Emulation {
    /// f32 throughout: what every network runs.
    Off,
    /// Both operands rounded to bf16, products accumulated in f32, as one
    /// pass of `VDPBF16PS` or AMX's `TDPBF16PS` computes.
    Rounded,
    /// The right operand (the weights of a layer) rounded to bf16, the left
    /// one (the activations) split into a bf16 part and a bf16 remainder,
    /// each multiplied in its own pass and accumulated in f32: twice the
    /// bf16 work, activations kept to about 16 bits.
    SplitActivations,
}

/// The emulation every matrix product follows, as a [`Bf16Emulation`]'s
/// index.
static BF16_EMULATION: AtomicU8 = AtomicU8::new(0);

/// Makes every matrix product of every network in the process follow
/// `mode`: a portable emulation of bf16 matrix units (round to nearest,
/// ties to even; f32 accumulation) for measuring accuracy, not a fast path.
/// Element-wise layers stay in f32. [`Bf16Emulation::Off`] by default.
pub fn set_bf16_emulation(mode: Bf16Emulation) {
    BF16_EMULATION.store(mode as u8, Ordering::Relaxed);
}

/// The mode [`set_bf16_emulation`] set.
pub fn bf16_emulation() -> Bf16Emulation {
    match BF16_EMULATION.load(Ordering::Relaxed) {
        1 => Bf16Emulation::Rounded,
        2 => Bf16Emulation::SplitActivations,
        _ => Bf16Emulation::Off,
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
/// each laid out as described; `accumulate` keeps what `dst` held. Under
/// [`set_bf16_emulation`] the operands are rounded to bfloat16 first.
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
    let mode = bf16_emulation();
    if mode != Bf16Emulation::Off && m > 0 && n > 0 && k > 0 {
        // The part of each operand the product reads, copied to be rounded.
        let part = |values: &[f32], layout: Layout, rows: usize, cols: usize| {
            values[layout.offset..layout.end(rows, cols)].to_vec()
        };
        let lhs_part = part(lhs, lhs_layout, m, k);
        let lhs_layout = Layout {
            offset: 0,
            ..lhs_layout
        };
        let rhs: Vec<f32> = part(rhs, rhs_layout, k, n)
            .into_iter()
            .map(round_to_bf16)
            .collect();
        let rhs_layout = Layout {
            offset: 0,
            ..rhs_layout
        };
        let high: Vec<f32> = lhs_part.iter().map(|&v| round_to_bf16(v)).collect();
        gemm_f32(
            m, n, k, dst, dst_layout, &high, lhs_layout, &rhs, rhs_layout, scale, accumulate,
            threads,
        );
        if mode == Bf16Emulation::SplitActivations {
            let low: Vec<f32> = lhs_part
                .iter()
                .zip(&high)
                .map(|(&v, &h)| round_to_bf16(v - h))
                .collect();
            gemm_f32(
                m, n, k, dst, dst_layout, &low, lhs_layout, &rhs, rhs_layout, scale, true, threads,
            );
        }
        return;
    }
    gemm_f32(
        m, n, k, dst, dst_layout, lhs, lhs_layout, rhs, rhs_layout, scale, accumulate, threads,
    )
}

/// [`gemm_strided`] in f32 throughout.
#[allow(clippy::too_many_arguments)]
fn gemm_f32(
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
    let (k, n) = (layer.in_channels, layer.out_channels);
    if let Some(path) = exec.bf16_for(rows, k, n) {
        let packed = layer.packed.get(k, n, &layer.weights);
        BF16_ROWS.with_borrow_mut(|a| {
            {
                let _packing = profile::region(LayerClass::PackingAndLayout);
                let split = exec.kernel.rounding.splits(false);
                a.fill(path, rows, k, input, split, exec.threads);
            }
            matmul_bf16(path, a, packed, out, accumulate, exec.threads);
        });
        return;
    }
    matmul(
        rows,
        k,
        n,
        input,
        &layer.weights,
        out,
        accumulate,
        exec.threads,
    );
}

/// Several matrix layers applied to the same `input`, each into its own
/// output (overwritten): on bf16 units the input is rounded once for all.
pub(crate) fn apply_matmuls(
    layers: &mut [(&MatMul, &mut [f32])],
    rows: usize,
    input: &[f32],
    exec: Exec,
) {
    let k = layers[0].0.in_channels;
    let bf16_path = layers
        .iter()
        .map(|(layer, _)| exec.bf16_for(rows, layer.in_channels, layer.out_channels))
        .reduce(|a, b| if a == b { a } else { None })
        .flatten();
    let Some(path) = bf16_path else {
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
            let packed = layer.packed.get(k, layer.out_channels, &layer.weights);
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
    let rows = a.rows;
    // Whole AMX tiles (32 rows) per thread where there are enough rows.
    let min_rows_per_thread = 32;
    if threads <= 1 || rows < 2 * min_rows_per_thread {
        bf16::product(path, a, 0, rows, w, out, accumulate);
        return;
    }
    let parts = threads.min(rows / min_rows_per_thread);
    let chunk = rows.div_ceil(parts).div_ceil(32) * 32;
    let n = w.n;
    on_row_blocks(&mut out[..rows * n], n, chunk, |first, out_block| {
        bf16::product(
            path,
            a,
            first,
            out_block.len() / n,
            w,
            out_block,
            accumulate,
        )
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
    let bf16_path = exec
        .bf16_for(grid.rows(), k, n)
        .filter(|_| taps == 1 || cin.is_multiple_of(2));
    if let Some(path) = bf16_path {
        let split = exec.kernel.rounding.splits(true);
        let packed = conv.packed.get(k, n, &conv.weights);
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
        matmul(
            grid.rows(),
            cin,
            conv.out_channels,
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
        unroll(
            grid,
            (conv.kernel_y, conv.kernel_x),
            cin,
            input,
            row,
            scratch,
        );
    }
    matmul(
        grid.rows(),
        row,
        conv.out_channels,
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
/// channel, or a pair of bf16 channels.
pub(crate) fn unroll<T: Copy + Default>(
    grid: Grid,
    (kernel_y, kernel_x): (usize, usize),
    width: usize,
    src: &[T],
    row: usize,
    dst: &mut Vec<T>,
) {
    dst.clear();
    dst.resize(grid.rows() * row, T::default());
    let (half_y, half_x) = (kernel_y as isize / 2, kernel_x as isize / 2);
    let points = grid.points();
    for b in 0..grid.batch {
        for y in 0..grid.height {
            for x in 0..grid.width {
                let dst_row = (b * points + y * grid.width + x) * row;
                for ky in 0..kernel_y {
                    let sy = y as isize + ky as isize - half_y;
                    if sy < 0 || sy >= grid.height as isize {
                        continue;
                    }
                    for kx in 0..kernel_x {
                        let sx = x as isize + kx as isize - half_x;
                        if sx < 0 || sx >= grid.width as isize {
                            continue;
                        }
                        let from = (b * points + sy as usize * grid.width + sx as usize) * width;
                        let to = dst_row + (ky * kernel_x + kx) * width;
                        dst[to..to + width].copy_from_slice(&src[from..from + width]);
                    }
                }
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

/// The constants of [`fast_exp`].
mod exp_constants {
    pub(crate) const LOG2E: f32 = std::f32::consts::LOG2_E;
    /// ln 2 split in a part exact in few bits and the rest.
    pub(crate) const LN2_HI: f32 = 0.693_359_4;
    pub(crate) const LN2_LO: f32 = -2.121_944_4e-4;
    /// Adding and subtracting 1.5 * 2^23 rounds to the nearest integer.
    pub(crate) const ROUND: f32 = 12_582_912.0;
    /// Cephes' polynomial, highest degree first.
    pub(crate) const POLYNOMIAL: [f32; 6] = [
        1.987_569_1e-4,
        1.398_199_9e-3,
        8.333_452e-3,
        4.166_579_6e-2,
        1.666_666_5e-1,
        0.5,
    ];
}

/// `e^x` for the softmax and SiLU, within 2 ulp of `f32::exp` for `x` in
/// `[-87, 88]` and clamped outside it: range reduction by powers of two and
/// Cephes' degree-5 polynomial, without branches so that loops over it
/// vectorise (the attention's softmax takes 780,000 exponentials per block
/// on 19×19, a third of the forward pass with the library's `exp`).
#[inline(always)]
pub(crate) fn fast_exp(x: f32) -> f32 {
    use exp_constants::*;
    let x = x.clamp(-87.0, 88.0);
    let rounded = x * LOG2E + ROUND;
    let n = rounded - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let mut p = POLYNOMIAL[0];
    for c in &POLYNOMIAL[1..] {
        p = p * r + c;
    }
    let e = p * r * r + r + 1.0;
    // `rounded`'s low mantissa bits hold n itself (|n| < 2^22), so 2^n is
    // built without a float-to-integer conversion, which would not
    // vectorise.
    let biased = rounded
        .to_bits()
        .wrapping_sub(ROUND.to_bits())
        .wrapping_add(127);
    let scale = f32::from_bits(biased << 23);
    e * scale
}

/// Runs `$body` (an expression over the named variables) compiled for
/// AVX-512 or AVX2/FMA where the CPU has them, else for the baseline: the
/// element-wise layers' loops vectorise to the widest registers the CPU
/// offers without the build asking for any instruction set.
macro_rules! widest_simd {
    ($(#[$meta:meta])* $vis:vis fn $name:ident($($arg:ident: $ty:ty),*) $body:block) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) {
            #[inline(always)]
            fn body($($arg: $ty),*) $body
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq,avx2,fma")]
                unsafe fn avx512($($arg: $ty),*) {
                    body($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                unsafe fn avx2($($arg: $ty),*) {
                    body($($arg),*)
                }
                match simd_level() {
                    // SAFETY: each is called only where the CPU has its
                    // instruction sets.
                    SimdLevel::Avx512 => return unsafe { avx512($($arg),*) },
                    SimdLevel::Avx2 => return unsafe { avx2($($arg),*) },
                    SimdLevel::Baseline => {}
                }
            }
            body($($arg),*)
        }
    };
}
pub(crate) use widest_simd;

/// The widest vectors the element-wise loops may use on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SimdLevel {
    Baseline,
    Avx2,
    Avx512,
}

pub(crate) fn simd_level() -> SimdLevel {
    static LEVEL: std::sync::OnceLock<SimdLevel> = std::sync::OnceLock::new();
    *LEVEL.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let capped = super::cpu::KernelCap::from_env() == super::cpu::KernelCap::Avx2;
            if !capped
                && has!("avx512f")
                && has!("avx512bw")
                && has!("avx512vl")
                && has!("avx512dq")
            {
                return SimdLevel::Avx512;
            }
            if has!("avx2") && has!("fma") {
                return SimdLevel::Avx2;
            }
        }
        SimdLevel::Baseline
    })
}

/// Mish, `x · tanh(softplus(x))`, without a logarithm: with `e = eˣ`,
/// `tanh(ln(1 + e)) = ((1 + e)² − 1) / ((1 + e)² + 1) = n / (n + 2)` for
/// `n = e (e + 2)`; the identity above 20, as KataGo's softplus is kept
/// finite there.
#[inline(always)]
pub(crate) fn mish(x: f32) -> f32 {
    let e = fast_exp(x.min(20.0));
    let n = e * (e + 2.0);
    let value = x * n / (n + 2.0);
    if x > 20.0 {
        x
    } else {
        value
    }
}

/// The activation of one value.
#[inline]
pub(crate) fn activate(act: Activation, x: f32) -> f32 {
    match act {
        Activation::Identity => x,
        Activation::Relu => x.max(0.0),
        Activation::Mish => mish(x),
        Activation::Silu => x / (1.0 + fast_exp(-x)),
    }
}

thread_local! {
    /// The threads [`for_row_blocks`] shares rows between on this thread
    /// (0: every thread of the current pool).
    static ROW_THREADS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The threads of the forward pass this thread drives, for the
/// element-wise layers, until dropped.
pub(crate) struct RowThreads(usize);

impl RowThreads {
    pub(crate) fn set(threads: usize) -> RowThreads {
        RowThreads(ROW_THREADS.replace(threads))
    }
}

impl Drop for RowThreads {
    fn drop(&mut self) {
        ROW_THREADS.set(self.0);
    }
}

/// Runs `f` on blocks of whole rows of `out` (rows `width` wide), one
/// block per thread of the pass (see [`RowThreads`]) when there is enough
/// work; `f` is given the index of the block's first row.
pub(crate) fn for_row_blocks(out: &mut [f32], width: usize, f: impl Fn(usize, &mut [f32]) + Sync) {
    let rows = out.len() / width.max(1);
    let threads = match ROW_THREADS.get() {
        0 => rayon::current_num_threads(),
        threads => threads.min(rayon::current_num_threads()),
    };
    if threads <= 1 || out.len() < 1 << 15 || rows < 2 {
        f(0, out);
        return;
    }
    on_row_blocks(out, width, rows.div_ceil(threads), f);
}

/// Runs `f` on blocks of `block_rows` whole rows of `out` (rows `width`
/// wide), each block a task of the current pool; `f` is given the index of
/// the block's first row.
fn on_row_blocks(
    out: &mut [f32],
    width: usize,
    block_rows: usize,
    f: impl Fn(usize, &mut [f32]) + Sync,
) {
    profile::scoped(|| {
        rayon::scope(|scope| {
            for (index, block) in out.chunks_mut(block_rows * width).enumerate() {
                let f = &f;
                scope.spawn(move |_| profile::task(None, || f(index * block_rows, block)));
            }
        })
    });
}

/// `out = act(input * scale + bias)` per channel, for rows of `channels`.
pub(crate) fn norm_act(norm: &Norm, act: Activation, input: &[f32], out: &mut Vec<f32>) {
    let channels = norm.scale.len();
    resize_for_overwrite(out, input.len());
    for_row_blocks(out, channels, |first_row, block| {
        let source = &input[first_row * channels..][..block.len()];
        norm_act_rows(norm, act, source, block);
    });
}

widest_simd! {
    fn norm_act_rows(norm: &Norm, act: Activation, source: &[f32], block: &mut [f32]) {
        let channels = norm.scale.len();
        for (dst_row, row) in block
            .chunks_exact_mut(channels)
            .zip(source.chunks_exact(channels))
        {
            // One loop per activation, so that each vectorises.
            let rows = dst_row.iter_mut().zip(row).zip(&norm.scale).zip(&norm.bias);
            match act {
                Activation::Identity => rows.for_each(|(((d, &x), &s), &b)| *d = x * s + b),
                Activation::Relu => rows.for_each(|(((d, &x), &s), &b)| *d = (x * s + b).max(0.0)),
                Activation::Mish => rows.for_each(|(((d, &x), &s), &b)| *d = mish(x * s + b)),
                Activation::Silu => rows.for_each(|(((d, &x), &s), &b)| {
                    *d = activate(Activation::Silu, x * s + b)
                }),
            }
        }
    }
}

widest_simd! {
    /// [`act_in_place`] for the widest vectors.
    fn act_in_place_inner(act: Activation, values: &mut [f32]) {
        match act {
            Activation::Identity => {}
            Activation::Relu => values.iter_mut().for_each(|v| *v = v.max(0.0)),
            Activation::Mish => values.iter_mut().for_each(|v| *v = mish(*v)),
            Activation::Silu => values
                .iter_mut()
                .for_each(|v| *v = activate(Activation::Silu, *v)),
        }
    }
}

/// Activation in place.
pub(crate) fn act_in_place(act: Activation, values: &mut [f32]) {
    act_in_place_inner(act, values)
}

/// Adds `bias[b][c]` to every point of position `b`.
pub(crate) fn add_per_position(grid: Grid, channels: usize, bias: &[f32], values: &mut [f32]) {
    let points = grid.points();
    for b in 0..grid.batch {
        let add = &bias[b * channels..(b + 1) * channels];
        for row in
            values[b * points * channels..(b + 1) * points * channels].chunks_exact_mut(channels)
        {
            for (v, a) in row.iter_mut().zip(add) {
                *v += a;
            }
        }
    }
}

/// Global pooling of a trunk or policy feature map: per position and
/// channel the mean, the mean scaled by board size, and the maximum,
/// written as `[means, scaled means, maxima]`.
pub(crate) fn pool_mean_max(grid: Grid, channels: usize, values: &[f32], out: &mut Vec<f32>) {
    let points = grid.points();
    let count = points as f32;
    let size_term = (count.sqrt() - 14.0) * 0.1;
    out.clear();
    out.resize(grid.batch * 3 * channels, 0.0);
    for b in 0..grid.batch {
        let pooled = &mut out[b * 3 * channels..(b + 1) * 3 * channels];
        let mut sums = vec![0.0f32; channels];
        let mut maxima = vec![-1.0f32; channels];
        for row in values[b * points * channels..(b + 1) * points * channels].chunks_exact(channels)
        {
            for c in 0..channels {
                sums[c] += row[c];
                maxima[c] = maxima[c].max(row[c]);
            }
        }
        for c in 0..channels {
            let mean = sums[c] / count;
            pooled[c] = mean;
            pooled[channels + c] = mean * size_term;
            pooled[2 * channels + c] = maxima[c];
        }
    }
}

/// The value head's pooling: the mean and two board-size terms.
pub(crate) fn pool_value(grid: Grid, channels: usize, values: &[f32], out: &mut Vec<f32>) {
    let points = grid.points();
    let count = points as f32;
    let s = count.sqrt() - 14.0;
    out.clear();
    out.resize(grid.batch * 3 * channels, 0.0);
    for b in 0..grid.batch {
        let pooled = &mut out[b * 3 * channels..(b + 1) * 3 * channels];
        let mut sums = vec![0.0f32; channels];
        for row in values[b * points * channels..(b + 1) * points * channels].chunks_exact(channels)
        {
            for c in 0..channels {
                sums[c] += row[c];
            }
        }
        for c in 0..channels {
            let mean = sums[c] / count;
            pooled[c] = mean;
            pooled[channels + c] = mean * s * 0.1;
            pooled[2 * channels + c] = mean * (s * s * 0.01 - 0.1);
        }
    }
}

/// Root-mean-square normalisation of each row, times `weight` per channel.
pub(crate) fn rms_norm_rows(weight: &[f32], epsilon: f32, input: &[f32], out: &mut Vec<f32>) {
    let channels = weight.len();
    resize_for_overwrite(out, input.len());
    for_row_blocks(out, channels, |first_row, block| {
        let source = &input[first_row * channels..][..block.len()];
        rms_norm_block(weight, epsilon, source, block);
    });
}

widest_simd! {
    /// [`rms_norm_rows`] of one block of rows.
    fn rms_norm_block(weight: &[f32], epsilon: f32, source: &[f32], block: &mut [f32]) {
        let channels = weight.len();
        for (row, dst) in source
            .chunks_exact(channels)
            .zip(block.chunks_exact_mut(channels))
        {
            let mean_square = sum_of_squares(row) / channels as f32;
            let r = 1.0 / (mean_square + epsilon).sqrt();
            for ((d, &x), &w) in dst.iter_mut().zip(row).zip(weight) {
                *d = x * r * w;
            }
        }
    }
}

/// The sum of the squares of `values`, in sixteen partial sums so that it
/// vectorises.
#[inline(always)]
fn sum_of_squares(values: &[f32]) -> f32 {
    let mut sums = [0.0f32; 16];
    let mut chunks = values.chunks_exact(16);
    for chunk in &mut chunks {
        for (s, &v) in sums.iter_mut().zip(chunk) {
            *s += v * v;
        }
    }
    let rest: f32 = chunks.remainder().iter().map(|v| v * v).sum();
    sums.iter().sum::<f32>() + rest
}

widest_simd! {
    /// The gated feed-forward's gate: `values = silu(values) · gate`.
    pub(crate) fn silu_gate(values: &mut [f32], gate: &[f32]) {
        for (x, &g) in values.iter_mut().zip(gate) {
            *x = activate(Activation::Silu, *x) * g;
        }
    }
}

/// Sizes `values` to `len` without clearing what it held: for buffers that
/// the next layer overwrites whole.
pub(crate) fn resize_for_overwrite(values: &mut Vec<f32>, len: usize) {
    if values.len() > len {
        values.truncate(len);
    } else {
        values.resize(len, 0.0);
    }
}

widest_simd! {
    /// The numerators of a softmax of each row scaled by `scale` (which
    /// must be positive), `e^((x − max) · scale)`, in place,
    /// and one over each row's sum in `inverse`: the division is left to
    /// the caller, who applies it to a product of the rows (attention's
    /// `softmax(scores) · v` is `(e^scores · v) / sum`, a 32-wide row
    /// instead of a 361-wide one on 19×19).
    pub(crate) fn softmax_numerators(values: &mut [f32], width: usize, scale: f32, inverse: &mut [f32]) {
        for (row, inverse) in values.chunks_exact_mut(width).zip(inverse.iter_mut()) {
            // Sixteen partial maxima and sums, so that the loops vectorise.
            let mut maxima = [f32::NEG_INFINITY; 16];
            let mut chunks = row.chunks_exact(16);
            for chunk in &mut chunks {
                for (m, &v) in maxima.iter_mut().zip(chunk) {
                    *m = if v > *m { v } else { *m };
                }
            }
            let max = chunks
                .remainder()
                .iter()
                .chain(&maxima)
                .fold(f32::NEG_INFINITY, |m, &v| if v > m { v } else { m });
            let mut sums = [0.0f32; 16];
            let mut chunks = row.chunks_exact_mut(16);
            for chunk in &mut chunks {
                for (s, v) in sums.iter_mut().zip(chunk.iter_mut()) {
                    *v = fast_exp((*v - max) * scale);
                    *s += *v;
                }
            }
            let mut sum: f32 = sums.iter().sum();
            for v in chunks.into_remainder() {
                *v = fast_exp((*v - max) * scale);
                sum += *v;
            }
            *inverse = 1.0 / sum;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{fast_exp, flush_subnormals, round_to_bf16};

    #[test]
    fn bf16_rounding_is_to_nearest_even_as_the_half_crate_rounds() {
        let mut values = vec![
            0.0f32,
            -0.0,
            1.0,
            f32::MIN_POSITIVE,
            f32::MIN_POSITIVE / 3.0,
            f32::MAX,
            -f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            // Exactly halfway: ties go to the even neighbour.
            f32::from_bits(0x3f80_8000),
            f32::from_bits(0x3f81_8000),
            f32::from_bits(0x3f80_8001),
            f32::from_bits(0x3f80_7fff),
        ];
        // A sweep over the bit patterns, every sign and exponent.
        let mut bits = 1u32;
        for _ in 0..200_000 {
            bits = bits.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            values.push(f32::from_bits(bits));
        }
        for x in values {
            let ours = round_to_bf16(x);
            let theirs = half::bf16::from_f32(x).to_f32();
            if x.is_nan() {
                assert!(ours.is_nan(), "{x:e}");
            } else {
                assert_eq!(
                    ours.to_bits(),
                    theirs.to_bits(),
                    "{x:e} ({:#010x})",
                    x.to_bits()
                );
            }
            assert_eq!(ours.to_bits() & 0xffff, 0, "only bf16 bits are kept");
        }
        assert_eq!(
            round_to_bf16(f32::from_bits(0x3f80_8000)).to_bits(),
            0x3f80_0000
        );
        assert_eq!(
            round_to_bf16(f32::from_bits(0x3f81_8000)).to_bits(),
            0x3f82_0000
        );
    }

    #[test]
    fn subnormals_are_flushed_on_the_thread_that_asks() {
        let tiny = f32::MIN_POSITIVE / 4.0;
        // Another thread, so no other test's floats change.
        // Each product goes through black_box on both sides, so the
        // compiler keeps it on its side of the change of mode.
        let product = move || {
            let (a, b) = (std::hint::black_box(tiny), std::hint::black_box(1.0f32));
            std::hint::black_box(a * b)
        };
        let (before, after) = std::thread::spawn(move || {
            let before = product();
            flush_subnormals();
            (before, product())
        })
        .join()
        .unwrap();
        assert_eq!(before, tiny, "subnormals are kept until asked");
        if cfg!(target_arch = "x86_64") {
            assert_eq!(after, 0.0, "a subnormal input reads as zero");
        }
    }

    #[test]
    fn fast_exp_is_within_two_ulp_of_the_library() {
        let mut x = -87.0f32;
        while x <= 88.0 {
            let (fast, exact) = (fast_exp(x), x.exp());
            let ulp = (exact.to_bits() as i64 - fast.to_bits() as i64).abs();
            assert!(ulp <= 2, "exp({x}) = {fast}, library {exact}: {ulp} ulp");
            x += 0.000_731;
        }
        assert_eq!(fast_exp(-1000.0), fast_exp(-87.0));
        assert!(fast_exp(-87.0) > 0.0);
        assert_eq!(fast_exp(0.0), 1.0);
    }
}
