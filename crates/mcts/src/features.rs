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

mod move_model;
pub use move_model::{MoveModel, ShapeStrengths};

#[cfg(test)]
mod tests;
