//! Time management: how long to think about one move under the game's clock.
//!
//! The budget is a target (stop there when the choice is clear) and a
//! maximum (a close choice may use up to it). Under every clock the maximum
//! leaves a safety margin for the controller's and the network's lag, so the
//! bot does not lose on time.

use std::time::Duration;

use tengen_core::{TimeLeft, TimeSettings};

/// Seconds kept in hand on every move for lag between controller and engine.
pub const LAG_MARGIN: f64 = 0.15;

/// A move's thinking time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveBudget {
    /// Time to stop at when the best move is clear.
    pub target: Duration,
    /// Time never to pass.
    pub max: Duration,
}

impl MoveBudget {
    fn from_secs(target: f64, max: f64) -> MoveBudget {
        let max = max.max(0.01);
        let target = target.clamp(0.01, max);
        MoveBudget {
            target: Duration::from_secs_f64(target),
            max: Duration::from_secs_f64(max),
        }
    }
}

/// Moves the bot expects still to play, from the number of empty points: a
/// game ends with about a third of the board still empty, and each player
/// plays half of the moves; never fewer than a floor, so that the last moves
/// of a long game still get time.
pub fn expected_moves_left(empty_points: usize) -> f64 {
    (empty_points as f64 * 0.4).max(12.0)
}

/// A move's target and maximum thinking times: the bot's own `time`
/// setting (both, if set), shortened by the clock's budget when a clock
/// applies. `(None, None)`: no time limit.
pub fn think_times(
    fixed: Option<Duration>,
    settings: TimeSettings,
    left: Option<TimeLeft>,
    empty_points: usize,
) -> (Option<Duration>, Option<Duration>) {
    match budget(settings, left, empty_points) {
        Some(clock) => (
            Some(fixed.map_or(clock.target, |t| t.min(clock.target))),
            Some(fixed.map_or(clock.max, |t| t.min(clock.max))),
        ),
        None => (fixed, fixed),
    }
}

/// The budget for a move with `empty_points` empty points on the board,
/// under `settings`, with `left` what the controller last reported for the
/// bot's colour (`None` if it reported nothing: the full main time is
/// assumed). `None` means no clock applies.
pub fn budget(
    settings: TimeSettings,
    left: Option<TimeLeft>,
    empty_points: usize,
) -> Option<MoveBudget> {
    let moves_left = expected_moves_left(empty_points);
    match settings {
        TimeSettings::Unlimited => None,
        TimeSettings::Absolute { main } => {
            let remaining = left.map_or(main, |l| l.seconds) as f64 - LAG_MARGIN;
            let remaining = remaining.max(0.0);
            let target = remaining / moves_left;
            Some(MoveBudget::from_secs(
                target,
                (target * 2.5).min(remaining / 4.0),
            ))
        }
        TimeSettings::Byoyomi { main, period, .. } => {
            let period = period as f64;
            let in_overtime = left.is_some_and(|l| l.stones > 0) || main == 0;
            if in_overtime {
                // A period is renewed by moving in time: use most of it.
                let current = left.map_or(period, |l| l.seconds as f64).min(period);
                let usable = (current - LAG_MARGIN).max(0.0) * 0.9;
                Some(MoveBudget::from_secs(usable * 0.6, usable))
            } else {
                let remaining = left.map_or(main, |l| l.seconds) as f64;
                let target = remaining / moves_left + period * 0.5;
                let max = (remaining / 4.0 + period * 0.8 - LAG_MARGIN).max(0.05);
                Some(MoveBudget::from_secs(target, (target * 2.5).min(max)))
            }
        }
        TimeSettings::Canadian {
            main,
            period,
            stones,
        } => {
            let stones = stones.max(1) as f64;
            let in_overtime = left.is_some_and(|l| l.stones > 0) || main == 0;
            if in_overtime {
                let (seconds, to_play) = match left {
                    Some(l) if l.stones > 0 => (l.seconds as f64, l.stones as f64),
                    _ => (period as f64, stones),
                };
                let per_move = (seconds - LAG_MARGIN).max(0.0) / to_play;
                Some(MoveBudget::from_secs(per_move * 0.7, per_move * 0.9))
            } else {
                let remaining = left.map_or(main, |l| l.seconds) as f64;
                let overtime_rate = period as f64 / stones;
                let target = remaining / moves_left + overtime_rate * 0.5;
                let max = (remaining / 4.0 + overtime_rate * 0.8 - LAG_MARGIN).max(0.05);
                Some(MoveBudget::from_secs(target, (target * 2.5).min(max)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(b: &MoveBudget) -> (f64, f64) {
        (b.target.as_secs_f64(), b.max.as_secs_f64())
    }

    #[test]
    fn no_clock_no_budget() {
        assert_eq!(budget(TimeSettings::Unlimited, None, 81), None);
    }

    #[test]
    fn one_second_a_move_stays_under_a_second() {
        // What `tengen match --time-per-move 1` sends: Canadian, no main time,
        // one stone per second.
        let settings = TimeSettings::from_gtp(0, 1, 1);
        let left = TimeLeft {
            seconds: 1,
            stones: 1,
        };
        for empty in [81, 40, 3] {
            let (target, max) = secs(&budget(settings, Some(left), empty).unwrap());
            assert!(max < 1.0 - LAG_MARGIN + 1e-9, "{max}");
            assert!(target <= max && target > 0.4, "{target}");
        }
    }

    #[test]
    fn absolute_time_is_spread_over_the_game() {
        let settings = TimeSettings::Absolute { main: 300 };
        let start = secs(&budget(settings, None, 361).unwrap());
        assert!(start.0 > 1.0 && start.0 < 3.0, "{start:?}");
        // Nearly out of time: never more than a quarter of what is left.
        let late = budget(
            settings,
            Some(TimeLeft {
                seconds: 4,
                stones: 0,
            }),
            50,
        )
        .unwrap();
        assert!(secs(&late).1 <= 1.0);
    }

    #[test]
    fn byo_yomi_periods_are_used_but_not_overrun() {
        let settings = TimeSettings::Byoyomi {
            main: 300,
            period: 30,
            periods: 1,
        };
        let overtime = budget(
            settings,
            Some(TimeLeft {
                seconds: 30,
                stones: 1,
            }),
            100,
        )
        .unwrap();
        let (target, max) = secs(&overtime);
        assert!(max < 30.0 - LAG_MARGIN && max > 20.0, "{max}");
        assert!(target < max);
        // Canadian overtime: 25 stones in 300 s is 12 s a stone.
        let canadian = TimeSettings::Canadian {
            main: 0,
            period: 300,
            stones: 25,
        };
        let (_, max) = secs(
            &budget(
                canadian,
                Some(TimeLeft {
                    seconds: 120,
                    stones: 5,
                }),
                100,
            )
            .unwrap(),
        );
        assert!(max < 24.0 && max > 15.0, "{max}");
    }
}
