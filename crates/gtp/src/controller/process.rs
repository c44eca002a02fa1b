//! The engine's process: its command line split into program and arguments,
//! the threads that read its standard output and drain its standard error,
//! and waiting for it to exit.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::process::Child;
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use super::ControllerError;

/// How many lines of the engine's standard error are kept for error messages.
const STDERR_TAIL_LINES: usize = 20;

/// How long to wait for an engine to exit on its own (after `quit` or when its
/// input is closed) before killing it.
pub(super) const EXIT_GRACE: Duration = Duration::from_millis(500);

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

/// Polls the child for up to `grace`; its exit status if it has exited.
pub(super) fn wait_for_exit(
    child: &mut Child,
    grace: Duration,
) -> Option<std::process::ExitStatus> {
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
pub(super) fn read_lines(stdout: impl Read, sender: mpsc::Sender<String>) {
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
pub(super) fn drain_stderr(stderr: impl Read, tail: Arc<Mutex<VecDeque<String>>>) {
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
}
