#![no_main]
//! Bytes drive a whole game: every accepted action leaves a consistent board,
//! every refused one leaves the game as it was, and undo restores each board.

use libfuzzer_sys::fuzz_target;
use tengen_core::{BoardSize, Game, Move, Point, PRESETS};

fuzz_target!(|data: &[u8]| {
    let [w, h, rules, rest @ ..] = data else {
        return;
    };
    let size = BoardSize::new(1 + *w as usize % 7, 1 + *h as usize % 7).unwrap();
    let rules = PRESETS[*rules as usize % PRESETS.len()].1;
    let mut game = Game::new(size, rules);
    let mut boards = vec![game.board().clone()];
    for &byte in rest {
        match byte {
            250 => {
                if game.undo().is_some() {
                    boards.pop();
                    assert_eq!(game.board(), boards.last().unwrap());
                }
            }
            251 => {
                if game.resign().is_ok() {
                    boards.push(game.board().clone());
                }
            }
            252..=255 => {
                if game.play(Move::Pass).is_ok() {
                    boards.push(game.board().clone());
                }
            }
            _ => {
                let cell = Point::from_index(byte as usize % 80).unwrap();
                let before = game.board().clone();
                let turns = game.turn_count();
                match game.play(Move::Play(cell)) {
                    Ok(()) => {
                        game.board().check_consistency().unwrap();
                        boards.push(game.board().clone());
                    }
                    Err(_) => {
                        assert_eq!(game.board(), &before);
                        assert_eq!(game.turn_count(), turns);
                    }
                }
            }
        }
    }
    while game.undo().is_some() {
        boards.pop();
        assert_eq!(game.board(), boards.last().unwrap());
    }
});
