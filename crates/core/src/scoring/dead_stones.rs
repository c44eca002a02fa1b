//! Which chains are alive, dead or in seki at the end of a game: the
//! dead-stone estimate behind GTP's `final_score` and `final_status_list`
//! and the web count, next to the counting it feeds.
//!
//! The estimate is Monte Carlo: light playouts (uniformly random legal moves
//! that do not fill one's own eyes) run from the position to the end, and each
//! point's final owner is noted. A chain is **dead** when, over all its stones
//! and all playouts, its points end up owned by the opponent more often than
//! not. Random play captures chains that cannot make two eyes and leaves
//! chains with two eyes standing, which is what a finished position needs.
//!
//! **Seki** is decided by a plain rule on the board rather than by playouts
//! (random play breaks a seki at once, as it happily plays self-atari): a
//! chain that is not dead is in seki when it has at most two liberties and one
//! of them is also a liberty of a living enemy chain with at most two
//! liberties. Shared liberties of this kind are what keeps both sides from
//! approaching; dame between healthy groups do not qualify because such groups
//! have more liberties. It is simple and misses exotic cases.

use crate::board::Board;
use crate::color::Color;
use crate::playout::light_playout;
use crate::playout_board::PlayoutBoard;
use crate::point::Point;
use crate::rng::Rng;

/// Playouts used to decide which stones are dead when scoring, unless told
/// otherwise (the GTP engine's `final_score` and the web count both use it).
pub const DEFAULT_STATUS_PLAYOUTS: usize = 256;

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

/// Estimates the status of every chain on `board` with `playouts` light
/// playouts, alternating which side starts (`to_move` first): dead when
/// random play to the end loses its points more often than not, in seki by
/// the shared-liberty rule, else alive. The same inputs always give the
/// same answer. [`DEFAULT_STATUS_PLAYOUTS`] is the usual `playouts`.
pub fn estimate_status(board: &Board, to_move: Color, playouts: usize, seed: u64) -> ChainStatus {
    let all_chains = chains(board);
    if all_chains.is_empty() {
        return ChainStatus::default();
    }
    let size = board.size();
    let mut lost = vec![0u32; size.cells()];
    let mut rng = Rng::new(seed ^ board.hash());
    let start = PlayoutBoard::from_board(board);
    let mut scratch = start.clone();
    // Enough turns for any sensible playout to end; the cap only guards
    // against superko-free cycles of captures.
    let max_moves = (size.points_count() * 3 + 100) as u32;
    for i in 0..playouts {
        scratch.clone_from(&start);
        let first = if i % 2 == 0 { to_move } else { !to_move };
        light_playout(&mut scratch, first, &mut rng, max_moves);
        for chain in &all_chains {
            for &stone in chain {
                let color = board.stone(stone);
                if color.is_some() && scratch.final_owner(stone) == color.map(|c| !c) {
                    lost[stone.index()] += 1;
                }
            }
        }
    }
    let mut status = ChainStatus::default();
    let mut living = Vec::new();
    for chain in all_chains {
        let lost_total: u64 = chain.iter().map(|p| u64::from(lost[p.index()])).sum();
        if playouts > 0 && 2 * lost_total > (chain.len() * playouts) as u64 {
            status.dead.push(chain);
        } else {
            living.push(chain);
        }
    }
    for chain in living {
        if in_seki(board, &chain, &status.dead) {
            status.seki.push(chain);
        } else {
            status.alive.push(chain);
        }
    }
    status
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
