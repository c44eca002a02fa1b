//! Typed views of a record: the game-info properties of the main line
//! ([`RecordInfo`]) and the per-node data of each main-line node
//! ([`NodeInfo`]), with the values that could not be typed
//! ([`IgnoredValue`]).
//!
//! Only values that change how the game is replayed (`SZ`, `KM`, moves and
//! setup) stop a read when malformed. A malformed informative number (`HA`,
//! `TM`, `BL`, `WL`, `OB`, `OW`) is left out of the typed view and listed in
//! [`crate::Record::ignored`]: real records carry things like `TM[1 hour]`,
//! and refusing the whole game for them would help nobody. The raw text stays
//! in the tree either way ([`crate::Record::tree`]).

use std::fmt;

use tengen_core::{Color, Move, Point, Rules};

use crate::parse::{Node, Property};

/// What a record says about `RU`, and so what a writer puts there.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum RulesText {
    /// Name the game's own rules (the choice for a game that was not read
    /// from a record).
    #[default]
    FromGame,
    /// The record had no `RU`. Writing leaves `RU` out too, as long as the
    /// game's rules are the ones a reader assumes without it (tengen's
    /// default rules, komi aside); otherwise the game's rules are named, so
    /// that the written record still reads back to the same game.
    Absent,
    /// The record's `RU` text, as written (`Japanese`, `GOE`, `Korean`, ...).
    /// Writing puts it back unchanged, as long as it still reads to the
    /// game's rules (komi aside); otherwise the game's rules are named.
    Given(String),
}

/// The game-info properties of a record: who played, when, where, under what
/// rules and time, and how it ended.
///
/// Reading takes each property from the first main-line node that has it:
/// nearly always the root, but FF\[4\] puts game information in the node
/// where the games of a merged tree part ways. Writing puts them all in the
/// root, in the order of the fields here.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RecordInfo {
    /// `PB`: Black's name.
    pub black_name: Option<String>,
    /// `BR`: Black's rank, such as `5d` or `9p`.
    pub black_rank: Option<String>,
    /// `BT`: Black's team.
    pub black_team: Option<String>,
    /// `PW`: White's name.
    pub white_name: Option<String>,
    /// `WR`: White's rank.
    pub white_rank: Option<String>,
    /// `WT`: White's team.
    pub white_team: Option<String>,
    /// `RE`: the result as written, such as `B+3.5`, `W+R`, `0`, `Void`.
    pub result: Option<String>,
    /// `DT`: the date or dates as written, such as `2026-11-22` or
    /// `1996-10-18,19`.
    pub date: Option<String>,
    /// `EV`: the event, such as a tournament.
    pub event: Option<String>,
    /// `RO`: the round within the event.
    pub round: Option<String>,
    /// `PC`: the place.
    pub place: Option<String>,
    /// `GN`: the game's name.
    pub game_name: Option<String>,
    /// `ON`: the opening played.
    pub opening: Option<String>,
    /// `GC`: a comment on the whole game.
    pub game_comment: Option<String>,
    /// `SO`: where the record comes from.
    pub source: Option<String>,
    /// `AN`: who annotated it.
    pub annotator: Option<String>,
    /// `US`: who entered it.
    pub user: Option<String>,
    /// `CP`: its copyright.
    pub copyright: Option<String>,
    /// `RU`: the rules as the record names them.
    pub rules: RulesText,
    /// `KM` as read, `None` when absent or empty. Writing takes komi from the
    /// game's rules instead, which are what the record is replayed under.
    pub komi: Option<f64>,
    /// `HA` as read. Writing takes the handicap from the game when it has
    /// one, and writes this value otherwise (a record whose handicap stones
    /// were not recognised as such keeps its `HA`).
    pub handicap: Option<u32>,
    /// `TM`: each player's main time, in seconds.
    pub time_limit: Option<f64>,
    /// `OT`: the overtime system as written, such as `5x30 byo-yomi`.
    pub overtime: Option<String>,
}

impl RecordInfo {
    /// The text-valued game-info properties with their identifiers, in the
    /// order they are written.
    pub(crate) fn text_fields(&self) -> [(&'static str, &Option<String>); 18] {
        [
            ("PB", &self.black_name),
            ("BR", &self.black_rank),
            ("BT", &self.black_team),
            ("PW", &self.white_name),
            ("WR", &self.white_rank),
            ("WT", &self.white_team),
            ("RE", &self.result),
            ("DT", &self.date),
            ("EV", &self.event),
            ("RO", &self.round),
            ("PC", &self.place),
            ("GN", &self.game_name),
            ("ON", &self.opening),
            ("GC", &self.game_comment),
            ("SO", &self.source),
            ("AN", &self.annotator),
            ("US", &self.user),
            ("CP", &self.copyright),
        ]
    }

    fn text_fields_mut(&mut self) -> [(&'static str, &mut Option<String>); 18] {
        [
            ("PB", &mut self.black_name),
            ("BR", &mut self.black_rank),
            ("BT", &mut self.black_team),
            ("PW", &mut self.white_name),
            ("WR", &mut self.white_rank),
            ("WT", &mut self.white_team),
            ("RE", &mut self.result),
            ("DT", &mut self.date),
            ("EV", &mut self.event),
            ("RO", &mut self.round),
            ("PC", &mut self.place),
            ("GN", &mut self.game_name),
            ("ON", &mut self.opening),
            ("GC", &mut self.game_comment),
            ("SO", &mut self.source),
            ("AN", &mut self.annotator),
            ("US", &mut self.user),
            ("CP", &mut self.copyright),
        ]
    }

    /// The game-info properties of the main line starting at `root`, each
    /// from the first node that has it. `KM` is taken as `komi` when it is a
    /// number and left to the caller's checks otherwise.
    pub(crate) fn from_main_line(root: &Node, ignored: &mut Vec<IgnoredValue>) -> RecordInfo {
        let mut info = RecordInfo {
            rules: RulesText::Absent,
            ..RecordInfo::default()
        };
        let mut seen: Vec<&str> = Vec::new();
        for (index, node) in main_line(root).enumerate() {
            for Property { id, values } in &node.properties {
                let Some(value) = values.first() else {
                    continue;
                };
                if !GAME_INFO.contains(&id.as_str()) || seen.contains(&id.as_str()) {
                    continue;
                }
                seen.push(id);
                info.set(id, value, index, ignored);
            }
        }
        info
    }

    fn set(&mut self, id: &str, value: &str, node: usize, ignored: &mut Vec<IgnoredValue>) {
        if let Some((_, field)) = self.text_fields_mut().into_iter().find(|(i, _)| *i == id) {
            *field = Some(value.to_string());
            return;
        }
        match id {
            "RU" => self.rules = RulesText::Given(value.to_string()),
            "OT" => self.overtime = Some(value.to_string()),
            // Checked again, with an error, by the reader: komi changes the game.
            "KM" => self.komi = parse_real(value),
            "HA" => self.handicap = typed(id, value, node, ignored),
            "TM" => self.time_limit = typed(id, value, node, ignored),
            _ => {}
        }
    }
}

impl From<&crate::GameInfo> for RecordInfo {
    /// The fields [`crate::GameInfo`] has; the rules are named from the game.
    fn from(info: &crate::GameInfo) -> RecordInfo {
        RecordInfo {
            black_name: info.black_name.clone(),
            white_name: info.white_name.clone(),
            result: info.result.clone(),
            date: info.date.clone(),
            event: info.event.clone(),
            game_comment: info.comment.clone(),
            ..RecordInfo::default()
        }
    }
}

/// The game-info properties of FF\[4\] plus Go's `HA` and `KM`.
const GAME_INFO: [&str; 23] = [
    "PB", "BR", "BT", "PW", "WR", "WT", "RE", "DT", "EV", "RO", "PC", "GN", "ON", "GC", "SO", "AN",
    "US", "CP", "RU", "OT", "KM", "HA", "TM",
];

/// What one main-line node holds besides its place in the tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeInfo {
    /// The node's place on the main line: 0 for the root.
    pub node: usize,
    /// `B` or `W`: the move played here (`B[]` and, on boards up to 19×19,
    /// `B[tt]` are passes). A malformed node with both keeps `B`'s.
    pub play: Option<(Color, Move)>,
    /// The replayed game's turn count after this node: `Some(n)` where this
    /// node plays the n-th turn or follows it without a move. `None` for
    /// nodes before the game's last restart (setup in mid-line, `PL`, or a
    /// move executed against the rules), which the game's history does not
    /// cover.
    pub turn: Option<usize>,
    /// `AB`: Black stones added here (point lists expanded).
    pub added_black: Vec<Point>,
    /// `AW`: White stones added here.
    pub added_white: Vec<Point>,
    /// `AE`: points emptied here.
    pub cleared: Vec<Point>,
    /// `PL`: the player to move after this node, when the node says so.
    pub to_play: Option<Color>,
    /// `N`: the node's name.
    pub name: Option<String>,
    /// `C`: the comment.
    pub comment: Option<String>,
    /// `BL`: Black's time left after this node, in seconds.
    pub black_time_left: Option<f64>,
    /// `WL`: White's time left, in seconds.
    pub white_time_left: Option<f64>,
    /// `OB`: Black's moves left in the current overtime period.
    pub black_moves_left: Option<u32>,
    /// `OW`: White's moves left in the current overtime period.
    pub white_moves_left: Option<u32>,
}

impl NodeInfo {
    /// The text and number properties of `node`, the `index`-th of the main
    /// line; the reader fills in the move, setup and turn.
    pub(crate) fn of(node: &Node, index: usize, ignored: &mut Vec<IgnoredValue>) -> NodeInfo {
        let mut info = NodeInfo {
            node: index,
            name: node.first("N").map(str::to_string),
            comment: node.first("C").map(str::to_string),
            ..NodeInfo::default()
        };
        info.black_time_left = typed_property(node, "BL", index, ignored);
        info.white_time_left = typed_property(node, "WL", index, ignored);
        info.black_moves_left = typed_property(node, "OB", index, ignored);
        info.white_moves_left = typed_property(node, "OW", index, ignored);
        info
    }
}

/// A property value that could not be typed: left out of [`RecordInfo`] or
/// [`NodeInfo`] (the raw text stays in the tree), not an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredValue {
    /// Main-line node number, 0 for the root.
    pub node: usize,
    /// Property identifier.
    pub property: String,
    /// The value as written.
    pub value: String,
    /// What the value should have been.
    pub expected: Expected,
}

impl fmt::Display for IgnoredValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "node {}: {}[{}] ignored: expected {}",
            self.node, self.property, self.value, self.expected
        )
    }
}

/// The kinds of numbers typed properties hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// A whole number from 0 (`HA`, `OB`, `OW`).
    Count,
    /// A number of seconds from 0, decimals allowed (`TM`, `BL`, `WL`).
    Seconds,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Expected::Count => "a whole number from 0",
            Expected::Seconds => "a number of seconds from 0",
        })
    }
}

/// Numbers a typed property can hold.
trait Typed: Sized {
    /// What the text must look like.
    const EXPECTED: Expected;
    fn from_sgf(text: &str) -> Option<Self>;
}

impl Typed for u32 {
    const EXPECTED: Expected = Expected::Count;
    fn from_sgf(text: &str) -> Option<u32> {
        let text = text.trim();
        let digits = text.strip_prefix('+').unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok()
    }
}

impl Typed for f64 {
    const EXPECTED: Expected = Expected::Seconds;
    fn from_sgf(text: &str) -> Option<f64> {
        parse_real(text).filter(|&seconds| seconds >= 0.0)
    }
}

/// `value` typed, or `None` with the value listed in `ignored`. An empty
/// value means "not given" and is not listed.
fn typed<T: Typed>(
    id: &str,
    value: &str,
    node: usize,
    ignored: &mut Vec<IgnoredValue>,
) -> Option<T> {
    if value.trim().is_empty() {
        return None;
    }
    let parsed = T::from_sgf(value);
    if parsed.is_none() {
        ignored.push(IgnoredValue {
            node,
            property: id.to_string(),
            value: value.to_string(),
            expected: T::EXPECTED,
        });
    }
    parsed
}

/// The first value of property `id` of `node`, typed (see [`typed`]).
fn typed_property<T: Typed>(
    node: &Node,
    id: &str,
    index: usize,
    ignored: &mut Vec<IgnoredValue>,
) -> Option<T> {
    node.first(id)
        .and_then(|value| typed(id, value, index, ignored))
}

/// An SGF Real: an optional sign, digits and an optional fraction, such as
/// `6.5`, `-59.5`, `+3` or `.5`. Rust's own float syntax would also take
/// `inf`, `NaN` and `1e400`, which no record means.
pub(crate) fn parse_real(text: &str) -> Option<f64> {
    let text = text.trim();
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
    let digits = |part: &str| part.bytes().all(|b| b.is_ascii_digit());
    if whole.len() + fraction.len() == 0 || !digits(whole) || !digits(fraction) {
        return None;
    }
    text.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// The rules an `RU` value names: the usual names of the presets in records
/// (`Japanese`, `Korean`, `Chinese`, `AGA`, `NZ`, `Tromp-Taylor`), tengen's
/// own rules text, and the default rules for anything else (the record still
/// replays: only scoring and superko depend on them).
pub(crate) fn rules_named(name: &str) -> Rules {
    let lowered = name.trim().to_ascii_lowercase();
    let preset = match lowered.as_str() {
        "japanese" | "jp" | "korean" => "japanese",
        "chinese" | "cn" => "chinese",
        "aga" => "aga",
        "nz" | "new zealand" | "new-zealand" => "new-zealand",
        "tromp-taylor" | "tt" => "tromp-taylor",
        other => other,
    };
    Rules::preset(preset)
        .or_else(|| name.parse().ok())
        .unwrap_or_default()
}

/// Whether two rule sets agree on everything but komi.
pub(crate) fn same_rules_but_komi(a: Rules, b: Rules) -> bool {
    a.with_komi(0.0) == b.with_komi(0.0)
}

/// The nodes of the main line from `root`: each node's first child.
pub(crate) fn main_line(root: &Node) -> impl Iterator<Item = &Node> {
    std::iter::successors(Some(root), |node| node.children.first())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reals_follow_the_sgf_grammar() {
        let cases: [(&str, Option<f64>); 14] = [
            ("6.5", Some(6.5)),
            (" -59.5 ", Some(-59.5)),
            ("+3", Some(3.0)),
            (".5", Some(0.5)),
            ("7.", Some(7.0)),
            ("0", Some(0.0)),
            ("", None),
            (".", None),
            ("-", None),
            ("inf", None),
            ("NaN", None),
            ("1e3", None),
            ("6,5", None),
            ("1 hour", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_real(text), expected, "{text:?}");
        }
    }

    #[test]
    fn counts_and_seconds() {
        assert_eq!(u32::from_sgf("9"), Some(9));
        assert_eq!(u32::from_sgf("+2"), Some(2));
        assert_eq!(u32::from_sgf("-1"), None);
        assert_eq!(u32::from_sgf("2.5"), None);
        assert_eq!(u32::from_sgf("99999999999"), None);
        assert_eq!(f64::from_sgf("105.6"), Some(105.6));
        assert_eq!(f64::from_sgf("-1"), None);
    }

    #[test]
    fn every_typed_property_is_read() {
        let info = RecordInfo::default();
        for (id, _) in info.text_fields() {
            assert!(GAME_INFO.contains(&id), "{id}");
        }
        for id in ["RU", "OT", "KM", "HA", "TM"] {
            assert!(GAME_INFO.contains(&id), "{id}");
        }
    }

    #[test]
    fn rules_names() {
        assert_eq!(rules_named("Korean"), Rules::preset("japanese").unwrap());
        assert_eq!(rules_named(" NZ "), Rules::preset("new-zealand").unwrap());
        assert_eq!(rules_named("GOE"), Rules::preset("goe").unwrap());
        assert_eq!(
            rules_named("aga-button"),
            Rules::preset("aga-button").unwrap()
        );
        assert_eq!(rules_named("house rules"), Rules::default());
    }
}
