//! What is printed about a game: move lines and the result line.

use std::io::{self, IsTerminal, Write};

use tengen_core::scoring::{expected_lead, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED};
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

/// The score estimate shown while a game is watched: `Estimate: B+3.2`,
/// Black's expected lead from the playouts of the dead-stone estimate
/// ([`tengen_core::scoring::expected_lead`]); empty under NoGo, which has
/// no count.
pub fn estimate_line(game: &Game) -> String {
    match expected_lead(game, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED) {
        None => String::new(),
        Some(lead) if lead.abs() < 0.05 => "Estimate: even".to_string(),
        Some(lead) if lead > 0.0 => format!("Estimate: B+{lead:.1}"),
        Some(lead) => format!("Estimate: W+{:.1}", -lead),
    }
}

/// Where boards are shown one after another. On a terminal each board
/// replaces the one before (the screen is cleared and the cursor sent
/// home, as the book's `bot_v_bot` does), so a game can be watched in
/// place; elsewhere (a pipe, a file) boards follow one another unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Screen {
    redraw: bool,
}

impl Screen {
    /// Redrawing in place exactly when standard output is a terminal.
    pub fn stdout() -> Screen {
        Screen {
            redraw: io::stdout().is_terminal(),
        }
    }

    /// Boards that follow one another (for pipes, files and tests).
    pub const fn scrolling() -> Screen {
        Screen { redraw: false }
    }

    /// Each board replaces the last, whatever the output is.
    pub const fn redrawing() -> Screen {
        Screen { redraw: true }
    }

    /// Whether each board replaces the last.
    pub fn redraws(&self) -> bool {
        self.redraw
    }

    /// Writes `text` (a board and its lines) as the next screen.
    pub fn show(&self, out: &mut impl Write, text: &str) -> io::Result<()> {
        if self.redraw {
            // ANSI: cursor home, then clear the screen.
            out.write_all(b"\x1b[H\x1b[2J")?;
        } else {
            writeln!(out)?;
        }
        out.write_all(text.as_bytes())?;
        out.flush()
    }
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
