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
    let o = opp(pla);
    let n = board.colors.len();
    let colors = &board.colors;
    let mut region_of = vec![-1i32; n];
    // Circular list of each region's points.
    let mut next_in_region = vec![0usize; n];
    let mut borders_dead_pla = vec![false; n];

    let mut vital: Vec<usize> = Vec::new();
    let mut region_heads: Vec<usize> = Vec::new();
    let mut vital_start: Vec<usize> = Vec::new();
    let mut vital_len: Vec<usize> = Vec::new();
    let mut internal: Vec<u8> = Vec::new();
    let mut contains_opp: Vec<bool> = Vec::new();
    let mut queue: Vec<usize> = Vec::new();

    let mut at_least_one_pla = false;
    for y in 0..board.y_size {
        for x in 0..board.x_size {
            let loc = board.loc(x, y);
            if region_of[loc] != -1 {
                continue;
            }
            if colors[loc] != EMPTY {
                at_least_one_pla |= colors[loc] == pla;
                continue;
            }
            let r = region_heads.len();
            region_heads.push(loc);
            let start = vital.len();
            vital_start.push(start);
            internal.push(0);
            contains_opp.push(false);
            // Every pla chain next to the first point may be vital; the
            // flood below keeps only those next to every (empty) point.
            for i in 0..4 {
                let a = board.adj(loc, i);
                if colors[a] == pla {
                    let h = board.chain_head[a];
                    if !vital[start..].contains(&h) {
                        vital.push(h);
                    }
                }
            }
            let mut len = vital.len() - start;

            let mut tail = loc;
            queue.clear();
            queue.push(loc);
            region_of[loc] = r as i32;
            let mut qh = 0;
            while qh < queue.len() {
                let cur = queue[qh];
                qh += 1;
                if len > 0 && (multi_stone_suicide_legal || colors[cur] == EMPTY) {
                    let mut kept = 0;
                    for i in 0..len {
                        let h = vital[start + i];
                        if board.is_adjacent_to_pla_head(pla, cur, h) {
                            vital[start + kept] = h;
                            kept += 1;
                        }
                    }
                    len = kept;
                }
                if internal[r] < 2 && !board.is_adjacent_to_pla(cur, pla) {
                    internal[r] += 1;
                }
                if colors[cur] == o {
                    contains_opp[r] = true;
                }
                next_in_region[cur] = tail;
                tail = cur;
                for i in 0..4 {
                    let a = board.adj(cur, i);
                    if (colors[a] == EMPTY || colors[a] == o) && region_of[a] == -1 {
                        queue.push(a);
                        region_of[a] = r as i32;
                    }
                }
            }
            next_in_region[loc] = tail;
            vital.truncate(start + len);
            vital_len.push(len);
        }
    }

    let mut pla_heads: Vec<usize> = Vec::new();
    for (loc, &color) in colors.iter().enumerate() {
        if color == pla && board.chain_head[loc] == loc {
            pla_heads.push(loc);
        }
    }
    let mut killed = vec![false; pla_heads.len()];
    let mut vital_count = vec![0i32; n];
    for r in 0..region_heads.len() {
        for &h in &vital[vital_start[r]..vital_start[r] + vital_len[r]] {
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
                        let r = region_of[a];
                        if r >= 0 {
                            let r = r as usize;
                            let rh = region_heads[r];
                            if !borders_dead_pla[rh] && (colors[a] == EMPTY || colors[a] == o) {
                                borders_dead_pla[rh] = true;
                                for &h in &vital[vital_start[r]..vital_start[r] + vital_len[r]] {
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

    for r in 0..region_heads.len() {
        let head = region_heads[r];
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
