//! AMX tiles: `TDPBF16PS` on 16 × 16 f32 accumulator tiles, 2 × 2 of
//! them per step (32 rows × 32 columns); the last rows padded to a whole
//! step, the columns past the whole blocks on AVX-512.

use std::arch::asm;

use super::{PackedWeights, COLUMN_BLOCK, PAIR_BLOCK};
use crate::forward::amx_tiles;
use crate::forward::words::Words;

/// See [`super::product`]: 32 × 32 blocks on tiles (the last rows in a
/// block padded to 32 rows whose sums are dropped), the columns past the
/// whole blocks on AVX-512.
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
pub(super) unsafe fn product(
    high: &[u32],
    low: Option<&[u32]>,
    rows: usize,
    w: &PackedWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    let full_rows = rows / 32 * 32;
    let full_blocks = w.n / COLUMN_BLOCK;
    if full_rows > 0 && full_blocks > 0 {
        // SAFETY: the tile state was granted to the process before this
        // path was chosen; released below.
        unsafe { amx_tiles::configure() };
        for r in (0..full_rows).step_by(32) {
            for block in 0..full_blocks {
                // SAFETY: 32 rows from r and the block's 32 columns are
                // inside the operands.
                unsafe {
                    tile_block(
                        high.as_ptr().add(r * w.pairs),
                        low.map(|low| low.as_ptr().add(r * w.pairs)),
                        w.pairs,
                        w.block(block).as_ptr(),
                        out.as_mut_ptr().add(r * w.n + block * COLUMN_BLOCK),
                        w.n,
                        accumulate,
                    )
                };
            }
        }
        // SAFETY: releases the tile state configured above; the tiles are
        // not used after this.
        unsafe { amx_tiles::release() };
    }
    // The columns past the whole blocks, for the rows done on tiles.
    if full_rows > 0 && full_blocks * COLUMN_BLOCK < w.n {
        let block = full_blocks;
        let cols = w.n - block * COLUMN_BLOCK;
        for r in (0..full_rows).step_by(8) {
            // SAFETY: 8 rows from r (below `full_rows`) and the last
            // block's `cols` columns are inside the operands.
            unsafe {
                super::x86::tile_dispatch(
                    8,
                    high.as_ptr().add(r * w.pairs),
                    low.map(|low| low.as_ptr().add(r * w.pairs)),
                    w.pairs,
                    w.block(block).as_ptr(),
                    out.as_mut_ptr().add(r * w.n + block * COLUMN_BLOCK),
                    w.n,
                    cols,
                    accumulate,
                )
            };
        }
    }
    // The rows past the whole tiles: on the tiles too, as one block padded
    // to 32 rows. `TDPBF16PS` and `VDPBF16PS` round their sums
    // differently, so a row must take the same unit wherever it falls in a
    // product; otherwise a position's answer would change with the batch it
    // is in and with how the rows are shared between threads.
    let tail = rows - full_rows;
    if tail == 0 {
        return;
    }
    if full_blocks == 0 {
        // Narrower than one block of columns: every row on AVX-512.
        // SAFETY: this function's target features; the slices carry their
        // own bounds.
        unsafe {
            super::x86::product(
                &high[full_rows * w.pairs..],
                low.map(|low| &low[full_rows * w.pairs..]),
                tail,
                w,
                &mut out[full_rows * w.n..],
                accumulate,
            )
        };
        return;
    }
    let pairs = w.pairs;
    let (tail_rows, tail_out) = (full_rows * pairs..rows * pairs, full_rows * w.n..rows * w.n);
    TAIL.with_borrow_mut(|block| {
        let TailBlock {
            high: block_high,
            low: block_low,
            out: block_out,
        } = block;
        // A row of sums depends on its own row of activations alone, so the
        // padding rows keep whatever they held: their sums are dropped.
        let tail_len = tail * pairs;
        block_high.resize_for_overwrite(32 * pairs);
        block_high[..tail_len].copy_from_slice(&high[tail_rows.clone()]);
        if let Some(low) = low {
            block_low.resize_for_overwrite(32 * pairs);
            block_low[..tail_len].copy_from_slice(&low[tail_rows]);
        }
        crate::forward::elementwise::resize_for_overwrite(block_out, 32 * w.n);
        if accumulate {
            block_out[..tail * w.n].copy_from_slice(&out[tail_out.clone()]);
        }
        // SAFETY: this function's target features; 32 whole rows, so the
        // call has no tail of its own.
        unsafe {
            product(
                block_high,
                low.map(|_| &block_low[..]),
                32,
                w,
                block_out,
                accumulate,
            )
        };
        out[tail_out].copy_from_slice(&block_out[..tail * w.n]);
    });
}

/// The rows of a product past its whole tiles, padded to one block of 32
/// rows, and that block's sums; kept per thread between products.
#[derive(Default)]
struct TailBlock {
    high: Words,
    low: Words,
    out: Vec<f32>,
}

thread_local! {
    static TAIL: std::cell::RefCell<TailBlock> = std::cell::RefCell::default();
}

/// 32 rows × 32 columns: four accumulator tiles over the whole depth.
#[allow(clippy::too_many_arguments)]
unsafe fn tile_block(
    a: *const u32,
    low: Option<*const u32>,
    pairs: usize,
    b: *const u32,
    out: *mut f32,
    out_stride: usize,
    accumulate: bool,
) {
    let a_stride = pairs * 4;
    let out_stride = out_stride * 4;
    let b_stride = COLUMN_BLOCK * 4;
    // SAFETY: every tile load and store stays inside
    // the 32 × 32 block of `out`, the 32 rows of `a` (and `low`), and the
    // block of `b`, as the caller guarantees.
    unsafe {
        if accumulate {
            asm!(
                "tileloadd tmm0, [{o} + {s}*1]",
                "tileloadd tmm1, [{o} + {s}*1 + 64]",
                "tileloadd tmm2, [{o2} + {s}*1]",
                "tileloadd tmm3, [{o2} + {s}*1 + 64]",
                o = in(reg) out,
                o2 = in(reg) out.byte_add(16 * out_stride),
                s = in(reg) out_stride,
                options(nostack, readonly),
            );
        } else {
            asm!(
                "tilezero tmm0",
                "tilezero tmm1",
                "tilezero tmm2",
                "tilezero tmm3",
                options(nostack, nomem)
            );
        }
        let parts: &[*const u32] = match low {
            Some(ref low) => &[a, *low],
            None => &[a],
        };
        for p in (0..pairs).step_by(PAIR_BLOCK) {
            let bp = b.add(p * COLUMN_BLOCK);
            asm!(
                "tileloadd tmm6, [{b} + {bs}*1]",
                "tileloadd tmm7, [{b} + {bs}*1 + 64]",
                b = in(reg) bp,
                bs = in(reg) b_stride,
                options(nostack, readonly),
            );
            for &part in parts {
                let ap = part.add(p);
                asm!(
                    "tileloadd tmm4, [{a} + {s}*1]",
                    "tileloadd tmm5, [{a2} + {s}*1]",
                    "tdpbf16ps tmm0, tmm4, tmm6",
                    "tdpbf16ps tmm1, tmm4, tmm7",
                    "tdpbf16ps tmm2, tmm5, tmm6",
                    "tdpbf16ps tmm3, tmm5, tmm7",
                    a = in(reg) ap,
                    a2 = in(reg) ap.byte_add(16 * a_stride),
                    s = in(reg) a_stride,
                    options(nostack, readonly),
                );
            }
        }
        asm!(
            "tilestored [{o} + {s}*1], tmm0",
            "tilestored [{o} + {s}*1 + 64], tmm1",
            "tilestored [{o2} + {s}*1], tmm2",
            "tilestored [{o2} + {s}*1 + 64], tmm3",
            o = in(reg) out,
            o2 = in(reg) out.byte_add(16 * out_stride),
            s = in(reg) out_stride,
            options(nostack),
        );
    }
}
