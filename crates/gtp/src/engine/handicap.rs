//! The handicap commands (`fixed_handicap`, `place_free_handicap`,
//! `set_free_handicap`), and where the engine puts Black's stones when
//! `place_free_handicap` lets it choose.

use tengen_core::{
    fixed_handicap_points, max_fixed_handicap, Board, BoardSize, Color, Game, Move, Point,
};

use super::args::parse_integer;
use super::error::CommandResult;
use super::{CommandError, Engine};

impl Engine {
    /// `fixed_handicap n`: the specification's placement.
    pub(super) fn fixed_handicap(&mut self, args: &[&str]) -> CommandResult {
        let stones = self.handicap_count(args)?;
        let size = self.game.size();
        let points =
            fixed_handicap_points(size, stones).ok_or(CommandError::InvalidNumberOfStones)?;
        self.install_handicap(&points)
    }

    /// `place_free_handicap n`: the engine's own placement
    /// ([`free_handicap_points`]).
    pub(super) fn place_free_handicap(&mut self, args: &[&str]) -> CommandResult {
        let stones = self.handicap_count(args)?;
        let size = self.game.size();
        if stones >= size.points_count() {
            return Err(CommandError::InvalidNumberOfStones);
        }
        let points = free_handicap_points(size, stones);
        if points.len() < 2 {
            return Err(CommandError::InvalidNumberOfStones);
        }
        self.install_handicap(&points)
    }

    /// `set_free_handicap vertex...`: the controller's placement.
    pub(super) fn set_free_handicap(&mut self, args: &[&str]) -> CommandResult {
        if args.is_empty() {
            return Err(CommandError::Syntax);
        }
        if !self.board_is_empty() {
            return Err(CommandError::BoardNotEmpty);
        }
        let size = self.game.size();
        let mut points: Vec<Point> = Vec::with_capacity(args.len());
        for vertex in args {
            match size.parse_gtp(vertex) {
                Ok(Move::Play(point)) if !points.contains(&point) => points.push(point),
                _ => return Err(CommandError::BadVertexList),
            }
        }
        if points.len() < 2 {
            return Err(CommandError::BadVertexList);
        }
        let game = Game::with_free_handicap(size, *self.game.rules(), &points)
            .map_err(|_| CommandError::BadVertexList)?;
        self.new_game(game);
        Ok(String::new())
    }

    /// The stone count of a handicap command, after checking the board is
    /// empty (the specification's order: a non-empty board is refused first).
    fn handicap_count(&self, args: &[&str]) -> Result<usize, CommandError> {
        let [count] = args else {
            return Err(CommandError::Syntax);
        };
        let count = parse_integer(count).ok_or(CommandError::Syntax)?;
        if !self.board_is_empty() {
            return Err(CommandError::BoardNotEmpty);
        }
        usize::try_from(count)
            .ok()
            .filter(|&n| n >= 2)
            .ok_or(CommandError::InvalidNumberOfStones)
    }

    /// Whether the game has neither stones nor moves, nor a finished game
    /// behind it that `undo` could return to.
    fn board_is_empty(&self) -> bool {
        self.game.board().empty_count() == self.game.size().points_count()
            && self.game.turn_count() == 0
            && self.resumed_from.is_empty()
    }

    /// Starts a game with Black's stones at `points`, answering their vertices
    /// in placement order.
    fn install_handicap(&mut self, points: &[Point]) -> CommandResult {
        let size = self.game.size();
        let game = Game::with_free_handicap(size, *self.game.rules(), points)
            .map_err(|_| CommandError::InvalidNumberOfStones)?;
        let vertices: Vec<String> = points.iter().map(|&p| size.gtp(Move::Play(p))).collect();
        self.new_game(game);
        Ok(vertices.join(" "))
    }
}

/// Up to `stones` points for a free handicap on an empty board of `size`.
///
/// The GTP fixed placement is used when the board allows that many stones.
/// Otherwise the largest fixed placement (if any) is extended greedily: each
/// further stone goes on the candidate point farthest from the stones already
/// placed (ties go to the larger sum of squared distances to all of them, then
/// to the point farthest from the edge, then the lowest), so
/// the stones spread evenly. Candidates are the points on or inside the
/// handicap line (the fourth line from 13×13 up, the third from 7×7, the
/// second below) while any are left, then all points. Points where a stone would have no
/// liberty are skipped, so fewer stones may come back on tiny boards.
pub fn free_handicap_points(size: BoardSize, stones: usize) -> Vec<Point> {
    if let Some(points) = fixed_handicap_points(size, stones) {
        return points;
    }
    let mut board = Board::new(size);
    let mut placed = Vec::new();
    let max_fixed = max_fixed_handicap(size);
    if max_fixed >= 2 && stones > max_fixed {
        for point in fixed_handicap_points(size, max_fixed).unwrap_or_default() {
            if board.place_setup_stone(point, Color::Black).is_ok() {
                placed.push(point);
            }
        }
    }
    let (width, height) = (size.width(), size.height());
    let edge_distance = |point: Point| {
        let (col, row) = size.col_row(point);
        col.min(row).min(width - 1 - col).min(height - 1 - row)
    };
    let side = width.min(height);
    let inner_line = match side {
        13.. => 3,
        7..=12 => 2,
        3..=6 => 1,
        _ => 0,
    };
    // Squared distance from each point to the nearest placed stone.
    let mut nearest: Vec<(Point, usize)> = size.points().map(|p| (p, usize::MAX)).collect();
    // Sum of squared distances from each point to all placed stones.
    let mut total = vec![0usize; size.cells()];
    let distance2 = |a: Point, b: Point| {
        let ((ac, ar), (bc, br)) = (size.col_row(a), size.col_row(b));
        ac.abs_diff(bc).pow(2) + ar.abs_diff(br).pow(2)
    };
    for &stone in &placed {
        for (point, best) in nearest.iter_mut() {
            *best = (*best).min(distance2(*point, stone));
            total[point.index()] += distance2(*point, stone);
        }
    }
    while placed.len() < stones {
        let pick = |inner_only: bool| {
            nearest
                .iter()
                .filter(|(p, d)| *d > 0 && (!inner_only || edge_distance(*p) >= inner_line))
                .max_by(|(pa, da), (pb, db)| {
                    da.cmp(db)
                        .then(total[pa.index()].cmp(&total[pb.index()]))
                        .then(edge_distance(*pa).cmp(&edge_distance(*pb)))
                        .then(pb.cmp(pa))
                })
                .map(|(p, _)| *p)
        };
        let candidate = pick(true);
        let Some(point) = candidate.or_else(|| pick(false)) else {
            break;
        };
        if board.place_setup_stone(point, Color::Black).is_ok() {
            placed.push(point);
            for (other, best) in nearest.iter_mut() {
                *best = (*best).min(distance2(*other, point));
                total[other.index()] += distance2(*other, point);
            }
        } else if let Some(entry) = nearest.iter_mut().find(|(p, _)| *p == point) {
            // Never try this point again.
            entry.1 = 0;
        }
    }
    placed
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(side: usize, stones: usize) -> String {
        let size = BoardSize::square(side).unwrap();
        free_handicap_points(size, stones)
            .into_iter()
            .map(|p| size.gtp(Move::Play(p)))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn fixed_when_possible_spread_otherwise() {
        assert_eq!(names(19, 4), "D4 Q16 D16 Q4");
        let twelve = names(19, 12);
        assert!(twelve.starts_with("D4 Q16 D16 Q4 D10 Q10 K4 K16 K10 "));
        assert_eq!(twelve.split(' ').count(), 12);
        assert_eq!(names(5, 2).split(' ').count(), 2);
        // A 2x2 board takes three stones at most (one liberty must remain).
        assert_eq!(names(2, 3).split(' ').count(), 3);
        let size = BoardSize::square(9).unwrap();
        let points = free_handicap_points(size, 80);
        assert_eq!(points.len(), 80);
    }
}
