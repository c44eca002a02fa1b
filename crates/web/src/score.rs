//! The count of a position: dead stones (agreed by the players, or estimated
//! by the same Monte Carlo status estimate the GTP engine's
//! `final_status_list` uses, [`tengen_core::scoring::game_status`]), the
//! score under the game's rules, and who owns each point, for the page to
//! draw territory.

use serde::Serialize;
use tengen_core::scoring::{game_status, ownership, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED};
use tengen_core::{ByColor, Color, Game, Move, Outcome, Point, Scoring};

/// The answer of `POST /api/score`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ScoreReport {
    /// `B+3.5`, `W+R`, `0` for a draw.
    pub result: String,
    /// `black`, `white`, or `null` for a draw.
    pub winner: Option<&'static str>,
    /// Whether the game has ended (two passes or a resignation); a count of
    /// an unfinished game is an estimate.
    pub game_over: bool,
    /// Black's points.
    pub black: f64,
    /// White's points, komi included.
    pub white: f64,
    /// The komi.
    pub komi: f64,
    /// `area` or `territory`.
    pub scoring: &'static str,
    /// The rules, as a preset name or spelled out.
    pub rules: String,
    /// The stones counted as dead, as vertices.
    pub dead: Vec<String>,
    /// Whether `dead` was estimated by the server rather than given.
    pub dead_estimated: bool,
    /// Who each point counts for, one string per row from the top: `B`, `W`,
    /// or `.` for neutral points; live stones count for their colour.
    pub ownership: Vec<String>,
    /// Territory points (empty or dead-stone points) of each colour.
    pub territory: ColorCounts,
    /// Stones each colour has captured during the game.
    pub captures: ColorCounts,
}

/// A number per colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ColorCounts {
    /// Black's.
    pub black: u32,
    /// White's.
    pub white: u32,
}

impl From<ByColor<u32>> for ColorCounts {
    fn from(counts: ByColor<u32>) -> ColorCounts {
        ColorCounts {
            black: counts.black,
            white: counts.white,
        }
    }
}

/// The dead stones of `game`'s final position as the core's estimate sees
/// them, with the same playouts and seed as the GTP engine and the match
/// referee ([`game_status`]).
pub fn estimate_dead(game: &Game) -> Vec<Point> {
    game_status(game, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED).dead_points()
}

/// Counts `game` with the stones at `dead` removed (estimated when `None`).
pub fn score(game: &Game, dead: Option<Vec<Point>>) -> ScoreReport {
    let dead_estimated = dead.is_none();
    let dead = dead.unwrap_or_else(|| estimate_dead(game));
    let size = game.size();
    let counted = game.score_with_dead(&dead);
    let outcome = match game.resigned() {
        Some(loser) => Outcome::Resignation { winner: !loser },
        None => Outcome::Counted(counted),
    };
    let own = ownership(game.board(), &dead);
    // `ownership` lists points bottom row first; the page wants rows from the top.
    let width = size.width();
    let mut rows: Vec<String> = own
        .owner
        .chunks(width)
        .map(|row| {
            row.iter()
                .map(|owner| match owner {
                    Some(Color::Black) => 'B',
                    Some(Color::White) => 'W',
                    None => '.',
                })
                .collect()
        })
        .collect();
    rows.reverse();
    let rules = game.rules();
    ScoreReport {
        result: outcome.to_string(),
        winner: outcome.winner().map(Color::name),
        game_over: game.is_over(),
        black: counted.black,
        white: counted.white,
        komi: rules.komi,
        scoring: match rules.scoring {
            Scoring::Area => "area",
            Scoring::Territory => "territory",
        },
        rules: rules.to_string(),
        dead: dead.iter().map(|&p| size.gtp(Move::Play(p))).collect(),
        dead_estimated,
        ownership: rows,
        territory: own.territory.into(),
        captures: game.board().captures().into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::{BoardSize, Rules};

    #[test]
    fn an_empty_board_is_komi_for_white() {
        let game = Game::new(BoardSize::square(5).unwrap(), Rules::default());
        let report = score(&game, None);
        assert_eq!(report.result, "W+7.5");
        assert_eq!(report.ownership, vec![".....".to_string(); 5]);
        assert!(!report.game_over);
    }

    #[test]
    fn ownership_rows_run_from_the_top() {
        let size = BoardSize::square(5).unwrap();
        let mut game = Game::new(size, Rules::default().with_komi(0.5));
        for mv in ["A5", "pass", "pass"] {
            game.play(size.parse_gtp(mv).unwrap()).unwrap();
        }
        let report = score(&game, Some(Vec::new()));
        assert_eq!(report.ownership[0], "BBBBB");
        assert_eq!(report.result, "B+24.5");
        assert!(report.game_over);
        assert!(!report.dead_estimated);
    }
}
