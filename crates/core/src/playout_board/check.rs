//! [`PlayoutBoard::check_consistency`]: every incremental piece rebuilt from
//! the stones and compared.

use super::*;

impl PlayoutBoard {
    /// Rebuilds every incremental piece (chains by flood fill, pseudo-liberty
    /// counts, lengths, chain lists, neighbour counts, the empty list, the
    /// stone balance, the ko point) from the stones alone and compares it
    /// with what the board holds; the recount is the one
    /// [`Board::check_consistency`] uses. `Err` names the first difference
    /// found.
    pub fn check_consistency(&self) -> Result<(), ConsistencyError> {
        let size = self.size;
        let recount = Recount::new(size, |i| self.cells[i])?;
        recount.check_stray_links(|i| self.chain_id[i])?;
        // Slot 0, a wall corner, is the scratch slot.
        for i in 1..size.cells() {
            let head = matches!(self.cells[i], BLACK | WHITE) && self.chain_id[i] as usize == i;
            let record = self.chains[i];
            if !head && record != ChainInfo(0) {
                return Err(ConsistencyError::StrayChainRecord {
                    cell: Point(i as u16),
                    stones: record.len() as usize,
                    pseudo_liberties: record.pseudo_liberties() as usize,
                });
            }
        }
        for chain in recount.chains() {
            let stones = recount.stones(chain);
            let first = Point(stones[0] as u16);
            let id = self.chain_id[first.index()] as usize;
            if id == 0 || self.cells[id] != chain.color || self.chain_id[id] as usize != id {
                return Err(ConsistencyError::ChainHead {
                    stone: first,
                    head: Point(id as u16),
                });
            }
            if let Some(&other) = stones.iter().find(|&&c| self.chain_id[c] as usize != id) {
                return Err(ConsistencyError::SplitChain {
                    stone: first,
                    other: Point(other as u16),
                });
            }
            let record = self.chains[id];
            if record.len() as usize != stones.len() {
                return Err(ConsistencyError::ChainLength {
                    chain: first,
                    stored: record.len() as usize,
                    counted: stones.len(),
                });
            }
            if record.pseudo_liberties() as usize != chain.pseudo_liberties {
                return Err(ConsistencyError::PseudoLiberties {
                    chain: first,
                    stored: record.pseudo_liberties() as usize,
                    counted: chain.pseudo_liberties,
                });
            }
            let in_atari = self.in_atari(first);
            if in_atari != (chain.liberties == 1) {
                return Err(ConsistencyError::Atari {
                    chain: first,
                    in_atari,
                    liberties: chain.liberties,
                });
            }
            recount.check_chain_list(chain, id, |s| self.chain_next[s] as usize)?;
        }
        recount.check_empty_list(
            self.empty_len as usize,
            |i| self.empty[i],
            |p| self.empty_index[p],
        )?;
        recount.check_neighbor_counts(|p| self.neighbor_counts[p])?;
        let stones = recount.stone_counts();
        let balance = stones.black as i32 - stones.white as i32;
        if balance != i32::from(self.stone_balance) {
            return Err(ConsistencyError::StoneBalance {
                stored: i32::from(self.stone_balance),
                counted: balance,
            });
        }
        recount.check_ko(self.ko, self.ko_barred)
    }
}
