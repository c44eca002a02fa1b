//! The consistency check: every piece of incremental state rebuilt from the
//! stones alone and compared with what a board keeps.
//!
//! [`Recount`] is the from-scratch half, written once for both boards. It
//! reads nothing but the cell values, finds the chains by flood fill and
//! counts their stones, liberties and pseudo-liberties, the empty points,
//! the packed neighbour counts, the stones of each colour and the hash.
//! [`Board::check_consistency`] and
//! [`PlayoutBoard::check_consistency`](crate::PlayoutBoard::check_consistency)
//! each compare their own incremental fields with it, so the two boards are
//! held to the same recount however differently they keep their state.

use std::fmt;
use std::ops::Range;

use super::{Board, BLACK, EMPTY, NEIGHBOR_UNIT, WALL, WHITE};
use crate::color::ByColor;
use crate::point::{BoardSize, Point};
use crate::zobrist::STONE_KEYS;

/// The first difference a consistency check found between a board's
/// incremental state and a recount from its stones.
///
/// Points are cells of the padded array (see [`Point::index`]), printed as
/// their index; a chain is named by its first stone in board order.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConsistencyError {
    /// A cell holds a value that does not belong there: a wall on the
    /// board, a stone or an empty point off it, or no cell value at all.
    Cell {
        /// The cell.
        cell: Point,
        /// The value it holds (0 empty, 1 black, 2 white, 3 wall).
        value: u8,
        /// Whether the cell is on the board.
        on_board: bool,
    },
    /// A cell without a stone is linked to a chain.
    StrayChainLink {
        /// The cell.
        cell: Point,
        /// The chain head (or id) it names.
        head: Point,
    },
    /// A cell that heads no chain holds a chain record (a
    /// [`crate::PlayoutBoard`] keeps records only at chain ids).
    StrayChainRecord {
        /// The cell.
        cell: Point,
        /// The stone count of the record.
        stones: usize,
        /// The pseudo-liberty count of the record.
        pseudo_liberties: usize,
    },
    /// A stone's chain head (or id) is not a stone of its colour heading
    /// its own chain.
    ChainHead {
        /// The first stone of the chain.
        stone: Point,
        /// The head it names.
        head: Point,
    },
    /// Two stones of one chain, as the flood fill finds it, name different
    /// heads.
    SplitChain {
        /// The first stone of the chain.
        stone: Point,
        /// A stone of the same chain with another head.
        other: Point,
    },
    /// A chain has no liberty: it should have been captured.
    NoLiberties {
        /// The chain.
        chain: Point,
    },
    /// The exact liberty count kept for a chain differs from the recount.
    Liberties {
        /// The chain.
        chain: Point,
        /// The count the board keeps.
        stored: usize,
        /// The count from the stones.
        counted: usize,
    },
    /// The pseudo-liberty count kept for a chain differs from the recount.
    PseudoLiberties {
        /// The chain.
        chain: Point,
        /// The count the board keeps.
        stored: usize,
        /// The count from the stones.
        counted: usize,
    },
    /// The length kept for a chain differs from its number of stones.
    ChainLength {
        /// The chain.
        chain: Point,
        /// The length the board keeps.
        stored: usize,
        /// The stones counted.
        counted: usize,
    },
    /// The board's atari test disagrees with the liberties counted.
    Atari {
        /// The chain.
        chain: Point,
        /// What the atari test says.
        in_atari: bool,
        /// The liberties counted.
        liberties: usize,
    },
    /// A chain's circular list does not hold exactly the chain's stones.
    ChainList {
        /// The chain.
        chain: Point,
    },
    /// The empty-point list is longer or shorter than the number of empty
    /// points.
    EmptyCount {
        /// The empty points on the board.
        counted: usize,
        /// The length of the list.
        listed: usize,
    },
    /// An empty point is missing from the empty-point list, or its index
    /// there is wrong.
    EmptyList {
        /// The point.
        point: Point,
    },
    /// The packed neighbour counts kept for a point differ from the recount.
    NeighborCounts {
        /// The point.
        point: Point,
        /// The packed counts the board keeps.
        stored: u16,
        /// The packed counts from the stones.
        counted: u16,
    },
    /// The incremental Zobrist hash differs from the hash of the stones.
    Hash {
        /// The hash the board keeps.
        stored: u64,
        /// The hash of the stones.
        counted: u64,
    },
    /// Black's stones minus White's differ from the balance kept.
    StoneBalance {
        /// The balance the board keeps.
        stored: i32,
        /// The balance of the stones.
        counted: i32,
    },
    /// The ko point and the colour it bars are not set together.
    Ko {
        /// The ko point, if one is set.
        ko: Option<Point>,
        /// The barred colour as a cell value (0 none, 1 black, 2 white).
        barred: u8,
    },
    /// The ko point holds a stone.
    KoOccupied {
        /// The ko point.
        ko: Point,
    },
}

impl fmt::Display for ConsistencyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ConsistencyError::*;
        match *self {
            Cell {
                cell,
                value,
                on_board,
            } => {
                let place = if on_board { "on" } else { "off" };
                write!(
                    f,
                    "cell {} holds {value}, which does not belong {place} the board",
                    cell.index()
                )
            }
            StrayChainLink { cell, head } => write!(
                f,
                "cell {} holds no stone but is linked to the chain at {}",
                cell.index(),
                head.index()
            ),
            StrayChainRecord {
                cell,
                stones,
                pseudo_liberties,
            } => write!(
                f,
                "cell {} heads no chain but holds a record of {stones} stones and \
                 {pseudo_liberties} pseudo-liberties",
                cell.index()
            ),
            ChainHead { stone, head } => write!(
                f,
                "stone {} has chain head {}, which heads no chain of its colour",
                stone.index(),
                head.index()
            ),
            SplitChain { stone, other } => write!(
                f,
                "stones {} and {} are one chain with different heads",
                stone.index(),
                other.index()
            ),
            NoLiberties { chain } => write!(f, "chain at {} has no liberties", chain.index()),
            Liberties {
                chain,
                stored,
                counted,
            } => write!(
                f,
                "chain at {}: {stored} liberties stored, {counted} counted",
                chain.index()
            ),
            PseudoLiberties {
                chain,
                stored,
                counted,
            } => write!(
                f,
                "chain at {}: {stored} pseudo-liberties stored, {counted} counted",
                chain.index()
            ),
            ChainLength {
                chain,
                stored,
                counted,
            } => write!(
                f,
                "chain at {}: length {stored} stored, {counted} counted",
                chain.index()
            ),
            Atari {
                chain,
                in_atari,
                liberties,
            } => write!(
                f,
                "chain at {}: the atari test says {in_atari}, {liberties} liberties counted",
                chain.index()
            ),
            ChainList { chain } => write!(
                f,
                "chain list at {} does not match the flood fill",
                chain.index()
            ),
            EmptyCount { counted, listed } => {
                write!(f, "{counted} empty points, the list holds {listed}")
            }
            EmptyList { point } => write!(
                f,
                "empty point {} missing from the empty list",
                point.index()
            ),
            NeighborCounts {
                point,
                stored,
                counted,
            } => write!(
                f,
                "cell {}: neighbour counts {stored:03x} stored, {counted:03x} counted",
                point.index()
            ),
            Hash { stored, counted } => {
                write!(f, "hash {stored:016x}, recomputed {counted:016x}")
            }
            StoneBalance { stored, counted } => {
                write!(f, "stone balance {stored} kept, {counted} counted")
            }
            Ko { ko, barred } => write!(
                f,
                "ko point {} barred for cell value {barred}",
                ko.map_or(0, Point::index)
            ),
            KoOccupied { ko } => write!(f, "ko point {} is not empty", ko.index()),
        }
    }
}

impl std::error::Error for ConsistencyError {}

/// The point at cell `index`, for naming it in an error.
fn cell(index: usize) -> Point {
    Point(index as u16)
}

/// One chain as the flood fill found it.
pub(crate) struct RecountedChain {
    /// `BLACK` or `WHITE`.
    pub(crate) color: u8,
    /// Where its stones lie in [`Recount::stones`].
    stones: Range<usize>,
    /// Distinct empty points next to it.
    pub(crate) liberties: usize,
    /// (Stone, empty neighbour) pairs.
    pub(crate) pseudo_liberties: usize,
}

/// What a board's stones alone say its incremental state should be: the
/// from-scratch half of both boards' consistency checks.
pub(crate) struct Recount {
    /// The cell values read, one per cell of the padded array.
    cells: Vec<u8>,
    /// The row length of the padded array.
    stride: usize,
    /// Every chain's stones, chain after chain, each chain's in board order.
    stones: Vec<usize>,
    /// The chains, in the order of their first stone.
    chains: Vec<RecountedChain>,
    /// The empty points, in board order.
    empties: Vec<usize>,
    /// Stones of each colour.
    stone_counts: ByColor<u32>,
    /// The Zobrist hash of the stones.
    hash: u64,
}

impl Recount {
    /// Reads the value of every cell of a board of `size` through `cell`
    /// and recounts. Fails on a cell value that does not belong where it
    /// is, and on a chain without liberties: no later comparison would
    /// mean anything.
    pub(crate) fn new(
        size: BoardSize,
        cell_value: impl Fn(usize) -> u8,
    ) -> Result<Recount, ConsistencyError> {
        let count = size.cells();
        let mut cells = Vec::with_capacity(count);
        for i in 0..count {
            let value = cell_value(i);
            let on_board = size.contains(cell(i));
            if on_board == (value == WALL) || value > WALL {
                return Err(ConsistencyError::Cell {
                    cell: cell(i),
                    value,
                    on_board,
                });
            }
            cells.push(value);
        }
        let mut recount = Recount {
            cells,
            stride: size.stride(),
            stones: Vec::new(),
            chains: Vec::new(),
            empties: Vec::new(),
            stone_counts: ByColor::default(),
            hash: 0,
        };
        const NONE: usize = usize::MAX;
        // The chain each stone belongs to, and the last chain that counted
        // each empty point as a liberty (so that none counts one twice).
        let mut chain_of = vec![NONE; count];
        let mut counted_by = vec![NONE; count];
        let mut stack = Vec::new();
        for point in size.points() {
            let s = point.index();
            let color = recount.cells[s];
            match color {
                EMPTY => {
                    recount.empties.push(s);
                    continue;
                }
                BLACK => {
                    recount.stone_counts.black += 1;
                    recount.hash ^= STONE_KEYS[0][s];
                }
                _ => {
                    recount.stone_counts.white += 1;
                    recount.hash ^= STONE_KEYS[1][s];
                }
            }
            if chain_of[s] != NONE {
                continue;
            }
            let index = recount.chains.len();
            let first = recount.stones.len();
            let (mut liberties, mut pseudo_liberties) = (0, 0);
            chain_of[s] = index;
            stack.push(s);
            while let Some(c) = stack.pop() {
                recount.stones.push(c);
                for n in recount.neighbor_cells(c) {
                    let value = recount.cells[n];
                    if value == EMPTY {
                        pseudo_liberties += 1;
                        if counted_by[n] != index {
                            counted_by[n] = index;
                            liberties += 1;
                        }
                    } else if value == color && chain_of[n] == NONE {
                        chain_of[n] = index;
                        stack.push(n);
                    }
                }
            }
            recount.stones[first..].sort_unstable();
            if liberties == 0 {
                return Err(ConsistencyError::NoLiberties { chain: point });
            }
            recount.chains.push(RecountedChain {
                color,
                stones: first..recount.stones.len(),
                liberties,
                pseudo_liberties,
            });
        }
        Ok(recount)
    }

    /// The four neighbours of on-board cell `p`.
    fn neighbor_cells(&self, p: usize) -> [usize; 4] {
        let s = self.stride;
        [p - s, p - 1, p + 1, p + s]
    }

    /// The chains, in the order of their first stone.
    pub(crate) fn chains(&self) -> &[RecountedChain] {
        &self.chains
    }

    /// The stones of `chain`, in board order (so the first is the one that
    /// names the chain in errors).
    pub(crate) fn stones(&self, chain: &RecountedChain) -> &[usize] {
        &self.stones[chain.stones.clone()]
    }

    /// Stones of each colour.
    pub(crate) fn stone_counts(&self) -> ByColor<u32> {
        self.stone_counts
    }

    /// The Zobrist hash of the stones.
    pub(crate) fn hash(&self) -> u64 {
        self.hash
    }

    /// Checks that no cell without a stone names a chain: `head` gives the
    /// chain head (or id) a board keeps for each cell, 0 for none.
    pub(crate) fn check_stray_links(
        &self,
        head: impl Fn(usize) -> u16,
    ) -> Result<(), ConsistencyError> {
        for (i, &value) in self.cells.iter().enumerate() {
            let linked = head(i);
            if (value == EMPTY || value == WALL) && linked != 0 {
                return Err(ConsistencyError::StrayChainLink {
                    cell: cell(i),
                    head: Point(linked),
                });
            }
        }
        Ok(())
    }

    /// Checks that the circular list through `head`, followed with `next`,
    /// holds exactly the stones of `chain`.
    pub(crate) fn check_chain_list(
        &self,
        chain: &RecountedChain,
        head: usize,
        next: impl Fn(usize) -> usize,
    ) -> Result<(), ConsistencyError> {
        let stones = self.stones(chain);
        // One more than the chain's stones is enough to see a list that
        // runs on.
        let mut cycle = vec![head];
        let mut stone = next(head);
        while stone != head && cycle.len() <= stones.len() {
            cycle.push(stone);
            stone = next(stone);
        }
        cycle.sort_unstable();
        if cycle != stones {
            return Err(ConsistencyError::ChainList {
                chain: cell(stones[0]),
            });
        }
        Ok(())
    }

    /// Checks a board's empty-point list: `listed` entries, read with
    /// `entry`, and `index_of` each empty point's position in it.
    pub(crate) fn check_empty_list(
        &self,
        listed: usize,
        entry: impl Fn(usize) -> u16,
        index_of: impl Fn(usize) -> u16,
    ) -> Result<(), ConsistencyError> {
        if self.empties.len() != listed {
            return Err(ConsistencyError::EmptyCount {
                counted: self.empties.len(),
                listed,
            });
        }
        for &e in &self.empties {
            let index = index_of(e) as usize;
            if index >= listed || entry(index) as usize != e {
                return Err(ConsistencyError::EmptyList { point: cell(e) });
            }
        }
        Ok(())
    }

    /// Checks the packed neighbour counts (see [`NEIGHBOR_UNIT`]) that
    /// `stored` gives for each point.
    pub(crate) fn check_neighbor_counts(
        &self,
        stored: impl Fn(usize) -> u16,
    ) -> Result<(), ConsistencyError> {
        for (p, &value) in self.cells.iter().enumerate() {
            if value == WALL {
                continue;
            }
            let counted = self
                .neighbor_cells(p)
                .iter()
                .map(|&n| NEIGHBOR_UNIT[self.cells[n] as usize])
                .sum();
            let kept = stored(p);
            if kept != counted {
                return Err(ConsistencyError::NeighborCounts {
                    point: cell(p),
                    stored: kept,
                    counted,
                });
            }
        }
        Ok(())
    }

    /// Checks the simple-ko point `ko` (0 for none) and the cell value of
    /// the colour it bars: both set or neither, and the point empty.
    pub(crate) fn check_ko(&self, ko: u16, barred: u8) -> Result<(), ConsistencyError> {
        if (ko == 0) != (barred == 0) || barred > WHITE {
            return Err(ConsistencyError::Ko {
                ko: (ko != 0).then_some(Point(ko)),
                barred,
            });
        }
        if ko != 0 && self.cells.get(ko as usize) != Some(&EMPTY) {
            return Err(ConsistencyError::KoOccupied { ko: Point(ko) });
        }
        Ok(())
    }
}

impl Board {
    /// The Zobrist hash recomputed from the stones alone.
    pub fn hash_from_scratch(&self) -> u64 {
        self.size
            .points()
            .filter_map(|p| self.stone(p).map(|c| STONE_KEYS[c.index()][p.index()]))
            .fold(0, |a, b| a ^ b)
    }

    /// Rebuilds every piece of incremental state from the stones alone
    /// (chains by flood fill, liberties, lengths, chain lists, neighbour
    /// counts, the empty list, the hash, the ko point) and compares it with
    /// what the board holds. `Err` names the first difference found.
    pub fn check_consistency(&self) -> Result<(), ConsistencyError> {
        let recount = Recount::new(self.size, |i| self.cells[i])?;
        recount.check_stray_links(|i| self.chain_head[i])?;
        for chain in recount.chains() {
            let stones = recount.stones(chain);
            let first = stones[0];
            let head = self.chain_head[first] as usize;
            if head == 0
                || self.cells[head] != chain.color
                || self.chain_head[head] as usize != head
            {
                return Err(ConsistencyError::ChainHead {
                    stone: cell(first),
                    head: cell(head),
                });
            }
            if let Some(&other) = stones
                .iter()
                .find(|&&c| self.chain_head[c] as usize != head)
            {
                return Err(ConsistencyError::SplitChain {
                    stone: cell(first),
                    other: cell(other),
                });
            }
            let stored = self.liberties[head] as usize;
            if stored != chain.liberties {
                return Err(ConsistencyError::Liberties {
                    chain: cell(first),
                    stored,
                    counted: chain.liberties,
                });
            }
            let stored = self.chain_len[head] as usize;
            if stored != stones.len() {
                return Err(ConsistencyError::ChainLength {
                    chain: cell(first),
                    stored,
                    counted: stones.len(),
                });
            }
            recount.check_chain_list(chain, head, |s| self.chain_next[s] as usize)?;
        }
        recount.check_empty_list(
            self.empty_len as usize,
            |i| self.empty[i],
            |p| self.empty_index[p],
        )?;
        recount.check_neighbor_counts(|p| self.neighbor_counts[p])?;
        if self.hash != recount.hash() {
            return Err(ConsistencyError::Hash {
                stored: self.hash,
                counted: recount.hash(),
            });
        }
        recount.check_ko(self.ko, self.ko_barred)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::stone_cell;
    use crate::color::Color;

    #[test]
    fn a_sound_board_passes() {
        let board = Board::from_ascii(
            "x o .
             x o .
             . x o",
        )
        .unwrap();
        assert_eq!(board.check_consistency(), Ok(()));
    }

    #[test]
    fn each_kind_of_damage_is_named() {
        let board = Board::from_ascii(
            "x x .
             . o .
             . . .",
        )
        .unwrap();
        let size = board.size();
        let a3 = size.point(0, 2).unwrap();
        let b2 = size.point(1, 1).unwrap();

        let head = board.chain_head(a3).unwrap();
        let mut broken = board.clone();
        broken.liberties[head.index()] += 1;
        assert_eq!(
            broken.check_consistency(),
            Err(ConsistencyError::Liberties {
                chain: a3,
                stored: 3,
                counted: 2
            })
        );

        let mut broken = board.clone();
        broken.hash ^= 1;
        assert!(matches!(
            broken.check_consistency(),
            Err(ConsistencyError::Hash { .. })
        ));

        let mut broken = board.clone();
        broken.neighbor_counts[b2.index()] = 0;
        assert_eq!(
            broken.check_consistency(),
            Err(ConsistencyError::NeighborCounts {
                point: b2,
                stored: 0,
                counted: 0x301
            })
        );

        let mut broken = board.clone();
        broken.ko = b2.0;
        broken.ko_barred = stone_cell(Color::Black);
        let error = broken.check_consistency().unwrap_err();
        assert_eq!(error, ConsistencyError::KoOccupied { ko: b2 });
        assert_eq!(
            error.to_string(),
            format!("ko point {} is not empty", b2.index())
        );

        let mut broken = board.clone();
        broken.empty_len -= 1;
        assert_eq!(
            broken.check_consistency(),
            Err(ConsistencyError::EmptyCount {
                counted: 6,
                listed: 5
            })
        );
    }
}
