//! Moves from the agent: `genmove`, `reg_genmove` and `kgs-genmove_cleanup`
//! (with NoGo's `resign` instead of `pass`), and the check of every action
//! the agent returns against the real game.

use tengen_core::{Action, Color, Game, Move};

use super::args::parse_color;
use super::error::CommandResult;
use super::{CommandError, Engine};

impl Engine {
    /// `genmove color` (`commit`), `reg_genmove color` (not `commit`: nothing
    /// is recorded) and `kgs-genmove_cleanup color` (`cleanup`: the agent's
    /// cleanup move, which resumes a finished game like `play`).
    pub(super) fn genmove(&mut self, args: &[&str], commit: bool, cleanup: bool) -> CommandResult {
        let [color] = args else {
            return Err(CommandError::Syntax);
        };
        let color = parse_color(color)?;
        if self.nogo() {
            // Nothing is left to clean up in NoGo: no stone is ever dead.
            return self.genmove_nogo(color, commit);
        }
        if self.ended() {
            if !cleanup {
                return Ok("pass".to_string());
            }
            if commit {
                self.resume();
            }
        }
        let game = self.playable_game().into_owned();
        let action = if cleanup {
            let view = game.with_mover(color);
            let action = self
                .agent
                .select(&view, &mut tengen_core::SelectRequest::new().cleanup());
            self.checked(&game, color, action)
        } else {
            self.select_for(&game, color)
        };
        if commit {
            let recorded = match action {
                Action::Move(mv) => self.game.play_as(color, mv),
                Action::Resign => self.game.resign_as(color),
            };
            if let Err(reason) = recorded {
                // select_for only returns legal actions; this would be a bug.
                tracing::error!(%reason, "generated action could not be recorded");
                return Ok("pass".to_string());
            }
        }
        Ok(match action {
            Action::Move(mv) => game.size().gtp(mv),
            Action::Resign => "resign".to_string(),
        })
    }

    /// `genmove` and `reg_genmove` under NoGo: `resign` when `color` has no
    /// legal move (and after a resignation), never `pass`.
    fn genmove_nogo(&mut self, color: Color, commit: bool) -> CommandResult {
        if self.ended() {
            return Ok("resign".to_string());
        }
        let view = self.game.with_mover(color);
        if view.is_over() {
            return Ok("resign".to_string());
        }
        let action = self.agent.select_move(&view);
        let action = self.checked(&self.game, color, action);
        if commit {
            self.record(color, action);
        }
        Ok(match action {
            Action::Move(mv) => view.size().gtp(mv),
            Action::Resign => "resign".to_string(),
        })
    }

    /// Records a generated action for `color`; it has been checked, so a
    /// refusal is a bug, logged.
    pub(super) fn record(&mut self, color: Color, action: Action) {
        let recorded = match action {
            Action::Move(mv) => self.game.play_as(color, mv),
            Action::Resign => self.game.resign_as(color),
        };
        if let Err(reason) = recorded {
            tracing::error!(%reason, "generated action could not be recorded");
        }
    }

    /// Asks the agent for `color`'s action in `game`. Agents choose for the
    /// side to move, so when `color` is not to move the agent sees the same
    /// position with `color` to move. Whatever it answers is checked against
    /// the real game; an illegal answer becomes a pass.
    fn select_for(&mut self, game: &Game, color: Color) -> Action {
        let action = if game.to_move() == color {
            self.agent.select_move(game)
        } else {
            self.agent.select_move(&game.with_mover(color))
        };
        self.checked(game, color, action)
    }

    /// `action` if `color` may take it in `game`, else (a bug in the agent)
    /// a pass; under NoGo, where passing is illegal too, the first legal
    /// move, or a resignation when there is none.
    pub(super) fn checked(&self, game: &Game, color: Color, action: Action) -> Action {
        match action {
            Action::Move(mv) => match game.legal_as(color, mv) {
                Ok(()) => action,
                Err(reason) if game.rules().is_nogo() => {
                    tracing::warn!(%reason, "the agent chose an illegal NoGo move; replacing it");
                    game.size()
                        .points()
                        .map(Move::Play)
                        .find(|&mv| game.legal_as(color, mv).is_ok())
                        .map_or(Action::Resign, Action::Move)
                }
                Err(reason) => {
                    tracing::warn!(%reason, "the agent chose an illegal move; passing instead");
                    Action::Move(Move::Pass)
                }
            },
            Action::Resign => action,
        }
    }
}
