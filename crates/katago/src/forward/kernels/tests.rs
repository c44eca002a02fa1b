//! Rounding to bf16, the flush of subnormals, the fast exponential and
//! reciprocal, and the activations built on them.

use super::super::elementwise::{activate, fast_exp, fast_recip, silu_gate_rounded, NormActRows};
use super::{flush_subnormals, round_to_bf16};
use crate::model::Activation;

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

#[test]
fn fast_recip_is_within_two_ulp_of_the_division() {
    let mut y = 1e-30f32;
    while y < 1e37 {
        let (fast, exact) = (fast_recip(y), 1.0 / y);
        let ulp = (exact.to_bits() as i64 - fast.to_bits() as i64).abs();
        assert!(ulp <= 2, "1 / {y} = {fast}, divided {exact}: {ulp} ulp");
        y *= 1.000_37;
    }
    assert_eq!(fast_recip(1e38), fast_recip(1e37));
}

#[test]
fn activations_match_their_definitions() {
    let mut x = -200.0f32;
    while x <= 200.0 {
        let e = (x as f64).exp();
        let silu = x as f64 / (1.0 + (-x as f64).exp());
        let softplus = if x > 20.0 { x as f64 } else { e.ln_1p() };
        let mish = x as f64 * softplus.tanh();
        for (act, exact) in [(Activation::Silu, silu), (Activation::Mish, mish)] {
            let got = activate(act, x) as f64;
            let tolerance = 1e-6 * exact.abs() + 1e-30;
            assert!(
                (got - exact).abs() <= tolerance,
                "{act:?}({x}) = {got}, exactly {exact}"
            );
        }
        x += 0.003_17;
    }
}

#[test]
fn activations_made_for_rounding_are_within_two_to_the_minus_20_where_they_are_not_tiny() {
    // The definitions in f64, over the whole range, with the exact
    // activations' own tolerance scaled to what a rounding to bf16 pairs
    // (split or not) keeps.
    let inputs: Vec<f32> = (0..126_000).map(|i| -200.0 + i as f32 * 0.003_17).collect();
    let ones = vec![1.0; inputs.len()];
    let mut silu = vec![0.0; inputs.len()];
    silu_gate_rounded(&inputs, &ones, &mut silu);
    let norm = crate::model::Norm {
        name: "identity".to_string(),
        scale: vec![1.0; 1000],
        bias: vec![0.0; 1000],
    };
    let mut mish = Vec::new();
    let made = NormActRows {
        norm: &norm,
        act: Activation::Mish,
        input: &inputs,
    };
    for r in 0..inputs.len() / 1000 {
        mish.extend_from_slice(crate::forward::bf16::Rows::row(
            &made,
            r,
            1000,
            &mut Vec::new(),
        ));
    }
    for (i, &x) in inputs.iter().enumerate() {
        let e = (x as f64).exp();
        let softplus = if x > 20.0 { x as f64 } else { e.ln_1p() };
        let exact_silu = x as f64 / (1.0 + (-x as f64).exp());
        let exact_mish = x as f64 * softplus.tanh();
        let mut pairs = vec![(silu[i], exact_silu, "SiLU")];
        if i < mish.len() {
            pairs.push((mish[i], exact_mish, "Mish"));
        }
        for (got, exact, name) in pairs {
            // The power's exponent `x · log2 e` rounded to f32 adds
            // |x| · 2⁻²⁴ relative where the activation is tiny.
            let relative = (1.0 + x.abs() as f64 / 8.0) / (1 << 20) as f64;
            let tolerance = exact.abs() * relative + 1e-30;
            assert!(
                (got as f64 - exact).abs() <= tolerance,
                "{name}({x}) = {got}, exactly {exact}"
            );
        }
    }
}
