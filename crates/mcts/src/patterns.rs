//! 3×3 patterns in the manner of MoGo (Gelly, Wang, Munos and Teytaud, 2006):
//! shapes around an empty point that make it an urgent reply — hane, cuts,
//! the diagonal attachment, and their edge forms. A playout that finds such a
//! point next to the last move plays it more often than a random one, and the
//! tree gives it a prior bonus.
//!
//! The board's [`Board::neighborhood`] code indexes a 65,536-bit table built
//! once from the shapes below in all eight symmetries and both colourings.

use std::sync::OnceLock;

use tengen_core::{Board, Point};

/// The shapes, centre = the candidate point (always empty). Rows top to
/// bottom. `X` and `O` are the two colours (either way round), `.` empty,
/// `#` off the board, `?` anything, `x` anything but `X`, `o` anything but
/// `O`.
const SHAPES: &[[&str; 3]] = &[
    // Hane that encloses a stone.
    ["XOX", "...", "???"],
    // Hane that cannot be cut at once.
    ["XO.", "...", "?.?"],
    // Hane bending around (magari).
    ["XO?", "X..", "x.?"],
    // Diagonal attachment (katatsuke) next to a stone.
    [".O.", "X..", "..."],
    // Cutting where the cut is unprotected.
    ["XO?", "O.o", "?o?"],
    // Cutting after a peep.
    ["XO?", "O.X", "???"],
    // Pushing between two stones (de).
    ["?X?", "O.O", "ooo"],
    // Cutting a knight's-move connection.
    ["OX?", "o.O", "???"],
    // On the edge: chasing along the side.
    ["X.?", "O.?", "###"],
    // On the edge: blocking a cut.
    ["OX?", "X.O", "###"],
    // On the edge: blocking a connection along the side.
    ["?X?", "x.O", "###"],
    // On the edge: descending (sagari).
    ["?XO", "x.x", "###"],
    // On the edge: cutting.
    ["?OX", "X.O", "###"],
];

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const WALL: u8 = 3;

/// Grid position (row from the top, column) of each two-bit field of a
/// neighbourhood code, in the order [`Board::neighborhood`] documents: below,
/// left, right, above, lower-left, lower-right, upper-left, upper-right.
const FIELD_CELLS: [(usize, usize); 8] = [
    (2, 1),
    (1, 0),
    (1, 2),
    (0, 1),
    (2, 0),
    (2, 2),
    (0, 0),
    (0, 2),
];

/// The cell values a pattern character allows, as a 4-bit mask over
/// empty/black/white/wall, with `x` being the colour `X` stands for.
fn allowed(ch: u8, x: u8) -> u8 {
    let o = if x == BLACK { WHITE } else { BLACK };
    let bit = |v: u8| 1u8 << v;
    match ch {
        b'X' => bit(x),
        b'O' => bit(o),
        b'.' => bit(EMPTY),
        b'#' => bit(WALL),
        b'?' => 0b1111,
        b'x' => 0b1111 & !bit(x),
        b'o' => 0b1111 & !bit(o),
        other => panic!("unknown pattern character {:?}", other as char),
    }
}

/// The eight symmetries of a 3×3 grid.
fn transformed(shape: [[u8; 3]; 3], symmetry: usize) -> [[u8; 3]; 3] {
    let mut out = [[0u8; 3]; 3];
    for (r, row) in shape.iter().enumerate() {
        for (c, &ch) in row.iter().enumerate() {
            let (mut rr, mut cc) = (r, c);
            if symmetry & 1 != 0 {
                cc = 2 - cc;
            }
            if symmetry & 2 != 0 {
                rr = 2 - rr;
            }
            if symmetry & 4 != 0 {
                std::mem::swap(&mut rr, &mut cc);
            }
            out[rr][cc] = ch;
        }
    }
    out
}

fn build_table() -> Box<[u64; 1024]> {
    let mut table = Box::new([0u64; 1024]);
    for shape in SHAPES {
        let grid = shape.map(|row| {
            let bytes = row.as_bytes();
            [bytes[0], bytes[1], bytes[2]]
        });
        assert_eq!(
            grid[1][1], b'.',
            "the centre of a pattern is the empty point"
        );
        for symmetry in 0..8 {
            let grid = transformed(grid, symmetry);
            for x in [BLACK, WHITE] {
                let masks = FIELD_CELLS.map(|(r, c)| allowed(grid[r][c], x));
                mark_codes(&masks, 0, 0, &mut table);
            }
        }
    }
    table
}

/// Sets the bit of every code whose fields `field..` take allowed values.
fn mark_codes(masks: &[u8; 8], field: usize, code: u16, table: &mut [u64; 1024]) {
    if field == 8 {
        table[(code >> 6) as usize] |= 1 << (code & 63);
        return;
    }
    for value in 0..4u16 {
        if masks[field] & (1 << value) != 0 {
            mark_codes(masks, field + 1, code | value << (2 * field), table);
        }
    }
}

fn table() -> &'static [u64; 1024] {
    static TABLE: OnceLock<Box<[u64; 1024]>> = OnceLock::new();
    TABLE.get_or_init(build_table)
}

/// The pattern table, built on first use; keep the reference to avoid the
/// lazy check in hot loops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Patterns {
    table: &'static [u64; 1024],
}

impl Default for Patterns {
    fn default() -> Self {
        Patterns::new()
    }
}

impl Patterns {
    /// The table (built on the first call in the process).
    pub fn new() -> Patterns {
        Patterns { table: table() }
    }

    /// Whether the neighbourhood of the empty point `point` matches one of
    /// the shapes (for either colour to play).
    #[inline]
    pub fn matches(&self, board: &Board, point: Point) -> bool {
        let code = board.neighborhood(point);
        self.table[(code >> 6) as usize] & (1 << (code & 63)) != 0
    }

    /// Number of neighbourhood codes that match, for tests.
    pub fn matching_codes(&self) -> u32 {
        self.table.iter().map(|word| word.count_ones()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(board: &Board, vertex: &str) -> Point {
        board.size().parse_gtp(vertex).unwrap().point().unwrap()
    }

    #[test]
    fn shapes_match_in_every_orientation_and_colouring() {
        let patterns = Patterns::new();
        // An enclosing hane at C3 (black to play or white: either colour).
        for diagram in [
            ". . . . .
             . x o x .
             . . . . .
             . . . . .
             . . . . .",
            ". . . . .
             . o x o .
             . . . . .
             . . . . .
             . . . . .",
            ". . . . .
             . . . . .
             . . . . .
             . x o x .
             . . . . .",
            ". . . . .
             . x . . .
             . o . . .
             . x . . .
             . . . . .",
        ] {
            let board = Board::from_ascii(diagram).unwrap();
            let center = at(&board, "C3");
            assert!(patterns.matches(&board, center), "{diagram}");
        }
    }

    #[test]
    fn empty_and_plain_points_do_not_match() {
        let patterns = Patterns::new();
        let board = Board::from_ascii(
            ". . . . .
             . . . . .
             . . . . .
             . . . . .
             . . x . .",
        )
        .unwrap();
        assert!(!patterns.matches(&board, at(&board, "C3")));
        assert!(!patterns.matches(&board, at(&board, "A5")));
        // A lone stone below: no shape has one stone only.
        assert!(!patterns.matches(&board, at(&board, "C2")));
        assert!(patterns.matching_codes() > 100);
    }

    #[test]
    fn edge_shapes_need_the_edge() {
        let patterns = Patterns::new();
        // Sagari shape on the first line: X above, O above-right, the sides
        // not X.
        let on_edge = Board::from_ascii(
            ". . . . .
             . . . . .
             . . . . .
             . . x o .
             . . . . .",
        )
        .unwrap();
        assert!(patterns.matches(&on_edge, at(&on_edge, "C1")));
        // A single diagonal stone is no shape.
        let lone = Board::from_ascii(
            ". . . . .
             . . . . .
             . . . x .
             . . . . .
             . . . . .",
        )
        .unwrap();
        assert!(!patterns.matches(&lone, at(&lone, "C2")));
    }
}
