//! A neural network inside the tree search, as AlphaGo used one: its policy
//! becomes prior knowledge for the children of the root and of every node
//! the search has visited often enough (`network-visits`), and its
//! value is mixed with the result of a rollout at every leaf
//! (`(1 − λ)·rollout + λ·value`).

use std::collections::HashMap;

use tengen_core::{Board, Color, Game, Move, Rules, MAX_CELLS};
use tengen_nn::model::{Model, Prediction};

use crate::evaluator::{AmafMap, Evaluation, Evaluator, Leaf, Policy, RolloutEvaluator};

/// How the network enters the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NetworkMix {
    /// λ: the value head's share of a leaf's evaluation (0 = rollouts only,
    /// 1 = no rollouts). Networks without a value head use 0.
    pub value_weight: f32,
    /// Virtual visits (all won) given to the policy's favourite move; the
    /// others get this times their probability relative to it.
    pub prior_weight: f32,
}

impl Default for NetworkMix {
    fn default() -> Self {
        NetworkMix {
            // Prior only: a value at every leaf costs a network evaluation
            // per simulation (about 2,000 a second for the shipped model on
            // one thread, against some 15,000 rollouts), so at equal time
            // it buys far fewer simulations.
            value_weight: 0.0,
            prior_weight: 40.0,
        }
    }
}

/// Most positions remembered per thread; the cache is dropped when full.
const CACHE_LIMIT: usize = 50_000;

/// Leaf evaluation by a network and rollouts (see the module docs).
#[derive(Clone, Debug)]
pub struct NetworkEvaluator {
    model: Model,
    rollouts: RolloutEvaluator,
    mix: NetworkMix,
    /// Predictions by (board hash, side to move): a node's first visit asks
    /// for the value and its expansion later for the policy of the same
    /// position.
    cache: HashMap<(u64, Color), Prediction>,
}

impl NetworkEvaluator {
    /// An evaluator with `model`, rollouts for the rest of the mix.
    pub fn new(model: Model, rollouts: RolloutEvaluator, mix: NetworkMix) -> NetworkEvaluator {
        let mix = NetworkMix {
            value_weight: if model.metadata().architecture.has_value_head() {
                mix.value_weight.clamp(0.0, 1.0)
            } else {
                0.0
            },
            ..mix
        };
        NetworkEvaluator {
            model,
            rollouts,
            mix,
            cache: HashMap::new(),
        }
    }

    /// The mix in use (λ is 0 for a network without a value head).
    pub fn mix(&self) -> NetworkMix {
        self.mix
    }

    /// The network's prediction for `to_move` on `board`.
    fn predict(&mut self, board: &Board, to_move: Color, komi: f64) -> &Prediction {
        let key = (board.hash(), to_move);
        if !self.cache.contains_key(&key) {
            if self.cache.len() >= CACHE_LIMIT {
                self.cache.clear();
            }
            let game =
                Game::from_position(board.clone(), to_move, Rules::default().with_komi(komi));
            let prediction = self
                .model
                .predict(&[&game])
                .pop()
                .expect("one prediction per position");
            self.cache.insert(key, prediction);
        }
        &self.cache[&key]
    }
}

impl Evaluator for NetworkEvaluator {
    fn evaluate(&mut self, leaf: Leaf<'_>, amaf: &mut AmafMap) -> Evaluation {
        let lambda = self.mix.value_weight;
        if leaf.nogo || lambda <= 0.0 || leaf.board.size() != self.model.size() {
            return self.rollouts.evaluate(leaf, amaf);
        }
        let value = self
            .predict(leaf.board, leaf.to_move, leaf.komi)
            .value
            .unwrap_or(0.0);
        // The value is the side to move's expected result in -1..=1.
        let mover_wins = (value + 1.0) / 2.0;
        let net_black = match leaf.to_move {
            Color::Black => mover_wins,
            Color::White => 1.0 - mover_wins,
        };
        if lambda >= 1.0 {
            return Evaluation {
                black_value: net_black,
                played_out: false,
            };
        }
        let rollout = self.rollouts.evaluate(leaf, amaf);
        Evaluation {
            black_value: (1.0 - lambda) * rollout.black_value + lambda * net_black,
            played_out: rollout.played_out,
        }
    }

    fn fork(&self, stream: u64) -> Self {
        NetworkEvaluator {
            model: self.model.clone(),
            rollouts: self.rollouts.fork(stream),
            mix: self.mix,
            cache: HashMap::new(),
        }
    }

    fn has_policy(&self) -> bool {
        self.mix.prior_weight > 0.0
    }

    fn policy(&mut self, board: &Board, to_move: Color, komi: f64) -> Option<Policy> {
        if board.size() != self.model.size() || self.mix.prior_weight <= 0.0 {
            return None;
        }
        let weight = self.mix.prior_weight;
        let size = board.size();
        let probabilities = self.predict(board, to_move, komi).policy.clone();
        let encoder = self.model.encoder();
        let mut points = vec![0.0f32; MAX_CELLS];
        let mut pass = 0.0;
        for (index, &p) in probabilities.iter().enumerate() {
            match encoder.decode_move(index) {
                Some(Move::Play(point)) if size.contains(point) => points[point.index()] = p,
                Some(Move::Pass) => pass = p,
                _ => {}
            }
        }
        Some(Policy {
            points,
            pass,
            weight,
        })
    }
}
