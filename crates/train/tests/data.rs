//! Training shards: the binary format, its refusal of damaged files, and
//! `prepare` over folders of SGF records.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use tengen_core::{Action, Agent, BoardSize, Color, Game, Move, RandomBot, Rules};
use tengen_sgf::{read_game, write_game, GameInfo};
use tengen_train::data::{
    is_validation, prepare, read_shard, winner_of_result, write_shard, DataError, Dataset,
    GameRecord, PrepareOptions, ShardFault,
};

/// A fresh, empty folder for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-nn-data-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/shards")
        .join(name)
}

/// Records covering what the format must carry: setup of both colours,
/// passes, a rectangle, White first, each kind of winner, negative komi.
fn sample_records() -> Vec<GameRecord> {
    let rectangle = BoardSize::new(7, 5).unwrap();
    vec![
        GameRecord {
            size: BoardSize::square(9).unwrap(),
            komi: 7.5,
            setup: vec![],
            first: Color::Black,
            moves: vec![Some(40), Some(30), None, Some(0), None, None],
            winner: Some(Color::Black),
        },
        GameRecord {
            size: rectangle,
            komi: -2.5,
            setup: vec![(Color::Black, 8), (Color::White, 34), (Color::Black, 26)],
            first: Color::White,
            moves: vec![Some(6), None, Some(28), Some(0)],
            winner: Some(Color::White),
        },
        GameRecord {
            size: BoardSize::square(25).unwrap(),
            komi: 0.0,
            setup: vec![],
            first: Color::Black,
            moves: vec![Some(624), Some(0)],
            winner: None,
        },
        GameRecord {
            size: BoardSize::square(19).unwrap(),
            komi: 6.5,
            setup: vec![],
            first: Color::Black,
            moves: vec![],
            winner: None,
        },
    ]
}

#[test]
fn records_round_trip_with_setup_passes_and_rectangles() {
    let dir = temp_dir("round-trip");
    let path = dir.join("train-000.tgs");
    let records = sample_records();
    write_shard(&path, &records).unwrap();
    assert_eq!(read_shard(&path).unwrap(), records);
    // Compact: 10 header bytes, 14 per game, 2 per setup stone and move.
    let stones_and_moves: usize = records.iter().map(|r| r.setup.len() + r.moves.len()).sum();
    let expected = 10 + 14 * records.len() + 2 * stones_and_moves;
    assert_eq!(std::fs::metadata(&path).unwrap().len() as usize, expected);
    // An empty shard is valid too.
    write_shard(&path, &[]).unwrap();
    assert_eq!(read_shard(&path).unwrap(), vec![]);
    // The rectangle's setup and moves land where the indices say.
    let game = records[1].start();
    let size = records[1].size;
    assert_eq!(game.to_move(), Color::White);
    assert_eq!(
        game.board().stone(size.point(1, 1).unwrap()),
        Some(Color::Black)
    );
    assert_eq!(
        game.board().stone(size.point(6, 4).unwrap()),
        Some(Color::White)
    );
    assert_eq!(records[1].move_at(0), Move::Play(size.point(6, 0).unwrap()));
    assert_eq!(records[1].move_at(1), Move::Pass);
    assert_eq!(game.rules().komi, -2.5);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The format is pinned by a shard committed with the tests: a change of
/// format without a new version number fails here. `TENGEN_BLESS=1`
/// rewrites the fixture.
#[test]
fn the_committed_shard_still_reads() {
    let path = fixture("sample-v1.tgs");
    if std::env::var_os("TENGEN_BLESS").is_some() {
        write_shard(&path, &sample_records()).unwrap();
    }
    assert_eq!(read_shard(&path).unwrap(), sample_records());
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(&bytes[..10], b"TGSH\x01\x00\x04\x00\x00\x00");
}

/// The error of reading `bytes` as a shard (which must fail).
fn corrupt(dir: &Path, bytes: &[u8]) -> (usize, ShardFault, String) {
    let path = dir.join("bad.tgs");
    std::fs::write(&path, bytes).unwrap();
    let error = read_shard(&path).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("bad.tgs"), "{text}");
    match error {
        DataError::Corrupt { offset, fault, .. } => {
            assert!(text.contains(&format!("at byte {offset}")), "{text}");
            (offset, fault, text)
        }
        other => panic!("expected a corrupt shard, got {other}"),
    }
}

#[test]
fn truncated_shards_are_refused_at_every_length() {
    let dir = temp_dir("truncated");
    let path = dir.join("good.tgs");
    write_shard(&path, &sample_records()).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    for length in 0..bytes.len() {
        let (offset, fault, text) = corrupt(&dir, &bytes[..length]);
        assert!(offset <= length, "{text}");
        assert!(matches!(fault, ShardFault::Truncated { .. }), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corrupted_shards_are_refused_with_the_offset() {
    let dir = temp_dir("corrupted");
    let path = dir.join("good.tgs");
    let records = sample_records();
    write_shard(&path, &records[..1]).unwrap();
    let good = std::fs::read(&path).unwrap();
    // The first game starts at byte 10: width, height, komi (4), first,
    // winner, setup count (2), move count (4), moves from byte 24.
    let with = |at: usize, value: &[u8]| {
        let mut bytes = good.clone();
        bytes[at..at + value.len()].copy_from_slice(value);
        bytes
    };
    let cases: Vec<(Vec<u8>, usize, ShardFault)> = vec![
        (with(0, b"PK"), 0, ShardFault::BadMagic(*b"PKSH")),
        (with(4, &[2, 0]), 4, ShardFault::Version(2)),
        (
            with(10, &[0]),
            10,
            ShardFault::BoardSize {
                width: 0,
                height: 9,
            },
        ),
        (
            with(11, &[26]),
            10,
            ShardFault::BoardSize {
                width: 9,
                height: 26,
            },
        ),
        (
            with(12, &f32::NAN.to_le_bytes()),
            12,
            ShardFault::Komi(f32::NAN),
        ),
        (with(16, &[2]), 16, ShardFault::Color(2)),
        (with(17, &[3]), 17, ShardFault::Winner(3)),
        (
            with(26, &81u16.to_le_bytes()),
            26,
            ShardFault::Point {
                point: 81,
                points: 81,
            },
        ),
        (
            with(6, &[2, 0, 0, 0]),
            good.len(),
            ShardFault::Truncated { needed: 1 },
        ),
        (
            [good.clone(), vec![0, 0, 0]].concat(),
            good.len(),
            ShardFault::Trailing(3),
        ),
    ];
    for (bytes, expected_offset, expected) in cases {
        let (offset, fault, text) = corrupt(&dir, &bytes);
        assert_eq!(offset, expected_offset, "{text}");
        match (&fault, &expected) {
            // NaN is not equal to itself.
            (ShardFault::Komi(a), ShardFault::Komi(b)) => {
                assert_eq!(a.to_bits(), b.to_bits(), "{text}")
            }
            _ => assert_eq!(fault, expected, "{text}"),
        }
    }
    // A point off a setup stone is refused too.
    write_shard(&path, &records[1..2]).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[20..22].copy_from_slice(&35u16.to_le_bytes());
    let (offset, fault, _) = corrupt(&dir, &bytes);
    assert_eq!(
        (offset, fault),
        (
            20,
            ShardFault::Point {
                point: 35,
                points: 35
            }
        )
    );
    // Records that cannot be stored are refused when writing.
    let mut off_board = records[0].clone();
    off_board.moves.push(Some(81));
    let error = write_shard(&path, &[off_board]).unwrap_err();
    assert!(
        error.to_string().contains("game 0: move point 81"),
        "{error}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn results_name_the_winner() {
    assert_eq!(winner_of_result("B+R"), Some(Color::Black));
    assert_eq!(winner_of_result(" w+3.5"), Some(Color::White));
    assert_eq!(winner_of_result("W+"), Some(Color::White));
    assert_eq!(winner_of_result("0"), None);
    assert_eq!(winner_of_result("Draw"), None);
    assert_eq!(winner_of_result("Void"), None);
    assert_eq!(winner_of_result("Black"), None);
    assert_eq!(winner_of_result(""), None);
}

/// A legal game of random moves on `size`, at most `turns` long, as SGF.
fn random_game(size: BoardSize, seed: u64, turns: usize, result: &str) -> String {
    let mut game = Game::new(size, Rules::default().with_komi(6.5));
    let mut bot = RandomBot::new(seed);
    while !game.is_over() && game.turn_count() < turns {
        match bot.select_move(&game) {
            Action::Move(mv) => game.play(mv).unwrap(),
            Action::Resign => break,
        }
    }
    let info = GameInfo {
        result: Some(result.to_string()),
        ..GameInfo::default()
    };
    write_game(&game, &info)
}

/// The body of a record (what follows `(`): for collections.
fn tree(text: &str) -> &str {
    text.trim()
}

/// A folder of records: 1 + 20 + 1 + 1 good games, one of each fault.
fn write_fixtures(dir: &Path) -> usize {
    let nine = BoardSize::square(9).unwrap();
    std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
    let single = random_game(nine, 1, 40, "B+R");
    std::fs::write(dir.join("a.sgf"), &single).unwrap();
    let collection: String = (0..20)
        .map(|seed| {
            random_game(
                nine,
                100 + seed,
                30,
                if seed.is_multiple_of(2) { "W+2.5" } else { "0" },
            )
        })
        .map(|text| tree(&text).to_string())
        .collect();
    std::fs::write(dir.join("sub/collection.sgf"), collection).unwrap();
    std::fs::write(
        dir.join("sub/deeper/c.MGT"),
        random_game(nine, 3, 25, "W+R"),
    )
    .unwrap();
    // A handicap game: two Black stones, White first.
    std::fs::write(
        dir.join("handicap.sgf"),
        "(;GM[1]SZ[9]HA[2]KM[0.5]AB[cg][gc]RE[B+10.5]\
         ;W[ee];B[dd];W[de];B[ce];W[cf];B[be];W[ed];B[dc];W[ec];B[eb];W[fb];B[db])",
    )
    .unwrap();
    // Faults.
    std::fs::write(dir.join("broken.sgf"), "(;SZ[9];B[ee];W[dd").unwrap();
    std::fs::write(
        dir.join("sub/big.sgf"),
        random_game(BoardSize::square(13).unwrap(), 4, 30, "B+R"),
    )
    .unwrap();
    std::fs::write(
        dir.join("illegal.sgf"),
        "(;SZ[9];B[ee];W[dd];B[cc];W[ee];B[gg];W[hh];B[ff];W[aa];B[bb];W[ab];B[ac];W[ad])",
    )
    .unwrap();
    std::fs::write(
        dir.join("twice.sgf"),
        "(;SZ[9];B[ee];B[dd];W[cc];B[gg];W[hh];B[ff];W[aa];B[bb];W[ab];B[ac];W[ad];B[ae])",
    )
    .unwrap();
    std::fs::write(dir.join("short.sgf"), "(;SZ[9];B[ee];W[dd];B[cc])").unwrap();
    std::fs::write(dir.join("sub/copy.sgf"), &single).unwrap();
    std::fs::write(dir.join("notes.txt"), "not a record").unwrap();
    // Files: a, collection, c, handicap, broken, big, illegal, twice, short, copy.
    10
}

fn options(validation_fraction: f64) -> PrepareOptions {
    PrepareOptions {
        size: BoardSize::square(9).unwrap(),
        validation_fraction,
        games_per_shard: 5,
        min_moves: 10,
    }
}

fn shard_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn prepare_keeps_the_good_games_and_splits_them_by_game() {
    let dir = temp_dir("prepare");
    let inputs = dir.join("inputs");
    let files = write_fixtures(&inputs);
    let out = dir.join("out");
    let mut calls = Vec::new();
    let report = prepare(
        std::slice::from_ref(&inputs),
        &out,
        &options(0.3),
        &mut |done, total| calls.push((done, total)),
    )
    .unwrap();
    assert_eq!(calls.last(), Some(&(files, files)));
    assert_eq!(report.files, files);
    assert_eq!(report.games_read, 29);
    assert_eq!(report.games_kept, 23);
    let skipped: BTreeMap<String, usize> = [
        ("duplicate", 1),
        ("illegal move", 1),
        ("non-alternating", 1),
        ("parse error", 1),
        ("too short", 1),
        ("wrong size", 1),
    ]
    .into_iter()
    .map(|(reason, count)| (reason.to_string(), count))
    .collect();
    assert_eq!(report.skipped, skipped);
    assert_eq!(report.train_games + report.validation_games, 23);
    assert!(
        report.train_games > 0 && report.validation_games > 0,
        "{report}"
    );

    // What was written reads back as reported, each game in the split its
    // hash gives it.
    let data = Dataset::load(&out).unwrap();
    assert_eq!(data.train.len(), report.train_games);
    assert_eq!(data.validation.len(), report.validation_games);
    assert_eq!(data.train_positions(), report.train_positions);
    assert_eq!(data.validation_positions(), report.validation_positions);
    assert!(data.train.iter().all(|g| !is_validation(g, 0.3)));
    assert!(data.validation.iter().all(|g| is_validation(g, 0.3)));
    let shards = report.train_games.div_ceil(5);
    assert!(shard_names(&out).contains(&format!("train-{:03}.tgs", shards - 1)));
    assert!(!shard_names(&out).contains(&format!("train-{shards:03}.tgs")));
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(summary.contains("games kept:   23"), "{summary}");
    assert!(summary.contains("  wrong size: 1"), "{summary}");

    // The handicap game keeps its setup and White's first move; the winner
    // comes from RE.
    let all: Vec<&GameRecord> = data.train.iter().chain(&data.validation).collect();
    let handicap = all.iter().find(|g| !g.setup.is_empty()).unwrap();
    assert_eq!(handicap.first, Color::White);
    let nine = BoardSize::square(9).unwrap();
    let index = |text: &str| match nine.parse_sgf(text).unwrap() {
        Move::Play(point) => GameRecord::index_of(nine, point),
        Move::Pass => unreachable!(),
    };
    // In board order: row 0 at the bottom.
    assert_eq!(
        handicap.setup,
        vec![(Color::Black, index("cg")), (Color::Black, index("gc"))]
    );
    assert_eq!(index("cg"), 2 * 9 + 2);
    assert_eq!(handicap.winner, Some(Color::Black));
    assert_eq!(handicap.komi, 0.5);
    assert_eq!(handicap.start().handicap(), 2);
    let winners = |w: Option<Color>| all.iter().filter(|g| g.winner == w).count();
    assert_eq!(winners(None), 10);
    assert_eq!(winners(Some(Color::White)), 11);
    assert_eq!(winners(Some(Color::Black)), 2);

    // The same inputs give the same shards; a game's split does not depend on
    // what else is prepared with it.
    let again = dir.join("again");
    prepare(
        std::slice::from_ref(&inputs),
        &again,
        &options(0.3),
        &mut |_, _| {},
    )
    .unwrap();
    for name in shard_names(&out) {
        assert_eq!(
            std::fs::read(out.join(&name)).unwrap(),
            std::fs::read(again.join(&name)).unwrap(),
            "{name}"
        );
    }
    let alone = dir.join("alone");
    prepare(&[inputs.join("sub")], &alone, &options(0.3), &mut |_, _| {}).unwrap();
    let subset = Dataset::load(&alone).unwrap();
    // The collection, the copy (no longer a duplicate) and c.MGT.
    assert_eq!(subset.train.len() + subset.validation.len(), 22);
    for game in &subset.validation {
        assert!(data.validation.contains(game));
    }
    for game in &subset.train {
        assert!(data.train.contains(game));
    }
    // A rerun replaces the earlier shards: with no validation, none are left.
    prepare(&[inputs.join("sub")], &alone, &options(0.0), &mut |_, _| {}).unwrap();
    let all_train = Dataset::load(&alone).unwrap();
    assert_eq!((all_train.train.len(), all_train.validation.len()), (22, 0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn prepare_refuses_bad_options_and_missing_inputs() {
    let dir = temp_dir("refuse");
    let out = dir.join("out");
    let error = prepare(
        std::slice::from_ref(&dir),
        &out,
        &options(1.5),
        &mut |_, _| {},
    )
    .unwrap_err();
    assert!(matches!(error, DataError::Options(_)), "{error}");
    let missing = dir.join("missing");
    let error = prepare(&[missing], &out, &options(0.1), &mut |_, _| {}).unwrap_err();
    assert!(error.to_string().contains("missing"), "{error}");
    let error = Dataset::load(&dir).unwrap_err();
    assert!(matches!(error, DataError::NoShards { .. }), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn positions_replay_to_the_boards_of_the_records() {
    let dir = temp_dir("replay");
    let inputs = dir.join("inputs");
    write_fixtures(&inputs);
    let out = dir.join("out");
    prepare(
        std::slice::from_ref(&inputs),
        &out,
        &options(0.5),
        &mut |_, _| {},
    )
    .unwrap();
    let data = Dataset::load(&out).unwrap();
    // Every kept game, replayed position by position, ends on the board the
    // SGF reader gives for its record.
    let mut records: Vec<String> = vec![
        std::fs::read_to_string(inputs.join("a.sgf")).unwrap(),
        std::fs::read_to_string(inputs.join("sub/deeper/c.MGT")).unwrap(),
        std::fs::read_to_string(inputs.join("handicap.sgf")).unwrap(),
    ];
    let nine = BoardSize::square(9).unwrap();
    records.extend((0..20).map(|seed| {
        random_game(
            nine,
            100 + seed,
            30,
            if seed.is_multiple_of(2) { "W+2.5" } else { "0" },
        )
    }));
    let mut matched = 0;
    for game in data.train.iter().chain(&data.validation) {
        let mut turns = Vec::new();
        let mut last: Option<(Game, Move)> = None;
        game.for_each_position(|before, mv, turn| {
            assert_eq!(before.to_move(), game.color_at(turn));
            assert_eq!(before.turn_count(), turn);
            turns.push(turn);
            last = Some((before.clone(), mv));
        });
        assert_eq!(turns, (0..game.moves.len()).collect::<Vec<_>>());
        let (mut end, mv) = last.unwrap();
        end.play(mv).unwrap();
        assert_eq!(end.board(), game.replay().unwrap().board());
        let sgf_boards: Vec<_> = records
            .iter()
            .map(|text| read_game(text).unwrap().game)
            .filter(|g| g.turn_count() == game.moves.len() && g.board() == end.board())
            .collect();
        assert!(!sgf_boards.is_empty(), "no record ends on this board");
        matched += 1;
    }
    assert_eq!(matched, 23);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Debian's goban-original-games: about 600 professional 19x19 games, `.mgt`
/// and `.sgf`. Skipped with a note where the package is not installed.
#[test]
fn the_goban_collection_prepares() {
    let goban = Path::new("/usr/share/goban");
    assert!(
        goban.is_dir(),
        "{} is missing: install the records (apt-get install goban-original-games; scripts/test installs them)",
        goban.display()
    );
    let dir = temp_dir("goban");
    let size = BoardSize::square(19).unwrap();
    let report = prepare(
        &[goban.to_path_buf()],
        &dir,
        &PrepareOptions::new(size),
        &mut |_, _| {},
    )
    .unwrap();
    eprintln!("{report}");
    assert!(report.games_kept > 500, "{report}");
    let data = Dataset::load(&dir).unwrap();
    assert_eq!(data.train.len() + data.validation.len(), report.games_kept);
    assert!(
        data.validation.len() > 20 && data.validation.len() < 110,
        "{report}"
    );
    assert!(data.train_positions() > 50_000, "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}
