//! Reviews of real records with the real network (the one the PyPI package
//! katrain 1.20.0 ships, fetched by `scripts/katago-model` and cached under
//! `target/katago/`): what the record gets, that its numbers are the
//! analysis's, that a review does not depend on what else is reviewed at
//! the same time, and the records that cannot be reviewed.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use tengen_core::Color;
use tengen_katago::network::Network;
use tengen_katago::reference::model_path;
use tengen_review::{Analyser, AnalyserOptions, ReviewError, Reviewer};
use tengen_sgf::Node;

fn network() -> Arc<Network> {
    static NETWORK: OnceLock<Arc<Network>> = OnceLock::new();
    NETWORK
        .get_or_init(|| {
            tengen_puct::katago::load_network(
                model_path(),
                2,
                tengen_katago::forward::Precision::F32,
            )
            .expect("the network loads")
        })
        .clone()
}

fn analyser(visits: u64) -> Analyser {
    Analyser::new(
        network(),
        model_path(),
        AnalyserOptions {
            visits,
            positions_at_once: 4,
            max_batch: 16,
            nn_threads: 2,
        },
    )
}

fn reviewer(visits: u64) -> Reviewer {
    Reviewer {
        program: "tengen test".to_string(),
        network: "b10c384h6nbttflrs".to_string(),
        visits,
    }
}

/// Real 9×9 games: tengen's mcts bot against GNU Go.
fn game_file(number: u32) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!(
        "../gtp/tests/data/finished/mcts-vs-gnugo-level10-9x9/game-{number:04}.sgf"
    ))
}

/// The main line, root first.
fn main_line(tree: &Node) -> Vec<&Node> {
    let mut nodes = vec![tree];
    while let Some(next) = nodes.last().and_then(|n| n.children.first()) {
        nodes.push(next);
    }
    nodes
}

fn value(node: &Node, id: &str) -> f64 {
    node.first(id)
        .unwrap_or_else(|| panic!("{id} missing in {node:?}"))
        .parse()
        .unwrap_or_else(|e| panic!("{id} is not a number: {e}"))
}

#[test]
fn a_reviewed_record_carries_the_analysis_of_every_position() {
    let record = tengen_review::read_record(&game_file(1)).unwrap();
    let analyser = analyser(4);
    let mut reports = Vec::new();
    let (review, text) =
        tengen_review::review_record(&analyser, &record, &reviewer(4), &mut |n| reports.push(n))
            .unwrap();
    let moves = record.game.moves();
    assert_eq!(review.positions.len(), moves.len() + 1);
    assert_eq!(reports, (1..=moves.len() + 1).collect::<Vec<_>>());

    // Read back: the same game, and every position's numbers where
    // Sabaki and KaTrain look for them.
    let back = tengen_sgf::read_game(&text).unwrap();
    assert_eq!(back.game.moves(), moves);
    assert_eq!(back.info.result, record.info.result);
    let nodes = main_line(&back.tree);
    assert_eq!(nodes.len(), moves.len() + 1);
    for (turn, node) in nodes.iter().enumerate() {
        let position = &review.positions[turn];
        let winrate = value(node, "SBKV");
        assert!((0.0..=100.0).contains(&winrate), "SBKV {winrate}");
        assert!((winrate - 100.0 * position.winrate).abs() <= 0.005 + 1e-9);
        assert!((value(node, "SBKS") - position.score_lead).abs() <= 0.005 + 1e-9);
        assert_eq!(
            node.get("KT").map(<[String]>::len),
            Some(3),
            "KaTrain's three values"
        );
        let comment = node.first("C").expect("a comment");
        assert!(comment.contains(tengen_review::annotate::COMMENT_MARK));
        if turn > 0 {
            let m = &review.moves[turn - 1];
            assert!(
                comment.contains(&format!("Move {turn}, ")),
                "move {turn}: {comment}"
            );
            // The record ends with two passes: those are not rated.
            assert_eq!(m.ends_game, turn + 2 > moves.len(), "move {turn}");
            if m.ends_game {
                assert!(comment.contains("ends the game; not rated"), "{comment}");
            } else {
                assert!(comment.contains("points lost"), "{comment}");
                assert!(comment.contains("The engine preferred"), "{comment}");
            }
            // Points lost are the score lead before minus after, the
            // mover's way round.
            let before = review.positions[turn - 1].score_lead;
            let after = position.score_lead;
            let expected = if m.color == Color::Black {
                before - after
            } else {
                after - before
            };
            assert!((m.points_lost - expected).abs() < 1e-9);
        }
    }
    let summary = nodes[0].first("C").unwrap();
    assert!(summary.contains(
        "Reviewed by tengen test with the network b10c384h6nbttflrs, 4 visits a position."
    ));
    assert!(
        // 25 moves each, the last of each a pass that ends the game.
        summary.contains("Black: 24 moves rated") && summary.contains("White: 24 moves rated"),
        "{summary}"
    );
    // 24 rated moves each: enough for each side's estimated rank.
    for side in ["Black's play: about ", "White's play: about "] {
        assert!(summary.contains(side), "{summary}");
    }
    assert_eq!(nodes[0].first("KTV"), Some("1.0"));
    // The record's own properties are kept.
    assert_eq!(nodes[0].first("GC"), record.tree.first("GC"));
    assert_eq!(nodes[0].first("PB"), Some("GNU Go 3.8"));
}

/// `first` reviewed alone, and again while `second` is reviewed beside it
/// on the same analyser.
fn alone_and_beside(positions_at_once: usize, first: u32, second: u32) -> (String, String) {
    let options = AnalyserOptions {
        visits: 6,
        positions_at_once,
        max_batch: 16,
        nn_threads: 2,
    };
    let first = tengen_review::read_record(&game_file(first)).unwrap();
    let second = tengen_review::read_record(&game_file(second)).unwrap();
    let alone = {
        let analyser = Analyser::new(network(), model_path(), options);
        tengen_review::review_record(&analyser, &first, &reviewer(6), &mut |_| {})
            .unwrap()
            .1
    };
    let analyser = Analyser::new(network(), model_path(), options);
    let beside = std::thread::scope(|scope| {
        let other = scope.spawn(|| {
            tengen_review::review_record(&analyser, &second, &reviewer(6), &mut |_| {}).unwrap()
        });
        let mine = tengen_review::review_record(&analyser, &first, &reviewer(6), &mut |_| {})
            .unwrap()
            .1;
        other.join().unwrap();
        mine
    });
    (alone, beside)
}

#[test]
fn searched_one_at_a_time_a_review_is_the_same_alone_or_beside_other_records() {
    let (alone, beside) = alone_and_beside(1, 1, 8);
    assert_eq!(alone, beside);
}

#[test]
fn with_shared_batches_a_review_differs_at_most_in_its_last_digits() {
    // Positions searched at once share the network's forward passes, whose
    // outputs then differ in their last bits with the batch's make-up.
    let (alone, beside) = alone_and_beside(4, 26, 8);
    let (alone, beside) = (
        tengen_sgf::read_game(&alone).unwrap(),
        tengen_sgf::read_game(&beside).unwrap(),
    );
    let (alone, beside) = (main_line(&alone.tree), main_line(&beside.tree));
    assert_eq!(alone.len(), beside.len());
    for (a, b) in alone.iter().zip(&beside) {
        for id in ["SBKV", "SBKS"] {
            let (x, y) = (value(a, id), value(b, id));
            assert!((x - y).abs() <= 0.011, "{id} {x} against {y}");
        }
        assert_eq!(a.first("B"), b.first("B"));
        assert_eq!(a.first("W"), b.first("W"));
    }
}

#[test]
fn reviewing_a_review_replaces_it_and_keeps_the_players_comments() {
    let text = std::fs::read_to_string(game_file(1)).unwrap().replacen(
        ";B[ee]",
        ";B[ee]C[A calm start]",
        1,
    );
    let record = tengen_sgf::read_game(&text).unwrap();
    let analyser = analyser(2);
    let once = tengen_review::review_record(&analyser, &record, &reviewer(2), &mut |_| {})
        .unwrap()
        .1;
    let record_again = tengen_sgf::read_game(&once).unwrap();
    let twice = tengen_review::review_record(&analyser, &record_again, &reviewer(2), &mut |_| {})
        .unwrap()
        .1;
    assert_eq!(once, twice);
    let back = tengen_sgf::read_game(&twice).unwrap();
    let first_move = main_line(&back.tree)[1].first("C").unwrap().to_string();
    assert!(first_move.starts_with("A calm start\n\n"), "{first_move}");
    assert_eq!(
        first_move
            .matches(tengen_review::annotate::COMMENT_MARK)
            .count(),
        1
    );
}

#[test]
fn records_that_cannot_be_reviewed_say_why_in_one_line() {
    let analyser = analyser(1);
    let review = |text: &str| {
        let record = tengen_sgf::read_game(text).map_err(ReviewError::from)?;
        tengen_review::review_record(&analyser, &record, &reviewer(1), &mut |_| {})
    };
    let cases = [
        ("(;GM[1]FF[4]SZ[9])", "the record has no moves to review"),
        (
            "(;GM[1]FF[4]SZ[9]AB[ee])",
            "the record has no moves to review",
        ),
        ("(;GM[1]FF[4]SZ[30];B[aa])", "SZ[30]"),
        (
            "(;GM[1]FF[4]SZ[9];B[ee];W[ee])",
            "node 2: illegal move [ee]",
        ),
        ("(;GM[1]FF[4]SZ[9];B[ee]", "unexpected end"),
        ("(;GM[2]SZ[8];B[ee])", "GM[2] is not Go"),
    ];
    for (text, reason) in cases {
        let error = review(text).expect_err(text).to_string();
        assert!(error.contains(reason), "{text}: {error}");
        assert!(!error.contains('\n'), "one line: {error}");
    }
    // The analyser still reviews after refusing those.
    let (review, _) = review("(;GM[1]FF[4]SZ[9];B[ee];W[cc])").unwrap();
    assert_eq!(review.moves.len(), 2);
    // A file that is not there.
    let missing = tengen_review::read_record(Path::new("/nonexistent/game.sgf")).unwrap_err();
    assert!(
        missing.to_string().starts_with("cannot read the file"),
        "{missing}"
    );
}
