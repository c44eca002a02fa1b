//! The portable bf16 unit on the real network, on any CPU: it changes the
//! outputs, only a little, and only for the network that runs on it.

use std::path::Path;

use tengen_core::Game;
use tengen_katago::forward::{Bf16Rounding, Kernel, Unit};
use tengen_katago::network::{EvalOptions, Network, Symmetries};
use tengen_katago::output::Evaluation;
use tengen_katago::reference::model_path;

/// Positions of a real 9×9 game (tengen's mcts bot against GNU Go) after
/// 0, 8, 16, … moves.
fn positions() -> Vec<Game> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../gtp/tests/data/finished/mcts-vs-gnugo-level10-9x9/game-0001.sgf");
    let record = tengen_sgf::read_game(&std::fs::read_to_string(path).unwrap()).unwrap();
    let moves = record.game.moves();
    let mut games = Vec::new();
    record
        .game
        .start()
        .replay(&moves[..moves.len() - 1], |turn, game| {
            if turn % 8 == 0 {
                games.push(game.clone());
            }
        })
        .unwrap();
    games
}

fn evaluate(network: &Network, games: &[Game]) -> Vec<Evaluation> {
    let refs: Vec<&Game> = games.iter().collect();
    network
        .evaluate(&refs, Symmetries::One(0), &EvalOptions::default())
        .unwrap()
}

/// The largest win-rate and lead differences from `exact`, and the mean
/// ownership difference per point, over the positions.
fn differences(exact: &[Evaluation], other: &[Evaluation]) -> (f64, f64, f32) {
    let mut worst = (0.0f64, 0.0f64, 0.0f32);
    for (e, r) in exact.iter().zip(other) {
        worst.0 = worst.0.max((e.white_win - r.white_win).abs());
        worst.1 = worst.1.max((e.white_lead - r.white_lead).abs());
        let ownership: f32 = e
            .white_ownership
            .iter()
            .zip(&r.white_ownership)
            .map(|(a, b)| (a - b).abs())
            .sum::<f32>()
            / e.white_ownership.len() as f32;
        worst.2 = worst.2.max(ownership);
    }
    worst
}

#[test]
fn portable_bf16_changes_the_outputs_a_little_and_only_its_own() {
    let network = Network::load(model_path(), 2).unwrap();
    let games = positions();
    assert!(games.len() >= 6);
    let exact = evaluate(&network, &games);
    let on = |rounding| {
        let kernel = Kernel::bf16(Unit::PortableBf16, rounding);
        let portable = Network::load(model_path(), 2).unwrap().with_kernel(kernel);
        assert_eq!(portable.kernel(), kernel, "runs on any CPU");
        evaluate(&portable, &games)
    };
    let rounded = on(Bf16Rounding::Once);
    let split = on(Bf16Rounding::Split);
    let again = evaluate(&network, &games);
    assert_eq!(exact, again, "the f32 network is untouched, bit for bit");
    assert_ne!(exact, rounded, "bf16 changes the outputs");
    assert_ne!(exact, split, "so does the split one");
    let (winrate, lead, ownership) = differences(&exact, &rounded);
    assert!(
        winrate < 0.05 && lead < 1.0 && ownership < 0.05,
        "{winrate} {lead} {ownership}"
    );
    // The split activations are another computation, as close to f32 (on
    // average closer: see the example bf16_accuracy over 1,000 positions).
    assert_ne!(rounded, split);
    let (winrate, lead, ownership) = differences(&exact, &split);
    assert!(
        winrate < 0.05 && lead < 1.0 && ownership < 0.05,
        "{winrate} {lead} {ownership}"
    );
}
