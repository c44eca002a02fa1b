//! The drawing of random moves for light playouts on [`Board`]: uniform over
//! the acceptable points, without replacement and without allocating.
//!
//! Kept apart from the board's mechanics because it is the one place that
//! reorders the empty-point list (a rejected candidate is swapped to the end
//! of the part still to draw from), which the rest of the board never
//! relies on.

use super::{own_neighbors, Board, EyeTest, EMPTY_NEIGHBORS_MASK};
use crate::color::Color;
use crate::point::Point;
use crate::rng::Rng;

impl Board {
    /// A random move for a light playout: uniformly chosen among the empty points
    /// where `color` may play under [`Board::is_legal_simple`] and that are not
    /// its own eyes ([`Board::is_point_an_eye`]). `None` means pass.
    ///
    /// Candidates are drawn without replacement from the empty-point list; a
    /// rejected one is swapped to the end of the part still to draw from, so the
    /// choice is exactly uniform over the acceptable points and nothing is
    /// allocated.
    #[inline]
    pub fn random_playout_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point> {
        self.random_playout_move_where(color, rng, |_, _| true)
    }

    /// [`Board::random_playout_move`] with a further test: a point is
    /// acceptable only if it passes the playout rules and `accept` says yes.
    /// The choice is uniform over the points that pass both; `accept` is asked
    /// only about points that pass the rules.
    #[inline]
    pub fn random_playout_move_where(
        &mut self,
        color: Color,
        rng: &mut Rng,
        accept: impl FnMut(&Board, Point) -> bool,
    ) -> Option<Point> {
        self.random_move_avoiding_eyes(color, rng, EyeTest::Book, accept)
    }

    /// [`Board::random_playout_move_where`] with the eyes never filled
    /// chosen by `eyes`.
    #[inline]
    pub fn random_move_avoiding_eyes(
        &mut self,
        color: Color,
        rng: &mut Rng,
        eyes: EyeTest,
        mut accept: impl FnMut(&Board, Point) -> bool,
    ) -> Option<Point> {
        let mut remaining = self.empty_len as usize;
        while remaining > 0 {
            let i = rng.below(remaining);
            let p = self.empty[i] as usize;
            let packed = self.neighbor_counts[p];
            let acceptable = if own_neighbors(packed, color) == 4 {
                !self.eye_diagonals_by(p, color, eyes) && self.is_legal_empty(p, color)
            } else {
                // An empty neighbour makes the move legal at once; the ko point
                // never has one (the stone captured there had no liberty).
                packed & EMPTY_NEIGHBORS_MASK != 0 || self.is_legal_empty(p, color)
            };
            if acceptable && accept(self, Point(p as u16)) {
                return Some(Point(p as u16));
            }
            remaining -= 1;
            let last = self.empty[remaining];
            self.empty[i] = last;
            self.empty[remaining] = p as u16;
            self.empty_index[last as usize] = i as u16;
            self.empty_index[p] = remaining as u16;
        }
        None
    }

    /// Legality of an empty point `p` under simple ko with suicide forbidden.
    #[inline]
    fn is_legal_empty(&self, p: usize, color: Color) -> bool {
        !self.is_ko_retake(Point(p as u16), color) && !self.is_suicide(Point(p as u16), color)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::point::BoardSize;

    #[test]
    fn filtered_playout_moves_respect_the_filter() {
        let size = BoardSize::square(9).unwrap();
        let mut board = Board::new(size);
        let mut rng = Rng::new(3);
        let edge = |b: &Board, p: Point| {
            let (c, r) = b.size().col_row(p);
            c == 0 || r == 0 || c == 8 || r == 8
        };
        for i in 0..32 {
            let color = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            let p = board
                .random_playout_move_where(color, &mut rng, edge)
                .unwrap();
            assert!(edge(&board, p));
            board.play_unchecked(p, color);
        }
        assert_eq!(
            board.random_playout_move_where(Color::Black, &mut rng, edge),
            None
        );
    }

    /// Light playouts with every incremental structure checked after each move.
    #[test]
    fn playouts_stay_consistent() {
        let mut rng = Rng::new(11);
        for (w, h, games) in [
            (9, 9, 60),
            (5, 5, 200),
            (19, 19, 10),
            (7, 11, 40),
            (1, 6, 50),
            (2, 2, 50),
        ] {
            let size = BoardSize::new(w, h).unwrap();
            for _ in 0..games {
                let mut board = Board::new(size);
                let mut color = Color::Black;
                let mut passes = 0;
                for _ in 0..3 * size.points_count() {
                    match board.random_playout_move(color, &mut rng) {
                        Some(p) => {
                            assert!(board.is_legal_simple(p, color));
                            assert!(!board.is_point_an_eye(p, color));
                            board.play_unchecked(p, color);
                            passes = 0;
                        }
                        None => {
                            for p in board.empty_points().collect::<Vec<_>>() {
                                assert!(
                                    !board.is_legal_simple(p, color)
                                        || board.is_point_an_eye(p, color),
                                    "passed with a playable point"
                                );
                            }
                            board.pass();
                            passes += 1;
                        }
                    }
                    if let Err(e) = board.check_consistency() {
                        panic!("{e}\n{board:?}");
                    }
                    if passes == 2 {
                        break;
                    }
                    color = !color;
                }
            }
        }
    }
}
