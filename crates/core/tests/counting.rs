//! Counting oracle: every legal position of a small board is reachable from
//! the empty board by placements (a stone of either colour on an empty point
//! where it is not suicide, captures resolved, ko ignored), and nothing else is.
//! A breadth-first search over placements with [`Board::play_unchecked`] must therefore
//! find exactly John Tromp's counts of legal positions, listed in
//! `tests/data/legal_positions.txt`.
//!
//! Positions are identified by their exact stone layout (a base-3 number), not
//! by the hash; the hashes of the positions found must all differ.

use std::collections::{HashMap, VecDeque};

use tengen_core::{Board, BoardSize, Color};

const TABLE: &str = include_str!("data/legal_positions.txt");

/// `(width, height, count)` for each line of the data file.
fn table() -> Vec<(usize, usize, usize)> {
    TABLE
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (dims, count) = line
                .split_once(' ')
                .unwrap_or_else(|| panic!("bad line {line:?}"));
            let (w, h) = dims
                .split_once('x')
                .unwrap_or_else(|| panic!("bad size in {line:?}"));
            (
                w.parse().unwrap(),
                h.parse().unwrap(),
                count.trim().parse().unwrap(),
            )
        })
        .collect()
}

/// The stone layout as a base-3 number: digit 0 empty, 1 black, 2 white, in
/// `BoardSize::points` order.
fn layout(board: &Board) -> u64 {
    board.size().points().fold(0, |code, p| {
        code * 3
            + match board.stone(p) {
                None => 0,
                Some(Color::Black) => 1,
                Some(Color::White) => 2,
            }
    })
}

/// The board with the stone layout `code`, built by setup placements (which
/// refuse anything that would capture or lack liberties).
fn board_of(size: BoardSize, code: u64) -> Board {
    let points: Vec<_> = size.points().collect();
    let mut digits = vec![0; points.len()];
    let mut rest = code;
    for digit in digits.iter_mut().rev() {
        *digit = rest % 3;
        rest /= 3;
    }
    let mut board = Board::new(size);
    for (&p, &digit) in points.iter().zip(&digits) {
        let color = match digit {
            0 => continue,
            1 => Color::Black,
            _ => Color::White,
        };
        if let Err(e) = board.place_setup_stone(p, color) {
            panic!("layout {code} of {size} is not legal: {e}");
        }
    }
    assert_eq!(layout(&board), code);
    board
}

struct Found {
    positions: usize,
    placements: usize,
    captures: usize,
}

/// Breadth-first search over placements from the empty board.
fn explore(size: BoardSize) -> Found {
    let mut hashes: HashMap<u64, u64> = HashMap::new();
    let mut queue = VecDeque::new();
    let mut found = Found {
        positions: 0,
        placements: 0,
        captures: 0,
    };
    let empty = Board::new(size);
    hashes.insert(empty.hash(), layout(&empty));
    queue.push_back(layout(&empty));
    while let Some(code) = queue.pop_front() {
        found.positions += 1;
        let board = board_of(size, code);
        assert_eq!(board.hash(), board.hash_from_scratch());
        let empties: Vec<_> = board.empty_points().collect();
        for p in empties {
            for color in Color::ALL {
                if board.is_suicide(p, color) {
                    continue;
                }
                let mut next = board.clone();
                let captured = next.play_unchecked(p, color);
                found.placements += 1;
                found.captures += captured as usize;
                if let Err(e) = next.check_consistency() {
                    panic!("{size}: {color} at {p:?} on\n{board}gives an inconsistent board: {e}");
                }
                let next_code = layout(&next);
                match hashes.get(&next.hash()) {
                    None => {
                        hashes.insert(next.hash(), next_code);
                        queue.push_back(next_code);
                    }
                    Some(&known) => assert_eq!(
                        known,
                        next_code,
                        "{size}: two positions share the hash {:016x}:\n{}\n{}",
                        next.hash(),
                        board_of(size, known),
                        next
                    ),
                }
            }
        }
    }
    assert_eq!(found.positions, hashes.len());
    found
}

#[test]
fn placements_reach_exactly_the_legal_positions() {
    let table = table();
    assert_eq!(table.len(), 11, "the data file lists eleven boards");
    for (w, h, count) in table {
        let mut orientations = vec![(w, h)];
        if w != h {
            orientations.push((h, w));
        }
        for (width, height) in orientations {
            let size = BoardSize::new(width, height).unwrap();
            let found = explore(size);
            eprintln!(
                "{size}: {} positions, {} placements, {} stones captured",
                found.positions, found.placements, found.captures
            );
            assert_eq!(
                found.positions, count,
                "legal positions of {width}x{height}"
            );
            if width * height >= 3 {
                assert!(found.captures > 0, "{size}: the search never captured");
            }
        }
    }
}

/// The search relies on `is_suicide` to reject exactly the placements that
/// would leave the new stone's chain without liberties: check it against
/// playing the move out, on every placement of a 2×3 board.
#[test]
fn is_suicide_agrees_with_playing_the_move() {
    let size = BoardSize::new(3, 2).unwrap();
    let mut checked = 0;
    for code in 0..3u64.pow(6) {
        // Skip layouts that are not legal positions.
        let points: Vec<_> = size.points().collect();
        let mut board = Board::new(size);
        let mut rest = code;
        let mut legal = true;
        for &p in points.iter().rev() {
            let color = match rest % 3 {
                0 => None,
                1 => Some(Color::Black),
                _ => Some(Color::White),
            };
            rest /= 3;
            if let Some(color) = color {
                legal &= board.place_setup_stone(p, color).is_ok();
            }
        }
        if !legal || layout(&board) != code {
            continue;
        }
        let empties: Vec<_> = board.empty_points().collect();
        for p in empties {
            for color in Color::ALL {
                let mut after = board.clone();
                let captured = after.play_unchecked(p, color);
                let survived = after.stone(p) == Some(color);
                assert_eq!(
                    board.is_suicide(p, color),
                    !survived,
                    "{color} at {p:?} on\n{board}"
                );
                if !survived {
                    assert_eq!(captured, 0);
                }
                after.check_consistency().unwrap();
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}
