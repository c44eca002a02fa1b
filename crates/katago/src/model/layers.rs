//! The layer records of a KataGo model and how each is read.
//!
//! Normalisation records are folded at load time into one scale and one
//! bias per channel, as KataGo does, so the forward pass applies
//! `x * scale + bias`.

use super::reader::Reader;
use super::FormatError;
use crate::forward::{PackedCache, RopeTables};

/// The most channels any layer may declare (public networks use at most 768).
const MAX_CHANNELS: usize = 16384;
/// The largest convolution kernel side accepted.
const MAX_KERNEL: usize = 9;
/// How deeply nested-bottleneck blocks may nest.
const MAX_NESTING: usize = 8;
/// The most blocks one stack may hold.
const MAX_BLOCKS: usize = 1024;

/// An activation function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// `x`.
    Identity,
    /// `max(x, 0)`.
    Relu,
    /// `x * tanh(softplus(x))`.
    Mish,
    /// `x * sigmoid(x)`.
    Silu,
}

/// A "same" convolution without bias; weights `[y][x][in][out]`.
#[derive(Clone, Debug)]
pub struct Conv {
    /// Layer name.
    pub name: String,
    /// Kernel height.
    pub kernel_y: usize,
    /// Kernel width.
    pub kernel_x: usize,
    /// Input channels.
    pub in_channels: usize,
    /// Output channels.
    pub out_channels: usize,
    /// Weights, output channel fastest.
    pub weights: Vec<f32>,
    /// The weights packed for bf16 units, on first use.
    pub(crate) packed: PackedCache,
}

/// A normalisation folded to `x * scale + bias` per channel.
#[derive(Clone, Debug)]
pub struct Norm {
    /// Layer name.
    pub name: String,
    /// Multiplier per channel.
    pub scale: Vec<f32>,
    /// Offset per channel.
    pub bias: Vec<f32>,
}

/// A matrix product without bias; weights `[in][out]`.
#[derive(Clone, Debug)]
pub struct MatMul {
    /// Layer name.
    pub name: String,
    /// Input width.
    pub in_channels: usize,
    /// Output width.
    pub out_channels: usize,
    /// Weights, output fastest.
    pub weights: Vec<f32>,
    /// The weights packed for bf16 units, on first use.
    pub(crate) packed: PackedCache,
}

/// A bias added to a vector.
#[derive(Clone, Debug)]
pub struct MatBias {
    /// Layer name.
    pub name: String,
    /// The values added.
    pub bias: Vec<f32>,
}

/// The normalisation at the end of the trunk.
#[derive(Clone, Debug)]
pub enum TipNorm {
    /// A folded batch norm.
    Batch(Norm),
    /// Root-mean-square normalisation then `gamma`/`beta` per channel.
    Rms {
        /// Added under the square root.
        epsilon: f32,
        /// One mean over the whole board and all channels (true) or one
        /// per point (false).
        spatial: bool,
        /// Multiplier per channel.
        gamma: Vec<f32>,
        /// Offset per channel.
        beta: Vec<f32>,
    },
}

/// Rotary position encoding of an attention block.
#[derive(Clone, Debug)]
pub enum Rope {
    /// Learned frequencies `[kv head][pair][column, row]`.
    Learned(Vec<f32>),
    /// Fixed frequencies from one base.
    Fixed(f32),
}

/// A residual block of two convolutions.
#[derive(Clone, Debug)]
pub struct OrdinaryBlock {
    /// Norm before the first convolution.
    pub pre_norm: Norm,
    /// Its activation.
    pub pre_act: Activation,
    /// First convolution.
    pub regular_conv: Conv,
    /// Norm between the convolutions.
    pub mid_norm: Norm,
    /// Its activation.
    pub mid_act: Activation,
    /// Second convolution, back to the trunk's width.
    pub final_conv: Conv,
}

/// A residual block whose middle gets a bias from globally pooled channels.
#[derive(Clone, Debug)]
pub struct GlobalPoolBlock {
    /// Norm before the convolutions.
    pub pre_norm: Norm,
    /// Its activation.
    pub pre_act: Activation,
    /// The regular path's convolution.
    pub regular_conv: Conv,
    /// The pooled path's convolution.
    pub gpool_conv: Conv,
    /// Norm of the pooled path.
    pub gpool_norm: Norm,
    /// Its activation.
    pub gpool_act: Activation,
    /// Pooled features to a bias on the regular path.
    pub gpool_to_bias: MatMul,
    /// Norm of the regular path.
    pub mid_norm: Norm,
    /// Its activation.
    pub mid_act: Activation,
    /// Back to the trunk's width.
    pub final_conv: Conv,
}

/// A bottleneck around a stack of inner blocks.
#[derive(Clone, Debug)]
pub struct NestedBlock {
    /// Norm before narrowing.
    pub pre_norm: Norm,
    /// Its activation.
    pub pre_act: Activation,
    /// Narrowing convolution.
    pub pre_conv: Conv,
    /// The inner blocks, each residual at the narrow width.
    pub blocks: Vec<Block>,
    /// Norm after the inner blocks.
    pub post_norm: Norm,
    /// Its activation.
    pub post_act: Activation,
    /// Widening convolution.
    pub post_conv: Conv,
}

/// Multi-head self-attention over the board's points.
#[derive(Clone, Debug)]
pub struct AttentionBlock {
    /// RMS norm weights (no bias).
    pub norm_weight: Vec<f32>,
    /// The norm's epsilon.
    pub norm_epsilon: f32,
    /// Query heads.
    pub heads: usize,
    /// Key/value heads (grouped-query attention when fewer than `heads`).
    pub kv_heads: usize,
    /// Width of a query/key head.
    pub q_head_dim: usize,
    /// Width of a value head.
    pub v_head_dim: usize,
    /// Queries.
    pub q_proj: MatMul,
    /// Keys.
    pub k_proj: MatMul,
    /// Values.
    pub v_proj: MatMul,
    /// Heads back to the block's width.
    pub out_proj: MatMul,
    /// Rotary position encoding, if any.
    pub rope: Option<Rope>,
    /// The rotary angles by board size, computed on first use.
    pub(crate) rope_tables: RopeTables,
}

/// A gated (SwiGLU) feed-forward block.
#[derive(Clone, Debug)]
pub struct FfnBlock {
    /// RMS norm weights (no bias).
    pub norm_weight: Vec<f32>,
    /// The norm's epsilon.
    pub norm_epsilon: f32,
    /// Up projection (through SiLU).
    pub linear1: MatMul,
    /// Gate projection.
    pub gate: MatMul,
    /// Down projection.
    pub linear2: MatMul,
}

/// One block of the trunk.
#[derive(Clone, Debug)]
pub enum Block {
    /// Two convolutions.
    Ordinary(OrdinaryBlock),
    /// Two convolutions with global pooling.
    GlobalPool(GlobalPoolBlock),
    /// A bottleneck around inner blocks.
    Nested(NestedBlock),
    /// Self-attention.
    Attention(AttentionBlock),
    /// Feed-forward.
    Ffn(FfnBlock),
}

/// The trunk: input layers, blocks, and the final norm.
#[derive(Clone, Debug)]
pub struct Trunk {
    /// The trunk's width.
    pub channels: usize,
    /// Spatial inputs to the trunk.
    pub initial_conv: Conv,
    /// Global inputs, broadcast over the board.
    pub initial_matmul: MatMul,
    /// The blocks, in order.
    pub blocks: Vec<Block>,
    /// The final normalisation.
    pub tip_norm: TipNorm,
    /// The final activation.
    pub tip_act: Activation,
}

/// The policy head.
#[derive(Clone, Debug)]
pub struct PolicyHead {
    /// Trunk to policy features.
    pub p1_conv: Conv,
    /// Trunk to pooled features.
    pub g1_conv: Conv,
    /// Norm of the pooled features.
    pub g1_norm: Norm,
    /// Its activation.
    pub g1_act: Activation,
    /// Pooled features to a bias on the policy features.
    pub gpool_to_bias: MatMul,
    /// Norm of the policy features.
    pub p1_norm: Norm,
    /// Its activation.
    pub p1_act: Activation,
    /// Policy features to move logits (one channel per policy output).
    pub p2_conv: Conv,
    /// Pooled features to the pass logit (or to a hidden layer from version 15).
    pub gpool_to_pass: MatMul,
    /// The pass hidden layer's bias and activation (version 15 on).
    pub pass_hidden: Option<(MatBias, Activation, MatMul)>,
    /// The number of policy outputs (1, 2 or 4).
    pub out_channels: usize,
}

/// The value head: win/loss/no result, scores, ownership.
#[derive(Clone, Debug)]
pub struct ValueHead {
    /// Trunk to value features.
    pub v1_conv: Conv,
    /// Their norm.
    pub v1_norm: Norm,
    /// Its activation.
    pub v1_act: Activation,
    /// Pooled value features to the hidden layer.
    pub v2_mul: MatMul,
    /// Its bias.
    pub v2_bias: MatBias,
    /// Its activation.
    pub v2_act: Activation,
    /// Hidden layer to win/loss/no-result logits.
    pub v3_mul: MatMul,
    /// Their bias.
    pub v3_bias: MatBias,
    /// Hidden layer to the score outputs.
    pub sv3_mul: MatMul,
    /// Their bias.
    pub sv3_bias: MatBias,
    /// Value features to ownership per point.
    pub ownership_conv: Conv,
}

impl Conv {
    fn parameter_count(&self) -> usize {
        self.weights.len()
    }
}

impl Block {
    fn parameter_count(&self) -> usize {
        match self {
            Block::Ordinary(b) => {
                b.pre_norm.scale.len() * 2
                    + b.regular_conv.parameter_count()
                    + b.mid_norm.scale.len() * 2
                    + b.final_conv.parameter_count()
            }
            Block::GlobalPool(b) => {
                b.pre_norm.scale.len() * 2
                    + b.regular_conv.parameter_count()
                    + b.gpool_conv.parameter_count()
                    + b.gpool_norm.scale.len() * 2
                    + b.gpool_to_bias.weights.len()
                    + b.mid_norm.scale.len() * 2
                    + b.final_conv.parameter_count()
            }
            Block::Nested(b) => {
                b.pre_norm.scale.len() * 2
                    + b.pre_conv.parameter_count()
                    + b.blocks.iter().map(Block::parameter_count).sum::<usize>()
                    + b.post_norm.scale.len() * 2
                    + b.post_conv.parameter_count()
            }
            Block::Attention(b) => {
                b.norm_weight.len()
                    + b.q_proj.weights.len()
                    + b.k_proj.weights.len()
                    + b.v_proj.weights.len()
                    + b.out_proj.weights.len()
                    + match &b.rope {
                        Some(Rope::Learned(freqs)) => freqs.len(),
                        _ => 0,
                    }
            }
            Block::Ffn(b) => {
                b.norm_weight.len()
                    + b.linear1.weights.len()
                    + b.gate.weights.len()
                    + b.linear2.weights.len()
            }
        }
    }
}

impl Trunk {
    pub(crate) fn parameter_count(&self) -> usize {
        self.initial_conv.parameter_count()
            + self.initial_matmul.weights.len()
            + self
                .blocks
                .iter()
                .map(Block::parameter_count)
                .sum::<usize>()
            + match &self.tip_norm {
                TipNorm::Batch(norm) => norm.scale.len() * 2,
                TipNorm::Rms { gamma, beta, .. } => gamma.len() + beta.len(),
            }
    }
}

impl PolicyHead {
    pub(crate) fn parameter_count(&self) -> usize {
        self.p1_conv.parameter_count()
            + self.g1_conv.parameter_count()
            + self.g1_norm.scale.len() * 2
            + self.gpool_to_bias.weights.len()
            + self.p1_norm.scale.len() * 2
            + self.p2_conv.parameter_count()
            + self.gpool_to_pass.weights.len()
            + self
                .pass_hidden
                .as_ref()
                .map_or(0, |(bias, _, mul)| bias.bias.len() + mul.weights.len())
    }
}

impl ValueHead {
    pub(crate) fn parameter_count(&self) -> usize {
        self.v1_conv.parameter_count()
            + self.v1_norm.scale.len() * 2
            + self.v2_mul.weights.len()
            + self.v2_bias.bias.len()
            + self.v3_mul.weights.len()
            + self.v3_bias.bias.len()
            + self.sv3_mul.weights.len()
            + self.sv3_bias.bias.len()
            + self.ownership_conv.parameter_count()
    }
}

fn read_conv(r: &mut Reader<'_>) -> Result<Conv, FormatError> {
    let name = r.name("a convolution's name")?;
    r.set_layer(&name);
    let kernel_y = r.count("the kernel height", MAX_KERNEL)?;
    let kernel_x = r.count("the kernel width", MAX_KERNEL)?;
    let in_channels = r.count("the input channels", MAX_CHANNELS)?;
    let out_channels = r.count("the output channels", MAX_CHANNELS)?;
    let dilation_y = r.int("the vertical dilation")?;
    let dilation_x = r.int("the horizontal dilation")?;
    if kernel_y % 2 == 0 || kernel_x % 2 == 0 {
        return Err(r.error(format!(
            "kernel {kernel_y}x{kernel_x}: only odd kernel sizes are supported"
        )));
    }
    if dilation_y != 1 || dilation_x != 1 {
        return Err(r.error(format!(
            "dilation {dilation_y}x{dilation_x}: only dilation 1 is supported"
        )));
    }
    let weights = r.floats(
        kernel_y * kernel_x * in_channels * out_channels,
        "the weights",
    )?;
    Ok(Conv {
        name,
        kernel_y,
        kernel_x,
        in_channels,
        out_channels,
        weights,
        packed: PackedCache::default(),
    })
}

/// A layer's channel count, which must be `channels`.
fn read_channels(r: &mut Reader<'_>, channels: usize) -> Result<usize, FormatError> {
    let count = r.count("the channels", MAX_CHANNELS)?;
    if count != channels {
        return Err(r.error(format!("{count} channels where {channels} were expected")));
    }
    Ok(count)
}

fn read_norm(r: &mut Reader<'_>, channels: usize) -> Result<Norm, FormatError> {
    let name = r.name("a norm's name")?;
    r.set_layer(&name);
    let count = read_channels(r, channels)?;
    let epsilon = r.float("epsilon")?;
    let has_scale = r.flag("hasScale")?;
    let has_bias = r.flag("hasBias")?;
    let mean = r.floats(count, "the means")?;
    let variance = r.floats(count, "the variances")?;
    let scale = if has_scale {
        r.floats(count, "the scales")?
    } else {
        vec![1.0; count]
    };
    let bias = if has_bias {
        r.floats(count, "the biases")?
    } else {
        vec![0.0; count]
    };
    let mut merged_scale = Vec::with_capacity(count);
    let mut merged_bias = Vec::with_capacity(count);
    for c in 0..count {
        let s = scale[c] / (variance[c] + epsilon).sqrt();
        if !s.is_finite() {
            return Err(r.error(format!("channel {c}: the variance gives no finite scale")));
        }
        merged_scale.push(s);
        merged_bias.push(bias[c] - s * mean[c]);
    }
    Ok(Norm {
        name,
        scale: merged_scale,
        bias: merged_bias,
    })
}

fn read_activation(r: &mut Reader<'_>, version: i64) -> Result<Activation, FormatError> {
    let name = r.name("an activation's name")?;
    r.set_layer(&name);
    if version < 11 {
        return Ok(Activation::Relu);
    }
    match r.token("the activation kind")? {
        "ACTIVATION_IDENTITY" => Ok(Activation::Identity),
        "ACTIVATION_RELU" => Ok(Activation::Relu),
        "ACTIVATION_MISH" => Ok(Activation::Mish),
        "ACTIVATION_SILU" => Ok(Activation::Silu),
        other => Err(r.error(format!(
            "unknown activation {:?}",
            other.chars().take(40).collect::<String>()
        ))),
    }
}

fn read_matmul(r: &mut Reader<'_>, in_channels: usize) -> Result<MatMul, FormatError> {
    let name = r.name("a matrix's name")?;
    r.set_layer(&name);
    let inputs = r.count("the input width", MAX_CHANNELS)?;
    if inputs != in_channels {
        return Err(r.error(format!(
            "input width {inputs} where {in_channels} was expected"
        )));
    }
    let out_channels = r.count("the output width", MAX_CHANNELS)?;
    let weights = r.floats(inputs * out_channels, "the weights")?;
    Ok(MatMul {
        name,
        in_channels,
        out_channels,
        weights,
        packed: PackedCache::default(),
    })
}

fn read_matbias(r: &mut Reader<'_>, channels: usize) -> Result<MatBias, FormatError> {
    let name = r.name("a bias's name")?;
    r.set_layer(&name);
    let count = r.count("the width", MAX_CHANNELS)?;
    if count != channels {
        return Err(r.error(format!("width {count} where {channels} was expected")));
    }
    let bias = r.floats(count, "the biases")?;
    Ok(MatBias { name, bias })
}

/// A convolution whose input width must be `in_channels`.
fn read_conv_from(r: &mut Reader<'_>, in_channels: usize) -> Result<Conv, FormatError> {
    let conv = read_conv(r)?;
    if conv.in_channels != in_channels {
        return Err(r.error(format!(
            "input channels {} where {in_channels} were expected",
            conv.in_channels
        )));
    }
    Ok(conv)
}

/// A transformer block's RMS norm: weights and epsilon.
fn read_transformer_norm(
    r: &mut Reader<'_>,
    channels: usize,
) -> Result<(Vec<f32>, f32), FormatError> {
    let name = r.name("a norm's name")?;
    r.set_layer(&name);
    let count = read_channels(r, channels)?;
    let epsilon = r.float("epsilon")?;
    if !(epsilon > 0.0 && epsilon <= 1.0) {
        return Err(r.error(format!("epsilon {epsilon} is outside (0, 1]")));
    }
    Ok((r.floats(count, "the weights")?, epsilon))
}

fn read_blocks(
    r: &mut Reader<'_>,
    version: i64,
    channels: usize,
    count: usize,
    depth: usize,
) -> Result<Vec<Block>, FormatError> {
    if depth > MAX_NESTING {
        return Err(r.error(format!("blocks nested more than {MAX_NESTING} deep")));
    }
    (0..count)
        .map(|_| read_block(r, version, channels, depth))
        .collect()
}

fn read_block(
    r: &mut Reader<'_>,
    version: i64,
    channels: usize,
    depth: usize,
) -> Result<Block, FormatError> {
    let kind = r.token("a block kind")?;
    match kind {
        "ordinary_block" => {
            let name = r.name("the block's name")?;
            r.set_layer(&name);
            let pre_norm = read_norm(r, channels)?;
            let pre_act = read_activation(r, version)?;
            let regular_conv = read_conv_from(r, channels)?;
            let mid_norm = read_norm(r, regular_conv.out_channels)?;
            let mid_act = read_activation(r, version)?;
            let final_conv = read_conv_from(r, regular_conv.out_channels)?;
            check_out(r, &final_conv, channels)?;
            Ok(Block::Ordinary(OrdinaryBlock {
                pre_norm,
                pre_act,
                regular_conv,
                mid_norm,
                mid_act,
                final_conv,
            }))
        }
        "gpool_block" => {
            let name = r.name("the block's name")?;
            r.set_layer(&name);
            let pre_norm = read_norm(r, channels)?;
            let pre_act = read_activation(r, version)?;
            let regular_conv = read_conv_from(r, channels)?;
            let gpool_conv = read_conv_from(r, channels)?;
            let gpool_norm = read_norm(r, gpool_conv.out_channels)?;
            let gpool_act = read_activation(r, version)?;
            let gpool_to_bias = read_matmul(r, 3 * gpool_conv.out_channels)?;
            if gpool_to_bias.out_channels != regular_conv.out_channels {
                return Err(r.error("the pooled bias does not match the regular path's width"));
            }
            let mid_norm = read_norm(r, regular_conv.out_channels)?;
            let mid_act = read_activation(r, version)?;
            let final_conv = read_conv_from(r, regular_conv.out_channels)?;
            check_out(r, &final_conv, channels)?;
            Ok(Block::GlobalPool(GlobalPoolBlock {
                pre_norm,
                pre_act,
                regular_conv,
                gpool_conv,
                gpool_norm,
                gpool_act,
                gpool_to_bias,
                mid_norm,
                mid_act,
                final_conv,
            }))
        }
        "nested_bottleneck_block" => {
            let name = r.name("the block's name")?;
            r.set_layer(&name);
            let count = r.count("the number of inner blocks", MAX_BLOCKS)?;
            let pre_norm = read_norm(r, channels)?;
            let pre_act = read_activation(r, version)?;
            let pre_conv = read_conv_from(r, channels)?;
            let inner = pre_conv.out_channels;
            let blocks = read_blocks(r, version, inner, count, depth + 1)?;
            let post_norm = read_norm(r, inner)?;
            let post_act = read_activation(r, version)?;
            let post_conv = read_conv_from(r, inner)?;
            check_out(r, &post_conv, channels)?;
            Ok(Block::Nested(NestedBlock {
                pre_norm,
                pre_act,
                pre_conv,
                blocks,
                post_norm,
                post_act,
                post_conv,
            }))
        }
        "transformer_attention_block" => {
            let name = r.name("the block's name")?;
            r.set_layer(&name);
            let heads = r.count("the number of heads", 1024)?;
            let kv_heads = r.count("the number of key/value heads", 1024)?;
            let q_head_dim = r.count("the query head width", MAX_CHANNELS)?;
            let v_head_dim = r.count("the value head width", MAX_CHANNELS)?;
            let use_rope = r.flag("useRope")?;
            let learnable_rope = r.flag("learnableRope")?;
            if heads % kv_heads != 0 {
                return Err(r.error(format!(
                    "{heads} heads cannot share {kv_heads} key/value heads"
                )));
            }
            if use_rope && q_head_dim % 2 != 0 {
                return Err(r.error("rotary encoding needs an even query head width"));
            }
            let (norm_weight, norm_epsilon) = read_transformer_norm(r, channels)?;
            let q_proj = read_matmul(r, channels)?;
            let k_proj = read_matmul(r, channels)?;
            let v_proj = read_matmul(r, channels)?;
            let out_proj = read_matmul(r, heads * v_head_dim)?;
            if q_proj.out_channels != heads * q_head_dim
                || k_proj.out_channels != kv_heads * q_head_dim
                || v_proj.out_channels != kv_heads * v_head_dim
                || out_proj.out_channels != channels
            {
                return Err(r.error("the projections do not match the head counts and widths"));
            }
            let rope = if !use_rope {
                None
            } else if learnable_rope {
                let rope_name = r.name("the rotary table's name")?;
                r.set_layer(&rope_name);
                let rope_kv = r.count("the rotary key/value heads", 1024)?;
                let pairs = r.count("the rotary pairs", MAX_CHANNELS)?;
                let two = r.count("the rotary axes", 2)?;
                if rope_kv != kv_heads || pairs != q_head_dim / 2 || two != 2 {
                    return Err(r.error(format!(
                        "rotary table {rope_kv}x{pairs}x{two} where {kv_heads}x{}x2 was expected",
                        q_head_dim / 2
                    )));
                }
                Some(Rope::Learned(
                    r.floats(rope_kv * pairs * 2, "the frequencies")?,
                ))
            } else {
                let rope_name = r.name("the rotary base's name")?;
                r.set_layer(&rope_name);
                let theta = r.float("the rotary base")?;
                if theta <= 0.0 {
                    return Err(r.error("the rotary base must be positive"));
                }
                Some(Rope::Fixed(theta))
            };
            Ok(Block::Attention(AttentionBlock {
                norm_weight,
                norm_epsilon,
                heads,
                kv_heads,
                q_head_dim,
                v_head_dim,
                q_proj,
                k_proj,
                v_proj,
                out_proj,
                rope,
                rope_tables: RopeTables::default(),
            }))
        }
        "transformer_ffn_block" => {
            let name = r.name("the block's name")?;
            r.set_layer(&name);
            let width = r.count("the block's channels", MAX_CHANNELS)?;
            if width != channels {
                return Err(r.error(format!("{width} channels where {channels} were expected")));
            }
            let ffn = r.count("the feed-forward width", MAX_CHANNELS * 4)?;
            let swiglu = r.flag("useSwiGLU")?;
            if !swiglu {
                return Err(r.error(
                    "feed-forward blocks without SwiGLU are not supported (KataGo's own CPU \
                     backend refuses them too)",
                ));
            }
            let (norm_weight, norm_epsilon) = read_transformer_norm(r, channels)?;
            let linear1 = read_matmul(r, channels)?;
            let gate = read_matmul(r, channels)?;
            let linear2 = read_matmul(r, ffn)?;
            if linear1.out_channels != ffn
                || gate.out_channels != ffn
                || linear2.out_channels != channels
            {
                return Err(r.error("the feed-forward matrices do not match its widths"));
            }
            Ok(Block::Ffn(FfnBlock {
                norm_weight,
                norm_epsilon,
                linear1,
                gate,
                linear2,
            }))
        }
        other => Err(r.error(format!(
            "unknown block kind {:?}",
            other.chars().take(40).collect::<String>()
        ))),
    }
}

fn check_out(r: &Reader<'_>, conv: &Conv, channels: usize) -> Result<(), FormatError> {
    if conv.out_channels != channels {
        return Err(r.error(format!(
            "output channels {} where {channels} were expected",
            conv.out_channels
        )));
    }
    Ok(())
}

pub(crate) fn read_trunk(r: &mut Reader<'_>, version: i64) -> Result<Trunk, FormatError> {
    let name = r.name("the trunk's name")?;
    r.set_layer(&name);
    let block_count = r.count("the number of blocks", MAX_BLOCKS)?;
    let channels = r.count("the trunk channels", MAX_CHANNELS)?;
    r.count("the mid channels", MAX_CHANNELS)?;
    r.count("the regular channels", MAX_CHANNELS)?;
    r.int("the dilated channels")?;
    r.count("the pooled channels", MAX_CHANNELS)?;
    let mut rms_tip = false;
    if version >= 15 {
        rms_tip = r.int_in("the trunk norm kind", 0, 1)? == 1;
        for slot in 0..5 {
            r.int_in(&format!("trunk option slot {slot}"), 0, 0)?;
        }
    }
    let initial_conv = read_conv_from(r, super::SPATIAL_INPUTS)?;
    check_out(r, &initial_conv, channels)?;
    let initial_matmul = read_matmul(r, super::GLOBAL_INPUTS)?;
    if initial_matmul.out_channels != channels {
        return Err(r.error("the global input layer does not match the trunk's width"));
    }
    let blocks = read_blocks(r, version, channels, block_count, 0)?;
    let tip_norm = if rms_tip {
        let name = r.name("the trunk tip's name")?;
        r.set_layer(&name);
        let count = read_channels(r, channels)?;
        let epsilon = r.float("epsilon")?;
        let spatial = r.flag("spatial")?;
        r.int_in("the channel group size", 0, 0)?;
        let gamma = r.floats(count, "gamma")?;
        let beta = r.floats(count, "beta")?;
        TipNorm::Rms {
            epsilon,
            spatial,
            gamma,
            beta,
        }
    } else {
        TipNorm::Batch(read_norm(r, channels)?)
    };
    let tip_act = read_activation(r, version)?;
    Ok(Trunk {
        channels,
        initial_conv,
        initial_matmul,
        blocks,
        tip_norm,
        tip_act,
    })
}

pub(crate) fn read_policy_head(
    r: &mut Reader<'_>,
    version: i64,
    channels: usize,
) -> Result<PolicyHead, FormatError> {
    let name = r.name("the policy head's name")?;
    r.set_layer(&name);
    let mut out_channels = match version {
        ..=11 => 1,
        12..=15 => 2,
        _ => 4,
    };
    if version >= 17 {
        out_channels = r.int_in("the policy outputs", 2, 4)? as usize;
        if out_channels == 3 {
            return Err(r.error("3 policy outputs: only 2 or 4 are defined"));
        }
        for slot in 0..3 {
            r.int_in(&format!("policy option slot {slot}"), 0, 0)?;
        }
    }
    let p1_conv = read_conv_from(r, channels)?;
    let g1_conv = read_conv_from(r, channels)?;
    let g1_norm = read_norm(r, g1_conv.out_channels)?;
    let g1_act = read_activation(r, version)?;
    let gpool_to_bias = read_matmul(r, 3 * g1_conv.out_channels)?;
    if gpool_to_bias.out_channels != p1_conv.out_channels {
        return Err(r.error("the pooled bias does not match the policy features"));
    }
    let p1_norm = read_norm(r, p1_conv.out_channels)?;
    let p1_act = read_activation(r, version)?;
    let p2_conv = read_conv_from(r, p1_conv.out_channels)?;
    check_out(r, &p2_conv, out_channels)?;
    let gpool_to_pass = read_matmul(r, 3 * g1_conv.out_channels)?;
    let pass_hidden = if version >= 15 {
        let hidden = gpool_to_pass.out_channels;
        let bias = read_matbias(r, hidden)?;
        let act = read_activation(r, version)?;
        let mul = read_matmul(r, hidden)?;
        if mul.out_channels != out_channels {
            return Err(r.error("the pass output does not match the policy outputs"));
        }
        Some((bias, act, mul))
    } else {
        if gpool_to_pass.out_channels != out_channels {
            return Err(r.error("the pass output does not match the policy outputs"));
        }
        None
    };
    Ok(PolicyHead {
        p1_conv,
        g1_conv,
        g1_norm,
        g1_act,
        gpool_to_bias,
        p1_norm,
        p1_act,
        p2_conv,
        gpool_to_pass,
        pass_hidden,
        out_channels,
    })
}

pub(crate) fn read_value_head(
    r: &mut Reader<'_>,
    version: i64,
    channels: usize,
) -> Result<ValueHead, FormatError> {
    let name = r.name("the value head's name")?;
    r.set_layer(&name);
    if version >= 17 {
        for slot in 0..3 {
            r.int_in(&format!("value option slot {slot}"), 0, 0)?;
        }
    }
    let v1_conv = read_conv_from(r, channels)?;
    let v1 = v1_conv.out_channels;
    let v1_norm = read_norm(r, v1)?;
    let v1_act = read_activation(r, version)?;
    let v2_mul = read_matmul(r, 3 * v1)?;
    let v2 = v2_mul.out_channels;
    let v2_bias = read_matbias(r, v2)?;
    let v2_act = read_activation(r, version)?;
    let v3_mul = read_matmul(r, v2)?;
    if v3_mul.out_channels != 3 {
        return Err(r.error(format!(
            "{} value outputs where 3 (win, loss, no result) were expected",
            v3_mul.out_channels
        )));
    }
    let v3_bias = read_matbias(r, 3)?;
    let sv3_mul = read_matmul(r, v2)?;
    let expected_scores = if version >= 9 { 6 } else { 4 };
    if sv3_mul.out_channels != expected_scores {
        return Err(r.error(format!(
            "{} score outputs where {expected_scores} were expected",
            sv3_mul.out_channels
        )));
    }
    let sv3_bias = read_matbias(r, expected_scores)?;
    let ownership_conv = read_conv_from(r, v1)?;
    check_out(r, &ownership_conv, 1)?;
    Ok(ValueHead {
        v1_conv,
        v1_norm,
        v1_act,
        v2_mul,
        v2_bias,
        v2_act,
        v3_mul,
        v3_bias,
        sv3_mul,
        sv3_bias,
        ownership_conv,
    })
}

/// Floating-point operations (a multiply-add counts two) of one forward
/// pass on a board of `points` points, for the matrix work only.
pub(crate) fn block_flops(block: &Block, points: f64) -> f64 {
    let conv = |c: &Conv| 2.0 * points * c.weights.len() as f64;
    let mat = |m: &MatMul| 2.0 * points * m.weights.len() as f64;
    match block {
        Block::Ordinary(b) => conv(&b.regular_conv) + conv(&b.final_conv),
        Block::GlobalPool(b) => conv(&b.regular_conv) + conv(&b.gpool_conv) + conv(&b.final_conv),
        Block::Nested(b) => {
            conv(&b.pre_conv)
                + conv(&b.post_conv)
                + b.blocks
                    .iter()
                    .map(|inner| block_flops(inner, points))
                    .sum::<f64>()
        }
        Block::Attention(b) => {
            mat(&b.q_proj)
                + mat(&b.k_proj)
                + mat(&b.v_proj)
                + mat(&b.out_proj)
                + 2.0 * points * points * (b.heads * (b.q_head_dim + b.v_head_dim)) as f64
        }
        Block::Ffn(b) => mat(&b.linear1) + mat(&b.gate) + mat(&b.linear2),
    }
}

impl Trunk {
    pub(crate) fn flops(&self, points: f64) -> f64 {
        2.0 * points * self.initial_conv.weights.len() as f64
            + self
                .blocks
                .iter()
                .map(|b| block_flops(b, points))
                .sum::<f64>()
    }
}

impl PolicyHead {
    pub(crate) fn flops(&self, points: f64) -> f64 {
        2.0 * points
            * (self.p1_conv.weights.len() + self.g1_conv.weights.len() + self.p2_conv.weights.len())
                as f64
    }
}

impl ValueHead {
    pub(crate) fn flops(&self, points: f64) -> f64 {
        2.0 * points * (self.v1_conv.weights.len() + self.ownership_conv.weights.len()) as f64
    }
}
