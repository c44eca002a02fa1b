//! [`ControllerError`]: one enum for every way driving an engine can fail,
//! each with the command it happened on, so that a referee can say what went
//! wrong and whose fault it was.

use std::io;
use std::time::Duration;

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
