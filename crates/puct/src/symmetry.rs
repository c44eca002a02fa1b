//! Root symmetry pruning, as KataGo's `rootSymmetryPruning` (on in its GTP
//! and analysis engines): when the root's board is unchanged by some of
//! the eight symmetries of the square, the moves that are images of one
//! another lead to positions alike, so the search tries one move of each
//! set and the analysis reports the others as copies of it.
//!
//! As KataGo's, the test reads the stones only (not the move history),
//! and finds no symmetry while a ko or superko forbids a move. The move
//! kept of each set is the first in KataGo's order: for Black, columns
//! from the right and rows from the top (the upper right corner); for
//! White, columns from the left and rows from the bottom.

use tengen_core::{BoardSize, Color, Game, IllegalMove, Move, Point};

use crate::PuctCandidate;

/// A symmetry of the board other than the identity: bit 0 mirrors the
/// columns, bit 1 the rows, bit 2 then swaps columns and rows (square
/// boards only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Symmetry(u8);

impl Symmetry {
    /// The image of column `col`, row `row` (rows from the bottom) on a
    /// board of `size`.
    fn map(self, size: BoardSize, col: usize, row: usize) -> (usize, usize) {
        let col = if self.0 & 1 != 0 {
            size.width() - 1 - col
        } else {
            col
        };
        let row = if self.0 & 2 != 0 {
            size.height() - 1 - row
        } else {
            row
        };
        if self.0 & 4 != 0 {
            (row, col)
        } else {
            (col, row)
        }
    }

    /// The image of `point`.
    pub fn point(self, size: BoardSize, point: Point) -> Point {
        let (col, row) = size.col_row(point);
        let (col, row) = self.map(size, col, row);
        size.point(col, row).expect("a symmetry of this board")
    }

    /// The image of `mv` (a pass is its own).
    pub fn apply(self, size: BoardSize, mv: Move) -> Move {
        match mv {
            Move::Play(point) => Move::Play(self.point(size, point)),
            other => other,
        }
    }

    /// The image of a map of the board's points, row-major from the
    /// top-left corner (as the analyses' ownership): the value of each
    /// point moves to its image. Any other length is returned unchanged.
    pub fn rows(self, size: BoardSize, values: &[f32]) -> Vec<f32> {
        let (width, height) = (size.width(), size.height());
        if values.len() != width * height {
            return values.to_vec();
        }
        let at = |col: usize, row: usize| (height - 1 - row) * width + col;
        let mut image = vec![0.0; values.len()];
        for row in 0..height {
            for col in 0..width {
                let (c, r) = self.map(size, col, row);
                image[at(c, r)] = values[at(col, row)];
            }
        }
        image
    }
}

/// The root's symmetries: those of the eight (four on a board that is not
/// square) other than the identity that leave every stone in place;
/// none while a ko or superko forbids a move to the side to move.
pub fn root_symmetries(game: &Game) -> Vec<Symmetry> {
    let size = game.size();
    let board = game.board();
    let count = if size.is_square() { 8 } else { 4 };
    let symmetries: Vec<Symmetry> = (1..count)
        .map(Symmetry)
        .filter(|&s| {
            size.points()
                .all(|p| board.stone(p) == board.stone(s.point(size, p)))
        })
        .collect();
    // Most positions have no symmetry: the ko test, a legality check per
    // empty point, is made only for those that do.
    let banned = || {
        size.points().any(|p| {
            board.is_empty_at(p)
                && matches!(
                    game.legal(Move::Play(p)),
                    Err(IllegalMove::Ko | IllegalMove::Superko)
                )
        })
    };
    if symmetries.is_empty() || banned() {
        return Vec::new();
    }
    symmetries
}

/// The points whose moves are copies under `symmetries` of a move kept,
/// as a flag per point index: each point in KataGo's order for the side
/// to move (see the module), unless already a copy, makes its images
/// copies.
pub fn duplicate_points(size: BoardSize, to_move: Color, symmetries: &[Symmetry]) -> Vec<bool> {
    let mut duplicate = vec![false; tengen_core::MAX_CELLS];
    if symmetries.is_empty() {
        return duplicate;
    }
    let (width, height) = (size.width(), size.height());
    let order: Vec<(usize, usize)> = if to_move == Color::Black {
        (0..width)
            .rev()
            .flat_map(|col| (0..height).rev().map(move |row| (col, row)))
            .collect()
    } else {
        (0..width)
            .flat_map(|col| (0..height).map(move |row| (col, row)))
            .collect()
    };
    for (col, row) in order {
        let point = size.point(col, row).expect("on the board");
        if duplicate[point.index()] {
            continue;
        }
        for &s in symmetries {
            let image = s.point(size, point);
            if image != point {
                duplicate[image.index()] = true;
            }
        }
    }
    duplicate
}

/// `candidates` with their copies under `symmetries`, as KataGo's analysis
/// lists them: after each candidate, its image under each symmetry not
/// already listed and not `kept_out` (a move the analysis was told to
/// avoid), its moves, variation and ownership carried over by the
/// symmetry and [`symmetry_of`](PuctCandidate::symmetry_of) naming the
/// move searched.
pub fn with_copies(
    size: BoardSize,
    symmetries: &[Symmetry],
    candidates: Vec<PuctCandidate>,
    kept_out: impl Fn(Move) -> bool,
) -> Vec<PuctCandidate> {
    if symmetries.is_empty() {
        return candidates;
    }
    // A move searched itself (a kept tree's, from before the position was
    // symmetric) is listed as searched, never as a copy.
    let mut listed: std::collections::HashSet<Move> = candidates.iter().map(|c| c.mv).collect();
    let mut all = Vec::with_capacity(candidates.len() * (symmetries.len() + 1));
    for candidate in candidates {
        let copies: Vec<PuctCandidate> = symmetries
            .iter()
            .filter_map(|&s| {
                let mv = s.apply(size, candidate.mv);
                if listed.contains(&mv) || kept_out(mv) {
                    return None;
                }
                listed.insert(mv);
                Some(PuctCandidate {
                    mv,
                    pv: candidate.pv.iter().map(|&m| s.apply(size, m)).collect(),
                    ownership: s.rows(size, &candidate.ownership),
                    ownership_stdev: s.rows(size, &candidate.ownership_stdev),
                    symmetry_of: Some(candidate.mv),
                    ..candidate.clone()
                })
            })
            .collect();
        all.push(candidate);
        all.extend(copies);
    }
    all
}

#[cfg(test)]
mod tests;
