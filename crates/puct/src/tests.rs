//! Search mechanics with small hand-made evaluators.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tengen_core::scoring::ownership;
use tengen_core::{Action, Agent, Board, BoardSize, Color, Game, Move, Rules, SelectRequest};

use super::*;
use crate::tree::{position_key, NodeState, ROOT};
use crate::*;

/// The bot over the PUCT search with `config` and `evaluator`.
fn puct_bot<E: PositionEvaluator>(config: PuctConfig, evaluator: E) -> PuctBot<E> {
    PuctSearch::new(config, evaluator).into_bot()
}

/// Visits, in `bot`'s kept tree, of the position reached from its root by
/// `moves` (`None` if the tree does not hold it).
fn kept_visits<E: PositionEvaluator>(bot: &PuctBot<E>, moves: &[Move]) -> Option<u64> {
    let tree = bot.kept_tree()?;
    let id = tree.descendant(moves)?;
    Some(u64::from(tree.node(id).visits))
}

/// An evaluator from a function of the position, counting what it is asked.
struct TestEval<F: Fn(&Game) -> NetEvaluation + Send + Sync> {
    f: F,
    positions: AtomicU64,
    batches: Mutex<Vec<usize>>,
    saw_finished_game: AtomicBool,
    /// Finished games evaluated.
    finished_evaluated: AtomicU64,
    /// What it says of [`PositionEvaluator::plays_on_after_passes`].
    plays_on: bool,
    delay: Duration,
    /// Added to `delay` for each position of a batch.
    delay_per_position: Duration,
    /// What it says of [`PositionEvaluator::positions_in_parallel`].
    parallel: usize,
    fail: bool,
}

impl<F: Fn(&Game) -> NetEvaluation + Send + Sync> TestEval<F> {
    fn new(f: F) -> Self {
        TestEval {
            f,
            positions: AtomicU64::new(0),
            batches: Mutex::new(Vec::new()),
            saw_finished_game: AtomicBool::new(false),
            finished_evaluated: AtomicU64::new(0),
            plays_on: false,
            delay: Duration::ZERO,
            delay_per_position: Duration::ZERO,
            parallel: 1,
            fail: false,
        }
    }

    fn positions(&self) -> u64 {
        self.positions.load(Ordering::SeqCst)
    }

    fn batch_sizes(&self) -> Vec<usize> {
        self.batches.lock().unwrap().clone()
    }
}

impl<F: Fn(&Game) -> NetEvaluation + Send + Sync> PositionEvaluator for TestEval<F> {
    fn evaluate(&self, positions: &[&Game]) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        if self.fail {
            return Err(EvaluatorError::new("no network"));
        }
        std::thread::sleep(self.delay + self.delay_per_position * positions.len() as u32);
        self.positions
            .fetch_add(positions.len() as u64, Ordering::SeqCst);
        self.batches.lock().unwrap().push(positions.len());
        let finished = positions.iter().filter(|g| g.is_over()).count() as u64;
        if finished > 0 {
            self.saw_finished_game.store(true, Ordering::SeqCst);
            self.finished_evaluated
                .fetch_add(finished, Ordering::SeqCst);
        }
        Ok(positions.iter().map(|g| (self.f)(g)).collect())
    }

    fn plays_on_after_passes(&self, game: &Game) -> bool {
        self.plays_on && game.consecutive_passes() >= 2
    }

    fn positions_in_parallel(&self) -> usize {
        self.parallel
    }

    fn supports(&self, size: BoardSize) -> Result<(), String> {
        if size.width() <= 9 && size.height() <= 9 {
            Ok(())
        } else {
            Err("only up to 9x9".into())
        }
    }

    fn name(&self) -> &str {
        "test"
    }
}

/// Uniform over the legal moves.
fn uniform_policy(game: &Game) -> Vec<(Move, f32)> {
    let moves = game.legal_moves();
    let p = 1.0 / moves.len() as f32;
    moves.into_iter().map(|mv| (mv, p)).collect()
}

/// Uniform policy, value and ownership from the area count as it stands.
fn area_eval(game: &Game) -> NetEvaluation {
    let to_move = game.to_move();
    let s = if to_move == Color::Black { 1.0 } else { -1.0 };
    let lead = s * game.score().margin() as f32;
    let win = 1.0 / (1.0 + (-lead / 3.0).exp());
    let owner = ownership(game.board(), &[]).owner;
    let mut own = vec![0.0; tengen_core::MAX_CELLS];
    for (point, o) in game.size().points().zip(owner) {
        own[point.index()] = match o {
            Some(c) if c == to_move => 1.0,
            Some(_) => -1.0,
            None => 0.0,
        };
    }
    NetEvaluation {
        policy: uniform_policy(game),
        win,
        loss: 1.0 - win,
        no_result: 0.0,
        lead,
        ownership: Some(own),
        ..NetEvaluation::default()
    }
}

/// The policy strongly prefers passing; the value says the side to move
/// wins by `lead` with probability `win` (a lie, for the pass tests).
fn pass_lover(win: f32, lead: f32) -> impl Fn(&Game) -> NetEvaluation + Send + Sync {
    move |game: &Game| {
        let moves = game.legal_moves();
        let others = moves.len().saturating_sub(1).max(1) as f32;
        NetEvaluation {
            policy: moves
                .into_iter()
                .map(|mv| {
                    (
                        mv,
                        if mv == Move::Pass {
                            0.99
                        } else {
                            0.01 / others
                        },
                    )
                })
                .collect(),
            win,
            loss: 1.0 - win,
            no_result: 0.0,
            lead,
            ownership: None,
            ..NetEvaluation::default()
        }
    }
}

fn size(n: usize) -> BoardSize {
    BoardSize::square(n).unwrap()
}

fn rules(komi: f64) -> Rules {
    Rules::default().with_komi(komi)
}

fn mv(game: &Game, text: &str) -> Move {
    game.size().parse_gtp(text).unwrap()
}

/// The tests' search settings: `visits` a search, batches of `batch`, and
/// no root symmetry pruning. Most tests search an empty or symmetric board
/// with evaluators that favour one point over its images, which pruning
/// would leave unsearched; the pruning has tests of its own.
fn config(visits: u64, batch: usize) -> PuctConfig {
    PuctConfig {
        limits: SearchLimits {
            visits: Some(visits),
            ..SearchLimits::default()
        },
        batching: Batching {
            size: batch,
            ..Batching::default()
        },
        exploration: Exploration {
            root_symmetry_pruning: false,
            ..Exploration::default()
        },
        ..PuctConfig::default()
    }
}

/// Black to move; the three white stones on B2–D2 have one liberty, E2.
fn capture_position() -> Game {
    let board = Board::from_ascii(
        ". . . . .
         . . . . .
         . x x x .
         x o o o .
         x x x x .",
    )
    .unwrap();
    Game::from_position(board, Color::Black, rules(0.5))
}

/// Every expanded node has one visit of its own plus its children's plus
/// those it passed to a transposition; an unexpanded one only the latter;
/// no virtual loss or queued mark is left behind.
fn check_tree(tree: &Tree) {
    for id in 0..tree.len() as u32 {
        let node = tree.node(id);
        assert_eq!(node.virtual_loss, 0, "node {id}");
        assert!(!node.pending, "node {id}");
        match node.state {
            NodeState::Expanded => {
                let children: u32 = tree.children(id).map(|c| tree.node(c).edge_visits()).sum();
                assert_eq!(node.visits, 1 + children + node.transposed, "node {id}");
            }
            NodeState::Leaf => assert_eq!(node.visits, node.transposed, "node {id}"),
            NodeState::Terminal => assert_eq!(node.transposed, 0, "node {id}"),
        }
    }
}

#[test]
fn visits_limit_is_honoured_and_counts_add_up() {
    let game = Game::new(size(5), rules(7.5));
    for batch in [1, 4, 7] {
        let mut bot = puct_bot(config(100, batch), TestEval::new(area_eval));
        let stats = bot.search(&game);
        assert_eq!(stats.root_visits, 100, "batch {batch}");
        assert_eq!(stats.new_visits, 100);
        assert_eq!(stats.reused_visits, 0);
        assert_eq!(
            stats.evaluations + stats.terminal_visits + stats.transposed_visits,
            100
        );
        assert_eq!(bot.tree_search().evaluator().positions(), stats.evaluations);
        assert_eq!(
            bot.tree_search().evaluator().batch_sizes().len() as u64,
            stats.batches
        );
        assert!(bot
            .tree_search()
            .evaluator()
            .batch_sizes()
            .iter()
            .all(|&b| b >= 1 && b <= batch));
        check_tree(bot.kept_tree().unwrap());
    }
}

#[test]
fn transpositions_share_a_position_and_keep_the_counts_straight() {
    let game = Game::new(size(5), rules(7.5));
    let search = |transpositions: bool| {
        let cfg = PuctConfig {
            values: ValueUpdate {
                transpositions,
                ..config(400, 1).values
            },
            ..config(400, 1)
        };
        let mut bot = puct_bot(cfg, TestEval::new(area_eval));
        let stats = bot.search(&game);
        let tree = bot.kept_tree().unwrap();
        check_tree(tree);
        assert_eq!(stats.root_visits, 400);
        assert_eq!(
            stats.evaluations + stats.terminal_visits + stats.transposed_visits,
            stats.new_visits
        );
        assert_eq!(bot.tree_search().evaluator().positions(), stats.evaluations);
        // Each position is expanded once, by its owner: no two expanded
        // nodes share a key.
        let mut seen = std::collections::HashSet::new();
        let expanded_keys = (0..tree.len() as u32)
            .map(|id| tree.node(id))
            .filter(|n| n.state == NodeState::Expanded && n.position_key != 0)
            .map(|n| n.position_key);
        for key in expanded_keys {
            assert!(seen.insert(key), "position expanded twice");
        }
        (stats, tree.len())
    };
    let (on, _) = search(true);
    let (off, _) = search(false);
    assert!(on.transposed_visits > 0, "{on:?}");
    assert_eq!(off.transposed_visits, 0);
    // The shared positions save evaluations.
    assert!(on.evaluations < off.evaluations, "{on:?} against {off:?}");
}

#[test]
fn the_normal_distribution_function() {
    assert!((search::normal_cdf(0.0) - 0.5).abs() < 1e-7);
    assert!((search::normal_cdf(1.959_964) - 0.975).abs() < 1e-6);
    assert!((search::normal_cdf(-1.0) - 0.158_655_25).abs() < 1e-6);
    assert!(search::normal_cdf(-40.0) >= 0.0 && search::normal_cdf(40.0) <= 1.0);
}

#[test]
fn value_weights_favour_the_better_child_and_keep_the_total() {
    let children = [(10.0, 0.5), (10.0, -0.5), (2.0, 0.0)];
    let weights = search::value_weights(&children, 0.25);
    assert!(weights[0] > 10.0 && weights[1] < 10.0, "{weights:?}");
    assert!((weights.iter().sum::<f64>() - 22.0).abs() < 1e-9);
    // Off: the weights as they are.
    assert_eq!(search::value_weights(&children, 0.0), vec![10.0, 10.0, 2.0]);
    // Equal values: equal treatment.
    let level = search::value_weights(&[(4.0, 0.1), (4.0, 0.1)], 0.25);
    assert!((level[0] - level[1]).abs() < 1e-12);
}

#[test]
fn noise_pruning_takes_only_the_excess_of_a_worse_child() {
    // (weight, utility, prior), highest prior first.
    let children = [(10.0, 0.5, 0.6), (10.0, -0.5, 0.1), (2.0, 0.0, 0.3)];
    let pruned = search::noise_pruned_weights(&children);
    // The first child has nothing before it to be compared with.
    assert_eq!(pruned[0], 10.0);
    // The second is a full point worse than the first, with ten times
    // the weight its policy share (0.1 / 0.6 of 10) allows twice over:
    // nearly all the excess above 2 × 10/6 goes.
    let lenient = 2.0 * 10.0 * 0.1 / 0.6;
    let expected = 10.0 - (10.0 - lenient) * (1.0 - (-1.0f64 / 0.15).exp());
    assert!((pruned[1] - expected).abs() < 1e-12, "{pruned:?}");
    assert!(pruned[1] > lenient);
    // The third is worse than the average before it, but within its share.
    assert_eq!(pruned[2], 2.0);
    // A child better than those before it keeps all its weight.
    let better = search::noise_pruned_weights(&[(10.0, 0.0, 0.9), (10.0, 0.3, 0.05)]);
    assert_eq!(better, vec![10.0, 10.0]);
    // A lone child is left alone.
    assert_eq!(search::noise_pruned_weights(&[(3.0, -1.0, 0.2)]), vec![3.0]);
}

#[test]
fn value_weighted_nodes_agree_with_a_recomputation_from_their_children() {
    let game = Game::new(size(5), rules(7.5));
    for (transpositions, noise_pruning) in
        [(false, false), (true, false), (false, true), (true, true)]
    {
        let cfg = PuctConfig {
            values: ValueUpdate {
                value_weight_exponent: 0.25,
                transpositions,
                noise_pruning,
                ..config(300, 1).values
            },
            ..config(300, 1)
        };
        let mut bot = puct_bot(cfg, TestEval::new(area_eval));
        let weighted = bot.search(&game);
        let tree = bot.kept_tree().unwrap();
        check_tree(tree);
        if !transpositions {
            // Each node was last recomputed after its children last
            // changed: recomputing it again changes nothing.
            let mut again = tree.clone();
            for id in (0..tree.len() as u32).rev() {
                let node = tree.node(id);
                if node.state != NodeState::Expanded {
                    continue;
                }
                let settings = search::Recompute {
                    exponent: 0.25,
                    transpositions: false,
                    noise_pruning,
                    subtree_bias: 0.0,
                };
                search::recompute_node(&mut again, id, settings);
                let fresh = again.node(id);
                assert!(
                    (fresh.utility_sum - node.utility_sum).abs() < 1e-9,
                    "node {id}"
                );
                assert!(
                    (fresh.weight_sum - node.weight_sum).abs() < 1e-9,
                    "node {id}"
                );
                assert!((fresh.black_win_sum - node.black_win_sum).abs() < 1e-9);
            }
        }
        // The root's value is not the plain average of its visits.
        let plain = {
            let mut bot = puct_bot(
                PuctConfig {
                    values: ValueUpdate {
                        transpositions,
                        value_weight_exponent: 0.0,
                        noise_pruning: false,
                        ..config(300, 1).values
                    },
                    ..config(300, 1)
                },
                TestEval::new(area_eval),
            );
            bot.search(&game);
            bot.kept_tree().unwrap().root().utility_sum
        };
        assert_eq!(weighted.root_visits, 300);
        assert_ne!(tree.root().utility_sum, plain);
    }
}

#[test]
fn position_keys_meet_where_move_orders_meet() {
    let after = |moves: &[&str]| {
        let mut game = Game::new(size(5), rules(7.5));
        for m in moves {
            game.play(mv(&game, m)).unwrap();
        }
        game
    };
    let key = |moves: &[&str]| position_key(&after(moves));
    assert_eq!(key(&["C3", "B2", "D4"]), key(&["D4", "B2", "C3"]));
    assert!(key(&["C3", "B2", "D4"]).is_some());
    // The same stones with the other side to move.
    let mut other = after(&["C3", "B2", "D4"]);
    other = other.with_mover(Color::Black);
    assert_ne!(position_key(&other), key(&["C3", "B2", "D4"]));
    assert_ne!(key(&["C3", "B2"]), key(&["C3", "B3"]));
    // After a pass a position is never shared.
    assert_eq!(key(&["C3", "pass"]), None);
}

/// Lines that reach the same stones share a key only where superko
/// forbids the same moves: on 3×3, where random games repeat boards through
/// many histories, a key always comes with the same legal moves, and the
/// same stones do come with different legal moves.
#[test]
fn position_keys_meet_only_where_the_same_moves_are_legal() {
    let mut rng = tengen_core::Rng::new(3);
    let mut legal_by_key: std::collections::HashMap<u64, Vec<Move>> = Default::default();
    let mut legal_by_board: std::collections::HashMap<
        (u64, Color, Option<tengen_core::Point>),
        std::collections::HashSet<Vec<Move>>,
    > = Default::default();
    let mut met = 0usize;
    for _ in 0..2000 {
        let mut game = Game::new(size(3), rules(7.5));
        for _ in 0..60 {
            let moves = game.legal_moves();
            if let Some(key) = position_key(&game) {
                match legal_by_key.get(&key) {
                    Some(earlier) => {
                        met += 1;
                        assert_eq!(earlier, &moves, "one key, different legal moves");
                    }
                    None => {
                        legal_by_key.insert(key, moves.clone());
                    }
                }
                legal_by_board
                    .entry((game.board().hash(), game.to_move(), game.board().ko_point()))
                    .or_default()
                    .insert(moves.clone());
            }
            let plays: Vec<Move> = moves.into_iter().filter(|&m| m != Move::Pass).collect();
            if plays.is_empty() {
                break;
            }
            game.play(plays[rng.below(plays.len())]).unwrap();
        }
    }
    let differing = legal_by_board
        .values()
        .filter(|sets| sets.len() > 1)
        .count();
    assert!(met > 10_000, "only {met} positions met again");
    assert!(
        differing > 20,
        "only {differing} positions had different legal moves"
    );
}

#[test]
fn playouts_limit_counts_only_new_visits() {
    let game = Game::new(size(5), rules(7.5));
    let mut cfg = config(1_000, 4);
    cfg.limits.visits = None;
    cfg.limits.playouts = Some(40);
    let mut bot = puct_bot(cfg, TestEval::new(area_eval));
    assert_eq!(bot.search(&game).new_visits, 40);
    let stats = bot.search(&game);
    assert_eq!(stats.reused_visits, 40);
    assert_eq!(stats.new_visits, 40);
    assert_eq!(stats.root_visits, 80);
}

#[test]
fn finds_the_winning_capture() {
    let game = capture_position();
    let e2 = mv(&game, "E2");
    let mut bot = puct_bot(config(200, 1), TestEval::new(area_eval));
    assert_eq!(bot.select_move(&game), Action::Move(e2));
    let analysis = bot.analysis().unwrap();
    assert_eq!(analysis.candidates[0].mv, e2);
    // Chosen by its visits, not by a tie.
    assert!(analysis.candidates[0].visits > 100);
    assert!(analysis.winrate > 0.9, "{}", analysis.winrate);
}

#[test]
fn batched_and_sequential_searches_agree() {
    let game = capture_position();
    let e2 = mv(&game, "E2");
    let mut one = puct_bot(config(300, 1), TestEval::new(area_eval));
    let mut eight = puct_bot(config(300, 8), TestEval::new(area_eval));
    assert_eq!(one.select_move(&game), Action::Move(e2));
    assert_eq!(eight.select_move(&game), Action::Move(e2));
    for bot in [&one, &eight] {
        let c = &bot.analysis().unwrap().candidates;
        assert!(c[0].visits > 3 * c[1].visits, "{c:?}");
    }
    let (s1, s8) = (one.last_search().unwrap(), eight.last_search().unwrap());
    assert_eq!(s1.batches, s1.evaluations);
    // Most rounds of the batched search were full.
    assert!(
        s8.batches * 3 < s1.batches,
        "{} vs {}",
        s8.batches,
        s1.batches
    );
}

#[test]
fn small_budgets_get_small_batches() {
    let game = Game::new(size(5), rules(7.5));
    let mut bot = puct_bot(config(16, 8), TestEval::new(area_eval));
    bot.search(&game);
    // 16 visits: one position at a time.
    let sizes = bot.tree_search().evaluator().batch_sizes();
    assert!(sizes.iter().all(|&b| b == 1), "{sizes:?}");
    // 64 visits: batches of at most 64 / 32 = 2.
    let mut two = puct_bot(config(64, 8), TestEval::new(area_eval));
    two.search(&game);
    let sizes = two.tree_search().evaluator().batch_sizes();
    assert!(sizes.iter().all(|&b| b <= 2), "{sizes:?}");
    assert!(sizes.contains(&2), "{sizes:?}");
    // An evaluator of two threads gets two positions even at 16 visits.
    let mut eval = TestEval::new(area_eval);
    eval.parallel = 2;
    let mut threads = puct_bot(config(16, 8), eval);
    threads.search(&game);
    let sizes = threads.tree_search().evaluator().batch_sizes();
    assert!(sizes.iter().all(|&b| b <= 2), "{sizes:?}");
    assert!(sizes.contains(&2), "{sizes:?}");
    let mut wide = puct_bot(config(800, 8), TestEval::new(area_eval));
    wide.search(&game);
    assert!(wide.tree_search().evaluator().batch_sizes().contains(&8));
}

#[test]
fn batches_hold_a_position_for_every_thread_of_the_network() {
    // batch 8 and a network of 16 threads: batches of 16, else half the
    // threads would wait.
    let game = Game::new(size(9), rules(7.5));
    let mut eval = TestEval::new(area_eval);
    eval.parallel = 16;
    let mut bot = puct_bot(config(800, 8), eval);
    bot.search(&game);
    let sizes = bot.tree_search().evaluator().batch_sizes();
    assert!(sizes.iter().all(|&b| b <= 16), "{sizes:?}");
    assert!(sizes.contains(&16), "{sizes:?}");
    check_tree(bot.kept_tree().unwrap());
}

#[test]
fn in_flight_batches_keep_that_many_descents_in_flight() {
    // 64 visits alone make batches of two; KataGo's four search threads
    // (in_flight 4) make them four, and never more than `batch` allows.
    let game = Game::new(size(9), rules(7.5));
    let sizes = |in_flight: usize, batch: usize| {
        let cfg = PuctConfig {
            batching: Batching {
                in_flight,
                ..config(64, batch).batching
            },
            ..config(64, batch)
        };
        let mut bot = puct_bot(cfg, TestEval::new(area_eval));
        bot.search(&game);
        check_tree(bot.kept_tree().unwrap());
        assert_eq!(bot.kept_tree().unwrap().root().visits, 64);
        bot.tree_search().evaluator().batch_sizes()
    };
    let four = sizes(4, 8);
    assert!(four.iter().all(|&b| b <= 4), "{four:?}");
    assert!(four.contains(&4), "{four:?}");
    assert!(four.len() < 30, "{four:?}");
    let capped = sizes(16, 8);
    assert!(capped.iter().all(|&b| b <= 8), "{capped:?}");
    assert!(capped.contains(&8), "{capped:?}");
    let alone = sizes(1, 8);
    assert!(alone.iter().all(|&b| b <= 2), "{alone:?}");
}

#[test]
fn every_descent_sees_the_others_in_flight() {
    // Between rounds, with four descents modelled in flight, three
    // evaluations wait under their virtual losses (the root's count), so
    // the next descent sees three others, as a KataGo thread sees the
    // other three threads' descents; a synchronous batch leaves none.
    let game = Game::new(size(9), rules(7.5));
    let between_rounds = |in_flight: usize| {
        let cfg = PuctConfig {
            batching: Batching {
                in_flight,
                ..config(200, 8).batching
            },
            ..config(200, 8)
        };
        let eval = TestEval::new(area_eval);
        let mut tree = Tree::new(game.to_move(), 1 << 16);
        let mut seen = Vec::new();
        let mut searcher = Searcher::new(&mut tree, &game, &eval, &cfg, false);
        let mut monitor = |s: &Searcher<'_, _>, _: Duration| {
            seen.push(s.tree.root().virtual_loss);
            false
        };
        searcher.run(
            Limits {
                visits: Some(200),
                ..Limits::default()
            },
            &mut monitor,
            &|| false,
        );
        drop(searcher);
        check_tree(&tree);
        assert_eq!(tree.root().visits, 200);
        seen
    };
    let four = between_rounds(4);
    // The root is evaluated and lands alone; then every round leaves three.
    assert_eq!(four[0], 0, "{four:?}");
    assert!(four[1..].iter().all(|&v| v == 3), "{four:?}");
    assert!(four.len() > 40, "{four:?}");
    let synchronous = between_rounds(1);
    assert!(synchronous.iter().all(|&v| v == 0), "{synchronous:?}");
}

#[test]
fn a_short_clock_gets_small_batches() {
    // Each position costs at least 1 ms, so 60 ms afford at most 60 visits
    // however fast the machine: single positions (one per 32 visits).
    let game = Game::new(size(5), rules(7.5));
    let search = |adaptive_batch: bool| {
        let mut eval = TestEval::new(area_eval);
        eval.delay_per_position = Duration::from_millis(1);
        let cfg = PuctConfig {
            // Catch-ups cost no evaluation: on 5×5 they are frequent enough
            // to make the measured cost per visit, and so the batch,
            // depend on them.
            limits: SearchLimits {
                visits: None,
                time: Some(Duration::from_millis(60)),
                ..config(0, 8).limits
            },
            batching: Batching {
                adaptive: adaptive_batch,
                ..config(0, 8).batching
            },
            values: ValueUpdate {
                transpositions: false,
                ..config(0, 8).values
            },
            ..config(0, 8)
        };
        let mut bot = puct_bot(cfg, eval);
        bot.search(&game);
        bot.tree_search().evaluator().batch_sizes()
    };
    let sizes = search(true);
    assert!(sizes.len() > 1, "{sizes:?}");
    assert!(sizes.iter().all(|&b| b == 1), "{sizes:?}");
    // Without it the clock alone allows full batches.
    let sizes = search(false);
    assert!(sizes.iter().any(|&b| b > 3), "{sizes:?}");
}

#[test]
fn virtual_loss_spreads_a_batch_over_distinct_leaves() {
    let game = Game::new(size(5), rules(7.5));
    let cfg = PuctConfig {
        batching: Batching {
            adaptive: false,
            ..config(9, 8).batching
        },
        ..config(9, 8)
    };
    let mut bot = puct_bot(cfg, TestEval::new(area_eval));
    let stats = bot.search(&game);
    assert_eq!(bot.tree_search().evaluator().batch_sizes(), vec![1, 8]);
    assert_eq!(stats.collisions, 0);
    let tree = bot.kept_tree().unwrap();
    let visited: Vec<u32> = tree
        .children(ROOT)
        .map(|c| tree.node(c).visits)
        .filter(|&v| v > 0)
        .collect();
    assert_eq!(visited, vec![1; 8]);
}

#[test]
fn finished_games_are_scored_by_the_count_without_the_network() {
    // Black owns the board; White has passed. The evaluator lies (the side
    // to move always loses by 10) and loves passing, so the pass is visited
    // often, and its value shows whether the count or the network gave it.
    // (With conservative passing, the default, the root's pass is the
    // network's: the test above.)
    let mut game = Game::new(size(5), rules(0.5));
    game.play(mv(&game, "C3")).unwrap();
    game.play(Move::Pass).unwrap();
    let cfg = PuctConfig {
        selection: MoveSelection {
            conservative_pass: false,
            ..config(200, 4).selection
        },
        ..config(200, 4)
    };
    let mut bot = puct_bot(cfg, TestEval::new(pass_lover(0.1, -10.0)));
    let stats = bot.search(&game);
    assert!(stats.terminal_visits > 10, "{stats:?}");
    assert!(!bot
        .tree_search()
        .evaluator()
        .saw_finished_game
        .load(Ordering::SeqCst));
    assert_eq!(bot.tree_search().evaluator().positions(), stats.evaluations);
    assert_eq!(stats.evaluations + stats.terminal_visits, stats.new_visits);
    let analysis = bot.detailed_analysis().unwrap();
    let pass = analysis
        .candidates
        .iter()
        .find(|c| c.mv == Move::Pass)
        .unwrap();
    assert_eq!(pass.visits, stats.terminal_visits);
    assert_eq!(pass.winrate, 1.0);
    assert_eq!(pass.lead, 24.5);
}

#[test]
fn a_game_played_on_after_passes_is_valued_once_by_the_network() {
    // As above, but the evaluator's network plays on after two passes (as
    // KataGo's does under territory scoring): the position after the
    // passes is evaluated once, and every later visit takes that value.
    let mut game = Game::new(size(5), rules(0.5));
    game.play(mv(&game, "C3")).unwrap();
    game.play(Move::Pass).unwrap();
    let cfg = PuctConfig {
        selection: MoveSelection {
            conservative_pass: false,
            ..config(200, 4).selection
        },
        ..config(200, 4)
    };
    let evaluator = TestEval {
        plays_on: true,
        ..TestEval::new(pass_lover(0.1, -10.0))
    };
    let mut bot = puct_bot(cfg, evaluator);
    let stats = bot.search(&game);
    assert_eq!(
        bot.tree_search()
            .evaluator()
            .finished_evaluated
            .load(Ordering::SeqCst),
        1,
        "{stats:?}"
    );
    assert!(stats.terminal_visits > 10, "{stats:?}");
    assert_eq!(bot.tree_search().evaluator().positions(), stats.evaluations);
    assert_eq!(stats.evaluations + stats.terminal_visits, stats.new_visits);
    let analysis = bot.detailed_analysis().unwrap();
    let pass = analysis
        .candidates
        .iter()
        .find(|c| c.mv == Move::Pass)
        .unwrap();
    assert_eq!(pass.visits, stats.terminal_visits + 1);
    // White, to move after the passes, loses by 10 in the network's eyes.
    assert!((pass.lead - 10.0).abs() < 1e-3, "{}", pass.lead);
    assert!(
        pass.winrate > 0.85 && pass.winrate < 0.95,
        "{}",
        pass.winrate
    );
}

#[test]
fn wide_root_noise_opens_moves_in_the_policy_s_order() {
    // KataGo's search creates one new child at a time, the one the network
    // likes best; the noise only weighs it against the moves already
    // visited. So whatever the noise, the moves visited are always the
    // policy's first ones.
    let game = Game::new(size(9), rules(7.5));
    let graded = |game: &Game| {
        let moves = game.legal_moves();
        let n = moves.len() as f32;
        let total = n * (n + 1.0) / 2.0;
        NetEvaluation {
            policy: moves
                .iter()
                .enumerate()
                .map(|(i, &mv)| (mv, (n - i as f32) / total))
                .collect(),
            ..area_eval(game)
        }
    };
    for noise in [0.0, 0.04, 0.5] {
        let cfg = PuctConfig {
            exploration: Exploration {
                wide_root_noise: noise,
                ..config(60, 1).exploration
            },
            ..config(60, 1)
        };
        let mut bot = puct_bot(cfg, TestEval::new(graded));
        bot.search(&game);
        let analysis = bot.detailed_analysis().unwrap();
        let visited: Vec<Move> = analysis
            .candidates
            .iter()
            .filter(|c| c.visits > 0)
            .map(|c| c.mv)
            .collect();
        let first: Vec<Move> = game.legal_moves().into_iter().take(visited.len()).collect();
        let mut sorted = visited.clone();
        sorted.sort_by_key(|mv| first.iter().position(|m| m == mv));
        assert_eq!(sorted, first, "noise {noise}: {visited:?}");
        if noise == 0.5 {
            assert!(
                visited.len() > 3,
                "the noise spreads the visits: {visited:?}"
            );
        }
    }
}

#[test]
fn tree_reuse_keeps_the_subtree_visits() {
    let mut game = Game::new(size(5), rules(7.5));
    let mut bot = puct_bot(config(300, 4), TestEval::new(area_eval));
    let Action::Move(first) = bot.select_move(&game) else {
        panic!("resigned")
    };
    let reply = bot.detailed_analysis().unwrap().candidates[0].pv[1];
    let expected = kept_visits(&bot, &[first, reply]).unwrap();
    assert!(expected > 1, "{expected}");
    game.play(first).unwrap();
    game.play(reply).unwrap();
    let stats = bot.search(&game);
    assert_eq!(stats.reused_visits, expected);
    assert_eq!(stats.root_visits, 300);
    assert_eq!(stats.new_visits, 300 - expected);
    check_tree(bot.kept_tree().unwrap());

    // A game that does not continue the kept one starts afresh.
    let mut other = Game::new(size(5), rules(7.5));
    other.play(mv(&other, "A1")).unwrap();
    other.play(mv(&other, "A2")).unwrap();
    assert_eq!(bot.search(&other).reused_visits, 0);
    // So does any game after a reset.
    bot.search(&game);
    bot.reset();
    assert_eq!(bot.search(&game).reused_visits, 0);
}

#[test]
fn passes_when_the_opponent_passed_and_the_count_wins() {
    let mut game = Game::new(size(5), rules(0.5));
    game.play(mv(&game, "C3")).unwrap();
    game.play(Move::Pass).unwrap();
    let mut bot = puct_bot(config(50, 4), TestEval::new(area_eval));
    assert_eq!(bot.select_move(&game), Action::Move(Move::Pass));
    // Decided from the count, without searching.
    assert_eq!(bot.tree_search().evaluator().positions(), 0);
}

#[test]
fn passes_when_the_search_prefers_it_even_if_the_count_loses() {
    // White has one stone and owns the board; Black to move after White's
    // pass. The evaluator nearly always passes: the search's choice, the
    // pass, stands, though the count loses. Refusing it would leave Black
    // nothing but moves that make things worse.
    let mut board = Board::new(size(5));
    board
        .place_setup_stone(size(5).point(2, 2).unwrap(), Color::White)
        .unwrap();
    let mut game = Game::from_position(board, Color::White, rules(0.5));
    game.play(Move::Pass).unwrap();
    assert_eq!(game.to_move(), Color::Black);
    let mut bot = puct_bot(config(2, 1), TestEval::new(pass_lover(0.9, 5.0)));
    assert_eq!(bot.select_move(&game), Action::Move(Move::Pass));
}

#[test]
fn the_root_pass_that_ends_the_game_is_valued_by_the_network() {
    // After White's pass, Black's pass would end the game, which the bare
    // count (no dead stones) scores as a White win. With conservative
    // passing the search goes on after it, as KataGo's: the evaluator
    // values the position after the pass, White to move and the game going
    // on, and below it White's own pass ends the game on the count; without
    // it, the count values Black's pass at once.
    let mut game = Game::new(size(5), rules(30.5));
    game.play(mv(&game, "C3")).unwrap();
    game.play(Move::Pass).unwrap();
    // The evaluator: the side to move wins with 0.9 whatever the position,
    // except that it knows nothing of finished games.
    let eval = TestEval::new(pass_lover(0.9, 5.0));
    let mut bot = puct_bot(config(8, 1), eval);
    bot.search(&game);
    let pass = bot
        .detailed_analysis()
        .unwrap()
        .candidates
        .iter()
        .find(|c| c.mv == Move::Pass)
        .cloned()
        .unwrap();
    // White to move after the pass wins with 0.9: Black's 0.1, once; every
    // other visit went to White's pass, which loses for Black on the count.
    assert_eq!(pass.pv, vec![Move::Pass, Move::Pass], "{pass:?}");
    let expected = 0.1 / pass.visits as f32;
    assert!(
        pass.visits > 1 && (pass.winrate - expected).abs() < 1e-6,
        "{pass:?}"
    );
    assert!(!bot
        .tree_search()
        .evaluator()
        .saw_finished_game
        .load(Ordering::SeqCst));
    let mut bare = puct_bot(
        PuctConfig {
            selection: MoveSelection {
                conservative_pass: false,
                ..config(8, 1).selection
            },
            ..config(8, 1)
        },
        TestEval::new(pass_lover(0.9, 5.0)),
    );
    bare.search(&game);
    let pass = bare
        .detailed_analysis()
        .unwrap()
        .candidates
        .iter()
        .find(|c| c.mv == Move::Pass)
        .cloned()
        .unwrap();
    assert_eq!(pass.winrate, 0.0, "the count: White by 30.5 − 25");
}

#[test]
fn does_not_pass_early_unless_allowed() {
    // Black has one stone, White to move with a komi that wins the count.
    let mut game = Game::new(size(5), rules(30.5));
    game.play(mv(&game, "C3")).unwrap();
    let mut bot = puct_bot(config(2, 1), TestEval::new(pass_lover(0.9, 5.0)));
    let action = bot.select_move(&game);
    assert_eq!(
        bot.detailed_analysis().unwrap().candidates[0].mv,
        Move::Pass
    );
    assert!(matches!(action, Action::Move(Move::Play(_))), "{action:?}");
    let mut late = puct_bot(
        PuctConfig {
            selection: MoveSelection {
                max_empty_to_pass: 1.0,
                ..config(2, 1).selection
            },
            ..config(2, 1)
        },
        TestEval::new(pass_lover(0.9, 5.0)),
    );
    assert_eq!(late.select_move(&game), Action::Move(Move::Pass));
}

#[test]
fn cleanup_captures_dead_stones_before_passing() {
    // A white stone dead inside Black's area, White has passed: in cleanup
    // Black may not pass while it is on the board; without it, Black
    // passes.
    let board = Board::from_ascii(
        ". . . . .
         . . . . .
         x x x x x
         . . . o .
         . . . . .",
    )
    .unwrap();
    let mut game = Game::from_position(board, Color::White, rules(0.5));
    game.play(Move::Pass).unwrap();
    let mut bot = puct_bot(config(30, 4), TestEval::new(pass_lover(0.9, 5.0)));
    let action = bot.select(&game, &mut SelectRequest::new().cleanup());
    assert!(matches!(action, Action::Move(Move::Play(_))), "{action:?}");
    let board = Board::from_ascii(
        ". . . . .
         . . . . .
         x x x x x
         . . . . .
         . . . . .",
    )
    .unwrap();
    let mut clean = Game::from_position(board, Color::White, rules(0.5));
    clean.play(Move::Pass).unwrap();
    let mut bot = puct_bot(config(30, 4), TestEval::new(pass_lover(0.9, 5.0)));
    let action = bot.select(&clean, &mut SelectRequest::new().cleanup());
    assert_eq!(action, Action::Move(Move::Pass));
}

/// Black loses whatever happens (by the value; the policy is uniform).
fn black_loses(game: &Game) -> NetEvaluation {
    let black = game.to_move() == Color::Black;
    NetEvaluation {
        policy: uniform_policy(game),
        win: if black { 0.02 } else { 0.98 },
        loss: if black { 0.98 } else { 0.02 },
        no_result: 0.0,
        lead: if black { -30.0 } else { 30.0 },
        ownership: None,
        ..NetEvaluation::default()
    }
}

/// Black's actions over three moves, White answering on the first free
/// point.
fn black_actions(cfg: PuctConfig) -> Vec<Action> {
    let mut game = Game::new(size(5), rules(7.5));
    let mut bot = puct_bot(cfg, TestEval::new(black_loses));
    let mut actions = Vec::new();
    for _ in 0..3 {
        let action = bot.select_move(&game);
        actions.push(action);
        if action == Action::Resign {
            break;
        }
        game.apply(action).unwrap();
        game.play(game.legal_moves()[0]).unwrap();
    }
    actions
}

#[test]
fn resigns_after_consecutive_hopeless_searches() {
    let cfg = PuctConfig {
        resignation: ResignSettings {
            threshold: 0.1,
            consecutive: 2,
            min_visits: 20,
            min_moves_per_point: 0.0,
        },
        ..config(30, 4)
    };
    let actions = black_actions(cfg.clone());
    assert_eq!(actions.len(), 2);
    assert!(matches!(actions[0], Action::Move(_)));
    assert_eq!(actions[1], Action::Resign);
    // Never with the threshold at 0.
    let never = black_actions(PuctConfig {
        resignation: ResignSettings {
            threshold: 0.0,
            ..cfg.clone().resignation
        },
        ..cfg.clone()
    });
    assert!(never.iter().all(|a| matches!(a, Action::Move(_))));
    // A visit limit below the minimum is trusted once reached (a search
    // stopped short of both is not: the shell's streak test).
    let mut low = cfg.clone();
    low.resignation.min_visits = 1_000;
    low.limits.visits = Some(10);
    let low = black_actions(low);
    assert_eq!(low.last(), Some(&Action::Resign));
    // On by default (KataGo's 0.05, three searches), never before move
    // 0.2 × 25 = 5: Black's searches at turns 0, 2 and 4 only count.
    let default = black_actions(config(30, 4));
    assert!(
        default.iter().all(|a| matches!(a, Action::Move(_))),
        "{default:?}"
    );
    let late = black_actions(PuctConfig {
        resignation: ResignSettings {
            min_moves_per_point: 0.15,
            ..config(30, 4).resignation
        },
        ..config(30, 4)
    });
    assert_eq!(late, vec![late[0], late[1], Action::Resign]);
}

#[test]
fn analysis_is_consistent_with_the_visits() {
    let game = capture_position();
    let mut bot = puct_bot(config(150, 4), TestEval::new(area_eval));
    let mut reports = Vec::new();
    let mut sink = |a: &Analysis| reports.push(a.clone());
    bot.select(
        &game,
        &mut SelectRequest::new().reporting(Duration::ZERO, &mut sink),
    );
    assert!(reports.len() > 5);
    assert!(reports.windows(2).all(|w| w[0].playouts <= w[1].playouts));
    let analysis = bot.analysis().unwrap();
    assert_eq!(analysis.playouts, 150);
    let detailed = bot.detailed_analysis().unwrap();
    let total: u64 = analysis.candidates.iter().map(|c| c.visits).sum();
    assert_eq!(total, 149);
    assert!(analysis
        .candidates
        .windows(2)
        .all(|w| w[0].visits >= w[1].visits));
    let legal = game.legal_moves().len() as f32;
    for (c, d) in analysis.candidates.iter().zip(&detailed.candidates) {
        assert_eq!(c.pv[0], c.mv);
        assert!((0.0..=1.0).contains(&c.winrate));
        assert!((c.prior - 1.0 / legal).abs() < 1e-6);
        assert_eq!(c.mv, d.mv);
        assert_eq!(c.winrate, d.winrate);
        let mut replay = game.clone();
        for &m in &c.pv {
            replay.play(m).unwrap();
        }
    }
    // Capturing is worth the three stones and their points.
    assert!(detailed.candidates[0].lead > 5.0);
    assert_eq!(analysis.ownership.len(), 25);
    assert!(analysis.ownership.iter().all(|o| (-1.0..=1.0).contains(o)));
    // Row-major from the top-left: the last row is the bottom one, Black's.
    assert!(analysis.ownership[20..].iter().all(|&o| o > 0.5));
}

#[test]
fn searches_are_deterministic() {
    let game = capture_position();
    let run = || {
        let mut bot = puct_bot(config(120, 8), TestEval::new(area_eval));
        bot.select_move(&game);
        bot.detailed_analysis().cloned()
    };
    assert_eq!(run(), run());
}

#[test]
fn time_limit_stops_the_search() {
    let game = Game::new(size(5), rules(7.5));
    let mut eval = TestEval::new(area_eval);
    eval.delay = Duration::from_millis(2);
    let cfg = PuctConfig {
        limits: SearchLimits {
            visits: None,
            time: Some(Duration::from_millis(100)),
            ..SearchLimits::default()
        },
        ..PuctConfig::default()
    };
    let mut bot = puct_bot(cfg, eval);
    let start = Instant::now();
    let stats = bot.search(&game);
    // Without a visit limit only the time ends it; the guard only catches
    // a search that never ends.
    let guard = tengen_testing::hang_guard(Duration::from_secs(60));
    assert!(start.elapsed() < guard, "{stats:?}");
    assert!(stats.new_visits >= 1, "{stats:?}");
    assert!(stats.elapsed >= Duration::from_millis(50), "{stats:?}");
}

#[test]
fn tree_size_limit_stops_growth() {
    let game = Game::new(size(5), rules(7.5));
    let cfg = PuctConfig {
        limits: SearchLimits {
            max_nodes: 300,
            ..config(10_000, 4).limits
        },
        ..config(10_000, 4)
    };
    let mut bot = puct_bot(cfg, TestEval::new(area_eval));
    let stats = bot.search(&game);
    assert!(stats.tree_full);
    assert!(stats.root_visits < 10_000);
    assert!(bot.kept_tree().map_or(0, Tree::len) <= 300);
}

#[test]
fn illegal_policy_moves_are_never_played() {
    // The policy puts most weight on an occupied point.
    let game = capture_position();
    let occupied = mv(&game, "B2");
    let eval = move |g: &Game| NetEvaluation {
        policy: std::iter::once((occupied, 0.9))
            .chain(uniform_policy(g).into_iter().map(|(m, p)| (m, p * 0.1)))
            .collect(),
        ..area_eval(g)
    };
    let mut bot = puct_bot(config(50, 4), TestEval::new(eval));
    let action = bot.select_move(&game);
    assert_ne!(action, Action::Move(occupied));
    let analysis = bot.analysis().unwrap();
    assert!(analysis.candidates.iter().all(|c| c.mv != occupied));
    let total: u64 = analysis.candidates.iter().map(|c| c.visits).sum();
    assert_eq!(total, 49);
}

#[test]
fn root_noise_changes_priors_only_when_on() {
    let game = Game::new(size(5), rules(7.5));
    let priors = |weight: f32| {
        let mut bot = puct_bot(
            PuctConfig {
                exploration: Exploration {
                    noise_weight: weight,
                    noise_seed: 3,
                    ..config(40, 4).exploration
                },
                ..config(40, 4)
            },
            TestEval::new(area_eval),
        );
        bot.search(&game);
        let tree = bot.kept_tree().unwrap();
        tree.children(ROOT)
            .map(|c| tree.node(c).prior)
            .collect::<Vec<f32>>()
    };
    let plain = priors(0.0);
    let noisy = priors(0.25);
    assert!(plain.iter().all(|&p| (p - plain[0]).abs() < 1e-6));
    assert!(noisy.iter().any(|&p| (p - plain[0]).abs() > 1e-3));
    assert!((noisy.iter().sum::<f32>() - 1.0).abs() < 1e-3);
}

#[test]
fn one_visit_plays_the_policy_s_first_choice() {
    let game = Game::new(size(5), rules(7.5));
    let c4 = mv(&game, "C4");
    let likes_c4 = move |game: &Game| {
        let mut evaluation = area_eval(game);
        for (m, p) in &mut evaluation.policy {
            *p = if *m == c4 { 0.5 } else { 0.01 };
        }
        evaluation
    };
    let mut bot = puct_bot(config(1, 1), TestEval::new(likes_c4));
    assert_eq!(bot.select_move(&game), Action::Move(c4));
    // With noise, the choice varies with the seed and stays legal.
    let mut chosen = std::collections::HashSet::new();
    for seed in 0..20 {
        let mut bot = puct_bot(
            PuctConfig {
                exploration: Exploration {
                    noise_weight: 0.9,
                    noise_seed: seed,
                    ..config(1, 1).exploration
                },
                ..config(1, 1)
            },
            TestEval::new(likes_c4),
        );
        let Action::Move(m) = bot.select_move(&game) else {
            panic!("resigned")
        };
        assert!(game.legal(m).is_ok());
        chosen.insert(m);
    }
    assert!(chosen.len() > 1, "{chosen:?}");
}

#[test]
fn evaluator_failure_still_gives_a_legal_move() {
    let game = Game::new(size(5), rules(7.5));
    let mut eval = TestEval::new(area_eval);
    eval.fail = true;
    let mut bot = puct_bot(config(50, 4), eval);
    let Action::Move(chosen) = bot.select_move(&game) else {
        panic!("resigned")
    };
    assert!(game.legal(chosen).is_ok());
    assert!(bot.last_search().unwrap().error.is_some());
}

#[test]
fn board_sizes_come_from_the_evaluator() {
    let bot = puct_bot(PuctConfig::default(), TestEval::new(area_eval));
    assert!(bot.plays_size(size(9)).is_ok());
    assert!(bot.plays_size(size(19)).is_err());
    assert_eq!(bot.name(), "puct(test)");
}

#[test]
fn analyze_runs_until_stopped() {
    let game = Game::new(size(5), rules(7.5));
    let mut bot = puct_bot(config(10, 4), TestEval::new(area_eval));
    // It runs (reporting) until its stop says so, here after three reports;
    // the guard only ends a search that never reports.
    let start = Instant::now();
    let guard = tengen_testing::hang_guard(Duration::from_secs(60));
    let reports = std::cell::Cell::new(0);
    let stop = || reports.get() >= 3 || start.elapsed() >= guard;
    let mut sink = |_: &Analysis| reports.set(reports.get() + 1);
    let mut request = SelectRequest::new()
        .stop_when(&stop)
        .reporting(Duration::from_millis(20), &mut sink);
    assert!(bot.analyze(&game, &mut request));
    drop(request);
    assert!(reports.get() >= 3, "{} reports in {guard:?}", reports.get());
    // Unlimited by the visit setting.
    assert!(bot.analysis().unwrap().playouts > 10);
}

#[test]
fn score_utility_is_bounded_and_centred() {
    let cfg = PuctConfig::default();
    let mut u = search::Utility::new(&cfg, 81);
    assert_eq!(u.score(0.0), 0.0);
    assert!(u.score(1e9) < 0.4 + 1e-6 && u.score(1e9) > 0.39);
    assert!((u.score(5.0) + u.score(-5.0)).abs() < 1e-12);
    assert!(u.score(3.0) > u.score(2.0));
    // Centred near the expected lead, pulled a fifth of the way to 0.
    u.recentre(10.0, 0.2);
    assert!((u.center() - 8.0).abs() < 1e-12);
    // The dynamic term is steepest at its centre.
    let slope = |x: f64| u.score(x + 0.5) - u.score(x - 0.5);
    assert!(slope(8.0) > slope(0.0));
    assert!(u.worst() <= -1.4 + 1e-6);
}

#[test]
fn the_clock_limits_the_search() {
    let game = Game::new(size(5), rules(7.5));
    let mut eval = TestEval::new(area_eval);
    eval.delay = Duration::from_millis(2);
    let cfg = PuctConfig {
        limits: SearchLimits {
            visits: None,
            ..SearchLimits::default()
        },
        ..PuctConfig::default()
    };
    let mut bot = puct_bot(cfg, eval);
    bot.set_time_settings(tengen_core::TimeSettings::Absolute { main: 2 });
    let start = Instant::now();
    let stats = bot.search(&game);
    // About (2 s − lag) / 12 moves, at most a quarter of the time left
    // (the allocation itself is tested in tengen-search). A search that
    // ignored the clock would run for ever, one that took all of it would
    // lose on time: less than the whole clock is the bound only a defect
    // breaks, however busy the machine.
    assert!(start.elapsed() < Duration::from_secs(2), "{stats:?}");
    assert!(stats.elapsed >= Duration::from_millis(50), "{stats:?}");
    assert!(stats.new_visits >= 1, "{stats:?}");
}

/// Answers its first `quick` batches at once, then holds every batch until
/// it is cancelled (or 30 s pass: then it fails, which the test sees).
struct HangingEval {
    quick: u64,
    answered: AtomicU64,
    hanging: AtomicBool,
    cancelled: AtomicBool,
}

impl PositionEvaluator for HangingEval {
    fn evaluate(&self, positions: &[&Game]) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        self.evaluate_until(positions, &|| false)
    }

    fn abandons(&self) -> bool {
        true
    }

    fn evaluate_until(
        &self,
        positions: &[&Game],
        cancel: &(dyn Fn() -> bool + Sync),
    ) -> Result<Vec<NetEvaluation>, EvaluatorError> {
        if self.answered.fetch_add(1, Ordering::SeqCst) < self.quick {
            return Ok(positions.iter().map(|g| area_eval(g)).collect());
        }
        self.hanging.store(true, Ordering::SeqCst);
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(30) {
            if cancel() {
                self.cancelled.store(true, Ordering::SeqCst);
                return Err(EvaluatorError::new("cancelled"));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        Err(EvaluatorError::new("never cancelled"))
    }

    fn supports(&self, _size: BoardSize) -> Result<(), String> {
        Ok(())
    }

    fn name(&self) -> &str {
        "hanging"
    }
}

#[test]
fn a_stop_during_a_batch_abandons_it_and_the_search_answers() {
    let game = Game::new(size(5), rules(7.5));
    let eval = std::sync::Arc::new(HangingEval {
        quick: 3,
        answered: AtomicU64::new(0),
        hanging: AtomicBool::new(false),
        cancelled: AtomicBool::new(false),
    });
    let mut bot = puct_bot(config(10_000, 4), eval.clone());
    // The signal comes only once a batch is under way: the search must hear
    // it during the batch, not after it.
    let stop = || eval.hanging.load(Ordering::SeqCst);
    let Action::Move(chosen) = bot.select(&game, &mut SelectRequest::new().stop_when(&stop)) else {
        panic!("resigned")
    };
    assert!(game.legal(chosen).is_ok());
    assert!(
        eval.cancelled.load(Ordering::SeqCst),
        "the batch was not cancelled"
    );
    let stats = bot.last_search().unwrap();
    assert_eq!(stats.error, None, "a stop is not an error");
    // Three batches were absorbed (one root visit, then two batches of
    // four); the abandoned one left no visit and no virtual loss behind.
    assert_eq!(stats.batches, 3);
    assert_eq!(stats.root_visits, 9);
    check_tree(bot.kept_tree().unwrap());
}

#[test]
fn avoid_and_allow_keep_moves_out_of_the_search() {
    let game = Game::new(size(5), rules(0.5));
    let c3 = mv(&game, "C3");
    let b2 = mv(&game, "B2");
    let avoid = tengen_core::MoveFilter {
        color: Color::Black,
        moves: vec![c3, b2],
        until_depth: 1,
        allow: false,
    };
    let mut bot = puct_bot(config(1000, 4), TestEval::new(area_eval));
    let mut request = SelectRequest::new().filtered(vec![avoid.clone()]);
    let action = bot.select(&game, &mut request);
    let analysis = bot.detailed_analysis().unwrap();
    assert!(analysis.candidates.iter().all(|c| c.mv != c3 && c.mv != b2));
    assert!(!matches!(action, Action::Move(m) if m == c3 || m == b2));
    // Below the root the avoided moves are Black's to play again: White's
    // replies lead to positions where Black may play C3.
    let tree = bot.kept_tree().unwrap();
    let deeper = tree
        .children(ROOT)
        .flat_map(|c| tree.children(c))
        .flat_map(|g| tree.children(g))
        .any(|n| [c3, b2].contains(&tree.node(n).mv) && tree.node(n).visits > 0);
    assert!(deeper, "depth 1 only keeps them out of the root");
    // Until depth 3 they stay out of Black's replies too.
    let mut bot = puct_bot(config(1000, 4), TestEval::new(area_eval));
    let mut request = SelectRequest::new().filtered(vec![tengen_core::MoveFilter {
        until_depth: 3,
        ..avoid
    }]);
    bot.select(&game, &mut request);
    let tree = bot.kept_tree().unwrap();
    let deeper = tree
        .children(ROOT)
        .flat_map(|c| tree.children(c))
        .flat_map(|g| tree.children(g))
        .any(|n| [c3, b2].contains(&tree.node(n).mv) && tree.node(n).visits > 0);
    assert!(!deeper);
    // allow: only the named points (and passing).
    let mut bot = puct_bot(config(100, 4), TestEval::new(area_eval));
    let mut request = SelectRequest::new().filtered(vec![tengen_core::MoveFilter {
        color: Color::Black,
        moves: vec![c3],
        until_depth: 1,
        allow: true,
    }]);
    bot.select(&game, &mut request);
    let analysis = bot.detailed_analysis().unwrap();
    assert!(analysis
        .candidates
        .iter()
        .all(|c| c.mv == c3 || c.mv == Move::Pass));
    assert_eq!(analysis.candidates[0].mv, c3);
}

#[test]
fn analysis_details_come_when_asked() {
    let game = capture_position();
    let mut bot = puct_bot(config(120, 4), TestEval::new(area_eval));
    bot.select_move(&game);
    let plain = bot.analysis().unwrap();
    assert!(plain.ownership_stdev.is_empty());
    assert!(plain.candidates.iter().all(|c| c.ownership.is_empty()));
    let root = plain.root.unwrap();
    assert_eq!(root.visits, plain.playouts);
    for c in &plain.candidates {
        assert_eq!(c.pv_visits.len(), c.pv.len(), "{c:?}");
        assert_eq!(c.pv_visits[0], c.visits);
        assert!(c.pv_visits.windows(2).all(|w| w[0] >= w[1]), "{c:?}");
    }
    let mut bot = puct_bot(config(120, 4), TestEval::new(area_eval));
    let detail = tengen_core::AnalysisDetail {
        moves_ownership: true,
        ownership_stdev: true,
    };
    bot.select(&game, &mut SelectRequest::new().with_detail(detail));
    let full = bot.analysis().unwrap();
    let points = game.size().points_count();
    assert_eq!(full.ownership_stdev.len(), points);
    assert!(full.ownership_stdev.iter().all(|s| (0.0..=1.0).contains(s)));
    assert!(full.ownership_stdev.iter().any(|&s| s > 0.0));
    let best = &full.candidates[0];
    assert_eq!(best.ownership.len(), points);
    // E2 captures three white stones: after it Black owns E2 for good and
    // B2–D2 more often than not (row-major from the top: row 2 is the
    // fourth row).
    assert_eq!(game.size().gtp(best.mv), "E2");
    assert!(best.ownership[3 * 5 + 4] > 0.9, "{:?}", best.ownership);
    let captured: f32 = best.ownership[3 * 5 + 1..3 * 5 + 4].iter().sum();
    assert!(captured > 0.0, "{:?}", best.ownership);
}

#[test]
fn pondering_grows_the_tree_for_the_next_move_and_stops_when_told() {
    let mut game = Game::new(size(5), rules(0.5));
    let cfg = PuctConfig {
        limits: SearchLimits {
            ponder: true,
            ..config(40, 4).limits
        },
        ..config(40, 4)
    };
    let mut bot = puct_bot(cfg, TestEval::new(area_eval));
    let Action::Move(mv) = bot.select_move(&game) else {
        panic!("resigned");
    };
    game.play(mv).unwrap();
    let before = kept_visits(&bot, &[mv]).unwrap_or(0);
    let seen = bot.tree_search().evaluator().positions();
    let start = Instant::now();
    bot.ponder(&game, &|| start.elapsed() > Duration::from_millis(300));
    // Pondering left alone goes on for a minute; half of it is a bound only
    // a pondering that ignores its stop breaks.
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "stopped when told: {:?}",
        start.elapsed()
    );
    assert!(
        bot.tree_search().evaluator().positions() > seen,
        "it searched"
    );
    let after = kept_visits(&bot, &[]).unwrap();
    assert!(after > before + 10, "{before} -> {after}");
    // The opponent's likeliest reply has been thought about: the next
    // search starts from its subtree.
    let tree_reply = {
        let tree = bot.kept_tree().unwrap();
        tree.node(tree.best_child(ROOT).unwrap()).mv
    };
    let reply_visits = kept_visits(&bot, &[tree_reply]).unwrap();
    game.play(tree_reply).unwrap();
    bot.select_move(&game);
    assert_eq!(bot.last_search().unwrap().reused_visits, reply_visits);
    assert!(reply_visits > 0);
    // Off by default: pondering does nothing.
    let mut quiet = puct_bot(config(40, 4), TestEval::new(area_eval));
    let seen = quiet.tree_search().evaluator().positions();
    quiet.ponder(&game, &|| false);
    assert_eq!(quiet.tree_search().evaluator().positions(), seen);
}

#[test]
fn lcb_prefers_a_surely_better_move_to_a_more_visited_one() {
    use crate::tree::{LeafValue, Tree};
    let game = Game::new(size(5), rules(0.5));
    let (a, b) = (mv(&game, "C3"), mv(&game, "B2"));
    let mut tree = Tree::new(Color::Black, 1000);
    tree.expand(ROOT, Color::White, &[(a, 0.6), (b, 0.4)]);
    let (ca, cb) = (
        tree.child_by_move(ROOT, a).unwrap(),
        tree.child_by_move(ROOT, b).unwrap(),
    );
    // A: 100 visits, Black wins 55% of them; B: 60 visits, 80% wins.
    for (child, visits, wins) in [(ca, 100, 55), (cb, 60, 48)] {
        for i in 0..visits {
            let win = if i < wins { 1.0 } else { 0.0 };
            let value = LeafValue::from_lead(win, 1.0 - win, 0.0);
            tree.node_mut(child)
                .add(&value, f64::from(2.0 * win - 1.0), 1.0);
            tree.node_mut(ROOT)
                .add(&value, f64::from(2.0 * win - 1.0), 1.0);
        }
    }
    let eval = TestEval::new(area_eval);
    let on = config(1, 1);
    let searcher = Searcher::new(&mut tree, &game, &eval, &on, false);
    let analysis = analysis_of(&searcher, game.size(), Color::Black);
    assert_eq!(analysis.candidates[0].mv, b, "{:?}", analysis.candidates);
    assert!(analysis.candidates[0].lcb < analysis.candidates[0].winrate);
    assert!(analysis.candidates[0].utility_lcb > analysis.candidates[1].utility_lcb);
    let off = PuctConfig {
        selection: MoveSelection {
            lcb_selection: false,
            ..config(1, 1).selection
        },
        ..config(1, 1)
    };
    let searcher = Searcher::new(&mut tree, &game, &eval, &off, false);
    assert_eq!(
        analysis_of(&searcher, game.size(), Color::Black).candidates[0].mv,
        a
    );
    // Below the share of the leader's visits a move is not chosen by its
    // bound, however good.
    let strict = PuctConfig {
        selection: MoveSelection {
            lcb_min_visits: 0.7,
            ..config(1, 1).selection
        },
        ..config(1, 1)
    };
    let searcher = Searcher::new(&mut tree, &game, &eval, &strict, false);
    assert_eq!(
        analysis_of(&searcher, game.size(), Color::Black).candidates[0].mv,
        a
    );
}

/// A tree whose root (Black to move) is expanded into `children`.
fn root_with(children: &[(Move, f32)]) -> super::tree::Tree {
    let mut tree = super::tree::Tree::new(Color::Black, 1000);
    tree.expand(ROOT, Color::White, children);
    tree
}

/// Adds `visits` visits of utility `utility` for Black, each weighing
/// `weight`, to `child` and the root.
fn add_visits(
    tree: &mut super::tree::Tree,
    child: super::tree::NodeId,
    visits: u32,
    utility: f64,
    weight: f64,
) {
    let win = (0.5 * (1.0 + utility)) as f32;
    let value = super::tree::LeafValue::from_lead(win, 1.0 - win, 0.0);
    for _ in 0..visits {
        tree.node_mut(child).add(&value, utility, weight);
        tree.node_mut(ROOT).add(&value, utility, weight);
    }
}

#[test]
fn a_move_searched_more_than_puct_wanted_in_retrospect_is_not_played() {
    let game = Game::new(size(5), rules(0.5));
    let (a, b) = (mv(&game, "C3"), mv(&game, "B2"));
    let mut tree = root_with(&[(a, 0.7), (b, 0.1)]);
    let (ca, cb) = (
        tree.child_by_move(ROOT, a).unwrap(),
        tree.child_by_move(ROOT, b).unwrap(),
    );
    // B has one visit more, but its value is far below A's and its prior
    // small: knowing what the search knows now, PUCT would not have gone
    // there that often.
    add_visits(&mut tree, ca, 10, 0.2, 1.0);
    add_visits(&mut tree, cb, 11, 0.0, 1.0);
    let eval = TestEval::new(area_eval);
    for lcb in [false, true] {
        let settings = PuctConfig {
            selection: MoveSelection {
                lcb_selection: lcb,
                ..config(1, 1).selection
            },
            ..config(1, 1)
        };
        let searcher = Searcher::new(&mut tree, &game, &eval, &settings, false);
        let analysis = analysis_of(&searcher, game.size(), Color::Black);
        assert_eq!(
            analysis.candidates[0].mv, a,
            "lcb {lcb}: {:?}",
            analysis.candidates
        );
    }
    // With the values equal, the move searched more is played.
    let mut level = root_with(&[(a, 0.7), (b, 0.1)]);
    let (ca, cb) = (
        level.child_by_move(ROOT, a).unwrap(),
        level.child_by_move(ROOT, b).unwrap(),
    );
    add_visits(&mut level, ca, 4, 0.2, 1.0);
    add_visits(&mut level, cb, 11, 0.2, 1.0);
    let settings = config(1, 1);
    let searcher = Searcher::new(&mut level, &game, &eval, &settings, false);
    assert_eq!(
        analysis_of(&searcher, game.size(), Color::Black).candidates[0].mv,
        b
    );
}

#[test]
fn a_tie_at_few_visits_goes_to_the_policy_s_favourite() {
    let game = Game::new(size(5), rules(0.5));
    let (a, b) = (mv(&game, "C3"), mv(&game, "B2"));
    let eval = TestEval::new(area_eval);
    // The same visits and values, listed in either order: the higher
    // prior is played.
    for priors in [[(a, 0.3), (b, 0.5)], [(b, 0.5), (a, 0.3)]] {
        let mut tree = root_with(&priors);
        for m in [a, b] {
            let c = tree.child_by_move(ROOT, m).unwrap();
            add_visits(&mut tree, c, 5, 0.1, 1.0);
        }
        let settings = config(1, 1);
        let searcher = Searcher::new(&mut tree, &game, &eval, &settings, false);
        let analysis = analysis_of(&searcher, game.size(), Color::Black);
        assert_eq!(analysis.candidates[0].mv, b, "{:?}", analysis.candidates);
    }
}

#[test]
fn exploration_counts_the_weight_of_visits_not_their_number() {
    let game = Game::new(size(5), rules(0.5));
    let (a, b) = (mv(&game, "C3"), mv(&game, "B2"));
    let eval = TestEval::new(area_eval);
    // The same prior, visits and value; A's evaluations were certain
    // (weight 4 each), B's not (0.5): B is searched next, whichever is
    // listed first.
    for (first, second) in [(a, b), (b, a)] {
        let mut tree = root_with(&[(first, 0.4), (second, 0.4)]);
        tree.node_mut(ROOT)
            .add(&super::tree::LeafValue::from_lead(0.5, 0.5, 0.0), 0.0, 1.0);
        let (ca, cb) = (
            tree.child_by_move(ROOT, a).unwrap(),
            tree.child_by_move(ROOT, b).unwrap(),
        );
        add_visits(&mut tree, ca, 3, 0.1, 4.0);
        add_visits(&mut tree, cb, 3, 0.1, 0.5);
        assert_eq!(tree.node(ca).edge_weight(), 12.0);
        assert_eq!(tree.node(cb).edge_weight(), 1.5);
        let settings = config(1, 1);
        let searcher = Searcher::new(&mut tree, &game, &eval, &settings, false);
        assert_eq!(searcher.select(ROOT, 0, &game), Some(cb));
        // Counted by visits the two would be level, and the first listed
        // would be chosen.
        let unweighted = {
            let mut t = root_with(&[(first, 0.4), (second, 0.4)]);
            t.node_mut(ROOT)
                .add(&super::tree::LeafValue::from_lead(0.5, 0.5, 0.0), 0.0, 1.0);
            for m in [a, b] {
                let c = t.child_by_move(ROOT, m).unwrap();
                add_visits(&mut t, c, 3, 0.1, 1.0);
            }
            let searcher = Searcher::new(&mut t, &game, &eval, &settings, false);
            let chosen = searcher.select(ROOT, 0, &game).unwrap();
            searcher.tree.node(chosen).mv
        };
        assert_eq!(unweighted, first);
    }
}

#[test]
fn lcb_bounds_narrow_with_visits() {
    use crate::tree::{LeafValue, Node};
    let mut few = Node::new(Move::Pass, Color::White, 0.5);
    let mut many = Node::new(Move::Pass, Color::White, 0.5);
    let value = |w: f32| LeafValue::from_lead(w, 1.0 - w, 0.0);
    for i in 0..4 {
        let w = (i % 2) as f32;
        few.add(&value(w), f64::from(2.0 * w - 1.0), 1.0);
    }
    for i in 0..400 {
        let w = (i % 2) as f32;
        many.add(&value(w), f64::from(2.0 * w - 1.0), 1.0);
    }
    let (lo_few, r_few) = lcb_of(&few, 1.0, 1.4, 5.0);
    let (lo_many, r_many) = lcb_of(&many, 1.0, 1.4, 5.0);
    assert!(r_few > 5.0 * r_many, "{r_few} {r_many}");
    assert!(lo_many > lo_few);
    let unvisited = Node::new(Move::Pass, Color::White, 0.5);
    assert_eq!(lcb_of(&unvisited, 1.0, 1.4, 5.0), (-14.0, 14.0));
}

#[test]
fn the_score_utility_is_taken_over_the_score_s_distribution() {
    let utility = search::Utility::new(&PuctConfig::default(), 81);
    // No spread: the utility of the mean itself.
    assert_eq!(utility.expected_score(3.0, 0.0), utility.score(3.0));
    // Against a fine sum over the normal density (exact to 1e-6): the
    // quadrature is within 0.003 of it, a thousandth of the utility's
    // range, even for a spread three times the dynamic term's width.
    for (mean, stdev) in [(3.0, 5.0), (-12.0, 20.0), (0.5, 1.0), (40.0, 8.0)] {
        let n = 20_000;
        let mut sum = 0.0;
        let mut weight = 0.0;
        for i in 0..n {
            let z = -8.0 + 16.0 * (f64::from(i) + 0.5) / f64::from(n);
            let w = (-z * z / 2.0).exp();
            sum += w * utility.score(mean + stdev * z);
            weight += w;
        }
        let expected = sum / weight;
        let quadrature = utility.expected_score(mean, stdev);
        assert!(
            (expected - quadrature).abs() < 3e-3,
            "{mean} {stdev}: {expected} vs {quadrature}"
        );
    }
    // A wide spread pulls the utility of a lead towards the middle.
    assert!(utility.expected_score(10.0, 30.0) < utility.score(10.0));
}

#[test]
fn uncertain_evaluations_weigh_less() {
    use crate::tree::LeafValue;
    let game = Game::new(size(5), rules(0.5));
    let eval = TestEval::new(area_eval);
    let mut tree = Tree::new(Color::Black, 100);
    let cfg = PuctConfig::default();
    let searcher = Searcher::new(&mut tree, &game, &eval, &cfg, false);
    let value = LeafValue::from_lead(0.5, 0.5, 0.0);
    let with = |winloss: f32, score: f32| NetEvaluation {
        shortterm_error: Some((winloss, score)),
        ..NetEvaluation::default()
    };
    // Certain: the most a visit weighs.
    assert!((searcher.evaluation_weight(&with(0.0, 0.0), &value) - 8.0).abs() < 1e-9);
    // An error of 0.25 in win−loss: 0.25 / (0.25 + 0.25 / 8).
    let w = searcher.evaluation_weight(&with(0.25, 0.0), &value);
    assert!((w - 0.25 / (0.25 + 0.25 / 8.0)).abs() < 1e-9, "{w}");
    // A score error counts through the score utility's slope.
    assert!(searcher.evaluation_weight(&with(0.25, 5.0), &value) < w);
    // Without errors, or with the weighting off, every visit weighs 1.
    assert_eq!(
        searcher.evaluation_weight(&NetEvaluation::default(), &value),
        1.0
    );
    let off = PuctConfig {
        values: ValueUpdate {
            uncertainty_weighting: false,
            ..ValueUpdate::default()
        },
        ..PuctConfig::default()
    };
    let mut tree = Tree::new(Color::Black, 100);
    let searcher = Searcher::new(&mut tree, &game, &eval, &off, false);
    assert_eq!(searcher.evaluation_weight(&with(0.25, 0.0), &value), 1.0);
}

/// Every node's last contribution to its subtree value bias entry, and
/// every entry, recomputed from scratch from the node statistics.
fn check_bias(tree: &Tree) {
    let mut sums = vec![(0.0f64, 0.0f64); tree.bias.len()];
    for id in 0..tree.len() as u32 {
        let node = tree.node(id);
        if node.bias_entry == bias::NO_ENTRY {
            assert_eq!(node.bias_last, (0.0, 0.0), "node {id}");
            continue;
        }
        let a = node.bias_last;
        let children_weight = node.weight_sum - node.own_weight;
        if node.state != NodeState::Expanded || children_weight <= 1e-10 {
            assert_eq!(a, (0.0, 0.0), "node {id}");
        } else {
            // The children's average utility (as last recomputed, the
            // weights after pruning) less the network's, weighted by the
            // children's weight before pruning: no less than after it.
            let children_mean =
                (node.utility_sum - node.own_weight * node.own_utility) / children_weight;
            let delta = children_mean - f64::from(node.nn_utility);
            assert!(
                (a.0 - delta * a.1).abs() < 1e-9,
                "node {id}: {a:?}, delta {delta}"
            );
            assert!(
                a.1 >= children_weight.powf(bias::WEIGHT_EXPONENT) - 1e-9,
                "node {id}: {a:?}"
            );
        }
        let sum = &mut sums[node.bias_entry as usize];
        sum.0 += a.0;
        sum.1 += a.1;
    }
    for (i, (delta, weight)) in sums.into_iter().enumerate() {
        let entry = tree.bias.get(i as u32);
        assert!(
            (entry.delta_sum - delta).abs() < 1e-9,
            "entry {i}: {entry:?} against {delta}"
        );
        assert!(
            (entry.weight_sum - weight).abs() < 1e-9,
            "entry {i}: {entry:?} against {weight}"
        );
    }
}

#[test]
fn subtree_value_bias_entries_add_up_and_correct_new_leaves() {
    let mut game = Game::new(size(5), rules(0.5));
    game.play(mv(&game, "C3")).unwrap();
    let mut bot = puct_bot(config(400, 4), TestEval::new(area_eval));
    bot.search(&game);
    let tree = bot.kept_tree().unwrap();
    check_tree(tree);
    check_bias(tree);
    assert!(tree.bias.len() > 10, "{} entries", tree.bias.len());
    // Entries were learned, and later leaves of the same situation were
    // corrected by them.
    assert!((0..tree.bias.len() as u32).any(|e| tree.bias.get(e).delta_sum.abs() > 1e-6));
    let corrected = (0..tree.len() as u32)
        .map(|id| tree.node(id))
        .filter(|n| n.visits > 0 && (n.own_utility - f64::from(n.nn_utility)).abs() > 1e-6)
        .count();
    assert!(corrected > 0);

    // Off: no entry, no correction.
    let off = PuctConfig {
        values: ValueUpdate {
            subtree_value_bias: 0.0,
            ..config(400, 4).values
        },
        ..config(400, 4)
    };
    let mut plain = puct_bot(off, TestEval::new(area_eval));
    plain.search(&game);
    let tree = plain.kept_tree().unwrap();
    assert!(tree.bias.is_empty());
    assert!((0..tree.len() as u32)
        .map(|id| tree.node(id))
        .filter(|n| n.visits > 0)
        .all(|n| (n.own_utility - f64::from(n.nn_utility)).abs() < 1e-6));
}

#[test]
fn a_kept_tree_keeps_its_bias_entries_and_a_fifth_of_the_dropped_nodes() {
    let mut game = Game::new(size(5), rules(0.5));
    game.play(mv(&game, "C3")).unwrap();
    let mut bot = puct_bot(config(400, 4), TestEval::new(area_eval));
    let Action::Move(first) = bot.select_move(&game) else {
        panic!("resigned")
    };
    let reply = bot.detailed_analysis().unwrap().candidates[0].pv[1];
    check_tree(bot.kept_tree().unwrap());
    let old = bot.kept_tree().unwrap().clone();
    check_tree(&old.reroot(&[first, reply]).unwrap());
    let new = old.reroot(&[first, reply]).unwrap();
    // Survivors' contributions by old entry, read off the new tree's nodes
    // (their statistics came along unchanged).
    let mut alive = std::collections::HashMap::<u32, (f64, f64)>::new();
    let old_root = old.descendant(&[first, reply]).unwrap();
    let mut stack: Vec<u32> = old.children(old_root).collect();
    while let Some(id) = stack.pop() {
        let node = old.node(id);
        if node.bias_entry != bias::NO_ENTRY {
            let sum = alive.entry(node.bias_entry).or_default();
            sum.0 += node.bias_last.0;
            sum.1 += node.bias_last.1;
        }
        stack.extend(old.children(id));
    }
    assert!(!alive.is_empty());
    assert_eq!(new.bias.len(), alive.len());
    // Each new entry is its survivors plus a fifth of the rest.
    let mut expected: Vec<(f64, f64)> = alive
        .iter()
        .map(|(&e, &(d, w))| {
            let all = old.bias.get(e);
            (
                d + 0.2 * (all.delta_sum - d),
                w + 0.2 * (all.weight_sum - w),
            )
        })
        .collect();
    let mut got: Vec<(f64, f64)> = (0..new.bias.len() as u32)
        .map(|e| (new.bias.get(e).delta_sum, new.bias.get(e).weight_sum))
        .collect();
    let order = |v: &mut Vec<(f64, f64)>| v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    order(&mut expected);
    order(&mut got);
    for (g, e) in got.iter().zip(&expected) {
        assert!(
            (g.0 - e.0).abs() < 1e-9 && (g.1 - e.1).abs() < 1e-9,
            "{g:?} against {e:?}"
        );
    }
    // The search goes on from the kept tree and keeps its books straight
    // for the nodes it adds (their sums are on top of the kept residue).
    game.play(first).unwrap();
    game.play(reply).unwrap();
    let stats = bot.search(&game);
    assert!(stats.reused_visits > 0);
    check_tree(bot.kept_tree().unwrap());
}

#[test]
fn exploration_and_the_choice_compare_average_utilities_not_average_values() {
    // A's visits were backed up with a utility far below what its average
    // win rate says (a subtree value bias, say); B's agree. The search
    // compares what was backed up, as KataGo's `utilityAvg`.
    let game = Game::new(size(5), rules(0.5));
    let (a, b) = (mv(&game, "C3"), mv(&game, "B2"));
    let eval = TestEval::new(area_eval);
    let mut tree = root_with(&[(a, 0.4), (b, 0.4)]);
    let even = super::tree::LeafValue::from_lead(0.5, 0.5, 0.0);
    tree.node_mut(ROOT).add(&even, 0.0, 1.0);
    let (ca, cb) = (
        tree.child_by_move(ROOT, a).unwrap(),
        tree.child_by_move(ROOT, b).unwrap(),
    );
    let hopeful = super::tree::LeafValue::from_lead(0.9, 0.1, 0.0);
    for _ in 0..3 {
        tree.node_mut(ca).add(&hopeful, -0.5, 1.0);
        tree.node_mut(cb).add(&even, 0.0, 1.0);
    }
    let settings = PuctConfig {
        selection: MoveSelection {
            lcb_selection: false,
            ..config(1, 1).selection
        },
        ..config(1, 1)
    };
    let searcher = Searcher::new(&mut tree, &game, &eval, &settings, false);
    assert_eq!(searcher.select(ROOT, 0, &game), Some(cb));
    let analysis = analysis_of(&searcher, game.size(), Color::Black);
    assert_eq!(analysis.candidates[0].mv, b, "{:?}", analysis.candidates);
    assert!((analysis.candidates[1].utility + 0.5).abs() < 1e-6);
}

#[test]
fn a_node_leans_towards_its_children_by_its_own_bias_entry() {
    // A node valued 0.1 by the network whose one child came back at −0.3
    // (Black's utilities): its entry learns −0.4, and its own evaluation
    // then counts at 0.1 + 0.45 × −0.4, as KataGo's recomputeNodeStats
    // corrects it.
    let game = Game::new(size(5), rules(0.5));
    let (a, reply) = (mv(&game, "C3"), mv(&game, "B2"));
    let mut tree = root_with(&[(a, 1.0)]);
    let ca = tree.child_by_move(ROOT, a).unwrap();
    tree.expand(ca, Color::Black, &[(reply, 1.0)]);
    let grandchild = tree.child_by_move(ca, reply).unwrap();
    let entry = tree.bias.entry_for(7);
    let own = super::tree::LeafValue::from_lead(0.55, 0.45, 0.0);
    let node = tree.node_mut(ca);
    node.bias_entry = entry;
    node.nn_utility = 0.1;
    node.own_utility = 0.1;
    node.own_weight = 1.0;
    node.own_value = own;
    node.add(&own, 0.1, 1.0);
    let worse = super::tree::LeafValue::from_lead(0.35, 0.65, 0.0);
    tree.node_mut(grandchild).add(&worse, -0.3, 1.0);
    tree.node_mut(ca).add(&worse, -0.3, 1.0);
    let settings = search::Recompute {
        exponent: 0.0,
        transpositions: false,
        noise_pruning: false,
        subtree_bias: 0.45,
    };
    search::recompute_node(&mut tree, ca, settings);
    let node = tree.node(ca);
    // (The network's utility is kept in single precision.)
    assert!(
        (node.bias_last.0 + 0.4).abs() < 1e-6,
        "{:?}",
        node.bias_last
    );
    assert!((node.bias_last.1 - 1.0).abs() < 1e-9);
    assert!((node.own_utility - (0.1 - 0.45 * 0.4)).abs() < 1e-6);
    let mean = search::mean_utility(&tree, ca).unwrap();
    assert!((mean - (0.1 - 0.18 - 0.3) / 2.0).abs() < 1e-6, "{mean}");
    // Off, the node's own evaluation stays the network's.
    let mut plain = tree.clone();
    plain.node_mut(ca).own_utility = 0.1;
    search::recompute_node(
        &mut plain,
        ca,
        search::Recompute {
            subtree_bias: 0.0,
            ..settings
        },
    );
    assert!((search::mean_utility(&plain, ca).unwrap() + 0.1).abs() < 1e-6);
}

#[test]
fn a_kept_tree_is_revalued_under_the_new_score_utility() {
    // A searched tree's utilities were made with the score utility centred
    // on its root's expected score; a search from a later position centres
    // elsewhere and recomputes them all, as KataGo does when a search
    // begins: leaves from their average values, expanded nodes from their
    // own evaluation and their children.
    let mut game = Game::new(size(5), rules(0.5));
    game.play(mv(&game, "C3")).unwrap();
    let cfg = PuctConfig {
        values: ValueUpdate {
            subtree_value_bias: 0.0,
            ..config(300, 1).values
        },
        ..config(300, 1)
    };
    let mut bot = puct_bot(cfg.clone(), TestEval::new(area_eval));
    bot.search(&game);
    let mut tree = bot.kept_tree().unwrap().clone();
    let eval = TestEval::new(area_eval);
    let mut searcher = Searcher::new(&mut tree, &game, &eval, &cfg, false);
    searcher.utility.recentre(6.0, 0.0);
    let utility = searcher.utility;
    let stale = |tree: &super::tree::Tree| {
        (0..tree.len() as u32)
            .filter(|&id| {
                let node = tree.node(id);
                node.visits > 0 && node.state != NodeState::Expanded
            })
            .filter(|&id| {
                let now = search::node_utility(tree, id, &utility).unwrap();
                (search::mean_utility(tree, id).unwrap() - now).abs() > 1e-9
            })
            .count()
    };
    let stale_evaluations = |tree: &super::tree::Tree| {
        (0..tree.len() as u32)
            .map(|id| tree.node(id))
            .filter(|n| n.state == NodeState::Expanded && n.own_weight > 0.0 && n.visits > 0)
            .filter(|n| (f64::from(n.nn_utility) - utility.of_value(&n.own_value)).abs() > 1e-6)
            .count()
    };
    assert!(stale(&*searcher.tree) > 0);
    assert!(stale_evaluations(&*searcher.tree) > 10);
    searcher.recompute_kept_tree();
    assert_eq!(stale(&*searcher.tree), 0);
    assert_eq!(stale_evaluations(&*searcher.tree), 0);
    check_tree(&*searcher.tree);
}

/// Black's stones on the left half of a 9x9 board are worth −50 points
/// each to Black (a lie, for the rank bot's blunder check); the policy
/// favours those moves, all but its first move, the centre, with no move
/// obvious.
fn left_half_loses(game: &Game) -> NetEvaluation {
    let size = game.size();
    let left = |p: tengen_core::Point| size.col_row(p).0 < 4;
    let board = game.board();
    let black_left = size
        .points()
        .filter(|&p| left(p) && board.stone(p) == Some(Color::Black))
        .count() as f32;
    let black_lead = -50.0 * black_left;
    let lead = if game.to_move() == Color::Black {
        black_lead
    } else {
        -black_lead
    };
    let mut policy: Vec<(Move, f32)> = game
        .legal_moves()
        .into_iter()
        .map(|mv| {
            let weight = match mv {
                Move::Play(p) if size.col_row(p) == (4, 4) => 3.0,
                Move::Play(p) if left(p) => 1.5,
                Move::Play(_) => 1.0,
                Move::Pass => 0.01,
            };
            (mv, weight)
        })
        .collect();
    let total: f32 = policy.iter().map(|m| m.1).sum();
    for entry in &mut policy {
        entry.1 /= total;
    }
    let win = 1.0 / (1.0 + (-lead / 10.0).exp());
    NetEvaluation {
        policy,
        win,
        loss: 1.0 - win,
        lead,
        ..NetEvaluation::default()
    }
}

#[test]
fn rank_bots_refuse_blunders_far_outside_their_rank() {
    use tengen_core::{pick_at_rank, Rank, Rng};
    let game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
    let left = |mv: Move| matches!(mv, Move::Play(p) if game.size().col_row(p).0 < 4);
    for rank in ["20k", "8k", "2d"] {
        let rank: Rank = rank.parse().unwrap();
        // Half of the board's moves lose 50 points: picked by the policy
        // alone, a rank plays them often.
        let policy = left_half_loses(&game).policy;
        let mut rng = Rng::new(11);
        let blunders = (0..200)
            .filter(|_| {
                left(
                    pick_at_rank(rank, &policy, 81, &|_| false, &mut rng)
                        .unwrap()
                        .mv,
                )
            })
            .count();
        assert!(
            blunders > 20,
            "{rank}: {blunders} of 200 picks lose 50 points"
        );
        // The bot checks its drawn move and never plays one.
        let mut bot = rank::RankBot::new(
            rank,
            PuctConfig::default(),
            TestEval::new(left_half_loses),
            3,
        );
        for _ in 0..60 {
            let Action::Move(mv) = bot.select_move(&game) else {
                panic!("{rank} resigned");
            };
            assert!(game.legal(mv).is_ok());
            assert!(!left(mv), "{rank} played {mv:?}, 50 points lost");
        }
    }
}

#[test]
fn rank_bots_above_5_dan_search_and_draw_by_score_loss() {
    use tengen_core::Rank;
    let game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
    let rank: Rank = "9d".parse().unwrap();
    let eval = TestEval::new(left_half_loses);
    let mut bot = rank::RankBot::new(rank, PuctConfig::default(), eval, 5);
    for _ in 0..10 {
        let Action::Move(mv) = bot.select_move(&game) else {
            panic!("9d resigned");
        };
        assert!(
            matches!(mv, Move::Play(p) if game.size().col_row(p).0 >= 4),
            "{mv:?}"
        );
    }
    // Searched: more than one evaluation a move.
    let asked = bot.evaluator().positions();
    assert!(
        asked >= 10 * rank::STRONG_RANK_VISITS,
        "{asked} evaluations"
    );
    assert_eq!(rank::score_temperature("5d".parse().unwrap()), None);
    assert_eq!(rank::score_temperature("6d".parse().unwrap()), Some(1.0));
    assert_eq!(rank::score_temperature("9d".parse().unwrap()), Some(0.125));
}

#[test]
fn the_draw_by_score_loss_prefers_small_losses() {
    let candidate = |col: usize, lead: f32| PuctCandidate {
        mv: Move::Play(BoardSize::square(9).unwrap().point(col, 0).unwrap()),
        visits: 1,
        no_result: 0.0,
        winrate: 0.5,
        lead,
        score_selfplay: lead,
        score_stdev: 0.0,
        weight: 1.0,
        play_weight: 1.0,
        utility: 0.0,
        utility_lcb: 0.0,
        lcb: 0.5,
        prior: 0.1,
        pv: Vec::new(),
        pv_visits: Vec::new(),
        ownership: Vec::new(),
        ownership_stdev: Vec::new(),
        symmetry_of: None,
    };
    let candidates = [candidate(0, 5.0), candidate(1, 4.0), candidate(2, -10.0)];
    let mut rng = tengen_core::Rng::new(2);
    let mut counts = [0usize; 3];
    for _ in 0..2000 {
        let mv = rank::draw_by_loss(&candidates, 1.0, &mut rng).unwrap();
        counts[candidates.iter().position(|c| c.mv == mv).unwrap()] += 1;
    }
    // Weights 1, e^-1 and e^-15: about 73%, 27% and none.
    assert!((1350..1600).contains(&counts[0]), "{counts:?}");
    assert!((400..650).contains(&counts[1]), "{counts:?}");
    assert_eq!(counts[2], 0, "{counts:?}");
    assert_eq!(rank::draw_by_loss(&[], 1.0, &mut rng), None);
}

#[test]
fn rank_bots_pass_only_when_passing_loses_little() {
    use tengen_core::Rank;
    let game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
    let rank: Rank = "8k".parse().unwrap();
    // The network wants to pass; after a pass the side to move (the
    // opponent) leads by `after_pass`, after anything else no one leads.
    let play = |after_pass: f32, stone_lead: f32| {
        let eval = TestEval::new(move |g: &Game| {
            let mut eval = pass_lover(0.5, 0.0)(g);
            eval.lead = match g.moves().last() {
                Some((_, Move::Pass)) => after_pass,
                Some(_) => stone_lead,
                None => 0.0,
            };
            eval
        });
        let mut bot = rank::RankBot::new(rank, PuctConfig::default(), eval, 1);
        bot.select_move(&game)
    };
    // Passing costs a quarter point: passed.
    assert_eq!(play(0.25, 0.0), Action::Move(Move::Pass));
    // Passing costs 5 points, the answer nothing: answered.
    let Action::Move(answer) = play(5.0, 0.0) else {
        panic!("resigned");
    };
    assert_ne!(answer, Move::Pass, "a pass losing 5 points was played");
    assert!(game.legal(answer).is_ok());
    // Passing costs 5 points, the answer as much (filling its own area
    // once the opponent has passed): passed.
    assert_eq!(play(5.0, 5.0), Action::Move(Move::Pass));
}

#[test]
fn the_move_temperature_falls_as_katago_s_does() {
    let selection = MoveSelection {
        temperature_early: 0.5,
        temperature_late: 0.1,
        temperature_halflife: 19.0,
        ..MoveSelection::default()
    };
    let close = |a: f64, b: f64| (a - b).abs() < 1e-6;
    assert!(close(selection.temperature_at(0, 361), 0.5));
    // One halflife: halfway; two: a quarter of the way left.
    assert!(close(selection.temperature_at(19, 361), 0.3));
    assert!(close(selection.temperature_at(38, 361), 0.2));
    // On 9×9 a halflife is 9 turns.
    assert!(close(selection.temperature_at(9, 81), 0.3));
    assert!(selection.temperature_at(400, 361) - 0.1 < 1e-6);
    assert_eq!(MoveSelection::default().temperature_at(0, 361), 0.0);
}

#[test]
fn the_move_drawn_at_a_temperature_follows_the_weights() {
    let mut rng = tengen_core::Rng::new(7);
    let mut draw = |weights: &[f64], temperature: f64| {
        let mut counts = vec![0usize; weights.len()];
        for _ in 0..4000 {
            counts[choice::draw_with_temperature(weights, temperature, &mut rng).unwrap()] += 1;
        }
        counts
    };
    // No temperature: the heaviest, the first on ties.
    assert_eq!(draw(&[3.0, 5.0, 5.0], 0.0), [0, 4000, 0]);
    // At 1 in proportion to the weights, 2 : 1.
    let counts = draw(&[4.0, 2.0], 1.0);
    assert!((2500..2850).contains(&counts[0]), "{counts:?}");
    // At 0.5 the weights squared, 4 : 1.
    let counts = draw(&[4.0, 2.0], 0.5);
    assert!((3050..3350).contains(&counts[0]), "{counts:?}");
    // Below one visit's weight a move is never drawn, at any temperature.
    let counts = draw(&[100.0, 0.9, 0.0, 50.0], 5.0);
    assert_eq!((counts[1], counts[2]), (0, 0), "{counts:?}");
    assert!(counts[3] > 1000, "{counts:?}");
    assert_eq!(choice::draw_with_temperature(&[], 1.0, &mut rng), None);
}

#[test]
fn a_bot_with_a_move_temperature_varies_its_move_with_its_seed() {
    let game = Game::new(size(9), rules(7.0));
    let played = |temperature: f32, seed: u64| {
        let mut config = config(64, 1);
        config.selection.temperature_early = temperature;
        config.selection.temperature_late = temperature;
        config.exploration.noise_seed = seed;
        // Every move alike: the visits spread over many.
        let even = |game: &Game| NetEvaluation {
            policy: uniform_policy(game),
            win: 0.5,
            loss: 0.5,
            ..NetEvaluation::default()
        };
        let mut bot = puct_bot(config, TestEval::new(even));
        let Action::Move(chosen) = bot.select_move(&game) else {
            panic!("no move")
        };
        let analysis = bot.detailed_analysis().unwrap();
        // The move played is the analysis's first candidate.
        assert_eq!(analysis.candidates[0].mv, chosen);
        assert!(analysis.candidates[0].play_weight >= 1.0);
        chosen
    };
    let cold: std::collections::HashSet<Move> = (0..6).map(|seed| played(0.0, seed)).collect();
    assert_eq!(cold.len(), 1, "{cold:?}");
    let warm: std::collections::HashSet<Move> = (0..6).map(|seed| played(2.0, seed)).collect();
    assert!(warm.len() >= 3, "{warm:?}");
    // The same seed draws the same move.
    assert_eq!(played(2.0, 4), played(2.0, 4));
}

#[test]
fn a_symmetric_root_searches_one_move_of_each_set_and_lists_the_copies() {
    let game = Game::new(size(9), rules(7.0));
    let even = |game: &Game| NetEvaluation {
        policy: uniform_policy(game),
        win: 0.5,
        loss: 0.5,
        ..NetEvaluation::default()
    };
    let searched_and_copies = |pruning: bool| {
        let mut config = config(200, 1);
        config.exploration.root_symmetry_pruning = pruning;
        let mut bot = puct_bot(config, TestEval::new(even));
        let Action::Move(chosen) = bot.select_move(&game) else {
            panic!("no move")
        };
        let analysis = bot.detailed_analysis().unwrap().clone();
        assert_eq!(analysis.candidates[0].mv, chosen);
        assert_eq!(analysis.candidates[0].symmetry_of, None);
        analysis.candidates
    };
    let symmetries = symmetry::root_symmetries(&game);
    let duplicate = symmetry::duplicate_points(game.size(), Color::Black, &symmetries);
    let is_copy = |mv: Move| matches!(mv, Move::Play(p) if duplicate[p.index()]);
    let candidates = searched_and_copies(true);
    let (searched, copies): (Vec<_>, Vec<_>) =
        candidates.iter().partition(|c| c.symmetry_of.is_none());
    assert!(
        searched.iter().all(|c| !is_copy(c.mv)),
        "only one move of each set is searched"
    );
    assert!(searched.len() >= 10, "{} searched", searched.len());
    assert!(!copies.is_empty());
    for copy in &copies {
        let source = searched
            .iter()
            .find(|c| Some(c.mv) == copy.symmetry_of)
            .unwrap();
        assert_eq!((copy.visits, copy.prior), (source.visits, source.prior));
        let s = symmetries
            .iter()
            .find(|s| s.apply(game.size(), source.mv) == copy.mv)
            .unwrap();
        let mapped: Vec<Move> = source.pv.iter().map(|&m| s.apply(game.size(), m)).collect();
        assert_eq!(copy.pv, mapped);
    }
    // Each move is listed once; with its copies, every point of the board
    // that the search reached.
    let moves: std::collections::HashSet<Move> = candidates.iter().map(|c| c.mv).collect();
    assert_eq!(moves.len(), candidates.len());
    // Without pruning, images of one another are searched.
    let unpruned = searched_and_copies(false);
    assert!(unpruned.iter().all(|c| c.symmetry_of.is_none()));
    assert!(unpruned.iter().any(|c| is_copy(c.mv)));
}

/// The area evaluation with a policy that gives one move (the first legal
/// one) nearly everything, as a network does to a forced reply.
fn forced_eval(game: &Game) -> NetEvaluation {
    let mut eval = area_eval(game);
    let n = eval.policy.len() as f32;
    for (i, (_, p)) in eval.policy.iter_mut().enumerate() {
        *p = if i == 0 { 0.99 } else { 0.01 / (n - 1.0) };
    }
    eval
}

/// A test evaluation function.
type EvalFn = fn(&Game) -> NetEvaluation;

#[test]
fn obvious_moves_and_settled_choices_save_time() {
    let game = Game::new(size(5), rules(7.5));
    let searched = |eval: EvalFn, check: &dyn Fn(&Searcher<'_, TestEval<EvalFn>>)| {
        let cfg = config(200, 1);
        let eval = TestEval::new(eval);
        let mut tree = Tree::new(game.to_move(), 1 << 16);
        let mut searcher = Searcher::new(&mut tree, &game, &eval, &cfg, false);
        let limits = Limits {
            visits: Some(200),
            ..Limits::default()
        };
        searcher.run(limits, &mut |_, _| false, &|| false);
        check(&searcher);
    };
    searched(forced_eval, &|s| {
        let factor = s.obvious_time_factor();
        assert!((0.4..0.7).contains(&factor), "{factor}");
        let (first, second) = s.top_two();
        assert!(first > second + 50, "{first} {second}");
        // 200 visits in 1 s: 10 more in the 50 ms left cannot change the
        // choice; 100 s more could.
        let second_ = Duration::from_secs(1);
        assert!(s.choice_settled(second_, Duration::from_millis(1050)));
        assert!(!s.choice_settled(second_, Duration::from_secs(100)));
        // The rate is not trusted over the first tenth of a second.
        assert!(!s.choice_settled(Duration::from_millis(50), Duration::from_millis(51)));
    });
    searched(area_eval, &|s| {
        // A flat policy is no obvious move.
        assert!(
            s.obvious_time_factor() > 0.99,
            "{}",
            s.obvious_time_factor()
        );
    });
}
