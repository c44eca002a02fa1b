#![no_main]
//! Whatever a person types, the terminal game ends cleanly.

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use tengen::terminal::Session;
use tengen_core::{BoardSize, Color, Game, RandomBot, Rules};

fuzz_target!(|data: &[u8]| {
    let game = Game::new(BoardSize::square(5).unwrap(), Rules::default());
    let mut session = Session::new(
        game,
        Color::Black,
        Box::new(RandomBot::new(1)),
        Cursor::new(data.to_vec()),
        Vec::new(),
    );
    let _ = session.run();
});
