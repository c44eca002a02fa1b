//! Behaviour of the rules core on hand-made positions: captures, snapback,
//! suicide, ko and superko, eyes, handicap, scoring, the game's bookkeeping and
//! vertex text. Positions are ASCII diagrams, top row first (`x` black, `o`
//! white, `.` empty); points are named in GTP style (`A1` bottom left).

use tengen_core::scoring::ownership;
use tengen_core::zobrist::STONE_KEYS;
use tengen_core::{
    fixed_handicap_points, Action, Board, BoardSize, Color, EyeTest, Game, IllegalMove, KoRule,
    Move, Point, Removals, Rules, Scoring, SetupError, SuicideRule, VertexErrorKind,
};

fn board(diagram: &str) -> Board {
    match Board::from_ascii(diagram) {
        Ok(board) => board,
        Err(e) => panic!("bad test diagram: {e}\n{diagram}"),
    }
}

/// The point named in GTP style on `size`.
fn at(size: BoardSize, vertex: &str) -> Point {
    match size.parse_gtp(vertex) {
        Ok(Move::Play(point)) => point,
        other => panic!("{vertex} is not a point on {size}: {other:?}"),
    }
}

/// The move at the point named in GTP style on `size`.
fn mv(size: BoardSize, vertex: &str) -> Move {
    Move::Play(at(size, vertex))
}

/// Plays `vertices` in turn (`pass` allowed), panicking on an illegal one.
fn play_all(game: &mut Game, vertices: &[&str]) {
    for &v in vertices {
        let mv = game.size().parse_gtp(v).unwrap();
        if let Err(e) = game.play(mv) {
            panic!("{v} refused: {e}\n{}", game.board());
        }
    }
}

/// XOR of the keys of every white stone.
fn white_hash(b: &Board) -> u64 {
    b.size()
        .points()
        .filter(|&p| b.stone(p) == Some(Color::White))
        .fold(0, |h, p| h ^ STONE_KEYS[Color::White.index()][p.index()])
}

fn game_from(diagram: &str, to_move: Color, rules: Rules) -> Game {
    Game::from_position(board(diagram), to_move, rules)
}

fn simple_ko() -> Rules {
    Rules {
        ko: KoRule::Simple,
        ..Rules::default()
    }
}

fn with_suicide(ko: KoRule, suicide: SuicideRule) -> Rules {
    Rules {
        ko,
        suicide,
        ..Rules::default()
    }
}

/// A diagram as `Board`'s `Display` writes it: no spaces, one line per row.
fn normalise(text: &str) -> String {
    text.lines()
        .map(|l| l.split_whitespace().collect::<String>())
        .filter(|l| !l.is_empty())
        .map(|l| l + "\n")
        .collect()
}

fn assert_board(board: &Board, expected: &str) {
    assert_eq!(board.to_string(), normalise(expected), "board differs");
    board.check_consistency().unwrap();
}

// ---------------------------------------------------------------- captures

#[test]
fn single_stone_capture_in_the_middle() {
    let mut b = board(
        ". . . . .
         . . x . .
         . x o x .
         . . . . .
         . . . . .",
    );
    let s = b.size();
    assert_eq!(b.liberties(at(s, "C3")), 1);
    assert_eq!(b.play_unchecked(at(s, "C2"), Color::Black), 1);
    assert_board(
        &b,
        ". . . . .
         . . x . .
         . x . x .
         . . x . .
         . . . . .",
    );
    assert_eq!(b.captures().black, 1);
    assert_eq!(b.captures().white, 0);
    assert_eq!(b.liberties(at(s, "C2")), 4);
    assert_eq!(b.liberties(at(s, "B3")), 4);
    assert_eq!(b.stone_count(Color::White), 0);
    assert_eq!(b.empty_count(), 21);
}

#[test]
fn multi_stone_capture_counts_every_stone() {
    let mut b = board(
        ". x x . .
         x o o x .
         . x . . .
         . . . . .
         . . . . .",
    );
    let s = b.size();
    assert_eq!(b.liberties(at(s, "B4")), 1);
    assert_eq!(b.chain_len(at(s, "C4")), 2);
    assert_eq!(b.play_unchecked(at(s, "C3"), Color::Black), 2);
    assert_board(
        &b,
        ". x x . .
         x . . x .
         . x x . .
         . . . . .
         . . . . .",
    );
    assert_eq!(b.captures().black, 2);
    // B3-C3: A3 B2 C2 D3 and the freed B4 C4.
    assert_eq!(b.chain_len(at(s, "C3")), 2);
    assert_eq!(b.liberties(at(s, "C3")), 6);
    // B5-C5 gained B4 and C4.
    assert_eq!(b.liberties(at(s, "B5")), 4);
}

#[test]
fn captures_on_the_edge_and_in_the_corner() {
    let mut b2 = board(
        ". . . . .
         x . . . .
         o . . . .
         x . . . .
         o . . . .",
    );
    let s2 = b2.size();
    assert_eq!(b2.liberties(at(s2, "A3")), 1);
    assert_eq!(b2.liberties(at(s2, "A1")), 1);
    assert_eq!(
        b2.play_unchecked(at(s2, "B3"), Color::Black),
        1,
        "edge capture"
    );
    assert!(b2.is_empty_at(at(s2, "A3")));
    assert_eq!(b2.liberties(at(s2, "B3")), 4);
    assert_eq!(b2.liberties(at(s2, "A4")), 3);
    assert_eq!(
        b2.play_unchecked(at(s2, "B1"), Color::Black),
        1,
        "corner capture"
    );
    assert!(b2.is_empty_at(at(s2, "A1")));
    assert_eq!(b2.liberties(at(s2, "B1")), 3);
    assert_eq!(b2.liberties(at(s2, "A2")), 3);
    assert_eq!(b2.captures().black, 2);
    assert_board(
        &b2,
        ". . . . .
         x . . . .
         . x . . .
         x . . . .
         . x . . .",
    );
}

#[test]
fn one_move_captures_four_chains() {
    let mut b = board(
        ". . x . .
         . x o x .
         x o . o x
         . x o x .
         . . x . .",
    );
    let s = b.size();
    let c3 = at(s, "C3");
    assert!(!b.is_suicide(c3, Color::Black));
    assert_eq!(
        b.removals_after(c3, Color::Black),
        Removals {
            captured: 4,
            lost: 0
        }
    );
    // For White the same point joins four chains in atari: five stones lost.
    assert!(b.is_suicide(c3, Color::White));
    assert_eq!(
        b.removals_after(c3, Color::White),
        Removals {
            captured: 0,
            lost: 5
        }
    );
    assert_eq!(b.hash_after(c3, Color::White), b.hash() ^ white_hash(&b));
    let predicted = b.hash_after(c3, Color::Black);
    assert_eq!(b.play_unchecked(c3, Color::Black), 4);
    assert_eq!(b.hash(), predicted);
    assert_board(
        &b,
        ". . x . .
         . x . x .
         x . x . x
         . x . x .
         . . x . .",
    );
    assert_eq!(b.captures().black, 4);
    assert_eq!(b.liberties(c3), 4);
    assert_eq!(b.chain_len(c3), 1);
    assert_eq!(b.ko_point(), None, "four stones captured: no ko");
}

#[test]
fn capture_by_a_stone_that_joins_three_chains() {
    // C2 takes the last liberty of the white pair D3-D2 and joins the black
    // chains C4-D4-C3, B2 and C1-D1 into one.
    let mut b = board(
        ". . . . .
         . . x x .
         . o x o x
         . x . o x
         . o x x .",
    );
    let s = b.size();
    let c2 = at(s, "C2");
    assert_eq!(b.liberties(at(s, "D3")), 1, "D2-D3 white chain in atari");
    assert_eq!(b.play_unchecked(c2, Color::Black), 2);
    assert_board(
        &b,
        ". . . . .
         . . x x .
         . o x . x
         . x x . x
         . o x x .",
    );
    // C4 D4 C3 C2 B2 C1 D1, with liberties C5 B4 D5 E4 D3 D2 A2 E1; checked
    // against a count from the stones too.
    let expected: usize = {
        let mut libs = std::collections::BTreeSet::new();
        for p in b.chain(c2).collect::<Vec<_>>() {
            for n in b.on_board_neighbors(p) {
                if b.is_empty_at(n) {
                    libs.insert(n);
                }
            }
        }
        libs.len()
    };
    assert_eq!(b.chain_len(c2), 7);
    assert_eq!(b.liberties(c2), expected);
    assert_eq!(expected, 8);
}

// ------------------------------------------------------- snapback, suicide

#[test]
fn snapback_takes_the_larger_group() {
    let mut game = game_from(
        ". . . . .
         . . . . .
         x x x x .
         o o o x .
         . . o x .",
        Color::Black,
        Rules::default(),
    );
    let s = game.size();
    // The throw-in is a self-atari, not a suicide.
    play_all(&mut game, &["B1"]);
    assert_eq!(game.board().liberties(at(s, "B1")), 1);
    play_all(&mut game, &["A1"]);
    assert_eq!(game.board().captures().white, 1);
    assert_eq!(
        game.board().ko_point(),
        None,
        "the capturing stone joined a chain"
    );
    assert_eq!(game.board().liberties(at(s, "A1")), 1);
    assert_eq!(game.board().chain_len(at(s, "A1")), 5);
    assert_eq!(game.legal(mv(s, "B1")), Ok(()));
    play_all(&mut game, &["B1"]);
    assert_eq!(game.board().captures().black, 5);
    assert_board(
        game.board(),
        ". . . . .
         . . . . .
         x x x x .
         . . . x .
         . x . x .",
    );
    assert_eq!(game.board().liberties(at(s, "B1")), 3);
}

#[test]
fn suicide_is_refused_next_to_a_move_that_only_looks_like_one() {
    let diagram = ". o . o x
                   o o o x .
                   x x x . .
                   . . . . .
                   . . . . .";
    let mut game = game_from(diagram, Color::Black, Rules::default());
    let s = game.size();
    // A5: no liberty and the white chain around it keeps C5.
    assert!(game.board().is_suicide(at(s, "A5"), Color::Black));
    assert_eq!(game.legal(mv(s, "A5")), Err(IllegalMove::Suicide));
    assert_eq!(game.play(mv(s, "A5")), Err(IllegalMove::Suicide));
    assert_eq!(
        game.board(),
        &board(diagram),
        "a refused move changes nothing"
    );
    // C5 is surrounded too, but it takes D5's last liberty.
    assert!(!game.board().is_suicide(at(s, "C5"), Color::Black));
    assert_eq!(game.legal(mv(s, "C5")), Ok(()));
    play_all(&mut game, &["C5"]);
    assert_eq!(game.board().captures().black, 1);
    assert!(game.board().is_empty_at(at(s, "D5")));
    assert_eq!(game.board().liberties(at(s, "C5")), 1);
    // Now A5 captures the four white stones whose last liberty it is.
    play_all(&mut game, &["E1"]);
    assert_eq!(game.legal(mv(s, "A5")), Ok(()));
    play_all(&mut game, &["A5"]);
    assert_eq!(game.board().captures().black, 5);
    assert_board(
        game.board(),
        "x . x . x
         . . . x .
         x x x . .
         . . . . .
         . . . . o",
    );
}

#[test]
fn suicide_rules() {
    // White's two-point eye space at A5 B5 with an outside liberty at A3.
    let diagram = ". . o x .
                   o o o x .
                   . x x x .
                   x x . . .
                   . . . . .";
    let start = board(diagram);
    let s = start.size();
    let run = |rules: Rules| {
        let mut game = Game::from_position(start.clone(), Color::Black, rules);
        play_all(&mut game, &["A5", "pass"]);
        game
    };
    // Forbidden: the second stone is suicide.
    let game = run(with_suicide(KoRule::Simple, SuicideRule::Forbidden));
    assert_eq!(
        game.board().removals_after(at(s, "B5"), Color::Black),
        Removals {
            captured: 0,
            lost: 2
        }
    );
    assert_eq!(game.legal(mv(s, "B5")), Err(IllegalMove::Suicide));
    // Multi-stone suicide allowed: the two stones come off, for White.
    for rules in [
        with_suicide(KoRule::Simple, SuicideRule::MultiStoneAllowed),
        with_suicide(KoRule::Simple, SuicideRule::AllAllowed),
        with_suicide(KoRule::SituationalSuperko, SuicideRule::MultiStoneAllowed),
    ] {
        let mut game = run(rules);
        assert_eq!(game.legal(mv(s, "B5")), Ok(()), "{rules}");
        play_all(&mut game, &["B5"]);
        assert_eq!(game.board().captures().white, 2);
        assert_eq!(game.board().captures().black, 0);
        assert_eq!(game.board().to_string(), start.to_string());
        assert_eq!(game.board().hash(), start.hash());
        assert_eq!(game.to_move(), Color::White);
        game.board().check_consistency().unwrap();
        // The white chain next to the removed stones got its liberties back.
        assert_eq!(game.board().liberties(at(s, "C5")), 3);
    }

    // A lone stone's suicide: Black at A1 between White's A2 and B1.
    let lone = ". . . . .
                . . . . .
                . . . . .
                o . . . .
                . o . . .";
    let lone_board = board(lone);
    let a1 = Move::Play(at(s, "A1"));
    let refused = Game::from_position(
        lone_board.clone(),
        Color::Black,
        with_suicide(KoRule::Simple, SuicideRule::MultiStoneAllowed),
    );
    assert_eq!(refused.legal(a1), Err(IllegalMove::Suicide));
    for ko in [KoRule::Simple, KoRule::SituationalSuperko] {
        let mut game = Game::from_position(
            lone_board.clone(),
            Color::Black,
            with_suicide(ko, SuicideRule::AllAllowed),
        );
        assert_eq!(game.legal(a1), Ok(()), "{ko}");
        game.play(a1).unwrap();
        assert!(game.board().is_empty_at(at(s, "A1")));
        assert_eq!(game.board().captures().white, 1);
        assert_eq!(game.board().hash(), lone_board.hash());
        assert_eq!(game.to_move(), Color::White);
    }
    // Under positional superko the lone suicide repeats the position.
    let positional = Game::from_position(
        lone_board,
        Color::Black,
        Rules::preset("tromp-taylor").unwrap(),
    );
    assert_eq!(positional.legal(a1), Err(IllegalMove::Superko));
}

// -------------------------------------------------------------------- ko

const KO: &str = ". . . . .
                  . x o . .
                  x o . o .
                  . x o . .
                  . . . . .";

#[test]
fn simple_ko_under_simple_and_default_rules() {
    for rules in [
        simple_ko(),
        Rules::default(),
        Rules::preset("japanese").unwrap(),
    ] {
        let mut game = game_from(KO, Color::Black, rules);
        let s = game.size();
        play_all(&mut game, &["C3"]);
        assert_eq!(game.board().captures().black, 1);
        assert_eq!(game.board().ko_point(), Some(at(s, "B3")));
        assert_eq!(game.legal(mv(s, "B3")), Err(IllegalMove::Ko), "{rules}");
        assert_eq!(game.play(mv(s, "B3")), Err(IllegalMove::Ko));
        // A ko threat and its answer; then the ko may be retaken.
        play_all(&mut game, &["E1", "E5"]);
        assert_eq!(game.board().ko_point(), None);
        assert_eq!(game.legal(mv(s, "B3")), Ok(()), "{rules}");
        play_all(&mut game, &["B3"]);
        assert_eq!(game.board().captures().white, 1);
        assert_eq!(game.board().ko_point(), Some(at(s, "C3")));
        assert_eq!(game.legal(mv(s, "C3")), Err(IllegalMove::Ko));
        // Passing also lifts the ban.
        play_all(&mut game, &["pass"]);
        play_all(&mut game, &["D1"]);
        assert_eq!(game.legal(mv(s, "C3")), Ok(()));
    }
}

#[test]
fn positional_and_situational_superko_differ_on_a_one_by_two_board() {
    let size = BoardSize::new(2, 1).unwrap();
    let (a1, b1) = (at(size, "A1"), at(size, "B1"));
    let run = |ko: KoRule| {
        let mut game = Game::new(size, with_suicide(ko, SuicideRule::MultiStoneAllowed));
        game.play(Move::Play(a1)).unwrap();
        game.play(Move::Pass).unwrap();
        // B1 fills the board: a two-stone suicide that recreates the empty
        // board, now with White to move.
        assert_eq!(
            game.board().removals_after(b1, Color::Black),
            Removals {
                captured: 0,
                lost: 2
            }
        );
        game
    };
    let mut situational = run(KoRule::SituationalSuperko);
    assert_eq!(situational.legal(Move::Play(b1)), Ok(()));
    situational.play(Move::Play(b1)).unwrap();
    assert_eq!(situational.board().empty_count(), 2);
    assert_eq!(situational.board().captures().white, 2);
    // Black at A1 again would bring back A1-with-White-to-move, which did occur.
    assert_eq!(
        situational.legal_as(Color::Black, Move::Play(a1)),
        Err(IllegalMove::Superko)
    );
    assert_eq!(situational.legal(Move::Play(a1)), Ok(()));
    let positional = run(KoRule::PositionalSuperko);
    assert_eq!(positional.legal(Move::Play(b1)), Err(IllegalMove::Superko));
    let simple = run(KoRule::Simple);
    assert_eq!(simple.legal(Move::Play(b1)), Ok(()));
}

#[test]
fn positional_and_situational_superko_differ_on_a_throw_in() {
    // Black throws two stones into White's two-point eye space; White passes;
    // the second stone is a two-stone suicide that brings back the starting
    // board — with White to move, which never happened before.
    let diagram = ". . o x .
                   o o o x .
                   . x x x .
                   x x . . .
                   . . . . .";
    for (rules, expected) in [
        (Rules::preset("new-zealand").unwrap(), Ok(())),
        (
            with_suicide(KoRule::PositionalSuperko, SuicideRule::MultiStoneAllowed),
            Err(IllegalMove::Superko),
        ),
        (
            Rules::preset("tromp-taylor").unwrap(),
            Err(IllegalMove::Superko),
        ),
        (
            with_suicide(KoRule::SituationalSuperko, SuicideRule::AllAllowed),
            Ok(()),
        ),
    ] {
        let mut game = game_from(diagram, Color::Black, rules);
        let s = game.size();
        play_all(&mut game, &["A5", "pass"]);
        assert_eq!(game.legal(mv(s, "B5")), expected, "{rules}");
        if expected.is_ok() {
            play_all(&mut game, &["B5"]);
            assert_eq!(game.board().hash(), board(diagram).hash());
            // Throwing in again would repeat A5-with-White-to-move.
            assert_eq!(
                game.legal_as(Color::Black, mv(s, "A5")),
                Err(IllegalMove::Superko)
            );
        }
    }
}

/// Three kos: at columns B, F and K, White holds B and K, Black holds F.
const TRIPLE_KO: &str = ". . . . . . . . . . .
                         x x x x x x x x x x x
                         x o x x x . x x x o x
                         o . o o o x o o o . o
                         o o o o o o o o o o o
                         . . . . . . . . . . .
                         . . . . . . . . . . .";

/// Black takes B, White takes F, Black takes K, White retakes B, Black
/// retakes F, and White's retake at K completes the cycle.
const TRIPLE_KO_CYCLE: [&str; 6] = ["B4", "F5", "K4", "B5", "F4", "K5"];

#[test]
fn triple_ko_cycles_under_simple_ko() {
    let start = board(TRIPLE_KO);
    let mut game = Game::from_position(start.clone(), Color::Black, simple_ko());
    // The boards of the first cycle: six distinct positions, then the start.
    let mut cycle = vec![start.to_string()];
    for round in 0..3u32 {
        for (k, &v) in TRIPLE_KO_CYCLE.iter().enumerate() {
            let next = game.size().parse_gtp(v).unwrap();
            assert_eq!(game.legal(next), Ok(()), "round {round} move {k} {v}");
            game.play(next).unwrap();
            assert_eq!(
                game.board().captures().black + game.board().captures().white,
                6 * round + k as u32 + 1
            );
            let now = game.board().to_string();
            if round == 0 {
                if k < 5 {
                    assert!(!cycle.contains(&now), "repeated early at {v}");
                }
                cycle.push(now);
            } else {
                assert_eq!(now, cycle[k + 1], "round {round} move {k}");
            }
        }
        assert_eq!(
            game.board().to_string(),
            start.to_string(),
            "back at the start"
        );
        assert_eq!(game.board().hash(), start.hash());
        assert_eq!(game.to_move(), Color::Black);
        let captures = game.board().captures();
        assert_eq!(
            (captures.black, captures.white),
            (3 * (round + 1), 3 * (round + 1))
        );
    }
}

#[test]
fn triple_ko_cycle_is_cut_by_superko() {
    for ko in [KoRule::PositionalSuperko, KoRule::SituationalSuperko] {
        let rules = Rules {
            ko,
            ..Rules::default()
        };
        let mut game = game_from(TRIPLE_KO, Color::Black, rules);
        play_all(&mut game, &TRIPLE_KO_CYCLE[..5]);
        let last = game.size().parse_gtp(TRIPLE_KO_CYCLE[5]).unwrap();
        assert_eq!(game.legal(last), Err(IllegalMove::Superko), "{ko}");
        assert!(!game.legal_moves().contains(&last));
        // Other moves are still fine, and after a move elsewhere by each side
        // the same retake makes a new position.
        assert_eq!(game.legal(Move::Pass), Ok(()));
        play_all(&mut game, &["A1", "A2"]);
        assert_eq!(game.legal(last), Ok(()), "{ko}");
    }
}

// -------------------------------------------------------------------- eyes

/// Points and whose eye each is by the book's definition (diagram, point,
/// owner).
const EYE_CASES: [(&str, &str, Option<Color>); 12] = [
    // Middle: one enemy diagonal is still an eye.
    (
        ". . . . .
             . x x x .
             . x . x .
             . x x o .
             . . . . .",
        "C3",
        Some(Color::Black),
    ),
    // Middle: one empty diagonal too.
    (
        ". . . . .
             . x x . .
             . x . x .
             . x x x .
             . . . . .",
        "C3",
        Some(Color::Black),
    ),
    // Middle: two enemy diagonals make a false eye.
    (
        ". . . . .
             . o x x .
             . x . x .
             . x x o .
             . . . . .",
        "C3",
        None,
    ),
    // Edge: both diagonals own.
    (
        ". . . . .
             . . . . .
             . . . . .
             . x x x .
             . x . x .",
        "C1",
        Some(Color::Black),
    ),
    // Edge: one enemy diagonal is too many.
    (
        ". . . . .
             . . . . .
             . . . . .
             . x x o .
             . x . x .",
        "C1",
        None,
    ),
    // Edge: one empty diagonal too.
    (
        ". . . . .
             . . . . .
             . . . . .
             . x x . .
             . x . x .",
        "C1",
        None,
    ),
    // Corner: the one diagonal own.
    (
        ". . . . .
             . . . . .
             . . . . .
             x x . . .
             . x . . .",
        "A1",
        Some(Color::Black),
    ),
    // Corner: the diagonal is the enemy's.
    (
        ". . . . .
             . . . . .
             . . . . .
             x o . . .
             . x . . .",
        "A1",
        None,
    ),
    // An empty neighbour: not an eye for anybody.
    (
        ". . . . .
             . x x x .
             . x . x .
             . x . x .
             . . . . .",
        "C3",
        None,
    ),
    // White's eye on the right edge.
    (
        ". . . . .
             . . . o o
             . . . o .
             . . . o o
             . . . . .",
        "E3",
        Some(Color::White),
    ),
    // White's eye in the top right corner.
    (
        ". . . o .
             . . . o o
             . . . . .
             . . . . .
             . . . . .",
        "E5",
        Some(Color::White),
    ),
    // A stone is never an eye.
    (
        ". . . . .
             . x x x .
             . x x x .
             . x x x .
             . . . . .",
        "C3",
        None,
    ),
];

#[test]
fn eyes_by_the_books_definition() {
    for (k, (diagram, vertex, owner)) in EYE_CASES.iter().enumerate() {
        let b = board(diagram);
        let p = at(b.size(), vertex);
        for color in Color::ALL {
            assert_eq!(
                b.is_point_an_eye(p, color),
                *owner == Some(color),
                "case {k}: {vertex} for {color}\n{b}"
            );
        }
    }
}

#[test]
fn real_eyes_by_the_diagonal_rule() {
    // (diagram, point, the book's owner, the real eye's owner)
    let cases: [(&str, &str, Option<Color>, Option<Color>); 8] = [
        // The chain around A1 is in atari: White captures there, so it is
        // the book's eye but no real one.
        (
            ". . . . .
             . . . . .
             o o . . .
             x x o . .
             . x o . .",
            "A1",
            Some(Color::Black),
            None,
        ),
        // Two eyes that touch diagonally, B1 and A2 here: the book's test
        // counts neither, since each has the other as an empty diagonal.
        (
            ". . . . .
             . . . . .
             x x . . .
             . x x . .
             x . x . .",
            "B1",
            None,
            Some(Color::Black),
        ),
        (
            ". . . . .
             . . . . .
             x x . . .
             . x x . .
             x . x . .",
            "A2",
            None,
            Some(Color::Black),
        ),
        // Middle: an empty and an enemy diagonal.
        (
            ". . . . .
             . x x . .
             . x . x .
             . x x o .
             . . . . .",
            "C3",
            None,
            Some(Color::Black),
        ),
        // Middle: two enemy diagonals make a false eye under both.
        (
            ". . . . .
             . o x x .
             . x . x .
             . x x o .
             . . . . .",
            "C3",
            None,
            None,
        ),
        // Edge: an empty diagonal.
        (
            ". . . . .
             . . . . .
             . . . . .
             . x x . .
             . x . x .",
            "C1",
            None,
            Some(Color::Black),
        ),
        // Edge: an enemy diagonal.
        (
            ". . . . .
             . . . . .
             . . . . .
             . x x o .
             . x . x .",
            "C1",
            None,
            None,
        ),
        // Corner: an empty diagonal.
        (
            ". . . . .
             . . . . .
             . . . . .
             x . . . .
             . x . . .",
            "A1",
            None,
            Some(Color::Black),
        ),
    ];
    for (k, (diagram, vertex, book, real)) in cases.iter().enumerate() {
        let b = board(diagram);
        let p = at(b.size(), vertex);
        for color in Color::ALL {
            assert_eq!(
                b.is_point_an_eye(p, color),
                *book == Some(color),
                "case {k}: book eye at {vertex} for {color}\n{b}"
            );
            assert_eq!(
                b.is_eye(p, color, EyeTest::Book),
                *book == Some(color),
                "case {k}: book eye at {vertex} for {color}\n{b}"
            );
            assert_eq!(
                b.is_real_eye(p, color),
                *real == Some(color),
                "case {k}: real eye at {vertex} for {color}\n{b}"
            );
            assert_eq!(
                b.is_eye(p, color, EyeTest::Real),
                *real == Some(color),
                "case {k}: real eye at {vertex} for {color}\n{b}"
            );
        }
    }
}

#[test]
fn eyes_on_the_smallest_boards() {
    // 1×1: no neighbours and no diagonals, so an empty 1×1 board is vacuously
    // an eye for both colours under the definition.
    let one = Board::new(BoardSize::square(1).unwrap());
    let p = at(one.size(), "A1");
    assert!(one.is_point_an_eye(p, Color::Black));
    assert!(one.is_point_an_eye(p, Color::White));
    // 1×3 with black at B1: A1 and C1 have no diagonals on the board.
    let line = board("o . .").size();
    let mut b = Board::new(line);
    b.play_unchecked(at(line, "B1"), Color::Black);
    assert!(b.is_point_an_eye(at(line, "A1"), Color::Black));
    assert!(b.is_point_an_eye(at(line, "C1"), Color::Black));
    assert!(!b.is_point_an_eye(at(line, "A1"), Color::White));
}

// ---------------------------------------------------------------- handicap

#[test]
fn fixed_handicap_on_nineteen_follows_the_gtp_table() {
    let size = BoardSize::square(19).unwrap();
    let table = [
        (2, "D4 Q16"),
        (3, "D4 Q16 D16"),
        (4, "D4 Q16 D16 Q4"),
        (5, "D4 Q16 D16 Q4 K10"),
        (6, "D4 Q16 D16 Q4 D10 Q10"),
        (7, "D4 Q16 D16 Q4 D10 Q10 K10"),
        (8, "D4 Q16 D16 Q4 D10 Q10 K4 K16"),
        (9, "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10"),
    ];
    for (stones, expected) in table {
        let game = Game::with_handicap(size, Rules::default(), stones).unwrap();
        assert_eq!(game.to_move(), Color::White, "{stones}");
        assert_eq!(game.handicap(), stones);
        assert_eq!(game.turn_count(), 0);
        let board = game.board();
        assert_eq!(board.stone_count(Color::Black), stones);
        assert_eq!(board.stone_count(Color::White), 0);
        for v in expected.split(' ') {
            assert_eq!(
                board.stone(at(size, v)),
                Some(Color::Black),
                "{stones}: {v}"
            );
        }
        let names: Vec<String> = fixed_handicap_points(size, stones)
            .unwrap()
            .into_iter()
            .map(|p| size.gtp(Move::Play(p)))
            .collect();
        assert_eq!(names.join(" "), expected);
        board.check_consistency().unwrap();
        assert_eq!(game.initial_board(), board);
    }
}

#[test]
fn fixed_handicap_on_smaller_boards_and_refusals() {
    let square = |n| BoardSize::square(n).unwrap();
    let nine = Game::with_handicap(square(9), Rules::default(), 5).unwrap();
    for v in ["C3", "G7", "C7", "G3", "E5"] {
        assert_eq!(
            nine.board().stone(at(square(9), v)),
            Some(Color::Black),
            "{v}"
        );
    }
    let thirteen = Game::with_handicap(square(13), Rules::default(), 4).unwrap();
    for v in ["D4", "K10", "D10", "K4"] {
        assert_eq!(
            thirteen.board().stone(at(square(13), v)),
            Some(Color::Black),
            "{v}"
        );
    }
    for (side, max) in [
        (9, 9),
        (13, 9),
        (19, 9),
        (7, 4),
        (8, 4),
        (10, 4),
        (6, 0),
        (5, 0),
    ] {
        for stones in 1..=10 {
            let game = Game::with_handicap(square(side), Rules::default(), stones);
            let allowed = stones >= 2 && stones <= max;
            assert_eq!(game.is_ok(), allowed, "{side}x{side} with {stones}");
            match game {
                Ok(game) => {
                    assert_eq!(game.board().stone_count(Color::Black), stones);
                    assert_eq!(game.to_move(), Color::White);
                }
                Err(e) => assert!(matches!(e, SetupError::Handicap(_)), "{e:?}"),
            }
        }
    }
    // Rectangles have no fixed handicap; zero stones is an even game.
    assert!(Game::with_handicap(BoardSize::new(9, 11).unwrap(), Rules::default(), 2).is_err());
    let even = Game::with_handicap(square(19), Rules::default(), 0).unwrap();
    assert_eq!(even.to_move(), Color::Black);
    assert_eq!(even.board().empty_count(), 361);
    assert_eq!(even.handicap(), 0);
}

#[test]
fn free_handicap() {
    let size = BoardSize::square(9).unwrap();
    let points = [at(size, "A1"), at(size, "E5"), at(size, "J9")];
    let game = Game::with_free_handicap(size, Rules::default(), &points).unwrap();
    assert_eq!(game.to_move(), Color::White);
    assert_eq!(game.handicap(), 3);
    for p in points {
        assert_eq!(game.board().stone(p), Some(Color::Black));
    }
    assert_eq!(game.board().stone_count(Color::Black), 3);
    assert!(Game::with_free_handicap(size, Rules::default(), &[]).is_err());
    let repeated = [at(size, "E5"), at(size, "E5")];
    assert_eq!(
        Game::with_free_handicap(size, Rules::default(), &repeated).unwrap_err(),
        SetupError::Occupied(at(size, "E5"))
    );
    let off = BoardSize::square(19).unwrap().point(18, 18).unwrap();
    assert!(matches!(
        Game::with_free_handicap(size, Rules::default(), &[off]),
        Err(SetupError::OffBoard(_))
    ));
    // A whole board of black stones would have no liberty.
    let all: Vec<Point> = size.points().collect();
    assert!(Game::with_free_handicap(size, Rules::default(), &all).is_err());
}

// ----------------------------------------------------------------- scoring

/// Black's area 18, White's 7: B+3.5 with komi 7.5.
const FINISHED: &str = ". . x o .
                        . . x o .
                        . . . x o
                        . . . x o
                        . . . x o";

#[test]
fn area_scoring_of_a_finished_position() {
    let mut game = game_from(FINISHED, Color::Black, Rules::default());
    play_all(&mut game, &["pass", "pass"]);
    assert!(game.is_over());
    let score = game.score();
    assert_eq!((score.black, score.white), (18.0, 14.5));
    assert_eq!(score.winner(), Some(Color::Black));
    assert_eq!(game.outcome().to_string(), "B+3.5");
    assert_eq!(game.outcome().winner(), Some(Color::Black));
    // More komi turns it round.
    game.set_rules(Rules::default().with_komi(12.5));
    assert_eq!(game.outcome().to_string(), "W+1.5");
}

#[test]
fn territory_scoring_with_captures_and_dead_stones() {
    // White's B2 is in atari and A5 is dead inside Black's area.
    let diagram = "o . x o .
                   . . x o .
                   . x . x o
                   x o x x o
                   . . . x o";
    let mut game = game_from(diagram, Color::Black, Rules::preset("japanese").unwrap());
    let s = game.size();
    play_all(&mut game, &["B1", "pass", "pass"]);
    assert_eq!(game.board().captures().black, 1);
    assert!(game.is_over());
    let dead = [at(s, "A5")];
    // Black: territory A5 B5 A4 B4 A3, C3, B2, A1, C1 = 9, plus 1 captured and
    // 1 dead = 11. White: E5 E4 = 2, plus komi 6.5.
    let score = game.score_with_dead(&dead);
    assert_eq!((score.black, score.white), (11.0, 8.5));
    // Without the dead stone, A5's region touches both colours: Black has
    // C3 B2 A1 C1 and the capture, White E5 E4.
    let alive = game.score();
    assert_eq!((alive.black, alive.white), (5.0, 8.5));
    assert_eq!(game.outcome().to_string(), "W+3.5");
    // The same under area scoring: stones count, captures do not.
    game.set_rules(Rules::default());
    let area = game.score_with_dead(&dead);
    assert_eq!((area.black, area.white), (18.0, 14.5));
    let area_alive = game.score();
    assert_eq!((area_alive.black, area_alive.white), (13.0, 15.5));
    // Naming an empty point or a point twice as dead changes nothing.
    let noisy = [at(s, "A5"), at(s, "A5"), at(s, "B5")];
    assert_eq!(game.score_with_dead(&noisy), area);
}

#[test]
fn a_draw_with_integer_komi_prints_zero() {
    let game = game_from(
        ". x o . .
         . x o . .
         . . x o .
         . . x o .
         . . x o .",
        Color::Black,
        Rules::default().with_komi(1.0),
    );
    let score = game.score();
    assert_eq!((score.black, score.white), (13.0, 13.0));
    assert_eq!(score.winner(), None);
    assert_eq!(game.outcome().winner(), None);
    assert_eq!(game.outcome().to_string(), "0");
    let territory = game_from(
        ". x o . .
         . x o . .
         . . x o .
         . . x o .
         . . x o .",
        Color::Black,
        Rules {
            scoring: Scoring::Territory,
            komi: 1.0,
            ..Rules::default()
        },
    );
    // Territory: Black 8, White 7 + 1.
    assert_eq!(territory.outcome().to_string(), "0");
}

#[test]
fn integer_margins_print_without_a_fraction() {
    let game = game_from(FINISHED, Color::Black, Rules::default().with_komi(0.0));
    assert_eq!(game.outcome().to_string(), "B+11");
}

#[test]
fn resignation() {
    let size = BoardSize::square(9).unwrap();
    let mut game = Game::new(size, Rules::default());
    play_all(&mut game, &["E5"]);
    game.play(Move::Pass).unwrap();
    assert_eq!(game.to_move(), Color::Black);
    game.resign().unwrap();
    assert!(game.is_over());
    assert_eq!(game.resigned(), Some(Color::Black));
    assert_eq!(game.outcome().to_string(), "W+R");
    assert_eq!(game.outcome().winner(), Some(Color::White));
    assert_eq!(game.legal(Move::Pass), Err(IllegalMove::GameOver));
    assert_eq!(game.resign(), Err(IllegalMove::GameOver));
    assert_eq!(game.undo(), Some((Color::Black, Action::Resign)));
    assert!(!game.is_over());
    game.resign_as(Color::White).unwrap();
    assert_eq!(game.outcome().to_string(), "B+R");
}

#[test]
fn dame_and_seki_count_for_nobody() {
    // Dame: column C touches both colours.
    let dame = board(
        ". x . o .
         . x . o .
         . x . o .
         . x . o .
         . x . o .",
    );
    let own = ownership(&dame, &[]);
    let size = dame.size();
    for (k, p) in size.points().enumerate() {
        let (col, _) = size.col_row(p);
        let expected = match col {
            0 | 1 => Some(Color::Black),
            2 => None,
            _ => Some(Color::White),
        };
        assert_eq!(own.owner[k], expected, "{}", size.gtp(Move::Play(p)));
    }
    assert_eq!((own.territory.black, own.territory.white), (5, 5));
    let game = Game::from_position(dame, Color::Black, Rules::default().with_komi(0.0));
    assert_eq!(game.outcome().to_string(), "0");

    // Seki: each chain has one eye (A3 for Black, E3 for White) and shares C3;
    // whoever fills C3 is captured.
    let seki = ". x . o .
                x x x o o
                x x x o o";
    let game = game_from(seki, Color::Black, Rules::default().with_komi(0.0));
    let s = game.size();
    assert_eq!(game.board().liberties(at(s, "A2")), 2);
    assert_eq!(game.board().liberties(at(s, "E2")), 2);
    let own = ownership(game.board(), &[]);
    let c3 = size_index(s, "C3");
    assert_eq!(own.owner[c3], None);
    assert_eq!(own.owner[size_index(s, "A3")], Some(Color::Black));
    assert_eq!(own.owner[size_index(s, "E3")], Some(Color::White));
    let score = game.score();
    assert_eq!((score.black, score.white), (8.0, 6.0));
    assert_eq!(game.outcome().to_string(), "B+2");
    // It is a seki: filling the shared liberty puts the filler in atari.
    for color in Color::ALL {
        let mut b = game.board().clone();
        b.play_unchecked(at(s, "C3"), color);
        assert_eq!(b.liberties(at(s, "C3")), 1, "{color}");
        assert_eq!(b.captures(), game.board().captures());
    }
}

/// The index of a vertex in `BoardSize::points` order.
fn size_index(size: BoardSize, vertex: &str) -> usize {
    let p = at(size, vertex);
    size.points().position(|q| q == p).unwrap()
}

// -------------------------------------------------------------------- game

#[test]
fn illegal_move_reasons() {
    let size = BoardSize::square(9).unwrap();
    let mut game = Game::new(size, Rules::default());
    play_all(&mut game, &["E5"]);
    assert_eq!(game.legal(mv(size, "E5")), Err(IllegalMove::Occupied));
    assert_eq!(game.play(mv(size, "E5")), Err(IllegalMove::Occupied));
    let far = BoardSize::square(19).unwrap().point(18, 18).unwrap();
    assert!(!size.contains(far));
    assert_eq!(game.legal(Move::Play(far)), Err(IllegalMove::OffBoard));
    assert_eq!(game.play(Move::Play(far)), Err(IllegalMove::OffBoard));
    assert_eq!(game.turn_count(), 1);
    assert_eq!(game.to_move(), Color::White);
    play_all(&mut game, &["pass", "pass"]);
    assert!(game.is_over());
    assert_eq!(game.consecutive_passes(), 2);
    for mv in [mv(size, "A1"), Move::Pass, Move::Play(far)] {
        assert_eq!(game.legal(mv), Err(IllegalMove::GameOver));
    }
    assert!(game.legal_moves().is_empty());
    // Taking back the second pass reopens the game.
    assert_eq!(game.undo(), Some((Color::Black, Action::Move(Move::Pass))));
    assert!(!game.is_over());
    assert_eq!(game.consecutive_passes(), 1);
    assert_eq!(game.legal(mv(size, "A1")), Ok(()));
    // A pass between two moves does not end the game.
    let mut game = Game::new(size, Rules::default());
    play_all(&mut game, &["pass", "E5", "pass"]);
    assert!(!game.is_over());
}

#[test]
fn undo_back_to_the_start() {
    let start = board(KO);
    let s = start.size();
    let mut game = Game::from_position(start.clone(), Color::White, Rules::default());
    let moves = ["A1", "C3", "pass", "E1", "B3", "E5"];
    let mut boards = vec![game.board().clone()];
    let mut sides = vec![game.to_move()];
    // White A1, Black C3 takes the ko, White passes, …
    for v in moves {
        play_all(&mut game, &[v]);
        boards.push(game.board().clone());
        sides.push(game.to_move());
    }
    assert_eq!(game.turn_count(), moves.len());
    assert_eq!(game.last_move(), Some((Color::Black, mv(s, "E5"))));
    for k in (0..moves.len()).rev() {
        let (color, action) = game.undo().unwrap();
        assert_eq!(color, sides[k]);
        assert_eq!(action, Action::Move(s.parse_gtp(moves[k]).unwrap()));
        assert_eq!(game.board(), &boards[k]);
        assert_eq!(game.to_move(), sides[k]);
        game.board().check_consistency().unwrap();
    }
    assert_eq!(game.undo(), None);
    assert_eq!(game.board(), &start);
    assert_eq!(game.to_move(), Color::White);
    // After undoing, the ko capture is legal again and retaking is a ko.
    play_all(&mut game, &["A1", "C3"]);
    assert_eq!(game.legal(mv(s, "B3")), Err(IllegalMove::Ko));
}

#[test]
fn legal_moves_include_pass() {
    let size = BoardSize::square(9).unwrap();
    let mut game = Game::new(size, Rules::default());
    let moves = game.legal_moves();
    assert_eq!(moves.len(), 82);
    assert_eq!(moves.last(), Some(&Move::Pass));
    play_all(&mut game, &["E5"]);
    let moves = game.legal_moves();
    assert_eq!(moves.len(), 81);
    assert!(!moves.contains(&mv(size, "E5")));
    assert!(moves.contains(&Move::Pass));
    // The suicide point of the earlier diagram is not listed; the capture is.
    let game = game_from(
        ". o . o x
         o o o x .
         x x x . .
         . . . . .
         . . . . .",
        Color::Black,
        Rules::default(),
    );
    let s = game.size();
    let moves = game.legal_moves();
    assert!(!moves.contains(&mv(s, "A5")));
    assert!(moves.contains(&mv(s, "C5")));
    // 15 empty points, A5 refused, and the pass.
    assert_eq!(moves.len(), 14 + 1);
}

#[test]
fn ko_point_does_not_bind_the_player_who_took_the_ko() {
    // GTP lets one colour play twice. After Black takes the ko, Black filling
    // the ko point is no retake: it connects and must be legal.
    let mut game = game_from(KO, Color::Black, Rules::default());
    let s = game.size();
    play_all(&mut game, &["C3"]);
    assert_eq!(game.board().ko_point(), Some(at(s, "B3")));
    assert_eq!(
        game.legal_as(Color::White, mv(s, "B3")),
        Err(IllegalMove::Ko)
    );
    assert_eq!(game.legal_as(Color::Black, mv(s, "B3")), Ok(()));
}

// ---------------------------------------------------------------- diagrams

#[test]
fn diagrams_read_and_write() {
    let b = board(
        "x o .
         . X O
         + . .",
    );
    let s = b.size();
    assert_eq!((s.width(), s.height()), (3, 3));
    assert_eq!(b.stone(at(s, "A3")), Some(Color::Black));
    assert_eq!(b.stone(at(s, "B3")), Some(Color::White));
    assert_eq!(b.stone(at(s, "B2")), Some(Color::Black));
    assert_eq!(b.stone(at(s, "C2")), Some(Color::White));
    assert_eq!(b.to_string(), "xo.\n.xo\n...\n");
    assert_eq!(Board::from_ascii(&b.to_string()).unwrap(), b);
    assert_eq!(b.captures().black + b.captures().white, 0);
    assert_eq!(b.ko_point(), None);
    let rect = board("x . . . . . .\n. . . . . . o");
    assert_eq!((rect.size().width(), rect.size().height()), (7, 2));
    assert_eq!(rect.stone(at(rect.size(), "G1")), Some(Color::White));
    // Refusals.
    assert!(matches!(
        Board::from_ascii("x o"),
        Err(SetupError::NoLiberties(_))
    ));
    assert!(matches!(
        Board::from_ascii(". x .\nx o x\n. x ."),
        Err(SetupError::NoLiberties(_))
    ));
    assert!(matches!(
        Board::from_ascii("x o\nx"),
        Err(SetupError::Diagram(_))
    ));
    assert!(matches!(
        Board::from_ascii("x ? ."),
        Err(SetupError::Diagram(_))
    ));
    assert!(matches!(Board::from_ascii(""), Err(SetupError::Size(_))));
    assert!(matches!(
        Board::from_ascii(&".".repeat(26)),
        Err(SetupError::Size(_))
    ));
}

// ------------------------------------------------------------ vertex text

#[test]
fn vertex_text_through_the_public_api() {
    let s19 = BoardSize::square(19).unwrap();
    let d4 = s19.point(3, 3).unwrap();
    assert_eq!(s19.parse_gtp("D4"), Ok(Move::Play(d4)));
    assert_eq!(s19.parse_gtp("d4"), Ok(Move::Play(d4)));
    assert_eq!(s19.parse_gtp("pass"), Ok(Move::Pass));
    assert_eq!(s19.parse_gtp("Pass"), Ok(Move::Pass));
    assert_eq!(s19.gtp(Move::Play(d4)), "D4");
    assert_eq!(s19.gtp(Move::Pass), "pass");
    assert_eq!(s19.gtp(Move::Play(s19.point(8, 9).unwrap())), "J10");
    let kind = |t: &str| s19.parse_gtp(t).unwrap_err().kind;
    assert_eq!(kind("I5"), VertexErrorKind::LetterI);
    assert_eq!(kind("Z1"), VertexErrorKind::OffBoard(s19));
    assert_eq!(kind("A26"), VertexErrorKind::OffBoard(s19));
    assert_eq!(kind("A20"), VertexErrorKind::OffBoard(s19));
    assert_eq!(kind("A0"), VertexErrorKind::Syntax);
    assert_eq!(kind(""), VertexErrorKind::Empty);
    let e = s19.parse_gtp("I5").unwrap_err();
    assert_eq!(e.text, "I5");
    assert!(e.to_string().contains("I5"));
    // SGF: column then row from the top.
    assert_eq!(
        s19.parse_sgf("dd"),
        Ok(Move::Play(s19.point(3, 15).unwrap()))
    );
    assert_eq!(s19.parse_sgf("dp"), Ok(Move::Play(d4)));
    assert_eq!(s19.parse_sgf(""), Ok(Move::Pass));
    assert_eq!(s19.sgf(Move::Play(d4)), "dp");
    assert_eq!(s19.sgf(Move::Pass), "");
    assert!(s19.parse_sgf("zz").is_err());
    // On a 7x11 rectangle the letters run to G and the rows to 11.
    let rect = BoardSize::new(7, 11).unwrap();
    assert_eq!(
        rect.parse_gtp("G11"),
        Ok(Move::Play(rect.point(6, 10).unwrap()))
    );
    assert_eq!(
        rect.parse_gtp("H1").unwrap_err().kind,
        VertexErrorKind::OffBoard(rect)
    );
    assert_eq!(
        rect.parse_sgf("ga"),
        Ok(Move::Play(rect.point(6, 10).unwrap()))
    );
    // Round trip over every point of a game's legal moves.
    let game = Game::new(rect, Rules::default());
    for mv in game.legal_moves() {
        assert_eq!(rect.parse_gtp(&rect.gtp(mv)), Ok(mv));
        assert_eq!(rect.parse_sgf(&rect.sgf(mv)), Ok(mv));
    }
}
