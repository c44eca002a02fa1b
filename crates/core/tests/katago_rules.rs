//! KataGo's rule details in the rules core: the seki tax and the full
//! group tax in the count, the AGA button, and White's handicap bonus.
//! Positions are ASCII diagrams, top row first (`x` black, `o` white).

use tengen_core::{Board, BoardSize, Color, Game, HandicapBonus, Move, Rules, Tax};

/// A seki in the top left, each side with one eye (White A9, Black E9)
/// and the liberty C9 shared; Black's wall and territory on the left
/// below, White's on the right. Black has 14 stones and 13 points of
/// territory (E9 included), White 16 stones and 37 points (A9 included);
/// C9 is neutral.
const SEKI: &str = "\
. o . x . x o . .
o o o x x x o . .
x x x o o o o . .
. . x o . . . . .
. . x o . . . . .
. . x o . . . . .
. . x o . . . . .
. . x o . . . . .
. . x o . . . . .
";

fn seki_game(rules: &str) -> Game {
    let board = Board::from_ascii(SEKI).expect("a legal diagram");
    let rules: Rules = rules.parse().expect("known rules");
    Game::from_position(board, Color::Black, rules.with_komi(0.0))
}

#[test]
fn the_seki_tax_leaves_out_the_eyes_of_groups_in_seki() {
    for (rules, black, white) in [
        // Area: stones plus territory.
        ("chinese", 27.0, 53.0),
        // Area with the seki tax: the eyes E9 and A9 do not count.
        ("chinese,tax=seki", 26.0, 52.0),
        // Stone scoring: also two points for each group living on its
        // own (one a side: the walls; the groups in seki pay nothing).
        ("stone-scoring", 24.0, 50.0),
        // Territory with the seki tax (Japanese): 13 - 1 and 37 - 1.
        ("japanese", 12.0, 36.0),
        // Territory without it.
        ("japanese,tax=none", 13.0, 37.0),
    ] {
        let score = seki_game(rules).score();
        assert_eq!((score.black, score.white), (black, white), "{rules}");
    }
}

#[test]
fn filled_dame_are_no_seki() {
    // The same position with the seki's shared liberty replaced by a wall
    // contact that either side can fill: nothing is taxed.
    let open = "\
. o . x . x o . .
o o . x x x o . .
x x . o o o o . .
. . x o . . . . .
. . x o . . . . .
. . x o . . . . .
. . x o . . . . .
. . x o . . . . .
. . x o . . . . .
";
    let board = Board::from_ascii(open).expect("a legal diagram");
    let rules = |text: &str| text.parse::<Rules>().unwrap().with_komi(0.0);
    let plain = Game::from_position(board.clone(), Color::Black, rules("japanese,tax=none"));
    let taxed = Game::from_position(board, Color::Black, rules("japanese"));
    assert_eq!(plain.score(), taxed.score());
}

#[test]
fn the_button_goes_to_the_first_pass_which_does_not_end_the_game() {
    let size = BoardSize::square(9).unwrap();
    let rules = Rules::preset("aga-button").unwrap();
    assert!(rules.button);
    let mut game = Game::new(size, rules);
    game.play(size.parse_gtp("E5").unwrap()).unwrap();
    game.play(Move::Pass).unwrap(); // White takes the button
    assert_eq!(game.button_taker(), Some(Color::White));
    assert_eq!(game.consecutive_passes(), 0);
    game.play(Move::Pass).unwrap();
    assert!(!game.is_over());
    game.play(Move::Pass).unwrap();
    assert!(game.is_over());
    let score = game.score();
    assert_eq!((score.black, score.white), (81.0, 7.0 + 0.5));
    // Taking the pass back gives the button back.
    game.undo();
    game.undo();
    game.undo();
    assert_eq!(game.button_taker(), None);
    // Without the button two passes end the game.
    let mut plain = Game::new(size, Rules::preset("aga").unwrap());
    plain.play(Move::Pass).unwrap();
    plain.play(Move::Pass).unwrap();
    assert!(plain.is_over());
}

#[test]
fn white_gets_the_handicap_bonus_of_the_rules() {
    let size = BoardSize::square(9).unwrap();
    for (name, bonus, points) in [
        ("chinese", HandicapBonus::N, 4.0),
        ("aga", HandicapBonus::NMinusOne, 3.0),
        ("japanese", HandicapBonus::Zero, 0.0),
    ] {
        let rules = Rules::preset(name).unwrap().with_komi(0.5);
        assert_eq!(rules.handicap_bonus, bonus);
        let game = Game::with_handicap(size, rules, 4).unwrap();
        assert_eq!(game.handicap_stones(), 4);
        let without = Game::new(size, rules);
        assert_eq!(game.score().white - without.score().white, points, "{name}");
    }
    // Black stones set up without White ones count as handicap too.
    let board = Board::from_ascii(
        "\
. . . . . . . . .
. . . . . . . . .
. . x . . . x . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . x . . . . . .
. . . . . . . . .
. . . . . . . . .
",
    )
    .unwrap();
    let game = Game::from_position(board, Color::White, Rules::preset("chinese").unwrap());
    assert_eq!(game.handicap_stones(), 3);
    assert_eq!(Rules::preset("stone-scoring").unwrap().tax, Tax::All);
}
