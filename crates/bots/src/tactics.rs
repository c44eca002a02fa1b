//! Tactical facts about chains that the playout policy and the tree's priors
//! share: liberties, ataris, self-ataris, escapes and captures.
//!
//! Everything here reads the board through its public API and never changes
//! it. The answers are exact for the board as it stands; "after the move"
//! answers look at the move's neighbours only, as fast playouts need.

use tengen_core::{Board, Color, Point};

/// A small set of points kept in a fixed array, in insertion order.
#[derive(Clone, Copy, Debug)]
pub struct PointSet<const N: usize> {
    points: [Point; N],
    len: usize,
}

impl<const N: usize> PointSet<N> {
    /// The empty set. `filler` only fills the unused slots.
    pub fn new(filler: Point) -> Self {
        PointSet {
            points: [filler; N],
            len: 0,
        }
    }

    /// Adds `point` unless present; returns false when the set is full.
    #[inline]
    pub fn insert(&mut self, point: Point) -> bool {
        if self.as_slice().contains(&point) {
            return true;
        }
        if self.len == N {
            return false;
        }
        self.points[self.len] = point;
        self.len += 1;
        true
    }

    /// The points, in insertion order.
    #[inline]
    pub fn as_slice(&self) -> &[Point] {
        &self.points[..self.len]
    }

    /// Number of points.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Up to `N` distinct liberties of the chain through `stone` (an empty set if
/// `stone` is empty). Stops walking the chain as soon as `N` are found.
pub fn chain_liberties<const N: usize>(board: &Board, stone: Point) -> PointSet<N> {
    let mut libs = PointSet::new(stone);
    for s in board.chain(stone) {
        for n in board.neighbors(s) {
            if board.is_empty_at(n) && !libs.insert(n) {
                return libs;
            }
        }
    }
    libs
}

/// The only liberty of the chain through `stone`, if it has exactly one.
#[inline]
pub fn atari_liberty(board: &Board, stone: Point) -> Option<Point> {
    if board.liberties(stone) != 1 {
        return None;
    }
    chain_liberties::<1>(board, stone)
        .as_slice()
        .first()
        .copied()
}

/// If `color` playing at empty `point` would leave the new chain with exactly
/// one liberty, the number of stones in that chain; 0 if not.
///
/// Captures count as liberties where the captured stones touch the new stone;
/// a capture of more than one stone is never called a self-atari. A move with
/// no liberty at all (suicide) is also reported, with its chain size.
pub fn self_atari_size(board: &Board, point: Point, color: Color) -> usize {
    let mut libs = PointSet::<2>::new(point);
    let neighbors = board.neighbors(point);
    // Empty neighbours and single stones captured are liberties at once.
    for n in neighbors {
        match board.stone(n) {
            None if board.is_on_board(n) => {
                libs.insert(n);
            }
            Some(c) if c != color && board.liberties(n) == 1 => {
                if board.chain_len(n) > 1 {
                    return 0;
                }
                libs.insert(n);
            }
            _ => {}
        }
        if libs.len() >= 2 {
            return 0;
        }
    }
    let mut size = 1;
    let mut seen = PointSet::<4>::new(point);
    for n in neighbors {
        if board.stone(n) != Some(color) {
            continue;
        }
        let Some(head) = board.chain_head(n) else {
            continue;
        };
        if seen.as_slice().contains(&head) {
            continue;
        }
        seen.insert(head);
        if board.liberties(n) > 2 {
            return 0;
        }
        size += board.chain_len(n);
        for lib in chain_liberties::<3>(board, n).as_slice() {
            if *lib != point {
                libs.insert(*lib);
            }
        }
        if libs.len() >= 2 {
            return 0;
        }
    }
    size
}

/// The moves that save `color`'s chain through `stone` from atari: extending
/// at its liberty when that gives it two or more, and capturing a neighbouring
/// enemy chain that is itself in atari. Appends to `out`; nothing if the chain
/// is not in atari.
pub fn escape_moves(board: &Board, stone: Point, color: Color, out: &mut Vec<Point>) {
    let Some(liberty) = atari_liberty(board, stone) else {
        return;
    };
    if self_atari_size(board, liberty, color) == 0 && !out.contains(&liberty) {
        out.push(liberty);
    }
    let head = board.chain_head(stone);
    let mut counted = PointSet::<8>::new(stone);
    for s in board.chain(stone) {
        for n in board.neighbors(s) {
            if board.stone(n) != Some(!color) {
                continue;
            }
            let Some(enemy) = board.chain_head(n) else {
                continue;
            };
            if enemy == head.unwrap_or(enemy) || !counted.insert(enemy) {
                continue;
            }
            if let Some(capture) = atari_liberty(board, n) {
                if !out.contains(&capture) {
                    out.push(capture);
                }
            }
        }
    }
}

/// Stones `color` would capture by playing at empty `point`.
#[inline]
pub fn capture_size(board: &Board, point: Point, color: Color) -> usize {
    board.removals_after(point, color).captured
}

/// Whether `color` playing at empty `point` takes a liberty from an enemy
/// chain that would then be left in atari (not counting captures).
pub fn gives_atari(board: &Board, point: Point, color: Color) -> bool {
    board
        .neighbors(point)
        .into_iter()
        .any(|n| board.stone(n) == Some(!color) && board.liberties(n) == 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(board: &Board, vertex: &str) -> Point {
        board.size().parse_gtp(vertex).unwrap().point().unwrap()
    }

    #[test]
    fn ataris_escapes_and_ko_captures() {
        let board = Board::from_ascii(
            ". . . . .
             . x o . .
             x o . o .
             . x o . .
             . . . . .",
        )
        .unwrap();
        let b3 = at(&board, "B3");
        assert_eq!(atari_liberty(&board, b3), Some(at(&board, "C3")));
        assert_eq!(atari_liberty(&board, at(&board, "C4")), None);
        let libs = chain_liberties::<8>(&board, at(&board, "C4"));
        assert_eq!(libs.len(), 3);
        // Black takes the ko: one stone with one liberty.
        assert_eq!(self_atari_size(&board, at(&board, "C3"), Color::Black), 1);
        assert_eq!(capture_size(&board, at(&board, "C3"), Color::Black), 1);
        // White connects out.
        assert_eq!(self_atari_size(&board, at(&board, "C3"), Color::White), 0);
        let mut escapes = Vec::new();
        escape_moves(&board, b3, Color::White, &mut escapes);
        assert_eq!(escapes, vec![at(&board, "C3")]);
        assert!(gives_atari(&board, at(&board, "A4"), Color::White));
    }

    #[test]
    fn self_ataris_of_larger_chains() {
        let board = Board::from_ascii(
            ". . . . .
             . . . . .
             o o o . .
             x x . o .
             o . o . .",
        )
        .unwrap();
        // C2 joins A2-B2 and leaves it B1 only.
        assert_eq!(self_atari_size(&board, at(&board, "C2"), Color::Black), 3);
        // B1 captures A1 and keeps C2 too.
        assert_eq!(self_atari_size(&board, at(&board, "B1"), Color::Black), 0);
        assert_eq!(self_atari_size(&board, at(&board, "B1"), Color::White), 0);
        // The white stone at A1 escapes only by capturing: B1 extends into
        // two liberties (C1 joins), so it is an escape.
        let mut escapes = Vec::new();
        escape_moves(&board, at(&board, "A1"), Color::White, &mut escapes);
        assert_eq!(escapes, vec![at(&board, "B1")]);
    }

    #[test]
    fn capturing_an_attacker_is_an_escape() {
        let trapped = Board::from_ascii(
            ". . . . .
             . . . . .
             x . . . .
             o x . . .
             . o x . .",
        )
        .unwrap();
        // A1 would be suicide for White and no attacker is in atari.
        let mut escapes = Vec::new();
        escape_moves(&trapped, at(&trapped, "A2"), Color::White, &mut escapes);
        assert_eq!(escapes, vec![]);
        assert_eq!(
            self_atari_size(&trapped, at(&trapped, "A1"), Color::White),
            3
        );

        let board = Board::from_ascii(
            ". . . . .
             . . . . .
             x o . . .
             o x . . .
             . o x . .",
        )
        .unwrap();
        escape_moves(&board, at(&board, "A2"), Color::White, &mut escapes);
        assert_eq!(escapes, vec![at(&board, "C2"), at(&board, "A4")]);
    }
}
