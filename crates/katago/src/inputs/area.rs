//! KataGo's area map: Benson-style pass-alive chains and territory per
//! player, then (for area scoring without tax) every other stone and every
//! empty region bordered by one colour only; and, for the group-tax rules,
//! the "independent life" variant that drops seki regions.
//!
//! This differs from tengen's own Benson code in the details KataGo has: a
//! region is every maximal connected set of empty points *and opposing
//! stones*, started only from empty points; when multi-stone suicide is
//! illegal, only the region's empty points must touch a chain for the region
//! to be vital to it; a region bordered only by pass-alive chains counts as
//! territory if it has at most one point not next to the player's stones,
//! or (big territories) if it holds no opposing stone.

use super::board::{opp, KBoard, BLACK, EMPTY, WHITE};

/// KataGo's `calculateArea`: `result[loc]` is `BLACK`, `WHITE` or `EMPTY`.
pub(crate) fn calculate_area(
    board: &KBoard,
    non_pass_alive_stones: bool,
    safe_big_territories: bool,
    unsafe_big_territories: bool,
    multi_stone_suicide_legal: bool,
) -> Vec<u8> {
    let mut result = vec![EMPTY; board.colors.len()];
    for pla in [BLACK, WHITE] {
        area_for_pla(
            board,
            pla,
            safe_big_territories,
            unsafe_big_territories,
            multi_stone_suicide_legal,
            &mut result,
        );
    }
    if non_pass_alive_stones {
        for y in 0..board.y_size {
            for x in 0..board.x_size {
                let loc = board.loc(x, y);
                if result[loc] == EMPTY {
                    result[loc] = board.colors[loc];
                }
            }
        }
    }
    result
}

/// `pla`'s points of `area` (a map from [`calculate_area`] or
/// [`calculate_independent_life_area`]) less its opponent's.
pub(crate) fn balance(board: &KBoard, area: &[u8], pla: u8) -> i32 {
    let mut balance = 0;
    for y in 0..board.y_size {
        for x in 0..board.x_size {
            let owner = area[board.loc(x, y)];
            if owner == pla {
                balance += 1;
            } else if owner == opp(pla) {
                balance -= 1;
            }
        }
    }
    balance
}

/// KataGo's `calculateIndependentLifeArea`; returns the map and White's
/// independent-life regions minus Black's.
pub(crate) fn calculate_independent_life_area(
    board: &KBoard,
    keep_territories: bool,
    keep_stones: bool,
    multi_stone_suicide_legal: bool,
) -> (Vec<u8>, i32) {
    let n = board.colors.len();
    let mut result = vec![EMPTY; n];
    let mut basic = vec![EMPTY; n];
    for pla in [BLACK, WHITE] {
        area_for_pla(
            board,
            pla,
            true,
            true,
            multi_stone_suicide_legal,
            &mut basic,
        );
    }
    let points: Vec<usize> = (0..board.y_size)
        .flat_map(|y| (0..board.x_size).map(move |x| (x, y)))
        .map(|(x, y)| board.loc(x, y))
        .collect();
    for &loc in &points {
        if basic[loc] == EMPTY {
            basic[loc] = board.colors[loc];
        }
    }

    // Regions touching dame or holding an owner's stone in atari are seki.
    let mut seki = vec![false; n];
    let mut queue: Vec<usize> = Vec::new();
    for &loc in &points {
        if basic[loc] == EMPTY || seki[loc] {
            continue;
        }
        let touches_dame = (0..4).any(|i| {
            let a = board.adj(loc, i);
            board.colors[a] == EMPTY && basic[a] == EMPTY
        });
        if (board.colors[loc] == basic[loc] && board.libs(loc) == 1) || touches_dame {
            let pla = basic[loc];
            seki[loc] = true;
            queue.clear();
            queue.push(loc);
            let mut head = 0;
            while head < queue.len() {
                let cur = queue[head];
                head += 1;
                for i in 0..4 {
                    let a = board.adj(cur, i);
                    if basic[a] == pla && !seki[a] {
                        seki[a] = true;
                        queue.push(a);
                    }
                }
            }
        }
    }
    let mut white_minus_black = 0;
    for &loc in &points {
        if basic[loc] != EMPTY && !seki[loc] && result[loc] != basic[loc] {
            let pla = basic[loc];
            white_minus_black += if pla == WHITE { 1 } else { -1 };
            result[loc] = pla;
            queue.clear();
            queue.push(loc);
            let mut head = 0;
            while head < queue.len() {
                let cur = queue[head];
                head += 1;
                for i in 0..4 {
                    let a = board.adj(cur, i);
                    if basic[a] == pla && result[a] != pla {
                        result[a] = pla;
                        queue.push(a);
                    }
                }
            }
        }
    }
    for &loc in &points {
        let b = basic[loc];
        if keep_territories && b != EMPTY && b != board.colors[loc] {
            result[loc] = b;
        }
    }
    for &loc in &points {
        let b = basic[loc];
        if keep_stones && b != EMPTY && b == board.colors[loc] {
            result[loc] = b;
        }
    }
    (result, white_minus_black)
}

/// One player's pass-alive chains and territory (KataGo's
/// `calculateAreaForPla`), written into `result`.
fn area_for_pla(
    board: &KBoard,
    pla: u8,
    safe_big_territories: bool,
    unsafe_big_territories: bool,
    multi_stone_suicide_legal: bool,
    result: &mut [u8],
) {
    let regions = Regions::find(board, pla, multi_stone_suicide_legal);
    let (pla_heads, killed, borders_dead_pla) = kill_unsafe_chains(board, pla, &regions);
    mark_alive_chains(board, pla, &pla_heads, &killed, result);
    mark_territories(
        &regions,
        pla,
        &borders_dead_pla,
        safe_big_territories,
        unsafe_big_territories,
        result,
    );
}

/// The regions of one player's pass-alive search: every maximal connected
/// set of empty points and opposing stones, started from an empty point.
struct Regions {
    /// Each point's region, -1 for none.
    region_of: Vec<i32>,
    /// Circular list of each region's points.
    next_in_region: Vec<usize>,
    /// Each region's first point.
    heads: Vec<usize>,
    /// The heads of the chains each region is vital to, each region's a run.
    vital: Vec<usize>,
    /// Where each region's run of `vital` starts.
    vital_start: Vec<usize>,
    /// How long each region's run of `vital` is.
    vital_len: Vec<usize>,
    /// Each region's points not next to the player's stones, up to 2.
    internal: Vec<u8>,
    /// Whether each region holds an opposing stone.
    contains_opp: Vec<bool>,
    /// Whether the player has a stone on the board.
    at_least_one_pla: bool,
}

impl Regions {
    /// `pla`'s regions of `board`, with the chains each is vital to.
    fn find(board: &KBoard, pla: u8, multi_stone_suicide_legal: bool) -> Regions {
        let n = board.colors.len();
        let colors = &board.colors;
        let mut regions = Regions {
            region_of: vec![-1i32; n],
            next_in_region: vec![0usize; n],
            heads: Vec::new(),
            vital: Vec::new(),
            vital_start: Vec::new(),
            vital_len: Vec::new(),
            internal: Vec::new(),
            contains_opp: Vec::new(),
            at_least_one_pla: false,
        };
        let mut queue: Vec<usize> = Vec::new();
        for y in 0..board.y_size {
            for x in 0..board.x_size {
                let loc = board.loc(x, y);
                if regions.region_of[loc] != -1 {
                    continue;
                }
                if colors[loc] != EMPTY {
                    regions.at_least_one_pla |= colors[loc] == pla;
                    continue;
                }
                regions.flood(board, pla, multi_stone_suicide_legal, loc, &mut queue);
            }
        }
        regions
    }

    /// Adds the region of empty point `loc`, flooding it with `queue`.
    fn flood(
        &mut self,
        board: &KBoard,
        pla: u8,
        multi_stone_suicide_legal: bool,
        loc: usize,
        queue: &mut Vec<usize>,
    ) {
        let o = opp(pla);
        let colors = &board.colors;
        let r = self.heads.len();
        self.heads.push(loc);
        let start = self.vital.len();
        self.vital_start.push(start);
        self.internal.push(0);
        self.contains_opp.push(false);
        // Every pla chain next to the first point may be vital; the
        // flood below keeps only those next to every (empty) point.
        for i in 0..4 {
            let a = board.adj(loc, i);
            if colors[a] == pla {
                let h = board.chain_head[a];
                if !self.vital[start..].contains(&h) {
                    self.vital.push(h);
                }
            }
        }
        let mut len = self.vital.len() - start;

        let mut tail = loc;
        queue.clear();
        queue.push(loc);
        self.region_of[loc] = r as i32;
        let mut qh = 0;
        while qh < queue.len() {
            let cur = queue[qh];
            qh += 1;
            if len > 0 && (multi_stone_suicide_legal || colors[cur] == EMPTY) {
                let mut kept = 0;
                for i in 0..len {
                    let h = self.vital[start + i];
                    if board.is_adjacent_to_pla_head(pla, cur, h) {
                        self.vital[start + kept] = h;
                        kept += 1;
                    }
                }
                len = kept;
            }
            if self.internal[r] < 2 && !board.is_adjacent_to_pla(cur, pla) {
                self.internal[r] += 1;
            }
            if colors[cur] == o {
                self.contains_opp[r] = true;
            }
            self.next_in_region[cur] = tail;
            tail = cur;
            for i in 0..4 {
                let a = board.adj(cur, i);
                if (colors[a] == EMPTY || colors[a] == o) && self.region_of[a] == -1 {
                    queue.push(a);
                    self.region_of[a] = r as i32;
                }
            }
        }
        self.next_in_region[loc] = tail;
        self.vital.truncate(start + len);
        self.vital_len.push(len);
    }

    /// The heads of the chains region `r` is vital to.
    #[inline]
    fn vital_of(&self, r: usize) -> &[usize] {
        &self.vital[self.vital_start[r]..self.vital_start[r] + self.vital_len[r]]
    }
}

/// Benson's iteration: kills `pla`'s chains with fewer than two vital
/// regions not bordering a killed chain, until none is left to kill.
/// Returns `pla`'s chain heads, which of them were killed, and (by region
/// head) which regions border a killed chain.
fn kill_unsafe_chains(
    board: &KBoard,
    pla: u8,
    regions: &Regions,
) -> (Vec<usize>, Vec<bool>, Vec<bool>) {
    let o = opp(pla);
    let n = board.colors.len();
    let colors = &board.colors;
    let mut borders_dead_pla = vec![false; n];
    let mut pla_heads: Vec<usize> = Vec::new();
    for (loc, &color) in colors.iter().enumerate() {
        if color == pla && board.chain_head[loc] == loc {
            pla_heads.push(loc);
        }
    }
    let mut killed = vec![false; pla_heads.len()];
    let mut vital_count = vec![0i32; n];
    for r in 0..regions.heads.len() {
        for &h in regions.vital_of(r) {
            vital_count[h] += 1;
        }
    }

    loop {
        let mut killed_any = false;
        for i in 0..pla_heads.len() {
            if killed[i] {
                continue;
            }
            let head = pla_heads[i];
            if vital_count[head] < 2 {
                killed[i] = true;
                killed_any = true;
                let mut cur = head;
                loop {
                    for d in 0..4 {
                        let a = board.adj(cur, d);
                        let r = regions.region_of[a];
                        if r >= 0 {
                            let r = r as usize;
                            let rh = regions.heads[r];
                            if !borders_dead_pla[rh] && (colors[a] == EMPTY || colors[a] == o) {
                                borders_dead_pla[rh] = true;
                                for &h in regions.vital_of(r) {
                                    vital_count[h] -= 1;
                                }
                            }
                        }
                    }
                    cur = board.next(cur);
                    if cur == head {
                        break;
                    }
                }
            }
        }
        if !killed_any {
            break;
        }
    }
    (pla_heads, killed, borders_dead_pla)
}

/// Marks every stone of `pla`'s chains that were not killed as `pla`'s.
fn mark_alive_chains(
    board: &KBoard,
    pla: u8,
    pla_heads: &[usize],
    killed: &[bool],
    result: &mut [u8],
) {
    for (i, &head) in pla_heads.iter().enumerate() {
        if !killed[i] {
            let mut cur = head;
            loop {
                result[cur] = pla;
                cur = board.next(cur);
                if cur == head {
                    break;
                }
            }
        }
    }
}

/// Marks `pla`'s territory: every region that borders no killed chain and
/// has at most one point away from `pla`'s stones or (with
/// `safe_big_territories`) holds no opposing stone; with
/// `unsafe_big_territories`, the unmarked points of any other region that
/// holds no opposing stone.
fn mark_territories(
    regions: &Regions,
    pla: u8,
    borders_dead_pla: &[bool],
    safe_big_territories: bool,
    unsafe_big_territories: bool,
    result: &mut [u8],
) {
    let (internal, contains_opp) = (&regions.internal, &regions.contains_opp);
    let at_least_one_pla = regions.at_least_one_pla;
    let next_in_region = &regions.next_in_region;
    for r in 0..regions.heads.len() {
        let head = regions.heads[r];
        let alive_border = !borders_dead_pla[head] && at_least_one_pla;
        let mark = (internal[r] <= 1 && alive_border)
            || (safe_big_territories && !contains_opp[r] && alive_border);
        if mark {
            let mut cur = head;
            loop {
                result[cur] = pla;
                cur = next_in_region[cur];
                if cur == head {
                    break;
                }
            }
        } else if unsafe_big_territories && !contains_opp[r] && at_least_one_pla {
            let mut cur = head;
            loop {
                if result[cur] == EMPTY {
                    result[cur] = pla;
                }
                cur = next_in_region[cur];
                if cur == head {
                    break;
                }
            }
        }
    }
}
