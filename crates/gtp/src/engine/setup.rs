//! The commands that set the game's frame: `boardsize`, `clear_board`,
//! `komi`, and the rules by name (`kgs-rules`), in full (`tengen-rules`) or
//! as KataGo writes them (`kata-set-rules`, `kata-get-rules`).

use tengen_core::{BoardSize, Game, Rules};

use super::args::{no_args, parse_integer, parse_komi};
use super::error::CommandResult;
use super::{CommandError, Engine};

impl Engine {
    /// `boardsize n`: a new empty square board, if the agent plays that size.
    pub(super) fn boardsize(&mut self, args: &[&str]) -> CommandResult {
        let [size] = args else {
            return Err(CommandError::Syntax);
        };
        let side = parse_integer(size).ok_or(CommandError::Syntax)?;
        let size = usize::try_from(side)
            .ok()
            .and_then(|side| BoardSize::square(side).ok())
            .ok_or(CommandError::UnacceptableSize)?;
        if self.agent.plays_size(size).is_err() {
            return Err(CommandError::UnacceptableSize);
        }
        self.new_game(Game::new(size, *self.game.rules()));
        Ok(String::new())
    }

    /// `clear_board`: a new empty board of the same size and rules.
    pub(super) fn clear_board(&mut self, args: &[&str]) -> CommandResult {
        no_args(args)?;
        let size = self.game.size();
        self.new_game(Game::new(size, *self.game.rules()));
        Ok(String::new())
    }

    /// `komi k`: the rules in force with komi `k`.
    pub(super) fn komi(&mut self, args: &[&str]) -> CommandResult {
        let [komi] = args else {
            return Err(CommandError::Syntax);
        };
        let komi = parse_komi(komi)?;
        let rules = self.game.rules().with_komi(komi);
        self.set_rules(rules);
        Ok(String::new())
    }

    /// `kgs-rules name`: one of the KGS rule sets, keeping the komi.
    pub(super) fn kgs_rules(&mut self, args: &[&str]) -> CommandResult {
        let [name] = args else {
            return Err(CommandError::Syntax);
        };
        let known = ["japanese", "chinese", "aga", "new_zealand"];
        let preset = known
            .contains(&name.to_ascii_lowercase().as_str())
            .then(|| Rules::preset(name))
            .flatten()
            .ok_or_else(|| CommandError::UnknownRules(name.to_string()))?;
        // KGS sends komi separately; keep it.
        let komi = self.game.rules().komi;
        self.set_rules(preset.with_komi(komi));
        Ok(String::new())
    }

    /// `tengen-rules [rules]`: the rules in force without an argument, else
    /// sets them from their text (a preset name, with overrides or not, or the
    /// full `key=value` list).
    pub(super) fn tengen_rules(&mut self, args: &[&str]) -> CommandResult {
        if args.is_empty() {
            return Ok(self.game.rules().to_string());
        }
        let text = args.join(" ");
        let rules: Rules = text
            .parse()
            .map_err(|_| CommandError::UnknownRules(text.clone()))?;
        self.set_rules(rules);
        Ok(String::new())
    }

    /// `kata-set-rules RULES`: KataGo's rules by name or as a JSON object
    /// ([`Rules::from_katago`]), keeping the komi, as KataGo does.
    pub(super) fn kata_set_rules(&mut self, args: &[&str]) -> CommandResult {
        if args.is_empty() {
            return Err(CommandError::Syntax);
        }
        let text = args.join(" ");
        let rules = Rules::from_katago(&text)
            .map_err(|e| CommandError::RulesRefused(format!("'{text}': {}", e.0)))?;
        let komi = self.game.rules().komi;
        self.set_rules(rules.with_komi(komi));
        Ok(String::new())
    }

    /// `kata-get-rules`: the rules in force as KataGo's JSON, without komi.
    pub(super) fn kata_get_rules(&mut self, args: &[&str]) -> CommandResult {
        if !args.is_empty() {
            return Err(CommandError::Syntax);
        }
        self.game
            .rules()
            .to_katago_json()
            .map_err(|e| CommandError::RulesRefused(e.0))
    }

    /// Starts `game` afresh: the resumption stack and the agent's caches go.
    pub(super) fn new_game(&mut self, game: Game) {
        self.game = game;
        self.resumed_from.clear();
        self.agent.reset();
    }

    /// Changes the rules of the game and of the finished games kept for
    /// `undo`, so that undoing past a resumption keeps them.
    fn set_rules(&mut self, rules: Rules) {
        self.game.set_rules(rules);
        for game in &mut self.resumed_from {
            game.set_rules(rules);
        }
    }
}
