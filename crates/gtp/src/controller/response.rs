//! Reading a reply: lines from the engine under a deadline, the response
//! start (`=id text`, `?id message`) and the lines that continue it up to
//! the empty line.

use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use super::{Controller, ControllerError};

/// A parsed GTP response line group.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Response {
    /// The id the engine echoed, if any.
    pub(super) id: Option<u64>,
    /// `=` rather than `?`.
    pub(super) success: bool,
    /// The text after the id, continuation lines joined with `\n`.
    pub(super) text: String,
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

impl Controller {
    /// The next line from the engine, or the error for a deadline passed or
    /// an engine gone.
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

    /// One whole response: blank lines before it skipped, its first line
    /// parsed, the lines continuing it joined until the empty line.
    pub(super) fn read_response(
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
