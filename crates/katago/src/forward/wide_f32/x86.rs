//! `VFMADD231PS` on 512-bit registers.

use std::arch::x86_64::*;

use super::{PackedF32, COLUMN_BLOCK};
use crate::forward::bf16::x86::store_tile;

/// Rows of one register tile: 12 rows × 2 registers of sums, two of
/// weights and one broadcast take 27 of the 32 registers.
const TILE_ROWS: usize = 12;

/// See [`super::product`].
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn product(
    a: &[f32],
    rows: usize,
    w: &PackedF32,
    out: &mut [f32],
    accumulate: bool,
) {
    assert!(a.len() >= rows * w.k && out.len() >= rows * w.n);
    let blocks = w.n.div_ceil(COLUMN_BLOCK);
    let mut r = 0;
    while r < rows {
        let tile = (rows - r).min(TILE_ROWS);
        for block in 0..blocks {
            let cols = (w.n - block * COLUMN_BLOCK).min(COLUMN_BLOCK);
            let tile_out = Tile {
                rows: tile,
                a: a[r * w.k..].as_ptr(),
                k: w.k,
                b: w.block(block).as_ptr(),
                out: out[r * w.n + block * COLUMN_BLOCK..].as_mut_ptr(),
                out_stride: w.n,
                cols,
            };
            // SAFETY: the tile's rows and columns are inside `a`, `w` and
            // `out` (asserted above).
            unsafe { tile_dispatch(tile_out, accumulate) };
        }
        r += tile;
    }
}

/// One tile's operands: `rows` rows of `a` (`k` a row), a packed block `b`, and
/// the tile's first output, `cols` of its 32 columns kept.
struct Tile {
    rows: usize,
    a: *const f32,
    k: usize,
    b: *const f32,
    out: *mut f32,
    out_stride: usize,
    cols: usize,
}

/// [`tile`] for `rows` (1 to [`TILE_ROWS`]) rows.
#[target_feature(enable = "avx512f")]
unsafe fn tile_dispatch(operands: Tile, accumulate: bool) {
    let rows = operands.rows;
    macro_rules! go {
        ($($n:literal)*) => {
            match rows {
                // SAFETY: the caller's pointers and sizes, passed on;
                // `tile` has this function's target features.
                $($n => unsafe { tile::<$n>(&operands, accumulate) },)*
                _ => unreachable!("a tile has 1 to {TILE_ROWS} rows"),
            }
        };
    }
    go!(1 2 3 4 5 6 7 8 9 10 11 12)
}

/// `out[R][cols] (+)= a[R][k] · b[k][32]`, one fused multiply-add per
/// term in the order of `k`, as [`super::product_portable`].
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn tile<const R: usize>(t: &Tile, accumulate: bool) {
    let mut acc = [[_mm512_setzero_ps(); 2]; R];
    for i in 0..t.k {
        // SAFETY: the block's row i is at b + i * 32, inside `b`.
        let (b0, b1) = unsafe {
            (
                _mm512_loadu_ps(t.b.add(i * COLUMN_BLOCK)),
                _mm512_loadu_ps(t.b.add(i * COLUMN_BLOCK + 16)),
            )
        };
        for (r, acc) in acc.iter_mut().enumerate() {
            // SAFETY: row r's value i is at a + r * k + i, inside `a`.
            let x = _mm512_set1_ps(unsafe { *t.a.add(r * t.k + i) });
            acc[0] = _mm512_fmadd_ps(x, b0, acc[0]);
            acc[1] = _mm512_fmadd_ps(x, b1, acc[1]);
        }
    }
    // SAFETY: the tile's `out` holds its rows and columns.
    unsafe { store_tile(&acc, t.out, t.out_stride, t.cols, accumulate) };
}
