//! How each layer record of a KataGo model is read and checked: the
//! convolutions, normalisations (folded into a scale and a bias per
//! channel), products, blocks, the trunk and the heads.

use super::layers::*;
use super::reader::Reader;
use super::FormatError;

/// The most channels any layer may declare (public networks use at most 768).
const MAX_CHANNELS: usize = 16384;
/// The largest convolution kernel side accepted.
const MAX_KERNEL: usize = 9;
/// How deeply nested-bottleneck blocks may nest.
const MAX_NESTING: usize = 8;
/// The most blocks one stack may hold.
const MAX_BLOCKS: usize = 1024;

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
        derived: Derived::default(),
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
        derived: Derived::default(),
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

/// One block of a stack of `channels` channels, of whichever kind it
/// declares.
fn read_block(
    r: &mut Reader<'_>,
    version: i64,
    channels: usize,
    depth: usize,
) -> Result<Block, FormatError> {
    let kind = r.token("a block kind")?;
    match kind {
        "ordinary_block" => read_ordinary_block(r, version, channels),
        "gpool_block" => read_gpool_block(r, version, channels),
        "nested_bottleneck_block" => read_nested_block(r, version, channels, depth),
        "transformer_attention_block" => read_attention_block(r, channels),
        "transformer_ffn_block" => read_ffn_block(r, channels),
        other => Err(r.error(format!(
            "unknown block kind {:?}",
            other.chars().take(40).collect::<String>()
        ))),
    }
}

/// A block's name, which names the layer being read.
fn read_block_name(r: &mut Reader<'_>) -> Result<(), FormatError> {
    let name = r.name("the block's name")?;
    r.set_layer(&name);
    Ok(())
}

/// An ordinary residual block, after its kind.
fn read_ordinary_block(
    r: &mut Reader<'_>,
    version: i64,
    channels: usize,
) -> Result<Block, FormatError> {
    read_block_name(r)?;
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

/// A residual block with global pooling, after its kind.
fn read_gpool_block(
    r: &mut Reader<'_>,
    version: i64,
    channels: usize,
) -> Result<Block, FormatError> {
    read_block_name(r)?;
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

/// A nested-bottleneck block and the blocks inside it, after its kind.
fn read_nested_block(
    r: &mut Reader<'_>,
    version: i64,
    channels: usize,
    depth: usize,
) -> Result<Block, FormatError> {
    read_block_name(r)?;
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

/// A transformer's self-attention block, after its kind.
fn read_attention_block(r: &mut Reader<'_>, channels: usize) -> Result<Block, FormatError> {
    read_block_name(r)?;
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
        Some(read_learned_rope(r, kv_heads, q_head_dim)?)
    } else {
        Some(read_fixed_rope(r)?)
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
        derived: Derived::default(),
    }))
}

/// A learned rotary table: two frequencies (columns, rows) for each pair of
/// each key/value head.
fn read_learned_rope(
    r: &mut Reader<'_>,
    kv_heads: usize,
    q_head_dim: usize,
) -> Result<Rope, FormatError> {
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
    Ok(Rope::Learned(
        r.floats(rope_kv * pairs * 2, "the frequencies")?,
    ))
}

/// A fixed rotary encoding's base.
fn read_fixed_rope(r: &mut Reader<'_>) -> Result<Rope, FormatError> {
    let rope_name = r.name("the rotary base's name")?;
    r.set_layer(&rope_name);
    let theta = r.float("the rotary base")?;
    if theta <= 0.0 {
        return Err(r.error("the rotary base must be positive"));
    }
    Ok(Rope::Fixed(theta))
}

/// A transformer's SwiGLU feed-forward block, after its kind.
fn read_ffn_block(r: &mut Reader<'_>, channels: usize) -> Result<Block, FormatError> {
    read_block_name(r)?;
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
    if linear1.out_channels != ffn || gate.out_channels != ffn || linear2.out_channels != channels {
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
