//! The playout board against the full board, move by move.
//!
//! [`Board`] is itself checked against a from-scratch reference
//! (`differential.rs`). Here random light playouts are played on a
//! [`PlayoutBoard`] and a [`Board`] side by side, and after every turn
//! everything the playout board shows is compared with the full board and
//! with counts made here from the stones: stones, the ko point, legality and
//! eyes for both colours at every empty point, atari and the atari liberty,
//! chain lengths, pseudo-liberty counts, the final count, and its own
//! `check_consistency`. The move the playout board draws must be one the full
//! board accepts, and a pass must mean the full board has none.

use std::panic::{self, AssertUnwindSafe};

use tengen_core::playout::{final_owner, light_playout, playout_score};
use tengen_core::{Board, BoardSize, Color, PlayoutBoard, Point, Rng};

fn size(w: usize, h: usize) -> BoardSize {
    BoardSize::new(w, h).unwrap()
}

/// The moves the full board accepts in a light playout for `color`.
fn acceptable(board: &Board, color: Color) -> Vec<Point> {
    board
        .size()
        .points()
        .filter(|&p| {
            board.is_empty_at(p)
                && board.is_legal_simple(p, color)
                && !board.is_point_an_eye(p, color)
        })
        .collect()
}

/// (stone, empty neighbour) pairs of the chain through `point`, counted on
/// the full board.
fn pseudo_liberties(board: &Board, point: Point) -> usize {
    board
        .chain(point)
        .map(|stone| {
            board
                .on_board_neighbors(stone)
                .filter(|&n| board.is_empty_at(n))
                .count()
        })
        .sum()
}

fn compare(playout: &PlayoutBoard, board: &Board, context: &str) {
    if let Err(why) = playout.check_consistency() {
        panic!("{context}: playout board inconsistent: {why}\n{playout:?}");
    }
    assert_eq!(playout.ko_point(), board.ko_point(), "{context}: ko point");
    assert_eq!(
        playout.playout_score(),
        playout_score(board),
        "{context}: final count"
    );
    for point in board.size().points() {
        let at = format!("{context} at {point:?}");
        assert_eq!(playout.stone(point), board.stone(point), "{at}: stone");
        assert_eq!(
            playout.final_owner(point),
            final_owner(board, point),
            "{at}: final owner"
        );
        match board.stone(point) {
            Some(_) => {
                let atari = board.liberties(point) == 1;
                assert_eq!(playout.in_atari(point), atari, "{at}: atari");
                let liberty = atari.then(|| {
                    board
                        .chain(point)
                        .flat_map(|s| board.on_board_neighbors(s))
                        .find(|&n| board.is_empty_at(n))
                        .unwrap()
                });
                assert_eq!(playout.atari_liberty(point), liberty, "{at}: atari liberty");
                assert_eq!(
                    playout.chain_len(point),
                    board.chain_len(point),
                    "{at}: length"
                );
                assert_eq!(
                    playout.pseudo_liberties(point),
                    pseudo_liberties(board, point),
                    "{at}: pseudo-liberties"
                );
            }
            None => {
                assert!(!playout.in_atari(point), "{at}: empty point in atari");
                for color in [Color::Black, Color::White] {
                    assert_eq!(
                        playout.is_legal(point, color),
                        board.is_legal_simple(point, color),
                        "{at}: legality for {color:?}"
                    );
                    assert_eq!(
                        playout.is_point_an_eye(point, color),
                        board.is_point_an_eye(point, color),
                        "{at}: eye for {color:?}"
                    );
                    assert_eq!(
                        playout.is_ko_retake(point, color),
                        board.is_ko_retake(point, color),
                        "{at}: ko retake for {color:?}"
                    );
                }
            }
        }
    }
}

/// Plays `games` light playouts on `size` with both boards, checking after
/// every turn. Every `rebuild` turns the playout board is also rebuilt from
/// the full board and must equal the one played move by move.
fn play_side_by_side(size: BoardSize, games: u64, seed: u64, rebuild: usize) -> usize {
    let mut turns_checked = 0;
    for game in 0..games {
        let mut rng = Rng::new(seed + game);
        let mut board = Board::new(size);
        let mut playout = PlayoutBoard::new(size);
        let mut color = Color::Black;
        let mut passes = 0;
        let mut turn = 0;
        while passes < 2 && turn < 3 * size.points_count() {
            turn += 1;
            let context = format!("{size} game {game} turn {turn}");
            let offered = acceptable(&board, color);
            match playout.random_move(color, &mut rng) {
                Some(point) => {
                    assert!(
                        offered.contains(&point),
                        "{context}: drew {point:?}, which the full board refuses"
                    );
                    let captured = playout.play(point, color);
                    assert_eq!(
                        captured,
                        board.play_unchecked(point, color),
                        "{context}: captures"
                    );
                    passes = 0;
                }
                None => {
                    assert!(
                        offered.is_empty(),
                        "{context}: passed with {} moves left",
                        offered.len()
                    );
                    playout.pass();
                    board.pass();
                    passes += 1;
                }
            }
            board.check_consistency().unwrap();
            compare(&playout, &board, &context);
            if turn % rebuild == 0 {
                let rebuilt = PlayoutBoard::from_board(&board);
                assert_eq!(rebuilt, playout, "{context}: rebuilt from the full board");
                compare(&rebuilt, &board, &format!("{context} (rebuilt)"));
            }
            turns_checked += 1;
            color = !color;
        }
    }
    turns_checked
}

#[test]
fn playout_board_matches_the_full_board_on_small_boards() {
    let mut turns = 0;
    for (w, h, games) in [(1, 1, 3), (2, 2, 50), (3, 3, 200), (5, 5, 300), (4, 7, 200)] {
        turns += play_side_by_side(size(w, h), games, 1_000 * w as u64 + h as u64, 7);
    }
    assert!(turns > 10_000, "only {turns} turns checked");
}

#[test]
fn playout_board_matches_the_full_board_on_9x9_and_rectangles() {
    play_side_by_side(size(9, 9), 60, 90, 25);
    play_side_by_side(size(7, 11), 30, 711, 25);
}

#[test]
fn playout_board_matches_the_full_board_on_large_boards() {
    play_side_by_side(size(13, 13), 8, 13, 50);
    play_side_by_side(size(19, 19), 3, 19, 100);
    // The largest board holds the largest pseudo-liberty sums.
    play_side_by_side(size(25, 25), 1, 25, 200);
}

/// The move drawn is uniform over the acceptable points: from one middle-game
/// position, each of them comes up about equally often.
#[test]
fn random_moves_are_uniform_over_acceptable_points() {
    let size = size(5, 5);
    let mut board = Board::new(size);
    let mut rng = Rng::new(5);
    let mut color = Color::Black;
    for _ in 0..12 {
        if let Some(p) = board.random_playout_move(color, &mut rng) {
            board.play_unchecked(p, color);
        }
        color = !color;
    }
    let offered = acceptable(&board, color);
    assert!(offered.len() >= 5, "{board:?}");
    let start = PlayoutBoard::from_board(&board);
    let mut work = start.clone();
    let draws = 200 * offered.len();
    let mut counts = vec![0usize; offered.len()];
    for _ in 0..draws {
        work.clone_from(&start);
        let point = work.random_move(color, &mut rng).unwrap();
        counts[offered.iter().position(|&p| p == point).unwrap()] += 1;
    }
    // 200 expected per point, standard deviation about 14: 140..260 is four
    // standard deviations either way.
    for (point, count) in offered.iter().zip(&counts) {
        assert!(
            (140..260).contains(count),
            "{point:?} drawn {count} times: {counts:?}"
        );
    }
}

/// A light playout gives the same statistics on both boards: mean length and
/// Black's mean area over many playouts agree within a few standard errors.
#[test]
fn light_playouts_agree_in_distribution() {
    let size = size(9, 9);
    let cap = 3 * size.points_count() as u32;
    let n = 4_000;
    let mut stats = [(0f64, 0f64, 0f64, 0f64); 2];
    let mut rng = Rng::new(99);
    for _ in 0..n {
        let mut board = Board::new(size);
        let played = light_playout(&mut board, Color::Black, &mut rng, cap);
        let score = f64::from(playout_score(&board));
        let moves = f64::from(played.moves);
        stats[0].0 += moves;
        stats[0].1 += moves * moves;
        stats[0].2 += score;
        stats[0].3 += score * score;
        let mut playout = PlayoutBoard::new(size);
        let played = light_playout(&mut playout, Color::Black, &mut rng, cap);
        let score = f64::from(playout.playout_score());
        let moves = f64::from(played.moves);
        stats[1].0 += moves;
        stats[1].1 += moves * moves;
        stats[1].2 += score;
        stats[1].3 += score * score;
    }
    let n = n as f64;
    let summary = |sum: f64, squares: f64| {
        let mean = sum / n;
        (mean, (squares / n - mean * mean).sqrt() / n.sqrt())
    };
    for (what, a, b) in [
        (
            "moves",
            summary(stats[0].0, stats[0].1),
            summary(stats[1].0, stats[1].1),
        ),
        (
            "score",
            summary(stats[0].2, stats[0].3),
            summary(stats[1].2, stats[1].3),
        ),
    ] {
        let gap = (a.0 - b.0).abs();
        let error = (a.1 * a.1 + b.1 * b.1).sqrt();
        assert!(
            gap < 4.5 * error,
            "{what}: full board {a:?}, playout board {b:?} (mean, standard error)"
        );
    }
}

/// `light_playout` on a [`PlayoutBoard`] runs boards of the common widths
/// (9, 13 and 19 points) in code compiled for their row length. It must play
/// exactly what the general code plays through `random_move`, `play` and
/// `pass` with the same generator: the same final board, statistics and
/// generator state, from the empty board and from positions in mid-game,
/// and on boards of other widths, where it runs the general code itself.
#[test]
fn compiled_row_lengths_play_the_general_moves() {
    for (w, h) in [
        (9, 9),
        (13, 13),
        (19, 19),
        (9, 4),
        (19, 6),
        (13, 2),
        (7, 7),
        (10, 3),
    ] {
        let size = size(w, h);
        let cap = 3 * size.points_count() as u32;
        for seed in 0..120u64 {
            let mut rng = Rng::new(seed);
            let mut start = PlayoutBoard::new(size);
            let mut color = Color::Black;
            for _ in 0..seed % 40 {
                match start.random_move(color, &mut rng) {
                    Some(point) => {
                        start.play(point, color);
                    }
                    None => start.pass(),
                }
                color = !color;
            }
            let context = format!("{size} seed {seed}");

            let mut compiled = start.clone();
            let mut compiled_rng = rng.clone();
            let stats = light_playout(&mut compiled, color, &mut compiled_rng, cap);

            let mut general = start.clone();
            let mut general_rng = rng.clone();
            let (mut moves, mut passes, mut in_a_row, mut turns) = (0, 0, 0, 0);
            let mut to_move = color;
            while turns < cap && in_a_row < 2 {
                turns += 1;
                match general.random_move(to_move, &mut general_rng) {
                    Some(point) => {
                        general.play(point, to_move);
                        moves += 1;
                        in_a_row = 0;
                    }
                    None => {
                        general.pass();
                        passes += 1;
                        in_a_row += 1;
                    }
                }
                to_move = !to_move;
            }

            assert_eq!(compiled, general, "{context}: final boards");
            assert_eq!(
                (stats.moves, stats.passes, stats.capped),
                (moves, passes, in_a_row < 2),
                "{context}: statistics"
            );
            assert_eq!(
                compiled_rng.next_u64(),
                general_rng.next_u64(),
                "{context}: generators"
            );
            assert_eq!(
                compiled.playout_score(),
                general.playout_score(),
                "{context}"
            );
            compiled.check_consistency().unwrap();
        }
    }
}

/// The board reads its arrays without bounds checks, so every point that
/// comes in from a caller is checked against its size: a point of a larger
/// board, or a stone on an occupied point, is refused with a panic instead
/// of reaching past the arrays or breaking the empty list.
#[test]
fn points_from_callers_are_checked() {
    type Query = fn(&mut PlayoutBoard, Point);
    let small = size(5, 5);
    let far = size(19, 19).point(18, 18).unwrap();
    let board = PlayoutBoard::new(small);
    assert_eq!(board.stone(far), None);
    let queries: [(&str, Query); 6] = [
        ("play", |b, p| {
            b.play(p, Color::Black);
        }),
        ("is_legal", |b, p| {
            b.is_legal(p, Color::Black);
        }),
        ("is_point_an_eye", |b, p| {
            b.is_point_an_eye(p, Color::White);
        }),
        ("atari_liberty", |b, p| {
            b.atari_liberty(p);
        }),
        ("chain_len", |b, p| {
            b.chain_len(p);
        }),
        ("final_owner", |b, p| {
            b.final_owner(p);
        }),
    ];
    for (what, query) in queries {
        let mut work = board.clone();
        let refused = panic::catch_unwind(AssertUnwindSafe(|| query(&mut work, far)));
        assert!(refused.is_err(), "{what} accepted a point off the board");
    }
    let center = small.point(2, 2).unwrap();
    let mut work = board.clone();
    work.play(center, Color::Black);
    let again = panic::catch_unwind(AssertUnwindSafe(|| work.play(center, Color::White)));
    assert!(again.is_err(), "a stone went down on an occupied point");
}
