//! The typed commands: one method per GTP command the controller sends, each
//! writing its arguments and reading its answer ([`GenMove`],
//! [`FinalScore`], stone lists), with the answer types.

use std::fmt;
use std::time::Duration;

use tengen_core::{Action, BoardSize, Color, Move, Point};

use super::{Controller, ControllerError};

/// What `genmove` produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenMove {
    /// A stone or a pass.
    Move(Move),
    /// The engine resigns.
    Resign,
}

impl From<GenMove> for Action {
    fn from(generated: GenMove) -> Action {
        match generated {
            GenMove::Move(mv) => Action::Move(mv),
            GenMove::Resign => Action::Resign,
        }
    }
}

/// A stone status for `final_status_list`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoneStatus {
    /// Stones that stay on the board.
    Alive,
    /// Stones that are removed before counting.
    Dead,
    /// Stones alive in seki.
    Seki,
}

impl StoneStatus {
    /// The GTP word: `alive`, `dead` or `seki`.
    pub fn gtp(self) -> &'static str {
        match self {
            StoneStatus::Alive => "alive",
            StoneStatus::Dead => "dead",
            StoneStatus::Seki => "seki",
        }
    }
}

/// An engine's `final_score` answer: `B+3.5`, `W+R`, `0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinalScore {
    /// The side ahead, `None` for a draw.
    pub winner: Option<Color>,
    /// By how much, when a number was given (`None` for `B+R` and the like).
    pub margin: Option<f64>,
}

impl FinalScore {
    /// Reads a result in GTP/SGF style: `B+3.5`, `W+0.5`, `B+R`, `W+T`, `0`,
    /// `Draw`, `Jigo` (case does not matter).
    pub fn parse(text: &str) -> Option<FinalScore> {
        let text = text.trim();
        if text == "0" || text.eq_ignore_ascii_case("draw") || text.eq_ignore_ascii_case("jigo") {
            return Some(FinalScore {
                winner: None,
                margin: Some(0.0),
            });
        }
        let (color, amount) = text.split_once('+')?;
        let winner = Color::parse(color)?;
        let amount = amount.trim();
        if amount.is_empty() {
            return Some(FinalScore {
                winner: Some(winner),
                margin: None,
            });
        }
        match amount.parse::<f64>() {
            Ok(margin) if margin.is_finite() && margin >= 0.0 => Some(FinalScore {
                winner: if margin == 0.0 { None } else { Some(winner) },
                margin: Some(margin),
            }),
            Ok(_) => None,
            // `R` (resignation), `T` (time), `F` (forfeit) and the like.
            Err(_) if amount.chars().all(|c| c.is_ascii_alphabetic()) => Some(FinalScore {
                winner: Some(winner),
                margin: None,
            }),
            Err(_) => None,
        }
    }
}

impl fmt::Display for FinalScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.winner, self.margin) {
            (None, _) => f.write_str("0"),
            (Some(winner), Some(margin)) => write!(f, "{}+{}", winner.letter(), margin),
            (Some(winner), None) => write!(f, "{}+?", winner.letter()),
        }
    }
}

impl Controller {
    /// `protocol_version`.
    pub fn protocol_version(&mut self) -> Result<String, ControllerError> {
        self.send("protocol_version")
    }

    /// `name`: the engine's name.
    pub fn name(&mut self) -> Result<String, ControllerError> {
        self.send("name")
    }

    /// `version`: the engine's version (may be empty).
    pub fn version(&mut self) -> Result<String, ControllerError> {
        self.send("version")
    }

    /// `known_command`: whether the engine knows `command`.
    pub fn known_command(&mut self, command: &str) -> Result<bool, ControllerError> {
        let answer = self.send(&format!("known_command {command}"))?;
        Ok(answer.trim() == "true")
    }

    /// `list_commands`: every command the engine knows.
    pub fn list_commands(&mut self) -> Result<Vec<String>, ControllerError> {
        let answer = self.send("list_commands")?;
        Ok(answer.split_whitespace().map(str::to_string).collect())
    }

    /// `boardsize`: `boardsize N` for a square board; a rectangle is sent as
    /// `boardsize WxH`, which standard engines refuse. On success the size is
    /// used for the vertices of later commands.
    pub fn boardsize(&mut self, size: BoardSize) -> Result<(), ControllerError> {
        self.send(&format!("boardsize {size}"))?;
        self.size = size;
        Ok(())
    }

    /// `clear_board`.
    pub fn clear_board(&mut self) -> Result<(), ControllerError> {
        self.send("clear_board").map(drop)
    }

    /// `komi`.
    pub fn komi(&mut self, komi: f64) -> Result<(), ControllerError> {
        self.send(&format!("komi {komi}")).map(drop)
    }

    /// `play color vertex`: tells the engine about a move.
    pub fn play(&mut self, color: Color, mv: Move) -> Result<(), ControllerError> {
        let vertex = self.size.gtp(mv);
        self.send(&format!("play {} {vertex}", color.name()))
            .map(drop)
    }

    /// `genmove color`: asks the engine for a move, which it also plays on its
    /// own board. A vertex that cannot be read, or is off the board, is
    /// [`ControllerError::Malformed`]; whether the move is legal is for the
    /// caller to judge.
    pub fn genmove(&mut self, color: Color) -> Result<GenMove, ControllerError> {
        let command = format!("genmove {}", color.name());
        let answer = self.send(&command)?;
        let word = answer.trim();
        if word.eq_ignore_ascii_case("resign") {
            return Ok(GenMove::Resign);
        }
        self.size
            .parse_gtp(word)
            .map(GenMove::Move)
            .map_err(|err| ControllerError::Malformed {
                command,
                response: answer.clone(),
                reason: err.to_string(),
            })
    }

    /// `final_score`: the engine's own count of the position.
    pub fn final_score(&mut self) -> Result<FinalScore, ControllerError> {
        let answer = self.send("final_score")?;
        FinalScore::parse(&answer).ok_or_else(|| ControllerError::Malformed {
            command: "final_score".to_string(),
            response: answer.clone(),
            reason: "expected a result such as B+3.5, W+R or 0".to_string(),
        })
    }

    /// `final_status_list status`: the stones the engine considers to have
    /// that status, one point per stone (lines may list whole chains).
    pub fn final_status_list(
        &mut self,
        status: StoneStatus,
    ) -> Result<Vec<Point>, ControllerError> {
        let command = format!("final_status_list {}", status.gtp());
        let answer = self.send(&command)?;
        self.vertices(command, answer)
    }

    /// `fixed_handicap stones`: the engine places `stones` handicap stones
    /// where the GTP specification puts them and names the points.
    pub fn fixed_handicap(&mut self, stones: usize) -> Result<Vec<Point>, ControllerError> {
        let command = format!("fixed_handicap {stones}");
        let answer = self.send(&command)?;
        self.vertices(command, answer)
    }

    /// `set_free_handicap vertex…`: tells the engine where Black's handicap
    /// stones stand (on an empty board).
    pub fn set_free_handicap(&mut self, points: &[Point]) -> Result<(), ControllerError> {
        let vertices: Vec<String> = points
            .iter()
            .map(|&point| self.size.gtp(Move::Play(point)))
            .collect();
        self.send(&format!("set_free_handicap {}", vertices.join(" ")))
            .map(drop)
    }

    /// The points of an answer that lists vertices, or why it does not.
    fn vertices(&self, command: String, answer: String) -> Result<Vec<Point>, ControllerError> {
        let mut points = Vec::new();
        for word in answer.split_whitespace() {
            match self.size.parse_gtp(word) {
                Ok(Move::Play(point)) => points.push(point),
                Ok(Move::Pass) | Err(_) => {
                    return Err(ControllerError::Malformed {
                        command,
                        reason: format!("'{word}' is not a vertex on this board"),
                        response: answer,
                    })
                }
            }
        }
        Ok(points)
    }

    /// `time_settings main byo_yomi stones`: main time, then `byo_yomi` for
    /// every `stones` moves (Canadian overtime); whole seconds, rounded up.
    /// `byo_yomi` zero with `stones` zero means no overtime.
    pub fn time_settings(
        &mut self,
        main: Duration,
        byo_yomi: Duration,
        stones: u32,
    ) -> Result<(), ControllerError> {
        self.send(&format!(
            "time_settings {} {} {stones}",
            whole_seconds(main),
            whole_seconds(byo_yomi)
        ))
        .map(drop)
    }

    /// `time_left color time stones`: the time `color` has left, and the stones
    /// still to play in the current overtime period (0 in main time).
    pub fn time_left(
        &mut self,
        color: Color,
        left: Duration,
        stones: u32,
    ) -> Result<(), ControllerError> {
        self.send(&format!(
            "time_left {} {} {stones}",
            color.name(),
            whole_seconds(left)
        ))
        .map(drop)
    }
}

/// Seconds rounded up, since GTP times are whole seconds and rounding down
/// could tell an engine it has no time at all.
fn whole_seconds(duration: Duration) -> u64 {
    duration.as_secs() + u64::from(duration.subsec_nanos() > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_final_scores() {
        let parse = |s: &str| FinalScore::parse(s);
        assert_eq!(
            parse("B+2.0"),
            Some(FinalScore {
                winner: Some(Color::Black),
                margin: Some(2.0)
            })
        );
        assert_eq!(
            parse("w+R"),
            Some(FinalScore {
                winner: Some(Color::White),
                margin: None
            })
        );
        assert_eq!(parse("0").and_then(|s| s.winner), None);
        assert_eq!(parse("Draw").map(|s| s.margin), Some(Some(0.0)));
        assert_eq!(parse("B+3.5").unwrap().to_string(), "B+3.5");
        for bad in ["", "X+1", "B-3", "B+-1", "B+1.5.2", "B+inf"] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn rounds_seconds_up() {
        assert_eq!(whole_seconds(Duration::from_millis(1500)), 2);
        assert_eq!(whole_seconds(Duration::from_secs(3)), 3);
        assert_eq!(whole_seconds(Duration::ZERO), 0);
    }
}
