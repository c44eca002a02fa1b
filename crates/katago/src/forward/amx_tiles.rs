//! The AMX tile configuration the bf16 and int8 products share: palette 1,
//! eight tiles of up to 16 rows × 64 bytes — four accumulators (16 × 16
//! sums of 32 bits: 0 and 1 the top half of a block, 2 and 3 the bottom
//! half), two of activations (4 the top half, 5 the bottom) and two of
//! weights (6, 7).
//!
//! A configuration stays loaded on its thread from one product to the
//! next and is loaded again only when the rows change: `LDTILECFG` with a
//! new configuration (and `TILERELEASE` before it) took about as long as
//! a 16-row product of attention's scores, and attention alternates
//! between its two shapes thousands of times a pass.

use std::arch::asm;
use std::cell::Cell;

thread_local! {
    /// The (top, bottom) rows of the configuration loaded on this thread,
    /// (0, 0) before the first.
    static LOADED: Cell<(u8, u8)> = const { Cell::new((0, 0)) };
}

/// `LDTILECFG`'s 64-byte operand.
#[repr(C, align(64))]
struct TileConfig {
    palette: u8,
    start_row: u8,
    reserved: [u8; 14],
    bytes_per_row: [u16; 16],
    rows: [u8; 16],
}

/// Loads the configuration for a block of `top + bottom` rows: the top
/// half's accumulators and activations (tiles 0, 1, 4) `top` rows, the
/// bottom half's (2, 3, 5) `bottom` rows (left unconfigured where 0, and
/// then not to be used), the weights (6, 7) 16 rows; every row 64 bytes.
/// A row's sums do not depend on how many rows its tile holds.
///
/// Nothing is done where that configuration is loaded already.
///
/// # Safety
/// The CPU must have AMX and the process the tile state
/// ([`crate::forward::cpu::Features`] grants both before an AMX path is
/// chosen); nothing but this function may load or release a tile
/// configuration on the thread.
pub(crate) unsafe fn configure(top: usize, bottom: usize) {
    assert!((1..=16).contains(&top) && bottom <= 16, "rows of a tile");
    let wanted = (top as u8, bottom as u8);
    if LOADED.get() == wanted {
        return;
    }
    let mut config = TileConfig {
        palette: 1,
        start_row: 0,
        reserved: [0; 14],
        bytes_per_row: [0; 16],
        rows: [0; 16],
    };
    for (t, rows) in [top, top, bottom, bottom, top, bottom, 16, 16]
        .into_iter()
        .enumerate()
    {
        if rows > 0 {
            config.bytes_per_row[t] = 64;
            config.rows[t] = rows as u8;
        }
    }
    // SAFETY: the caller vouches for the tile state; the configuration is
    // valid for palette 1.
    unsafe { asm!("ldtilecfg [{}]", in(reg) &config as *const TileConfig, options(nostack)) };
    LOADED.set(wanted);
}

/// Zeroes the four accumulator tiles (0–3).
///
/// # Safety
/// A configuration loaded on the thread by [`configure`] (for the rows the
/// caller then uses).
pub(crate) unsafe fn zero_accumulators() {
    // SAFETY: the caller's; `TILEZERO` touches only the tiles.
    unsafe {
        asm!(
            "tilezero tmm0",
            "tilezero tmm1",
            "tilezero tmm2",
            "tilezero tmm3",
            options(nostack, nomem)
        )
    };
}
