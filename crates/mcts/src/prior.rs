//! Prior knowledge for new tree nodes: before a move has been searched, the
//! tree treats it as if it had already been tried a few times with a win
//! rate that cheap Go knowledge suggests (Gelly and Silver's "heuristic
//! prior", as Fuego, Pachi and Michi use it).
//!
//! Every move starts at [`EVEN`] visits with half of them won. The rest
//! comes from one of two sources ([`PriorSource`]).
//!
//! **Learned** (the default): the move model fitted to professional games
//! ([`crate::features`]) gives each move a probability `p` of being the
//! one played; the move gets `weight × √p` won visits (moves under
//! [`LEARNED_FLOOR`] none). The square root keeps the second and third
//! choices in play, as Pachi does with its pattern prior.
//!
//! **Rules**: hand-written Go knowledge, as wins
//! (bonus) or losses (malus) of the given weight:
//! - capturing a chain in atari, or saving an own chain from atari: bonus
//!   ([`CAPTURE_ONE`] for a single stone, [`CAPTURE_MANY`] for more);
//! - a 3×3 shape ([`crate::patterns`]): bonus [`PATTERN`];
//! - close to the last move, by common-fate-graph distance (a chain counts
//!   as one point) 1, 2 or 3: bonus [`DISTANCE`];
//! - a self-atari: malus [`SELF_ATARI`];
//! - in open space (no stone within three steps): first and second line
//!   malus, third line bonus, [`OPEN_SPACE`].

use std::collections::VecDeque;

use tengen_core::{Board, Color, Point, MAX_CELLS};

use crate::features::{MoveModel, PositionFeatures};
use crate::patterns::Patterns;
use crate::tactics::{atari_liberty, escape_moves, self_atari_size};

/// Visits every new move starts with, half of them won.
pub const EVEN: f32 = 10.0;
/// Bonus for capturing or saving a single stone.
pub const CAPTURE_ONE: f32 = 15.0;
/// Bonus for capturing or saving a chain of two or more stones.
pub const CAPTURE_MANY: f32 = 30.0;
/// Bonus for a move that matches a 3×3 shape.
pub const PATTERN: f32 = 10.0;
/// Bonus by distance 1, 2, 3 from the last move.
pub const DISTANCE: [f32; 3] = [24.0, 22.0, 8.0];
/// Malus for a self-atari.
pub const SELF_ATARI: f32 = 10.0;
/// Bonus or malus for third-line or low moves in open space.
pub const OPEN_SPACE: f32 = 10.0;
/// Prior of the pass: visits and the wins among them (a low win rate, so
/// the search passes only when every move looks worse).
pub const PASS: (f32, f32) = (10.0, 3.0);

/// Moves the learned model gives less than this probability get no bonus.
pub const LEARNED_FLOOR: f32 = 0.001;

/// Won visits the learned model's favourite would get at probability 1.
pub const LEARNED_WEIGHT: f32 = 150.0;

/// Which move model rates the moves.
#[derive(Clone, Copy, Default)]
pub enum ModelChoice {
    /// The model shipped with tengen ([`MoveModel::builtin`]).
    #[default]
    Builtin,
    /// A model read from a file ([`MoveModel::from_file`]).
    Loaded(&'static MoveModel),
}

impl ModelChoice {
    /// The model itself.
    pub fn model(self) -> &'static MoveModel {
        match self {
            ModelChoice::Builtin => MoveModel::builtin(),
            ModelChoice::Loaded(model) => model,
        }
    }
}

impl std::fmt::Debug for ModelChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelChoice::Builtin => f.write_str("Builtin"),
            ModelChoice::Loaded(model) => write!(f, "Loaded({:p})", *model),
        }
    }
}

impl PartialEq for ModelChoice {
    /// The same model object (models from the same file are one object).
    fn eq(&self, other: &ModelChoice) -> bool {
        std::ptr::eq(self.model(), other.model())
    }
}

/// Where the priors of new moves come from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PriorSource {
    /// The hand-written rules listed at the top of this module.
    Rules,
    /// The learned move model, with the won visits a move of probability 1
    /// would get.
    Learned {
        /// Won visits at probability 1.
        weight: f32,
        /// The model.
        model: ModelChoice,
    },
}

impl Default for PriorSource {
    fn default() -> Self {
        PriorSource::Learned {
            weight: LEARNED_WEIGHT,
            model: ModelChoice::Builtin,
        }
    }
}

/// Virtual visits and wins a new node starts with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prior {
    /// Virtual visits.
    pub visits: f32,
    /// Virtual wins among them, for the player making the move.
    pub wins: f32,
}

impl Prior {
    fn even() -> Prior {
        Prior {
            visits: EVEN,
            wins: EVEN / 2.0,
        }
    }

    fn bonus(&mut self, weight: f32) {
        self.visits += weight;
        self.wins += weight;
    }

    fn malus(&mut self, weight: f32) {
        self.visits += weight;
    }

    /// The prior win rate.
    pub fn winrate(&self) -> f32 {
        self.wins / self.visits
    }
}

/// Computes priors; holds the pattern table and working space.
#[derive(Clone, Debug)]
pub struct Knowledge {
    /// Where the priors come from.
    pub source: PriorSource,
    features: Option<PositionFeatures>,
    strengths: Vec<f32>,
    patterns: Patterns,
    distance: Vec<u8>,
    queue: VecDeque<Point>,
    urgent: Vec<(Point, f32)>,
    scratch: Vec<Point>,
}

impl Default for Knowledge {
    fn default() -> Self {
        Knowledge::new(PriorSource::default())
    }
}

impl Knowledge {
    /// Priors from `source`.
    pub fn new(source: PriorSource) -> Knowledge {
        Knowledge {
            source,
            features: None,
            strengths: Vec::with_capacity(400),
            patterns: Patterns::new(),
            distance: vec![u8::MAX; MAX_CELLS],
            queue: VecDeque::with_capacity(64),
            urgent: Vec::with_capacity(16),
            scratch: Vec::with_capacity(16),
        }
    }

    /// The prior of each of `moves` (points where `to_move` may play) on
    /// `board`, where `recent` holds the stones played on the last turn and
    /// the one before (`None` for a pass); appended to `out` in the same
    /// order.
    pub fn priors(
        &mut self,
        board: &Board,
        to_move: Color,
        recent: (Option<Point>, Option<Point>),
        moves: &[Point],
        out: &mut Vec<Prior>,
    ) {
        match self.source {
            PriorSource::Rules => self.rule_priors(board, to_move, recent.0, moves, out),
            PriorSource::Learned { weight, model } => {
                self.learned_priors(board, to_move, recent, moves, (weight, model.model()), out)
            }
        }
    }

    fn learned_priors(
        &mut self,
        board: &Board,
        to_move: Color,
        (last, before_last): (Option<Point>, Option<Point>),
        moves: &[Point],
        (weight, model): (f32, &MoveModel),
        out: &mut Vec<Prior>,
    ) {
        let features = match &mut self.features {
            Some(features) => {
                features.reset(board, to_move, last, before_last);
                features
            }
            None => self
                .features
                .insert(PositionFeatures::new(board, to_move, last, before_last)),
        };
        self.strengths.clear();
        self.strengths.extend(
            moves
                .iter()
                .map(|&p| model.strength(&features.of(board, p))),
        );
        let total: f32 = self.strengths.iter().sum();
        for &strength in &self.strengths {
            let mut prior = Prior::even();
            let p = strength / total;
            if p >= LEARNED_FLOOR {
                prior.bonus(weight * p.sqrt());
            }
            out.push(prior);
        }
    }

    fn rule_priors(
        &mut self,
        board: &Board,
        to_move: Color,
        last: Option<Point>,
        moves: &[Point],
        out: &mut Vec<Prior>,
    ) {
        self.find_urgent(board, to_move);
        self.fill_distances(board, last);
        let size = board.size();
        for &point in moves {
            let mut prior = Prior::even();
            if let Some(&(_, weight)) = self.urgent.iter().find(|(p, _)| *p == point) {
                prior.bonus(weight);
            }
            let self_atari = self_atari_size(board, point, to_move);
            if self_atari > 0 {
                prior.malus(SELF_ATARI);
            } else if self.patterns.matches(board, point) {
                prior.bonus(PATTERN);
            }
            let d = self.distance[point.index()];
            if (1..=3).contains(&d) {
                prior.bonus(DISTANCE[d as usize - 1]);
            }
            let (col, row) = size.col_row(point);
            let line = 1 + col
                .min(row)
                .min(size.width() - 1 - col)
                .min(size.height() - 1 - row);
            if line <= 3 && open_space(board, point) {
                if line == 3 {
                    prior.bonus(OPEN_SPACE);
                } else {
                    prior.malus(OPEN_SPACE);
                }
            }
            out.push(prior);
        }
    }

    /// Captures of enemy chains in atari and escapes of own chains in atari,
    /// anywhere on the board, with their bonus.
    fn find_urgent(&mut self, board: &Board, to_move: Color) {
        self.urgent.clear();
        let mut heads_seen: Vec<Point> = Vec::new();
        for point in board.size().points() {
            let Some(color) = board.stone(point) else {
                continue;
            };
            if board.liberties(point) != 1 {
                continue;
            }
            let head = board.chain_head(point).unwrap_or(point);
            if heads_seen.contains(&head) {
                continue;
            }
            heads_seen.push(head);
            let weight = if board.chain_len(point) > 1 {
                CAPTURE_MANY
            } else {
                CAPTURE_ONE
            };
            self.scratch.clear();
            if color == to_move {
                escape_moves(board, point, to_move, &mut self.scratch);
            } else if let Some(liberty) = atari_liberty(board, point) {
                self.scratch.push(liberty);
            }
            for &p in &self.scratch {
                match self.urgent.iter_mut().find(|(q, _)| *q == p) {
                    Some(entry) => entry.1 = entry.1.max(weight),
                    None => self.urgent.push((p, weight)),
                }
            }
        }
    }

    /// Common-fate-graph distances from `last` up to 3 (stones of one chain
    /// are one node); `u8::MAX` beyond.
    fn fill_distances(&mut self, board: &Board, last: Option<Point>) {
        self.distance.fill(u8::MAX);
        let Some(last) = last else {
            return;
        };
        self.queue.clear();
        self.distance[last.index()] = 0;
        self.queue.push_back(last);
        while let Some(p) = self.queue.pop_front() {
            let d = self.distance[p.index()];
            for n in board.neighbors(p) {
                if !board.is_on_board(n) {
                    continue;
                }
                // Moving along a chain costs nothing.
                let same_chain =
                    board.stone(p).is_some() && board.chain_head(n) == board.chain_head(p);
                let nd = if same_chain { d } else { d + 1 };
                if nd > 3 || self.distance[n.index()] <= nd {
                    continue;
                }
                self.distance[n.index()] = nd;
                if same_chain {
                    self.queue.push_front(n);
                } else {
                    self.queue.push_back(n);
                }
            }
        }
    }
}

/// Whether no stone lies within Manhattan distance 3 of `point`.
fn open_space(board: &Board, point: Point) -> bool {
    let size = board.size();
    let (col, row) = size.col_row(point);
    for dc in -3i32..=3 {
        for dr in -3i32..=3 {
            if dc.abs() + dr.abs() > 3 {
                continue;
            }
            let (c, r) = (col as i32 + dc, row as i32 + dr);
            if c < 0 || r < 0 {
                continue;
            }
            if let Some(p) = size.point(c as usize, r as usize) {
                if board.stone(p).is_some() {
                    return false;
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(board: &Board, vertex: &str) -> Point {
        board.size().parse_gtp(vertex).unwrap().point().unwrap()
    }

    fn prior_of(board: &Board, to_move: Color, last: Option<&str>, vertex: &str) -> Prior {
        let mut knowledge = Knowledge::new(PriorSource::Rules);
        let mut out = Vec::new();
        let last = last.map(|v| at(board, v));
        knowledge.priors(board, to_move, (last, None), &[at(board, vertex)], &mut out);
        out[0]
    }

    #[test]
    fn captures_and_escapes_get_a_bonus_and_self_ataris_a_malus() {
        let board = Board::from_ascii(
            ". . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . o . . . . . . .
             . x o . . . . . .
             . o . . . . . . .",
        )
        .unwrap();
        // Black B2 is in atari at A2: escaping there is urgent for Black and
        // capturing there is urgent for White.
        let escape = prior_of(&board, Color::Black, Some("C2"), "A2");
        let capture = prior_of(&board, Color::White, Some("B2"), "A2");
        let plain = prior_of(&board, Color::Black, Some("C2"), "E6");
        assert!(escape.winrate() > 0.7, "{escape:?}");
        assert!(capture.winrate() > 0.7, "{capture:?}");
        assert!((plain.winrate() - 0.5).abs() < 1e-6, "{plain:?}");
        // C3 is next to the last move.
        let near = prior_of(&board, Color::White, Some("B2"), "C3");
        assert!(near.winrate() > 0.6);
    }

    #[test]
    fn learned_priors_favour_escapes_and_captures() {
        // Black's D5-E5 is in atari at F5, with open space beyond it.
        let board = Board::from_ascii(
            ". . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . o o . . . .
             . . o x x . . . .
             . . . o o . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .",
        )
        .unwrap();
        let last = (Some(at(&board, "E4")), None);
        for to_move in [Color::Black, Color::White] {
            let moves: Vec<Point> = board
                .empty_points()
                .filter(|&p| board.is_legal_simple(p, to_move))
                .collect();
            let mut out = Vec::new();
            Knowledge::default().priors(&board, to_move, last, &moves, &mut out);
            let rate = |vertex: &str| {
                let i = moves.iter().position(|&p| p == at(&board, vertex)).unwrap();
                out[i].winrate()
            };
            // Escaping at F5 is Black's favourite; capturing there is among
            // White's five (professionals capture less eagerly than they
            // escape: the model's γ are about 8 and 32); a far point gets
            // less.
            let mut rates: Vec<f32> = out.iter().map(|p| p.winrate()).collect();
            rates.sort_by(|a, b| b.total_cmp(a));
            let rank = if to_move == Color::Black { 0 } else { 4 };
            assert!(
                rate("F5") >= rates[rank],
                "{to_move:?}: {} {rates:?}",
                rate("F5")
            );
            assert!(rate("F5") > 0.8, "{to_move:?}: {}", rate("F5"));
            assert!(rate("A9") < rate("C4"), "{to_move:?}");
            assert!(out.iter().all(|p| p.winrate() >= 0.5 && p.visits >= EVEN));
            // The rule priors see the position differently.
            let mut rules = Vec::new();
            Knowledge::new(PriorSource::Rules).priors(&board, to_move, last, &moves, &mut rules);
            assert_eq!(rules.len(), out.len());
            assert_ne!(rules, out);
        }
    }

    #[test]
    fn distances_count_chains_as_one_point() {
        let board = Board::from_ascii(
            ". . . . .
             . . . . .
             x x x x .
             . . . . .
             . . . . .",
        )
        .unwrap();
        let mut knowledge = Knowledge::new(PriorSource::Rules);
        knowledge.fill_distances(&board, Some(at(&board, "A3")));
        assert_eq!(knowledge.distance[at(&board, "D3").index()], 0);
        assert_eq!(knowledge.distance[at(&board, "E3").index()], 1);
        assert_eq!(knowledge.distance[at(&board, "D5").index()], 2);
        assert_eq!(knowledge.distance[at(&board, "E5").index()], 3);
    }

    #[test]
    fn open_space_prefers_the_third_line() {
        let board = Board::new(tengen_core::BoardSize::square(13).unwrap());
        let third = prior_of(&board, Color::Black, None, "C3");
        let first = prior_of(&board, Color::Black, None, "A7");
        let center = prior_of(&board, Color::Black, None, "G7");
        assert!(third.winrate() > center.winrate());
        assert!(first.winrate() < center.winrate());
    }
}
