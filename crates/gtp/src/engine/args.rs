//! The arguments several commands share: none at all, colours, vertices and
//! numbers. Each parser answers [`CommandError::Syntax`] for text it cannot
//! read, so every command refuses malformed arguments in the same words.

use tengen_core::{BoardSize, Color, Move, VertexErrorKind};

use super::CommandError;

/// Refuses any argument, for commands that take none.
pub(super) fn no_args(args: &[&str]) -> Result<(), CommandError> {
    if args.is_empty() {
        Ok(())
    } else {
        Err(CommandError::Syntax)
    }
}

/// A colour: `b`, `w`, `black` or `white`, in any case.
pub(super) fn parse_color(text: &str) -> Result<Color, CommandError> {
    Color::parse(text).ok_or(CommandError::Syntax)
}

/// A move from vertex text: `Some` on the board, `None` well formed but off
/// this board, a syntax error otherwise.
pub(super) fn parse_vertex(size: BoardSize, text: &str) -> Result<Option<Move>, CommandError> {
    match size.parse_gtp(text) {
        Ok(mv) => Ok(Some(mv)),
        Err(error) if matches!(error.kind, VertexErrorKind::OffBoard(_)) => Ok(None),
        Err(_) => Err(CommandError::Syntax),
    }
}

/// An integer written with an optional sign and digits only, saturated to the
/// `i64` range so that `99999999999999999999` is a (too large) number rather
/// than a syntax error.
pub(super) fn parse_integer(text: &str) -> Option<i64> {
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
pub(super) fn parse_u64(text: &str) -> Result<u64, CommandError> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(CommandError::Syntax);
    }
    text.parse().map_err(|_| CommandError::Syntax)
}

/// Komi: a finite number of at most 1000 in size (`nan`, `inf` and `1e999`
/// are refused).
pub(super) fn parse_komi(text: &str) -> Result<f64, CommandError> {
    match text.parse::<f64>() {
        Ok(komi) if komi.is_finite() && komi.abs() <= 1000.0 => Ok(komi),
        _ => Err(CommandError::Syntax),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
