//! Changing the board: a stone played (captures, merging chains, suicide,
//! the simple-ko point), a pass, setup stones, and the empty-point list.

use super::*;

impl Board {
    /// Places a stone of `color` at `point` and resolves the consequences: enemy
    /// chains left without liberties are captured, and then, if the new stone's
    /// own chain has no liberty, that chain is removed (suicide, which only the
    /// rules may allow). Sets the simple-ko point. Returns the number of enemy
    /// stones captured.
    ///
    /// This is the unchecked fast path, hence the name: legality (ko, suicide
    /// under the rules) is the caller's business, and [`crate::Game::play`] is
    /// the checked way to move. `point` must be on the board and empty; in
    /// debug builds that is asserted.
    pub fn play_unchecked(&mut self, point: Point, color: Color) -> u32 {
        let p = point.index();
        debug_assert!(self.size.contains(point), "play off the board");
        debug_assert_eq!(self.cells[p], EMPTY, "play on an occupied point");
        let own = stone_cell(color);
        let neighbors = self.neighbor_cells(p);
        let packed = self.neighbor_counts[p];

        self.ko = 0;
        self.ko_barred = 0;
        self.set_cell(p, EMPTY, own);
        self.hash ^= STONE_KEYS[color.index()][p];
        self.remove_empty(p);
        self.chain_head[p] = p as u16;
        self.chain_next[p] = p as u16;
        self.chain_len[p] = 1;
        let empty_neighbors = (packed & EMPTY_NEIGHBORS_MASK) >> 8;

        // A stone with only empty points and walls around it touches no chain
        // (and has a liberty, except on a 1×1 board, left to the general path).
        // Walls count as both black and white neighbours.
        let walls = (packed & 0xF) + ((packed >> 4) & 0xF) + empty_neighbors - 4;
        if empty_neighbors + walls == 4 && empty_neighbors > 0 {
            self.liberties[p] = empty_neighbors;
            return 0;
        }

        // The new stone takes a liberty from every distinct chain next to it.
        let (h, distinct) = self.distinct_heads(neighbors);
        let (friend, friend_count) = self.take_neighbor_liberties(neighbors, h, distinct, own);

        if friend_count == 0 {
            self.liberties[p] = empty_neighbors;
        } else if friend_count == 1 {
            self.join_single_friend(p, neighbors, h, friend);
        } else {
            self.join_friends(p, neighbors, h, friend);
        }

        self.resolve_captures(p, color, h, distinct)
    }

    /// Takes the new stone's liberty from every distinct chain next to it and
    /// says which of those neighbours are friendly chain heads, and how many.
    /// Computed without branches: a head of 0 (empty or wall) or one seen
    /// before subtracts nothing.
    #[inline(always)]
    fn take_neighbor_liberties(
        &mut self,
        neighbors: [usize; 4],
        h: [u16; 4],
        distinct: [bool; 4],
        own: u8,
    ) -> ([bool; 4], usize) {
        let mut friend = [false; 4];
        let mut friend_count = 0;
        for i in 0..4 {
            let head = h[i] as usize;
            self.liberties[head] -= distinct[i] as u16;
            friend[i] = distinct[i] & (self.cells[neighbors[i]] == own);
            friend_count += friend[i] as usize;
        }
        (friend, friend_count)
    }

    /// Adds the new stone at `p` to its one friendly neighbouring chain: an
    /// empty neighbour is a new liberty unless the chain already touches it.
    #[inline(always)]
    fn join_single_friend(
        &mut self,
        p: usize,
        neighbors: [usize; 4],
        h: [u16; 4],
        friend: [bool; 4],
    ) {
        let base = (0..4).fold(0, |b, i| b | (h[i] & (friend[i] as u16).wrapping_neg()));
        let mut gained = 0;
        for n in neighbors {
            gained += ((self.cells[n] == EMPTY) & !self.touches_chain(n, base)) as u16;
        }
        self.liberties[base as usize] += gained;
        self.link_stone(base as usize, p);
    }

    /// Joins the new stone at `p` and its several friendly neighbouring chains
    /// into the longest of them, counting as new liberties the empty points
    /// next to the joining stones that the longest chain does not already
    /// touch.
    #[inline(always)]
    fn join_friends(&mut self, p: usize, neighbors: [usize; 4], h: [u16; 4], friend: [bool; 4]) {
        let mut base = 0usize;
        for i in 0..4 {
            let head = h[i] as usize;
            if friend[i] && (base == 0 || self.chain_len[head] > self.chain_len[base]) {
                base = head;
            }
        }
        let mut counted = CellSet::new();
        let mut gained = self.count_new_liberties(neighbors, base, &mut counted);
        for i in 0..4 {
            let head = h[i] as usize;
            if !friend[i] || head == base {
                continue;
            }
            let mut stone = head;
            loop {
                gained += self.count_new_liberties(self.neighbor_cells(stone), base, &mut counted);
                stone = self.chain_next[stone] as usize;
                if stone == head {
                    break;
                }
            }
        }
        for i in 0..4 {
            let head = h[i] as usize;
            if friend[i] && head != base {
                self.merge_chains(base, head);
            }
        }
        self.liberties[base] += gained;
        self.link_stone(base, p);
    }

    /// How many of `cells` are empty points that the chain headed by `base`
    /// does not touch and that `counted` has not seen yet; marks them seen.
    #[inline(always)]
    fn count_new_liberties(&self, cells: [usize; 4], base: usize, counted: &mut CellSet) -> u16 {
        let mut gained = 0;
        for n in cells {
            if self.cells[n] == EMPTY && !self.touches_chain(n, base as u16) && counted.insert(n) {
                gained += 1;
            }
        }
        gained
    }

    /// After the stone at `p` has joined its chain: removes the enemy chains
    /// next to it that are left without liberties, then the stone's own chain
    /// if it has none (suicide), and sets the simple-ko point. Returns the
    /// number of enemy stones captured.
    #[inline(always)]
    fn resolve_captures(
        &mut self,
        p: usize,
        color: Color,
        h: [u16; 4],
        distinct: [bool; 4],
    ) -> u32 {
        let enemy = stone_cell(!color);
        let mut captured = 0;
        let mut captured_at = 0;
        let mut any_capture = false;
        for i in 0..4 {
            any_capture |= distinct[i] & (self.liberties[h[i] as usize] == 0);
        }
        if any_capture {
            for i in 0..4 {
                let head = h[i] as usize;
                if distinct[i] && self.liberties[head] == 0 && self.cells[head] == enemy {
                    captured_at = head;
                    captured += self.remove_chain(head, !color);
                }
            }
        }
        self.captures[color] += captured;

        let head = self.chain_head[p] as usize;
        if self.liberties[head] == 0 {
            let lost = self.remove_chain(head, color);
            self.captures[!color] += lost;
        } else if captured == 1 && self.chain_len[head] == 1 && self.liberties[head] == 1 {
            self.ko = captured_at as u16;
            self.ko_barred = stone_cell(!color);
        }
        captured
    }

    /// A pass: the board is unchanged but the ko point is cleared.
    #[inline]
    pub fn pass(&mut self) {
        self.ko = 0;
        self.ko_barred = 0;
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
        if self.removals_after(point, color) != Removals::NONE {
            return Err(SetupError::NoLiberties(point));
        }
        let (ko, ko_barred) = (self.ko, self.ko_barred);
        self.play_unchecked(point, color);
        self.ko = ko;
        self.ko_barred = ko_barred;
        Ok(())
    }

    /// Removes every stone from the board and resets captures and ko.
    pub fn clear(&mut self) {
        *self = Board::new(self.size);
    }

    /// The chain heads at four cells, and which of them are stones whose chain
    /// did not appear earlier in the list. Without branches: an empty or wall
    /// cell has head 0.
    #[inline(always)]
    pub(super) fn distinct_heads(&self, cells: [usize; 4]) -> ([u16; 4], [bool; 4]) {
        let h = [
            self.chain_head[cells[0]],
            self.chain_head[cells[1]],
            self.chain_head[cells[2]],
            self.chain_head[cells[3]],
        ];
        let distinct = [
            h[0] != 0,
            (h[1] != 0) & (h[1] != h[0]),
            (h[2] != 0) & (h[2] != h[0]) & (h[2] != h[1]),
            (h[3] != 0) & (h[3] != h[0]) & (h[3] != h[1]) & (h[3] != h[2]),
        ];
        (h, distinct)
    }

    #[inline]
    pub(super) fn touches_chain(&self, cell: usize, head: u16) -> bool {
        let [a, b, c, d] = self.neighbor_cells(cell);
        (self.chain_head[a] == head)
            | (self.chain_head[b] == head)
            | (self.chain_head[c] == head)
            | (self.chain_head[d] == head)
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
        let next = self.chain_next[base];
        self.chain_next[base] = self.chain_next[other];
        self.chain_next[other] = next;
        self.chain_len[base] += self.chain_len[other];
    }

    /// Takes the chain headed by `head` (of colour `victim`) off the board and
    /// gives each neighbouring chain its new liberties. Returns the stone count.
    fn remove_chain(&mut self, head: usize, victim: Color) -> u32 {
        let keys = &STONE_KEYS[victim.index()];
        let mut removed = 0;
        let mut stone = head;
        loop {
            self.set_cell(stone, stone_cell(victim), EMPTY);
            self.hash ^= keys[stone];
            self.chain_head[stone] = 0;
            self.push_empty(stone);
            removed += 1;
            // The freed point is a new liberty of each distinct chain next to
            // it; stones of the victim still to be removed are skipped.
            let (heads, distinct) = self.distinct_heads(self.neighbor_cells(stone));
            for i in 0..4 {
                let fresh = distinct[i] & (heads[i] as usize != head);
                self.liberties[heads[i] as usize] += fresh as u16;
            }
            stone = self.chain_next[stone] as usize;
            if stone == head {
                return removed;
            }
        }
    }

    #[inline]
    pub(super) fn push_empty(&mut self, cell: usize) {
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
}
