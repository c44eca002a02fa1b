//! Human playing strength: [`Rank`] on the kyu/dan scale, and the choice of
//! a move the way a player of a rank chooses it from a policy
//! ([`pick_at_rank`]).
//!
//! The choice follows the observation behind KaTrain's calibrated rank bot:
//! a player's move is, on average, further down a strong network's list of
//! moves the weaker the player, and the best of `n` moves drawn at random
//! from the legal ones lands at the same place in that list when `n`
//! matches the rank. How far down, by rank, board size and the stage of
//! the game, is the fit KaTrain made to human games on OGS
//! ([`Rank::candidates`]); the overrides for obvious moves are its
//! thresholds too. The code is tengen's own.

use std::fmt;
use std::str::FromStr;

use crate::point::Move;
use crate::rng::Rng;

/// A playing strength on the kyu/dan scale, from 30 kyu to 9 dan: `15k`,
/// `1k`, `1d`, `5d`. One rank is one handicap stone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Rank {
    /// Stones above 30 kyu: 30k is 0, 1k is 29, 1d is 30, 9d is 38.
    steps: u8,
}

/// Why a rank's text was not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RankError {
    /// The text given.
    pub text: String,
}

impl fmt::Display for RankError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a rank: give kyu as 30k to 1k and dan as 1d to 9d",
            self.text
        )
    }
}

impl std::error::Error for RankError {}

impl Rank {
    /// The weakest rank, 30 kyu.
    pub const WEAKEST: Rank = Rank { steps: 0 };
    /// The strongest rank, 9 dan.
    pub const STRONGEST: Rank = Rank { steps: 38 };

    /// `n` kyu (1 to 30).
    pub fn kyu(n: u8) -> Option<Rank> {
        (1..=30).contains(&n).then(|| Rank { steps: 30 - n })
    }

    /// `n` dan (1 to 9).
    pub fn dan(n: u8) -> Option<Rank> {
        (1..=9).contains(&n).then(|| Rank { steps: 29 + n })
    }

    /// The rank on KaTrain's kyu scale: 15k is 15, 1k is 1, 1d is 0, 2d
    /// is −1, 9d is −8.
    pub fn kyu_number(self) -> i32 {
        30 - i32::from(self.steps)
    }

    /// The rank of a kyu number ([`Rank::kyu_number`]), clamped to 30k–9d.
    pub fn from_kyu_number(kyu: f64) -> Rank {
        let steps = (30.0 - kyu.round()).clamp(0.0, 38.0);
        Rank { steps: steps as u8 }
    }

    /// Whether it is a dan rank.
    pub fn is_dan(self) -> bool {
        self.steps >= 30
    }

    /// The dan number for dan ranks (1 to 9).
    pub fn dan_number(self) -> Option<u8> {
        self.is_dan().then(|| self.steps - 29)
    }

    /// Stones from `weaker` up to this rank (negative when it is weaker).
    pub fn stones_above(self, weaker: Rank) -> i32 {
        i32::from(self.steps) - i32::from(weaker.steps)
    }

    /// Every rank from 30k to 9d, weakest first.
    pub fn all() -> impl Iterator<Item = Rank> {
        (0..=38).map(|steps| Rank { steps })
    }

    /// How many moves, drawn at random from the `legal` ones on a board of
    /// `area` points, a player of this rank in effect compares: KaTrain's
    /// fit of where a human move lies in the network's order of moves, by
    /// rank and by how full the board is, turned into the number of draws
    /// whose best lands there. At least 1.
    pub fn candidates(self, legal: usize, area: usize) -> usize {
        if legal == 0 || area == 0 {
            return 1;
        }
        let kyu = f64::from(self.kyu_number());
        let area_f = area as f64;
        let open = legal as f64 / area_f;
        // Where a move of this rank lies in the network's order, on average,
        // before the stage of the game is taken into account.
        let base = 0.063015 + 0.7624 * area_f / 10f64.powf(-0.05737 * kyu + 1.9482);
        // The middle game spreads the choices of weaker players most.
        let stage = 3.002 * open * open - open - 0.034889 * kyu - 0.5097;
        let place = (0.3931 + 0.6559 * open * (-stage * stage).exp() - 0.01093 * kyu) * base;
        let draws = legal as f64 / (1.31165 * (place + 1.0) - 0.082653);
        (draws.round().max(1.0)) as usize
    }

    /// The prior above which a player of this rank plays the network's
    /// first move without looking further, on a board with `legal` of its
    /// `area` points open: obvious moves get more obvious as the board
    /// fills.
    pub fn obvious_first(self, legal: usize, area: usize) -> f32 {
        let filled = (area.saturating_sub(legal)) as f32 / area.max(1) as f32;
        0.8 * (1.0 - 0.5 * filled)
    }

    /// The sum of the first two priors above which a player of this rank
    /// plays the first: when two moves share the whole policy, weaker
    /// players still find one of them less often.
    pub fn obvious_pair(self) -> f32 {
        0.85 + (0.02 * (self.kyu_number() - 8) as f32).max(0.0)
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.dan_number() {
            Some(dan) => write!(f, "{dan}d"),
            None => write!(f, "{}k", self.kyu_number()),
        }
    }
}

impl FromStr for Rank {
    type Err = RankError;

    /// `15k`, `15kyu`, `15 kyu`, `2d`, `2dan` (any case).
    fn from_str(text: &str) -> Result<Rank, RankError> {
        let error = || RankError {
            text: text.to_string(),
        };
        let lower = text.trim().to_ascii_lowercase();
        let digits = lower.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || digits > 2 {
            return Err(error());
        }
        let number: u8 = lower[..digits].parse().map_err(|_| error())?;
        match lower[digits..].trim_start() {
            "k" | "kyu" => Rank::kyu(number),
            "d" | "dan" => Rank::dan(number),
            _ => None,
        }
        .ok_or_else(error)
    }
}

/// Why [`pick_at_rank`] chose its move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PickReason {
    /// Passing is among the network's first five moves: the game is
    /// ending, and the network's first move is played.
    Ending,
    /// The first move's prior is high enough for anyone to see it.
    Obvious,
    /// The first two moves share almost the whole policy.
    ObviousPair,
    /// The best of the drawn candidates.
    Drawn {
        /// How many were drawn.
        candidates: usize,
    },
    /// The drawn move was rated below passing, so the first move is played.
    BelowPass,
}

/// A move chosen by [`pick_at_rank`], and why.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pick {
    /// The move.
    pub mv: Move,
    /// Its prior.
    pub prior: f32,
    /// Why it was chosen.
    pub reason: PickReason,
}

/// The move a player of `rank` plays, from a network's `policy` over the
/// legal moves (pass included, any order), on a board of `area` points,
/// leaving out the moves `excluded` says (moves already refused: their
/// priors still count in the overrides); `None` when there is no move at
/// all.
///
/// Unless the move is obvious (the overrides above), `n` distinct moves
/// are drawn uniformly from the legal non-pass moves with a positive prior
/// (`n` from [`Rank::candidates`]) and the one the network rates highest is
/// played.
pub fn pick_at_rank(
    rank: Rank,
    policy: &[(Move, f32)],
    area: usize,
    excluded: &dyn Fn(Move) -> bool,
    rng: &mut Rng,
) -> Option<Pick> {
    let mut ordered: Vec<(Move, f32)> = policy.to_vec();
    ordered.sort_by(|a, b| b.1.total_cmp(&a.1));
    let &(first, first_prior) = ordered.first()?;
    let pass_prior = ordered
        .iter()
        .find(|(mv, _)| *mv == Move::Pass)
        .map_or(0.0, |&(_, prior)| prior);
    let first_pick = |reason| {
        Some(Pick {
            mv: first,
            prior: first_prior,
            reason,
        })
    };
    let mut stones: Vec<(Move, f32)> = ordered
        .iter()
        .copied()
        .filter(|&(mv, prior)| mv != Move::Pass && prior > 0.0)
        .collect();
    let legal = stones.len();
    if !excluded(first) {
        if ordered.iter().take(5).any(|(mv, _)| *mv == Move::Pass) {
            return first_pick(PickReason::Ending);
        }
        if first_prior > rank.obvious_first(legal, area) {
            return first_pick(PickReason::Obvious);
        }
        let second_prior = ordered.get(1).map_or(0.0, |&(_, prior)| prior);
        if first_prior + second_prior > rank.obvious_pair() {
            return first_pick(PickReason::ObviousPair);
        }
    }
    let candidates = rank.candidates(legal, area);
    stones.retain(|&(mv, _)| !excluded(mv));
    let drawn = draw_best(&mut stones, candidates, rng);
    match drawn {
        Some((mv, prior)) if prior >= pass_prior => Some(Pick {
            mv,
            prior,
            reason: PickReason::Drawn { candidates },
        }),
        _ => ordered
            .iter()
            .find(|&&(mv, _)| !excluded(mv))
            .map(|&(mv, prior)| Pick {
                mv,
                prior,
                reason: PickReason::BelowPass,
            }),
    }
}

/// The highest-rated of `n` distinct entries of `moves` drawn uniformly (a
/// partial shuffle; all of them when there are fewer).
fn draw_best(moves: &mut [(Move, f32)], n: usize, rng: &mut Rng) -> Option<(Move, f32)> {
    let n = n.min(moves.len());
    let mut best: Option<(Move, f32)> = None;
    for i in 0..n {
        let j = i + rng.below(moves.len() - i);
        moves.swap(i, j);
        if best.is_none_or(|(_, prior)| moves[i].1 > prior) {
            best = Some(moves[i]);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::point::{BoardSize, Point};

    fn at(size: BoardSize, col: usize, row: usize) -> Move {
        Move::Play(size.point(col, row).unwrap())
    }

    fn rank(text: &str) -> Rank {
        text.parse().unwrap()
    }

    #[test]
    fn ranks_read_and_print_both_ways() {
        for rank in Rank::all() {
            assert_eq!(rank.to_string().parse::<Rank>(), Ok(rank));
        }
        assert_eq!(rank("15K"), rank("15 kyu"));
        assert_eq!(rank("2dan").to_string(), "2d");
        assert_eq!(rank("1k").kyu_number(), 1);
        assert_eq!(rank("1d").kyu_number(), 0);
        assert_eq!(rank("9d").kyu_number(), -8);
        assert_eq!(rank("2d").stones_above(rank("3k")), 4);
        assert_eq!(Rank::from_kyu_number(-20.0), Rank::STRONGEST);
        assert_eq!(Rank::from_kyu_number(2.4), rank("2k"));
        for bad in ["", "k", "0k", "31k", "10d", "5", "5x", "-3k", "3kk", "123k"] {
            assert!(bad.parse::<Rank>().is_err(), "{bad:?} read");
        }
    }

    #[test]
    fn stronger_ranks_compare_fewer_moves_less_often_than_more() {
        // On an empty 19x19 board: a 20k draws few moves, a 5d many.
        let counts: Vec<usize> = ["20k", "15k", "8k", "3k", "2d", "5d"]
            .iter()
            .map(|r| rank(r).candidates(361, 361))
            .collect();
        assert!(counts.windows(2).all(|w| w[0] < w[1]), "{counts:?}");
        assert!(counts[0] >= 1 && counts[5] <= 361, "{counts:?}");
        // Fewer legal moves, fewer draws.
        assert!(rank("8k").candidates(100, 361) < rank("8k").candidates(300, 361));
        assert_eq!(rank("8k").candidates(0, 361), 1);
    }

    fn policy(size: usize) -> Vec<(Move, f32)> {
        // Priors falling with the point's index; pass last and tiny.
        let size = BoardSize::square(size).unwrap();
        let mut moves: Vec<(Move, f32)> = size
            .points()
            .enumerate()
            .map(|(i, p): (usize, Point)| (Move::Play(p), 1.0 / (i as f32 + 2.0)))
            .collect();
        let total: f32 = moves.iter().map(|m| m.1).sum();
        for entry in &mut moves {
            entry.1 /= total * 1.001;
        }
        moves.push((Move::Pass, 0.0001));
        moves
    }

    #[test]
    fn stronger_ranks_choose_moves_higher_in_the_policy() {
        let policy = policy(19);
        let mut order: Vec<Move> = policy.iter().map(|m| m.0).collect();
        order.sort_by(|a, b| {
            let prior = |mv: &Move| policy.iter().find(|m| m.0 == *mv).unwrap().1;
            prior(b).total_cmp(&prior(a))
        });
        let mean_place = |rank: Rank| {
            let mut rng = Rng::new(7);
            let total: usize = (0..400)
                .map(|_| {
                    let pick = pick_at_rank(rank, &policy, 361, &|_| false, &mut rng).unwrap();
                    assert!(matches!(pick.reason, PickReason::Drawn { .. }));
                    order.iter().position(|mv| *mv == pick.mv).unwrap()
                })
                .sum();
            total as f64 / 400.0
        };
        let places: Vec<f64> = ["20k", "8k", "1d", "5d"]
            .iter()
            .map(|r| mean_place(rank(r)))
            .collect();
        assert!(places.windows(2).all(|w| w[0] > w[1]), "{places:?}");
    }

    #[test]
    fn obvious_moves_and_the_end_of_the_game_take_the_first_move() {
        let nine = BoardSize::square(9).unwrap();
        let (a, b, c) = (at(nine, 3, 3), at(nine, 4, 4), at(nine, 5, 5));
        let mut rng = Rng::new(1);
        let none = |_| false;
        // Five more moves with small priors, so that pass is not in the
        // first five unless it is rated so.
        let filler: Vec<(Move, f32)> = (0..5).map(|i| (at(nine, i, 0), 0.001)).collect();
        let pick = |policy: &[(Move, f32)], rng: &mut Rng| {
            let whole: Vec<(Move, f32)> = policy.iter().chain(&filler).copied().collect();
            // An open board: as many points as moves.
            pick_at_rank(rank("8k"), &whole, whole.len() - 1, &none, rng).unwrap()
        };
        let obvious = [(a, 0.9), (b, 0.05), (c, 0.04), (Move::Pass, 0.0001)];
        assert_eq!(pick(&obvious, &mut rng).reason, PickReason::Obvious);
        let pair = [(a, 0.46), (b, 0.45), (c, 0.08), (Move::Pass, 0.0001)];
        let chosen = pick(&pair, &mut rng);
        assert_eq!((chosen.mv, chosen.reason), (a, PickReason::ObviousPair));
        // Pass in the first five: the game is ending.
        let ending = [(b, 0.3), (Move::Pass, 0.25), (c, 0.25), (a, 0.2)];
        assert_eq!(pick(&ending, &mut rng).reason, PickReason::Ending);
        assert_eq!(pick(&ending, &mut rng).mv, b);
        assert!(pick_at_rank(rank("1d"), &[], 81, &none, &mut rng).is_none());
    }

    #[test]
    fn excluded_moves_are_never_picked() {
        let policy = policy(9);
        let banned: Vec<Move> = policy.iter().take(60).map(|m| m.0).collect();
        let excluded = |mv: Move| banned.contains(&mv);
        let mut rng = Rng::new(3);
        for _ in 0..200 {
            let pick = pick_at_rank(rank("3d"), &policy, 81, &excluded, &mut rng).unwrap();
            assert!(!banned.contains(&pick.mv));
        }
        // Everything refused but pass: pass is what is left.
        let all: Vec<Move> = policy
            .iter()
            .map(|m| m.0)
            .filter(|m| *m != Move::Pass)
            .collect();
        let pick = pick_at_rank(rank("3d"), &policy, 81, &|mv| all.contains(&mv), &mut rng);
        assert_eq!(pick.map(|p| p.mv), Some(Move::Pass));
    }
}
