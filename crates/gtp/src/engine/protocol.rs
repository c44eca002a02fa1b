//! The text layer of GTP v2: reading bounded lines, the input preprocessing the
//! specification asks for, splitting off the optional id, and writing
//! well-formed responses.

use std::io::{self, BufRead};

/// Longest command line kept, in bytes. Anything beyond is read and thrown
/// away, so that a client (or an attacker) sending one endless line cannot make
/// the engine grow without bound; such a line is answered with an error.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Reads one line (up to and without its `\n`) into `line`, keeping at most
/// `cap` bytes and discarding the rest of an over-long line.
///
/// Returns `None` at end of input when nothing was read, otherwise
/// `Some(truncated)`.
pub fn read_line_capped(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Option<bool>> {
    line.clear();
    let mut read_anything = false;
    let mut truncated = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(read_anything.then_some(truncated));
        }
        read_anything = true;
        let (chunk, used, finished) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (&available[..end], end + 1, true),
            None => (available, available.len(), false),
        };
        let room = cap.saturating_sub(line.len());
        if chunk.len() > room {
            truncated = true;
        }
        line.extend_from_slice(&chunk[..chunk.len().min(room)]);
        reader.consume(used);
        if finished {
            return Ok(Some(truncated));
        }
    }
}

/// Applies GTP's input preprocessing to one line: control characters other
/// than HT and LF are removed (CR among them), everything from `#` on is a
/// comment, HT becomes a space. Invalid UTF-8 is replaced, never refused.
pub fn preprocess(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    let without_comment = match text.find('#') {
        Some(hash) => &text[..hash],
        None => &text[..],
    };
    without_comment
        .chars()
        .filter_map(|c| match c {
            '\t' => Some(' '),
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect()
}

/// One command line after preprocessing: the optional id, the command name and
/// its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandLine<'a> {
    /// The id exactly as given (digits only), echoed in the response.
    pub id: Option<&'a str>,
    /// The command name; GTP command names are case-sensitive.
    pub name: Option<&'a str>,
    /// The arguments, split at whitespace.
    pub args: Vec<&'a str>,
}

/// Splits a preprocessed line. `None` when the line is empty or only
/// whitespace, which GTP says to skip without a response.
pub fn split_command(line: &str) -> Option<CommandLine<'_>> {
    let mut words = line.split_whitespace().peekable();
    let first = *words.peek()?;
    let id = if first.bytes().all(|b| b.is_ascii_digit()) {
        words.next();
        Some(first)
    } else {
        None
    };
    let name = words.next();
    Some(CommandLine {
        id,
        name,
        args: words.collect(),
    })
}

/// Formats a response: `=id text` or `?id text`, ended by exactly one empty
/// line. A leading line break in `text` is kept (multi-line diagrams start on
/// their own line, as GNU Go does); empty lines later in the text are dropped
/// because the protocol ends a response at the first empty line.
pub fn format_response(success: bool, id: Option<&str>, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    out.push(if success { '=' } else { '?' });
    out.push_str(id.unwrap_or(""));
    out.push(' ');
    for (i, line) in text.trim_end().split('\n').enumerate() {
        let line = line.trim_end();
        if i > 0 {
            if line.is_empty() {
                continue;
            }
            out.push('\n');
        }
        out.push_str(line);
    }
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preprocessing_follows_the_specification() {
        assert_eq!(preprocess(b"play\tb d4\r"), "play b d4");
        assert_eq!(preprocess(b"name # a comment"), "name ");
        assert_eq!(preprocess(b"na\x00me\x07\x7f"), "name");
        assert_eq!(preprocess(b"# only a comment"), "");
        assert_eq!(preprocess(b"\xff\xfename"), "\u{fffd}\u{fffd}name");
    }

    #[test]
    fn ids_and_blank_lines() {
        assert_eq!(split_command("   "), None);
        let line = split_command("12 play b D4").unwrap();
        assert_eq!(line.id, Some("12"));
        assert_eq!(line.name, Some("play"));
        assert_eq!(line.args, vec!["b", "D4"]);
        let line = split_command("12").unwrap();
        assert_eq!((line.id, line.name), (Some("12"), None));
        let line = split_command("-3 name").unwrap();
        assert_eq!((line.id, line.name), (None, Some("-3")));
    }

    #[test]
    fn responses_end_with_one_empty_line() {
        assert_eq!(format_response(true, None, ""), "= \n\n");
        assert_eq!(format_response(true, Some("7"), "2"), "=7 2\n\n");
        assert_eq!(format_response(false, None, "x\n\ny\n\n"), "? x\ny\n\n");
        assert_eq!(format_response(true, None, "\na\nb"), "= \na\nb\n\n");
    }

    #[test]
    fn long_lines_are_capped_and_consumed() {
        let input = format!("{}\nname\nlast", "x".repeat(100));
        let mut reader = io::BufReader::with_capacity(7, input.as_bytes());
        let mut line = Vec::new();
        assert_eq!(
            read_line_capped(&mut reader, &mut line, 10).unwrap(),
            Some(true)
        );
        assert_eq!(line.len(), 10);
        assert_eq!(
            read_line_capped(&mut reader, &mut line, 10).unwrap(),
            Some(false)
        );
        assert_eq!(line, b"name");
        assert_eq!(
            read_line_capped(&mut reader, &mut line, 10).unwrap(),
            Some(false)
        );
        assert_eq!(line, b"last");
        assert_eq!(read_line_capped(&mut reader, &mut line, 10).unwrap(), None);
    }
}
