#![no_main]
//! Bytes drive a game, as in `game_moves`; after every accepted move the
//! KataGo input features (KataGo's board replica, ladders, pass-alive areas,
//! history) are computed without a panic, and every value is finite.

use libfuzzer_sys::fuzz_target;
use tengen_core::{BoardSize, Game, Move, Point, PRESETS};
use tengen_katago::inputs::{fill, InputOptions, KataRules, GLOBAL_FEATURES, SPATIAL_FEATURES};

fuzz_target!(|data: &[u8]| {
    let [w, h, rules, rest @ ..] = data else {
        return;
    };
    let size = BoardSize::new(2 + *w as usize % 8, 2 + *h as usize % 8).unwrap();
    let rules = PRESETS[*rules as usize % PRESETS.len()].1;
    let Ok(kata) = KataRules::from_rules(&rules) else {
        return;
    };
    let mut game = Game::new(size, rules);
    let points = size.width() * size.height();
    let mut spatial = vec![0.0f32; SPATIAL_FEATURES * points];
    let mut global = vec![0.0f32; GLOBAL_FEATURES];
    for &byte in rest {
        let mv = if byte >= 250 {
            Move::Pass
        } else {
            Move::Play(Point::from_index(byte as usize % 110).unwrap())
        };
        if game.play(mv).is_ok() {
            fill(&game, &kata, &InputOptions::default(), size.width(), size.height(), &mut spatial, &mut global)
                .unwrap();
            assert!(spatial.iter().chain(&global).all(|v| v.is_finite()));
        }
    }
});
