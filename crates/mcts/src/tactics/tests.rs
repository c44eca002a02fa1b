use super::*;

fn at(board: &Board, vertex: &str) -> Point {
    board.size().parse_gtp(vertex).unwrap().point().unwrap()
}

#[test]
fn lone_stones_that_attack_a_chain_short_of_liberties() {
    let board = Board::from_ascii(
        ". o x . o
         . . o x x
         . . . . .
         . o o . .
         . . . . .",
    )
    .unwrap();
    let black = Color::Black;
    // A5 takes B5 to one liberty, B4 takes B5 and C4 to one each, D5
    // captures E5: each attacks.
    for vertex in ["A5", "B4", "D5"] {
        assert!(
            touches_short_enemy(&board, at(&board, vertex), black),
            "{vertex}"
        );
    }
    // C1 touches only a chain of six liberties; A3 touches nothing.
    for vertex in ["C1", "A3"] {
        assert!(
            !touches_short_enemy(&board, at(&board, vertex), black),
            "{vertex}"
        );
    }
    // For White, D3 touches only Black's D4-E4, of three liberties.
    assert!(!touches_short_enemy(&board, at(&board, "D3"), Color::White));
}

#[test]
fn sacrifices_that_leave_a_dead_shape() {
    // Black's A2 makes the square A1-B2 with one liberty, A3; captured,
    // it leaves White a square four, which cannot make two eyes.
    let square = Board::from_ascii(
        ". . . . .
         o o o . .
         . o o . .
         . x o . .
         x x o . .",
    )
    .unwrap();
    assert_eq!(self_atari_size(&square, at(&square, "A2"), Color::Black), 4);
    assert!(is_nakade_sacrifice(
        &square,
        at(&square, "A2"),
        Color::Black
    ));
    // Three in a row: a straight three.
    let three = Board::from_ascii(
        ". . . . . .
         . . . . . .
         o o o o o .
         x x . . o .
         o o o o o .",
    )
    .unwrap();
    assert_eq!(self_atari_size(&three, at(&three, "C2"), Color::Black), 3);
    assert!(is_nakade_sacrifice(&three, at(&three, "C2"), Color::Black));
    // Four in a row makes a straight four, which lives: no nakade.
    let four = Board::from_ascii(
        ". . . . . .
         . . . . . .
         o o o o o o
         x x . x . o
         o o o o o o",
    )
    .unwrap();
    assert_eq!(self_atari_size(&four, at(&four, "C2"), Color::Black), 4);
    assert!(!is_nakade_sacrifice(&four, at(&four, "C2"), Color::Black));
    // Seven stones are never a nakade.
    let long = Board::from_ascii(
        ". . . . . . . . .
         . . . . . . . . .
         o o o o o o o o o
         x x x . x x x . o
         o o o o o o o o o",
    )
    .unwrap();
    assert_eq!(self_atari_size(&long, at(&long, "D2"), Color::Black), 7);
    assert!(!is_nakade_sacrifice(&long, at(&long, "D2"), Color::Black));
}

#[test]
fn ataris_escapes_and_ko_captures() {
    let board = Board::from_ascii(
        ". . . . .
         . x o . .
         x o . o .
         . x o . .
         . . . . .",
    )
    .unwrap();
    let b3 = at(&board, "B3");
    assert_eq!(atari_liberty(&board, b3), Some(at(&board, "C3")));
    assert_eq!(atari_liberty(&board, at(&board, "C4")), None);
    let libs = chain_liberties::<8>(&board, at(&board, "C4"));
    assert_eq!(libs.len(), 3);
    // Black takes the ko: one stone with one liberty.
    assert_eq!(self_atari_size(&board, at(&board, "C3"), Color::Black), 1);
    assert_eq!(capture_size(&board, at(&board, "C3"), Color::Black), 1);
    // White connects out.
    assert_eq!(self_atari_size(&board, at(&board, "C3"), Color::White), 0);
    let mut escapes = Vec::new();
    escape_moves(&board, b3, Color::White, &mut escapes);
    assert_eq!(escapes, vec![at(&board, "C3")]);
    assert!(gives_atari(&board, at(&board, "A4"), Color::White));
}

#[test]
fn self_ataris_of_larger_chains() {
    let board = Board::from_ascii(
        ". . . . .
         . . . . .
         o o o . .
         x x . o .
         o . o . .",
    )
    .unwrap();
    // C2 joins A2-B2 and leaves it B1 only.
    assert_eq!(self_atari_size(&board, at(&board, "C2"), Color::Black), 3);
    // B1 captures A1 and keeps C2 too.
    assert_eq!(self_atari_size(&board, at(&board, "B1"), Color::Black), 0);
    assert_eq!(self_atari_size(&board, at(&board, "B1"), Color::White), 0);
    // The white stone at A1 escapes only by capturing: B1 extends into
    // two liberties (C1 joins), so it is an escape.
    let mut escapes = Vec::new();
    escape_moves(&board, at(&board, "A1"), Color::White, &mut escapes);
    assert_eq!(escapes, vec![at(&board, "B1")]);
}

#[test]
fn capturing_an_attacker_is_an_escape() {
    let trapped = Board::from_ascii(
        ". . . . .
         . . . . .
         x . . . .
         o x . . .
         . o x . .",
    )
    .unwrap();
    // A1 would be suicide for White and no attacker is in atari.
    let mut escapes = Vec::new();
    escape_moves(&trapped, at(&trapped, "A2"), Color::White, &mut escapes);
    assert_eq!(escapes, vec![]);
    assert_eq!(
        self_atari_size(&trapped, at(&trapped, "A1"), Color::White),
        3
    );

    let board = Board::from_ascii(
        ". . . . .
         . . . . .
         x o . . .
         o x . . .
         . o x . .",
    )
    .unwrap();
    escape_moves(&board, at(&board, "A2"), Color::White, &mut escapes);
    assert_eq!(escapes, vec![at(&board, "C2"), at(&board, "A4")]);
}

#[test]
fn ladders_are_read_to_the_edge_and_broken_by_a_stone_in_the_way() {
    // White's C3 has two liberties, C4 and D3; Black's C2 and D2 send
    // an atari from above running up and to the right.
    let open = Board::from_ascii(
        ". . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . x o . . . . . .
         . . x x . . . . .
         . . . . . . . . .",
    )
    .unwrap();
    let c3 = at(&open, "C3");
    let mut scratch = LadderScratch::default();
    assert_eq!(
        atari_captures_in_ladder(&open, at(&open, "C4"), Color::Black, &mut scratch),
        Some(c3)
    );
    // The atari from the other side lets White out to three liberties.
    assert_eq!(
        atari_captures_in_ladder(&open, at(&open, "D3"), Color::Black, &mut scratch),
        None
    );
    let mut in_atari = open.clone();
    in_atari.play_unchecked(at(&open, "C4"), Color::Black);
    assert_eq!(atari_liberty(&in_atari, c3), Some(at(&open, "D3")));
    assert!(escape_is_laddered(
        &in_atari,
        at(&open, "D3"),
        Color::White,
        &mut scratch
    ));

    // A white stone on the ladder's path breaks it.
    let broken = Board::from_ascii(
        ". . . . . . . . .
         . . . . . . . . .
         . . . . . . o . .
         . . . . . . . . .
         . . . . . . . . .
         . . . . . . . . .
         . x o . . . . . .
         . . x x . . . . .
         . . . . . . . . .",
    )
    .unwrap();
    assert_eq!(
        atari_captures_in_ladder(&broken, at(&broken, "C4"), Color::Black, &mut scratch),
        None
    );
    let mut in_atari = broken.clone();
    in_atari.play_unchecked(at(&broken, "C4"), Color::Black);
    assert!(!escape_is_laddered(
        &in_atari,
        at(&broken, "D3"),
        Color::White,
        &mut scratch
    ));
}

#[test]
fn capturing_an_attacker_escapes_a_ladder() {
    // White's A2 cannot extend (A1 is suicide) but can capture B2 or A3.
    let board = Board::from_ascii(
        ". . . . .
         . . . . .
         x o . . .
         o x . . .
         . o x . .",
    )
    .unwrap();
    let mut scratch = LadderScratch::default();
    let boards = scratch.boards(board.size());
    let mut budget = LADDER_BUDGET;
    assert!(!ladder_defence_fails(
        &mut board.clone(),
        at(&board, "A2"),
        boards,
        &mut budget
    ));
    // With nothing to capture it is lost.
    let trapped = Board::from_ascii(
        ". . . . .
         . . . . .
         x . . . .
         o x . . .
         . o x . .",
    )
    .unwrap();
    let mut budget = LADDER_BUDGET;
    assert!(ladder_defence_fails(
        &mut trapped.clone(),
        at(&trapped, "A2"),
        boards,
        &mut budget
    ));
    // A chain with three liberties after extending is in no ladder.
    let free = Board::from_ascii(
        ". . . . .
         . . . . .
         . x o x .
         . . x . .
         . . . . .",
    )
    .unwrap();
    assert!(!escape_is_laddered(
        &free,
        at(&free, "C4"),
        Color::White,
        &mut scratch
    ));
}

/// A board after `turns` random playout turns, Black first.
fn random_position(
    size: tengen_core::BoardSize,
    turns: usize,
    rng: &mut tengen_core::Rng,
) -> Board {
    let mut board = Board::new(size);
    let mut color = Color::Black;
    for _ in 0..turns {
        if let Some(p) = board.random_playout_move(color, rng) {
            board.play_unchecked(p, color);
        }
        color = !color;
    }
    board
}

#[test]
fn liberties_foreseen_without_playing_match_the_board_after_playing() {
    use tengen_core::{BoardSize, Rng};
    let mut rng = Rng::new(5);
    let (mut checked, mut distant) = (0, 0);
    for side in [5, 9, 13] {
        let size = BoardSize::square(side).unwrap();
        for _ in 0..20 {
            let board = random_position(size, rng.below(2 * size.points_count()), &mut rng);
            for point in board.empty_points().collect::<Vec<_>>() {
                for color in [Color::Black, Color::White] {
                    let foreseen = extension_liberties(&board, point, color);
                    if board.is_capture(point, color) {
                        assert_eq!(foreseen, None, "{board:?} {point:?}");
                        continue;
                    }
                    if board.is_suicide(point, color) {
                        assert_eq!(foreseen, Some(0), "{board:?} {point:?}");
                        continue;
                    }
                    let mut after = board.clone();
                    after.play_unchecked(point, color);
                    assert_eq!(foreseen, Some(after.liberties(point).min(3)), "{board:?}");
                    checked += 1;
                    // The same with a point taken by the opponent
                    // first, when that captures nothing: a neighbour,
                    // or a liberty of an own chain next to the point
                    // (a ladder's atari on the chain about to extend).
                    let mut takens: Vec<Point> = board.neighbors(point).to_vec();
                    for n in board.neighbors(point) {
                        if board.stone(n) == Some(color) {
                            takens.extend_from_slice(chain_liberties::<4>(&board, n).as_slice());
                        }
                    }
                    for taken in takens {
                        if taken == point {
                            continue;
                        }
                        if !board.is_empty_at(taken)
                            || !board.is_on_board(taken)
                            || board.is_capture(taken, !color)
                            || board.is_suicide(taken, !color)
                        {
                            continue;
                        }
                        let mut after = board.clone();
                        after.play_unchecked(taken, !color);
                        if after.is_capture(point, color) || after.is_suicide(point, color) {
                            continue;
                        }
                        after.play_unchecked(point, color);
                        assert_eq!(
                            extension_liberties_without(&board, point, color, taken),
                            Some(after.liberties(point).min(3)),
                            "{board:?} {point:?} after {taken:?}"
                        );
                        distant += usize::from(!board.neighbors(point).contains(&taken));
                    }
                }
            }
        }
    }
    assert!(checked > 1000 && distant > 100, "{checked} {distant}");
}

/// The ladder read written plainly: every move played on a fresh clone,
/// no liberties foreseen, no budget.
fn plain_defence_fails(board: &Board, stone: Point) -> bool {
    let color = board.stone(stone).unwrap();
    let liberty = atari_liberty(board, stone).unwrap();
    let mut escapes = vec![liberty];
    for s in board.chain(stone) {
        for n in board.neighbors(s) {
            if board.stone(n) == Some(!color) {
                escapes.extend(atari_liberty(board, n));
            }
        }
    }
    escapes.into_iter().all(|escape| {
        if !board.is_legal_simple(escape, color) {
            return true;
        }
        let mut after = board.clone();
        after.play_unchecked(escape, color);
        match after.liberties(stone) {
            0 | 1 => true,
            2 => plain_attack_wins(&after, stone),
            _ => false,
        }
    })
}

fn plain_attack_wins(board: &Board, stone: Point) -> bool {
    let attacker = !board.stone(stone).unwrap();
    chain_liberties::<2>(board, stone)
        .as_slice()
        .iter()
        .any(|&atari| {
            if !board.is_legal_simple(atari, attacker) {
                return false;
            }
            let mut after = board.clone();
            after.play_unchecked(atari, attacker);
            after.liberties(stone) == 1 && plain_defence_fails(&after, stone)
        })
}

#[test]
fn the_ladder_read_agrees_with_a_plain_one() {
    use tengen_core::{BoardSize, Rng};
    let mut rng = Rng::new(17);
    let mut scratch = LadderScratch::default();
    let (mut reads, mut caught) = (0, 0);
    for side in [6, 7] {
        let size = BoardSize::square(side).unwrap();
        for _ in 0..60 {
            let board = random_position(size, rng.below(size.points_count()), &mut rng);
            for stone in size.points() {
                if board.chain_head(stone) != Some(stone) {
                    continue;
                }
                let boards = scratch.boards(size);
                let mut budget = u32::MAX;
                let (fast, plain) = match board.liberties(stone) {
                    1 => (
                        ladder_defence_fails(&mut board.clone(), stone, boards, &mut budget),
                        plain_defence_fails(&board, stone),
                    ),
                    2 => (
                        ladder_attack_wins(&mut board.clone(), stone, boards, &mut budget),
                        plain_attack_wins(&board, stone),
                    ),
                    _ => continue,
                };
                assert_eq!(fast, plain, "{board:?} {stone:?}");
                reads += 1;
                caught += usize::from(plain);
            }
        }
    }
    assert!(reads > 300 && caught > 30, "{reads} reads, {caught} caught");
}

#[test]
fn two_liberty_fights_next_to_the_last_move() {
    // Black's last stone B4 left White's C4-C3 with two liberties, D4
    // and D3; an extension at either reaches three.
    let board = Board::from_ascii(
        ". . . . . .
         . . x . . .
         . x o . . .
         . x o . . .
         . . x . . .
         . . . . . .",
    )
    .unwrap();
    let mut out = Vec::new();
    let mut scratch = LadderScratch::default();
    assert_eq!(board.liberties(at(&board, "C4")), 2);
    two_liberty_replies(
        &board,
        Color::White,
        at(&board, "B4"),
        &mut out,
        &mut scratch,
    );
    out.sort_unstable();
    let mut want = vec![at(&board, "D3"), at(&board, "D4")];
    want.sort_unstable();
    assert_eq!(out, want);

    // White's last stone B2 has two liberties, A2 and B1. Black's atari
    // at B1 catches it: the extension to A2 is ataried again at A3 and
    // A1 is then suicide.
    let edge = Board::from_ascii(
        ". . . . . .
         . . . . . .
         . . . . . .
         . x . . . .
         . o x . . .
         . . . . . .",
    )
    .unwrap();
    out.clear();
    let b2 = at(&edge, "B2");
    two_liberty_replies(&edge, Color::Black, b2, &mut out, &mut scratch);
    assert!(out.contains(&at(&edge, "B1")), "{out:?}");
    let liberties = chain_liberties::<2>(&edge, b2);
    assert!(out.iter().all(|p| liberties.as_slice().contains(p)));

    // Without the black stone at C2 it has three liberties: nothing to
    // answer.
    let open = Board::from_ascii(
        ". . . . . .
         . . . . . .
         . . . . . .
         . x . . . .
         . o . . . .
         . . . . . .",
    )
    .unwrap();
    out.clear();
    two_liberty_replies(&open, Color::Black, at(&open, "B2"), &mut out, &mut scratch);
    assert_eq!(out, vec![]);
}

/// The two-liberty replies found by playing every candidate on a copy
/// of the board: own chains next to `last` with two liberties, the
/// liberties that give them three or more (or capture), the captures of
/// enemy chains in atari next to them; and every atari on the chain of
/// `last` that the full ladder read calls a capture.
fn plain_two_liberty_replies(board: &Board, color: Color, last: Point) -> Vec<Point> {
    let mut out = Vec::new();
    for n in board.neighbors(last) {
        if board.stone(n) != Some(color) || board.liberties(n) != 2 {
            continue;
        }
        for &liberty in chain_liberties::<2>(board, n).as_slice() {
            let mut after = board.clone();
            let captured = after.play_unchecked(liberty, color);
            if (captured > 0 || after.liberties(liberty) >= 3) && !out.contains(&liberty) {
                out.push(liberty);
            }
        }
        for stone in board.chain(n).collect::<Vec<_>>() {
            for m in board.neighbors(stone) {
                if board.stone(m) == Some(!color) {
                    if let Some(capture) = atari_liberty(board, m) {
                        if !out.contains(&capture) {
                            out.push(capture);
                        }
                    }
                }
            }
        }
    }
    if board.stone(last) == Some(!color) && board.liberties(last) == 2 {
        for &atari in chain_liberties::<2>(board, last).as_slice() {
            let mut after = board.clone();
            if out.contains(&atari) || !after.is_legal_simple(atari, color) {
                continue;
            }
            after.play_unchecked(atari, color);
            if after.liberties(atari) >= 2
                && after.liberties(last) == 1
                && plain_defence_fails(&after, last)
            {
                out.push(atari);
            }
        }
    }
    out.sort_unstable();
    out
}

#[test]
fn two_liberty_replies_match_playing_every_candidate() {
    use tengen_core::{BoardSize, Rng};
    let mut rng = Rng::new(23);
    let mut scratch = LadderScratch::default();
    let (mut checked, mut found, mut attacks) = (0, 0, 0);
    for side in [7, 9] {
        let size = BoardSize::square(side).unwrap();
        for _ in 0..80 {
            let board = random_position(size, rng.below(size.points_count()), &mut rng);
            for last in size.points() {
                let Some(last_color) = board.stone(last) else {
                    continue;
                };
                let color = !last_color;
                let mut fast = Vec::new();
                two_liberty_replies(&board, color, last, &mut fast, &mut scratch);
                fast.sort_unstable();
                let plain = plain_two_liberty_replies(&board, color, last);
                let names = |points: &[Point]| -> Vec<String> {
                    points
                        .iter()
                        .map(|&p| size.gtp(tengen_core::Move::Play(p)).to_string())
                        .collect()
                };
                assert_eq!(
                    names(&fast),
                    names(&plain),
                    "{board:?} {color:?} after {}",
                    names(&[last])[0]
                );
                checked += 1;
                found += usize::from(!plain.is_empty());
                attacks += plain
                    .iter()
                    .filter(|&&p| board.neighbors(p).contains(&last))
                    .count();
            }
        }
    }
    assert!(
        checked > 2000 && found > 300 && attacks > 20,
        "{checked} checked, {found} with replies, {attacks} attacks"
    );
}

#[test]
fn nakade_points_of_eye_shapes() {
    // Each board: White's eye space in the lower left; the point to
    // start from; the vital point, if the shape has one.
    let cases = [
        (
            "straight three",
            "o o o o . .\n. . . o . .",
            "A1",
            Some("B1"),
        ),
        (
            "bent three",
            "o o . . . .\n. o . . . .\n. . o . . .",
            "A2",
            Some("A1"),
        ),
        (
            "pyramid four",
            ". o . . . .\no . o . . .\n. . . o . .",
            "A1",
            Some("B1"),
        ),
        (
            "crossed five",
            ". . o . . .\n. o . o . .\no . . . o .\n. o . o . .\n. . o . . .",
            "C3",
            Some("C3"),
        ),
        (
            "bulky five",
            "o o . . . .\n. . o . . .\n. . . o . .",
            "C1",
            Some("B1"),
        ),
        (
            "rabbity six",
            ". o . . . .\no . o . . .\n. . . o . .\no . . o . .",
            "B3",
            Some("B2"),
        ),
        ("straight four", "o o o o o .\n. . . . o .", "A1", None),
        (
            "square four",
            "o o . . . .\n. . o . . .\n. . o . . .",
            "A1",
            None,
        ),
        (
            "five in a T",
            ". o . . .\no . o . .\no . o . .\n. . . o .",
            "B3",
            None,
        ),
        ("two colours", "o o x o . .\n. . . o . .", "A1", None),
        ("open board", "o o o o . .\n. . . . . .", "A1", None),
        ("occupied", "o o o o . .\n. . . o . .", "D1", None),
    ];
    for (name, rows, start, vital) in cases {
        let rows: Vec<&str> = rows.lines().collect();
        // Pad to 6×6 with empty rows on top.
        let width = rows[0].split_whitespace().count();
        let empty = vec!["."; width].join(" ");
        let mut text = vec![empty; width - rows.len()];
        text.extend(rows.iter().map(|r| r.to_string()));
        let board = Board::from_ascii(&text.join("\n")).unwrap();
        let found = nakade_point(&board, at(&board, start));
        assert_eq!(found, vital.map(|v| at(&board, v)), "{name}\n{board:?}");
    }
}

#[test]
fn eye_spaces_match_a_plain_walk_of_the_whole_region() {
    use tengen_core::{BoardSize, Rng};
    let mut rng = Rng::new(8);
    let (mut spaces, mut checked) = (0, 0);
    for side in [5, 7, 9, 13] {
        let size = BoardSize::square(side).unwrap();
        for _ in 0..100 {
            let turns = rng.below(2 * size.points_count());
            let board = random_position(size, turns, &mut rng);
            for start in board.empty_points().collect::<Vec<_>>() {
                // The whole empty region and the colours around it.
                let mut region = vec![start];
                let mut colours = Vec::new();
                let mut i = 0;
                while i < region.len() {
                    for n in board.neighbors(region[i]) {
                        if board.is_empty_at(n) {
                            if !region.contains(&n) {
                                region.push(n);
                            }
                        } else if let Some(c) = board.stone(n) {
                            if !colours.contains(&c) {
                                colours.push(c);
                            }
                        }
                    }
                    i += 1;
                }
                for owner in [None, Some(Color::Black), Some(Color::White)] {
                    let expected = (3..=6).contains(&region.len())
                        && colours.len() == 1
                        && owner.is_none_or(|o| colours[0] == o);
                    let mut found = PointSet::new(start);
                    let answer = eye_space(&board, start, owner, &mut found);
                    assert_eq!(answer, expected, "{start:?} {owner:?}\n{board:?}");
                    // What the walk saw lies in the region; an eye
                    // space is all of it.
                    assert!(found.as_slice().iter().all(|p| region.contains(p)));
                    if answer {
                        assert_eq!(found.len(), region.len());
                    }
                    spaces += usize::from(answer && region.len() >= 3);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 25_000 && spaces > 150, "{checked} {spaces}");
}
