//! Zobrist keys, generated at compile time.
//!
//! The keys are the output of SplitMix64 seeded with [`SEED`], one per colour and
//! padded-array index, so a position's hash is the same on every run and every
//! platform. Changing [`SEED`] or the generator changes every stored hash: treat
//! it as a breaking change.
//!
//! A board's hash is the XOR of the keys of its stones; the empty board hashes to
//! 0. Because keys are indexed by padded-array cell, the same (column, row) has
//! different keys on boards of different widths; hashes are only compared
//! between boards of one size. Situational superko XORs in [`WHITE_TO_MOVE`]
//! when White is to move.

use crate::point::MAX_CELLS;

/// The fixed seed of the key generator.
pub const SEED: u64 = 0x7465_6e67_656e_2d31; // "tengen-1"

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

const fn generate() -> ([[u64; MAX_CELLS]; 2], u64) {
    let mut keys = [[0u64; MAX_CELLS]; 2];
    let mut state = SEED;
    let mut color = 0;
    while color < 2 {
        let mut cell = 0;
        while cell < MAX_CELLS {
            let (next, value) = splitmix64(state);
            state = next;
            keys[color][cell] = value;
            cell += 1;
        }
        color += 1;
    }
    let (_, side) = splitmix64(state);
    (keys, side)
}

const GENERATED: ([[u64; MAX_CELLS]; 2], u64) = generate();

/// `STONE_KEYS[color.index()][point.index()]`: the key of one stone.
pub static STONE_KEYS: [[u64; MAX_CELLS]; 2] = GENERATED.0;

/// XORed into a position key when White is to move (situational superko).
pub const WHITE_TO_MOVE: u64 = GENERATED.1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_stable() {
        // These values pin the generator: if they change, every stored hash does.
        assert_eq!(STONE_KEYS[0][0], splitmix64(SEED).1);
        let mut distinct = std::collections::HashSet::new();
        for row in STONE_KEYS.iter() {
            for &key in row.iter() {
                assert!(distinct.insert(key));
            }
        }
        assert!(distinct.insert(WHITE_TO_MOVE));
    }

    /// Pinned values: these must never change (see the module documentation).
    #[test]
    fn pinned_values() {
        let size = crate::BoardSize::square(19).unwrap();
        let d4 = size.point(3, 3).unwrap().index();
        let q16 = size.point(15, 15).unwrap().index();
        assert_eq!(STONE_KEYS[0][d4], 0xb3cb_e19a_c733_7e49);
        assert_eq!(STONE_KEYS[1][q16], 0x01fe_c467_034d_9a9f);
        assert_eq!(WHITE_TO_MOVE, 0xeaf7_e0db_fb42_3978);
        let board = crate::Board::from_ascii("x.o\n.xo\n...").unwrap();
        assert_eq!(board.hash(), 0x72ea_e9ce_d733_83f1);
    }
}
