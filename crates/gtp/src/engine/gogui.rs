//! GoGui's commands: `gogui-analyze_commands` (the entries of GoGui's
//! analysis menu) and the `gogui-rules_*` family, through which GoGui plays
//! a game whose rules it does not know itself (here: Go or NoGo).

use tengen_core::Color;

use super::args::no_args;
use super::error::CommandResult;
use super::Engine;

impl Engine {
    /// `gogui-analyze_commands`: the menu entries; under NoGo without the
    /// score and dead stones, which NoGo never counts.
    pub(super) fn gogui_analyze_commands(&self, args: &[&str]) -> CommandResult {
        no_args(args)?;
        let entries: &[&str] = if self.nogo() {
            &[
                "string/Rules/tengen-rules",
                "string/Final Result/gogui-rules_final_result",
                "plist/Legal Moves/all_legal %m",
            ]
        } else {
            &[
                "string/Rules/tengen-rules",
                "string/Final Score/final_score",
                "plist/Dead Stones/final_status_list dead",
                "plist/Seki Stones/final_status_list seki",
                "plist/Legal Moves/all_legal %m",
            ]
        };
        Ok(entries.join("\n"))
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

    /// `gogui-rules_final_result`: under NoGo GoGui's words for the winner
    /// (`black`, `white`) or `unknown` while the game goes on; under Go the
    /// result as `final_score` gives it.
    pub(super) fn gogui_rules_final_result(&self, args: &[&str]) -> CommandResult {
        no_args(args)?;
        if !self.nogo() {
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
