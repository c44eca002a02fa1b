//! Benson's algorithm: the chains that can never be captured, even if their
//! owner passes at every turn ("pass-alive"), and the regions they make
//! safe.
//!
//! For one colour, a *region* is a maximal 4-connected set of points that are
//! not stones of that colour (empty points and enemy stones). A region is
//! *vital* to a chain of the colour when every empty point of the region is a
//! liberty of the chain: the enemy can never fill such a region's last empty
//! point without committing suicide while the chain still has another
//! liberty elsewhere. Starting from every chain and every region, the
//! algorithm repeatedly drops chains with fewer than two vital regions among
//! those left, and regions that touch a dropped chain, until nothing
//! changes. What is left is unconditionally alive (D. B. Benson, "Life in
//! the game of Go", Information Sciences 10, 1976).
//!
//! A region left over that is vital to one of the living chains is safe
//! territory: every empty point of it touches a chain that cannot be
//! captured, so the enemy can never make an eye there, and the enemy stones
//! inside it are dead whatever either side does.

use crate::board::Board;
use crate::color::Color;
use crate::point::Point;

/// The result of Benson's algorithm for both colours.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassAlive {
    /// Per padded-board cell: whether a pass-alive stone is there.
    alive: Vec<bool>,
    /// Per padded-board cell: the colour whose safe territory the point is
    /// in (empty points and dead enemy stones).
    territory: Vec<Option<Color>>,
}

impl PassAlive {
    /// Runs Benson's algorithm on `board` for both colours.
    pub fn of(board: &Board) -> PassAlive {
        let cells = board.size().cells();
        let mut result = PassAlive {
            alive: vec![false; cells],
            territory: vec![None; cells],
        };
        for color in [Color::Black, Color::White] {
            result.mark(board, color);
        }
        result
    }

    /// Whether the stone at `point` belongs to a pass-alive chain.
    pub fn is_alive(&self, point: Point) -> bool {
        self.alive[point.index()]
    }

    /// The colour whose safe territory `point` lies in, if any.
    pub fn territory(&self, point: Point) -> Option<Color> {
        self.territory[point.index()]
    }

    /// Whether the stone at `point` is dead for certain: an enemy stone inside
    /// safe territory.
    pub fn is_dead(&self, board: &Board, point: Point) -> bool {
        match (board.stone(point), self.territory(point)) {
            (Some(stone), Some(owner)) => stone != owner,
            _ => false,
        }
    }

    /// Runs the algorithm for `color` and records its pass-alive stones and
    /// safe territory.
    fn mark(&mut self, board: &Board, color: Color) {
        let (chain_of, chain_count) = number_chains(board, color);
        if chain_count == 0 {
            return;
        }
        let regions = find_regions(board, color, &chain_of);
        let (chain_left, region_left) = drop_until_stable(&regions, chain_count);
        self.record(board, color, &chain_of, &chain_left, &regions, &region_left);
    }

    /// Marks the stones of the chains left as alive and the points of the
    /// regions left that are vital to one of them as `color`'s territory.
    fn record(
        &mut self,
        board: &Board,
        color: Color,
        chain_of: &[usize],
        chain_left: &[bool],
        regions: &[Region],
        region_left: &[bool],
    ) {
        for point in board.size().points() {
            let chain = chain_of[point.index()];
            if chain != usize::MAX && chain_left[chain] {
                self.alive[point.index()] = true;
            }
        }
        for (region, &left) in regions.iter().zip(region_left) {
            let safe = left && region.vital_to.iter().any(|&chain| chain_left[chain]);
            if safe {
                for &point in &region.points {
                    self.territory[point.index()] = Some(color);
                }
            }
        }
    }
}

/// Numbers the chains of `color` in the order their first stone is met:
/// per padded-board cell the chain's number (`usize::MAX` where no stone of
/// `color` is), and how many chains there are.
fn number_chains(board: &Board, color: Color) -> (Vec<usize>, usize) {
    let size = board.size();
    let cells = size.cells();
    let mut chain_of = vec![usize::MAX; cells];
    let mut id_of_head = vec![usize::MAX; cells];
    let mut chain_count = 0;
    for point in size.points() {
        if board.stone(point) != Some(color) {
            continue;
        }
        let Some(head) = board.chain_head(point) else {
            continue;
        };
        if id_of_head[head.index()] == usize::MAX {
            id_of_head[head.index()] = chain_count;
            chain_count += 1;
        }
        chain_of[point.index()] = id_of_head[head.index()];
    }
    (chain_of, chain_count)
}

/// The regions for `color`, found by flood fill over the points that are not
/// `color` stones, in the order of their first point, each with the chains
/// it borders and is vital to.
fn find_regions(board: &Board, color: Color, chain_of: &[usize]) -> Vec<Region> {
    let size = board.size();
    let mut region_of = vec![usize::MAX; size.cells()];
    let mut regions: Vec<Region> = Vec::new();
    let mut stack = Vec::new();
    for start in size.points() {
        if board.stone(start) == Some(color) || region_of[start.index()] != usize::MAX {
            continue;
        }
        let id = regions.len();
        region_of[start.index()] = id;
        stack.push(start);
        let mut region = flood_region(board, color, chain_of, id, &mut region_of, &mut stack);
        region.find_vital();
        regions.push(region);
    }
    regions
}

/// Fills region `id` from the points on `stack`, numbering the points it
/// reaches in `region_of`, and notes the chains beside each point.
fn flood_region(
    board: &Board,
    color: Color,
    chain_of: &[usize],
    id: usize,
    region_of: &mut [usize],
    stack: &mut Vec<Point>,
) -> Region {
    let mut region = Region::default();
    while let Some(point) = stack.pop() {
        region.points.push(point);
        let empty = board.is_empty_at(point);
        if empty {
            region.empty += 1;
        }
        let mut touching: [usize; 4] = [usize::MAX; 4];
        let mut count = 0;
        for n in board.on_board_neighbors(point) {
            if board.stone(n) == Some(color) {
                let chain = chain_of[n.index()];
                if !touching[..count].contains(&chain) {
                    touching[count] = chain;
                    count += 1;
                }
            } else if region_of[n.index()] == usize::MAX {
                region_of[n.index()] = id;
                stack.push(n);
            }
        }
        for &chain in &touching[..count] {
            if !region.borders.contains(&chain) {
                region.borders.push(chain);
            }
            if empty {
                region.chains_beside_empty.push(chain);
            }
        }
    }
    region
}

/// Repeatedly drops the chains with fewer than two vital regions among
/// those left, and the regions touching a dropped chain, until nothing
/// changes. Returns which chains and which regions are left.
fn drop_until_stable(regions: &[Region], chain_count: usize) -> (Vec<bool>, Vec<bool>) {
    let mut chain_left = vec![true; chain_count];
    let mut region_left = vec![true; regions.len()];
    loop {
        let mut changed = false;
        // Chains with fewer than two vital regions among those left go.
        for (chain, left) in chain_left.iter_mut().enumerate() {
            if !*left {
                continue;
            }
            let vital = regions
                .iter()
                .zip(&region_left)
                .filter(|(region, &region_is_left)| {
                    region_is_left && region.vital_to.contains(&chain)
                })
                .count();
            if vital < 2 {
                *left = false;
                changed = true;
            }
        }
        // Regions touching a chain that went go too.
        for (region, left) in regions.iter().zip(region_left.iter_mut()) {
            if *left && region.borders.iter().any(|&chain| !chain_left[chain]) {
                *left = false;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    (chain_left, region_left)
}

/// One region while the algorithm runs.
#[derive(Default)]
struct Region {
    points: Vec<Point>,
    /// Empty points in the region.
    empty: usize,
    /// The chains of the colour next to the region.
    borders: Vec<usize>,
    /// For each empty point of the region, each chain beside it, once: a
    /// chain listed as often as the region has empty points has them all as
    /// liberties.
    chains_beside_empty: Vec<usize>,
    /// The chains the region is vital to.
    vital_to: Vec<usize>,
}

impl Region {
    /// Fills in `vital_to`: the bordering chains that have every empty point
    /// of the region as a liberty.
    fn find_vital(&mut self) {
        for &chain in &self.borders {
            let liberties = self
                .chains_beside_empty
                .iter()
                .filter(|&&c| c == chain)
                .count();
            if liberties == self.empty {
                self.vital_to.push(chain);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::point::Move;

    fn at(board: &Board, vertex: &str) -> Point {
        match board.size().parse_gtp(vertex).unwrap() {
            Move::Play(point) => point,
            Move::Pass => unreachable!(),
        }
    }

    #[test]
    fn two_single_point_eyes_make_a_chain_pass_alive() {
        let board = Board::from_ascii(
            "
            . . . . .
            . . . . .
            o o o o o
            . o . o .
            ",
        )
        .unwrap();
        let alive = PassAlive::of(&board);
        assert!(alive.is_alive(at(&board, "B1")));
        assert_eq!(alive.territory(at(&board, "A1")), Some(Color::White));
        assert_eq!(alive.territory(at(&board, "C1")), Some(Color::White));
        // The open area above is not vital: not every point touches the chain.
        assert_eq!(alive.territory(at(&board, "A3")), None);
    }

    #[test]
    fn one_eye_is_not_enough() {
        let board = Board::from_ascii(
            "
            . . . . .
            . . . . .
            o o o o o
            . o o o o
            ",
        )
        .unwrap();
        let alive = PassAlive::of(&board);
        assert!(!alive.is_alive(at(&board, "B1")));
        assert_eq!(alive.territory(at(&board, "A1")), None);
    }

    /// An enemy stone inside a region vital to a pass-alive chain is dead.
    #[test]
    fn enemy_stones_in_safe_territory_are_dead() {
        let board = Board::from_ascii(
            "
            . . . . .
            x x x x x
            o . x . x
            ",
        )
        .unwrap();
        let alive = PassAlive::of(&board);
        assert!(alive.is_alive(at(&board, "A2")));
        assert!(alive.is_alive(at(&board, "C1")));
        assert!(alive.is_dead(&board, at(&board, "A1")));
        assert_eq!(alive.territory(at(&board, "B1")), Some(Color::Black));
        assert!(!alive.is_dead(&board, at(&board, "A2")));
    }

    #[test]
    fn an_empty_board_has_nothing_alive() {
        let board = Board::from_ascii(". . .\n. . .\n. . .").unwrap();
        let alive = PassAlive::of(&board);
        assert!(board
            .size()
            .points()
            .all(|p| !alive.is_alive(p) && alive.territory(p).is_none()));
    }
}
