//! Board geometry, points on the padded board, and moves. Their text in GTP
//! and SGF style is in `notation.rs`.
//!
//! A board of `width × height` is stored as a one-dimensional array with a ring of
//! wall cells around it. Rows are `stride = width + 1` cells apart: one wall cell
//! between the end of a row and the start of the next serves as both the right
//! wall of one row and the left wall of the next. A whole wall row lies below the
//! first row and above the last, plus one extra cell so that the top-right
//! point's diagonal neighbour is inside the array. The point at column `col` and
//! row `row` (both from 0, row 0 at the bottom) has index
//! `(row + 1) * stride + col + 1`, and its neighbours are `±1` and `±stride` away
//! with no bounds checks.

use std::fmt;

/// The largest width or height of a board (the GTP limit: letters A–Z less I).
pub const MAX_SIDE: usize = 25;

/// The largest stride (row length including one wall cell).
pub const MAX_STRIDE: usize = MAX_SIDE + 1;

/// Cells in the padded array of the largest board.
pub const MAX_CELLS: usize = (MAX_SIDE + 2) * MAX_STRIDE + 1;

/// Points on the largest board.
pub const MAX_POINTS: usize = MAX_SIDE * MAX_SIDE;

/// The dimensions of a board, from 1×1 to 25×25, rectangles allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BoardSize {
    width: u8,
    height: u8,
}

/// Why a board size was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoardSizeError {
    /// The width that was asked for.
    pub width: usize,
    /// The height that was asked for.
    pub height: usize,
}

impl fmt::Display for BoardSizeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unacceptable board size {}x{}: width and height must be between 1 and {MAX_SIDE}",
            self.width, self.height
        )
    }
}

impl std::error::Error for BoardSizeError {}

impl BoardSize {
    /// A square board of `side × side`.
    pub fn square(side: usize) -> Result<BoardSize, BoardSizeError> {
        BoardSize::new(side, side)
    }

    /// A board of `width` columns and `height` rows.
    pub fn new(width: usize, height: usize) -> Result<BoardSize, BoardSizeError> {
        if (1..=MAX_SIDE).contains(&width) && (1..=MAX_SIDE).contains(&height) {
            Ok(BoardSize {
                width: width as u8,
                height: height as u8,
            })
        } else {
            Err(BoardSizeError { width, height })
        }
    }

    /// Parses `"19"` or `"7x11"` (width × height).
    pub fn parse(text: &str) -> Option<BoardSize> {
        let text = text.trim();
        let (w, h) = match text.split_once(['x', 'X', ':']) {
            Some((w, h)) => (w.trim().parse().ok()?, h.trim().parse().ok()?),
            None => {
                let side = text.parse().ok()?;
                (side, side)
            }
        };
        BoardSize::new(w, h).ok()
    }

    /// Number of columns.
    #[inline]
    pub const fn width(self) -> usize {
        self.width as usize
    }

    /// Number of rows.
    #[inline]
    pub const fn height(self) -> usize {
        self.height as usize
    }

    /// Whether width equals height.
    pub const fn is_square(self) -> bool {
        self.width == self.height
    }

    /// Distance between vertically adjacent cells of the padded array.
    #[inline]
    pub const fn stride(self) -> usize {
        self.width as usize + 1
    }

    /// Number of cells of the padded array actually used by this size.
    #[inline]
    pub const fn cells(self) -> usize {
        (self.height as usize + 2) * self.stride() + 1
    }

    /// Number of points on the board.
    #[inline]
    pub const fn points_count(self) -> usize {
        self.width as usize * self.height as usize
    }

    /// The point at `col` (0 = left) and `row` (0 = bottom), if on the board.
    #[inline]
    pub fn point(self, col: usize, row: usize) -> Option<Point> {
        (col < self.width() && row < self.height())
            .then(|| Point(((row + 1) * self.stride() + col + 1) as u16))
    }

    /// Whether `point` is one of this board's points (not a wall cell, not outside).
    #[inline]
    pub fn contains(self, point: Point) -> bool {
        let index = point.index();
        let stride = self.stride();
        index > stride && index < (self.height() + 1) * stride && !index.is_multiple_of(stride)
    }

    /// `(col, row)` of a point of this board, both from 0, row 0 at the bottom.
    #[inline]
    pub fn col_row(self, point: Point) -> (usize, usize) {
        let index = point.index();
        let stride = self.stride();
        (index % stride - 1, index / stride - 1)
    }

    /// All points of the board, row by row from the bottom-left corner.
    pub fn points(self) -> impl Iterator<Item = Point> + Clone {
        let width = self.width();
        let stride = self.stride();
        (0..self.height()).flat_map(move |row| {
            (0..width).map(move |col| Point(((row + 1) * stride + col + 1) as u16))
        })
    }
}

impl fmt::Display for BoardSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_square() {
            write!(f, "{}", self.width)
        } else {
            write!(f, "{}x{}", self.width, self.height)
        }
    }
}

/// A cell of the padded board array. Only meaningful together with the
/// [`BoardSize`] it was made for; build one with [`BoardSize::point`] or a parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point(pub(crate) u16);

impl Point {
    /// The index into the padded array.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The point at a padded-array index, if the index is inside the array of
    /// the largest board. Whether it lies on a given board is for
    /// [`BoardSize::contains`] to say.
    #[inline]
    pub const fn from_index(index: usize) -> Option<Point> {
        if index < MAX_CELLS {
            Some(Point(index as u16))
        } else {
            None
        }
    }
}

/// A move on the board: a stone at a point, or a pass. Resignation belongs to the
/// game layer ([`crate::Action`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Place a stone.
    Play(Point),
    /// Pass.
    Pass,
}

impl Move {
    /// The point of a play, `None` for a pass.
    pub fn point(self) -> Option<Point> {
        match self {
            Move::Play(point) => Some(point),
            Move::Pass => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(w: usize, h: usize) -> BoardSize {
        BoardSize::new(w, h).unwrap()
    }

    #[test]
    fn sizes() {
        assert!(BoardSize::new(0, 5).is_err());
        assert!(BoardSize::new(26, 5).is_err());
        assert!(BoardSize::new(1, 1).is_ok());
        assert!(BoardSize::new(25, 25).is_ok());
        assert_eq!(BoardSize::parse("7x11"), Some(size(7, 11)));
        assert_eq!(BoardSize::parse("19"), Some(size(19, 19)));
        assert_eq!(BoardSize::parse("26"), None);
        assert_eq!(size(7, 11).to_string(), "7x11");
        assert_eq!(size(25, 25).cells(), MAX_CELLS);
    }
}
