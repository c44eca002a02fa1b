//! The board sides each offered bot plays, as the bot listing gives them to
//! the page: found by asking each bot, with its default settings, which
//! sides it plays.

use tengen_web::{AppState, Bots, Limits, SizeRange};

#[test]
fn each_bot_lists_the_sides_it_plays() {
    let state = AppState::new(Limits::default(), Bots::default());
    let every = Some(SizeRange { min: 1, max: 25 });
    for name in ["random", "mcts"] {
        assert_eq!(state.sizes(name), every, "{name}");
    }
    // The shipped network is a 9x9 one.
    assert_eq!(state.sizes("policy"), Some(SizeRange { min: 9, max: 9 }));
    // Nothing for bots the server does not offer.
    assert_eq!(state.sizes("nope"), None);
    assert_eq!(state.sizes("katago"), None);
    // Every offered bot has its sides.
    for info in state.offered() {
        assert!(state.sizes(info.name).is_some(), "{}", info.name);
    }
}
