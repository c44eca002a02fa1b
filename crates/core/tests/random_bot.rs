//! The random bots: Müller's Go1 (the default, the book's RandomBot) keeps
//! its own eyes and passes when only they are left; Go0
//! (`RandomBot::filling_eyes`) draws uniformly among every legal move, its
//! own eyes included.

use tengen_core::{Action, Agent, Board, Color, Game, Move, Point, RandomBot, Rules};

/// Black to move: its only legal points are its own three eyes on the top
/// edge (White's eyes at B2 and D2 would be suicide).
const ONLY_EYES_LEFT: &str = ". x . x .\n\
                              x x x x x\n\
                              o o o o o\n\
                              o . o . o\n\
                              o o o o o";

fn eyes_game() -> Game {
    Game::from_position(
        Board::from_ascii(ONLY_EYES_LEFT).unwrap(),
        Color::Black,
        Rules::default(),
    )
}

#[test]
fn go1_passes_when_only_its_eyes_are_left() {
    let game = eyes_game();
    for seed in 0..20 {
        let mut bot = RandomBot::new(seed);
        assert!(!bot.fills_eyes());
        assert_eq!(bot.select_move(&game), Action::Move(Move::Pass));
    }
}

#[test]
fn go0_fills_its_own_eyes_uniformly() {
    let game = eyes_game();
    let size = game.size();
    let eyes: Vec<Point> = ["A5", "C5", "E5"]
        .iter()
        .map(|v| match size.parse_gtp(v).unwrap() {
            Move::Play(point) => point,
            Move::Pass => unreachable!(),
        })
        .collect();
    let mut counts = [0usize; 3];
    let draws = 3000;
    for seed in 0..draws {
        let mut bot = RandomBot::filling_eyes(seed);
        assert!(bot.fills_eyes());
        let Action::Move(Move::Play(point)) = bot.select_move(&game) else {
            panic!("Go0 passed with legal moves left");
        };
        let i = eyes.iter().position(|&e| e == point).expect("an own eye");
        counts[i] += 1;
    }
    // Each eye 1,000 times in expectation; 850 is more than five standard
    // deviations (about 26) below.
    for count in counts {
        assert!(count > 850, "{counts:?}");
    }
}

#[test]
fn go0_passes_only_without_legal_moves() {
    // White to move: its only legal points are its own eyes B2 and D2
    // (Black's eyes are suicide for White).
    let game = Game::from_position(
        Board::from_ascii(ONLY_EYES_LEFT).unwrap(),
        Color::White,
        Rules::default(),
    );
    let size = game.size();
    let own_eyes = [size.parse_gtp("B2").unwrap(), size.parse_gtp("D2").unwrap()];
    for seed in 0..10 {
        let Action::Move(mv) = RandomBot::filling_eyes(seed).select_move(&game) else {
            panic!("the random bot never resigns in Go");
        };
        assert!(own_eyes.contains(&mv), "{mv:?}");
        assert_eq!(
            RandomBot::new(seed).select_move(&game),
            Action::Move(Move::Pass)
        );
    }
    // On a 1×1 board the only point is suicide: nothing is legal.
    let tiny = Game::new(tengen_core::BoardSize::square(1).unwrap(), Rules::default());
    assert_eq!(
        RandomBot::filling_eyes(1).select_move(&tiny),
        Action::Move(Move::Pass)
    );
}
