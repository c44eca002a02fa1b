//! The board symmetries: a group of eight (four on rectangles), and they
//! commute with every encoder, on input planes and on moves.

use tengen_core::{BoardSize, Game, Move, Rng, Rules};
use tengen_nn::encoder::{encoder_by_name, ENCODER_NAMES};
use tengen_nn::symmetry::Symmetry;

fn size(width: usize, height: usize) -> BoardSize {
    BoardSize::new(width, height).unwrap()
}

/// Boards of every shape the symmetries treat differently: 1x1, even and odd
/// squares, wide and tall rectangles, a single row.
fn sizes() -> Vec<BoardSize> {
    [
        (1, 1),
        (2, 2),
        (3, 3),
        (4, 4),
        (5, 5),
        (6, 3),
        (3, 6),
        (7, 1),
        (19, 19),
    ]
    .into_iter()
    .map(|(w, h)| size(w, h))
    .collect()
}

/// Input planes whose every value is different, so that a mapped copy shows
/// exactly where each value went.
fn numbered(planes: usize, size: BoardSize) -> Vec<f32> {
    (0..planes * size.points_count())
        .map(|i| i as f32)
        .collect()
}

fn apply(symmetry: Symmetry, size: BoardSize, planes: usize, input: &[f32]) -> Vec<f32> {
    let mut out = vec![f32::NAN; input.len()];
    symmetry.apply_planes(size, planes, input, &mut out);
    out
}

#[test]
fn for_size_gives_eight_on_squares_and_four_on_rectangles() {
    for size in sizes() {
        let symmetries = Symmetry::for_size(size);
        if size.is_square() {
            assert_eq!(symmetries, Symmetry::ALL);
        } else {
            assert_eq!(symmetries.len(), 4, "{size}");
            assert!(symmetries.iter().all(|s| !s.transposes()), "{size}");
        }
        assert_eq!(symmetries[0], Symmetry::IDENTITY);
    }
    assert_eq!(Symmetry::ALL.iter().filter(|s| s.transposes()).count(), 4);
}

#[test]
fn every_symmetry_permutes_the_points() {
    for size in sizes() {
        for &symmetry in Symmetry::for_size(size) {
            let mut hit = vec![false; size.points_count()];
            for index in 0..size.points_count() {
                let image = symmetry.map_index(size, index);
                assert!(!hit[image], "{symmetry:?} on {size}: {image} hit twice");
                hit[image] = true;
            }
        }
    }
}

#[test]
fn inverse_undoes_each_symmetry_on_indices_and_planes() {
    for size in sizes() {
        let input = numbered(3, size);
        for &symmetry in Symmetry::for_size(size) {
            let inverse = symmetry.inverse();
            assert_eq!(inverse.inverse(), symmetry);
            assert_eq!(inverse.transposes(), symmetry.transposes());
            for index in 0..size.points_count() {
                assert_eq!(
                    inverse.map_index(size, symmetry.map_index(size, index)),
                    index,
                    "{symmetry:?} on {size}"
                );
                assert_eq!(
                    symmetry.map_index(size, inverse.map_index(size, index)),
                    index,
                    "{symmetry:?} on {size}"
                );
            }
            let there = apply(symmetry, size, 3, &input);
            assert_eq!(apply(inverse, size, 3, &there), input, "{symmetry:?}");
        }
    }
}

#[test]
fn the_eight_are_distinct_on_an_asymmetric_pattern() {
    // An L of three stones and one apart: no rotation or reflection of the
    // 5x5 board maps it onto itself.
    let size = size(5, 5);
    let mut pattern = vec![0.0; 25];
    for (col, row) in [(0, 0), (1, 0), (0, 1), (3, 2)] {
        pattern[row * 5 + col] = 1.0;
    }
    let images: Vec<Vec<f32>> = Symmetry::ALL
        .iter()
        .map(|&s| apply(s, size, 1, &pattern))
        .collect();
    assert_eq!(images[0], pattern);
    for i in 0..8 {
        for j in 0..i {
            assert_ne!(images[i], images[j], "symmetries {j} and {i} agree");
        }
    }
}

#[test]
fn the_four_are_distinct_on_a_rectangle() {
    let size = size(6, 3);
    let pattern = numbered(1, size);
    let images: Vec<Vec<f32>> = Symmetry::for_size(size)
        .iter()
        .map(|&s| apply(s, size, 1, &pattern))
        .collect();
    for i in 0..images.len() {
        for j in 0..i {
            assert_ne!(images[i], images[j]);
        }
    }
}

#[test]
fn the_geometry_is_the_documented_one() {
    // On 3x3, index 0 is the bottom-left corner A1, 2 is C1, 6 is A3, 8 is C3.
    let size = size(3, 3);
    let corner = |s: usize| Symmetry::ALL[s].map_index(size, 0);
    assert_eq!(corner(0), 0);
    assert_eq!(corner(1), 2, "1 mirrors the columns");
    assert_eq!(corner(2), 6, "2 mirrors the rows");
    assert_eq!(corner(3), 8, "3 is the half turn");
    // C1 (index 2) under transposition goes to A3 (index 6).
    assert_eq!(Symmetry::ALL[4].map_index(size, 2), 6, "4 transposes");
    assert_eq!(Symmetry::ALL[4].map_index(size, 0), 0);
    assert_eq!(Symmetry::ALL[7].map_index(size, 0), 8, "7: other diagonal");
    // 5 and 6 are the quarter turns: twice each is the half turn, and they
    // undo each other.
    for index in 0..9 {
        for quarter in [Symmetry::ALL[5], Symmetry::ALL[6]] {
            let twice = quarter.map_index(size, quarter.map_index(size, index));
            assert_eq!(twice, Symmetry::ALL[3].map_index(size, index));
        }
    }
    assert_eq!(Symmetry::ALL[5].inverse(), Symmetry::ALL[6]);
}

#[test]
fn map_move_maps_points_as_map_index_and_keeps_the_pass() {
    for size in sizes() {
        let points = size.points_count();
        for &symmetry in Symmetry::for_size(size) {
            for index in 0..points {
                assert_eq!(
                    symmetry.map_move(size, index),
                    symmetry.map_index(size, index)
                );
            }
            assert_eq!(symmetry.map_move(size, points), points);
        }
    }
}

#[test]
fn map_move_and_decode_move_agree_for_every_encoder() {
    for size in sizes() {
        for &name in ENCODER_NAMES {
            let encoder = encoder_by_name(name, size).unwrap();
            for &symmetry in Symmetry::for_size(size) {
                for index in 0..encoder.moves() {
                    let expected = match encoder.decode_move(index).unwrap() {
                        Move::Play(point) => Move::Play(symmetry.map_point(size, point)),
                        Move::Pass => Move::Pass,
                    };
                    let mapped = symmetry.map_move(size, index);
                    assert_eq!(encoder.decode_move(mapped), Some(expected), "{name}");
                    assert_eq!(encoder.encode_move(expected), Some(mapped), "{name}");
                }
            }
        }
    }
}

#[test]
#[should_panic]
fn a_transposing_symmetry_on_a_rectangle_panics() {
    Symmetry::ALL[4].map_index(size(6, 3), 0);
}

#[test]
#[should_panic]
fn apply_planes_on_a_short_buffer_panics() {
    let size = size(5, 5);
    let mut out = vec![0.0; 49];
    Symmetry::ALL[1].apply_planes(size, 2, &[0.0; 50], &mut out);
}

/// The image of a move under `symmetry`.
fn map_move(symmetry: Symmetry, size: BoardSize, mv: Move) -> Move {
    match mv {
        Move::Play(point) => Move::Play(symmetry.map_point(size, point)),
        Move::Pass => Move::Pass,
    }
}

/// A random game of up to `length` moves, passes rare, and its moves.
fn random_game(size: BoardSize, length: usize, rng: &mut Rng) -> (Game, Vec<Move>) {
    let mut game = Game::new(size, Rules::default());
    let mut moves = Vec::new();
    for _ in 0..length {
        let legal = game.legal_moves();
        if legal.is_empty() {
            break;
        }
        let mv = if rng.below(20) == 0 {
            Move::Pass
        } else {
            // The pass is last; pick among the others when there are any.
            let plays = legal.len() - 1;
            legal[rng.below(plays.max(1))]
        };
        game.play(mv).unwrap();
        moves.push(mv);
        // Random play seldom ends just after a ko capture; stopping there
        // half the time makes sure the ko planes are exercised.
        if game.board().ko_point().is_some() && rng.below(2) == 0 {
            break;
        }
    }
    (game, moves)
}

#[test]
fn encoding_commutes_with_every_symmetry_on_random_positions() {
    let mut rng = Rng::new(0x5eed);
    let mut positions = 0;
    let mut with_ko = 0;
    for size in sizes() {
        for _ in 0..12 {
            let length = rng.below(3 * size.points_count() + 1);
            let (game, moves) = random_game(size, length, &mut rng);
            // A move to check map_move against: the next one, if any.
            let next = game.legal_moves().first().copied();
            positions += 1;
            with_ko += usize::from(game.board().ko_point().is_some());
            for &symmetry in Symmetry::for_size(size) {
                // Replaying the mapped moves gives the mapped game, history
                // and ko point included, since the rules are symmetric.
                let mut image = Game::new(size, Rules::default());
                for &mv in &moves {
                    image
                        .play(map_move(symmetry, size, mv))
                        .expect("the image of a legal move is legal");
                }
                for &name in ENCODER_NAMES {
                    let encoder = encoder_by_name(name, size).unwrap();
                    let mut planes = vec![0.0; encoder.input_len()];
                    encoder.encode(&game, &mut planes);
                    let mapped = apply(symmetry, size, encoder.planes(), &planes);
                    let mut direct = vec![0.0; encoder.input_len()];
                    encoder.encode(&image, &mut direct);
                    assert_eq!(mapped, direct, "{name} {size} {symmetry:?} {moves:?}");
                    for mv in moves.iter().copied().chain(next) {
                        let Some(index) = encoder.encode_move(mv) else {
                            assert_eq!(mv, Move::Pass);
                            continue;
                        };
                        assert_eq!(
                            encoder.encode_move(map_move(symmetry, size, mv)),
                            Some(symmetry.map_move(size, index)),
                            "{name} {size} {symmetry:?} {mv:?}"
                        );
                    }
                }
            }
        }
    }
    assert_eq!(positions, 12 * sizes().len());
    // The ko planes must have been exercised, not only the stone planes.
    assert!(with_ko > 0, "no position with a ko point");
}
