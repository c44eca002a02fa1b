//! Typed game information and main-line node data: read from records,
//! written back in canonical order, malformed numbers ignored with a note,
//! and `RU` written only as the record had it.

use tengen_core::{BoardSize, Color, Game, Move, Rules};
use tengen_sgf::{
    read_game, write_game, write_record, Expected, GameInfo, IgnoredValue, ReadError, RecordInfo,
    RulesText,
};

/// A root with every game-info property tengen types.
const FULL: &str = "(;FF[4]GM[1]SZ[19:13]KM[6.5]RU[Japanese]HA[0]\
PB[Black \\] one]BR[5d]BT[Team B]PW[White]WR[3p]WT[Team W]RE[W+2.5]\
DT[2026-11-22,23]EV[Cup]RO[2 (final)]PC[Seoul]GN[Game]ON[Chinese fuseki]\
GC[A comment\\\\]SO[Book]AN[Editor]US[Typist]CP[Free]TM[5400]OT[5x30 byo-yomi]\
AP[other:1]XX[private]\
;B[aa]C[First move]BL[5399.5];W[]WL[5400]OW[5]C[Pass];B[tt])";

fn full_info() -> RecordInfo {
    let text = |s: &str| Some(s.to_string());
    RecordInfo {
        black_name: text("Black ] one"),
        black_rank: text("5d"),
        black_team: text("Team B"),
        white_name: text("White"),
        white_rank: text("3p"),
        white_team: text("Team W"),
        result: text("W+2.5"),
        date: text("2026-11-22,23"),
        event: text("Cup"),
        round: text("2 (final)"),
        place: text("Seoul"),
        game_name: text("Game"),
        opening: text("Chinese fuseki"),
        game_comment: text("A comment\\"),
        source: text("Book"),
        annotator: text("Editor"),
        user: text("Typist"),
        copyright: text("Free"),
        rules: RulesText::Given("Japanese".to_string()),
        komi: Some(6.5),
        handicap: Some(0),
        time_limit: Some(5400.0),
        overtime: text("5x30 byo-yomi"),
    }
}

#[test]
fn every_game_info_property_is_typed() {
    let record = read_game(FULL).unwrap();
    assert_eq!(record.info, full_info());
    assert_eq!(record.game.size(), BoardSize::new(19, 13).unwrap());
    assert_eq!(
        record.game.rules(),
        &Rules::preset("japanese").unwrap().with_komi(6.5)
    );
    assert!(record.ignored.is_empty(), "{:?}", record.ignored);
    // Unknown and application properties stay in the tree.
    assert_eq!(record.tree.first("XX"), Some("private"));
    assert_eq!(record.tree.first("AP"), Some("other:1"));
}

#[test]
fn main_line_nodes_are_typed() {
    let record = read_game(FULL).unwrap();
    let nodes = &record.main_line;
    assert_eq!(nodes.len(), 4);
    let size = record.game.size();
    let a13 = size.parse_gtp("A13").unwrap();
    assert_eq!(nodes[0].play, None);
    assert_eq!(nodes[0].turn, Some(0));
    assert_eq!(nodes[1].play, Some((Color::Black, a13)));
    assert_eq!(nodes[1].comment.as_deref(), Some("First move"));
    assert_eq!(nodes[1].black_time_left, Some(5399.5));
    assert_eq!(nodes[2].play, Some((Color::White, Move::Pass)));
    assert_eq!(nodes[2].white_time_left, Some(5400.0));
    assert_eq!(nodes[2].white_moves_left, Some(5));
    assert_eq!(nodes[2].turn, Some(2));
    // `tt` is a pass on boards up to 19×19, even a 19×13 one.
    assert_eq!(nodes[3].play, Some((Color::Black, Move::Pass)));
    assert_eq!(nodes[3].comment, None);
}

#[test]
fn turns_start_again_after_setup_in_mid_line() {
    let record = read_game("(;SZ[9]C[root];B[ee];W[cc];AB[aa]C[setup];W[bb];B[dd]C[two])").unwrap();
    let turns: Vec<_> = record.main_line.iter().map(|n| n.turn).collect();
    assert_eq!(turns, [None, None, None, Some(0), Some(1), Some(2)]);
    assert_eq!(record.game.turn_count(), 2);
    assert_eq!(record.main_line[3].added_black.len(), 1);
}

#[test]
fn malformed_informative_numbers_are_ignored_with_a_note() {
    let text = "(;SZ[9]TM[1 hour]HA[two]KM[]\n;B[ee]BL[-3]OB[1.5];W[cc]WL[NaN]OW[]\n;B[gg]BL[12])";
    let record = read_game(text).unwrap();
    let ignored = |node: usize, property: &str, value: &str, expected: Expected| IgnoredValue {
        node,
        property: property.to_string(),
        value: value.to_string(),
        expected,
    };
    assert_eq!(
        record.ignored,
        [
            ignored(0, "TM", "1 hour", Expected::Seconds),
            ignored(0, "HA", "two", Expected::Count),
            ignored(1, "BL", "-3", Expected::Seconds),
            ignored(1, "OB", "1.5", Expected::Count),
            ignored(2, "WL", "NaN", Expected::Seconds),
        ]
    );
    assert_eq!(
        record.ignored[0].to_string(),
        "node 0: TM[1 hour] ignored: expected a number of seconds from 0"
    );
    assert_eq!(record.info.time_limit, None);
    assert_eq!(record.info.handicap, None);
    // An empty KM means no komi given: the default rules' komi is used.
    assert_eq!(record.info.komi, None);
    assert_eq!(record.game.rules().komi, Rules::default().komi);
    assert_eq!(record.main_line[3].black_time_left, Some(12.0));
    assert_eq!(record.game.turn_count(), 3);
}

#[test]
fn malformed_komi_is_an_error_because_it_changes_the_score() {
    for km in ["lots", "inf", "1e3", "2000"] {
        let text = format!("(;SZ[9]KM[{km}];B[ee])");
        match read_game(&text) {
            Err(ReadError::BadValue { property, node, .. }) => {
                assert_eq!((property.as_str(), node), ("KM", 0), "{km}");
            }
            other => panic!("KM[{km}]: {other:?}"),
        }
    }
}

#[test]
fn written_game_information_reads_back() {
    let record = read_game(FULL).unwrap();
    let text = write_record(&record.game, &record.info);
    let expected = "(;FF[4]GM[1]CA[UTF-8]AP[tengen:VERSION]SZ[19:13]KM[6.5]RU[Japanese]\
PB[Black \\] one]BR[5d]BT[Team B]PW[White]WR[3p]WT[Team W]RE[W+2.5]DT[2026-11-22,23]EV[Cup]\
RO[2 (final)]PC[Seoul]GN[Game]ON[Chinese fuseki]GC[A comment\\\\]SO[Book]AN[Editor]US[Typist]\
CP[Free]TM[5400]OT[5x30 byo-yomi]\n;B[aa];W[];B[])\n"
        .replace("VERSION", env!("CARGO_PKG_VERSION"));
    assert_eq!(text, expected);
    let reread = read_game(&text).unwrap();
    // HA[0] is not written: the game has no handicap.
    assert_eq!(
        reread.info,
        RecordInfo {
            handicap: None,
            ..full_info()
        }
    );
    assert_eq!(write_record(&reread.game, &reread.info), text);
}

#[test]
fn a_handicap_the_game_did_not_recognise_is_written_as_read() {
    // Two Black stones and HA[2], but Black moves first: not a handicap game
    // for tengen, yet the record's HA survives a rewrite.
    let record = read_game("(;SZ[9]HA[2]AB[cc][gg];B[ee])").unwrap();
    assert_eq!(record.game.handicap(), 0);
    let text = write_record(&record.game, &record.info);
    assert!(text.contains("HA[2]"), "{text}");
    let proper = read_game("(;SZ[9]HA[2]AB[cc][gg]PL[W];W[ee])").unwrap();
    assert_eq!(proper.game.handicap(), 2);
    assert!(write_record(&proper.game, &proper.info).contains("HA[2]"));
}

/// `RU` written for a record: (record's root, `RU` expected in the rewrite).
const RULES_CASES: [(&str, Option<&str>); 7] = [
    ("SZ[9]", None),
    ("SZ[9]KM[0]", None),
    ("SZ[9]RU[Japanese]", Some("Japanese")),
    ("SZ[9]RU[korean]", Some("korean")),
    ("SZ[9]RU[GOE]", Some("GOE")),
    ("SZ[9]RU[Chinese]KM[7]", Some("Chinese")),
    (
        "SZ[9]RU[ko=simple,suicide=allowed,scoring=area,komi=3]",
        Some("ko=simple,suicide=allowed,scoring=area,komi=3"),
    ),
];

#[test]
fn rules_are_written_as_the_record_gave_them_or_not_at_all() {
    for (root, expected) in RULES_CASES {
        let original = format!("(;{root};B[ee];W[cc])");
        let record = read_game(&original).unwrap();
        let text = write_record(&record.game, &record.info);
        let written = text
            .split_once("RU[")
            .map(|(_, rest)| &rest[..rest.find(']').unwrap()]);
        assert_eq!(written, expected, "{original} became {text}");
        let reread = read_game(&text).unwrap();
        assert_eq!(reread.game.rules(), record.game.rules(), "{text}");
        assert_eq!(reread.info.rules, record.info.rules, "{text}");
    }
}

#[test]
fn rules_that_changed_are_named_from_the_game() {
    let size = BoardSize::square(9).unwrap();
    let japanese = Game::new(size, Rules::preset("japanese").unwrap());
    for rules in [
        RulesText::Absent,
        RulesText::Given("GOE".into()),
        RulesText::FromGame,
    ] {
        let info = RecordInfo {
            rules: rules.clone(),
            ..RecordInfo::default()
        };
        let text = write_record(&japanese, &info);
        assert!(text.contains("RU[Japanese]"), "{rules:?}: {text}");
    }
    // A game written by a program names its rules, as it always did.
    let text = write_game(&Game::new(size, Rules::default()), &GameInfo::default());
    assert!(text.contains("RU[AGA]"), "{text}");
}
