//! The playout doubling advantage reaches KataGo's network (katrain
//! 1.20.0's, fetched by `scripts/katago-model` and cached under
//! `target/katago/`): a handicap position looks better to the side told it
//! searches more, the evaluation cache keeps the two apart, and the
//! `katago` bot searches a handicap game's moves with it.

use tengen_bots::registry::{make_bot, BotSpec};
use tengen_core::{Action, BoardSize, Color, Game, Rules};
use tengen_katago::forward::Precision;
use tengen_katago::reference::model_path;
use tengen_puct::cache::CachedEvaluator;
use tengen_puct::katago::{load_network, KataGoEvalSettings, KataGoEvaluator};
use tengen_puct::PositionEvaluator;

/// A four-stone game on 19x19 after a move each, White to move.
fn handicap_game() -> Game {
    let mut rules = Rules::preset("chinese").unwrap();
    rules.komi = 0.5;
    let mut game = Game::with_handicap(BoardSize::square(19).unwrap(), rules, 4).unwrap();
    for vertex in ["R14", "C14"] {
        let mv = game.size().parse_gtp(vertex).unwrap();
        game.play(mv).unwrap();
    }
    game
}

#[test]
fn the_network_sees_the_advantage_and_the_cache_keeps_them_apart() {
    let network = load_network(model_path(), 1, Precision::F32).unwrap();
    let settings = KataGoEvalSettings {
        fixed_symmetry: Some(0),
        ..KataGoEvalSettings::default()
    };
    let evaluator = CachedEvaluator::new(KataGoEvaluator::with_settings(network, settings), 64);
    let advantage = evaluator.inner().advantage();
    let game = handicap_game();
    assert_eq!(game.to_move(), Color::White);
    let plain = evaluator.evaluate(&[&game]).unwrap().remove(0);
    advantage.set(Some((Color::White, 2.0)));
    let favoured = evaluator.evaluate(&[&game]).unwrap().remove(0);
    // White, told it searches four times as much, rates its game higher
    // (its win rate is near 0 either way: the lead is what moves).
    assert!(
        favoured.win > plain.win && favoured.lead > plain.lead + 3.0,
        "win {} -> {}, lead {} -> {}",
        plain.win,
        favoured.win,
        plain.lead,
        favoured.lead
    );
    // Black told the same, from Black's side.
    advantage.set(Some((Color::Black, 2.0)));
    let opposed = evaluator.evaluate(&[&game]).unwrap().remove(0);
    assert!(
        opposed.lead < plain.lead - 3.0,
        "{} against {}",
        opposed.lead,
        plain.lead
    );
    // None again: the first evaluation, not one made under an advantage.
    advantage.set(None);
    let again = evaluator.evaluate(&[&game]).unwrap().remove(0);
    assert_eq!(again.win, plain.win);
    assert_eq!(again.lead, plain.lead);
}

#[test]
fn the_bot_searches_a_handicap_game_with_the_advantage() {
    let spec: BotSpec = format!("katago:model={},visits=8", model_path().display())
        .parse()
        .unwrap();
    let mut bot = make_bot(&spec, 1).unwrap();
    let game = handicap_game();
    let Action::Move(mv) = bot.select_move(&game) else {
        panic!("resigned at move 6 of a four-stone game");
    };
    assert!(game.legal(mv).is_ok());
    let plain: BotSpec = format!(
        "katago:model={},visits=8,handicap-advantage=0",
        model_path().display()
    )
    .parse()
    .unwrap();
    let mut unbiased = make_bot(&plain, 1).unwrap();
    unbiased.select_move(&game);
    // Same search, same seed: only the advantage differs, and White's view
    // of its position with it is the brighter.
    let lead = |analysis: tengen_core::Analysis| analysis.root.unwrap().score_lead.unwrap();
    let with = lead(bot.analysis().unwrap());
    let without = lead(unbiased.analysis().unwrap());
    assert!(with > without + 3.0, "{with} against {without}");
}
