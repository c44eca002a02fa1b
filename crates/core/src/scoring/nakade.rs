//! Capturing races between two eyeless chains with the same two liberties,
//! decided by reading rather than by playouts.
//!
//! When chain A and an enemy chain E have exactly the same two liberties
//! and no others, neither side can fill a liberty without putting its own
//! chain in atari. Filling one is still how A's owner kills E when it pays:
//! A's stones and the filled point are captured, and E is left with that
//! space as its only eye space, with A's owner to play inside it first. If
//! the space is one of the classic dead shapes (any space of one to three
//! points; the square and the pyramid four; the bulky and the crossed five;
//! the rabbity six), E dies and A lives; otherwise neither fills and both
//! live in seki. Playouts, which allow small self-ataris and play the vital
//! point only by chance, get both cases wrong about as often as right (a
//! pyramid four in the corner left by a three-stone sacrifice, a bent three
//! left by a two-stone one). The rule stands aside when a chain next to
//! either racer has fewer than three liberties: capturing it would give a
//! racer liberties, and the playouts judge that better than a rule.

use crate::board::Board;
use crate::point::Point;

/// What reading says of a chain in a shared-liberty race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RaceVerdict {
    /// The chain lives (its owner can kill the other chain, or seki).
    Lives,
    /// The other side kills it by a sacrifice into a dead shape.
    Dies,
}

/// The verdict on `chain` (sorted stones) if it is in a shared-liberty race
/// that reading settles; `None` when it is not in one, or when both sides
/// could kill (whoever moves first wins: left to the playouts).
pub(super) fn race_verdict(board: &Board, chain: &[Point]) -> Option<RaceVerdict> {
    let color = board.stone(*chain.first()?)?;
    let liberties = liberty_set(board, chain);
    if liberties.len() != 2 {
        return None;
    }
    let mut verdict = None;
    for enemy in liberties
        .iter()
        .flat_map(|&liberty| board.on_board_neighbors(liberty))
        .filter(|&n| board.stone(n) == Some(!color))
    {
        let mut enemy_chain: Vec<Point> = board.chain(enemy).collect();
        enemy_chain.sort();
        if liberty_set(board, &enemy_chain) != liberties
            || !outside_is_quiet(board, chain, &enemy_chain)
        {
            continue;
        }
        let we_kill = kills_by_sacrifice(board, chain, &enemy_chain, &liberties);
        let they_kill = kills_by_sacrifice(board, &enemy_chain, chain, &liberties);
        let this = match (we_kill, they_kill) {
            (_, false) => RaceVerdict::Lives,
            (false, true) => RaceVerdict::Dies,
            (true, true) => return None,
        };
        // Dying in any race is dying.
        if verdict != Some(RaceVerdict::Dies) {
            verdict = Some(this);
        }
    }
    verdict
}

/// Whether no other chain touching either racer could be captured soon
/// (each has three liberties or more): a racer that captures a neighbour in
/// atari gains liberties, and the race is no longer two liberties each.
fn outside_is_quiet(board: &Board, a: &[Point], b: &[Point]) -> bool {
    a.iter()
        .chain(b)
        .flat_map(|&stone| board.on_board_neighbors(stone))
        .filter(|&n| board.stone(n).is_some() && !a.contains(&n) && !b.contains(&n))
        .all(|n| board.liberties(n) >= 3)
}

/// Whether `attacker`'s owner kills `defender` by filling one of the two
/// shared `liberties`: the space left (the attacker's stones and the filled
/// point) must be enclosed by the defender alone, and be a dead shape.
fn kills_by_sacrifice(
    board: &Board,
    attacker: &[Point],
    defender: &[Point],
    liberties: &[Point],
) -> bool {
    // Enclosed by the defender: every stone next to the attacker's stones
    // and the liberties, other than the attacker's own, is the defender's.
    let enclosed = attacker
        .iter()
        .chain(liberties)
        .flat_map(|&p| board.on_board_neighbors(p))
        .all(|n| {
            board.is_empty_at(n) && liberties.contains(&n)
                || attacker.contains(&n)
                || defender.contains(&n)
        });
    if !enclosed {
        return false;
    }
    liberties.iter().any(|&filled| {
        let mut space: Vec<(i32, i32)> = attacker
            .iter()
            .chain(std::iter::once(&filled))
            .map(|&p| {
                let (col, row) = board.size().col_row(p);
                (col as i32, row as i32)
            })
            .collect();
        space.sort_unstable();
        is_dead_shape(&space)
    })
}

/// The liberties of `chain`, sorted.
fn liberty_set(board: &Board, chain: &[Point]) -> Vec<Point> {
    let mut liberties: Vec<Point> = chain
        .iter()
        .flat_map(|&stone| board.on_board_neighbors(stone))
        .filter(|&n| board.is_empty_at(n))
        .collect();
    liberties.sort();
    liberties.dedup();
    liberties
}

/// The eye spaces of four to six points that one move at the vital point
/// kills, as cells; spaces of one to three points are all dead.
const DEAD_SHAPES: &[&[(i32, i32)]] = &[
    // Square four.
    &[(0, 0), (1, 0), (0, 1), (1, 1)],
    // Pyramid four.
    &[(0, 0), (1, 0), (2, 0), (1, 1)],
    // Bulky five.
    &[(0, 0), (1, 0), (0, 1), (1, 1), (0, 2)],
    // Crossed five.
    &[(1, 0), (0, 1), (1, 1), (2, 1), (1, 2)],
    // Rabbity six.
    &[(1, 0), (2, 0), (0, 1), (1, 1), (2, 1), (1, 2)],
];

/// Whether a connected space of cells (sorted) is a dead eye shape with
/// the attacker to move.
fn is_dead_shape(space: &[(i32, i32)]) -> bool {
    match space.len() {
        0 => false,
        1..=3 => true,
        _ => {
            let canonical = canonical_shape(space);
            DEAD_SHAPES
                .iter()
                .any(|shape| canonical_shape(shape) == canonical)
        }
    }
}

/// One of the eight symmetries of the square grid.
type Transform = fn((i32, i32)) -> (i32, i32);

/// The least of a shape's eight rotations and reflections, moved to the
/// origin and sorted: equal for congruent shapes.
fn canonical_shape(cells: &[(i32, i32)]) -> Vec<(i32, i32)> {
    let transforms: [Transform; 8] = [
        |(x, y)| (x, y),
        |(x, y)| (-x, y),
        |(x, y)| (x, -y),
        |(x, y)| (-x, -y),
        |(x, y)| (y, x),
        |(x, y)| (-y, x),
        |(x, y)| (y, -x),
        |(x, y)| (-y, -x),
    ];
    transforms
        .iter()
        .map(|t| {
            let moved: Vec<(i32, i32)> = cells.iter().map(|&c| t(c)).collect();
            let min_x = moved.iter().map(|c| c.0).min().unwrap_or(0);
            let min_y = moved.iter().map(|c| c.1).min().unwrap_or(0);
            let mut shape: Vec<(i32, i32)> =
                moved.iter().map(|&(x, y)| (x - min_x, y - min_y)).collect();
            shape.sort_unstable();
            shape
        })
        .min()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_classic_shapes() {
        // Straight and bent fours live; square and pyramid fours die.
        assert!(!is_dead_shape(&[(0, 0), (1, 0), (2, 0), (3, 0)]));
        assert!(!is_dead_shape(&[(0, 0), (1, 0), (2, 0), (2, 1)]));
        assert!(is_dead_shape(&[(5, 5), (5, 6), (6, 5), (6, 6)]));
        assert!(is_dead_shape(&[(3, 1), (3, 2), (3, 3), (2, 2)]));
        // Bulky five under any symmetry; the bent and straight fives live.
        assert!(is_dead_shape(&[(0, 0), (1, 0), (2, 0), (1, 1), (2, 1)]));
        assert!(!is_dead_shape(&[(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)]));
        assert!(!is_dead_shape(&[(0, 0), (1, 0), (2, 0), (2, 1), (2, 2)]));
        // Any three: bent or straight.
        assert!(is_dead_shape(&[(0, 0), (0, 1), (1, 1)]));
    }

    #[test]
    fn races_on_the_board() {
        // A two-stone sacrifice leaves White a bent three: White dies.
        let board = Board::from_ascii(
            ". o x x .
             x o o x x
             x . o x .
             o o o x x
             o x x x .",
        )
        .unwrap();
        let at = |v: &str| board.size().parse_gtp(v).unwrap().point().unwrap();
        let chain_of = |v: &str| {
            let mut c: Vec<Point> = board.chain(at(v)).collect();
            c.sort();
            c
        };
        assert_eq!(
            race_verdict(&board, &chain_of("A3")),
            Some(RaceVerdict::Lives)
        );
        assert_eq!(
            race_verdict(&board, &chain_of("B4")),
            Some(RaceVerdict::Dies)
        );
        // Chains with other liberties are not in such a race.
        assert_eq!(race_verdict(&board, &chain_of("C5")), None);
    }
}
