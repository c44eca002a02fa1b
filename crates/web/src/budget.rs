//! The thinking budget: a request's `budget` written into the bot's typed
//! settings (its playouts or visits, and its time), and every such setting
//! (from the budget or from the bot spec of the URL) held to the server's
//! limits, so that no request can occupy a bot slot for long.

use serde::Serialize;
use tengen_bots::BotSettings;

use crate::error::ApiError;
use crate::request::Budget;
use crate::Limits;

/// What became of a request's budget.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AppliedBudget {
    /// Playouts set on the bot, if it takes them (as `visits` for a bot
    /// that counts visits).
    pub playouts: Option<u64>,
    /// Seconds set on the bot, if it takes a time.
    pub seconds: Option<f64>,
    /// Parts of the budget the bot has no setting for (`playouts`, `seconds`).
    pub ignored: Vec<&'static str>,
}

/// Checks `budget` against the limits and writes it into `settings` as the
/// bot's playouts (or visits) and time where it has them; then holds the
/// settings' own playouts or visits, time, memory and threads to the limits.
pub fn apply(
    settings: &mut dyn BotSettings,
    budget: Option<&Budget>,
    limits: &Limits,
) -> Result<AppliedBudget, ApiError> {
    let mut held = settings.budget();
    let mut applied = AppliedBudget::default();
    if let Some(budget) = budget {
        if let Some(playouts) = budget.playouts {
            check_playouts(playouts, limits)?;
            match &mut held.count {
                Some((_, count)) => {
                    *count = Some(playouts);
                    applied.playouts = Some(playouts);
                }
                None => applied.ignored.push("playouts"),
            }
        }
        if let Some(seconds) = budget.seconds {
            check_seconds(seconds, limits)?;
            match &mut held.time {
                Some(time) => {
                    *time = Some(std::time::Duration::from_secs_f64(seconds));
                    applied.seconds = Some(seconds);
                }
                None => applied.ignored.push("seconds"),
            }
        }
    }
    if let Some((name, Some(count))) = held.count {
        check_count(name, count, limits)?;
    }
    if let Some(Some(time)) = held.time {
        check_seconds(time.as_secs_f64(), limits)?;
    }
    if let Some(mib) = held.memory_mib {
        if mib > limits.max_memory_mib {
            return Err(ApiError::Budget(format!(
                "memory={mib} MiB is more than this server allows ({} MiB)",
                limits.max_memory_mib
            )));
        }
    }
    if let Some(threads) = held.threads {
        if threads > limits.max_threads {
            return Err(ApiError::Budget(format!(
                "threads={threads} is more than this server allows ({})",
                limits.max_threads
            )));
        }
    }
    settings.set_budget(&held);
    Ok(applied)
}

fn check_playouts(playouts: u64, limits: &Limits) -> Result<(), ApiError> {
    check_count("playouts", playouts, limits)
}

/// Playouts or visits, both held to `max_playouts`.
fn check_count(what: &str, count: u64, limits: &Limits) -> Result<(), ApiError> {
    if count == 0 || count > limits.max_playouts {
        return Err(ApiError::Budget(format!(
            "a budget of {count} {what} is out of range: 1 to {} per move",
            limits.max_playouts
        )));
    }
    Ok(())
}

fn check_seconds(seconds: f64, limits: &Limits) -> Result<(), ApiError> {
    let max = limits.max_think.as_secs_f64();
    if !(seconds > 0.0 && seconds <= max) {
        return Err(ApiError::Budget(format!(
            "a budget of {seconds} seconds is out of range: more than 0 and at most {max} per move"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_bots::parse_bot;

    fn budget(playouts: Option<u64>, seconds: Option<f64>) -> Budget {
        Budget { playouts, seconds }
    }

    #[test]
    fn budgets_become_settings_the_bot_has() {
        let limits = Limits::default();
        let mut settings = parse_bot("mcts").unwrap();
        let applied = apply(
            settings.as_mut(),
            Some(&budget(Some(2000), Some(1.5))),
            &limits,
        )
        .unwrap();
        assert_eq!(settings.to_string(), "mcts:playouts=2000,time=1500ms");
        assert!(applied.ignored.is_empty());

        let mut settings = parse_bot("random").unwrap();
        let applied = apply(settings.as_mut(), Some(&budget(Some(5), None)), &limits).unwrap();
        assert_eq!(settings.to_string(), "random");
        assert_eq!(applied.ignored, vec!["playouts"]);
    }

    #[test]
    fn a_budget_of_playouts_becomes_visits_for_a_bot_that_counts_visits() {
        let limits = Limits {
            max_playouts: 50,
            ..Limits::default()
        };
        let mut settings = parse_bot("katago").unwrap();
        let applied = apply(
            settings.as_mut(),
            Some(&budget(Some(8), Some(0.5))),
            &limits,
        )
        .unwrap();
        assert_eq!(settings.to_string(), "katago:visits=8,time=500ms");
        assert_eq!(applied.playouts, Some(8));
        assert!(apply(settings.as_mut(), Some(&budget(Some(51), None)), &limits).is_err());
        let mut settings = parse_bot("katago:visits=51").unwrap();
        let err = apply(settings.as_mut(), None, &limits).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a budget of 51 visits is out of range: 1 to 50 per move"
        );
    }

    #[test]
    fn unreasonable_budgets_are_refused() {
        let limits = Limits::default();
        for bad in [
            budget(Some(0), None),
            budget(Some(limits.max_playouts + 1), None),
            budget(None, Some(0.0)),
            budget(None, Some(-1.0)),
            budget(None, Some(limits.max_think.as_secs_f64() + 0.5)),
        ] {
            let mut settings = parse_bot("mcts").unwrap();
            assert!(apply(settings.as_mut(), Some(&bad), &limits).is_err());
        }
        for spec in [
            // Hours are a duration like any other, and an hour is over the limit.
            "mcts:time=1h",
            "mcts:time=60s",
            "mcts:playouts=100000000",
            "mcts:memory=65536",
            "mcts:threads=256",
        ] {
            let mut settings = parse_bot(spec).unwrap();
            assert!(apply(settings.as_mut(), None, &limits).is_err(), "{spec}");
        }
    }
}
