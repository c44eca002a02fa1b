//! The forward pass of a KataGo network on the CPU, for a batch of
//! positions on one grid size, as KataGo's own CPU backend computes it.
//!
//! The grid is the board itself (as in KataGo's GTP engine, which sizes the
//! network to the board), so every point is on the board and no layer needs
//! a mask.

mod bf16;
pub mod cpu;
mod kernels;

pub use bf16::PackedCache;
pub use cpu::{Bf16Rounding, Features, Kernel, Precision, Unit};
pub(crate) use kernels::{apply_matmul, apply_matmuls};
pub use kernels::{
    bf16_emulation, flush_subnormals, round_to_bf16, set_bf16_emulation, Bf16Emulation, Exec,
};

use std::sync::Arc;

use kernels::{
    act_in_place, add_per_position, apply_conv, gemm_strided, norm_act, pool_mean_max, pool_value,
    rms_norm_rows, softmax_numerators, Grid, Layout,
};

use crate::model::{
    AttentionBlock, Block, FfnBlock, ModelDesc, Rope, TipNorm, GLOBAL_INPUTS, SPATIAL_INPUTS,
};

/// What the network computed for one position, before any
/// post-processing, from the side to move's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct RawOutput {
    /// Move logits, row-major from the top-left point, then pass, with the
    /// optimistic policy mixed in.
    pub policy: Vec<f32>,
    /// Win, loss and no-result logits.
    pub value: [f32; 3],
    /// Score mean, score stdev, lead, variance of time left, short-term
    /// win/loss error and short-term score error, raw (zeros for outputs a
    /// model version lacks).
    pub score: [f32; 6],
    /// Ownership per point, raw (before tanh).
    pub ownership: Vec<f32>,
}

/// Scratch buffers reused across layers.
#[derive(Default)]
struct Scratch {
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    d: Vec<f32>,
    unrolled: Vec<f32>,
    pooled: Vec<f32>,
    small: Vec<f32>,
}

/// Runs the network on `batch` positions of `width` × `height` points.
///
/// `spatial` holds, per position, [`SPATIAL_INPUTS`] planes of
/// `height * width` values (row-major, top row first); `global` holds
/// [`GLOBAL_INPUTS`] values per position. `optimism` mixes the optimistic
/// policy into the policy (KataGo's `policyOptimism`).
#[allow(clippy::too_many_arguments)]
pub fn forward(
    model: &ModelDesc,
    batch: usize,
    width: usize,
    height: usize,
    spatial: &[f32],
    global: &[f32],
    optimism: f32,
    exec: Exec,
) -> Vec<RawOutput> {
    forward_until(
        model,
        batch,
        width,
        height,
        spatial,
        global,
        optimism,
        exec,
        &|| false,
    )
    .expect("a forward pass that is never cancelled finishes")
}

/// [`forward`], abandoned (`None`) as soon as `cancel` says so. `cancel` is
/// asked before every block of the trunk (and every block nested in one)
/// and before the heads: on 19×19 a batch of eight takes about a second on
/// two cores, a block some tens of milliseconds, so a search that must stop
/// now need not wait for the whole batch.
#[allow(clippy::too_many_arguments)]
pub fn forward_until(
    model: &ModelDesc,
    batch: usize,
    width: usize,
    height: usize,
    spatial: &[f32],
    global: &[f32],
    optimism: f32,
    exec: Exec,
    cancel: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<RawOutput>> {
    flush_subnormals();
    if cancel() {
        return None;
    }
    let grid = Grid {
        batch,
        width,
        height,
    };
    let points = grid.points();
    assert_eq!(
        spatial.len(),
        batch * SPATIAL_INPUTS * points,
        "spatial input size"
    );
    assert_eq!(global.len(), batch * GLOBAL_INPUTS, "global input size");
    let rows = grid.rows();
    let trunk = &model.trunk;
    let channels = trunk.channels;
    let mut s = Scratch::default();

    // Inputs from planes to one row of features per point.
    let mut input = vec![0.0f32; rows * SPATIAL_INPUTS];
    for b in 0..batch {
        for f in 0..SPATIAL_INPUTS {
            let plane = &spatial[(b * SPATIAL_INPUTS + f) * points..][..points];
            for (p, &v) in plane.iter().enumerate() {
                input[(b * points + p) * SPATIAL_INPUTS + f] = v;
            }
        }
    }
    let mut t = vec![0.0f32; rows * channels];
    apply_conv(
        &trunk.initial_conv,
        grid,
        &input,
        &mut t,
        false,
        &mut s.unrolled,
        exec,
    );
    let mut global_bias = vec![0.0f32; batch * channels];
    apply_matmul(
        &trunk.initial_matmul,
        batch,
        global,
        &mut global_bias,
        false,
        Exec::f32(1),
    );
    add_per_position(grid, channels, &global_bias, &mut t);

    for block in &trunk.blocks {
        if !run_block(block, grid, channels, &mut t, &mut s, exec, cancel) {
            return None;
        }
    }
    if cancel() {
        return None;
    }

    // Trunk tip.
    let mut trunk_out = Vec::with_capacity(t.len());
    match &trunk.tip_norm {
        TipNorm::Batch(norm) => norm_act(norm, trunk.tip_act, &t, &mut trunk_out),
        TipNorm::Rms {
            epsilon,
            spatial,
            gamma,
            beta,
        } => {
            trunk_out.resize(t.len(), 0.0);
            let mean_square = |x: &[f32]| x.iter().map(|v| v * v).sum::<f32>() / x.len() as f32;
            let sample = points * channels;
            for (part, dst) in t
                .chunks_exact(sample)
                .zip(trunk_out.chunks_exact_mut(sample))
            {
                // Spatial: one scale for the whole position; else one per point.
                let position_scale = spatial.then(|| 1.0 / (mean_square(part) + epsilon).sqrt());
                for (row, out) in part
                    .chunks_exact(channels)
                    .zip(dst.chunks_exact_mut(channels))
                {
                    let r =
                        position_scale.unwrap_or_else(|| 1.0 / (mean_square(row) + epsilon).sqrt());
                    for c in 0..channels {
                        out[c] = kernels::activate(trunk.tip_act, row[c] * r * gamma[c] + beta[c]);
                    }
                }
            }
        }
    }
    drop(t);

    // Policy head.
    let policy = &model.policy;
    let p_channels = policy.p1_conv.out_channels;
    let g_channels = policy.g1_conv.out_channels;
    let mut p = vec![0.0f32; rows * p_channels];
    apply_conv(
        &policy.p1_conv,
        grid,
        &trunk_out,
        &mut p,
        false,
        &mut s.unrolled,
        exec,
    );
    s.a.clear();
    s.a.resize(rows * g_channels, 0.0);
    apply_conv(
        &policy.g1_conv,
        grid,
        &trunk_out,
        &mut s.a,
        false,
        &mut s.unrolled,
        exec,
    );
    norm_act(&policy.g1_norm, policy.g1_act, &s.a, &mut s.b);
    pool_mean_max(grid, g_channels, &s.b, &mut s.pooled);
    let mut policy_bias = vec![0.0f32; batch * p_channels];
    apply_matmul(
        &policy.gpool_to_bias,
        batch,
        &s.pooled,
        &mut policy_bias,
        false,
        Exec::f32(1),
    );
    add_per_position(grid, p_channels, &policy_bias, &mut p);
    norm_act(&policy.p1_norm, policy.p1_act, &p, &mut s.c);
    let out_channels = policy.out_channels;
    let mut logits = vec![0.0f32; rows * out_channels];
    apply_conv(
        &policy.p2_conv,
        grid,
        &s.c,
        &mut logits,
        false,
        &mut s.unrolled,
        exec,
    );
    let mut pass = vec![0.0f32; batch * out_channels];
    match &policy.pass_hidden {
        Some((bias, act, mul)) => {
            let hidden = bias.bias.len();
            let mut h = vec![0.0f32; batch * hidden];
            apply_matmul(
                &policy.gpool_to_pass,
                batch,
                &s.pooled,
                &mut h,
                false,
                Exec::f32(1),
            );
            add_to_rows(&mut h, &bias.bias);
            act_in_place(*act, &mut h);
            apply_matmul(mul, batch, &h, &mut pass, false, Exec::f32(1));
        }
        None => apply_matmul(
            &policy.gpool_to_pass,
            batch,
            &s.pooled,
            &mut pass,
            false,
            Exec::f32(1),
        ),
    }

    // Value head.
    let value = &model.value;
    let v1 = value.v1_conv.out_channels;
    s.a.clear();
    s.a.resize(rows * v1, 0.0);
    apply_conv(
        &value.v1_conv,
        grid,
        &trunk_out,
        &mut s.a,
        false,
        &mut s.unrolled,
        exec,
    );
    norm_act(&value.v1_norm, value.v1_act, &s.a, &mut s.b);
    pool_value(grid, v1, &s.b, &mut s.pooled);
    let v2 = value.v2_mul.out_channels;
    let mut hidden = vec![0.0f32; batch * v2];
    apply_matmul(
        &value.v2_mul,
        batch,
        &s.pooled,
        &mut hidden,
        false,
        Exec::f32(1),
    );
    add_to_rows(&mut hidden, &value.v2_bias.bias);
    act_in_place(value.v2_act, &mut hidden);
    let mut values = vec![0.0f32; batch * 3];
    apply_matmul(
        &value.v3_mul,
        batch,
        &hidden,
        &mut values,
        false,
        Exec::f32(1),
    );
    let score_count = value.sv3_mul.out_channels;
    let mut scores = vec![0.0f32; batch * score_count];
    apply_matmul(
        &value.sv3_mul,
        batch,
        &hidden,
        &mut scores,
        false,
        Exec::f32(1),
    );
    let mut ownership = vec![0.0f32; rows];
    apply_conv(
        &value.ownership_conv,
        grid,
        &s.b,
        &mut ownership,
        false,
        &mut s.unrolled,
        exec,
    );

    let outputs = (0..batch)
        .map(|b| {
            let mix = |normal: f32, optimistic: f32| normal + (optimistic - normal) * optimism;
            let mut policy_out = Vec::with_capacity(points + 1);
            for pt in 0..points {
                let row = &logits[(b * points + pt) * out_channels..][..out_channels];
                policy_out.push(if out_channels >= 2 {
                    mix(row[0], row[1])
                } else {
                    row[0]
                });
            }
            let pass_row = &pass[b * out_channels..][..out_channels];
            policy_out.push(if out_channels >= 2 {
                mix(pass_row[0], pass_row[1])
            } else {
                pass_row[0]
            });
            let mut score = [0.0f32; 6];
            for (i, v) in scores[b * score_count..(b + 1) * score_count]
                .iter()
                .enumerate()
            {
                score[i] = *v;
            }
            let mut value_logits = [0.0f32; 3];
            for (i, v) in value_logits.iter_mut().enumerate() {
                *v = values[b * 3 + i] + model.value.v3_bias.bias[i];
            }
            for (i, v) in score.iter_mut().take(score_count).enumerate() {
                *v += model.value.sv3_bias.bias[i];
            }
            RawOutput {
                policy: policy_out,
                value: value_logits,
                score,
                ownership: ownership[b * points..(b + 1) * points].to_vec(),
            }
        })
        .collect();
    Some(outputs)
}

/// Applies one residual block to `t` (rows of `channels`); `false` when
/// `cancel` stopped it part-way (`t` is then half-computed).
fn run_block(
    block: &Block,
    grid: Grid,
    channels: usize,
    t: &mut [f32],
    s: &mut Scratch,
    exec: Exec,
    cancel: &(dyn Fn() -> bool + Sync),
) -> bool {
    if cancel() {
        return false;
    }
    let rows = grid.rows();
    match block {
        Block::Ordinary(b) => {
            norm_act(&b.pre_norm, b.pre_act, t, &mut s.a);
            let mid = b.regular_conv.out_channels;
            s.b.clear();
            s.b.resize(rows * mid, 0.0);
            apply_conv(
                &b.regular_conv,
                grid,
                &s.a,
                &mut s.b,
                false,
                &mut s.unrolled,
                exec,
            );
            norm_act(&b.mid_norm, b.mid_act, &s.b, &mut s.c);
            apply_conv(&b.final_conv, grid, &s.c, t, true, &mut s.unrolled, exec);
        }
        Block::GlobalPool(b) => {
            norm_act(&b.pre_norm, b.pre_act, t, &mut s.a);
            let regular = b.regular_conv.out_channels;
            let pooled_channels = b.gpool_conv.out_channels;
            s.b.clear();
            s.b.resize(rows * regular, 0.0);
            apply_conv(
                &b.regular_conv,
                grid,
                &s.a,
                &mut s.b,
                false,
                &mut s.unrolled,
                exec,
            );
            s.c.clear();
            s.c.resize(rows * pooled_channels, 0.0);
            apply_conv(
                &b.gpool_conv,
                grid,
                &s.a,
                &mut s.c,
                false,
                &mut s.unrolled,
                exec,
            );
            norm_act(&b.gpool_norm, b.gpool_act, &s.c, &mut s.d);
            pool_mean_max(grid, pooled_channels, &s.d, &mut s.pooled);
            s.small.clear();
            s.small.resize(grid.batch * regular, 0.0);
            apply_matmul(
                &b.gpool_to_bias,
                grid.batch,
                &s.pooled,
                &mut s.small,
                false,
                Exec::f32(1),
            );
            add_per_position(grid, regular, &s.small, &mut s.b);
            norm_act(&b.mid_norm, b.mid_act, &s.b, &mut s.c);
            apply_conv(&b.final_conv, grid, &s.c, t, true, &mut s.unrolled, exec);
        }
        Block::Nested(b) => {
            norm_act(&b.pre_norm, b.pre_act, t, &mut s.a);
            let inner = b.pre_conv.out_channels;
            let mut m = vec![0.0f32; rows * inner];
            apply_conv(
                &b.pre_conv,
                grid,
                &s.a,
                &mut m,
                false,
                &mut s.unrolled,
                exec,
            );
            for child in &b.blocks {
                if !run_block(child, grid, inner, &mut m, s, exec, cancel) {
                    return false;
                }
            }
            norm_act(&b.post_norm, b.post_act, &m, &mut s.a);
            apply_conv(&b.post_conv, grid, &s.a, t, true, &mut s.unrolled, exec);
        }
        Block::Attention(b) => attention(b, grid, channels, t, s, exec),
        Block::Ffn(b) => ffn(b, grid, t, s, exec),
    }
    true
}

thread_local! {
    /// One head's attention scores, kept between heads so that their
    /// memory is reused.
    static SCORES: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Self-attention over the points of each position, added to `t`.
fn attention(
    b: &AttentionBlock,
    grid: Grid,
    _channels: usize,
    t: &mut [f32],
    s: &mut Scratch,
    exec: Exec,
) {
    let rows = grid.rows();
    let points = grid.points();
    let (h_count, kv_count, d, dv) = (b.heads, b.kv_heads, b.q_head_dim, b.v_head_dim);
    rms_norm_rows(&b.norm_weight, b.norm_epsilon, t, &mut s.a);
    let mut q = vec![0.0f32; rows * h_count * d];
    let mut k = vec![0.0f32; rows * kv_count * d];
    let mut v = vec![0.0f32; rows * kv_count * dv];
    apply_matmuls(
        &mut [
            (&b.q_proj, &mut q[..]),
            (&b.k_proj, &mut k[..]),
            (&b.v_proj, &mut v[..]),
        ],
        rows,
        &s.a,
        exec,
    );
    if let Some(rope) = &b.rope {
        let table = b
            .rope_tables
            .get(grid, || rope_table(rope, grid, kv_count, d));
        apply_rope(&table, grid, h_count, kv_count, d, &mut q, &mut k);
    }
    let scale = 1.0 / (d as f32).sqrt();
    let group = h_count / kv_count;
    // One task per position and head, each with its own score matrix and
    // output block; the blocks are then laid side by side.
    let heads: Vec<(usize, usize)> = (0..grid.batch)
        .flat_map(|pos| (0..h_count).map(move |h| (pos, h)))
        .collect();
    let run_head = |&(pos, h): &(usize, usize)| -> (Vec<f32>, Vec<f32>) {
        let kvh = h / group;
        SCORES.with_borrow_mut(|scores| {
            // Sized, not cleared: the product below overwrites every score.
            scores.resize(points * points, 0.0);
            // scores = q_h · k_hᵀ / sqrt(d)
            gemm_strided(
                points,
                points,
                d,
                scores,
                Layout::rows(0, points),
                &q,
                Layout {
                    offset: pos * points * h_count * d + h * d,
                    row_stride: h_count * d,
                    col_stride: 1,
                },
                &k,
                Layout {
                    offset: pos * points * kv_count * d + kvh * d,
                    row_stride: 1,
                    col_stride: kv_count * d,
                },
                scale,
                false,
                1,
            );
            let mut inverse = vec![0.0f32; points];
            softmax_numerators(scores, points, &mut inverse);
            let mut out = vec![0.0f32; points * dv];
            gemm_strided(
                points,
                dv,
                points,
                &mut out,
                Layout::rows(0, dv),
                scores,
                Layout::rows(0, points),
                &v,
                Layout {
                    offset: pos * points * kv_count * dv + kvh * dv,
                    row_stride: kv_count * dv,
                    col_stride: 1,
                },
                1.0,
                false,
                1,
            );
            (out, inverse)
        })
    };
    let blocks: Vec<(Vec<f32>, Vec<f32>)> = if exec.threads > 1 {
        use rayon::prelude::*;
        heads.par_iter().map(run_head).collect()
    } else {
        heads.iter().map(run_head).collect()
    };
    let mut o = vec![0.0f32; rows * h_count * dv];
    for (&(pos, h), (block, inverse)) in heads.iter().zip(&blocks) {
        for p in 0..points {
            let dst = (pos * points + p) * h_count * dv + h * dv;
            for (o, &x) in o[dst..dst + dv]
                .iter_mut()
                .zip(&block[p * dv..(p + 1) * dv])
            {
                *o = x * inverse[p];
            }
        }
    }
    apply_matmul(&b.out_proj, rows, &o, t, true, exec);
}

/// An attention block's rotary angles as (cos, sin) by `[point][kv
/// head][pair]`, for each board size met, kept with the block: the same on
/// every evaluation of a size, and costly (a sine and cosine per entry) to
/// make again each time.
#[derive(Default)]
pub(crate) struct RopeTables(std::sync::Mutex<Vec<((usize, usize), RopeTable)>>);

/// Rotary angles as (cos, sin) by `[point][kv head][pair]`.
type RopeTable = Arc<[(f32, f32)]>;

impl RopeTables {
    /// The table for `grid`'s board size, made by `make` on first use.
    fn get(&self, grid: Grid, make: impl FnOnce() -> Vec<(f32, f32)>) -> RopeTable {
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

impl Clone for RopeTables {
    fn clone(&self) -> RopeTables {
        // Made again on the clone's first use.
        RopeTables::default()
    }
}

impl std::fmt::Debug for RopeTables {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tables = self.0.lock().unwrap_or_else(|e| e.into_inner());
        write!(f, "RopeTables({} sizes)", tables.len())
    }
}

/// The rotary angles of every point of `grid`'s board as (cos, sin), by
/// `[point][kv head][pair]`.
fn rope_table(rope: &Rope, grid: Grid, kv_heads: usize, d: usize) -> Vec<(f32, f32)> {
    let pairs = d / 2;
    let mut table = vec![(0.0f32, 0.0f32); grid.points() * kv_heads * pairs];
    for y in 0..grid.height {
        for x in 0..grid.width {
            for kvh in 0..kv_heads {
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
                    table[((y * grid.width + x) * kv_heads + kvh) * pairs + pair] =
                        (theta.cos(), theta.sin());
                }
            }
        }
    }
    table
}

/// Rotates query and key pairs by the angles of `table` (see
/// [`rope_table`]), which depend on each point's column and row.
fn apply_rope(
    table: &[(f32, f32)],
    grid: Grid,
    heads: usize,
    kv_heads: usize,
    d: usize,
    q: &mut [f32],
    k: &mut [f32],
) {
    let pairs = d / 2;
    let points = grid.points();
    let rotate = |values: &mut [f32], head_count: usize, kv_of: &dyn Fn(usize) -> usize| {
        for (row_index, row) in values.chunks_exact_mut(head_count * d).enumerate() {
            let point = row_index % points;
            for h in 0..head_count {
                let kvh = kv_of(h);
                let angles = &table[(point * kv_heads + kvh) * pairs..][..pairs];
                let head = &mut row[h * d..(h + 1) * d];
                for (pair, &(cos, sin)) in angles.iter().enumerate() {
                    let (a, b) = (head[2 * pair], head[2 * pair + 1]);
                    head[2 * pair] = a * cos - b * sin;
                    head[2 * pair + 1] = a * sin + b * cos;
                }
            }
        }
    };
    rotate(q, heads, &|h| h * kv_heads / heads);
    rotate(k, kv_heads, &|h| h);
}

/// The gated feed-forward block, added to `t`.
fn ffn(b: &FfnBlock, grid: Grid, t: &mut [f32], s: &mut Scratch, exec: Exec) {
    let rows = grid.rows();
    let width = b.linear1.out_channels;
    rms_norm_rows(&b.norm_weight, b.norm_epsilon, t, &mut s.a);
    s.b.clear();
    s.b.resize(rows * width, 0.0);
    s.c.clear();
    s.c.resize(rows * width, 0.0);
    apply_matmuls(
        &mut [(&b.linear1, &mut s.b[..]), (&b.gate, &mut s.c[..])],
        rows,
        &s.a,
        exec,
    );
    let gate = &s.c;
    kernels::for_row_blocks(&mut s.b, width, |first_row, block| {
        let gate = &gate[first_row * width..][..block.len()];
        for (x, g) in block.iter_mut().zip(gate) {
            *x = kernels::activate(crate::model::Activation::Silu, *x) * g;
        }
    });
    apply_matmul(&b.linear2, rows, &s.b, t, true, exec);
}

/// Adds `bias` to every row of `values` (rows as wide as `bias`).
fn add_to_rows(values: &mut [f32], bias: &[f32]) {
    for row in values.chunks_exact_mut(bias.len()) {
        for (v, b) in row.iter_mut().zip(bias) {
            *v += b;
        }
    }
}
