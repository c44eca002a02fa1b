//! The board encoders, plane by plane, on the positions in
//! `tests/data/encoders/` (the format is in that folder's README), and their
//! move indices, registry and buffer contract.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use tengen_core::{Board, BoardSize, Color, Game, Move, Rules};
use tengen_nn::encoder::{
    encoder_by_name, index_point, point_index, Encoder, EncoderError, OnePlaneEncoder,
    SevenPlaneEncoder, SimpleEncoder, ZeroEncoder, ENCODER_NAMES,
};

/// The fixtures that must be there: a missing file would otherwise just mean
/// fewer checks.
const FIXTURES: &[&str] = &[
    "ko.txt",
    "ko_capturer.txt",
    "liberties_black.txt",
    "liberties_white.txt",
    "nineteen.txt",
    "rectangle.txt",
    "tall.txt",
    "tiny.txt",
];

/// Planes per encoder, in [`ENCODER_NAMES`] order, as the book defines them.
const PLANES: &[usize] = &[1, 7, 11, 11];

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/encoders")
}

/// One fixture file: the game it describes and the planes expected of it.
struct Fixture {
    game: Game,
    /// (encoder name, plane) → values in encoder layout (row * w + col).
    planes: BTreeMap<(String, usize), Vec<f32>>,
}

fn parse_color(text: &str) -> Color {
    Color::parse(text).unwrap_or_else(|| panic!("bad colour {text:?}"))
}

/// Reads a grid of `height` rows (top row first) of `.`, `1` and `-`.
fn parse_grid(size: BoardSize, rows: &[&str]) -> Vec<f32> {
    assert_eq!(
        rows.len(),
        size.height(),
        "grid needs {} rows",
        size.height()
    );
    let mut values = vec![0.0; size.points_count()];
    for (from_top, row) in rows.iter().enumerate() {
        let cells: Vec<char> = row.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(cells.len(), size.width(), "grid row {row:?}");
        let r = size.height() - 1 - from_top;
        for (col, c) in cells.into_iter().enumerate() {
            values[r * size.width() + col] = match c {
                '.' => 0.0,
                '1' => 1.0,
                '-' => -1.0,
                other => panic!("bad grid cell {other:?}"),
            };
        }
    }
    values
}

/// Reads `none`, `all`, or a list of GTP points (`-` before one for −1).
fn parse_sparse(size: BoardSize, text: &str) -> Vec<f32> {
    match text {
        "none" => return vec![0.0; size.points_count()],
        "all" => return vec![1.0; size.points_count()],
        _ => {}
    }
    let mut values = vec![0.0; size.points_count()];
    for word in text.split_whitespace() {
        let (value, vertex) = match word.strip_prefix('-') {
            Some(vertex) => (-1.0, vertex),
            None => (1.0, word),
        };
        let Ok(Move::Play(point)) = size.parse_gtp(vertex) else {
            panic!("bad point {word:?}");
        };
        let index = point_index(size, point);
        assert_eq!(values[index], 0.0, "{word} listed twice");
        values[index] = value;
    }
    values
}

fn parse_fixture(text: &str) -> Fixture {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .collect();
    let mut to_move = None;
    let mut board: Option<Board> = None;
    let mut moves = Vec::new();
    let mut then_to_move = None;
    let mut planes = BTreeMap::new();
    let mut i = 0;
    while i < lines.len() {
        let (key, value) = lines[i]
            .split_once(':')
            .unwrap_or_else(|| panic!("expected `key: value`, found {:?}", lines[i]));
        let value = value.trim();
        i += 1;
        match key {
            "to_move" => to_move = Some(parse_color(value)),
            "then_to_move" => then_to_move = Some(parse_color(value)),
            "board" => {
                let start = i;
                while i < lines.len() && !lines[i].contains(':') {
                    i += 1;
                }
                board = Some(Board::from_ascii(&lines[start..i].join("\n")).expect("diagram"));
            }
            "play" => moves.extend(value.split_whitespace()),
            _ => {
                let (name, plane) = key
                    .split_once(' ')
                    .unwrap_or_else(|| panic!("unknown key {key:?}"));
                assert!(ENCODER_NAMES.contains(&name), "unknown encoder {name:?}");
                let plane: usize = plane.parse().expect("plane number");
                let size = board.as_ref().expect("board before planes").size();
                let values = if value.is_empty() {
                    let rows = &lines[i..i + size.height()];
                    i += size.height();
                    parse_grid(size, rows)
                } else {
                    parse_sparse(size, value)
                };
                let old = planes.insert((name.to_string(), plane), values);
                assert!(old.is_none(), "{name} plane {plane} given twice");
            }
        }
    }
    let board = board.expect("no board");
    let size = board.size();
    let mut game = Game::from_position(board, to_move.expect("no to_move"), Rules::default());
    for text in moves {
        let mv = size.parse_gtp(text).expect("move");
        game.play(mv)
            .unwrap_or_else(|e| panic!("{text} is illegal: {e}"));
    }
    if let Some(color) = then_to_move {
        // Rebuilding from the board keeps its ko point and changes only the
        // side to move.
        game = Game::from_position(game.board().clone(), color, Rules::default());
    }
    Fixture { game, planes }
}

/// A plane as a grid, top row first, for failure messages.
fn show_plane(size: BoardSize, values: &[f32]) -> String {
    let mut out = String::new();
    for row in (0..size.height()).rev() {
        for col in 0..size.width() {
            let v = values[row * size.width() + col];
            out.push_str(if v == 0.0 {
                " ."
            } else if v == 1.0 {
                " 1"
            } else if v == -1.0 {
                " -"
            } else {
                " ?"
            });
        }
        out.push('\n');
    }
    out
}

#[test]
fn fixtures_are_all_present() {
    let mut found: Vec<String> = fs::read_dir(fixture_dir())
        .expect("fixture folder")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".txt"))
        .collect();
    found.sort();
    assert_eq!(found, FIXTURES);
}

#[test]
fn every_encoder_matches_every_fixture_plane_by_plane() {
    let mut failures = Vec::new();
    let mut planes_checked = 0;
    for file in FIXTURES {
        let text = fs::read_to_string(fixture_dir().join(file)).expect("fixture");
        let fixture = parse_fixture(&text);
        let size = fixture.game.size();
        for (&name, &planes) in ENCODER_NAMES.iter().zip(PLANES) {
            let encoder = encoder_by_name(name, size).unwrap();
            assert_eq!(encoder.planes(), planes);
            let mut out = vec![f32::NAN; encoder.input_len()];
            encoder.encode(&fixture.game, &mut out);
            for plane in 0..planes {
                let expected = fixture
                    .planes
                    .get(&(name.to_string(), plane))
                    .unwrap_or_else(|| panic!("{file}: {name} plane {plane} missing"));
                let points = size.points_count();
                let actual = &out[plane * points..(plane + 1) * points];
                planes_checked += 1;
                if actual != expected.as_slice() {
                    failures.push(format!(
                        "{file}: {name} plane {plane}\nexpected\n{}got\n{}",
                        show_plane(size, expected),
                        show_plane(size, actual)
                    ));
                }
            }
        }
        let extra: Vec<_> = fixture
            .planes
            .keys()
            .filter(|(name, plane)| {
                let i = ENCODER_NAMES.iter().position(|n| n == name).unwrap();
                *plane >= PLANES[i]
            })
            .collect();
        assert!(extra.is_empty(), "{file}: planes past the end {extra:?}");
    }
    assert_eq!(
        planes_checked,
        FIXTURES.len() * PLANES.iter().sum::<usize>()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn ko_fixture_has_exactly_one_ko_point() {
    let text = fs::read_to_string(fixture_dir().join("ko.txt")).unwrap();
    let fixture = parse_fixture(&text);
    let points = fixture.game.size().points_count();
    for (name, plane) in [("sevenplane", 6), ("simple", 10), ("zero", 10)] {
        let encoder = encoder_by_name(name, fixture.game.size()).unwrap();
        let mut out = vec![0.0; encoder.input_len()];
        encoder.encode(&fixture.game, &mut out);
        let ko = &out[plane * points..(plane + 1) * points];
        assert_eq!(ko.iter().filter(|&&v| v == 1.0).count(), 1, "{name}");
        assert_eq!(ko.iter().filter(|&&v| v != 0.0).count(), 1, "{name}");
    }
}

fn sizes() -> Vec<BoardSize> {
    [
        (1, 1),
        (2, 2),
        (5, 5),
        (6, 3),
        (3, 6),
        (1, 25),
        (9, 9),
        (13, 13),
        (19, 19),
        (25, 25),
    ]
    .into_iter()
    .map(|(w, h)| BoardSize::new(w, h).unwrap())
    .collect()
}

#[test]
fn move_indices_round_trip_for_every_point_and_pass() {
    for size in sizes() {
        let points = size.points_count();
        for &name in ENCODER_NAMES {
            let encoder = encoder_by_name(name, size).unwrap();
            assert_eq!(encoder.moves(), points + usize::from(encoder.has_pass()));
            let mut seen = vec![false; encoder.moves()];
            for point in size.points() {
                let (col, row) = size.col_row(point);
                let index = encoder.encode_move(Move::Play(point)).unwrap();
                assert_eq!(index, row * size.width() + col, "{name} {size}");
                assert!(!seen[index], "{name} {size}: index {index} twice");
                seen[index] = true;
                assert_eq!(encoder.decode_move(index), Some(Move::Play(point)));
            }
            if encoder.has_pass() {
                assert_eq!(encoder.encode_move(Move::Pass), Some(points));
                assert_eq!(encoder.decode_move(points), Some(Move::Pass));
                seen[points] = true;
            } else {
                assert_eq!(encoder.encode_move(Move::Pass), None, "{name}");
                assert_eq!(encoder.decode_move(points), None, "{name}");
            }
            assert!(seen.iter().all(|&s| s), "{name} {size}: an index unused");
            assert_eq!(encoder.decode_move(encoder.moves()), None);
            assert_eq!(encoder.decode_move(usize::MAX), None);
        }
    }
}

#[test]
fn only_zero_has_a_pass() {
    let size = BoardSize::square(9).unwrap();
    let with_pass: Vec<&str> = ENCODER_NAMES
        .iter()
        .copied()
        .filter(|&name| encoder_by_name(name, size).unwrap().has_pass())
        .collect();
    assert_eq!(with_pass, ["zero"]);
}

#[test]
fn a_point_of_another_board_has_no_index() {
    // Point (8, 8) of a 9x9 board lies in a wall cell of a 5x5 board's array.
    let big = BoardSize::square(9).unwrap();
    let small = BoardSize::square(5).unwrap();
    let far = big.point(8, 8).unwrap();
    assert!(!small.contains(far));
    for &name in ENCODER_NAMES {
        let encoder = encoder_by_name(name, small).unwrap();
        assert_eq!(encoder.encode_move(Move::Play(far)), None, "{name}");
    }
}

#[test]
fn point_index_and_index_point_are_inverse() {
    for size in sizes() {
        for (i, point) in size.points().enumerate() {
            assert_eq!(point_index(size, point), i);
            assert_eq!(index_point(size, i), Some(point));
        }
        assert_eq!(index_point(size, size.points_count()), None);
    }
}

#[test]
fn encoder_by_name_makes_each_registered_encoder() {
    assert_eq!(ENCODER_NAMES, ["oneplane", "sevenplane", "simple", "zero"]);
    let size = BoardSize::new(7, 5).unwrap();
    for (&name, &planes) in ENCODER_NAMES.iter().zip(PLANES) {
        let encoder = encoder_by_name(name, size).unwrap();
        assert_eq!(encoder.name(), name);
        assert_eq!(encoder.size(), size);
        assert_eq!(encoder.planes(), planes);
        assert_eq!(encoder.input_len(), planes * 35);
    }
    // The concrete types carry the same names.
    assert_eq!(OnePlaneEncoder::new(size).name(), "oneplane");
    assert_eq!(SevenPlaneEncoder::new(size).name(), "sevenplane");
    assert_eq!(SimpleEncoder::new(size).name(), "simple");
    assert_eq!(ZeroEncoder::new(size).name(), "zero");
}

#[test]
fn an_unknown_encoder_is_refused_with_the_known_names() {
    let size = BoardSize::square(9).unwrap();
    for bad in ["betago", "", "Zero", "seven plane"] {
        let error = encoder_by_name(bad, size).unwrap_err();
        assert_eq!(
            error,
            EncoderError::UnknownEncoder {
                name: bad.to_string()
            }
        );
        let message = error.to_string();
        assert!(message.contains(&format!("{bad:?}")), "{message}");
        for name in ENCODER_NAMES {
            assert!(message.contains(name), "{message} lacks {name}");
        }
    }
}

/// A 9x9 game with stones of both colours.
fn busy_game() -> Game {
    let size = BoardSize::square(9).unwrap();
    let mut game = Game::new(size, Rules::default());
    for text in ["E5", "D5", "E4", "D4", "E6", "D6", "C3", "F5"] {
        game.play(size.parse_gtp(text).unwrap()).unwrap();
    }
    game
}

#[test]
fn encode_writes_exactly_input_len_values() {
    let game = busy_game();
    for &name in ENCODER_NAMES {
        let encoder = encoder_by_name(name, game.size()).unwrap();
        let len = encoder.input_len();
        assert_eq!(len, encoder.planes() * 81);
        let mut out = vec![f32::NAN; len + 7];
        encoder.encode(&game, &mut out);
        assert!(out[..len].iter().all(|v| v.is_finite()), "{name}");
        assert!(out[len..].iter().all(|v| v.is_nan()), "{name} wrote past");
    }
}

#[test]
fn encode_overwrites_what_was_there() {
    let busy = busy_game();
    let empty = Game::new(busy.size(), Rules::default());
    for &name in ENCODER_NAMES {
        let encoder = encoder_by_name(name, busy.size()).unwrap();
        let mut fresh = vec![0.0; encoder.input_len()];
        encoder.encode(&empty, &mut fresh);
        let mut reused = vec![0.0; encoder.input_len()];
        encoder.encode(&busy, &mut reused);
        assert_ne!(fresh, reused, "{name}: the busy game looks empty");
        encoder.encode(&empty, &mut reused);
        assert_eq!(fresh, reused, "{name}");
    }
}

#[test]
#[should_panic]
fn encode_into_a_short_buffer_panics() {
    let game = busy_game();
    let encoder = encoder_by_name("sevenplane", game.size()).unwrap();
    let mut out = vec![0.0; encoder.input_len() - 1];
    encoder.encode(&game, &mut out);
}

#[test]
#[should_panic]
fn encode_a_game_of_another_size_panics() {
    let game = busy_game();
    let encoder = encoder_by_name("oneplane", BoardSize::square(19).unwrap()).unwrap();
    let mut out = vec![0.0; 19 * 19 * 2];
    encoder.encode(&game, &mut out);
}

#[test]
fn encoders_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync + ?Sized>() {}
    shareable::<dyn Encoder>();
    let encoder = encoder_by_name("zero", BoardSize::square(9).unwrap()).unwrap();
    let game = busy_game();
    let expected = {
        let mut out = vec![0.0; encoder.input_len()];
        encoder.encode(&game, &mut out);
        out
    };
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                let mut out = vec![0.0; encoder.input_len()];
                encoder.encode(&game, &mut out);
                assert_eq!(out, expected);
            });
        }
    });
}
