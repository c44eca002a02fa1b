//! The networks: the book's small, medium and large convolutional policy
//! networks, and a residual tower with policy and value heads in the shape of
//! AlphaGo Zero's, with any number of blocks and channels.
//!
//! Every network maps a batch of encoded positions `[batch, planes, height,
//! width]` to move logits `[batch, moves]` and, where it has a value head, a
//! value `[batch, 1]` in `-1..=1` for the side to move.

use std::fmt;
use std::str::FromStr;

use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::relu;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The shape of a network, as named on the command line and stored in model
/// files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Architecture {
    /// The book's small policy network: four convolutions (48 7×7, then
    /// three of 32 5×5) and a 512-unit dense layer.
    Small,
    /// The book's medium policy network: seven convolutions (64 7×7, two of
    /// 64 5×5, two of 48 5×5, two of 32 5×5) and a 1024-unit dense layer.
    Medium,
    /// The book's large policy network: eleven convolutions (64 7×7, then
    /// 5×5 and 3×3 layers of 64, 48 and 32 channels) and a 1024-unit dense
    /// layer.
    Large,
    /// A residual tower (AlphaGo Zero's shape): a 3×3 stem, `blocks` residual
    /// blocks of two 3×3 convolutions with batch normalisation, a policy head
    /// and a value head.
    Residual {
        /// Residual blocks.
        blocks: usize,
        /// Channels of every convolution in the tower.
        channels: usize,
    },
}

/// Why a network name does not parse.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ArchitectureError {
    /// Not one of the known names.
    #[error("unknown network {0:?}: expected small, medium, large or residual[:BLOCKSxCHANNELS] (e.g. residual:6x64)")]
    Unknown(String),
    /// A residual tower with a zero or absurd size.
    #[error("residual tower {0:?}: blocks must be 1..=40 and channels 1..=512")]
    BadSize(String),
}

impl Architecture {
    /// The residual tower used when none is given: 6 blocks of 64 channels.
    pub const DEFAULT_RESIDUAL: Architecture = Architecture::Residual {
        blocks: 6,
        channels: 64,
    };

    /// Whether the network has a value head (only the residual tower does).
    pub fn has_value_head(self) -> bool {
        matches!(self, Architecture::Residual { .. })
    }

    /// The convolution stack of the book's networks: (channels, kernel).
    fn book_layers(self) -> (&'static [(usize, usize)], usize) {
        match self {
            Architecture::Small => (&[(48, 7), (32, 5), (32, 5), (32, 5)], 512),
            Architecture::Medium => (
                &[
                    (64, 7),
                    (64, 5),
                    (64, 5),
                    (48, 5),
                    (48, 5),
                    (32, 5),
                    (32, 5),
                ],
                1024,
            ),
            Architecture::Large => (
                &[
                    (64, 7),
                    (64, 5),
                    (64, 5),
                    (64, 5),
                    (48, 5),
                    (48, 5),
                    (48, 3),
                    (48, 3),
                    (32, 3),
                    (32, 3),
                    (32, 3),
                ],
                1024,
            ),
            Architecture::Residual { .. } => (&[], 0),
        }
    }
}

impl fmt::Display for Architecture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Architecture::Small => f.write_str("small"),
            Architecture::Medium => f.write_str("medium"),
            Architecture::Large => f.write_str("large"),
            Architecture::Residual { blocks, channels } => {
                write!(f, "residual:{blocks}x{channels}")
            }
        }
    }
}

impl FromStr for Architecture {
    type Err = ArchitectureError;

    fn from_str(text: &str) -> Result<Architecture, ArchitectureError> {
        let lower = text.trim().to_ascii_lowercase();
        match lower.as_str() {
            "small" => return Ok(Architecture::Small),
            "medium" => return Ok(Architecture::Medium),
            "large" => return Ok(Architecture::Large),
            "residual" | "zero" => return Ok(Architecture::DEFAULT_RESIDUAL),
            _ => {}
        }
        let size = lower
            .strip_prefix("residual:")
            .or_else(|| lower.strip_prefix("zero:"))
            .ok_or_else(|| ArchitectureError::Unknown(text.to_string()))?;
        let (blocks, channels) = size
            .split_once('x')
            .and_then(|(b, c)| Some((b.parse::<usize>().ok()?, c.parse::<usize>().ok()?)))
            .ok_or_else(|| ArchitectureError::Unknown(text.to_string()))?;
        if !(1..=40).contains(&blocks) || !(1..=512).contains(&channels) {
            return Err(ArchitectureError::BadSize(text.to_string()));
        }
        Ok(Architecture::Residual { blocks, channels })
    }
}

/// The size of a network's input and output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetShape {
    /// Input planes (the encoder's).
    pub planes: usize,
    /// Board width.
    pub width: usize,
    /// Board height.
    pub height: usize,
    /// Move outputs (the encoder's: points, plus one for a pass output).
    pub moves: usize,
}

fn conv(input: usize, output: usize, kernel: usize, bias: bool, device: &Device) -> Conv2d {
    Conv2dConfig::new([input, output], [kernel, kernel])
        .with_padding(PaddingConfig2d::Same)
        .with_bias(bias)
        .init(device)
}

/// Two 3×3 convolutions with batch normalisation and a skip connection.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    first: Conv2d,
    first_norm: BatchNorm,
    second: Conv2d,
    second_norm: BatchNorm,
}

impl ResidualBlock {
    fn new(channels: usize, device: &Device) -> ResidualBlock {
        ResidualBlock {
            first: conv(channels, channels, 3, false, device),
            first_norm: BatchNormConfig::new(channels).init(device),
            second: conv(channels, channels, 3, false, device),
            second_norm: BatchNormConfig::new(channels).init(device),
        }
    }

    fn forward(&self, input: Tensor<4>) -> Tensor<4> {
        let hidden = relu(self.first_norm.forward(self.first.forward(input.clone())));
        let hidden = self.second_norm.forward(self.second.forward(hidden));
        relu(hidden + input)
    }
}

/// A policy (and, for the residual tower, value) network.
#[derive(Module, Debug)]
pub struct Network {
    /// The book networks' convolutions, or the residual tower's stem.
    convs: Vec<Conv2d>,
    /// The residual tower's stem normalisation.
    stem_norm: Option<BatchNorm>,
    /// The residual blocks (none in the book's networks).
    blocks: Vec<ResidualBlock>,
    /// The book networks' dense layer.
    hidden: Option<Linear>,
    /// The residual tower's policy head convolution (2 channels, 1×1).
    policy_conv: Option<Conv2d>,
    policy_norm: Option<BatchNorm>,
    /// Move logits.
    policy: Linear,
    /// The residual tower's value head: 1×1 convolution to one channel,
    /// a 64-unit dense layer, one output through tanh.
    value_conv: Option<Conv2d>,
    value_norm: Option<BatchNorm>,
    value_hidden: Option<Linear>,
    value: Option<Linear>,
}

/// The channels of the value head's dense layer.
const VALUE_HIDDEN: usize = 64;

impl Network {
    /// A freshly initialised network of `architecture` for `shape`, its
    /// weights drawn from the device's random generator (seed it first for a
    /// reproducible network).
    pub fn new(architecture: Architecture, shape: NetShape, device: &Device) -> Network {
        let points = shape.width * shape.height;
        match architecture {
            Architecture::Residual { blocks, channels } => Network {
                convs: vec![conv(shape.planes, channels, 3, false, device)],
                stem_norm: Some(BatchNormConfig::new(channels).init(device)),
                blocks: (0..blocks)
                    .map(|_| ResidualBlock::new(channels, device))
                    .collect(),
                hidden: None,
                policy_conv: Some(conv(channels, 2, 1, false, device)),
                policy_norm: Some(BatchNormConfig::new(2).init(device)),
                policy: LinearConfig::new(2 * points, shape.moves).init(device),
                value_conv: Some(conv(channels, 1, 1, false, device)),
                value_norm: Some(BatchNormConfig::new(1).init(device)),
                value_hidden: Some(LinearConfig::new(points, VALUE_HIDDEN).init(device)),
                value: Some(LinearConfig::new(VALUE_HIDDEN, 1).init(device)),
            },
            book => {
                let (layers, dense) = book.book_layers();
                let mut convs = Vec::with_capacity(layers.len());
                let mut input = shape.planes;
                for &(channels, kernel) in layers {
                    convs.push(conv(input, channels, kernel, true, device));
                    input = channels;
                }
                Network {
                    convs,
                    stem_norm: None,
                    blocks: Vec::new(),
                    hidden: Some(LinearConfig::new(input * points, dense).init(device)),
                    policy_conv: None,
                    policy_norm: None,
                    policy: LinearConfig::new(dense, shape.moves).init(device),
                    value_conv: None,
                    value_norm: None,
                    value_hidden: None,
                    value: None,
                }
            }
        }
    }

    /// A network initialised from `seed` alone: burn's generator is global
    /// to the process and its parameters are drawn lazily, so seeding, making
    /// and drawing every parameter happen under one lock.
    pub fn seeded(
        architecture: Architecture,
        shape: NetShape,
        device: &Device,
        seed: u64,
    ) -> Network {
        static INIT: std::sync::Mutex<()> = std::sync::Mutex::new(());
        let _guard = INIT.lock().unwrap_or_else(|e| e.into_inner());
        device.seed(seed);
        // Taking the record draws every parameter now; loading it gives a
        // network whose values no later draw can change.
        let record = Network::new(architecture, shape, device).into_record();
        Network::new(architecture, shape, device).load_record(record)
    }

    /// Move logits `[batch, moves]` and, with a value head, values
    /// `[batch, 1]` in `-1..=1` for the side to move.
    pub fn forward(&self, input: Tensor<4>) -> (Tensor<2>, Option<Tensor<2>>) {
        let [batch, _, _, _] = input.dims();
        if let Some(stem_norm) = &self.stem_norm {
            let mut trunk = relu(stem_norm.forward(self.convs[0].forward(input)));
            for block in &self.blocks {
                trunk = block.forward(trunk);
            }
            let policy = match (&self.policy_conv, &self.policy_norm) {
                (Some(conv), Some(norm)) => relu(norm.forward(conv.forward(trunk.clone()))),
                _ => unreachable!("a residual tower always has a policy head"),
            };
            let logits = self.policy.forward(policy.flatten(1, 3));
            let value = match (
                &self.value_conv,
                &self.value_norm,
                &self.value_hidden,
                &self.value,
            ) {
                (Some(conv), Some(norm), Some(hidden), Some(out)) => {
                    let value = relu(norm.forward(conv.forward(trunk)));
                    let value = relu(hidden.forward(value.flatten(1, 3)));
                    Some(out.forward(value).tanh())
                }
                _ => None,
            };
            (logits, value)
        } else {
            let mut trunk = input;
            for conv in &self.convs {
                trunk = relu(conv.forward(trunk));
            }
            let flat = trunk.flatten::<2>(1, 3);
            let hidden = match &self.hidden {
                Some(hidden) => relu(hidden.forward(flat)),
                None => flat,
            };
            let logits = self.policy.forward(hidden);
            debug_assert_eq!(logits.dims()[0], batch);
            (logits, None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for name in ["small", "medium", "large", "residual:3x16"] {
            let arch: Architecture = name.parse().unwrap();
            assert_eq!(arch.to_string(), name);
        }
        assert_eq!(
            "residual".parse::<Architecture>().unwrap(),
            Architecture::DEFAULT_RESIDUAL
        );
        assert!(matches!(
            "huge".parse::<Architecture>(),
            Err(ArchitectureError::Unknown(_))
        ));
        assert!(matches!(
            "residual:0x16".parse::<Architecture>(),
            Err(ArchitectureError::BadSize(_))
        ));
        assert!("residual:3".parse::<Architecture>().is_err());
    }

    #[test]
    fn every_network_has_the_promised_output_shapes() {
        let device = Device::flex();
        let shape = NetShape {
            planes: 7,
            width: 5,
            height: 4,
            moves: 21,
        };
        for arch in [
            Architecture::Small,
            Architecture::Medium,
            Architecture::Large,
            Architecture::Residual {
                blocks: 2,
                channels: 8,
            },
        ] {
            let net = Network::new(arch, shape, &device);
            let input = Tensor::<4>::zeros([3, 7, 4, 5], &device);
            let (logits, value) = net.forward(input);
            assert_eq!(logits.dims(), [3, 21], "{arch}");
            assert_eq!(value.is_some(), arch.has_value_head(), "{arch}");
            if let Some(value) = value {
                assert_eq!(value.dims(), [3, 1]);
            }
        }
    }
}
