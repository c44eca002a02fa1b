//! A board made for light playouts: the same padded array, neighbour counts,
//! chain lists and empty-point list as [`Board`], but with *pseudo-liberties*
//! instead of exact liberty counts, and no hash, captures or history.
//!
//! A chain's pseudo-liberties are its (stone, empty neighbour) pairs: an empty
//! point next to three stones of the chain counts three times. Their number
//! is cheap to keep, because a stone placed or removed changes it by one per
//! neighbour, with no test of whether the chain already touched the point.
//! A chain is captured when the number falls to 0. Whether a move is
//! suicide or a capture needs one more fact: whether the point played is the
//! *only* liberty of a chain next to it. The point is a liberty of every
//! chain next to it, and gives such a chain as many pseudo-liberties as the
//! chain has stones beside it; so it is the chain's only liberty exactly
//! when the chain's count equals that number of stones. That exact test is
//! all that forbidding suicide needs, so playouts follow the same rules as
//! on [`Board`] (simple ko, no suicide of any size) and the same moves are
//! legal.
//!
//! [`PlayoutBoard::check_consistency`] rebuilds every incremental piece from
//! the stones, with the recount [`Board::check_consistency`] uses, and
//! compares; the tests also play it move by move beside [`Board`] and
//! compare stones, ko point, legality, eyes and atari.

mod check;
mod playout;

use std::fmt;
use std::hint::select_unpredictable;

use crate::board::{
    own_neighbors, stone_cell, Board, ConsistencyError, Recount, BLACK, CAPACITY, EMPTY,
    EMPTY_NEIGHBORS_MASK, NEIGHBOR_UNIT, WALL, WHITE,
};
use crate::color::Color;
use crate::playout::{playout_loop, PlayoutPosition, PlayoutStats};
use crate::point::{BoardSize, Point};
use crate::rng::Rng;

/// The record of one chain, kept at the chain's id: its number of
/// pseudo-liberties in the low 16 bits and its number of stones above them,
/// so that joining two chains is one addition. Neither field can carry into
/// the next: a 25×25 board has 625 points, so a chain has at most 625 stones
/// and 1,250 pseudo-liberties (each is a stone next to an empty point). The
/// slot at id 0 collects the updates aimed at empty and wall cells and holds
/// no meaning.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ChainInfo(u32);

/// A per-cell array of the playout board, read and written without a bounds
/// check or a mask: about a tenth of a playout's instructions went into
/// masking indices, and without them a playout runs about a tenth faster.
///
/// Sound because every index is below [`CAPACITY`], the arrays' length:
/// indices are cells of the board (below [`MAX_CELLS`](crate::point::MAX_CELLS)),
/// or their neighbours and diagonals, which the wall ring keeps on the
/// padded array. Points from callers are checked against the board's size
/// where they come in ([`PlayoutBoard::cell_of`]); the cells the board
/// keeps itself (the empty list, chain ids and lists) are written only
/// from such cells, which [`PlayoutBoard::check_consistency`] verifies in
/// the tests; and debug builds, which the tests run, check every index.
#[derive(Clone, Copy)]
struct Cells<T: Copy>([T; CAPACITY]);

impl<T: Copy> Cells<T> {
    const fn filled(value: T) -> Self {
        Cells([value; CAPACITY])
    }
}

impl Cells<u8> {
    /// The four bytes from `index` on, the first in the low byte.
    #[inline(always)]
    fn word_at(&self, index: usize) -> u32 {
        debug_assert!(index + 4 <= CAPACITY, "cell {index} out of range");
        // SAFETY: indices are cells or their neighbours and diagonals (see
        // the type's documentation), at most the last cell of the largest
        // board plus a row and two, far below CAPACITY - 4.
        let bytes = unsafe { self.0.get_unchecked(index..index + 4) };
        u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
    }
}

impl<T: Copy> std::ops::Index<usize> for Cells<T> {
    type Output = T;
    #[inline(always)]
    fn index(&self, index: usize) -> &T {
        debug_assert!(index < CAPACITY, "cell {index} out of range");
        // SAFETY: indices are below CAPACITY (see the type's documentation).
        unsafe { self.0.get_unchecked(index) }
    }
}

impl<T: Copy> std::ops::IndexMut<usize> for Cells<T> {
    #[inline(always)]
    fn index_mut(&mut self, index: usize) -> &mut T {
        debug_assert!(index < CAPACITY, "cell {index} out of range");
        // SAFETY: as for `index`.
        unsafe { self.0.get_unchecked_mut(index) }
    }
}

/// The `STRIDE` of the board methods compiled for no particular size: they
/// read the row length from the board. Light playouts on 9×9, 13×13 and
/// 19×19 run code compiled for their row length instead, where every
/// neighbour and diagonal is a fixed offset.
const ANY_STRIDE: usize = 0;

/// The [`ChainInfo`] field of one pseudo-liberty, and of one stone.
const ONE_LIBERTY: u32 = 1;
const ONE_STONE: u32 = 1 << 16;

impl ChainInfo {
    /// Number of pseudo-liberties.
    #[inline(always)]
    fn pseudo_liberties(self) -> u32 {
        self.0 & 0xFFFF
    }

    /// Number of stones.
    #[inline(always)]
    fn len(self) -> u32 {
        self.0 >> 16
    }
}

/// A board for light playouts (see the module documentation): plays only
/// legal moves under simple ko with suicide forbidden, and draws uniformly
/// random legal non-eye moves.
///
/// Build one from the empty board with [`PlayoutBoard::new`] or from any
/// position with [`PlayoutBoard::from_board`]; copy it cheaply with
/// [`Clone::clone_from`].
pub struct PlayoutBoard {
    size: BoardSize,
    /// `EMPTY`, `BLACK`, `WHITE` or `WALL` per cell.
    cells: Cells<u8>,
    /// Packed counts of black, white and empty neighbours, as in [`Board`].
    neighbor_counts: Cells<u16>,
    /// The id of the chain through each stone (a cell of the chain, where its
    /// [`ChainInfo`] lives); 0 for empty and wall cells, whose entry at 0 is a
    /// scratch slot that branch-free updates may write to.
    chain_id: Cells<u16>,
    /// The next stone of the same chain (a circular list).
    chain_next: Cells<u16>,
    /// Pseudo-liberty counts and lengths at chain ids; zero at every other
    /// cell but the scratch slot 0, so that a stone starting a chain adds
    /// to its record as a stone joining one does.
    chains: Cells<ChainInfo>,
    /// The empty points, in no particular order: a per-cell array like the
    /// others, as no board has as many points as cells.
    empty: Cells<u16>,
    empty_len: u16,
    /// Position of each empty point in `empty`.
    empty_index: Cells<u16>,
    /// The simple-ko point; 0 if none.
    ko: u16,
    /// The cell value of the colour barred from `ko`; 0 if none.
    ko_barred: u8,
    /// Black stones minus white stones on the board.
    stone_balance: i16,
}

impl Clone for PlayoutBoard {
    fn clone(&self) -> PlayoutBoard {
        PlayoutBoard {
            size: self.size,
            cells: self.cells,
            neighbor_counts: self.neighbor_counts,
            chain_id: self.chain_id,
            chain_next: self.chain_next,
            chains: self.chains,
            empty: self.empty,
            empty_len: self.empty_len,
            empty_index: self.empty_index,
            ko: self.ko,
            ko_barred: self.ko_barred,
            stone_balance: self.stone_balance,
        }
    }

    /// Copies only the part of the arrays that `source`'s size uses.
    fn clone_from(&mut self, source: &PlayoutBoard) {
        let cells = source.size.cells();
        self.size = source.size;
        self.cells.0[..cells].copy_from_slice(&source.cells.0[..cells]);
        self.neighbor_counts.0[..cells].copy_from_slice(&source.neighbor_counts.0[..cells]);
        self.chain_id.0[..cells].copy_from_slice(&source.chain_id.0[..cells]);
        self.chain_next.0[..cells].copy_from_slice(&source.chain_next.0[..cells]);
        self.chains.0[..cells].copy_from_slice(&source.chains.0[..cells]);
        self.empty_index.0[..cells].copy_from_slice(&source.empty_index.0[..cells]);
        let empties = source.empty_len as usize;
        self.empty.0[..empties].copy_from_slice(&source.empty.0[..empties]);
        self.empty_len = source.empty_len;
        self.ko = source.ko;
        self.ko_barred = source.ko_barred;
        self.stone_balance = source.stone_balance;
    }
}

impl fmt::Debug for PlayoutBoard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "PlayoutBoard {} (ko {:?})", self.size, self.ko_point())?;
        for row in (0..self.size.height()).rev() {
            for col in 0..self.size.width() {
                let point = self.size.point(col, row).expect("on the board");
                let mark = match self.stone(point) {
                    Some(Color::Black) => 'x',
                    Some(Color::White) => 'o',
                    None => '.',
                };
                write!(f, "{mark}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl PartialEq for PlayoutBoard {
    /// Same size, stones and ko point.
    fn eq(&self, other: &PlayoutBoard) -> bool {
        let cells = self.size.cells();
        self.size == other.size
            && self.cells.0[..cells] == other.cells.0[..cells]
            && self.ko == other.ko
            && self.ko_barred == other.ko_barred
    }
}

impl Eq for PlayoutBoard {}

impl From<&Board> for PlayoutBoard {
    fn from(board: &Board) -> PlayoutBoard {
        PlayoutBoard::from_board(board)
    }
}

impl PlayoutBoard {
    /// An empty board of the given size.
    pub fn new(size: BoardSize) -> PlayoutBoard {
        let mut board = PlayoutBoard {
            size,
            cells: Cells::filled(WALL),
            neighbor_counts: Cells::filled(0),
            chain_id: Cells::filled(0),
            chain_next: Cells::filled(0),
            chains: Cells::filled(ChainInfo::default()),
            empty: Cells::filled(0),
            empty_len: 0,
            empty_index: Cells::filled(0),
            ko: 0,
            ko_barred: 0,
            stone_balance: 0,
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

    /// The position of `board`: its stones and its ko point.
    pub fn from_board(board: &Board) -> PlayoutBoard {
        let size = board.size();
        let mut playout = PlayoutBoard::new(size);
        // Stones of a position whose chains all have liberties can go down in
        // any order without a capture: a partial chain touches either a stone
        // of its chain still to come (an empty point now) or the chain's
        // liberty.
        for point in size.points() {
            if let Some(color) = board.stone(point) {
                playout.place::<ANY_STRIDE>(point.index(), color);
            }
        }
        if let Some(ko) = board.ko_point() {
            for color in [Color::Black, Color::White] {
                if board.is_ko_retake(ko, color) {
                    playout.ko = ko.0;
                    playout.ko_barred = stone_cell(color);
                }
            }
        }
        playout
    }

    /// The cell of `point`, which must lie on this board: the check that
    /// keeps every index of the unchecked arrays in range (see [`Cells`]).
    #[inline]
    fn cell_of(&self, point: Point) -> usize {
        assert!(self.size.contains(point), "{point:?} is not on the board");
        point.index()
    }

    /// The board's dimensions.
    #[inline]
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// The stone at `point`, or `None` if the point is empty (or off the board).
    #[inline]
    pub fn stone(&self, point: Point) -> Option<Color> {
        if !self.size.contains(point) {
            return None;
        }
        match self.cells[point.index()] {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    /// The point the colour barred by simple ko may not play.
    #[inline]
    pub fn ko_point(&self) -> Option<Point> {
        (self.ko != 0).then_some(Point(self.ko))
    }

    /// Whether `color` playing at `point` would retake a single-stone ko at once.
    #[inline]
    pub fn is_ko_retake(&self, point: Point, color: Color) -> bool {
        point.0 == self.ko && stone_cell(color) == self.ko_barred
    }

    /// Number of empty points.
    #[inline]
    pub fn empty_count(&self) -> usize {
        self.empty_len as usize
    }

    /// Whether the chain through `point` has exactly one liberty (false for
    /// an empty point). Walks the chain: playouts never ask.
    pub fn in_atari(&self, point: Point) -> bool {
        self.atari_liberty(point).is_some()
    }

    /// The liberty of the chain through `point` when it is in atari.
    pub fn atari_liberty(&self, point: Point) -> Option<Point> {
        let start = self.cell_of(point);
        if !matches!(self.cells[start], BLACK | WHITE) {
            return None;
        }
        let mut liberty = None;
        let mut stone = start;
        loop {
            for n in self.neighbor_cells::<ANY_STRIDE>(stone) {
                if self.cells[n] == EMPTY {
                    match liberty {
                        None => liberty = Some(n),
                        Some(seen) if seen != n => return None,
                        Some(_) => {}
                    }
                }
            }
            stone = self.chain_next[stone] as usize;
            if stone == start {
                return liberty.map(|p| Point(p as u16));
            }
        }
    }

    /// The number of pseudo-liberties of the chain through `point`: each
    /// empty point counted once per stone of the chain next to it (0 if
    /// `point` is empty).
    pub fn pseudo_liberties(&self, point: Point) -> usize {
        match self.chain_id[self.cell_of(point)] {
            0 => 0,
            id => self.chains[id as usize].pseudo_liberties() as usize,
        }
    }

    /// Number of stones of the chain through `point` (0 if empty).
    pub fn chain_len(&self, point: Point) -> usize {
        match self.chain_id[self.cell_of(point)] {
            0 => 0,
            id => self.chains[id as usize].len() as usize,
        }
    }

    /// Whether `color` may play at `point` under simple ko with suicide
    /// forbidden: on the board, empty, not the ko point, not suicide.
    #[inline]
    pub fn is_legal(&self, point: Point, color: Color) -> bool {
        let p = self.cell_of(point);
        self.cells[p] == EMPTY
            && (self.neighbor_counts[p] & EMPTY_NEIGHBORS_MASK != 0
                || self.is_legal_crowded::<ANY_STRIDE>(p, color))
    }

    /// The book's eye test, as [`Board::is_point_an_eye`].
    #[inline]
    pub fn is_point_an_eye(&self, point: Point, color: Color) -> bool {
        let p = self.cell_of(point);
        self.cells[p] == EMPTY
            && own_neighbors(self.neighbor_counts[p], color) == 4
            && self.eye_diagonals::<ANY_STRIDE>(p, color)
    }

    /// Legality of an empty point `p` with no empty neighbour: not the ko
    /// point, and either a friendly chain next to it keeps another liberty or
    /// an enemy chain next to it is captured. Without branches.
    ///
    /// `p` is a liberty of each chain next to it, worth one pseudo-liberty
    /// per stone of the chain beside it; it is the chain's only liberty when
    /// that is all the chain's pseudo-liberties.
    #[inline(always)]
    fn is_legal_crowded<const STRIDE: usize>(&self, p: usize, color: Color) -> bool {
        let own = stone_cell(color);
        let enemy = stone_cell(!color);
        let neighbors = self.neighbor_cells::<STRIDE>(p);
        let ids = neighbors.map(|n| self.chain_id[n]);
        // How many of the four sides each side's chain takes: one, plus
        // one per other side of the same chain (six comparisons in all).
        let [a, b, c, d] = ids.map(u32::from);
        let (ab, ac, ad) = ((a == b) as u32, (a == c) as u32, (a == d) as u32);
        let (bc, bd, cd) = ((b == c) as u32, (b == d) as u32, (c == d) as u32);
        let sides = [
            1 + ab + ac + ad,
            1 + ab + bc + bd,
            1 + ac + bc + cd,
            1 + ad + bd + cd,
        ];
        let mut lives = false;
        for ((n, id), beside) in neighbors.into_iter().zip(ids).zip(sides) {
            let cell = self.cells[n];
            // Wall cells share id 0, which no stone has, and are neither
            // colour: what is counted for them does not matter.
            let only_liberty = self.chains[id as usize].pseudo_liberties() == beside;
            lives |= ((cell == own) & !only_liberty) | ((cell == enemy) & only_liberty);
        }
        let ko = (p as u16 == self.ko) & (own == self.ko_barred);
        lives & !ko
    }

    /// The diagonal half of the eye test, on the four diagonal cells at
    /// once: the two above `p` are bytes 0 and 2 of the word read at
    /// `p - s - 1`, the two below bytes 0 and 2 of the word at `p + s - 1`.
    /// With `EMPTY` 0, `BLACK` 1, `WHITE` 2 and `WALL` 3, bit `color` of a
    /// cell says "own stone or wall", and both bits say "wall".
    #[inline(always)]
    fn eye_diagonals<const STRIDE: usize>(&self, p: usize, color: Color) -> bool {
        let s = self.stride::<STRIDE>();
        const LOW_BITS: u32 = 0x0101_0101;
        let above = self.cells.word_at(p - s - 1) & 0x00FF_00FF;
        let below = self.cells.word_at(p + s - 1) & 0x00FF_00FF;
        let diagonals = above | (below << 8);
        let own_or_wall = (diagonals >> color as u32) & LOW_BITS;
        let walls = diagonals & (diagonals >> 1) & LOW_BITS;
        // The bytes' sum in the top byte: each is 0 or 1.
        let count = own_or_wall.wrapping_mul(LOW_BITS) >> 24;
        // On the edge every on-board diagonal must be own; in the middle
        // three of the four.
        count + (walls == 0) as u32 >= 4
    }

    /// A uniformly random legal move for `color` that is not its own eye, or
    /// `None` (pass) when there is none. Candidates are drawn without
    /// replacement from the empty-point list, as in
    /// [`Board::random_playout_move`].
    #[inline]
    pub fn random_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point> {
        self.random_move_with::<ANY_STRIDE>(color, rng)
    }

    /// [`PlayoutBoard::random_move`] compiled for a row length of `STRIDE`
    /// cells (or [`ANY_STRIDE`]).
    #[inline(always)]
    fn random_move_with<const STRIDE: usize>(
        &mut self,
        color: Color,
        rng: &mut Rng,
    ) -> Option<Point> {
        let mut remaining = self.empty_len as usize;
        while remaining > 0 {
            let i = rng.below_small(remaining as u32) as usize;
            let p = self.empty[i] as usize;
            let packed = self.neighbor_counts[p];
            // A point with an empty neighbour is neither an eye nor the ko
            // point, and never suicide. Otherwise the eye test comes first:
            // it needs no chain.
            let acceptable = packed & EMPTY_NEIGHBORS_MASK != 0
                || (own_neighbors(packed, color) != 4 || !self.eye_diagonals::<STRIDE>(p, color))
                    && self.is_legal_crowded::<STRIDE>(p, color);
            if acceptable {
                return Some(Point(p as u16));
            }
            remaining -= 1;
            let last = self.empty[remaining];
            self.empty[i] = last;
            self.empty[remaining] = p as u16;
            self.empty_index[last as usize] = i as u16;
            self.empty_index[p] = remaining as u16;
        }
        None
    }

    /// Plays a legal move (see [`PlayoutBoard::is_legal`]; asserted in debug
    /// builds): places the stone, captures enemy chains left without
    /// liberties and sets the simple-ko point. Returns the stones captured.
    ///
    /// # Panics
    /// If `point` is off the board or occupied.
    #[inline]
    pub fn play(&mut self, point: Point, color: Color) -> u32 {
        // A stone on an occupied point would break the empty list, whose
        // length bounds the unchecked reads of the next draw.
        let p = self.cell_of(point);
        assert_eq!(self.cells[p], EMPTY, "play on an occupied point");
        self.play_with::<ANY_STRIDE>(point, color)
    }

    /// [`PlayoutBoard::play`] compiled for a row length of `STRIDE` cells
    /// (or [`ANY_STRIDE`]).
    #[inline(always)]
    fn play_with<const STRIDE: usize>(&mut self, point: Point, color: Color) -> u32 {
        debug_assert!(self.size.contains(point), "play off the board");
        debug_assert!(self.is_legal(point, color), "illegal playout move");
        let p = point.index();
        let packed = self.neighbor_counts[p];
        self.ko = 0;
        self.ko_barred = 0;
        let victims = self.place::<STRIDE>(p, color);
        if victims == 0 {
            return 0;
        }
        let neighbors = self.neighbor_cells::<STRIDE>(p);
        let enemy = stone_cell(!color);
        let mut captured = 0;
        let mut captured_at = 0;
        let mut left = victims;
        while left != 0 {
            let n = neighbors[left.trailing_zeros() as usize];
            left &= left - 1;
            // Two sides may touch one chain: the second finds it gone.
            if self.cells[n] == enemy {
                captured_at = n;
                captured += self.remove_chain::<STRIDE>(n, !color);
            }
        }
        // A lone stone that captured a single stone and has no other
        // neighbour than enemy stones and walls has that point as its only
        // liberty: a ko.
        if captured == 1 && own_neighbors(packed, !color) == 4 {
            self.ko = captured_at as u16;
            self.ko_barred = enemy;
        }
        captured
    }

    /// A pass: clears the ko point.
    #[inline]
    pub fn pass(&mut self) {
        self.ko = 0;
        self.ko_barred = 0;
    }

    /// Puts a stone of `color` on empty cell `p`, takes `p` from the
    /// pseudo-liberties of the chains next to it and joins the friendly ones;
    /// captures nothing. Returns the sides (bit `i` for neighbour `i`) where
    /// an enemy chain is left without liberties.
    #[inline(always)]
    fn place<const STRIDE: usize>(&mut self, p: usize, color: Color) -> u32 {
        let own = stone_cell(color);
        let enemy = stone_cell(!color);
        let lone = ((self.neighbor_counts[p] & EMPTY_NEIGHBORS_MASK) >> 8) as u32;
        self.add_stone::<STRIDE>(p, color);
        self.remove_empty(p);
        let neighbors = self.neighbor_cells::<STRIDE>(p);
        let mut ids = [0usize; 4];
        let mut friends = 0u32;
        let mut victims = 0u32;
        for (i, n) in neighbors.into_iter().enumerate() {
            let cell = self.cells[n];
            // Empty and wall cells have id 0, the scratch slot, so every
            // neighbour can be charged without a test. A chain touching
            // the stone on several sides reaches 0 at the last of them,
            // which is where it is marked.
            let id = self.chain_id[n] as usize;
            ids[i] = id;
            let left = self.chains[id].0.wrapping_sub(ONE_LIBERTY);
            self.chains[id].0 = left;
            let dead = left & 0xFFFF == 0;
            friends |= ((cell == own) as u32) << i;
            victims |= (((cell == enemy) & dead) as u32) << i;
        }
        // The stone joins the first friendly chain, or starts its own when
        // it has no friendly neighbour. Both are the same stores, with no
        // branch, which the random moves of a playout would make hard to
        // predict: a new chain's record starts from the zero every cell
        // outside a chain head holds, and its list from the stone itself.
        let alone = friends == 0;
        let first_friend = ((friends | 16).trailing_zeros() & 3) as usize;
        let first = select_unpredictable(alone, p, ids[first_friend]);
        // The stone brings its empty neighbours as pseudo-liberties.
        self.chains[first].0 += lone + ONE_STONE;
        self.chain_id[p] = first as u16;
        // A lone stone is its own chain head (`first` is `p`), and reads
        // back the link to itself stored here.
        self.chain_next[p] = p as u16;
        let next = self.chain_next[first];
        self.chain_next[p] = next;
        self.chain_next[first] = p as u16;
        // Other friendly chains than the first are merged in: rarer.
        let mut others = 0u32;
        for (i, &id) in ids.iter().enumerate() {
            others |= ((id != first) as u32) << i;
        }
        let mut others = others & friends;
        while others != 0 {
            let n = neighbors[others.trailing_zeros() as usize];
            others &= others - 1;
            let theirs = self.chain_id[n] as usize;
            let mine = self.chain_id[p] as usize;
            if theirs != mine {
                self.merge_chains(mine, theirs);
            }
        }
        victims
    }

    /// Joins chains `a` and `b`: the shorter one's stones take the longer
    /// one's id, the lists are spliced and the counts added.
    #[inline]
    fn merge_chains(&mut self, a: usize, b: usize) {
        let (base, other) = if self.chains[a].len() >= self.chains[b].len() {
            (a, b)
        } else {
            (b, a)
        };
        let mut stone = other;
        loop {
            self.chain_id[stone] = base as u16;
            stone = self.chain_next[stone] as usize;
            if stone == other {
                break;
            }
        }
        let next = self.chain_next[base];
        self.chain_next[base] = self.chain_next[other];
        self.chain_next[other] = next;
        self.chains[base].0 += self.chains[other].0;
        self.chains[other] = ChainInfo(0);
    }

    /// Takes the chain through `start` (of colour `victim`) off the board and
    /// gives each capturing chain next to a freed point its pseudo-liberty.
    /// Returns the stone count.
    fn remove_chain<const STRIDE: usize>(&mut self, start: usize, victim: Color) -> u32 {
        let id = self.chain_id[start] as usize;
        let mut removed = 0;
        let mut stone = start;
        loop {
            self.take_stone::<STRIDE>(stone, victim);
            self.chain_id[stone] = 0;
            self.push_empty(stone);
            removed += 1;
            // Without a test: the neighbours are capturing stones (whose
            // chains gain the point), stones of the dying chain (whose counts
            // no longer matter), or empty and wall cells (the scratch slot).
            for n in self.neighbor_cells::<STRIDE>(stone) {
                let chain = &mut self.chains[self.chain_id[n] as usize];
                chain.0 = chain.0.wrapping_add(ONE_LIBERTY);
            }
            stone = self.chain_next[stone] as usize;
            if stone == start {
                // The freed head holds no record, as every cell outside a
                // chain head must not.
                self.chains[id] = ChainInfo(0);
                return removed;
            }
        }
    }

    /// Puts a stone of `color` on empty cell `p` and counts it in its
    /// neighbours' packed counts (one fewer empty neighbour, one more of
    /// `color`). The change is computed rather than looked up, which keeps
    /// a load off the path to the next move's tests.
    #[inline(always)]
    fn add_stone<const STRIDE: usize>(&mut self, p: usize, color: Color) {
        debug_assert_eq!(self.cells[p], EMPTY);
        self.cells[p] = stone_cell(color);
        self.stone_balance += stone_sign(color);
        let delta = (1u16 << (4 * color as u16)).wrapping_sub(0x100);
        for n in self.neighbor_cells::<STRIDE>(p) {
            self.neighbor_counts[n] = self.neighbor_counts[n].wrapping_add(delta);
        }
    }

    /// Takes the stone of `color` off cell `p`, the reverse of
    /// [`PlayoutBoard::add_stone`].
    #[inline(always)]
    fn take_stone<const STRIDE: usize>(&mut self, p: usize, color: Color) {
        debug_assert_eq!(self.cells[p], stone_cell(color));
        self.cells[p] = EMPTY;
        self.stone_balance -= stone_sign(color);
        let delta = 0x100u16.wrapping_sub(1 << (4 * color as u16));
        for n in self.neighbor_cells::<STRIDE>(p) {
            self.neighbor_counts[n] = self.neighbor_counts[n].wrapping_add(delta);
        }
    }

    /// The cells above, left, right and below cell `p`.
    #[inline(always)]
    fn neighbor_cells<const STRIDE: usize>(&self, p: usize) -> [usize; 4] {
        let s = self.stride::<STRIDE>();
        [p.wrapping_sub(s), p.wrapping_sub(1), p + 1, p + s]
    }

    /// The row length of the padded array: `STRIDE` itself when the code
    /// was compiled for one, else the board's.
    #[inline(always)]
    fn stride<const STRIDE: usize>(&self) -> usize {
        if STRIDE == ANY_STRIDE {
            self.size.stride()
        } else {
            debug_assert_eq!(STRIDE, self.size.stride(), "compiled for another size");
            STRIDE
        }
    }

    fn count_neighbors(&self, p: usize) -> u16 {
        self.neighbor_cells::<ANY_STRIDE>(p)
            .iter()
            .map(|&n| NEIGHBOR_UNIT[self.cells[n] as usize])
            .sum()
    }

    #[inline(always)]
    fn push_empty(&mut self, cell: usize) {
        let len = self.empty_len as usize;
        self.empty[len] = cell as u16;
        self.empty_index[cell] = len as u16;
        self.empty_len += 1;
    }

    #[inline(always)]
    fn remove_empty(&mut self, cell: usize) {
        let index = self.empty_index[cell] as usize;
        let last_index = self.empty_len as usize - 1;
        let last = self.empty[last_index];
        self.empty[index] = last;
        self.empty_index[last as usize] = index as u16;
        self.empty_len -= 1;
    }
}

/// +1 for a black stone, -1 for a white one.
#[inline(always)]
fn stone_sign(color: Color) -> i16 {
    1 - 2 * color as i16
}
