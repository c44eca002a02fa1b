//! Criterion benchmarks of the rules core: playing moves, testing legality,
//! undoing, and whole light playouts, on the full board and on the playout
//! board side by side; the dead-stone estimate; and the superko context a
//! search keys positions by, beside the game copy each descent makes.
//!
//! `cargo bench -p tengen-core` (add `-- --quick` for a short run).

use criterion::{black_box, criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use tengen_core::scoring::{estimate_status, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED};
use tengen_core::{playout, Board, BoardSize, Color, Game, Move, PlayoutBoard, Point, Rng, Rules};

/// A recorded light playout: the moves of one random game on `size`.
fn recorded_game(size: BoardSize, seed: u64) -> Vec<(Point, Color)> {
    let mut board = Board::new(size);
    let mut rng = Rng::new(seed);
    let mut color = Color::Black;
    let mut moves = Vec::new();
    let mut passes = 0;
    while passes < 2 && moves.len() < 3 * size.points_count() {
        match board.random_playout_move(color, &mut rng) {
            Some(p) => {
                board.play_unchecked(p, color);
                moves.push((p, color));
                passes = 0;
            }
            None => passes += 1,
        }
        color = !color;
    }
    moves
}

fn play(c: &mut Criterion) {
    let mut group = c.benchmark_group("play");
    for side in [9, 19] {
        let size = BoardSize::square(side).unwrap();
        let moves = recorded_game(size, 1);
        let empty = Board::new(size);
        group.throughput(Throughput::Elements(moves.len() as u64));
        group.bench_function(format!("{side}x{side} replay of a playout"), |b| {
            let mut board = empty.clone();
            b.iter(|| {
                board.clone_from(&empty);
                for &(p, color) in &moves {
                    board.play_unchecked(p, color);
                }
                black_box(board.hash())
            })
        });
        let empty = PlayoutBoard::new(size);
        group.bench_function(format!("{side}x{side} replay on the playout board"), |b| {
            let mut board = empty.clone();
            b.iter(|| {
                board.clone_from(&empty);
                for &(p, color) in &moves {
                    board.play(p, color);
                }
                black_box(board.empty_count())
            })
        });
    }
    group.finish();
}

fn legality(c: &mut Criterion) {
    let mut group = c.benchmark_group("legality");
    for side in [9, 19] {
        let size = BoardSize::square(side).unwrap();
        let moves = recorded_game(size, 2);
        // A middle-game position: half of a playout.
        let mut board = Board::new(size);
        for &(p, color) in &moves[..moves.len() / 2] {
            board.play_unchecked(p, color);
        }
        let points: Vec<Point> = size.points().collect();
        group.throughput(Throughput::Elements(points.len() as u64));
        let playout = PlayoutBoard::from_board(&board);
        group.bench_function(
            format!("{side}x{side} playout board is_legal, every point"),
            |b| {
                b.iter(|| {
                    points
                        .iter()
                        .filter(|&&p| playout.is_legal(p, Color::Black))
                        .count()
                })
            },
        );
        group.bench_function(format!("{side}x{side} is_legal_simple, every point"), |b| {
            b.iter(|| {
                points
                    .iter()
                    .filter(|&&p| board.is_legal_simple(p, Color::Black))
                    .count()
            })
        });
        let game = Game::from_position(board.clone(), Color::Black, Rules::default());
        group.bench_function(
            format!("{side}x{side} Game::legal (superko), every point"),
            |b| {
                b.iter(|| {
                    points
                        .iter()
                        .filter(|&&p| game.legal(Move::Play(p)).is_ok())
                        .count()
                })
            },
        );
    }
    group.finish();
}

fn undo(c: &mut Criterion) {
    let mut group = c.benchmark_group("undo");
    let size = BoardSize::square(19).unwrap();
    let mut game = Game::new(size, Rules::default());
    for (p, _) in recorded_game(size, 3).into_iter().take(150) {
        if game.play(Move::Play(p)).is_err() {
            game.play(Move::Pass).ok();
        }
    }
    group.throughput(Throughput::Elements(game.turn_count() as u64));
    group.bench_function("19x19 undo a 150-move game to the start", |b| {
        b.iter_batched(
            || game.clone(),
            |mut g| {
                while g.undo().is_some() {}
                g
            },
            BatchSize::LargeInput,
        )
    });
    group.finish();
}

fn playouts(c: &mut Criterion) {
    let mut group = c.benchmark_group("light playout");
    for side in [9, 19] {
        let size = BoardSize::square(side).unwrap();
        let empty = Board::new(size);
        let mut work = empty.clone();
        let mut rng = Rng::new(4);
        let cap = 3 * size.points_count() as u32;
        group.bench_function(format!("{side}x{side} from the empty board"), |b| {
            b.iter(|| {
                work.clone_from(&empty);
                let stats = playout::light_playout(&mut work, Color::Black, &mut rng, cap);
                black_box((stats, playout::playout_score(&work)))
            })
        });
        let empty = PlayoutBoard::new(size);
        let mut work = empty.clone();
        group.bench_function(format!("{side}x{side} on the playout board"), |b| {
            b.iter(|| {
                work.clone_from(&empty);
                let stats = playout::light_playout(&mut work, Color::Black, &mut rng, cap);
                black_box((stats, work.playout_score()))
            })
        });
    }
    group.finish();
}

/// The dead-stone estimate behind `final_score` and the web count, on the
/// position two thirds of the way through a random game (chains still
/// unsettled, so the playouts have work to do).
fn dead_stone_estimate(c: &mut Criterion) {
    let mut group = c.benchmark_group("dead-stone estimate");
    group.sample_size(20);
    for side in [9, 19] {
        let size = BoardSize::square(side).unwrap();
        let moves = recorded_game(size, 11);
        let mut board = Board::new(size);
        for &(point, color) in &moves[..moves.len() * 2 / 3] {
            board.play_unchecked(point, color);
        }
        group.bench_function(
            format!("{side}x{side}, {DEFAULT_STATUS_PLAYOUTS} playouts"),
            |b| {
                b.iter(|| {
                    black_box(estimate_status(
                        &board,
                        Color::Black,
                        DEFAULT_STATUS_PLAYOUTS,
                        DEFAULT_STATUS_SEED,
                    ))
                })
            },
        );
    }
    group.finish();
}

fn superko_context(c: &mut Criterion) {
    let mut group = c.benchmark_group("superko_context");
    for side in [9, 19] {
        let size = BoardSize::square(side).unwrap();
        let mut game = Game::new(size, Rules::default());
        for (point, color) in recorded_game(size, 1) {
            // A playout ignores superko; the game skips what it forbids.
            let _ = game.play_as(color, Move::Play(point));
        }
        let turns = game.turn_count();
        group.bench_function(format!("{side}x{side} after {turns} turns"), |b| {
            b.iter(|| black_box(&game).superko_context())
        });
        group.bench_function(
            format!("{side}x{side} game copy after {turns} turns"),
            |b| b.iter(|| black_box(&game).clone()),
        );
    }
    group.finish();
}

criterion_group!(
    benches,
    play,
    legality,
    undo,
    playouts,
    dead_stone_estimate,
    superko_context
);
criterion_main!(benches);
