//! The book's `DeepLearningAgent`: a policy network's move probabilities,
//! cubed (sharpening the preference for the network's favourites), clipped
//! to `[1e-6, 1 − 1e-6]`, renormalised and sampled into a ranked list; the
//! bot plays the first legal move of the list that does not fill one of its
//! own eyes, and passes when none is left. Termination strategies (pass when
//! the opponent passes, resign at a large margin) wrap it as in the book
//! (`tengen_bots::termination`; the registry's policy bot passes after the
//! opponent by default).

use crate::model::Model;
use tengen_core::{pick_at_rank, Action, Agent, Game, Move, Rank, Rng};

/// Plays the policy network's move probabilities (see the module docs).
#[derive(Debug)]
pub struct PolicyBot {
    model: Model,
    rng: Rng,
    name: String,
    /// Draws as a player of this rank does ([`pick_at_rank`]) instead of
    /// the book's sampling.
    rank: Option<Rank>,
}

/// The exponent applied to the network's probabilities before sampling.
const SHARPEN: i32 = 3;
const CLIP: f32 = 1e-6;

impl PolicyBot {
    /// A bot playing `model`, its random choices seeded by `seed`.
    pub fn new(model: Model, seed: u64) -> PolicyBot {
        PolicyBot {
            model,
            rng: Rng::new(seed),
            name: "policy".to_string(),
            rank: None,
        }
    }

    /// The same bot choosing as a player of `rank` does: obvious moves,
    /// else the best of a rank's number of moves drawn at random from the
    /// legal ones that fill none of its own eyes ([`pick_at_rank`]).
    pub fn at_rank(mut self, rank: Rank) -> PolicyBot {
        self.rank = Some(rank);
        self
    }

    /// The model.
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The probabilities sharpened, clipped and renormalised, as the book's
    /// agent samples them (entries for moves that cannot be played are kept:
    /// the ranked list skips them).
    pub fn sampling_weights(policy: &[f32]) -> Vec<f32> {
        let mut weights: Vec<f32> = policy
            .iter()
            .map(|&p| p.powi(SHARPEN).clamp(CLIP, 1.0 - CLIP))
            .collect();
        let total: f32 = weights.iter().sum();
        if total > 0.0 {
            for w in &mut weights {
                *w /= total;
            }
        }
        weights
    }

    /// Move indices in a random order where each next index is drawn with
    /// probability proportional to its weight among those left (sampling
    /// without replacement, the book's `np.random.choice(..., replace=False, p=...)`).
    fn ranked(&mut self, weights: &[f32]) -> Vec<usize> {
        // Efraimidis–Spirakis: sort by u^(1/w) descending, equivalently by
        // ln(u)/w; one pass, one random number per move.
        let mut keys: Vec<(f64, usize)> = weights
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                (
                    u.max(f64::MIN_POSITIVE).ln() / w.max(f32::MIN_POSITIVE) as f64,
                    i,
                )
            })
            .collect();
        keys.sort_by(|a, b| b.0.total_cmp(&a.0));
        keys.into_iter().map(|(_, i)| i).collect()
    }

    /// The policy's move without termination rules.
    fn policy_move(&mut self, game: &Game) -> Move {
        let prediction = self
            .model
            .predict(&[game])
            .pop()
            .expect("one prediction per game");
        let color = game.to_move();
        let board = game.board();
        if let Some(rank) = self.rank {
            let encoder = self.model.encoder();
            let playable: Vec<(Move, f32)> = prediction
                .policy
                .iter()
                .enumerate()
                .filter_map(|(index, &p)| Some((encoder.decode_move(index)?, p)))
                .filter(|&(mv, _)| match mv {
                    Move::Pass => true,
                    Move::Play(point) => {
                        !board.is_point_an_eye(point, color) && game.legal(mv).is_ok()
                    }
                })
                .collect();
            let area = game.size().points_count();
            return pick_at_rank(rank, &playable, area, &|_| false, &mut self.rng)
                .map_or(Move::Pass, |pick| pick.mv);
        }
        let weights = PolicyBot::sampling_weights(&prediction.policy);
        let ranked = self.ranked(&weights);
        let encoder = self.model.encoder();
        for index in ranked {
            let Some(mv) = encoder.decode_move(index) else {
                continue;
            };
            match mv {
                // A pass output is the network's choice only once no stone
                // is worth playing; the book's agent never passes by choice.
                Move::Pass => continue,
                Move::Play(point) => {
                    if !board.is_point_an_eye(point, color) && game.legal(mv).is_ok() {
                        return mv;
                    }
                }
            }
        }
        Move::Pass
    }
}

impl Agent for PolicyBot {
    fn name(&self) -> &str {
        &self.name
    }

    fn plays_size(&self, size: tengen_core::BoardSize) -> Result<(), String> {
        self.model.expect_size(size).map_err(|e| e.to_string())
    }

    fn select_move(&mut self, game: &Game) -> Action {
        if self.plays_size(game.size()).is_err() {
            // Front ends refuse such a board first (`plays_size`); should a
            // game reach the bot anyway, it gives up rather than guess.
            return Action::Resign;
        }
        Action::Move(self.policy_move(game))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sampling_weights_cube_clip_and_normalise() {
        let w = PolicyBot::sampling_weights(&[0.5, 0.5, 0.0]);
        assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        assert!((w[0] - w[1]).abs() < 1e-7);
        assert!(w[2] > 0.0, "clipped to at least 1e-6 before renormalising");
        let sharp = PolicyBot::sampling_weights(&[0.6, 0.4]);
        // Cubing favours the favourite: 0.216 / (0.216 + 0.064).
        assert!((sharp[0] - 0.216 / 0.28).abs() < 1e-5, "{sharp:?}");
    }
}
