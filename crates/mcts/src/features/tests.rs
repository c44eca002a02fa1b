use super::*;

fn at(board: &Board, vertex: &str) -> Point {
    board.size().parse_gtp(vertex).unwrap().point().unwrap()
}

#[test]
fn the_corner_feature_tells_corner_points_from_side_points() {
    let board = Board::new(tengen_core::BoardSize::square(19).unwrap());
    let mut black = PositionFeatures::new(&board, Color::Black, None, None);
    let mut corner = |vertex| black.of(&board, at(&board, vertex)).values[Group::Corner as usize];
    // The same pair of lines has the same value in all four corners and
    // both orientations.
    for (same, value) in [
        (["A1", "T1", "A19", "T19"], 1),
        (["D4", "Q4", "D16", "Q16"], 16),
        (["C4", "D3", "R16", "Q17"], 13),
        (["D6", "F4", "O16", "Q14"], 18),
    ] {
        for vertex in same {
            assert_eq!(corner(vertex), value, "{vertex}");
        }
    }
    // Points away from the corners: on a side, or in the middle.
    for vertex in ["K4", "D10", "G4", "K10", "E5", "A7"] {
        assert_eq!(corner(vertex), 0, "{vertex}");
    }
    // Every pair has its own value, and the values fill 1 to 18.
    let mut seen = std::collections::BTreeSet::new();
    for col in 0..6 {
        for row in 0..6 {
            let value = corner_value(col.min(row), col.max(row));
            if col.min(row) < 4 {
                assert_ne!(value, 0);
                seen.insert((value, col.min(row), col.max(row)));
            }
        }
    }
    let values: Vec<u8> = seen.iter().map(|s| s.0).collect();
    assert_eq!(
        values,
        (1..Group::Corner.values() as u8).collect::<Vec<_>>()
    );
    assert_eq!(seen.len(), Group::Corner.values() - 1);
    // On a 9x9 board the 3-3 point and the 4-4 point are corner points,
    // tengen (E5) is not.
    let on_9x9 = |col, row| {
        let (near, far) = edge_lines(9, 9, (col, row));
        corner_value(near, far)
    };
    assert_eq!(on_9x9(2, 2), 12);
    assert_eq!(on_9x9(3, 3), 16);
    assert_eq!(on_9x9(4, 4), 0);
}

#[test]
fn a_shape_has_one_canonical_code_in_every_orientation_and_colour() {
    // A hane at C3: own stone diagonal, enemy stone beside it.
    let code = |diagram: &str, player| {
        let board = Board::from_ascii(diagram).unwrap();
        pattern_code(&board, at(&board, "C3"), player)
    };
    let upper_left = code(
        ". . . . .
         . x o . .
         . . . . .
         . . . . .
         . . . . .",
        Color::Black,
    );
    // Turned half a turn.
    let lower_right = code(
        ". . . . .
         . . . . .
         . . . . .
         . . o x .
         . . . . .",
        Color::Black,
    );
    // Turned a quarter, colours swapped, White to play.
    let diagram = ". . . . .
         . . . o .
         . . . x .
         . . . . .
         . . . . .";
    let quarter = code(diagram, Color::White);
    assert_ne!(upper_left, lower_right);
    assert_eq!(
        canonical_pattern(upper_left),
        canonical_pattern(lower_right)
    );
    assert_eq!(canonical_pattern(upper_left), canonical_pattern(quarter));
    // For Black the same stones are another shape (own stone beside,
    // enemy diagonal).
    let other = code(diagram, Color::Black);
    assert_ne!(canonical_pattern(other), canonical_pattern(upper_left));
    // Every orientation maps to the same canonical code.
    for oriented in pattern_orientations(upper_left) {
        assert_eq!(canonical_pattern(oriented), canonical_pattern(upper_left));
    }
}

#[test]
fn captures_escapes_self_ataris_and_ataris() {
    let board = Board::from_ascii(
        ". . . . . . .
         . . . . . . .
         . . . . . . .
         . . . . . . .
         . . . . . . .
         . o . . . . .
         o x . . . . .",
    )
    .unwrap();
    // Black B1 is in atari (liberty C1), and so is White A1 (liberty
    // A2).
    let mut black = PositionFeatures::new(
        &board,
        Color::Black,
        Some(at(&board, "B2")),
        Some(at(&board, "G7")),
    );
    let escape = black.of(&board, at(&board, "C1"));
    // From G7 to C1: dx 4, dy 6: 4 + 6 + 6 = 16, stored as 15.
    assert_eq!(escape.values[Group::DistanceBefore as usize], 15);
    // D4 is 3 + 3 + 3 = 9 from G7, stored as 8.
    assert_eq!(
        black.of(&board, at(&board, "D4")).values[Group::DistanceBefore as usize],
        8
    );
    assert_eq!(escape.values[Group::Escape as usize], 1);
    assert_eq!(escape.values[Group::Capture as usize], 0);
    assert_eq!(escape.values[Group::Distance as usize], 2); // dx 1, dy 1: 3.
    let mut white = PositionFeatures::new(&board, Color::White, Some(at(&board, "B1")), None);
    let capture = white.of(&board, at(&board, "C1"));
    // One stone that Black could have saved by extending at C1.
    assert_eq!(capture.values[Group::Capture as usize], 4);
    // Capturing B1 also saves White's A1.
    assert_eq!(capture.values[Group::Escape as usize], 1);
    // So does capturing A1 for Black.
    assert_eq!(
        black.of(&board, at(&board, "A2")).values[Group::Escape as usize],
        1
    );
    // C1's left side (B1) is flagged in atari, its lower side is off
    // the board.
    assert_eq!(capture.pattern & 0xf_0000, 1 << 17, "{:x}", capture.pattern);
    assert_eq!(capture.pattern & 3, 3);
    // Self-atari: a lone stone at B3 keeps four liberties.
    assert_eq!(
        black.of(&board, at(&board, "B3")).values[Group::SelfAtari as usize],
        0
    );
    let corner = Board::from_ascii(
        ". . . . .
         . . . . .
         . . . . .
         . x . . .
         . x . . .",
    )
    .unwrap();
    let mut white = PositionFeatures::new(&corner, Color::White, None, None);
    let a1 = white.of(&corner, at(&corner, "A1"));
    assert_eq!(a1.values[Group::SelfAtari as usize], 1);
    // Black then captures at A2 a stone White could not save there.
    let mut corner = corner;
    corner.play_unchecked(at(&corner, "A1"), Color::White);
    let mut black = PositionFeatures::new(&corner, Color::Black, Some(at(&corner, "A1")), None);
    let a2 = black.of(&corner, at(&corner, "A2"));
    assert_eq!(a2.values[Group::Capture as usize], 1);
    assert_eq!(a1.values[Group::Distance as usize], 0);
    // White C1 would be captured at once were it not capturing: not a
    // self-atari of more than one stone.
    assert!(capture.values[Group::SelfAtari as usize] < 2);
    // Atari: White B3 takes B2's... use a chain with two liberties: Black
    // B1 extended to C1 has D1 and C2.
    let mut extended = board.clone();
    extended.play_unchecked(at(&board, "C1"), Color::Black);
    let mut white = PositionFeatures::new(&extended, Color::White, Some(at(&board, "C1")), None);
    assert_eq!(
        white.of(&extended, at(&board, "D1")).values[Group::Atari as usize],
        1
    );
    assert_eq!(
        white.of(&extended, at(&board, "E4")).values[Group::Atari as usize],
        0
    );
    // Line: C1 is on the first line, D4 on the fourth.
    assert_eq!(escape.values[Group::Line as usize], 0);
    assert_eq!(
        black.of(&board, at(&board, "D4")).values[Group::Line as usize],
        3
    );
}

#[test]
fn ladder_ataris_and_extensions_into_ladders_have_their_own_values() {
    let board = Board::from_ascii(
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
    let mut black = PositionFeatures::new(&board, Color::Black, Some(at(&board, "C3")), None);
    // C4 catches White's C3 in a ladder; D3 is a plain atari.
    assert_eq!(
        black.of(&board, at(&board, "C4")).values[Group::Atari as usize],
        2
    );
    assert_eq!(
        black.of(&board, at(&board, "D3")).values[Group::Atari as usize],
        1
    );
    // In atari after C4, running at D3 is an extension into the ladder.
    let mut in_atari = board.clone();
    in_atari.play_unchecked(at(&board, "C4"), Color::Black);
    let mut white = PositionFeatures::new(&in_atari, Color::White, Some(at(&board, "C4")), None);
    assert_eq!(
        white.of(&in_atari, at(&board, "D3")).values[Group::Escape as usize],
        LADDERED_ESCAPE
    );
    // After D3 instead, running at C4 reaches three liberties.
    let mut in_atari = board.clone();
    in_atari.play_unchecked(at(&board, "D3"), Color::Black);
    let mut white = PositionFeatures::new(&in_atari, Color::White, Some(at(&board, "D3")), None);
    assert_eq!(
        white.of(&in_atari, at(&board, "C4")).values[Group::Escape as usize],
        1
    );
}

#[test]
fn larger_shapes_see_three_points_away_in_every_orientation() {
    // A stone three points to the right of C3, and the same turned.
    let key = |diagram: &str| {
        let board = Board::from_ascii(diagram).unwrap();
        let code = shape_code(&board, at(&board, "C3"), Color::Black);
        (code, canonical_shape(shape_key(code, 3)))
    };
    let (right, a) = key(". . . . . . .
         . . . . . . .
         . . . . . . .
         . . . . . . .
         . . . . . x .
         . . . . . . .
         . . . . . . .");
    let (above, b) = key(". . . . . . .
         . . x . . . .
         . . . . . . .
         . . . . . . .
         . . . . . . .
         . . . . . . .
         . . . . . . .");
    assert_ne!(right, above);
    assert_eq!(a, b);
    // Within distance 2 the board is empty but for the edge: C3 on a
    // 7×7 board has no off-board point within distance 2.
    assert_eq!(shape_key(right, 2), 2 << 56);
    // A1 sees the edge: its points to the left and below are off the
    // board.
    let board = Board::new(tengen_core::BoardSize::square(7).unwrap());
    let corner = shape_code(&board, at(&board, "A1"), Color::Black);
    let off = (0..SHAPE_POINTS)
        .filter(|i| (corner >> (2 * i)) & 3 == 3)
        .count();
    // Of the 24 points, those with a negative column or row: 24 less
    // the 9 with both non-negative (not the centre).
    assert_eq!(off, 24 - 9);
    // The 8 orientations of a key are keys of the same size.
    for oriented in shape_orientations(a) {
        assert_eq!(oriented >> 56, 3);
        assert_eq!(canonical_shape(oriented), a);
    }
}

#[test]
fn recent_stones_skip_nothing_and_stop_at_passes() {
    use tengen_core::{BoardSize, Game, Move, Rules};
    let mut game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
    assert_eq!(recent_stones(&game), (None, None));
    let size = game.size();
    let p = |v: &str| size.parse_gtp(v).unwrap().point();
    game.play(size.parse_gtp("C3").unwrap()).unwrap();
    game.play(size.parse_gtp("D4").unwrap()).unwrap();
    assert_eq!(recent_stones(&game), (p("D4"), p("C3")));
    game.play(Move::Pass).unwrap();
    assert_eq!(recent_stones(&game), (None, p("D4")));
}

#[test]
fn model_text_round_trips_and_bad_files_are_refused() {
    let small: [Vec<f32>; GROUPS] = std::array::from_fn(|g| {
        (0..Group::ALL[g].values())
            .map(|v| 1.0 + v as f32 / 4.0)
            .collect()
    });
    // A shape of radius 2: an own stone at the first point (distance
    // 1), an enemy stone at the sixth (distance 2).
    let small_shape = canonical_shape(shape_key(1 | 2 << 10, 2));
    let model = MoveModel::new(
        small,
        ShapeStrengths {
            known: vec![(canonical_pattern(0x00006), 3.5)],
            other: 0.5,
        },
        ShapeStrengths {
            known: vec![(small_shape, 2.0)],
            other: 1.0,
        },
    );
    let text = model.to_text();
    let back = MoveModel::parse(&text).unwrap();
    assert_eq!(back.to_text(), text);
    assert_eq!(back.known_patterns(), 1);
    assert_eq!(back.known_shapes(), 1);
    // Every orientation of the known shapes gets its strength.
    let features = |pattern, shape| MoveFeatures {
        pattern,
        shape,
        values: [0; GROUPS],
    };
    for code in pattern_orientations(0x00006) {
        assert_eq!(back.strength(&features(code, 0)), 3.5);
    }
    assert_eq!(back.strength(&features(0x00001, 0)), 0.5);
    for key in shape_orientations(small_shape) {
        // Whatever lies at distance 3, the radius-2 shape matches.
        let code = (key & ((1 << 24) - 1)) | 0x5a5a << 24;
        assert_eq!(back.strength(&features(0x00001, code)), 1.0);
    }

    // The model's text without the lines that start with `prefix`.
    let without = |prefix: &str| {
        text.lines()
            .filter(|l| !l.starts_with(prefix))
            .collect::<Vec<_>>()
            .join("\n")
    };
    // A file from before the corner group reads, the group neutral; a
    // file with only part of it does not.
    let old = MoveModel::parse(&without("corner ")).unwrap();
    let mut corner = features(0x00001, 0);
    for value in 0..Group::Corner.values() {
        corner.values[Group::Corner as usize] = value as u8;
        assert_eq!(old.strength(&corner), 0.5);
    }
    assert_eq!(
        MoveModel::parse(&without("corner 3 ")).unwrap_err(),
        ModelError::Missing {
            group: "corner",
            value: 3
        }
    );

    assert_eq!(
        MoveModel::parse(&without("line 2")).unwrap_err(),
        ModelError::Missing {
            group: "line",
            value: 2
        }
    );
    for (bad, reason) in [
        ("capture 0", "expected GROUP VALUE GAMMA"),
        ("capture 9 1.0", "is not a value of capture"),
        ("colour 0 1.0", "unknown group"),
        ("capture 0 -1", "is not a positive strength"),
        ("capture 0 NaN", "is not a positive strength"),
        ("pattern zz 1.0", "is not a canonical shape code"),
        ("shape 400000000000001 1.0", "is not a canonical shape key"),
    ] {
        let error = MoveModel::parse(&format!("{text}\n{bad}\n")).unwrap_err();
        assert!(error.to_string().contains(reason), "{bad}: {error}");
    }
}

#[test]
fn the_candidate_model_kept_in_the_tree_is_read() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../models/move-model-9x9-policies.txt");
    let model = MoveModel::from_file(&path).unwrap();
    assert!(model.known_shapes() > 1000, "{}", model.known_shapes());
}

#[test]
fn the_shipped_model_is_read() {
    let model = MoveModel::builtin();
    assert!(model.known_patterns() > 100);
}
