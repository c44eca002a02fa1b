//! Replaying a record (`Game::replay`): every turn seen once, a game that
//! ends with two passes going on from its position, and the first illegal
//! move named with its index and reason.

use tengen_core::{BoardSize, Color, Game, IllegalMove, Move, Rng, Rules};

fn parse(size: BoardSize, record: &str) -> Vec<(Color, Move)> {
    record
        .split_whitespace()
        .map(|entry| {
            let (color, mv) = entry.split_once(':').unwrap();
            let color = if color == "B" {
                Color::Black
            } else {
                Color::White
            };
            (color, size.parse_gtp(mv).unwrap())
        })
        .collect()
}

#[test]
fn a_record_goes_on_after_two_passes() {
    let size = BoardSize::square(9).unwrap();
    let moves = parse(size, "B:E5 W:pass B:pass W:C3 B:G7");
    let mut seen = Vec::new();
    let last = Game::new(size, Rules::default())
        .replay(&moves, |turn, game| {
            seen.push((
                turn,
                game.board().stone_count(Color::Black) + game.board().stone_count(Color::White),
                game.is_over(),
            ))
        })
        .unwrap();
    assert_eq!(
        seen,
        [
            (0, 0, false),
            (1, 1, false),
            (2, 1, false),
            (3, 1, true),
            (4, 2, false),
            (5, 3, false)
        ]
    );
    assert_eq!(last.to_move(), Color::White);
    // After the two passes the game starts afresh from the position.
    assert_eq!(last.turn_count(), 2);
}

#[test]
fn the_first_illegal_move_refuses_the_record() {
    let size = BoardSize::square(9).unwrap();
    let moves = parse(size, "B:E5 W:D4 B:E5 W:C3");
    let mut turns = 0;
    let error = Game::new(size, Rules::default())
        .replay(&moves, |_, _| turns += 1)
        .unwrap_err();
    assert_eq!(error.index, 2);
    assert_eq!(error.color, Color::Black);
    assert_eq!(error.reason, IllegalMove::Occupied);
    assert_eq!(
        error.to_string(),
        "move 3 is illegal: the point is occupied"
    );
    assert_eq!(turns, 3);
}

/// On random games, the replay of a game's own record ends on its board,
/// and what the visits see is the game turn by turn.
#[test]
fn a_game_s_own_record_replays_to_its_position() {
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        let size = BoardSize::square(2 + rng.below(8)).unwrap();
        let mut game = Game::new(size, Rules::default());
        let mut boards = vec![game.board().hash()];
        for _ in 0..size.points().count() * 2 {
            let legal = game.legal_moves();
            if legal.is_empty() || game.is_over() {
                break;
            }
            game.play(legal[rng.below(legal.len())]).unwrap();
            boards.push(game.board().hash());
        }
        let moves: Vec<(Color, Move)> = game
            .history()
            .map(|(color, action)| match action {
                tengen_core::Action::Move(mv) => (color, mv),
                tengen_core::Action::Resign => unreachable!(),
            })
            .collect();
        let mut seen = Vec::new();
        let last = Game::new(size, Rules::default())
            .replay(&moves, |_, position| seen.push(position.board().hash()))
            .unwrap();
        assert_eq!(seen, boards);
        assert_eq!(last.board().hash(), game.board().hash());
    }
}
