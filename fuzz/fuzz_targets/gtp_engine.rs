#![no_main]
//! Whatever a controller sends, the GTP engine answers every line with a
//! well-formed response and keeps a consistent board.

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use tengen_core::{BoardSize, RandomBot, Rules};
use tengen_gtp::Engine;

fuzz_target!(|data: &[u8]| {
    let mut engine = Engine::new(
        Box::new(RandomBot::new(1)),
        BoardSize::square(9).unwrap(),
        Rules::default(),
    )
    .with_status_playouts(8);
    let mut output = Vec::new();
    // The engine reads its input on a thread of its own, so it owns the bytes.
    engine.run(Cursor::new(data.to_vec()), &mut output).unwrap();
    engine.game().board().check_consistency().unwrap();
    let output = String::from_utf8(output).unwrap();
    // Every response ends with exactly one empty line, so the output splits
    // into responses at "\n\n" with no empty piece and none left over.
    if !output.is_empty() {
        let body = output
            .strip_suffix("\n\n")
            .expect("ends with an empty line");
        for response in body.split("\n\n") {
            assert!(
                !response.is_empty() && !response.ends_with('\n'),
                "{output:?}"
            );
            assert!(
                response.starts_with('=') || response.starts_with('?'),
                "{output:?}"
            );
        }
    }
});
