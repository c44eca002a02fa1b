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
use crate::rng::{splitmix64, GOLDEN_GAMMA};

/// The fixed seed of the key generator.
pub const SEED: u64 = 0x7465_6e67_656e_2d31; // "tengen-1"

const fn generate() -> ([[u64; MAX_CELLS]; 2], u64) {
    let mut keys = [[0u64; MAX_CELLS]; 2];
    let mut state = SEED;
    let mut color = 0;
    while color < 2 {
        let mut cell = 0;
        while cell < MAX_CELLS {
            keys[color][cell] = splitmix64(state);
            state = state.wrapping_add(GOLDEN_GAMMA);
            cell += 1;
        }
        color += 1;
    }
    (keys, splitmix64(state))
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
        assert_eq!(STONE_KEYS[0][0], splitmix64(SEED));
        assert_eq!(STONE_KEYS[0][0], 0x3d79_d389_c412_913b);
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
