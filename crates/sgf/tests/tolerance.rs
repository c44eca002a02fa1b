//! Real-world deviations from FF[4] that are accepted, malformed input that is
//! refused with an error (never a panic), and the tree-level round trip
//! `parse_collection(write_tree(tree)) == tree` on random trees.

use tengen_core::{BoardSize, Color, Move, Rng};
use tengen_sgf::{
    parse_collection, read_game, read_game_bytes, write_tree, Node, Property, ReadError,
};

fn stone(record: &tengen_sgf::Record, gtp: &str) -> Option<Color> {
    let size = BoardSize::square(9).unwrap();
    let Ok(Move::Play(point)) = size.parse_gtp(gtp) else {
        panic!("{gtp} is not a point")
    };
    record.game.board().stone(point)
}

/// Reads `text`, checking that Black is on E5 and White on C7.
fn reads_e5_c7(text: &str) {
    let record = read_game(text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
    assert_eq!(stone(&record, "E5"), Some(Color::Black), "{text:?}");
    assert_eq!(stone(&record, "C7"), Some(Color::White), "{text:?}");
    let bytes = read_game_bytes(text.as_bytes()).unwrap();
    assert_eq!(bytes.game.board(), record.game.board());
}

#[test]
fn missing_first_semicolon() {
    reads_e5_c7("(GM[1]SZ[9];B[ee];W[cc])");
    reads_e5_c7("(SZ[9]B[ee];W[cc])");
    let trees = parse_collection("(B[aa];W[bb])").unwrap();
    assert_eq!(trees[0].first("B"), Some("aa"));
    assert_eq!(trees[0].children[0].first("W"), Some("bb"));
    // Also in a variation.
    let trees = parse_collection("(;B[aa](W[bb])(;W[cc]))").unwrap();
    assert_eq!(trees[0].children.len(), 2);
    assert_eq!(trees[0].children[0].first("W"), Some("bb"));
}

#[test]
fn trailing_garbage() {
    reads_e5_c7("(;SZ[9];B[ee];W[cc]) trailing garbage ;-] \u{0}\u{ff}");
    reads_e5_c7("(;SZ[9];B[ee];W[cc])\n\n\x1a");
}

#[test]
fn lower_case_ff3_identifiers() {
    reads_e5_c7("(;GaMe[1]SiZe[9];Black[ee];White[cc])");
}

#[test]
fn whitespace_between_identifier_and_value() {
    reads_e5_c7("(;SZ [9]\n;B\n[ee]\t; W  \r\n [cc] )");
    let trees = parse_collection("(;AB [aa] [bb]\n[cc])").unwrap();
    assert_eq!(trees[0].get("AB").unwrap(), ["aa", "bb", "cc"]);
}

#[test]
fn byte_order_mark() {
    reads_e5_c7("\u{feff}(;SZ[9];B[ee];W[cc])");
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend_from_slice(b"(;SZ[9]PB[\xe5\x8f\xa4\xe5\x8a\x9b];B[ee];W[cc])");
    let record = read_game_bytes(&bytes).unwrap();
    assert_eq!(record.black_name.as_deref(), Some("古力"));
}

#[test]
fn syntax_errors_have_line_and_column() {
    let text = "(;GM[1]FF[4]\n;B[ee]\n;W[cc]C[oops\n";
    let Err(ReadError::Syntax(e)) = read_game(text) else {
        panic!("unclosed value read")
    };
    assert_eq!((e.line, e.column, e.offset), (3, 9, 28), "{e}");
    assert!(e
        .to_string()
        .starts_with("SGF syntax error at line 3, column 9: "));
    let Err(ReadError::Syntax(e)) = read_game_bytes("(;C[été]\r\n  ;B[ee] ? )".as_bytes()) else {
        panic!("stray character read")
    };
    assert_eq!((e.line, e.column), (2, 10), "{e}");
}

fn is_syntax(result: Result<tengen_sgf::Record, ReadError>) -> bool {
    matches!(result, Err(ReadError::Syntax(_)))
}

fn is_bad_value(result: Result<tengen_sgf::Record, ReadError>, property: &str) -> bool {
    matches!(result, Err(ReadError::BadValue { property: p, .. }) if p == property)
}

#[test]
fn malformed_input_is_an_error() {
    for text in [
        "(;SZ[9];B[ee",
        "(;SZ[9];B[ee];W[cc]",
        "(;SZ[9];B[ee]))(",
        "",
        "   \n\t\r\n  ",
        "no tree here",
        "()",
        "(;B)",
        "(;SZ[9] ; [ee])",
    ] {
        assert!(is_syntax(read_game(text)), "{text:?}");
        assert!(is_syntax(read_game_bytes(text.as_bytes())), "{text:?}");
    }
    assert!(is_syntax(read_game_bytes(b"")));
    assert!(is_syntax(read_game_bytes(b"\xef\xbb\xbf")));
    assert!(is_bad_value(read_game("(;SZ[9];B[z9])"), "B"));
    assert!(is_bad_value(read_game("(;SZ[19];W[zz])"), "W"));
    assert!(is_bad_value(
        read_game("(;SZ[99999999999999999999];B[aa])"),
        "SZ"
    ));
    assert!(is_bad_value(read_game("(;SZ[-3])"), "SZ"));
    assert!(is_bad_value(
        read_game("(;SZ[99999999999999999999:3])"),
        "SZ"
    ));
    assert!(is_bad_value(read_game("(;KM[1e400])"), "KM"));
    assert!(is_bad_value(read_game("(;KM[NaN])"), "KM"));
    assert!(is_bad_value(read_game("(;SZ[9]AB[aa:zz])"), "AB"));
    assert!(matches!(
        read_game("(;SZ[9];B[ee];W[ee])"),
        Err(ReadError::IllegalMove { node: 2, .. })
    ));
}

#[test]
fn deep_nesting_is_an_error_not_an_overflow() {
    let depth = 100_000;
    let open_only = "(".repeat(depth);
    assert!(is_syntax(read_game(&open_only)));
    let balanced = format!("{}{}", "(;".repeat(depth), ")".repeat(depth));
    assert!(is_syntax(read_game(&balanced)));
    assert!(is_syntax(read_game_bytes(balanced.as_bytes())));
    assert!(parse_collection(&balanced).is_err());
}

#[test]
fn long_main_line() {
    let length = 100_000;
    let text = format!("(;GM[1]SZ[9]{})", ";C[x]".repeat(length));
    let trees = parse_collection(&text).unwrap();
    // Walk, clone, compare, write and drop a 100,001-node chain: none recurse.
    let mut count = 0;
    let mut node = &trees[0];
    while let Some(next) = node.children.first() {
        node = next;
        count += 1;
    }
    assert_eq!(count, length);
    let copy = trees[0].clone();
    assert_eq!(copy, trees[0]);
    assert_eq!(write_tree(&copy), text);
    drop(copy);
    drop(trees);
    assert!(read_game(&text).is_ok());
    assert!(read_game_bytes(text.as_bytes()).is_ok());
    // Moves first, then a long tail of comment nodes.
    let moves: String = "abcdefghi"
        .chars()
        .map(|c| format!(";B[{c}a];W[{c}i]"))
        .collect();
    let text = format!("(;SZ[9]{moves}{})", ";C[y]".repeat(length));
    let record = read_game(&text).unwrap();
    assert_eq!(record.game.board().stone_count(Color::Black), 9);
    assert_eq!(record.game.board().stone_count(Color::White), 9);
}

const CHARS: &[char] = &[
    'a', 'b', 'z', 'A', 'Q', '0', '9', ' ', ':', ';', '(', ')', '[', ']', ']', '\\', '\\', '\n',
    '\r', '\t', 'é', 'ß', '古', '力', '이', 'ヒ', '🀄', '\u{feff}',
];

fn random_value(rng: &mut Rng) -> String {
    let len = rng.below(8);
    (0..len).map(|_| CHARS[rng.below(CHARS.len())]).collect()
}

fn random_node(rng: &mut Rng) -> Node {
    const IDS: &[&str] = &[
        "B", "W", "C", "AB", "AW", "AE", "PL", "N", "GN", "PB", "PW", "SZ", "KM", "LB", "TR",
    ];
    let mut node = Node::default();
    for _ in 0..rng.below(5) {
        let id = if rng.below(3) == 0 {
            let len = 1 + rng.below(4);
            (0..len)
                .map(|_| char::from(b'A' + rng.below(26) as u8))
                .collect()
        } else {
            IDS[rng.below(IDS.len())].to_string()
        };
        if node.get(&id).is_some() {
            continue;
        }
        let values = (0..1 + rng.below(3)).map(|_| random_value(rng)).collect();
        node.properties.push(Property { id, values });
    }
    node
}

/// A random tree of `size` nodes: each new node is attached below a node
/// reached by a random walk from the root, so trees have both long lines and
/// many variations.
fn random_tree(rng: &mut Rng, size: usize) -> Node {
    let mut root = random_node(rng);
    for _ in 1..size {
        let new = random_node(rng);
        let mut at = &mut root;
        while !at.children.is_empty() && rng.below(8) != 0 {
            let i = rng.below(at.children.len());
            at = &mut at.children[i];
        }
        at.children.push(new);
    }
    root
}

#[test]
fn random_trees_round_trip() {
    let mut rng = Rng::new(0x5ef_7ee);
    for case in 0..500 {
        let size = 1 + rng.below(if case % 10 == 0 { 400 } else { 40 });
        let tree = random_tree(&mut rng, size);
        let text = write_tree(&tree);
        let parsed = parse_collection(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(parsed.len(), 1, "{text}");
        assert_eq!(parsed[0], tree, "{text}");
        assert_eq!(write_tree(&parsed[0]), text);

        // A collection of two trees, with whitespace and a BOM around them.
        let other_size = 1 + rng.below(10);
        let other = random_tree(&mut rng, other_size);
        let collection = format!("\u{feff}{text}\n\r\n  {}\n", write_tree(&other));
        let parsed = parse_collection(&collection).unwrap();
        assert_eq!(parsed, [tree, other]);

        // Any prefix of the text parses or fails cleanly, and so do arbitrary
        // bytes through the whole reader.
        let mut cut = rng.below(text.len() + 1);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        let _ = parse_collection(&text[..cut]);
        let _ = read_game(&text[..cut]);
        const NOISE: &[u8] = b"(;)[]\\BWSZaz\xff\x81 \n";
        let noise: Vec<u8> = (0..rng.below(64))
            .map(|_| NOISE[rng.below(NOISE.len())])
            .collect();
        let _ = read_game_bytes(&noise);
    }
}
