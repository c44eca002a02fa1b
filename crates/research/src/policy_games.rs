//! `tengen nn policy-games`: games played by drawing every move from a
//! KataGo network's raw policy, written as policy records
//! ([`tengen_train::policy_record`]) with the network's probabilities on
//! every move. They are what the move model learns a strong player's whole
//! judgement from (`tengen nn move-model --policies`), many times more
//! positions an hour than a search would give.
//!
//! Several games are played side by side so that each network call
//! evaluates one batch: a position of every game still running. Each call
//! uses the next of the eight symmetries, so no orientation's quirks
//! dominate the labels.

use anyhow::{Context, Result};
use tengen_core::{BoardSize, Game, Move, Rng, Rules};
use tengen_katago::network::{EvalOptions, Network, Symmetries};
use tengen_sgf::GameInfo;
use tengen_train::policy_record::{write_policy_record, Policy};

/// Settings of a run of policy games.
#[derive(Clone, Debug)]
pub struct PolicyGamesOptions {
    /// Board size.
    pub size: BoardSize,
    /// Rules (komi included) the network is told and the games follow.
    pub rules: Rules,
    /// Games to play.
    pub games: usize,
    /// Games played side by side (the network's batch).
    pub parallel: usize,
    /// Moves are drawn with probability `p^(1/temperature)`: 1 plays the
    /// policy as it is, lower values play its favourites more often.
    pub temperature: f64,
    /// Turns after which a game is stopped.
    pub max_turns: usize,
    /// Probabilities below this are left out of the records.
    pub floor: f32,
    /// Seed of the draws.
    pub seed: u64,
}

/// What a run played.
#[derive(Clone, Copy, Debug, Default)]
pub struct PolicyGamesReport {
    /// Games finished.
    pub games: usize,
    /// Positions evaluated (and written with their probabilities).
    pub positions: usize,
    /// Games that ended with two passes (the rest reached the turn limit).
    pub ended_by_passes: usize,
}

/// A game in progress.
struct Running {
    index: usize,
    game: Game,
    policies: Vec<Option<Policy>>,
}

/// Draws a move of `policy` with probability `p^(1/temperature)`; `None`
/// when every weight is zero.
fn draw(policy: &[(Move, f32)], temperature: f64, rng: &mut Rng) -> Option<Move> {
    let weights: Vec<f64> = policy
        .iter()
        .map(|&(_, p)| (p.max(0.0) as f64).powf(1.0 / temperature))
        .collect();
    let total: f64 = weights.iter().sum();
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    let mut target = rng.next_f64() * total;
    for (&(mv, _), w) in policy.iter().zip(&weights) {
        if target < *w {
            return Some(mv);
        }
        target -= w;
    }
    policy
        .iter()
        .rev()
        .find(|&&(_, p)| p > 0.0)
        .map(|&(mv, _)| mv)
}

/// Plays `options.games` games with `network`, handing each finished game's
/// index and policy record to `on_game` (in the order they finish), and
/// `progress` the positions evaluated so far after every batch.
pub fn play_policy_games(
    network: &Network,
    options: &PolicyGamesOptions,
    on_game: &mut dyn FnMut(usize, String) -> Result<()>,
    progress: &mut dyn FnMut(&PolicyGamesReport),
) -> Result<PolicyGamesReport> {
    anyhow::ensure!(options.temperature > 0.0, "the temperature must be above 0");
    let mut rng = Rng::new(options.seed);
    let mut report = PolicyGamesReport::default();
    let mut started = 0;
    let mut running: Vec<Running> = Vec::new();
    let eval_options = EvalOptions::default();
    let info = GameInfo {
        black_name: Some("katago raw policy".to_string()),
        white_name: Some("katago raw policy".to_string()),
        comment: Some(format!(
            "moves drawn from the network's policy, temperature {}; POLICY: its probabilities before each move",
            options.temperature
        )),
        ..GameInfo::default()
    };
    let mut call = 0u8;
    loop {
        while running.len() < options.parallel.max(1) && started < options.games {
            running.push(Running {
                index: started,
                game: Game::new(options.size, options.rules),
                policies: Vec::new(),
            });
            started += 1;
        }
        if running.is_empty() {
            break;
        }
        let games: Vec<&Game> = running.iter().map(|r| &r.game).collect();
        let evaluations = network
            .evaluate(&games, Symmetries::One(call % 8), &eval_options)
            .context("evaluating a batch of positions")?;
        call = call.wrapping_add(1);
        report.positions += evaluations.len();
        for (run, evaluation) in running.iter_mut().zip(&evaluations) {
            let mut policy = evaluation.move_policy(options.size);
            run.policies.push(Some(policy.clone()));
            // The network's legality is KataGo's; the game's own rules have
            // the last word (a move they refuse is drawn again without it).
            loop {
                let mv = draw(&policy, options.temperature, &mut rng).unwrap_or(Move::Pass);
                if run.game.play(mv).is_ok() {
                    break;
                }
                anyhow::ensure!(mv != Move::Pass, "a pass was refused");
                policy.retain(|&(m, _)| m != mv);
            }
        }
        let mut k = 0;
        while k < running.len() {
            let run = &running[k];
            if run.game.is_over() || run.game.turn_count() >= options.max_turns {
                let run = running.swap_remove(k);
                if run.game.is_over() {
                    report.ended_by_passes += 1;
                }
                let record = write_policy_record(&run.game, &info, &run.policies, options.floor);
                on_game(run.index, record)?;
                report.games += 1;
            } else {
                k += 1;
            }
        }
        progress(&report);
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_follow_the_weights() {
        let size = BoardSize::square(9).unwrap();
        let a = size.parse_gtp("A1").unwrap();
        let b = size.parse_gtp("B2").unwrap();
        let policy = vec![(a, 0.75), (b, 0.25), (Move::Pass, 0.0)];
        let mut rng = Rng::new(3);
        let mut counts = [0usize; 3];
        for _ in 0..20_000 {
            match draw(&policy, 1.0, &mut rng) {
                Some(m) if m == a => counts[0] += 1,
                Some(m) if m == b => counts[1] += 1,
                _ => counts[2] += 1,
            }
        }
        assert_eq!(counts[2], 0, "a move of probability 0 is never drawn");
        let share = counts[0] as f64 / 20_000.0;
        assert!((share - 0.75).abs() < 0.02, "{share}");
        // A low temperature sharpens: 0.75^2 / (0.75^2 + 0.25^2) = 0.9.
        let mut first = 0;
        for _ in 0..20_000 {
            first += usize::from(draw(&policy, 0.5, &mut rng) == Some(a));
        }
        let share = first as f64 / 20_000.0;
        assert!((share - 0.9).abs() < 0.02, "{share}");
        assert_eq!(draw(&[(a, 0.0)], 1.0, &mut rng), None);
    }
}
