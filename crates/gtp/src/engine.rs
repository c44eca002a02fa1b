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
//! - Dead stones for `final_score` and `final_status_list` come from Monte
//!   Carlo playouts (see [`status`]).
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
pub mod handicap;
pub mod protocol;
pub mod status;

use std::cell::RefCell;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, TryRecvError};

use tengen_core::{
    Action, Agent, Analysis, BoardSize, ByColor, Color, Game, IllegalMove, Move, Outcome, Point,
    Rules, VertexErrorKind,
};
use thiserror::Error;

use self::protocol::{format_response, preprocess, read_line_capped, split_command};
use self::status::ChainStatus;
pub use tengen_core::{TimeLeft, TimeSettings};

/// The name the engine gives for GTP `name`.
pub const ENGINE_NAME: &str = "tengen";

/// Playouts used to decide which stones are dead when scoring.
pub const DEFAULT_STATUS_PLAYOUTS: usize = 256;

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
    "kgs-time_settings",
    "kgs-rules",
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
];

/// Why a command failed; the `Display` text is the GTP error message, the
/// conventional wording first.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CommandError {
    /// The bot cannot analyse positions.
    #[error("this bot does not analyse positions")]
    AnalysisUnsupported,
    /// The command name is not one the engine knows.
    #[error("unknown command")]
    UnknownCommand,
    /// Arguments missing, extra or malformed.
    #[error("syntax error")]
    Syntax,
    /// The move is not allowed; the reason follows when known.
    #[error("illegal move{}", .0.map(|r| format!(": {r}")).unwrap_or_default())]
    IllegalMove(Option<IllegalMove>),
    /// `boardsize` outside 1 to 25.
    #[error("unacceptable size")]
    UnacceptableSize,
    /// `undo` at the start of the game.
    #[error("cannot undo")]
    CannotUndo,
    /// `loadsgf` could not read a game.
    #[error("cannot load file")]
    CannotLoadFile,
    /// Handicap setup on a board with stones or moves.
    #[error("board not empty")]
    BoardNotEmpty,
    /// A handicap the board does not allow.
    #[error("invalid number of stones")]
    InvalidNumberOfStones,
    /// `set_free_handicap` with a repeated, off-board or pass vertex.
    #[error("bad vertex list")]
    BadVertexList,
    /// A command line longer than [`protocol::MAX_LINE_BYTES`].
    #[error("line too long")]
    LineTooLong,
    /// `kgs-rules` or `tengen-rules` with a rule set the engine cannot use.
    #[error("unknown rules: {0}")]
    UnknownRules(String),
    /// `final_score` under NoGo before the game is over (nothing is counted
    /// in NoGo; only the end decides).
    #[error("cannot score")]
    CannotScore,
    /// NoGo's `play` refused the move; the colour and vertex are echoed as
    /// the controller sent them, as the CMPUT 455 engines do.
    #[error("illegal move: \"{color} {vertex}\" {reason}")]
    NoGoIllegalMove {
        /// The colour argument, as given.
        color: String,
        /// The vertex argument, as given.
        vertex: String,
        /// Why.
        reason: NoGoRefusal,
    },
}

/// Why NoGo's `play` refused a move, in the CMPUT 455 engines' words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum NoGoRefusal {
    /// The colour is not `b`, `w`, `black` or `white`.
    #[error("wrong color")]
    WrongColor,
    /// The vertex is malformed, off the board, or `pass`.
    #[error("wrong coordinate")]
    WrongCoordinate,
    /// A stone is already there.
    #[error("occupied")]
    Occupied,
    /// The stone would capture.
    #[error("capture")]
    Capture,
    /// The stone would have no liberty.
    #[error("suicide")]
    Suicide,
    /// Any other reason the rules give (none arises under NoGo, where play
    /// after a resignation resumes the game).
    #[error("{0}")]
    Other(IllegalMove),
}

impl From<IllegalMove> for NoGoRefusal {
    fn from(reason: IllegalMove) -> NoGoRefusal {
        match reason {
            IllegalMove::Occupied => NoGoRefusal::Occupied,
            IllegalMove::Capture => NoGoRefusal::Capture,
            IllegalMove::Suicide => NoGoRefusal::Suicide,
            IllegalMove::Pass | IllegalMove::OffBoard => NoGoRefusal::WrongCoordinate,
            other => NoGoRefusal::Other(other),
        }
    }
}

type CommandResult = Result<String, CommandError>;

/// A GTP engine serving one [`Agent`].
pub struct Engine {
    agent: Box<dyn Agent>,
    game: Game,
    /// Finished games that play resumed from, most recent last, so that
    /// `undo` can go back past a resumption.
    resumed_from: Vec<Game>,
    time_settings: TimeSettings,
    time_left: ByColor<Option<TimeLeft>>,
    status_seed: u64,
    status_playouts: usize,
    quit: bool,
}

impl Engine {
    /// An engine with an empty board of `size` under `rules`, Black to move.
    pub fn new(agent: Box<dyn Agent>, size: BoardSize, rules: Rules) -> Engine {
        Engine {
            agent,
            game: Game::new(size, rules),
            resumed_from: Vec::new(),
            time_settings: TimeSettings::default(),
            time_left: ByColor::default(),
            status_seed: 0,
            status_playouts: DEFAULT_STATUS_PLAYOUTS,
            quit: false,
        }
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

    /// Serves commands from `reader` until `quit` or the end of input, writing
    /// each response to `writer` and flushing it. Only responses are written.
    ///
    /// Input is read on a thread of its own, so that a streamed analysis
    /// (`lz-analyze`, `kata-analyze`) runs until the next command arrives.
    pub fn run<R: BufRead + Send + 'static>(
        &mut self,
        reader: R,
        mut writer: impl Write,
    ) -> io::Result<()> {
        let (sender, receiver) = mpsc::channel::<InputLine>();
        std::thread::spawn(move || {
            let mut reader = reader;
            loop {
                let mut line = Vec::new();
                let read = read_line_capped(&mut reader, &mut line, protocol::MAX_LINE_BYTES);
                let more = matches!(read, Ok(Some(_)));
                if sender.send(read.map(|r| r.map(|t| (line, t)))).is_err() || !more {
                    break;
                }
            }
        });
        let pending: RefCell<Option<InputLine>> = RefCell::new(None);
        while !self.quit {
            let next = match pending.borrow_mut().take() {
                Some(next) => next,
                None => match receiver.recv() {
                    Ok(next) => next,
                    Err(_) => break,
                },
            };
            let Some((line, truncated)) = next? else {
                break;
            };
            if truncated {
                writer.write_all(self.line_too_long(&line).as_bytes())?;
                writer.flush()?;
                continue;
            }
            let text = preprocess(&line);
            if let Some(command) = split_command(&text).filter(|c| is_streamed(c.name)) {
                // The next line, when one comes, ends the analysis; it is kept
                // to be answered next.
                let stop = || {
                    if pending.borrow().is_some() {
                        return true;
                    }
                    match receiver.try_recv() {
                        Ok(next) => {
                            *pending.borrow_mut() = Some(next);
                            true
                        }
                        Err(TryRecvError::Empty) => false,
                        Err(TryRecvError::Disconnected) => true,
                    }
                };
                let name = command.name.unwrap_or_default();
                self.stream(command.id, name, &command.args, &mut writer, &stop)?;
                continue;
            }
            if let Some(response) = self.respond(&text) {
                writer.write_all(response.as_bytes())?;
                writer.flush()?;
            }
        }
        Ok(())
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

    fn line_too_long(&self, prefix: &[u8]) -> String {
        let text = preprocess(prefix);
        let id = split_command(&text).and_then(|c| c.id);
        format_response(false, id, &CommandError::LineTooLong.to_string())
    }

    fn execute(&mut self, name: &str, args: &[&str]) -> CommandResult {
        match name {
            "protocol_version" => no_args(args).map(|_| "2".to_string()),
            "name" => no_args(args).map(|_| ENGINE_NAME.to_string()),
            "version" => no_args(args).map(|_| env!("CARGO_PKG_VERSION").to_string()),
            "known_command" => {
                let [command] = args else {
                    return Err(CommandError::Syntax);
                };
                Ok(COMMANDS.contains(command).to_string())
            }
            "list_commands" => no_args(args).map(|_| COMMANDS.join("\n")),
            "quit" => {
                self.quit = true;
                Ok(String::new())
            }
            "boardsize" => self.boardsize(args),
            "clear_board" => {
                no_args(args)?;
                let size = self.game.size();
                self.new_game(Game::new(size, *self.game.rules()));
                Ok(String::new())
            }
            "komi" => {
                let [komi] = args else {
                    return Err(CommandError::Syntax);
                };
                let komi = parse_komi(komi)?;
                let rules = self.game.rules().with_komi(komi);
                self.set_rules(rules);
                Ok(String::new())
            }
            "play" => self.play(args),
            "genmove" => self.genmove(args, true, false),
            "reg_genmove" => self.genmove(args, false, false),
            "kgs-genmove_cleanup" => self.genmove(args, true, true),
            "fixed_handicap" => self.fixed_handicap(args),
            "place_free_handicap" => self.place_free_handicap(args),
            "set_free_handicap" => self.set_free_handicap(args),
            "undo" => no_args(args).and_then(|_| self.undo()),
            "time_settings" => {
                let [main, period, stones] = args else {
                    return Err(CommandError::Syntax);
                };
                self.time_settings = TimeSettings::from_gtp(
                    parse_u64(main)?,
                    parse_u64(period)?,
                    parse_u64(stones)?,
                );
                self.agent.set_time_settings(self.time_settings);
                Ok(String::new())
            }
            "kgs-time_settings" => {
                self.time_settings = parse_kgs_time_settings(args)?;
                self.agent.set_time_settings(self.time_settings);
                Ok(String::new())
            }
            "time_left" => {
                let [color, seconds, stones] = args else {
                    return Err(CommandError::Syntax);
                };
                let color = parse_color(color)?;
                let left = TimeLeft {
                    seconds: parse_u64(seconds)?,
                    stones: parse_u64(stones)?,
                };
                self.time_left[color] = Some(left);
                self.agent.set_time_left(color, left);
                Ok(String::new())
            }
            "final_score" => {
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
            "final_status_list" => self.final_status_list(args),
            "loadsgf" => self.loadsgf(args),
            // Only the form without a file name: the record is the response.
            // Writing files on a controller's say-so is left out on purpose.
            "printsgf" => no_args(args).map(|_| {
                let result = if self.nogo() {
                    self.game.result().map(|outcome| outcome.to_string())
                } else {
                    self.game
                        .is_over()
                        .then(|| self.final_outcome().to_string())
                };
                let info = tengen_sgf::GameInfo {
                    result,
                    ..tengen_sgf::GameInfo::default()
                };
                tengen_sgf::write_game(&self.game, &info)
            }),
            "showboard" => no_args(args).map(|_| self.showboard()),
            "is_legal" => {
                let [color, vertex] = args else {
                    return Err(CommandError::Syntax);
                };
                let color = parse_color(color)?;
                let legal = match parse_vertex(self.game.size(), vertex)? {
                    None => false,
                    Some(mv) => self.playable_game().legal_as(color, mv).is_ok(),
                };
                Ok(if legal { "1" } else { "0" }.to_string())
            }
            "all_legal" | "legal_moves" => {
                let [color] = args else {
                    return Err(CommandError::Syntax);
                };
                let color = parse_color(color)?;
                let game = self.playable_game();
                let size = game.size();
                let moves: Vec<String> = size
                    .points()
                    .map(Move::Play)
                    .filter(|&mv| game.legal_as(color, mv).is_ok())
                    .map(|mv| size.gtp(mv))
                    .collect();
                Ok(moves.join(" "))
            }
            "kgs-rules" => {
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
            "kgs-game_over" => {
                tracing::info!("the server says the game is over");
                Ok(String::new())
            }
            "tengen-rules" => {
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
            "gogui-analyze_commands" if self.nogo() => no_args(args).map(|_| {
                [
                    "string/Rules/tengen-rules",
                    "string/Final Result/gogui-rules_final_result",
                    "plist/Legal Moves/all_legal %m",
                ]
                .join("\n")
            }),
            "gogui-analyze_commands" => no_args(args).map(|_| {
                [
                    "string/Rules/tengen-rules",
                    "string/Final Score/final_score",
                    "plist/Dead Stones/final_status_list dead",
                    "plist/Seki Stones/final_status_list seki",
                    "plist/Legal Moves/all_legal %m",
                ]
                .join("\n")
            }),
            "gogui-rules_game_id" => {
                no_args(args).map(|_| if self.nogo() { "NoGo" } else { "Go" }.to_string())
            }
            "gogui-rules_board_size" => no_args(args).map(|_| self.game.size().width().to_string()),
            "gogui-rules_legal_moves" => no_args(args).map(|_| {
                let size = self.game.size();
                let moves: Vec<String> = self
                    .game
                    .legal_moves()
                    .into_iter()
                    .map(|mv| size.gtp(mv))
                    .collect();
                moves.join(" ")
            }),
            "gogui-rules_side_to_move" => no_args(args).map(|_| self.game.to_move().to_string()),
            "gogui-rules_board" => no_args(args).map(|_| self.rules_board()),
            "gogui-rules_final_result" if self.nogo() => no_args(args).map(|_| {
                match self.game.result() {
                    None => "unknown",
                    Some(outcome) => match outcome.winner() {
                        Some(Color::Black) => "black",
                        Some(Color::White) => "white",
                        None => "draw",
                    },
                }
                .to_string()
            }),
            "gogui-rules_final_result" => no_args(args).map(|_| self.final_outcome().to_string()),
            "gogui-rules_captured_count" => no_args(args).map(|_| {
                let captures = self.game.board().captures();
                format!("{} {}", captures.black, captures.white)
            }),
            _ => Err(CommandError::UnknownCommand),
        }
    }

    /// Starts `game` afresh: the resumption stack and the agent's caches go.
    fn new_game(&mut self, game: Game) {
        self.game = game;
        self.resumed_from.clear();
        self.agent.reset();
    }

    fn set_rules(&mut self, rules: Rules) {
        self.game.set_rules(rules);
        for game in &mut self.resumed_from {
            game.set_rules(rules);
        }
    }

    fn boardsize(&mut self, args: &[&str]) -> CommandResult {
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

    /// Whether the rules in force are NoGo's.
    fn nogo(&self) -> bool {
        self.game.rules().is_nogo()
    }

    /// Whether the game has ended in a way that `play` resumes from: two
    /// passes or a resignation. (Under Go that is [`Game::is_over`]; under
    /// NoGo a side to move without a legal move is not such an end: the
    /// position stands, and only the other colour could still play.)
    fn ended(&self) -> bool {
        self.game.resigned().is_some() || self.game.consecutive_passes() >= 2
    }

    /// The game in which the next `play` would be made: the current one, or,
    /// when it has ended, the continuation that `play` would resume.
    fn playable_game(&self) -> std::borrow::Cow<'_, Game> {
        if self.ended() {
            std::borrow::Cow::Owned(self.continuation())
        } else {
            std::borrow::Cow::Borrowed(&self.game)
        }
    }

    /// The game that play resumes after the end: the resignation taken back,
    /// or after two passes a new game from the position with the same side to
    /// move and the same rules.
    fn continuation(&self) -> Game {
        if self.game.resigned().is_some() {
            let mut game = self.game.clone();
            game.undo();
            if game.resigned().is_none() && game.consecutive_passes() < 2 {
                return game;
            }
        }
        Game::from_position(
            self.game.board().clone(),
            self.game.to_move(),
            *self.game.rules(),
        )
    }

    /// Makes the continuation the current game, keeping the finished game for
    /// `undo` when positions were dropped.
    fn resume(&mut self) {
        let next = self.continuation();
        let finished = std::mem::replace(&mut self.game, next);
        if finished.resigned().is_none() {
            self.resumed_from.push(finished);
        }
        tracing::info!("play resumes after the end of the game");
    }

    fn play(&mut self, args: &[&str]) -> CommandResult {
        if self.nogo() {
            return self.play_nogo(args);
        }
        let [color, vertex] = args else {
            return Err(CommandError::Syntax);
        };
        let color = parse_color(color)?;
        let mv = parse_vertex(self.game.size(), vertex)?
            .ok_or(CommandError::IllegalMove(Some(IllegalMove::OffBoard)))?;
        self.playable_game()
            .legal_as(color, mv)
            .map_err(|reason| CommandError::IllegalMove(Some(reason)))?;
        if self.ended() {
            self.resume();
        }
        self.game
            .play_as(color, mv)
            .map_err(|reason| CommandError::IllegalMove(Some(reason)))?;
        Ok(String::new())
    }

    /// `play` under NoGo: the CMPUT 455 engines' refusals (see the module
    /// documentation).
    fn play_nogo(&mut self, args: &[&str]) -> CommandResult {
        let [color_text, vertex_text] = args else {
            return Err(CommandError::Syntax);
        };
        let refuse = |reason: NoGoRefusal| CommandError::NoGoIllegalMove {
            color: color_text.to_string(),
            vertex: vertex_text.to_string(),
            reason,
        };
        let color = Color::parse(color_text).ok_or_else(|| refuse(NoGoRefusal::WrongColor))?;
        let mv = match self.game.size().parse_gtp(vertex_text) {
            Ok(Move::Play(point)) => Move::Play(point),
            Ok(Move::Pass) | Err(_) => return Err(refuse(NoGoRefusal::WrongCoordinate)),
        };
        self.playable_game()
            .legal_as(color, mv)
            .map_err(|reason| refuse(reason.into()))?;
        if self.ended() {
            self.resume();
        }
        self.game
            .play_as(color, mv)
            .map_err(|reason| refuse(reason.into()))?;
        Ok(String::new())
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
    fn record(&mut self, color: Color, action: Action) {
        let recorded = match action {
            Action::Move(mv) => self.game.play_as(color, mv),
            Action::Resign => self.game.resign_as(color),
        };
        if let Err(reason) = recorded {
            tracing::error!(%reason, "generated action could not be recorded");
        }
    }

    fn genmove(&mut self, args: &[&str], commit: bool, cleanup: bool) -> CommandResult {
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
            let action = self.agent.select_cleanup_move(&view);
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
    fn checked(&self, game: &Game, color: Color, action: Action) -> Action {
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

    fn fixed_handicap(&mut self, args: &[&str]) -> CommandResult {
        let stones = self.handicap_count(args)?;
        let size = self.game.size();
        let points = tengen_core::fixed_handicap_points(size, stones)
            .ok_or(CommandError::InvalidNumberOfStones)?;
        self.install_handicap(&points)
    }

    fn place_free_handicap(&mut self, args: &[&str]) -> CommandResult {
        let stones = self.handicap_count(args)?;
        let size = self.game.size();
        if stones >= size.points_count() {
            return Err(CommandError::InvalidNumberOfStones);
        }
        let points = handicap::free_handicap_points(size, stones);
        if points.len() < 2 {
            return Err(CommandError::InvalidNumberOfStones);
        }
        self.install_handicap(&points)
    }

    fn set_free_handicap(&mut self, args: &[&str]) -> CommandResult {
        if args.is_empty() {
            return Err(CommandError::Syntax);
        }
        if !self.board_is_empty() {
            return Err(CommandError::BoardNotEmpty);
        }
        let size = self.game.size();
        let mut points: Vec<Point> = Vec::with_capacity(args.len());
        for vertex in args {
            match size.parse_gtp(vertex) {
                Ok(Move::Play(point)) if !points.contains(&point) => points.push(point),
                _ => return Err(CommandError::BadVertexList),
            }
        }
        if points.len() < 2 {
            return Err(CommandError::BadVertexList);
        }
        let game = Game::with_free_handicap(size, *self.game.rules(), &points)
            .map_err(|_| CommandError::BadVertexList)?;
        self.new_game(game);
        Ok(String::new())
    }

    /// The stone count of a handicap command, after checking the board is
    /// empty (the specification's order: a non-empty board is refused first).
    fn handicap_count(&self, args: &[&str]) -> Result<usize, CommandError> {
        let [count] = args else {
            return Err(CommandError::Syntax);
        };
        let count = parse_integer(count).ok_or(CommandError::Syntax)?;
        if !self.board_is_empty() {
            return Err(CommandError::BoardNotEmpty);
        }
        usize::try_from(count)
            .ok()
            .filter(|&n| n >= 2)
            .ok_or(CommandError::InvalidNumberOfStones)
    }

    fn board_is_empty(&self) -> bool {
        self.game.board().empty_count() == self.game.size().points_count()
            && self.game.turn_count() == 0
            && self.resumed_from.is_empty()
    }

    /// Starts a game with Black's stones at `points`, answering their vertices
    /// in placement order.
    fn install_handicap(&mut self, points: &[Point]) -> CommandResult {
        let size = self.game.size();
        let game = Game::with_free_handicap(size, *self.game.rules(), points)
            .map_err(|_| CommandError::InvalidNumberOfStones)?;
        let vertices: Vec<String> = points.iter().map(|&p| size.gtp(Move::Play(p))).collect();
        self.new_game(game);
        Ok(vertices.join(" "))
    }

    /// `loadsgf file [move_number]`: the main line of the record, up to the
    /// position before `move_number` when given; answers the side to move.
    /// Only regular files of at most [`MAX_SGF_BYTES`] are read, so that a
    /// path such as a FIFO or `/dev/zero` cannot hang the engine.
    fn loadsgf(&mut self, args: &[&str]) -> CommandResult {
        let (path, move_number) = match args {
            [path] => (path, None),
            [path, number] => {
                let number = parse_u64(number)?;
                (path, Some(usize::try_from(number).unwrap_or(usize::MAX)))
            }
            _ => return Err(CommandError::Syntax),
        };
        let text = read_small_file(path).ok_or(CommandError::CannotLoadFile)?;
        let record = tengen_sgf::read_game(&text).map_err(|error| {
            tracing::info!(%error, "loadsgf: unreadable record");
            CommandError::CannotLoadFile
        })?;
        let mut game = record.game;
        if let Some(number) = move_number {
            // Move n is the n-th turn; keep the n - 1 turns before it.
            while game.turn_count() >= number.max(1) {
                game.undo();
            }
        }
        let to_move = game.to_move();
        self.new_game(game);
        Ok(to_move.to_string())
    }

    fn undo(&mut self) -> CommandResult {
        if self.game.turn_count() == 0 {
            let Some(previous) = self.resumed_from.pop() else {
                return Err(CommandError::CannotUndo);
            };
            self.game = previous;
        }
        self.game.undo().ok_or(CommandError::CannotUndo)?;
        self.agent.reset();
        Ok(String::new())
    }

    fn chain_status(&self) -> ChainStatus {
        if self.nogo() {
            return status::all_alive(self.game.board());
        }
        status::estimate(
            self.game.board(),
            self.game.to_move(),
            self.status_playouts,
            self.status_seed,
        )
    }

    /// The result: a resignation, or the count with the estimated dead
    /// stones removed (under the game's own scoring, area or territory).
    fn final_outcome(&self) -> Outcome {
        if let Some(loser) = self.game.resigned() {
            return Outcome::Resignation { winner: !loser };
        }
        let dead = self.chain_status().dead_points();
        Outcome::Counted(self.game.score_with_dead(&dead))
    }

    fn final_status_list(&self, args: &[&str]) -> CommandResult {
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

    /// A diagram on its own lines after `= `, then who is to move, the
    /// captures and the rules.
    fn showboard(&self) -> String {
        let game = &self.game;
        let last = game.last_move().and_then(|(_, mv)| mv.point());
        let captures = game.board().captures();
        format!(
            "\n{}{} to move, captures black {} white {}, rules {}",
            game.board().diagram(last),
            game.to_move(),
            captures.black,
            captures.white,
            game.rules()
        )
    }

    /// GoGui's rules board: one line per row from the top, `X` black, `O`
    /// white, `.` empty, separated by spaces.
    fn rules_board(&self) -> String {
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
        rows.join("\n")
    }
}

/// A line read by [`Engine::run`]'s input thread: the bytes and whether it
/// was cut at the length cap, `None` at the end of input.
type InputLine = io::Result<Option<(Vec<u8>, bool)>>;

/// Whether `name` is a command whose response is streamed.
fn is_streamed(name: Option<&str>) -> bool {
    matches!(
        name,
        Some("lz-analyze" | "lz-genmove_analyze" | "kata-analyze")
    )
}

impl Engine {
    /// Answers a streamed analysis command, writing the response to `out` as
    /// it goes; `stop` says when the next command has arrived.
    fn stream(
        &mut self,
        id: Option<&str>,
        name: &str,
        args: &[&str],
        out: &mut dyn Write,
        stop: &dyn Fn() -> bool,
    ) -> io::Result<()> {
        let dialect = if name == "kata-analyze" {
            analysis::Dialect::KataGo
        } else {
            analysis::Dialect::LeelaZero
        };
        let request = match analysis::parse_request(args) {
            Ok(request) => request,
            Err(error) => {
                out.write_all(format_response(false, id, &error.to_string()).as_bytes())?;
                return out.flush();
            }
        };
        let color = request.color.unwrap_or(self.game.to_move());
        let game = self.playable_game().into_owned();
        let view = game.with_mover(color);
        let size = game.size();
        let header = format!("={}\n", id.unwrap_or(""));
        let mut started = false;
        let mut failed: Option<io::Error> = None;
        let mut sink = |analysis: &Analysis| {
            if failed.is_some() {
                return;
            }
            let mut text = String::new();
            if !started {
                text.push_str(&header);
                started = true;
            }
            text.push_str(&analysis::format_report(analysis, size, dialect, &request));
            if let Err(error) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                failed = Some(error);
            }
        };
        if name == "lz-genmove_analyze" {
            let nogo = self.nogo();
            let action = if self.ended() {
                if nogo {
                    Action::Resign
                } else {
                    Action::Move(Move::Pass)
                }
            } else if nogo && view.is_over() {
                // No legal move: resign, recording nothing (see genmove).
                Action::Resign
            } else {
                let action = self
                    .agent
                    .select_move_reporting(&view, request.interval, &mut sink);
                self.checked(&game, color, action)
            };
            if let Some(error) = failed {
                return Err(error);
            }
            // Nothing is recorded after the end, nor for a NoGo side that
            // cannot move (the position already decides the game).
            let stuck = nogo && view.is_over();
            if !(self.ended() || stuck) {
                self.record(color, action);
            }
            let vertex = match action {
                Action::Move(mv) => size.gtp(mv),
                Action::Resign => "resign".to_string(),
            };
            let head = if started {
                String::new()
            } else {
                header.clone()
            };
            out.write_all(format!("{head}play {vertex}\n\n").as_bytes())?;
            return out.flush();
        }
        let supported = self.agent.analyze(&view, request.interval, &mut sink, stop);
        if let Some(error) = failed {
            return Err(error);
        }
        if !supported {
            let text = CommandError::AnalysisUnsupported.to_string();
            out.write_all(format_response(false, id, &text).as_bytes())?;
            return out.flush();
        }
        if !started {
            out.write_all(header.as_bytes())?;
        }
        out.write_all(b"\n")?;
        out.flush()
    }
}

/// Largest SGF file `loadsgf` reads.
pub const MAX_SGF_BYTES: u64 = 4 * 1024 * 1024;

/// The text of a regular file of at most [`MAX_SGF_BYTES`], if there is one.
fn read_small_file(path: &str) -> Option<String> {
    use std::io::Read;
    // Asked before opening: opening a FIFO would already block.
    let metadata = std::fs::metadata(path).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_SGF_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_SGF_BYTES)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn no_args(args: &[&str]) -> Result<(), CommandError> {
    if args.is_empty() {
        Ok(())
    } else {
        Err(CommandError::Syntax)
    }
}

fn parse_color(text: &str) -> Result<Color, CommandError> {
    Color::parse(text).ok_or(CommandError::Syntax)
}

/// A move from vertex text: `Some` on the board, `None` well formed but off
/// this board, a syntax error otherwise.
fn parse_vertex(size: BoardSize, text: &str) -> Result<Option<Move>, CommandError> {
    match size.parse_gtp(text) {
        Ok(mv) => Ok(Some(mv)),
        Err(error) if matches!(error.kind, VertexErrorKind::OffBoard(_)) => Ok(None),
        Err(_) => Err(CommandError::Syntax),
    }
}

/// An integer written with an optional sign and digits only, saturated to the
/// `i64` range so that `99999999999999999999` is a (too large) number rather
/// than a syntax error.
fn parse_integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let magnitude = digits.parse::<i64>().unwrap_or(i64::MAX);
    Some(if negative { -magnitude } else { magnitude })
}

/// A non-negative integer that fits in `u64` (times, stone counts).
fn parse_u64(text: &str) -> Result<u64, CommandError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CommandError::Syntax);
    }
    text.parse().map_err(|_| CommandError::Syntax)
}

/// Komi: a finite number of at most 1000 in size (`nan`, `inf` and `1e999`
/// are refused).
fn parse_komi(text: &str) -> Result<f64, CommandError> {
    match text.parse::<f64>() {
        Ok(komi) if komi.is_finite() && komi.abs() <= 1000.0 => Ok(komi),
        _ => Err(CommandError::Syntax),
    }
}

fn parse_kgs_time_settings(args: &[&str]) -> Result<TimeSettings, CommandError> {
    let (kind, numbers) = args.split_first().ok_or(CommandError::Syntax)?;
    let numbers = numbers
        .iter()
        .map(|n| parse_u64(n))
        .collect::<Result<Vec<u64>, _>>()?;
    match (*kind, numbers.as_slice()) {
        ("none", []) => Ok(TimeSettings::Unlimited),
        ("absolute", &[main]) => Ok(TimeSettings::Absolute { main }),
        ("byoyomi", &[main, period, periods]) => Ok(TimeSettings::Byoyomi {
            main,
            period,
            periods,
        }),
        ("canadian", &[main, period, stones]) => Ok(TimeSettings::Canadian {
            main,
            period,
            stones,
        }),
        _ => Err(CommandError::Syntax),
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
    fn numbers() {
        assert_eq!(parse_integer("19"), Some(19));
        assert_eq!(parse_integer("-3"), Some(-3));
        assert_eq!(parse_integer("99999999999999999999"), Some(i64::MAX));
        assert_eq!(parse_integer("1.5"), None);
        assert_eq!(parse_integer("-"), None);
        assert!(parse_komi("nan").is_err());
        assert!(parse_komi("-inf").is_err());
        assert_eq!(parse_komi("-6.5"), Ok(-6.5));
        assert!(parse_u64("-1").is_err());
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
