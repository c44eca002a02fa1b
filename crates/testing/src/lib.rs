//! What tengen's tests share: hang guards that scale with the machine.
//!
//! A wait in a test only guards against a hang: it is generous, and
//! [`TIME_SCALE_VARIABLE`] multiplies it on a slow or busy machine. Tests
//! assert on behaviour, never on how fast the machine was.

#![forbid(unsafe_code)]
use std::time::Duration;

/// The environment variable that multiplies every hang guard: a positive
/// number, 1 when unset.
pub const TIME_SCALE_VARIABLE: &str = "TENGEN_TEST_TIME_SCALE";

/// The factor every hang guard is multiplied by.
///
/// # Panics
/// When [`TIME_SCALE_VARIABLE`] is set to something other than a positive
/// finite number: a mistyped setting must not silently mean 1.
pub fn time_scale() -> f64 {
    match std::env::var(TIME_SCALE_VARIABLE) {
        Ok(text) => parse_scale(&text).unwrap_or_else(|reason| panic!("{reason}")),
        Err(std::env::VarError::NotPresent) => 1.0,
        Err(std::env::VarError::NotUnicode(_)) => {
            panic!("{TIME_SCALE_VARIABLE} is not valid Unicode")
        }
    }
}

/// Reads a scale factor: a positive finite number.
fn parse_scale(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(scale) if scale.is_finite() && scale > 0.0 => Ok(scale),
        _ => Err(format!(
            "{TIME_SCALE_VARIABLE}={text:?}: expected a positive number, such as 2 or 0.5"
        )),
    }
}

/// `base` multiplied by [`time_scale`]: how long a test waits before it
/// calls a wait a hang.
pub fn hang_guard(base: Duration) -> Duration {
    base.mul_f64(time_scale())
}

/// The wait that guards a single answer: two minutes, scaled. Long enough
/// for a debug build on a loaded two-core machine; a hang still fails.
pub fn answer_guard() -> Duration {
    hang_guard(Duration::from_secs(120))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_factors_are_positive_numbers() {
        assert_eq!(parse_scale("2"), Ok(2.0));
        assert_eq!(parse_scale(" 0.5 "), Ok(0.5));
        for bad in ["", "0", "-1", "abc", "inf", "NaN"] {
            let error = parse_scale(bad).unwrap_err();
            assert!(error.contains(TIME_SCALE_VARIABLE), "{error}");
        }
    }
}
