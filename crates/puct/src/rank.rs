//! Playing at a human rank over a network: [`RankBot`].
//!
//! Up to 5 dan the move is chosen from the network's policy as a player of
//! that rank chooses ([`tengen_core::pick_at_rank`]), and then checked: a
//! drawn move whose loss, by the network's score lead after it, is far
//! outside what a player of that rank loses in one move
//! ([`blunder_limit`]) is refused and another drawn. Above 5 dan a short
//! search rates the candidates and the move is drawn by their score
//! losses, sharper the stronger the rank ([`score_temperature`]).

use tengen_core::{pick_at_rank, Action, Agent, BoardSize, Game, Move, PickReason, Rank, Rng};

use crate::{NetEvaluation, PositionEvaluator, PuctBot, PuctCandidate, PuctConfig, PuctSearch};

/// Drawn moves refused for their loss before the network's first move is
/// played instead.
const MAX_REFUSALS: usize = 4;

/// Points by which the network's first move on the board must beat
/// passing, by its lead after each, for the bot not to pass.
const PASS_LOSS_LIMIT: f32 = 1.5;

/// Visits of the search that rates the moves above 5 dan: enough to see
/// the candidates' leads, little enough for a move in under a second on
/// 19×19 on two cores.
pub const STRONG_RANK_VISITS: u64 = 8;

/// The least blunder limit of any rank on 19×19, in points: a group
/// thrown away, not a slack move. Tighter limits made the bots stronger
/// than KaTrain's at their rank, which the check only asks to be rid of
/// its worst moves: at 10.6 and 6.1 points, 3 kyu and 2 dan scored 72.5%
/// and 77.5% over 40 games (`docs/experiments/2026-12-03-rank-bots.md`);
/// at 20 points, 3 kyu still scored 67.5%, its check refusing most of the
/// more-than-20-point losses KaTrain's bot makes 1.2 times a game
/// (`docs/experiments/2026-12-04-rank-blunder-limit.md`); at 30 points it
/// scored 57.5%, its losses matching KaTrain's column by column
/// (`docs/experiments/2026-12-05-rank-blunder-floor-30.md`).
pub const LEAST_BLUNDER_LIMIT: f32 = 30.0;

/// The most points a player of `rank` loses in one move, on 19×19; a drawn
/// move losing more by the network's reckoning is a blunder that rank
/// would not make. About twenty times the rank's typical loss per move for
/// the weaker ranks (57 points at 15 kyu, 33 at 11 kyu), and never under
/// [`LEAST_BLUNDER_LIMIT`]. Scaled by the board's area on other sizes.
pub fn blunder_limit(rank: Rank, size: BoardSize) -> f32 {
    let from_5d = (rank.kyu_number() + 4) as f32;
    let area = size.points_count() as f32 / 361.0;
    (4.0 * 1.15f32.powf(from_5d)).max(LEAST_BLUNDER_LIMIT) * area.max(0.1)
}

/// For ranks above 5 dan, the temperature in points of the draw among the
/// searched moves (weights `exp(−loss / t)`): 1 point at 6 dan, halving
/// with each rank to 1/8 at 9 dan; `None` up to 5 dan.
pub fn score_temperature(rank: Rank) -> Option<f32> {
    let above_5d = i32::from(rank.dan_number()?) - 5;
    (above_5d > 0).then(|| 0.5f32.powi(above_5d - 1))
}

/// A bot playing at a human [`Rank`] over a network; see the module's
/// text.
pub struct RankBot<E: PositionEvaluator> {
    rank: Rank,
    /// The search for ranks above 5 dan; its evaluator is the network
    /// every rank asks.
    search: PuctBot<E>,
    rng: Rng,
    name: String,
}

impl<E: PositionEvaluator> RankBot<E> {
    /// The bot of `rank` over `evaluator`, its draws from `seed`; `config`
    /// is the search above 5 dan (its visits set to
    /// [`STRONG_RANK_VISITS`], no tree kept between moves).
    pub fn new(rank: Rank, mut config: PuctConfig, evaluator: E, seed: u64) -> Self {
        config.limits.visits = Some(STRONG_RANK_VISITS);
        config.limits.time = None;
        config.limits.reuse = false;
        config.limits.ponder = false;
        let name = format!("rank {rank}({})", evaluator.name());
        RankBot {
            rank,
            search: PuctSearch::new(config, evaluator).into_bot(),
            rng: Rng::new(seed),
            name,
        }
    }

    /// The same bot under another name.
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.to_string();
        self
    }

    /// Its rank.
    pub fn rank(&self) -> Rank {
        self.rank
    }

    /// The network it asks.
    pub fn evaluator(&self) -> &E {
        self.search.tree_search().evaluator()
    }

    /// The network's view of `game`, its policy limited to legal moves;
    /// `None` if the network failed.
    fn evaluate(&self, game: &Game) -> Option<NetEvaluation> {
        let mut evaluation = match self.evaluator().evaluate_root(game, &|| false) {
            Ok(evaluation) => evaluation,
            Err(error) => {
                tracing::warn!("rank bot: {error}");
                return None;
            }
        };
        evaluation.policy.retain(|&(mv, _)| game.legal(mv).is_ok());
        Some(evaluation)
    }

    /// The move up to 5 dan: drawn from the policy, refusing blunders.
    fn policy_move(&mut self, game: &Game) -> Move {
        let Some(root) = self.evaluate(game) else {
            return Move::Pass;
        };
        let area = game.size().points_count();
        let limit = blunder_limit(self.rank, game.size());
        let mut refused: Vec<Move> = Vec::new();
        while refused.len() < MAX_REFUSALS {
            let excluded = |mv: Move| refused.contains(&mv);
            let Some(pick) = pick_at_rank(self.rank, &root.policy, area, &excluded, &mut self.rng)
            else {
                return Move::Pass;
            };
            if pick.mv == Move::Pass {
                return self.pass_or_answer(game, &root);
            }
            if !matches!(pick.reason, PickReason::Drawn { .. }) {
                return pick.mv;
            }
            match self.loss_of(game, &root, pick.mv) {
                Some(loss) if loss > limit => {
                    tracing::debug!(mv = ?pick.mv, loss, limit, "rank bot: refused a blunder");
                    refused.push(pick.mv);
                }
                _ => return pick.mv,
            }
        }
        first_move(&root.policy)
    }

    /// A pass, unless the policy's first move on the board is better than
    /// passing by more than [`PASS_LOSS_LIMIT`] points (an invasion or a
    /// threat left unanswered): then that move. A player of any rank
    /// answers those; the raw policy of a network trained on self-play
    /// often passes there, as its opponents never play such moves. Both are
    /// weighed, not the pass alone: once the opponent has passed, a network
    /// that does not see the game end may rate passing low, and the move
    /// that replaced it would only fill the bot's own area.
    fn pass_or_answer(&self, game: &Game, root: &NetEvaluation) -> Move {
        let answer = first_move(root.policy.iter().filter(|(mv, _)| *mv != Move::Pass));
        if answer == Move::Pass {
            return Move::Pass;
        }
        match (
            self.loss_of(game, root, Move::Pass),
            self.loss_of(game, root, answer),
        ) {
            (Some(pass), Some(stone)) if pass - stone > PASS_LOSS_LIMIT => answer,
            _ => Move::Pass,
        }
    }

    /// Points `mv` loses by the network's lead before and after it.
    fn loss_of(&self, game: &Game, root: &NetEvaluation, mv: Move) -> Option<f32> {
        let mut after = game.clone();
        after.play(mv).ok()?;
        let child = self.evaluator().evaluate(&[&after]).ok()?.pop()?;
        // The lead after the move is the opponent's: ours is its negation.
        Some(root.lead + child.lead)
    }

    /// The move above 5 dan: drawn among the searched moves by their score
    /// losses.
    fn searched_move(&mut self, game: &Game, temperature: f32) -> Move {
        self.search.search(game);
        let Some(analysis) = self.search.detailed_analysis() else {
            return Move::Pass;
        };
        draw_by_loss(&analysis.candidates, temperature, &mut self.rng).unwrap_or(Move::Pass)
    }
}

/// The move with the highest prior (pass when there is none).
fn first_move<'a>(policy: impl IntoIterator<Item = &'a (Move, f32)>) -> Move {
    policy
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or(Move::Pass, |&(mv, _)| mv)
}

/// One of `candidates` drawn with weights `exp(−loss / temperature)`, the
/// loss in points below the best lead among them. Copies under the root's
/// symmetries are left out: each set of symmetric moves is drawn as one,
/// as it was searched.
pub fn draw_by_loss(candidates: &[PuctCandidate], temperature: f32, rng: &mut Rng) -> Option<Move> {
    let candidates: Vec<&PuctCandidate> = candidates
        .iter()
        .filter(|c| c.symmetry_of.is_none())
        .collect();
    let best = candidates
        .iter()
        .map(|c| c.lead)
        .fold(f32::NEG_INFINITY, f32::max);
    let weights: Vec<f64> = candidates
        .iter()
        .map(|c| f64::from(-(best - c.lead) / temperature.max(1e-3)).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    if candidates.is_empty() || !total.is_finite() || total <= 0.0 {
        return candidates.first().map(|c| c.mv);
    }
    let mut target = rng.next_f64() * total;
    for (candidate, weight) in candidates.iter().zip(&weights) {
        if target < *weight {
            return Some(candidate.mv);
        }
        target -= weight;
    }
    candidates.last().map(|c| c.mv)
}

impl<E: PositionEvaluator> Agent for RankBot<E> {
    fn name(&self) -> &str {
        &self.name
    }

    fn select_move(&mut self, game: &Game) -> Action {
        let mv = match score_temperature(self.rank) {
            Some(temperature) => self.searched_move(game, temperature),
            None => self.policy_move(game),
        };
        if game.legal(mv).is_ok() {
            Action::Move(mv)
        } else {
            Action::Move(Move::Pass)
        }
    }

    fn plays_size(&self, size: BoardSize) -> Result<(), String> {
        self.evaluator().supports(size)
    }

    fn reset(&mut self) {
        self.search.reset();
    }
}
