//! Board geometry, points on the padded board, moves, and vertex text in GTP and
//! SGF style.
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

/// Column letters in GTP style: `A` to `Z` without `I`.
pub const GTP_COLUMNS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

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

    /// Parses a GTP vertex: `D4`, `d4`, `pass` (any case). Letters skip `I`;
    /// rows count from 1 at the bottom.
    pub fn parse_gtp(self, text: &str) -> Result<Move, VertexError> {
        let bad = |reason: VertexErrorKind| VertexError {
            text: text.to_string(),
            kind: reason,
        };
        if text.eq_ignore_ascii_case("pass") {
            return Ok(Move::Pass);
        }
        let bytes = text.as_bytes();
        let Some((&letter, digits)) = bytes.split_first() else {
            return Err(bad(VertexErrorKind::Empty));
        };
        let letter = letter.to_ascii_uppercase();
        if letter == b'I' {
            return Err(bad(VertexErrorKind::LetterI));
        }
        let Some(col) = GTP_COLUMNS.iter().position(|&c| c == letter) else {
            return Err(bad(VertexErrorKind::Syntax));
        };
        if digits.is_empty() || digits.len() > 2 || !digits.iter().all(u8::is_ascii_digit) {
            return Err(bad(VertexErrorKind::Syntax));
        }
        let row: usize = digits.iter().fold(0, |n, d| n * 10 + (d - b'0') as usize);
        if row == 0 || digits[0] == b'0' {
            return Err(bad(VertexErrorKind::Syntax));
        }
        self.point(col, row - 1)
            .map(Move::Play)
            .ok_or_else(|| bad(VertexErrorKind::OffBoard(self)))
    }

    /// GTP text of a move: `D4` or `pass`.
    pub fn gtp(self, mv: Move) -> String {
        match mv {
            Move::Pass => "pass".to_string(),
            Move::Play(point) => {
                let (col, row) = self.col_row(point);
                format!("{}{}", GTP_COLUMNS[col] as char, row + 1)
            }
        }
    }

    /// Parses an SGF point: two lower-case letters, column then row counted from
    /// the top (`aa` is the top-left corner). The empty text is a pass, and so is
    /// `tt` on boards up to 19×19 (the FF\[3\] convention).
    pub fn parse_sgf(self, text: &str) -> Result<Move, VertexError> {
        let bad = |reason: VertexErrorKind| VertexError {
            text: text.to_string(),
            kind: reason,
        };
        let bytes = text.as_bytes();
        match bytes {
            [] => Ok(Move::Pass),
            [b't', b't'] if self.width() <= 19 && self.height() <= 19 => Ok(Move::Pass),
            &[c, r] if c.is_ascii_lowercase() && r.is_ascii_lowercase() => {
                let col = (c - b'a') as usize;
                let from_top = (r - b'a') as usize;
                if from_top >= self.height() {
                    return Err(bad(VertexErrorKind::OffBoard(self)));
                }
                self.point(col, self.height() - 1 - from_top)
                    .map(Move::Play)
                    .ok_or_else(|| bad(VertexErrorKind::OffBoard(self)))
            }
            _ => Err(bad(VertexErrorKind::Syntax)),
        }
    }

    /// SGF text of a move: `dd`, or the empty text for a pass.
    pub fn sgf(self, mv: Move) -> String {
        match mv {
            Move::Pass => String::new(),
            Move::Play(point) => {
                let (col, row) = self.col_row(point);
                let from_top = self.height() - 1 - row;
                format!(
                    "{}{}",
                    (b'a' + col as u8) as char,
                    (b'a' + from_top as u8) as char
                )
            }
        }
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

/// Why vertex text was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VertexError {
    /// The text as given.
    pub text: String,
    /// What is wrong with it.
    pub kind: VertexErrorKind,
}

/// The reason a vertex was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum VertexErrorKind {
    /// Nothing was given.
    Empty,
    /// Not of the form letter + row number (or two SGF letters).
    Syntax,
    /// The letter `I`, which GTP coordinates skip.
    LetterI,
    /// Well formed, but outside a board of this size.
    OffBoard(BoardSize),
}

impl fmt::Display for VertexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            VertexErrorKind::Empty => write!(f, "empty vertex"),
            VertexErrorKind::Syntax => write!(
                f,
                "invalid vertex '{}': expected a column letter and a row number such as D4, or pass",
                self.text
            ),
            VertexErrorKind::LetterI => {
                write!(f, "invalid vertex '{}': column letters skip I", self.text)
            }
            VertexErrorKind::OffBoard(size) => {
                write!(
                    f,
                    "vertex '{}' is off the {}x{} board",
                    self.text,
                    size.width(),
                    size.height()
                )
            }
        }
    }
}

impl std::error::Error for VertexError {}

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

    #[test]
    fn gtp_vertices_round_trip() {
        for (w, h) in [(1, 1), (9, 9), (19, 19), (25, 25), (3, 17), (25, 1)] {
            let s = size(w, h);
            let mut seen = std::collections::HashSet::new();
            for p in s.points() {
                assert!(s.contains(p));
                assert!(seen.insert(p));
                let text = s.gtp(Move::Play(p));
                assert_eq!(s.parse_gtp(&text), Ok(Move::Play(p)));
                assert_eq!(s.parse_gtp(&text.to_ascii_lowercase()), Ok(Move::Play(p)));
                let sgf = s.sgf(Move::Play(p));
                assert_eq!(s.parse_sgf(&sgf), Ok(Move::Play(p)), "{sgf}");
            }
            assert_eq!(seen.len(), w * h);
            let inside = (0..MAX_CELLS)
                .filter(|&i| s.contains(Point::from_index(i).unwrap()))
                .count();
            assert_eq!(inside, w * h);
        }
    }

    #[test]
    fn gtp_vertex_examples() {
        let s = size(19, 19);
        let d4 = s.point(3, 3).unwrap();
        assert_eq!(s.parse_gtp("D4"), Ok(Move::Play(d4)));
        assert_eq!(s.parse_gtp("d4"), Ok(Move::Play(d4)));
        assert_eq!(s.parse_gtp("J1"), Ok(Move::Play(s.point(8, 0).unwrap())));
        assert_eq!(s.parse_gtp("pass"), Ok(Move::Pass));
        assert_eq!(s.parse_gtp("PASS"), Ok(Move::Pass));
        assert_eq!(s.gtp(Move::Play(s.point(18, 18).unwrap())), "T19");
        let kind = |t: &str| s.parse_gtp(t).unwrap_err().kind;
        assert_eq!(kind("I5"), VertexErrorKind::LetterI);
        assert_eq!(kind("i5"), VertexErrorKind::LetterI);
        assert_eq!(kind("A0"), VertexErrorKind::Syntax);
        assert_eq!(kind("A05"), VertexErrorKind::Syntax);
        assert_eq!(kind("A26"), VertexErrorKind::OffBoard(s));
        assert_eq!(kind("A20"), VertexErrorKind::OffBoard(s));
        assert_eq!(kind("U1"), VertexErrorKind::OffBoard(s));
        assert_eq!(kind("Z1"), VertexErrorKind::OffBoard(s));
        assert_eq!(kind(""), VertexErrorKind::Empty);
        for t in ["4D", "D", "DD", "D-1", "D 4", "D4x", "D123", "é4", "passs"] {
            assert_eq!(kind(t), VertexErrorKind::Syntax, "{t}");
        }
        let big = size(25, 25);
        assert_eq!(
            big.parse_gtp("Z25"),
            Ok(Move::Play(big.point(24, 24).unwrap()))
        );
        assert_eq!(
            big.parse_gtp("A26").unwrap_err().kind,
            VertexErrorKind::OffBoard(big)
        );
    }

    #[test]
    fn sgf_vertex_examples() {
        let s = size(19, 19);
        assert_eq!(s.parse_sgf("aa"), Ok(Move::Play(s.point(0, 18).unwrap())));
        assert_eq!(s.parse_sgf("dp"), Ok(Move::Play(s.point(3, 3).unwrap())));
        assert_eq!(s.parse_sgf(""), Ok(Move::Pass));
        assert_eq!(s.parse_sgf("tt"), Ok(Move::Pass));
        assert_eq!(s.sgf(Move::Pass), "");
        let big = size(21, 21);
        assert_eq!(
            big.parse_sgf("tt"),
            Ok(Move::Play(big.point(19, 1).unwrap()))
        );
        assert!(s.parse_sgf("za").is_err());
        assert!(s.parse_sgf("a").is_err());
        assert!(s.parse_sgf("AA").is_err());
        assert!(s.parse_sgf("abc").is_err());
    }
}
