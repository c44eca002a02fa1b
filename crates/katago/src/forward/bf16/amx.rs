//! AMX tiles: `TDPBF16PS` on 16 × 16 f32 accumulator tiles, 2 × 2 of
//! them per step (32 rows × 32 columns); the last rows on tiles of fewer
//! rows, the columns past the whole blocks on AVX-512.

use std::arch::asm;

use super::{PackedWeights, COLUMN_BLOCK, PAIR_BLOCK};
use crate::forward::amx_tiles;

/// See [`super::product`]: 32 × 32 blocks on tiles, the rows past the
/// last whole block on tiles of fewer rows, the columns past the whole
/// blocks on AVX-512.
///
/// `TDPBF16PS` and `VDPBF16PS` round their sums differently, so a row
/// must take the same unit wherever it falls in a product; otherwise a
/// position's answer would change with the batch it is in and with how
/// the rows are shared between threads. A row's sums on the tiles do not
/// depend on the tile's height, so the last rows keep to the tiles.
#[target_feature(enable = "avx512f,avx512bf16,avx512bw,avx512vl")]
pub(super) unsafe fn product(
    high: &[u32],
    low: Option<&[u32]>,
    rows: usize,
    w: &PackedWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    let full_blocks = w.n / COLUMN_BLOCK;
    if rows == 0 {
        return;
    }
    if full_blocks == 0 {
        // Narrower than one block of columns: every row on AVX-512.
        // SAFETY: this function's target features; the slices carry their
        // own bounds.
        unsafe { super::x86::product(high, low, rows, w, out, accumulate) };
        return;
    }
    assert!(high.len() >= rows * w.pairs && out.len() >= rows * w.n);
    assert!(low.is_none_or(|low| low.len() >= rows * w.pairs));
    if w.pairs == PAIR_BLOCK {
        // SAFETY: this function's target features and the tile state
        // (granted before this path was chosen); bounds asserted above.
        unsafe { shallow_product(high, low, rows, w, out, accumulate) };
    } else {
        // SAFETY: as for the shallow product.
        unsafe { deep_product(high, low, rows, w, out, accumulate) };
    }
    // The columns past the whole blocks, on AVX-512.
    if full_blocks * COLUMN_BLOCK < w.n {
        // SAFETY: this function's target features; bounds asserted above.
        unsafe { super::x86::product_columns(high, low, rows, w, full_blocks, out, accumulate) };
    }
}

/// The whole column blocks of [`product`] in 32 × 32 blocks of four
/// accumulator tiles over the whole depth.
///
/// # Safety
/// As [`product`], with its bounds checked.
unsafe fn deep_product(
    high: &[u32],
    low: Option<&[u32]>,
    rows: usize,
    w: &PackedWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    let full_blocks = w.n / COLUMN_BLOCK;
    for r in (0..rows).step_by(32) {
        let block_rows = (rows - r).min(32);
        // A block of 16 rows or fewer leaves the bottom tiles unused, but
        // configures them as the top ones: the configuration of the
        // shallow products of the same rows, so that attention's two
        // products do not load a new one each time.
        let top = block_rows.min(16);
        let bottom = if block_rows > 16 {
            block_rows - 16
        } else {
            top
        };
        // SAFETY: the tile state was granted to the process before this
        // path was chosen.
        unsafe { amx_tiles::configure(top, bottom) };
        for block in 0..full_blocks {
            // SAFETY: `block_rows` rows from r and the block's 32 columns
            // are inside the operands (asserted above), and the tiles are
            // configured for those rows.
            unsafe {
                tile_block(
                    high.as_ptr().add(r * w.pairs),
                    low.map(|low| low.as_ptr().add(r * w.pairs)),
                    w.pairs,
                    w.block(block).as_ptr(),
                    out.as_mut_ptr().add(r * w.n + block * COLUMN_BLOCK),
                    w.n,
                    accumulate,
                    block_rows > 16,
                )
            };
        }
    }
}

/// One step of [`shallow_product`]: the 16 columns whose weights are at
/// `b` into accumulator `$c` over activation tile 4 (and 5, the
/// remainders, where `$low`), weights in `$b`; then the accumulator `$done`
/// of two steps before stored at `done_at` where there is one.
macro_rules! shallow_step {
    ($c:literal, $b:literal, $done:literal, $low:expr, $accumulate:expr,
     $b_ptr:expr, $out:expr, $done_at:expr, $out_stride:expr) => {{
        let (b, out, stride) = ($b_ptr, $out, $out_stride);
        if $accumulate {
            asm!(concat!("tileloadd tmm", $c, ", [{o} + {s}*1]"),
                o = in(reg) out, s = in(reg) stride, options(nostack, readonly));
        } else {
            asm!(concat!("tilezero tmm", $c), options(nostack, nomem));
        }
        asm!(concat!("tileloadd tmm", $b, ", [{b} + {bs}*1]"),
            concat!("tdpbf16ps tmm", $c, ", tmm4, tmm", $b),
            b = in(reg) b, bs = in(reg) COLUMN_BLOCK * 4, options(nostack, readonly));
        if $low {
            asm!(concat!("tdpbf16ps tmm", $c, ", tmm5, tmm", $b), options(nostack, nomem));
        }
        if let Some(at) = $done_at {
            asm!(concat!("tilestored [{o} + {s}*1], tmm", $done),
                o = in(reg) at, s = in(reg) stride, options(nostack));
        }
    }};
}

/// The whole column blocks of [`product`] for a depth of one
/// [`PAIR_BLOCK`] (attention's scores): one 16-row tile of activations
/// (and one of remainders) kept while the columns go by 16 at a time, each
/// into the next of four accumulators, each stored two steps after its
/// sums began. A block of four accumulators over one step of depth would
/// wait for its sums before every store; these overlap.
///
/// # Safety
/// As [`product`], with its bounds checked and `w.pairs` one
/// [`PAIR_BLOCK`].
unsafe fn shallow_product(
    high: &[u32],
    low: Option<&[u32]>,
    rows: usize,
    w: &PackedWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    let tiles = w.n / COLUMN_BLOCK * 2;
    let a_stride = w.pairs * 4;
    let out_stride = w.n * 4;
    let has_low = low.is_some();
    for r in (0..rows).step_by(16) {
        let tile_rows = (rows - r).min(16);
        // SAFETY: the tile state was granted to the process before this
        // path was chosen. Accumulators 0–3 and activations 4, 5 hold
        // `tile_rows` rows.
        unsafe { amx_tiles::configure(tile_rows, tile_rows) };
        // SAFETY: the tiles hold `tile_rows` rows from r, inside every
        // operand (the caller's bounds); each column tile `t` reads the
        // weights of its block and writes its 16 columns of `out`.
        unsafe {
            let out_rows = out.as_mut_ptr().add(r * w.n);
            asm!("tileloadd tmm4, [{a} + {s}*1]",
                a = in(reg) high.as_ptr().add(r * w.pairs), s = in(reg) a_stride,
                options(nostack, readonly));
            if let Some(low) = low {
                asm!("tileloadd tmm5, [{a} + {s}*1]",
                    a = in(reg) low.as_ptr().add(r * w.pairs), s = in(reg) a_stride,
                    options(nostack, readonly));
            }
            let column = |t: usize| out_rows.add(t * 16);
            let weights = |t: usize| w.block(t / 2).as_ptr().add((t % 2) * 16);
            let done = |t: usize| (t >= 2).then(|| column(t - 2));
            for t in 0..tiles {
                let (b, o, d) = (weights(t), column(t), done(t));
                match t % 4 {
                    0 => shallow_step!("0", "6", "2", has_low, accumulate, b, o, d, out_stride),
                    1 => shallow_step!("1", "7", "3", has_low, accumulate, b, o, d, out_stride),
                    2 => shallow_step!("2", "6", "0", has_low, accumulate, b, o, d, out_stride),
                    _ => shallow_step!("3", "7", "1", has_low, accumulate, b, o, d, out_stride),
                }
            }
            // The last two accumulators.
            for t in tiles.saturating_sub(2)..tiles {
                let o = column(t);
                match t % 4 {
                    0 => {
                        asm!("tilestored [{o} + {s}*1], tmm0", o = in(reg) o, s = in(reg) out_stride, options(nostack))
                    }
                    1 => {
                        asm!("tilestored [{o} + {s}*1], tmm1", o = in(reg) o, s = in(reg) out_stride, options(nostack))
                    }
                    2 => {
                        asm!("tilestored [{o} + {s}*1], tmm2", o = in(reg) o, s = in(reg) out_stride, options(nostack))
                    }
                    _ => {
                        asm!("tilestored [{o} + {s}*1], tmm3", o = in(reg) o, s = in(reg) out_stride, options(nostack))
                    }
                }
            }
        }
    }
}

/// Up to 32 rows × 32 columns: four accumulator tiles over the whole
/// depth, or with `two_halves` false (16 rows at most) the top two.
#[allow(clippy::too_many_arguments)]
unsafe fn tile_block(
    a: *const u32,
    low: Option<*const u32>,
    pairs: usize,
    b: *const u32,
    out: *mut f32,
    out_stride: usize,
    accumulate: bool,
    two_halves: bool,
) {
    let a_stride = pairs * 4;
    let out_stride = out_stride * 4;
    let b_stride = COLUMN_BLOCK * 4;
    // The bottom half's rows, where there are any (the pointer is not
    // formed otherwise).
    let bottom = |p: *const u32| two_halves.then(|| p.wrapping_byte_add(16 * a_stride));
    let out_bottom = two_halves.then(|| out.wrapping_byte_add(16 * out_stride));
    // SAFETY: every tile load and store stays inside the block of `out`,
    // the rows of `a` (and `low`) and the block of `b` that the caller
    // guarantees, the tiles holding as many rows as configured.
    unsafe {
        for (o, first) in [(Some(out), 0), (out_bottom, 2)] {
            let Some(o) = o else { continue };
            match (accumulate, first) {
                (true, 0) => asm!(
                    "tileloadd tmm0, [{o} + {s}*1]",
                    "tileloadd tmm1, [{o} + {s}*1 + 64]",
                    o = in(reg) o,
                    s = in(reg) out_stride,
                    options(nostack, readonly),
                ),
                (true, _) => asm!(
                    "tileloadd tmm2, [{o} + {s}*1]",
                    "tileloadd tmm3, [{o} + {s}*1 + 64]",
                    o = in(reg) o,
                    s = in(reg) out_stride,
                    options(nostack, readonly),
                ),
                (false, 0) => asm!("tilezero tmm0", "tilezero tmm1", options(nostack, nomem)),
                (false, _) => asm!("tilezero tmm2", "tilezero tmm3", options(nostack, nomem)),
            }
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
                match bottom(ap) {
                    Some(a2) => asm!(
                        "tileloadd tmm4, [{a} + {s}*1]",
                        "tileloadd tmm5, [{a2} + {s}*1]",
                        "tdpbf16ps tmm0, tmm4, tmm6",
                        "tdpbf16ps tmm1, tmm4, tmm7",
                        "tdpbf16ps tmm2, tmm5, tmm6",
                        "tdpbf16ps tmm3, tmm5, tmm7",
                        a = in(reg) ap,
                        a2 = in(reg) a2,
                        s = in(reg) a_stride,
                        options(nostack, readonly),
                    ),
                    None => asm!(
                        "tileloadd tmm4, [{a} + {s}*1]",
                        "tdpbf16ps tmm0, tmm4, tmm6",
                        "tdpbf16ps tmm1, tmm4, tmm7",
                        a = in(reg) ap,
                        s = in(reg) a_stride,
                        options(nostack, readonly),
                    ),
                }
            }
        }
        asm!(
            "tilestored [{o} + {s}*1], tmm0",
            "tilestored [{o} + {s}*1 + 64], tmm1",
            o = in(reg) out,
            s = in(reg) out_stride,
            options(nostack),
        );
        if let Some(o2) = out_bottom {
            asm!(
                "tilestored [{o} + {s}*1], tmm2",
                "tilestored [{o} + {s}*1 + 64], tmm3",
                o = in(reg) o2,
                s = in(reg) out_stride,
                options(nostack),
            );
        }
    }
}
