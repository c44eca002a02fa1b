//! KataGo networks as the PUCT search's evaluator, and the cache that loads
//! each network file once per process (a server builds a bot per request).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tengen_core::{BoardSize, Color, Game};
use tengen_katago::forward::{Features, Kernel, Precision};
use tengen_katago::model::ModelError;
use tengen_katago::network::{
    grid_point, EvalOptions, NetInput, Network, Symmetries, MAX_BOARD_SIDE,
};
use tengen_katago::output::Evaluation;

use crate::batching::SharedBatches;
use crate::handicap::PlayoutAdvantage;
use crate::{EvaluatorError, NetEvaluation, PositionEvaluator};

/// A network loaded, with its canonical path, thread count and kernel.
type Loaded = (PathBuf, usize, Kernel, Arc<Network>);

/// Networks loaded so far.
static NETWORKS: Mutex<Vec<Loaded>> = Mutex::new(Vec::new());

/// The network in `path`, run on `threads` threads at `precision`, loaded
/// on first use and shared afterwards. The first load of each kernel logs
/// which one runs.
pub fn load_network(
    path: &Path,
    threads: usize,
    precision: Precision,
) -> Result<Arc<Network>, String> {
    let kernel = precision.kernel(Features::detect());
    let canonical = path
        .canonicalize()
        .map_err(|e| format!("cannot read it: {e}"))?;
    let mut cache = NETWORKS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, _, _, network)) = cache
        .iter()
        .find(|(p, t, k, _)| *p == canonical && *t == threads && *k == kernel)
    {
        return Ok(Arc::clone(network));
    }
    let network = Network::load(&canonical, threads).map_err(|e| match e {
        ModelError::Io { source, .. } => format!("cannot read it: {source}"),
        ModelError::Directory(_) => "it is a directory, not a KataGo model file".to_string(),
        ModelError::Format { error, .. } => format!("it cannot be used: {error}"),
    })?;
    let network = Arc::new(network.with_kernel(kernel));
    tracing::info!(
        model = %canonical.display(),
        threads,
        %precision,
        kernel = %network.kernel(),
        "KataGo network loaded"
    );
    cache.push((canonical, threads, kernel, Arc::clone(&network)));
    Ok(network)
}

/// How a [`KataGoEvaluator`] evaluates, KataGo's GTP defaults unless
/// changed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KataGoEvalSettings {
    /// Optimistic policy mixed in at the search's root
    /// (`rootPolicyOptimism`, 0.2).
    pub root_policy_optimism: f32,
    /// The same below the root (`policyOptimism`, 1.0).
    pub policy_optimism: f32,
    /// A random symmetry for every evaluation, as KataGo draws one, rather
    /// than one symmetry for a whole batch, the next each batch.
    pub random_symmetry: bool,
    /// Seed of those draws.
    pub seed: u64,
    /// Evaluate every position under this one symmetry instead (KataGo's
    /// `nnRandomize = false` is symmetry 0).
    pub fixed_symmetry: Option<u8>,
    /// Playout doubling advantage of one player (KataGo's
    /// `playoutDoublingAdvantage`): the network assumes that this player
    /// searches 2^pda times as much as the other, and the other −pda.
    pub playout_doubling_advantage: Option<(Color, f32)>,
    /// Hide the moves played before this turn from the network (KataGo's
    /// `ignorePreRootHistory`, with a search's root at this turn).
    pub history_from: Option<usize>,
    /// KataGo's `enablePassingHacks`, on in its GTP and analysis engines:
    /// where a pass would end the game and the count as it stands would
    /// not win it, the network is shown no history (it does not value the
    /// pass as the end), and no pass prior exceeds 95%
    /// ([`tengen_katago::inputs::InputOptions::passing_hacks`]).
    pub passing_hacks: bool,
}

impl Default for KataGoEvalSettings {
    fn default() -> Self {
        KataGoEvalSettings {
            root_policy_optimism: 0.2,
            policy_optimism: 1.0,
            random_symmetry: true,
            seed: 0,
            fixed_symmetry: None,
            playout_doubling_advantage: None,
            history_from: None,
            passing_hacks: true,
        }
    }
}

/// A KataGo network evaluating the search's leaves: each position under a
/// symmetry of its own, drawn at random (or each batch under the next of the
/// eight in turn), so that the tree sees them all; the optimistic policy
/// mixed in at the root and below it as KataGo mixes it.
pub struct KataGoEvaluator {
    network: Arc<Network>,
    options: EvalOptions,
    settings: KataGoEvalSettings,
    /// The playout doubling advantage shown to the network now: the
    /// settings' at first, changed between moves by
    /// [`crate::handicap::HandicapPlay`].
    advantage: Arc<PlayoutAdvantage>,
    next_symmetry: AtomicU64,
    batches: Option<Arc<SharedBatches>>,
}

impl KataGoEvaluator {
    /// An evaluator over a loaded network, with KataGo's settings.
    pub fn new(network: Arc<Network>) -> KataGoEvaluator {
        KataGoEvaluator::with_settings(network, KataGoEvalSettings::default())
    }

    /// An evaluator over a loaded network with these settings.
    pub fn with_settings(network: Arc<Network>, settings: KataGoEvalSettings) -> KataGoEvaluator {
        KataGoEvaluator {
            network,
            options: EvalOptions::default(),
            settings,
            advantage: Arc::new(PlayoutAdvantage::new(settings.playout_doubling_advantage)),
            next_symmetry: AtomicU64::new(settings.seed),
            batches: None,
        }
    }

    /// An evaluator whose positions go into `batches`, shared with other
    /// searches, with these settings.
    pub fn shared(batches: Arc<SharedBatches>, settings: KataGoEvalSettings) -> KataGoEvaluator {
        let mut evaluator = KataGoEvaluator::with_settings(Arc::clone(batches.network()), settings);
        evaluator.batches = Some(batches);
        evaluator
    }

    /// The settings.
    pub fn settings(&self) -> &KataGoEvalSettings {
        &self.settings
    }

    /// The playout doubling advantage it shows the network, to change
    /// between moves.
    pub fn advantage(&self) -> Arc<PlayoutAdvantage> {
        Arc::clone(&self.advantage)
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.network
    }

    /// The symmetries of a batch of `count` positions.
    fn symmetries(&self, count: usize) -> Vec<u8> {
        if let Some(symmetry) = self.settings.fixed_symmetry {
            return vec![symmetry; count];
        }
        let draw = self.next_symmetry.fetch_add(1, Ordering::Relaxed);
        if !self.settings.random_symmetry {
            return vec![(draw % 8) as u8; count];
        }
        // SplitMix64 over the draw counter: reproducible from the seed,
        // independent between positions.
        let mut state = tengen_core::stream_seed(self.settings.seed, draw);
        (0..count)
            .map(|_| {
                let z = tengen_core::splitmix64(state);
                state = state.wrapping_add(tengen_core::GOLDEN_GAMMA);
                (z % 8) as u8
            })
            .collect()
    }

    /// Evaluates `positions` with this policy optimism.
    fn run(
        &self,
        positions: &[&Game],
        optimism: f32,
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        let symmetries = self.symmetries(positions.len());
        let mut inputs = Vec::with_capacity(positions.len());
        for (game, &symmetry) in positions.iter().zip(&symmetries) {
            let mut options = self.options.inputs;
            options.playout_doubling_advantage = self.advantage.seen_by(game.to_move());
            if let Some(from) = self.settings.history_from {
                options.history_limit = Some(game.turn_count().saturating_sub(from));
            }
            options.passing_hacks = self.settings.passing_hacks;
            options.cleanup_after_passes = true;
            let input = self
                .network
                .prepare(game, &options)
                .map_err(|e| EvaluatorError::new(e.to_string()))?;
            inputs.push((input, symmetry));
        }
        let evaluations = match &self.batches {
            Some(batches) => batches.evaluate(inputs, optimism, cancel),
            None => {
                let refs: Vec<(&NetInput, u8)> = inputs.iter().map(|(i, s)| (i, *s)).collect();
                self.network.evaluate_inputs(&refs, optimism, cancel)
            }
        }
        .map_err(|e| EvaluatorError::new(e.to_string()))?;
        Ok(positions
            .iter()
            .zip(&evaluations)
            .map(|(game, evaluation)| net_evaluation(game, evaluation))
            .collect())
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
        score_mean: Some((f64::from(sign) * evaluation.white_score_mean) as f32),
        shortterm_error: Some((
            evaluation.shortterm_winloss_error as f32,
            evaluation.shortterm_score_error as f32,
        )),
        score_mean_sq: Some(evaluation.white_score_mean_sq as f32),
        var_time_left: Some(evaluation.var_time_left as f32),
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
        self.run(positions, self.settings.policy_optimism, cancel)
    }

    fn evaluate_root(
        &self,
        root: &Game,
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<NetEvaluation, EvaluatorError> {
        let mut evaluations = self.run(&[root], self.settings.root_policy_optimism, cancel)?;
        Ok(evaluations.remove(0))
    }

    fn gives_uncertainty(&self) -> bool {
        true
    }

    fn input_salt(&self) -> u64 {
        self.advantage.salt()
    }

    fn positions_in_parallel(&self) -> usize {
        // Batches shared between searches keep the threads busy with other
        // searches' positions.
        if self.batches.is_some() {
            1
        } else {
            self.network.threads()
        }
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

    fn finished_margin(&self, game: &Game) -> Option<f32> {
        tengen_katago::inputs::finished_margin(game)
    }

    fn plays_on_after_passes(&self, game: &Game) -> bool {
        game.rules().scoring == tengen_core::Scoring::Territory
            && game.consecutive_passes() >= 2
            && game.resigned().is_none()
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
