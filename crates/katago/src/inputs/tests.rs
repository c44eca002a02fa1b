//! The features as data: positions drawn in ASCII, the planes expected
//! drawn the same way (`x` for 1, `.` for 0, the whole input grid).

use super::*;
use tengen_core::{Board, BoardSize, Color, Game, KoRule, Rules};

fn rules(text: &str) -> Rules {
    text.parse().unwrap()
}

/// KataGo's `rules chinese`, which tengen's `chinese` is.
fn chinese() -> Rules {
    Rules::preset("chinese").unwrap()
}

fn position(diagram: &str, to_move: Color, rules: Rules) -> Game {
    Game::from_position(Board::from_ascii(diagram).unwrap(), to_move, rules)
}

/// Plays `"B C3, W pass, ..."` (either colour may move).
fn play(game: &mut Game, moves: &str) {
    for item in moves.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let (color, vertex) = item.split_once(' ').unwrap();
        let color = Color::parse(color).unwrap();
        let mv = game.size().parse_gtp(vertex).unwrap();
        game.play_as(color, mv)
            .unwrap_or_else(|e| panic!("{item}: {e}"));
    }
}

struct Inputs {
    nn_x: usize,
    nn_y: usize,
    spatial: Vec<f32>,
    global: Vec<f32>,
}

impl Inputs {
    fn of(
        game: &Game,
        rules: &KataRules,
        options: &InputOptions,
        nn_x: usize,
        nn_y: usize,
    ) -> Inputs {
        // Garbage first: fill must overwrite every value.
        let mut spatial = vec![7.0; SPATIAL_FEATURES * nn_x * nn_y];
        let mut global = vec![7.0; GLOBAL_FEATURES];
        fill(game, rules, options, nn_x, nn_y, &mut spatial, &mut global).unwrap();
        Inputs {
            nn_x,
            nn_y,
            spatial,
            global,
        }
    }

    fn plane(&self, feature: usize) -> String {
        let plane = &self.spatial[feature * self.nn_x * self.nn_y..][..self.nn_x * self.nn_y];
        let mut out = String::new();
        for row in plane.chunks(self.nn_x) {
            for &v in row {
                out.push(if v == 1.0 {
                    'x'
                } else if v == 0.0 {
                    '.'
                } else {
                    '?'
                });
            }
            out.push('\n');
        }
        out
    }

    #[track_caller]
    fn check(&self, feature: usize, expected: &str) {
        assert_eq!(
            self.plane(feature),
            normalize(expected),
            "feature {feature}:\n{}",
            self.plane(feature)
        );
    }

    #[track_caller]
    fn check_empty(&self, features: &[usize]) {
        for &f in features {
            assert!(
                self.spatial[f * self.nn_x * self.nn_y..][..self.nn_x * self.nn_y]
                    .iter()
                    .all(|&v| v == 0.0),
                "feature {f} should be empty:\n{}",
                self.plane(f)
            );
        }
    }
}

fn normalize(diagram: &str) -> String {
    let mut out = String::new();
    for line in diagram.lines() {
        let line: String = line.chars().filter(|c| !c.is_whitespace()).collect();
        if !line.is_empty() {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out
}

/// Inputs with the game's own rules mapped, default options, the grid the
/// board's size.
fn inputs(game: &Game) -> Inputs {
    let size = game.size();
    let rules = KataRules::from_rules(game.rules()).unwrap();
    Inputs::of(
        game,
        &rules,
        &InputOptions::default(),
        size.width(),
        size.height(),
    )
}

const STONES: &str = "
    x x . o . . .
    o o . o . . .
    . . . . . o .
    . . . . o x .
    . . . . . . .
";

#[test]
fn stones_and_liberties() {
    let game = position(STONES, Color::Black, chinese());
    let i = inputs(&game);
    i.check(
        0,
        "xxxxxxx xxxxxxx xxxxxxx xxxxxxx xxxxxxx"
            .replace(' ', "\n")
            .as_str(),
    );
    i.check(
        1,
        "xx..... ....... ....... .....x. ......."
            .replace(' ', "\n")
            .as_str(),
    );
    i.check(
        2,
        "...x... xx.x... .....x. ....x.. ......."
            .replace(' ', "\n")
            .as_str(),
    );
    // Black's corner pair has one liberty; the chains at the right two.
    i.check(
        3,
        "xx..... ....... ....... ....... ......."
            .replace(' ', "\n")
            .as_str(),
    );
    i.check(
        4,
        "....... ....... ....... .....x. ......."
            .replace(' ', "\n")
            .as_str(),
    );
    i.check(
        5,
        "....... xx..... .....x. ....x.. ......."
            .replace(' ', "\n")
            .as_str(),
    );
    // White to move: the colours swap, the liberties do not.
    let white = inputs(&position(STONES, Color::White, chinese()));
    assert_eq!(white.plane(1), i.plane(2));
    assert_eq!(white.plane(2), i.plane(1));
    for f in [0, 3, 4, 5] {
        assert_eq!(white.plane(f), i.plane(f));
    }
    i.check_empty(&[6, 7, 8, 9, 10, 11, 12, 13, 20, 21]);
}

#[test]
fn board_smaller_than_the_grid_is_padded_with_zeros() {
    let game = position(STONES, Color::Black, chinese());
    let rules = KataRules::from_rules(game.rules()).unwrap();
    let small = inputs(&game);
    let big = Inputs::of(&game, &rules, &InputOptions::default(), 9, 8);
    big.check(
        0,
        "
        xxxxxxx..
        xxxxxxx..
        xxxxxxx..
        xxxxxxx..
        xxxxxxx..
        .........
        .........
        .........
        ",
    );
    for f in 0..SPATIAL_FEATURES {
        let expected: String = small
            .plane(f)
            .lines()
            .map(|l| format!("{l}..\n"))
            .chain(std::iter::repeat_n(".........\n".to_string(), 3))
            .collect();
        assert_eq!(big.plane(f), expected, "feature {f}");
    }
    assert_eq!(big.global, small.global);
}

#[test]
fn simple_ko_point() {
    let mut game = position(
        "
        . x o .
        x o . o
        . x o .
        . . . .
        ",
        Color::Black,
        chinese(),
    );
    play(&mut game, "B C3");
    let i = inputs(&game);
    i.check(
        6,
        ". . . .  . x . .  . . . .  . . . ."
            .replace("  ", "\n")
            .as_str(),
    );
    i.check(
        9,
        ". . . .  . . x .  . . . .  . . . ."
            .replace("  ", "\n")
            .as_str(),
    );
    // A pass lifts the ban.
    play(&mut game, "W pass");
    inputs(&game).check_empty(&[6]);
}

/// Three kos: after five captures, White retaking the middle ko would bring
/// back the starting position.
const TRIPLE_KO: &str = "
    . x o .
    x o . o
    . x o .
    . . . .
    . x o .
    x o . o
    . x o .
    . . . .
    . x o .
    x . x o
    . x o .
";

#[test]
fn superko_banned_point() {
    for (ko, banned) in [
        (KoRule::Simple, false),
        (KoRule::PositionalSuperko, true),
        (KoRule::SituationalSuperko, true),
    ] {
        let mut game = position(TRIPLE_KO, Color::Black, Rules { ko, ..chinese() });
        play(&mut game, "B C10, W B2, B C6, W B10, B C2");
        let i = inputs(&game);
        let middle = if banned { ".x.." } else { "...." };
        i.check(
            6,
            &format!("....\n....\n....\n....\n....\n{middle}\n....\n....\n....\n.x..\n....\n"),
        );
        // 4x11: a non-square board.
        assert_eq!(i.plane(0).lines().count(), 11);
        let expected_ko = match ko {
            KoRule::Simple => (0.0, 0.0),
            KoRule::PositionalSuperko => (1.0, 0.5),
            KoRule::SituationalSuperko => (1.0, -0.5),
        };
        assert_eq!((i.global[6], i.global[7]), expected_ko);
    }
}

#[test]
fn last_five_moves_with_a_pass() {
    let mut game = Game::new(BoardSize::square(5).unwrap(), chinese());
    play(&mut game, "B A1, W B1, B pass, W C1, B D1, W E1");
    // Black to move: 1 ago White E1, 2 ago Black D1, 3 ago White C1, 4 ago
    // Black's pass, 5 ago White B1.
    let i = inputs(&game);
    i.check(
        9,
        ". . . . .  . . . . .  . . . . .  . . . . .  . . . . x"
            .replace("  ", "\n")
            .as_str(),
    );
    i.check(
        10,
        ". . . . .  . . . . .  . . . . .  . . . . .  . . . x ."
            .replace("  ", "\n")
            .as_str(),
    );
    i.check(
        11,
        ". . . . .  . . . . .  . . . . .  . . . . .  . . x . ."
            .replace("  ", "\n")
            .as_str(),
    );
    i.check_empty(&[12]);
    i.check(
        13,
        ". . . . .  . . . . .  . . . . .  . . . . .  . x . . ."
            .replace("  ", "\n")
            .as_str(),
    );
    assert_eq!(&i.global[0..5], &[0.0, 0.0, 0.0, 1.0, 0.0]);
    assert_eq!(i.global[14], 0.0);
}

#[test]
fn history_stops_where_the_moves_stop_alternating() {
    let mut game = Game::new(BoardSize::square(5).unwrap(), chinese());
    play(&mut game, "B A1, W B1, W C1");
    // Black to move: White's C1 was 1 ago; 2 ago should be Black's, but it
    // is White's B1, so the walk stops there.
    let i = inputs(&game);
    i.check(
        9,
        ". . . . .  . . . . .  . . . . .  . . . . .  . . x . ."
            .replace("  ", "\n")
            .as_str(),
    );
    i.check_empty(&[10, 11, 12, 13]);
    // From White's side the last move is its own: nothing at all.
    let white = inputs(&game.with_mover(Color::White));
    white.check_empty(&[9, 10, 11, 12, 13]);
}

/// White to capture Black's stone in a ladder running down and right.
const LADDER: &str = "
    . . . . . . . . .
    . . . . . . . . .
    . . . o o . . . .
    . . o x . . . . .
    . . . o . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
";

/// The same with a Black stone in the ladder's path.
const LADDER_BROKEN: &str = "
    . . . . . . . . .
    . . . . . . . . .
    . . . o o . . . .
    . . o x . . . . .
    . . . o . . . . .
    . . . . . . . . .
    . . . . . . . x .
    . . . . . . . . .
    . . . . . . . . .
";

const LADDER_AT_D6: &str = "
    .........
    .........
    .........
    ...x.....
    .........
    .........
    .........
    .........
    .........
";

#[test]
fn a_working_ladder() {
    for to_move in [Color::Black, Color::White] {
        let i = inputs(&position(LADDER, to_move, chinese()));
        i.check(14, LADDER_AT_D6);
        // Nothing was played: the boards 1 and 2 turns ago are this one.
        i.check(15, LADDER_AT_D6);
        i.check(16, LADDER_AT_D6);
        i.check_empty(&[17]);
    }
}

#[test]
fn a_ladder_breaker() {
    let i = inputs(&position(LADDER_BROKEN, Color::White, chinese()));
    i.check_empty(&[14, 15, 16, 17]);
}

/// Black's stone at D6 has two liberties; White's D5 starts a ladder, E6
/// lets Black out.
const TWO_LIBERTIES: &str = "
    . . . . . . . . .
    . . . . . . . . .
    . . . o o . . . .
    . . o x . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
";

#[test]
fn a_two_liberty_chain_and_its_working_moves() {
    let white = inputs(&position(TWO_LIBERTIES, Color::White, chinese()));
    white.check(14, LADDER_AT_D6);
    white.check(
        17,
        "
        .........
        .........
        .........
        .........
        ...x.....
        .........
        .........
        .........
        .........
        ",
    );
    // For Black the chain is its own: no working moves.
    let black = inputs(&position(TWO_LIBERTIES, Color::Black, chinese()));
    black.check(14, LADDER_AT_D6);
    black.check_empty(&[17]);
}

#[test]
fn ladder_features_of_earlier_boards() {
    let mut game = position(LADDER, Color::White, chinese());
    // White elsewhere, Black breaks the ladder, White elsewhere.
    play(&mut game, "W E9, B H3, W E8");
    let i = inputs(&game);
    i.check_empty(&[14, 15]);
    i.check(16, LADDER_AT_D6);
    // One more turn and it is gone from 2 turns ago too.
    play(&mut game, "B E2");
    inputs(&game).check_empty(&[14, 15, 16]);
    // Without history (a friendly pass would end the game), the current
    // board stands in for the earlier ones.
    let mut game = position(LADDER, Color::White, chinese());
    play(&mut game, "W E9, B H3, W pass");
    let i = inputs(&game);
    i.check_empty(&[9, 10, 11, 14, 15, 16]);
}

const PASS_ALIVE: &str = "
    . o . x . x
    x x x x x x
    . . . . . .
    . . . . . .
    . . . . . .
";

#[test]
fn pass_alive_group_with_territory() {
    // Black's wall has two eyes; the White stone inside one of them is
    // Black's area, and so is the whole open side.
    let i = inputs(&position(PASS_ALIVE, Color::Black, chinese()));
    let all = "xxxxxx\n".repeat(5);
    i.check(18, &all);
    i.check_empty(&[19]);
    let w = inputs(&position(PASS_ALIVE, Color::White, chinese()));
    w.check(19, &all);
    w.check_empty(&[18]);
}

#[test]
fn non_pass_alive_groups_and_dame() {
    let i = inputs(&position(
        "
        . . . . .
        x x x x x
        . . . . .
        o o o o o
        . . . . .
        ",
        Color::Black,
        chinese(),
    ));
    i.check(
        18,
        "xxxxx xxxxx ..... ..... .....".replace(' ', "\n").as_str(),
    );
    i.check(
        19,
        "..... ..... ..... xxxxx xxxxx".replace(' ', "\n").as_str(),
    );
}

#[test]
fn an_opposing_stone_in_open_space_is_nobodys_territory() {
    // Black's wall has three one-point eyes and is pass-alive, but the open
    // side holds a White stone: it is neither pass-alive territory (too many
    // points away from Black) nor a region bordered by Black alone. The
    // White stone, not pass-alive either, counts for White.
    let i = inputs(&position(
        "
        . x . x .
        x x x x x
        . . . . .
        . . o . .
        . . . . .
        ",
        Color::Black,
        chinese(),
    ));
    i.check(
        18,
        "xxxxx xxxxx ..... ..... .....".replace(' ', "\n").as_str(),
    );
    i.check(
        19,
        "..... ..... ..... ..x.. .....".replace(' ', "\n").as_str(),
    );
}

#[test]
fn group_tax_counts_independent_life_only() {
    let game = position(
        "
        . . . . .
        x x x x x
        . . . . .
        o o o o o
        . . . . .
        ",
        Color::Black,
        chinese(),
    );
    let mut krules = KataRules::from_rules(game.rules()).unwrap();
    krules.tax = Tax::Seki;
    // Both sides' areas touch the dame between them: only stones count.
    let i = Inputs::of(&game, &krules, &InputOptions::default(), 5, 5);
    i.check(
        18,
        "..... xxxxx ..... ..... .....".replace(' ', "\n").as_str(),
    );
    i.check(
        19,
        "..... ..... ..... xxxxx .....".replace(' ', "\n").as_str(),
    );
    // A pass-alive wall with its territory is independent life: all of it.
    let game = position(PASS_ALIVE, Color::Black, chinese());
    let i = Inputs::of(&game, &krules, &InputOptions::default(), 6, 5);
    i.check(18, &"xxxxxx\n".repeat(5));
    i.check_empty(&[19]);
}

#[test]
fn territory_scoring_has_no_area_planes() {
    let i = inputs(&position(PASS_ALIVE, Color::Black, rules("japanese")));
    i.check_empty(&[18, 19]);
    assert_eq!(i.global[9], 1.0);
    assert_eq!(i.global[18], 0.0);
}

#[test]
fn reference_rules_komi_and_parity() {
    let game = Game::new(BoardSize::square(19).unwrap(), chinese());
    let rules = KataRules::from_rules(game.rules()).unwrap();
    assert_eq!(rules, KataRules::CHINESE);
    let black = inputs(&game);
    assert_eq!(black.global[5], -0.375);
    assert_eq!(black.global[18], -0.5);
    assert!(black.global[..5].iter().all(|&v| v == 0.0));
    assert!(black.global[6..18].iter().all(|&v| v == 0.0));
    let white = inputs(&game.with_mover(Color::White));
    assert_eq!(white.global[5], 0.375);
    assert_eq!(white.global[18], 0.5);
    // An even board: the wave has the other parity.
    let even = Game::new(BoardSize::square(8).unwrap(), chinese());
    assert_eq!(inputs(&even).global[18], 0.5);
    assert_eq!(inputs(&even.with_mover(Color::White)).global[18], -0.5);
}

#[test]
fn komi_wave_values() {
    // (komi for the side to move, even area, wave)
    for (komi, even, wave) in [
        (7.5, false, 0.5),
        (-7.5, false, -0.5),
        (7.0, false, 0.0),
        (6.0, false, 0.0),
        (5.5, false, 0.5),
        (5.0, false, 0.0),
        (4.5, false, -0.5),
        (6.5, false, -0.5),
        (7.0, true, 1.0 - 1.0),
        (6.0, true, 0.0),
        (6.5, true, 0.5),
        (0.25, true, 0.25),
        (1.75, true, -0.25),
        (-0.5, true, -0.5),
    ] {
        assert_eq!(komi_wave(komi, even), wave, "komi {komi} even {even}");
    }
}

#[test]
fn komi_is_clipped() {
    let game = Game::new(BoardSize::square(2).unwrap(), chinese().with_komi(1000.0));
    let i = inputs(&game);
    assert_eq!(i.global[5], -24.0 / 20.0);
    assert_eq!(
        inputs(&game.with_mover(Color::White)).global[5],
        24.0 / 20.0
    );
}

#[test]
fn rule_flags() {
    let empty = |r: Rules| inputs(&Game::new(BoardSize::square(9).unwrap(), r)).global;
    let g = empty(rules("tromp-taylor"));
    assert_eq!(&g[6..12], &[1.0, 0.5, 1.0, 0.0, 0.0, 0.0]);
    let g = empty(rules("new-zealand"));
    assert_eq!(&g[6..12], &[1.0, -0.5, 1.0, 0.0, 0.0, 0.0]);
    assert_eq!(g[5], -0.35);
    let g = empty(rules("japanese"));
    assert_eq!(&g[6..12], &[0.0, 0.0, 0.0, 1.0, 1.0, 0.0]);
    let g = empty(rules("japanese,tax=none"));
    assert_eq!(&g[6..12], &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
    let g = empty(rules("stone-scoring"));
    assert_eq!(&g[6..12], &[0.0, 0.0, 0.0, 0.0, 1.0, 1.0]);
    assert_eq!(empty(rules("aga-button"))[17], 1.0);
    let game = Game::new(BoardSize::square(9).unwrap(), chinese());
    let mut krules = KataRules::from_rules(game.rules()).unwrap();
    krules.tax = Tax::All;
    krules.has_button = true;
    let options = InputOptions {
        playout_doubling_advantage: -1.5,
        ..InputOptions::default()
    };
    let i = Inputs::of(&game, &krules, &options, 9, 9);
    assert_eq!(
        &i.global[10..18],
        &[1.0, 1.0, 0.0, 0.0, 0.0, 1.0, -0.75, 1.0]
    );
    krules.tax = Tax::Seki;
    let i = Inputs::of(&game, &krules, &InputOptions::default(), 9, 9);
    assert_eq!(&i.global[10..18], &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
}

#[test]
fn passes_and_friendly_pass_suppression() {
    let size = BoardSize::square(9).unwrap();
    // Under KataGo's Chinese rules a pass after Black's pass is friendly:
    // the history is hidden and global 14 is 0.
    let mut game = Game::new(size, chinese());
    play(&mut game, "B E5, W pass");
    let i = inputs(&game);
    assert_eq!(&i.global[0..5], &[0.0; 5]);
    assert_eq!(i.global[14], 0.0);
    i.check_empty(&[9, 10]);
    // Tromp-Taylor passes are not friendly.
    let mut game = Game::new(size, rules("tromp-taylor"));
    play(&mut game, "B E5, W pass");
    let i = inputs(&game);
    assert_eq!(&i.global[0..2], &[1.0, 0.0]);
    assert_eq!(i.global[14], 1.0);
    i.check(10, &format!("{0}....x....\n{0}", ".........\n".repeat(4)));
    // ... unless the pass is treated conservatively.
    let krules = KataRules::from_rules(game.rules()).unwrap();
    let options = InputOptions {
        conservative_pass: true,
        ..InputOptions::default()
    };
    let i = Inputs::of(&game, &krules, &options, 9, 9);
    assert_eq!(&i.global[0..2], &[0.0, 0.0]);
    assert_eq!(i.global[14], 0.0);
    i.check_empty(&[9, 10]);
    // Territory scoring: a second pass ends the phase, not the game.
    let mut game = Game::new(size, rules("japanese"));
    play(&mut game, "B E5, W pass");
    let i = inputs(&game);
    assert_eq!(&i.global[0..2], &[1.0, 0.0]);
    assert_eq!(i.global[14], 1.0);
    // No pass yet: a pass would not end anything.
    let mut game = Game::new(size, chinese());
    play(&mut game, "B E5, W D4");
    assert_eq!(inputs(&game).global[14], 0.0);
}

#[test]
fn a_finished_game_shows_one_turn() {
    let mut game = Game::new(BoardSize::square(9).unwrap(), chinese());
    play(&mut game, "B E5, W pass, B pass");
    let i = inputs(&game);
    assert_eq!(&i.global[0..5], &[1.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(i.global[14], 1.0);
}

const EYE: &str = "
    . x . . .
    x x . . .
    . . . . .
    . . . . .
    . . . . .
";

#[test]
fn repeating_a_position_before_a_pass_ends_the_phase_under_simple_ko() {
    // Black passes; White's lone-stone suicide in Black's eye leaves the
    // board as it was, so Black faces the position it passed in: under
    // simple ko a second pass there ends the game (Spight-like), although
    // White did not pass.
    let mut game = position(EYE, Color::Black, rules("tromp-taylor,ko=simple"));
    play(&mut game, "B pass, W A5");
    assert_eq!(
        game.board().to_string(),
        Board::from_ascii(EYE).unwrap().to_string()
    );
    let i = inputs(&game);
    assert_eq!(i.global[14], 1.0);
    assert_eq!(&i.global[0..3], &[0.0, 1.0, 0.0]);
    i.check(
        9,
        "x.... ..... ..... ..... .....".replace(' ', "\n").as_str(),
    );
    // Under KataGo's Chinese rules too: it is not a friendly pass (no
    // pass just before), so nothing is hidden.
    let mut krules = KataRules::from_rules(game.rules()).unwrap();
    krules.friendly_pass_ok = true;
    let i = Inputs::of(&game, &krules, &InputOptions::default(), 5, 5);
    assert_eq!(i.global[14], 1.0);
    assert_eq!(i.global[1], 1.0);
    // Black played instead of passing: a new position, nothing ends.
    let mut game = position(EYE, Color::Black, rules("tromp-taylor,ko=simple"));
    play(&mut game, "B E1, W A5");
    assert_eq!(inputs(&game).global[14], 0.0);
}

#[test]
fn territory_komi_counts_stones_played() {
    let mut game = Game::new(BoardSize::square(9).unwrap(), rules("japanese"));
    assert_eq!(inputs(&game).global[5], -6.5 / 20.0);
    play(&mut game, "B E5");
    assert_eq!(inputs(&game).global[5], 7.5 / 20.0);
    play(&mut game, "W D4, B pass");
    assert_eq!(inputs(&game).global[5], 6.5 / 20.0);
}

#[test]
fn handicap_bonus() {
    let size = BoardSize::square(9).unwrap();
    let no_bonus = Rules {
        handicap_bonus: HandicapBonus::Zero,
        ..chinese()
    };
    let game = Game::with_handicap(size, no_bonus, 3).unwrap();
    let zero = inputs(&game);
    assert_eq!(zero.global[5], 7.5 / 20.0);
    let krules = KataRules::from_rules(game.rules()).unwrap();
    for (bonus, komi) in [(HandicapBonus::N, 10.5f32), (HandicapBonus::NMinusOne, 9.5)] {
        let i = Inputs::of(
            &game,
            &krules.with_handicap_bonus(bonus),
            &InputOptions::default(),
            9,
            9,
        );
        assert_eq!(i.global[5], komi / 20.0);
    }
    // Black moving first several times counts as handicap too.
    let mut game = Game::new(size, chinese());
    play(&mut game, "B C3, B G7");
    let i = Inputs::of(&game, &KataRules::CHINESE, &InputOptions::default(), 9, 9);
    assert_eq!(i.global[5], 9.5 / 20.0);
}

#[test]
fn every_size_from_2_to_19_and_non_square() {
    for (w, h) in (2..=19).map(|s| (s, s)).chain([(7, 3), (3, 7), (19, 2)]) {
        let game = Game::new(BoardSize::new(w, h).unwrap(), chinese());
        let i = inputs(&game);
        let on: usize = i.spatial[..w * h].iter().map(|&v| v as usize).sum();
        assert_eq!(on, w * h);
        assert!(i.spatial[w * h..].iter().all(|&v| v == 0.0), "{w}x{h}");
        let wave = if (w * h) % 2 == 0 { 0.5 } else { -0.5 };
        assert_eq!(i.global[18], wave, "{w}x{h}");
        // A stone in the corner: a pass-alive nothing, area by reach.
        let mut game = game.clone();
        play(&mut game, "B A1");
        let i = inputs(&game);
        let area: f32 = i.spatial[19 * w * h..20 * w * h].iter().sum();
        assert_eq!(area as usize, w * h, "{w}x{h}");
        i.check_empty(&[1, 18]);
        let stones: f32 = i.spatial[2 * w * h..3 * w * h].iter().sum();
        assert_eq!(stones, 1.0);
    }
}

#[test]
fn errors() {
    let game = Game::new(BoardSize::square(9).unwrap(), chinese());
    let rules = KataRules::CHINESE;
    let mut spatial = vec![0.0; SPATIAL_FEATURES * 64];
    let mut global = vec![0.0; GLOBAL_FEATURES];
    let options = InputOptions::default();
    assert!(matches!(
        fill(&game, &rules, &options, 8, 8, &mut spatial, &mut global),
        Err(InputError::BoardTooLarge { .. })
    ));
    let mut spatial = vec![0.0; SPATIAL_FEATURES * 80];
    assert!(matches!(
        fill(&game, &rules, &options, 9, 9, &mut spatial, &mut global),
        Err(InputError::BufferSize { .. })
    ));
    assert_eq!(
        KataRules::from_rules(&Rules::preset("nogo").unwrap()),
        Err(InputError::NoGo)
    );
}

#[test]
fn rules_mapping() {
    let map = |name: &str| KataRules::from_rules(&rules(name)).unwrap();
    let tt = map("tromp-taylor");
    assert_eq!(
        (tt.ko, tt.multi_stone_suicide, tt.friendly_pass_ok),
        (KataKo::Positional, true, false)
    );
    let aga = map("aga");
    assert_eq!(
        (aga.ko, aga.multi_stone_suicide, aga.friendly_pass_ok),
        (KataKo::Situational, false, true)
    );
    let jp = map("japanese");
    assert!(jp.territory_scoring && !jp.friendly_pass_ok && jp.komi == 6.5 && jp.tax == Tax::Seki);
    let nz = map("new-zealand");
    assert_eq!(
        (nz.ko, nz.multi_stone_suicide, nz.komi),
        (KataKo::Situational, true, 7.0)
    );
    // The details come across as they are.
    for (name, button, bonus) in [
        ("tromp-taylor", false, HandicapBonus::Zero),
        ("chinese", false, HandicapBonus::N),
        ("aga", false, HandicapBonus::NMinusOne),
        ("aga-button", true, HandicapBonus::NMinusOne),
        ("japanese", false, HandicapBonus::Zero),
        ("new-zealand", false, HandicapBonus::Zero),
    ] {
        let r = map(name);
        assert_eq!(
            (r.has_button, r.white_handicap_bonus),
            (button, bonus),
            "{name}"
        );
    }
}

/// Checks every chain of `kboard` against tengen's board: stones, chain
/// lists, sizes and liberties.
fn assert_same(board: &Board, kboard: &board::KBoard) {
    let size = board.size();
    for point in size.points() {
        let loc = history::loc_of(board, kboard, point);
        let expected = board.stone(point).map_or(board::EMPTY, history::player);
        assert_eq!(kboard.colors[loc], expected);
        if expected == board::EMPTY {
            continue;
        }
        assert_eq!(kboard.libs(loc) as usize, board.liberties(point));
        assert_eq!(kboard.chain_size(loc) as usize, board.chain_len(point));
        let mut walked = Vec::new();
        let mut cur = loc;
        loop {
            assert_eq!(kboard.chain_head[cur], kboard.chain_head[loc]);
            walked.push(cur);
            cur = kboard.next(cur);
            if cur == loc {
                break;
            }
        }
        let mut chain: Vec<usize> = board
            .chain(point)
            .map(|p| history::loc_of(board, kboard, p))
            .collect();
        chain.sort_unstable();
        walked.sort_unstable();
        assert_eq!(walked, chain);
    }
}

#[test]
fn replayed_boards_match_tengen_and_ladder_searches_restore_them() {
    use tengen_core::{Agent, RandomBot};
    for (seed, side, rules) in [
        (1, 9, chinese()),
        (2, 13, rules("tromp-taylor")),
        (3, 7, rules("new-zealand")),
    ] {
        let mut game = Game::new(BoardSize::square(side).unwrap(), rules);
        let mut bot = RandomBot::new(seed);
        let krules = KataRules::from_rules(&rules).unwrap();
        let mut turns = 0;
        while !game.is_over() && turns < 400 {
            let action = bot.select_move(&game);
            game.apply(action).unwrap();
            turns += 1;
            if turns % 7 != 0 {
                continue;
            }
            let hist = history::History::replay(&game, &krules);
            assert_same(game.board(), &hist.board);
            let ko = game.board().ko_point().map_or(board::NULL_LOC, |p| {
                history::loc_of(game.board(), &hist.board, p)
            });
            assert_eq!(hist.board.ko_loc, ko);
            // Every search leaves the stones and liberties as they were.
            let mut copy = hist.board.clone();
            let mut buf = Vec::new();
            let mut working = Vec::new();
            for loc in 0..copy.colors.len() {
                if copy.colors[loc] == board::BLACK || copy.colors[loc] == board::WHITE {
                    match copy.libs(loc) {
                        1 => {
                            copy.ladder_captured(loc, true, &mut buf);
                        }
                        2 => {
                            copy.ladder_captured_attacker_first_2_libs(loc, &mut buf, &mut working);
                        }
                        _ => {}
                    }
                    assert_same(game.board(), &copy);
                }
            }
            let mut spatial = vec![0.0; SPATIAL_FEATURES * side * side];
            let mut global = vec![0.0; GLOBAL_FEATURES];
            fill(
                &game,
                &krules,
                &InputOptions::default(),
                side,
                side,
                &mut spatial,
                &mut global,
            )
            .unwrap();
        }
    }
}

#[test]
fn a_finished_game_counts_pass_alive_areas_whole() {
    // Black's pass-alive wall owns the whole 6×5 board, the White stone
    // left in its eye included; the bare count gives White that stone and
    // nobody the two points beside it.
    let mut game = position(PASS_ALIVE, Color::Black, chinese().with_komi(7.0));
    play(&mut game, "B pass, W pass");
    assert!(game.is_over());
    assert_eq!(finished_margin(&game), Some(30.0 - 7.0));
    assert_eq!(game.score().margin(), 27.0 - 1.0 - 7.0);
    // Territory scoring is counted the game's own way.
    let mut japanese = position(PASS_ALIVE, Color::Black, rules("japanese"));
    play(&mut japanese, "B pass, W pass");
    assert_eq!(finished_margin(&japanese), None);
}

#[test]
fn passing_hacks_hide_the_history_when_ending_the_game_would_not_win() {
    let size = BoardSize::square(9).unwrap();
    let krules = |game: &Game| KataRules::from_rules(game.rules()).unwrap();
    let hacks = InputOptions {
        passing_hacks: true,
        ..InputOptions::default()
    };
    // Tromp-Taylor passes are not friendly, so the history shows. Black to
    // move after White's pass, Black's one stone owning the board: ending
    // the game wins, the history stays.
    let mut game = Game::new(size, rules("tromp-taylor").with_komi(7.0));
    play(&mut game, "B E5, W pass");
    let i = Inputs::of(&game, &krules(&game), &hacks, 9, 9);
    assert_eq!(&i.global[0..2], &[1.0, 0.0]);
    assert_eq!(i.global[14], 1.0);
    // White to move after Black's pass, one stone each and no komi: ending
    // the game would be a draw, not a win, so the network is shown no
    // history, as under a conservative pass; without the hacks it is.
    let mut game = Game::new(size, rules("tromp-taylor").with_komi(0.0));
    play(&mut game, "B E5, W C3, B pass");
    let plain = Inputs::of(&game, &krules(&game), &InputOptions::default(), 9, 9);
    assert_eq!(&plain.global[0..2], &[1.0, 0.0]);
    assert_eq!(plain.global[14], 1.0);
    let i = Inputs::of(&game, &krules(&game), &hacks, 9, 9);
    assert_eq!(&i.global[0..5], &[0.0; 5]);
    assert_eq!(i.global[14], 0.0);
    i.check_empty(&[9, 10]);
    // Half a point of komi makes it a win: the history is back.
    let mut game = Game::new(size, rules("tromp-taylor").with_komi(0.5));
    play(&mut game, "B E5, W C3, B pass");
    let i = Inputs::of(&game, &krules(&game), &hacks, 9, 9);
    assert_eq!(i.global[14], 1.0);
}
