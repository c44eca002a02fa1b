//! The board: stones, chains, liberties, captures, the simple-ko point and the
//! Zobrist hash, all kept incrementally.
//!
//! Chains are circular lists threaded through `chain_next`; every stone knows
//! its chain's head (`chain_head`), and the head holds the chain's exact
//! liberty count and length. Empty and wall cells have head 0, which no stone
//! can have because cell 0 is a wall. Empty points are kept in a list with an
//! index per point, so a random empty point costs O(1).
//!
//! [`Board::check_consistency`] rebuilds every one of these from the stones alone
//! and compares; the tests call it after every move.

use std::fmt;

use crate::color::{ByColor, Color};
use crate::point::{BoardSize, Point, MAX_CELLS, MAX_POINTS};
use crate::rng::Rng;
use crate::zobrist::STONE_KEYS;

pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
pub(crate) const WALL: u8 = 3;

/// The cell value of a stone of `color`.
#[inline]
pub(crate) const fn stone_cell(color: Color) -> u8 {
    color as u8 + 1
}

/// Words in a bit set over the cells of the largest board.
const MARK_WORDS: usize = MAX_CELLS.div_ceil(64);

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
/// (chains, liberties, hash, empty-point list) kept up to date by [`Board::play`].
///
/// The board knows nothing of whose turn it is or of the game's history; that is
/// [`crate::Game`]'s job. It does know the simple-ko point, which the last move
/// determines.
pub struct Board {
    size: BoardSize,
    /// `EMPTY`, `BLACK`, `WHITE` or `WALL` per cell.
    cells: [u8; MAX_CELLS],
    /// The head stone of the chain through each stone; 0 for empty and wall cells.
    chain_head: [u16; MAX_CELLS],
    /// The next stone of the same chain (a circular list).
    chain_next: [u16; MAX_CELLS],
    /// Exact liberty count, valid at chain heads.
    liberties: [u16; MAX_CELLS],
    /// Number of stones, valid at chain heads.
    chain_len: [u16; MAX_CELLS],
    /// The empty points, in no particular order.
    empty: [u16; MAX_POINTS],
    empty_len: u16,
    /// Position of each empty point in `empty`.
    empty_index: [u16; MAX_CELLS],
    hash: u64,
    /// The point the side to move may not play because of simple ko; 0 if none.
    ko: u16,
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
            hash: self.hash,
            ko: self.ko,
            captures: self.captures,
        }
    }

    /// Copies only the part of the arrays that `source`'s size uses: a 9×9 board
    /// copies about a sixth of what a 25×25 one would.
    fn clone_from(&mut self, source: &Board) {
        let cells = source.size.cells();
        self.size = source.size;
        self.cells[..cells].copy_from_slice(&source.cells[..cells]);
        self.chain_head[..cells].copy_from_slice(&source.chain_head[..cells]);
        self.chain_next[..cells].copy_from_slice(&source.chain_next[..cells]);
        self.liberties[..cells].copy_from_slice(&source.liberties[..cells]);
        self.chain_len[..cells].copy_from_slice(&source.chain_len[..cells]);
        self.empty_index[..cells].copy_from_slice(&source.empty_index[..cells]);
        let empties = source.empty_len as usize;
        self.empty[..empties].copy_from_slice(&source.empty[..empties]);
        self.empty_len = source.empty_len;
        self.hash = source.hash;
        self.ko = source.ko;
        self.captures = source.captures;
    }
}

impl PartialEq for Board {
    /// Boards are equal when they have the same size, stones, ko point and
    /// capture counts (the order of the internal empty-point list is ignored).
    fn eq(&self, other: &Board) -> bool {
        let cells = self.size.cells();
        self.size == other.size
            && self.cells[..cells] == other.cells[..cells]
            && self.ko == other.ko
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
            cells: [WALL; MAX_CELLS],
            chain_head: [0; MAX_CELLS],
            chain_next: [0; MAX_CELLS],
            liberties: [0; MAX_CELLS],
            chain_len: [0; MAX_CELLS],
            empty: [0; MAX_POINTS],
            empty_len: 0,
            empty_index: [0; MAX_CELLS],
            hash: 0,
            ko: 0,
            captures: ByColor::default(),
        };
        for point in size.points() {
            board.cells[point.index()] = EMPTY;
            board.push_empty(point.index());
        }
        board
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

    /// The four orthogonal neighbours of `point`, walls included.
    #[inline]
    pub fn neighbors(&self, point: Point) -> [Point; 4] {
        let p = point.0;
        let s = self.size.stride() as u16;
        [Point(p - s), Point(p - 1), Point(p + 1), Point(p + s)]
    }

    /// The on-board orthogonal neighbours of `point`.
    pub fn on_board_neighbors(&self, point: Point) -> impl Iterator<Item = Point> + '_ {
        self.neighbors(point)
            .into_iter()
            .filter(|n| self.cells[n.index()] != WALL)
    }

    #[inline]
    fn neighbor_cells(&self, p: usize) -> [usize; 4] {
        let s = self.size.stride();
        [p - s, p - 1, p + 1, p + s]
    }

    #[inline]
    fn diagonal_cells(&self, p: usize) -> [usize; 4] {
        let s = self.size.stride();
        [p - s - 1, p - s + 1, p + s - 1, p + s + 1]
    }

    /// Whether `color` playing at empty `point` would leave its own chain without
    /// liberties (capturing nothing). The point must be on the board and empty.
    #[inline]
    pub fn is_suicide(&self, point: Point, color: Color) -> bool {
        let own = stone_cell(color);
        for n in self.neighbor_cells(point.index()) {
            match self.cells[n] {
                EMPTY => return false,
                WALL => {}
                cell => {
                    let libs = self.liberties[self.chain_head[n] as usize];
                    // A friendly chain with a second liberty keeps it; an enemy
                    // chain whose last liberty is this point is captured.
                    if (cell == own) == (libs > 1) {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Legality under simple ko with suicide forbidden, the rules of light
    /// playouts: `point` is on the board, empty, not the ko point, and not suicide.
    #[inline]
    pub fn is_legal_simple(&self, point: Point, color: Color) -> bool {
        let p = point.index();
        self.cells[p] == EMPTY && point.0 != self.ko && !self.is_suicide(point, color)
    }

    /// The book's eye test: `point` is empty, all its on-board neighbours are
    /// stones of `color`, and of its diagonal points either at least three of
    /// four are `color` (in the middle of the board) or all on-board ones are
    /// (on the edge and in the corner).
    #[inline]
    pub fn is_point_an_eye(&self, point: Point, color: Color) -> bool {
        let p = point.index();
        if self.cells[p] != EMPTY {
            return false;
        }
        let own = stone_cell(color);
        for n in self.neighbor_cells(p) {
            let cell = self.cells[n];
            if cell != own && cell != WALL {
                return false;
            }
        }
        let mut friendly = 0;
        let mut off_board = 0;
        for d in self.diagonal_cells(p) {
            match self.cells[d] {
                WALL => off_board += 1,
                cell if cell == own => friendly += 1,
                _ => {}
            }
        }
        if off_board > 0 {
            off_board + friendly == 4
        } else {
            friendly >= 3
        }
    }

    /// The hash the board would have after `color` plays at empty `point`,
    /// captures and suicide included, without changing the board.
    pub fn hash_after(&self, point: Point, color: Color) -> u64 {
        let p = point.index();
        let own = stone_cell(color);
        let mut heads = [0u16; 4];
        let mut count = 0;
        let mut hash = self.hash ^ STONE_KEYS[color.index()][p];
        let mut captured = false;
        for n in self.neighbor_cells(p) {
            let cell = self.cells[n];
            if cell == EMPTY || cell == WALL || cell == own {
                continue;
            }
            let head = self.chain_head[n];
            if self.liberties[head as usize] == 1 && !heads[..count].contains(&head) {
                heads[count] = head;
                count += 1;
                captured = true;
                hash ^= self.chain_hash(head as usize);
            }
        }
        if !captured && self.is_suicide(point, color) {
            // The new stone and every friendly chain next to it come off again.
            hash = self.hash;
            count = 0;
            for n in self.neighbor_cells(p) {
                if self.cells[n] == own {
                    let head = self.chain_head[n];
                    if !heads[..count].contains(&head) {
                        heads[count] = head;
                        count += 1;
                        hash ^= self.chain_hash(head as usize);
                    }
                }
            }
        }
        hash
    }

    /// How many stones `color` playing at `point` would remove from the board:
    /// `(enemy stones captured, own stones lost to suicide)`.
    pub fn removals_after(&self, point: Point, color: Color) -> (usize, usize) {
        let p = point.index();
        let own = stone_cell(color);
        let mut heads = [0u16; 4];
        let mut count = 0;
        let mut captured = 0;
        for n in self.neighbor_cells(p) {
            let cell = self.cells[n];
            if cell == EMPTY || cell == WALL || cell == own {
                continue;
            }
            let head = self.chain_head[n];
            if self.liberties[head as usize] == 1 && !heads[..count].contains(&head) {
                heads[count] = head;
                count += 1;
                captured += self.chain_len[head as usize] as usize;
            }
        }
        if captured > 0 || !self.is_suicide(point, color) {
            return (captured, 0);
        }
        let mut lost = 1;
        count = 0;
        for n in self.neighbor_cells(p) {
            if self.cells[n] == own {
                let head = self.chain_head[n];
                if !heads[..count].contains(&head) {
                    heads[count] = head;
                    count += 1;
                    lost += self.chain_len[head as usize] as usize;
                }
            }
        }
        (0, lost)
    }

    fn chain_hash(&self, head: usize) -> u64 {
        let color = if self.cells[head] == BLACK { 0 } else { 1 };
        let mut hash = 0;
        let mut stone = head;
        loop {
            hash ^= STONE_KEYS[color][stone];
            stone = self.chain_next[stone] as usize;
            if stone == head {
                return hash;
            }
        }
    }

    /// Places a stone of `color` at `point` and resolves the consequences: enemy
    /// chains left without liberties are captured, and then, if the new stone's
    /// own chain has no liberty, that chain is removed (suicide, which only the
    /// rules may allow). Sets the simple-ko point. Returns the number of enemy
    /// stones captured.
    ///
    /// This is the unchecked fast path: legality (ko, suicide under the rules)
    /// is the caller's business. `point` must be on the board and empty; in debug
    /// builds that is asserted.
    pub fn play(&mut self, point: Point, color: Color) -> u32 {
        let p = point.index();
        debug_assert!(self.size.contains(point), "play off the board");
        debug_assert_eq!(self.cells[p], EMPTY, "play on an occupied point");
        let own = stone_cell(color);
        let neighbors = self.neighbor_cells(p);

        self.ko = 0;
        self.cells[p] = own;
        self.hash ^= STONE_KEYS[color.index()][p];
        self.remove_empty(p);
        self.chain_head[p] = p as u16;
        self.chain_next[p] = p as u16;
        self.chain_len[p] = 1;

        // The new stone takes a liberty from every distinct chain next to it.
        let mut heads = [0u16; 4];
        let mut head_count = 0;
        let mut empty_neighbors = 0u16;
        let mut friend_count = 0;
        for n in neighbors {
            let cell = self.cells[n];
            if cell == EMPTY {
                empty_neighbors += 1;
            } else if cell != WALL {
                let head = self.chain_head[n];
                if !heads[..head_count].contains(&head) {
                    heads[head_count] = head;
                    head_count += 1;
                    self.liberties[head as usize] -= 1;
                    if cell == own {
                        friend_count += 1;
                    }
                }
            }
        }

        match friend_count {
            0 => self.liberties[p] = empty_neighbors,
            1 => {
                let friend = heads[..head_count]
                    .iter()
                    .copied()
                    .find(|&h| self.cells[h as usize] == own)
                    .unwrap_or(0) as usize;
                // An empty neighbour is a new liberty unless the chain already
                // touches it.
                let mut gained = 0;
                for n in neighbors {
                    if self.cells[n] == EMPTY && !self.touches_chain(n, friend as u16) {
                        gained += 1;
                    }
                }
                self.liberties[friend] += gained;
                self.link_stone(friend, p);
            }
            _ => {
                let mut base = p;
                for &head in &heads[..head_count] {
                    let head = head as usize;
                    if self.cells[head] == own
                        && (base == p || self.chain_len[head] > self.chain_len[base])
                    {
                        base = head;
                    }
                }
                self.link_stone(base, p);
                for &head in &heads[..head_count] {
                    let head = head as usize;
                    if head != base && self.cells[head] == own {
                        self.merge_chains(base, head);
                    }
                }
                self.liberties[base] = self.count_liberties(base);
            }
        }

        let enemy = stone_cell(!color);
        let mut captured = 0;
        let mut captured_at = 0;
        for &head in &heads[..head_count] {
            let head = head as usize;
            if self.cells[head] == enemy && self.liberties[head] == 0 {
                captured_at = head;
                captured += self.remove_chain(head, !color);
            }
        }
        self.captures[color] += captured;

        let head = self.chain_head[p] as usize;
        if self.liberties[head] == 0 {
            let lost = self.remove_chain(head, color);
            self.captures[!color] += lost;
        } else if captured == 1 && self.chain_len[head] == 1 && self.liberties[head] == 1 {
            self.ko = captured_at as u16;
        }
        captured
    }

    /// A pass: the board is unchanged but the ko point is cleared.
    #[inline]
    pub fn pass(&mut self) {
        self.ko = 0;
    }

    /// Puts a stone on the board as part of a setup position (handicap, SGF
    /// `AB`/`AW`): nothing may be captured and the stone's chain must keep a
    /// liberty. On error the board is unchanged.
    pub fn place_setup_stone(&mut self, point: Point, color: Color) -> Result<(), SetupError> {
        if !self.size.contains(point) {
            return Err(SetupError::OffBoard(point));
        }
        if !self.is_empty_at(point) {
            return Err(SetupError::Occupied(point));
        }
        if self.removals_after(point, color) != (0, 0) {
            return Err(SetupError::NoLiberties(point));
        }
        let ko = self.ko;
        self.play(point, color);
        self.ko = ko;
        Ok(())
    }

    /// Removes every stone from the board and resets captures and ko.
    pub fn clear(&mut self) {
        *self = Board::new(self.size);
    }

    /// A random move for a light playout: uniformly chosen among the empty points
    /// where `color` may play under [`Board::is_legal_simple`] and that are not
    /// its own eyes ([`Board::is_point_an_eye`]). `None` means pass.
    ///
    /// Candidates are drawn without replacement from the empty-point list; a
    /// rejected one is swapped to the end of the part still to draw from, so the
    /// choice is exactly uniform over the acceptable points and nothing is
    /// allocated.
    #[inline]
    pub fn random_playout_move(&mut self, color: Color, rng: &mut Rng) -> Option<Point> {
        let mut remaining = self.empty_len as usize;
        while remaining > 0 {
            let i = rng.below(remaining);
            let point = Point(self.empty[i]);
            if !self.is_point_an_eye(point, color) && self.is_legal_simple(point, color) {
                return Some(point);
            }
            remaining -= 1;
            let last = self.empty[remaining];
            self.empty[i] = last;
            self.empty[remaining] = point.0;
            self.empty_index[last as usize] = i as u16;
            self.empty_index[point.index()] = remaining as u16;
        }
        None
    }

    #[inline]
    fn touches_chain(&self, cell: usize, head: u16) -> bool {
        self.neighbor_cells(cell)
            .iter()
            .any(|&n| self.chain_head[n] == head)
    }

    /// Adds the lone stone `stone` to the chain headed by `head`.
    #[inline]
    fn link_stone(&mut self, head: usize, stone: usize) {
        if head == stone {
            return;
        }
        self.chain_head[stone] = head as u16;
        self.chain_next[stone] = self.chain_next[head];
        self.chain_next[head] = stone as u16;
        self.chain_len[head] += 1;
    }

    /// Moves every stone of chain `other` into chain `base`.
    fn merge_chains(&mut self, base: usize, other: usize) {
        let mut stone = other;
        loop {
            self.chain_head[stone] = base as u16;
            stone = self.chain_next[stone] as usize;
            if stone == other {
                break;
            }
        }
        self.chain_next.swap(base, other);
        self.chain_len[base] += self.chain_len[other];
    }

    fn count_liberties(&self, head: usize) -> u16 {
        let mut seen = CellSet::new();
        let mut count = 0;
        let mut stone = head;
        loop {
            for n in self.neighbor_cells(stone) {
                if self.cells[n] == EMPTY && seen.insert(n) {
                    count += 1;
                }
            }
            stone = self.chain_next[stone] as usize;
            if stone == head {
                return count;
            }
        }
    }

    /// Takes the chain headed by `head` (of colour `victim`) off the board and
    /// gives each neighbouring chain its new liberties. Returns the stone count.
    fn remove_chain(&mut self, head: usize, victim: Color) -> u32 {
        let keys = &STONE_KEYS[victim.index()];
        let mut removed = 0;
        let mut stone = head;
        loop {
            self.cells[stone] = EMPTY;
            self.hash ^= keys[stone];
            self.chain_head[stone] = 0;
            self.push_empty(stone);
            removed += 1;
            // The freed point is a new liberty of each distinct chain next to
            // it; stones of the victim still to be removed are skipped.
            let neighbors = self.neighbor_cells(stone);
            let mut seen = [0u16; 4];
            let mut seen_count = 0;
            for n in neighbors {
                let h = self.chain_head[n];
                if h != 0 && h as usize != head && !seen[..seen_count].contains(&h) {
                    seen[seen_count] = h;
                    seen_count += 1;
                    self.liberties[h as usize] += 1;
                }
            }
            stone = self.chain_next[stone] as usize;
            if stone == head {
                return removed;
            }
        }
    }

    #[inline]
    fn push_empty(&mut self, cell: usize) {
        let len = self.empty_len as usize;
        self.empty[len] = cell as u16;
        self.empty_index[cell] = len as u16;
        self.empty_len += 1;
    }

    #[inline]
    fn remove_empty(&mut self, cell: usize) {
        let index = self.empty_index[cell] as usize;
        let last_index = self.empty_len as usize - 1;
        let last = self.empty[last_index];
        self.empty[index] = last;
        self.empty_index[last as usize] = index as u16;
        self.empty_len -= 1;
    }

    /// The Zobrist hash recomputed from the stones alone.
    pub fn hash_from_scratch(&self) -> u64 {
        self.size
            .points()
            .filter_map(|p| self.stone(p).map(|c| STONE_KEYS[c.index()][p.index()]))
            .fold(0, |a, b| a ^ b)
    }

    /// Rebuilds every piece of incremental state from the stones alone (chains by
    /// flood fill, liberties, lengths, hash, empty list) and compares it with what
    /// the board holds. `Err` names the first difference found.
    pub fn check_consistency(&self) -> Result<(), String> {
        let size = self.size;
        for i in 0..size.cells() {
            let on_board = size.contains(Point(i as u16));
            let cell = self.cells[i];
            if on_board == (cell == WALL) || cell > WALL {
                return Err(format!("cell {i} holds {cell}, on board: {on_board}"));
            }
        }
        // Chains by flood fill.
        let mut component = vec![usize::MAX; size.cells()];
        for start in size.points() {
            let s = start.index();
            if self.cells[s] == EMPTY || component[s] != usize::MAX {
                continue;
            }
            let mut stack = vec![s];
            let mut stones = Vec::new();
            component[s] = s;
            while let Some(c) = stack.pop() {
                stones.push(c);
                for n in self.neighbor_cells(c) {
                    if self.cells[n] == self.cells[s] && component[n] == usize::MAX {
                        component[n] = s;
                        stack.push(n);
                    }
                }
            }
            let head = self.chain_head[s] as usize;
            if head == 0 || self.cells[head] != self.cells[s] {
                return Err(format!("stone {s} has head {head}"));
            }
            let mut libs = std::collections::BTreeSet::new();
            for &c in &stones {
                if self.chain_head[c] as usize != head {
                    return Err(format!(
                        "stones {s} and {c} are one chain with different heads"
                    ));
                }
                for n in self.neighbor_cells(c) {
                    if self.cells[n] == EMPTY {
                        libs.insert(n);
                    }
                }
            }
            if libs.is_empty() {
                return Err(format!("chain at {s} has no liberties"));
            }
            if self.liberties[head] as usize != libs.len() {
                return Err(format!(
                    "chain at {s}: {} liberties stored, {} counted",
                    self.liberties[head],
                    libs.len()
                ));
            }
            if self.chain_len[head] as usize != stones.len() {
                return Err(format!(
                    "chain at {s}: length {} stored, {} counted",
                    self.chain_len[head],
                    stones.len()
                ));
            }
            let cycle: Vec<Point> = self
                .chain(Point(head as u16))
                .take(stones.len() + 1)
                .collect();
            let mut cycle_cells: Vec<usize> = cycle.iter().map(|p| p.index()).collect();
            cycle_cells.sort_unstable();
            stones.sort_unstable();
            if cycle_cells != stones {
                return Err(format!("chain list at {s} does not match the flood fill"));
            }
        }
        for i in 0..size.cells() {
            if (self.cells[i] == EMPTY || self.cells[i] == WALL) && self.chain_head[i] != 0 {
                return Err(format!(
                    "non-stone cell {i} has head {}",
                    self.chain_head[i]
                ));
            }
        }
        let empties: Vec<usize> = size
            .points()
            .map(|p| p.index())
            .filter(|&i| self.cells[i] == EMPTY)
            .collect();
        if empties.len() != self.empty_len as usize {
            return Err(format!(
                "{} empty points, list holds {}",
                empties.len(),
                self.empty_len
            ));
        }
        for &e in &empties {
            let index = self.empty_index[e] as usize;
            if index >= empties.len() || self.empty[index] as usize != e {
                return Err(format!("empty point {e} missing from the empty list"));
            }
        }
        if self.hash != self.hash_from_scratch() {
            return Err(format!(
                "hash {:016x}, recomputed {:016x}",
                self.hash,
                self.hash_from_scratch()
            ));
        }
        if self.ko != 0 && self.cells[self.ko as usize] != EMPTY {
            return Err(format!("ko point {} is not empty", self.ko));
        }
        Ok(())
    }

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
                board.play(point, color);
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
            out.push('\n');
        }
        out.push_str("    ");
        for col in 0..size.width() {
            out.push_str(&format!(" {} ", crate::point::GTP_COLUMNS[col] as char));
        }
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

/// Why a setup position was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// The board size is outside 1×1 to 25×25.
    Size(crate::point::BoardSizeError),
    /// The point is not on this board.
    OffBoard(Point),
    /// Two stones were put on one point.
    Occupied(Point),
    /// The stone would capture, or be left without liberties.
    NoLiberties(Point),
    /// A diagram could not be read.
    Diagram(String),
    /// A handicap that the size or rules do not allow.
    Handicap(String),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::Size(e) => write!(f, "{e}"),
            SetupError::OffBoard(p) => write!(f, "setup point {} is off the board", p.index()),
            SetupError::Occupied(p) => write!(f, "setup point {} is already occupied", p.index()),
            SetupError::NoLiberties(p) => write!(
                f,
                "setup stone at cell {} leaves a chain without liberties",
                p.index()
            ),
            SetupError::Diagram(reason) => write!(f, "bad diagram: {reason}"),
            SetupError::Handicap(reason) => write!(f, "{reason}"),
        }
    }
}

impl std::error::Error for SetupError {}
