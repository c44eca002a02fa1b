//! Records written by `write_game` read back to the same game, and real-world
//! shapes of records replay correctly.

use tengen_core::{Action, Agent, BoardSize, Color, Game, RandomBot, Rules};
use tengen_sgf::{read_game, write_game, GameInfo, ReadError};

fn random_game(size: BoardSize, rules: Rules, handicap: usize, seed: u64) -> Game {
    let mut game = Game::with_handicap(size, rules, handicap).unwrap();
    let mut bot = RandomBot::new(seed);
    while !game.is_over() && game.turn_count() < 3 * size.points_count() {
        let action = bot.select_move(&game);
        game.apply(action).unwrap();
    }
    game
}

#[test]
fn written_games_read_back() {
    let cases = [
        (BoardSize::square(9).unwrap(), Rules::default(), 0),
        (
            BoardSize::square(19).unwrap(),
            Rules::preset("japanese").unwrap(),
            4,
        ),
        (
            BoardSize::new(7, 11).unwrap(),
            Rules::preset("tromp-taylor").unwrap(),
            0,
        ),
        (
            BoardSize::square(13).unwrap(),
            Rules::preset("chinese").unwrap().with_komi(0.5),
            2,
        ),
        // NoGo: RU[NoGo], and RE[B+] or RE[W+] for the side that could move.
        (
            BoardSize::square(7).unwrap(),
            Rules::preset("nogo").unwrap(),
            0,
        ),
        (
            BoardSize::square(9).unwrap(),
            Rules::preset("nogo").unwrap().with_komi(0.5),
            0,
        ),
    ];
    for (i, (size, rules, handicap)) in cases.into_iter().enumerate() {
        let game = random_game(size, rules, handicap, i as u64);
        let info = GameInfo {
            black_name: Some("black [bot] \\ one".into()),
            white_name: Some("white".into()),
            result: Some(game.outcome().to_string()),
            date: Some("2026-11-22".into()),
            ..GameInfo::default()
        };
        let text = write_game(&game, &info);
        let record = read_game(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(record.game.board(), game.board(), "{text}");
        assert_eq!(record.game.rules(), game.rules());
        assert_eq!(record.game.handicap(), handicap);
        assert_eq!(record.game.to_move(), game.to_move());
        let moves = |g: &Game| {
            g.history()
                .filter(|(_, a)| matches!(a, Action::Move(_)))
                .collect::<Vec<_>>()
        };
        assert_eq!(moves(&record.game), moves(&game));
        assert_eq!(record.black_name.as_deref(), Some("black [bot] \\ one"));
        assert_eq!(record.result, info.result);
        if rules.is_nogo() {
            assert!(
                text.contains("GM[1]") && text.contains("RU[NoGo]"),
                "{text}"
            );
            assert!(game.is_over());
            let result = info.result.as_deref().unwrap();
            assert!(result == "B+" || result == "W+", "{result}");
            assert!(record.game.is_over());
            assert_eq!(record.game.outcome(), game.outcome());
        }
    }
}

#[test]
fn rules_are_named_whatever_the_komi() {
    let size = BoardSize::square(9).unwrap();
    let chinese = Rules::preset("chinese").unwrap().with_komi(7.0);
    let text = write_game(&Game::new(size, chinese), &GameInfo::default());
    assert!(
        text.contains("RU[Chinese]") && text.contains("KM[7]"),
        "{text}"
    );
    assert_eq!(read_game(&text).unwrap().game.rules(), &chinese);
    let custom = Rules {
        komi: 3.0,
        ..Rules::preset("japanese").unwrap()
    };
    let custom = Rules {
        scoring: tengen_core::Scoring::Area,
        ..custom
    };
    let text = write_game(&Game::new(size, custom), &GameInfo::default());
    assert!(
        text.contains(
            "RU[ko=simple,suicide=forbidden,scoring=area,komi=3,tax=seki,handicap-bonus=0,friendly-pass=no]"
        ),
        "{text}"
    );
    assert_eq!(read_game(&text).unwrap().game.rules(), &custom);
    // KataGo's presets without a conventional name go by KataGo's.
    let button = Rules::preset("aga-button").unwrap().with_komi(6.5);
    let text = write_game(&Game::new(size, button), &GameInfo::default());
    assert!(
        text.contains("RU[aga-button]") && text.contains("KM[6.5]"),
        "{text}"
    );
    assert_eq!(read_game(&text).unwrap().game.rules(), &button);
}

#[test]
fn real_world_shapes() {
    // Lower-case long identifiers (FF[3]), tt as a pass, setup with a
    // rectangle, a variation that is not the main line, whitespace everywhere.
    let text = "(;GaMe[1]FF[3]SZ[9] KM[6.5] RU[Japanese]\n AB[aa:bb]AW[ee]PL[W]\n;W[cc];B[tt]\n(;W[dd])(;W[ff]))";
    let record = read_game(text).unwrap();
    let size = BoardSize::square(9).unwrap();
    let board = record.game.board();
    for vertex in ["A9", "B9", "A8", "B8"] {
        let point = size.parse_gtp(vertex).unwrap().point().unwrap();
        assert_eq!(board.stone(point), Some(Color::Black), "{vertex}");
    }
    let d6 = size.parse_gtp("D6").unwrap().point().unwrap();
    assert_eq!(board.stone(d6), Some(Color::White));
    let f4 = size.parse_gtp("F4").unwrap().point().unwrap();
    assert_eq!(
        board.stone(f4),
        None,
        "a side variation must not be replayed"
    );
    assert_eq!(record.game.rules().komi, 6.5);
}

#[test]
fn bad_records_are_refused_with_a_reason() {
    assert!(matches!(read_game("(;GM[2])"), Err(ReadError::NotGo(_))));
    assert!(matches!(
        read_game("(;SZ[30])"),
        Err(ReadError::BadValue { .. })
    ));
    assert!(matches!(
        read_game("(;SZ[9];B[zz])"),
        Err(ReadError::BadValue { node: 1, .. })
    ));
    assert!(matches!(
        read_game("(;SZ[9];B[aa];W[aa])"),
        Err(ReadError::IllegalMove { node: 2, .. })
    ));
    assert!(matches!(read_game("(;SZ[9]"), Err(ReadError::Syntax(_))));
    assert!(matches!(
        read_game("(;KM[lots])"),
        Err(ReadError::BadValue { .. })
    ));
}

#[test]
fn illegal_moves_stop_or_are_executed_as_the_specification_says() {
    use tengen_sgf::{read_game_with, IllegalMovePolicy};
    // Move 3 lands on White's stone, then White plays on. Under the strict
    // policy the replay stops at node 3.
    let text = "(;SZ[5];B[cc];W[dd];B[dd];W[aa])";
    match read_game(text) {
        Err(ReadError::IllegalMove { node: 3, .. }) => {}
        other => panic!("{other:?}"),
    }
    let record = read_game_with(text, IllegalMovePolicy::Execute).unwrap();
    assert_eq!(record.executed_illegal.len(), 1);
    assert_eq!(record.executed_illegal[0].node, 3);
    let size = BoardSize::square(5).unwrap();
    let at = |v: &str| size.parse_gtp(v).unwrap().point().unwrap();
    let board = record.game.board();
    assert_eq!(
        board.stone(at("D2")),
        Some(Color::Black),
        "the stone was replaced"
    );
    assert_eq!(board.stone(at("A5")), Some(Color::White), "play went on");
    board.check_consistency().unwrap();
    // An executed suicide removes the mover's chain.
    let text = "(;SZ[3];B[ab];B[ba];W[aa])";
    let record = read_game_with(text, IllegalMovePolicy::Execute).unwrap();
    let size = BoardSize::square(3).unwrap();
    let a3 = size.parse_gtp("A3").unwrap().point().unwrap();
    assert_eq!(record.game.board().stone(a3), None);
    assert_eq!(record.executed_illegal.len(), 1);
}
