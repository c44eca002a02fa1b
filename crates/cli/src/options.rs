//! Parsers for command-line values, written as clap `value_parser`s: each
//! returns a one-line message a person can act on.

use tengen_core::{BoardSize, Color, Rules, Variant, MAX_SIDE, PRESETS};

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

/// Parses a duration: a number with a unit, `500ms`, `2s`, `1.5m`, `1h`; a bare
/// number is seconds.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, unit) = trimmed.split_at(split);
    let scale = match unit.trim() {
        "ms" => 0.001,
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => f64::NAN,
    };
    match number.parse::<f64>() {
        Ok(value) if scale.is_finite() && value.is_finite() && value * scale <= 1e9 => {
            Ok(std::time::Duration::from_secs_f64(value * scale))
        }
        _ => Err(format!(
            "bad duration '{text}': expected a number and a unit such as 500ms, 2s, 1.5m or 1h"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        use std::time::Duration;
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("1.5m"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("3"), Ok(Duration::from_secs(3)));
        for bad in ["", "s", "2x", "-1s", "1e99h", "nan"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
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
