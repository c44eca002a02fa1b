//! KataGo's model files: the layer records and the reader that walks them in
//! the order KataGo writes them (model versions 8 to 17).
//!
//! A `.bin.gz` file is a gzip stream of whitespace-separated tokens (names,
//! channel counts, flags) with every weight array embedded as `@BIN@` and raw
//! little-endian `f32`s. There is no index: the shape tokens before an array
//! give its length, and the model version decides which records appear.
//! Anything the reader does not expect is refused with the byte offset and
//! the layer it was reading.

mod layers;
mod read_layers;
mod reader;

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

pub use layers::{
    Activation, AttentionBlock, Block, Conv, Derived, FfnBlock, GlobalPoolBlock, MatBias, MatMul,
    NestedBlock, Norm, OrdinaryBlock, PolicyHead, Rope, TipNorm, Trunk, ValueHead,
};
use reader::Reader;

/// The oldest model version read: the first one whose inputs are input
/// version 7, the only input version tengen computes.
pub const MIN_MODEL_VERSION: i64 = 8;
/// The newest model version read.
pub const MAX_MODEL_VERSION: i64 = 17;
/// Spatial input planes of input version 7.
pub const SPATIAL_INPUTS: usize = 22;
/// Global inputs of input version 7.
pub const GLOBAL_INPUTS: usize = 19;
/// Decompressed files larger than this are refused (the largest public
/// KataGo networks are about 1 GB).
const MAX_MODEL_BYTES: u64 = 4 << 30;

/// Why a model file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The file could not be opened or read.
    #[error("cannot read the model {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The path names a directory.
    #[error("the model {0} is a directory, not a KataGo model file")]
    Directory(PathBuf),
    /// The bytes are not a model tengen can read.
    #[error("the model {path} cannot be used: {error}")]
    Format {
        /// The file.
        path: PathBuf,
        /// Where and why.
        error: FormatError,
    },
}

/// Where a model's bytes stopped making sense, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FormatError {
    /// The byte offset in the decompressed stream.
    pub offset: usize,
    /// The layer being read (`header` before the first layer).
    pub layer: String,
    /// What was wrong.
    pub reason: String,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (at byte {} of the decompressed file, in {})",
            self.reason, self.offset, self.layer
        )
    }
}

impl std::error::Error for FormatError {}

/// The multipliers that turn the value head's raw score outputs into points
/// (read from the file from model version 13 on).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PostProcess {
    /// Raw score mean to points.
    pub score_mean_multiplier: f32,
    /// Raw score standard deviation (after softplus) to points.
    pub score_stdev_multiplier: f32,
    /// Raw lead to points.
    pub lead_multiplier: f32,
    /// Raw variance of the time left (after softplus).
    pub variance_time_multiplier: f32,
    /// Short-term win/loss error.
    pub shortterm_value_error_multiplier: f32,
    /// Short-term score error.
    pub shortterm_score_error_multiplier: f32,
}

impl Default for PostProcess {
    /// The values KataGo assumes for files older than model version 13.
    fn default() -> PostProcess {
        PostProcess {
            score_mean_multiplier: 20.0,
            score_stdev_multiplier: 20.0,
            lead_multiplier: 20.0,
            variance_time_multiplier: 40.0,
            shortterm_value_error_multiplier: 0.25,
            shortterm_score_error_multiplier: 30.0,
        }
    }
}

/// A whole KataGo network as read from its file.
#[derive(Clone, Debug)]
pub struct ModelDesc {
    /// The name the file gives the network.
    pub name: String,
    /// The model version (8..=17).
    pub version: i64,
    /// Score multipliers.
    pub post_process: PostProcess,
    /// Whether the pass-alive inputs assume multi-stone suicide is legal.
    pub prefer_pass_alive_under_suicide: bool,
    /// The residual trunk.
    pub trunk: Trunk,
    /// The policy head.
    pub policy: PolicyHead,
    /// The value, score and ownership head.
    pub value: ValueHead,
}

impl ModelDesc {
    /// Reads a model file: gzip-compressed (`.bin.gz`) or plain binary
    /// (`.bin`), told apart by the gzip magic bytes.
    pub fn load(path: &Path) -> Result<ModelDesc, ModelError> {
        let io = |source| ModelError::Io {
            path: path.to_path_buf(),
            source,
        };
        let metadata = std::fs::metadata(path).map_err(io)?;
        if metadata.is_dir() {
            return Err(ModelError::Directory(path.to_path_buf()));
        }
        let file = std::fs::File::open(path).map_err(io)?;
        let mut head = [0u8; 2];
        let mut prefix = std::io::BufReader::new(file);
        let read = std::io::Read::read(&mut prefix, &mut head).map_err(io)?;
        let rest = std::io::Cursor::new(head[..read].to_vec()).chain(prefix);
        let mut bytes = Vec::new();
        let limited = |reader: Box<dyn Read>| reader.take(MAX_MODEL_BYTES + 1);
        let result = if read == 2 && head == [0x1f, 0x8b] {
            limited(Box::new(flate2::read::GzDecoder::new(rest))).read_to_end(&mut bytes)
        } else {
            limited(Box::new(rest)).read_to_end(&mut bytes)
        };
        let decompressed = bytes.len();
        let format = |reason: String| ModelError::Format {
            path: path.to_path_buf(),
            error: FormatError {
                offset: decompressed,
                layer: "the gzip stream".to_string(),
                reason,
            },
        };
        if let Err(error) = &result {
            return Err(format(format!(
                "the gzip stream is corrupt or truncated ({error})"
            )));
        }
        if bytes.len() as u64 > MAX_MODEL_BYTES {
            return Err(format(format!(
                "it is larger than {} GiB decompressed",
                MAX_MODEL_BYTES >> 30
            )));
        }
        ModelDesc::parse(&bytes).map_err(|error| ModelError::Format {
            path: path.to_path_buf(),
            error,
        })
    }

    /// Reads a model from its decompressed bytes.
    pub fn parse(bytes: &[u8]) -> Result<ModelDesc, FormatError> {
        let mut reader = Reader::new(bytes);
        if bytes.iter().take(64).any(|&b| b == 0) || bytes.is_empty() {
            return Err(
                reader.error("this is not a KataGo model file (no model name at the start)")
            );
        }
        let name = reader.name("the model name")?;
        let version_offset = reader.error("").offset;
        let version = reader.int("the model version").map_err(|mut error| {
            error.reason = format!(
                "this is not a KataGo model file ({}; a model file starts with its name and version)",
                error.reason
            );
            error
        })?;
        if !(MIN_MODEL_VERSION..=MAX_MODEL_VERSION).contains(&version) {
            return Err(FormatError {
                offset: version_offset,
                layer: "header".to_string(),
                reason: format!(
                    "model version {version} is not supported: tengen reads versions \
                     {MIN_MODEL_VERSION} to {MAX_MODEL_VERSION} (input version 7)"
                ),
            });
        }
        let spatial = reader.int("the number of spatial inputs")?;
        let global = reader.int("the number of global inputs")?;
        if spatial != SPATIAL_INPUTS as i64 || global != GLOBAL_INPUTS as i64 {
            return Err(reader.error(format!(
                "the network takes {spatial} spatial and {global} global inputs; \
                 input version 7 has {SPATIAL_INPUTS} and {GLOBAL_INPUTS}"
            )));
        }
        let mut post_process = PostProcess::default();
        if version >= 13 {
            let _td_score_multiplier = positive(&mut reader, "tdScoreMultiplier")?;
            post_process.score_mean_multiplier = positive(&mut reader, "scoreMeanMultiplier")?;
            post_process.score_stdev_multiplier = positive(&mut reader, "scoreStdevMultiplier")?;
            post_process.lead_multiplier = positive(&mut reader, "leadMultiplier")?;
            post_process.variance_time_multiplier =
                positive(&mut reader, "varianceTimeMultiplier")?;
            post_process.shortterm_value_error_multiplier =
                positive(&mut reader, "shorttermValueErrorMultiplier")?;
            post_process.shortterm_score_error_multiplier =
                positive(&mut reader, "shorttermScoreErrorMultiplier")?;
        }
        let mut prefer_pass_alive_under_suicide = false;
        if version >= 15 {
            let meta_encoder = reader.int_in("the metadata encoder version", 0, 1)?;
            if meta_encoder != 0 {
                return Err(reader.error(
                    "networks with an SGF-metadata encoder (human-style networks) are not supported",
                ));
            }
            prefer_pass_alive_under_suicide = reader.flag("preferPassAliveUnderSuicideRules")?;
            for slot in 0..6 {
                reader.int_in(&format!("header option slot {slot}"), 0, 0)?;
            }
        }
        let trunk = read_layers::read_trunk(&mut reader, version)?;
        let policy = read_layers::read_policy_head(&mut reader, version, trunk.channels)?;
        let value = read_layers::read_value_head(&mut reader, version, trunk.channels)?;
        reader.set_layer("end of file");
        if !reader.at_end() {
            return Err(reader.error("unexpected data after the value head"));
        }
        Ok(ModelDesc {
            name,
            version,
            post_process,
            prefer_pass_alive_under_suicide,
            trunk,
            policy,
            value,
        })
    }

    /// Floating-point operations of one evaluation on a board of `points`
    /// points (matrix products and convolutions; a multiply-add is two).
    pub fn flops(&self, points: usize) -> f64 {
        let points = points as f64;
        self.trunk.flops(points) + self.policy.flops(points) + self.value.flops(points)
    }

    /// The number of weights in the network.
    pub fn parameter_count(&self) -> usize {
        self.trunk.parameter_count() + self.policy.parameter_count() + self.value.parameter_count()
    }
}

/// A header multiplier, which must be positive.
fn positive(reader: &mut Reader<'_>, what: &str) -> Result<f32, FormatError> {
    let value = reader.float(what)?;
    if value <= 0.0 {
        return Err(reader.error(format!("{what} must be positive, found {value}")));
    }
    Ok(value)
}
