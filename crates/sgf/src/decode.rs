//! Raw SGF bytes to text: the character set named by `CA`, UTF-8 detection
//! and a byte-order mark.

use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};

use crate::read::{read_game, ReadError, Record};

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// Decodes the bytes of an SGF file to text; never fails.
///
/// A UTF-8 byte-order mark is removed. Bytes that are valid UTF-8 are taken
/// as UTF-8 whatever `CA` says (files are often re-saved as UTF-8 without
/// their `CA` being updated). Otherwise they are decoded with the character
/// set named by the first `CA[...]` property (any WHATWG label, case
/// insensitive: `ISO-8859-1`, `GB2312`, `GBK`, `GB18030`, `Big5`,
/// `Shift_JIS`, `EUC-KR`, `EUC-JP`, ...; ISO-8859-1 is read as windows-1252
/// as WHATWG specifies), and with windows-1252 when `CA` is absent or names
/// an unknown character set. Malformed sequences become U+FFFD.
pub fn decode_sgf(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(BOM).unwrap_or(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        return text.to_string();
    }
    let encoding = charset(bytes)
        .and_then(|label| Encoding::for_label(label.trim().as_bytes()))
        .filter(|&e| e != UTF_8)
        .unwrap_or(WINDOWS_1252);
    encoding.decode_without_bom_handling(bytes).0.into_owned()
}

/// Reads the main line of the first game tree of an SGF file given as raw
/// bytes: [`decode_sgf`] then [`read_game`].
pub fn read_game_bytes(bytes: &[u8]) -> Result<Record, ReadError> {
    read_game(&decode_sgf(bytes))
}

/// The value of the first `CA` property in `bytes`, found by a plain byte
/// scan: the labels are ASCII, and the root, where `CA` belongs, comes before
/// the moves and comments where non-ASCII text usually is. `CA` must not
/// follow another upper-case letter (so `BCA[...]` is not taken); whitespace
/// may come before its `[`.
fn charset(bytes: &[u8]) -> Option<&str> {
    let mut i = 0;
    while i + 2 < bytes.len() {
        if &bytes[i..i + 2] == b"CA" && (i == 0 || !bytes[i - 1].is_ascii_uppercase()) {
            let mut j = i + 2;
            while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                j += 1;
            }
            if bytes.get(j) == Some(&b'[') {
                let start = j + 1;
                let end = start + bytes[start..].iter().position(|&b| b == b']')?;
                return std::str::from_utf8(&bytes[start..end]).ok();
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_charset() {
        assert_eq!(charset(b"(;FF[4]CA[Big5]SZ[19])"), Some("Big5"));
        assert_eq!(charset(b"(;FF[4]CA [gb2312])"), Some("gb2312"));
        assert_eq!(charset(b"(;FF[4]BCA[x])"), None);
        assert_eq!(charset(b"(;FF[4]CA[x"), None);
        assert_eq!(charset(b""), None);
    }

    #[test]
    fn falls_back_to_windows_1252() {
        assert_eq!(decode_sgf(b"(;PB[\xe9])"), "(;PB[\u{e9}])");
        assert_eq!(
            decode_sgf(b"(;CA[nonsense]PB[\x80])"),
            "(;CA[nonsense]PB[\u{20ac}])"
        );
        assert_eq!(decode_sgf(b"\xef\xbb\xbf(;PB[\xc3\xa9])"), "(;PB[\u{e9}])");
        assert_eq!(
            decode_sgf(b"(;CA[UTF-8]PB[\xe9])"),
            "(;CA[UTF-8]PB[\u{e9}])"
        );
    }
}
