//! The element-wise layers of the forward pass — normalisation,
//! activations, gating, pooling, the softmax — each compiled for AVX-512,
//! AVX2 and the baseline and chosen at run time ([`widest_simd!`]), and how
//! their rows are shared between the threads of a pass.

use super::bf16::Rows;
use super::cpu::KernelCap;
use super::kernels::Grid;
use super::profile;
use crate::model::{Activation, Norm};

#[cfg(target_arch = "x86_64")]
pub(super) mod x86;

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
    let rounded = x.mul_add(LOG2E, ROUND);
    let n = rounded - ROUND;
    let r = (-n).mul_add(LN2_LO, (-n).mul_add(LN2_HI, x));
    let mut p = POLYNOMIAL[0];
    for c in &POLYNOMIAL[1..] {
        p = p.mul_add(r, *c);
    }
    let e = (p * r).mul_add(r, r) + 1.0;
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

/// `1 / y` for positive `y` up to 10³⁷ (larger ones are taken as 10³⁷,
/// whose inverse is still a normal float), within 2 ulp: an estimate from the
/// bits and three Newton steps, each `r · (2 − y r)`. A vector division
/// takes 16 cycles for 16 lanes on the CPUs measured, and SiLU's was most
/// of the gated feed-forward's cost; these steps are plain multiplies that
/// round the same on every instruction set, so every path agrees.
#[inline(always)]
pub(crate) fn fast_recip(y: f32) -> f32 {
    let y = y.min(1e37);
    // The exponent negated and the mantissa roughly inverted: within 12%.
    let mut r = f32::from_bits(0x7ef3_11c7u32.wrapping_sub(y.to_bits()));
    for _ in 0..3 {
        r = r.mul_add((-y).mul_add(r, 1.0), r);
    }
    r
}

/// Runs `$body` (an expression over the named variables) compiled for
/// AVX-512 or AVX2/FMA where the CPU has them, else for the baseline: the
/// element-wise layers' loops vectorise to the widest registers the CPU
/// offers without the build asking for any instruction set.
///
/// [`fast_exp`] and [`fast_recip`] use `mul_add`, one instruction in these
/// bodies (and on every ARM CPU), which halves their work; it rounds once
/// wherever it runs, so every level gives the same results. Only an x86-64
/// CPU without FMA (older than 2013) pays a library call for it.
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
                    // SAFETY: as above.
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
            let capped = KernelCap::from_env() == KernelCap::Avx2;
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
    let value = x * n * fast_recip(n + 2.0);
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
        Activation::Silu => x * fast_recip(1.0 + fast_exp(-x)),
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
pub(crate) fn on_row_blocks(
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
            let values = row.iter().zip(&norm.scale).zip(&norm.bias);
            activate_into(act, dst_row, values.map(|((&x, &s), &b)| x * s + b));
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

/// Rows normalised and activated as [`norm_act`] makes them, made a row at
/// a time as a product rounds them: on the bf16 units they never go to
/// memory in f32.
pub(crate) struct NormActRows<'a> {
    pub norm: &'a Norm,
    pub act: Activation,
    pub input: &'a [f32],
}

impl Rows for NormActRows<'_> {
    fn row<'a>(&'a self, r: usize, k: usize, made: &'a mut Vec<f32>) -> &'a [f32] {
        resize_for_overwrite(made, k);
        norm_act_rows_rounded(self.norm, self.act, &self.input[r * k..][..k], made);
        made
    }

    fn matrix<'a>(&'a self, rows: usize, k: usize, out: &'a mut Vec<f32>) -> &'a [f32] {
        norm_act(self.norm, self.act, &self.input[..rows * k], out);
        out
    }
}

/// Rows normalised as [`rms_norm_rows`] makes them, made a row at a time
/// as a product rounds them.
pub(crate) struct RmsRows<'a> {
    pub weight: &'a [f32],
    pub epsilon: f32,
    pub input: &'a [f32],
}

impl Rows for RmsRows<'_> {
    fn row<'a>(&'a self, r: usize, k: usize, made: &'a mut Vec<f32>) -> &'a [f32] {
        resize_for_overwrite(made, k);
        rms_norm_block(self.weight, self.epsilon, &self.input[r * k..][..k], made);
        made
    }

    fn matrix<'a>(&'a self, rows: usize, k: usize, out: &'a mut Vec<f32>) -> &'a [f32] {
        rms_norm_rows(self.weight, self.epsilon, &self.input[..rows * k], out);
        out
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
            let r = inverse_rms(row, epsilon);
            for ((d, &x), &w) in dst.iter_mut().zip(row).zip(weight) {
                *d = x * r * w;
            }
        }
    }
}

widest_simd! {
    /// The trunk tip's RMS normalisation and activation of one position's
    /// rows (`gamma.len()` channels each): with `spatial`, one scale for
    /// the whole position, else one per point.
    pub(crate) fn rms_tip_position(
        act: Activation,
        epsilon: f32,
        spatial: bool,
        gamma: &[f32],
        beta: &[f32],
        source: &[f32],
        out: &mut [f32]
    ) {
        let channels = gamma.len();
        let position_scale = spatial.then(|| inverse_rms(source, epsilon));
        for (row, dst) in source.chunks_exact(channels).zip(out.chunks_exact_mut(channels)) {
            let r = position_scale.unwrap_or_else(|| inverse_rms(row, epsilon));
            let values = row.iter().zip(gamma).zip(beta);
            activate_into(act, dst, values.map(|((&x, &g), &b)| x * r * g + b));
        }
    }
}

/// `act` of each of `values` into `out`: one loop per activation, so that
/// each vectorises where it is inlined.
#[inline(always)]
fn activate_into(act: Activation, out: &mut [f32], values: impl Iterator<Item = f32>) {
    let pairs = out.iter_mut().zip(values);
    match act {
        Activation::Identity => pairs.for_each(|(d, v)| *d = v),
        Activation::Relu => pairs.for_each(|(d, v)| *d = v.max(0.0)),
        Activation::Mish => pairs.for_each(|(d, v)| *d = mish(v)),
        Activation::Silu => pairs.for_each(|(d, v)| *d = activate(Activation::Silu, v)),
    }
}

/// One over the root mean square of `values`, `epsilon` added to the mean.
#[inline(always)]
fn inverse_rms(values: &[f32], epsilon: f32) -> f32 {
    1.0 / (sum_of_squares(values) / values.len() as f32 + epsilon).sqrt()
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

/// [`silu_gate_into`] for values rounded right after (to bf16 or to
/// bytes): on AVX-512 in half the instructions, within 2⁻²⁰ of the exact
/// values where they are not tiny (for `x` below −16, where SiLU is below
/// 10⁻⁵, the exponent `x · log2 e` rounded to f32 adds `|x| · 2⁻²⁴`).
pub(crate) fn silu_gate_rounded(values: &[f32], gate: &[f32], out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if simd_level() == SimdLevel::Avx512 {
        // SAFETY: that level has AVX-512-F and AVX-512-DQ.
        return unsafe { x86::silu_gate(values, gate, out) };
    }
    silu_gate_into(values, gate, out)
}

/// [`norm_act_rows`] for values rounded right after, as
/// [`silu_gate_rounded`].
fn norm_act_rows_rounded(norm: &Norm, act: Activation, source: &[f32], block: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: that level has AVX-512-F and AVX-512-DQ.
    if simd_level() == SimdLevel::Avx512 && unsafe { x86::norm_act_rows(norm, act, source, block) }
    {
        return;
    }
    norm_act_rows(norm, act, source, block)
}

widest_simd! {
    /// The gate into another buffer: `out = silu(values) · gate`.
    pub(crate) fn silu_gate_into(values: &[f32], gate: &[f32], out: &mut [f32]) {
        for ((o, &x), &g) in out.iter_mut().zip(values).zip(gate) {
            *o = activate(Activation::Silu, x) * g;
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
