//! Self-attention blocks: the projections, rotary angles, each head's
//! scores, softmax and values (f32 through `gemm`, or on the bf16 units a
//! block of rows at a time), and the output projection into the residual
//! stream.

use std::sync::Arc;

use super::elementwise::widest_simd;
use super::elementwise::{self, softmax_numerators};
#[cfg(target_arch = "x86_64")]
use super::elementwise::{simd_level, SimdLevel};
use super::kernels::{apply_matmul_of_rows, apply_matmuls, gemm_strided, Grid, Layout};
use super::profile::{self, region, LayerClass};
use super::wide_f32::{self, PackedF32};
use super::{bf16, Exec, Scratch};
use crate::model::{AttentionBlock, Rope};

thread_local! {
    /// One head's attention scores, kept between heads so that their
    /// memory is reused.
    static SCORES: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
    /// A head's gathered queries and packed keys and values, for the
    /// 512-bit f32 products (its scores go in [`SCORES`]).
    static HEAD_F32: std::cell::RefCell<(Vec<f32>, PackedF32, PackedF32)> =
        std::cell::RefCell::default();
    /// One head's queries and keys, a row per point, gathered (and
    /// rotated) for packing.
    static HEAD_ROWS: std::cell::RefCell<(Vec<f32>, Vec<f32>)> = const {
        std::cell::RefCell::new((Vec::new(), Vec::new()))
    };
    /// One head's operands on bf16 units, kept between heads.
    static ATTENTION_BF16: std::cell::RefCell<AttentionBf16> = std::cell::RefCell::new(AttentionBf16::default());
}

/// Points of one attention head whose scores are made, turned into softmax
/// weights and multiplied by the values in one go: a whole number of AMX
/// tiles, and 32 rows of scores (46 kB on 19×19) stay in the cache.
const ATTENTION_ROWS: usize = 32;

/// The operands of one attention head on bf16 units.
struct AttentionBf16 {
    /// The head's queries, a row per point.
    queries: bf16::PackedRows,
    /// Its keys, a column per point.
    keys: bf16::PackedWeights,
    /// A block of rows of scores, in f32.
    scores: Vec<f32>,
    /// The block's numerators rounded to bf16, a row per point.
    weights: bf16::PackedRows,
    /// Its values, a row per point.
    values: bf16::PackedWeights,
}

impl Default for AttentionBf16 {
    fn default() -> AttentionBf16 {
        AttentionBf16 {
            queries: bf16::PackedRows::default(),
            keys: bf16::PackedWeights::empty(),
            scores: Vec::new(),
            weights: bf16::PackedRows::default(),
            values: bf16::PackedWeights::empty(),
        }
    }
}

/// Self-attention over the points of each position, added to `t`.
pub(super) fn attention(
    b: &AttentionBlock,
    grid: Grid,
    _channels: usize,
    t: &mut [f32],
    s: &mut Scratch,
    exec: Exec,
) {
    let rows = grid.rows();
    let shape = HeadShape {
        points: grid.points(),
        heads: b.heads,
        kv_heads: b.kv_heads,
        d: b.q_head_dim,
        dv: b.v_head_dim,
    };
    let rope = project(b, grid, shape, t, s, exec);
    let operands = HeadOperands {
        shape,
        q: &s.q,
        k: &s.k,
        v: &s.v,
        rope: rope.as_deref(),
    };
    let mut outs = std::mem::take(&mut s.head_outs);
    run_heads(&operands, grid.batch, exec, &mut outs);
    let _projections = region(LayerClass::Projections);
    let heads = HeadsSideBySide {
        shape,
        blocks: &outs,
    };
    // Into the residual stream: rounded as a convolution's input is.
    let (made_as, exec) = (LayerClass::PackingAndLayout, exec.for_residual());
    apply_matmul_of_rows(&b.out_proj, rows, &heads, made_as, &mut s.o, t, true, exec);
    s.head_outs = outs;
}

/// The sizes of an attention block's heads on one grid.
#[derive(Clone, Copy)]
struct HeadShape {
    /// Points of a position.
    points: usize,
    /// Query heads.
    heads: usize,
    /// Key and value heads.
    kv_heads: usize,
    /// Width of a query or key head.
    d: usize,
    /// Width of a value head.
    dv: usize,
}

impl HeadShape {
    /// Query heads that share a key and value head.
    #[inline]
    fn group(self) -> usize {
        self.heads / self.kv_heads
    }

    /// The factor of the scores before the softmax.
    #[inline]
    fn scale(self) -> f32 {
        1.0 / (self.d as f32).sqrt()
    }

    /// Where head `h` of position `pos` starts in the queries.
    #[inline]
    fn q_at(self, pos: usize, h: usize) -> usize {
        pos * self.points * self.heads * self.d + h * self.d
    }

    /// Where key head `kvh` of position `pos` starts in the keys.
    #[inline]
    fn k_at(self, pos: usize, kvh: usize) -> usize {
        pos * self.points * self.kv_heads * self.d + kvh * self.d
    }

    /// Where value head `kvh` of position `pos` starts in the values.
    #[inline]
    fn v_at(self, pos: usize, kvh: usize) -> usize {
        pos * self.points * self.kv_heads * self.dv + kvh * self.dv
    }
}

/// The normalised residual stream's queries, keys and values, into `s.q`,
/// `s.k` and `s.v`. Where the block has rotary encoding, the heads rotate
/// their queries and keys as they gather them, and the table is returned
/// for them; only the heads over `gemm`, which read the queries and keys
/// in place, have them rotated here.
fn project(
    b: &AttentionBlock,
    grid: Grid,
    shape: HeadShape,
    t: &[f32],
    s: &mut Scratch,
    exec: Exec,
) -> Option<RopeTable> {
    let rows = grid.rows();
    let (h_count, kv_count, d, dv) = (shape.heads, shape.kv_heads, shape.d, shape.dv);
    let projections = region(LayerClass::Projections);
    let normed = elementwise::RmsRows {
        weight: &b.norm_weight,
        epsilon: b.norm_epsilon,
        input: t,
    };
    let (q, k, v) = (&mut s.q, &mut s.k, &mut s.v);
    elementwise::resize_for_overwrite(q, rows * h_count * d);
    elementwise::resize_for_overwrite(k, rows * kv_count * d);
    elementwise::resize_for_overwrite(v, rows * kv_count * dv);
    apply_matmuls(
        &mut [
            (&b.q_proj, &mut q[..]),
            (&b.k_proj, &mut k[..]),
            (&b.v_proj, &mut v[..]),
        ],
        rows,
        &normed,
        &mut s.a,
        exec,
    );
    drop(projections);
    let rope = b.rope.as_ref()?;
    let table = b
        .derived
        .get_or_init(RopeTables::default)
        .get(grid, || rope_table(rope, grid, kv_count, d));
    if exec.kernel.unit.bf16_path().is_some() || wide_f32::available() {
        return Some(table);
    }
    let _rotation = region(LayerClass::NormAndActivation);
    apply_rope(&table, grid, h_count, kv_count, d, q, k);
    None
}

/// One head's output: its values, a row per point, not yet divided by the
/// softmax's sums; and the inverse of each point's sum.
pub(super) type HeadOut = (Vec<f32>, Vec<f32>);

/// The queries, keys and values of every head of a batch.
struct HeadOperands<'a> {
    /// The heads' sizes.
    shape: HeadShape,
    /// Queries, a row per point with every head side by side.
    q: &'a [f32],
    /// Keys, likewise.
    k: &'a [f32],
    /// Values, likewise.
    v: &'a [f32],
    /// The rotary table (see [`rope_table`]) where the heads rotate their
    /// queries and keys as they gather them.
    rope: Option<&'a [f32]>,
}

/// Every head of every position of the batch, one task each, each with its
/// own score matrix, into `outs` in order of position then head (their
/// buffers kept from the last block: fresh ones would be zeroed by the
/// system, page by page).
fn run_heads(operands: &HeadOperands<'_>, batch: usize, exec: Exec, outs: &mut Vec<HeadOut>) {
    let h_count = operands.shape.heads;
    outs.resize_with(batch * h_count, HeadOut::default);
    let split_queries = exec.kernel.splits_queries();
    let bf16_path = exec.kernel.unit.bf16_path();
    let run_head = |(index, out): (usize, &mut HeadOut)| {
        let (pos, h) = (index / h_count, index % h_count);
        let (values, inverse) = out;
        elementwise::resize_for_overwrite(values, operands.shape.points * operands.shape.dv);
        elementwise::resize_for_overwrite(inverse, operands.shape.points);
        match bf16_path {
            Some(path) => operands.head_bf16(path, split_queries, pos, h, values, inverse),
            None => operands.head_f32(pos, h, values, inverse),
        }
    };
    let heads_section = region(LayerClass::AttentionScores);
    profile::scoped(|| {
        if exec.threads > 1 {
            use rayon::prelude::*;
            outs.par_iter_mut().enumerate().for_each(run_head);
        } else {
            outs.iter_mut().enumerate().for_each(run_head);
        }
    });
    drop(heads_section);
}

impl HeadOperands<'_> {
    /// Query head `h` of position `pos` into `queries` and its key head
    /// into `keys`, a row of `d` per point, rotated where the heads rotate.
    fn gather(&self, pos: usize, h: usize, queries: &mut Vec<f32>, keys: &mut Vec<f32>) {
        let shape = self.shape;
        let kvh = h / shape.group();
        let (q_stride, k_stride) = (shape.heads * shape.d, shape.kv_heads * shape.d);
        for (src, at, stride, out) in [
            (self.q, shape.q_at(pos, h), q_stride, queries),
            (self.k, shape.k_at(pos, kvh), k_stride, keys),
        ] {
            elementwise::resize_for_overwrite(out, shape.points * shape.d);
            let table = self.rope.unwrap_or(&[]);
            gather_rows(src, (at, stride, shape.d), table, kvh, out);
        }
    }

    /// Query head `h` of position `pos` and its key head, as the bf16
    /// units read them (rotated where the heads rotate).
    fn head_rows(&self, pos: usize, h: usize) -> [bf16::HeadRows<'_>; 2] {
        let shape = self.shape;
        let (points, d) = (shape.points, shape.d);
        let kvh = h / shape.group();
        let factors = self
            .rope
            .map_or(&[][..], |table| &table[kvh * points * d..][..points * d]);
        let head = |src, at, stride| bf16::HeadRows {
            src,
            at,
            stride,
            k: d,
            points,
            factors,
        };
        [
            head(self.q, shape.q_at(pos, h), shape.heads * d),
            head(self.k, shape.k_at(pos, kvh), shape.kv_heads * d),
        ]
    }

    /// Head `h` of position `pos` in f32 on 512-bit registers: the queries
    /// gathered, the keys and values packed as [`wide_f32`] reads them,
    /// then all its scores, their softmax and the product with the values.
    fn head_wide_f32(&self, pos: usize, h: usize, out: &mut [f32], inverse: &mut [f32]) {
        let shape = self.shape;
        let (points, kv_count, d, dv) = (shape.points, shape.kv_heads, shape.d, shape.dv);
        let kvh = h / shape.group();
        let mut head = |(queries, keys, values): &mut (Vec<f32>, PackedF32, PackedF32),
                        scores: &mut Vec<f32>| {
            profile::task(Some(LayerClass::AttentionScores), || {
                // scores = q_h · k_hᵀ
                HEAD_ROWS.with_borrow_mut(|(_, rows)| {
                    self.gather(pos, h, queries, rows);
                    keys.pack_with(d, points, |i, p| rows[p * d + i]);
                });
                elementwise::resize_for_overwrite(scores, points * points);
                wide_f32::product(queries, points, keys, scores, false);
            });
            profile::task(Some(LayerClass::Softmax), || {
                softmax_numerators(scores, points, shape.scale(), inverse);
            });
            profile::task(Some(LayerClass::AttentionValues), || {
                let v_at = shape.v_at(pos, kvh);
                values.pack_with(points, dv, |p, c| self.v[v_at + p * kv_count * dv + c]);
                wide_f32::product(scores, points, values, out, false);
            });
        };
        HEAD_F32.with_borrow_mut(|operands| SCORES.with_borrow_mut(|scores| head(operands, scores)))
    }

    /// Head `h` of position `pos` in f32 through `gemm` (on 512-bit
    /// registers where the CPU has them): all its scores, their softmax,
    /// then the product with the values.
    fn head_f32(&self, pos: usize, h: usize, out: &mut [f32], inverse: &mut [f32]) {
        if wide_f32::available() {
            return self.head_wide_f32(pos, h, out, inverse);
        }
        let shape = self.shape;
        let (points, h_count, kv_count, d, dv) =
            (shape.points, shape.heads, shape.kv_heads, shape.d, shape.dv);
        let kvh = h / shape.group();
        SCORES.with_borrow_mut(|scores| {
            elementwise::resize_for_overwrite(scores, points * points);
            // scores = q_h · k_hᵀ
            profile::task(Some(LayerClass::AttentionScores), || {
                gemm_strided(
                    points,
                    points,
                    d,
                    scores,
                    Layout::rows(0, points),
                    self.q,
                    Layout {
                        offset: shape.q_at(pos, h),
                        row_stride: h_count * d,
                        col_stride: 1,
                    },
                    self.k,
                    Layout {
                        offset: shape.k_at(pos, kvh),
                        row_stride: 1,
                        col_stride: kv_count * d,
                    },
                    1.0,
                    false,
                    1,
                )
            });
            profile::task(Some(LayerClass::Softmax), || {
                softmax_numerators(scores, points, shape.scale(), inverse);
            });
            profile::task(Some(LayerClass::AttentionValues), || {
                gemm_strided(
                    points,
                    dv,
                    points,
                    out,
                    Layout::rows(0, dv),
                    scores,
                    Layout::rows(0, points),
                    self.v,
                    Layout {
                        offset: shape.v_at(pos, kvh),
                        row_stride: kv_count * dv,
                        col_stride: 1,
                    },
                    1.0,
                    false,
                    1,
                );
            });
        })
    }

    /// Head `h` of position `pos` on bf16 units: queries, keys, the
    /// softmax's numerators and values rounded to bf16, every sum in f32,
    /// the softmax itself in f32. The points are taken a block of rows at a
    /// time, each block's scores, softmax and product with the values made
    /// while its scores are in the cache.
    fn head_bf16(
        &self,
        path: bf16::Bf16Path,
        split_queries: bool,
        pos: usize,
        h: usize,
        out: &mut [f32],
        inverse: &mut [f32],
    ) {
        let shape = self.shape;
        let (points, kv_count, d, dv) = (shape.points, shape.kv_heads, shape.d, shape.dv);
        let v = self.v;
        let scale = shape.scale();
        let kvh = h / shape.group();
        // The scores' columns, one per point, padded with zero keys as the
        // path runs fastest.
        let width = path.product_width(points);
        ATTENTION_BF16.with_borrow_mut(|s| {
            let AttentionBf16 {
                queries,
                keys,
                scores,
                weights,
                values,
            } = s;
            profile::task(Some(LayerClass::PackingAndLayout), || {
                let [q_head, k_head] = self.head_rows(pos, h);
                if q_head.packed_directly(path) {
                    queries.fill_head(path, &q_head, split_queries);
                    keys.fill_head_columns(path, &k_head, width);
                } else {
                    HEAD_ROWS.with_borrow_mut(|(q_rows, k_rows)| {
                        self.gather(pos, h, q_rows, k_rows);
                        queries.fill_strided(path, points, d, q_rows, 0, d, split_queries);
                        keys.fill_columns(path, d, points, width, k_rows, 0, d);
                    });
                }
                values.fill_rows(path, points, dv, v, shape.v_at(pos, kvh), kv_count * dv);
            });
            elementwise::resize_for_overwrite(scores, ATTENTION_ROWS * width);
            for first in (0..points).step_by(ATTENTION_ROWS) {
                let rows = ATTENTION_ROWS.min(points - first);
                let scores = &mut scores[..rows * width];
                profile::task(Some(LayerClass::AttentionScores), || {
                    bf16::product(path, queries, first, rows, keys, scores, false)
                });
                profile::task(Some(LayerClass::Softmax), || {
                    let inverse = &mut inverse[first..first + rows];
                    weights.fill_softmax(path, (rows, points, width), scores, scale, inverse);
                });
                profile::task(Some(LayerClass::AttentionValues), || {
                    let out = &mut out[first * dv..(first + rows) * dv];
                    bf16::product(path, weights, 0, rows, values, out, false)
                });
            }
        })
    }
}

/// The heads' outputs side by side, a row per point of the batch, each
/// head's part divided by its softmax's sum: the out projection's input,
/// made a row at a time as it is packed (or whole, see [`bf16::Rows`]).
struct HeadsSideBySide<'a> {
    shape: HeadShape,
    /// Every head's output, by position then head.
    blocks: &'a [HeadOut],
}

impl HeadsSideBySide<'_> {
    /// Row `r` (point `r` of the batch) into `dst`.
    fn make_row(&self, r: usize, dst: &mut [f32]) {
        let (points, dv) = (self.shape.points, self.shape.dv);
        let (pos, p) = (r / points, r % points);
        for (h, dst) in dst.chunks_exact_mut(dv).enumerate() {
            let (values, inverse) = &self.blocks[pos * self.shape.heads + h];
            for (o, &x) in dst.iter_mut().zip(&values[p * dv..(p + 1) * dv]) {
                *o = x * inverse[p];
            }
        }
    }
}

impl bf16::Rows for HeadsSideBySide<'_> {
    fn row<'a>(&'a self, r: usize, k: usize, made: &'a mut Vec<f32>) -> &'a [f32] {
        assert_eq!(k, self.shape.heads * self.shape.dv, "every head's values");
        elementwise::resize_for_overwrite(made, k);
        self.make_row(r, made);
        made
    }

    fn matrix<'a>(&'a self, rows: usize, k: usize, out: &'a mut Vec<f32>) -> &'a [f32] {
        assert_eq!(k, self.shape.heads * self.shape.dv, "every head's values");
        elementwise::resize_for_overwrite(out, rows * k);
        elementwise::for_row_blocks(out, k, |first_row, block| {
            for (index, row) in block.chunks_exact_mut(k).enumerate() {
                self.make_row(first_row + index, row);
            }
        });
        out
    }
}

/// An attention block's rotary tables (see [`rope_table`]) for each board
/// size met, kept with the block: the same on every evaluation of a size,
/// and costly (a sine and cosine per entry) to make again each time.
#[derive(Default)]
pub(crate) struct RopeTables(std::sync::Mutex<Vec<((usize, usize), RopeTable)>>);

/// Rotary factors by `[kv head][point]`: a cosine and a sine for each
/// pair of a head (see [`rope_table`]).
type RopeTable = Arc<[f32]>;

impl RopeTables {
    /// The table for `grid`'s board size, made by `make` on first use.
    fn get(&self, grid: Grid, make: impl FnOnce() -> Vec<f32>) -> RopeTable {
        let key = (grid.width, grid.height);
        let mut tables = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, table)) = tables.iter().find(|(k, _)| *k == key) {
            return Arc::clone(table);
        }
        let table: RopeTable = make().into();
        tables.push((key, Arc::clone(&table)));
        table
    }
}

/// The rotary factors of every point of `grid`'s board, by `[kv
/// head][point]` (a head's points one after another, so that a head reads
/// its factors in order): for a pair `(a, b)` at lanes `2i, 2i + 1` turned
/// by θ, `[cos θ, sin θ]` at the same lanes; the pair becomes `(a cos θ +
/// b (−sin θ), b cos θ + a sin θ)`.
fn rope_table(rope: &Rope, grid: Grid, kv_heads: usize, d: usize) -> Vec<f32> {
    let pairs = d / 2;
    let mut table = vec![0.0f32; grid.points() * kv_heads * d];
    for y in 0..grid.height {
        for x in 0..grid.width {
            for kvh in 0..kv_heads {
                let at = (kvh * grid.points() + y * grid.width + x) * d;
                let factors = &mut table[at..at + d];
                for pair in 0..pairs {
                    let theta = match rope {
                        Rope::Learned(freqs) => {
                            let f = &freqs[(kvh * pairs + pair) * 2..];
                            x as f32 * f[0] + y as f32 * f[1]
                        }
                        Rope::Fixed(base) => {
                            let half = pairs / 2;
                            if pair < half {
                                y as f32 * base.powf(-2.0 * pair as f32 / pairs as f32)
                            } else {
                                x as f32 * base.powf(-2.0 * (pair - half) as f32 / pairs as f32)
                            }
                        }
                    };
                    let (sin, cos) = theta.sin_cos();
                    factors[2 * pair..2 * pair + 2].copy_from_slice(&[cos, sin]);
                }
            }
        }
    }
    table
}

/// Rotates query and key pairs by the factors of `table` (see
/// [`rope_table`]), which depend on each point's column and row.
fn apply_rope(
    table: &[f32],
    grid: Grid,
    heads: usize,
    kv_heads: usize,
    d: usize,
    q: &mut [f32],
    k: &mut [f32],
) {
    let points = grid.points();
    // Heads that share a key and value head.
    let group = heads / kv_heads;
    let rotate = |values: &mut [f32], head_count: usize, group: usize| {
        elementwise::for_row_blocks(values, head_count * d, |first_row, block| {
            rotate_rows(table, points, d, head_count, group, first_row, block)
        });
    };
    rotate(q, heads, group);
    rotate(k, kv_heads, 1);
}

/// [`apply_rope`] of a block of rows of queries or keys, the first being
/// row `first_row` of the batch; heads `group` at a time share a kv head.
#[allow(clippy::too_many_arguments)]
fn rotate_rows(
    table: &[f32],
    points: usize,
    d: usize,
    head_count: usize,
    group: usize,
    first_row: usize,
    block: &mut [f32],
) {
    let mut head = vec![0.0f32; d];
    for (row_index, row) in block.chunks_exact_mut(head_count * d).enumerate() {
        let point = (first_row + row_index) % points;
        rotate_point(row, &table[point * d..], points * d, d, group, &mut head);
    }
}

widest_simd! {
    /// Rotates the pairs of one point's heads (`d` values each, heads
    /// `group` at a time sharing a kv head's factors, those of kv head
    /// `i` at `factors[i · stride..]`), each copied to `head` (`d` values)
    /// first.
    fn rotate_point(
        row: &mut [f32],
        factors: &[f32],
        stride: usize,
        d: usize,
        group: usize,
        head: &mut [f32]
    ) {
        for (h, dst) in row.chunks_exact_mut(d).enumerate() {
            head.copy_from_slice(dst);
            rotate_head(dst, head, &factors[(h / group) * stride..][..d]);
        }
    }
}

/// Rotates the pairs of one head, `src`, into `dst` by its factors (see
/// [`rope_table`]): eight pairs at a time as whole vectors, each lane's
/// cosine and signed sine spread from the pair's, the swap within each
/// pair a shuffle.
#[inline(always)]
fn rotate_head(dst: &mut [f32], src: &[f32], factors: &[f32]) {
    let mut lanes = dst.chunks_exact_mut(16);
    let mut src_lanes = src.chunks_exact(16);
    let mut factor_lanes = factors.chunks_exact(16);
    for ((x, v), f) in (&mut lanes).zip(&mut src_lanes).zip(&mut factor_lanes) {
        let cosines: [f32; 16] = std::array::from_fn(|i| f[i & !1]);
        let sines: [f32; 16] = std::array::from_fn(|i| if i % 2 == 0 { -f[i + 1] } else { f[i] });
        for i in 0..16 {
            x[i] = v[i] * cosines[i] + v[i ^ 1] * sines[i];
        }
    }
    let rest = lanes.into_remainder();
    let (v, f) = (src_lanes.remainder(), factor_lanes.remainder());
    for pair in (0..rest.len()).step_by(2) {
        let (cos, sin) = (f[pair], f[pair + 1]);
        rest[pair] = v[pair] * cos + v[pair + 1] * -sin;
        rest[pair + 1] = v[pair + 1] * cos + v[pair] * sin;
    }
}

widest_simd! {
    /// The rows of one head, `out.len() / d` points of `d` values from
    /// `src[at + p · stride..]`, each rotated by kv head `kvh`'s factors
    /// in `table` (see [`rope_table`]; none where it is empty).
    fn gather_rows(
        src: &[f32],
        place: (usize, usize, usize),
        table: &[f32],
        kvh: usize,
        out: &mut [f32]
    ) {
        // Where the head starts, the stride between points, its width.
        let (at, stride, d) = place;
        let points = out.len() / d;
        for (p, row) in out.chunks_exact_mut(d).enumerate() {
            let head = &src[at + p * stride..][..d];
            if table.is_empty() {
                row.copy_from_slice(head);
            } else {
                rotate_head(row, head, &table[(kvh * points + p) * d..][..d]);
            }
        }
    }
}
