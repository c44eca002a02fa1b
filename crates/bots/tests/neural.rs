//! The neural bots: the policy bot plays legal moves that fill no own eye
//! and follows its termination strategies; MCTS runs with a network's
//! policy and value; models are chosen by name with clear errors.

use tengen_bots::termination::{Terminating, Termination};
use tengen_bots::{make_bot, BotError, BotSpec};
use tengen_core::{Action, Agent, Board, BoardSize, Color, Game, Move, Rules};
use tengen_mcts::evaluator::RolloutEvaluator;
use tengen_mcts::mcts::{MctsConfig, MctsSearch};
use tengen_mcts::network::{NetworkEvaluator, NetworkMix};
use tengen_mcts::playout::PlayoutPolicy;
use tengen_nn::model::Model;
use tengen_nn::net::Architecture;
use tengen_nn::policy_bot::PolicyBot;

fn model(n: usize) -> Model {
    Model::untrained(
        "zero",
        BoardSize::square(n).unwrap(),
        Architecture::Residual {
            blocks: 1,
            channels: 4,
        },
        3,
    )
    .unwrap()
}

#[test]
fn the_policy_bot_plays_whole_games_legally_and_keeps_its_eyes() {
    let mut black = PolicyBot::new(model(5), 1);
    let mut white = PolicyBot::new(model(5), 2);
    for _ in 0..3 {
        let mut game = Game::new(BoardSize::square(5).unwrap(), Rules::default());
        while !game.is_over() && game.turn_count() < 300 {
            let color = game.to_move();
            let bot = if color == Color::Black {
                &mut black
            } else {
                &mut white
            };
            match bot.select_move(&game) {
                Action::Move(Move::Play(point)) => {
                    assert!(
                        !game.board().is_point_an_eye(point, color),
                        "filled its own eye"
                    );
                    game.play(Move::Play(point)).expect("a legal move");
                }
                Action::Move(Move::Pass) => {
                    // It passes only when every move left is an own eye.
                    for mv in game.legal_moves() {
                        if let Move::Play(p) = mv {
                            assert!(
                                game.board().is_point_an_eye(p, color),
                                "passed with {mv:?} left"
                            );
                        }
                    }
                    game.play(Move::Pass).unwrap();
                }
                Action::Resign => panic!("no resign margin was set"),
            }
        }
        assert!(game.is_over(), "the game ends by two passes");
    }
}

#[test]
fn termination_strategies() {
    let size = BoardSize::square(5).unwrap();
    let passer = Termination {
        pass_after_opponent: true,
        ..Termination::NONE
    };
    // White to move after Black's pass on an empty board: komi wins it the
    // count, so it passes too.
    let mut bot = Terminating::new(Box::new(PolicyBot::new(model(5), 1)), passer);
    let mut game = Game::new(size, Rules::default());
    game.play(Move::Pass).unwrap();
    assert_eq!(
        bot.select_move(&game),
        Action::Move(Move::Pass),
        "passes after a pass when ahead"
    );
    // Black to move after White's pass on an empty board: the count (komi
    // to White) loses, so the bot plays on.
    let empty = Board::new(size);
    let mut game = Game::from_position(empty, Color::White, Rules::default());
    game.play(Move::Pass).unwrap();
    assert!(matches!(
        bot.select_move(&game),
        Action::Move(Move::Play(_))
    ));

    // Black to move, far behind on the board as it stands.
    let board = Board::from_ascii(
        "o o o o o\n\
         o o o o o\n\
         o o . o o\n\
         . . . . .\n\
         x . . . .",
    )
    .unwrap();
    let game = Game::from_position(board, Color::Black, Rules::default());
    let mut resigner = Terminating::new(
        Box::new(PolicyBot::new(model(5), 1)),
        Termination {
            pass_after_opponent: true,
            resign_margin: Some(10.0),
            resign_after: 0,
        },
    );
    assert_eq!(resigner.select_move(&game), Action::Resign);
    let mut stubborn = Terminating::new(Box::new(PolicyBot::new(model(5), 1)), passer);
    assert!(matches!(
        stubborn.select_move(&game),
        Action::Move(Move::Play(_))
    ));
}

#[test]
fn mcts_searches_with_a_network() {
    let size = BoardSize::square(5).unwrap();
    for value_weight in [0.0, 0.5, 1.0] {
        let evaluator = NetworkEvaluator::new(
            model(5),
            RolloutEvaluator::new(PlayoutPolicy::default(), 4),
            NetworkMix {
                value_weight,
                prior_weight: 40.0,
            },
        );
        let config = MctsConfig {
            playouts: Some(300),
            ..MctsConfig::default()
        };
        let mut bot = MctsSearch::new(config, evaluator).into_bot();
        let mut game = Game::new(size, Rules::default());
        // An untrained network may well like passing: two passes end it.
        for _ in 0..4 {
            if game.is_over() {
                break;
            }
            match bot.select_move(&game) {
                Action::Move(mv) => game.play(mv).unwrap(),
                Action::Resign => break,
            }
        }
        assert!(game.turn_count() >= 1, "λ = {value_weight}");
    }
}

#[test]
fn models_by_name_and_their_errors() {
    let dir = std::env::temp_dir().join(format!("tengen-neural-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.tgm");
    model(5).save(&path).unwrap();
    let spec: BotSpec = format!("policy:model={}", path.display()).parse().unwrap();
    let mut bot = make_bot(&spec, 1).unwrap();
    let game = Game::new(BoardSize::square(5).unwrap(), Rules::default());
    assert!(matches!(bot.select_move(&game), Action::Move(_)));
    let spec: BotSpec = format!(
        "mcts:network={},playouts=50,network-value=0.3,network-prior=20",
        path.display()
    )
    .parse()
    .unwrap();
    assert!(make_bot(&spec, 1).is_ok());

    let missing: BotSpec = "policy:model=/nonexistent/m.tgm".parse().unwrap();
    let err = make_bot(&missing, 1).err().unwrap();
    assert!(matches!(err, BotError::Model { .. }), "{err}");
    assert!(err.to_string().contains("/nonexistent/m.tgm"), "{err}");

    std::fs::write(dir.join("bad.tgm"), b"TENGENNN\x01\x00").unwrap();
    let damaged: BotSpec = format!("policy:model={}", dir.join("bad.tgm").display())
        .parse()
        .unwrap();
    let err = make_bot(&damaged, 1).err().unwrap();
    assert!(err.to_string().contains("truncated"), "{err}");

    let bad_value: BotSpec = format!("mcts:network={},network-value=2", path.display())
        .parse()
        .unwrap();
    assert!(matches!(
        make_bot(&bad_value, 1).err().unwrap(),
        BotError::BadValue { .. }
    ));
    let bad_pass: BotSpec = "policy:pass=sometimes".parse().unwrap();
    assert!(matches!(
        make_bot(&bad_pass, 1).err().unwrap(),
        BotError::BadValue { .. }
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
