//! SiLU and Mish on AVX-512 for rows that are rounded right after (to bf16
//! pairs or to bytes): within 2⁻²⁰ of the exact values (where they are not
//! tiny, see `super::silu_gate_rounded`) instead of 2 ulp, in half the
//! instructions. `2^t` comes from `VREDUCEPS` (`t − ⌊t⌋` in
//! one instruction), a polynomial of degree 5 and `VSCALEFPS`; `1 / y` from
//! `VRCP14PS` and one Newton step.

use std::arch::x86_64::*;

use crate::forward::bf16::x86::first_lanes;
use crate::model::{Activation, Norm};

/// `2^f` on `[0, 1)` with relative error below 2⁻²², highest degree first,
/// without the constant term, which is 1: `2^0` is exact.
const EXP2: [f32; 5] = [
    1.867_115_5e-3,
    9.017_061e-3,
    5.579_989e-2,
    0.240_164_46,
    0.693_151_3,
];

/// `2^t` of 16 values from a polynomial fitted to `2^f` on `[0, 1)` whose
/// constant term is 1 (`coefficients` without it, highest degree first):
/// `f = t − ⌊t⌋` by `VREDUCEPS` in one instruction, `2^⌊t⌋` by
/// `VSCALEFPS`, which floors `t` itself and takes very negative `t` to 0.
/// `2^0` is exact.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) fn exp2_polynomial(t: __m512, coefficients: &[f32]) -> __m512 {
    // t − ⌊t⌋: no fraction bits kept, rounding down, no exceptions.
    let f = _mm512_reduce_ps::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(t);
    let mut p = _mm512_set1_ps(coefficients[0]);
    for &c in &coefficients[1..] {
        p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(c));
    }
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0));
    _mm512_scalef_ps(p, t)
}

/// `1 / y` for positive finite `y`: the 2⁻¹⁴ estimate and one Newton step.
#[inline]
#[target_feature(enable = "avx512f")]
fn recip(y: __m512) -> __m512 {
    let r = _mm512_rcp14_ps(y);
    let error = _mm512_fnmadd_ps(y, r, _mm512_set1_ps(1.0));
    _mm512_fmadd_ps(r, error, r)
}

/// SiLU, `x / (1 + e^−x)`. The power is kept to 2¹²⁶ (`x` below −87),
/// where SiLU is below 10⁻³⁵, so that the sum and its inverse stay normal
/// floats.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn silu(x: __m512) -> __m512 {
    let t = _mm512_min_ps(
        _mm512_mul_ps(x, _mm512_set1_ps(-std::f32::consts::LOG2_E)),
        _mm512_set1_ps(126.0),
    );
    let sum = _mm512_add_ps(exp2_polynomial(t, &EXP2), _mm512_set1_ps(1.0));
    _mm512_mul_ps(x, recip(sum))
}

/// Mish as [`super::mish`] computes it: `x · n / (n + 2)` with
/// `n = eˣ (eˣ + 2)`, the identity above 20.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn mish(x: __m512) -> __m512 {
    let twenty = _mm512_set1_ps(20.0);
    let t = _mm512_mul_ps(
        _mm512_min_ps(x, twenty),
        _mm512_set1_ps(std::f32::consts::LOG2_E),
    );
    let e = exp2_polynomial(t, &EXP2);
    let n = _mm512_mul_ps(e, _mm512_add_ps(e, _mm512_set1_ps(2.0)));
    let value = _mm512_mul_ps(
        _mm512_mul_ps(x, n),
        recip(_mm512_add_ps(n, _mm512_set1_ps(2.0))),
    );
    let above = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(x, twenty);
    _mm512_mask_blend_ps(above, value, x)
}

/// `out[i] = f(i)` for the 16 values from each `i`, the last under a mask:
/// `f` is given the first index and the lanes it may read.
#[inline]
#[target_feature(enable = "avx512f")]
fn map_16(out: &mut [f32], f: impl Fn(usize, __mmask16) -> __m512) {
    for i in (0..out.len()).step_by(16) {
        let mask = first_lanes(out.len() - i);
        // SAFETY: the mask keeps the store to the lanes from i that are in
        // `out`.
        unsafe { _mm512_mask_storeu_ps(out.as_mut_ptr().add(i), mask, f(i, mask)) };
    }
}

/// `mask`'s lanes of `values` from `at` (zero in the others).
///
/// # Safety
/// `mask` must keep the load inside `values`.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load(values: &[f32], at: usize, mask: __mmask16) -> __m512 {
    // SAFETY: the caller's.
    unsafe { _mm512_maskz_loadu_ps(mask, values.as_ptr().wrapping_add(at)) }
}

/// `out = silu(values) · gate`.
///
/// # Safety
/// The CPU must have AVX-512-F and AVX-512-DQ.
#[target_feature(enable = "avx512f,avx512dq")]
pub(super) unsafe fn silu_gate(values: &[f32], gate: &[f32], out: &mut [f32]) {
    assert!(
        values.len() >= out.len() && gate.len() >= out.len(),
        "a value and a gate each"
    );
    map_16(out, |i, mask| {
        // SAFETY: the lanes from i that are in `out` are in both inputs
        // (asserted above).
        let (x, g) = unsafe { (load(values, i, mask), load(gate, i, mask)) };
        _mm512_mul_ps(silu(x), g)
    });
}

/// `out = act(source · scale + bias)` per channel, a row of
/// `norm.scale.len()` channels at a time; `false` (nothing written) for an
/// activation without a power (ReLU, the identity), which gains nothing
/// here.
///
/// # Safety
/// The CPU must have AVX-512-F and AVX-512-DQ.
#[target_feature(enable = "avx512f,avx512dq")]
pub(super) unsafe fn norm_act_rows(
    norm: &Norm,
    act: Activation,
    source: &[f32],
    out: &mut [f32],
) -> bool {
    match act {
        Activation::Silu => norm_rows_with(norm, source, out, |x| silu(x)),
        Activation::Mish => norm_rows_with(norm, source, out, |x| mish(x)),
        Activation::Identity | Activation::Relu => return false,
    }
    true
}

/// [`norm_act_rows`] with `activation`.
#[inline]
#[target_feature(enable = "avx512f")]
fn norm_rows_with(
    norm: &Norm,
    source: &[f32],
    out: &mut [f32],
    activation: impl Fn(__m512) -> __m512,
) {
    let channels = norm.scale.len();
    assert_eq!(source.len(), out.len(), "a value for every output");
    for (row, source) in out
        .chunks_exact_mut(channels)
        .zip(source.chunks_exact(channels))
    {
        map_16(row, |i, mask| {
            // SAFETY: the lanes from i that are in `row` are in `source`
            // and the norm's channels, all `channels` long.
            let (x, s, b) = unsafe {
                (
                    load(source, i, mask),
                    load(&norm.scale, i, mask),
                    load(&norm.bias, i, mask),
                )
            };
            activation(_mm512_fmadd_ps(x, s, b))
        });
    }
}
