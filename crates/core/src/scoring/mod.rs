//! Counting a finished position under area or territory scoring, and
//! (`dead_stones.rs`) the Monte Carlo estimate of which stones are dead that
//! a count needs when the players have not agreed on them.

mod benson;
mod dead_stones;
mod nakade;
mod tax;

use std::fmt;

use crate::board::Board;
use crate::color::{ByColor, Color};
use crate::point::Point;
use crate::rules::{Rules, Scoring, Tax};

pub use benson::PassAlive;
pub use dead_stones::{
    all_alive, estimate_status, expected_lead, game_status, is_large_self_atari, settlement,
    ChainStatus, Settlement, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED,
};

/// The points of each side, komi included in White's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    /// Black's points.
    pub black: f64,
    /// White's points, komi included.
    pub white: f64,
}

impl Score {
    /// Black's points minus White's.
    pub fn margin(&self) -> f64 {
        self.black - self.white
    }

    /// The side ahead, or `None` for a draw.
    pub fn winner(&self) -> Option<Color> {
        winner_by_margin(self.margin())
    }
}

/// The side ahead by `margin`, Black's points minus White's (komi
/// included): `None` for a draw.
pub fn winner_by_margin(margin: f64) -> Option<Color> {
    if margin > 0.0 {
        Some(Color::Black)
    } else if margin < 0.0 {
        Some(Color::White)
    } else {
        None
    }
}

/// How a game ended, written as GTP's `final_score` and SGF's `RE` do:
/// `B+3.5`, `W+R`, `0` for a draw, and `B+` or `W+` for a NoGo game won
/// because the opponent could not move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Outcome {
    /// One side resigned; the other won.
    Resignation {
        /// The side that did not resign.
        winner: Color,
    },
    /// NoGo: the side to move had no legal move and lost. Written `B+` or
    /// `W+`: SGF's `RE` allows a winner without a score ("Score is optional
    /// (some games don't have a score e.g. chess)"), and this keeps such a
    /// win apart from a resignation (`B+R`), which a NoGo player may still
    /// make while it has moves.
    NoLegalMove {
        /// The side that could still move (the one that did not have to).
        winner: Color,
    },
    /// The position was counted.
    Counted(Score),
}

impl Outcome {
    /// The winner, `None` for a draw.
    pub fn winner(&self) -> Option<Color> {
        match self {
            Outcome::Resignation { winner } | Outcome::NoLegalMove { winner } => Some(*winner),
            Outcome::Counted(score) => score.winner(),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Resignation { winner } => write!(f, "{}+R", winner.letter()),
            Outcome::NoLegalMove { winner } => write!(f, "{}+", winner.letter()),
            Outcome::Counted(score) => {
                let margin = score.margin();
                match score.winner() {
                    None => write!(f, "0"),
                    Some(winner) => write!(f, "{}+{}", winner.letter(), margin.abs()),
                }
            }
        }
    }
}

/// What each empty point and stone counts as, after dead stones are removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ownership {
    /// Per point, in [`crate::BoardSize::points`] order: the colour it counts
    /// for under area scoring (a live stone, or empty and reaching only that
    /// colour), `None` for neutral points.
    pub owner: Vec<Option<Color>>,
    /// Stones on the board after dead stones are removed.
    pub stones: ByColor<u32>,
    /// Empty points (dead stones' points included) reaching only one colour.
    pub territory: ByColor<u32>,
    /// Dead stones of each colour, which the opponent takes as prisoners.
    pub dead: ByColor<u32>,
}

/// Works out who owns each point when the stones at the points in `dead` are
/// removed. An empty region belongs to a colour when every stone it touches is
/// of that colour (Tromp-Taylor's "reaches only"); a region touching no stone at
/// all belongs to nobody.
pub fn ownership(board: &Board, dead: &[Point]) -> Ownership {
    let size = board.size();
    let cells = size.cells();
    // 0 empty, 1 black, 2 white, 3 off board.
    let mut grid = vec![3u8; cells];
    let mut result = Ownership {
        owner: Vec::with_capacity(size.points_count()),
        stones: ByColor::default(),
        territory: ByColor::default(),
        dead: ByColor::default(),
    };
    for point in size.points() {
        grid[point.index()] = match board.stone(point) {
            Some(color) => color.index() as u8 + 1,
            None => 0,
        };
    }
    for &point in dead {
        if !size.contains(point) {
            continue;
        }
        if let Some(color) = board.stone(point) {
            if grid[point.index()] != 0 {
                grid[point.index()] = 0;
                result.dead[color] += 1;
            }
        }
    }
    let region_owner = tax::reaches(&grid, size.stride());
    for point in size.points() {
        let i = point.index();
        let owner = match grid[i] {
            1 => {
                result.stones.black += 1;
                Some(Color::Black)
            }
            2 => {
                result.stones.white += 1;
                Some(Color::White)
            }
            _ => match region_owner[i] {
                1 => {
                    result.territory.black += 1;
                    Some(Color::Black)
                }
                2 => {
                    result.territory.white += 1;
                    Some(Color::White)
                }
                _ => None,
            },
        };
        result.owner.push(owner);
    }
    result
}

/// Counts `board` under `rules`, with the stones at `dead` removed first.
///
/// Area scoring: live stones plus empty points reaching only one colour.
/// Territory scoring: empty points reaching only one colour plus prisoners
/// (stones captured during the game and dead stones). Under a tax
/// ([`Tax`]) the territory of groups in seki is not counted, and under the
/// full tax each group living on its own gives up two points (see
/// `tax.rs` for how seki is found). Komi goes to White; the points a game's
/// history adds (the button, the handicap bonus) are [`crate::Game::score`]'s.
pub fn score(board: &Board, rules: &Rules, dead: &[Point]) -> Score {
    let own = ownership(board, dead);
    let (black, white) = match rules.scoring {
        Scoring::Area => (
            own.stones.black + own.territory.black,
            own.stones.white + own.territory.white,
        ),
        Scoring::Territory => {
            let captures = board.captures();
            (
                own.territory.black + captures.black + own.dead.white,
                own.territory.white + captures.white + own.dead.black,
            )
        }
    };
    let (mut black, mut white) = (i64::from(black), i64::from(white));
    if rules.tax != Tax::None {
        let taxed = tax::taxed(board, dead);
        black -= i64::from(taxed.seki_territory.black);
        white -= i64::from(taxed.seki_territory.white);
        if rules.tax == Tax::All {
            black -= 2 * i64::from(taxed.groups.black);
            white -= 2 * i64::from(taxed.groups.white);
        }
    }
    Score {
        black: black as f64,
        white: white as f64 + rules.komi,
    }
}
