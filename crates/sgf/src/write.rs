//! A [`Game`] as an SGF FF\[4\] record.

use std::fmt::Write as _;

use tengen_core::{Action, Color, Game, Move, PRESETS};

/// What a record says about a game beyond its moves.
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
/// with the same ko, suicide and scoring rules (komi has its own `KM`), and
/// tengen's own rules text otherwise.
fn rules_name(game: &Game) -> String {
    let rules = *game.rules();
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
        _ => rules.to_string(),
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
/// handicap and setup stones), then the moves of the history in order.
/// Resignations appear only in `RE`.
pub fn write_game(game: &Game, info: &GameInfo) -> String {
    let size = game.size();
    let mut out = String::from("(;FF[4]GM[1]CA[UTF-8]");
    let _ = write!(out, "AP[tengen:{}]", env!("CARGO_PKG_VERSION"));
    if size.is_square() {
        let _ = write!(out, "SZ[{}]", size.width());
    } else {
        let _ = write!(out, "SZ[{}:{}]", size.width(), size.height());
    }
    let _ = write!(
        out,
        "KM[{}]RU[{}]",
        game.rules().komi,
        escape(&rules_name(game))
    );
    let text_properties = [
        ("PB", &info.black_name),
        ("PW", &info.white_name),
        ("RE", &info.result),
        ("DT", &info.date),
        ("EV", &info.event),
        ("GC", &info.comment),
    ];
    for (id, value) in text_properties {
        if let Some(value) = value {
            let _ = write!(out, "{id}[{}]", escape(value));
        }
    }
    if game.handicap() > 0 {
        let _ = write!(out, "HA[{}]", game.handicap());
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
