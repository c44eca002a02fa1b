//! Playouts on a [`PlayoutBoard`]: the [`PlayoutPosition`] interface (run
//! in code compiled for the common row lengths) and the count at the end
//! ([`PlayoutBoard::playout_score`], [`PlayoutBoard::final_owner`]).

use super::*;

impl PlayoutBoard {
    /// Black's area minus White's at the end of a playout, counted point by
    /// point as [`PlayoutBoard::final_owner`] does: the stones from the
    /// running balance, then each empty point, without branches, for the
    /// colour that alone surrounds it (walls count for both, so a point with
    /// only walls around it counts for neither).
    pub fn playout_score(&self) -> i32 {
        let mut score = i32::from(self.stone_balance);
        for &e in &self.empty.0[..self.empty_len as usize] {
            let packed = self.neighbor_counts[e as usize];
            let black = (own_neighbors(packed, Color::Black) == 4) as i32;
            let white = (own_neighbors(packed, Color::White) == 4) as i32;
            score += black - white;
        }
        score
    }

    /// The colour a point counts for at the end of a playout: its stone's
    /// colour, or for an empty point the colour of all its on-board
    /// neighbours when they are stones of one colour; `None` otherwise (as
    /// [`crate::playout::final_owner`] on a [`Board`]).
    #[inline]
    pub fn final_owner(&self, point: Point) -> Option<Color> {
        let p = self.cell_of(point);
        match self.cells[p] {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            EMPTY => {
                // Walls count for both colours: a point with only walls
                // around it (1×1) belongs to neither.
                let packed = self.neighbor_counts[p];
                let black = own_neighbors(packed, Color::Black) == 4;
                let white = own_neighbors(packed, Color::White) == 4;
                match (black, white) {
                    (true, false) => Some(Color::Black),
                    (false, true) => Some(Color::White),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}

impl PlayoutPosition for PlayoutBoard {
    #[inline]
    fn random_playout_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point> {
        self.random_move(color, rng)
    }

    #[inline]
    fn play_move(&mut self, point: Point, color: Color) {
        self.play(point, color);
    }

    #[inline]
    fn pass_move(&mut self) {
        self.pass();
    }

    /// Runs the playout in code compiled for the board's row length when it
    /// is one of the common sizes' (9×9, 13×13, 19×19 and any other board
    /// as wide), else in the general code. Both play the same moves.
    fn run_light_playout(&mut self, to_move: Color, rng: &mut Rng, max_moves: u32) -> PlayoutStats {
        match self.size.stride() {
            10 => playout_loop(&mut FixedStride::<10>(self), to_move, rng, max_moves),
            14 => playout_loop(&mut FixedStride::<14>(self), to_move, rng, max_moves),
            20 => playout_loop(&mut FixedStride::<20>(self), to_move, rng, max_moves),
            _ => playout_loop(self, to_move, rng, max_moves),
        }
    }
}

/// A [`PlayoutBoard`] whose row length is `STRIDE` cells, seen through code
/// compiled for that length.
struct FixedStride<'a, const STRIDE: usize>(&'a mut PlayoutBoard);

impl<const STRIDE: usize> PlayoutPosition for FixedStride<'_, STRIDE> {
    #[inline(always)]
    fn random_playout_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point> {
        self.0.random_move_with::<STRIDE>(color, rng)
    }

    #[inline(always)]
    fn play_move(&mut self, point: Point, color: Color) {
        self.0.play_with::<STRIDE>(point, color);
    }

    #[inline(always)]
    fn pass_move(&mut self) {
        self.0.pass();
    }
}
