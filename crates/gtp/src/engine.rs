//! The engine side of GTP: [`Engine`] serves any [`Agent`] to a GTP controller
//! (GoGui, Sabaki, Lizzie, gtp2ogs, KGS clients, match runners).
//!
//! [`Engine::handle_line`] answers one command line and is pure apart from the
//! engine's own state, so tests drive it directly; [`Engine::run`] loops over a
//! reader until `quit` or the end of input and writes only responses.
//!
//! ```
//! use tengen_core::{BoardSize, RandomBot, Rules};
//! use tengen_gtp::engine::Engine;
//!
//! let mut engine = Engine::new(Box::new(RandomBot::new(1)), BoardSize::square(9).unwrap(), Rules::default());
//! assert_eq!(engine.handle_line("1 play b d4").as_deref(), Some("=1 \n\n"));
//! assert_eq!(engine.handle_line("play w D4").as_deref(), Some("? illegal move: the point is occupied\n\n"));
//! assert_eq!(engine.handle_line("# just a comment"), None);
//! ```
//!
//! The commands are grouped by concern, one module each, and
//! [`Engine`]'s dispatch names one method per command: `info` (name, version,
//! the command list, `showboard`, `quit`), `setup` (board size, komi, rules),
//! [`handicap`], `play` (moves, undo, legality, resuming a finished game),
//! `genmove` (asking the agent, checking its answer), `time` (clock
//! settings), `score` (`final_score`, `final_status_list`), `sgf`
//! (`loadsgf`, `printsgf`), `gogui` (GoGui's rules and analysis commands,
//! and the search pictures `tengen-candidates`, `tengen-pv` and
//! `tengen-ownership` in GoGui's `gfx` language),
//! [`analysis`] (streamed analysis); `args` parses the arguments that
//! several commands share, and `run` is the loop over input and output.
//!
//! Behaviour worth knowing, beyond the specification:
//! - `play` after the game has ended (two passes, or a resignation) resumes
//!   it, as KGS does when players disagree about dead stones: a resignation is
//!   taken back, and after two passes play continues from the position (the
//!   superko record restarts there). `undo` can step back over the resumption.
//! - `genmove` after the end answers `pass` without recording anything;
//!   `kgs-genmove_cleanup` resumes the game like `play`.
//! - `genmove` for the colour not to move works: the agent is shown the same
//!   game with that colour to move ([`Game::with_mover`]), history and
//!   superko record kept and no pass recorded, so a bot that passes after
//!   its opponent's pass is not misled.
//! - Dead stones for `final_score` and `final_status_list` come from the
//!   core's count of finished games ([`tengen_core::scoring::game_status`]),
//!   the same one the web page and the match referee use.
//! - `gogui-rules_final_result` is `unknown` until the game has ended (two
//!   passes or a resignation), then the result as `final_score` gives it:
//!   GoGui shows it as the game's result, so it must not be a mid-game count.
//! - `tengen-candidates`, `tengen-pv` and `tengen-ownership` draw a search
//!   of the position for GoGui (`gfx`); `gogui-analyze_commands` offers them
//!   only when the bot can analyse.
//!
//! Under NoGo rules ([`tengen_core::Variant::NoGo`], `tengen gtp --game
//! nogo`) the engine speaks as the CMPUT 455 NoGo engines do:
//! - `play` refuses a move with `? illegal move: "<color> <vertex>" <reason>`,
//!   the colour and vertex as given and the reason one of `wrong color`,
//!   `wrong coordinate` (also for `pass` and off-board or malformed
//!   vertices), `occupied`, `capture`, `suicide`.
//! - `genmove` answers `resign` when the colour has no legal move (nothing is
//!   recorded: the position already decides the game), and never `pass`.
//! - `gogui-rules_game_id` is `NoGo`, `gogui-rules_legal_moves` has no
//!   `pass` (and is empty once the side to move cannot move), and
//!   `gogui-rules_final_result` is `unknown` while the game goes on, then
//!   `black` or `white` (GoGui's words for the winner).
//! - `final_score` is `B+` or `W+` once the game is over (`B+R` after a
//!   resignation), `? cannot score` before; every chain is alive for
//!   `final_status_list`.

pub mod analysis;
mod args;
mod error;
mod genmove;
mod gogui;
pub mod handicap;
mod info;
mod network;
mod params;
mod play;
pub mod protocol;
mod run;
mod score;
mod setup;
mod sgf;
mod time;

use tengen_core::{Agent, BoardSize, ByColor, Color, Game, Rules, Variant};

use self::analysis::is_streamed;
use self::error::CommandResult;
pub use self::error::{CommandError, NoGoRefusal};
pub use self::network::RawNetwork;
pub use self::params::{SetParamError, Tunable};
use self::protocol::{format_response, preprocess, split_command};
pub use self::sgf::MAX_SGF_BYTES;
pub use tengen_core::{TimeLeft, TimeSettings};

/// The name the engine gives for GTP `name`.
pub const ENGINE_NAME: &str = "tengen";

/// Playouts used to decide which stones are dead when scoring: the core's
/// default, so that GTP and the web count a position alike.
pub use tengen_core::scoring::{DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED};

/// Every command the engine knows, in the order `list_commands` gives them.
pub const COMMANDS: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "quit",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "genmove",
    "fixed_handicap",
    "place_free_handicap",
    "set_free_handicap",
    "undo",
    "time_settings",
    "time_left",
    "final_score",
    "final_status_list",
    "loadsgf",
    "printsgf",
    "reg_genmove",
    "showboard",
    "is_legal",
    "all_legal",
    "legal_moves",
    "kgs-genmove_cleanup",
    "lz-analyze",
    "lz-genmove_analyze",
    "kata-analyze",
    "kata-genmove_analyze",
    "analyze",
    "genmove_analyze",
    "kata-raw-nn",
    "kata-list-params",
    "kata-get-param",
    "kata-set-param",
    "kgs-time_settings",
    "kgs-rules",
    "kata-set-rules",
    "kata-get-rules",
    "kgs-game_over",
    "gogui-analyze_commands",
    "gogui-rules_game_id",
    "gogui-rules_board_size",
    "gogui-rules_legal_moves",
    "gogui-rules_side_to_move",
    "gogui-rules_board",
    "gogui-rules_final_result",
    "gogui-rules_captured_count",
    "tengen-rules",
    "tengen-candidates",
    "tengen-pv",
    "tengen-ownership",
];

/// A GTP engine serving one [`Agent`].
pub struct Engine {
    agent: Box<dyn Agent>,
    /// The bot's network, for `kata-raw-nn`, when it has one.
    network: Option<Box<dyn RawNetwork>>,
    /// The bot's settings by name, for `kata-set-param` and friends.
    tunable: Option<Box<dyn Tunable>>,
    game: Game,
    /// Finished games that play resumed from, most recent last, so that
    /// `undo` can go back past a resumption.
    resumed_from: Vec<Game>,
    time_settings: TimeSettings,
    time_left: ByColor<Option<TimeLeft>>,
    status_seed: u64,
    status_playouts: usize,
    /// Whether the agent analyses, as last asked, and for which board size
    /// and game (see `gogui::agent_analyses`).
    analyses: Option<((BoardSize, Variant), bool)>,
    quit: bool,
}

impl Engine {
    /// An engine with an empty board of `size` under `rules`, Black to move.
    pub fn new(agent: Box<dyn Agent>, size: BoardSize, rules: Rules) -> Engine {
        Engine {
            agent,
            network: None,
            tunable: None,
            game: Game::new(size, rules),
            resumed_from: Vec::new(),
            time_settings: TimeSettings::default(),
            time_left: ByColor::default(),
            status_seed: DEFAULT_STATUS_SEED,
            status_playouts: DEFAULT_STATUS_PLAYOUTS,
            analyses: None,
            quit: false,
        }
    }

    /// The same engine answering `kata-raw-nn` with `network` (the one its
    /// bot plays with).
    pub fn with_network(mut self, network: Box<dyn RawNetwork>) -> Engine {
        self.network = Some(network);
        self
    }

    /// The same engine answering `kata-get-param`, `kata-set-param` and
    /// `kata-list-params` from `tunable`, the settings its bot was built
    /// from.
    pub fn with_tunable(mut self, tunable: Box<dyn Tunable>) -> Engine {
        self.tunable = Some(tunable);
        self
    }

    /// Serves `agent` from now on, telling it the clock as the controller
    /// last set it.
    fn replace_agent(&mut self, agent: Box<dyn Agent>) {
        self.agent = agent;
        self.agent.set_time_settings(self.time_settings);
        for color in [Color::Black, Color::White] {
            if let Some(left) = self.time_left[color] {
                self.agent.set_time_left(color, left);
            }
        }
        self.analyses = None;
    }

    /// Sets the seed of the dead-stone estimate (the same position and seed
    /// always give the same score).
    pub fn with_status_seed(mut self, seed: u64) -> Engine {
        self.status_seed = seed;
        self
    }

    /// Sets how many playouts the dead-stone estimate uses (0: every stone is
    /// taken as alive).
    pub fn with_status_playouts(mut self, playouts: usize) -> Engine {
        self.status_playouts = playouts;
        self
    }

    /// The game as it stands.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The time control last set by the controller.
    pub fn time_settings(&self) -> TimeSettings {
        self.time_settings
    }

    /// What the controller last reported with `time_left` for `color`.
    pub fn time_left(&self, color: Color) -> Option<TimeLeft> {
        self.time_left[color]
    }

    /// Whether `quit` has been answered.
    pub fn has_quit(&self) -> bool {
        self.quit
    }

    /// Answers one raw input line (without its `\n`); `None` when the line is
    /// empty after preprocessing and so gets no response.
    pub fn handle_bytes(&mut self, line: &[u8]) -> Option<String> {
        self.respond(&preprocess(line))
    }

    /// Answers one input line (without its `\n`); `None` when the line is
    /// empty after preprocessing and so gets no response. The response ends
    /// with the empty line that GTP requires.
    pub fn handle_line(&mut self, line: &str) -> Option<String> {
        self.respond(&preprocess(line.as_bytes()))
    }

    /// Answers one preprocessed line. A streamed analysis command answers
    /// with a single report here, as no further input can stop it.
    fn respond(&mut self, line: &str) -> Option<String> {
        let command = split_command(line)?;
        if let Some(name) = command.name.filter(|&name| is_streamed(Some(name))) {
            let mut out = Vec::new();
            let _ = self.stream(command.id, name, &command.args, &mut out, &|| true);
            return Some(String::from_utf8_lossy(&out).into_owned());
        }
        let result = match command.name {
            Some(name) => {
                tracing::debug!(command = name, args = ?command.args, "gtp command");
                self.execute(name, &command.args)
            }
            None => Err(CommandError::Syntax),
        };
        if let Err(error) = &result {
            tracing::debug!(%error, "gtp command failed");
        }
        Some(match result {
            Ok(text) => format_response(true, command.id, &text),
            Err(error) => format_response(false, command.id, &error.to_string()),
        })
    }

    /// The dispatch: one method per command, in the groups the module
    /// documentation lists. The streamed analysis commands are answered by
    /// [`Engine::respond`] and [`Engine::run`] before they get here.
    fn execute(&mut self, name: &str, args: &[&str]) -> CommandResult {
        match name {
            // info.rs
            "protocol_version" => self.protocol_version(args),
            "name" => self.name(args),
            "version" => self.version(args),
            "known_command" => self.known_command(args),
            "list_commands" => self.list_commands(args),
            "quit" => self.quit(args),
            "showboard" => self.showboard(args),
            // setup.rs
            "boardsize" => self.boardsize(args),
            "clear_board" => self.clear_board(args),
            "komi" => self.komi(args),
            "kgs-rules" => self.kgs_rules(args),
            "kata-set-rules" => self.kata_set_rules(args),
            "kata-get-rules" => self.kata_get_rules(args),
            "tengen-rules" => self.tengen_rules(args),
            // handicap.rs
            "fixed_handicap" => self.fixed_handicap(args),
            "place_free_handicap" => self.place_free_handicap(args),
            "set_free_handicap" => self.set_free_handicap(args),
            // play.rs
            "play" => self.play(args),
            "undo" => self.undo(args),
            "is_legal" => self.is_legal(args),
            "all_legal" | "legal_moves" => self.all_legal(args),
            // genmove.rs; the flags: whether the move is recorded, and whether
            // it is kgs-genmove_cleanup's move
            "genmove" => self.genmove(args, true, false),
            "reg_genmove" => self.genmove(args, false, false),
            "kgs-genmove_cleanup" => self.genmove(args, true, true),
            // time.rs
            "time_settings" => self.time_settings_command(args),
            "kgs-time_settings" => self.kgs_time_settings(args),
            "time_left" => self.time_left_command(args),
            // score.rs
            "final_score" => self.final_score(args),
            "final_status_list" => self.final_status_list(args),
            "kgs-game_over" => self.kgs_game_over(args),
            // sgf.rs
            "loadsgf" => self.loadsgf(args),
            "printsgf" => self.printsgf(args),
            // network.rs
            "kata-raw-nn" => self.kata_raw_nn(args),
            "kata-list-params" => self.kata_list_params(args),
            "kata-get-param" => self.kata_get_param(args),
            "kata-set-param" => self.kata_set_param(args),
            // gogui.rs
            "gogui-analyze_commands" => self.gogui_analyze_commands(args),
            "gogui-rules_game_id" => self.gogui_rules_game_id(args),
            "gogui-rules_board_size" => self.gogui_rules_board_size(args),
            "gogui-rules_legal_moves" => self.gogui_rules_legal_moves(args),
            "gogui-rules_side_to_move" => self.gogui_rules_side_to_move(args),
            "gogui-rules_board" => self.gogui_rules_board(args),
            "gogui-rules_final_result" => self.gogui_rules_final_result(args),
            "gogui-rules_captured_count" => self.gogui_rules_captured_count(args),
            "tengen-candidates" => self.tengen_candidates(args),
            "tengen-pv" => self.tengen_pv(args),
            "tengen-ownership" => self.tengen_ownership(args),
            _ => Err(CommandError::UnknownCommand),
        }
    }

    /// Whether the rules in force are NoGo's.
    fn nogo(&self) -> bool {
        self.game.rules().is_nogo()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::RandomBot;

    fn engine() -> Engine {
        Engine::new(
            Box::new(RandomBot::new(1)),
            BoardSize::square(9).unwrap(),
            Rules::default(),
        )
    }

    #[test]
    fn genmove_for_the_side_not_to_move_plays_for_it() {
        let mut engine = engine();
        let response = engine.handle_line("genmove w").unwrap();
        assert!(response.starts_with("= ") && response.ends_with("\n\n"));
        assert_eq!(engine.game().to_move(), Color::Black);
        assert_eq!(
            engine.game().history().next().map(|(c, _)| c),
            Some(Color::White)
        );
    }

    #[test]
    fn resuming_after_two_passes_can_be_undone() {
        let mut engine = engine();
        for line in ["play b d4", "play w pass", "play b pass"] {
            assert_eq!(engine.handle_line(line).unwrap(), "= \n\n");
        }
        assert!(engine.game().is_over());
        assert_eq!(engine.handle_line("genmove w").unwrap(), "= pass\n\n");
        assert_eq!(engine.handle_line("play w e5").unwrap(), "= \n\n");
        assert!(!engine.game().is_over());
        assert_eq!(engine.handle_line("undo").unwrap(), "= \n\n");
        assert_eq!(engine.handle_line("undo").unwrap(), "= \n\n");
        assert!(!engine.game().is_over());
        assert_eq!(engine.game().turn_count(), 2);
    }
}
