//! The administrative commands: `protocol_version`, `name`, `version`,
//! `known_command`, `list_commands`, `quit`, and `showboard`, the position
//! for a person to read.

use super::args::no_args;
use super::error::CommandResult;
use super::{CommandError, Engine, COMMANDS, ENGINE_NAME};

impl Engine {
    /// `protocol_version`: GTP version 2.
    pub(super) fn protocol_version(&self, args: &[&str]) -> CommandResult {
        no_args(args).map(|_| "2".to_string())
    }

    /// `name`: [`ENGINE_NAME`].
    pub(super) fn name(&self, args: &[&str]) -> CommandResult {
        no_args(args).map(|_| ENGINE_NAME.to_string())
    }

    /// `version`: the crate's version.
    pub(super) fn version(&self, args: &[&str]) -> CommandResult {
        no_args(args).map(|_| env!("CARGO_PKG_VERSION").to_string())
    }

    /// `known_command name`: `true` or `false`.
    pub(super) fn known_command(&self, args: &[&str]) -> CommandResult {
        let [command] = args else {
            return Err(CommandError::Syntax);
        };
        Ok(COMMANDS.contains(command).to_string())
    }

    /// `list_commands`: [`COMMANDS`], one a line.
    pub(super) fn list_commands(&self, args: &[&str]) -> CommandResult {
        no_args(args).map(|_| COMMANDS.join("\n"))
    }

    /// `quit`: answered, then the loop in [`Engine::run`] stops. Arguments
    /// are not checked: quitting is never refused.
    pub(super) fn quit(&mut self, _args: &[&str]) -> CommandResult {
        self.quit = true;
        Ok(String::new())
    }

    /// `showboard`: a diagram on its own lines after `= `, then who is to
    /// move, the captures and the rules.
    pub(super) fn showboard(&self, args: &[&str]) -> CommandResult {
        no_args(args)?;
        let game = &self.game;
        let last = game.last_move().and_then(|(_, mv)| mv.point());
        let captures = game.board().captures();
        Ok(format!(
            "\n{}{} to move, captures black {} white {}, rules {}",
            game.board().diagram(last),
            game.to_move(),
            captures.black,
            captures.white,
            game.rules()
        ))
    }
}
