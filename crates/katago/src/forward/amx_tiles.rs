//! The AMX tile configuration the bf16 and int8 products share: palette 1,
//! eight tiles of 16 rows × 64 bytes — four accumulators (16 × 16 sums of
//! 32 bits), two of activations and two of weights.

use std::arch::asm;

/// `LDTILECFG`'s 64-byte operand.
#[repr(C, align(64))]
struct TileConfig {
    palette: u8,
    start_row: u8,
    reserved: [u8; 14],
    bytes_per_row: [u16; 16],
    rows: [u8; 16],
}

/// Loads the configuration: tiles 0–7 of 16 rows × 64 bytes.
///
/// # Safety
/// The CPU must have AMX and the process the tile state
/// ([`crate::forward::cpu::Features`] grants both before an AMX path is
/// chosen); [`release`] must follow before the thread does anything else
/// with the tiles.
pub(crate) unsafe fn configure() {
    let mut config = TileConfig {
        palette: 1,
        start_row: 0,
        reserved: [0; 14],
        bytes_per_row: [0; 16],
        rows: [0; 16],
    };
    for t in 0..8 {
        config.bytes_per_row[t] = 64;
        config.rows[t] = 16;
    }
    // SAFETY: the caller vouches for the tile state; the configuration is
    // valid for palette 1.
    unsafe { asm!("ldtilecfg [{}]", in(reg) &config as *const TileConfig, options(nostack)) };
}

/// Releases the tile state [`configure`] set up.
///
/// # Safety
/// As [`configure`]; no tile is used after this until the next
/// [`configure`].
pub(crate) unsafe fn release() {
    // SAFETY: the caller's, above.
    unsafe { asm!("tilerelease", options(nostack, nomem)) };
}
