//! The controller side of GTP: start another engine's process and drive it
//! command by command.
//!
//! Every command gets a numeric id, and the reply with that id is awaited with
//! a deadline. The engine's standard output is read on a thread of its own that
//! hands complete lines over a channel, so a hung engine shows up as
//! [`ControllerError::Timeout`] instead of blocking the caller forever. Its
//! standard error is drained on another thread (an engine that writes a lot of
//! diagnostics would otherwise fill the pipe and stall); the last few lines are
//! kept to explain a crash.
//!
//! ```no_run
//! use tengen_core::{BoardSize, Color};
//! use tengen_gtp::controller::{Controller, GenMove};
//!
//! let mut gnugo = Controller::spawn("/usr/games/gnugo --mode gtp --level 1")?;
//! gnugo.boardsize(BoardSize::square(9).unwrap())?;
//! gnugo.clear_board()?;
//! gnugo.komi(7.0)?;
//! match gnugo.genmove(Color::Black)? {
//!     GenMove::Move(mv) => println!("GNU Go plays {}", gnugo.size().gtp(mv)),
//!     GenMove::Resign => println!("GNU Go resigns"),
//! }
//! gnugo.quit()?;
//! # Ok::<(), tengen_gtp::controller::ControllerError>(())
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use tengen_core::{Action, BoardSize, Color, Move, Point};

/// How many lines of the engine's standard error are kept for error messages.
const STDERR_TAIL_LINES: usize = 20;

/// How long to wait for an engine to exit on its own (after `quit` or when its
/// input is closed) before killing it.
const EXIT_GRACE: Duration = Duration::from_millis(500);

/// The default deadline for one command's reply.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// What can go wrong while driving an engine.
#[derive(Debug, thiserror::Error)]
pub enum ControllerError {
    /// The engine command line is empty or its quotes do not close.
    #[error("bad engine command line '{command_line}': {reason}")]
    CommandLine {
        /// The command line as given.
        command_line: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The engine's program could not be started.
    #[error("could not start engine '{program}': {source}")]
    Spawn {
        /// The program that was to be run.
        program: String,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The engine exited (or closed its output) before answering.
    #[error("engine exited while handling '{command}'{}{}", exit_note(.status), stderr_note(.stderr))]
    EngineExited {
        /// The command that was being answered.
        command: String,
        /// The exit status, when the process could be reaped in time.
        status: Option<String>,
        /// The last lines the engine wrote to its standard error.
        stderr: String,
    },
    /// The engine answered something that is not a GTP response, or a
    /// response whose content makes no sense for the command.
    #[error("malformed response to '{command}': {response:?} ({reason})")]
    Malformed {
        /// The command that was being answered.
        command: String,
        /// The offending text.
        response: String,
        /// Why it was refused.
        reason: String,
    },
    /// No complete response arrived in time.
    #[error("no response to '{command}' within {timeout:?}")]
    Timeout {
        /// The command that was being answered.
        command: String,
        /// The deadline that passed.
        timeout: Duration,
    },
    /// The engine answered with an error: `? message`.
    #[error("engine refused '{command}': {message}")]
    Engine {
        /// The command that was refused.
        command: String,
        /// The engine's message.
        message: String,
    },
    /// The command itself cannot be sent (it spans several lines).
    #[error("invalid command {0:?}: a GTP command is one line")]
    InvalidCommand(String),
}

fn exit_note(status: &Option<String>) -> String {
    status
        .as_ref()
        .map(|s| format!(" ({s})"))
        .unwrap_or_default()
}

fn stderr_note(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!("; its last error output: {stderr}")
    }
}

/// What `genmove` produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenMove {
    /// A stone or a pass.
    Move(Move),
    /// The engine resigns.
    Resign,
}

impl From<GenMove> for Action {
    fn from(generated: GenMove) -> Action {
        match generated {
            GenMove::Move(mv) => Action::Move(mv),
            GenMove::Resign => Action::Resign,
        }
    }
}

/// A stone status for `final_status_list`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoneStatus {
    /// Stones that stay on the board.
    Alive,
    /// Stones that are removed before counting.
    Dead,
    /// Stones alive in seki.
    Seki,
}

impl StoneStatus {
    /// The GTP word: `alive`, `dead` or `seki`.
    pub fn gtp(self) -> &'static str {
        match self {
            StoneStatus::Alive => "alive",
            StoneStatus::Dead => "dead",
            StoneStatus::Seki => "seki",
        }
    }
}

/// An engine's `final_score` answer: `B+3.5`, `W+R`, `0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FinalScore {
    /// The side ahead, `None` for a draw.
    pub winner: Option<Color>,
    /// By how much, when a number was given (`None` for `B+R` and the like).
    pub margin: Option<f64>,
}

impl FinalScore {
    /// Reads a result in GTP/SGF style: `B+3.5`, `W+0.5`, `B+R`, `W+T`, `0`,
    /// `Draw`, `Jigo` (case does not matter).
    pub fn parse(text: &str) -> Option<FinalScore> {
        let text = text.trim();
        if text == "0" || text.eq_ignore_ascii_case("draw") || text.eq_ignore_ascii_case("jigo") {
            return Some(FinalScore {
                winner: None,
                margin: Some(0.0),
            });
        }
        let (color, amount) = text.split_once('+')?;
        let winner = Color::parse(color)?;
        let amount = amount.trim();
        if amount.is_empty() {
            return Some(FinalScore {
                winner: Some(winner),
                margin: None,
            });
        }
        match amount.parse::<f64>() {
            Ok(margin) if margin.is_finite() && margin >= 0.0 => Some(FinalScore {
                winner: if margin == 0.0 { None } else { Some(winner) },
                margin: Some(margin),
            }),
            Ok(_) => None,
            // `R` (resignation), `T` (time), `F` (forfeit) and the like.
            Err(_) if amount.chars().all(|c| c.is_ascii_alphabetic()) => Some(FinalScore {
                winner: Some(winner),
                margin: None,
            }),
            Err(_) => None,
        }
    }
}

impl fmt::Display for FinalScore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.winner, self.margin) {
            (None, _) => f.write_str("0"),
            (Some(winner), Some(margin)) => write!(f, "{}+{}", winner.letter(), margin),
            (Some(winner), None) => write!(f, "{}+?", winner.letter()),
        }
    }
}

/// Splits an engine command line into program and arguments: words are
/// separated by whitespace; `'…'` keeps everything literally, `"…"` keeps
/// whitespace and lets `\"` and `\\` through, and a backslash outside quotes
/// escapes the next character. No variables, globs or other shell features.
pub fn split_command_line(command_line: &str) -> Result<Vec<String>, ControllerError> {
    let bad = |reason: &str| ControllerError::CommandLine {
        command_line: command_line.to_string(),
        reason: reason.to_string(),
    };
    let mut words = Vec::new();
    let mut word = String::new();
    // Whether a word has started; `''` is an empty word, not nothing.
    let mut in_word = false;
    let mut chars = command_line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(bad("a single quote is not closed")),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(bad("a double quote is not closed")),
                        },
                        Some(c) => word.push(c),
                        None => return Err(bad("a double quote is not closed")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err(bad("it ends with a lone backslash")),
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(bad("it is empty"));
    }
    Ok(words)
}

/// A parsed GTP response line group.
#[derive(Debug, PartialEq, Eq)]
struct Response {
    id: Option<u64>,
    success: bool,
    text: String,
}

/// Parses the first line of a response: `=12 text`, `?3 message`, `= text`.
/// Returns `None` when the line is not a response start.
fn parse_response_start(line: &str) -> Option<(bool, Option<u64>, String)> {
    let success = match line.as_bytes().first()? {
        b'=' => true,
        b'?' => false,
        _ => return None,
    };
    let rest = &line[1..];
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let id = if digits > 0 {
        Some(rest[..digits].parse().ok()?)
    } else {
        None
    };
    let text = &rest[digits..];
    // After the id comes a space (or nothing); anything else, like `=x`, is
    // not a response.
    if !text.is_empty() && !text.starts_with([' ', '\t']) {
        return None;
    }
    Some((success, id, text.trim().to_string()))
}

/// A running engine driven over GTP.
///
/// Dropping a controller closes the engine's input, gives it a moment to exit
/// and then kills it, so no engine process outlives its controller.
pub struct Controller {
    command_line: String,
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    stderr_drain: thread::JoinHandle<()>,
    next_id: u64,
    timeout: Option<Duration>,
    size: BoardSize,
}

impl fmt::Debug for Controller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Controller")
            .field("command_line", &self.command_line)
            .field("pid", &self.child.id())
            .field("next_id", &self.next_id)
            .field("timeout", &self.timeout)
            .field("size", &self.size)
            .finish_non_exhaustive()
    }
}

impl Controller {
    /// Starts the engine given by `command_line` (see [`split_command_line`]),
    /// with [`DEFAULT_TIMEOUT`] per command and a 19×19 board assumed until
    /// [`Controller::boardsize`] says otherwise.
    pub fn spawn(command_line: &str) -> Result<Controller, ControllerError> {
        let words = split_command_line(command_line)?;
        let mut child = Command::new(&words[0])
            .args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|source| ControllerError::Spawn {
                program: words[0].clone(),
                source,
            })?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout was piped");
        let stderr = child.stderr.take().expect("stderr was piped");

        let (sender, lines) = mpsc::channel();
        thread::Builder::new()
            .name("gtp-stdout".into())
            .spawn(move || read_lines(stdout, sender))
            .map_err(|source| ControllerError::Spawn {
                program: words[0].clone(),
                source,
            })?;
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let tail = Arc::clone(&stderr_tail);
        let stderr_drain = thread::Builder::new()
            .name("gtp-stderr".into())
            .spawn(move || drain_stderr(stderr, tail))
            .map_err(|source| ControllerError::Spawn {
                program: words[0].clone(),
                source,
            })?;

        Ok(Controller {
            command_line: command_line.to_string(),
            child,
            stdin,
            lines,
            stderr_tail,
            stderr_drain,
            next_id: 1,
            timeout: Some(DEFAULT_TIMEOUT),
            size: BoardSize::square(19).expect("19 is a valid size"),
        })
    }

    /// The command line the engine was started with.
    pub fn command_line(&self) -> &str {
        &self.command_line
    }

    /// The engine's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The deadline for each command's reply; `None` waits forever.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Sets the deadline for each command's reply; `None` waits forever.
    pub fn set_timeout(&mut self, timeout: Option<Duration>) {
        self.timeout = timeout;
    }

    /// The board size used to read and write vertices (the last one the engine
    /// accepted through [`Controller::boardsize`]).
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// Sends one command and returns the text of its successful reply
    /// (multi-line replies joined with `\n`), under the controller's timeout.
    pub fn send(&mut self, command: &str) -> Result<String, ControllerError> {
        self.send_with_timeout(command, self.timeout)
    }

    /// Sends one command and returns the text of its successful reply, waiting
    /// at most `timeout` (`None`: forever).
    ///
    /// After a timeout the engine may still answer later; that stale reply
    /// carries the old id and is skipped by the next command.
    pub fn send_with_timeout(
        &mut self,
        command: &str,
        timeout: Option<Duration>,
    ) -> Result<String, ControllerError> {
        let command = command.trim();
        if command.contains(['\n', '\r']) {
            return Err(ControllerError::InvalidCommand(command.to_string()));
        }
        let id = self.next_id;
        self.next_id += 1;
        tracing::trace!(engine = %self.command_line, "> {id} {command}");
        let written = match self.stdin.as_mut() {
            Some(stdin) => writeln!(stdin, "{id} {command}").and_then(|()| stdin.flush()),
            None => Err(io::Error::from(io::ErrorKind::BrokenPipe)),
        };
        if written.is_err() {
            // A write fails once the engine has gone away (broken pipe).
            return Err(self.exited(command));
        }
        let deadline = timeout.map(|t| (Instant::now() + t, t));
        loop {
            let response = self.read_response(command, deadline)?;
            match response.id {
                Some(got) if got != id => {
                    tracing::debug!(engine = %self.command_line, "skipping stale reply to command {got}");
                    continue;
                }
                _ => {}
            }
            tracing::trace!(engine = %self.command_line, "< {}", response.text);
            return if response.success {
                Ok(response.text)
            } else {
                Err(ControllerError::Engine {
                    command: command.to_string(),
                    message: response.text,
                })
            };
        }
    }

    fn next_line(
        &mut self,
        command: &str,
        deadline: Option<(Instant, Duration)>,
    ) -> Result<String, ControllerError> {
        let received = match deadline {
            None => self
                .lines
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
            Some((at, timeout)) => {
                let left = at.saturating_duration_since(Instant::now());
                match self.lines.recv_timeout(left) {
                    Err(RecvTimeoutError::Timeout) => {
                        return Err(ControllerError::Timeout {
                            command: command.to_string(),
                            timeout,
                        })
                    }
                    other => other,
                }
            }
        };
        received.map_err(|_| self.exited(command))
    }

    fn read_response(
        &mut self,
        command: &str,
        deadline: Option<(Instant, Duration)>,
    ) -> Result<Response, ControllerError> {
        // Blank lines between responses are tolerated.
        let first = loop {
            let line = self.next_line(command, deadline)?;
            if !line.trim().is_empty() {
                break line;
            }
        };
        let Some((success, id, mut text)) = parse_response_start(&first) else {
            return Err(ControllerError::Malformed {
                command: command.to_string(),
                response: first,
                reason: "a response starts with '=' or '?'".to_string(),
            });
        };
        loop {
            let line = self.next_line(command, deadline)?;
            if line.trim().is_empty() {
                break;
            }
            text.push('\n');
            text.push_str(line.trim_end());
        }
        Ok(Response { id, success, text })
    }

    /// The error for an engine that went away: its exit status if it can be
    /// reaped quickly, and the tail of its standard error.
    fn exited(&mut self, command: &str) -> ControllerError {
        let status = wait_for_exit(&mut self.child, EXIT_GRACE).map(|s| s.to_string());
        // The engine's last words (a panic message, say) may still be in the
        // pipe; give the drain thread a moment to reach the end of it.
        let until = Instant::now() + EXIT_GRACE;
        while !self.stderr_drain.is_finished() && Instant::now() < until {
            thread::sleep(Duration::from_millis(5));
        }
        ControllerError::EngineExited {
            command: command.to_string(),
            status,
            stderr: self.stderr_tail(),
        }
    }

    /// The last lines (up to 20) the engine wrote to its standard error, joined
    /// with ` | `.
    pub fn stderr_tail(&self) -> String {
        // The drain thread only pushes and pops; a poisoned lock still holds
        // usable lines.
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        tail.iter().cloned().collect::<Vec<_>>().join(" | ")
    }

    /// `protocol_version`.
    pub fn protocol_version(&mut self) -> Result<String, ControllerError> {
        self.send("protocol_version")
    }

    /// `name`: the engine's name.
    pub fn name(&mut self) -> Result<String, ControllerError> {
        self.send("name")
    }

    /// `version`: the engine's version (may be empty).
    pub fn version(&mut self) -> Result<String, ControllerError> {
        self.send("version")
    }

    /// `known_command`: whether the engine knows `command`.
    pub fn known_command(&mut self, command: &str) -> Result<bool, ControllerError> {
        let answer = self.send(&format!("known_command {command}"))?;
        Ok(answer.trim() == "true")
    }

    /// `list_commands`: every command the engine knows.
    pub fn list_commands(&mut self) -> Result<Vec<String>, ControllerError> {
        let answer = self.send("list_commands")?;
        Ok(answer.split_whitespace().map(str::to_string).collect())
    }

    /// `boardsize`: `boardsize N` for a square board; a rectangle is sent as
    /// `boardsize WxH`, which standard engines refuse. On success the size is
    /// used for the vertices of later commands.
    pub fn boardsize(&mut self, size: BoardSize) -> Result<(), ControllerError> {
        self.send(&format!("boardsize {size}"))?;
        self.size = size;
        Ok(())
    }

    /// `clear_board`.
    pub fn clear_board(&mut self) -> Result<(), ControllerError> {
        self.send("clear_board").map(drop)
    }

    /// `komi`.
    pub fn komi(&mut self, komi: f64) -> Result<(), ControllerError> {
        self.send(&format!("komi {komi}")).map(drop)
    }

    /// `play color vertex`: tells the engine about a move.
    pub fn play(&mut self, color: Color, mv: Move) -> Result<(), ControllerError> {
        let vertex = self.size.gtp(mv);
        self.send(&format!("play {} {vertex}", color.name()))
            .map(drop)
    }

    /// `genmove color`: asks the engine for a move, which it also plays on its
    /// own board. A vertex that cannot be read, or is off the board, is
    /// [`ControllerError::Malformed`]; whether the move is legal is for the
    /// caller to judge.
    pub fn genmove(&mut self, color: Color) -> Result<GenMove, ControllerError> {
        let command = format!("genmove {}", color.name());
        let answer = self.send(&command)?;
        let word = answer.trim();
        if word.eq_ignore_ascii_case("resign") {
            return Ok(GenMove::Resign);
        }
        self.size
            .parse_gtp(word)
            .map(GenMove::Move)
            .map_err(|err| ControllerError::Malformed {
                command,
                response: answer.clone(),
                reason: err.to_string(),
            })
    }

    /// `final_score`: the engine's own count of the position.
    pub fn final_score(&mut self) -> Result<FinalScore, ControllerError> {
        let answer = self.send("final_score")?;
        FinalScore::parse(&answer).ok_or_else(|| ControllerError::Malformed {
            command: "final_score".to_string(),
            response: answer.clone(),
            reason: "expected a result such as B+3.5, W+R or 0".to_string(),
        })
    }

    /// `final_status_list status`: the stones the engine considers to have
    /// that status, one point per stone (lines may list whole chains).
    pub fn final_status_list(
        &mut self,
        status: StoneStatus,
    ) -> Result<Vec<Point>, ControllerError> {
        let command = format!("final_status_list {}", status.gtp());
        let answer = self.send(&command)?;
        let mut points = Vec::new();
        for word in answer.split_whitespace() {
            match self.size.parse_gtp(word) {
                Ok(Move::Play(point)) => points.push(point),
                Ok(Move::Pass) | Err(_) => {
                    return Err(ControllerError::Malformed {
                        command,
                        response: answer.clone(),
                        reason: format!("'{word}' is not a vertex on this board"),
                    })
                }
            }
        }
        Ok(points)
    }

    /// `time_settings main byo_yomi stones`: main time, then `byo_yomi` for
    /// every `stones` moves (Canadian overtime); whole seconds, rounded up.
    /// `byo_yomi` zero with `stones` zero means no overtime.
    pub fn time_settings(
        &mut self,
        main: Duration,
        byo_yomi: Duration,
        stones: u32,
    ) -> Result<(), ControllerError> {
        self.send(&format!(
            "time_settings {} {} {stones}",
            whole_seconds(main),
            whole_seconds(byo_yomi)
        ))
        .map(drop)
    }

    /// `time_left color time stones`: the time `color` has left, and the stones
    /// still to play in the current overtime period (0 in main time).
    pub fn time_left(
        &mut self,
        color: Color,
        left: Duration,
        stones: u32,
    ) -> Result<(), ControllerError> {
        self.send(&format!(
            "time_left {} {} {stones}",
            color.name(),
            whole_seconds(left)
        ))
        .map(drop)
    }

    /// `quit`, then waits briefly for the process to exit (killing it if it
    /// does not). An engine that exits without answering `quit` is fine.
    pub fn quit(mut self) -> Result<(), ControllerError> {
        let result = match self.send("quit") {
            Ok(_) | Err(ControllerError::EngineExited { .. }) => Ok(()),
            Err(err) => Err(err),
        };
        self.shut_down();
        result
    }

    /// Closes the engine's input, waits a moment for it to exit, then kills it.
    fn shut_down(&mut self) {
        // Closing stdin is how most engines learn that the session is over.
        drop(self.stdin.take());
        if wait_for_exit(&mut self.child, EXIT_GRACE).is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Drop for Controller {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// Seconds rounded up, since GTP times are whole seconds and rounding down
/// could tell an engine it has no time at all.
fn whole_seconds(duration: Duration) -> u64 {
    duration.as_secs() + u64::from(duration.subsec_nanos() > 0)
}

/// Polls the child for up to `grace`; its exit status if it has exited.
fn wait_for_exit(child: &mut Child, grace: Duration) -> Option<std::process::ExitStatus> {
    let until = Instant::now() + grace;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(5)),
            _ => return None,
        }
    }
}

/// Reads the engine's output line by line and hands each line, without its
/// line ending and control characters, to the controller. Ends at end of file
/// or when the controller is gone.
fn read_lines(stdout: impl Read, sender: mpsc::Sender<String>) {
    let mut reader = BufReader::new(stdout);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                // GTP asks to drop control characters other than tab and
                // newline (a CR from an engine on Windows conventions, say).
                let line: String = String::from_utf8_lossy(&buffer)
                    .chars()
                    .filter(|&c| !c.is_control() || c == '\t')
                    .collect();
                if sender.send(line).is_err() {
                    return;
                }
            }
        }
    }
}

/// Reads the engine's standard error to its end, keeping the last lines.
fn drain_stderr(stderr: impl Read, tail: Arc<Mutex<VecDeque<String>>>) {
    let mut reader = BufReader::new(stderr);
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buffer).trim_end().to_string();
                tracing::trace!("engine stderr: {line}");
                let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
                if tail.len() == STDERR_TAIL_LINES {
                    tail.pop_front();
                }
                tail.push_back(line);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_command_lines() {
        let split = |s: &str| split_command_line(s).unwrap();
        assert_eq!(
            split("  gnugo --mode gtp   --level 1 "),
            ["gnugo", "--mode", "gtp", "--level", "1"]
        );
        assert_eq!(
            split(r#"sh -c 'echo "hi there"' "a b" c\ d"#),
            ["sh", "-c", "echo \"hi there\"", "a b", "c d"]
        );
        assert_eq!(
            split(r#"x "q\"uote" 'it''s' ''"#),
            ["x", "q\"uote", "its", ""]
        );
        assert_eq!(split(r#"x "a\nb""#), ["x", "a\\nb"]);
        for bad in ["", "   ", "x 'open", "x \"open", "x \\"] {
            assert!(split_command_line(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn parses_response_starts() {
        assert_eq!(
            parse_response_start("=12 D4"),
            Some((true, Some(12), "D4".to_string()))
        );
        assert_eq!(parse_response_start("="), Some((true, None, String::new())));
        assert_eq!(
            parse_response_start("=3"),
            Some((true, Some(3), String::new()))
        );
        assert_eq!(
            parse_response_start("?7 illegal move"),
            Some((false, Some(7), "illegal move".to_string()))
        );
        assert_eq!(
            parse_response_start("= pass"),
            Some((true, None, "pass".to_string()))
        );
        for bad in ["", "D4", "=x", "=12x", " = D4", "ok"] {
            assert_eq!(parse_response_start(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn parses_final_scores() {
        let parse = |s: &str| FinalScore::parse(s);
        assert_eq!(
            parse("B+2.0"),
            Some(FinalScore {
                winner: Some(Color::Black),
                margin: Some(2.0)
            })
        );
        assert_eq!(
            parse("w+R"),
            Some(FinalScore {
                winner: Some(Color::White),
                margin: None
            })
        );
        assert_eq!(parse("0").and_then(|s| s.winner), None);
        assert_eq!(parse("Draw").map(|s| s.margin), Some(Some(0.0)));
        assert_eq!(parse("B+3.5").unwrap().to_string(), "B+3.5");
        for bad in ["", "X+1", "B-3", "B+-1", "B+1.5.2", "B+inf"] {
            assert_eq!(parse(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn rounds_seconds_up() {
        assert_eq!(whole_seconds(Duration::from_millis(1500)), 2);
        assert_eq!(whole_seconds(Duration::from_secs(3)), 3);
        assert_eq!(whole_seconds(Duration::ZERO), 0);
    }
}
