//! The game every endpoint receives: board size, rules, handicap or setup
//! stones and the whole move list, replayed into a [`Game`] with every move
//! checked. The server keeps no game between requests; this is how it learns
//! the position each time.

use serde::Deserialize;
use tengen_core::{Board, BoardSize, Color, Game, Move, Point, Rules};

use crate::error::ApiError;
use crate::Limits;

/// The book's request (`{"board_size": 9, "moves": ["D4", "pass"]}`) with
/// tengen's optional extensions. Unknown fields are ignored so that clients
/// written for the book's server keep working.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct GameRequest {
    /// Side of the square board, 1 to 25.
    pub board_size: u64,
    /// The history in GTP vertices (`D4`, `pass`, `resign`), the first move
    /// by Black (by White after a handicap, or by `setup.to_move`).
    #[serde(default)]
    pub moves: Vec<String>,
    /// Komi, overriding the rules' own. With a handicap and no komi, 0.5.
    #[serde(default)]
    pub komi: Option<f64>,
    /// Rules by preset name, optionally with overrides (`chinese`,
    /// `japanese,komi=0`); the default is `aga`.
    #[serde(default)]
    pub rules: Option<String>,
    /// Fixed handicap stones for Black (GTP placement); White moves first.
    #[serde(default)]
    pub handicap: u32,
    /// Stones on the board before the first move, instead of a fixed handicap.
    #[serde(default)]
    pub setup: Option<Setup>,
    /// How long the bot may think (select-move only).
    #[serde(default)]
    pub budget: Option<Budget>,
    /// Seed of the bot's random choices (select-move only); the same request
    /// with the same seed gets the same answer from deterministic bots.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Dead stones as the players agreed on them (score and SGF only); when
    /// absent the server estimates them.
    #[serde(default)]
    pub dead: Option<Vec<String>>,
    /// Players' names for the record (SGF only).
    #[serde(default)]
    pub players: Option<Players>,
}

/// Players' names, for the SGF record's `PB` and `PW`.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Players {
    /// Black's name.
    #[serde(default)]
    pub black: Option<String>,
    /// White's name.
    #[serde(default)]
    pub white: Option<String>,
}

/// Set-up stones (SGF `AB`/`AW`, free handicap) and who moves first.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct Setup {
    /// Black stones.
    #[serde(default)]
    pub black: Vec<String>,
    /// White stones.
    #[serde(default)]
    pub white: Vec<String>,
    /// `black` (default) or `white`.
    #[serde(default)]
    pub to_move: Option<String>,
}

/// A thinking budget, mapped onto the bot's `playouts` and `time` options
/// when it has them.
#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub struct Budget {
    /// Playouts (or network evaluations) per move.
    #[serde(default)]
    pub playouts: Option<u64>,
    /// Seconds per move.
    #[serde(default)]
    pub seconds: Option<f64>,
}

impl GameRequest {
    /// The board size, checked.
    pub fn size(&self) -> Result<BoardSize, ApiError> {
        usize::try_from(self.board_size)
            .ok()
            .and_then(|side| BoardSize::square(side).ok())
            .ok_or(ApiError::BoardSize(self.board_size))
    }

    /// The rules with the komi applied.
    pub fn rules(&self) -> Result<Rules, ApiError> {
        let mut rules = match &self.rules {
            Some(text) => text.parse::<Rules>().map_err(ApiError::Rules)?,
            None => Rules::default(),
        };
        match self.komi {
            Some(komi) if !komi.is_finite() || komi.abs() > 1000.0 => {
                return Err(ApiError::Komi(komi))
            }
            Some(komi) => rules = rules.with_komi(komi),
            // As in `tengen play`: a handicap game without a komi gets half a point.
            None if self.handicap > 0 => rules = rules.with_komi(0.5),
            None => {}
        }
        Ok(rules)
    }

    /// The game after every move of the list, each checked by the rules.
    /// Errors name the first bad move by its index.
    pub fn replay(&self, limits: &Limits) -> Result<Game, ApiError> {
        let size = self.size()?;
        let rules = self.rules()?;
        if self.moves.len() > limits.max_moves {
            return Err(ApiError::TooManyMoves {
                count: self.moves.len(),
                max: limits.max_moves,
            });
        }
        let mut game = self.start(size, rules)?;
        for (index, text) in self.moves.iter().enumerate() {
            let text = text.trim();
            if text.eq_ignore_ascii_case("resign") {
                game.resign()
                    .map_err(|reason| ApiError::illegal_move(index, text, reason))?;
                continue;
            }
            let mv = size.parse_gtp(text).map_err(|error| ApiError::BadMove {
                index,
                text: text.to_string(),
                reason: error.to_string(),
            })?;
            game.play(mv)
                .map_err(|reason| ApiError::illegal_move(index, text, reason))?;
        }
        Ok(game)
    }

    /// The position before the first move.
    fn start(&self, size: BoardSize, rules: Rules) -> Result<Game, ApiError> {
        match (&self.setup, self.handicap) {
            (Some(_), handicap) if handicap > 0 => Err(ApiError::Setup(
                "give either handicap or setup stones, not both".to_string(),
            )),
            (None, 0) => Ok(Game::new(size, rules)),
            (None, handicap) => Game::with_handicap(size, rules, handicap as usize)
                .map_err(|error| ApiError::Setup(error.to_string())),
            (Some(setup), _) => {
                let to_move = match setup.to_move.as_deref() {
                    None => Color::Black,
                    Some(text) => Color::parse(text).ok_or_else(|| {
                        ApiError::Setup(format!(
                            "setup.to_move '{text}' is not a colour (black or white)"
                        ))
                    })?,
                };
                let mut board = Board::new(size);
                for (color, list, field) in [
                    (Color::Black, &setup.black, "setup.black"),
                    (Color::White, &setup.white, "setup.white"),
                ] {
                    if list.len() > size.points_count() {
                        return Err(ApiError::Setup(format!(
                            "{field} has {} stones, more than the board has points",
                            list.len()
                        )));
                    }
                    for (index, text) in list.iter().enumerate() {
                        let point = parse_point(size, text).map_err(|reason| {
                            ApiError::Setup(format!("{field}[{index}] = '{text}': {reason}"))
                        })?;
                        board.place_setup_stone(point, color).map_err(|_| {
                            let reason = if board.is_empty_at(point) {
                                "the stone would capture or have no liberty"
                            } else {
                                "the point is already occupied"
                            };
                            ApiError::Setup(format!("{field}[{index}] = '{text}': {reason}"))
                        })?;
                    }
                }
                Ok(Game::from_position(board, to_move, rules))
            }
        }
    }

    /// The dead stones the request names, checked to be stones.
    pub fn dead_stones(&self, game: &Game) -> Result<Option<Vec<Point>>, ApiError> {
        let Some(list) = &self.dead else {
            return Ok(None);
        };
        let size = game.size();
        let mut points = Vec::with_capacity(list.len());
        for (index, text) in list.iter().enumerate() {
            let bad = |reason: String| ApiError::BadDeadStone {
                index,
                text: text.clone(),
                reason,
            };
            let point = parse_point(size, text).map_err(bad)?;
            if game.board().stone(point).is_none() {
                return Err(bad("there is no stone there".to_string()));
            }
            points.push(point);
        }
        Ok(Some(points))
    }
}

/// A vertex that must be a point (not `pass`).
fn parse_point(size: BoardSize, text: &str) -> Result<Point, String> {
    match size.parse_gtp(text.trim()) {
        Ok(Move::Play(point)) => Ok(point),
        Ok(Move::Pass) => Err("a point is needed, not pass".to_string()),
        Err(error) => Err(error.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(size: u64, moves: &[&str]) -> GameRequest {
        GameRequest {
            board_size: size,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            ..GameRequest::default()
        }
    }

    #[test]
    fn replays_and_names_the_first_bad_move() {
        let limits = Limits::default();
        let game = request(9, &["D4", "pass", "e5"]).replay(&limits).unwrap();
        assert_eq!(game.turn_count(), 3);
        let err = request(9, &["D4", "D4"]).replay(&limits).unwrap_err();
        assert_eq!(
            err.to_string(),
            "moves[1] = 'D4': illegal move: the point is occupied"
        );
        let err = request(9, &["D4", "Z1"]).replay(&limits).unwrap_err();
        assert!(err.to_string().starts_with("moves[1] = 'Z1': "), "{err}");
        assert!(request(0, &[]).replay(&limits).is_err());
        assert!(request(26, &[]).replay(&limits).is_err());
    }

    #[test]
    fn handicap_gives_white_the_first_move_and_half_a_point() {
        let mut req = request(9, &["pass"]);
        req.handicap = 4;
        let game = req.replay(&Limits::default()).unwrap();
        assert_eq!(game.to_move(), Color::Black);
        assert_eq!(game.rules().komi, 0.5);
        assert_eq!(game.board().stone_count(Color::Black), 4);
    }

    #[test]
    fn setup_stones_are_checked() {
        let mut req = request(9, &[]);
        req.setup = Some(Setup {
            black: vec!["A1".into(), "A1".into()],
            ..Setup::default()
        });
        let err = req.replay(&Limits::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "setup.black[1] = 'A1': the point is already occupied"
        );
    }
}
