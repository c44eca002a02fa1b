//! Time controls as GTP (`time_settings`, `time_left`) and KGS
//! (`kgs-time_settings`) describe them. GTP engines pass them to agents that
//! budget their thinking; the random bot ignores them.

use std::fmt;

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
