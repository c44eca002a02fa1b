#![no_main]
//! Any text given to the SGF reader: an error or a game, never a panic, and a
//! game that is read writes back, with its typed game information, to a
//! record that reads to the same board and the same information.

use libfuzzer_sys::fuzz_target;
use tengen_sgf::{read_game, write_game, write_record, GameInfo, RecordInfo};

/// The information a rewrite keeps as it was: komi and handicap are written
/// from the game, so they are left out of the comparison.
fn kept(info: &RecordInfo) -> RecordInfo {
    RecordInfo {
        komi: None,
        handicap: None,
        ..info.clone()
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(record) = read_game(&text) {
        record.game.board().check_consistency().unwrap();
        let again = read_game(&write_game(&record.game, &GameInfo::default())).unwrap();
        assert_eq!(again.game.board(), record.game.board());
        let written = write_record(&record.game, &record.info);
        let again = read_game(&written).unwrap();
        assert_eq!(again.game.board(), record.game.board(), "{written}");
        assert_eq!(again.game.rules(), record.game.rules(), "{written}");
        assert_eq!(kept(&again.info), kept(&record.info), "{written}");
    }
});
