//! ASCII diagrams of a [`Board`], both ways: [`Board::from_ascii`] reads the
//! plain diagrams the tests and examples are written in, `Display` writes
//! them back, and [`Board::diagram`] draws one for people, with coordinates.

use std::fmt;

use super::{Board, SetupError};
use crate::color::{ByColor, Color};
use crate::point::{BoardSize, Point};

impl Board {
    /// Parses an ASCII diagram: one line per row, top row first; `x`/`X` black,
    /// `o`/`O` white, `.` or `+` empty; spaces are ignored and so are blank lines.
    /// Every chain must have a liberty.
    pub fn from_ascii(text: &str) -> Result<Board, SetupError> {
        let rows: Vec<Vec<char>> = text
            .lines()
            .map(|line| {
                line.chars()
                    .filter(|c| !c.is_whitespace())
                    .collect::<Vec<_>>()
            })
            .filter(|row| !row.is_empty())
            .collect();
        let height = rows.len();
        let width = rows.first().map_or(0, Vec::len);
        let size = BoardSize::new(width, height).map_err(SetupError::Size)?;
        let mut board = Board::new(size);
        for (from_top, row) in rows.iter().enumerate() {
            if row.len() != width {
                return Err(SetupError::Diagram(format!(
                    "row {} has {} points, the first has {width}",
                    from_top + 1,
                    row.len()
                )));
            }
            for (col, &c) in row.iter().enumerate() {
                let point = size.point(col, height - 1 - from_top).unwrap_or(Point(0));
                let color = match c {
                    'x' | 'X' => Color::Black,
                    'o' | 'O' => Color::White,
                    '.' | '+' => continue,
                    other => {
                        return Err(SetupError::Diagram(format!(
                            "unexpected '{other}' in row {}",
                            from_top + 1
                        )))
                    }
                };
                board.play_unchecked(point, color);
            }
        }
        // Stones were placed in diagram order, which may have captured: check the
        // result holds exactly the stones drawn.
        for (from_top, row) in rows.iter().enumerate() {
            for (col, &c) in row.iter().enumerate() {
                let point = size.point(col, height - 1 - from_top).unwrap_or(Point(0));
                let expected = match c {
                    'x' | 'X' => Some(Color::Black),
                    'o' | 'O' => Some(Color::White),
                    _ => None,
                };
                if board.stone(point) != expected {
                    return Err(SetupError::NoLiberties(point));
                }
            }
        }
        board.ko = 0;
        board.ko_barred = 0;
        board.captures = ByColor::default();
        Ok(board)
    }

    /// A diagram for people: row numbers on the left, GTP column letters below,
    /// `x` black, `o` white, `.` empty, and the stone at `last` shown in brackets.
    pub fn diagram(&self, last: Option<Point>) -> String {
        let size = self.size;
        let mut out = String::new();
        for row in (0..size.height()).rev() {
            out.push_str(&format!("{:>3} ", row + 1));
            for col in 0..size.width() {
                let point = size.point(col, row).unwrap_or(Point(0));
                let c = match self.stone(point) {
                    Some(Color::Black) => 'x',
                    Some(Color::White) => 'o',
                    None => '.',
                };
                if Some(point) == last {
                    out.push_str(&format!("({c})"));
                } else {
                    out.push_str(&format!(" {c} "));
                }
            }
            out.truncate(out.trim_end_matches(' ').len());
            out.push('\n');
        }
        out.push_str("    ");
        for col in 0..size.width() {
            out.push_str(&format!(" {} ", crate::notation::GTP_COLUMNS[col] as char));
        }
        out.truncate(out.trim_end_matches(' ').len());
        out.push('\n');
        out
    }
}

impl fmt::Display for Board {
    /// The plain diagram that [`Board::from_ascii`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in (0..self.size.height()).rev() {
            for col in 0..self.size.width() {
                let point = self.size.point(col, row).unwrap_or(Point(0));
                let c = match self.stone(point) {
                    Some(Color::Black) => 'x',
                    Some(Color::White) => 'o',
                    None => '.',
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
