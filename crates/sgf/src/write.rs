//! A [`Game`] as an SGF FF\[4\] record.

use std::fmt::Write as _;

use tengen_core::{Action, Color, Game, Move, Rules, PRESETS};

use crate::info::{rules_named, same_rules_but_komi, RecordInfo, RulesText};

/// What a record says about a game beyond its moves: the few properties
/// that programs writing their own games fill in. [`RecordInfo`] has every
/// game-info property.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameInfo {
    /// `PB`: Black's name.
    pub black_name: Option<String>,
    /// `PW`: White's name.
    pub white_name: Option<String>,
    /// `RE`: the result, such as `B+3.5`, `W+R`, `0`.
    pub result: Option<String>,
    /// `DT`: the date, `YYYY-MM-DD`.
    pub date: Option<String>,
    /// `EV`: the event.
    pub event: Option<String>,
    /// `GC`: a comment on the whole game.
    pub comment: Option<String>,
}

/// The `RU` value for the game's rules: the conventional name of the preset
/// with the same rules but komi (komi has its own `KM`), KataGo's name for
/// the presets without a conventional one (`chinese-ogs`, `aga-button`,
/// `stone-scoring`), and tengen's own rules text otherwise. A NoGo game is `RU[NoGo]` whatever its
/// (irrelevant) ko, suicide and scoring settings; the reader takes that name
/// back to the `nogo` preset.
fn rules_name(game: &Game) -> String {
    let rules = *game.rules();
    if rules.is_nogo() {
        return "NoGo".to_string();
    }
    let preset = PRESETS
        .iter()
        .find(|(_, preset)| preset.with_komi(rules.komi) == rules)
        .map(|(name, _)| *name);
    match preset {
        Some("japanese") => "Japanese".to_string(),
        Some("chinese") => "Chinese".to_string(),
        Some("aga") => "AGA".to_string(),
        Some("new-zealand") => "NZ".to_string(),
        Some("tromp-taylor") => "Tromp-Taylor".to_string(),
        Some(other) => other.to_string(),
        None => rules.to_string(),
    }
}

/// Escapes text for an SGF value: `\` and `]` get a backslash.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == '\\' || c == ']' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The record of `game`: root properties (size, komi, rules, players, result,
/// date, event, handicap and setup stones), then the moves of the history in
/// order. Resignations appear only in `RE`. The same as [`write_record`] with
/// the rules named from the game.
///
/// NoGo games are written as `GM[1]` (Go) with `RU[NoGo]`: SGF has no game
/// number for NoGo, and its records are Go records in every other way (the
/// same board, stones and moves, no captures), so every Go viewer shows them;
/// `RU` says which game it was and `RE` is `B+` or `W+` when the loser had no
/// legal move.
pub fn write_game(game: &Game, info: &GameInfo) -> String {
    write_record(game, &RecordInfo::from(info))
}

/// The record of `game` with every typed game-info property of `info`.
///
/// The root holds, in this order: `FF`, `GM`, `CA`, `AP`, `SZ`, `KM` (the
/// game's komi), `RU` (see [`RulesText`]), the text properties in the order
/// of [`RecordInfo`]'s fields (`PB`, `BR`, `BT`, `PW`, `WR`, `WT`, `RE`,
/// `DT`, `EV`, `RO`, `PC`, `GN`, `ON`, `GC`, `SO`, `AN`, `US`, `CP`), `TM`,
/// `OT`, `HA`, then the setup stones `AB`, `AW` and `PL`. Each move follows
/// in a node of its own. `]` and `\` in values are escaped, so every value
/// reads back as it was.
pub fn write_record(game: &Game, info: &RecordInfo) -> String {
    let size = game.size();
    let mut out = String::from("(;FF[4]GM[1]CA[UTF-8]");
    let _ = write!(out, "AP[tengen:{}]", env!("CARGO_PKG_VERSION"));
    if size.is_square() {
        let _ = write!(out, "SZ[{}]", size.width());
    } else {
        let _ = write!(out, "SZ[{}:{}]", size.width(), size.height());
    }
    let _ = write!(out, "KM[{}]", game.rules().komi);
    if let Some(rules) = rules_value(game, &info.rules) {
        let _ = write!(out, "RU[{}]", escape(&rules));
    }
    for (id, value) in info.text_fields() {
        if let Some(value) = value {
            let _ = write!(out, "{id}[{}]", escape(value));
        }
    }
    if let Some(seconds) = info.time_limit {
        let _ = write!(out, "TM[{seconds}]");
    }
    if let Some(overtime) = &info.overtime {
        let _ = write!(out, "OT[{}]", escape(overtime));
    }
    let handicap = match game.handicap() {
        0 => info.handicap.filter(|&h| h > 0).map(|h| h as usize),
        stones => Some(stones),
    };
    if let Some(handicap) = handicap {
        let _ = write!(out, "HA[{handicap}]");
    }
    let initial = game.initial_board();
    for (id, color) in [("AB", Color::Black), ("AW", Color::White)] {
        let stones: Vec<_> = size
            .points()
            .filter(|&p| initial.stone(p) == Some(color))
            .collect();
        if !stones.is_empty() {
            out.push_str(id);
            for p in stones {
                let _ = write!(out, "[{}]", size.sgf(Move::Play(p)));
            }
        }
    }
    let first_to_move = game.history().next().map(|(color, _)| color);
    let setup = initial.stone_count(Color::Black) + initial.stone_count(Color::White) > 0;
    if setup && first_to_move == Some(Color::White) {
        out.push_str("PL[W]");
    }
    for (i, (color, action)) in game.history().enumerate() {
        if let Action::Move(mv) = action {
            if i % 10 == 0 {
                out.push('\n');
            }
            let _ = write!(out, ";{}[{}]", color.letter(), size.sgf(mv));
        }
    }
    out.push_str(")\n");
    out
}

/// The `RU` value to write, if any: the record's own text or nothing while
/// that still reads back to the game's rules, the game's rules named
/// otherwise (see [`RulesText`]).
fn rules_value(game: &Game, text: &RulesText) -> Option<String> {
    let rules = *game.rules();
    match text {
        RulesText::Given(name) if same_rules_but_komi(rules_named(name), rules) => {
            Some(name.clone())
        }
        RulesText::Absent if same_rules_but_komi(Rules::default(), rules) => None,
        _ => Some(rules_name(game)),
    }
}
