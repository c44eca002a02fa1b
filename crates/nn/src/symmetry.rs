//! The eight symmetries of a square board (four of a rectangular one), on
//! input planes and on move indices, for training augmentation.
//!
//! Go's rules do not change under rotation or reflection of the board, so a
//! training sample (input planes and the move played) stays a correct sample
//! once both are mapped by the same symmetry. Indices are the encoders' point
//! indices, `row * width + col` (see [`crate::encoder`]).

use tengen_core::{BoardSize, Point};

/// A symmetry of the board: one of the eight rotations and reflections.
///
/// The number inside is three bits, applied to `(col, row)` in this order:
/// 4 swaps column and row (transposes), then 1 mirrors the columns
/// (`col → width − 1 − col`) and 2 mirrors the rows. So 0 is the identity,
/// 1 and 2 the mirrors left–right and top–bottom, 3 the half turn, 4 and 7
/// the reflections in the two diagonals, and 5 and 6 the quarter turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Symmetry(u8);

/// Bit of [`Symmetry`]: mirror the columns.
const FLIP_COLS: u8 = 1;
/// Bit of [`Symmetry`]: mirror the rows.
const FLIP_ROWS: u8 = 2;
/// Bit of [`Symmetry`]: swap column and row, before any mirroring.
const TRANSPOSE: u8 = 4;

impl Symmetry {
    /// The symmetry that maps every point to itself.
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// All eight symmetries; the first four do not transpose, so they alone
    /// are also symmetries of a rectangular board.
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    /// The symmetries valid for a board of `size`: all eight for a square
    /// board, and the four that do not transpose for a rectangle (a
    /// transposed rectangle would be a board of another shape).
    pub fn for_size(size: BoardSize) -> &'static [Symmetry] {
        if size.is_square() {
            &Self::ALL
        } else {
            &Self::ALL[..4]
        }
    }

    /// The symmetry that undoes this one. Mirrors and the half turn undo
    /// themselves; a transposing symmetry mirrors after transposing, so its
    /// inverse mirrors the other axis (turning the quarter turns around).
    pub fn inverse(self) -> Symmetry {
        if self.transposes() {
            let cols = self.0 & FLIP_COLS;
            let rows = self.0 & FLIP_ROWS;
            Symmetry(TRANSPOSE | (cols << 1) | (rows >> 1))
        } else {
            self
        }
    }

    /// Whether this symmetry swaps columns and rows, and so is valid only on
    /// square boards.
    pub fn transposes(self) -> bool {
        self.0 & TRANSPOSE != 0
    }

    /// The image of `(col, row)` on a board of `size`.
    #[inline]
    fn map_col_row(self, size: BoardSize, col: usize, row: usize) -> (usize, usize) {
        let (mut col, mut row) = if self.transposes() {
            (row, col)
        } else {
            (col, row)
        };
        // Only square boards are transposed, so the width and height of the
        // image are those of `size` either way.
        if self.0 & FLIP_COLS != 0 {
            col = size.width() - 1 - col;
        }
        if self.0 & FLIP_ROWS != 0 {
            row = size.height() - 1 - row;
        }
        (col, row)
    }

    /// Panics for a transposing symmetry on a rectangle, whose image would
    /// lie off the board.
    #[inline]
    fn check_size(self, size: BoardSize) {
        assert!(
            !self.transposes() || size.is_square(),
            "symmetry {} transposes, so it does not apply to a {size} board",
            self.0
        );
    }

    /// The image of point index `index` (`row * width + col`) on a board of
    /// `size`.
    ///
    /// # Panics
    /// If the symmetry transposes and the board is not square, or if `index`
    /// is not below `width * height`.
    pub fn map_index(self, size: BoardSize, index: usize) -> usize {
        self.check_size(size);
        assert!(
            index < size.points_count(),
            "point index {index} is off a {size} board"
        );
        let width = size.width();
        let (col, row) = self.map_col_row(size, index % width, index / width);
        row * width + col
    }

    /// The image of a point of a board of `size`.
    ///
    /// # Panics
    /// If the symmetry transposes and the board is not square, or if `point`
    /// is not on the board.
    pub fn map_point(self, size: BoardSize, point: Point) -> Point {
        self.check_size(size);
        assert!(size.contains(point), "{point:?} is not on a {size} board");
        let (col, row) = size.col_row(point);
        let (col, row) = self.map_col_row(size, col, row);
        size.point(col, row)
            .expect("the image of a point is on the board")
    }

    /// The image of move index `index`: point indices map as in
    /// [`map_index`](Symmetry::map_index), and the pass index `width * height`
    /// (and anything past it) maps to itself, since passing has no place on
    /// the board.
    ///
    /// # Panics
    /// If the symmetry transposes and the board is not square.
    pub fn map_move(self, size: BoardSize, index: usize) -> usize {
        if index >= size.points_count() {
            self.check_size(size);
            index
        } else {
            self.map_index(size, index)
        }
    }

    /// Writes the image of `planes` planes of input for a board of `size`
    /// into `out`, in the layout of [`crate::encoder::Encoder::encode`]: the
    /// value of each plane at point index `p` goes to index `map_index(p)` of
    /// the same plane. Writes exactly `out[..planes * width * height]`;
    /// allocates nothing.
    ///
    /// # Panics
    /// If the symmetry transposes and the board is not square, or if `input`
    /// or `out` is shorter than `planes * width * height`.
    pub fn apply_planes(self, size: BoardSize, planes: usize, input: &[f32], out: &mut [f32]) {
        self.check_size(size);
        let (width, height) = (size.width(), size.height());
        let points = size.points_count();
        let len = planes * points;
        assert!(
            input.len() >= len && out.len() >= len,
            "{planes} planes of a {size} board need {len} values, given {} in and {} out",
            input.len(),
            out.len()
        );
        if self == Symmetry::IDENTITY {
            out[..len].copy_from_slice(&input[..len]);
            return;
        }
        // Every plane moves the same way: map each point once and copy its
        // value in every plane, rather than recomputing the map per plane.
        for row in 0..height {
            for col in 0..width {
                let (to_col, to_row) = self.map_col_row(size, col, row);
                let from = row * width + col;
                let to = to_row * width + to_col;
                for plane in 0..planes {
                    out[plane * points + to] = input[plane * points + from];
                }
            }
        }
    }
}
