//! AMX tiles: `TDPBUSD` on 16 × 16 accumulator tiles of 32-bit integers,
//! 2 × 2 of them per step (32 rows × 32 columns), then each block's sums
//! scaled back on AVX-512 exactly as [`super::x86`] scales its registers.
//! Integer sums are exact, so the rows and columns past the whole blocks
//! go to `VPDPBUSD` with the same results: unlike bf16, a row's answer
//! cannot depend on which unit took it.

use std::arch::asm;
use std::arch::x86_64::*;

use super::x86::{block_scales, dequantise_16};
use super::{QuantWeights, COLUMN_BLOCK, QUAD_BLOCK};
use crate::forward::amx_tiles;
use crate::forward::bf16::x86::{first_lanes, store_lanes};

/// Rows and columns of one block of tiles.
const BLOCK: usize = 32;

/// See [`super::product`]: whole 32 × 32 blocks on the tiles, the rest on
/// AVX-512-VNNI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
pub(super) unsafe fn product(
    data: &[u32],
    row_scales: &[f32],
    w: &QuantWeights,
    out: &mut [f32],
    accumulate: bool,
) {
    let rows = row_scales.len();
    assert!(data.len() >= rows * w.quads && out.len() >= rows * w.n);
    assert_eq!(w.quads % QUAD_BLOCK, 0, "whole tiles of quads");
    let (full_rows, full_blocks) = (rows / BLOCK * BLOCK, w.n / COLUMN_BLOCK);
    if full_rows == 0 || full_blocks == 0 {
        // SAFETY: this function's target features; the slices carry their
        // own bounds.
        return unsafe { super::x86::product(data, row_scales, w, out, accumulate) };
    }
    let mut sums = Sums([[0; BLOCK]; BLOCK]);
    // SAFETY: the tile state was granted to the process before this path
    // was chosen.
    unsafe { amx_tiles::configure(16, 16) };
    for r in (0..full_rows).step_by(BLOCK) {
        for block in 0..full_blocks {
            let first_col = block * COLUMN_BLOCK;
            // SAFETY: 32 rows from r and the block's 32 columns are inside
            // the operands (asserted above), and `sums` holds 32 × 32.
            unsafe {
                tile_block(
                    data.as_ptr().add(r * w.quads),
                    w.quads,
                    w.block(block).as_ptr(),
                    &mut sums,
                )
            };
            dequantise(
                &sums,
                &row_scales[r..r + BLOCK],
                &w.scales[first_col..first_col + BLOCK],
                &w.offsets[first_col..first_col + BLOCK],
                &mut out[r * w.n + first_col..],
                w.n,
                accumulate,
            );
        }
    }
    if full_blocks * COLUMN_BLOCK < w.n {
        // The last columns of the rows done on tiles: the last block's
        // packed weights, as a layer of their own.
        // SAFETY: this function's target features; bounds as above.
        unsafe {
            super::x86::product_columns(
                &data[..full_rows * w.quads],
                &row_scales[..full_rows],
                w,
                full_blocks,
                out,
                accumulate,
            )
        };
    }
    if full_rows < rows {
        // The rows past the whole blocks, padded with zeros to a block of
        // their own for the tiles (the sums of the rows kept are the same
        // on every unit).
        let last = rows - full_rows;
        let mut padded = vec![0x8080_8080u32; BLOCK * w.quads];
        padded[..last * w.quads].copy_from_slice(&data[full_rows * w.quads..rows * w.quads]);
        let last_scales = &row_scales[full_rows..];
        let out = &mut out[full_rows * w.n..];
        for block in 0..full_blocks {
            let first_col = block * COLUMN_BLOCK;
            // SAFETY: a whole block of rows in `padded`, the block's 32
            // columns in `w`, and `sums` holds 32 × 32.
            unsafe { tile_block(padded.as_ptr(), w.quads, w.block(block).as_ptr(), &mut sums) };
            dequantise(
                &sums,
                last_scales,
                &w.scales[first_col..first_col + BLOCK],
                &w.offsets[first_col..first_col + BLOCK],
                &mut out[first_col..],
                w.n,
                accumulate,
            );
        }
        if full_blocks * COLUMN_BLOCK < w.n {
            // SAFETY: as above, for the last columns of these rows.
            unsafe {
                super::x86::product_columns(
                    &padded[..last * w.quads],
                    last_scales,
                    w,
                    full_blocks,
                    out,
                    accumulate,
                )
            };
        }
    }
}

/// A block's 32 × 32 integer sums, aligned for the tiles' stores.
#[repr(C, align(64))]
struct Sums([[i32; BLOCK]; BLOCK]);

/// `sums = a[32][quads] · b[quads][32]` in 32-bit integers: four
/// accumulator tiles over the whole depth.
///
/// # Safety
/// The tiles configured by [`amx_tiles::configure`]; 32 rows of `quads`
/// quads readable from `a`, a packed block of `quads` × 32 from `b`.
unsafe fn tile_block(a: *const u32, quads: usize, b: *const u32, sums: &mut Sums) {
    let a_stride = quads * 4;
    let b_stride = COLUMN_BLOCK * 4;
    let out = sums.0.as_mut_ptr().cast::<i32>();
    let out_stride = BLOCK * 4;
    // SAFETY: every tile load stays inside the 32 rows of `a` and the
    // block of `b`, as the caller guarantees, and every store inside
    // `sums`.
    unsafe {
        asm!(
            "tilezero tmm0",
            "tilezero tmm1",
            "tilezero tmm2",
            "tilezero tmm3",
            options(nostack, nomem)
        );
        for p in (0..quads).step_by(QUAD_BLOCK) {
            let (ap, bp) = (a.add(p), b.add(p * COLUMN_BLOCK));
            asm!(
                "tileloadd tmm6, [{b} + {bs}*1]",
                "tileloadd tmm7, [{b} + {bs}*1 + 64]",
                "tileloadd tmm4, [{a} + {s}*1]",
                "tileloadd tmm5, [{a2} + {s}*1]",
                "tdpbusd tmm0, tmm4, tmm6",
                "tdpbusd tmm1, tmm4, tmm7",
                "tdpbusd tmm2, tmm5, tmm6",
                "tdpbusd tmm3, tmm5, tmm7",
                b = in(reg) bp,
                bs = in(reg) b_stride,
                a = in(reg) ap,
                a2 = in(reg) ap.byte_add(16 * a_stride),
                s = in(reg) a_stride,
                options(nostack, readonly),
            );
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

/// A block's sums, less the columns' offsets, times the rows' and the
/// columns' scales, stored to (or added to) `out` with row stride
/// `out_stride`, through [`dequantise_16`] as [`super::x86`]'s registers
/// are, so the same f32 results: as many rows as `row_scales` has (the
/// block's first rows).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
fn dequantise(
    sums: &Sums,
    row_scales: &[f32],
    column_scales: &[f32],
    offsets: &[i32],
    out: &mut [f32],
    out_stride: usize,
    accumulate: bool,
) {
    assert!(row_scales.len() <= BLOCK, "a block's rows at most");
    assert!(
        out.len() >= row_scales.len().saturating_sub(1) * out_stride + BLOCK,
        "the rows' 32 columns"
    );
    assert!(column_scales.len() >= BLOCK && offsets.len() >= BLOCK);
    // SAFETY: 32 scales and offsets (asserted).
    let (scales, offs) = unsafe { block_scales(column_scales.as_ptr(), offsets.as_ptr()) };
    let all = first_lanes(16);
    for (r, (row, &row_scale)) in sums.0.iter().zip(row_scales).enumerate() {
        let row_scale = _mm512_set1_ps(row_scale);
        for half in 0..2 {
            // SAFETY: 16 sums of row r from half * 16.
            let sum = unsafe { _mm512_loadu_si512(row.as_ptr().add(half * 16).cast()) };
            let value = dequantise_16(sum, offs[half], row_scale, scales[half]);
            // SAFETY: row r's 16 columns from half * 16 are inside `out`
            // (asserted above).
            unsafe {
                store_lanes(
                    out.as_mut_ptr().add(r * out_stride + half * 16),
                    all,
                    value,
                    accumulate,
                )
            };
        }
    }
}
