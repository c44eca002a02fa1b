#![no_main]
//! Opening book text: no panic; a book that reads answers every lookup with
//! a legal move or none, on its own board and on others.

use libfuzzer_sys::fuzz_target;
use tengen_mcts::book::OpeningBook;
use tengen_core::{BoardSize, Game, Move, Rules};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(book) = OpeningBook::parse(&text) else {
        return;
    };
    for side in [book.size().width(), 9] {
        let size = BoardSize::square(side).unwrap();
        let mut game = Game::new(size, Rules::default().with_komi(book.komi()));
        for _ in 0..4 {
            match book.lookup(&game) {
                Some(point) => {
                    assert!(game.legal(Move::Play(point)).is_ok());
                    game.play(Move::Play(point)).unwrap();
                }
                None => break,
            }
        }
    }
});
