//! Vertex text both ways: GTP style (`D4`, `pass`; column letters skip `I`,
//! rows count from 1 at the bottom) and SGF style (`dd`, column then row
//! from the top; the empty text is a pass). Every crate that reads or writes
//! a point as text goes through here: [`BoardSize::parse_gtp`],
//! [`BoardSize::gtp`], [`BoardSize::parse_sgf`] and [`BoardSize::sgf`].
//!
//! The methods belong to [`BoardSize`] because the text of a point depends
//! on the board's size (SGF rows count from the top, and `tt` is a pass only
//! on boards up to 19×19); they live here so that `point.rs` holds the
//! geometry alone.

use std::fmt;

use crate::point::{BoardSize, Move};

/// Column letters in GTP style: `A` to `Z` without `I`.
pub const GTP_COLUMNS: &[u8; 25] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

impl BoardSize {
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
    use crate::point::{Point, MAX_CELLS};

    fn size(w: usize, h: usize) -> BoardSize {
        BoardSize::new(w, h).unwrap()
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
