//! Parsers for command-line values, written as clap `value_parser`s: each
//! returns a one-line message a person can act on. The texts themselves are
//! read by the crates that own them (sizes, rules and durations by
//! `tengen-core`, numbers in a range by `tengen-bots`); these add the
//! option's wording. Also the settings several options make together
//! ([`game_settings`], [`match_clock`]).

use std::time::Duration;

use tengen_bots::settings::parse_real;
use tengen_core::{BoardSize, Color, Rules, Variant, MAX_SIDE, PRESETS};
use tengen_match::Clock;

/// Parses a board size: `19`, or `7x11` for 7 columns and 11 rows.
pub fn parse_size(text: &str) -> Result<BoardSize, String> {
    BoardSize::parse(text).ok_or_else(|| {
        format!(
            "unacceptable board size '{text}': give a side from 1 to {MAX_SIDE} such as 19, \
             or WIDTHxHEIGHT such as 7x11"
        )
    })
}

/// Parses a rule set: a preset name (`aga`, `chinese`, `japanese`,
/// `tromp-taylor`, `new-zealand`) optionally followed by overrides such as
/// `japanese,komi=0`, or a full `ko=...,suicide=...,scoring=...,komi=...` list.
pub fn parse_rules(text: &str) -> Result<Rules, String> {
    text.parse::<Rules>().map_err(|e| {
        let presets: Vec<&str> = PRESETS.iter().map(|(name, _)| *name).collect();
        format!("{e} (presets: {})", presets.join(", "))
    })
}

/// Parses the game played: `go` or `nogo`, any case.
pub fn parse_variant(text: &str) -> Result<Variant, String> {
    Variant::parse(text).ok_or_else(|| format!("unknown game '{text}': use go or nogo"))
}

/// The board size of a NoGo game when none is given: the CMPUT 455 course's.
pub const NOGO_DEFAULT_SIDE: usize = 7;

/// The board size of a Go game when none is given.
pub const GO_DEFAULT_SIDE: usize = 9;

/// The board and rules of a game from the command line's `--game`,
/// `--size`, `--rules` and `--komi` (each `None` when not given):
///
/// - Go: the size given or 9×9, the rules given or `go_rules`.
/// - NoGo: the size given or 7×7, the `nogo` rules; `--rules` may only name
///   NoGo rules (such as `nogo,komi=0.5`), since Go's ko, suicide and
///   scoring rules do not apply.
///
/// `--komi` replaces the rules' komi either way.
pub fn game_settings(
    game: Variant,
    size: Option<BoardSize>,
    rules: Option<Rules>,
    komi: Option<f64>,
    go_rules: Rules,
) -> Result<(BoardSize, Rules), String> {
    let (side, rules) = match game {
        Variant::Go => (GO_DEFAULT_SIDE, rules.unwrap_or(go_rules)),
        Variant::NoGo => {
            let rules = match rules {
                Some(rules) if !rules.is_nogo() => {
                    return Err(format!(
                        "--game nogo plays by the nogo rules; --rules {rules} are Go rules"
                    ))
                }
                Some(rules) => rules,
                None => Rules::preset("nogo").expect("the nogo preset"),
            };
            (NOGO_DEFAULT_SIDE, rules)
        }
    };
    let size = size.unwrap_or_else(|| BoardSize::square(side).expect("a valid side"));
    let rules = komi.map_or(rules, |komi| rules.with_komi(komi));
    Ok((size, rules))
}

/// Parses a colour: `black`, `white`, `b` or `w`, any case.
pub fn parse_color(text: &str) -> Result<Color, String> {
    Color::parse(text.trim()).ok_or_else(|| format!("unknown colour '{text}': use black or white"))
}

/// Parses komi: a finite number of at most 1000 in size.
pub fn parse_komi(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(komi) if komi.is_finite() && komi.abs() <= 1000.0 => Ok(komi),
        _ => Err(format!("bad komi '{text}': expected a number such as 7.5")),
    }
}

/// Parses a duration as [`tengen_core::parse_duration`] reads it: a number
/// with a unit, `500ms`, `2s`, `1.5m`, `1h`; a bare number is seconds. Zero is
/// accepted here: each option says whether it may be zero.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    tengen_core::parse_duration(text).map_err(|e| format!("bad duration '{text}': {e}"))
}

/// Parses a fraction from 0 to 1, both included (a share of games, say).
pub fn parse_fraction(text: &str) -> Result<f64, String> {
    parse_real(text.trim(), 0.0, 1.0)
        .map_err(|_| format!("bad fraction '{text}': expected a number from 0 to 1"))
}

/// Parses a benchmark's seconds per measurement: a plain number of seconds,
/// more than 0 and at most a day.
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!(
            "bad duration '{text}': expected seconds such as 10 or 0.5"
        )),
    }
}

/// Parses a learning rate: more than 0, at most 10.
pub fn parse_learning_rate(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 10.0 => Ok(x),
        _ => Err(format!(
            "bad learning rate '{text}': expected a number above 0, at most 10"
        )),
    }
}

/// The referee's clock from `tengen match`'s `--main-time`, `--byo-yomi`
/// and `--byo-yomi-stones` (one stone per period unless given) or
/// `--byo-yomi-periods` (Japanese byo-yomi); `None`
/// without `--main-time`. Zero main time is allowed before byo-yomi (every
/// move then in overtime), but a game needs some time: zero byo-yomi, or
/// zero main time without byo-yomi, is refused.
pub fn match_clock(
    main_time: Option<Duration>,
    byo_yomi: Option<Duration>,
    byo_yomi_stones: Option<u32>,
    byo_yomi_periods: Option<u32>,
) -> Result<Option<Clock>, String> {
    let Some(main_time) = main_time else {
        return Ok(None);
    };
    let clock = match byo_yomi {
        Some(byo_yomi) => {
            if byo_yomi.is_zero() {
                return Err("--byo-yomi must be positive".to_string());
            }
            match (byo_yomi_stones, byo_yomi_periods) {
                (Some(_), Some(_)) => {
                    return Err(
                        "--byo-yomi-stones and --byo-yomi-periods exclude each other".to_string(),
                    )
                }
                (_, Some(periods)) => Clock::japanese(main_time, byo_yomi, periods),
                (stones, None) => Clock::with_byo_yomi(main_time, byo_yomi, stones.unwrap_or(1)),
            }
        }
        None => {
            if main_time.is_zero() {
                return Err("--main-time must be positive without --byo-yomi".to_string());
            }
            Clock::absolute(main_time)
        }
    };
    Ok(Some(clock))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5m"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        for bad in ["", "s", "2x", "-1s", "1e99h", "nan"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        assert_eq!(parse_duration("0s"), Ok(Duration::ZERO));
        assert_eq!(
            parse_duration("2x").unwrap_err(),
            "bad duration '2x': unknown time unit 'x' (use ms, s, m or h)"
        );
    }

    #[test]
    fn fractions_seconds_and_learning_rates() {
        assert_eq!(parse_fraction(" 0.1 "), Ok(0.1));
        assert_eq!(parse_fraction("1"), Ok(1.0));
        for bad in ["1.5", "-0.1", "NaN", "tenth"] {
            let err = parse_fraction(bad).unwrap_err();
            assert!(err.contains("expected a number from 0 to 1"), "{err}");
        }
        assert_eq!(parse_seconds("0.5"), Ok(0.5));
        assert!(parse_seconds("0")
            .unwrap_err()
            .starts_with("bad duration '0'"));
        assert!(parse_seconds("86401").is_err());
        assert_eq!(parse_learning_rate("1e-3"), Ok(1e-3));
        assert!(parse_learning_rate("0").is_err());
        assert!(parse_learning_rate("11").is_err());
    }

    #[test]
    fn match_clocks() {
        let s = Duration::from_secs;
        assert_eq!(match_clock(None, None, None, None), Ok(None));
        assert_eq!(
            match_clock(Some(s(60)), None, None, None),
            Ok(Some(Clock::absolute(s(60))))
        );
        assert_eq!(
            match_clock(Some(s(0)), Some(s(5)), None, None),
            Ok(Some(Clock::with_byo_yomi(s(0), s(5), 1)))
        );
        assert_eq!(
            match_clock(Some(s(60)), Some(s(30)), Some(5), None),
            Ok(Some(Clock::with_byo_yomi(s(60), s(30), 5)))
        );
        assert_eq!(
            match_clock(Some(s(120)), Some(s(5)), None, Some(3)),
            Ok(Some(Clock::japanese(s(120), s(5), 3)))
        );
        assert!(match_clock(Some(s(120)), Some(s(5)), Some(1), Some(3)).is_err());
        assert_eq!(
            match_clock(Some(s(0)), None, None, None),
            Err("--main-time must be positive without --byo-yomi".to_string())
        );
        assert_eq!(
            match_clock(Some(s(60)), Some(s(0)), None, None),
            Err("--byo-yomi must be positive".to_string())
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("9"), Ok(BoardSize::square(9).unwrap()));
        assert_eq!(parse_size("7x11"), Ok(BoardSize::new(7, 11).unwrap()));
        let err = parse_size("30").unwrap_err();
        assert!(err.contains("'30'") && err.contains("1 to 25"), "{err}");
        assert!(parse_size("big").is_err());
    }

    #[test]
    fn rules_and_komi() {
        assert_eq!(parse_rules("aga"), Ok(Rules::default()));
        assert_eq!(parse_rules("japanese,komi=0").map(|r| r.komi), Ok(0.0));
        let err = parse_rules("nonsense").unwrap_err();
        assert!(err.contains("presets: tromp-taylor"), "{err}");
        assert_eq!(parse_komi("6.5"), Ok(6.5));
        assert!(parse_komi("inf").is_err());
        assert!(parse_komi("x").is_err());
    }

    #[test]
    fn game_settings_for_go_and_nogo() {
        let aga = Rules::default();
        let nine = BoardSize::square(9).unwrap();
        let seven = BoardSize::square(7).unwrap();
        assert_eq!(
            game_settings(Variant::Go, None, None, None, aga),
            Ok((nine, aga))
        );
        let nogo = Rules::preset("nogo").unwrap();
        assert_eq!(
            game_settings(Variant::NoGo, None, None, None, aga),
            Ok((seven, nogo))
        );
        assert_eq!(
            game_settings(Variant::NoGo, Some(nine), None, Some(0.5), aga),
            Ok((nine, nogo.with_komi(0.5)))
        );
        let err = game_settings(Variant::NoGo, None, Some(aga), None, aga).unwrap_err();
        assert!(err.contains("--rules aga are Go rules"), "{err}");
        assert_eq!(parse_variant("NoGo"), Ok(Variant::NoGo));
        assert!(parse_variant("chess").unwrap_err().contains("go or nogo"));
    }

    #[test]
    fn colours() {
        assert_eq!(parse_color("W"), Ok(Color::White));
        assert_eq!(parse_color("black"), Ok(Color::Black));
        assert!(parse_color("red").is_err());
    }
}
