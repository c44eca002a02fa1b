//! The superko context of a position (`Game::superko_context`): what a
//! search may key a position by so that two lines reaching it share what
//! they learn only when the same moves are legal in both. Checked on many
//! random games on tiny boards, where the same board comes back through
//! many histories and long repetitions happen.

use std::collections::{HashMap, HashSet};

use tengen_core::{
    BoardSize, Color, Game, IllegalMove, KoRule, Move, Point, Rng, Rules, SuicideRule,
};

fn rules(ko: KoRule, suicide: SuicideRule) -> Rules {
    Rules {
        ko,
        suicide,
        ..Rules::default()
    }
}

/// A random game of at most `turns` turns: mostly moves, a pass now and
/// then, and now and then a colour asked to move out of turn
/// (`Game::with_mover`), so the record holds positions no turn made.
fn random_game(
    size: usize,
    game_rules: Rules,
    turns: usize,
    rng: &mut Rng,
    mut visit: impl FnMut(&Game),
) {
    let mut game = Game::new(BoardSize::square(size).unwrap(), game_rules);
    for _ in 0..turns {
        if game.is_over() {
            break;
        }
        visit(&game);
        if rng.below(20) == 0 {
            game = game.with_mover(!game.to_move());
            visit(&game);
        }
        let moves: Vec<Move> = game
            .legal_moves()
            .into_iter()
            .filter(|&mv| mv != Move::Pass || rng.below(10) == 0)
            .collect();
        let mv = if moves.is_empty() {
            Move::Pass
        } else {
            moves[rng.below(moves.len())]
        };
        game.play(mv).unwrap();
    }
}

/// The board each legal move of the side to move would make, captures and
/// suicide included.
fn boards_after(game: &Game) -> Vec<u64> {
    let board = game.board();
    board
        .size()
        .points()
        .filter(|&p: &Point| game.legal(Move::Play(p)).is_ok())
        .map(|p| board.hash_after(p, game.to_move()))
        .collect()
}

/// Every earlier board a move recreates is among the listed boards, with
/// and without suicide. Played under the simple ko rule, so that the
/// random games do repeat earlier boards.
#[test]
fn every_board_a_move_recreates_is_listed() {
    for suicide in [
        SuicideRule::Forbidden,
        SuicideRule::MultiStoneAllowed,
        SuicideRule::AllAllowed,
    ] {
        let mut rng = Rng::new(45);
        let mut recreated = 0usize;
        for _ in 0..300 {
            random_game(4, rules(KoRule::Simple, suicide), 120, &mut rng, |game| {
                let mut history: HashSet<u64> = HashSet::new();
                let mut back = game.clone();
                history.insert(back.board().hash());
                while back.undo().is_some() {
                    history.insert(back.board().hash());
                }
                let listed: HashSet<u64> = game.boards_within_one_move().into_iter().collect();
                for hash in boards_after(game) {
                    if history.contains(&hash) {
                        recreated += 1;
                        assert!(
                            listed.contains(&hash),
                            "an earlier board a move recreates is not listed ({suicide:?})"
                        );
                    }
                }
            });
        }
        assert!(
            recreated > 100,
            "only {recreated} moves recreated an earlier board ({suicide:?})"
        );
    }
}

/// The moves superko forbids in a position follow from its board, side to
/// move, ko point and superko context: positions that agree on these
/// forbid the same moves whatever their histories. And the context is
/// needed: the same board, side and ko point come with different forbidden
/// moves through different histories.
#[test]
fn the_context_decides_the_moves_superko_forbids() {
    type Position = (u64, Color, Option<Point>);
    for ko in [KoRule::PositionalSuperko, KoRule::SituationalSuperko] {
        for suicide in [SuicideRule::Forbidden, SuicideRule::AllAllowed] {
            let mut rng = Rng::new(1945);
            let mut forbidden_by_context: HashMap<(Position, u64), Vec<Move>> = HashMap::new();
            let mut forbidden_by_position: HashMap<Position, HashSet<Vec<Move>>> = HashMap::new();
            let mut checked = 0usize;
            for _ in 0..2000 {
                random_game(3, rules(ko, suicide), 60, &mut rng, |game| {
                    let board = game.board();
                    let position = (board.hash(), game.to_move(), board.ko_point());
                    let forbidden: Vec<Move> = board
                        .size()
                        .points()
                        .map(Move::Play)
                        .filter(|&mv| game.legal(mv) == Err(IllegalMove::Superko))
                        .collect();
                    let key = (position, game.superko_context());
                    if let Some(earlier) = forbidden_by_context.get(&key) {
                        checked += 1;
                        assert_eq!(
                            earlier, &forbidden,
                            "same context, different moves forbidden ({ko:?}, {suicide:?})"
                        );
                    } else {
                        forbidden_by_context.insert(key, forbidden.clone());
                    }
                    forbidden_by_position
                        .entry(position)
                        .or_default()
                        .insert(forbidden);
                });
            }
            let histories_matter: usize = forbidden_by_position
                .values()
                .filter(|sets| sets.len() > 1)
                .count();
            assert!(
                checked > 10_000,
                "only {checked} positions met again ({ko:?}, {suicide:?})"
            );
            assert!(
                histories_matter > 20,
                "only {histories_matter} positions forbid different moves through different histories ({ko:?}, {suicide:?})"
            );
        }
    }
}

/// Without superko, or with no earlier board within one move, the context
/// is empty: the history adds nothing.
#[test]
fn no_context_without_superko_or_reachable_boards() {
    let size = BoardSize::square(9).unwrap();
    let mut game = Game::new(
        size,
        rules(KoRule::PositionalSuperko, SuicideRule::Forbidden),
    );
    for vertex in ["E5", "C3", "G7", "C7"] {
        game.play(size.parse_gtp(vertex).unwrap()).unwrap();
        assert_eq!(
            game.superko_context(),
            0,
            "no capture yet, nothing to repeat"
        );
    }
    let mut simple = Game::new(size, rules(KoRule::Simple, SuicideRule::Forbidden));
    let mut rng = Rng::new(7);
    for _ in 0..200 {
        if simple.is_over() {
            break;
        }
        let moves = simple.legal_moves();
        simple.play(moves[rng.below(moves.len())]).unwrap();
        assert_eq!(simple.superko_context(), 0);
    }
}
