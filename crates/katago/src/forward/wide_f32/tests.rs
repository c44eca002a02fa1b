//! The 512-bit f32 products against the portable ones (bit for bit) and
//! against f64 sums.

use super::{product, product_portable, PackedF32};
use crate::forward::bf16::tests::values;
use crate::forward::int8::tests::SHAPES;

#[test]
fn the_product_gives_the_portable_sums_bit_for_bit() {
    if !super::available() {
        eprintln!("no AVX-512 on this CPU: only the portable path is checked");
    }
    for &(rows, k, n) in &SHAPES {
        let (a, w) = (values(rows * k, 1), values(k * n, 2));
        let packed = PackedF32::new(k, n, &w);
        for init in [vec![0.0; rows * n], values(rows * n, 3)] {
            let accumulate = init.iter().any(|&x| x != 0.0);
            let (mut portable, mut fast) = (init.clone(), init.clone());
            product_portable(&a, rows, &packed, &mut portable, accumulate);
            product(&a, rows, &packed, &mut fast, accumulate);
            for (i, (p, f)) in portable.iter().zip(&fast).enumerate() {
                assert_eq!(p.to_bits(), f.to_bits(), "{rows}×{k}·{k}×{n} at {i}");
            }
        }
    }
}

#[test]
fn the_portable_product_is_the_f32_product() {
    for &(rows, k, n) in &SHAPES {
        let (a, w) = (values(rows * k, 4), values(k * n, 5));
        let packed = PackedF32::new(k, n, &w);
        let mut out = vec![0.0; rows * n];
        product_portable(&a, rows, &packed, &mut out, false);
        for r in 0..rows {
            for c in 0..n {
                let (mut exact, mut scale) = (0.0f64, 0.0f64);
                for i in 0..k {
                    let term = a[r * k + i] as f64 * w[i * n + c] as f64;
                    exact += term;
                    scale += term.abs();
                }
                let got = out[r * n + c] as f64;
                assert!(
                    (got - exact).abs() <= 1e-6 * scale + 1e-30,
                    "{rows}×{k}·{k}×{n} at ({r}, {c}): {got} against {exact}"
                );
            }
        }
    }
}
