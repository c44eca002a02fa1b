//! What a group tax takes from a count (KataGo's `tax` rule): the eyes of
//! groups in seki (Japanese and Korean rules), and under the full tax two
//! points for every group that lives on its own.
//!
//! Seki is found as a player would find it at the end of a game, with the
//! dead stones removed: every neutral point (an empty point whose region
//! reaches both colours) that one side can fill without leaving the filling
//! chain in atari is dame and gets filled, one at a time, until none is
//! left. The neutral points left are the shared liberties of seki, and the
//! chains next to them are in seki. A territory (an empty region reaching
//! one colour) next to a chain in seki is not counted.
//!
//! KataGo marks seki from its "independent life" area instead, which
//! relies on the dame being filled in its cleanup phases before the count;
//! the two agree on a finished game where they are.

use crate::board::Board;
use crate::color::{ByColor, Color};
use crate::point::Point;

/// Cell codes of the working grid.
const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const OFF: u8 = 3;

/// What the tax takes, per colour.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Taxed {
    /// Territory points in regions next to a chain in seki.
    pub seki_territory: ByColor<u32>,
    /// Groups living on their own: connected sets of a colour's stones and
    /// territory holding no chain in seki.
    pub groups: ByColor<u32>,
}

/// The board's cells (`Point::index` order, off-board border included) as
/// `EMPTY`, `BLACK`, `WHITE` or `OFF`, with the stones at `dead` removed.
pub(crate) fn grid(board: &Board, dead: &[Point]) -> Vec<u8> {
    let size = board.size();
    let mut grid = vec![OFF; size.cells()];
    for point in size.points() {
        grid[point.index()] = match board.stone(point) {
            Some(Color::Black) => BLACK,
            Some(Color::White) => WHITE,
            None => EMPTY,
        };
    }
    for &point in dead {
        if size.contains(point) {
            grid[point.index()] = EMPTY;
        }
    }
    grid
}

/// The colours each empty cell's region reaches (bit 0 Black, bit 1
/// White); `u8::MAX` on stones and off the board.
pub(crate) fn reaches(grid: &[u8], stride: usize) -> Vec<u8> {
    let mut reach = vec![u8::MAX; grid.len()];
    let mut stack = Vec::new();
    let mut region = Vec::new();
    for start in 0..grid.len() {
        if grid[start] != EMPTY || reach[start] != u8::MAX {
            continue;
        }
        let mut bits = 0u8;
        region.clear();
        stack.push(start);
        reach[start] = 0;
        while let Some(c) = stack.pop() {
            region.push(c);
            for n in [c - stride, c - 1, c + 1, c + stride] {
                match grid[n] {
                    EMPTY if reach[n] == u8::MAX => {
                        reach[n] = 0;
                        stack.push(n);
                    }
                    BLACK => bits |= 1,
                    WHITE => bits |= 2,
                    _ => {}
                }
            }
        }
        for &c in &region {
            reach[c] = bits;
        }
    }
    reach
}

/// Liberties of the chain through `cell` on `grid`.
fn liberties(grid: &[u8], stride: usize, cell: usize) -> usize {
    let color = grid[cell];
    let mut seen = vec![false; grid.len()];
    let mut stack = vec![cell];
    seen[cell] = true;
    let mut libs = 0;
    while let Some(c) = stack.pop() {
        for n in [c - stride, c - 1, c + 1, c + stride] {
            if seen[n] {
                continue;
            }
            if grid[n] == EMPTY {
                seen[n] = true;
                libs += 1;
            } else if grid[n] == color {
                seen[n] = true;
                stack.push(n);
            }
        }
    }
    libs
}

/// Fills one dame point of `grid`, if there is one a side can fill
/// without putting the filling chain in atari; whether it did.
fn fill_one_dame(grid: &mut [u8], stride: usize) -> bool {
    let reach = reaches(grid, stride);
    for cell in 0..grid.len() {
        if grid[cell] != EMPTY || reach[cell] != 3 {
            continue;
        }
        for color in [BLACK, WHITE] {
            let touches = [cell - stride, cell - 1, cell + 1, cell + stride]
                .iter()
                .any(|&n| grid[n] == color);
            if !touches {
                continue;
            }
            grid[cell] = color;
            if liberties(grid, stride, cell) >= 2 {
                return true;
            }
            grid[cell] = EMPTY;
        }
    }
    false
}

/// What the tax takes from `board` with the stones at `dead` removed.
pub(crate) fn taxed(board: &Board, dead: &[Point]) -> Taxed {
    let stride = board.size().stride();
    let original = grid(board, dead);
    let mut filled = original.clone();
    while fill_one_dame(&mut filled, stride) {}

    // Chains next to a neutral point nobody can fill are in seki.
    let reach = reaches(&filled, stride);
    let mut seki = vec![false; filled.len()];
    for cell in 0..filled.len() {
        if filled[cell] != EMPTY || reach[cell] != 3 {
            continue;
        }
        for start in [cell - stride, cell - 1, cell + 1, cell + stride] {
            let color = filled[start];
            if !(color == BLACK || color == WHITE) || seki[start] {
                continue;
            }
            let mut stack = vec![start];
            seki[start] = true;
            while let Some(c) = stack.pop() {
                for n in [c - stride, c - 1, c + 1, c + stride] {
                    if filled[n] == color && !seki[n] {
                        seki[n] = true;
                        stack.push(n);
                    }
                }
            }
        }
    }

    // Territories next to a chain in seki, and the groups living on their
    // own, on the board as it stands (dame not filled).
    let reach = reaches(&original, stride);
    let mut result = Taxed::default();
    let mut done = vec![false; original.len()];
    for start in 0..original.len() {
        if done[start] || original[start] == OFF {
            continue;
        }
        let color = match (original[start], reach[start]) {
            (BLACK, _) | (EMPTY, 1) => BLACK,
            (WHITE, _) | (EMPTY, 2) => WHITE,
            _ => continue,
        };
        // The colour's stones and territory connected to `start`.
        let owned = |c: usize| original[c] == color || (original[c] == EMPTY && reach[c] == color);
        let mut in_seki = false;
        let mut component = Vec::new();
        let mut stack = vec![start];
        done[start] = true;
        while let Some(c) = stack.pop() {
            component.push(c);
            in_seki |= original[c] == color && seki[c];
            for n in [c - stride, c - 1, c + 1, c + stride] {
                if !done[n] && owned(n) {
                    done[n] = true;
                    stack.push(n);
                }
            }
        }
        let colour = if color == BLACK {
            Color::Black
        } else {
            Color::White
        };
        if !in_seki {
            result.groups[colour] += 1;
        }
        // Each territory region of the component pays if one of the
        // chains around it is in seki.
        let mut region_seen = vec![false; original.len()];
        for &c in &component {
            if original[c] != EMPTY || region_seen[c] {
                continue;
            }
            let mut region = vec![c];
            region_seen[c] = true;
            let mut next_to_seki = false;
            let mut i = 0;
            while i < region.len() {
                let r = region[i];
                i += 1;
                for n in [r - stride, r - 1, r + 1, r + stride] {
                    if original[n] == EMPTY && !region_seen[n] {
                        region_seen[n] = true;
                        region.push(n);
                    } else if original[n] == color && seki[n] {
                        next_to_seki = true;
                    }
                }
            }
            if next_to_seki {
                result.seki_territory[colour] += region.len() as u32;
            }
        }
    }
    result
}
