//! KataGo networks as the PUCT search's evaluator, and the cache that loads
//! each network file once per process (a server builds a bot per request).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tengen_core::{BoardSize, Color, Game};
use tengen_katago::model::ModelError;
use tengen_katago::network::{grid_point, EvalOptions, Network, Symmetries, MAX_BOARD_SIDE};
use tengen_katago::output::Evaluation;

use crate::{EvaluatorError, NetEvaluation, PositionEvaluator};

/// Networks loaded so far, by canonical path and thread count.
static NETWORKS: Mutex<Vec<(PathBuf, usize, Arc<Network>)>> = Mutex::new(Vec::new());

/// The network in `path`, run on `threads` threads, loaded on first use and
/// shared afterwards.
pub fn load_network(path: &Path, threads: usize) -> Result<Arc<Network>, String> {
    let canonical = path
        .canonicalize()
        .map_err(|e| format!("cannot read it: {e}"))?;
    let mut cache = NETWORKS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, network)) = cache
        .iter()
        .find(|(p, t, _)| *p == canonical && *t == threads)
    {
        return Ok(Arc::clone(network));
    }
    let network = Arc::new(Network::load(&canonical, threads).map_err(|e| match e {
        ModelError::Io { source, .. } => format!("cannot read it: {source}"),
        ModelError::Directory(_) => "it is a directory, not a KataGo model file".to_string(),
        ModelError::Format { error, .. } => format!("it cannot be used: {error}"),
    })?);
    cache.push((canonical, threads, Arc::clone(&network)));
    Ok(network)
}

/// A KataGo network evaluating the search's leaves, each batch under the
/// next of the eight symmetries in turn (as KataGo picks a symmetry per
/// evaluation, so that the tree sees them all).
pub struct KataGoEvaluator {
    network: Arc<Network>,
    options: EvalOptions,
    next_symmetry: AtomicU64,
}

impl KataGoEvaluator {
    /// An evaluator over a loaded network.
    pub fn new(network: Arc<Network>) -> KataGoEvaluator {
        KataGoEvaluator {
            network,
            options: EvalOptions::default(),
            next_symmetry: AtomicU64::new(0),
        }
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.network
    }
}

/// A KataGo evaluation in the search's terms: the side to move's view,
/// moves instead of grid indices.
pub fn net_evaluation(game: &Game, evaluation: &Evaluation) -> NetEvaluation {
    let size = game.size();
    let (width, height) = (size.width(), size.height());
    let policy = evaluation.move_policy(size);
    let white = game.to_move() == Color::White;
    let sign = if white { 1.0 } else { -1.0 };
    let (win, loss) = if white {
        (evaluation.white_win, evaluation.white_loss)
    } else {
        (evaluation.white_loss, evaluation.white_win)
    };
    let mut ownership = vec![0.0f32; tengen_core::MAX_CELLS];
    for y in 0..height {
        for x in 0..width {
            ownership[grid_point(size, x, y).index()] =
                sign * evaluation.white_ownership[y * width + x];
        }
    }
    NetEvaluation {
        policy,
        win: win as f32,
        loss: loss as f32,
        no_result: evaluation.no_result as f32,
        lead: (f64::from(sign) * evaluation.white_lead) as f32,
        ownership: Some(ownership),
    }
}

impl PositionEvaluator for KataGoEvaluator {
    fn evaluate(&self, positions: &[&Game]) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        self.evaluate_until(positions, &|| false)
    }

    fn abandons(&self) -> bool {
        true
    }

    fn evaluate_until(
        &self,
        positions: &[&Game],
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        let symmetry = (self.next_symmetry.fetch_add(1, Ordering::Relaxed) % 8) as u8;
        let evaluations = self
            .network
            .evaluate_until(positions, Symmetries::One(symmetry), &self.options, cancel)
            .map_err(|e| EvaluatorError::new(e.to_string()))?;
        Ok(positions
            .iter()
            .zip(&evaluations)
            .map(|(game, evaluation)| net_evaluation(game, evaluation))
            .collect())
    }

    fn supports(&self, size: BoardSize) -> Result<(), String> {
        if size.width() > MAX_BOARD_SIDE || size.height() > MAX_BOARD_SIDE {
            return Err(format!(
                "KataGo networks are run on boards up to {MAX_BOARD_SIDE}x{MAX_BOARD_SIDE}"
            ));
        }
        Ok(())
    }

    fn name(&self) -> &str {
        "katago"
    }

    fn raw_output(
        &self,
        game: &Game,
        symmetry: Option<u8>,
        optimism: Option<f32>,
    ) -> Option<Result<String, String>> {
        let mut options = self.options;
        if let Some(optimism) = optimism {
            options.policy_optimism = optimism;
        }
        let size = game.size();
        let symmetries: Vec<u8> = match symmetry {
            Some(s) => vec![s],
            None => (0..8).collect(),
        };
        let mut text = String::new();
        for s in symmetries {
            match self.network.evaluate(&[game], Symmetries::One(s), &options) {
                Ok(evaluations) => text.push_str(&tengen_katago::raw_nn::format(
                    &evaluations[0],
                    size.width(),
                    size.height(),
                    &s.to_string(),
                )),
                Err(e) => return Some(Err(e.to_string())),
            }
            text.push('\n');
        }
        Some(Ok(text.trim_end().to_string()))
    }
}
