//! An evaluation cache in front of any [`PositionEvaluator`]: a position
//! whose network inputs were seen before is answered from memory, as
//! KataGo's `nnCacheSizePowerOfTwo` cache answers. Hits come when a search
//! meets the same position again: a subtree dropped and searched anew, a
//! position analysed again after `undo` or by a GUI moving back and forth,
//! the same line reached twice. The key is every input a KataGo network
//! reads: the stones, the side to move, the ko, the last five moves
//! (passes included), the rules and komi; whether the position is a
//! search's root (the root mixes in another share of the optimistic
//! policy) is part of it too.
//!
//! Two generations keep it bounded: when the current one is full it
//! becomes the old one and the older is dropped; a hit in the old
//! generation is carried into the current one. So the positions used
//! recently stay, whatever was used long ago goes.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

use tengen_core::{Action, BoardSize, Game};

use crate::{EvaluatorError, NetEvaluation, PositionEvaluator};

/// Moves of history the key includes (KataGo's inputs see the last five).
const HISTORY: usize = 5;

/// The two generations.
#[derive(Default)]
struct Generations {
    current: HashMap<u64, NetEvaluation>,
    old: HashMap<u64, NetEvaluation>,
}

/// The cached evaluations: `capacity` positions per generation. Several
/// evaluators may share one (the searches of an analysis engine).
pub struct EvaluationCache {
    capacity: usize,
    generations: Mutex<Generations>,
    hits: AtomicU64,
    misses: AtomicU64,
}

/// An evaluator with a cache in front of it.
pub struct CachedEvaluator<E> {
    inner: E,
    cache: std::sync::Arc<EvaluationCache>,
    /// Mixed into every key: evaluators whose settings change the answers
    /// (a playout doubling advantage, a fixed symmetry) keep apart.
    salt: u64,
}

impl<E: PositionEvaluator> CachedEvaluator<E> {
    /// `inner` behind a cache of its own of `capacity` positions per
    /// generation (0: no cache; every call goes to `inner`).
    pub fn new(inner: E, capacity: usize) -> CachedEvaluator<E> {
        CachedEvaluator::sharing(
            inner,
            std::sync::Arc::new(EvaluationCache::new(capacity)),
            0,
        )
    }

    /// `inner` behind a cache shared with other evaluators; `salt` tells
    /// apart the positions of evaluators that answer differently.
    pub fn sharing(
        inner: E,
        cache: std::sync::Arc<EvaluationCache>,
        salt: u64,
    ) -> CachedEvaluator<E> {
        CachedEvaluator { inner, cache, salt }
    }

    /// The evaluator behind the cache.
    pub fn inner(&self) -> &E {
        &self.inner
    }

    /// The cache.
    pub fn cache(&self) -> &EvaluationCache {
        &self.cache
    }

    /// Evaluates `positions` (all roots or none), the cached ones from
    /// memory and the rest in one call of `run`.
    fn cached(
        &self,
        positions: &[&Game],
        root: bool,
        run: impl FnOnce(&[&Game]) -> Result<Vec<NetEvaluation>, EvaluatorError>,
    ) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        let cache = &*self.cache;
        if cache.capacity == 0 {
            return run(positions);
        }
        let salt = tengen_core::stream_seed(0, self.salt)
            ^ match self.inner.input_salt() {
                0 => 0,
                input => tengen_core::stream_seed(1, input),
            };
        let keys: Vec<u64> = positions
            .iter()
            .map(|g| input_key(g, root) ^ salt)
            .collect();
        let mut results: Vec<Option<NetEvaluation>> =
            keys.iter().map(|&k| cache.lookup(k)).collect();
        let missing: Vec<usize> = (0..positions.len())
            .filter(|&i| results[i].is_none())
            .collect();
        cache
            .hits
            .fetch_add((positions.len() - missing.len()) as u64, Ordering::Relaxed);
        cache
            .misses
            .fetch_add(missing.len() as u64, Ordering::Relaxed);
        if !missing.is_empty() {
            let games: Vec<&Game> = missing.iter().map(|&i| positions[i]).collect();
            let evaluations = run(&games)?;
            if evaluations.len() != games.len() {
                return Err(EvaluatorError::new(format!(
                    "{} results for {} positions",
                    evaluations.len(),
                    games.len()
                )));
            }
            let mut generations = cache.lock();
            for (&i, evaluation) in missing.iter().zip(evaluations) {
                cache.store(&mut generations, keys[i], evaluation.clone());
                results[i] = Some(evaluation);
            }
        }
        Ok(results
            .into_iter()
            .map(|r| r.expect("every position answered"))
            .collect())
    }
}

impl EvaluationCache {
    /// A cache of `capacity` positions per generation (0: none).
    pub fn new(capacity: usize) -> EvaluationCache {
        EvaluationCache {
            capacity,
            generations: Mutex::new(Generations::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Generations> {
        self.generations.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Positions answered from the cache so far, and those evaluated.
    pub fn hits_and_misses(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// Forgets every cached evaluation.
    pub fn clear(&self) {
        let mut generations = self.lock();
        generations.current.clear();
        generations.old.clear();
    }

    fn lookup(&self, key: u64) -> Option<NetEvaluation> {
        let mut generations = self.lock();
        if let Some(found) = generations.current.get(&key) {
            return Some(found.clone());
        }
        let found = generations.old.remove(&key)?;
        self.store(&mut generations, key, found.clone());
        Some(found)
    }

    fn store(&self, generations: &mut Generations, key: u64, evaluation: NetEvaluation) {
        if generations.current.len() >= self.capacity {
            generations.old = std::mem::take(&mut generations.current);
        }
        generations.current.insert(key, evaluation);
    }
}

/// A hash of everything a KataGo network reads of `game`.
pub fn input_key(game: &Game, root: bool) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let board = game.board();
    board.hash().hash(&mut hasher);
    board.ko_point().hash(&mut hasher);
    // Under territory scoring the network's komi counts the stones each
    // side has played, which the board alone does not show.
    let captures = board.captures();
    (captures.black, captures.white).hash(&mut hasher);
    game.to_move().hash(&mut hasher);
    let size: BoardSize = game.size();
    (size.width(), size.height()).hash(&mut hasher);
    let rules = game.rules();
    rules.komi.to_bits().hash(&mut hasher);
    format!("{rules:?}").hash(&mut hasher);
    let turns = game.turn_count();
    for (color, action) in game.history().skip(turns.saturating_sub(HISTORY)) {
        color.hash(&mut hasher);
        match action {
            Action::Move(mv) => mv.hash(&mut hasher),
            Action::Resign => 0xdead_u32.hash(&mut hasher),
        }
    }
    turns.min(HISTORY).hash(&mut hasher);
    root.hash(&mut hasher);
    hasher.finish()
}

impl<E: PositionEvaluator> PositionEvaluator for CachedEvaluator<E> {
    fn evaluate(&self, positions: &[&Game]) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        self.cached(positions, false, |games| self.inner.evaluate(games))
    }

    fn abandons(&self) -> bool {
        self.inner.abandons()
    }

    fn input_salt(&self) -> u64 {
        self.inner.input_salt()
    }

    fn evaluate_until(
        &self,
        positions: &[&Game],
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        self.cached(positions, false, |games| {
            self.inner.evaluate_until(games, cancel)
        })
    }

    fn evaluate_root(
        &self,
        root: &Game,
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<NetEvaluation, EvaluatorError> {
        let mut evaluations = self.cached(&[root], true, |games| {
            self.inner.evaluate_root(games[0], cancel).map(|e| vec![e])
        })?;
        Ok(evaluations.remove(0))
    }

    fn gives_uncertainty(&self) -> bool {
        self.inner.gives_uncertainty()
    }

    fn positions_in_parallel(&self) -> usize {
        self.inner.positions_in_parallel()
    }

    fn supports(&self, size: BoardSize) -> Result<(), String> {
        self.inner.supports(size)
    }

    fn name(&self) -> &str {
        self.inner.name()
    }

    fn raw_output(
        &self,
        game: &Game,
        symmetry: Option<u8>,
        optimism: Option<f32>,
    ) -> Option<Result<String, String>> {
        self.inner.raw_output(game, symmetry, optimism)
    }

    fn finished_margin(&self, game: &Game) -> Option<f32> {
        self.inner.finished_margin(game)
    }

    fn plays_on_after_passes(&self, game: &Game) -> bool {
        self.inner.plays_on_after_passes(game)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::{Color, Move, Rules};

    /// Counts positions; the value says how many stones are on the board.
    struct Counter(AtomicU64);

    impl PositionEvaluator for Counter {
        fn evaluate(&self, positions: &[&Game]) -> Result<Vec<NetEvaluation>, EvaluatorError> {
            self.0.fetch_add(positions.len() as u64, Ordering::SeqCst);
            Ok(positions
                .iter()
                .map(|g| NetEvaluation {
                    lead: (g.board().stone_count(Color::Black)
                        + g.board().stone_count(Color::White)) as f32,
                    ..NetEvaluation::default()
                })
                .collect())
        }
        fn supports(&self, _: BoardSize) -> Result<(), String> {
            Ok(())
        }
        fn name(&self) -> &str {
            "counter"
        }
    }

    fn game(moves: &[&str]) -> Game {
        let mut game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        for m in moves {
            let mv = game.size().parse_gtp(m).unwrap();
            game.play(mv).unwrap();
        }
        game
    }

    #[test]
    fn the_same_inputs_are_evaluated_once() {
        let cache = CachedEvaluator::new(Counter(AtomicU64::new(0)), 100);
        let a = game(&["E5", "C3"]);
        let b = game(&["E5", "C3"]);
        let first = cache.evaluate(&[&a]).unwrap();
        let again = cache.evaluate(&[&b, &a]).unwrap();
        assert_eq!(cache.inner().0.load(Ordering::SeqCst), 1);
        assert_eq!(again[0], first[0]);
        assert_eq!(cache.cache().hits_and_misses(), (2, 1));
        // The root is another key (another optimism).
        cache.evaluate_root(&a, &|| false).unwrap();
        assert_eq!(cache.inner().0.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_shared_cache_serves_evaluators_of_the_same_salt_only() {
        let shared = std::sync::Arc::new(EvaluationCache::new(100));
        let one = CachedEvaluator::sharing(Counter(AtomicU64::new(0)), shared.clone(), 7);
        let same = CachedEvaluator::sharing(Counter(AtomicU64::new(0)), shared.clone(), 7);
        let other = CachedEvaluator::sharing(Counter(AtomicU64::new(0)), shared.clone(), 8);
        let a = game(&["E5", "C3"]);
        one.evaluate(&[&a]).unwrap();
        same.evaluate(&[&a]).unwrap();
        other.evaluate(&[&a]).unwrap();
        assert_eq!(one.inner().0.load(Ordering::SeqCst), 1);
        assert_eq!(
            same.inner().0.load(Ordering::SeqCst),
            0,
            "answered from the shared cache"
        );
        assert_eq!(
            other.inner().0.load(Ordering::SeqCst),
            1,
            "another salt, another key"
        );
        assert_eq!(shared.hits_and_misses(), (1, 2));
    }

    #[test]
    fn other_histories_rules_and_sides_are_other_positions() {
        let cache = CachedEvaluator::new(Counter(AtomicU64::new(0)), 100);
        // The same stones reached in another order: the last moves differ.
        let a = game(&["E5", "C3", "G7"]);
        let b = game(&["G7", "C3", "E5"]);
        assert_eq!(a.board().hash(), b.board().hash());
        assert_ne!(input_key(&a, false), input_key(&b, false));
        let mut komi = a.clone();
        komi.set_rules(Rules::default().with_komi(0.5));
        assert_ne!(input_key(&a, false), input_key(&komi, false));
        assert_ne!(
            input_key(&a, false),
            input_key(&a.with_mover(Color::Black), false)
        );
        let mut passed = a.clone();
        passed.play(Move::Pass).unwrap();
        passed.play(Move::Pass).unwrap_or(());
        assert_ne!(input_key(&a, false), input_key(&passed, false));
        cache.evaluate(&[&a, &b, &komi]).unwrap();
        assert_eq!(cache.inner().0.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn two_generations_keep_what_was_used_lately() {
        let cache = CachedEvaluator::new(Counter(AtomicU64::new(0)), 2);
        let games: Vec<Game> = ["A1", "B1", "C1", "D1"]
            .iter()
            .map(|m| game(&[m]))
            .collect();
        for g in &games[..2] {
            cache.evaluate(&[g]).unwrap();
        }
        // A third fills a new generation; the first two move to the old one.
        cache.evaluate(&[&games[2]]).unwrap();
        cache.evaluate(&[&games[0]]).unwrap(); // a hit in the old, carried over
        assert_eq!(cache.inner().0.load(Ordering::SeqCst), 3);
        cache.evaluate(&[&games[3]]).unwrap(); // the current (C1, A1) becomes old
        cache.evaluate(&[&games[1]]).unwrap(); // B1 was dropped
        assert_eq!(cache.inner().0.load(Ordering::SeqCst), 5);
        cache.cache().clear();
        cache.evaluate(&[&games[3]]).unwrap();
        assert_eq!(cache.inner().0.load(Ordering::SeqCst), 6);
        let off = CachedEvaluator::new(Counter(AtomicU64::new(0)), 0);
        off.evaluate(&[&games[0]]).unwrap();
        off.evaluate(&[&games[0]]).unwrap();
        assert_eq!(off.inner().0.load(Ordering::SeqCst), 2);
    }
}
