#![no_main]
//! Any text given to the SGF reader: an error or a game, never a panic, and a
//! game that is read writes back to a record that reads to the same board.

use libfuzzer_sys::fuzz_target;
use tengen_sgf::{read_game, write_game, GameInfo};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(record) = read_game(&text) {
        record.game.board().check_consistency().unwrap();
        let again = read_game(&write_game(&record.game, &GameInfo::default())).unwrap();
        assert_eq!(again.game.board(), record.game.board());
    }
});
