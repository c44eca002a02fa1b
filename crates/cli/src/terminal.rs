//! A person against a bot over a text stream: the terminal game.
//!
//! [`Session`] reads the person's commands line by line from any
//! [`BufRead`] and writes everything it shows to any [`Write`], so it works the
//! same on a terminal, through a pipe, and in tests over a
//! [`std::io::Cursor`]. Every bad line gets a one-line reason starting with
//! `Invalid input` or `Illegal move` and leaves the game as it was.

use std::fmt;
use std::io::{self, BufRead, Write};

use tengen_core::{
    Action, Agent, Color, Game, IllegalMove, Move, Outcome, VertexError, VertexErrorKind,
    GTP_COLUMNS,
};
use thiserror::Error;

use crate::report::{action_line, board_diagram, capitalized, result_line, size_text};

/// One line of the person's input, understood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Play a stone or pass.
    Move(Move),
    /// Give up.
    Resign,
    /// Take back the person's last move and the bot's reply.
    Undo,
    /// List the commands.
    Help,
    /// Leave the game unfinished.
    Quit,
}

/// Why a line of input is not a command.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum InputError {
    /// Looks like a vertex but is not one of this board's (off the board, or
    /// the letter I).
    #[error("{0}")]
    Vertex(VertexError),
    /// Neither a vertex nor a command.
    #[error("'{0}' is neither a move such as C3 nor a command (pass, resign, undo, help, quit)")]
    Unknown(String),
}

/// Reads one line of input: `Ok(None)` for a blank line, else a command or why
/// the line is not one. Case does not matter; surrounding spaces are ignored.
pub fn parse_command(game: &Game, line: &str) -> Result<Option<Command>, InputError> {
    let text = line.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let command = match text.to_ascii_lowercase().as_str() {
        "resign" => Command::Resign,
        "undo" => Command::Undo,
        "help" | "?" | "h" => Command::Help,
        "quit" | "exit" | "q" => Command::Quit,
        _ => match game.size().parse_gtp(text) {
            Ok(mv) => Command::Move(mv),
            Err(e) if e.kind == VertexErrorKind::Syntax || e.kind == VertexErrorKind::Empty => {
                return Err(InputError::Unknown(text.to_string()))
            }
            Err(e) => return Err(InputError::Vertex(e)),
        },
    };
    Ok(Some(command))
}

/// How a session ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SessionEnd {
    /// The game ended (two passes or a resignation) with this result.
    Finished(Outcome),
    /// The person typed `quit`.
    Quit,
    /// The input ended before the game did.
    EndOfInput,
}

/// What stops a session other than the game ending.
#[derive(Debug, Error)]
pub enum SessionError {
    /// Reading input or writing output failed.
    #[error("terminal I/O failed: {0}")]
    Io(#[from] io::Error),
    /// The bot chose a move the rules forbid (a bug in the bot).
    #[error("the bot ({bot}) chose an illegal move {text}: {reason}")]
    BotIllegalMove {
        /// The bot's name.
        bot: String,
        /// The move as GTP text.
        text: String,
        /// Why it is illegal.
        reason: IllegalMove,
    },
}

/// A game between a person, who types commands, and a bot.
pub struct Session<R, W> {
    game: Game,
    human: Color,
    bot: Box<dyn Agent>,
    input: R,
    output: W,
    echo_input: bool,
}

impl<R, W> fmt::Debug for Session<R, W> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field("game", &self.game)
            .field("human", &self.human)
            .field("bot", &self.bot.name())
            .finish_non_exhaustive()
    }
}

impl<R: BufRead, W: Write> Session<R, W> {
    /// A session in which the person plays `human` in `game` (which may already
    /// hold handicap stones or moves) against `bot`.
    pub fn new(game: Game, human: Color, bot: Box<dyn Agent>, input: R, output: W) -> Self {
        Session {
            game,
            human,
            bot,
            input,
            output,
            echo_input: false,
        }
    }

    /// Whether each line read is written back after the prompt. Useful when the
    /// input is not a terminal (a pipe, a file), whose lines would otherwise be
    /// missing from the transcript.
    pub fn with_echo(mut self, echo_input: bool) -> Self {
        self.echo_input = echo_input;
        self
    }

    /// The game as it stands.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// Gives back the output stream (a test's buffer).
    pub fn into_output(self) -> W {
        self.output
    }

    /// Plays until the game ends, the person quits or the input ends. The bot
    /// moves by itself whenever it is its turn.
    pub fn run(&mut self) -> Result<SessionEnd, SessionError> {
        self.intro()?;
        loop {
            if self.game.is_over() {
                writeln!(self.output)?;
                writeln!(self.output, "{}", result_line(&self.game))?;
                self.output.flush()?;
                return Ok(SessionEnd::Finished(self.game.outcome()));
            }
            if self.game.to_move() != self.human {
                self.bot_turn()?;
                continue;
            }
            write!(
                self.output,
                "{} to play (C3, pass, resign, undo, help): ",
                capitalized(self.human)
            )?;
            self.output.flush()?;
            let Some(line) = self.read_line()? else {
                writeln!(self.output)?;
                writeln!(
                    self.output,
                    "End of input before the game ended; leaving the game unfinished."
                )?;
                self.output.flush()?;
                return Ok(SessionEnd::EndOfInput);
            };
            if self.echo_input {
                writeln!(self.output, "{}", line.trim())?;
            }
            match parse_command(&self.game, &line) {
                Ok(None) => {}
                Ok(Some(command)) => {
                    if let Some(end) = self.handle(command)? {
                        return Ok(end);
                    }
                }
                Err(e) => writeln!(self.output, "Invalid input: {e}")?,
            }
        }
    }

    fn intro(&mut self) -> io::Result<()> {
        let rules = self.game.rules();
        let handicap = match self.game.handicap() {
            0 => String::new(),
            n => format!(", handicap {n}"),
        };
        writeln!(
            self.output,
            "You play {} against {} on {} (rules {}, komi {}{handicap}). Type help for the commands.",
            capitalized(self.human),
            self.bot.name(),
            size_text(self.game.size()),
            rules,
            rules.komi
        )?;
        write!(self.output, "{}", board_diagram(&self.game))
    }

    /// Reads a line; `None` at the end of the input. Bytes that are not UTF-8
    /// are replaced rather than failing the session.
    fn read_line(&mut self) -> io::Result<Option<String>> {
        let mut bytes = Vec::new();
        if self.input.read_until(b'\n', &mut bytes)? == 0 {
            return Ok(None);
        }
        Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
    }

    fn bot_turn(&mut self) -> Result<(), SessionError> {
        let color = self.game.to_move();
        let action = self.bot.select_move(&self.game);
        if let Err(reason) = self.game.apply(action) {
            return Err(SessionError::BotIllegalMove {
                bot: self.bot.name().to_string(),
                text: action_text(&self.game, action),
                reason,
            });
        }
        self.show_action(color, action)?;
        Ok(())
    }

    fn show_action(&mut self, color: Color, action: Action) -> io::Result<()> {
        writeln!(self.output, "{}", action_line(&self.game, color, action))?;
        if action != Action::Resign {
            write!(self.output, "{}", board_diagram(&self.game))?;
        }
        Ok(())
    }

    /// Carries out one of the person's commands; `Some` when the session ends.
    fn handle(&mut self, command: Command) -> io::Result<Option<SessionEnd>> {
        match command {
            Command::Move(mv) => match self.game.play(mv) {
                Ok(()) => self.show_action(self.human, Action::Move(mv))?,
                Err(reason) => writeln!(
                    self.output,
                    "Illegal move {}: {reason}",
                    self.game.size().gtp(mv)
                )?,
            },
            Command::Resign => {
                // Resigning is always possible while the game is on.
                if self.game.resign().is_ok() {
                    self.show_action(self.human, Action::Resign)?;
                }
            }
            Command::Undo => self.undo()?,
            Command::Help => self.help()?,
            Command::Quit => {
                writeln!(self.output, "Leaving the game unfinished.")?;
                self.output.flush()?;
                return Ok(Some(SessionEnd::Quit));
            }
        }
        Ok(None)
    }

    /// Takes back turns up to and including the person's last one, so that it
    /// is the person's turn again.
    fn undo(&mut self) -> io::Result<()> {
        if !self.game.history().any(|(color, _)| color == self.human) {
            writeln!(
                self.output,
                "Nothing to undo: you have not moved yet in this game."
            )?;
            return Ok(());
        }
        let mut undone = Vec::new();
        while let Some((color, action)) = self.game.undo() {
            undone.push(format!(
                "{} {}",
                capitalized(color),
                action_text(&self.game, action)
            ));
            if color == self.human {
                break;
            }
        }
        self.bot.reset();
        undone.reverse();
        writeln!(self.output, "Took back {}.", undone.join(" and "))?;
        write!(self.output, "{}", board_diagram(&self.game))
    }

    fn help(&mut self) -> io::Result<()> {
        let size = self.game.size();
        let last_column = GTP_COLUMNS[size.width() - 1] as char;
        writeln!(self.output, "Commands (any case):")?;
        writeln!(
            self.output,
            "  C3      play there: columns A to {last_column} (no I), rows 1 to {} from the bottom",
            size.height()
        )?;
        writeln!(
            self.output,
            "  pass    pass; two passes in a row end the game"
        )?;
        writeln!(self.output, "  resign  give up the game")?;
        writeln!(
            self.output,
            "  undo    take back your last move and the bot's reply"
        )?;
        writeln!(self.output, "  help    show this list")?;
        writeln!(self.output, "  quit    leave the game unfinished")
    }
}

/// `D4`, `pass` or `resign`.
fn action_text(game: &Game, action: Action) -> String {
    match action {
        Action::Move(mv) => game.size().gtp(mv),
        Action::Resign => "resign".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;
    use tengen_core::{BoardSize, RandomBot, Rules};

    fn session(side: usize, human: Color, input: &str) -> Session<Cursor<Vec<u8>>, Vec<u8>> {
        let game = Game::new(BoardSize::square(side).unwrap(), Rules::default());
        Session::new(
            game,
            human,
            Box::new(RandomBot::new(7)),
            Cursor::new(input.as_bytes().to_vec()),
            Vec::new(),
        )
        .with_echo(true)
    }

    fn run(side: usize, human: Color, input: &str) -> (SessionEnd, Game, String) {
        let mut s = session(side, human, input);
        let end = s.run().unwrap();
        let game = s.game().clone();
        (end, game, String::from_utf8(s.into_output()).unwrap())
    }

    #[test]
    fn parses_commands() {
        let game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        let c3 = game.size().parse_gtp("C3").unwrap();
        assert_eq!(parse_command(&game, " c3 \n"), Ok(Some(Command::Move(c3))));
        assert_eq!(
            parse_command(&game, "PASS"),
            Ok(Some(Command::Move(Move::Pass)))
        );
        assert_eq!(parse_command(&game, "Resign"), Ok(Some(Command::Resign)));
        assert_eq!(parse_command(&game, "undo"), Ok(Some(Command::Undo)));
        assert_eq!(parse_command(&game, "help"), Ok(Some(Command::Help)));
        assert_eq!(parse_command(&game, "quit"), Ok(Some(Command::Quit)));
        assert_eq!(parse_command(&game, "  \n"), Ok(None));
        assert_eq!(
            parse_command(&game, "hello"),
            Err(InputError::Unknown("hello".into()))
        );
        let off = parse_command(&game, "Z1").unwrap_err();
        assert_eq!(off.to_string(), "vertex 'Z1' is off the 9x9 board");
        let i = parse_command(&game, "i3").unwrap_err();
        assert!(i.to_string().contains("skip I"), "{i}");
    }

    #[test]
    fn bad_input_is_explained_and_changes_nothing() {
        let (end, game, out) = run(5, Color::Black, "undo\nhello\nZ9\nI3\nc3\nC3\n\nresign\n");
        assert_eq!(
            end,
            SessionEnd::Finished(Outcome::Resignation {
                winner: Color::White
            })
        );
        assert!(out.contains("\nNothing to undo: you have not moved yet in this game.\n"));
        assert!(out.contains("\nInvalid input: 'hello' is neither a move"));
        assert!(out.contains("\nInvalid input: vertex 'Z9' is off the 5x5 board\n"));
        assert!(out.contains("\nInvalid input: invalid vertex 'I3': column letters skip I\n"));
        assert!(
            out.contains("\nIllegal move C3: the point is occupied\n"),
            "{out}"
        );
        assert!(out.contains("Black plays C3\n"));
        // Black's C3 and resignation, White's one reply.
        assert_eq!(game.turn_count(), 3);
        assert!(out.ends_with("Result: W+R (Black resigned)\n"), "{out}");
    }

    #[test]
    fn undo_takes_back_both_moves() {
        let (end, game, out) = run(5, Color::Black, "c3\nundo\nundo\nb2\nquit\n");
        assert_eq!(end, SessionEnd::Quit);
        assert!(out.contains("Took back Black C3 and White "), "{out}");
        assert!(out.contains("Nothing to undo"), "{out}");
        let history: Vec<_> = game.history().collect();
        assert_eq!(history.len(), 2);
        assert_eq!(
            history[0],
            (
                Color::Black,
                Action::Move(game.size().parse_gtp("B2").unwrap())
            )
        );
        assert!(out.ends_with("Leaving the game unfinished.\n"));
    }

    #[test]
    fn the_bot_opens_when_the_person_is_white() {
        let (end, game, out) = run(5, Color::White, "undo\n");
        assert_eq!(end, SessionEnd::EndOfInput);
        assert_eq!(game.turn_count(), 1);
        assert!(out.contains("\nBlack plays "), "{out}");
        assert!(out.contains("White to play (C3, pass, resign, undo, help): "));
        assert!(out.contains("Nothing to undo"));
        assert!(out.ends_with("End of input before the game ended; leaving the game unfinished.\n"));
    }

    #[test]
    fn handicap_undo_keeps_the_stones() {
        let size = BoardSize::square(9).unwrap();
        let game = Game::with_handicap(size, Rules::default(), 2).unwrap();
        let mut s = Session::new(
            game,
            Color::White,
            Box::new(RandomBot::new(3)),
            Cursor::new(b"e5\nundo\nundo\n".to_vec()),
            Vec::new(),
        );
        assert_eq!(s.run().unwrap(), SessionEnd::EndOfInput);
        assert_eq!(s.game().turn_count(), 0);
        assert_eq!(s.game().board().stone_count(Color::Black), 2);
        let out = String::from_utf8(s.into_output()).unwrap();
        assert!(out.contains("handicap 2"), "{out}");
        assert!(out.contains("Took back White E5 and Black "), "{out}");
    }

    #[test]
    fn passing_until_the_bot_passes_ends_with_a_count() {
        // On a 2x2 board the random bot soon has only its own eyes left.
        let input = "pass\n".repeat(50);
        let (end, game, out) = run(2, Color::Black, &input);
        assert!(game.is_over());
        assert!(
            matches!(end, SessionEnd::Finished(Outcome::Counted(_))),
            "{out}"
        );
        assert!(
            out.lines().last().unwrap().starts_with("Result: W+"),
            "{out}"
        );
        assert!(out.contains("with komi 7.5)"));
    }
}
