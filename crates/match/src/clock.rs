//! Game clocks: main time, then Canadian or Japanese byo-yomi, kept by the
//! referee.

use std::fmt;
use std::time::Duration;

/// A time control: each engine has `main_time` for the whole game, then
/// periods of `byo_yomi_time` in which it must play `byo_yomi_stones` moves
/// (Canadian byo-yomi, GTP's `time_settings main byo_yomi stones`). Japanese
/// byo-yomi is one stone per period and `byo_yomi_periods` periods: a move
/// made within its period keeps the period; one that overruns it uses up
/// that period and goes on in the next; the last one overrun loses. With no
/// byo-yomi (zero time or zero stones) the main time is absolute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Clock {
    /// Time for the whole game before byo-yomi.
    pub main_time: Duration,
    /// The length of one byo-yomi period.
    pub byo_yomi_time: Duration,
    /// Moves to play in each byo-yomi period.
    pub byo_yomi_stones: u32,
    /// Periods of Japanese byo-yomi (1 for Canadian byo-yomi or none).
    pub byo_yomi_periods: u32,
}

impl Clock {
    /// Absolute time: `main_time` for the whole game, no byo-yomi.
    pub fn absolute(main_time: Duration) -> Clock {
        Clock {
            main_time,
            byo_yomi_time: Duration::ZERO,
            byo_yomi_stones: 0,
            byo_yomi_periods: 1,
        }
    }

    /// `main_time`, then periods of `byo_yomi_time` for `byo_yomi_stones` moves.
    pub fn with_byo_yomi(
        main_time: Duration,
        byo_yomi_time: Duration,
        byo_yomi_stones: u32,
    ) -> Clock {
        Clock {
            main_time,
            byo_yomi_time,
            byo_yomi_stones,
            byo_yomi_periods: 1,
        }
    }

    /// `main_time`, then `periods` periods of `period` for one move each
    /// (Japanese byo-yomi, KGS's `kgs-time_settings byoyomi`).
    pub fn japanese(main_time: Duration, period: Duration, periods: u32) -> Clock {
        Clock {
            main_time,
            byo_yomi_time: period,
            byo_yomi_stones: 1,
            byo_yomi_periods: periods.max(1),
        }
    }

    /// Whether there is byo-yomi after the main time (a positive period time
    /// and at least one stone per period).
    pub fn has_byo_yomi(&self) -> bool {
        !self.byo_yomi_time.is_zero() && self.byo_yomi_stones > 0
    }

    /// Whether the byo-yomi has more than one period, which GTP's
    /// `time_settings` cannot say (KGS's `kgs-time_settings byoyomi` can).
    pub fn has_periods(&self) -> bool {
        self.has_byo_yomi() && self.byo_yomi_periods > 1
    }

    /// The `kgs-time_settings` arguments for Japanese byo-yomi of several
    /// periods: `byoyomi main period periods`; `None` for any other clock.
    pub fn kgs_time_settings(&self) -> Option<String> {
        self.has_periods().then(|| {
            format!(
                "byoyomi {} {} {}",
                self.main_time.as_secs_f64().ceil(),
                self.byo_yomi_time.as_secs_f64().ceil(),
                self.byo_yomi_periods
            )
        })
    }

    /// The `time_settings` arguments: `(main, byo_yomi, stones)`, with
    /// `(main, 0, 0)` for absolute time. Of several periods this names one,
    /// which an engine that knows no more plays safely within.
    pub fn time_settings(&self) -> (Duration, Duration, u32) {
        if self.has_byo_yomi() {
            (self.main_time, self.byo_yomi_time, self.byo_yomi_stones)
        } else {
            (self.main_time, Duration::ZERO, 0)
        }
    }
}

impl fmt::Display for Clock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}s main", self.main_time.as_secs_f64())?;
        if self.has_periods() {
            write!(
                f,
                " + {} × {}s byo-yomi",
                self.byo_yomi_periods,
                self.byo_yomi_time.as_secs_f64()
            )
        } else if self.has_byo_yomi() {
            write!(
                f,
                " + {}s byo-yomi / {} stones",
                self.byo_yomi_time.as_secs_f64(),
                self.byo_yomi_stones
            )
        } else {
            f.write_str(" absolute")
        }
    }
}

/// One engine's clock during a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClockState {
    clock: Clock,
    /// Main time left, or in byo-yomi the current period's time left.
    remaining: Duration,
    /// Whether the main time is spent.
    in_byo_yomi: bool,
    /// In byo-yomi, the moves still to play in the current period.
    stones_left: u32,
    /// Byo-yomi periods left, the current one included.
    periods_left: u32,
    /// Whether the engine has run out of time.
    flagged: bool,
}

impl ClockState {
    /// A full clock at the start of a game.
    pub(crate) fn new(clock: Clock) -> ClockState {
        let mut state = ClockState {
            clock,
            remaining: clock.main_time,
            in_byo_yomi: false,
            stones_left: 0,
            periods_left: clock.byo_yomi_periods.max(1),
            flagged: false,
        };
        if state.remaining.is_zero() && clock.has_byo_yomi() {
            state.start_period();
        }
        state
    }

    /// The time control this clock follows.
    pub(crate) fn clock(&self) -> Clock {
        self.clock
    }

    fn start_period(&mut self) {
        self.in_byo_yomi = true;
        self.remaining = self.clock.byo_yomi_time;
        self.stones_left = self.clock.byo_yomi_stones;
    }

    /// What `time_left` tells the engine: the time left (main time, or the
    /// current period's) and the stones left in the period (0 in main time).
    /// An engine told the periods by `kgs-time_settings` hears, in byo-yomi,
    /// the periods left instead of the stones (KGS's convention).
    pub(crate) fn time_left(&self, told_periods: bool) -> (Duration, u32) {
        let stones = if !self.in_byo_yomi {
            0
        } else if told_periods && self.clock.has_periods() {
            self.periods_left
        } else {
            self.stones_left
        };
        (self.remaining, stones)
    }

    /// The longest the next move may take without losing on time: the main
    /// time left plus, when there is byo-yomi, every period still to come
    /// into which the move may run.
    pub(crate) fn available(&self) -> Duration {
        if !self.clock.has_byo_yomi() {
            return self.remaining;
        }
        let later_periods = if self.in_byo_yomi {
            self.periods_left - 1
        } else {
            self.periods_left
        };
        self.remaining + self.clock.byo_yomi_time * later_periods
    }

    /// Charges one move that took `elapsed`. Returns `false` when that ran
    /// the clock out: the engine has lost on time.
    #[must_use]
    pub(crate) fn spend(&mut self, elapsed: Duration) -> bool {
        if self.flagged {
            return false;
        }
        let mut elapsed = elapsed;
        if !self.in_byo_yomi {
            if elapsed < self.remaining {
                self.remaining -= elapsed;
                return true;
            }
            if !self.clock.has_byo_yomi() {
                self.flagged = elapsed > self.remaining;
                self.remaining = Duration::ZERO;
                return !self.flagged;
            }
            // Main time ran out: byo-yomi starts, and this move counts in
            // its first period.
            elapsed -= self.remaining;
            self.start_period();
            if elapsed.is_zero() {
                // Exactly used up; the move was made in main time.
                return true;
            }
        }
        // An overrun period of Japanese byo-yomi is spent; the move goes on
        // in the next one.
        while elapsed > self.remaining && self.periods_left > 1 {
            elapsed -= self.remaining;
            self.periods_left -= 1;
            self.start_period();
        }
        if elapsed > self.remaining {
            self.flagged = true;
            self.remaining = Duration::ZERO;
            return false;
        }
        self.remaining -= elapsed;
        self.stones_left -= 1;
        if self.stones_left == 0 {
            self.start_period();
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn absolute_time_runs_out() {
        let clock = Clock::absolute(secs(10));
        assert!(!clock.has_byo_yomi());
        assert_eq!(clock.time_settings(), (secs(10), secs(0), 0));
        assert_eq!(clock.to_string(), "10s main absolute");
        let mut state = ClockState::new(clock);
        assert_eq!(state.time_left(false), (secs(10), 0));
        assert_eq!(state.available(), secs(10));
        assert!(state.spend(secs(4)));
        assert_eq!(state.time_left(false), (secs(6), 0));
        assert!(state.spend(secs(6)), "using exactly all of it is fine");
        assert_eq!(state.available(), secs(0));
        assert!(!state.spend(Duration::from_millis(1)));

        let mut state = ClockState::new(clock);
        assert!(!state.spend(secs(11)));
        assert!(!state.spend(secs(0)), "a flagged clock stays flagged");
    }

    #[test]
    fn main_time_runs_into_byo_yomi() {
        let clock = Clock::with_byo_yomi(secs(10), secs(5), 2);
        assert_eq!(clock.time_settings(), (secs(10), secs(5), 2));
        assert_eq!(clock.to_string(), "10s main + 5s byo-yomi / 2 stones");
        let mut state = ClockState::new(clock);
        assert_eq!(state.available(), secs(15));
        assert!(state.spend(secs(8)));
        assert_eq!(state.time_left(false), (secs(2), 0));
        // 2 s of main time, then 3 s of the first period: one stone played.
        assert!(state.spend(secs(5)));
        assert_eq!(state.time_left(false), (secs(2), 1));
        assert_eq!(state.available(), secs(2));
        // The second stone completes the period: a fresh one starts.
        assert!(state.spend(secs(1)));
        assert_eq!(state.time_left(false), (secs(5), 2));
        assert!(state.spend(secs(4)));
        assert_eq!(state.time_left(false), (secs(1), 1));
        // Too slow for what is left of the period.
        assert!(!state.spend(secs(2)));
    }

    #[test]
    fn exactly_spent_main_time_starts_byo_yomi() {
        let mut state = ClockState::new(Clock::with_byo_yomi(secs(3), secs(5), 1));
        assert!(state.spend(secs(3)));
        assert_eq!(state.time_left(false), (secs(5), 1));
        assert!(state.spend(secs(5)));
        assert_eq!(state.time_left(false), (secs(5), 1), "one stone per period");
        assert!(!state.spend(Duration::from_millis(5001)));
    }

    #[test]
    fn overrunning_main_time_and_period_loses() {
        let mut state = ClockState::new(Clock::with_byo_yomi(secs(3), secs(5), 1));
        assert!(!state.spend(secs(9)));
    }

    #[test]
    fn no_main_time_starts_in_byo_yomi() {
        let state = ClockState::new(Clock::with_byo_yomi(secs(0), secs(5), 3));
        assert_eq!(state.time_left(false), (secs(5), 3));
        assert_eq!(state.available(), secs(5));
    }

    #[test]
    fn japanese_periods_are_spent_one_overrun_at_a_time() {
        let clock = Clock::japanese(secs(10), secs(5), 3);
        assert!(clock.has_periods());
        assert_eq!(clock.to_string(), "10s main + 3 × 5s byo-yomi");
        assert_eq!(clock.kgs_time_settings().as_deref(), Some("byoyomi 10 5 3"));
        // An engine that only hears `time_settings` is told one period.
        assert_eq!(clock.time_settings(), (secs(10), secs(5), 1));
        let mut state = ClockState::new(clock);
        assert_eq!(state.available(), secs(25));
        assert_eq!(state.time_left(true), (secs(10), 0));
        // Main time out, and the move goes on through one whole period into
        // the second: one period is gone.
        assert!(state.spend(secs(17)));
        assert_eq!(state.time_left(true), (secs(5), 2), "KGS: periods left");
        assert_eq!(state.time_left(false), (secs(5), 1), "GTP: stones left");
        assert_eq!(state.available(), secs(10));
        // A move within its period keeps the period.
        assert!(state.spend(secs(4)));
        assert_eq!(state.time_left(true), (secs(5), 2));
        // Overrun again: the last period, with the full period's time.
        assert!(state.spend(secs(6)));
        assert_eq!(state.time_left(true), (secs(5), 1));
        assert_eq!(state.available(), secs(5));
        assert!(state.spend(secs(5)));
        assert!(
            !state.spend(Duration::from_millis(5001)),
            "the last period overrun"
        );
    }

    #[test]
    fn a_move_may_overrun_every_period_but_the_last() {
        let clock = Clock::japanese(secs(0), secs(5), 3);
        let mut state = ClockState::new(clock);
        assert_eq!(state.available(), secs(15));
        assert!(state.spend(secs(15)));
        assert_eq!(state.time_left(true), (secs(5), 1));
        let mut state = ClockState::new(clock);
        assert!(!state.spend(Duration::from_millis(15_001)));
    }

    #[test]
    fn one_period_is_the_canadian_clock() {
        let clock = Clock::japanese(secs(60), secs(30), 1);
        assert!(!clock.has_periods());
        assert_eq!(clock.kgs_time_settings(), None);
        assert_eq!(clock, Clock::with_byo_yomi(secs(60), secs(30), 1));
        assert_eq!(clock.to_string(), "60s main + 30s byo-yomi / 1 stones");
    }
}
