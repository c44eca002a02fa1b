//! The board: stones, chains, liberties, captures, the simple-ko point and the
//! Zobrist hash, all kept incrementally.
//!
//! Chains are circular lists threaded through `chain_next`; every stone knows
//! its chain's head (`chain_head`), and the head holds the chain's exact
//! liberty count and length. Empty and wall cells have head 0, which no stone
//! can have because cell 0 is a wall. Empty points are kept in a list with an
//! index per point, so a random empty point costs O(1).
//!
//! This file holds the board's state (stones, chains, liberties, the hash
//! and the ko point) and the questions asked without changing it. The rest
//! has a file of its own:
//!
//! - `play.rs`: changing the board ([`Board::play_unchecked`], captures,
//!   chains merged, passes, setup stones, the empty-point list);
//! - `random.rs`: the drawing of random playout moves;
//! - `check.rs`: [`Board::check_consistency`], which rebuilds every piece of
//!   incremental state from the stones alone and compares (the tests call it
//!   after every move), and the recount it shares with
//!   [`crate::PlayoutBoard`];
//! - `ascii.rs`: diagrams in ([`Board::from_ascii`]) and out
//!   ([`Board::diagram`], `Display`).

mod ascii;
mod check;
mod moves;
mod play;
mod random;
mod setup;

use std::fmt;

use crate::color::{ByColor, Color};
use crate::point::{BoardSize, Point, MAX_CELLS, MAX_POINTS};
use crate::zobrist::STONE_KEYS;

pub use check::ConsistencyError;
pub(crate) use check::Recount;
pub use moves::Removals;
pub use setup::SetupError;

pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
pub(crate) const WALL: u8 = 3;

/// Which empty points count as a player's own eyes, the points a playout
/// never fills.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum EyeTest {
    /// The book's test ([`Board::is_point_an_eye`]): at least three of four
    /// diagonals own in the middle of the board, all on-board ones on the
    /// edge.
    #[default]
    Book,
    /// Not a false eye ([`Board::is_real_eye`]): fewer than two enemy
    /// diagonals in the middle, none on the edge, empty diagonals allowed;
    /// and no chain around it in atari.
    Real,
}

/// The cell value of a stone of `color`.
#[inline]
pub(crate) const fn stone_cell(color: Color) -> u8 {
    color as u8 + 1
}

/// Words in a bit set over the cells of the largest board.
const MARK_WORDS: usize = MAX_CELLS.div_ceil(64);

/// Length of the per-cell arrays: a power of two no smaller than [`MAX_CELLS`],
/// so that masking an index with `CAPACITY - 1` proves it in bounds and the
/// compiler drops the bounds check. Every [`Point`] has an index below
/// `MAX_CELLS`, so the mask never changes an index.
pub(crate) const CAPACITY: usize = MAX_CELLS.next_power_of_two();

/// A per-cell array indexed without bounds checks (see [`CAPACITY`]).
#[derive(Clone, Copy)]
pub(crate) struct CellArray<T: Copy>(pub(crate) [T; CAPACITY]);

impl<T: Copy> CellArray<T> {
    pub(crate) const fn filled(value: T) -> Self {
        CellArray([value; CAPACITY])
    }
}

impl<T: Copy> std::ops::Index<usize> for CellArray<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, index: usize) -> &T {
        &self.0[index & (CAPACITY - 1)]
    }
}

impl<T: Copy> std::ops::IndexMut<usize> for CellArray<T> {
    #[inline(always)]
    fn index_mut(&mut self, index: usize) -> &mut T {
        &mut self.0[index & (CAPACITY - 1)]
    }
}

/// Neighbour counts packed in one `u16` per cell: black in bits 0–3, white in
/// bits 4–7, empty in bits 8–11. A wall counts as both black and white, so "all
/// neighbours are `color` or wall" is one comparison with 4.
pub(crate) const NEIGHBOR_UNIT: [u16; 4] = [
    0x100, // EMPTY
    0x001, // BLACK
    0x010, // WHITE
    0x011, // WALL
];
pub(crate) const EMPTY_NEIGHBORS_MASK: u16 = 0xF00;

#[inline(always)]
pub(crate) const fn own_neighbors(packed: u16, color: Color) -> u16 {
    (packed >> (4 * color as u16)) & 0xF
}

/// One bit per cell, on the stack: used where a chain's liberties are recounted.
struct CellSet([u64; MARK_WORDS]);

impl CellSet {
    #[inline]
    fn new() -> CellSet {
        CellSet([0; MARK_WORDS])
    }

    /// Adds `cell`; true if it was not there before.
    #[inline]
    fn insert(&mut self, cell: usize) -> bool {
        let (word, bit) = (cell / 64, 1u64 << (cell % 64));
        let fresh = self.0[word] & bit == 0;
        self.0[word] |= bit;
        fresh
    }
}

/// A Go board of any size from 1×1 to 25×25, with every piece of derived state
/// (chains, liberties, hash, empty-point list) kept up to date by
/// [`Board::play_unchecked`].
///
/// The board knows nothing of whose turn it is or of the game's history; that is
/// [`crate::Game`]'s job. It does know the simple-ko point, which the last move
/// determines.
pub struct Board {
    size: BoardSize,
    /// `EMPTY`, `BLACK`, `WHITE` or `WALL` per cell.
    cells: CellArray<u8>,
    /// The head stone of the chain through each stone; 0 for empty and wall cells.
    chain_head: CellArray<u16>,
    /// The next stone of the same chain (a circular list).
    chain_next: CellArray<u16>,
    /// Exact liberty count, valid at chain heads.
    liberties: CellArray<u16>,
    /// Number of stones, valid at chain heads.
    chain_len: CellArray<u16>,
    /// The empty points, in no particular order.
    empty: [u16; MAX_POINTS],
    empty_len: u16,
    /// Position of each empty point in `empty`.
    empty_index: CellArray<u16>,
    /// Packed counts of black, white and empty neighbours (see [`NEIGHBOR_UNIT`]).
    neighbor_counts: CellArray<u16>,
    hash: u64,
    /// The point the side to move may not play because of simple ko; 0 if none.
    ko: u16,
    /// The cell value of the colour that may not play at `ko` (the opponent of
    /// the capturer); 0 if none.
    ko_barred: u8,
    /// Stones captured by each colour (prisoners it holds).
    captures: ByColor<u32>,
}

impl Clone for Board {
    fn clone(&self) -> Board {
        Board {
            size: self.size,
            cells: self.cells,
            chain_head: self.chain_head,
            chain_next: self.chain_next,
            liberties: self.liberties,
            chain_len: self.chain_len,
            empty: self.empty,
            empty_len: self.empty_len,
            empty_index: self.empty_index,
            neighbor_counts: self.neighbor_counts,
            hash: self.hash,
            ko: self.ko,
            ko_barred: self.ko_barred,
            captures: self.captures,
        }
    }

    /// Copies only the part of the arrays that `source`'s size uses: a 9×9 board
    /// copies about a sixth of what a 25×25 one would.
    fn clone_from(&mut self, source: &Board) {
        let cells = source.size.cells();
        self.size = source.size;
        self.cells.0[..cells].copy_from_slice(&source.cells.0[..cells]);
        self.chain_head.0[..cells].copy_from_slice(&source.chain_head.0[..cells]);
        self.chain_next.0[..cells].copy_from_slice(&source.chain_next.0[..cells]);
        self.liberties.0[..cells].copy_from_slice(&source.liberties.0[..cells]);
        self.chain_len.0[..cells].copy_from_slice(&source.chain_len.0[..cells]);
        self.empty_index.0[..cells].copy_from_slice(&source.empty_index.0[..cells]);
        self.neighbor_counts.0[..cells].copy_from_slice(&source.neighbor_counts.0[..cells]);
        let empties = source.empty_len as usize;
        self.empty[..empties].copy_from_slice(&source.empty[..empties]);
        self.empty_len = source.empty_len;
        self.hash = source.hash;
        self.ko = source.ko;
        self.ko_barred = source.ko_barred;
        self.captures = source.captures;
    }
}

impl PartialEq for Board {
    /// Boards are equal when they have the same size, stones, ko point and
    /// capture counts (the order of the internal empty-point list is ignored).
    fn eq(&self, other: &Board) -> bool {
        let cells = self.size.cells();
        self.size == other.size
            && self.cells.0[..cells] == other.cells.0[..cells]
            && self.ko == other.ko
            && self.ko_barred == other.ko_barred
            && self.captures == other.captures
    }
}

impl Eq for Board {}

impl fmt::Debug for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "Board {} (hash {:016x}, ko {:?})",
            self.size,
            self.hash,
            self.ko_point()
        )?;
        fmt::Display::fmt(self, f)
    }
}

impl Board {
    /// An empty board of the given size.
    pub fn new(size: BoardSize) -> Board {
        let mut board = Board {
            size,
            cells: CellArray::filled(WALL),
            chain_head: CellArray::filled(0),
            chain_next: CellArray::filled(0),
            liberties: CellArray::filled(0),
            chain_len: CellArray::filled(0),
            empty: [0; MAX_POINTS],
            empty_len: 0,
            empty_index: CellArray::filled(0),
            neighbor_counts: CellArray::filled(0),
            hash: 0,
            ko: 0,
            ko_barred: 0,
            captures: ByColor::default(),
        };
        for point in size.points() {
            board.cells[point.index()] = EMPTY;
            board.push_empty(point.index());
        }
        for point in size.points() {
            board.neighbor_counts[point.index()] = board.count_neighbors(point.index());
        }
        board
    }

    /// The packed neighbour counts of cell `p`, computed from the cells.
    fn count_neighbors(&self, p: usize) -> u16 {
        self.neighbor_cells(p)
            .iter()
            .map(|&n| NEIGHBOR_UNIT[self.cells[n] as usize])
            .sum()
    }

    /// Changes cell `p` from `old` to `new` (empty or a stone) and updates its
    /// neighbours' counts.
    #[inline(always)]
    fn set_cell(&mut self, p: usize, old: u8, new: u8) {
        debug_assert_eq!(self.cells[p], old);
        let delta = NEIGHBOR_UNIT[new as usize].wrapping_sub(NEIGHBOR_UNIT[old as usize]);
        self.cells[p] = new;
        for n in self.neighbor_cells(p) {
            self.neighbor_counts[n] = self.neighbor_counts[n].wrapping_add(delta);
        }
    }

    /// The board's dimensions.
    #[inline]
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// The stone at `point`, or `None` if the point is empty (or off the board).
    #[inline]
    pub fn stone(&self, point: Point) -> Option<Color> {
        match self.cells[point.index()] {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    /// Whether `point` is on the board and empty.
    #[inline]
    pub fn is_empty_at(&self, point: Point) -> bool {
        self.cells[point.index()] == EMPTY
    }

    /// The Zobrist hash of the stones (see [`crate::zobrist`]); the ko point, the
    /// captures and the side to move are not part of it.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The point where the side to move may not play because it would retake a
    /// single-stone ko at once.
    #[inline]
    pub fn ko_point(&self) -> Option<Point> {
        (self.ko != 0).then_some(Point(self.ko))
    }

    /// Whether `color` playing at `point` would retake a single-stone ko at
    /// once. Only the opponent of the player who just captured is barred: the
    /// capturer may fill the point (GTP lets one colour move twice).
    #[inline]
    pub fn is_ko_retake(&self, point: Point, color: Color) -> bool {
        point.0 == self.ko && stone_cell(color) == self.ko_barred
    }

    /// Stones captured so far by each colour (including suicides: a colour's own
    /// stones that it removed count for the opponent).
    #[inline]
    pub fn captures(&self) -> ByColor<u32> {
        self.captures
    }

    /// Number of empty points.
    #[inline]
    pub fn empty_count(&self) -> usize {
        self.empty_len as usize
    }

    /// The empty points, in no particular order.
    pub fn empty_points(&self) -> impl Iterator<Item = Point> + '_ {
        self.empty[..self.empty_len as usize]
            .iter()
            .map(|&p| Point(p))
    }

    /// Number of stones of `color` on the board.
    pub fn stone_count(&self, color: Color) -> usize {
        let cell = stone_cell(color);
        self.size
            .points()
            .filter(|p| self.cells[p.index()] == cell)
            .count()
    }

    /// The head stone of the chain through `point`, or `None` if it is empty.
    #[inline]
    pub fn chain_head(&self, point: Point) -> Option<Point> {
        let head = self.chain_head[point.index()];
        (head != 0).then_some(Point(head))
    }

    /// Exact number of liberties of the chain through `point` (0 if empty).
    #[inline]
    pub fn liberties(&self, point: Point) -> usize {
        match self.chain_head[point.index()] {
            0 => 0,
            head => self.liberties[head as usize] as usize,
        }
    }

    /// Number of stones of the chain through `point` (0 if empty).
    #[inline]
    pub fn chain_len(&self, point: Point) -> usize {
        match self.chain_head[point.index()] {
            0 => 0,
            head => self.chain_len[head as usize] as usize,
        }
    }

    /// The stones of the chain through `point` (nothing if it is empty).
    pub fn chain(&self, point: Point) -> impl Iterator<Item = Point> + '_ {
        let start = self.chain_head[point.index()];
        let mut next = start;
        let mut done = start == 0;
        std::iter::from_fn(move || {
            if done {
                return None;
            }
            let current = next;
            next = self.chain_next[current as usize];
            done = next == start;
            Some(Point(current))
        })
    }

    /// The four orthogonal neighbours of `point`, walls included: toward row 1,
    /// left, right, toward the last row.
    #[inline]
    pub fn neighbors(&self, point: Point) -> [Point; 4] {
        let p = point.0;
        let s = self.size.stride() as u16;
        [Point(p - s), Point(p - 1), Point(p + 1), Point(p + s)]
    }

    /// The four diagonal neighbours of `point`, walls included: lower-left,
    /// lower-right, upper-left, upper-right (row 1 being the lowest).
    #[inline]
    pub fn diagonals(&self, point: Point) -> [Point; 4] {
        let p = point.0;
        let s = self.size.stride() as u16;
        [
            Point(p - s - 1),
            Point(p - s + 1),
            Point(p + s - 1),
            Point(p + s + 1),
        ]
    }

    /// Whether a stone of the chain through `stone` is next to `point`
    /// (false when `stone` is empty).
    #[inline]
    pub fn is_next_to_chain(&self, point: Point, stone: Point) -> bool {
        let head = self.chain_head[stone.index()];
        head != 0 && self.touches_chain(point.index(), head)
    }

    /// Whether `point` is a cell of the board rather than of the wall ring
    /// around it.
    #[inline]
    pub fn is_on_board(&self, point: Point) -> bool {
        self.cells[point.index()] != WALL
    }

    /// The eight cells around `point` as a 16-bit code, two bits per cell in
    /// the order of [`Board::neighbors`] then [`Board::diagonals`] (bits 0–1
    /// for the neighbour toward row 1; then left, right, toward the last row;
    /// then the diagonals lower-left, lower-right, upper-left, upper-right):
    /// 0 empty, 1 black, 2 white, 3 off the board. Pattern matchers index
    /// tables with it.
    #[inline]
    pub fn neighborhood(&self, point: Point) -> u16 {
        let p = point.index();
        let s = self.size.stride();
        let cells = [
            p.wrapping_sub(s),
            p.wrapping_sub(1),
            p + 1,
            p + s,
            p.wrapping_sub(s + 1),
            p.wrapping_sub(s - 1),
            p + s - 1,
            p + s + 1,
        ];
        let mut code = 0u16;
        for (i, cell) in cells.into_iter().enumerate() {
            code |= (self.cells[cell] as u16) << (2 * i);
        }
        code
    }

    /// The on-board orthogonal neighbours of `point`.
    pub fn on_board_neighbors(&self, point: Point) -> impl Iterator<Item = Point> + '_ {
        self.neighbors(point)
            .into_iter()
            .filter(|n| self.cells[n.index()] != WALL)
    }

    /// The cells around `p`. Wrapping arithmetic, so that asking about a wall
    /// cell's neighbours never overflows; the masked arrays keep any such index
    /// in bounds, and callers only use what they read there for on-board cells.
    #[inline(always)]
    fn neighbor_cells(&self, p: usize) -> [usize; 4] {
        let s = self.size.stride();
        [p.wrapping_sub(s), p.wrapping_sub(1), p + 1, p + s]
    }

    #[inline]
    fn diagonal_cells(&self, p: usize) -> [usize; 4] {
        let s = self.size.stride();
        [p - s - 1, p - s + 1, p + s - 1, p + s + 1]
    }
}

#[cfg(test)]
mod tests;
