#![no_main]
//! Analysis-engine query lines: no panic; an error always has a message,
//! and a query that parses has a position for every turn it asks for,
//! each the game replayed to that turn.

use libfuzzer_sys::fuzz_target;
use tengen_analysis::query::{parse, Request};
use tengen_analysis::EngineSettings;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match parse(&text, &EngineSettings::default(), 25) {
        Err(error) => assert!(!error.message.is_empty()),
        Ok(Request::Analyze(query)) => {
            assert!(!query.positions.is_empty());
            for position in &query.positions {
                assert!(position.game.size().width() <= 25);
            }
        }
        Ok(Request::Action(_)) => {}
    }
});
