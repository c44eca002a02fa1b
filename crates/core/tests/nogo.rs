//! NoGo against a slow reference written here from the rules alone.
//!
//! The reference sees a position as a plain grid of `Option<Color>` and
//! decides a NoGo move by placing the stone on a copy and flood-filling the
//! chains around it: illegal when the point is occupied, when an enemy chain
//! next to it is left without liberties (a capture), or when the new stone's
//! own chain is (suicide). Nothing is shared with the engine but the points'
//! coordinates.
//!
//! Positions come from seeded random NoGo games (moves drawn from the
//! reference's own legal set) and from random Go games (captures, ko shapes
//! and eyes that NoGo play never makes) turned into NoGo positions; on every
//! position, for both colours and every point, `Board::is_legal_nogo`,
//! `Game::legal_as` with its reason, `Game::legal_moves`, `Game::is_over`
//! and `Game::outcome` are compared with the reference. Every NoGo game is
//! then undone to the start, board by board.

use std::collections::BTreeSet;

use tengen_core::{
    Action, Agent, Board, BoardSize, Color, Game, IllegalMove, Move, Outcome, Point, RandomBot,
    Rng, Rules,
};

fn nogo() -> Rules {
    Rules::preset("nogo").expect("the nogo preset")
}

/// What the reference says about one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    Legal,
    Occupied,
    Capture,
    Suicide,
}

/// A position as a grid, row 0 at the bottom, index `row * w + col`.
struct Grid {
    w: usize,
    h: usize,
    cells: Vec<Option<Color>>,
}

impl Grid {
    fn of(board: &Board) -> Grid {
        let size = board.size();
        let (w, h) = (size.width(), size.height());
        let mut cells = vec![None; w * h];
        for row in 0..h {
            for col in 0..w {
                let point = size.point(col, row).expect("on the board");
                cells[row * w + col] = board.stone(point);
            }
        }
        Grid { w, h, cells }
    }

    fn neighbors(&self, i: usize) -> Vec<usize> {
        let (col, row) = (i % self.w, i / self.w);
        let mut out = Vec::with_capacity(4);
        if col > 0 {
            out.push(i - 1);
        }
        if col + 1 < self.w {
            out.push(i + 1);
        }
        if row > 0 {
            out.push(i - self.w);
        }
        if row + 1 < self.h {
            out.push(i + self.w);
        }
        out
    }

    /// Whether the chain through the stone at `start` has a liberty, by flood
    /// fill.
    fn chain_has_liberty(&self, start: usize) -> bool {
        let color = self.cells[start];
        let mut seen = vec![false; self.cells.len()];
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(i) = stack.pop() {
            for n in self.neighbors(i) {
                match self.cells[n] {
                    None => return true,
                    c if c == color && !seen[n] => {
                        seen[n] = true;
                        stack.push(n);
                    }
                    _ => {}
                }
            }
        }
        false
    }

    fn verdict(&self, i: usize, color: Color) -> Verdict {
        if self.cells[i].is_some() {
            return Verdict::Occupied;
        }
        let mut after = Grid {
            w: self.w,
            h: self.h,
            cells: self.cells.clone(),
        };
        after.cells[i] = Some(color);
        let captures = after
            .neighbors(i)
            .into_iter()
            .any(|n| after.cells[n] == Some(!color) && !after.chain_has_liberty(n));
        if captures {
            Verdict::Capture
        } else if !after.chain_has_liberty(i) {
            Verdict::Suicide
        } else {
            Verdict::Legal
        }
    }
}

/// Compares everything the engine says about `game`'s position with the
/// reference. Returns the reference's legal points for the side to move.
fn check_position(game: &Game, context: &str) -> Vec<Point> {
    let board = game.board();
    board
        .check_consistency()
        .unwrap_or_else(|e| panic!("{context}: {e}"));
    let size = board.size();
    let grid = Grid::of(board);
    let mut legal_for_mover = Vec::new();
    for color in [Color::Black, Color::White] {
        for row in 0..grid.h {
            for col in 0..grid.w {
                let point = size.point(col, row).unwrap();
                let expected = grid.verdict(row * grid.w + col, color);
                let vertex = size.gtp(Move::Play(point));
                assert_eq!(
                    board.is_legal_nogo(point, color),
                    expected == Verdict::Legal,
                    "{context}: is_legal_nogo {color} {vertex} ({expected:?})\n{board}"
                );
                let reason = game.legal_as(color, Move::Play(point));
                let wanted = match expected {
                    Verdict::Legal => Ok(()),
                    Verdict::Occupied => Err(IllegalMove::Occupied),
                    Verdict::Capture => Err(IllegalMove::Capture),
                    Verdict::Suicide => Err(IllegalMove::Suicide),
                };
                assert_eq!(
                    reason, wanted,
                    "{context}: legal_as {color} {vertex}\n{board}"
                );
                if color == game.to_move() && expected == Verdict::Legal {
                    legal_for_mover.push(point);
                }
            }
        }
        assert_eq!(
            game.legal_as(color, Move::Pass),
            Err(IllegalMove::Pass),
            "{context}"
        );
    }
    let engine_moves: BTreeSet<Point> = game
        .legal_moves()
        .into_iter()
        .map(|mv| mv.point().expect("no pass in NoGo"))
        .collect();
    let reference: BTreeSet<Point> = legal_for_mover.iter().copied().collect();
    assert_eq!(engine_moves, reference, "{context}: legal moves\n{board}");
    let over = reference.is_empty();
    assert_eq!(game.is_over(), over, "{context}: is_over\n{board}");
    if over {
        let winner = !game.to_move();
        assert_eq!(game.outcome(), Outcome::NoLegalMove { winner }, "{context}");
        assert_eq!(game.result(), Some(Outcome::NoLegalMove { winner }));
        assert_eq!(game.outcome().winner(), Some(winner));
        assert_eq!(game.legal(Move::Pass), Err(IllegalMove::Pass));
    } else {
        assert_eq!(game.result(), None, "{context}");
    }
    legal_for_mover
}

/// Plays a random NoGo game from `game`, moves drawn from the reference's
/// legal set, checking every position; then undoes it to the start.
/// Returns the number of positions checked.
fn play_and_undo(mut game: Game, rng: &mut Rng, context: &str) -> usize {
    let start_turns = game.turn_count();
    let mut boards = vec![game.board().clone()];
    let mut positions = 0;
    loop {
        let context = format!("{context}, turn {}", game.turn_count());
        let legal = check_position(&game, &context);
        positions += 1;
        if legal.is_empty() {
            break;
        }
        let point = legal[rng.below(legal.len())];
        game.play(Move::Play(point))
            .unwrap_or_else(|e| panic!("{context}: {e}"));
        boards.push(game.board().clone());
    }
    // The side to move has lost; it may not even resign twice, but once.
    let mut resigned = game.clone();
    assert_eq!(resigned.resign(), Err(IllegalMove::GameOver));
    while game.turn_count() > start_turns {
        boards.pop();
        game.undo().expect("a turn to undo");
        assert_eq!(game.board(), boards.last().unwrap(), "{context}: undo");
        game.board()
            .check_consistency()
            .unwrap_or_else(|e| panic!("{context}: after undo: {e}"));
    }
    positions
}

/// A position from `turns` turns of a random Go game (captures and all).
fn go_position(size: BoardSize, turns: usize, rng: &mut Rng) -> Game {
    let mut game = Game::new(size, Rules::default());
    let mut black = RandomBot::new(rng.next_u64());
    let mut white = RandomBot::new(rng.next_u64());
    while !game.is_over() && game.turn_count() < turns {
        let action = match game.to_move() {
            Color::Black => black.select_move(&game),
            Color::White => white.select_move(&game),
        };
        game.apply(action).unwrap();
    }
    game
}

#[test]
fn nogo_matches_the_flood_fill_reference() {
    // (width, height, NoGo games from the empty board, Go positions)
    let plan = [
        (1, 1, 2, 2),
        (2, 2, 40, 20),
        (2, 3, 40, 20),
        (3, 3, 60, 30),
        (5, 5, 60, 30),
        (7, 7, 80, 40),
        (9, 9, 50, 30),
        (7, 11, 10, 5),
        (13, 13, 5, 3),
        (19, 19, 2, 2),
    ];
    let mut rng = Rng::new(0x6e6f_676f);
    let mut positions = 0;
    for (w, h, games, go_positions) in plan {
        let size = BoardSize::new(w, h).unwrap();
        for g in 0..games {
            let context = format!("{size} NoGo game {g}");
            positions += play_and_undo(Game::new(size, nogo()), &mut rng, &context);
        }
        for g in 0..go_positions {
            let turns = rng.below(2 * size.points_count() + 1);
            let go = go_position(size, turns, &mut rng);
            for to_move in [Color::Black, Color::White] {
                let game = Game::from_position(go.board().clone(), to_move, nogo());
                let context = format!("{size} Go position {g} ({turns} turns), {to_move} to move");
                positions += play_and_undo(game, &mut rng, &context);
            }
        }
    }
    assert!(positions > 5_000, "only {positions} positions");
}

fn point(size: BoardSize, vertex: &str) -> Point {
    size.parse_gtp(vertex).unwrap().point().unwrap()
}

#[test]
fn reasons_on_a_small_board() {
    // White B1 has one liberty, A1.
    let board = Board::from_ascii(
        ". . .
         x x .
         . o x",
    )
    .unwrap();
    let size = board.size();
    let game = Game::from_position(board, Color::Black, nogo());
    assert_eq!(
        game.legal(Move::Play(point(size, "B1"))),
        Err(IllegalMove::Occupied)
    );
    // Black A1 would take White's last liberty.
    assert_eq!(
        game.legal(Move::Play(point(size, "A1"))),
        Err(IllegalMove::Capture)
    );
    // White A1 would join B1 in a chain without liberties, capturing nothing
    // (Black's A2-B2 keeps A3, B3 and C2).
    assert_eq!(
        game.legal_as(Color::White, Move::Play(point(size, "A1"))),
        Err(IllegalMove::Suicide)
    );
    assert_eq!(game.legal(Move::Pass), Err(IllegalMove::Pass));
    assert_eq!(game.legal(Move::Play(point(size, "C3"))), Ok(()));
    assert_eq!(
        IllegalMove::Capture.to_string(),
        "capturing is not allowed in NoGo"
    );
    assert_eq!(
        IllegalMove::Pass.to_string(),
        "passing is not allowed in NoGo"
    );
}

#[test]
fn the_side_that_cannot_move_loses_and_undo_reopens_the_game() {
    // 2×1: after Black A1, White's only point B1 would capture A1.
    let size = BoardSize::new(2, 1).unwrap();
    let mut game = Game::new(size, nogo());
    assert!(!game.is_over());
    assert_eq!(game.result(), None);
    game.play(Move::Play(point(size, "A1"))).unwrap();
    assert!(game.is_over());
    assert_eq!(game.legal_moves(), Vec::<Move>::new());
    let outcome = game.outcome();
    assert_eq!(
        outcome,
        Outcome::NoLegalMove {
            winner: Color::Black
        }
    );
    assert_eq!(outcome.to_string(), "B+");
    assert_eq!(game.resign(), Err(IllegalMove::GameOver));
    assert_eq!(
        game.undo(),
        Some((Color::Black, Action::Move(Move::Play(point(size, "A1")))))
    );
    assert!(!game.is_over());
    assert_eq!(game.legal_moves().len(), 2);
    // A resignation while moves are left is an ordinary resignation.
    game.resign().unwrap();
    assert!(game.is_over());
    assert_eq!(game.outcome().to_string(), "W+R");
    assert_eq!(
        game.legal(Move::Play(point(size, "B1"))),
        Err(IllegalMove::GameOver)
    );
    assert_eq!(game.legal_moves(), Vec::<Move>::new());
    game.undo().unwrap();
    assert!(!game.is_over());
    assert_eq!(game.result(), None);
}

#[test]
fn white_wins_when_black_has_no_move() {
    // 3×1: Black B1 would capture both white stones; White B1 would join
    // them in a chain without liberties.
    let board = Board::from_ascii("o . o").unwrap();
    let size = board.size();
    let game = Game::from_position(board, Color::Black, nogo());
    assert_eq!(
        game.legal(Move::Play(point(size, "B1"))),
        Err(IllegalMove::Capture)
    );
    assert_eq!(
        game.legal_as(Color::White, Move::Play(point(size, "B1"))),
        Err(IllegalMove::Suicide)
    );
    assert!(game.is_over());
    assert_eq!(
        game.outcome(),
        Outcome::NoLegalMove {
            winner: Color::White
        }
    );
    assert_eq!(game.outcome().to_string(), "W+");
    assert_eq!(RandomBot::new(1).select_move(&game), Action::Resign);
}

#[test]
fn random_bot_plays_nogo_to_the_end_and_resigns() {
    for seed in 0..40 {
        let size = BoardSize::square(if seed % 2 == 0 { 7 } else { 5 }).unwrap();
        let mut game = Game::new(size, nogo());
        let mut bots = [RandomBot::new(seed), RandomBot::new(seed + 1000)];
        loop {
            let bot = &mut bots[game.to_move().index()];
            assert!(bot.plays(tengen_core::Variant::NoGo));
            let action = bot.select_move(&game);
            if game.is_over() {
                assert_eq!(action, Action::Resign, "seed {seed}: nothing is legal");
                break;
            }
            match action {
                Action::Move(mv) => game.play(mv).unwrap(),
                Action::Resign => panic!("seed {seed}: resigned with legal moves left"),
            }
            assert!(game.turn_count() <= size.points_count());
        }
        assert!(matches!(game.outcome(), Outcome::NoLegalMove { .. }));
    }
}

#[test]
fn random_bot_keeps_its_own_eyes_for_last() {
    // Black's eyes at A3 and A1; C3, D3, D2, C1 and D1 are other moves.
    let board = Board::from_ascii(
        ". x . .
         x x x .
         . x . .",
    )
    .unwrap();
    let size = board.size();
    let eyes = [point(size, "A3"), point(size, "A1")];
    for eye in eyes {
        assert!(board.is_point_an_eye(eye, Color::Black));
    }
    let game = Game::from_position(board, Color::Black, nogo());
    assert_eq!(game.legal_moves().len(), 7);
    for seed in 0..50 {
        let Action::Move(Move::Play(chosen)) = RandomBot::new(seed).select_move(&game) else {
            panic!("seed {seed}: no move");
        };
        assert!(!eyes.contains(&chosen), "seed {seed}: filled an eye");
    }
    // Four eyes and nothing else: the bot fills one rather than resign.
    let only_eyes = Board::from_ascii(
        ". x .
         x x x
         . x .",
    )
    .unwrap();
    let game = Game::from_position(only_eyes.clone(), Color::Black, nogo());
    assert_eq!(game.legal_moves().len(), 4);
    let mut seen = BTreeSet::new();
    for seed in 0..40 {
        match RandomBot::new(seed).select_move(&game) {
            Action::Move(Move::Play(p)) => {
                seen.insert(p);
            }
            other => panic!("seed {seed}: {other:?}"),
        }
    }
    assert_eq!(seen.len(), 4, "every eye is drawn sometimes");
    // White has nowhere to go there: every point is suicide.
    let game = Game::from_position(only_eyes, Color::White, nogo());
    assert!(game.is_over());
    assert_eq!(game.outcome().to_string(), "B+");
}
