//! What a move would do, asked before it is made: suicide, legality under
//! the simple rules and under NoGo, captures, eyes, the hash after it and
//! the stones it would take off ([`Removals`]).

use super::*;

impl Board {
    /// Whether `color` playing at empty `point` would leave its own chain without
    /// liberties (capturing nothing). The point must be on the board and empty.
    #[inline]
    pub fn is_suicide(&self, point: Point, color: Color) -> bool {
        if self.neighbor_counts[point.index()] & EMPTY_NEIGHBORS_MASK != 0 {
            return false;
        }
        // No empty neighbour: the move lives only if a friendly chain keeps a
        // second liberty or an enemy chain loses its last one. Evaluated
        // without branches; walls match neither colour.
        let own = stone_cell(color);
        let enemy = stone_cell(!color);
        let mut lives = false;
        for n in self.neighbor_cells(point.index()) {
            let cell = self.cells[n];
            let libs = self.liberties[self.chain_head[n] as usize];
            lives |= ((cell == own) & (libs > 1)) | ((cell == enemy) & (libs == 1));
        }
        !lives
    }

    /// Legality under simple ko with suicide forbidden, the rules of light
    /// playouts: `point` is on the board, empty, not the ko point, and not suicide.
    #[inline]
    pub fn is_legal_simple(&self, point: Point, color: Color) -> bool {
        let p = point.index();
        self.cells[p] == EMPTY && !self.is_ko_retake(point, color) && !self.is_suicide(point, color)
    }

    /// Legality under NoGo (see [`crate::Variant::NoGo`]): `point` is on the
    /// board and empty, the stone captures nothing (no neighbouring enemy
    /// chain is down to its last liberty, which would be `point`), and it is
    /// not suicide (it has an empty neighbour, or joins a friendly chain that
    /// keeps another liberty). The ko point needs no test: retaking a ko
    /// captures.
    ///
    /// Reads only the cell, the packed neighbour counts and the liberty counts
    /// at the neighbours' chain heads, without branches in the loop and
    /// without allocating: this is the check of NoGo playouts. `point` must be
    /// a point of this board's size; a wall cell is simply not legal.
    #[inline]
    pub fn is_legal_nogo(&self, point: Point, color: Color) -> bool {
        let p = point.index();
        // Only on-board points are EMPTY, so this test also keeps the
        // neighbour arithmetic below away from the ends of the arrays.
        if self.cells[p] != EMPTY {
            return false;
        }
        let own = stone_cell(color);
        let enemy = stone_cell(!color);
        let mut captures = false;
        let mut friend_keeps_liberty = false;
        for n in self.neighbor_cells(p) {
            let cell = self.cells[n];
            let libs = self.liberties[self.chain_head[n] as usize];
            captures |= (cell == enemy) & (libs == 1);
            friend_keeps_liberty |= (cell == own) & (libs > 1);
        }
        let has_empty_neighbor = self.neighbor_counts[p] & EMPTY_NEIGHBORS_MASK != 0;
        !captures & (has_empty_neighbor | friend_keeps_liberty)
    }

    /// Whether `color` playing at empty `point` would capture at least one
    /// enemy chain. The point must be on the board and empty.
    #[inline]
    pub fn is_capture(&self, point: Point, color: Color) -> bool {
        let enemy = stone_cell(!color);
        self.neighbor_cells(point.index())
            .into_iter()
            .any(|n| self.cells[n] == enemy && self.liberties[self.chain_head[n] as usize] == 1)
    }

    /// The book's eye test: `point` is empty, all its on-board neighbours are
    /// stones of `color`, and of its diagonal points either at least three of
    /// four are `color` (in the middle of the board) or all on-board ones are
    /// (on the edge and in the corner).
    #[inline]
    pub fn is_point_an_eye(&self, point: Point, color: Color) -> bool {
        let p = point.index();
        self.cells[p] == EMPTY
            && own_neighbors(self.neighbor_counts[p], color) == 4
            && self.eye_diagonals(p, color)
    }

    /// Whether empty `point` is a real eye of `color` by the diagonal rule
    /// that Pachi and Fuego use: every on-board neighbour is a stone of
    /// `color`, and the eye is not false, that is, its diagonals hold fewer
    /// than two enemy stones in the middle of the board and none on the edge
    /// or in a corner. Further, no chain around it may be in atari: the
    /// point is then that chain's last liberty, where the enemy captures.
    ///
    /// Unlike the book's test ([`Board::is_point_an_eye`]) an empty diagonal
    /// does not count against the eye, so two eyes that touch diagonally are
    /// both eyes: under the book's test neither is, and a playout that obeys
    /// it fills one of them and kills a living group.
    #[inline]
    pub fn is_real_eye(&self, point: Point, color: Color) -> bool {
        self.is_eye(point, color, EyeTest::Real)
    }

    /// Whether `point` is `color`'s own eye under `test`.
    #[inline]
    pub fn is_eye(&self, point: Point, color: Color, test: EyeTest) -> bool {
        let p = point.index();
        self.cells[p] == EMPTY
            && own_neighbors(self.neighbor_counts[p], color) == 4
            && self.eye_diagonals_by(p, color, test)
    }

    /// The diagonal half of [`Board::is_real_eye`], and its test that no
    /// chain around the point is in atari.
    #[inline]
    fn real_eye_diagonals(&self, p: usize, color: Color) -> bool {
        // A chain around it in atari has the point as its last liberty:
        // the enemy captures there, so it is no eye, and filling it may be
        // the move that saves the chain.
        let own = stone_cell(color);
        for n in self.neighbor_cells(p) {
            if self.cells[n] == own && self.liberties[self.chain_head[n] as usize] == 1 {
                return false;
            }
        }
        let enemy = stone_cell(!color);
        let mut enemies = 0;
        let mut off_board = 0;
        for d in self.diagonal_cells(p) {
            let cell = self.cells[d];
            off_board |= (cell == WALL) as u8;
            enemies += (cell == enemy) as u8;
        }
        // An edge or a corner counts as one enemy diagonal.
        enemies + off_board < 2
    }

    /// The diagonal half of the eye test under `test`.
    #[inline]
    pub(crate) fn eye_diagonals_by(&self, p: usize, color: Color, test: EyeTest) -> bool {
        match test {
            EyeTest::Book => self.eye_diagonals(p, color),
            EyeTest::Real => self.real_eye_diagonals(p, color),
        }
    }

    /// The diagonal half of the eye test.
    #[inline]
    fn eye_diagonals(&self, p: usize, color: Color) -> bool {
        let own = stone_cell(color);
        let mut friendly = 0;
        let mut off_board = 0;
        for d in self.diagonal_cells(p) {
            let cell = self.cells[d];
            off_board += (cell == WALL) as u8;
            friendly += (cell == own) as u8;
        }
        // Branch-free form of: on the edge all on-board diagonals must be
        // friendly, in the middle three of four.
        ((off_board > 0) & (off_board + friendly == 4)) | ((off_board == 0) & (friendly >= 3))
    }

    /// The chains that `color` playing at empty `point` would take off the
    /// board: the enemy chains it captures, or, when it captures nothing and is
    /// suicide, its own chains next to it (the new stone goes with them).
    /// Returns the heads, how many there are, and whether it is a suicide.
    fn chains_removed_by(&self, point: Point, color: Color) -> ([u16; 4], usize, bool) {
        let p = point.index();
        let (h, distinct) = self.distinct_heads(self.neighbor_cells(p));
        let mut heads = [0u16; 4];
        let mut count = 0;
        let enemy = stone_cell(!color);
        for i in 0..4 {
            let head = h[i] as usize;
            if distinct[i] && self.cells[head] == enemy && self.liberties[head] == 1 {
                heads[count] = h[i];
                count += 1;
            }
        }
        if count > 0 || !self.is_suicide(point, color) {
            return (heads, count, false);
        }
        let own = stone_cell(color);
        for i in 0..4 {
            if distinct[i] && self.cells[h[i] as usize] == own {
                heads[count] = h[i];
                count += 1;
            }
        }
        (heads, count, true)
    }

    /// The hash the board would have after `color` plays at empty `point`,
    /// captures and suicide included, without changing the board.
    pub fn hash_after(&self, point: Point, color: Color) -> u64 {
        let (heads, count, suicide) = self.chains_removed_by(point, color);
        let mut hash = self.hash;
        if !suicide {
            hash ^= STONE_KEYS[color.index()][point.index()];
        }
        for &head in &heads[..count] {
            hash ^= self.chain_hash(head as usize);
        }
        hash
    }

    /// How many stones `color` playing at `point` would remove from the board:
    /// the enemy stones it captures, or the own stones it loses to suicide.
    pub fn removals_after(&self, point: Point, color: Color) -> Removals {
        let (heads, count, suicide) = self.chains_removed_by(point, color);
        let stones: usize = heads[..count]
            .iter()
            .map(|&head| self.chain_len[head as usize] as usize)
            .sum();
        if suicide {
            Removals {
                captured: 0,
                lost: stones + 1,
            }
        } else {
            Removals {
                captured: stones,
                lost: 0,
            }
        }
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
}

/// The stones one move would take off the board ([`Board::removals_after`]).
/// At most one of the two counts is nonzero: a move that captures is never
/// suicide.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Removals {
    /// Enemy stones captured.
    pub captured: usize,
    /// Own stones lost to suicide, the new stone included.
    pub lost: usize,
}

impl Removals {
    /// A move that removes nothing.
    pub const NONE: Removals = Removals {
        captured: 0,
        lost: 0,
    };
}
