//! The clock commands: `time_settings`, `kgs-time_settings` and `time_left`.
//! The engine keeps what it is told and passes it on to the agent, which
//! decides how long to think.

use tengen_core::{TimeLeft, TimeSettings};

use super::args::{parse_color, parse_u64};
use super::error::CommandResult;
use super::{CommandError, Engine};

impl Engine {
    /// `time_settings main byo_yomi stones`: GTP's Canadian form.
    pub(super) fn time_settings_command(&mut self, args: &[&str]) -> CommandResult {
        let [main, period, stones] = args else {
            return Err(CommandError::Syntax);
        };
        self.time_settings =
            TimeSettings::from_gtp(parse_u64(main)?, parse_u64(period)?, parse_u64(stones)?);
        self.agent.set_time_settings(self.time_settings);
        Ok(String::new())
    }

    /// `kgs-time_settings kind numbers...`: see [`parse_kgs_time_settings`].
    pub(super) fn kgs_time_settings(&mut self, args: &[&str]) -> CommandResult {
        self.time_settings = parse_kgs_time_settings(args)?;
        self.agent.set_time_settings(self.time_settings);
        Ok(String::new())
    }

    /// `time_left color seconds stones`.
    pub(super) fn time_left_command(&mut self, args: &[&str]) -> CommandResult {
        let [color, seconds, stones] = args else {
            return Err(CommandError::Syntax);
        };
        let color = parse_color(color)?;
        let left = TimeLeft {
            seconds: parse_u64(seconds)?,
            stones: parse_u64(stones)?,
        };
        self.time_left[color] = Some(left);
        self.agent.set_time_left(color, left);
        Ok(String::new())
    }
}

/// KGS's time systems: `none`, `absolute main`, `byoyomi main period
/// periods`, `canadian main period stones`.
fn parse_kgs_time_settings(args: &[&str]) -> Result<TimeSettings, CommandError> {
    let (kind, numbers) = args.split_first().ok_or(CommandError::Syntax)?;
    let numbers = numbers
        .iter()
        .map(|n| parse_u64(n))
        .collect::<Result<Vec<u64>, _>>()?;
    match (*kind, numbers.as_slice()) {
        ("none", []) => Ok(TimeSettings::Unlimited),
        ("absolute", &[main]) => Ok(TimeSettings::Absolute { main }),
        ("byoyomi", &[main, period, periods]) => Ok(TimeSettings::Byoyomi {
            main,
            period,
            periods,
        }),
        ("canadian", &[main, period, stones]) => Ok(TimeSettings::Canadian {
            main,
            period,
            stones,
        }),
        _ => Err(CommandError::Syntax),
    }
}
