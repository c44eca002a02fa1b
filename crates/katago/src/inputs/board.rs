//! A board laid out and updated the way KataGo's `Board` is, so that the
//! ladder search and the pass-alive computation see the same chain lists,
//! liberty orders and chain heads as KataGo does.
//!
//! Points are "locs": `(x + 1) + (y + 1) * (x_size + 1)`, y = 0 the top row,
//! with a ring of wall cells around the board. The order in which stones of
//! a chain are linked, and how merges, captures and undos relink them,
//! follows KataGo, because the ladder search visits liberties in that order
//! and its node budget makes the answer depend on it.

/// Cell contents.
pub(crate) const EMPTY: u8 = 0;
pub(crate) const BLACK: u8 = 1;
pub(crate) const WHITE: u8 = 2;
pub(crate) const WALL: u8 = 3;

/// No location.
pub(crate) const NULL_LOC: usize = 0;
/// The pass "location".
pub(crate) const PASS_LOC: usize = 1;

/// The other player.
#[inline]
pub(crate) fn opp(pla: u8) -> u8 {
    3 - pla
}

/// A 64-bit key for a stone of `pla` at `loc` (SplitMix64 of the pair).
#[inline]
pub(crate) fn zobrist(loc: usize, pla: u8) -> u64 {
    let z = (loc as u64)
        .wrapping_mul(4)
        .wrapping_add(pla as u64)
        .wrapping_add(0x5851_f42d_4c95_7f2d)
        .wrapping_mul(tengen_core::GOLDEN_GAMMA);
    tengen_core::mix64(z)
}

/// The key of the player to move, for situational repetition.
#[inline]
pub(crate) fn player_hash(pla: u8) -> u64 {
    zobrist(usize::MAX / 2, pla)
}

/// What is needed to take a move back.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct MoveRecord {
    loc: usize,
    pla: u8,
    ko_loc: usize,
    /// Bits 0..3: directions captured; 0x10: the move was a suicide.
    cap_dirs: u8,
}

/// The board.
#[derive(Clone, Debug)]
pub(crate) struct KBoard {
    pub x_size: usize,
    pub y_size: usize,
    pub colors: Vec<u8>,
    pub chain_head: Vec<usize>,
    next_in_chain: Vec<usize>,
    /// Valid at chain heads.
    num_libs: Vec<i32>,
    /// Valid at chain heads.
    num_locs: Vec<i32>,
    pub ko_loc: usize,
    pub pos_hash: u64,
    /// Up, left, right, down.
    adj: [isize; 4],
}

impl KBoard {
    /// An empty board.
    pub fn new(x_size: usize, y_size: usize) -> KBoard {
        let arr = (x_size + 1) * (y_size + 2) + 1;
        let mut colors = vec![WALL; arr];
        for y in 0..y_size {
            for x in 0..x_size {
                colors[(x + 1) + (y + 1) * (x_size + 1)] = EMPTY;
            }
        }
        let s = (x_size + 1) as isize;
        KBoard {
            x_size,
            y_size,
            colors,
            chain_head: vec![0; arr],
            next_in_chain: vec![0; arr],
            num_libs: vec![0; arr],
            num_locs: vec![0; arr],
            ko_loc: NULL_LOC,
            pos_hash: 0,
            adj: [-s, -1, 1, s],
        }
    }

    /// The loc of column `x`, row `y` (0 at the top).
    #[inline]
    pub fn loc(&self, x: usize, y: usize) -> usize {
        (x + 1) + (y + 1) * (self.x_size + 1)
    }

    /// Column and row (0 at the top) of a board loc.
    #[inline]
    pub fn xy(&self, loc: usize) -> (usize, usize) {
        let s = self.x_size + 1;
        (loc % s - 1, loc / s - 1)
    }

    #[inline]
    pub fn adj(&self, loc: usize, i: usize) -> usize {
        (loc as isize + self.adj[i]) as usize
    }

    #[inline]
    pub fn libs(&self, loc: usize) -> i32 {
        self.num_libs[self.chain_head[loc]]
    }

    #[inline]
    pub fn chain_size(&self, loc: usize) -> i32 {
        self.num_locs[self.chain_head[loc]]
    }

    #[inline]
    pub fn next(&self, loc: usize) -> usize {
        self.next_in_chain[loc]
    }

    pub fn is_suicide(&self, loc: usize, pla: u8) -> bool {
        if loc == PASS_LOC {
            return false;
        }
        let o = opp(pla);
        for i in 0..4 {
            let a = self.adj(loc, i);
            let c = self.colors[a];
            if c == EMPTY {
                return false;
            } else if c == pla {
                if self.libs(a) > 1 {
                    return false;
                }
            } else if c == o && self.libs(a) == 1 {
                return false;
            }
        }
        true
    }

    pub fn is_illegal_suicide(&self, loc: usize, pla: u8, multi_stone_suicide_legal: bool) -> bool {
        let o = opp(pla);
        for i in 0..4 {
            let a = self.adj(loc, i);
            let c = self.colors[a];
            if c == EMPTY {
                return false;
            } else if c == pla {
                if multi_stone_suicide_legal || self.libs(a) > 1 {
                    return false;
                }
            } else if c == o && self.libs(a) == 1 {
                return false;
            }
        }
        true
    }

    pub fn is_legal(&self, loc: usize, pla: u8, multi_stone_suicide_legal: bool) -> bool {
        loc == PASS_LOC
            || (loc < self.colors.len()
                && self.colors[loc] == EMPTY
                && loc != self.ko_loc
                && !self.is_illegal_suicide(loc, pla, multi_stone_suicide_legal))
    }

    pub fn num_immediate_libs(&self, loc: usize) -> i32 {
        (0..4)
            .filter(|&i| self.colors[self.adj(loc, i)] == EMPTY)
            .count() as i32
    }

    /// Whether the empty `loc` touches a stone of the chain headed by `head`.
    fn is_liberty_of(&self, loc: usize, head: usize) -> bool {
        (0..4).any(|i| {
            let a = self.adj(loc, i);
            self.colors[a] == self.colors[head] && self.chain_head[a] == head
        })
    }

    pub fn is_adjacent_to_pla(&self, loc: usize, pla: u8) -> bool {
        (0..4).any(|i| self.colors[self.adj(loc, i)] == pla)
    }

    pub fn is_adjacent_to_pla_head(&self, pla: u8, loc: usize, head: usize) -> bool {
        (0..4).any(|i| {
            let a = self.adj(loc, i);
            self.colors[a] == pla && self.chain_head[a] == head
        })
    }

    /// Adds `delta` liberties to each distinct `pla` chain next to `loc`.
    fn change_surrounding_liberties(&mut self, loc: usize, pla: u8, delta: i32) {
        let mut seen = [usize::MAX; 4];
        for i in 0..4 {
            let a = self.adj(loc, i);
            if self.colors[a] == pla {
                let h = self.chain_head[a];
                if !seen[..i].contains(&h) {
                    self.num_libs[h] += delta;
                }
                seen[i] = h;
            }
        }
    }

    fn merge_chains(&mut self, loc1: usize, loc2: usize) {
        let mut head1 = self.chain_head[loc1];
        let mut head2 = self.chain_head[loc2];
        if self.num_locs[head1] < self.num_locs[head2] {
            std::mem::swap(&mut head1, &mut head2);
        }
        self.num_locs[head1] += self.num_locs[head2];
        let mut new_libs = 0;
        let mut loc = head2;
        loop {
            for i in 0..4 {
                let a = self.adj(loc, i);
                if self.colors[a] == EMPTY && !self.is_liberty_of(a, head1) {
                    new_libs += 1;
                }
            }
            self.chain_head[loc] = head1;
            if self.next_in_chain[loc] != head2 {
                loc = self.next_in_chain[loc];
            } else {
                break;
            }
        }
        self.num_libs[head1] += new_libs;
        // Splice the second list in right after head1.
        self.next_in_chain[loc] = self.next_in_chain[head1];
        self.next_in_chain[head1] = head2;
    }

    fn remove_chain(&mut self, loc: usize) -> i32 {
        let mut removed = 0;
        let o = opp(self.colors[loc]);
        let mut cur = loc;
        loop {
            self.pos_hash ^= zobrist(cur, self.colors[cur]);
            self.colors[cur] = EMPTY;
            removed += 1;
            self.change_surrounding_liberties(cur, o, 1);
            cur = self.next_in_chain[cur];
            if cur == loc {
                break;
            }
        }
        removed
    }

    /// Fills the empty region at `loc` with a chain of `pla` headed by `loc`.
    fn add_chain(&mut self, loc: usize, pla: u8) {
        self.num_libs[loc] = 0;
        self.num_locs[loc] = 0;
        let front = self.add_chain_helper(loc, loc, loc, pla);
        self.next_in_chain[loc] = front;
    }

    fn add_chain_helper(&mut self, head: usize, tail: usize, loc: usize, pla: u8) -> usize {
        self.colors[loc] = pla;
        self.pos_hash ^= zobrist(loc, pla);
        self.chain_head[loc] = head;
        self.num_locs[head] += 1;
        self.next_in_chain[loc] = tail;
        self.change_surrounding_liberties(loc, opp(pla), -1);
        let mut next_tail = loc;
        for i in 0..4 {
            let a = self.adj(loc, i);
            if self.colors[a] == EMPTY {
                next_tail = self.add_chain_helper(head, next_tail, a, pla);
            }
        }
        next_tail
    }

    fn rebuild_chain(&mut self, loc: usize, pla: u8) {
        self.num_libs[loc] = 0;
        self.num_locs[loc] = 0;
        let front = self.rebuild_chain_helper(loc, loc, loc, pla);
        self.next_in_chain[loc] = front;
    }

    fn rebuild_chain_helper(&mut self, head: usize, tail: usize, loc: usize, pla: u8) -> usize {
        let mut add = 0;
        for i in 0..4 {
            let a = self.adj(loc, i);
            if self.colors[a] == EMPTY && !self.is_liberty_of(a, head) {
                add += 1;
            }
        }
        self.num_libs[head] += add;
        self.chain_head[loc] = head;
        self.num_locs[head] += 1;
        self.next_in_chain[loc] = tail;
        let mut next_tail = loc;
        for i in 0..4 {
            let a = self.adj(loc, i);
            if self.colors[a] == pla && self.chain_head[a] != head {
                next_tail = self.rebuild_chain_helper(head, next_tail, a, pla);
            }
        }
        next_tail
    }

    /// Plays a move (or a pass) without checking legality; suicide removes
    /// the chain.
    pub fn play(&mut self, loc: usize, pla: u8) {
        if loc == PASS_LOC {
            self.ko_loc = NULL_LOC;
            return;
        }
        let o = opp(pla);
        self.colors[loc] = pla;
        self.pos_hash ^= zobrist(loc, pla);
        self.num_locs[loc] = 1;
        self.num_libs[loc] = self.num_immediate_libs(loc);
        self.chain_head[loc] = loc;
        self.next_in_chain[loc] = loc;

        let mut captured = 0;
        let mut possible_ko = NULL_LOC;
        let mut opp_heads = [0usize; 4];
        let mut n_opp = 0;
        for i in 0..4 {
            let a = self.adj(loc, i);
            if self.colors[a] == pla {
                if self.chain_head[a] == self.chain_head[loc] {
                    continue;
                }
                let h = self.chain_head[a];
                self.num_libs[h] -= 1;
                self.merge_chains(a, loc);
            } else if self.colors[a] == o {
                let h = self.chain_head[a];
                if opp_heads[..n_opp].contains(&h) {
                    continue;
                }
                self.num_libs[h] -= 1;
                opp_heads[n_opp] = h;
                n_opp += 1;
                if self.libs(a) == 0 {
                    captured += self.remove_chain(a);
                    possible_ko = a;
                }
            }
        }
        let h = self.chain_head[loc];
        self.ko_loc = if captured == 1 && self.num_locs[h] == 1 && self.num_libs[h] == 1 {
            possible_ko
        } else {
            NULL_LOC
        };
        if self.libs(loc) == 0 {
            self.remove_chain(loc);
        }
    }

    /// Plays a move and returns what [`KBoard::undo`] needs.
    pub fn play_recorded(&mut self, loc: usize, pla: u8) -> MoveRecord {
        let mut record = MoveRecord {
            loc,
            pla,
            ko_loc: self.ko_loc,
            cap_dirs: 0,
        };
        if loc != PASS_LOC {
            let o = opp(pla);
            for i in 0..4 {
                let a = self.adj(loc, i);
                if self.colors[a] == o && self.libs(a) == 1 {
                    record.cap_dirs |= 1 << i;
                }
            }
            if record.cap_dirs == 0 && self.is_suicide(loc, pla) {
                record.cap_dirs = 0x10;
            }
        }
        self.play(loc, pla);
        record
    }

    /// Takes back the last recorded move. The chain lists are relinked the
    /// way KataGo relinks them, which is not always how they were.
    pub fn undo(&mut self, record: MoveRecord) {
        self.ko_loc = record.ko_loc;
        let loc = record.loc;
        if loc == PASS_LOC {
            return;
        }
        let o = opp(record.pla);
        for i in 0..4 {
            let a = self.adj(loc, i);
            if record.cap_dirs & (1 << i) != 0 && self.colors[a] == EMPTY {
                self.add_chain(a, o);
            }
        }
        if record.cap_dirs == 0x10 {
            self.add_chain(loc, record.pla);
        }
        self.pos_hash ^= zobrist(loc, self.colors[loc]);
        self.colors[loc] = EMPTY;
        self.change_surrounding_liberties(loc, o, 1);

        if self.num_locs[self.chain_head[loc]] > 1 {
            let neighbours = (0..4)
                .filter(|&i| self.colors[self.adj(loc, i)] == record.pla)
                .count();
            if neighbours <= 1 {
                let mut head = self.chain_head[loc];
                if head == loc {
                    let new_head = self.next_in_chain[loc];
                    let mut cur = loc;
                    loop {
                        self.chain_head[cur] = new_head;
                        cur = self.next_in_chain[cur];
                        if cur == loc {
                            break;
                        }
                    }
                    self.num_libs[new_head] = self.num_libs[head];
                    self.num_locs[new_head] = self.num_locs[head];
                    head = new_head;
                }
                let mut cur = head;
                while self.next_in_chain[cur] != loc {
                    cur = self.next_in_chain[cur];
                }
                self.next_in_chain[cur] = self.next_in_chain[loc];
                let mut delta = 1;
                for i in 0..4 {
                    let a = self.adj(loc, i);
                    if self.colors[a] == EMPTY && !self.is_liberty_of(a, head) {
                        delta -= 1;
                    }
                }
                self.num_libs[head] += delta;
                self.num_locs[head] -= 1;
            } else {
                let mut cur = loc;
                loop {
                    self.chain_head[cur] = NULL_LOC;
                    cur = self.next_in_chain[cur];
                    if cur == loc {
                        break;
                    }
                }
                for i in 0..4 {
                    let a = self.adj(loc, i);
                    if self.colors[a] == record.pla && self.chain_head[a] == NULL_LOC {
                        self.rebuild_chain(a, record.pla);
                    }
                }
            }
        }
    }

    /// The stone hash after `pla` plays at `loc` (captures and suicide
    /// included).
    pub fn pos_hash_after_move(&self, loc: usize, pla: u8) -> u64 {
        if loc == PASS_LOC {
            return self.pos_hash;
        }
        let mut hash = self.pos_hash ^ zobrist(loc, pla);
        let o = opp(pla);
        let mut suicide = true;
        let mut heads = [0usize; 4];
        let mut n = 0;
        for i in 0..4 {
            let a = self.adj(loc, i);
            let c = self.colors[a];
            if c == EMPTY || (c == pla && self.libs(a) > 1) {
                suicide = false;
            } else if c == o && self.libs(a) == 1 {
                let h = self.chain_head[a];
                if !heads[..n].contains(&h) {
                    heads[n] = h;
                    n += 1;
                    suicide = false;
                    let mut cur = a;
                    loop {
                        hash ^= zobrist(cur, o);
                        cur = self.next_in_chain[cur];
                        if cur == a {
                            break;
                        }
                    }
                }
            }
        }
        if suicide {
            for i in 0..4 {
                let a = self.adj(loc, i);
                if self.colors[a] == pla && self.libs(a) == 1 {
                    let h = self.chain_head[a];
                    if !heads[..n].contains(&h) {
                        heads[n] = h;
                        n += 1;
                        let mut cur = a;
                        loop {
                            hash ^= zobrist(cur, pla);
                            cur = self.next_in_chain[cur];
                            if cur == a {
                                break;
                            }
                        }
                    }
                }
            }
            hash ^= zobrist(loc, pla);
        }
        hash
    }

    /// Whether the empty `loc` is surrounded by `pla`'s opponent (and walls)
    /// with exactly one adjacent opposing chain in atari, of one stone.
    pub fn would_be_ko_capture(&self, loc: usize, pla: u8) -> bool {
        if self.colors[loc] != EMPTY {
            return false;
        }
        let o = opp(pla);
        let mut capturable = NULL_LOC;
        for i in 0..4 {
            let a = self.adj(loc, i);
            let c = self.colors[a];
            if c != WALL && c != o {
                return false;
            }
            if c == o && self.libs(a) == 1 {
                if capturable != NULL_LOC {
                    return false;
                }
                capturable = a;
            }
        }
        capturable != NULL_LOC && self.chain_size(capturable) == 1
    }

    /// Liberties a stone of `pla` at `loc` would have, capped at `max`.
    pub fn num_libs_after_play(&self, loc: usize, pla: u8, max: usize) -> usize {
        let o = opp(pla);
        let mut libs: Vec<usize> = Vec::with_capacity(16);
        let mut cap_heads = [0usize; 4];
        let mut n_cap = 0;
        for i in 0..4 {
            let a = self.adj(loc, i);
            if self.colors[a] == EMPTY {
                libs.push(a);
                if libs.len() >= max {
                    return max;
                }
            } else if self.colors[a] == o && self.libs(a) == 1 {
                libs.push(a);
                if libs.len() >= max {
                    return max;
                }
                let h = self.chain_head[a];
                if !cap_heads[..n_cap].contains(&h) {
                    cap_heads[n_cap] = h;
                    n_cap += 1;
                }
            }
        }
        let would_be_empty = |lc: usize| {
            self.colors[lc] == EMPTY
                || (self.colors[lc] == o && cap_heads[..n_cap].contains(&self.chain_head[lc]))
        };
        let mut conn = [0usize; 4];
        let mut n_conn = 0;
        for i in 0..4 {
            let a = self.adj(loc, i);
            if self.colors[a] == pla {
                let h = self.chain_head[a];
                if conn[..n_conn].contains(&h) {
                    continue;
                }
                conn[n_conn] = h;
                n_conn += 1;
                let mut cur = a;
                loop {
                    for k in 0..4 {
                        let p = self.adj(cur, k);
                        if p != loc && would_be_empty(p) && !libs.contains(&p) {
                            libs.push(p);
                            if libs.len() >= max {
                                return max;
                            }
                        }
                    }
                    cur = self.next_in_chain[cur];
                    if cur == a {
                        break;
                    }
                }
            }
        }
        libs.len()
    }

    /// Fast lower and upper bounds on the liberties of a stone of `pla` at
    /// `loc`.
    pub fn bound_num_libs_after_play(&self, loc: usize, pla: u8) -> (i32, i32) {
        let o = opp(pla);
        let (mut immediate, mut caps, mut cap_stones, mut conn, mut max_conn) = (0, 0, 0, 0, 0);
        for i in 0..4 {
            let a = self.adj(loc, i);
            let c = self.colors[a];
            if c == EMPTY {
                immediate += 1;
            } else if c == o {
                if self.libs(a) == 1 {
                    caps += 1;
                    cap_stones += self.chain_size(a);
                }
            } else if c == pla {
                let l = self.libs(a) - 1;
                conn += l;
                if l > max_conn {
                    max_conn = l;
                }
            }
        }
        (
            caps + max_conn.max(immediate),
            immediate + cap_stones + conn,
        )
    }

    pub fn heuristic_connection_libs_x2(&self, loc: usize, pla: u8) -> i32 {
        let mut total = 0;
        for i in 0..4 {
            let a = self.adj(loc, i);
            if self.colors[a] == pla {
                let l = self.libs(a);
                if l > 1 {
                    total += l * 2 - 3;
                }
            }
        }
        total
    }

    /// Writes the liberties of the chain at `loc` into `buf` from `idx` on,
    /// skipping any already in `buf[start..]`; returns how many it wrote.
    pub fn find_liberties(
        &self,
        loc: usize,
        buf: &mut Vec<usize>,
        start: usize,
        idx: usize,
    ) -> usize {
        let mut found = 0;
        let mut cur = loc;
        loop {
            for i in 0..4 {
                let lib = self.adj(cur, i);
                if self.colors[lib] == EMPTY && !buf[start..idx + found].contains(&lib) {
                    if idx + found >= buf.len() {
                        let grown = buf.len() * 3 / 2 + 64;
                        buf.resize(grown, 0);
                    }
                    buf[idx + found] = lib;
                    found += 1;
                }
            }
            cur = self.next_in_chain[cur];
            if cur == loc {
                break;
            }
        }
        found
    }

    /// Writes the moves capturing an opposing chain in atari next to the
    /// chain at `loc`, like [`KBoard::find_liberties`].
    pub fn find_liberty_gaining_captures(
        &self,
        loc: usize,
        buf: &mut Vec<usize>,
        start: usize,
        idx: usize,
    ) -> usize {
        let o = opp(self.colors[loc]);
        let mut checked: Vec<usize> = Vec::new();
        let mut found = 0;
        let mut cur = loc;
        loop {
            for i in 0..4 {
                let a = self.adj(cur, i);
                if self.colors[a] == o {
                    let h = self.chain_head[a];
                    if self.num_libs[h] == 1 && !checked.contains(&h) {
                        found += self.find_liberties(a, buf, start, idx + found);
                        checked.push(h);
                    }
                }
            }
            cur = self.next_in_chain[cur];
            if cur == loc {
                break;
            }
        }
        found
    }

    pub fn has_liberty_gaining_captures(&self, loc: usize) -> bool {
        let o = opp(self.colors[loc]);
        let mut cur = loc;
        loop {
            for i in 0..4 {
                let a = self.adj(cur, i);
                if self.colors[a] == o && self.num_libs[self.chain_head[a]] == 1 {
                    return true;
                }
            }
            cur = self.next_in_chain[cur];
            if cur == loc {
                return false;
            }
        }
    }

    /// Whether two locs are orthogonal neighbours.
    pub fn is_adjacent(&self, a: usize, b: usize) -> bool {
        let s = self.x_size + 1;
        a + s == b || a + 1 == b || b + 1 == a || b + s == a
    }
}
