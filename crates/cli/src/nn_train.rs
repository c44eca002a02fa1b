//! `tengen nn train`, `tengen nn bench` and `tengen nn info`: training a
//! network on prepared shards, measuring inference speed, and describing a
//! model file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use tengen_core::{BoardSize, Game, Move, Rng, Rules};
use tengen_nn::model::Model;
use tengen_train::data::Dataset;
use tengen_train::train::{EpochReport, SplitMetrics, TrainConfig, Trainer};

/// What `tengen nn train` was asked to do.
#[derive(Clone, Debug)]
pub struct TrainJob {
    /// A folder written by `tengen nn prepare`.
    pub data: PathBuf,
    /// Training settings.
    pub config: TrainConfig,
    /// Where checkpoints go (one model file and one optimizer file per epoch).
    pub checkpoints: PathBuf,
    /// Continue from this checkpoint (its epochs count toward `epochs`).
    pub resume: Option<PathBuf>,
    /// Write the final model here too.
    pub output: Option<PathBuf>,
}

/// One line of an epoch's metrics.
pub fn metrics_text(metrics: &SplitMetrics) -> String {
    let mut text = format!(
        "loss {:.3}  top-1 {:5.1}%  top-5 {:5.1}%",
        metrics.policy_loss,
        metrics.top1 * 100.0,
        metrics.top5 * 100.0
    );
    if let Some(value) = metrics.value_loss {
        text.push_str(&format!("  value mse {value:.3}"));
    }
    text
}

/// The report printed after an epoch.
pub fn epoch_text(report: &EpochReport, epochs: usize) -> String {
    format!(
        "epoch {}/{}  train: {} ({} positions)  validation: {} ({} positions)  {:.1} s",
        report.epoch,
        epochs,
        metrics_text(&report.train),
        report.train.positions,
        metrics_text(&report.validation),
        report.validation.positions,
        report.seconds
    )
}

/// Trains as `job` says, printing each epoch's report to `out`; `on_step`
/// sees (epoch, batch done, batches, loss) for a progress bar. Returns the
/// path of the last checkpoint.
pub fn train(
    job: &TrainJob,
    out: &mut dyn Write,
    on_step: &mut dyn FnMut(usize, usize, usize, f64),
) -> Result<PathBuf> {
    let data = Dataset::load(&job.data)
        .with_context(|| format!("reading training data from {}", job.data.display()))?;
    let name = job.data.display().to_string();
    let mut trainer = match &job.resume {
        Some(checkpoint) => Trainer::resume(job.config.clone(), &data, &name, checkpoint)?,
        None => Trainer::new(job.config.clone(), &data, &name)?,
    };
    writeln!(
        out,
        "data: {} training games ({} positions), {} validation games ({} positions); network {} with encoder {} on {}x{}",
        data.train.len(),
        data.train_positions(),
        data.validation.len(),
        data.validation_positions(),
        job.config.architecture,
        job.config.encoder,
        trainer.size().width(),
        trainer.size().height()
    )?;
    if trainer.epochs_done() >= job.config.epochs {
        bail!(
            "the checkpoint has already trained {} epochs; ask for more with --epochs",
            trainer.epochs_done()
        );
    }
    let mut last = None;
    while trainer.epochs_done() < job.config.epochs {
        let epoch = trainer.epochs_done() + 1;
        let report = trainer.run_epoch(&data, &mut |done, total, loss| {
            on_step(epoch, done, total, loss)
        })?;
        writeln!(out, "{}", epoch_text(&report, job.config.epochs))?;
        let path = trainer.save_checkpoint(&data, &job.checkpoints)?;
        writeln!(out, "checkpoint: {}", path.display())?;
        last = Some(path);
    }
    let last = last.expect("at least one epoch ran");
    if let Some(output) = &job.output {
        std::fs::copy(&last, output)
            .with_context(|| format!("copying the model to {}", output.display()))?;
        writeln!(out, "model: {}", output.display())?;
    }
    Ok(last)
}

/// Inference speed at one batch size.
#[derive(Clone, Copy, Debug)]
pub struct InferenceSpeed {
    /// Positions per batch.
    pub batch: usize,
    /// Positions evaluated.
    pub positions: usize,
    /// Positions per second (wall clock).
    pub per_second: f64,
}

/// Positions from random games on `size`, for timing.
fn sample_positions(size: BoardSize, count: usize, seed: u64) -> Vec<Game> {
    let mut rng = Rng::new(seed);
    let mut games = Vec::with_capacity(count);
    while games.len() < count {
        let mut game = Game::new(size, Rules::default());
        let turns = rng.below(size.points_count().max(2));
        for _ in 0..turns {
            let moves = game.legal_moves();
            let mv = moves[rng.below(moves.len())];
            if mv == Move::Pass || game.play(mv).is_err() {
                break;
            }
        }
        games.push(game);
    }
    games
}

/// Times `model` on batches of each size in `batches`, for about `seconds`
/// each.
pub fn bench_inference(model: &Model, batches: &[usize], seconds: f64) -> Vec<InferenceSpeed> {
    let positions = sample_positions(model.size(), 256, 7);
    let mut results = Vec::new();
    for &batch in batches {
        let batch = batch.max(1);
        // Warm up (first calls allocate).
        let refs: Vec<&Game> = positions.iter().cycle().take(batch).collect();
        model.predict(&refs);
        let started = Instant::now();
        let mut done = 0;
        let mut offset = 0;
        while started.elapsed().as_secs_f64() < seconds || done == 0 {
            let refs: Vec<&Game> = positions.iter().cycle().skip(offset).take(batch).collect();
            offset = (offset + batch) % positions.len();
            let predictions = model.predict(&refs);
            done += predictions.len();
        }
        results.push(InferenceSpeed {
            batch,
            positions: done,
            per_second: done as f64 / started.elapsed().as_secs_f64(),
        });
    }
    results
}

/// A model file's metadata as text.
pub fn describe(path: &Path, model: &Model) -> String {
    let meta = model.metadata();
    let p = &meta.provenance;
    let percent = |x: Option<f64>| x.map_or("-".to_string(), |v| format!("{:.1}%", v * 100.0));
    format!(
        "{}\n  network {} ({} parameters), encoder {} ({} planes, {} moves), board {}x{}\n  \
         trained on {} ({} games, {} positions; {} validation positions), {} epochs, batch {}, \
         learning rate {}, seed {}, {:.0} s\n  validation top-1 {}, top-5 {}; tengen {}",
        path.display(),
        meta.architecture,
        model.parameters(),
        meta.encoder,
        meta.planes,
        meta.moves,
        meta.width,
        meta.height,
        if p.data.is_empty() { "-" } else { &p.data },
        p.train_games,
        p.train_positions,
        p.validation_positions,
        p.epochs,
        p.batch,
        p.learning_rate,
        p.seed,
        p.train_seconds,
        percent(p.validation_top1),
        percent(p.validation_top5),
        p.tengen_version
    )
}
