//! Subtree value bias (KataGo's `subtreeValueBiasFactor`): a correction of
//! the network's value learned during the search from local situations.
//!
//! The network misjudges some shapes the same way wherever they occur in
//! the tree: a move whose local consequence it cannot read (a ladder
//! breaker, a tesuji in a corner) is valued too high or too low every time
//! the tree meets it. Each node made by a move on the board gets a key for
//! its local situation: the mover, the move before it, the move itself,
//! the 5×5 neighbourhood of the move before it was played (stones, and
//! which of them were in atari) and the ko point. Every node whose
//! subtree has been searched adds to its key's entry how far the subtree's
//! average utility is from the network's value of the node itself,
//! weighted by the subtree's weight to the power 0.85. A node with the
//! same key then has its network value corrected by a share (0.45 by
//! default) of the entry's average difference: a new leaf before it is
//! backed up, a searched node each time its value is made anew from its
//! children (`search::recompute_node`), with the entry as it stands then,
//! the node's own difference included — as KataGo's `addLeafValue` and
//! `recomputeNodeStats` do. The correction reaches exploration and the
//! move's choice through the nodes' average utilities.
//!
//! Entries outlive the nodes that fed them only in part: when a move is
//! played and the rest of the tree is dropped, each entry keeps its
//! surviving nodes' contributions and a fifth of the dropped ones'
//! (KataGo's `subtreeValueBiasFreeProp` of 0.8 freed); an entry no node
//! feeds any more is dropped.
//!
//! Values here are Black's utilities, as everywhere in the tree; the key
//! holds the mover's colour, so an entry only ever mixes one side's moves.

use std::collections::HashMap;

use tengen_core::splitmix64 as mix;
use tengen_core::{Board, Color, Move, Point};

/// The index of an entry in a [`BiasTable`]; [`NO_ENTRY`] for a node
/// without one (the root, passes, the first move of a game).
pub type EntryId = u32;

/// A node that feeds no entry.
pub const NO_ENTRY: EntryId = u32::MAX;

/// The share of a dropped node's contribution taken off its entry
/// (KataGo's `subtreeValueBiasFreeProp`).
pub const FREED_SHARE: f64 = 0.8;

/// The exponent of a subtree's weight in its contribution
/// (`subtreeValueBiasWeightExponent`): big subtrees count for more, less
/// than in proportion.
pub const WEIGHT_EXPONENT: f64 = 0.85;

/// What the nodes of one local situation have learned: the weighted sum of
/// (subtree utility − network utility) and the sum of the weights.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BiasEntry {
    /// Σ weight × (subtree's average utility − the network's utility).
    pub delta_sum: f64,
    /// Σ weight.
    pub weight_sum: f64,
}

impl BiasEntry {
    /// The average difference, once the entry weighs anything (KataGo's
    /// threshold of 0.001).
    pub fn mean(&self) -> Option<f64> {
        (self.weight_sum > 0.001).then(|| self.delta_sum / self.weight_sum)
    }
}

/// The entries of one search tree, by local-situation key.
#[derive(Clone, Debug, Default)]
pub struct BiasTable {
    entries: Vec<BiasEntry>,
    by_key: HashMap<u64, EntryId>,
}

impl BiasTable {
    /// Entries held.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry is held.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry of `key`, made empty if new.
    pub fn entry_for(&mut self, key: u64) -> EntryId {
        let next = self.entries.len() as EntryId;
        let id = *self.by_key.entry(key).or_insert(next);
        if id == next {
            self.entries.push(BiasEntry::default());
        }
        id
    }

    /// An entry.
    pub fn get(&self, id: EntryId) -> &BiasEntry {
        &self.entries[id as usize]
    }

    /// Replaces a node's last contribution to entry `id` (`last`, as
    /// (delta × weight, weight)) by `new`.
    pub fn replace(&mut self, id: EntryId, last: (f64, f64), new: (f64, f64)) {
        let entry = &mut self.entries[id as usize];
        entry.delta_sum += new.0 - last.0;
        entry.weight_sum += new.1 - last.1;
    }

    /// The table for a tree cut down to some of its nodes: `kept` lists,
    /// for each surviving node, its entry and its last contribution. Each
    /// entry keeps what its survivors contribute plus `1 − freed` of what
    /// the dropped nodes did; entries without survivors are dropped. The
    /// returned map gives each surviving entry's new id (indexed by old id,
    /// [`NO_ENTRY`] where dropped).
    pub fn kept(
        &self,
        kept: impl Iterator<Item = (EntryId, (f64, f64))>,
        freed: f64,
    ) -> (BiasTable, Vec<EntryId>) {
        let mut survivors = vec![None::<BiasEntry>; self.entries.len()];
        for (id, (delta, weight)) in kept {
            if id == NO_ENTRY {
                continue;
            }
            let sum = survivors[id as usize].get_or_insert_with(BiasEntry::default);
            sum.delta_sum += delta;
            sum.weight_sum += weight;
        }
        let mut table = BiasTable::default();
        let mut remap = vec![NO_ENTRY; self.entries.len()];
        for (&key, &old) in &self.by_key {
            let Some(alive) = survivors[old as usize] else {
                continue;
            };
            let all = self.entries[old as usize];
            let keep = 1.0 - freed;
            let new = table.entries.len() as EntryId;
            table.entries.push(BiasEntry {
                delta_sum: alive.delta_sum + keep * (all.delta_sum - alive.delta_sum),
                weight_sum: alive.weight_sum + keep * (all.weight_sum - alive.weight_sum),
            });
            table.by_key.insert(key, new);
            remap[old as usize] = new;
        }
        (table, remap)
    }
}

/// The key of the local situation of `mover` playing `mv` on `board` (the
/// position before the move) after the move `previous`; `None` for a pass,
/// which gets no bias (as in KataGo).
pub fn situation_key(board: &Board, mover: Color, previous: Move, mv: Move) -> Option<u64> {
    let Move::Play(at) = mv else {
        return None;
    };
    let size = board.size();
    let mut key = mix(0x5b1a_5000 ^ mover as u64);
    key ^= mix(0x1000_0000 | move_code(previous));
    key ^= mix(0x2000_0000 | move_code(mv));
    let (col, row) = size.col_row(at);
    for dy in -2i64..=2 {
        for dx in -2i64..=2 {
            let (c, r) = (col as i64 + dx, row as i64 + dy);
            if c < 0 || r < 0 {
                continue;
            }
            let Some(p) = size.point(c as usize, r as usize) else {
                continue;
            };
            let offset = ((dy + 2) * 5 + dx + 2) as u64;
            let Some(stone) = board.stone(p) else {
                continue;
            };
            // The colour relative to the mover, so that the key reads the
            // same for a shape whichever side it is; the mover is in the
            // key anyway.
            let own = u64::from(stone == mover);
            key ^= mix(0x3000_0000 | offset << 2 | own);
            if board.liberties(p) == 1 {
                key ^= mix(0x4000_0000 | offset);
            }
        }
    }
    if let Some(ko) = board.ko_point() {
        key ^= mix(0x5000_0000 | point_code(ko));
    }
    Some(key)
}

/// A move as a number: a point's index plus one, 0 for a pass.
fn move_code(mv: Move) -> u64 {
    match mv {
        Move::Play(p) => point_code(p) + 1,
        Move::Pass => 0,
    }
}

fn point_code(p: Point) -> u64 {
    p.index() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::BoardSize;

    fn board(text: &str) -> Board {
        Board::from_ascii(text).expect("a board")
    }

    fn at(board: &Board, name: &str) -> Move {
        board.size().parse_gtp(name).expect("a vertex")
    }

    #[test]
    fn a_pass_has_no_key() {
        let b = Board::new(BoardSize::square(9).unwrap());
        assert_eq!(
            situation_key(&b, Color::Black, Move::Pass, Move::Pass),
            None
        );
    }

    #[test]
    fn the_key_reads_the_neighbourhood_only() {
        // The same 5×5 around E5; a stone far away differs.
        let near = board(
            ". . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . X O . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .",
        );
        let far = board(
            ". . . . . . . . X
             . . . . . . . . .
             . . . . . . . . .
             . . . X O . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             O . . . . . . . .",
        );
        let e5 = at(&near, "E5");
        let d6 = at(&near, "D6");
        let key = |b: &Board, c: Color| situation_key(b, c, d6, e5).unwrap();
        assert_eq!(key(&near, Color::Black), key(&far, Color::Black));
        // The mover is part of the key.
        assert_ne!(key(&near, Color::Black), key(&near, Color::White));
        // So are the previous move and the move.
        assert_ne!(
            key(&near, Color::Black),
            situation_key(&near, Color::Black, Move::Pass, e5).unwrap()
        );
        assert_ne!(
            key(&near, Color::Black),
            situation_key(&near, Color::Black, d6, at(&near, "F5")).unwrap()
        );
        // A stone inside the neighbourhood changes it.
        let mut closer = near.clone();
        let Move::Play(g4) = at(&near, "G4") else {
            unreachable!()
        };
        closer.play_unchecked(g4, Color::White);
        assert_ne!(key(&near, Color::Black), key(&closer, Color::Black));
    }

    #[test]
    fn an_atari_changes_the_key() {
        // The window around E5 reaches from C3 to G7. White's G7 has its
        // liberties at G8 and H7, outside it; Black's H7 takes one of them
        // and leaves every point of the window as it was but for the atari.
        let free = board(
            ". . . . . . . . .
             . . . . . . . . .
             . . . . . X O . .
             . . . . . . X . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .",
        );
        let atari = board(
            ". . . . . . . . .
             . . . . . . . . .
             . . . . . X O X .
             . . . . . . X . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .",
        );
        let d6 = at(&free, "D6");
        let e5 = at(&free, "E5");
        let k1 = situation_key(&free, Color::Black, d6, e5).unwrap();
        let k2 = situation_key(&atari, Color::Black, d6, e5).unwrap();
        assert_ne!(k1, k2);
        // Without the atari flag the windows would agree: a black stone
        // outside the window that takes no liberty of G7 changes nothing.
        let elsewhere = board(
            ". . . . . . . . .
             . . . . . . . . .
             . . . . . X O . X
             . . . . . . X . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .
             . . . . . . . . .",
        );
        assert_eq!(k1, situation_key(&elsewhere, Color::Black, d6, e5).unwrap());
    }

    #[test]
    fn a_cut_tree_keeps_its_survivors_and_a_fifth_of_the_rest() {
        let mut table = BiasTable::default();
        let a = table.entry_for(1);
        let b = table.entry_for(2);
        assert_eq!(table.entry_for(1), a);
        // Two nodes feed a, one feeds b.
        table.replace(a, (0.0, 0.0), (0.5, 2.0));
        table.replace(a, (0.0, 0.0), (-0.1, 1.0));
        table.replace(b, (0.0, 0.0), (0.3, 1.0));
        // Only the second node of a survives.
        let (kept, remap) = table.kept([(a, (-0.1, 1.0))].into_iter(), 0.8);
        assert_eq!(kept.len(), 1);
        assert_eq!(remap[b as usize], NO_ENTRY);
        let entry = kept.get(remap[a as usize]);
        assert!((entry.delta_sum - (-0.1 + 0.2 * 0.5)).abs() < 1e-12);
        assert!((entry.weight_sum - (1.0 + 0.2 * 2.0)).abs() < 1e-12);
    }
}
