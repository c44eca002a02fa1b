//! Time management: how long to think about one move under the game's clock.
//!
//! The budget is a target (stop there when the choice is clear) and a
//! maximum (a close choice may use up to it). Under every clock the maximum
//! leaves a safety margin for the controller's and the network's lag, so the
//! bot does not lose on time.
//!
//! Main time is shared out by the stage of the game, as a strong player
//! spends it: the middle game, where the game is decided, weighs most; the
//! first moves of the opening and the late endgame less ([`stage_weight`]).
//! With byo-yomi to follow, main time is spent at about e times the
//! byo-yomi's time a move (for a strength that grows as the log of the time,
//! spending t a move until main time runs out, then the byo-yomi's rate r,
//! is best at t = e·r), stretched as KataGo does so that some of it reaches
//! the middle game. In byo-yomi a period is renewed by moving in time, so a
//! move of Japanese byo-yomi may use most of its period and saves nothing by
//! stopping early; main time and a Canadian period's time not used now are
//! kept for later moves ([`MoveBudget::saves_time`]), so there the search
//! stops as soon as its choice is settled.

use std::time::Duration;

use tengen_core::{Game, TimeLeft, TimeSettings};

/// Seconds kept in hand on every move for lag between controller and engine.
pub const LAG_MARGIN: f64 = 0.15;

/// How much longer than the time that is best for equal moves (e times the
/// byo-yomi's rate) main time is made to last, so that some of it is left
/// for the middle game (KataGo's factor).
const MAIN_TIME_STRETCH: f64 = 1.75;

/// A move's thinking time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MoveBudget {
    /// Time to stop at when the best move is clear.
    pub target: Duration,
    /// Time never to pass.
    pub max: Duration,
    /// Whether time not used on this move is kept for later ones (main
    /// time, a Canadian period with stones still to play): then stopping
    /// as soon as the choice cannot change gains time.
    pub saves_time: bool,
}

impl MoveBudget {
    fn from_secs(target: f64, max: f64, saves_time: bool) -> MoveBudget {
        let max = max.max(0.01);
        let target = target.clamp(0.01, max);
        MoveBudget {
            target: Duration::from_secs_f64(target),
            max: Duration::from_secs_f64(max),
            saves_time,
        }
    }
}

/// Where a game stands, for sharing out its clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stage {
    /// Turns played.
    pub turn: usize,
    /// Empty points on the board.
    pub empty_points: usize,
    /// Points of the board.
    pub points: usize,
}

impl Stage {
    /// The stage of `game`.
    pub fn of(game: &Game) -> Stage {
        Stage {
            turn: game.turn_count(),
            empty_points: game.board().empty_count(),
            points: game.size().points_count(),
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

/// The weight of a move at `turn` on a board of `points` points when main
/// time is shared out: rising through the opening (the first moves of a
/// game are the best known), 1 through the middle game, then falling off
/// through the endgame to a floor. The turns scale with the board's area
/// (on 19×19: 0.6 at the start, 1 from turn 30 to turn 160, then down by a
/// factor e every 90 turns, never under 0.35).
pub fn stage_weight(turn: f64, points: usize) -> f64 {
    let scale = points as f64 / 361.0;
    let (opening_end, middle_end, decay) = (30.0 * scale, 160.0 * scale, 90.0 * scale);
    if turn < opening_end {
        0.6 + 0.4 * turn / opening_end
    } else if turn <= middle_end {
        1.0
    } else {
        (-(turn - middle_end) / decay).exp().max(0.35)
    }
}

/// The share of main time for this move when it is spread over the bot's
/// next `moves` moves (this one included, every other turn), each by its
/// [`stage_weight`].
fn stage_share(stage: Stage, moves: f64) -> f64 {
    let moves = moves.max(1.0);
    let whole = moves.floor() as usize;
    let weight = |k: usize| stage_weight((stage.turn + 2 * k) as f64, stage.points);
    let mut total: f64 = (0..whole).map(weight).sum();
    total += (moves - whole as f64) * weight(whole);
    weight(0) / total
}

/// A move's target and maximum thinking times: the bot's own `time`
/// setting (both, if set), shortened by the clock's budget when a clock
/// applies. `None` for both: no time limit. With the bot's own time only,
/// nothing is saved by stopping early.
pub fn think_times(
    fixed: Option<Duration>,
    settings: TimeSettings,
    left: Option<TimeLeft>,
    stage: Stage,
) -> crate::bot::ThinkTimes {
    match budget(settings, left, stage) {
        Some(clock) => crate::bot::ThinkTimes {
            target: Some(fixed.map_or(clock.target, |t| t.min(clock.target))),
            max: Some(fixed.map_or(clock.max, |t| t.min(clock.max))),
            saves_time: clock.saves_time,
        },
        None => crate::bot::ThinkTimes {
            target: fixed,
            max: fixed,
            saves_time: false,
        },
    }
}

/// The budget for a move at `stage` under `settings`, with `left` what the
/// controller last reported for the bot's colour (`None` if it reported
/// nothing: the full main time is assumed). `None` means no clock applies.
pub fn budget(settings: TimeSettings, left: Option<TimeLeft>, stage: Stage) -> Option<MoveBudget> {
    let moves_left = expected_moves_left(stage.empty_points);
    match settings {
        TimeSettings::Unlimited => None,
        TimeSettings::Absolute { main } => {
            let remaining = left.map_or(main, |l| l.seconds) as f64 - LAG_MARGIN;
            let remaining = remaining.max(0.0);
            let target = remaining * stage_share(stage, moves_left);
            Some(MoveBudget::from_secs(
                target,
                (target * 2.5).min(remaining / 4.0),
                true,
            ))
        }
        TimeSettings::Byoyomi { main, period, .. } => {
            let period = period as f64;
            let in_overtime = left.is_some_and(|l| l.stones > 0) || main == 0;
            if in_overtime {
                // A period is renewed by moving in time: use most of it.
                let current = left.map_or(period, |l| l.seconds as f64).min(period);
                let usable = (current - LAG_MARGIN).max(0.0) * 0.9;
                Some(MoveBudget::from_secs(usable, usable, false))
            } else {
                let remaining = left.map_or(main, |l| l.seconds) as f64;
                Some(main_time_budget(
                    remaining, period, period, stage, moves_left,
                ))
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
                if to_play <= 1.0 {
                    // The period's last stone: what is left is lost anyway.
                    Some(MoveBudget::from_secs(per_move * 0.9, per_move * 0.9, false))
                } else {
                    Some(MoveBudget::from_secs(per_move * 0.7, per_move * 0.9, true))
                }
            } else {
                let remaining = left.map_or(main, |l| l.seconds) as f64;
                let rate = period as f64 / stones;
                Some(main_time_budget(
                    remaining,
                    rate,
                    period as f64,
                    stage,
                    moves_left,
                ))
            }
        }
    }
}

/// A move in `remaining` seconds of main time with byo-yomi to follow at
/// `rate` seconds a move in periods of `period` seconds.
fn main_time_budget(
    remaining: f64,
    rate: f64,
    period: f64,
    stage: Stage,
    moves_left: f64,
) -> MoveBudget {
    // Spend main time over the moves it lasts at e times the byo-yomi's
    // rate, stretched; never over more moves than the game has left.
    let lasting = (remaining / (std::f64::consts::E * rate) * MAIN_TIME_STRETCH).min(moves_left);
    let mut target = remaining * stage_share(stage, lasting);
    // Never think less than the byo-yomi would give; near the end of main
    // time, run on into the first period rather than play fast.
    target = target.max(rate);
    if remaining < 1.5 * rate {
        target = remaining + rate * 0.8;
    }
    let max = (remaining / 4.0).max(target) + rate * 0.8;
    let max = max.min(remaining + period * 0.9) - LAG_MARGIN;
    MoveBudget::from_secs(target - LAG_MARGIN, max.max(0.05), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(b: &MoveBudget) -> (f64, f64) {
        (b.target.as_secs_f64(), b.max.as_secs_f64())
    }

    /// A 19×19 game (or 9×9 with `points` 81) at `turn`, with as many
    /// stones on the board as turns played.
    fn at(points: usize, turn: usize) -> Stage {
        Stage {
            turn,
            empty_points: points.saturating_sub(turn),
            points,
        }
    }

    #[test]
    fn no_clock_no_budget() {
        assert_eq!(budget(TimeSettings::Unlimited, None, at(81, 0)), None);
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
        for turn in [0, 40, 78] {
            let budget = budget(settings, Some(left), at(81, turn)).unwrap();
            let (target, max) = secs(&budget);
            assert!(max < 1.0 - LAG_MARGIN + 1e-9, "{max}");
            assert!(target <= max && target > 0.7, "{target}");
            assert!(!budget.saves_time, "the period's time is lost anyway");
        }
    }

    #[test]
    fn the_middle_game_weighs_most() {
        for points in [81, 361] {
            let w = |turn: usize| stage_weight(turn as f64, points);
            let scale = points as f64 / 361.0;
            let middle = w((100.0 * scale) as usize);
            assert_eq!(middle, 1.0);
            assert!(w(0) < middle && w((250.0 * scale) as usize) < middle);
            assert!(w(2000) >= 0.35, "a floor: late moves still get time");
        }
    }

    /// Plays out a game of `turns` turns under absolute time or byo-yomi,
    /// spending each move's target; returns the time of each of the bot's
    /// moves and whether the clock held.
    fn play_out(settings: TimeSettings, turns: usize) -> (Vec<f64>, bool) {
        let (mut main, period) = match settings {
            TimeSettings::Absolute { main } => (main as f64, 0.0),
            TimeSettings::Byoyomi { main, period, .. } => (main as f64, period as f64),
            _ => unreachable!(),
        };
        let mut spent = Vec::new();
        for turn in (0..turns).step_by(2) {
            let in_overtime = main <= 0.0 && period > 0.0;
            let left = TimeLeft {
                seconds: if in_overtime { period } else { main }.floor() as u64,
                stones: u64::from(in_overtime),
            };
            let stage = Stage {
                turn,
                empty_points: 361 - turn * 9 / 10,
                points: 361,
            };
            let b = budget(settings, Some(left), stage).unwrap();
            let took = b.target.as_secs_f64();
            spent.push(took);
            if in_overtime {
                if took > period {
                    return (spent, false);
                }
            } else if took > main {
                // Main time out: the rest of the move runs in a period.
                if took - main > period {
                    return (spent, false);
                }
                main = 0.0;
            } else {
                main -= took;
            }
        }
        (spent, true)
    }

    #[test]
    fn absolute_time_favours_the_middle_game_and_lasts() {
        let settings = TimeSettings::Absolute { main: 300 };
        let start = secs(&budget(settings, None, at(361, 0)).unwrap());
        assert!(start.0 > 1.0 && start.0 < 3.0, "{start:?}");
        let (spent, held) = play_out(settings, 260);
        assert!(held);
        assert!(spent.iter().sum::<f64>() < 300.0);
        let (opening, middle, endgame) = (spent[2], spent[50], spent[125]);
        assert!(
            middle > opening && middle > endgame,
            "{opening} {middle} {endgame}"
        );
        // Nearly out of time: never more than a quarter of what is left.
        let late = budget(
            settings,
            Some(TimeLeft {
                seconds: 4,
                stones: 0,
            }),
            at(361, 320),
        )
        .unwrap();
        assert!(secs(&late).1 <= 1.0);
        assert!(late.saves_time);
    }

    #[test]
    fn main_time_goes_at_about_e_times_the_byo_yomi() {
        // Two minutes, then 5 s periods: main time lasts some fifteen moves
        // at 6 to 9 s, then every move uses most of its period.
        let settings = TimeSettings::Byoyomi {
            main: 120,
            period: 5,
            periods: 3,
        };
        let (spent, held) = play_out(settings, 260);
        assert!(held, "{spent:?}");
        assert!(spent[0] > 5.0 && spent[0] < 9.0, "{spent:?}");
        let in_main = spent.iter().take_while(|&&t| t > 5.0).count();
        assert!((10..25).contains(&in_main), "{in_main}: {spent:?}");
        let overtime = spent[100];
        assert!(overtime > 4.0 && overtime < 5.0 - LAG_MARGIN, "{overtime}");
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
            at(361, 200),
        )
        .unwrap();
        let (target, max) = secs(&overtime);
        assert!(max < 30.0 - LAG_MARGIN && max > 20.0, "{max}");
        assert!(target <= max && !overtime.saves_time);
        // The end of main time runs on into the period, within it.
        let ending = budget(
            settings,
            Some(TimeLeft {
                seconds: 6,
                stones: 0,
            }),
            at(361, 200),
        )
        .unwrap();
        let (target, max) = secs(&ending);
        assert!(target > 6.0 && max < 6.0 + 30.0, "{target} {max}");
        // Canadian overtime: 25 stones in 300 s is 12 s a stone; time saved
        // on one stone goes to the others.
        let canadian = TimeSettings::Canadian {
            main: 0,
            period: 300,
            stones: 25,
        };
        let budget = budget(
            canadian,
            Some(TimeLeft {
                seconds: 120,
                stones: 5,
            }),
            at(361, 200),
        )
        .unwrap();
        let (_, max) = secs(&budget);
        assert!(max < 24.0 && max > 15.0, "{max}");
        assert!(budget.saves_time);
    }
}
