//! Time controls as GTP (`time_settings`, `time_left`) and KGS
//! (`kgs-time_settings`) describe them. GTP engines pass them to agents that
//! budget their thinking; the random bot ignores them.

use std::fmt;
use std::time::Duration;

/// The clock of a game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimeSettings {
    /// No time limit (the default, and what GTP calls byo-yomi time with zero
    /// stones).
    #[default]
    Unlimited,
    /// Main time only, in seconds; zero main time means an instant loss on
    /// time is possible, and is kept as given.
    Absolute {
        /// Main time in seconds.
        main: u64,
    },
    /// Main time, then a number of byo-yomi periods of `period` seconds each.
    Byoyomi {
        /// Main time in seconds.
        main: u64,
        /// Length of each period in seconds.
        period: u64,
        /// Number of periods.
        periods: u64,
    },
    /// Main time, then `stones` moves in every `period` seconds.
    Canadian {
        /// Main time in seconds.
        main: u64,
        /// Length of each overtime block in seconds.
        period: u64,
        /// Moves to play in each block.
        stones: u64,
    },
}

impl TimeSettings {
    /// Interprets GTP `time_settings main_time byo_yomi_time byo_yomi_stones`:
    /// byo-yomi time with zero stones means no limit, zero byo-yomi time means
    /// absolute time, anything else is Canadian overtime.
    pub fn from_gtp(main: u64, period: u64, stones: u64) -> TimeSettings {
        if period > 0 && stones == 0 {
            TimeSettings::Unlimited
        } else if period == 0 {
            TimeSettings::Absolute { main }
        } else {
            TimeSettings::Canadian {
                main,
                period,
                stones,
            }
        }
    }
}

impl fmt::Display for TimeSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeSettings::Unlimited => write!(f, "none"),
            TimeSettings::Absolute { main } => write!(f, "absolute {main}"),
            TimeSettings::Byoyomi {
                main,
                period,
                periods,
            } => write!(f, "byoyomi {main} {period} {periods}"),
            TimeSettings::Canadian {
                main,
                period,
                stones,
            } => write!(f, "canadian {main} {period} {stones}"),
        }
    }
}

/// What `time_left color time stones` reported for one side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeLeft {
    /// Seconds left in the current period (or main time).
    pub seconds: u64,
    /// Stones left to play in the current overtime period; 0 in main time.
    pub stones: u64,
}

/// The longest duration [`parse_duration`] accepts: about 31 years. Longer
/// than any game, and far enough from `Duration`'s own limit that adding it
/// to an `Instant` cannot overflow.
pub const MAX_DURATION_SECS: u64 = 1_000_000_000;

/// Why a text is not a duration (see [`parse_duration`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DurationError {
    /// Nothing but spaces.
    Empty,
    /// The number before the unit is missing or malformed (signs and
    /// exponents are not accepted).
    BadNumber,
    /// A unit other than `ms`, `s`, `m`, `min` or `h`.
    UnknownUnit(String),
    /// Longer than [`MAX_DURATION_SECS`].
    TooLong,
}

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DurationError::Empty => write!(f, "no duration given"),
            DurationError::BadNumber => write!(
                f,
                "expected a number and a unit such as 500ms, 2s, 1.5m or 1h"
            ),
            DurationError::UnknownUnit(unit) => {
                write!(f, "unknown time unit '{unit}' (use ms, s, m or h)")
            }
            DurationError::TooLong => {
                write!(f, "longer than {MAX_DURATION_SECS} seconds")
            }
        }
    }
}

impl std::error::Error for DurationError {}

/// Parses a duration written for people: a decimal number and a unit, `ms`,
/// `s`, `m` (or `min`) or `h`, such as `500ms`, `2s`, `1.5m` or `1h`; a bare
/// number is seconds. Spaces around the number and the unit are allowed.
/// Zero is a duration; whether it is an acceptable one (and how long is too
/// long) is for the caller to say, up to [`MAX_DURATION_SECS`].
///
/// The number is read exactly in decimal (no floating-point rounding), to the
/// nearest nanosecond.
///
/// ```
/// use std::time::Duration;
/// use tengen_core::{parse_duration, DurationError};
///
/// assert_eq!(parse_duration("1.5s"), Ok(Duration::from_millis(1500)));
/// assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
/// assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
/// assert_eq!(parse_duration("2x"), Err(DurationError::UnknownUnit("x".into())));
/// ```
pub fn parse_duration(text: &str) -> Result<Duration, DurationError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(DurationError::Empty);
    }
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let nanos_per_unit: u128 = match unit.trim() {
        "ms" => 1_000_000,
        "" | "s" => 1_000_000_000,
        "m" | "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        other => {
            // A number that does not even start is the first fault to name
            // (`-1s`, `nan`, `s`), not the unit.
            return Err(if number.is_empty() {
                DurationError::BadNumber
            } else {
                DurationError::UnknownUnit(other.to_string())
            });
        }
    };
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') {
        return Err(DurationError::BadNumber);
    }
    // Beyond 18 fraction digits nothing reaches a nanosecond of any unit.
    let fraction = &fraction[..fraction.len().min(18)];
    let scale = 10u128.pow(fraction.len() as u32);
    let digits = |text: &str| {
        text.bytes().try_fold(0u128, |n, b| {
            n.checked_mul(10)?.checked_add(u128::from(b - b'0'))
        })
    };
    let whole = digits(whole).ok_or(DurationError::TooLong)?;
    let fraction = digits(fraction).ok_or(DurationError::TooLong)?;
    let nanos = whole
        .checked_mul(scale)
        .and_then(|n| n.checked_add(fraction))
        .and_then(|n| n.checked_mul(nanos_per_unit))
        .and_then(|n| n.checked_add(scale / 2))
        .map(|n| n / scale)
        .ok_or(DurationError::TooLong)?;
    if nanos > u128::from(MAX_DURATION_SECS) * 1_000_000_000 {
        return Err(DurationError::TooLong);
    }
    let nanos = nanos as u64; // at most 1e18, below u64::MAX
    Ok(Duration::new(
        nanos / 1_000_000_000,
        (nanos % 1_000_000_000) as u32,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_every_unit() {
        let ok = |text: &str| parse_duration(text).unwrap();
        assert_eq!(ok("2s"), Duration::from_secs(2));
        assert_eq!(ok("500ms"), Duration::from_millis(500));
        assert_eq!(ok("250ms"), Duration::from_millis(250));
        assert_eq!(ok("1.5s"), Duration::from_millis(1500));
        assert_eq!(ok("1.5m"), Duration::from_secs(90));
        assert_eq!(ok("1m"), Duration::from_secs(60));
        assert_eq!(ok("2min"), Duration::from_secs(120));
        assert_eq!(ok("1h"), Duration::from_secs(3600));
        assert_eq!(ok("3"), Duration::from_secs(3));
        assert_eq!(ok(" 2 s "), Duration::from_secs(2));
        assert_eq!(ok(".5"), Duration::from_millis(500));
        assert_eq!(ok("5."), Duration::from_secs(5));
        assert_eq!(ok("0"), Duration::ZERO);
        assert_eq!(ok("0s"), Duration::ZERO);
        // Exact decimal reading: 0.1 s is 100 ms to the nanosecond, and a
        // nanosecond's fraction rounds to the nearest.
        assert_eq!(ok("0.1s"), Duration::from_millis(100));
        assert_eq!(ok("0.3s"), Duration::from_millis(300));
        assert_eq!(ok("0.0000000016s"), Duration::from_nanos(2));
        assert_eq!(ok("1.0000000000000000000000001s"), Duration::from_secs(1));
        assert_eq!(ok("1000000000s"), Duration::from_secs(MAX_DURATION_SECS));
    }

    #[test]
    fn what_is_not_a_duration_says_why() {
        use DurationError::*;
        assert_eq!(parse_duration(""), Err(Empty));
        assert_eq!(parse_duration("  "), Err(Empty));
        for bad in ["s", "-1s", "-1", "+2s", "nan", "inf", ".", "1.2.3s", "soon"] {
            assert_eq!(parse_duration(bad), Err(BadNumber), "{bad}");
        }
        assert_eq!(parse_duration("2x"), Err(UnknownUnit("x".into())));
        assert_eq!(parse_duration("1e99h"), Err(UnknownUnit("e99h".into())));
        assert_eq!(parse_duration("1d"), Err(UnknownUnit("d".into())));
        assert_eq!(parse_duration("2S"), Err(UnknownUnit("S".into())));
        assert_eq!(parse_duration("1000000000.5s"), Err(TooLong));
        assert_eq!(parse_duration("300000h"), Err(TooLong));
        assert_eq!(parse_duration(&"9".repeat(60)), Err(TooLong));
        for error in [Empty, BadNumber, UnknownUnit("x".into()), TooLong] {
            assert!(!error.to_string().is_empty());
        }
    }
}
