//! The match report: results per engine and colour, the win rate with its
//! confidence interval, the Elo difference, game lengths, times, forfeits.

use std::fmt;
use std::time::Duration;

use tengen_core::{BoardSize, Color, Rules};

use crate::record::{Forfeit, GameEnd, GameRecord};
use crate::stats::{elo_estimate, wilson_interval, Estimate, Z_95};

/// The outcome of a match: every game's record and the figures drawn from
/// them. `Display` prints a readable table.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchReport {
    /// The engines' `name version`.
    pub names: [String; 2],
    /// The engines' command lines.
    pub engines: [String; 2],
    /// The board size.
    pub size: BoardSize,
    /// The referee's rules, komi included.
    pub rules: Rules,
    /// Games taken from the results file rather than played in this run.
    pub resumed: usize,
    /// Every game, in index order.
    pub games: Vec<GameRecord>,
}

impl MatchReport {
    /// Games won by each engine.
    pub fn wins(&self) -> [usize; 2] {
        [0, 1].map(|e| self.games.iter().filter(|g| g.winner == Some(e)).count())
    }

    /// Drawn games.
    pub fn draws(&self) -> usize {
        self.games.iter().filter(|g| g.winner.is_none()).count()
    }

    /// Games `engine` played with `color`.
    pub fn games_as(&self, engine: usize, color: Color) -> usize {
        self.games
            .iter()
            .filter(|g| g.color_of(engine) == color)
            .count()
    }

    /// Games `engine` won with `color`.
    pub fn wins_as(&self, engine: usize, color: Color) -> usize {
        self.games
            .iter()
            .filter(|g| g.winner == Some(engine) && g.color_of(engine) == color)
            .count()
    }

    /// Games won by each colour: Black's, then White's.
    pub fn wins_by_color(&self) -> [usize; 2] {
        [Color::Black, Color::White].map(|color| {
            self.games
                .iter()
                .filter(|g| g.winner_color() == Some(color))
                .count()
        })
    }

    /// Engine 0's score rate (draws count half) with its 95% Wilson interval.
    pub fn score_rate(&self) -> Estimate {
        let points: f64 = self.games.iter().map(GameRecord::engine0_score).sum();
        wilson_interval(points, self.games.len() as f64, Z_95)
    }

    /// Engine 0's Elo advantage over engine 1, with the interval mapped from
    /// [`MatchReport::score_rate`]'s.
    pub fn elo(&self) -> Estimate {
        elo_estimate(self.score_rate())
    }

    /// Mean turns per game; zero with no games.
    pub fn mean_length(&self) -> f64 {
        if self.games.is_empty() {
            return 0.0;
        }
        self.games.iter().map(|g| g.moves as f64).sum::<f64>() / self.games.len() as f64
    }

    /// Each engine's mean thinking time per move over the whole match.
    pub fn mean_time_per_move(&self) -> [Duration; 2] {
        [0, 1].map(|e| {
            let moves: usize = self.games.iter().map(|g| g.time[e].moves).sum();
            let total: Duration = self.games.iter().map(|g| g.time[e].total).sum();
            if moves == 0 {
                Duration::ZERO
            } else {
                total.div_f64(moves as f64)
            }
        })
    }

    /// Every forfeit with its game's index.
    pub fn forfeits(&self) -> Vec<(usize, &Forfeit)> {
        self.games
            .iter()
            .filter_map(|g| g.forfeit.as_ref().map(|f| (g.index, f)))
            .collect()
    }

    /// Forfeits by each engine.
    pub fn forfeit_counts(&self) -> [usize; 2] {
        [0, 1].map(|e| {
            self.forfeits()
                .iter()
                .filter(|(_, f)| f.engine == e)
                .count()
        })
    }

    /// Games ended in each way.
    pub fn ends(&self, end: GameEnd) -> usize {
        self.games.iter().filter(|g| g.end == end).count()
    }

    /// Counted games in which an engine's `final_score` contradicted the
    /// referee's count.
    pub fn score_disagreements(&self) -> usize {
        self.games.iter().filter(|g| g.scores_disagree()).count()
    }

    /// Counted games (by passes or the turn limit).
    pub fn counted_games(&self) -> usize {
        self.ends(GameEnd::Passes) + self.ends(GameEnd::MoveLimit)
    }
}

fn percent(rate: f64) -> String {
    format!("{:.1}%", rate * 100.0)
}

fn elo_text(elo: f64) -> String {
    if elo.is_infinite() {
        if elo > 0.0 { "+inf" } else { "-inf" }.to_string()
    } else {
        format!("{elo:+.0}")
    }
}

impl fmt::Display for MatchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_header(f)?;
        self.write_engine_table(f)?;
        self.write_figures(f)?;
        self.write_forfeits(f)
    }
}

impl MatchReport {
    /// The report's first lines: the engines, board, rules and game count.
    fn write_header(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let games = self.games.len();
        writeln!(
            f,
            "Match: {} vs {} on {}x{}, rules {} (komi {})",
            self.names[0],
            self.names[1],
            self.size.width(),
            self.size.height(),
            self.rules,
            self.rules.komi
        )?;
        write!(f, "Games: {games}")?;
        if self.resumed > 0 {
            write!(f, " ({} resumed from the results file)", self.resumed)?;
        }
        writeln!(f)?;
        writeln!(f)?;
        Ok(())
    }

    /// The table of each engine's wins, by colour, forfeits and time per
    /// move, with the draws and the wins by colour under it.
    fn write_engine_table(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self
            .names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(0)
            .max(6);
        writeln!(
            f,
            "  #  {:<width$}  {:>5}  {:>8}  {:>8}  {:>8}  {:>10}",
            "engine", "wins", "as Black", "as White", "forfeits", "time/move"
        )?;
        let wins = self.wins();
        let forfeits = self.forfeit_counts();
        let times = self.mean_time_per_move();
        for e in 0..2 {
            let as_black = format!(
                "{}/{}",
                self.wins_as(e, Color::Black),
                self.games_as(e, Color::Black)
            );
            let as_white = format!(
                "{}/{}",
                self.wins_as(e, Color::White),
                self.games_as(e, Color::White)
            );
            writeln!(
                f,
                "  {e}  {:<width$}  {:>5}  {as_black:>8}  {as_white:>8}  {:>8}  {:>8.3} s",
                self.names[e],
                wins[e],
                forfeits[e],
                times[e].as_secs_f64()
            )?;
        }
        let by_color = self.wins_by_color();
        writeln!(
            f,
            "  Draws: {}; wins by colour: Black {}, White {}",
            self.draws(),
            by_color[0],
            by_color[1]
        )?;
        writeln!(f)?;
        Ok(())
    }

    /// Engine 0's score and the Elo difference with their intervals, game
    /// lengths and endings, and the score disagreements.
    fn write_figures(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rate = self.score_rate();
        let elo = self.elo();
        writeln!(
            f,
            "Engine 0 score: {} (95% CI {} to {}), draws counting half",
            percent(rate.value),
            percent(rate.low),
            percent(rate.high)
        )?;
        writeln!(
            f,
            "Elo difference (engine 0 minus engine 1): {} (95% CI {} to {})",
            elo_text(elo.value),
            elo_text(elo.low),
            elo_text(elo.high)
        )?;
        writeln!(
            f,
            "Mean game length: {:.1} turns; ended by passes {}, resignation {}, turn limit {}, forfeit {}",
            self.mean_length(),
            self.ends(GameEnd::Passes),
            self.ends(GameEnd::Resignation),
            self.ends(GameEnd::MoveLimit),
            self.ends(GameEnd::Forfeit)
        )?;
        let stuck = self.ends(GameEnd::NoLegalMove);
        if stuck > 0 {
            writeln!(f, "NoGo games lost for want of a legal move: {stuck}")?;
        }
        writeln!(
            f,
            "Score disagreements (engine final_score vs referee): {} of {} counted games",
            self.score_disagreements(),
            self.counted_games()
        )?;
        Ok(())
    }

    /// Every forfeit, one line each, if there were any.
    fn write_forfeits(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let forfeits = self.forfeits();
        if !forfeits.is_empty() {
            writeln!(f, "Forfeits:")?;
            for (index, forfeit) in forfeits {
                let game = &self
                    .games
                    .iter()
                    .find(|g| g.index == index)
                    .expect("listed");
                write!(
                    f,
                    "  game {index}: engine {} ({}) as {}, {}",
                    forfeit.engine,
                    self.names[forfeit.engine],
                    game.color_of(forfeit.engine).name(),
                    forfeit.kind
                )?;
                if let Some(mv) = &forfeit.mv {
                    write!(f, " {mv}")?;
                }
                writeln!(f, ": {}", forfeit.reason)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{EngineTime, ForfeitKind};

    fn game(index: usize, winner: Option<usize>, end: GameEnd) -> GameRecord {
        GameRecord {
            index,
            black: index % 2,
            winner,
            result: String::new(),
            end,
            moves: 10 * (index + 1),
            forfeit: None,
            dead_stones: 0,
            dead_agreed: None,
            engine_scores: [None, None],
            scores_agree: [None, None],
            time: [
                EngineTime {
                    moves: 5,
                    total: Duration::from_millis(500),
                    max: Duration::from_millis(200),
                },
                EngineTime {
                    moves: 5,
                    total: Duration::from_millis(1000),
                    max: Duration::from_millis(300),
                },
            ],
            move_times: Vec::new(),
            names: ["A".into(), "B".into()],
            sgf: None,
            opening: None,
        }
    }

    #[test]
    fn figures_add_up() {
        let mut forfeit = game(3, Some(0), GameEnd::Forfeit);
        forfeit.forfeit = Some(Forfeit {
            engine: 1,
            kind: ForfeitKind::IllegalMove,
            mv: Some("A1".into()),
            reason: "black A1: the point is occupied".into(),
        });
        let mut disagreeing = game(1, Some(1), GameEnd::Passes);
        disagreeing.scores_agree = [Some(true), Some(false)];
        let report = MatchReport {
            names: ["A 1.0".into(), "B 2.0".into()],
            engines: ["a".into(), "b".into()],
            size: BoardSize::square(9).unwrap(),
            rules: Rules::default(),
            resumed: 1,
            games: vec![
                game(0, Some(0), GameEnd::Resignation),
                disagreeing,
                game(2, None, GameEnd::MoveLimit),
                forfeit,
            ],
        };
        assert_eq!(report.wins(), [2, 1]);
        assert_eq!(report.draws(), 1);
        // Engine 0: Black in games 0 and 2 (won 0), White in 1 and 3 (won 3).
        assert_eq!(report.wins_as(0, Color::Black), 1);
        assert_eq!(report.wins_as(0, Color::White), 1);
        assert_eq!(report.games_as(0, Color::Black), 2);
        // Black won games 0 and 1, White game 3.
        assert_eq!(report.wins_by_color(), [2, 1]);
        assert_eq!(report.score_rate().value, 2.5 / 4.0);
        assert_eq!(report.mean_length(), 25.0);
        assert_eq!(
            report.mean_time_per_move(),
            [Duration::from_millis(100), Duration::from_millis(200)]
        );
        assert_eq!(report.forfeit_counts(), [0, 1]);
        assert_eq!(report.score_disagreements(), 1);
        assert_eq!(report.counted_games(), 2);
        let text = report.to_string();
        assert!(text.contains("Elo difference"), "{text}");
        assert!(
            text.contains("game 3: engine 1 (B 2.0) as black, illegal-move A1"),
            "{text}"
        );
        assert!(text.contains("1 resumed"), "{text}");
    }

    #[test]
    fn empty_and_one_sided_reports_print() {
        let mut report = MatchReport {
            names: ["A".into(), "B".into()],
            engines: ["a".into(), "b".into()],
            size: BoardSize::square(9).unwrap(),
            rules: Rules::default(),
            resumed: 0,
            games: Vec::new(),
        };
        assert!(report.to_string().contains("Games: 0"));
        report.games = (0..4).map(|i| game(i, Some(0), GameEnd::Passes)).collect();
        let text = report.to_string();
        assert!(text.contains("+inf"), "{text}");
        assert!(text.contains("100.0%"), "{text}");
    }
}
