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
//!
//! This file holds the [`Controller`] itself: starting the engine, sending a
//! command and awaiting its reply, shutting down. The typed commands and
//! their answers are in `commands`, the reading of replies in `response`,
//! the process's command line and pipes in `process`, and every failure is
//! a [`ControllerError`] (`error`).

mod commands;
mod error;
mod process;
mod response;

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use tengen_core::BoardSize;

pub use self::commands::{FinalScore, GenMove, StoneStatus};
pub use self::error::ControllerError;
pub use self::process::split_command_line;
use self::process::{drain_stderr, read_lines, wait_for_exit, EXIT_GRACE};

/// The default deadline for one command's reply.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

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
