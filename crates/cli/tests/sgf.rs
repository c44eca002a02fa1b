//! `tengen sgf show`, `check` and `convert` on small records in a temp folder.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const GOOD: &str =
    "(;GM[1]FF[4]SZ[9]KM[7]RU[Chinese]PB[Alice]PW[Bob]RE[W+R]\n;B[ee];W[cc];B[gg];W[cg])";
const ILLEGAL: &str = "(;GM[1]FF[4]SZ[9]PB[Carol]PW[Dave];B[ee];W[dd];B[dd])";
/// Every piece of game information `show` prints, and comments and time
/// left along the main line.
const ANNOTATED: &str = "(;GM[1]FF[4]SZ[9]KM[0.5]RU[GOE]HA[2]AB[cc][gg]PL[W]\
PB[Alice]BR[3d]PW[Bob]WR[1p]RE[B+R]DT[2026-11-22]EV[Club cup]RO[3]PC[Paris]\
GN[Final]TM[5400]OT[5x30 byo-yomi]C[Before the first move]\
;W[ee]C[A bold start\nin the centre]WL[5390]OW[5];B[dc];W[dg]BL[12.5])";
/// No `RU`: conversion must not invent one.
const NO_RULES: &str = "(;GM[1]FF[4]SZ[9]KM[6.5]PB[Eve];B[ee];W[cc])";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-cli-sgf-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tengen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .arg("sgf")
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

#[test]
fn show_prints_information_and_the_final_board() {
    let dir = temp_dir("show");
    let file = dir.join("good.sgf");
    std::fs::write(&file, GOOD).unwrap();
    let out = tengen(&["show", arg(&file)]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    for needle in [
        "Black:  Alice",
        "White:  Bob",
        "Result: W+R",
        "Komi:   7",
        "Size:   9",
        "Move 4 of 4",
        "(o)",
    ] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
    // C3 is row 3: White's last stone there is marked.
    let row3 = text
        .lines()
        .find(|l| l.trim_start().starts_with("3 "))
        .unwrap();
    assert!(row3.contains("(o)"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn show_move_stops_early_and_rejects_moves_past_the_end() {
    let dir = temp_dir("show-move");
    let file = dir.join("good.sgf");
    std::fs::write(&file, GOOD).unwrap();
    let out = tengen(&["show", arg(&file), "--move", "1"]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("Move 1 of 4"), "{text}");
    assert!(text.contains("(x)"), "{text}");
    // After Black's first move there is no white stone yet.
    let board: String = text
        .lines()
        .skip_while(|l| !l.starts_with("Move"))
        .skip(1)
        .collect();
    assert!(!board.contains('o'), "{text}");
    let out = tengen(&["show", arg(&file), "--move", "0"]);
    assert!(out.status.success(), "{out:?}");
    assert!(!stdout(&out).contains("(x)"));

    let out = tengen(&["show", arg(&file), "--move", "5"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("move 5 asked for, but the main line has 4 moves"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_reports_illegal_moves_and_still_succeeds() {
    let dir = temp_dir("check");
    std::fs::write(dir.join("good.sgf"), GOOD).unwrap();
    std::fs::create_dir_all(dir.join("old")).unwrap();
    std::fs::write(dir.join("old").join("bad.MGT"), ILLEGAL).unwrap();
    std::fs::write(dir.join("readme.txt"), "not a record").unwrap();

    let out = tengen(&["check", arg(&dir.join("good.sgf"))]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out), "files 1, games 1, moves 4, failures 0\n");
    assert!(out.stderr.is_empty(), "progress bar shown on a pipe");

    let out = tengen(&["check", arg(&dir)]);
    assert!(out.status.success(), "{out:?}");
    let text = stdout(&out);
    let bad = dir.join("old").join("bad.MGT");
    let expected = format!(
        "{}: node 3: illegal move [dd]: the point is occupied\nfiles 2, games 2, moves 4, failures 1\n",
        bad.display()
    );
    assert_eq!(text, expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_fails_on_unreadable_paths() {
    let dir = temp_dir("missing");
    std::fs::write(dir.join("good.sgf"), GOOD).unwrap();
    let missing = dir.join("missing.sgf");
    let out = tengen(&["check", arg(&dir), arg(&missing)]);
    assert!(!out.status.success());
    let text = stdout(&out);
    assert!(text.contains(&format!("{}: ", missing.display())), "{text}");
    assert!(
        text.contains("files 1, games 1, moves 4, failures 0, unreadable 1"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn convert_round_trips_through_the_reader() {
    let dir = temp_dir("convert");
    let file = dir.join("good.sgf");
    std::fs::write(&file, GOOD).unwrap();
    let converted = dir.join("converted.sgf");
    let out = tengen(&["convert", arg(&file), "-o", arg(&converted)]);
    assert!(out.status.success(), "{out:?}");
    let text = std::fs::read_to_string(&converted).unwrap();
    for needle in ["PB[Alice]", "PW[Bob]", "RE[W+R]", "SZ[9]", "KM[7]"] {
        assert!(text.contains(needle), "{needle} missing from {text}");
    }
    let original = tengen_sgf::read_game(GOOD).unwrap();
    let reread = tengen_sgf::read_game(&text).unwrap();
    assert_eq!(reread.game.board(), original.game.board());
    assert_eq!(
        reread.game.history().collect::<Vec<_>>(),
        original.game.history().collect::<Vec<_>>()
    );
    assert_eq!(reread.game.rules(), original.game.rules());

    let out = tengen(&["convert", arg(&file)]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(stdout(&out), text);

    let bad = dir.join("bad.sgf");
    std::fs::write(&bad, ILLEGAL).unwrap();
    let out = tengen(&["convert", arg(&bad)]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("illegal move"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `show FILE [--move N]`: (arguments after the file, lines that must
/// appear, texts that must not).
const SHOW_CASES: [(&[&str], &[&str], &[&str]); 4] = [
    (
        &[],
        &[
            "Black:  Alice (3d)",
            "White:  Bob (1p)",
            "Result: B+R",
            "Date:   2026-11-22",
            "Event:  Club cup",
            "Round:  3",
            "Place:  Paris",
            "Game:   Final",
            "Rules:  GOE (read as ko=positional,suicide=multi-stone,scoring=area,komi=0.5,handicap-bonus=0)",
            "Komi:   0.5",
            "Handicap: 2",
            "Time:   1:30:00 each, then 5x30 byo-yomi",
            "Move 3 of 3",
            "Black time left: 12.5 s",
        ],
        &["Comment:"],
    ),
    (
        &["--move", "1"],
        &[
            "Move 1 of 3",
            "White time left: 1:29:50, 5 moves to play",
            "Comment:\n  A bold start\n  in the centre\n",
        ],
        &["Black time left"],
    ),
    (
        &["--move", "0"],
        &["Move 0 of 3", "Comment:\n  Before the first move\n"],
        &["time left"],
    ),
    (
        &["--move", "2"],
        &["Move 2 of 3"],
        &["Comment:", "time left"],
    ),
];

#[test]
fn show_prints_game_information_comments_and_time_left() {
    let dir = temp_dir("show-info");
    let file = dir.join("annotated.sgf");
    std::fs::write(&file, ANNOTATED).unwrap();
    for (args, present, absent) in SHOW_CASES {
        let mut all = vec!["show", arg(&file)];
        all.extend_from_slice(args);
        let out = tengen(&all);
        assert!(out.status.success(), "{args:?}: {out:?}");
        let text = stdout(&out);
        for needle in present {
            assert!(
                text.contains(needle),
                "{args:?}: {needle:?} missing from:\n{text}"
            );
        }
        for needle in absent {
            assert!(!text.contains(needle), "{args:?}: {needle:?} in:\n{text}");
        }
    }
    // A record without rules says so; the optional lines stay away.
    let file = dir.join("no-rules.sgf");
    std::fs::write(&file, NO_RULES).unwrap();
    let text = stdout(&tengen(&["show", arg(&file)]));
    assert!(text.contains("Rules:  not given (read as "), "{text}");
    for absent in ["Date:", "Event:", "Time:", "Handicap:", "Comment:"] {
        assert!(!text.contains(absent), "{absent} in:\n{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn convert_keeps_game_information_and_invents_no_rules() {
    let dir = temp_dir("convert-info");
    let cases = [
        (NO_RULES, &["KM[6.5]", "PB[Eve]"][..], &["RU["][..]),
        (
            ANNOTATED,
            &[
                "RU[GOE]",
                "HA[2]",
                "BR[3d]",
                "WR[1p]",
                "DT[2026-11-22]",
                "EV[Club cup]",
                "RO[3]",
                "PC[Paris]",
                "GN[Final]",
                "TM[5400]",
                "OT[5x30 byo-yomi]",
                "PL[W]",
            ][..],
            &["RU[AGA]", "C[Before", "C[A bold"][..],
        ),
        (GOOD, &["RU[Chinese]", "KM[7]"][..], &[][..]),
    ];
    for (k, (original, present, absent)) in cases.into_iter().enumerate() {
        let file = dir.join(format!("{k}.sgf"));
        std::fs::write(&file, original).unwrap();
        let out = tengen(&["convert", arg(&file)]);
        assert!(out.status.success(), "{out:?}");
        let text = stdout(&out);
        for needle in present {
            assert!(text.contains(needle), "{needle} missing from {text}");
        }
        for needle in absent {
            assert!(!text.contains(needle), "{needle} in {text}");
        }
        // The conversion reads back to the same game and information.
        let before = tengen_sgf::read_game(original).unwrap();
        let after = tengen_sgf::read_game(&text).unwrap();
        assert_eq!(after.game.rules(), before.game.rules(), "{text}");
        assert_eq!(after.game.board(), before.game.board(), "{text}");
        assert_eq!(after.info.rules, before.info.rules, "{text}");
        assert_eq!(after.info.black_rank, before.info.black_rank, "{text}");
        assert_eq!(after.info.time_limit, before.info.time_limit, "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
