//! AMX tiles: `TDPBUSD` on 16 × 16 accumulator tiles of 32-bit integers,
//! 2 × 2 of them per step (32 rows × 32 columns; a split layer's three
//! products on 32 rows × 16 columns), then each block's sums scaled back
//! on AVX-512 exactly as [`super::x86`] scales its registers.
//! Integer sums are exact, so the rows and columns past the whole blocks
//! go to `VPDPBUSD` with the same results: unlike bf16, a row's answer
//! cannot depend on which unit took it.

use std::arch::asm;
use std::arch::x86_64::*;

use super::x86::{block_scales, dequantise_16, dequantise_split_16};
use super::{QuantLayer, QuantWeights, COLUMN_BLOCK, QUAD_BLOCK};
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
        amx_tiles::zero_accumulators();
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

/// The three products of a split layer at once — `out (+)=` the high
/// activations by the high weights, and the cross products (low by high,
/// high by low) summed in integers, scaled back and added as
/// [`super::dequantise_split`] does — on 16 × 16 blocks: three accumulator
/// tiles, one per product, over the two tiles of activations and the two
/// of weights. The two cross sums are added in integers before they are
/// scaled, so a block's epilogue converts two sums, not three.
///
/// The rows past the last whole 16 go to the tiles padded with zeros; the
/// columns past the whole blocks of 32 to AVX-512-VNNI.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
pub(super) unsafe fn product_split(
    (high, low): (&[u32], &[u32]),
    row_scales: &[f32],
    layer: &QuantLayer,
    out: &mut [f32],
    accumulate: bool,
) {
    let (rows, quads, n) = layer.split_shape((high, low), row_scales.len(), out.len());
    assert_eq!(quads % QUAD_BLOCK, 0, "whole tiles of quads");
    let full_blocks = n / COLUMN_BLOCK;
    if rows == 0 {
        return;
    }
    if full_blocks > 0 {
        // SAFETY: this function's target features and the caller's tile
        // state; bounds asserted above.
        unsafe { split_blocks((high, low), row_scales, layer, full_blocks, out, accumulate) };
    }
    if full_blocks * COLUMN_BLOCK < n {
        // SAFETY: this function's target features; bounds asserted above.
        unsafe {
            super::x86::product_split((high, low), row_scales, layer, full_blocks, out, accumulate)
        };
    }
}

/// [`product_split`] for the columns of the first `full_blocks` blocks.
///
/// # Safety
/// As [`product_split`], whose asserts hold.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn split_blocks(
    (high, low): (&[u32], &[u32]),
    row_scales: &[f32],
    layer: &QuantLayer,
    full_blocks: usize,
    out: &mut [f32],
    accumulate: bool,
) {
    let (wh, wl) = (&layer.high, &layer.low);
    let (rows, quads, n) = (row_scales.len(), wh.quads, wh.n);
    let mut sums = SplitSums([[[0; 16]; 16]; 4]);
    // The last rows padded to a whole block with offset bytes (zeros): the
    // kept rows' sums do not change.
    let whole_rows = rows / SPLIT_ROWS * SPLIT_ROWS;
    let mut padded = vec![0x8080_8080u32; 2 * SPLIT_ROWS * quads];
    let kept = (rows - whole_rows) * quads;
    padded[..kept].copy_from_slice(&high[whole_rows * quads..][..kept]);
    padded[SPLIT_ROWS * quads..][..kept].copy_from_slice(&low[whole_rows * quads..][..kept]);
    let (padded_high, padded_low) = padded.split_at(SPLIT_ROWS * quads);
    // Columns go in groups whose weights stay in the core's cache while
    // every row goes by; each tile of 16 columns holds `quads` × 64 bytes
    // of each quantisation.
    let tiles = 2 * full_blocks;
    let group = (SPLIT_GROUP_BYTES / (2 * quads * 64)).clamp(1, tiles);
    // SAFETY: the tile state was granted to the process before this path
    // was chosen.
    unsafe { amx_tiles::configure(16, 16) };
    for first_tile in (0..tiles).step_by(group) {
        for r in (0..rows).step_by(SPLIT_ROWS) {
            let block_rows = (rows - r).min(SPLIT_ROWS);
            let (a_high, a_low) = if block_rows == SPLIT_ROWS {
                (&high[r * quads..], &low[r * quads..])
            } else {
                (padded_high, padded_low)
            };
            for tile in first_tile..(first_tile + group).min(tiles) {
                let (block, first_col) = (tile / 2, tile * 16);
                let half = (tile % 2) * 16;
                // SAFETY: 32 rows of `quads` quads in `a_high` and
                // `a_low`, a block's 16 columns of `quads` quads in each
                // weights' block, and `sums` holds four 16 × 16.
                unsafe {
                    split_tiles(
                        (a_high.as_ptr(), a_low.as_ptr()),
                        quads,
                        (
                            wh.block(block).as_ptr().add(half),
                            wl.block(block).as_ptr().add(half),
                        ),
                        &mut sums,
                    )
                };
                let columns = first_col..first_col + 16;
                dequantise_split(
                    &sums,
                    &row_scales[r..r + block_rows],
                    &wh.scales[columns.clone()],
                    (&wh.offsets[columns.clone()], &layer.cross_offsets[columns]),
                    &mut out[r * n + first_col..],
                    n,
                    accumulate,
                );
            }
        }
    }
}

/// The most bytes of weights (both quantisations) [`product_split`] takes
/// for one group of columns: a quarter of a 2 MiB core cache, so that they
/// stay there with the rows while every row goes by.
const SPLIT_GROUP_BYTES: usize = 512 << 10;

/// Rows of one block of [`product_split`]: two tiles of 16.
const SPLIT_ROWS: usize = 32;

/// One block's sums: for each tile of 16 rows, its high sums and its cross
/// products' sums, 16 × 16 each, aligned for the tiles' stores.
#[repr(C, align(64))]
struct SplitSums([[[i32; 16]; 16]; 4]);

/// `sums` = the high product and the two cross products (low activations
/// by high weights, high by low, in one sum) of 32 rows of (high, low)
/// activations and 16 columns of (high, low) weights, over the whole
/// depth: four accumulator tiles (two per tile of rows), each tile of
/// weights loaded once for both tiles of rows.
///
/// # Safety
/// The tiles configured by [`amx_tiles::configure`] for 16 rows; 32 rows
/// of `quads` quads readable from each of `a`, and 16 columns of a packed
/// block (`quads` × [`COLUMN_BLOCK`]) from each of `b`.
unsafe fn split_tiles(
    (a_high, a_low): (*const u32, *const u32),
    quads: usize,
    (b_high, b_low): (*const u32, *const u32),
    sums: &mut SplitSums,
) {
    let a_stride = quads * 4;
    let b_stride = COLUMN_BLOCK * 4;
    let out = sums.0.as_mut_ptr().cast::<i32>();
    // SAFETY: every tile load stays inside the rows and blocks the caller
    // guarantees, and every store inside `sums`.
    unsafe {
        amx_tiles::zero_accumulators();
        for p in (0..quads).step_by(QUAD_BLOCK) {
            asm!(
                "tileloadd tmm6, [{bh} + {bs}*1]",
                "tileloadd tmm4, [{ah} + {s}*1]",
                "tdpbusd tmm0, tmm4, tmm6",
                "tileloadd tmm5, [{ah2} + {s}*1]",
                "tdpbusd tmm2, tmm5, tmm6",
                "tileloadd tmm7, [{bl} + {bs}*1]",
                "tdpbusd tmm1, tmm4, tmm7",
                "tdpbusd tmm3, tmm5, tmm7",
                "tileloadd tmm4, [{al} + {s}*1]",
                "tdpbusd tmm1, tmm4, tmm6",
                "tileloadd tmm5, [{al2} + {s}*1]",
                "tdpbusd tmm3, tmm5, tmm6",
                ah = in(reg) a_high.add(p),
                al = in(reg) a_low.add(p),
                ah2 = in(reg) a_high.add(p + 16 * quads),
                al2 = in(reg) a_low.add(p + 16 * quads),
                s = in(reg) a_stride,
                bh = in(reg) b_high.add(p * COLUMN_BLOCK),
                bl = in(reg) b_low.add(p * COLUMN_BLOCK),
                bs = in(reg) b_stride,
                options(nostack, readonly),
            );
        }
        asm!(
            "tilestored [{o} + {s}*1], tmm0",
            "tilestored [{o} + {s}*1 + 1024], tmm1",
            "tilestored [{o} + {s}*1 + 2048], tmm2",
            "tilestored [{o} + {s}*1 + 3072], tmm3",
            o = in(reg) out,
            s = in(reg) 64usize,
            options(nostack),
        );
    }
}

/// A block's sums scaled back through [`dequantise_split_16`]: the first
/// rows of the block (as many as the scales), 16 columns at `out` with row
/// stride `out_stride`.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vnni")]
fn dequantise_split(
    sums: &SplitSums,
    row_scales: &[f32],
    column_scales: &[f32],
    (high_offsets, cross_offsets): (&[i32], &[i32]),
    out: &mut [f32],
    out_stride: usize,
    accumulate: bool,
) {
    let rows = row_scales.len();
    assert!(rows <= SPLIT_ROWS, "a block's rows");
    assert!(
        out.len() >= rows.saturating_sub(1) * out_stride + 16,
        "16 columns a row"
    );
    assert!(column_scales.len() >= 16);
    assert!(high_offsets.len() >= 16 && cross_offsets.len() >= 16);
    // SAFETY: 16 of each (asserted).
    let (column_scales, offsets) = unsafe {
        (
            _mm512_loadu_ps(column_scales.as_ptr()),
            (
                _mm512_loadu_si512(high_offsets.as_ptr().cast()),
                _mm512_loadu_si512(cross_offsets.as_ptr().cast()),
            ),
        )
    };
    let all = first_lanes(16);
    for (r, &row_scale) in row_scales.iter().enumerate() {
        let (tile, row) = (2 * (r / 16), r % 16);
        // SAFETY: row `row` of the row tile's two 16 × 16 blocks of sums.
        let [high, cross] =
            [tile, tile + 1].map(|i| unsafe { _mm512_loadu_si512(sums.0[i][row].as_ptr().cast()) });
        let value = dequantise_split_16(
            (high, cross),
            offsets,
            _mm512_set1_ps(row_scale),
            column_scales,
        );
        // SAFETY: row r's 16 columns are inside `out` (asserted above).
        unsafe { store_lanes(out.as_mut_ptr().add(r * out_stride), all, value, accumulate) };
    }
}
