//! One round of the search: descents to a batch of leaves, their
//! evaluation, and their backup, with as many descents kept in flight as
//! [`Batching::in_flight`](crate::Batching::in_flight) asks for.
//!
//! KataGo's search threads each start a new descent as soon as their own
//! evaluation is back, so in its steady state every descent sees the
//! virtual losses of the other threads' descents. Here the rounds model
//! that on one thread: a batch's evaluations wait in a queue, under their
//! virtual losses, and before each descent the oldest are backed up until
//! only `in_flight − 1` others remain (queued or in the batch being
//! gathered). With `in_flight` 1 the queue is emptied at the end of each
//! round, a plain synchronous batch.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tengen_core::Game;

use super::{Descent, Pending, Searcher};
use crate::{EvaluatorError, NetEvaluation, PositionEvaluator, PuctConfig};

/// How a round ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Round {
    /// Its leaves were evaluated and backed up (or queued, in flight).
    Done,
    /// The stop signal came while its batch was being evaluated; the batch
    /// was dropped.
    Stopped,
}

/// Leaves evaluated and not yet backed up: the descents still in flight.
pub(super) type InFlight = std::collections::VecDeque<(Pending, NetEvaluation)>;

/// Descents besides a new one that stay in flight under `config`.
pub(super) fn others_in_flight(config: &PuctConfig) -> usize {
    config.batching.in_flight.max(1) - 1
}

impl<E: PositionEvaluator + ?Sized> Searcher<'_, E> {
    /// Visits made by this search, those in flight included.
    pub(super) fn visits_made(&self) -> u64 {
        self.stats.new_visits + self.in_flight.len() as u64
    }

    /// Backs up the oldest evaluations in flight until at most `keep`
    /// remain.
    pub(super) fn land(&mut self, keep: usize) {
        while self.in_flight.len() > keep {
            let (leaf, eval) = self.in_flight.pop_front().expect("more than keep");
            self.absorb(leaf, eval);
        }
    }

    /// One round: up to `want` visits, their leaves evaluated in one batch.
    pub(super) fn round(
        &mut self,
        want: u64,
        stop: &dyn Fn() -> bool,
    ) -> Result<Round, EvaluatorError> {
        let others = others_in_flight(self.config);
        let mut leaves: Vec<Pending> = Vec::new();
        let mut terminal = 0u64;
        let mut transposed = 0u64;
        let mut failures = 0u64;
        let max_failures = want + 16;
        while (leaves.len() as u64 + terminal + transposed) < want && failures < max_failures {
            self.land(others.saturating_sub(leaves.len()));
            match self.descend() {
                Descent::Leaf(leaf) => leaves.push(*leaf),
                Descent::Terminal => terminal += 1,
                Descent::Transposed => transposed += 1,
                Descent::Collision => {
                    self.stats.collisions += 1;
                    // The batch has gone as wide as virtual loss spreads it.
                    if !leaves.is_empty() {
                        break;
                    }
                    // Nothing gathered yet: the collision was with a leaf
                    // in flight, which lands before the next try.
                    if !self.in_flight.is_empty() {
                        self.land(self.in_flight.len() - 1);
                        continue;
                    }
                    failures += 1;
                }
                Descent::Retry => failures += 1,
            }
        }
        self.stats.terminal_visits += terminal;
        self.stats.transposed_visits += transposed;
        self.stats.new_visits += terminal + transposed;
        if leaves.is_empty() {
            if terminal + transposed == 0 {
                // Nothing could be visited (should not happen): stop.
                let error = EvaluatorError::new("no leaf could be reached");
                self.stats.error = Some(error.to_string());
                return Err(error);
            }
            return Ok(Round::Done);
        }
        let games: Vec<&Game> = leaves.iter().map(|l| &l.game).collect();
        let root = leaves.len() == 1 && leaves[0].path.len() == 1;
        let result =
            evaluate_batch(self.evaluator, &games, root, stop).and_then(|evals| match evals {
                Some(evals) if evals.len() != games.len() => Err(EvaluatorError::new(format!(
                    "{} results for {} positions",
                    evals.len(),
                    games.len()
                ))),
                evals => Ok(evals),
            });
        let count = games.len() as u64;
        let evals = match result {
            Ok(Some(evals)) => {
                self.stats.batches += 1;
                self.stats.evaluations += count;
                evals
            }
            other => {
                for leaf in &leaves {
                    self.undo_virtual_loss(&leaf.path);
                    let last = *leaf.path.last().expect("a path has a root");
                    self.tree.node_mut(last).pending = false;
                }
                return match other {
                    Err(error) => {
                        self.stats.error = Some(error.to_string());
                        Err(error)
                    }
                    _ => Ok(Round::Stopped),
                };
            }
        };
        self.in_flight.extend(leaves.into_iter().zip(evals));
        // The root lands at once: until it is expanded there is nothing to
        // descend to.
        let keep = if root { 0 } else { others };
        self.land(keep);
        Ok(Round::Done)
    }
}
/// Evaluates `games`, or gives up (`Ok(None)`) when `stop` says so. An
/// evaluator that can abandon a batch runs it on a helper thread while this
/// thread asks `stop` (which need not be thread-safe) every 2 ms and passes
/// the answer on through an atomic flag; any other evaluator just runs.
fn evaluate_batch<E: PositionEvaluator + ?Sized>(
    evaluator: &E,
    games: &[&Game],
    root: bool,
    stop: &dyn Fn() -> bool,
) -> Result<Option<Vec<NetEvaluation>>, EvaluatorError> {
    // The root is evaluated alone, and as the evaluator evaluates roots.
    let run = |cancel: &(dyn Fn() -> bool + Sync)| match (root, games) {
        (true, [game]) => evaluator.evaluate_root(game, cancel).map(|e| vec![e]),
        _ => evaluator.evaluate_until(games, cancel),
    };
    if !evaluator.abandons() {
        return run(&|| false).map(Some);
    }
    if stop() {
        return Ok(None);
    }
    let cancelled = AtomicBool::new(false);
    let watcher = std::thread::current();
    let result = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let result = run(&|| cancelled.load(Ordering::Relaxed));
            watcher.unpark();
            result
        });
        while !worker.is_finished() {
            if !cancelled.load(Ordering::Relaxed) && stop() {
                cancelled.store(true, Ordering::Relaxed);
            }
            std::thread::park_timeout(Duration::from_millis(2));
        }
        worker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    });
    match result {
        Ok(evals) => Ok(Some(evals)),
        Err(_) if cancelled.load(Ordering::Relaxed) => Ok(None),
        Err(error) => Err(error),
    }
}
