//! Stone colours and a container indexed by colour.

use std::fmt;
use std::ops::{Index, IndexMut, Not};

/// The colour of a stone or of a player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Black moves first in an even game.
    Black,
    /// White receives komi.
    White,
}

impl Color {
    /// Both colours, Black first.
    pub const ALL: [Color; 2] = [Color::Black, Color::White];

    /// The other colour.
    #[inline]
    pub const fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// 0 for Black, 1 for White: the index into per-colour tables.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `"B"` or `"W"`, as in GTP replies and SGF properties.
    pub const fn letter(self) -> char {
        match self {
            Color::Black => 'B',
            Color::White => 'W',
        }
    }

    /// Lower-case full name: `"black"` or `"white"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Black => "black",
            Color::White => "white",
        }
    }

    /// Parses `b`, `black`, `w`, `white` in any case (the GTP colour syntax).
    pub fn parse(text: &str) -> Option<Color> {
        match text.to_ascii_lowercase().as_str() {
            "b" | "black" => Some(Color::Black),
            "w" | "white" => Some(Color::White),
            _ => None,
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        self.opposite()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A pair of values, one per colour (captures, scores, time left).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByColor<T> {
    /// Black's value.
    pub black: T,
    /// White's value.
    pub white: T,
}

impl<T> ByColor<T> {
    /// Builds the pair from Black's and White's values.
    pub const fn new(black: T, white: T) -> Self {
        ByColor { black, white }
    }
}

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    #[inline]
    fn index(&self, color: Color) -> &T {
        match color {
            Color::Black => &self.black,
            Color::White => &self.white,
        }
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    #[inline]
    fn index_mut(&mut self, color: Color) -> &mut T {
        match color {
            Color::Black => &mut self.black,
            Color::White => &mut self.white,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opposite_and_parse() {
        assert_eq!(!Color::Black, Color::White);
        assert_eq!(Color::White.opposite(), Color::Black);
        for text in ["b", "B", "black", "BLACK", "Black"] {
            assert_eq!(Color::parse(text), Some(Color::Black), "{text}");
        }
        for text in ["w", "W", "white", "WhItE"] {
            assert_eq!(Color::parse(text), Some(Color::White), "{text}");
        }
        for text in ["", "x", "blac", "whites", "bw"] {
            assert_eq!(Color::parse(text), None, "{text}");
        }
    }

    #[test]
    fn by_color_indexing() {
        let mut pair = ByColor::new(1, 2);
        pair[Color::White] += 5;
        assert_eq!(pair[Color::Black], 1);
        assert_eq!(pair[Color::White], 7);
    }
}
