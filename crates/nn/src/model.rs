//! Model files: a network's weights with the metadata needed to use them —
//! encoder, board size, architecture and where the weights came from — in
//! one file, the equivalent of the book's HDF5 agent files.
//!
//! # Format (version 1, little-endian)
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `TENGENNN` |
//! | 4 | format version (1) |
//! | 4 | metadata length `m` |
//! | `m` | metadata, JSON ([`ModelMetadata`]) |
//! | 8 | weights length `w` |
//! | `w` | weights, a burnpack record of the [`Network`] |
//! | 8 | FNV-1a 64-bit checksum of everything before it |
//!
//! Loading checks every length against the file's size (truncation), the
//! checksum (damage), the metadata against the encoder it names, and the
//! weights' shapes against the architecture.

use std::path::Path;

use burn::prelude::*;
use burn::store::ModuleRecord;
use burn::tensor::activation::softmax;
use serde::{Deserialize, Serialize};
use tengen_core::{BoardSize, Game};
use thiserror::Error;

use crate::encoder::{encoder_by_name, Encoder};
use crate::net::{Architecture, NetShape, Network};

const MAGIC: &[u8; 8] = b"TENGENNN";
const VERSION: u32 = 1;

/// Where a model's weights came from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The training data (a folder, or a description).
    pub data: String,
    /// Games and positions in the training split.
    pub train_games: usize,
    /// Positions in the training split.
    pub train_positions: usize,
    /// Positions in the validation split.
    pub validation_positions: usize,
    /// Epochs trained.
    pub epochs: usize,
    /// Batch size.
    pub batch: usize,
    /// Learning rate.
    pub learning_rate: f64,
    /// The training seed.
    pub seed: u64,
    /// Wall-clock seconds spent training.
    pub train_seconds: f64,
    /// Top-1 move accuracy on the validation split after the last epoch.
    pub validation_top1: Option<f64>,
    /// Top-5 move accuracy on the validation split after the last epoch.
    pub validation_top5: Option<f64>,
    /// The tengen version that trained it.
    pub tengen_version: String,
}

/// What a model file says about its network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelMetadata {
    /// The encoder's registered name.
    pub encoder: String,
    /// Board width.
    pub width: usize,
    /// Board height.
    pub height: usize,
    /// Input planes (must equal the encoder's).
    pub planes: usize,
    /// Move outputs (must equal the encoder's).
    pub moves: usize,
    /// The network's shape.
    pub architecture: Architecture,
    /// Where the weights came from.
    pub provenance: Provenance,
}

/// Why a model cannot be loaded or used.
#[derive(Debug, Error)]
pub enum ModelError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// Not a tengen model file.
    #[error("not a tengen model file (bad magic bytes)")]
    BadMagic,
    /// A format version this build does not read.
    #[error("model format version {0} is not supported (this build reads version {VERSION})")]
    Version(u32),
    /// The file ends early.
    #[error("the model file is truncated: {what} needs {needed} bytes at offset {offset}, {available} are left")]
    Truncated {
        /// The part that does not fit.
        what: &'static str,
        /// Where it starts.
        offset: usize,
        /// Its length.
        needed: usize,
        /// Bytes left in the file.
        available: usize,
    },
    /// Bytes after the checksum.
    #[error("the model file has {0} unexpected bytes after its checksum")]
    TrailingBytes(usize),
    /// The checksum does not match: the file is damaged.
    #[error("the model file is damaged: checksum {found:016x}, expected {expected:016x}")]
    Checksum {
        /// The checksum stored in the file.
        expected: u64,
        /// The checksum of the bytes read.
        found: u64,
    },
    /// The metadata is not valid JSON of the expected shape.
    #[error("the model's metadata is unreadable: {0}")]
    Metadata(String),
    /// The metadata contradicts itself or the encoder it names.
    #[error("the model's metadata is inconsistent: {0}")]
    Inconsistent(String),
    /// The model is for another board or encoder than asked for.
    #[error("the model does not fit: {0}")]
    Mismatch(String),
    /// The weights do not fit the architecture.
    #[error("the model's weights do not fit its architecture: {0}")]
    Weights(String),
}

/// A network ready to evaluate positions, with its encoder and metadata.
#[derive(Debug)]
pub struct Model {
    metadata: ModelMetadata,
    network: Network,
    encoder: Box<dyn Encoder>,
    device: Device,
}

impl Clone for Model {
    fn clone(&self) -> Model {
        Model {
            metadata: self.metadata.clone(),
            network: self.network.clone(),
            encoder: encoder_by_name(&self.metadata.encoder, self.size())
                .expect("a loaded model's encoder exists"),
            device: self.device.clone(),
        }
    }
}

/// A network's view of one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    /// Move probabilities, indexed as the encoder's moves (they sum to 1).
    pub policy: Vec<f32>,
    /// The expected result for the side to move in `-1..=1`, if the network
    /// has a value head.
    pub value: Option<f32>,
}

/// FNV-1a, 64 bits: a checksum against damage, not tampering.
fn fnv1a(bytes: &[u8]) -> u64 {
    tengen_core::Fnv1a::of(bytes)
}

/// The shape the metadata promises, checked against its encoder.
fn checked_shape(metadata: &ModelMetadata) -> Result<(NetShape, Box<dyn Encoder>), ModelError> {
    let size = BoardSize::new(metadata.width, metadata.height).map_err(|e| {
        ModelError::Inconsistent(format!("board {}x{}: {e}", metadata.width, metadata.height))
    })?;
    let encoder = encoder_by_name(&metadata.encoder, size)
        .map_err(|e| ModelError::Inconsistent(e.to_string()))?;
    if encoder.planes() != metadata.planes || encoder.moves() != metadata.moves {
        return Err(ModelError::Inconsistent(format!(
            "encoder {} has {} planes and {} moves on {}x{}, the model says {} and {}",
            metadata.encoder,
            encoder.planes(),
            encoder.moves(),
            metadata.width,
            metadata.height,
            metadata.planes,
            metadata.moves
        )));
    }
    let shape = NetShape {
        planes: metadata.planes,
        width: metadata.width,
        height: metadata.height,
        moves: metadata.moves,
    };
    Ok((shape, encoder))
}

/// Reads `len` bytes at `*offset`, or says what is missing.
fn take<'a>(
    bytes: &'a [u8],
    offset: &mut usize,
    len: usize,
    what: &'static str,
) -> Result<&'a [u8], ModelError> {
    let available = bytes.len().saturating_sub(*offset);
    if len > available {
        return Err(ModelError::Truncated {
            what,
            offset: *offset,
            needed: len,
            available,
        });
    }
    let slice = &bytes[*offset..*offset + len];
    *offset += len;
    Ok(slice)
}

impl Model {
    /// A new model around `network` (whatever device it lives on; inference
    /// runs on the plain CPU device without gradients).
    pub fn new(metadata: ModelMetadata, network: Network) -> Result<Model, ModelError> {
        let (_, encoder) = checked_shape(&metadata)?;
        let device = Device::flex();
        let network = network.valid().to_device(&device);
        Ok(Model {
            metadata,
            network,
            encoder,
            device,
        })
    }

    /// A freshly initialised (untrained) model, for tests and as training's
    /// starting point.
    pub fn untrained(
        encoder: &str,
        size: BoardSize,
        architecture: Architecture,
        seed: u64,
    ) -> Result<Model, ModelError> {
        let encoder =
            encoder_by_name(encoder, size).map_err(|e| ModelError::Mismatch(e.to_string()))?;
        let metadata = ModelMetadata {
            encoder: encoder.name().to_string(),
            width: size.width(),
            height: size.height(),
            planes: encoder.planes(),
            moves: encoder.moves(),
            architecture,
            provenance: Provenance {
                tengen_version: env!("CARGO_PKG_VERSION").to_string(),
                seed,
                ..Provenance::default()
            },
        };
        let (shape, _) = checked_shape(&metadata)?;
        let network = Network::seeded(architecture, shape, &Device::flex(), seed);
        Model::new(metadata, network)
    }

    /// The metadata.
    pub fn metadata(&self) -> &ModelMetadata {
        &self.metadata
    }

    /// The metadata, to update provenance before saving.
    pub fn metadata_mut(&mut self) -> &mut ModelMetadata {
        &mut self.metadata
    }

    /// The network (on the inference device).
    pub fn network(&self) -> &Network {
        &self.network
    }

    /// Trainable parameters of the network.
    pub fn parameters(&self) -> usize {
        self.network.num_params()
    }

    /// The encoder.
    pub fn encoder(&self) -> &dyn Encoder {
        self.encoder.as_ref()
    }

    /// The board size the model plays on.
    pub fn size(&self) -> BoardSize {
        BoardSize::new(self.metadata.width, self.metadata.height)
            .expect("checked when the model was made")
    }

    /// The shape of the network's input and output.
    pub fn shape(&self) -> NetShape {
        NetShape {
            planes: self.metadata.planes,
            width: self.metadata.width,
            height: self.metadata.height,
            moves: self.metadata.moves,
        }
    }

    /// Checks that the model plays on `size`, with a clear message if not.
    pub fn expect_size(&self, size: BoardSize) -> Result<(), ModelError> {
        if self.size() != size {
            return Err(ModelError::Mismatch(format!(
                "it was trained for {}x{} boards, the game is {}x{}",
                self.metadata.width,
                self.metadata.height,
                size.width(),
                size.height()
            )));
        }
        Ok(())
    }

    /// The model as file bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>, ModelError> {
        let metadata = serde_json::to_vec_pretty(&self.metadata)
            .map_err(|e| ModelError::Metadata(e.to_string()))?;
        let weights = self
            .network
            .clone()
            .into_record()
            .into_bytes()
            .map_err(|e| ModelError::Weights(e.to_string()))?;
        let mut bytes = Vec::with_capacity(40 + metadata.len() + weights.len());
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend_from_slice(&(metadata.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&metadata);
        bytes.extend_from_slice(&(weights.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&weights);
        let checksum = fnv1a(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        Ok(bytes)
    }

    /// A model from file bytes, every part checked.
    pub fn from_bytes(bytes: &[u8]) -> Result<Model, ModelError> {
        let mut offset = 0;
        if take(bytes, &mut offset, 8, "magic").map_err(|_| ModelError::BadMagic)? != MAGIC {
            return Err(ModelError::BadMagic);
        }
        let u32_at = |slice: &[u8]| u32::from_le_bytes(slice.try_into().expect("4 bytes"));
        let u64_at = |slice: &[u8]| u64::from_le_bytes(slice.try_into().expect("8 bytes"));
        let version = u32_at(take(bytes, &mut offset, 4, "version")?);
        if version != VERSION {
            return Err(ModelError::Version(version));
        }
        let metadata_len = u32_at(take(bytes, &mut offset, 4, "metadata length")?) as usize;
        let metadata_bytes = take(bytes, &mut offset, metadata_len, "metadata")?;
        let weights_len = u64_at(take(bytes, &mut offset, 8, "weights length")?);
        let weights_len = usize::try_from(weights_len).unwrap_or(usize::MAX);
        let weights = take(bytes, &mut offset, weights_len, "weights")?;
        let body_end = offset;
        let expected = u64_at(take(bytes, &mut offset, 8, "checksum")?);
        if offset != bytes.len() {
            return Err(ModelError::TrailingBytes(bytes.len() - offset));
        }
        let found = fnv1a(&bytes[..body_end]);
        if found != expected {
            return Err(ModelError::Checksum { expected, found });
        }
        let metadata: ModelMetadata = serde_json::from_slice(metadata_bytes)
            .map_err(|e| ModelError::Metadata(e.to_string()))?;
        let (shape, encoder) = checked_shape(&metadata)?;
        let device = Device::flex();
        let record =
            ModuleRecord::from_bytes(burn::tensor::Bytes::from_bytes_vec(weights.to_vec()))
                .map_err(|e| ModelError::Weights(e.to_string()))?;
        let network = Network::new(metadata.architecture, shape, &device)
            .try_load_record(record)
            .map_err(|e| ModelError::Weights(e.to_string()))?;
        Ok(Model {
            metadata,
            network,
            encoder,
            device,
        })
    }

    /// Writes the model to `path`.
    pub fn save(&self, path: &Path) -> Result<(), ModelError> {
        let bytes = self.to_bytes()?;
        std::fs::write(path, bytes).map_err(|source| ModelError::Io {
            path: path.display().to_string(),
            source,
        })
    }

    /// Reads a model from `path`.
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        let bytes = std::fs::read(path).map_err(|source| ModelError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Model::from_bytes(&bytes)
    }

    /// Encodes `games` into one input batch.
    pub fn encode_batch(&self, games: &[&Game]) -> Tensor<4> {
        let len = self.encoder.input_len();
        let mut input = vec![0.0f32; len * games.len()];
        for (game, slot) in games.iter().zip(input.chunks_mut(len)) {
            self.encoder.encode(game, slot);
        }
        let shape = self.shape();
        Tensor::from_data(
            TensorData::new(
                input,
                [games.len(), shape.planes, shape.height, shape.width],
            ),
            &self.device,
        )
    }

    /// The network's move probabilities and value for each of `games`
    /// (all on the model's board size).
    pub fn predict(&self, games: &[&Game]) -> Vec<Prediction> {
        if games.is_empty() {
            return Vec::new();
        }
        let (logits, value) = self.network.forward(self.encode_batch(games));
        let policy: Vec<f32> = softmax(logits, 1)
            .into_data()
            .try_to_vec::<f32>()
            .expect("float logits");
        let values: Option<Vec<f32>> =
            value.map(|v| v.into_data().try_to_vec::<f32>().expect("float values"));
        let moves = self.metadata.moves;
        policy
            .chunks(moves)
            .enumerate()
            .map(|(i, p)| Prediction {
                policy: p.to_vec(),
                value: values.as_ref().map(|v| v[i]),
            })
            .collect()
    }
}
