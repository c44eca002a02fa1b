//! The SGF FF\[4\] specification's example file `ff4_ex.sgf` (see
//! `tests/data/README.md` for where the copy comes from): its tree shape,
//! every property kept, its line breaks, its game lines replayed with typed
//! values, and tree-level round trips.
//!
//! The expected shapes were counted by hand from the file's text. The first
//! tree's root has five variations with sequences of 13, 4, 4, 1 and 21
//! nodes; the fourth forks again into 6 variations, the first of those into
//! 4 more: 1 + 13 + 4 + 4 + (1 + 6 + 4) + 21 = 54 nodes. The second tree is
//! a sequence of 2 nodes forking into 3 variations (1, 1 and 2 nodes, the
//! last forking into 2 of 1 node): 8 nodes. The sequence lengths and
//! variation counts are the ones the C# library `dnsl48/sharp-sgf-tools`
//! asserts for this file in its tests.

use tengen_core::{BoardSize, Color, IllegalMove, Move};
use tengen_sgf::{
    decode_sgf, parse_collection, read_game, read_game_with, write_tree, IllegalMovePolicy, Node,
    RulesText,
};

const FILE: &[u8] = include_bytes!("data/ff4_ex.sgf");

fn trees() -> Vec<Node> {
    parse_collection(&decode_sgf(FILE)).expect("ff4_ex.sgf parses")
}

/// Nodes in the tree under `root`, and nodes with more than one child.
fn count(root: &Node) -> (usize, usize) {
    let (mut nodes, mut forks) = (0, 0);
    let mut pending = vec![root];
    while let Some(node) = pending.pop() {
        nodes += 1;
        forks += usize::from(node.children.len() > 1);
        pending.extend(&node.children);
    }
    (nodes, forks)
}

/// Nodes of the sequence starting at `node`: up to and including the first
/// node that has no child or several.
fn sequence_length(node: &Node) -> usize {
    let mut length = 1;
    let mut node = node;
    while let [only] = node.children.as_slice() {
        length += 1;
        node = only;
    }
    length
}

/// The last node of the sequence starting at `node`.
fn sequence_end(mut node: &Node) -> &Node {
    while let [only] = node.children.as_slice() {
        node = only;
    }
    node
}

/// One line of play through `root` as a tree of its own: at each fork the
/// next of `picks` chooses the child (the first child when picks run out).
fn line(root: &Node, picks: &[usize]) -> Node {
    let mut nodes = Vec::new();
    let mut picks = picks.iter();
    let mut node = Some(root);
    while let Some(current) = node {
        nodes.push(Node {
            properties: current.properties.clone(),
            children: Vec::new(),
        });
        node = match current.children.len() {
            0 => None,
            1 => current.children.first(),
            _ => current.children.get(*picks.next().unwrap_or(&0)),
        };
    }
    let mut tail = nodes.pop().expect("the root at least");
    while let Some(mut parent) = nodes.pop() {
        parent.children = vec![tail];
        tail = parent;
    }
    tail
}

#[test]
fn two_game_trees_of_the_counted_shape() {
    let trees = trees();
    assert_eq!(trees.len(), 2);
    let first = &trees[0];
    assert_eq!(count(first), (54, 3));
    assert_eq!(first.children.len(), 5);
    let lengths: Vec<_> = first.children.iter().map(sequence_length).collect();
    assert_eq!(lengths, [13, 4, 4, 1, 21]);
    let style = &first.children[3];
    assert_eq!(style.first("N"), Some("Style & text type"));
    assert_eq!(style.children.len(), 6);
    assert_eq!(style.children[0].children.len(), 4);

    let second = &trees[1];
    assert_eq!(count(second), (8, 2));
    assert_eq!(sequence_length(second), 2);
    let fork = sequence_end(second);
    assert_eq!(fork.first("B"), Some("pd"));
    let lengths: Vec<_> = fork.children.iter().map(sequence_length).collect();
    assert_eq!(lengths, [1, 1, 2]);
    assert_eq!(sequence_end(&fork.children[2]).children.len(), 2);
}

#[test]
fn markup_annotations_and_unknown_properties_are_kept() {
    let trees = trees();
    let mut ids = Vec::new();
    let mut pending: Vec<&Node> = trees.iter().collect();
    while let Some(node) = pending.pop() {
        for property in &node.properties {
            if !ids.contains(&property.id.as_str()) {
                ids.push(&property.id);
            }
        }
        pending.extend(&node.children);
    }
    ids.sort_unstable();
    let expected = [
        "AB", "AE", "AP", "AR", "AW", "B", "BL", "BM", "BR", "C", "CR", "DD", "DM", "DO", "EV",
        "FF", "GB", "GM", "GN", "GW", "IT", "KM", "LB", "LN", "MA", "MN", "N", "OB", "OW", "PB",
        "PC", "PL", "PW", "RE", "RO", "SL", "SQ", "SZ", "TB", "TE", "TR", "TW", "UC", "US", "W",
        "WL", "WR",
    ];
    assert_eq!(ids, expected);

    let first = &trees[0];
    // Values of composed and markup properties, exactly as written.
    let markup = &first.children[2];
    let labels = markup.children[0].children[0].get("LB").unwrap();
    // 8 one-character labels, 7 growing ones at the left, 7 at the right.
    assert_eq!(labels.len(), 22);
    assert_eq!(labels[0], "dc:1");
    assert_eq!(labels[8], "gs:ABCDEFGH");
    let arrows = sequence_end(markup).get("AR").unwrap();
    assert_eq!(
        arrows,
        ["aa:sc", "sa:ac", "aa:sa", "aa:ac", "cd:cj", "gd:md", "fh:ij", "kj:nh"]
    );
    assert_eq!(sequence_end(markup).get("LN").unwrap().len(), 4);
    // Annotations without a value keep their empty value.
    let mut annotations = first.children[0].clone();
    for _ in 0..8 {
        annotations = annotations.children.remove(0);
    }
    assert_eq!(annotations.first("DO"), Some(""));
    // The escaped `]` of `FF[3\]` in a comment.
    let add_empty = &first.children[1].children[0];
    assert!(add_empty
        .first("C")
        .unwrap()
        .contains("erased in FF[3] way"));
}

#[test]
fn line_breaks_of_every_convention() {
    let trees = trees();
    let comment = trees[0].children[3].first("C").unwrap();
    // Once in the text, once in the example heading, then one soft break in
    // each of the four conventions (LF, LF CR, CR LF, CR): all removed.
    assert_eq!(comment.matches(">ok<").count(), 6, "{comment:?}");
    assert!(!comment.contains(">o\n") && !comment.contains(">o\r"));
    // Hard line breaks stay.
    assert!(comment.starts_with("There are hard linebreaks & soft linebreaks.\nSoft"));
}

#[test]
fn the_move_line_replays_with_passes_comments_and_annotations() {
    let record = read_game(&decode_sgf(FILE)).unwrap();
    assert_eq!(record.game.turn_count(), 13);
    assert_eq!(record.main_line.len(), 14);
    assert_eq!(
        record.info.game_name.as_deref(),
        Some("Gametree 1: properties")
    );
    assert_eq!(record.info.user.as_deref(), Some("Arno Hollosi"));
    assert_eq!(record.info.rules, RulesText::Absent);
    assert_eq!(record.info.komi, None);
    let first = &record.main_line[1];
    assert_eq!(first.name.as_deref(), Some("Moves, comments, annotations"));
    assert_eq!(
        first.comment.as_deref(),
        Some("Nodename set to: \"Moves, comments, annotations\"")
    );
    assert_eq!(record.main_line[12].play, Some((Color::White, Move::Pass)));
    assert_eq!(record.main_line[13].play, Some((Color::Black, Move::Pass)));
    assert_eq!(record.main_line[13].turn, Some(13));
    assert_eq!(
        record.main_line[13].comment.as_deref(),
        Some("Black \"Pass\" move")
    );
    // The record keeps the whole first tree, variations included.
    assert_eq!(record.tree, trees()[0]);
}

#[test]
fn the_setup_line_expands_compressed_point_lists() {
    let text = write_tree(&line(&trees()[0], &[1]));
    let record = read_game(&text).unwrap();
    let setup = &record.main_line[1];
    assert_eq!(setup.added_black.len(), 16);
    assert_eq!(setup.added_white.len(), 16);
    assert_eq!(record.main_line[2].cleared.len(), 9);
    assert_eq!(record.main_line[3].to_play, Some(Color::Black));
    assert_eq!(record.main_line[4].to_play, Some(Color::White));
    assert_eq!(record.game.to_move(), Color::White);
    let board = record.game.board();
    assert_eq!(board.stone_count(Color::Black), 15);
    assert_eq!(board.stone_count(Color::White), 10);
    board.check_consistency().unwrap();

    let markup = read_game(&write_tree(&line(&trees()[0], &[2]))).unwrap();
    assert_eq!(markup.main_line[1].added_black.len(), 35);
    assert_eq!(markup.main_line[1].added_white.len(), 37);
}

#[test]
fn the_time_line_types_time_left_and_executes_the_suicide() {
    let text = write_tree(&line(&trees()[0], &[4]));
    // The last move is a suicide, which tengen's default rules forbid.
    match read_game(&text) {
        Err(tengen_sgf::ReadError::IllegalMove {
            node: 21,
            reason: IllegalMove::Suicide,
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
    let record = read_game_with(&text, IllegalMovePolicy::Execute).unwrap();
    assert_eq!(record.executed_illegal.len(), 1);
    assert!(record.ignored.is_empty(), "{:?}", record.ignored);
    let times: Vec<_> = record.main_line[1..=6]
        .iter()
        .map(|n| {
            (
                n.black_time_left,
                n.white_time_left,
                n.black_moves_left,
                n.white_moves_left,
            )
        })
        .collect();
    assert_eq!(
        times,
        [
            (Some(120.0), None, None, None),
            (None, Some(300.0), None, None),
            (Some(105.6), None, Some(10), None),
            (None, Some(200.0), None, Some(2)),
            (Some(87.0), None, Some(9), None),
            (None, Some(13.2), None, Some(1)),
        ]
    );
    // All of Black's stones around the suicide are gone, as the comment says.
    let size = BoardSize::square(19).unwrap();
    let s2 = size.parse_gtp("S2").unwrap().point().unwrap();
    assert_eq!(record.game.board().stone(s2), None);
    // The executed suicide restarts the game's history there.
    assert_eq!(record.main_line[21].turn, Some(0));
    assert_eq!(record.main_line[20].turn, None);
}

#[test]
fn game_information_in_variation_nodes() {
    let trees = trees();
    // The main line of the second tree: its game information is in node 2.
    let record = read_game(&write_tree(&trees[1])).unwrap();
    let info = &record.info;
    assert_eq!(info.white_name.as_deref(), Some("W. Hite"));
    assert_eq!(info.white_rank.as_deref(), Some("6d"));
    assert_eq!(info.black_name.as_deref(), Some("B. Lack"));
    assert_eq!(info.black_rank.as_deref(), Some("5d"));
    assert_eq!(info.round.as_deref(), Some("2"));
    assert_eq!(info.result.as_deref(), Some("W+3.5"));
    assert_eq!(info.place.as_deref(), Some("London"));
    assert_eq!(info.event.as_deref(), Some("Go Congress"));
    assert_eq!(record.result, info.result);
    // The fourth game gives White 59.5 points of komi... negative.
    let record = read_game(&write_tree(&line(&trees[1], &[2, 1]))).unwrap();
    assert_eq!(record.info.white_name.as_deref(), Some("A. Tari"));
    assert_eq!(record.info.komi, Some(-59.5));
    assert_eq!(record.game.rules().komi, -59.5);
    assert_eq!(record.info.result.as_deref(), Some("B+R"));
}

#[test]
fn round_trips_through_the_tree_writer() {
    let trees = trees();
    let written: String = trees.iter().map(write_tree).collect();
    let reread = parse_collection(&written).unwrap();
    assert_eq!(reread, trees);
    let again: String = reread.iter().map(write_tree).collect();
    assert_eq!(again, written, "writing is deterministic");
    // A small sanity check that the written text is the canonical form.
    assert!(written.starts_with(
        "(;FF[4]AP[Primiview:3.1]GM[1]SZ[19]GN[Gametree 1: properties]US[Arno Hollosi](;B[pd]"
    ));
}
