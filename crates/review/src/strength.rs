//! A side's playing strength estimated from its review: the rank whose
//! players lose, on average, the points a move this side lost.
//!
//! Each rated move's loss counts between 0 and [`LOSS_CAP`] points (a move
//! better than the engine expected gains nothing, one lost group counts as
//! a big mistake rather than as the whole game), averaged over the side's
//! rated moves and scaled to 19×19 by the board's area. The rank is a
//! straight line in the logarithm of that mean ([`rank_of_mean_loss`]),
//! fitted to reviews of games between tengen's ranked bots at known ranks
//! (`docs/guide/opponents.md` has the fit, its check and how far to trust
//! it). One game says little: a player's rank is the estimate over
//! several.

use tengen_core::{Color, Rank};

use crate::loss::MoveLoss;

/// Points a single move's loss counts for at most.
pub const LOSS_CAP: f64 = 20.0;

/// Rated moves a side needs before its strength is estimated.
pub const MIN_MOVES: usize = 20;

/// The kyu number at a mean loss of 1 point a move on 19×19: the line
/// through the mean losses of 15k, 8k, 3k and 2d games of the ranked bots
/// (against KaTrain's bot of the same rank, or each other) reviewed at 4
/// visits, 20 games a rank (2.39, 1.65, 1.01 and 0.87 points;
/// `scripts/rank-estimate --fit`; the fit and its check in
/// `docs/experiments/2026-12-04-rank-estimate-refit.md`).
const KYU_AT_ONE_POINT: f64 = 1.67;

/// Kyu numbers per factor e of mean loss, from the same line.
const KYU_PER_LOG_LOSS: f64 = 14.76;

/// A side's estimated strength.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrengthEstimate {
    /// The rank.
    pub rank: Rank,
    /// The same on KaTrain's kyu scale, before rounding (1d is 0).
    pub kyu: f64,
    /// The side's rated moves.
    pub moves: usize,
    /// Its mean loss a move, each loss between 0 and [`LOSS_CAP`], on
    /// the board's own scale.
    pub mean_loss: f64,
}

/// The kyu number (KaTrain's scale: 1k is 1, 1d is 0, 2d is −1) of a
/// player whose mean capped loss a move on 19×19 is `mean_loss`.
pub fn rank_of_mean_loss(mean_loss: f64) -> f64 {
    KYU_AT_ONE_POINT + KYU_PER_LOG_LOSS * mean_loss.max(0.01).ln()
}

/// `color`'s strength from the losses of a game's moves on a board of
/// `area` points, in points of score; `None` with fewer than
/// [`MIN_MOVES`] rated moves of its own.
pub fn estimate_strength(
    losses: &[MoveLoss],
    color: Color,
    area: usize,
) -> Option<StrengthEstimate> {
    let own: Vec<f64> = losses
        .iter()
        .filter(|m| m.color == color && m.rated)
        .filter_map(|m| m.loss)
        .map(|loss| loss.clamp(0.0, LOSS_CAP))
        .collect();
    if own.len() < MIN_MOVES || area == 0 {
        return None;
    }
    let mean_loss = own.iter().sum::<f64>() / own.len() as f64;
    let kyu = rank_of_mean_loss(mean_loss * 361.0 / area as f64);
    Some(StrengthEstimate {
        rank: Rank::from_kyu_number(kyu),
        kyu,
        moves: own.len(),
        mean_loss,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn losses(color: Color, values: &[f64]) -> Vec<MoveLoss> {
        values
            .iter()
            .enumerate()
            .map(|(i, &loss)| MoveLoss {
                number: i + 1,
                color,
                loss: Some(loss),
                rated: true,
            })
            .collect()
    }

    #[test]
    fn bigger_losses_mean_weaker_ranks() {
        let estimate = |loss: f64| {
            estimate_strength(&losses(Color::Black, &[loss; 40]), Color::Black, 361).unwrap()
        };
        let ranks: Vec<Rank> = [0.3, 1.0, 3.0, 8.0]
            .iter()
            .map(|&l| estimate(l).rank)
            .collect();
        assert!(ranks.windows(2).all(|w| w[0] > w[1]), "{ranks:?}");
        assert_eq!(estimate(2.0).moves, 40);
        assert_eq!(estimate(2.0).mean_loss, 2.0);
    }

    #[test]
    fn gains_count_nothing_and_one_lost_group_is_capped() {
        let black = |values: &[f64]| {
            estimate_strength(&losses(Color::Black, values), Color::Black, 361).unwrap()
        };
        let mut steady = vec![1.0; 30];
        let plain = black(&steady).mean_loss;
        steady[3] = -15.0;
        assert_eq!(black(&steady).mean_loss, plain - 1.0 / 30.0);
        steady[3] = 200.0;
        assert_eq!(black(&steady).mean_loss, plain + (LOSS_CAP - 1.0) / 30.0);
    }

    #[test]
    fn too_few_moves_or_the_other_side_give_no_estimate() {
        let black = losses(Color::Black, &[1.0; 30]);
        assert!(estimate_strength(&black, Color::White, 361).is_none());
        assert!(estimate_strength(&black[..10], Color::Black, 361).is_none());
        let mut unrated = black.clone();
        for m in &mut unrated[5..] {
            m.rated = false;
        }
        assert!(estimate_strength(&unrated, Color::Black, 361).is_none());
        // A 9x9 game's losses count four and a half times on 19x19's scale.
        let small = estimate_strength(&black, Color::Black, 81).unwrap();
        let big = estimate_strength(&black, Color::Black, 361).unwrap();
        assert!(small.kyu > big.kyu);
    }
}
