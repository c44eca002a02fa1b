//! The dead-stone estimate and the expected lead are functions of the
//! stones: the same position reached by other moves, or set up from a
//! record, is counted the same. (A board's internal order of empty points
//! depends on its history, and playouts draw from it.)

use tengen_core::scoring::{estimate_status, expected_lead, DEFAULT_STATUS_PLAYOUTS};
use tengen_core::{Agent, Board, BoardSize, Game, RandomBot, Rules};

/// The same stones as `board`, set up in reverse board order.
fn set_up_backwards(board: &Board) -> Board {
    let mut copy = Board::new(board.size());
    let points: Vec<_> = board.size().points().collect();
    for &point in points.iter().rev() {
        if let Some(color) = board.stone(point) {
            copy.place_setup_stone(point, color).unwrap();
        }
    }
    copy
}

#[test]
fn the_same_stones_are_counted_the_same_whatever_led_to_them() {
    for (side, turns) in [(9, 70), (9, 110), (13, 150), (19, 260)] {
        for seed in 0..4u64 {
            let size = BoardSize::square(side).unwrap();
            let mut game = Game::new(size, Rules::default());
            let mut bots = [RandomBot::new(seed), RandomBot::new(seed + 100)];
            for turn in 0..turns {
                if game.is_over() {
                    break;
                }
                let action = bots[turn % 2].select_move(&game);
                game.apply(action).unwrap();
            }
            let played = game.board();
            let set_up = set_up_backwards(played);
            let to_move = game.to_move();
            assert_eq!(
                estimate_status(played, to_move, DEFAULT_STATUS_PLAYOUTS, 0),
                estimate_status(&set_up, to_move, DEFAULT_STATUS_PLAYOUTS, 0),
                "{side}x{side}, seed {seed}"
            );
            let other = Game::from_position(set_up, to_move, Rules::default());
            assert_eq!(
                expected_lead(&game, DEFAULT_STATUS_PLAYOUTS, 0),
                expected_lead(&other, DEFAULT_STATUS_PLAYOUTS, 0),
                "{side}x{side}, seed {seed}"
            );
        }
    }
}
