//! `Game::with_mover`: the game as a bot choosing for the side that is not
//! to move sees it (GTP's `genmove` for either colour).
//!
//! Over seeded random games under every ko and suicide rule, with passes
//! mixed in, the copy must offer the side asked for exactly the moves the
//! real game allows it (`Game::legal_as`, reason included), keep the board
//! and history, and count no pass; asked for the side to move, it is the
//! real game. Moves played on the copy undo back to it.

use tengen_core::{
    Agent, BoardSize, Color, Game, KoRule, Move, RandomBot, Rng, Rules, SuicideRule,
};

/// Every move there is on the board, pass included.
fn every_move(game: &Game) -> Vec<Move> {
    game.size()
        .points()
        .map(Move::Play)
        .chain([Move::Pass])
        .collect()
}

fn check_view(game: &Game, context: &str) {
    let color = !game.to_move();
    let view = game.with_mover(color);
    assert_eq!(view.to_move(), color, "{context}");
    assert_eq!(view.board(), game.board(), "{context}: board");
    assert_eq!(
        view.history().collect::<Vec<_>>(),
        game.history().collect::<Vec<_>>(),
        "{context}: history"
    );
    assert_eq!(view.is_over(), game.is_over(), "{context}: over");
    if !game.is_over() {
        assert_eq!(view.consecutive_passes(), 0, "{context}: passes");
    }
    for mv in every_move(game) {
        assert_eq!(
            view.legal(mv),
            game.legal_as(color, mv),
            "{context}: {mv:?} for {color:?}"
        );
    }
    // Asked for the side to move: the real game's legality.
    let same = game.with_mover(game.to_move());
    for mv in every_move(game) {
        assert_eq!(same.legal(mv), game.legal(mv), "{context}: {mv:?} to move");
    }
    // The copy plays on and undoes back to itself.
    if !view.is_over() {
        let mut copy = view.clone();
        let mut rng = Rng::new(context.len() as u64);
        let moves = copy.legal_moves();
        let mv = moves[rng.below(moves.len())];
        copy.play(mv).unwrap();
        copy.undo().unwrap();
        assert_eq!(copy.board(), view.board(), "{context}: undo");
        assert_eq!(copy.to_move(), color, "{context}: undo");
        for mv in every_move(game) {
            assert_eq!(
                copy.legal(mv),
                view.legal(mv),
                "{context}: {mv:?} after undo"
            );
        }
    }
}

#[test]
fn the_side_not_to_move_is_offered_its_own_moves_and_no_pass() {
    let mut views = 0;
    // Besides the presets: situational superko with a lone stone's suicide
    // allowed, where such a suicide would bring back the position with the
    // other side to move, which the copy's superko record must still hold.
    let situational_suicide = Rules {
        ko: KoRule::SituationalSuperko,
        suicide: SuicideRule::AllAllowed,
        ..Rules::default()
    };
    let presets = ["chinese", "japanese", "aga", "tromp-taylor", "new-zealand"];
    let rule_sets = presets
        .iter()
        .map(|&name| (name, Rules::preset(name).expect("a preset")))
        .chain([("situational superko, any suicide", situational_suicide)]);
    for (preset, rules) in rule_sets {
        for seed in 0..20u64 {
            let size = BoardSize::new(5 + (seed % 3) as usize, 5).unwrap();
            let mut game = Game::new(size, rules);
            let mut bot = RandomBot::new(seed);
            let mut rng = Rng::new(seed);
            let mut turn = 0;
            while !game.is_over() && turn < 80 {
                check_view(&game, &format!("{preset} seed {seed} turn {turn}"));
                views += 1;
                // Passes now and then, so that the side asked for has often
                // just passed itself.
                if rng.below(8) == 0 {
                    game.play(Move::Pass).unwrap();
                } else {
                    game.apply(bot.select_move(&game)).unwrap();
                }
                turn += 1;
            }
            check_view(&game, &format!("{preset} seed {seed} at the end"));
        }
    }
    assert!(views > 2_000, "only {views} positions viewed");
}

/// The side that passed last is asked to move again: the copy shows no pass
/// to answer, where the real game counts one.
#[test]
fn a_pass_by_the_side_asked_for_is_not_the_opponents() {
    let size = BoardSize::square(9).unwrap();
    let mut game = Game::new(size, Rules::default());
    game.play(size.parse_gtp("E5").unwrap()).unwrap();
    game.play(Move::Pass).unwrap();
    assert_eq!(game.to_move(), Color::Black);
    assert_eq!(game.consecutive_passes(), 1);
    let view = game.with_mover(Color::White);
    assert_eq!(view.to_move(), Color::White);
    assert_eq!(view.consecutive_passes(), 0);
    assert!(!view.is_over());
    // Two passes end the game, and the copy of an ended game is over too.
    game.play(Move::Pass).unwrap();
    assert!(game.is_over());
    assert!(game.with_mover(Color::Black).is_over());
}
