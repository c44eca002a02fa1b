//! Packed operands in memory aligned to a cache line.
//!
//! The matrix units load a tile row by row, 64 bytes a row: a row that
//! starts on a cache line is one line, a row that does not is two. A
//! `Vec<u32>` is only 4-byte aligned (large ones land 16 bytes past a page),
//! so in one a product's speed would depend on where the allocator put it
//! (a third either way on AMX). [`Words`] starts every buffer on a 64-byte
//! line, and the packed layouts keep each row a whole number of lines long.

use std::ops::{Deref, DerefMut};

/// Words per cache line.
const LINE_WORDS: usize = 16;

/// One cache line of words.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u32; LINE_WORDS]);

/// A growable buffer of `u32` whose first word is on a 64-byte boundary;
/// it derefs to the slice of its `len` words, like a `Vec<u32>`.
#[derive(Clone, Default)]
pub(crate) struct Words {
    lines: Vec<Line>,
    len: usize,
}

impl Words {
    /// `len` zeros.
    pub(crate) fn zeros(len: usize) -> Words {
        let mut words = Words::default();
        words.resize(len, 0);
        words
    }

    /// Sets the length to `len`, the new words (if any) `value`.
    pub(crate) fn resize(&mut self, len: usize, value: u32) {
        let old = self.len;
        self.lines
            .resize(len.div_ceil(LINE_WORDS), Line([0; LINE_WORDS]));
        self.len = len;
        if len > old {
            self[old..].fill(value);
        }
    }

    /// Sets the length to `len` for a caller that writes every word: words
    /// the buffer already had room for keep whatever they held (no fill),
    /// new room is zeroed.
    pub(crate) fn resize_for_overwrite(&mut self, len: usize) {
        let lines = len.div_ceil(LINE_WORDS);
        if lines > self.lines.len() {
            self.lines.resize(lines, Line([0; LINE_WORDS]));
        }
        self.len = len;
    }

    /// Empties the buffer, keeping its memory.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }
}

impl Deref for Words {
    type Target = [u32];

    fn deref(&self) -> &[u32] {
        // SAFETY: `lines` holds at least `len` words (`resize` keeps
        // `lines.len() * LINE_WORDS >= len`), a `Line` is plain `u32`s with
        // no padding, and the borrow of `self` covers the slice's life.
        unsafe { std::slice::from_raw_parts(self.lines.as_ptr().cast(), self.len) }
    }
}

impl DerefMut for Words {
    fn deref_mut(&mut self) -> &mut [u32] {
        // SAFETY: as in `deref`, with the unique borrow of `self`.
        unsafe { std::slice::from_raw_parts_mut(self.lines.as_mut_ptr().cast(), self.len) }
    }
}

impl PartialEq for Words {
    fn eq(&self, other: &Words) -> bool {
        self[..] == other[..]
    }
}

impl Eq for Words {}

impl std::fmt::Debug for Words {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::Words;

    #[test]
    fn words_behave_as_a_vector_on_a_cache_line() {
        let mut words = Words::zeros(5);
        assert_eq!(&words[..], &[0; 5]);
        words[4] = 9;
        words.resize(40, 7);
        assert_eq!(words.len(), 40);
        assert_eq!(words[4], 9);
        assert!(words[5..].iter().all(|&w| w == 7));
        words.resize(3, 1);
        words.resize(6, 2);
        assert_eq!(&words[..], &[0, 0, 0, 2, 2, 2], "shrunk words are gone");
        words.resize(2, 0);
        words.resize_for_overwrite(6);
        assert_eq!(
            &words[..],
            &[0, 0, 0, 2, 2, 2],
            "room already there is kept"
        );
        words.resize_for_overwrite(20);
        assert_eq!(words[16..], [0; 4], "new room is zeroed");
        words.clear();
        assert!(words.is_empty());
        words.resize(3, 4);
        assert_eq!(&words[..], &[4, 4, 4], "cleared words are gone");
        for len in [1, 17, 1000, 1 << 20] {
            let words = Words::zeros(len);
            assert_eq!(words.as_ptr() as usize % 64, 0, "{len} words aligned");
        }
    }
}
