//! Which chains are alive, dead or in seki at the end of a game: the
//! dead-stone estimate behind GTP's `final_score` and `final_status_list`
//! and the web count, next to the counting it feeds.
//!
//! Four steps, from certain to likely:
//!
//! 1. **Benson's algorithm** ([`PassAlive`]): chains that can never be
//!    captured are alive, and enemy stones inside the regions they make safe
//!    are dead, whatever the playouts say.
//! 2. **Monte Carlo ownership** for the rest: playouts run from the position
//!    to the end and each point's final owner is noted; a chain is **dead**
//!    when, over all its stones and all playouts, its points end up owned by
//!    the opponent more often than not. The playouts never fill a *real*
//!    eye of their own: an empty point whose on-board neighbours are all
//!    the player's stones and whose diagonals hold at most one enemy stone
//!    in the middle of the board and none on the edge or in a corner (an
//!    empty diagonal does not spoil an eye, as it does in the book's eye
//!    test that light playouts use). A group with two such eyes therefore
//!    survives every playout, and a group whose "eye" is false is filled
//!    and captured, which is what a finished position needs.
//! 3. **Shared-liberty races** ([`super::nakade`]): two eyeless chains
//!    with the same two liberties are decided by reading, not playouts:
//!    the side that can sacrifice into a dead eye shape kills the other,
//!    else both live in seki.
//! 4. **Seki** is decided by a plain rule on the board rather than by
//!    playouts (random play breaks a seki at once, as it happily plays
//!    self-atari): a chain that is not dead is in seki when it has at most
//!    two liberties and one of them is also a liberty of a living enemy
//!    chain with at most two liberties. Shared liberties of this kind are
//!    what keeps both sides from approaching; dame between healthy groups do
//!    not qualify because such groups have more liberties.

use super::benson::PassAlive;
use super::nakade::{race_verdict, RaceVerdict};
use crate::board::{Board, EyeTest};
use crate::color::{ByColor, Color};
use crate::game::Game;
use crate::playout::final_owner;
use crate::point::Point;
use crate::rng::Rng;

/// Playouts used to decide which stones are dead when scoring, unless told
/// otherwise (the GTP engine's `final_score`, the web count and the match
/// referee all use it).
pub const DEFAULT_STATUS_PLAYOUTS: usize = 256;

/// The seed of the estimate unless told otherwise, so that every program
/// counting the same position (two web servers, the GTP engine, the
/// referee) finds the same dead stones.
pub const DEFAULT_STATUS_SEED: u64 = 0;

/// The status of every chain at the end of `game`: every chain alive under
/// NoGo, where nothing is ever captured, else [`estimate_status`] with the
/// side to move starting. This is the one count behind GTP's `final_score`
/// and `final_status_list`, the web API's count and SGF result, and the
/// match referee's count when the engines do not agree on the dead stones.
pub fn game_status(game: &Game, playouts: usize, seed: u64) -> ChainStatus {
    if game.rules().is_nogo() {
        return all_alive(game.board());
    }
    estimate_status(game.board(), game.to_move(), playouts, seed)
}

/// The status of every chain on the board; each chain is a list of its
/// stones in board order (bottom-left first).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChainStatus {
    /// Chains that live on their own.
    pub alive: Vec<Vec<Point>>,
    /// Chains that would be captured.
    pub dead: Vec<Vec<Point>>,
    /// Chains alive only through shared liberties.
    pub seki: Vec<Vec<Point>>,
}

impl ChainStatus {
    /// Every dead stone, for scoring.
    pub fn dead_points(&self) -> Vec<Point> {
        self.dead.iter().flatten().copied().collect()
    }
}

/// The chains of `board`, each sorted, in the order of their first stone.
fn chains(board: &Board) -> Vec<Vec<Point>> {
    let mut seen_heads = Vec::new();
    let mut result = Vec::new();
    for point in board.size().points() {
        let Some(head) = board.chain_head(point) else {
            continue;
        };
        if seen_heads.contains(&head) {
            continue;
        }
        seen_heads.push(head);
        let mut stones: Vec<Point> = board.chain(point).collect();
        stones.sort();
        result.push(stones);
    }
    result
}

/// Every chain alive: the status under NoGo, where nothing is ever captured.
pub fn all_alive(board: &Board) -> ChainStatus {
    ChainStatus {
        alive: chains(board),
        ..ChainStatus::default()
    }
}

/// Estimates the status of every chain on `board` with `playouts`
/// playouts, alternating which side starts (`to_move` first): alive when
/// Benson's algorithm says so, dead inside territory that Benson's algorithm
/// makes safe or when playouts to the end lose its points more often than
/// not, in seki by the shared-liberty rule, else alive (see the module's
/// documentation). The same inputs always give the same answer.
/// [`DEFAULT_STATUS_PLAYOUTS`] is the usual `playouts`.
pub fn estimate_status(board: &Board, to_move: Color, playouts: usize, seed: u64) -> ChainStatus {
    estimate(board, to_move, playouts, seed).0
}

/// [`estimate_status`], and the stones of the chains whose fate only the
/// playouts decided and that they split (see [`Settlement::contested`]).
fn estimate(
    board: &Board,
    to_move: Color,
    playouts: usize,
    seed: u64,
) -> (ChainStatus, Vec<Point>) {
    let all_chains = chains(board);
    if all_chains.is_empty() {
        return (ChainStatus::default(), Vec::new());
    }
    let certain = PassAlive::of(board);
    let lost = lost_in_playouts(board, to_move, playouts, seed);
    let mut status = ChainStatus::default();
    let mut contested = Vec::new();
    // Living chains, each with whether the playouts split on it.
    let mut living = Vec::new();
    for chain in all_chains {
        let first = chain[0];
        let (dead, split) = if certain.is_alive(first) {
            (false, false)
        } else if certain.is_dead(board, first) {
            (true, false)
        } else if let Some(verdict) = race_verdict(board, &chain) {
            (verdict == RaceVerdict::Dies, false)
        } else if playouts == 0 {
            (false, false)
        } else {
            let lost_total: u64 = chain.iter().map(|p| u64::from(lost[p.index()])).sum();
            let share = lost_total as f64 / (chain.len() * playouts) as f64;
            (
                2 * lost_total > (chain.len() * playouts) as u64,
                (CONTESTED_SHARE..=1.0 - CONTESTED_SHARE).contains(&share),
            )
        };
        if dead {
            if split {
                contested.extend_from_slice(&chain);
            }
            status.dead.push(chain);
        } else {
            living.push((chain, split));
        }
    }
    for (chain, split) in living {
        if !certain.is_alive(chain[0]) && in_seki(board, &chain, &status.dead) {
            status.seki.push(chain);
        } else {
            if split {
                contested.extend_from_slice(&chain);
            }
            status.alive.push(chain);
        }
    }
    contested.sort();
    (status, contested)
}

/// A chain whose stones the playouts lose at least this share of the time,
/// and keep at least this share, is fought over: an open fight, ko or atari.
const CONTESTED_SHARE: f64 = 0.2;

/// The estimate of a position, and what it leaves open: whether a player
/// who passes now leaves the count to chance.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settlement {
    /// Alive, dead and seki chains, as [`estimate_status`] finds them.
    pub status: ChainStatus,
    /// Stones of chains whose fate the playouts split (each lost in at least
    /// a fifth of them and kept in at least a fifth): a fight, a ko or a
    /// stone in atari that the next move decides. Chains that Benson's
    /// algorithm or a shared-liberty race settles, and chains in seki,
    /// never count.
    pub contested: Vec<Point>,
    /// Empty points that, once the dead stones are removed, reach both
    /// colours or none and are not a liberty of a chain in seki: dame left
    /// to fill, or borders left open. Under area scoring each is a point
    /// still to be won.
    pub neutral: Vec<Point>,
}

impl Settlement {
    /// Whether nothing is left open: no chain fought over and no neutral
    /// point outside a seki, so that the count cannot change with play.
    pub fn is_settled(&self) -> bool {
        self.contested.is_empty() && self.neutral.is_empty()
    }
}

/// The estimate of `board` (as [`estimate_status`], the same playouts) and
/// what it leaves unsettled (see [`Settlement`]). Bots use it to pass only
/// once the game is over on the board: a position both players pass in is
/// then one that every counter (tengen's, GNU Go's, a human's) scores alike.
pub fn settlement(board: &Board, to_move: Color, playouts: usize, seed: u64) -> Settlement {
    let (status, contested) = estimate(board, to_move, playouts, seed);
    let owners = super::ownership(board, &status.dead_points());
    let in_seki = |point: Point| {
        status
            .seki
            .iter()
            .flatten()
            .any(|&stone| board.on_board_neighbors(stone).any(|n| n == point))
    };
    let neutral = board
        .size()
        .points()
        .zip(&owners.owner)
        .filter(|&(point, owner)| owner.is_none() && board.is_empty_at(point) && !in_seki(point))
        .map(|(point, _)| point)
        .collect();
    Settlement {
        status,
        contested,
        neutral,
    }
}

/// For every cell, in how many of `playouts` playouts from `board` the stone
/// there ended up owned by the opponent.
fn lost_in_playouts(board: &Board, to_move: Color, playouts: usize, seed: u64) -> Vec<u32> {
    let owners = owners_in_playouts(board, to_move, playouts, seed);
    let mut lost = vec![0u32; board.size().cells()];
    for point in board.size().points() {
        if let Some(color) = board.stone(point) {
            lost[point.index()] = owners[!color][point.index()];
        }
    }
    lost
}

/// For every cell, in how many of `playouts` playouts from `board` each
/// colour owned it at the end ([`final_owner`]). The playouts alternate
/// which side starts, `to_move` first, and are seeded by `seed` and the
/// stones, so the same stones give the same counts.
fn owners_in_playouts(
    board: &Board,
    to_move: Color,
    playouts: usize,
    seed: u64,
) -> ByColor<Vec<u32>> {
    let size = board.size();
    let mut owners = ByColor::new(vec![0u32; size.cells()], vec![0u32; size.cells()]);
    let board = &canonical(board);
    let mut rng = Rng::new(seed ^ board.hash());
    let mut scratch = board.clone();
    // Enough turns for any sensible playout to end; the cap only guards
    // against cycles of captures, which simple ko does not prevent.
    let max_moves = size.points_count() * 3 + 100;
    for i in 0..playouts {
        scratch.clone_from(board);
        let first = if i % 2 == 0 { to_move } else { !to_move };
        play_out(&mut scratch, first, &mut rng, max_moves);
        for point in size.points() {
            if let Some(owner) = final_owner(&scratch, point) {
                owners[owner][point.index()] += 1;
            }
        }
    }
    owners
}

/// Black's expected lead in points when `game` is played to the end: the
/// mean area count (stones and surrounded points, komi taken off) of
/// `playouts` playouts from the position, the same playouts as the
/// dead-stone estimate. Unlike the count of the board as it stands, it
/// means something in an open position too (an empty 9×9 with komi 7 is
/// about −7, not a lost lone stone and the whole board to the other
/// side); on a settled board it is the area count. `None` under NoGo,
/// which has no count.
pub fn expected_lead(game: &Game, playouts: usize, seed: u64) -> Option<f64> {
    if game.rules().is_nogo() || playouts == 0 {
        return None;
    }
    let board = game.board();
    let owners = owners_in_playouts(board, game.to_move(), playouts, seed);
    let (black, white): (u64, u64) = board.size().points().fold((0, 0), |(b, w), point| {
        (
            b + u64::from(owners[Color::Black][point.index()]),
            w + u64::from(owners[Color::White][point.index()]),
        )
    });
    Some((black as f64 - white as f64) / playouts as f64 - game.rules().komi)
}

/// The board with the same stones, set up in board order. A board's
/// internal order of empty points (from which playouts draw) depends on
/// the moves that led to it; without this, the same position reached
/// by other moves, or read from a record, could be counted differently.
/// A ko ban is not kept: it would only forbid one point on the first move
/// of half the playouts.
fn canonical(board: &Board) -> Board {
    let mut canonical = Board::new(board.size());
    for point in board.size().points() {
        if let Some(color) = board.stone(point) {
            canonical
                .place_setup_stone(point, color)
                .expect("every chain of a legal position keeps a liberty while it is set up");
        }
    }
    canonical
}

/// Plays uniformly random legal moves that fill no real eye of the mover
/// ([`Board::is_real_eye`]) and put no chain of four or more stones in atari
/// ([`is_large_self_atari`]) until both sides pass in a row or `max_moves`
/// turns.
fn play_out(board: &mut Board, mut color: Color, rng: &mut Rng, max_moves: usize) {
    let mut passes = 0;
    for _ in 0..max_moves {
        let mover = color;
        let acceptable = |b: &Board, p: Point| !is_large_self_atari(b, p, mover);
        match board.random_move_avoiding_eyes(color, rng, EyeTest::Real, acceptable) {
            Some(point) => {
                board.play_unchecked(point, color);
                passes = 0;
            }
            None => {
                board.pass();
                passes += 1;
                if passes == 2 {
                    return;
                }
            }
        }
        color = !color;
    }
}

/// The smallest chain whose self-atari [`is_large_self_atari`] refuses.
const LARGE_SELF_ATARI: usize = 4;

/// Whether `color` playing at empty `point` would leave a chain of four or
/// more stones with a single liberty without capturing anything. Random play
/// makes such moves freely; in a seki they are the only moves left to the
/// side with less room, and playing them hands the other side the seki's
/// stones. Smaller sacrifices stay allowed: throw-ins and nakade (a stone or
/// two played into an eye space to be captured) are how false eyes and
/// small eye spaces are destroyed, and the chains they make have at most
/// three stones.
pub fn is_large_self_atari(board: &Board, point: Point, color: Color) -> bool {
    if board.is_capture(point, color) {
        return false;
    }
    // Whether a liberty just found is a second one, other than the first.
    let mut first_liberty = None;
    let mut add = |liberty: Point| match first_liberty {
        None => {
            first_liberty = Some(liberty);
            false
        }
        Some(first) => first != liberty,
    };
    let mut joined_stones = 0;
    let mut joined: [Option<Point>; 4] = [None; 4];
    for (i, n) in board.on_board_neighbors(point).enumerate() {
        match board.stone(n) {
            None => {
                if add(n) {
                    return false;
                }
            }
            Some(c) if c == color => {
                let head = board.chain_head(n);
                if joined.contains(&head) {
                    continue;
                }
                joined[i] = head;
                joined_stones += board.chain_len(n);
                for stone in board.chain(n) {
                    for m in board.on_board_neighbors(stone) {
                        if m != point && board.is_empty_at(m) && add(m) {
                            return false;
                        }
                    }
                }
            }
            Some(_) => {}
        }
    }
    joined_stones >= LARGE_SELF_ATARI - 1
}

/// The seki rule described at the top of this module.
fn in_seki(board: &Board, chain: &[Point], dead: &[Vec<Point>]) -> bool {
    let Some(&first) = chain.first() else {
        return false;
    };
    let Some(color) = board.stone(first) else {
        return false;
    };
    if board.liberties(first) > 2 {
        return false;
    }
    let is_dead = |point: Point| dead.iter().any(|c| c.contains(&point));
    chain
        .iter()
        .flat_map(|&stone| board.on_board_neighbors(stone))
        .filter(|&n| board.is_empty_at(n))
        .any(|liberty| {
            board
                .on_board_neighbors(liberty)
                .any(|n| board.stone(n) == Some(!color) && board.liberties(n) <= 2 && !is_dead(n))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::point::Move;

    fn names(board: &Board, chains: &[Vec<Point>]) -> Vec<String> {
        chains
            .iter()
            .map(|c| {
                c.iter()
                    .map(|&p| board.size().gtp(Move::Play(p)))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn a_lone_stone_in_territory_is_dead() {
        let board = Board::from_ascii(
            "
            . . x o .
            . . x o .
            . . x o .
            x x x o o
            . o x o .
            ",
        )
        .unwrap();
        let status = estimate_status(&board, Color::Black, 200, 1);
        assert_eq!(names(&board, &status.dead), vec!["B1"]);
        assert!(status.seki.is_empty());
        assert_eq!(status.alive.len(), 2);
    }

    #[test]
    fn the_seki_rule_needs_a_shared_short_liberty() {
        // Black A1 and White C1 share their only liberty B1.
        let board = Board::from_ascii("x . o").unwrap();
        let status = estimate_status(&board, Color::Black, 0, 1);
        assert_eq!(names(&board, &status.seki), vec!["A1", "C1"]);
        // No shared liberty: both alive.
        let board = Board::from_ascii("x . . o").unwrap();
        let status = estimate_status(&board, Color::Black, 0, 1);
        assert!(status.seki.is_empty());
        assert_eq!(status.alive.len(), 2);
    }
}
