//! Dates for SGF's `DT` property (`YYYY-MM-DD`): days since 1970 to a
//! calendar date, and today's date for the records tengen writes.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// A day of the proleptic Gregorian calendar (the Gregorian rules carried
/// back before 1582, as `DT` and ISO 8601 count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CivilDate {
    /// The year; 0 is 1 BC, negative years are earlier.
    pub year: i64,
    /// The month, 1 to 12.
    pub month: u32,
    /// The day of the month, 1 to 31.
    pub day: u32,
}

impl CivilDate {
    /// The date `days` days after 1970-01-01 (before it when negative).
    ///
    /// Counts whole 400-year eras (146,097 days each, after which the
    /// calendar repeats), then the year within the era with years starting
    /// in March, so that the leap day falls at the end of a year and the
    /// month lengths follow a fixed pattern (Howard Hinnant's days-to-civil
    /// algorithm).
    ///
    /// ```
    /// use tengen_sgf::date::CivilDate;
    ///
    /// assert_eq!(CivilDate::from_days(11_016).to_string(), "2000-02-29");
    /// ```
    pub fn from_days(days: i64) -> CivilDate {
        let z = days + 719_468; // days since 0000-03-01
        let era = z.div_euclid(146_097);
        let day_of_era = z.rem_euclid(146_097);
        let year_of_era =
            (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let month_from_march = (5 * day_of_year + 2) / 153;
        let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
        let month = if month_from_march < 10 {
            month_from_march + 3
        } else {
            month_from_march - 9
        } as u32;
        let year = year_of_era + era * 400 + i64::from(month <= 2);
        CivilDate { year, month, day }
    }

    /// The UTC date at `seconds` seconds after 1970-01-01 00:00 UTC.
    pub fn from_unix_seconds(seconds: i64) -> CivilDate {
        CivilDate::from_days(seconds.div_euclid(86_400))
    }
}

/// `YYYY-MM-DD`, as SGF's `DT` writes a single day.
impl fmt::Display for CivilDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// Today's date (UTC) as `YYYY-MM-DD`, for the `DT` of a record written now.
/// A clock set before 1970 reads as 1970-01-01.
pub fn today() -> String {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    CivilDate::from_unix_seconds(seconds).to_string()
}

/// The `DT` for records that should be reproducible byte for byte: the day
/// of `SOURCE_DATE_EPOCH` (seconds since 1970, the reproducible-builds
/// convention) when that is set to a number, [`today`] otherwise.
pub fn record_date() -> String {
    match std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|text| text.trim().parse::<i64>().ok())
    {
        Some(seconds) => CivilDate::from_unix_seconds(seconds).to_string(),
        None => today(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn civil_date(days: i64) -> String {
        CivilDate::from_days(days).to_string()
    }

    fn civil_from_days(days: i64) -> (i64, u32, u32) {
        let date = CivilDate::from_days(days);
        (date.year, date.month, date.day)
    }

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(-1), "1969-12-31");
        assert_eq!(civil_date(11_016), "2000-02-29");
        assert_eq!(civil_date(19_723), "2024-01-01");
        assert_eq!(civil_date(20_513), "2026-03-01");
    }

    #[test]
    fn dates_from_days() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(31), (1970, 2, 1));
        assert_eq!(civil_from_days(59), (1970, 3, 1));
        // 2000-02-29 (a leap day of a century divisible by 400).
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(19_723), (2024, 1, 1));
        assert_eq!(civil_from_days(20_454), (2026, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(today().len(), 10);
    }

    #[test]
    fn seconds_round_down_to_their_day() {
        assert_eq!(
            CivilDate::from_unix_seconds(86_399).to_string(),
            "1970-01-01"
        );
        assert_eq!(
            CivilDate::from_unix_seconds(86_400).to_string(),
            "1970-01-02"
        );
        assert_eq!(CivilDate::from_unix_seconds(-1).to_string(), "1969-12-31");
        // 1900 was not a leap year, 2100 will not be.
        assert_eq!(civil_date(-25_508), "1900-03-01");
        assert_eq!(civil_date(-25_509), "1900-02-28");
        assert_eq!(civil_date(47_540), "2100-02-28");
        assert_eq!(civil_date(47_541), "2100-03-01");
    }
}
