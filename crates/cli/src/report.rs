//! What is printed about a game: move lines and the result line.

use tengen_core::{Action, BoardSize, Color, Game, Move, Outcome};

/// `Black plays D4`, `White passes` or `Black resigns`.
pub fn action_line(game: &Game, color: Color, action: Action) -> String {
    let who = capitalized(color);
    match action {
        Action::Move(Move::Pass) => format!("{who} passes"),
        Action::Move(mv) => format!("{who} plays {}", game.size().gtp(mv)),
        Action::Resign => format!("{who} resigns"),
    }
}

/// The result line: `Result: B+3.5 (Black 45, White 37.5 with komi 7.5)` for a
/// counted game, `Result: W+R (Black resigned)` for a resignation,
/// `Result: B+ (White has no legal move)` for a NoGo game.
pub fn result_line(game: &Game) -> String {
    let outcome = game.outcome();
    match outcome {
        Outcome::Resignation { winner } => {
            format!("Result: {outcome} ({} resigned)", capitalized(!winner))
        }
        Outcome::NoLegalMove { winner } => {
            format!(
                "Result: {outcome} ({} has no legal move)",
                capitalized(!winner)
            )
        }
        Outcome::Counted(score) => format!(
            "Result: {outcome} (Black {}, White {} with komi {})",
            score.black,
            score.white,
            game.rules().komi
        ),
    }
}

/// A board size for people: `9x9`, `7x11` (the core's own `Display` writes a
/// square as just `9`).
pub fn size_text(size: BoardSize) -> String {
    format!("{}x{}", size.width(), size.height())
}

/// `Black` or `White`.
pub fn capitalized(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// The board diagram with the last stone played marked, as shown after each move.
pub fn board_diagram(game: &Game) -> String {
    let last = game.last_move().and_then(|(_, mv)| mv.point());
    game.board().diagram(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::Rules;

    #[test]
    fn lines() {
        let size = BoardSize::square(9).unwrap();
        let mut game = Game::new(size, Rules::default());
        assert_eq!(size_text(size), "9x9");
        let d4 = size.parse_gtp("d4").unwrap();
        assert_eq!(
            action_line(&game, Color::Black, Action::Move(d4)),
            "Black plays D4"
        );
        assert_eq!(
            action_line(&game, Color::White, Action::Move(Move::Pass)),
            "White passes"
        );
        game.play(d4).unwrap();
        game.play(Move::Pass).unwrap();
        game.play(Move::Pass).unwrap();
        assert_eq!(
            result_line(&game),
            "Result: B+73.5 (Black 81, White 7.5 with komi 7.5)"
        );
        game.undo();
        game.resign().unwrap();
        assert_eq!(result_line(&game), "Result: W+R (Black resigned)");
    }
}
