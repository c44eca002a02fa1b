//! Supervised training: positions from a [`Dataset`] through an encoder,
//! the eight board symmetries for augmentation, cross-entropy on the move
//! played (plus mean squared error on the game's result for networks with a
//! value head), Adam, top-1/top-5 accuracy on both splits every epoch,
//! checkpoints, and resuming from one.
//!
//! Reproducible: the network's initial weights come from the seed, and each
//! epoch's order of positions and choice of symmetries from the seed and the
//! epoch number, so a run resumed from a checkpoint continues exactly as the
//! uninterrupted run would.

use std::path::{Path, PathBuf};
use std::time::Instant;

use burn::nn::loss::CrossEntropyLossConfig;
use burn::optim::{AdamConfig, GradientsParams};
use burn::prelude::*;
use tengen_core::{BoardSize, Color, Game, Move, Rng};
use tengen_nn::encoder::{encoder_by_name, Encoder};
use tengen_nn::model::{Model, ModelError, ModelMetadata, Provenance};
use tengen_nn::net::{Architecture, NetShape, Network};
use tengen_nn::symmetry::Symmetry;
use thiserror::Error;

use crate::data::{Dataset, GameRecord};

/// How to train.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    /// The encoder's name.
    pub encoder: String,
    /// The network.
    pub architecture: Architecture,
    /// Epochs to train (in all, counting those of a resumed checkpoint).
    pub epochs: usize,
    /// Positions per batch.
    pub batch: usize,
    /// Adam's learning rate.
    pub learning_rate: f64,
    /// Seed of the initial weights, the order of positions and the
    /// symmetries.
    pub seed: u64,
    /// Train on a random one of the board's symmetries of each position.
    pub augment: bool,
    /// Weight of the value loss beside the policy loss.
    pub value_weight: f32,
    /// Train on at most this many (randomly chosen) positions per epoch.
    pub positions_per_epoch: Option<usize>,
    /// Measure validation on at most this many positions (the first ones).
    pub validation_limit: Option<usize>,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            encoder: "sevenplane".to_string(),
            architecture: Architecture::Small,
            epochs: 1,
            batch: 64,
            learning_rate: 1e-3,
            seed: 1,
            augment: true,
            value_weight: 1.0,
            positions_per_epoch: None,
            validation_limit: Some(20_000),
        }
    }
}

/// Why training cannot go on.
#[derive(Debug, Error)]
pub enum TrainError {
    /// The encoder's name is unknown.
    #[error("{0}")]
    Encoder(String),
    /// The data has no trainable position.
    #[error("the training split has no position the encoder can label")]
    NoData,
    /// A game of the data is on another board size than the others.
    #[error("the data mixes board sizes: {0}x{1} and {2}x{3}")]
    MixedSizes(usize, usize, usize, usize),
    /// A model file (or checkpoint) problem.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A checkpoint does not match the configuration.
    #[error("the checkpoint does not match: {0}")]
    Checkpoint(String),
    /// A file could not be read or written.
    #[error("{path}: {reason}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        reason: String,
    },
}

/// Loss and accuracy over one split.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SplitMetrics {
    /// Positions measured.
    pub positions: usize,
    /// Mean policy cross-entropy.
    pub policy_loss: f64,
    /// Mean squared error of the value head against the result (networks
    /// with a value head; positions of games with a known winner).
    pub value_loss: Option<f64>,
    /// Share of positions whose played move is the network's first choice.
    pub top1: f64,
    /// Share of positions whose played move is among its first five.
    pub top5: f64,
}

/// What an epoch did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// The epoch's number, from 1.
    pub epoch: usize,
    /// Training split (measured during the epoch, as the network learned).
    pub train: SplitMetrics,
    /// Validation split (measured after the epoch).
    pub validation: SplitMetrics,
    /// Wall-clock seconds of the epoch, validation included.
    pub seconds: f64,
}

/// One labelled position: which game and turn.
#[derive(Clone, Copy, Debug)]
struct Sample {
    game: u32,
    turn: u32,
}

/// Accumulates metrics over batches.
#[derive(Default)]
struct Tally {
    positions: usize,
    policy_loss: f64,
    value_loss: f64,
    value_positions: usize,
    top1: usize,
    top5: usize,
}

impl Tally {
    fn metrics(&self) -> SplitMetrics {
        let n = self.positions.max(1) as f64;
        SplitMetrics {
            positions: self.positions,
            policy_loss: self.policy_loss / n,
            value_loss: (self.value_positions > 0)
                .then(|| self.value_loss / self.value_positions as f64),
            top1: self.top1 as f64 / n,
            top5: self.top5 as f64 / n,
        }
    }

    /// Counts top-1/top-5 hits from a batch's logits.
    fn count_hits(&mut self, logits: &[f32], targets: &[i64], moves: usize) {
        for (row, &target) in logits.chunks(moves).zip(targets) {
            let target_logit = row[target as usize];
            let better = row.iter().filter(|&&l| l > target_logit).count();
            self.top1 += (better == 0) as usize;
            self.top5 += (better < 5) as usize;
        }
    }
}

/// An encoded batch.
struct Batch {
    input: Vec<f32>,
    targets: Vec<i64>,
    values: Vec<f32>,
    value_mask: Vec<f32>,
}

/// The game before `turn` of `record`.
fn replay_to(record: &GameRecord, turn: usize) -> Game {
    let mut game = record.start();
    for n in 0..turn {
        // Records were checked when prepared; a move the rules refuse now
        // (none should) is played as a pass rather than stopping training.
        if game.play(record.move_at(n)).is_err() {
            let _ = game.play(Move::Pass);
        }
    }
    game
}

/// Every position of `games` whose move the encoder can label.
fn samples(games: &[GameRecord], encoder: &dyn Encoder) -> Vec<Sample> {
    let mut out = Vec::new();
    for (g, record) in games.iter().enumerate() {
        for (turn, mv) in record.moves.iter().enumerate() {
            if mv.is_some() || encoder.has_pass() {
                out.push(Sample {
                    game: g as u32,
                    turn: turn as u32,
                });
            }
        }
    }
    out
}

/// The board size all of `games` share.
fn common_size(data: &Dataset) -> Result<BoardSize, TrainError> {
    let mut games = data.train.iter().chain(data.validation.iter());
    let first = games.next().ok_or(TrainError::NoData)?.size;
    for record in games {
        if record.size != first {
            return Err(TrainError::MixedSizes(
                first.width(),
                first.height(),
                record.size.width(),
                record.size.height(),
            ));
        }
    }
    Ok(first)
}

/// A seed for one epoch's random choices.
fn epoch_seed(seed: u64, epoch: usize) -> u64 {
    tengen_core::stream_seed(seed, epoch as u64 + 1)
}

/// Trains a network, epoch by epoch.
pub struct Trainer {
    config: TrainConfig,
    size: BoardSize,
    encoder: Box<dyn Encoder>,
    shape: NetShape,
    /// Always present; taken out only while the optimizer steps.
    network: Option<Network>,
    optimizer: burn::optim::ModuleOptimizer,
    device: Device,
    epochs_done: usize,
    seconds: f64,
    last: Option<EpochReport>,
    data_name: String,
}

impl Trainer {
    /// A trainer with a freshly initialised network for `data`'s board size.
    pub fn new(
        config: TrainConfig,
        data: &Dataset,
        data_name: &str,
    ) -> Result<Trainer, TrainError> {
        let size = common_size(data)?;
        let encoder = encoder_by_name(&config.encoder, size)
            .map_err(|e| TrainError::Encoder(e.to_string()))?;
        let shape = NetShape {
            planes: encoder.planes(),
            width: size.width(),
            height: size.height(),
            moves: encoder.moves(),
        };
        let device = Device::flex().autodiff();
        let network = Network::seeded(config.architecture, shape, &device, config.seed);
        Ok(Trainer {
            optimizer: AdamConfig::new().init(),
            config,
            size,
            encoder,
            shape,
            network: Some(network),
            device,
            epochs_done: 0,
            seconds: 0.0,
            last: None,
            data_name: data_name.to_string(),
        })
    }

    /// A trainer that continues from the checkpoint `model_path` (a model
    /// file written by [`Trainer::save_checkpoint`], with its optimizer state
    /// beside it).
    pub fn resume(
        config: TrainConfig,
        data: &Dataset,
        data_name: &str,
        model_path: &Path,
    ) -> Result<Trainer, TrainError> {
        let model = Model::load(model_path)?;
        let meta = model.metadata();
        let size = common_size(data)?;
        if meta.encoder != config.encoder
            || meta.architecture != config.architecture
            || meta.width != size.width()
            || meta.height != size.height()
        {
            return Err(TrainError::Checkpoint(format!(
                "it is a {} network with encoder {} on {}x{}, the run asks for {} with {} on {}x{}",
                meta.architecture,
                meta.encoder,
                meta.width,
                meta.height,
                config.architecture,
                config.encoder,
                size.width(),
                size.height()
            )));
        }
        if meta.provenance.seed != config.seed {
            return Err(TrainError::Checkpoint(format!(
                "it was trained with seed {}, the run asks for seed {}",
                meta.provenance.seed, config.seed
            )));
        }
        let optimizer_path = optimizer_path(model_path);
        let optimizer_bytes = std::fs::read(&optimizer_path).map_err(|e| TrainError::Io {
            path: optimizer_path.display().to_string(),
            reason: e.to_string(),
        })?;
        let mut trainer = Trainer::new(config, data, data_name)?;
        trainer.optimizer = AdamConfig::new()
            .init()
            .from_bytes(burn::tensor::Bytes::from_bytes_vec(optimizer_bytes))
            .map_err(|e| TrainError::Checkpoint(format!("optimizer state: {e}")))?;
        trainer.network = Some(model.network().clone().to_device(&trainer.device).train());
        trainer.epochs_done = meta.provenance.epochs;
        trainer.seconds = meta.provenance.train_seconds;
        Ok(trainer)
    }

    fn net(&self) -> &Network {
        self.network.as_ref().expect("the network is present")
    }

    /// Epochs trained so far.
    pub fn epochs_done(&self) -> usize {
        self.epochs_done
    }

    /// The board size.
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// Encodes `chosen` samples of `games` into a batch.
    fn encode(
        &self,
        games: &[GameRecord],
        chosen: &[Sample],
        rng: Option<&mut Rng>,
        scratch: &mut Vec<f32>,
    ) -> Batch {
        let len = self.encoder.input_len();
        let mut batch = Batch {
            input: vec![0.0; len * chosen.len()],
            targets: Vec::with_capacity(chosen.len()),
            values: Vec::with_capacity(chosen.len()),
            value_mask: Vec::with_capacity(chosen.len()),
        };
        scratch.resize(len, 0.0);
        let symmetries = Symmetry::for_size(self.size);
        let mut rng = rng;
        for (sample, slot) in chosen.iter().zip(batch.input.chunks_mut(len)) {
            let record = &games[sample.game as usize];
            let turn = sample.turn as usize;
            let game = replay_to(record, turn);
            let mv = record.move_at(turn);
            let target = self
                .encoder
                .encode_move(mv)
                .expect("samples hold only moves the encoder labels");
            let symmetry = match rng.as_deref_mut() {
                Some(rng) if self.config.augment => symmetries[rng.below(symmetries.len())],
                _ => Symmetry::IDENTITY,
            };
            if symmetry == Symmetry::IDENTITY {
                self.encoder.encode(&game, slot);
                batch.targets.push(target as i64);
            } else {
                self.encoder.encode(&game, scratch);
                symmetry.apply_planes(self.size, self.shape.planes, scratch, slot);
                batch
                    .targets
                    .push(symmetry.map_move(self.size, target) as i64);
            }
            let mover: Color = game.to_move();
            match record.winner {
                Some(winner) => {
                    batch.values.push(if winner == mover { 1.0 } else { -1.0 });
                    batch.value_mask.push(1.0);
                }
                None => {
                    batch.values.push(0.0);
                    batch.value_mask.push(0.0);
                }
            }
        }
        batch
    }

    fn tensors(
        &self,
        batch: &Batch,
        device: &Device,
    ) -> (Tensor<4>, Tensor<1, Int>, Tensor<2>, Tensor<2>) {
        let n = batch.targets.len();
        let s = self.shape;
        let input = Tensor::from_data(
            TensorData::new(batch.input.clone(), [n, s.planes, s.height, s.width]),
            device,
        );
        let targets = Tensor::from_data(TensorData::new(batch.targets.clone(), [n]), device);
        let values = Tensor::from_data(TensorData::new(batch.values.clone(), [n, 1]), device);
        let mask = Tensor::from_data(TensorData::new(batch.value_mask.clone(), [n, 1]), device);
        (input, targets, values, mask)
    }

    /// Trains one epoch and measures both splits; `on_step(done, total)`
    /// is called after every batch.
    pub fn run_epoch(
        &mut self,
        data: &Dataset,
        on_step: &mut dyn FnMut(usize, usize, f64),
    ) -> Result<EpochReport, TrainError> {
        let started = Instant::now();
        let epoch = self.epochs_done + 1;
        let mut rng = Rng::new(epoch_seed(self.config.seed, epoch));
        let mut order = samples(&data.train, self.encoder.as_ref());
        if order.is_empty() {
            return Err(TrainError::NoData);
        }
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i + 1));
        }
        if let Some(limit) = self.config.positions_per_epoch {
            order.truncate(limit.max(1));
        }
        let loss_fn = CrossEntropyLossConfig::new().init(&self.device);
        let batches = order.len().div_ceil(self.config.batch.max(1));
        let mut tally = Tally::default();
        let mut scratch = Vec::new();
        let has_value = self.config.architecture.has_value_head();
        for (b, chosen) in order.chunks(self.config.batch.max(1)).enumerate() {
            let batch = self.encode(&data.train, chosen, Some(&mut rng), &mut scratch);
            let (input, targets, values, mask) = self.tensors(&batch, &self.device);
            let (logits, value) = self.net().forward(input);
            let policy_loss = loss_fn.forward(logits.clone(), targets);
            let mut loss = policy_loss.clone();
            let mut value_loss_value = None;
            if let (true, Some(value)) = (has_value, value) {
                let known: f32 = batch.value_mask.iter().sum();
                if known > 0.0 {
                    let squared = (value - values).powf_scalar(2.0) * mask;
                    let value_loss = squared.sum().div_scalar(known);
                    value_loss_value =
                        Some((value_loss.clone().into_scalar::<f32>() as f64, known));
                    loss = loss + value_loss.mul_scalar(self.config.value_weight);
                }
            }
            let policy_value: f32 = policy_loss.into_scalar::<f32>();
            let logits_data: Vec<f32> = logits
                .into_data()
                .try_to_vec::<f32>()
                .expect("float logits");
            tally.count_hits(&logits_data, &batch.targets, self.shape.moves);
            tally.positions += chosen.len();
            tally.policy_loss += policy_value as f64 * chosen.len() as f64;
            if let Some((v, known)) = value_loss_value {
                tally.value_loss += v * known as f64;
                tally.value_positions += known as usize;
            }
            let network = self.network.take().expect("the network is present");
            let grads = GradientsParams::from_grads(loss.backward(), &network);
            self.network = Some(
                self.optimizer
                    .step(self.config.learning_rate, network, grads),
            );
            on_step(b + 1, batches, policy_value as f64);
        }
        let validation = self.validate(data);
        self.epochs_done = epoch;
        let seconds = started.elapsed().as_secs_f64();
        self.seconds += seconds;
        let report = EpochReport {
            epoch,
            train: tally.metrics(),
            validation,
            seconds,
        };
        self.last = Some(report);
        Ok(report)
    }

    /// Loss and accuracy of the current network on the validation split.
    pub fn validate(&self, data: &Dataset) -> SplitMetrics {
        let mut chosen = samples(&data.validation, self.encoder.as_ref());
        if let Some(limit) = self.config.validation_limit {
            chosen.truncate(limit);
        }
        let network = self.net().valid();
        let device = Device::flex();
        let network = network.to_device(&device);
        let loss_fn = CrossEntropyLossConfig::new().init(&device);
        let mut tally = Tally::default();
        let mut scratch = Vec::new();
        for part in chosen.chunks(256) {
            let batch = self.encode(&data.validation, part, None, &mut scratch);
            let (input, targets, values, mask) = self.tensors(&batch, &device);
            let (logits, value) = network.forward(input);
            let policy: f32 = loss_fn
                .forward(logits.clone(), targets)
                .into_scalar::<f32>();
            let logits_data: Vec<f32> = logits
                .into_data()
                .try_to_vec::<f32>()
                .expect("float logits");
            tally.count_hits(&logits_data, &batch.targets, self.shape.moves);
            tally.positions += part.len();
            tally.policy_loss += policy as f64 * part.len() as f64;
            if let Some(value) = value {
                let known: f32 = batch.value_mask.iter().sum();
                if known > 0.0 {
                    let squared: f32 = ((value - values).powf_scalar(2.0) * mask)
                        .sum()
                        .into_scalar::<f32>();
                    tally.value_loss += squared as f64;
                    tally.value_positions += known as usize;
                }
            }
        }
        tally.metrics()
    }

    /// The current network as a model, with its provenance filled in.
    pub fn model(&self, data: &Dataset) -> Result<Model, TrainError> {
        let encoder = self.encoder.as_ref();
        let metadata = ModelMetadata {
            encoder: encoder.name().to_string(),
            width: self.size.width(),
            height: self.size.height(),
            planes: encoder.planes(),
            moves: encoder.moves(),
            architecture: self.config.architecture,
            provenance: Provenance {
                data: self.data_name.clone(),
                train_games: data.train.len(),
                train_positions: samples(&data.train, encoder).len(),
                validation_positions: samples(&data.validation, encoder).len(),
                epochs: self.epochs_done,
                batch: self.config.batch,
                learning_rate: self.config.learning_rate,
                seed: self.config.seed,
                train_seconds: self.seconds,
                validation_top1: self.last.map(|r| r.validation.top1),
                validation_top5: self.last.map(|r| r.validation.top5),
                tengen_version: env!("CARGO_PKG_VERSION").to_string(),
            },
        };
        Ok(Model::new(metadata, self.net().clone())?)
    }

    /// Writes `DIR/epoch-NNN.tgm` (the model) and `DIR/epoch-NNN.optim`
    /// (the optimizer's state) and returns the model's path.
    pub fn save_checkpoint(&self, data: &Dataset, dir: &Path) -> Result<PathBuf, TrainError> {
        std::fs::create_dir_all(dir).map_err(|e| TrainError::Io {
            path: dir.display().to_string(),
            reason: e.to_string(),
        })?;
        let path = dir.join(format!("epoch-{:03}.tgm", self.epochs_done));
        self.model(data)?.save(&path)?;
        let optimizer = self
            .optimizer
            .into_bytes()
            .map_err(|e| TrainError::Checkpoint(format!("optimizer state: {e}")))?;
        let optimizer_path = optimizer_path(&path);
        std::fs::write(&optimizer_path, &optimizer[..]).map_err(|e| TrainError::Io {
            path: optimizer_path.display().to_string(),
            reason: e.to_string(),
        })?;
        Ok(path)
    }
}

/// Where a checkpoint's optimizer state lives.
pub fn optimizer_path(model_path: &Path) -> PathBuf {
    model_path.with_extension("optim")
}
