use tengen_core::{Board, Rules};

use super::*;

fn game(ascii: &str, to_move: Color) -> Game {
    Game::from_position(Board::from_ascii(ascii).unwrap(), to_move, Rules::default())
}

fn kept(game: &Game) -> Vec<String> {
    let size = game.size();
    let duplicate = duplicate_points(size, game.to_move(), &root_symmetries(game));
    size.points()
        .filter(|p| !duplicate[p.index()])
        .map(|p| size.gtp(Move::Play(p)))
        .collect()
}

#[test]
fn an_empty_board_keeps_one_move_of_each_symmetric_set() {
    // Orbits of the eight symmetries (Burnside): (361 + 3 + 4·19) / 8 on
    // 19×19, (81 + 3 + 4·9) / 8 on 9×9.
    for (side, orbits) in [(19, 55), (9, 15), (2, 1)] {
        let size = BoardSize::square(side).unwrap();
        let empty = Game::new(size, Rules::default());
        assert_eq!(root_symmetries(&empty).len(), 7);
        assert_eq!(kept(&empty).len(), orbits, "{side}×{side}");
    }
    // Black keeps the upper right corner, White the lower left, as KataGo.
    let size = BoardSize::square(19).unwrap();
    let mut empty = Game::new(size, Rules::default());
    let black = kept(&empty);
    for (point, is_kept) in [
        ("Q16", true),
        ("D4", false),
        ("D16", false),
        ("Q4", false),
        ("K10", true),
    ] {
        assert_eq!(
            black.contains(&point.to_string()),
            is_kept,
            "{point} for Black"
        );
    }
    empty.apply(tengen_core::Action::Move(Move::Pass)).unwrap();
    let white = kept(&empty);
    for (point, is_kept) in [("D4", true), ("Q16", false), ("D16", false), ("Q4", false)] {
        assert_eq!(
            white.contains(&point.to_string()),
            is_kept,
            "{point} for White"
        );
    }
}

#[test]
fn a_stone_leaves_the_symmetries_that_keep_it_in_place() {
    let centre = game(
        ". . . . .
         . . . . .
         . . x . .
         . . . . .
         . . . . .",
        Color::White,
    );
    assert_eq!(root_symmetries(&centre).len(), 7);
    // Corners, edges' middles, the points beside and diagonal to the centre, the centre.
    assert_eq!(kept(&centre).len(), 6);
    // A stone on the diagonal: that diagonal's mirror alone.
    let diagonal = game(
        ". . . . .
         . . . . .
         . . . . .
         . x . . .
         . . . . .",
        Color::White,
    );
    let symmetries = root_symmetries(&diagonal);
    assert_eq!(symmetries.len(), 1);
    let size = diagonal.size();
    let b2 = size.parse_gtp("B2").unwrap();
    assert_eq!(symmetries[0].apply(size, b2), b2);
    assert_eq!(
        symmetries[0].apply(size, size.parse_gtp("A2").unwrap()),
        size.parse_gtp("B1").unwrap()
    );
    // Two colours that do not match: none.
    let lopsided = game(
        ". . . . .
         . o . . .
         . . . . .
         . x . . .
         . . . . .",
        Color::Black,
    );
    assert!(root_symmetries(&lopsided).is_empty());
    assert_eq!(kept(&lopsided).len(), 25);
}

#[test]
fn a_banned_ko_leaves_no_symmetry() {
    // Black takes the ko at D4 with D3; White may not retake at once.
    let mut taken = game(
        ". . . . . . .
         . . . . . . .
         . . . x . . .
         . . x o x . .
         . . o . o . .
         . . . o . . .
         . . . . . . .",
        Color::Black,
    );
    let size = taken.size();
    taken
        .apply(tengen_core::Action::Move(size.parse_gtp("D3").unwrap()))
        .unwrap();
    assert_eq!(
        taken.legal(size.parse_gtp("D4").unwrap()),
        Err(IllegalMove::Ko)
    );
    assert!(root_symmetries(&taken).is_empty());
    // The same stones with no ko: the mirror of the columns.
    let same_stones = game(
        ". . . . . . .
         . . . . . . .
         . . . x . . .
         . . x . x . .
         . . o x o . .
         . . . o . . .
         . . . . . . .",
        Color::White,
    );
    assert_eq!(root_symmetries(&same_stones), vec![Symmetry(1)]);
}

#[test]
fn ownership_maps_move_with_their_points() {
    let size = BoardSize::square(3).unwrap();
    // Rows from the top-left corner: the value 1 at A3 (top left).
    let mut values = vec![0.0; 9];
    values[0] = 1.0;
    let mirrored_columns = Symmetry(1).rows(size, &values);
    assert_eq!(mirrored_columns[2], 1.0, "to C3");
    let mirrored_rows = Symmetry(2).rows(size, &values);
    assert_eq!(mirrored_rows[6], 1.0, "to A1");
    assert_eq!(
        Symmetry(2).apply(size, size.parse_gtp("A3").unwrap()),
        size.parse_gtp("A1").unwrap()
    );
    // A length that is not the board's passes through.
    assert_eq!(Symmetry(1).rows(size, &[]), Vec::<f32>::new());
}
