//! Fitting the learned move model ([`tengen_mcts::features`]) to game
//! records by minorization–maximization (Coulom 2007).
//!
//! Each position of a record is a competition among the candidate moves
//! (every point where the player may play, own eyes excluded, as the tree
//! search offers them), won by the move that was played, or, in a policy
//! record ([`crate::policy_record`]), shared out among the moves by the
//! network's probabilities: a win counts by its share, and MM maximizes the
//! cross-entropy's likelihood just as it does one winner's. A move's strength
//! is the product of the γ of its features; MM raises or lowers the γ of one
//! feature group at a time so that the likelihood of the played moves never
//! decreases. Every γ also gets one virtual win and one virtual loss against
//! a move of strength 1, which keeps rare values finite.
//!
//! Candidates of a position with the same features are stored once with a
//! count, which makes the data some ten times smaller than a list of moves.

use std::collections::HashMap;

use tengen_core::{Action, Color, Game, Move, Point};
use tengen_mcts::features::{
    canonical_pattern, canonical_shape, pattern_code, recent_stones, shape_code, shape_key,
    shape_orientations, Group, MoveModel, PositionFeatures, ShapeStrengths, GROUPS,
};

use crate::policy_record::PolicyRecord;

/// Settings of a fit.
#[derive(Clone, Debug)]
pub struct MoveModelOptions {
    /// Times a shape must be played in the training records to get its own
    /// strength; rarer shapes share one.
    pub min_wins: u32,
    /// MM sweeps over all groups.
    pub iterations: usize,
    /// Every `test_every`-th record is held out to measure the model (0:
    /// none).
    pub test_every: usize,
}

impl Default for MoveModelOptions {
    fn default() -> Self {
        MoveModelOptions {
            min_wins: 10,
            iterations: 25,
            test_every: 10,
        }
    }
}

/// What a fit did and how well the model predicts.
#[derive(Clone, Debug, Default)]
pub struct MoveModelReport {
    /// Positions trained on.
    pub train_positions: usize,
    /// Positions held out.
    pub test_positions: usize,
    /// Candidate moves (with repetitions) over the training positions.
    pub train_candidates: u64,
    /// Distinct (position, features) entries stored for training.
    pub train_entries: usize,
    /// Shapes with their own strength.
    pub known_patterns: usize,
    /// Larger shapes (radius 2 or 3) with their own strength.
    pub known_shapes: usize,
    /// Mean log-likelihood of the played move on the training positions
    /// after each sweep.
    pub train_log_likelihood: Vec<f64>,
    /// Mean log-likelihood of the played move on the held-out positions.
    pub test_log_likelihood: f64,
    /// Share of held-out positions whose played move the model rates first
    /// (ties shared out evenly).
    pub test_top1: f64,
    /// The same for the first five.
    pub test_top5: f64,
}

/// Positions as competitions: entries (feature tuples with counts), grouped
/// by position.
#[derive(Default)]
struct Competitions {
    tuples: Vec<[u16; GROUPS]>,
    counts: Vec<u32>,
    /// Start of each position's entries; one more than positions.
    starts: Vec<usize>,
    /// The entries that won and their shares (summing to 1 in each
    /// position): one entry with share 1 where a move was played.
    targets: Vec<(usize, f64)>,
    /// Start of each position's targets; one more than positions.
    target_starts: Vec<usize>,
    /// The entry with the largest share, by position: the one predictions
    /// are judged by.
    winners: Vec<usize>,
    candidates: u64,
}

impl Competitions {
    fn positions(&self) -> usize {
        self.winners.len()
    }

    fn targets_of(&self, position: usize) -> &[(usize, f64)] {
        &self.targets[self.target_starts[position]..self.target_starts[position + 1]]
    }
}

/// What a position teaches: points and their shares of the win (one point
/// with share 1 where a move was played; they need not sum to 1).
pub type Target = Vec<(Point, f64)>;

/// Every turn of `game` with the game before it, in order.
fn turns_of(game: &Game) -> Vec<(Game, Color, Action)> {
    let mut out = Vec::new();
    let mut game = game.clone();
    while let Some((color, action)) = game.undo() {
        out.push((game.clone(), color, action));
    }
    out.reverse();
    out
}

/// Every position of `game` before a stone of the side to move, with that
/// stone: the game is replayed backwards.
fn positions_of(game: &Game) -> Vec<(Game, Point)> {
    turns_of(game)
        .into_iter()
        .filter_map(|(before, color, action)| match action {
            Action::Move(Move::Play(point)) if color == before.to_move() => Some((before, point)),
            _ => None,
        })
        .collect()
}

/// The candidate moves of a position: legal under simple ko, not into an
/// own single-point eye (the tree search's children).
fn candidates(game: &Game, to_move: Color, out: &mut Vec<Point>) {
    let board = game.board();
    out.clear();
    out.extend(
        board
            .empty_points()
            .filter(|&p| board.is_legal_simple(p, to_move) && !board.is_point_an_eye(p, to_move)),
    );
    out.sort_unstable();
}

/// The shapes with their own value: the 3×3 ones by canonical code, the
/// larger ones by key in every orientation (values from 1; 0 for the
/// others).
struct Vocabulary {
    patterns: HashMap<u32, u16>,
    shapes: HashMap<u64, u16>,
}

impl Vocabulary {
    fn shape_value(&self, code: u64) -> u16 {
        self.shapes
            .get(&shape_key(code, 3))
            .or_else(|| self.shapes.get(&shape_key(code, 2)))
            .copied()
            .unwrap_or(0)
    }
}

/// Adds the competitions of `positions` (each the game before a move, and
/// what it teaches) with the shapes of `vocabulary`. A position whose
/// target puts less than half its weight on candidate moves is left out
/// (a move into an own eye or a pass is what it would teach).
fn add_competitions(out: &mut Competitions, positions: &[(Game, Target)], vocabulary: &Vocabulary) {
    let mut points = Vec::new();
    let mut index: HashMap<[u16; GROUPS], usize> = HashMap::new();
    let mut shares: Vec<(Point, f64)> = Vec::new();
    for (game, target) in positions {
        let board = game.board();
        let to_move = game.to_move();
        candidates(game, to_move, &mut points);
        shares.clear();
        shares.extend(
            target
                .iter()
                .filter(|(p, w)| *w > 0.0 && points.binary_search(p).is_ok())
                .copied(),
        );
        let total: f64 = shares.iter().map(|(_, w)| w).sum();
        let whole: f64 = target.iter().map(|(_, w)| w.max(0.0)).sum();
        if shares.is_empty() || total < 0.5 * whole {
            continue; // Filling an own eye, or a move the tree never offers.
        }
        let (last, before_last) = recent_stones(game);
        let mut features = PositionFeatures::new(board, to_move, last, before_last);
        let start = out.tuples.len();
        let target_start = out.targets.len();
        index.clear();
        let (mut winner, mut winner_share) = (usize::MAX, 0.0);
        for &point in &points {
            let f = features.of(board, point);
            let mut tuple = f.values.map(u16::from);
            tuple[Group::Pattern as usize] = vocabulary
                .patterns
                .get(&canonical_pattern(f.pattern))
                .copied()
                .unwrap_or(0);
            tuple[Group::Shape as usize] = vocabulary.shape_value(f.shape);
            let entry = *index.entry(tuple).or_insert_with(|| {
                out.tuples.push(tuple);
                out.counts.push(0);
                out.tuples.len() - 1
            });
            out.counts[entry] += 1;
            if let Some(&(_, w)) = shares.iter().find(|(p, _)| *p == point) {
                let share = w / total;
                match out.targets[target_start..]
                    .iter_mut()
                    .find(|(e, _)| *e == entry)
                {
                    Some(existing) => existing.1 += share,
                    None => out.targets.push((entry, share)),
                }
                if share > winner_share {
                    (winner, winner_share) = (entry, share);
                }
            }
        }
        out.candidates += points.len() as u64;
        out.starts.push(start);
        out.target_starts.push(target_start);
        out.winners.push(winner);
    }
}

/// The γ of every feature value, laid out group after group.
struct Gammas {
    offsets: [usize; GROUPS],
    values: Vec<f64>,
}

impl Gammas {
    fn new(sizes: [usize; GROUPS]) -> Gammas {
        let mut offsets = [0; GROUPS];
        let mut total = 0;
        for group in 0..GROUPS {
            offsets[group] = total;
            total += sizes[group];
        }
        Gammas {
            offsets,
            values: vec![1.0; total],
        }
    }

    #[inline]
    fn strength(&self, tuple: &[u16; GROUPS]) -> f64 {
        self.offsets
            .iter()
            .zip(tuple)
            .map(|(&offset, &value)| self.values[offset + value as usize])
            .product()
    }

    fn size(&self, group: usize) -> usize {
        let end = if group + 1 < GROUPS {
            self.offsets[group + 1]
        } else {
            self.values.len()
        };
        end - self.offsets[group]
    }
}

/// Mean log-likelihood of the targets (of the played move, where one was
/// played; the cross-entropy's, where shares are given).
fn log_likelihood(data: &Competitions, gammas: &Gammas) -> f64 {
    let mut sum = 0.0;
    for position in 0..data.positions() {
        let range = data.starts[position]..data.starts[position + 1];
        let total: f64 = range
            .map(|e| data.counts[e] as f64 * gammas.strength(&data.tuples[e]))
            .sum();
        for &(entry, share) in data.targets_of(position) {
            sum += share * (gammas.strength(&data.tuples[entry]) / total).ln();
        }
    }
    sum / data.positions().max(1) as f64
}

/// One MM update of `group`'s γ.
fn update_group(data: &Competitions, gammas: &mut Gammas, wins: &[f64], group: usize) {
    let offset = gammas.offsets[group];
    let size = gammas.size(group);
    let mut denominators = vec![0.0f64; size];
    let mut strengths = Vec::new();
    for position in 0..data.positions() {
        let range = data.starts[position]..data.starts[position + 1];
        strengths.clear();
        strengths.extend(range.clone().map(|e| gammas.strength(&data.tuples[e])));
        let total: f64 = range
            .clone()
            .zip(&strengths)
            .map(|(e, s)| data.counts[e] as f64 * s)
            .sum();
        for (e, s) in range.zip(&strengths) {
            let value = data.tuples[e][group] as usize;
            // The strength of the rest of the move's features.
            let rest = s / gammas.values[offset + value];
            denominators[value] += data.counts[e] as f64 * rest / total;
        }
    }
    for value in 0..size {
        let gamma = &mut gammas.values[offset + value];
        // One virtual win and one virtual loss against strength 1.
        *gamma = (wins[offset + value] + 1.0) / (denominators[value] + 2.0 / (*gamma + 1.0));
    }
    // Only ratios within a group matter: keep its first value at 1.
    let base = gammas.values[offset];
    for value in 0..size {
        gammas.values[offset + value] /= base;
    }
}

/// Share of positions whose played move (the target's largest share) is
/// rated first and among the first five, ties shared out evenly.
fn prediction(data: &Competitions, gammas: &Gammas) -> (f64, f64) {
    let (mut top1, mut top5) = (0.0, 0.0);
    for position in 0..data.positions() {
        let range = data.starts[position]..data.starts[position + 1];
        let winner = data.winners[position];
        let ws = gammas.strength(&data.tuples[winner]);
        let (mut better, mut tied) = (0u64, 0u64);
        for e in range {
            let s = gammas.strength(&data.tuples[e]);
            let n = data.counts[e] as u64 - u64::from(e == winner);
            if s > ws {
                better += n;
            } else if s == ws {
                tied += n;
            }
        }
        // The played move takes each rank from better+1 to better+tied+1
        // with equal chance.
        let ranks = tied + 1;
        let within = |k: u64| (k.saturating_sub(better)).min(ranks) as f64 / ranks as f64;
        top1 += within(1);
        top5 += within(5);
    }
    let n = data.positions().max(1) as f64;
    (top1 / n, top5 / n)
}

/// Progress of a fit, for a progress bar.
#[derive(Clone, Copy, Debug)]
pub enum FitProgress {
    /// Records read into competitions so far, of all.
    Reading(usize, usize),
    /// A sweep finished, with the training log-likelihood after it.
    Sweep(usize, f64),
}

/// A record the model is fitted to.
#[derive(Clone, Debug)]
pub enum FitRecord {
    /// A game: every stone played is a move to predict.
    Game(Game),
    /// A labelled position: only the last stone is a move to predict (the
    /// moves before it only lead to the position, and give the distances
    /// to the last two stones).
    Position(Game),
    /// A policy record: every position with probabilities is learned as
    /// that distribution over its moves (passes left out).
    Policy(PolicyRecord),
}

impl FitRecord {
    /// The positions to learn from and what each teaches.
    fn positions(&self) -> Vec<(Game, Target)> {
        let played = |(game, point): (Game, Point)| (game, vec![(point, 1.0)]);
        match self {
            FitRecord::Game(game) => positions_of(game).into_iter().map(played).collect(),
            FitRecord::Position(game) => {
                let mut positions = positions_of(game);
                positions.drain(..positions.len().saturating_sub(1));
                positions.into_iter().map(played).collect()
            }
            FitRecord::Policy(record) => turns_of(&record.game)
                .into_iter()
                .filter(|(_, _, action)| matches!(action, Action::Move(_)))
                .zip(&record.policies)
                .filter_map(|((game, color, _), policy)| {
                    let policy = policy.as_ref()?;
                    if color != game.to_move() {
                        return None;
                    }
                    let target: Target = policy
                        .iter()
                        .filter_map(|&(mv, p)| match mv {
                            Move::Play(point) => Some((point, f64::from(p))),
                            Move::Pass => None,
                        })
                        .collect();
                    Some((game, target))
                })
                .collect(),
        }
    }
}

/// Fits the move model to the positions of `games`.
pub fn fit_move_model(
    games: &[Game],
    options: &MoveModelOptions,
    progress: &mut dyn FnMut(FitProgress),
) -> (MoveModel, MoveModelReport) {
    let records: Vec<FitRecord> = games.iter().cloned().map(FitRecord::Game).collect();
    fit_move_model_to(&records, options, progress)
}

/// Fits the move model to `records`: games, whose every move is learned,
/// and labelled positions, whose last move only is.
pub fn fit_move_model_to(
    games: &[FitRecord],
    options: &MoveModelOptions,
    progress: &mut dyn FnMut(FitProgress),
) -> (MoveModel, MoveModelReport) {
    // The shapes played often enough get their own value, most played first.
    let (played, played_shapes) = count_played(games, options);
    let pattern_list = frequent(played, options.min_wins);
    let shape_list = frequent(played_shapes, options.min_wins);
    let vocabulary = vocabulary_of(&pattern_list, &shape_list);

    let (train, test) = gather_competitions(games, options, &vocabulary, progress);

    let mut sizes = Group::ALL.map(Group::values);
    sizes[Group::Pattern as usize] = pattern_list.len() + 1;
    sizes[Group::Shape as usize] = shape_list.len() + 1;
    let mut report = MoveModelReport {
        train_positions: train.positions(),
        test_positions: test.positions(),
        train_candidates: train.candidates,
        train_entries: train.tuples.len(),
        known_patterns: pattern_list.len(),
        known_shapes: shape_list.len(),
        ..MoveModelReport::default()
    };
    let gammas = fit_gammas(&train, sizes, options.iterations, &mut report, progress);
    if test.positions() > 0 {
        report.test_log_likelihood = log_likelihood(&test, &gammas);
        (report.test_top1, report.test_top5) = prediction(&test, &gammas);
    }
    let model = model_of(&gammas, sizes, &pattern_list, &shape_list);
    (model, report)
}

/// Whether record `i` is held out for testing (every `test_every`-th).
fn is_test(options: &MoveModelOptions, i: usize) -> bool {
    options.test_every > 0 && i % options.test_every == options.test_every - 1
}

/// How often each pattern and each shape (of radius 2 and 3) was played in
/// the training records, shares of a target counting as fractions of a
/// play.
fn count_played(
    games: &[FitRecord],
    options: &MoveModelOptions,
) -> (HashMap<u32, f64>, HashMap<u64, f64>) {
    // (A record's positions are made one record at a time: kept all at
    // once, the games' histories would not fit in memory.)
    let mut played: HashMap<u32, f64> = HashMap::new();
    let mut played_shapes: HashMap<u64, f64> = HashMap::new();
    for (i, game) in games.iter().enumerate() {
        if is_test(options, i) {
            continue;
        }
        for (position, target) in game.positions() {
            let (board, player) = (position.board(), position.to_move());
            for (point, share) in target {
                if share <= 0.0 || !board.is_empty_at(point) {
                    continue;
                }
                let code = pattern_code(board, point, player);
                *played.entry(canonical_pattern(code)).or_default() += share;
                let shape = shape_code(board, point, player);
                for radius in [2, 3] {
                    *played_shapes
                        .entry(canonical_shape(shape_key(shape, radius)))
                        .or_default() += share;
                }
            }
        }
    }
    (played, played_shapes)
}

/// The entries played at least `min` times, most played first.
fn frequent<K: Ord + Copy>(counts: HashMap<K, f64>, min: u32) -> Vec<K> {
    let mut kept: Vec<(K, f64)> = counts
        .into_iter()
        .filter(|&(_, n)| n >= f64::from(min) - 1e-9)
        .collect();
    kept.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    kept.truncate(u16::MAX as usize - 1);
    kept.into_iter().map(|(key, _)| key).collect()
}

/// The vocabulary numbering the known patterns and shapes from 1 in list
/// order, every orientation of a shape with the shape's number.
fn vocabulary_of(pattern_list: &[u32], shape_list: &[u64]) -> Vocabulary {
    Vocabulary {
        patterns: pattern_list
            .iter()
            .enumerate()
            .map(|(i, &code)| (code, i as u16 + 1))
            .collect(),
        shapes: shape_list
            .iter()
            .enumerate()
            .flat_map(|(i, &key)| {
                shape_orientations(key)
                    .into_iter()
                    .map(move |oriented| (oriented, i as u16 + 1))
            })
            .collect(),
    }
}

/// The competitions of every record's positions, training and test apart,
/// each closed with its final start indices. Tells `progress` after each
/// record.
fn gather_competitions(
    games: &[FitRecord],
    options: &MoveModelOptions,
    vocabulary: &Vocabulary,
    progress: &mut dyn FnMut(FitProgress),
) -> (Competitions, Competitions) {
    let mut train = Competitions::default();
    let mut test = Competitions::default();
    for (i, game) in games.iter().enumerate() {
        let data = if is_test(options, i) {
            &mut test
        } else {
            &mut train
        };
        add_competitions(data, &game.positions(), vocabulary);
        progress(FitProgress::Reading(i + 1, games.len()));
    }
    train.starts.push(train.tuples.len());
    test.starts.push(test.tuples.len());
    train.target_starts.push(train.targets.len());
    test.target_starts.push(test.targets.len());
    (train, test)
}

/// Fits the values of groups of `sizes` to `train` by `iterations` sweeps
/// of group updates, recording each sweep's log-likelihood in `report` and
/// telling `progress`.
fn fit_gammas(
    train: &Competitions,
    sizes: [usize; GROUPS],
    iterations: usize,
    report: &mut MoveModelReport,
    progress: &mut dyn FnMut(FitProgress),
) -> Gammas {
    let mut gammas = Gammas::new(sizes);
    let mut wins = vec![0.0f64; gammas.values.len()];
    for &(entry, share) in &train.targets {
        for group in 0..GROUPS {
            wins[gammas.offsets[group] + train.tuples[entry][group] as usize] += share;
        }
    }
    for sweep in 0..iterations {
        for group in 0..GROUPS {
            update_group(train, &mut gammas, &wins, group);
        }
        let ll = log_likelihood(train, &gammas);
        report.train_log_likelihood.push(ll);
        progress(FitProgress::Sweep(sweep + 1, ll));
    }
    gammas
}

/// The move model of the fitted values: the small groups' values, and the
/// known patterns' and shapes' with the value of the others.
fn model_of(
    gammas: &Gammas,
    sizes: [usize; GROUPS],
    pattern_list: &[u32],
    shape_list: &[u64],
) -> MoveModel {
    let gamma =
        |group: Group, value: usize| gammas.values[gammas.offsets[group as usize] + value] as f32;
    let small: [Vec<f32>; GROUPS] = std::array::from_fn(|group| {
        if Group::ALL[group].is_shape() {
            return Vec::new();
        }
        (0..sizes[group])
            .map(|v| gamma(Group::ALL[group], v))
            .collect()
    });
    let patterns = ShapeStrengths {
        known: pattern_list
            .iter()
            .enumerate()
            .map(|(i, &code)| (code, gamma(Group::Pattern, i + 1)))
            .collect(),
        other: gamma(Group::Pattern, 0),
    };
    let shapes = ShapeStrengths {
        known: shape_list
            .iter()
            .enumerate()
            .map(|(i, &key)| (key, gamma(Group::Shape, i + 1)))
            .collect(),
        other: gamma(Group::Shape, 0),
    };
    MoveModel::new(small, patterns, shapes)
}

#[cfg(test)]
mod tests;
