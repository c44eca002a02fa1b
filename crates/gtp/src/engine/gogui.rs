//! GoGui's commands: `gogui-analyze_commands` (the entries of GoGui's
//! analysis menu), the `gogui-rules_*` family, through which GoGui plays a
//! game whose rules it does not know itself (here: Go or NoGo), and the
//! engine's own pictures of a search in GoGui's `gfx` language:
//! `tengen-candidates`, `tengen-pv` and `tengen-ownership`.
//!
//! The three pictures each run one search of the position as it stands, the
//! way `reg_genmove` does: with the bot's own budget (its playouts or time,
//! or the game's clock) and nothing recorded. A search of the position shown
//! is what GoGui's "run after each change" needs, where the analysis of the
//! bot's last `genmove` would describe the position before its move. A bot
//! that keeps its tree from one search to the next (the MCTS bot does) thinks
//! further each time a picture is asked for again.
//!
//! A `gfx` response is one drawing command a line (GoGui's analyze command
//! documentation): `LABEL` point and text pairs, `COLOR` a colour and
//! points, `VAR` colour and move pairs drawn as numbered stones, `INFLUENCE`
//! point and number pairs from -1 to 1 (positive is Black's, as in GoGui's
//! `dboard`), and `TEXT` for the status bar.

use std::fmt::Write as _;

use tengen_core::{Analysis, BoardSize, Color, Game, Move};

use super::args::{no_args, parse_color};
use super::error::CommandResult;
use super::{CommandError, Engine};

/// Candidates labelled on the board at most, the most visited first: more
/// crowd the board.
const MAX_LABELLED_CANDIDATES: usize = 10;

/// A candidate is labelled only with at least this fraction of the most
/// visited one's visits: the win rate of a move tried a handful of times is
/// noise (0% or 100% after one playout), not the search's opinion.
const MIN_LABELLED_VISIT_SHARE: f64 = 0.1;

/// The background GoGui gives the point of the search's choice.
const BEST_MOVE_COLOR: &str = "green";

impl Engine {
    /// `gogui-analyze_commands`: the menu entries. The `gogui-rules_*`
    /// commands are there for every game; the score and dead stones only
    /// under Go (NoGo never counts); the search pictures only when the bot
    /// can analyse, the ownership only under Go (no territory in NoGo).
    pub(super) fn gogui_analyze_commands(&mut self, args: &[&str]) -> CommandResult {
        no_args(args)?;
        let nogo = self.nogo();
        let mut entries = vec![
            "string/Rules/tengen-rules",
            "pstring/Rules Game Id/gogui-rules_game_id",
            "pstring/Rules Board Size/gogui-rules_board_size",
            "pstring/Rules Side to Move/gogui-rules_side_to_move",
            "pstring/Rules Legal Moves/gogui-rules_legal_moves",
            "pstring/Rules Captured Count/gogui-rules_captured_count",
            "pstring/Rules Final Result/gogui-rules_final_result",
        ];
        if !nogo {
            entries.extend([
                "string/Final Score/final_score",
                "plist/Dead Stones/final_status_list dead",
                "plist/Seki Stones/final_status_list seki",
            ]);
        }
        if self.agent_analyses() {
            // %c: GoGui's colour choice, the side to move unless changed.
            entries.extend([
                "gfx/Candidates/tengen-candidates %c",
                "gfx/Principal Variation/tengen-pv %c",
            ]);
            if !nogo {
                entries.push("gfx/Ownership/tengen-ownership %c");
            }
        }
        Ok(entries.join("\n"))
    }

    /// Whether the agent can analyse positions, on boards of the current size
    /// and under the current game. Asked once per size and game: the agent
    /// is given an empty board and a stop that holds at once, which an agent
    /// that cannot analyse answers with `false` straight away. One that can
    /// has searched for a moment, for as long as the clock let it; it is
    /// reset afterwards so that nothing of that search (a kept tree) carries
    /// into its real ones, which stay reproducible.
    fn agent_analyses(&mut self) -> bool {
        let key = (self.game.size(), self.game.rules().variant);
        if let Some((probed, answer)) = self.analyses {
            if probed == key {
                return answer;
            }
        }
        let empty = Game::new(key.0, *self.game.rules());
        let mut ignore = |_: &tengen_core::Analysis| {};
        let answer = self.agent.analyze(
            &empty,
            &mut tengen_core::SelectRequest::new()
                .stop_when(&|| true)
                .reporting(super::analysis::MIN_INTERVAL, &mut ignore),
        );
        if answer {
            self.agent.reset();
        }
        self.analyses = Some((key, answer));
        answer
    }

    /// The search behind the pictures: `[color]` (the side to move when not
    /// given) searched in the position as it stands (after the end, in the
    /// game `play` would resume), nothing recorded. `None` when there was
    /// nothing to search: a NoGo side without a legal move, or a bot that
    /// answered without searching (the MCTS bot passes at once after its
    /// opponent's pass when the count already wins).
    fn search_for_pictures(
        &mut self,
        args: &[&str],
    ) -> Result<(BoardSize, Color, Option<Analysis>), CommandError> {
        let color = match args {
            [] => None,
            [color] => Some(parse_color(color)?),
            _ => return Err(CommandError::Syntax),
        };
        if !self.agent_analyses() {
            return Err(CommandError::AnalysisUnsupported);
        }
        let game = self.playable_game().into_owned();
        let color = color.unwrap_or(game.to_move());
        let view = game.with_mover(color);
        if view.is_over() {
            return Ok((view.size(), color, None));
        }
        // The move itself is not wanted: only what the search saw.
        let _ = self.agent.select_move(&view);
        Ok((view.size(), color, self.agent.analysis()))
    }

    /// `tengen-candidates [color]`: the search's candidates labelled with
    /// their win rates, the chosen one coloured (see [`candidates_gfx`]).
    pub(super) fn tengen_candidates(&mut self, args: &[&str]) -> CommandResult {
        let (size, color, analysis) = self.search_for_pictures(args)?;
        Ok(match analysis {
            Some(analysis) if !analysis.candidates.is_empty() => {
                candidates_gfx(&analysis, size, color)
            }
            _ => no_search_text(color),
        })
    }

    /// `tengen-pv [color]`: the chosen move's expected continuation as
    /// numbered stones (see [`pv_gfx`]).
    pub(super) fn tengen_pv(&mut self, args: &[&str]) -> CommandResult {
        let (size, color, analysis) = self.search_for_pictures(args)?;
        Ok(match analysis {
            Some(analysis) if !analysis.candidates.is_empty() => pv_gfx(&analysis, size, color),
            _ => no_search_text(color),
        })
    }

    /// `tengen-ownership [color]`: who the search expects to own each point
    /// (see [`ownership_gfx`]).
    pub(super) fn tengen_ownership(&mut self, args: &[&str]) -> CommandResult {
        let (size, color, analysis) = self.search_for_pictures(args)?;
        Ok(match analysis {
            Some(analysis) => ownership_gfx(&analysis, size, color),
            None => no_search_text(color),
        })
    }

    /// `gogui-rules_game_id`: `Go` or `NoGo`.
    pub(super) fn gogui_rules_game_id(&self, args: &[&str]) -> CommandResult {
        no_args(args).map(|_| if self.nogo() { "NoGo" } else { "Go" }.to_string())
    }

    /// `gogui-rules_board_size`: the board's width.
    pub(super) fn gogui_rules_board_size(&self, args: &[&str]) -> CommandResult {
        no_args(args).map(|_| self.game.size().width().to_string())
    }

    /// `gogui-rules_legal_moves`: the side to move's legal moves, pass
    /// included under Go.
    pub(super) fn gogui_rules_legal_moves(&self, args: &[&str]) -> CommandResult {
        no_args(args).map(|_| {
            let size = self.game.size();
            let moves: Vec<String> = self
                .game
                .legal_moves()
                .into_iter()
                .map(|mv| size.gtp(mv))
                .collect();
            moves.join(" ")
        })
    }

    /// `gogui-rules_side_to_move`: `black` or `white`.
    pub(super) fn gogui_rules_side_to_move(&self, args: &[&str]) -> CommandResult {
        no_args(args).map(|_| self.game.to_move().to_string())
    }

    /// `gogui-rules_board`: one line per row from the top, `X` black, `O`
    /// white, `.` empty, separated by spaces.
    pub(super) fn gogui_rules_board(&self, args: &[&str]) -> CommandResult {
        no_args(args)?;
        let board = self.game.board();
        let size = board.size();
        let rows: Vec<String> = (0..size.height())
            .rev()
            .map(|row| {
                (0..size.width())
                    .map(
                        |col| match size.point(col, row).and_then(|p| board.stone(p)) {
                            Some(Color::Black) => "X",
                            Some(Color::White) => "O",
                            None => ".",
                        },
                    )
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        Ok(rows.join("\n"))
    }

    /// `gogui-rules_final_result`: `unknown` while the game goes on; once it
    /// is over, under NoGo GoGui's words for the winner (`black`, `white`),
    /// under Go the result as `final_score` gives it (`B+3.5`, `W+R`).
    pub(super) fn gogui_rules_final_result(&self, args: &[&str]) -> CommandResult {
        no_args(args)?;
        if !self.nogo() {
            // Two passes or a resignation end a Go game; a count before that
            // would be a guess, not a result.
            if !self.ended() {
                return Ok("unknown".to_string());
            }
            return Ok(self.final_outcome().to_string());
        }
        let winner = match self.game.result() {
            None => "unknown",
            Some(outcome) => match outcome.winner() {
                Some(Color::Black) => "black",
                Some(Color::White) => "white",
                None => "draw",
            },
        };
        Ok(winner.to_string())
    }

    /// `gogui-rules_captured_count`: stones captured by Black, then by White.
    pub(super) fn gogui_rules_captured_count(&self, args: &[&str]) -> CommandResult {
        no_args(args).map(|_| {
            let captures = self.game.board().captures();
            format!("{} {}", captures.black, captures.white)
        })
    }
}

/// A win rate in whole percent, for labels and the status bar.
fn percent(winrate: f32) -> u32 {
    (winrate.clamp(0.0, 1.0) * 100.0).round() as u32
}

/// The status line when there is no search to show.
fn no_search_text(color: Color) -> String {
    format!("TEXT {color} to play: nothing searched (no legal move, or the bot passed at once)")
}

/// The candidates of `analysis` (searched for `color`) as GoGui graphics:
/// `LABEL` the most visited points with their win rates for `color` (`56%`;
/// see [`MAX_LABELLED_CANDIDATES`] and [`MIN_LABELLED_VISIT_SHARE`]),
/// `COLOR` the most visited one's point, and a `TEXT` line with the choice,
/// its win rate and the visits. A pass is named in the text only.
fn candidates_gfx(analysis: &Analysis, size: BoardSize, color: Color) -> String {
    let Some(best) = analysis.candidates.first() else {
        return no_search_text(color);
    };
    let min_visits = best.visits as f64 * MIN_LABELLED_VISIT_SHARE;
    let labelled = analysis
        .candidates
        .iter()
        .take(MAX_LABELLED_CANDIDATES)
        .filter(|candidate| candidate.mv != Move::Pass && candidate.visits as f64 >= min_visits);
    let mut out = String::new();
    let mut labels = String::new();
    for candidate in labelled {
        let _ = write!(
            labels,
            " {} {}%",
            size.gtp(candidate.mv),
            percent(candidate.winrate)
        );
    }
    if !labels.is_empty() {
        let _ = writeln!(out, "LABEL{labels}");
    }
    if best.mv != Move::Pass {
        let _ = writeln!(out, "COLOR {BEST_MOVE_COLOR} {}", size.gtp(best.mv));
    }
    let _ = write!(
        out,
        "TEXT {color} to play: {}, win rate {}%, {} of {} playouts",
        size.gtp(best.mv),
        percent(best.winrate),
        best.visits,
        analysis.playouts
    );
    out
}

/// The most visited candidate's expected continuation as GoGui graphics: a
/// `VAR` line of alternating colours from `color` (`VAR b D4 w pass b E5`),
/// and a `TEXT` line with the moves and the win rate.
fn pv_gfx(analysis: &Analysis, size: BoardSize, color: Color) -> String {
    let Some(best) = analysis.candidates.first() else {
        return no_search_text(color);
    };
    // The continuation starts with the candidate's own move; a candidate
    // without one still has that move.
    let moves: Vec<Move> = if best.pv.is_empty() {
        vec![best.mv]
    } else {
        best.pv.clone()
    };
    let mut var = String::from("VAR");
    let mut mover = color;
    for &mv in &moves {
        let _ = write!(
            var,
            " {} {}",
            mover.letter().to_ascii_lowercase(),
            size.gtp(mv)
        );
        mover = !mover;
    }
    let text: Vec<String> = moves.iter().map(|&mv| size.gtp(mv)).collect();
    format!(
        "{var}\nTEXT {color} to play: {} ({}% for {color})",
        text.join(" "),
        percent(best.winrate)
    )
}

/// The ownership of `analysis` as GoGui graphics: one `INFLUENCE` line per
/// row from the top, every point with a number from -1 (surely White's) to 1
/// (surely Black's), and a `TEXT` line with the points each side is expected
/// to own. A `TEXT` line alone when the bot gives no ownership (or one that
/// does not fit the board).
fn ownership_gfx(analysis: &Analysis, size: BoardSize, color: Color) -> String {
    let (width, height) = (size.width(), size.height());
    if analysis.ownership.len() != width * height {
        return format!("TEXT {color} to play: this bot gives no ownership estimate");
    }
    let mut out = String::new();
    let (mut black, mut white) = (0.0f64, 0.0f64);
    // Analysis::ownership runs row by row from the top-left corner.
    for (top_row, values) in analysis.ownership.chunks(width).enumerate() {
        let row = height - 1 - top_row;
        out.push_str("INFLUENCE");
        for (col, &value) in values.iter().enumerate() {
            let value = if value.is_finite() {
                value.clamp(-1.0, 1.0)
            } else {
                0.0
            };
            black += f64::from(1.0 + value) / 2.0;
            white += f64::from(1.0 - value) / 2.0;
            let Some(point) = size.point(col, row) else {
                continue;
            };
            // Two decimals are finer than GoGui draws; -0.00 would read oddly.
            let mut number = format!("{value:.2}");
            if number == "-0.00" {
                number = "0.00".to_string();
            }
            let _ = write!(out, " {} {number}", size.gtp(Move::Play(point)));
        }
        out.push('\n');
    }
    let _ = write!(
        out,
        "TEXT {color} to play: Black owns {black:.1} points, White {white:.1} (komi not counted)"
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::Candidate;

    fn candidate(size: BoardSize, mv: &str, visits: u64, winrate: f32, pv: &[&str]) -> Candidate {
        Candidate {
            mv: size.parse_gtp(mv).unwrap(),
            visits,
            winrate,
            prior: 0.1,
            score_lead: None,
            pv: pv.iter().map(|v| size.parse_gtp(v).unwrap()).collect(),
            ..Candidate::default()
        }
    }

    fn analysis(size: BoardSize) -> Analysis {
        Analysis {
            playouts: 120,
            winrate: 0.556,
            candidates: vec![
                candidate(size, "C3", 80, 0.556, &["C3", "pass", "B2"]),
                candidate(size, "pass", 20, 0.5, &["pass"]),
                candidate(size, "B2", 15, 0.421, &[]),
                // Under a tenth of the best's visits: not labelled.
                candidate(size, "A1", 5, 1.0, &["A1"]),
            ],
            ownership: vec![1.0, 0.5, -0.004, 0.0, -0.25, -1.0, f32::NAN, 2.0, -0.75],
            ..Analysis::default()
        }
    }

    #[test]
    fn candidates_are_labelled_with_their_win_rates() {
        let size = BoardSize::square(3).unwrap();
        assert_eq!(
            candidates_gfx(&analysis(size), size, Color::White),
            "LABEL C3 56% B2 42%\nCOLOR green C3\n\
             TEXT white to play: C3, win rate 56%, 80 of 120 playouts"
        );
        let mut passing = analysis(size);
        passing.candidates.swap(0, 1);
        assert_eq!(
            candidates_gfx(&passing, size, Color::Black),
            "LABEL C3 56% B2 42% A1 100%\n\
             TEXT black to play: pass, win rate 50%, 20 of 120 playouts"
        );
        assert!(candidates_gfx(&Analysis::default(), size, Color::Black).starts_with("TEXT "));
    }

    #[test]
    fn the_continuation_alternates_colours_from_the_one_searched_for() {
        let size = BoardSize::square(3).unwrap();
        assert_eq!(
            pv_gfx(&analysis(size), size, Color::White),
            "VAR w C3 b pass w B2\nTEXT white to play: C3 pass B2 (56% for white)"
        );
        let mut bare = analysis(size);
        bare.candidates.swap(0, 2);
        assert_eq!(
            pv_gfx(&bare, size, Color::Black),
            "VAR b B2\nTEXT black to play: B2 (42% for black)"
        );
    }

    #[test]
    fn ownership_is_drawn_row_by_row_from_the_top() {
        let size = BoardSize::square(3).unwrap();
        assert_eq!(
            ownership_gfx(&analysis(size), size, Color::Black),
            "INFLUENCE A3 1.00 B3 0.50 C3 0.00\n\
             INFLUENCE A2 0.00 B2 -0.25 C2 -1.00\n\
             INFLUENCE A1 0.00 B1 1.00 C1 -0.75\n\
             TEXT black to play: Black owns 4.7 points, White 4.3 (komi not counted)"
        );
        let mut short = analysis(size);
        short.ownership.pop();
        assert_eq!(
            ownership_gfx(&short, size, Color::White),
            "TEXT white to play: this bot gives no ownership estimate"
        );
    }
}
