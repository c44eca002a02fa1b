//! The layers whose products a kernel runs in integers (int8 or int16):
//! which ones, and the layer around the product: the rows quantised as
//! they are made, the weights quantised once and kept with the layer.

use std::cell::RefCell;

use super::bf16::{PackedCache, Rows};
use super::int16::{self, Int16Path, WordRows, WordWeights};
use super::int8::{self, Int8Path, QuantLayer, QuantRows};
use super::kernels::{on_product_rows, Exec};
use super::profile::{self, LayerClass};
use crate::model::MatMul;

/// The integer product of a layer: int8 (both operands split, where the
/// flag says so) or int16.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Integers {
    Int8(Int8Path, bool),
    Int16(Int16Path),
}

impl Exec {
    /// The integer product to use for a `rows` × `k` by `k` × `n` product
    /// of a convolution (`true`) or a matrix layer, if any: int8's split
    /// where the kernel's rounding splits that layer's activations.
    pub(crate) fn integers_for(
        &self,
        rows: usize,
        k: usize,
        n: usize,
        convolution: bool,
    ) -> Option<Integers> {
        let integers = match (self.kernel.int8, self.kernel.int16) {
            (Some(unit), _) => {
                Integers::Int8(unit.path(), self.kernel.rounding.splits(convolution))
            }
            (None, Some(unit)) => Integers::Int16(unit.path()),
            (None, None) => return None,
        };
        (rows >= 8 && k >= 64 && n >= 16).then_some(integers)
    }
}

thread_local! {
    /// The activations of the current product quantised to bytes, kept
    /// between layers so that their memory is reused.
    static INT8_ROWS: RefCell<QuantRows> = RefCell::default();
    /// The same in 16-bit integers.
    static INT16_ROWS: RefCell<WordRows> = RefCell::default();
}

/// `out (+)= input · weights` in `integers`, `input` being `rows` rows of
/// `k` values quantised as they are made, the making counted as `made_as`;
/// `weights` (`k` × `n`) are quantised on first use and kept in `cache`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn layer(
    integers: Integers,
    cache: &PackedCache,
    (rows, k, n): (usize, usize, usize),
    input: &(impl Rows + ?Sized),
    made_as: LayerClass,
    weights: &[f32],
    out: &mut [f32],
    accumulate: bool,
    threads: usize,
) {
    match integers {
        Integers::Int8(path, split) => INT8_ROWS.with_borrow_mut(|a| {
            {
                let _making = profile::region(made_as);
                a.fill(path, rows, k, input, split, threads);
            }
            matmul_int8(path, a, cache.int8(k, n, weights), out, accumulate, threads);
        }),
        Integers::Int16(path) => INT16_ROWS.with_borrow_mut(|a| {
            {
                let _making = profile::region(made_as);
                a.fill(path, rows, k, input, threads);
            }
            matmul_int16(
                path,
                a,
                cache.int16(k, n, weights),
                out,
                accumulate,
                threads,
            );
        }),
    }
}

/// Several matrix layers applied to the same `input` in `integers`, each
/// into its own output (overwritten): the input quantised once for all.
pub(crate) fn layers(
    integers: Integers,
    layers: &mut [(&MatMul, &mut [f32])],
    rows: usize,
    input: &(impl Rows + ?Sized),
    threads: usize,
) {
    let k = layers[0].0.in_channels;
    assert!(
        layers.iter().all(|(layer, _)| layer.in_channels == k),
        "layers of one input"
    );
    match integers {
        Integers::Int8(path, split) => INT8_ROWS.with_borrow_mut(|a| {
            {
                let _packing = profile::region(LayerClass::PackingAndLayout);
                a.fill(path, rows, k, input, split, threads);
            }
            for (layer, out) in layers.iter_mut() {
                let cache = PackedCache::of(&layer.derived);
                let w = cache.int8(k, layer.out_channels, &layer.weights);
                matmul_int8(path, a, w, out, false, threads);
            }
        }),
        Integers::Int16(path) => INT16_ROWS.with_borrow_mut(|a| {
            {
                let _packing = profile::region(LayerClass::PackingAndLayout);
                a.fill(path, rows, k, input, threads);
            }
            for (layer, out) in layers.iter_mut() {
                let cache = PackedCache::of(&layer.derived);
                let w = cache.int16(k, layer.out_channels, &layer.weights);
                matmul_int16(path, a, w, out, false, threads);
            }
        }),
    }
}

/// `out (+)= a · w` on int8 units (split where `a` is), the rows split
/// between `threads` threads of the current pool.
fn matmul_int8(
    path: Int8Path,
    a: &QuantRows,
    w: &QuantLayer,
    out: &mut [f32],
    accumulate: bool,
    threads: usize,
) {
    on_product_rows(a.rows, w.high.n, threads, out, |first, rows, out| {
        int8::product(path, a, first, rows, w, out, accumulate)
    });
}

/// `out (+)= a · w` in 16-bit integers, the rows split between `threads`
/// threads of the current pool.
fn matmul_int16(
    path: Int16Path,
    a: &WordRows,
    w: &WordWeights,
    out: &mut [f32],
    accumulate: bool,
    threads: usize,
) {
    on_product_rows(a.rows, w.n, threads, out, |first, rows, out| {
        int16::product(path, a, first, rows, w, out, accumulate)
    });
}
