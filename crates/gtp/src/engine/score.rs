//! The end of the game: `final_score`, `final_status_list` (dead stones from
//! the estimate in [`tengen_core::scoring::game_status`]; every chain alive under
//! NoGo) and `kgs-game_over`.

use tengen_core::{Move, Outcome};

use super::args::no_args;
use super::error::CommandResult;
use super::{CommandError, Engine};
use tengen_core::scoring::{game_status, ChainStatus};

impl Engine {
    /// `final_score`: under NoGo the result once there is one; under Go the
    /// count with the estimated dead stones removed, or the resignation.
    pub(super) fn final_score(&self, args: &[&str]) -> CommandResult {
        no_args(args)?;
        if self.nogo() {
            return self
                .game
                .result()
                .map(|outcome| outcome.to_string())
                .ok_or(CommandError::CannotScore);
        }
        Ok(self.final_outcome().to_string())
    }

    /// `final_status_list alive|dead|seki`: one chain a line.
    pub(super) fn final_status_list(&self, args: &[&str]) -> CommandResult {
        let [wanted] = args else {
            return Err(CommandError::Syntax);
        };
        let status = self.chain_status();
        let chains = match *wanted {
            "alive" => status.alive,
            "dead" => status.dead,
            "seki" => status.seki,
            _ => return Err(CommandError::Syntax),
        };
        let size = self.game.size();
        let lines: Vec<String> = chains
            .iter()
            .map(|chain| {
                chain
                    .iter()
                    .map(|&p| size.gtp(Move::Play(p)))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        Ok(lines.join("\n"))
    }

    /// `kgs-game_over`: the server's notice, logged; nothing changes.
    pub(super) fn kgs_game_over(&self, _args: &[&str]) -> CommandResult {
        tracing::info!("the server says the game is over");
        Ok(String::new())
    }

    fn chain_status(&self) -> ChainStatus {
        game_status(&self.game, self.status_playouts, self.status_seed)
    }

    /// The result: a resignation, or the count with the estimated dead
    /// stones removed (under the game's own scoring, area or territory).
    pub(super) fn final_outcome(&self) -> Outcome {
        if let Some(loser) = self.game.resigned() {
            return Outcome::Resignation { winner: !loser };
        }
        let dead = self.chain_status().dead_points();
        Outcome::Counted(self.game.score_with_dead(&dead))
    }
}
