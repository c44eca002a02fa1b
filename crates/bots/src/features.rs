//! Features of a candidate move, and the learned move model that rates them.
//!
//! The model is Coulom's ("Computing Elo Ratings of Move Patterns in the
//! Game of Go", 2007): every feature value has a strength γ, a move's
//! strength is the product of the γ of its features, and the probability
//! that a player picks a move is its strength over the sum of the strengths
//! of all candidate moves (a generalised Bradley–Terry model). tengen fits
//! the γ by minorization–maximization on professional game records
//! (`tengen patterns train`, in `tengen-train`) and ships the result in
//! `data/move-model.txt`; the MCTS bot turns the probabilities into priors
//! ([`crate::prior`]).
//!
//! The features, one value per group ([`Group`]):
//! - **pattern**: the 3×3 neighbourhood of the point, colours relative to
//!   the player (own, opponent, empty, off the board), with a flag on each of
//!   the four sides whose chain is in atari; one value per shape up to the
//!   eight symmetries, shapes too rare in the records share one value;
//! - **capture**: stones captured (none, one, two, more), apart for chains
//!   the opponent could save by extending at the point;
//! - **escape**: an own chain in atari saved by extending or by capturing
//!   (none, one stone, two, more);
//! - **self-atari**: the stones left in atari by the move (none, one, more);
//! - **atari**: whether the move puts an enemy chain in atari;
//! - **line**: the distance to the nearest edge (first to fourth line, or
//!   further);
//! - **distance**: Coulom's distance to the last stone played,
//!   `|dx| + |dy| + max(|dx|, |dy|)` (2 to 16, or further or no last stone).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use tengen_core::{Board, Color, Point};

use crate::tactics::{atari_liberty, escape_moves, self_atari_size};

/// The feature groups; each move has exactly one value in each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// The 3×3 shape with atari flags.
    Pattern = 0,
    /// Stones captured.
    Capture,
    /// Own stones saved from atari.
    Escape,
    /// Own stones left in atari.
    SelfAtari,
    /// An enemy chain put in atari.
    Atari,
    /// Distance to the edge.
    Line,
    /// Distance to the last stone played.
    Distance,
}

/// Number of feature groups.
pub const GROUPS: usize = 7;

impl Group {
    /// Every group, in index order.
    pub const ALL: [Group; GROUPS] = [
        Group::Pattern,
        Group::Capture,
        Group::Escape,
        Group::SelfAtari,
        Group::Atari,
        Group::Line,
        Group::Distance,
    ];

    /// The group's name in model files.
    pub fn name(self) -> &'static str {
        match self {
            Group::Pattern => "pattern",
            Group::Capture => "capture",
            Group::Escape => "escape",
            Group::SelfAtari => "self-atari",
            Group::Atari => "atari",
            Group::Line => "line",
            Group::Distance => "distance",
        }
    }

    /// Values of the group, for every group but [`Group::Pattern`] (whose
    /// values are the shapes a model knows).
    pub fn values(self) -> usize {
        match self {
            Group::Pattern => 0,
            Group::Capture => 7,
            Group::Escape => 4,
            Group::SelfAtari => 3,
            Group::Atari => 2,
            Group::Line => 5,
            Group::Distance => 16,
        }
    }

    fn from_name(name: &str) -> Option<Group> {
        Group::ALL.into_iter().find(|g| g.name() == name)
    }
}

/// The features of one move: the shape's code (see [`pattern_code`]) and
/// the value of every other group (index = [`Group`] as usize; the pattern
/// slot is unused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveFeatures {
    /// The shape around the point in the board's orientation; the same
    /// shape in another orientation has another code ([`canonical_pattern`]
    /// maps them to one).
    pub pattern: u32,
    /// Values of the other groups.
    pub values: [u8; GROUPS],
}

/// Offsets (column, row) of the eight neighbourhood fields, in the order of
/// [`Board::neighborhood`].
const FIELD_OFFSETS: [(i32, i32); 8] = [
    (0, -1),
    (-1, 0),
    (1, 0),
    (0, 1),
    (-1, -1),
    (1, -1),
    (-1, 1),
    (1, 1),
];

/// For each of the eight symmetries, where each field goes.
fn field_permutations() -> &'static [[usize; 8]; 8] {
    static PERMUTATIONS: OnceLock<[[usize; 8]; 8]> = OnceLock::new();
    PERMUTATIONS.get_or_init(|| {
        let mut out = [[0usize; 8]; 8];
        for (symmetry, perm) in out.iter_mut().enumerate() {
            for (field, &(dx, dy)) in FIELD_OFFSETS.iter().enumerate() {
                let (mut x, mut y) = (dx, dy);
                if symmetry & 1 != 0 {
                    x = -x;
                }
                if symmetry & 2 != 0 {
                    y = -y;
                }
                if symmetry & 4 != 0 {
                    std::mem::swap(&mut x, &mut y);
                }
                perm[field] = FIELD_OFFSETS
                    .iter()
                    .position(|&o| o == (x, y))
                    .expect("a symmetry maps the neighbourhood onto itself");
            }
        }
        out
    })
}

/// The shape code under one of the eight symmetries.
fn transform_pattern(code: u32, perm: &[usize; 8]) -> u32 {
    let mut out = 0u32;
    for (field, &to) in perm.iter().enumerate() {
        out |= ((code >> (2 * field)) & 3) << (2 * to);
        if field < 4 {
            // The sides map onto sides: their atari flags follow them.
            out |= ((code >> (16 + field)) & 1) << (16 + to);
        }
    }
    out
}

/// The eight orientations of a shape code.
pub fn pattern_orientations(code: u32) -> [u32; 8] {
    let perms = field_permutations();
    std::array::from_fn(|s| transform_pattern(code, &perms[s]))
}

/// The smallest code among a shape's eight orientations: one name per
/// shape.
pub fn canonical_pattern(code: u32) -> u32 {
    pattern_orientations(code)
        .into_iter()
        .min()
        .expect("eight orientations")
}

/// The shape around empty `point` for `player`: two bits per field of
/// [`Board::neighborhood`] (0 empty, 1 the player's stone, 2 the
/// opponent's, 3 off the board), then in bits 16–19 a flag for each of the
/// four sides holding a chain in atari.
pub fn pattern_code(board: &Board, point: Point, player: Color) -> u32 {
    let raw = board.neighborhood(point) as u32;
    let mut code = if player == Color::White {
        // Swap the colours: 1 ↔ 2, leaving 0 and 3.
        let mut swapped = 0u32;
        for field in 0..8 {
            let v = (raw >> (2 * field)) & 3;
            let v = match v {
                1 => 2,
                2 => 1,
                other => other,
            };
            swapped |= v << (2 * field);
        }
        swapped
    } else {
        raw
    };
    for (side, n) in board.neighbors(point).into_iter().enumerate() {
        if board.stone(n).is_some() && board.liberties(n) == 1 {
            code |= 1 << (16 + side);
        }
    }
    code
}

/// Computes the features of the moves of one position: the escapes from
/// atari are found once, then each move is rated alone.
#[derive(Clone, Debug)]
pub struct PositionFeatures {
    to_move: Color,
    last: Option<(usize, usize)>,
    /// Points that save an own chain in atari, with the value of the escape
    /// feature (1 one stone, 2 two, 3 more).
    escapes: Vec<(Point, u8)>,
    scratch: Vec<Point>,
}

impl PositionFeatures {
    /// Prepares the features of `to_move`'s moves on `board`, where `last`
    /// was the last stone played.
    pub fn new(board: &Board, to_move: Color, last: Option<Point>) -> PositionFeatures {
        let mut features = PositionFeatures {
            to_move,
            last: None,
            escapes: Vec::new(),
            scratch: Vec::new(),
        };
        features.reset(board, to_move, last);
        features
    }

    /// Prepares for another position, keeping the buffers.
    pub fn reset(&mut self, board: &Board, to_move: Color, last: Option<Point>) {
        self.to_move = to_move;
        self.last = last.map(|p| board.size().col_row(p));
        self.escapes.clear();
        let mut heads: Vec<Point> = Vec::new();
        for point in board.size().points() {
            if board.stone(point) != Some(to_move) || board.liberties(point) != 1 {
                continue;
            }
            let head = board.chain_head(point).unwrap_or(point);
            if heads.contains(&head) {
                continue;
            }
            heads.push(head);
            if atari_liberty(board, point).is_none() {
                continue;
            }
            let value = board.chain_len(point).min(3) as u8;
            self.scratch.clear();
            escape_moves(board, point, to_move, &mut self.scratch);
            for &p in &self.scratch {
                match self.escapes.iter_mut().find(|(q, _)| *q == p) {
                    Some(entry) => entry.1 = entry.1.max(value),
                    None => self.escapes.push((p, value)),
                }
            }
        }
    }

    /// The features of the move at empty `point` (legal for the player).
    pub fn of(&self, board: &Board, point: Point) -> MoveFeatures {
        let color = self.to_move;
        let mut values = [0u8; GROUPS];
        let captured = board.removals_after(point, color).captured;
        values[Group::Capture as usize] = match captured {
            0 => 0,
            // Stones the opponent could save by extending here (the point
            // would not be a self-atari for them) are another matter than
            // stones already dead.
            n if self_atari_size(board, point, !color) == 0 => 3 + n.min(3) as u8,
            n => n.min(3) as u8,
        };
        values[Group::Escape as usize] = self
            .escapes
            .iter()
            .find(|(p, _)| *p == point)
            .map_or(0, |e| e.1);
        values[Group::SelfAtari as usize] = match self_atari_size(board, point, color) {
            0 => 0,
            1 => 1,
            _ => 2,
        };
        values[Group::Atari as usize] = u8::from(
            board
                .neighbors(point)
                .into_iter()
                .any(|n| board.stone(n) == Some(!color) && board.liberties(n) == 2),
        );
        let size = board.size();
        let (col, row) = size.col_row(point);
        let line = col
            .min(row)
            .min(size.width() - 1 - col)
            .min(size.height() - 1 - row);
        values[Group::Line as usize] = line.min(4) as u8;
        values[Group::Distance as usize] = match self.last {
            None => 0,
            Some((lc, lr)) => {
                let dx = col.abs_diff(lc);
                let dy = row.abs_diff(lr);
                let d = dx + dy + dx.max(dy);
                if (2..=16).contains(&d) {
                    (d - 1) as u8
                } else {
                    0
                }
            }
        };
        MoveFeatures {
            pattern: pattern_code(board, point, color),
            values,
        }
    }
}

/// Why a move model file could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ModelError {
    /// A line that is not `GROUP VALUE GAMMA`.
    #[error("line {line}: {reason}")]
    Line {
        /// Line number, from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A feature value the file does not rate.
    #[error("no strength for {group} value {value}")]
    Missing {
        /// The group's name.
        group: &'static str,
        /// The value.
        value: usize,
    },
}

/// The strengths (γ) of every feature value.
#[derive(Clone, Debug)]
pub struct MoveModel {
    /// γ of each value of the small groups, by group index.
    small: [Vec<f32>; GROUPS],
    /// γ of the shapes the model knows, by canonical code.
    patterns: Vec<(u32, f32)>,
    /// γ of the shapes it does not know.
    other_pattern: f32,
    /// γ by shape code in any orientation (the known shapes in all eight).
    by_code: HashMap<u32, f32>,
}

impl MoveModel {
    /// A model from its parts: the γ of each small group's values (the
    /// pattern group's entry is ignored), of the known shapes by canonical
    /// code, and of the unknown shapes.
    pub fn new(small: [Vec<f32>; GROUPS], patterns: Vec<(u32, f32)>, other_pattern: f32) -> Self {
        let mut by_code = HashMap::with_capacity(patterns.len() * 8);
        for &(code, gamma) in &patterns {
            for oriented in pattern_orientations(code) {
                by_code.insert(oriented, gamma);
            }
        }
        MoveModel {
            small,
            patterns,
            other_pattern,
            by_code,
        }
    }

    /// The model shipped with tengen, fitted on the professional records of
    /// Debian's `goban-original-games` (see the README for the command).
    pub fn builtin() -> &'static MoveModel {
        static MODEL: OnceLock<MoveModel> = OnceLock::new();
        MODEL.get_or_init(|| {
            MoveModel::parse(include_str!("../data/move-model.txt"))
                .expect("the shipped move model is valid")
        })
    }

    /// The strength of a move with these features.
    #[inline]
    pub fn strength(&self, features: &MoveFeatures) -> f32 {
        let mut gamma = self
            .by_code
            .get(&features.pattern)
            .copied()
            .unwrap_or(self.other_pattern);
        for group in 1..GROUPS {
            gamma *= self.small[group][features.values[group] as usize];
        }
        gamma
    }

    /// Number of shapes with their own strength.
    pub fn known_patterns(&self) -> usize {
        self.patterns.len()
    }

    /// The model as text: one `GROUP VALUE GAMMA` line per value; shapes by
    /// canonical code in hexadecimal, `other` for the unknown ones.
    pub fn to_text(&self) -> String {
        let mut out = String::from(
            "# tengen move model: strength (gamma) of each move feature value, \
             fitted by minorization-maximization\n",
        );
        for group in &Group::ALL[1..] {
            for (value, gamma) in self.small[*group as usize].iter().enumerate() {
                let _ = writeln!(out, "{} {value} {gamma}", group.name());
            }
        }
        let _ = writeln!(out, "pattern other {}", self.other_pattern);
        for (code, gamma) in &self.patterns {
            let _ = writeln!(out, "pattern {code:05x} {gamma}");
        }
        out
    }

    /// Reads a model written by [`MoveModel::to_text`].
    pub fn parse(text: &str) -> Result<MoveModel, ModelError> {
        let mut small: [Vec<Option<f32>>; GROUPS] =
            std::array::from_fn(|g| vec![None; Group::ALL[g].values()]);
        let mut patterns = Vec::new();
        let mut other = None;
        for (index, line) in text.lines().enumerate() {
            let line_no = index + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let bad = |reason: String| ModelError::Line {
                line: line_no,
                reason,
            };
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [group, value, gamma] = fields[..] else {
                return Err(bad("expected GROUP VALUE GAMMA".into()));
            };
            let gamma: f32 = gamma
                .parse()
                .ok()
                .filter(|g: &f32| g.is_finite() && *g > 0.0)
                .ok_or_else(|| bad(format!("{gamma:?} is not a positive strength")))?;
            let group =
                Group::from_name(group).ok_or_else(|| bad(format!("unknown group {group:?}")))?;
            if group == Group::Pattern {
                if value == "other" {
                    other = Some(gamma);
                } else {
                    let code = u32::from_str_radix(value, 16)
                        .ok()
                        .filter(|&c| c < 1 << 20 && canonical_pattern(c) == c)
                        .ok_or_else(|| bad(format!("{value:?} is not a canonical shape code")))?;
                    patterns.push((code, gamma));
                }
                continue;
            }
            let slot = value
                .parse::<usize>()
                .ok()
                .and_then(|v| small[group as usize].get_mut(v))
                .ok_or_else(|| bad(format!("{value:?} is not a value of {}", group.name())))?;
            *slot = Some(gamma);
        }
        let mut gammas: [Vec<f32>; GROUPS] = Default::default();
        for group in &Group::ALL[1..] {
            for (value, gamma) in small[*group as usize].iter().enumerate() {
                gammas[*group as usize].push(gamma.ok_or(ModelError::Missing {
                    group: group.name(),
                    value,
                })?);
            }
        }
        let other = other.ok_or(ModelError::Missing {
            group: "pattern",
            value: 0,
        })?;
        Ok(MoveModel::new(gammas, patterns, other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(board: &Board, vertex: &str) -> Point {
        board.size().parse_gtp(vertex).unwrap().point().unwrap()
    }

    #[test]
    fn a_shape_has_one_canonical_code_in_every_orientation_and_colour() {
        // A hane at C3: own stone diagonal, enemy stone beside it.
        let code = |diagram: &str, player| {
            let board = Board::from_ascii(diagram).unwrap();
            pattern_code(&board, at(&board, "C3"), player)
        };
        let upper_left = code(
            ". . . . .
             . x o . .
             . . . . .
             . . . . .
             . . . . .",
            Color::Black,
        );
        // Turned half a turn.
        let lower_right = code(
            ". . . . .
             . . . . .
             . . . . .
             . . o x .
             . . . . .",
            Color::Black,
        );
        // Turned a quarter, colours swapped, White to play.
        let diagram = ". . . . .
             . . . o .
             . . . x .
             . . . . .
             . . . . .";
        let quarter = code(diagram, Color::White);
        assert_ne!(upper_left, lower_right);
        assert_eq!(
            canonical_pattern(upper_left),
            canonical_pattern(lower_right)
        );
        assert_eq!(canonical_pattern(upper_left), canonical_pattern(quarter));
        // For Black the same stones are another shape (own stone beside,
        // enemy diagonal).
        let other = code(diagram, Color::Black);
        assert_ne!(canonical_pattern(other), canonical_pattern(upper_left));
        // Every orientation maps to the same canonical code.
        for oriented in pattern_orientations(upper_left) {
            assert_eq!(canonical_pattern(oriented), canonical_pattern(upper_left));
        }
    }

    #[test]
    fn captures_escapes_self_ataris_and_ataris() {
        let board = Board::from_ascii(
            ". . . . . . .
             . . . . . . .
             . . . . . . .
             . . . . . . .
             . . . . . . .
             . o . . . . .
             o x . . . . .",
        )
        .unwrap();
        // Black B1 is in atari (liberty C1), and so is White A1 (liberty
        // A2).
        let black = PositionFeatures::new(&board, Color::Black, Some(at(&board, "B2")));
        let escape = black.of(&board, at(&board, "C1"));
        assert_eq!(escape.values[Group::Escape as usize], 1);
        assert_eq!(escape.values[Group::Capture as usize], 0);
        assert_eq!(escape.values[Group::Distance as usize], 2); // dx 1, dy 1: 3.
        let white = PositionFeatures::new(&board, Color::White, Some(at(&board, "B1")));
        let capture = white.of(&board, at(&board, "C1"));
        // One stone that Black could have saved by extending at C1.
        assert_eq!(capture.values[Group::Capture as usize], 4);
        // Capturing B1 also saves White's A1.
        assert_eq!(capture.values[Group::Escape as usize], 1);
        // So does capturing A1 for Black.
        assert_eq!(
            black.of(&board, at(&board, "A2")).values[Group::Escape as usize],
            1
        );
        // C1's left side (B1) is flagged in atari, its lower side is off
        // the board.
        assert_eq!(capture.pattern & 0xf_0000, 1 << 17, "{:x}", capture.pattern);
        assert_eq!(capture.pattern & 3, 3);
        // Self-atari: a lone stone at B3 keeps four liberties.
        assert_eq!(
            black.of(&board, at(&board, "B3")).values[Group::SelfAtari as usize],
            0
        );
        let corner = Board::from_ascii(
            ". . . . .
             . . . . .
             . . . . .
             . x . . .
             . x . . .",
        )
        .unwrap();
        let white = PositionFeatures::new(&corner, Color::White, None);
        let a1 = white.of(&corner, at(&corner, "A1"));
        assert_eq!(a1.values[Group::SelfAtari as usize], 1);
        // Black then captures at A2 a stone White could not save there.
        let mut corner = corner;
        corner.play_unchecked(at(&corner, "A1"), Color::White);
        let black = PositionFeatures::new(&corner, Color::Black, Some(at(&corner, "A1")));
        let a2 = black.of(&corner, at(&corner, "A2"));
        assert_eq!(a2.values[Group::Capture as usize], 1);
        assert_eq!(a1.values[Group::Distance as usize], 0);
        // White C1 would be captured at once were it not capturing: not a
        // self-atari of more than one stone.
        assert!(capture.values[Group::SelfAtari as usize] < 2);
        // Atari: White B3 takes B2's... use a chain with two liberties: Black
        // B1 extended to C1 has D1 and C2.
        let mut extended = board.clone();
        extended.play_unchecked(at(&board, "C1"), Color::Black);
        let white = PositionFeatures::new(&extended, Color::White, Some(at(&board, "C1")));
        assert_eq!(
            white.of(&extended, at(&board, "D1")).values[Group::Atari as usize],
            1
        );
        assert_eq!(
            white.of(&extended, at(&board, "E4")).values[Group::Atari as usize],
            0
        );
        // Line: C1 is on the first line, D4 on the fourth.
        assert_eq!(escape.values[Group::Line as usize], 0);
        assert_eq!(
            black.of(&board, at(&board, "D4")).values[Group::Line as usize],
            3
        );
    }

    #[test]
    fn model_text_round_trips_and_bad_files_are_refused() {
        let small: [Vec<f32>; GROUPS] = std::array::from_fn(|g| {
            (0..Group::ALL[g].values())
                .map(|v| 1.0 + v as f32 / 4.0)
                .collect()
        });
        let model = MoveModel::new(small, vec![(canonical_pattern(0x00006), 3.5)], 0.5);
        let text = model.to_text();
        let back = MoveModel::parse(&text).unwrap();
        assert_eq!(back.to_text(), text);
        assert_eq!(back.known_patterns(), 1);
        // Every orientation of the known shape gets its strength.
        let features = |pattern| MoveFeatures {
            pattern,
            values: [0; GROUPS],
        };
        for code in pattern_orientations(0x00006) {
            assert_eq!(back.strength(&features(code)), 3.5);
        }
        assert_eq!(back.strength(&features(0x00001)), 0.5);

        let without_line = text
            .lines()
            .filter(|l| !l.starts_with("line 2"))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            MoveModel::parse(&without_line).unwrap_err(),
            ModelError::Missing {
                group: "line",
                value: 2
            }
        );
        for (bad, reason) in [
            ("capture 0", "expected GROUP VALUE GAMMA"),
            ("capture 9 1.0", "is not a value of capture"),
            ("colour 0 1.0", "unknown group"),
            ("capture 0 -1", "is not a positive strength"),
            ("capture 0 NaN", "is not a positive strength"),
            ("pattern zz 1.0", "is not a canonical shape code"),
        ] {
            let error = MoveModel::parse(&format!("{text}\n{bad}\n")).unwrap_err();
            assert!(error.to_string().contains(reason), "{bad}: {error}");
        }
    }

    #[test]
    fn the_shipped_model_is_read() {
        let model = MoveModel::builtin();
        assert!(model.known_patterns() > 100);
    }
}
