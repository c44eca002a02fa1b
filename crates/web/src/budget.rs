//! The thinking budget: a request's `budget` mapped onto the bot's own
//! `playouts` (or `visits`, for the `katago` bot) and `time` options, and every such setting (from the budget or
//! written in the bot spec of the URL) held to the server's limits, so that
//! no request can occupy a bot slot for long.

use serde::Serialize;
use tengen_bots::{BotInfo, BotSpec};
use tengen_core::parse_duration;

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
    /// Parts of the budget the bot has no option for (`playouts`, `seconds`).
    pub ignored: Vec<&'static str>,
}

/// Checks `budget` against the limits and writes it into `spec` as the
/// bot's `playouts` (or, failing that, `visits`) and `time` options where
/// `info` lists them; then checks the spec's own `playouts`, `visits`,
/// `time`, `memory` and `threads` against the limits.
pub fn apply(
    spec: &mut BotSpec,
    info: &BotInfo,
    budget: Option<&Budget>,
    limits: &Limits,
) -> Result<AppliedBudget, ApiError> {
    let mut applied = AppliedBudget::default();
    if let Some(budget) = budget {
        if let Some(playouts) = budget.playouts {
            check_playouts(playouts, limits)?;
            match ["playouts", "visits"]
                .into_iter()
                .find(|name| info.option(name).is_some())
            {
                Some(name) => {
                    spec.set(name, playouts.to_string());
                    applied.playouts = Some(playouts);
                }
                None => applied.ignored.push("playouts"),
            }
        }
        if let Some(seconds) = budget.seconds {
            check_seconds(seconds, limits)?;
            if info.option("time").is_some() {
                spec.set("time", format!("{seconds}s"));
                applied.seconds = Some(seconds);
            } else {
                applied.ignored.push("seconds");
            }
        }
    }
    for name in ["playouts", "visits"] {
        if let Some(text) = spec.get(name) {
            // Values that are not numbers are left to the bot, which refuses
            // them with its own reason.
            if let Ok(count) = text.replace('_', "").parse::<u64>() {
                check_count(name, count, limits)?;
            }
        }
    }
    if let Some(text) = spec.get("time") {
        // Text that is not a duration is left to the bot, which refuses it
        // with its own reason.
        if let Ok(time) = parse_duration(text) {
            check_seconds(time.as_secs_f64(), limits)?;
        }
    }
    if let Some(text) = spec.get("memory") {
        if let Ok(mib) = text.parse::<u64>() {
            if mib > limits.max_memory_mib {
                return Err(ApiError::Budget(format!(
                    "memory={mib} MiB is more than this server allows ({} MiB)",
                    limits.max_memory_mib
                )));
            }
        }
    }
    if let Some(text) = spec.get("threads") {
        if let Ok(threads) = text.parse::<u64>() {
            if threads > limits.max_threads as u64 {
                return Err(ApiError::Budget(format!(
                    "threads={threads} is more than this server allows ({})",
                    limits.max_threads
                )));
            }
        }
    }
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
    use tengen_bots::BotOption;

    const SEARCHER: BotInfo = BotInfo {
        name: "searcher",
        description: "a bot with a budget",
        options: &[
            BotOption {
                name: "playouts",
                default: "1000",
                help: "",
            },
            BotOption {
                name: "time",
                default: "1s",
                help: "",
            },
        ],
    };

    fn budget(playouts: Option<u64>, seconds: Option<f64>) -> Budget {
        Budget { playouts, seconds }
    }

    #[test]
    fn budgets_become_options_the_bot_has() {
        let limits = Limits::default();
        let mut spec = BotSpec::named("searcher");
        let applied = apply(
            &mut spec,
            &SEARCHER,
            Some(&budget(Some(2000), Some(1.5))),
            &limits,
        )
        .unwrap();
        assert_eq!(spec.to_string(), "searcher:playouts=2000,time=1.5s");
        assert!(applied.ignored.is_empty());

        let random = tengen_bots::BOTS[0];
        let mut spec = BotSpec::named("random");
        let applied = apply(&mut spec, &random, Some(&budget(Some(5), None)), &limits).unwrap();
        assert_eq!(spec.to_string(), "random");
        assert_eq!(applied.ignored, vec!["playouts"]);
    }

    #[test]
    fn a_budget_of_playouts_becomes_visits_for_a_bot_that_counts_visits() {
        let info = BotInfo {
            name: "katago",
            description: "",
            options: crate::katago::OPTIONS,
        };
        let limits = Limits {
            max_playouts: 50,
            ..Limits::default()
        };
        let mut spec = BotSpec::named("katago");
        let applied = apply(&mut spec, &info, Some(&budget(Some(8), Some(0.5))), &limits).unwrap();
        assert_eq!(spec.to_string(), "katago:visits=8,time=0.5s");
        assert_eq!(applied.playouts, Some(8));
        assert!(apply(&mut spec, &info, Some(&budget(Some(51), None)), &limits).is_err());
        let mut spec: BotSpec = "katago:visits=51".parse().unwrap();
        let err = apply(&mut spec, &info, None, &limits).unwrap_err();
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
            let mut spec = BotSpec::named("searcher");
            assert!(apply(&mut spec, &SEARCHER, Some(&bad), &limits).is_err());
        }
        let mut spec: BotSpec = "searcher:time=soon".parse().unwrap();
        // Not a duration: left to the bot.
        assert!(apply(&mut spec, &SEARCHER, None, &limits).is_ok());
        // Hours are a duration like any other, and an hour is over the limit.
        let mut spec: BotSpec = "searcher:time=1h".parse().unwrap();
        assert!(apply(&mut spec, &SEARCHER, None, &limits).is_err());
        let mut spec: BotSpec = "searcher:time=60s".parse().unwrap();
        assert!(apply(&mut spec, &SEARCHER, None, &limits).is_err());
        let mut spec: BotSpec = "searcher:playouts=100000000".parse().unwrap();
        assert!(apply(&mut spec, &SEARCHER, None, &limits).is_err());
        let mut spec: BotSpec = "searcher:memory=65536".parse().unwrap();
        assert!(apply(&mut spec, &SEARCHER, None, &limits).is_err());
    }
}
