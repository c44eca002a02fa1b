//! A loaded KataGo network ready to evaluate positions of tengen games:
//! inputs, symmetry, forward pass and post-processing in one call.

use std::path::Path;

use tengen_core::{Color, Game, Move, Point};

use crate::forward::{forward_until, Exec, Features, Kernel, Precision, RawOutput};
use crate::inputs::{self, InputOptions, KataKo, KataRules};
use crate::model::{ModelDesc, ModelError, GLOBAL_INPUTS, SPATIAL_INPUTS};
use crate::output::{evaluate, Evaluation};
use crate::symmetry::{permute_planes, point_map, SYMMETRIES};

/// The largest board side evaluated. KataGo's networks are fully
/// convolutional (with attention over the points), trained up to 19×19;
/// KataGo itself can be built for boards up to 29×29, and tengen's boards
/// stop at 25×25.
pub const MAX_BOARD_SIDE: usize = 25;

/// Why a position could not be evaluated.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The inputs could not be computed (rules KataGo cannot express, …).
    #[error("{0}")]
    Inputs(#[from] inputs::InputError),
    /// The board is larger than the network is run on.
    #[error("a {width}x{height} board is larger than the {MAX_BOARD_SIDE}x{MAX_BOARD_SIDE} that KataGo networks are run on")]
    BoardTooLarge {
        /// Columns.
        width: usize,
        /// Rows.
        height: usize,
    },
    /// A symmetry per game, but not as many as games.
    #[error("{symmetries} symmetries for {games} games")]
    SymmetryCount {
        /// Symmetries given.
        symmetries: usize,
        /// Games given.
        games: usize,
    },
    /// A symmetry outside 0..8.
    #[error("symmetry {0} does not exist (0 to 7)")]
    Symmetry(u8),
    /// The caller cancelled the evaluation before it finished.
    #[error("the evaluation was cancelled")]
    Cancelled,
    /// A batch shared with other searches failed for this reason.
    #[error("{0}")]
    Batch(String),
}

/// Which symmetries to evaluate a position under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Symmetries {
    /// One symmetry, 0 (identity) to 7.
    One(u8),
    /// All eight, averaged as KataGo averages them.
    All,
    /// One for each game of the batch, in order (KataGo draws a random
    /// symmetry for every evaluation).
    Each(Vec<u8>),
}

/// Settings of an evaluation that are not part of the position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EvalOptions {
    /// How much of the optimistic policy to mix in (KataGo's
    /// `rootPolicyOptimism` is 0.2, which `kata-raw-nn` uses).
    pub policy_optimism: f32,
    /// Input options (conservative pass, playout doubling advantage).
    pub inputs: InputOptions,
}

impl Default for EvalOptions {
    fn default() -> EvalOptions {
        EvalOptions {
            policy_optimism: 0.2,
            inputs: InputOptions::default(),
        }
    }
}

/// A KataGo network and the threads it runs on.
pub struct Network {
    model: ModelDesc,
    threads: usize,
    kernel: Kernel,
    pool: rayon::ThreadPool,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("name", &self.model.name)
            .field("version", &self.model.version)
            .field("threads", &self.threads)
            .field("kernel", &self.kernel)
            .finish()
    }
}

impl Network {
    /// Loads a model file to run on `threads` threads (at least one).
    pub fn load(path: &Path, threads: usize) -> Result<Network, ModelError> {
        Ok(Network::new(ModelDesc::load(path)?, threads))
    }

    /// Wraps a model read already, to run in f32 (see
    /// [`Network::with_precision`]).
    pub fn new(model: ModelDesc, threads: usize) -> Network {
        let threads = threads.max(1);
        let pool = rayon::ThreadPoolBuilder::new()
            .start_handler(|_| crate::forward::flush_subnormals())
            .num_threads(threads)
            .thread_name(|i| format!("katago-{i}"))
            .build()
            .expect("a thread pool for the network");
        Network {
            model,
            threads,
            kernel: Kernel::F32,
            pool,
        }
    }

    /// The same network at `precision`, on the kernel it picks on this
    /// CPU ([`Precision::kernel`]).
    pub fn with_precision(self, precision: Precision) -> Network {
        self.with_kernel(precision.kernel(Features::detect()))
    }

    /// The same network on `kernel`, which must be one this CPU runs
    /// (one of [`Features::units`] or the portable bf16 unit, and int8 and
    /// int16 units it has); otherwise f32.
    pub fn with_kernel(mut self, kernel: Kernel) -> Network {
        let features = Features::detect();
        let available = kernel.unit.runs_on(features)
            && kernel.int8.is_none_or(|unit| unit.runs_on(features))
            && kernel.int16.is_none_or(|unit| unit.runs_on(features));
        self.kernel = if available { kernel } else { Kernel::F32 };
        self
    }

    /// The arithmetic of its matrix products.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// The model as read from its file.
    pub fn model(&self) -> &ModelDesc {
        &self.model
    }

    /// Threads used by the forward pass.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Evaluates the side to move of each game. Games may have different
    /// board sizes; each size is run as one batch.
    pub fn evaluate(
        &self,
        games: &[&Game],
        symmetries: Symmetries,
        options: &EvalOptions,
    ) -> Result<Vec<Evaluation>, EvalError> {
        self.evaluate_until(games, symmetries, options, &|| false)
    }

    /// [`Network::evaluate`], given up with [`EvalError::Cancelled`] soon
    /// after `cancel` says so (it is asked between the network's blocks).
    pub fn evaluate_until(
        &self,
        games: &[&Game],
        symmetries: Symmetries,
        options: &EvalOptions,
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<Evaluation>, EvalError> {
        let lists: Vec<Vec<u8>> = match symmetries {
            Symmetries::One(s) if s < SYMMETRIES => vec![vec![s]; games.len()],
            Symmetries::One(s) => return Err(EvalError::Symmetry(s)),
            Symmetries::All => vec![(0..SYMMETRIES).collect(); games.len()],
            Symmetries::Each(each) => {
                if each.len() != games.len() {
                    return Err(EvalError::SymmetryCount {
                        symmetries: each.len(),
                        games: games.len(),
                    });
                }
                if let Some(&s) = each.iter().find(|&&s| s >= SYMMETRIES) {
                    return Err(EvalError::Symmetry(s));
                }
                each.into_iter().map(|s| vec![s]).collect()
            }
        };
        let mut prepared = Vec::with_capacity(games.len());
        for game in games {
            prepared.push(self.prepare(game, &options.inputs)?);
        }
        let items: Vec<(&NetInput, &[u8])> = prepared
            .iter()
            .zip(&lists)
            .map(|(input, list)| (input, list.as_slice()))
            .collect();
        self.run_inputs(&items, options.policy_optimism, cancel)
    }

    /// The inputs of `game`'s side to move, computed once so that they can
    /// be evaluated later, on another thread, in a batch with other
    /// positions ([`Network::evaluate_inputs`]).
    pub fn prepare(&self, game: &Game, options: &InputOptions) -> Result<NetInput, EvalError> {
        NetInput::new(game, &self.model, options)
    }

    /// Evaluates prepared inputs, each under its own symmetry, with this
    /// much of the optimistic policy mixed in; given up with
    /// [`EvalError::Cancelled`] soon after `cancel` says so.
    pub fn evaluate_inputs(
        &self,
        inputs: &[(&NetInput, u8)],
        policy_optimism: f32,
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<Evaluation>, EvalError> {
        if let Some(&(_, s)) = inputs.iter().find(|(_, s)| *s >= SYMMETRIES) {
            return Err(EvalError::Symmetry(s));
        }
        let symmetries: Vec<[u8; 1]> = inputs.iter().map(|&(_, s)| [s]).collect();
        let items: Vec<(&NetInput, &[u8])> = inputs
            .iter()
            .zip(&symmetries)
            .map(|(&(input, _), s)| (input, s.as_slice()))
            .collect();
        self.run_inputs(&items, policy_optimism, cancel)
    }

    /// Evaluates each input under each of its symmetries (every input with
    /// as many), averaging over them; each board size is one batch.
    fn run_inputs(
        &self,
        items: &[(&NetInput, &[u8])],
        policy_optimism: f32,
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<Evaluation>, EvalError> {
        // Every game of a batch has as many symmetries (one, or all eight).
        let per_game = items.first().map_or(1, |(_, list)| list.len());
        let mut results: Vec<Option<Evaluation>> = vec![None; items.len()];
        let mut sizes: Vec<(usize, usize)> =
            items.iter().map(|(p, _)| (p.width, p.height)).collect();
        sizes.sort_unstable();
        sizes.dedup();
        for (width, height) in sizes {
            let members: Vec<usize> = (0..items.len())
                .filter(|&i| (items[i].0.width, items[i].0.height) == (width, height))
                .collect();
            let points = width * height;
            // One batch: every member under every symmetry asked for.
            let mut spatial =
                Vec::with_capacity(members.len() * per_game * SPATIAL_INPUTS * points);
            let mut global = Vec::with_capacity(members.len() * per_game * GLOBAL_INPUTS);
            let mut plane = vec![0.0f32; SPATIAL_INPUTS * points];
            for &i in &members {
                for &symmetry in items[i].1 {
                    let map = point_map(symmetry, width, height, false);
                    permute_planes(&map, SPATIAL_INPUTS, &items[i].0.spatial, &mut plane);
                    spatial.extend_from_slice(&plane);
                    global.extend_from_slice(&items[i].0.global);
                }
            }
            let batch = members.len() * per_game;
            let raw = self
                .pool
                .install(|| {
                    forward_until(
                        &self.model,
                        batch,
                        width,
                        height,
                        &spatial,
                        &global,
                        policy_optimism,
                        Exec {
                            threads: self.threads,
                            kernel: self.kernel,
                        },
                        cancel,
                    )
                })
                .ok_or(EvalError::Cancelled)?;
            for (m, &i) in members.iter().enumerate() {
                let mut evaluations = Vec::with_capacity(per_game);
                for (k, &symmetry) in items[i].1.iter().enumerate() {
                    let back = point_map(symmetry, width, height, true);
                    let raw = unpermute(&raw[m * per_game + k], &back);
                    let p = items[i].0;
                    evaluations.push(evaluate(
                        &self.model,
                        &raw,
                        &p.legal,
                        p.white_to_move,
                        p.no_result_impossible,
                        p.cap_pass,
                    ));
                }
                results[i] = Some(average(evaluations));
            }
        }
        Ok(results
            .into_iter()
            .map(|e| e.expect("every game evaluated"))
            .collect())
    }
}

/// A position's network inputs and legal moves, before symmetry
/// ([`Network::prepare`]).
#[derive(Clone, Debug)]
pub struct NetInput {
    width: usize,
    height: usize,
    spatial: Vec<f32>,
    global: Vec<f32>,
    legal: Vec<bool>,
    white_to_move: bool,
    no_result_impossible: bool,
    /// KataGo's passing hacks: the pass prior capped at 95%.
    cap_pass: bool,
}

impl NetInput {
    fn new(game: &Game, model: &ModelDesc, options: &InputOptions) -> Result<NetInput, EvalError> {
        let size = game.size();
        let (width, height) = (size.width(), size.height());
        if width > MAX_BOARD_SIDE || height > MAX_BOARD_SIDE {
            return Err(EvalError::BoardTooLarge { width, height });
        }
        let rules = KataRules::from_rules(game.rules())?;
        let mut input_options = *options;
        input_options.prefer_pass_alive_under_suicide |= model.prefer_pass_alive_under_suicide;
        let points = width * height;
        let mut spatial = vec![0.0f32; SPATIAL_INPUTS * points];
        let mut global = vec![0.0f32; GLOBAL_INPUTS];
        inputs::fill(
            game,
            &rules,
            &input_options,
            width,
            height,
            &mut spatial,
            &mut global,
        )?;
        let mut legal = Vec::with_capacity(points + 1);
        for y in 0..height {
            for x in 0..width {
                let point = grid_point(size, x, y);
                legal.push(game.legal_going_on(Move::Play(point)).is_ok());
            }
        }
        legal.push(game.legal_going_on(Move::Pass).is_ok());
        Ok(NetInput {
            width,
            height,
            spatial,
            global,
            legal,
            white_to_move: game.to_move() == Color::White,
            // KataGo rules out "no result" for superko under area scoring.
            no_result_impossible: rules.ko != KataKo::Simple && !rules.territory_scoring,
            cap_pass: options.passing_hacks,
        })
    }
}

/// The point at column `x`, row `y` counted from the top.
pub fn grid_point(size: tengen_core::BoardSize, x: usize, y: usize) -> Point {
    size.point(x, size.height() - 1 - y)
        .expect("grid coordinates inside the board")
}

/// Raw outputs moved from the symmetric frame back to the board.
fn unpermute(raw: &RawOutput, back: &[usize]) -> RawOutput {
    let points = back.len();
    let mut policy = vec![0.0f32; points + 1];
    let mut ownership = vec![0.0f32; points];
    for p in 0..points {
        policy[back[p]] = raw.policy[p];
        ownership[back[p]] = raw.ownership[p];
    }
    policy[points] = raw.policy[points];
    RawOutput {
        policy,
        value: raw.value,
        score: raw.score,
        ownership,
    }
}

/// The mean of evaluations under several symmetries.
fn average(mut evaluations: Vec<Evaluation>) -> Evaluation {
    if evaluations.len() == 1 {
        return evaluations.pop().expect("one evaluation");
    }
    let n = evaluations.len() as f64;
    let mut sum = evaluations[0].clone();
    for e in &evaluations[1..] {
        for (a, b) in sum.policy.iter_mut().zip(&e.policy) {
            *a += b;
        }
        for (a, b) in sum.white_ownership.iter_mut().zip(&e.white_ownership) {
            *a += b;
        }
        sum.white_win += e.white_win;
        sum.white_loss += e.white_loss;
        sum.no_result += e.no_result;
        sum.white_lead += e.white_lead;
        sum.white_score_mean += e.white_score_mean;
        sum.white_score_mean_sq += e.white_score_mean_sq;
        sum.var_time_left += e.var_time_left;
        sum.shortterm_winloss_error += e.shortterm_winloss_error;
        sum.shortterm_score_error += e.shortterm_score_error;
    }
    for a in &mut sum.policy {
        // Illegal moves are −1 in every symmetry and stay −1.
        *a /= n as f32;
    }
    for a in &mut sum.white_ownership {
        *a /= n as f32;
    }
    sum.white_win /= n;
    sum.white_loss /= n;
    sum.no_result /= n;
    sum.white_lead /= n;
    sum.white_score_mean /= n;
    sum.white_score_mean_sq /= n;
    sum.var_time_left /= n;
    sum.shortterm_winloss_error /= n;
    sum.shortterm_score_error /= n;
    sum
}
