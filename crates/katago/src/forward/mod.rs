//! The forward pass of a KataGo network on the CPU, for a batch of
//! positions on one grid size, as KataGo's own CPU backend computes it.
//!
//! The grid is the board itself (as in KataGo's GTP engine, which sizes the
//! network to the board), so every point is on the board and no layer needs
//! a mask.

mod bf16;
pub mod cpu;
mod kernels;
pub mod profile;

pub use bf16::PackedCache;
pub use cpu::{Bf16Rounding, Features, Kernel, KernelCap, Precision, Unit};
pub(crate) use kernels::{apply_matmul, apply_matmuls};
pub use kernels::{
    bf16_emulation, flush_subnormals, round_to_bf16, set_bf16_emulation, Bf16Emulation, Exec,
};

use std::sync::Arc;

use kernels::{
    act_in_place, add_per_position, apply_conv, gemm_strided, norm_act, pool_mean_max, pool_value,
    rms_norm_rows, softmax_numerators, Grid, Layout,
};

use profile::{region, LayerClass};

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
    /// Attention's queries, keys, values and heads' outputs.
    q: Vec<f32>,
    k: Vec<f32>,
    v: Vec<f32>,
    o: Vec<f32>,
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
///
/// With at least as many positions as threads, each thread takes whole
/// positions, one at a time, from the inputs to the outputs: no hand-offs
/// within the pass, and one position's activations stay in the core's
/// cache. With fewer positions than threads, the threads share each layer.
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
    // Layers of fewer rows than this are too small to share: the
    // hand-offs cost more than the threads gain (9×9 at batch 1).
    const MIN_SHARED_ROWS: usize = 256;
    let exec = if batch < exec.threads && batch * width * height < MIN_SHARED_ROWS {
        Exec { threads: 1, ..exec }
    } else {
        exec
    };
    if batch < exec.threads {
        return forward_part(
            model, batch, width, height, spatial, global, optimism, exec, cancel,
        );
    }
    let points = width * height;
    assert_eq!(
        spatial.len(),
        batch * SPATIAL_INPUTS * points,
        "spatial input size"
    );
    assert_eq!(global.len(), batch * GLOBAL_INPUTS, "global input size");
    // A position at a time on each thread: its activations stay in the
    // core's own cache (on 19×19, 0.5 MB a layer).
    let one_thread = Exec { threads: 1, ..exec };
    let position = |p: usize| {
        profile::section(1, || {
            forward_part(
                model,
                1,
                width,
                height,
                &spatial[p * SPATIAL_INPUTS * points..][..SPATIAL_INPUTS * points],
                &global[p * GLOBAL_INPUTS..][..GLOBAL_INPUTS],
                optimism,
                one_thread,
                cancel,
            )
        })
    };
    let results: Vec<Option<Vec<RawOutput>>> = if exec.threads == 1 {
        (0..batch).map(position).collect()
    } else {
        use rayon::prelude::*;
        profile::handed_over(|| (0..batch).into_par_iter().map(position).collect())
    };
    let mut outputs = Vec::with_capacity(batch);
    for part in results {
        outputs.extend(part?);
    }
    Some(outputs)
}

/// [`forward_until`] of a batch on this thread, sharing each layer with
/// the other threads of `exec`.
#[allow(clippy::too_many_arguments)]
fn forward_part(
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
    let _threads = kernels::RowThreads::set(exec.threads);
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
    let stem = region(LayerClass::Convolutions);
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
    drop(stem);

    for block in &trunk.blocks {
        if !run_block(block, grid, channels, &mut t, &mut s, exec, cancel) {
            return None;
        }
    }
    if cancel() {
        return None;
    }

    // Trunk tip.
    let tip = region(LayerClass::NormAndActivation);
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
    drop(tip);

    // Policy head.
    let heads = region(LayerClass::Heads);
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
    kernels::resize_for_overwrite(&mut s.a, rows * g_channels);
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
    kernels::resize_for_overwrite(&mut s.a, rows * v1);
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
    drop(heads);

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
            let norm = region(LayerClass::NormAndActivation);
            norm_act(&b.pre_norm, b.pre_act, t, &mut s.a);
            drop(norm);
            let convolutions = region(LayerClass::Convolutions);
            let mid = b.regular_conv.out_channels;
            kernels::resize_for_overwrite(&mut s.b, rows * mid);
            apply_conv(
                &b.regular_conv,
                grid,
                &s.a,
                &mut s.b,
                false,
                &mut s.unrolled,
                exec,
            );
            drop(convolutions);
            let norm = region(LayerClass::NormAndActivation);
            norm_act(&b.mid_norm, b.mid_act, &s.b, &mut s.c);
            drop(norm);
            let _convolutions = region(LayerClass::Convolutions);
            apply_conv(&b.final_conv, grid, &s.c, t, true, &mut s.unrolled, exec);
        }
        Block::GlobalPool(b) => {
            let norm = region(LayerClass::NormAndActivation);
            norm_act(&b.pre_norm, b.pre_act, t, &mut s.a);
            drop(norm);
            let convolutions = region(LayerClass::Convolutions);
            let regular = b.regular_conv.out_channels;
            let pooled_channels = b.gpool_conv.out_channels;
            kernels::resize_for_overwrite(&mut s.b, rows * regular);
            apply_conv(
                &b.regular_conv,
                grid,
                &s.a,
                &mut s.b,
                false,
                &mut s.unrolled,
                exec,
            );
            kernels::resize_for_overwrite(&mut s.c, rows * pooled_channels);
            apply_conv(
                &b.gpool_conv,
                grid,
                &s.a,
                &mut s.c,
                false,
                &mut s.unrolled,
                exec,
            );
            drop(convolutions);
            let norm = region(LayerClass::NormAndActivation);
            norm_act(&b.gpool_norm, b.gpool_act, &s.c, &mut s.d);
            pool_mean_max(grid, pooled_channels, &s.d, &mut s.pooled);
            kernels::resize_for_overwrite(&mut s.small, grid.batch * regular);
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
            drop(norm);
            let _convolutions = region(LayerClass::Convolutions);
            apply_conv(&b.final_conv, grid, &s.c, t, true, &mut s.unrolled, exec);
        }
        Block::Nested(b) => {
            let norm = region(LayerClass::NormAndActivation);
            norm_act(&b.pre_norm, b.pre_act, t, &mut s.a);
            drop(norm);
            let convolutions = region(LayerClass::Convolutions);
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
            drop(convolutions);
            for child in &b.blocks {
                if !run_block(child, grid, inner, &mut m, s, exec, cancel) {
                    return false;
                }
            }
            let norm = region(LayerClass::NormAndActivation);
            norm_act(&b.post_norm, b.post_act, &m, &mut s.a);
            drop(norm);
            let _convolutions = region(LayerClass::Convolutions);
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
    let norm = region(LayerClass::NormAndActivation);
    rms_norm_rows(&b.norm_weight, b.norm_epsilon, t, &mut s.a);
    drop(norm);
    let projections = region(LayerClass::Projections);
    let (q, k, v, o) = (&mut s.q, &mut s.k, &mut s.v, &mut s.o);
    kernels::resize_for_overwrite(q, rows * h_count * d);
    kernels::resize_for_overwrite(k, rows * kv_count * d);
    kernels::resize_for_overwrite(v, rows * kv_count * dv);
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
    drop(projections);
    let rotation = region(LayerClass::NormAndActivation);
    if let Some(rope) = &b.rope {
        let table = b
            .rope_tables
            .get(grid, || rope_table(rope, grid, kv_count, d));
        apply_rope(&table, grid, h_count, kv_count, d, q, k);
    }
    drop(rotation);
    let (q, k, v) = (&q[..], &k[..], &v[..]);
    let scale = 1.0 / (d as f32).sqrt();
    let group = h_count / kv_count;
    // One task per position and head, each with its own score matrix and
    // output block; the blocks are then laid side by side.
    let heads: Vec<(usize, usize)> = (0..grid.batch)
        .flat_map(|pos| (0..h_count).map(move |h| (pos, h)))
        .collect();
    let q_at = |pos: usize, h: usize| pos * points * h_count * d + h * d;
    let k_at = |pos: usize, kvh: usize| pos * points * kv_count * d + kvh * d;
    let v_at = |pos: usize, kvh: usize| pos * points * kv_count * dv + kvh * dv;
    let run_head_f32 = |&(pos, h): &(usize, usize)| -> (Vec<f32>, Vec<f32>) {
        let kvh = h / group;
        SCORES.with_borrow_mut(|scores| {
            kernels::resize_for_overwrite(scores, points * points);
            // scores = q_h · k_hᵀ
            profile::task(Some(LayerClass::AttentionScores), || {
                gemm_strided(
                    points,
                    points,
                    d,
                    scores,
                    Layout::rows(0, points),
                    q,
                    Layout {
                        offset: q_at(pos, h),
                        row_stride: h_count * d,
                        col_stride: 1,
                    },
                    k,
                    Layout {
                        offset: k_at(pos, kvh),
                        row_stride: 1,
                        col_stride: kv_count * d,
                    },
                    1.0,
                    false,
                    1,
                )
            });
            let inverse = profile::task(Some(LayerClass::Softmax), || {
                let mut inverse = vec![0.0f32; points];
                softmax_numerators(scores, points, scale, &mut inverse);
                inverse
            });
            let out = profile::task(Some(LayerClass::AttentionValues), || {
                let mut out = vec![0.0f32; points * dv];
                gemm_strided(
                    points,
                    dv,
                    points,
                    &mut out,
                    Layout::rows(0, dv),
                    scores,
                    Layout::rows(0, points),
                    v,
                    Layout {
                        offset: v_at(pos, kvh),
                        row_stride: kv_count * dv,
                        col_stride: 1,
                    },
                    1.0,
                    false,
                    1,
                );
                out
            });
            (out, inverse)
        })
    };
    // On bf16 units: queries, keys, the softmax's numerators and values
    // rounded to bf16, every sum in f32, the softmax itself in f32. The
    // points are taken a block of rows at a time, each block's scores,
    // softmax and product with the values made while its scores are in
    // the cache.
    // Where the kernel splits any activations, the queries are split too:
    // the scores' rounding error, through the softmax, is most of what
    // bf16 attention costs in accuracy (`docs/performance.md`).
    let split_queries = exec.kernel.rounding != Bf16Rounding::Once;
    let run_head_bf16 = |path: bf16::Bf16Path, &(pos, h): &(usize, usize)| {
        let kvh = h / group;
        ATTENTION_BF16.with_borrow_mut(|s| {
            let AttentionBf16 {
                queries,
                keys,
                scores,
                weights,
                values,
            } = s;
            profile::task(Some(LayerClass::PackingAndLayout), || {
                queries.fill_strided(path, points, d, q, q_at(pos, h), h_count * d, split_queries);
                keys.fill_columns(path, d, points, k, k_at(pos, kvh), kv_count * d);
                values.fill_rows(points, dv, v, v_at(pos, kvh), kv_count * dv);
            });
            let mut out = vec![0.0f32; points * dv];
            let mut inverse = vec![0.0f32; points];
            kernels::resize_for_overwrite(scores, ATTENTION_ROWS * points);
            for first in (0..points).step_by(ATTENTION_ROWS) {
                let rows = ATTENTION_ROWS.min(points - first);
                let scores = &mut scores[..rows * points];
                profile::task(Some(LayerClass::AttentionScores), || {
                    bf16::product(path, queries, first, rows, keys, scores, false)
                });
                profile::task(Some(LayerClass::Softmax), || {
                    weights.reset(rows, points);
                    for (r, row) in scores.chunks_exact(points).enumerate() {
                        inverse[first + r] =
                            bf16::softmax_pairs(path, row, scale, weights.row_mut(r));
                    }
                });
                profile::task(Some(LayerClass::AttentionValues), || {
                    let out = &mut out[first * dv..(first + rows) * dv];
                    bf16::product(path, weights, 0, rows, values, out, false)
                });
            }
            (out, inverse)
        })
    };
    let bf16_path = exec.kernel.unit.bf16_path();
    let run_head = |head: &(usize, usize)| match bf16_path {
        Some(path) => run_head_bf16(path, head),
        None => run_head_f32(head),
    };
    let heads_section = region(LayerClass::AttentionScores);
    let blocks: Vec<(Vec<f32>, Vec<f32>)> = profile::scoped(|| {
        if exec.threads > 1 {
            use rayon::prelude::*;
            heads.par_iter().map(run_head).collect()
        } else {
            heads.iter().map(run_head).collect()
        }
    });
    drop(heads_section);
    let layout = region(LayerClass::PackingAndLayout);
    // The heads side by side, each row divided by its softmax's sum.
    kernels::resize_for_overwrite(o, rows * h_count * dv);
    kernels::for_row_blocks(o, h_count * dv, |first_row, block| {
        for (index, row) in block.chunks_exact_mut(h_count * dv).enumerate() {
            let (pos, p) = ((first_row + index) / points, (first_row + index) % points);
            for (h, dst) in row.chunks_exact_mut(dv).enumerate() {
                let (values, inverse) = &blocks[pos * h_count + h];
                for (o, &x) in dst.iter_mut().zip(&values[p * dv..(p + 1) * dv]) {
                    *o = x * inverse[p];
                }
            }
        }
    });
    drop(layout);
    let _projections = region(LayerClass::Projections);
    // Into the residual stream: rounded as a convolution's input is.
    apply_matmul(&b.out_proj, rows, o, t, true, exec.for_residual());
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
    let points = grid.points();
    // Heads that share a key and value head.
    let group = heads / kv_heads;
    let rotate = |values: &mut [f32], head_count: usize, group: usize| {
        kernels::for_row_blocks(values, head_count * d, |first_row, block| {
            rotate_rows(
                table, points, kv_heads, d, head_count, group, first_row, block,
            )
        });
    };
    rotate(q, heads, group);
    rotate(k, kv_heads, 1);
}

/// [`apply_rope`] of a block of rows of queries or keys, the first being
/// row `first_row` of the batch; heads `group` at a time share a kv head.
#[allow(clippy::too_many_arguments)]
fn rotate_rows(
    table: &[(f32, f32)],
    points: usize,
    kv_heads: usize,
    d: usize,
    head_count: usize,
    group: usize,
    first_row: usize,
    block: &mut [f32],
) {
    let pairs = d / 2;
    {
        for (row_index, row) in block.chunks_exact_mut(head_count * d).enumerate() {
            let point = (first_row + row_index) % points;
            for h in 0..head_count {
                let kvh = h / group;
                let angles = &table[(point * kv_heads + kvh) * pairs..][..pairs];
                let head = &mut row[h * d..(h + 1) * d];
                for (pair, &(cos, sin)) in angles.iter().enumerate() {
                    let (a, b) = (head[2 * pair], head[2 * pair + 1]);
                    head[2 * pair] = a * cos - b * sin;
                    head[2 * pair + 1] = a * sin + b * cos;
                }
            }
        }
    }
}

/// The gated feed-forward block, added to `t`.
fn ffn(b: &FfnBlock, grid: Grid, t: &mut [f32], s: &mut Scratch, exec: Exec) {
    let rows = grid.rows();
    let width = b.linear1.out_channels;
    let norm = region(LayerClass::NormAndActivation);
    rms_norm_rows(&b.norm_weight, b.norm_epsilon, t, &mut s.a);
    drop(norm);
    let products = region(LayerClass::FeedForward);
    kernels::resize_for_overwrite(&mut s.b, rows * width);
    kernels::resize_for_overwrite(&mut s.c, rows * width);
    apply_matmuls(
        &mut [(&b.linear1, &mut s.b[..]), (&b.gate, &mut s.c[..])],
        rows,
        &s.a,
        exec,
    );
    drop(products);
    let gating = region(LayerClass::NormAndActivation);
    let gate = &s.c;
    kernels::for_row_blocks(&mut s.b, width, |first_row, block| {
        kernels::silu_gate(block, &gate[first_row * width..][..block.len()]);
    });
    drop(gating);
    let _products = region(LayerClass::FeedForward);
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
