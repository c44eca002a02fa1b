//! Playing against a mirror (KataGo's `antiMirror`): an opponent who
//! answers every move with its reflection through the centre of the board
//! keeps the position symmetric, and a network that never met it may think
//! the game even while the mirror player wins on komi. When the game shows
//! mirroring, the search leans towards the moves that break it — the
//! centre and the points around it — expects the mirror reply below them,
//! spends visits on it so that its refutation is found, and values a
//! position by who holds the centre when the opponent has it.
//!
//! The detection, the weights and the thresholds are KataGo's (its
//! `searchmirror.cpp`), restated for tengen's tree.

use tengen_core::{BoardSize, Color, Game, Move, Point, Scoring};

/// What a search knows of a mirroring opponent.
#[derive(Clone, Debug, PartialEq)]
pub struct Mirror {
    /// The side that mirrors (the opponent of the side to move at the root).
    pub mirroring: Color,
    /// Points the mirroring side wins by if the mirror holds to the end
    /// (komi, and who gets the last move).
    pub advantage: f64,
    /// How far the stones around the centre are from symmetric (0: exactly),
    /// grown quadratically.
    pub center_error: f64,
    /// Moves in the game at the root.
    root_turns: usize,
    /// The centre point, on boards of odd width and height.
    center: Option<Point>,
    /// The stone on the centre at the root.
    root_center: Option<Color>,
    size: BoardSize,
}

/// The reflection of `mv` through the centre of the board (a pass stays a
/// pass).
pub fn mirror_of(size: BoardSize, mv: Move) -> Move {
    match mv {
        Move::Pass => Move::Pass,
        Move::Play(point) => {
            let (col, row) = size.col_row(point);
            Move::Play(
                size.point(size.width() - 1 - col, size.height() - 1 - row)
                    .expect("the reflection is on the board"),
            )
        }
    }
}

impl Mirror {
    /// Whether the opponent of the side to move in `game` has been
    /// mirroring: most of its moves, many of its recent ones and its last
    /// one reflect the move before.
    pub fn detect(game: &Game) -> Option<Mirror> {
        let size = game.size();
        let root = game.to_move();
        let moves = game.moves();
        let (mut count, mut total) = (0.0f64, 0.0f64);
        let (mut recent, mut recent_total) = (0.0f64, 0.0f64);
        let mut last_mirrors = false;
        for i in 1..moves.len() {
            if moves[i].0 == root {
                continue;
            }
            last_mirrors = moves[i].1 == mirror_of(size, moves[i - 1].1);
            if last_mirrors {
                count += 1.0;
                recent += 1.0;
            }
            total += 1.0;
            recent_total += 1.0;
            recent *= 0.75;
            recent_total *= 0.75;
        }
        if !(count >= 7.0 + 0.5 * total && recent >= 0.45 * recent_total && last_mirrors) {
            return None;
        }
        let mirroring = !root;
        let (width, height) = (size.width(), size.height());
        let handicap = game.handicap();
        let mut black_extra = 0.0;
        if game.rules().scoring == Scoring::Area {
            if handicap > 0 {
                black_extra += (handicap - 1) as f64;
            }
            let black_last =
                (width % 2 == 1 && height % 2 == 1) == (handicap == 0 || handicap % 2 == 1);
            if black_last {
                black_extra += 1.0;
            }
        }
        let komi = game.rules().komi;
        let advantage = if mirroring == Color::Black {
            black_extra - komi
        } else {
            komi - black_extra
        };
        let board = game.board();
        let mut center_error = 1e10;
        if width >= 7 && height >= 7 {
            center_error = 0.0;
            let mut unmatched = 0.0;
            let (half_x, half_y) = ((width / 2) as i64, (height / 2) as i64);
            for dy in -3..=3i64 {
                for dx in -3..=3i64 {
                    let point = size
                        .point((half_x + dx) as usize, (half_y + dy) as usize)
                        .expect("near the centre");
                    let Move::Play(reflected) = mirror_of(size, Move::Play(point)) else {
                        unreachable!("a point reflects to a point")
                    };
                    if reflected == point {
                        continue;
                    }
                    let (here, there) = (board.stone(point), board.stone(reflected));
                    if here == Some(!mirroring) && there != Some(mirroring) {
                        center_error += 1.0;
                    }
                    if here == Some(mirroring) && there.is_none() {
                        unmatched += 1.0;
                    }
                }
            }
            if center_error > 0.0 {
                center_error += 0.2 * unmatched;
            }
            if center_error >= 1.0 {
                center_error = 0.5 * center_error * (1.0 + center_error);
            }
        }
        let center = (width % 2 == 1 && height % 2 == 1)
            .then(|| size.point(width / 2, height / 2).expect("the centre"));
        Some(Mirror {
            mirroring,
            advantage,
            center_error,
            root_turns: game.turn_count(),
            center,
            root_center: center.and_then(|c| board.stone(c)),
            size,
        })
    }

    /// Whether the line from the root to `game` has kept mirroring: every
    /// reply of the mirroring side reflects the move before, leaving out
    /// the last `skip_recent` moves.
    pub fn holds(&self, game: &Game, skip_recent: usize) -> bool {
        let after: Vec<Move> = game
            .moves()
            .into_iter()
            .skip(self.root_turns)
            .map(|(_, mv)| mv)
            .collect();
        let mut i = 1;
        while i + skip_recent < after.len() {
            if after[i] != mirror_of(self.size, after[i - 1]) {
                return false;
            }
            i += 2;
        }
        true
    }

    /// The mirror reply to the last move of `game`, a pass when it is not
    /// legal; `None` after a pass or with no move.
    fn mirror_reply(&self, game: &Game) -> Option<Move> {
        let (_, last) = game.last_move()?;
        if last == Move::Pass {
            return None;
        }
        let reply = mirror_of(self.size, last);
        Some(if game.legal(reply).is_ok() {
            reply
        } else {
            Move::Pass
        })
    }

    fn distance_sq(&self, a: Point, b: Point) -> i64 {
        let (ax, ay) = self.size.col_row(a);
        let (bx, by) = self.size.col_row(b);
        let (dx, dy) = (ax as i64 - bx as i64, ay as i64 - by as i64);
        dx * dx + dy * dy
    }

    fn is_central(&self, point: Point, margin: usize) -> bool {
        let (col, row) = self.size.col_row(point);
        let (w, h) = (self.size.width(), self.size.height());
        col + margin >= (w - 1) / 2
            && col <= w / 2 + margin
            && row + margin >= (h - 1) / 2
            && row <= h / 2 + margin
    }

    /// Whether the centre holds a stone of the mirroring side and komi
    /// favours it: the hard case.
    fn difficult(&self, game: &Game) -> bool {
        self.center
            .is_some_and(|c| game.board().stone(c) == Some(self.mirroring))
            && self.advantage >= -0.5
    }

    /// The prior of `mv` by `mover` in `game`, raised towards 1 for the
    /// mirror reply (the mirroring side is expected to go on) and for
    /// the centre and the points next to it (the moves that break the
    /// mirror), less so deeper in the tree.
    pub fn prior(&self, prior: f32, mv: Move, mover: Color, game: &Game) -> f32 {
        let mut weight = 0.0f64;
        if mover == self.mirroring {
            let Some(reply) = self.mirror_reply(game) else {
                return prior;
            };
            if mv == reply {
                weight = if self.difficult(game) { 3.0 } else { 1.0 };
            }
        } else if let Move::Play(point) = mv {
            if self.is_central(point, 0) {
                weight = 0.3;
            } else {
                if self.is_central(point, 1) {
                    weight = 0.05;
                }
                if let Some(center) = self.center {
                    if self.root_center == Some(!mover) {
                        if game.board().stone(center).is_some()
                            && game.board().is_next_to_chain(point, center)
                        {
                            weight = 0.05;
                        } else {
                            let d = self.distance_sq(point, center);
                            if d <= 2 {
                                weight = 0.05;
                            } else if d <= 4 {
                                weight = 0.03;
                            }
                        }
                    }
                }
            }
        }
        if weight <= 0.0 {
            return prior;
        }
        let depth = game.turn_count().saturating_sub(self.root_turns) as f64;
        let weight = weight / (1.0 + depth.sqrt());
        prior + (1.0 - prior) * weight as f32
    }

    /// The value `q` of a child `mv` by `mover` in `game` (the mover's
    /// point of view; `parent` the parent's value) raised while the child
    /// has less than its share of the parent's weight: the mirror reply
    /// gets visits so that the moves it refutes look bad, and the centre
    /// and the moves around a centre stone get visits even when they look
    /// a little worse.
    #[allow(clippy::too_many_arguments)]
    pub fn forced_value(
        &self,
        q: f64,
        parent: f64,
        mv: Move,
        mover: Color,
        game: &Game,
        weight: f64,
        total_weight: f64,
        is_root: bool,
    ) -> f64 {
        let difficult = self.difficult(game);
        let damp = (1.0 - 0.7 * parent * parent).max(0.3);
        let mut q = q;
        if mover == self.mirroring {
            let Some(reply) = self.mirror_reply(game) else {
                return q;
            };
            if mv != reply {
                return q;
            }
            let (mut dump, mut bias) = if difficult {
                let mut dump = 0.20f64;
                if let (Move::Play(point), Some(center)) = (reply, self.center) {
                    let spread = 0.75 + 0.5 * (self.distance_sq(center, point) as f64).sqrt();
                    dump = dump.max(1.0 / spread / self.center_error.max(1.0));
                }
                (dump, 0.75)
            } else if self.advantage >= 5.0 {
                (0.15, 0.50)
            } else if self.advantage >= -5.0 {
                (0.10 + self.advantage, 0.30 + self.advantage * 4.0)
            } else {
                (0.05, 0.10)
            };
            if reply == Move::Pass {
                dump *= if self.center.map(Move::Play) == Some(mv) {
                    0.35
                } else {
                    0.35 / self.center_error.sqrt().max(1.0)
                };
            }
            if self.center_error >= 1.0 {
                dump /= self.center_error;
                bias /= self.center_error;
            }
            if weight < dump * total_weight {
                q += 100.0;
            }
            if weight < bias * total_weight {
                q += 0.18 * damp;
            }
            if weight < 0.5 * bias * total_weight {
                q += 0.36 * damp;
            }
            return q;
        }
        let Move::Play(point) = mv else {
            return q;
        };
        let mut dump = 0.0f64;
        if difficult {
            let center = self.center.expect("a centre in the hard case");
            let board = game.board();
            if board.is_next_to_chain(point, center) {
                let liberties = board.liberties(center).max(1) as f64;
                q += 0.75 / (1.0 + liberties) / self.center_error.max(1.0) * damp;
                dump = 0.10 / liberties;
            }
            let d = self.distance_sq(point, center);
            if d <= 2 {
                dump = dump.max(0.010);
            } else if d <= 4 {
                dump = dump.max(0.005);
            }
        }
        if self.center == Some(point) {
            dump = if is_root { 0.06 } else { 0.12 };
        }
        let loss = parent - q;
        if loss > 0.0 && loss * dump > 0.03 {
            dump += 0.5 * (0.03 / loss - dump);
        }
        if let (Some((_, Move::Play(previous))), Some(center)) = (game.last_move(), self.center) {
            let d = self.distance_sq(center, previous);
            if d <= 16 {
                dump *= 0.900;
            }
            if d <= 5 {
                dump *= 0.825;
            }
            if d <= 2 {
                dump *= 0.750;
            }
        }
        if weight < dump * total_weight {
            q += 100.0;
        }
        q
    }

    /// Whether a leaf's evaluation is to be re-valued by the centre: the
    /// hard case (the mirroring side holds the centre, komi favours it)
    /// while the line has mirrored (the last four moves aside).
    pub fn revalues(&self, game: &Game) -> bool {
        self.advantage >= -0.5
            && self
                .center
                .is_some_and(|c| game.board().stone(c) == Some(self.mirroring))
            && self.holds(game, 4)
    }

    /// The win and loss of the side to move re-valued by its ownership of
    /// the centre: the side that will own the centre is the side that
    /// broke the mirror.
    pub fn revalue(&self, win: f32, loss: f32, center_ownership: f32) -> (f32, f32) {
        let total = f64::from(win) + f64::from(loss);
        let scale = if self.center_error <= 0.0 { 0.7 } else { 0.3 };
        let wl =
            ((f64::from(win) - f64::from(loss)) / (total + 1e-10)).clamp(-1.0 + 1e-15, 1.0 - 1e-15);
        let wl = (wl.atanh() + scale * f64::from(center_ownership)).tanh();
        let new_win = total * (0.5 + 0.5 * wl);
        (new_win as f32, (total - new_win) as f32)
    }

    /// The centre point, if the board has one.
    pub fn center(&self) -> Option<Point> {
        self.center
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::Rules;

    /// 13×13: Black plays fourteen moves low on the board, White answers
    /// each with its reflection.
    fn mirrored_game() -> Game {
        let size = BoardSize::square(13).unwrap();
        let mut game = Game::new(size, Rules::preset("chinese").unwrap().with_komi(7.5));
        let black = [
            "C3", "D3", "E3", "F3", "H3", "J3", "K3", "L3", "C2", "E2", "G2", "J2", "L2", "G3",
        ];
        for vertex in black {
            let mv = size.parse_gtp(vertex).unwrap();
            game.play(mv).unwrap();
            game.play(mirror_of(size, mv)).unwrap();
        }
        game
    }

    #[test]
    fn a_mirroring_opponent_is_found() {
        let game = mirrored_game();
        let mirror = Mirror::detect(&game).expect("White mirrors");
        assert_eq!(mirror.mirroring, Color::White);
        // Area scoring, odd board, no handicap: Black gets the last move.
        assert_eq!(mirror.advantage, 7.5 - 1.0);
        assert_eq!(mirror.center_error, 0.0, "the stones are symmetric");
        assert!(mirror.holds(&game, 0));
        let center = mirror.center().unwrap();
        assert_eq!(game.size().gtp(Move::Play(center)), "G7");
        // The centre's prior is raised; a mirror reply's too, one ply down.
        assert!(mirror.prior(0.01, Move::Play(center), Color::Black, &game) > 0.25);
        let mut after = game.clone();
        let c3 = game.size().parse_gtp("D5").unwrap();
        after.play(c3).unwrap();
        let reply = mirror_of(game.size(), c3);
        assert!(mirror.prior(0.01, reply, Color::White, &after) > 0.4);
        assert_eq!(mirror.prior(0.01, Move::Pass, Color::White, &after), 0.01);
        // A reply that is not the mirror breaks it.
        after.play(game.size().parse_gtp("A1").unwrap()).unwrap();
        assert!(!mirror.holds(&after, 0));
    }

    #[test]
    fn no_mirror_no_detection() {
        let size = BoardSize::square(13).unwrap();
        let mut game = Game::new(size, Rules::default());
        for vertex in ["C3", "K11", "D4", "C11", "K3", "D10", "E3", "L10"] {
            game.play(size.parse_gtp(vertex).unwrap()).unwrap();
        }
        assert_eq!(Mirror::detect(&game), None);
        // Mirrored, but too few moves to be sure.
        let mut short = Game::new(size, Rules::default());
        for vertex in ["C3", "D3", "E3"] {
            let mv = size.parse_gtp(vertex).unwrap();
            short.play(mv).unwrap();
            short.play(mirror_of(size, mv)).unwrap();
        }
        assert_eq!(Mirror::detect(&short), None);
    }
}
