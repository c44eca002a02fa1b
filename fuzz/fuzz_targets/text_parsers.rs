#![no_main]
//! Vertex, size, rules, duration and diagram text: no panic, and what parses
//! round-trips (or, for durations, stays within its bound).

use libfuzzer_sys::fuzz_target;
use tengen_core::{Board, BoardSize, Rules};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for (w, h) in [(1, 1), (9, 9), (19, 19), (25, 25), (7, 11)] {
        let size = BoardSize::new(w, h).unwrap();
        if let Ok(mv) = size.parse_gtp(&text) {
            assert_eq!(size.parse_gtp(&size.gtp(mv)), Ok(mv));
        }
        if let Ok(mv) = size.parse_sgf(&text) {
            assert_eq!(size.parse_sgf(&size.sgf(mv)), Ok(mv));
        }
    }
    let _ = BoardSize::parse(&text);
    if let Ok(duration) = tengen_core::parse_duration(&text) {
        assert!(duration.as_secs() <= tengen_core::MAX_DURATION_SECS);
    }
    if let Ok(rules) = text.parse::<Rules>() {
        assert_eq!(rules.to_string().parse::<Rules>(), Ok(rules));
    }
    if let Ok(board) = Board::from_ascii(&text) {
        board.check_consistency().unwrap();
        assert_eq!(Board::from_ascii(&board.to_string()).unwrap(), board);
    }
});
