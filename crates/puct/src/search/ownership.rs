//! The ownership a search gathers: each point's sum and sum of squares
//! over the evaluations of the root's subtree.

use super::*;

/// Ownership summed over the evaluations of a search, from Black's point of
/// view, by [`tengen_core::Point::index`].
#[derive(Clone, Debug)]
pub struct OwnershipSum {
    /// Sum per point index.
    pub sum: Vec<f64>,
    /// Sum of squares per point index.
    pub sum_sq: Vec<f64>,
    /// Evaluations summed.
    pub samples: u32,
}

impl Default for OwnershipSum {
    fn default() -> Self {
        OwnershipSum {
            sum: vec![0.0; MAX_CELLS],
            sum_sq: vec![0.0; MAX_CELLS],
            samples: 0,
        }
    }
}

impl OwnershipSum {
    /// The mean per point, row-major from the top-left corner (as
    /// [`tengen_core::Analysis::ownership`]); empty without samples.
    pub fn mean_rows(&self, size: BoardSize) -> Vec<f32> {
        self.rows(size, |sum, _| sum / f64::from(self.samples))
    }

    /// The standard deviation per point, in the same order; empty without
    /// samples.
    pub fn stdev_rows(&self, size: BoardSize) -> Vec<f32> {
        let n = f64::from(self.samples);
        self.rows(size, |sum, sq| {
            let mean = sum / n;
            (sq / n - mean * mean).max(0.0).sqrt()
        })
    }

    fn rows(&self, size: BoardSize, f: impl Fn(f64, f64) -> f64) -> Vec<f32> {
        if self.samples == 0 {
            return Vec::new();
        }
        let mut out = Vec::with_capacity(size.points_count());
        for row in (0..size.height()).rev() {
            for col in 0..size.width() {
                let point = size.point(col, row).expect("on the board");
                let i = point.index();
                out.push(f(self.sum[i], self.sum_sq[i]) as f32);
            }
        }
        out
    }
}

impl OwnershipSum {
    /// Adds one evaluation's ownership (side to move `to_move`'s view).
    pub fn add(&mut self, game: &Game, to_move: Color, ownership: &[f32]) {
        let s = sign(to_move);
        let size = game.size();
        for point in size.points() {
            if let Some(&v) = ownership.get(point.index()) {
                if v.is_finite() {
                    let value = s * f64::from(v.clamp(-1.0, 1.0));
                    self.sum[point.index()] += value;
                    self.sum_sq[point.index()] += value * value;
                }
            }
        }
        self.samples += 1;
    }
}
