//! The search finds the right move in small tactical positions, agrees with
//! itself across threads, keeps within its memory limit, and reuses its tree.

use super::search::DECIDED_CHECK_INTERVAL;
use super::*;
use crate::evaluator::{AmafMap, Evaluation, Leaf, Policy};
use tengen_core::{Agent, Board, Color, Rules};

fn game_from(diagram: &str, to_move: Color, komi: f64) -> Game {
    let board = Board::from_ascii(diagram).unwrap();
    Game::from_position(board, to_move, Rules::default().with_komi(komi))
}

fn bot(playouts: u64, threads: usize, seed: u64) -> MctsBot {
    let config = MctsConfig {
        playouts: Some(playouts),
        threads,
        resign_below: 0.0,
        // The search itself, not the opening book.
        book: None,
        ..MctsConfig::default()
    };
    MctsSearch::with_rollouts(config, seed).into_bot()
}

fn chosen(game: &Game, playouts: u64, threads: usize, seed: u64) -> String {
    let mut bot = bot(playouts, threads, seed);
    match bot.select_move(game) {
        Action::Move(mv) => game.size().gtp(mv),
        Action::Resign => "resign".into(),
    }
}

/// White's corner group has a straight three-point eye space; whoever plays
/// its middle (B2) decides its life, and with komi 2.5 the game.
const NAKADE: &str = "
    . . . . .
    x x x x x
    o o o o x
    . . . o x
    o o o o x";

#[test]
fn kills_or_lives_at_the_vital_point() {
    for seed in 1..=3 {
        let black = game_from(NAKADE, Color::Black, 2.5);
        assert_eq!(chosen(&black, 3_000, 1, seed), "B2", "seed {seed}");
        let white = game_from(NAKADE, Color::White, 2.5);
        assert_eq!(chosen(&white, 3_000, 1, seed), "B2", "seed {seed}");
    }
}

/// Black's chain is in atari (its last liberty is F4, and extending there
/// is a self-atari); the white stone at G5 inside it is in atari at G4, so
/// Black saves the chain by capturing it. White saves G5 either by
/// capturing the chain at F4 or by extending at G4 (after which the chain
/// cannot escape): both win.
const ESCAPE_BY_CAPTURE: &str = "
    . . . . . . . . .
    . . . . . . . . .
    . . . . o o o o .
    . . . o x x x x o
    . . . o o x o x o
    . . . . o . . o .
    . . . . . o . . .
    . . . . . . . . .
    . . . . . . . . .";

#[test]
fn saves_a_chain_in_atari_or_captures_it() {
    for seed in 1..=3 {
        let black = game_from(ESCAPE_BY_CAPTURE, Color::Black, 7.5);
        assert_eq!(chosen(&black, 3_000, 1, seed), "G4", "seed {seed}");
        let white = game_from(ESCAPE_BY_CAPTURE, Color::White, 7.5);
        let answer = chosen(&white, 3_000, 1, seed);
        assert!(answer == "F4" || answer == "G4", "seed {seed}: {answer}");
    }
}

#[test]
fn two_threads_choose_as_one_does() {
    for (diagram, to_move, komi, expected) in [
        (ESCAPE_BY_CAPTURE, Color::Black, 7.5, &["G4"][..]),
        (ESCAPE_BY_CAPTURE, Color::White, 7.5, &["F4", "G4"][..]),
        (NAKADE, Color::Black, 2.5, &["B2"][..]),
        (NAKADE, Color::White, 2.5, &["B2"][..]),
    ] {
        let game = game_from(diagram, to_move, komi);
        let one = chosen(&game, 4_000, 1, 5);
        assert!(expected.contains(&one.as_str()), "{one}");
        let two = chosen(&game, 4_000, 2, 5);
        assert!(expected.contains(&two.as_str()), "{two}");
    }
}

#[test]
fn memory_stays_under_the_limit() {
    let config = MctsConfig {
        playouts: Some(30_000),
        max_nodes: 5_000,
        resign_below: 0.0,
        params: SearchParams {
            expand_visits: 1,
            ..SearchParams::default()
        },
        // The search itself, not the opening book.
        book: None,
        ..MctsConfig::default()
    };
    let mut bot = MctsSearch::with_rollouts(config, 3).into_bot();
    let game = Game::new(tengen_core::BoardSize::square(9).unwrap(), Rules::default());
    bot.select_move(&game);
    assert!(
        bot.kept_tree().map_or(0, Tree::len) <= 5_000,
        "{} nodes",
        bot.kept_tree().map_or(0, Tree::len)
    );
    assert!(
        bot.kept_tree().map_or(0, Tree::len) > 4_000,
        "the limit was reached: {}",
        bot.kept_tree().map_or(0, Tree::len)
    );
    assert!(bot.kept_tree().map_or(0, Tree::memory_bytes) <= 5_000 * std::mem::size_of::<Node>());
    // The search may stop early once the choice cannot change.
    assert!(bot.last_search().unwrap().playouts > 10_000);
}

#[test]
fn analysis_reports_candidates_and_ownership() {
    let game = game_from(NAKADE, Color::Black, 2.5);
    let mut bot = bot(2_000, 1, 1);
    bot.select_move(&game);
    let analysis = bot.analysis().unwrap();
    assert_eq!(analysis.ownership.len(), 25);
    // Row-major from the top-left: the top row is Black's, the bottom-left
    // corner stone White's until the vital point is taken.
    assert!(
        analysis.ownership[..5].iter().all(|&o| o > 0.5),
        "{analysis:?}"
    );
    assert!(analysis
        .candidates
        .windows(2)
        .all(|w| w[0].visits >= w[1].visits));
    assert_eq!(analysis.candidates[0].pv[0], analysis.candidates[0].mv);
    let total: u64 = analysis.candidates.iter().map(|c| c.visits).sum();
    assert!(total <= analysis.playouts);
}

#[test]
fn the_tree_is_reused_after_the_opponent_replies() {
    let mut bot = bot(2_000, 1, 4);
    let mut game = Game::new(tengen_core::BoardSize::square(9).unwrap(), Rules::default());
    let first = bot.select_move(&game);
    game.apply(first).unwrap();
    // The opponent answers with the reply the search liked best.
    let analysis = bot.analysis().unwrap();
    let reply = analysis.candidates[0]
        .pv
        .get(1)
        .copied()
        .unwrap_or(Move::Pass);
    game.play(reply).unwrap();
    let new = bot.search(&game).playouts;
    let root = bot.analysis().unwrap().playouts;
    assert!(
        root > new,
        "the reply's subtree was kept: {root} root visits, {new} new"
    );
    // Any other history starts afresh.
    let other = Game::new(tengen_core::BoardSize::square(9).unwrap(), Rules::default());
    let new = bot.search(&other).playouts;
    let root = bot.analysis().unwrap().playouts;
    assert!(root <= new, "a fresh tree: {root} root visits, {new} new");
}

#[test]
fn passes_after_the_opponent_only_when_the_board_wins() {
    // Black owns the left (15 points), White the right (10).
    let mut winning = game_from(
        "o o x x x
         . o x . x
         o o x x x
         . o x . x
         o o x x x",
        Color::White,
        0.5,
    );
    winning.play(Move::Pass).unwrap();
    assert_eq!(
        bot(500, 1, 1).select_move(&winning),
        Action::Move(Move::Pass)
    );
    // Here the open bottom is nobody's yet and Black is behind: play on.
    let mut open = game_from(
        "x x o o o
         . x o . o
         x x o o o
         . . . . .
         . . . . .",
        Color::White,
        0.5,
    );
    open.play(Move::Pass).unwrap();
    assert_ne!(bot(500, 1, 1).select_move(&open), Action::Move(Move::Pass));
}

/// A game decided on the board but with dame left: the winner fills them
/// rather than pass, whether the opponent has passed or not, so that the
/// game ends in a position every counter scores alike; once the board is
/// closed it passes.
#[test]
fn plays_on_while_dame_are_left_even_when_winning() {
    // Black owns the top four rows, White the bottom two (Black wins by
    // 13.5 with komi 0.5); row 3 is dame between the walls.
    let board = ". x . x . x .
                 x x x x x x x
                 x x x x x x x
                 x x x x x x x
                 . . . . . . .
                 o o o o o o o
                 . o . o . o .";
    for opponent_passed in [false, true] {
        let mut game = game_from(board, Color::Black, 0.5);
        if opponent_passed {
            game = game_from(board, Color::White, 0.5);
            game.play(Move::Pass).unwrap();
        }
        let mut bot = bot(2000, 1, 1);
        let Action::Move(mv @ Move::Play(_)) = bot.select_move(&game) else {
            panic!("passed or resigned with dame left (opponent passed: {opponent_passed})");
        };
        let vertex = game.size().gtp(mv);
        assert!(vertex.ends_with('3'), "a dame of row 3, not {vertex}");
    }
    // With every dame filled, the position is closed: pass after the
    // opponent's pass.
    let mut closed = game_from(
        ". x . x . x .
         x x x x x x x
         x x x x x x x
         x x x x x x x
         x o x o x o x
         o o o o o o o
         . o . o . o .",
        Color::White,
        0.5,
    );
    closed.play(Move::Pass).unwrap();
    assert_eq!(
        bot(500, 1, 1).select_move(&closed),
        Action::Move(Move::Pass)
    );
}

/// An evaluator that likes Black only when Black has a stone on `good`.
#[derive(Clone)]
struct Oracle {
    good: Point,
}

impl Evaluator for Oracle {
    fn evaluate(&mut self, leaf: Leaf<'_>, _amaf: &mut AmafMap) -> Evaluation {
        Evaluation {
            black_value: if leaf.board.stone(self.good) == Some(Color::Black) {
                1.0
            } else {
                0.0
            },
            played_out: false,
        }
    }

    fn fork(&self, _stream: u64) -> Self {
        self.clone()
    }
}

#[test]
fn leaves_are_evaluated_through_the_evaluator_trait() {
    let size = tengen_core::BoardSize::square(7).unwrap();
    let good = size.parse_gtp("F2").unwrap().point().unwrap();
    let config = MctsConfig {
        playouts: Some(3_000),
        resign_below: 0.0,
        // The search itself, not the opening book.
        book: None,
        ..MctsConfig::default()
    };
    let mut bot = MctsSearch::new(config, Oracle { good }).into_bot();
    let game = Game::new(size, Rules::default());
    assert_eq!(bot.select_move(&game), Action::Move(Move::Play(good)));
    let analysis = bot.analysis().unwrap();
    assert!(analysis.winrate > 0.9, "{analysis:?}");
    assert_eq!(analysis.candidates[0].mv, Move::Play(good));
}

#[test]
fn plays_nogo_legally_and_resigns_when_stuck() {
    use tengen_core::RandomBot;
    let size = tengen_core::BoardSize::square(5).unwrap();
    let rules = Rules::preset("nogo").unwrap();
    for game_index in 0..4u64 {
        let mut game = Game::new(size, rules);
        let mut mcts = bot(300, 1, game_index);
        assert!(mcts.plays(Variant::NoGo));
        let mut random = RandomBot::new(game_index);
        let mcts_color = if game_index % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        while !game.is_over() {
            let action = if game.to_move() == mcts_color {
                mcts.select_move(&game)
            } else {
                random.select_move(&game)
            };
            if let Action::Move(mv) = action {
                assert_ne!(mv, Move::Pass, "no passes in NoGo");
                assert!(game.legal(mv).is_ok(), "{mv:?} in\n{:?}", game.board());
            }
            game.apply(action).unwrap();
        }
        // Strength is a benchmark; here every game must end with a winner.
        let winner = game.result().and_then(|outcome| outcome.winner());
        assert!(winner.is_some(), "{:?}", game.result());
    }
}

/// An evaluator that calls every leaf even and whose policy puts nearly all
/// its weight on one point, counting how often it is asked.
#[derive(Clone)]
struct Guide {
    favourite: Point,
    calls: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Evaluator for Guide {
    fn evaluate(&mut self, _leaf: Leaf<'_>, _amaf: &mut AmafMap) -> Evaluation {
        Evaluation {
            black_value: 0.5,
            played_out: false,
        }
    }

    fn fork(&self, _stream: u64) -> Self {
        self.clone()
    }

    fn has_policy(&self) -> bool {
        true
    }

    fn policy(&mut self, board: &Board, _to_move: Color, _komi: f64) -> Option<Policy> {
        self.calls
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut points = vec![0.0; tengen_core::MAX_CELLS];
        for point in board.size().points() {
            points[point.index()] = 0.01;
        }
        points[self.favourite.index()] = 0.9;
        Some(Policy {
            points,
            pass: 0.001,
            weight: 40.0,
        })
    }
}

#[test]
fn the_policy_reaches_the_root_at_once_and_other_nodes_after_enough_visits() {
    let size = tengen_core::BoardSize::square(9).unwrap();
    let favourite = size.parse_gtp("C3").unwrap().point().unwrap();
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let policy_visits = 64;
    let mut config = MctsConfig {
        playouts: Some(3_000),
        resign_below: 0.0,
        // The search itself, not the opening book.
        book: None,
        ..MctsConfig::default()
    };
    config.params.policy_visits = policy_visits;
    let mut bot = MctsBot::new(MctsSearch::new(
        config,
        Guide {
            favourite,
            calls: calls.clone(),
        },
    ));
    let game = Game::new(size, Rules::default());
    // With every leaf even, the policy's favourite is the move.
    assert_eq!(bot.select_move(&game), Action::Move(Move::Play(favourite)));
    let tree = bot.kept_tree().expect("the tree is kept");
    let nodes: Vec<&Node> = (0..tree.len()).map(|i| tree.node(i)).collect();
    let added = nodes.iter().filter(|n| n.policy_added).count();
    assert_eq!(calls.load(std::sync::atomic::Ordering::Relaxed), added);
    assert!(nodes[0].policy_added, "the root gets the policy at once");
    assert!(added > 1, "busy nodes below the root get it too");
    for (index, node) in nodes.iter().enumerate() {
        if node.policy_added && index != 0 {
            assert!(node.visits >= policy_visits, "node {index}: {node:?}");
        }
        // A node visited more than the threshold was passed through with
        // at least that many visits, expanded.
        if node.expanded && node.visits > policy_visits {
            assert!(node.policy_added, "node {index}: {node:?}");
        }
    }
}

#[test]
fn one_thread_searches_with_a_seed_repeat_exactly() {
    // A whole game's opening: the same seed gives the same moves and the
    // same number of simulations for each, early stops included.
    let run = |seed: u64| {
        let mut bot = bot(3_000, 1, seed);
        let mut game = Game::new(tengen_core::BoardSize::square(9).unwrap(), Rules::default());
        let mut record = Vec::new();
        for _ in 0..8 {
            let Action::Move(mv) = bot.select_move(&game) else {
                panic!("resigned")
            };
            let playouts = bot.last_search().unwrap().playouts;
            record.push((mv, playouts));
            game.play(mv).unwrap();
        }
        record
    };
    let first = run(5);
    assert_eq!(first, run(5));
    // Some searches stopped early, once decided, and the check happens
    // at a fixed interval.
    assert!(first.iter().any(|&(_, p)| p < 3_000), "{first:?}");
    assert!(first
        .iter()
        .all(|&(_, p)| p == 3_000 || p.is_multiple_of(DECIDED_CHECK_INTERVAL)));
}

#[test]
fn the_book_move_is_played_where_the_book_knows_the_position() {
    use crate::book::OpeningBook;
    let row = ".........";
    let empty = [row; 9].join("/");
    // An opening no search would choose: the book's first move is J9 (any
    // 1-1 point, by symmetry), and after it White answers at A1's mirror.
    let mut after = vec![row.to_string(); 9];
    after[0] = "........X".to_string();
    let text = format!("size 9\nkomi 7\n{empty} b J9\n{} w A9\n", after.join("/"));
    let book: &'static OpeningBook = Box::leak(Box::new(OpeningBook::parse(&text).unwrap()));
    let size = tengen_core::BoardSize::square(9).unwrap();
    let play = |komi: f64, moves: &[&str], book: Option<&'static OpeningBook>| {
        let config = MctsConfig {
            playouts: Some(300),
            resign_below: 0.0,
            book,
            ..MctsConfig::default()
        };
        let mut bot = MctsSearch::with_rollouts(config, 3).into_bot();
        let mut game = Game::new(size, Rules::default().with_komi(komi));
        for mv in moves {
            game.play(size.parse_gtp(mv).unwrap()).unwrap();
        }
        let chosen = match bot.select_move(&game) {
            Action::Move(mv) => mv,
            Action::Resign => return "resign".into(),
        };
        // A search ran all the same, a short one beside a book move: its
        // analysis leads with the move played.
        let analysis = bot.analysis().expect("an analysis after every move");
        assert_eq!(analysis.candidates[0].mv, chosen);
        assert!(analysis.playouts > 0);
        let in_book = book.is_some_and(|b| b.lookup(&game).is_some());
        if in_book {
            assert!(analysis.playouts <= 300 / 16 + 1, "{}", analysis.playouts);
        } else {
            assert!(analysis.playouts > 300 / 16 + 1, "{}", analysis.playouts);
        }
        size.gtp(chosen)
    };
    assert_eq!(play(7.0, &[], Some(book)), "J9");
    assert_eq!(play(7.5, &[], Some(book)), "J9");
    // Black's 1-1 stone in another corner: the book's answer turned with
    // it (to one of two points, the position being symmetric about the
    // corner's diagonal).
    assert!(["A9", "J1"].contains(&play(7.0, &["A1"], Some(book)).as_str()));
    assert!(["A1", "J9"].contains(&play(7.0, &["J1"], Some(book)).as_str()));
    assert_eq!(play(7.0, &["J9"], Some(book)), "A9");
    // Another komi, another position or no book: the search decides, and
    // it never opens on a 1-1 point.
    for (komi, moves, book) in [
        (0.5, &[][..], Some(book)),
        (7.0, &[][..], None),
        (7.0, &["E5"][..], Some(book)),
    ] {
        let chosen = play(komi, moves, book);
        assert!(
            !["A1", "A9", "J1", "J9"].contains(&chosen.as_str()),
            "{komi} {moves:?}: {chosen}"
        );
    }
}

#[test]
fn an_unstable_choice_is_searched_on_up_to_the_extension() {
    // A 9×9 opening at 1,000 playouts a move, with leave to go on to
    // 2,000 while the choice is unstable.
    let size = tengen_core::BoardSize::square(9).unwrap();
    let (limit, cap) = (1_000_u64, 2_000_u64);
    let mut bot = bot(limit, 1, 7);
    bot.tree_search_mut().config_mut().extension = 1.0;
    let mut game = Game::new(size, Rules::default());
    let mut extended = 0;
    let mut searched = Vec::new();
    for _ in 0..16 {
        let Action::Move(mv) = bot.select_move(&game) else {
            panic!("resigned")
        };
        let playouts = bot.last_search().unwrap().playouts;
        searched.push(playouts);
        assert!(playouts <= cap, "{searched:?}");
        let analysis = bot.analysis().unwrap();
        // The move played, as the search picks it: most visits, ties to the
        // better win rate.
        let best = analysis
            .candidates
            .iter()
            .max_by(|a, b| {
                a.visits
                    .cmp(&b.visits)
                    .then(a.winrate.total_cmp(&b.winrate))
            })
            .unwrap();
        let unstable = analysis
            .candidates
            .iter()
            .any(|c| c.mv != best.mv && 2 * c.visits >= best.visits && c.winrate > best.winrate);
        // A search stops short of its cap only with a stable choice, and
        // in the extension only at a check.
        if playouts < cap {
            assert!(!unstable, "move {}: {analysis:?}", searched.len());
        }
        if playouts > limit {
            extended += 1;
            assert!(
                playouts == cap || playouts.is_multiple_of(DECIDED_CHECK_INTERVAL),
                "{searched:?}"
            );
        }
        game.play(mv).unwrap();
    }
    // Some choices were unstable at the limit and got more simulations.
    assert!(extended > 0, "{searched:?}");

    // Without the extension no search passes its limit.
    let mut bot = bot_without_extension(limit);
    let mut game = Game::new(size, Rules::default());
    for _ in 0..16 {
        let Action::Move(mv) = bot.select_move(&game) else {
            panic!("resigned")
        };
        assert!(bot.last_search().unwrap().playouts <= limit);
        game.play(mv).unwrap();
    }
}

fn bot_without_extension(playouts: u64) -> MctsBot {
    let bot = bot(playouts, 1, 7);
    assert_eq!(bot.tree_search().config().extension, 0.0);
    bot
}

#[test]
fn instability_is_a_better_win_rate_with_half_the_visits() {
    use super::search::is_unstable;
    let even = Prior {
        visits: 10.0,
        wins: 5.0,
    };
    let moves: Vec<(NodeMove, Prior)> = (0..3).map(|i| (i as NodeMove, even)).collect();
    // Visits and wins of the root's three children.
    let tree_with = |stats: [(u32, f32); 3]| {
        let mut tree = Tree::new(16);
        tree.expand(0, &moves);
        let children: Vec<usize> = tree.children(0).collect();
        for (child, (visits, wins)) in children.into_iter().zip(stats) {
            let node = tree.node_mut(child);
            node.visits = visits;
            node.wins = wins;
        }
        tree
    };
    // The most visited move also has the best win rate.
    assert!(!is_unstable(&tree_with([
        (100, 60.0),
        (60, 30.0),
        (10, 9.0)
    ])));
    // A better win rate on a tenth of the visits: noise, not a rival.
    assert!(!is_unstable(&tree_with([(100, 60.0), (10, 9.0), (0, 0.0)])));
    // A better win rate on half the visits or more: unstable.
    assert!(is_unstable(&tree_with([(100, 60.0), (50, 31.0), (0, 0.0)])));
    assert!(is_unstable(&tree_with([(100, 60.0), (0, 0.0), (90, 55.0)])));
    // No visits at all: nothing to choose between.
    assert!(!is_unstable(&tree_with([(0, 0.0), (0, 0.0), (0, 0.0)])));
}
