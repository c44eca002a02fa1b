//! The layer records of a KataGo model (how each is read: `read_layers.rs`).
//!
//! Normalisation records are folded at load time into one scale and one
//! bias per channel, as KataGo does, so the forward pass applies
//! `x * scale + bias`.

use std::any::Any;
use std::sync::OnceLock;

/// Room for what the forward pass derives once from a layer and keeps
/// (its weights packed or quantised for the matrix units, attention's
/// rotary tables), made on first use. The description only holds the
/// room and knows nothing of what is kept there, so the model does not
/// depend on the runtime that reads it. A clone starts empty.
#[derive(Default)]
pub struct Derived(OnceLock<Box<dyn Any + Send + Sync>>);

impl Derived {
    /// What is kept here, made by `make` on the first call. Each room
    /// holds one type: the runtime asks for the same one every time.
    pub(crate) fn get_or_init<T: Any + Send + Sync>(&self, make: impl FnOnce() -> T) -> &T {
        self.0
            .get_or_init(|| Box::new(make()))
            .downcast_ref::<T>()
            .expect("a layer's derived forms are of one type")
    }
}

impl Clone for Derived {
    fn clone(&self) -> Derived {
        // Derived again on the clone's first use.
        Derived::default()
    }
}

impl std::fmt::Debug for Derived {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Derived")
            .field("made", &self.0.get().is_some())
            .finish()
    }
}

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
    /// The weights packed for the matrix units, on first use.
    pub(crate) derived: Derived,
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
    /// The weights packed for the matrix units, on first use.
    pub(crate) derived: Derived,
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
    pub(crate) derived: Derived,
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
