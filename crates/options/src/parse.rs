//! The parsers of option values, shared by every door.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use tengen_core::parse_duration;

/// An `f32` field as the `f64` a `Real` option reads and writes, the one
/// that prints the same (`0.05`, not `0.0500000007`).
pub fn wide(value: f32) -> f64 {
    value.to_string().parse().unwrap_or(f64::from(value))
}

/// A thinking time as an option's text: whole seconds as `2s`, others in
/// milliseconds or seconds with a fraction, read back to the same time.
pub fn format_time(time: Duration) -> String {
    if time.subsec_nanos() == 0 {
        format!("{}s", time.as_secs())
    } else if time.subsec_nanos().is_multiple_of(1_000_000) {
        format!("{}ms", time.as_millis())
    } else {
        format!("{}s", time.as_secs_f64())
    }
}

/// A yes/no option: `true`, `yes`, `1`, `on` or their opposites, in any
/// case (KataGo's configs write `true`, some GUIs `True`).
///
/// ```
/// use tengen_options::parse_flag;
///
/// assert_eq!(parse_flag("TRUE"), Ok(true));
/// assert_eq!(parse_flag("off"), Ok(false));
/// assert!(parse_flag("maybe").is_err());
/// ```
pub fn parse_flag(text: &str) -> Result<bool, String> {
    match text.to_ascii_lowercase().as_str() {
        "true" | "yes" | "1" | "on" => Ok(true),
        "false" | "no" | "0" | "off" => Ok(false),
        _ => Err("expected true or false".to_string()),
    }
}

/// A whole number from `min` to `max`, or the reason it is not one.
pub fn parse_whole(text: &str, min: u64, max: u64) -> Result<u64, String> {
    let number: u64 = text
        .parse()
        .map_err(|_| "expected a whole number".to_string())?;
    if number < min || number > max {
        return Err(format!("must be from {min} to {max}"));
    }
    Ok(number)
}

/// A decimal number from `min` to `max` (both finite, both allowed), or the
/// reason it is not one: `expected a number`, or `must be from min to max`.
/// Not-a-number and infinities are refused by the bounds.
///
/// Bot options read their weights and margins with it, and the command line
/// its fractions, so the same text means the same number everywhere.
///
/// ```
/// use tengen_options::parse_real;
///
/// assert_eq!(parse_real("0.25", 0.0, 1.0), Ok(0.25));
/// assert_eq!(parse_real("2", 0.0f32, 1.0), Err("must be from 0 to 1".to_string()));
/// assert!(parse_real("NaN", 0.0, 1.0).is_err());
/// assert!(parse_real("half", 0.0, 1.0).is_err());
/// ```
pub fn parse_real<T>(text: &str, min: T, max: T) -> Result<T, String>
where
    T: FromStr + PartialOrd + fmt::Display + Copy,
{
    let number: T = text.parse().map_err(|_| "expected a number".to_string())?;
    // Written so that NaN, which compares false with everything, fails.
    if !(min <= number && number <= max) {
        return Err(format!("must be from {min} to {max}"));
    }
    Ok(number)
}

/// The longest thinking time a bot setting may ask for per move.
const MAX_THINK: Duration = Duration::from_secs(86_400);

/// A bot's `time` setting: a duration as [`tengen_core::parse_duration`]
/// reads it, more than zero (a bot given no time cannot choose a move) and
/// at most a day (longer is a typing mistake, not a plan).
pub fn parse_think_time(text: &str) -> Result<Duration, String> {
    let time = parse_duration(text).map_err(|e| e.to_string())?;
    if time.is_zero() || time > MAX_THINK {
        return Err("must be more than 0 and at most a day".to_string());
    }
    Ok(time)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_as_they_read_back() {
        for text in ["2s", "500ms", "1500ms", "3600s"] {
            let time = parse_think_time(text).unwrap();
            assert_eq!(format_time(time), text);
        }
        let odd = Duration::from_micros(1_500_250);
        assert_eq!(parse_think_time(&format_time(odd)), Ok(odd));
    }
}
