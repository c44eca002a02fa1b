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
//! - **shape**: the larger neighbourhood, the points within Manhattan
//!   distance 3 (24 points) or, when the model does not know that shape, 2
//!   (12 points), colours as above; shapes the model knows in neither size
//!   share one value (Pachi's and Stern's spatial patterns, in two sizes);
//! - **capture**: stones captured (none, one, two, more), apart for chains
//!   the opponent could save by extending at the point;
//! - **escape**: an own chain in atari saved by extending or by capturing
//!   (none, one stone, two, more), or an extension that runs into a ladder;
//! - **self-atari**: the stones left in atari by the move (none, one, more);
//! - **atari**: whether the move puts an enemy chain in atari, and whether
//!   that atari captures it in a ladder;
//! - **line**: the distance to the nearest edge (first to fourth line, or
//!   further);
//! - **corner**: where the point stands in its corner, as the pair of its
//!   lines to the two nearest edges (from the 1-1 point to the 4-6 point),
//!   or none further out: the line alone rates every fourth-line point
//!   alike, the 4-4 point and the middle of a side;
//! - **distance**: Coulom's distance to the last stone played,
//!   `|dx| + |dy| + max(|dx|, |dy|)` (2 to 16, or further or no last stone);
//! - **distance before**: the same to the stone played the turn before
//!   (the player's own previous stone).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use tengen_core::{Board, Color, Point};

use crate::tactics::{
    atari_captures_in_ladder, atari_liberty, escape_is_laddered, escape_moves, gives_atari,
    self_atari_size, LadderScratch,
};

/// The escape value of an extension that only runs into a ladder.
const LADDERED_ESCAPE: u8 = 4;

/// The feature groups; each move has exactly one value in each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group {
    /// The 3×3 shape with atari flags.
    Pattern = 0,
    /// The shape within Manhattan distance 3 or 2.
    Shape,
    /// Stones captured.
    Capture,
    /// Own stones saved from atari, or an extension into a ladder.
    Escape,
    /// Own stones left in atari.
    SelfAtari,
    /// An enemy chain put in atari, and whether that captures it in a ladder.
    Atari,
    /// Distance to the edge.
    Line,
    /// Distance to the last stone played.
    Distance,
    /// Distance to the stone played the turn before the last.
    DistanceBefore,
    /// The point's lines to the two nearest edges, near a corner.
    Corner,
}

/// Number of feature groups.
pub const GROUPS: usize = 10;

impl Group {
    /// Every group, in index order.
    pub const ALL: [Group; GROUPS] = [
        Group::Pattern,
        Group::Shape,
        Group::Capture,
        Group::Escape,
        Group::SelfAtari,
        Group::Atari,
        Group::Line,
        Group::Distance,
        Group::DistanceBefore,
        Group::Corner,
    ];

    /// The group's name in model files.
    pub fn name(self) -> &'static str {
        match self {
            Group::Pattern => "pattern",
            Group::Shape => "shape",
            Group::Capture => "capture",
            Group::Escape => "escape",
            Group::SelfAtari => "self-atari",
            Group::Atari => "atari",
            Group::Line => "line",
            Group::Distance => "distance",
            Group::DistanceBefore => "distance-before",
            Group::Corner => "corner",
        }
    }

    /// Values of the group, for every group but [`Group::Pattern`] and
    /// [`Group::Shape`] (whose values are the shapes a model knows).
    pub fn values(self) -> usize {
        match self {
            Group::Pattern | Group::Shape => 0,
            Group::Capture => 7,
            Group::Escape => 5,
            Group::SelfAtari => 3,
            Group::Atari => 3,
            Group::Line => 5,
            Group::Distance | Group::DistanceBefore => 16,
            Group::Corner => CORNER_VALUES,
        }
    }

    /// Whether a model file may leave the group out (it came after the
    /// first model files): all its values then have strength 1, as the
    /// model had no such feature.
    pub fn is_optional(self) -> bool {
        self == Group::Corner
    }

    /// Whether the group's values are shapes, known by a model's list.
    pub fn is_shape(self) -> bool {
        matches!(self, Group::Pattern | Group::Shape)
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
    /// The larger shape in the board's orientation (see [`shape_code`]).
    pub shape: u64,
    /// Values of the other groups (the shape groups' slots are unused).
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

/// For each of the eight symmetries (mirror the columns, mirror the rows,
/// swap the two; in any combination), where each of `offsets` goes; the set
/// of offsets must map onto itself.
fn permutations<const N: usize>(offsets: &[(i32, i32); N]) -> [[usize; N]; 8] {
    std::array::from_fn(|symmetry| {
        std::array::from_fn(|i| {
            let (mut x, mut y) = offsets[i];
            if symmetry & 1 != 0 {
                x = -x;
            }
            if symmetry & 2 != 0 {
                y = -y;
            }
            if symmetry & 4 != 0 {
                std::mem::swap(&mut x, &mut y);
            }
            offsets
                .iter()
                .position(|&o| o == (x, y))
                .expect("a symmetry maps the offsets onto themselves")
        })
    })
}

/// For each of the eight symmetries, where each field goes.
fn field_permutations() -> &'static [[usize; 8]; 8] {
    static PERMUTATIONS: OnceLock<[[usize; 8]; 8]> = OnceLock::new();
    PERMUTATIONS.get_or_init(|| permutations(&FIELD_OFFSETS))
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

/// Points of the larger shape, as offsets (column, row) from its centre:
/// the 4 at distance 1, the 8 at distance 2, the 12 at distance 3.
fn shape_offsets() -> &'static [(i32, i32); SHAPE_POINTS] {
    static OFFSETS: OnceLock<[(i32, i32); SHAPE_POINTS]> = OnceLock::new();
    OFFSETS.get_or_init(|| {
        let mut all: Vec<(i32, i32)> = (-3i32..=3)
            .flat_map(|dy| (-3..=3).map(move |dx| (dx, dy)))
            .filter(|&(dx, dy): &(i32, i32)| (1..=3).contains(&(dx.abs() + dy.abs())))
            .collect();
        all.sort_by_key(|&(dx, dy)| (dx.abs() + dy.abs(), dy, dx));
        all.try_into().expect("24 points within distance 3")
    })
}

/// Points within Manhattan distance 3, the centre excepted.
pub const SHAPE_POINTS: usize = 24;

/// Points within Manhattan distance 2, the centre excepted: the first ones
/// of a shape code.
const SMALL_SHAPE_POINTS: usize = 12;

/// For each of the eight symmetries, where each shape point goes.
fn shape_permutations() -> &'static [[usize; SHAPE_POINTS]; 8] {
    static PERMUTATIONS: OnceLock<[[usize; SHAPE_POINTS]; 8]> = OnceLock::new();
    PERMUTATIONS.get_or_init(|| permutations(shape_offsets()))
}

/// The points within distance 3 of empty `point` for `player`: two bits per
/// point in the order of the offsets (0 empty, 1 the player's stone, 2 the
/// opponent's, 3 off the board).
pub fn shape_code(board: &Board, point: Point, player: Color) -> u64 {
    let size = board.size();
    let (col, row) = size.col_row(point);
    let mut code = 0u64;
    for (i, &(dx, dy)) in shape_offsets().iter().enumerate() {
        let (c, r) = (col as i32 + dx, row as i32 + dy);
        let value = if c < 0 || r < 0 {
            3
        } else {
            match size.point(c as usize, r as usize) {
                None => 3,
                Some(p) => match board.stone(p) {
                    None => 0,
                    Some(color) if color == player => 1,
                    Some(_) => 2,
                },
            }
        };
        code |= value << (2 * i);
    }
    code
}

/// The key of a shape of one size: the code of its points within
/// `radius` (2 or 3), with the radius in the top byte.
pub fn shape_key(code: u64, radius: u64) -> u64 {
    let points = if radius == 2 {
        SMALL_SHAPE_POINTS
    } else {
        SHAPE_POINTS
    };
    (code & ((1u64 << (2 * points)) - 1)) | radius << 56
}

/// The eight orientations of a shape key.
pub fn shape_orientations(key: u64) -> [u64; 8] {
    let radius = key >> 56;
    let points = if radius == 2 {
        SMALL_SHAPE_POINTS
    } else {
        SHAPE_POINTS
    };
    std::array::from_fn(|symmetry| {
        let perm = &shape_permutations()[symmetry];
        let mut out = 0u64;
        for (i, &to) in perm.iter().enumerate().take(points) {
            out |= ((key >> (2 * i)) & 3) << (2 * to);
        }
        out | radius << 56
    })
}

/// The smallest key among a shape's eight orientations.
pub fn canonical_shape(key: u64) -> u64 {
    shape_orientations(key)
        .into_iter()
        .min()
        .expect("eight orientations")
}

/// Computes the features of the moves of one position: the escapes from
/// atari are found once, then each move is rated alone.
#[derive(Clone, Debug)]
pub struct PositionFeatures {
    to_move: Color,
    last: Option<(usize, usize)>,
    before_last: Option<(usize, usize)>,
    /// Points that save an own chain in atari, with the value of the escape
    /// feature (1 one stone, 2 two, 3 more, 4 an extension into a ladder).
    escapes: Vec<(Point, u8)>,
    scratch: Vec<Point>,
    ladders: LadderScratch,
}

impl PositionFeatures {
    /// Prepares the features of `to_move`'s moves on `board`, where `last`
    /// was the stone played last turn and `before_last` the one the turn
    /// before (each `None` after a pass or at the start).
    pub fn new(
        board: &Board,
        to_move: Color,
        last: Option<Point>,
        before_last: Option<Point>,
    ) -> PositionFeatures {
        let mut features = PositionFeatures {
            to_move,
            last: None,
            before_last: None,
            escapes: Vec::new(),
            scratch: Vec::new(),
            ladders: LadderScratch::default(),
        };
        features.reset(board, to_move, last, before_last);
        features
    }

    /// Prepares for another position, keeping the buffers.
    pub fn reset(
        &mut self,
        board: &Board,
        to_move: Color,
        last: Option<Point>,
        before_last: Option<Point>,
    ) {
        self.to_move = to_move;
        self.last = last.map(|p| board.size().col_row(p));
        self.before_last = before_last.map(|p| board.size().col_row(p));
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
            let Some(liberty) = atari_liberty(board, point) else {
                continue;
            };
            let size_value = board.chain_len(point).min(3) as u8;
            self.scratch.clear();
            escape_moves(board, point, to_move, &mut self.scratch);
            for &p in &self.scratch {
                let value =
                    if p == liberty && escape_is_laddered(board, p, to_move, &mut self.ladders) {
                        LADDERED_ESCAPE
                    } else {
                        size_value
                    };
                match self.escapes.iter_mut().find(|(q, _)| *q == p) {
                    // A point that truly saves one chain is an escape even
                    // if it only runs another into a ladder.
                    Some(entry) if entry.1 == LADDERED_ESCAPE => entry.1 = value,
                    Some(entry) if value != LADDERED_ESCAPE => entry.1 = entry.1.max(value),
                    Some(_) => {}
                    None => self.escapes.push((p, value)),
                }
            }
        }
    }

    /// The features of the move at empty `point` (legal for the player).
    pub fn of(&mut self, board: &Board, point: Point) -> MoveFeatures {
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
        values[Group::Atari as usize] = if !gives_atari(board, point, color) {
            0
        } else if atari_captures_in_ladder(board, point, color, &mut self.ladders).is_some() {
            2
        } else {
            1
        };
        let size = board.size();
        let (col, row) = size.col_row(point);
        let (line, line_across) = edge_lines(size.width(), size.height(), (col, row));
        values[Group::Line as usize] = line.min(4) as u8;
        values[Group::Corner as usize] = corner_value(line, line_across);
        values[Group::Distance as usize] = distance_value(self.last, (col, row));
        values[Group::DistanceBefore as usize] = distance_value(self.before_last, (col, row));
        MoveFeatures {
            pattern: pattern_code(board, point, color),
            shape: shape_code(board, point, color),
            values,
        }
    }
}

/// Lines (from 0) to the nearest edge up to which [`Group::Corner`] tells
/// points apart, and lines to the second nearest edge.
const CORNER_LINES: usize = 4;
const CORNER_SIDE_LINES: usize = 6;

/// Values of [`Group::Corner`]: none, and each pair of lines (nearest,
/// second nearest) with the nearest up to [`CORNER_LINES`] and the second
/// up to [`CORNER_SIDE_LINES`].
const CORNER_VALUES: usize = 1 + corner_pairs_before(CORNER_LINES);

/// Corner pairs (nearest, second nearest) whose nearest line is below
/// `near`: `CORNER_SIDE_LINES - n` second lines for each nearest line `n`.
const fn corner_pairs_before(near: usize) -> usize {
    near * CORNER_SIDE_LINES - near * near.saturating_sub(1) / 2
}

/// The lines (from 0) of the point at (`col`, `row`) on a board of `width`
/// × `height` to the nearest edge, and to the nearest edge across it.
fn edge_lines(width: usize, height: usize, (col, row): (usize, usize)) -> (usize, usize) {
    let across_cols = col.min(width - 1 - col);
    let across_rows = row.min(height - 1 - row);
    (across_cols.min(across_rows), across_cols.max(across_rows))
}

/// The value of the corner feature of a point `near` lines from the nearest
/// edge and `far` from the nearest edge across ([`edge_lines`]): 0 away
/// from the corners, else 1 + the index of the pair in the order (0, 0),
/// (0, 1), …, (0, 5), (1, 1), …, (3, 5).
fn corner_value(near: usize, far: usize) -> u8 {
    if near >= CORNER_LINES || far >= CORNER_SIDE_LINES {
        return 0;
    }
    (1 + corner_pairs_before(near) + far - near) as u8
}

/// The value of a distance feature: Coulom's distance `|dx| + |dy| +
/// max(|dx|, |dy|)` less one for 2 to 16, and 0 for further or no stone.
fn distance_value(from: Option<(usize, usize)>, (col, row): (usize, usize)) -> u8 {
    let Some((c, r)) = from else {
        return 0;
    };
    let dx = col.abs_diff(c);
    let dy = row.abs_diff(r);
    let d = dx + dy + dx.max(dy);
    if (2..=16).contains(&d) {
        (d - 1) as u8
    } else {
        0
    }
}

/// The stones played on the last turn and the turn before, as
/// [`PositionFeatures::new`] takes them (`None` for a pass or no turn).
pub fn recent_stones(game: &tengen_core::Game) -> (Option<Point>, Option<Point>) {
    use tengen_core::{Action, Move};
    let mut turns = game.history().collect::<Vec<_>>().into_iter().rev();
    let mut stone = || match turns.next() {
        Some((_, Action::Move(Move::Play(point)))) => Some(point),
        _ => None,
    };
    let last = stone();
    (last, stone())
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
    /// γ of the larger shapes it knows, by canonical key.
    shapes: Vec<(u64, f32)>,
    /// γ of the larger shapes it does not know.
    other_shape: f32,
    /// γ by larger shape key in any orientation.
    by_key: HashMap<u64, f32>,
}

/// The strengths of one shape group: those of the known shapes, by
/// canonical code, and the one the others share.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeStrengths<K> {
    /// γ of each known shape.
    pub known: Vec<(K, f32)>,
    /// γ of the others.
    pub other: f32,
}

impl MoveModel {
    /// A model from its parts: the γ of each small group's values (the
    /// shape groups' entries are ignored), of the 3×3 shapes and of the
    /// larger shapes.
    pub fn new(
        small: [Vec<f32>; GROUPS],
        patterns: ShapeStrengths<u32>,
        shapes: ShapeStrengths<u64>,
    ) -> Self {
        let mut by_code = HashMap::with_capacity(patterns.known.len() * 8);
        for &(code, gamma) in &patterns.known {
            for oriented in pattern_orientations(code) {
                by_code.insert(oriented, gamma);
            }
        }
        let mut by_key = HashMap::with_capacity(shapes.known.len() * 8);
        for &(key, gamma) in &shapes.known {
            for oriented in shape_orientations(key) {
                by_key.insert(oriented, gamma);
            }
        }
        MoveModel {
            small,
            patterns: patterns.known,
            other_pattern: patterns.other,
            by_code,
            shapes: shapes.known,
            other_shape: shapes.other,
            by_key,
        }
    }

    /// The model shipped with tengen, fitted on the professional records of
    /// Debian's `goban-original-games` (see docs/guide/training.md for the command).
    pub fn builtin() -> &'static MoveModel {
        static MODEL: OnceLock<MoveModel> = OnceLock::new();
        MODEL.get_or_init(|| {
            MoveModel::parse(include_str!("../data/move-model.txt"))
                .expect("the shipped move model is valid")
        })
    }

    /// The model in file `path`, read once per path and kept for the rest
    /// of the process (a bot made again with the same file shares it), so
    /// that searches hold it by plain reference.
    pub fn from_file(path: &std::path::Path) -> Result<&'static MoveModel, String> {
        static LOADED: OnceLock<std::sync::Mutex<HashMap<std::path::PathBuf, &'static MoveModel>>> =
            OnceLock::new();
        let mut loaded = LOADED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&model) = loaded.get(path) {
            return Ok(model);
        }
        let text = std::fs::read_to_string(path)
            .map_err(|error| format!("reading {}: {error}", path.display()))?;
        let model =
            MoveModel::parse(&text).map_err(|error| format!("{}: {error}", path.display()))?;
        let model: &'static MoveModel = Box::leak(Box::new(model));
        loaded.insert(path.to_path_buf(), model);
        Ok(model)
    }

    /// The strength of a move with these features.
    #[inline]
    pub fn strength(&self, features: &MoveFeatures) -> f32 {
        let mut gamma = self
            .by_code
            .get(&features.pattern)
            .copied()
            .unwrap_or(self.other_pattern);
        gamma *= self
            .by_key
            .get(&shape_key(features.shape, 3))
            .or_else(|| self.by_key.get(&shape_key(features.shape, 2)))
            .copied()
            .unwrap_or(self.other_shape);
        for group in 2..GROUPS {
            gamma *= self.small[group][features.values[group] as usize];
        }
        gamma
    }

    /// Number of 3×3 shapes with their own strength.
    pub fn known_patterns(&self) -> usize {
        self.patterns.len()
    }

    /// Number of larger shapes with their own strength.
    pub fn known_shapes(&self) -> usize {
        self.shapes.len()
    }

    /// The model as text: one `GROUP VALUE GAMMA` line per value; shapes by
    /// canonical code in hexadecimal (the larger ones with their radius in
    /// the top byte), `other` for the unknown ones.
    pub fn to_text(&self) -> String {
        let mut out = String::from(
            "# tengen move model: strength (gamma) of each move feature value, \
             fitted by minorization-maximization\n",
        );
        for group in &Group::ALL[2..] {
            for (value, gamma) in self.small[*group as usize].iter().enumerate() {
                let _ = writeln!(out, "{} {value} {gamma}", group.name());
            }
        }
        let _ = writeln!(out, "pattern other {}", self.other_pattern);
        for (code, gamma) in &self.patterns {
            let _ = writeln!(out, "pattern {code:05x} {gamma}");
        }
        let _ = writeln!(out, "shape other {}", self.other_shape);
        for (key, gamma) in &self.shapes {
            let _ = writeln!(out, "shape {key:x} {gamma}");
        }
        out
    }

    /// Reads a model written by [`MoveModel::to_text`].
    pub fn parse(text: &str) -> Result<MoveModel, ModelError> {
        let mut small: [Vec<Option<f32>>; GROUPS] =
            std::array::from_fn(|g| vec![None; Group::ALL[g].values()]);
        let mut patterns = ShapeStrengths::default();
        let mut other = None;
        let mut shapes = ShapeStrengths::default();
        let mut other_shape = None;
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
                    patterns.known.push((code, gamma));
                }
                continue;
            }
            if group == Group::Shape {
                if value == "other" {
                    other_shape = Some(gamma);
                } else {
                    let key = u64::from_str_radix(value, 16)
                        .ok()
                        .filter(|&k| {
                            let radius = k >> 56;
                            (radius == 2 || radius == 3)
                                && shape_key(k, radius) == k
                                && canonical_shape(k) == k
                        })
                        .ok_or_else(|| bad(format!("{value:?} is not a canonical shape key")))?;
                    shapes.known.push((key, gamma));
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
        for group in &Group::ALL[2..] {
            let slots = &mut small[*group as usize];
            if group.is_optional() && slots.iter().all(Option::is_none) {
                slots.fill(Some(1.0));
            }
            for (value, gamma) in slots.iter().enumerate() {
                gammas[*group as usize].push(gamma.ok_or(ModelError::Missing {
                    group: group.name(),
                    value,
                })?);
            }
        }
        patterns.other = other.ok_or(ModelError::Missing {
            group: "pattern",
            value: 0,
        })?;
        shapes.other = other_shape.ok_or(ModelError::Missing {
            group: "shape",
            value: 0,
        })?;
        Ok(MoveModel::new(gammas, patterns, shapes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(board: &Board, vertex: &str) -> Point {
        board.size().parse_gtp(vertex).unwrap().point().unwrap()
    }

    #[test]
    fn the_corner_feature_tells_corner_points_from_side_points() {
        let board = Board::new(tengen_core::BoardSize::square(19).unwrap());
        let mut black = PositionFeatures::new(&board, Color::Black, None, None);
        let mut corner =
            |vertex| black.of(&board, at(&board, vertex)).values[Group::Corner as usize];
        // The same pair of lines has the same value in all four corners and
        // both orientations.
        for (same, value) in [
            (["A1", "T1", "A19", "T19"], 1),
            (["D4", "Q4", "D16", "Q16"], 16),
            (["C4", "D3", "R16", "Q17"], 13),
            (["D6", "F4", "O16", "Q14"], 18),
        ] {
            for vertex in same {
                assert_eq!(corner(vertex), value, "{vertex}");
            }
        }
        // Points away from the corners: on a side, or in the middle.
        for vertex in ["K4", "D10", "G4", "K10", "E5", "A7"] {
            assert_eq!(corner(vertex), 0, "{vertex}");
        }
        // Every pair has its own value, and the values fill 1 to 18.
        let mut seen = std::collections::BTreeSet::new();
        for col in 0..6 {
            for row in 0..6 {
                let value = corner_value(col.min(row), col.max(row));
                if col.min(row) < 4 {
                    assert_ne!(value, 0);
                    seen.insert((value, col.min(row), col.max(row)));
                }
            }
        }
        let values: Vec<u8> = seen.iter().map(|s| s.0).collect();
        assert_eq!(
            values,
            (1..Group::Corner.values() as u8).collect::<Vec<_>>()
        );
        assert_eq!(seen.len(), Group::Corner.values() - 1);
        // On a 9x9 board the 3-3 point and the 4-4 point are corner points,
        // tengen (E5) is not.
        let on_9x9 = |col, row| {
            let (near, far) = edge_lines(9, 9, (col, row));
            corner_value(near, far)
        };
        assert_eq!(on_9x9(2, 2), 12);
        assert_eq!(on_9x9(3, 3), 16);
        assert_eq!(on_9x9(4, 4), 0);
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
        let mut black = PositionFeatures::new(
            &board,
            Color::Black,
            Some(at(&board, "B2")),
            Some(at(&board, "G7")),
        );
        let escape = black.of(&board, at(&board, "C1"));
        // From G7 to C1: dx 4, dy 6: 4 + 6 + 6 = 16, stored as 15.
        assert_eq!(escape.values[Group::DistanceBefore as usize], 15);
        // D4 is 3 + 3 + 3 = 9 from G7, stored as 8.
        assert_eq!(
            black.of(&board, at(&board, "D4")).values[Group::DistanceBefore as usize],
            8
        );
        assert_eq!(escape.values[Group::Escape as usize], 1);
        assert_eq!(escape.values[Group::Capture as usize], 0);
        assert_eq!(escape.values[Group::Distance as usize], 2); // dx 1, dy 1: 3.
        let mut white = PositionFeatures::new(&board, Color::White, Some(at(&board, "B1")), None);
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
        let mut white = PositionFeatures::new(&corner, Color::White, None, None);
        let a1 = white.of(&corner, at(&corner, "A1"));
        assert_eq!(a1.values[Group::SelfAtari as usize], 1);
        // Black then captures at A2 a stone White could not save there.
        let mut corner = corner;
        corner.play_unchecked(at(&corner, "A1"), Color::White);
        let mut black = PositionFeatures::new(&corner, Color::Black, Some(at(&corner, "A1")), None);
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
        let mut white =
            PositionFeatures::new(&extended, Color::White, Some(at(&board, "C1")), None);
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
    fn ladder_ataris_and_extensions_into_ladders_have_their_own_values() {
        let board = Board::from_ascii(
            ". . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . x o . . . . . .
             . . x x . . . . .
             . . . . . . . . .",
        )
        .unwrap();
        let mut black = PositionFeatures::new(&board, Color::Black, Some(at(&board, "C3")), None);
        // C4 catches White's C3 in a ladder; D3 is a plain atari.
        assert_eq!(
            black.of(&board, at(&board, "C4")).values[Group::Atari as usize],
            2
        );
        assert_eq!(
            black.of(&board, at(&board, "D3")).values[Group::Atari as usize],
            1
        );
        // In atari after C4, running at D3 is an extension into the ladder.
        let mut in_atari = board.clone();
        in_atari.play_unchecked(at(&board, "C4"), Color::Black);
        let mut white =
            PositionFeatures::new(&in_atari, Color::White, Some(at(&board, "C4")), None);
        assert_eq!(
            white.of(&in_atari, at(&board, "D3")).values[Group::Escape as usize],
            LADDERED_ESCAPE
        );
        // After D3 instead, running at C4 reaches three liberties.
        let mut in_atari = board.clone();
        in_atari.play_unchecked(at(&board, "D3"), Color::Black);
        let mut white =
            PositionFeatures::new(&in_atari, Color::White, Some(at(&board, "D3")), None);
        assert_eq!(
            white.of(&in_atari, at(&board, "C4")).values[Group::Escape as usize],
            1
        );
    }

    #[test]
    fn larger_shapes_see_three_points_away_in_every_orientation() {
        // A stone three points to the right of C3, and the same turned.
        let key = |diagram: &str| {
            let board = Board::from_ascii(diagram).unwrap();
            let code = shape_code(&board, at(&board, "C3"), Color::Black);
            (code, canonical_shape(shape_key(code, 3)))
        };
        let (right, a) = key(". . . . . . .
             . . . . . . .
             . . . . . . .
             . . . . . . .
             . . . . . x .
             . . . . . . .
             . . . . . . .");
        let (above, b) = key(". . . . . . .
             . . x . . . .
             . . . . . . .
             . . . . . . .
             . . . . . . .
             . . . . . . .
             . . . . . . .");
        assert_ne!(right, above);
        assert_eq!(a, b);
        // Within distance 2 the board is empty but for the edge: C3 on a
        // 7×7 board has no off-board point within distance 2.
        assert_eq!(shape_key(right, 2), 2 << 56);
        // A1 sees the edge: its points to the left and below are off the
        // board.
        let board = Board::new(tengen_core::BoardSize::square(7).unwrap());
        let corner = shape_code(&board, at(&board, "A1"), Color::Black);
        let off = (0..SHAPE_POINTS)
            .filter(|i| (corner >> (2 * i)) & 3 == 3)
            .count();
        // Of the 24 points, those with a negative column or row: 24 less
        // the 9 with both non-negative (not the centre).
        assert_eq!(off, 24 - 9);
        // The 8 orientations of a key are keys of the same size.
        for oriented in shape_orientations(a) {
            assert_eq!(oriented >> 56, 3);
            assert_eq!(canonical_shape(oriented), a);
        }
    }

    #[test]
    fn recent_stones_skip_nothing_and_stop_at_passes() {
        use tengen_core::{BoardSize, Game, Move, Rules};
        let mut game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        assert_eq!(recent_stones(&game), (None, None));
        let size = game.size();
        let p = |v: &str| size.parse_gtp(v).unwrap().point();
        game.play(size.parse_gtp("C3").unwrap()).unwrap();
        game.play(size.parse_gtp("D4").unwrap()).unwrap();
        assert_eq!(recent_stones(&game), (p("D4"), p("C3")));
        game.play(Move::Pass).unwrap();
        assert_eq!(recent_stones(&game), (None, p("D4")));
    }

    #[test]
    fn model_text_round_trips_and_bad_files_are_refused() {
        let small: [Vec<f32>; GROUPS] = std::array::from_fn(|g| {
            (0..Group::ALL[g].values())
                .map(|v| 1.0 + v as f32 / 4.0)
                .collect()
        });
        // A shape of radius 2: an own stone at the first point (distance
        // 1), an enemy stone at the sixth (distance 2).
        let small_shape = canonical_shape(shape_key(1 | 2 << 10, 2));
        let model = MoveModel::new(
            small,
            ShapeStrengths {
                known: vec![(canonical_pattern(0x00006), 3.5)],
                other: 0.5,
            },
            ShapeStrengths {
                known: vec![(small_shape, 2.0)],
                other: 1.0,
            },
        );
        let text = model.to_text();
        let back = MoveModel::parse(&text).unwrap();
        assert_eq!(back.to_text(), text);
        assert_eq!(back.known_patterns(), 1);
        assert_eq!(back.known_shapes(), 1);
        // Every orientation of the known shapes gets its strength.
        let features = |pattern, shape| MoveFeatures {
            pattern,
            shape,
            values: [0; GROUPS],
        };
        for code in pattern_orientations(0x00006) {
            assert_eq!(back.strength(&features(code, 0)), 3.5);
        }
        assert_eq!(back.strength(&features(0x00001, 0)), 0.5);
        for key in shape_orientations(small_shape) {
            // Whatever lies at distance 3, the radius-2 shape matches.
            let code = (key & ((1 << 24) - 1)) | 0x5a5a << 24;
            assert_eq!(back.strength(&features(0x00001, code)), 1.0);
        }

        // The model's text without the lines that start with `prefix`.
        let without = |prefix: &str| {
            text.lines()
                .filter(|l| !l.starts_with(prefix))
                .collect::<Vec<_>>()
                .join("\n")
        };
        // A file from before the corner group reads, the group neutral; a
        // file with only part of it does not.
        let old = MoveModel::parse(&without("corner ")).unwrap();
        let mut corner = features(0x00001, 0);
        for value in 0..Group::Corner.values() {
            corner.values[Group::Corner as usize] = value as u8;
            assert_eq!(old.strength(&corner), 0.5);
        }
        assert_eq!(
            MoveModel::parse(&without("corner 3 ")).unwrap_err(),
            ModelError::Missing {
                group: "corner",
                value: 3
            }
        );

        assert_eq!(
            MoveModel::parse(&without("line 2")).unwrap_err(),
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
            ("shape 400000000000001 1.0", "is not a canonical shape key"),
        ] {
            let error = MoveModel::parse(&format!("{text}\n{bad}\n")).unwrap_err();
            assert!(error.to_string().contains(reason), "{bad}: {error}");
        }
    }

    #[test]
    fn the_candidate_model_kept_in_the_tree_is_read() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../models/move-model-9x9-policies.txt");
        let model = MoveModel::from_file(&path).unwrap();
        assert!(model.known_shapes() > 1000, "{}", model.known_shapes());
    }

    #[test]
    fn the_shipped_model_is_read() {
        let model = MoveModel::builtin();
        assert!(model.known_patterns() > 100);
    }
}
