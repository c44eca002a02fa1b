//! The forward pass of a KataGo network on the CPU, for a batch of
//! positions on one grid size, as KataGo's own CPU backend computes it.
//!
//! The grid is the board itself (as in KataGo's GTP engine, which sizes the
//! network to the board), so every point is on the board and no layer needs
//! a mask.

#[cfg(target_arch = "x86_64")]
mod amx_tiles;
mod attention;
mod bf16;
pub mod cpu;
mod elementwise;
mod int16;
mod int8;
mod integer;
mod kernels;
pub mod profile;
mod wide_f32;
mod words;

pub use cpu::{Bf16Rounding, Features, Int16Unit, Int8Unit, Kernel, KernelCap, Precision, Unit};
pub(crate) use kernels::{apply_matmul, apply_matmul_of_rows, apply_matmuls};
pub use kernels::{flush_subnormals, round_to_bf16, Exec};

use elementwise::{
    act_in_place, add_per_position, norm_act, pool_mean_max, pool_value, NormActRows,
};
use kernels::{apply_conv, apply_conv_of_rows, Grid};

use profile::{region, LayerClass};

use crate::model::{
    Activation, Block, Conv, FfnBlock, GlobalPoolBlock, ModelDesc, NestedBlock, Norm,
    OrdinaryBlock, PolicyHead, TipNorm, Trunk, ValueHead, GLOBAL_INPUTS, SPATIAL_INPUTS,
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
    /// Each attention head's values and the inverses of its sums.
    head_outs: Vec<attention::HeadOut>,
    unrolled: Vec<f32>,
    /// The inner stream of a nested-bottleneck block.
    nested: Vec<f32>,
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
    let _threads = elementwise::RowThreads::set(exec.threads);
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
    // This thread's buffers of its last pass, sized and written again
    // (none of them is read before it is written): fresh ones would be
    // mapped and zeroed by the system, page by page, on every pass. A pass
    // started on this thread while it waits inside another (a task taken
    // over by rayon) finds none and makes its own.
    let mut s = SCRATCH.take();
    let Some(trunk_out) = trunk(&model.trunk, grid, spatial, global, &mut s, exec, cancel) else {
        SCRATCH.set(s);
        return None;
    };
    let heads = region(LayerClass::Heads);
    let policy = policy_head(&model.policy, grid, &trunk_out, &mut s, exec);
    let value = value_head(&model.value, grid, &trunk_out, &mut s, exec);
    drop(heads);
    SCRATCH.set(s);
    Some(raw_outputs(&model.value, grid, optimism, &policy, &value))
}

thread_local! {
    /// The buffers of the passes this thread drives, kept between passes.
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// The trunk's output for the inputs: the stem, every block, then the
/// tip's normalisation and activation; `None` when `cancel` stopped it.
fn trunk(
    trunk: &Trunk,
    grid: Grid,
    spatial: &[f32],
    global: &[f32],
    s: &mut Scratch,
    exec: Exec,
    cancel: &(dyn Fn() -> bool + Sync),
) -> Option<Vec<f32>> {
    let mut t = stem(trunk, grid, spatial, global, s, exec);
    for block in &trunk.blocks {
        if !run_block(block, grid, trunk.channels, &mut t, s, exec, cancel) {
            return None;
        }
    }
    if cancel() {
        return None;
    }
    let tip = region(LayerClass::NormAndActivation);
    let mut trunk_out = Vec::with_capacity(t.len());
    trunk_tip(trunk, grid, &t, &mut trunk_out);
    drop(t);
    drop(tip);
    Some(trunk_out)
}

/// The residual stream's first rows: the initial convolution of the input
/// planes plus the initial product of the global inputs.
fn stem(
    trunk: &Trunk,
    grid: Grid,
    spatial: &[f32],
    global: &[f32],
    s: &mut Scratch,
    exec: Exec,
) -> Vec<f32> {
    let channels = trunk.channels;
    let input = planes_to_rows(grid, spatial);
    let stem = region(LayerClass::Convolutions);
    let mut t = vec![0.0f32; grid.rows() * channels];
    apply_conv(
        &trunk.initial_conv,
        grid,
        &input,
        &mut t,
        false,
        &mut s.unrolled,
        exec,
    );
    let mut global_bias = vec![0.0f32; grid.batch * channels];
    apply_matmul(
        &trunk.initial_matmul,
        grid.batch,
        global,
        &mut global_bias,
        false,
        Exec::f32(1),
    );
    add_per_position(grid, channels, &global_bias, &mut t);
    drop(stem);
    t
}

/// The spatial inputs, given as planes, as one row of features per point.
fn planes_to_rows(grid: Grid, spatial: &[f32]) -> Vec<f32> {
    let points = grid.points();
    let mut input = vec![0.0f32; grid.rows() * SPATIAL_INPUTS];
    for b in 0..grid.batch {
        for f in 0..SPATIAL_INPUTS {
            let plane = &spatial[(b * SPATIAL_INPUTS + f) * points..][..points];
            for (p, &v) in plane.iter().enumerate() {
                input[(b * points + p) * SPATIAL_INPUTS + f] = v;
            }
        }
    }
    input
}

/// The trunk tip's normalisation and activation of `t` into `trunk_out`.
fn trunk_tip(trunk: &Trunk, grid: Grid, t: &[f32], trunk_out: &mut Vec<f32>) {
    let channels = trunk.channels;
    match &trunk.tip_norm {
        TipNorm::Batch(norm) => norm_act(norm, trunk.tip_act, t, trunk_out),
        TipNorm::Rms {
            epsilon,
            spatial,
            gamma,
            beta,
        } => {
            elementwise::resize_for_overwrite(trunk_out, t.len());
            let sample = grid.points() * channels;
            for (part, dst) in t
                .chunks_exact(sample)
                .zip(trunk_out.chunks_exact_mut(sample))
            {
                elementwise::rms_tip_position(
                    trunk.tip_act,
                    *epsilon,
                    *spatial,
                    gamma,
                    beta,
                    part,
                    dst,
                );
            }
        }
    }
}

/// What the policy head computed for a batch, `channels` values a row.
struct PolicyOut {
    /// A row per point.
    logits: Vec<f32>,
    /// A row per position.
    pass: Vec<f32>,
    /// The policy outputs per row (1, 2 or 4; the second the optimistic
    /// policy).
    channels: usize,
}

/// The policy head: move logits from the trunk's output, biased by its
/// pooled features, and the pass logits from those pooled features.
fn policy_head(
    policy: &PolicyHead,
    grid: Grid,
    trunk_out: &[f32],
    s: &mut Scratch,
    exec: Exec,
) -> PolicyOut {
    let rows = grid.rows();
    let batch = grid.batch;
    let p_channels = policy.p1_conv.out_channels;
    let g_channels = policy.g1_conv.out_channels;
    let mut p = vec![0.0f32; rows * p_channels];
    apply_conv(
        &policy.p1_conv,
        grid,
        trunk_out,
        &mut p,
        false,
        &mut s.unrolled,
        exec,
    );
    elementwise::resize_for_overwrite(&mut s.a, rows * g_channels);
    apply_conv(
        &policy.g1_conv,
        grid,
        trunk_out,
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
    let pass = pass_logits(policy, batch, &s.pooled);
    PolicyOut {
        logits,
        pass,
        channels: out_channels,
    }
}

/// The pass logits of a batch from the policy head's pooled features,
/// through the hidden layer where the model has one.
fn pass_logits(policy: &PolicyHead, batch: usize, pooled: &[f32]) -> Vec<f32> {
    let mut pass = vec![0.0f32; batch * policy.out_channels];
    match &policy.pass_hidden {
        Some((bias, act, mul)) => {
            let hidden = bias.bias.len();
            let mut h = vec![0.0f32; batch * hidden];
            apply_matmul(
                &policy.gpool_to_pass,
                batch,
                pooled,
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
            pooled,
            &mut pass,
            false,
            Exec::f32(1),
        ),
    }
    pass
}

/// What the value head computed for a batch, before the final biases.
struct ValueOut {
    /// Win, loss and no-result, three a position.
    values: Vec<f32>,
    /// `score_count` score outputs a position.
    scores: Vec<f32>,
    /// The score outputs the model has (4 or 6).
    score_count: usize,
    /// One per point.
    ownership: Vec<f32>,
}

/// The value head: value and score from the pooled value features,
/// ownership from the features of each point.
fn value_head(
    value: &ValueHead,
    grid: Grid,
    trunk_out: &[f32],
    s: &mut Scratch,
    exec: Exec,
) -> ValueOut {
    let rows = grid.rows();
    let batch = grid.batch;
    let v1 = value.v1_conv.out_channels;
    elementwise::resize_for_overwrite(&mut s.a, rows * v1);
    apply_conv(
        &value.v1_conv,
        grid,
        trunk_out,
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
    ValueOut {
        values,
        scores,
        score_count,
        ownership,
    }
}

/// Each position's [`RawOutput`]: the optimistic policy mixed in by
/// `optimism`, the value head's final biases added.
fn raw_outputs(
    value: &ValueHead,
    grid: Grid,
    optimism: f32,
    policy: &PolicyOut,
    heads: &ValueOut,
) -> Vec<RawOutput> {
    let points = grid.points();
    let out_channels = policy.channels;
    let score_count = heads.score_count;
    (0..grid.batch)
        .map(|b| {
            let mix = |normal: f32, optimistic: f32| normal + (optimistic - normal) * optimism;
            let mut policy_out = Vec::with_capacity(points + 1);
            for pt in 0..points {
                let row = &policy.logits[(b * points + pt) * out_channels..][..out_channels];
                policy_out.push(if out_channels >= 2 {
                    mix(row[0], row[1])
                } else {
                    row[0]
                });
            }
            let pass_row = &policy.pass[b * out_channels..][..out_channels];
            policy_out.push(if out_channels >= 2 {
                mix(pass_row[0], pass_row[1])
            } else {
                pass_row[0]
            });
            let mut score = [0.0f32; 6];
            for (i, v) in heads.scores[b * score_count..(b + 1) * score_count]
                .iter()
                .enumerate()
            {
                score[i] = *v;
            }
            let mut value_logits = [0.0f32; 3];
            for (i, v) in value_logits.iter_mut().enumerate() {
                *v = heads.values[b * 3 + i] + value.v3_bias.bias[i];
            }
            for (i, v) in score.iter_mut().take(score_count).enumerate() {
                *v += value.sv3_bias.bias[i];
            }
            RawOutput {
                policy: policy_out,
                value: value_logits,
                score,
                ownership: heads.ownership[b * points..(b + 1) * points].to_vec(),
            }
        })
        .collect()
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
    match block {
        Block::Ordinary(b) => ordinary_block(b, grid, t, s, exec),
        Block::GlobalPool(b) => gpool_block(b, grid, t, s, exec),
        Block::Nested(b) => return nested_block(b, grid, t, s, exec, cancel),
        Block::Attention(b) => attention::attention(b, grid, channels, t, s, exec),
        Block::Ffn(b) => ffn(b, grid, t, s, exec),
    }
    true
}

/// The ordinary residual block (two convolutions), added to `t`.
fn ordinary_block(b: &OrdinaryBlock, grid: Grid, t: &mut [f32], s: &mut Scratch, exec: Exec) {
    block_start(&b.pre_norm, b.pre_act, &b.regular_conv, grid, t, s, exec);
    block_end(&b.mid_norm, b.mid_act, &b.final_conv, grid, t, s, exec);
}

/// The start every residual block shares: `t` normalised and activated
/// into `s.a`, and its regular convolution of that into `s.b`.
fn block_start(
    norm: &Norm,
    act: Activation,
    conv: &Conv,
    grid: Grid,
    t: &[f32],
    s: &mut Scratch,
    exec: Exec,
) {
    let region_norm = region(LayerClass::NormAndActivation);
    norm_act(norm, act, t, &mut s.a);
    drop(region_norm);
    let _convolutions = region(LayerClass::Convolutions);
    elementwise::resize_for_overwrite(&mut s.b, grid.rows() * conv.out_channels);
    apply_conv(conv, grid, &s.a, &mut s.b, false, &mut s.unrolled, exec);
}

/// The end every residual block shares: `s.b` normalised and activated
/// into `s.c`, and its final convolution added to `t`.
fn block_end(
    norm: &Norm,
    act: Activation,
    conv: &Conv,
    grid: Grid,
    t: &mut [f32],
    s: &mut Scratch,
    exec: Exec,
) {
    let region_norm = region(LayerClass::NormAndActivation);
    norm_act(norm, act, &s.b, &mut s.c);
    drop(region_norm);
    let _convolutions = region(LayerClass::Convolutions);
    apply_conv(conv, grid, &s.c, t, true, &mut s.unrolled, exec);
}

/// The residual block whose middle is biased by globally pooled features,
/// added to `t`.
fn gpool_block(b: &GlobalPoolBlock, grid: Grid, t: &mut [f32], s: &mut Scratch, exec: Exec) {
    let rows = grid.rows();
    block_start(&b.pre_norm, b.pre_act, &b.regular_conv, grid, t, s, exec);
    let convolutions = region(LayerClass::Convolutions);
    let regular = b.regular_conv.out_channels;
    let pooled_channels = b.gpool_conv.out_channels;
    elementwise::resize_for_overwrite(&mut s.c, rows * pooled_channels);
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
    elementwise::resize_for_overwrite(&mut s.small, grid.batch * regular);
    apply_matmul(
        &b.gpool_to_bias,
        grid.batch,
        &s.pooled,
        &mut s.small,
        false,
        Exec::f32(1),
    );
    add_per_position(grid, regular, &s.small, &mut s.b);
    drop(norm);
    block_end(&b.mid_norm, b.mid_act, &b.final_conv, grid, t, s, exec);
}

/// The nested-bottleneck block (its inner blocks between two
/// convolutions), added to `t`; `false` when `cancel` stopped an inner
/// block.
fn nested_block(
    b: &NestedBlock,
    grid: Grid,
    t: &mut [f32],
    s: &mut Scratch,
    exec: Exec,
    cancel: &(dyn Fn() -> bool + Sync),
) -> bool {
    let rows = grid.rows();
    let convolutions = region(LayerClass::Convolutions);
    let inner = b.pre_conv.out_channels;
    // Taken, so that the inner blocks have the scratch buffers to
    // themselves (a nested block inside would make its own).
    let mut m = std::mem::take(&mut s.nested);
    elementwise::resize_for_overwrite(&mut m, rows * inner);
    let normed = NormActRows {
        norm: &b.pre_norm,
        act: b.pre_act,
        input: t,
    };
    let (made, unrolled) = (&mut s.a, &mut s.unrolled);
    apply_conv_of_rows(
        &b.pre_conv,
        grid,
        &normed,
        made,
        &mut m,
        false,
        unrolled,
        exec,
    );
    drop(convolutions);
    for child in &b.blocks {
        if !run_block(child, grid, inner, &mut m, s, exec, cancel) {
            s.nested = m;
            return false;
        }
    }
    let _convolutions = region(LayerClass::Convolutions);
    let normed = NormActRows {
        norm: &b.post_norm,
        act: b.post_act,
        input: &m,
    };
    let (made, unrolled) = (&mut s.a, &mut s.unrolled);
    apply_conv_of_rows(&b.post_conv, grid, &normed, made, t, true, unrolled, exec);
    s.nested = m;
    true
}

/// The gated feed-forward block, added to `t`.
fn ffn(b: &FfnBlock, grid: Grid, t: &mut [f32], s: &mut Scratch, exec: Exec) {
    let rows = grid.rows();
    let width = b.linear1.out_channels;
    let products = region(LayerClass::FeedForward);
    elementwise::resize_for_overwrite(&mut s.b, rows * width);
    elementwise::resize_for_overwrite(&mut s.c, rows * width);
    let normed = elementwise::RmsRows {
        weight: &b.norm_weight,
        epsilon: b.norm_epsilon,
        input: t,
    };
    apply_matmuls(
        &mut [(&b.linear1, &mut s.b[..]), (&b.gate, &mut s.c[..])],
        rows,
        &normed,
        &mut s.a,
        exec,
    );
    drop(products);
    let _products = region(LayerClass::FeedForward);
    let hidden = bf16::GatedRows {
        values: &s.b,
        gate: &s.c,
    };
    let made_as = LayerClass::NormAndActivation;
    apply_matmul_of_rows(&b.linear2, rows, &hidden, made_as, &mut s.a, t, true, exec);
}

/// Adds `bias` to every row of `values` (rows as wide as `bias`).
fn add_to_rows(values: &mut [f32], bias: &[f32]) {
    for row in values.chunks_exact_mut(bias.len()) {
        for (v, b) in row.iter_mut().zip(bias) {
            *v += b;
        }
    }
}
