//! Records in the character sets found in the wild decode to the right
//! Unicode names. The legacy-encoded bytes are made here with `encoding_rs`'s
//! encoders, so no binary test files are needed.

use encoding_rs::Encoding;
use tengen_core::{BoardSize, Color};
use tengen_sgf::{decode_sgf, read_game_bytes};

fn record(ca: Option<&str>, black: &str, white: &str) -> String {
    let ca = ca.map(|label| format!("CA[{label}]")).unwrap_or_default();
    format!("(;FF[4]GM[1]{ca}SZ[9]PB[{black}]PW[{white}]C[{black} vs {white}];B[ee];W[cc])")
}

/// Encodes `text` with the encoding labelled `label`, checking that every
/// character could be represented.
fn encode(label: &str, text: &str) -> Vec<u8> {
    let encoding = Encoding::for_label(label.as_bytes()).expect("known label");
    let (bytes, _, had_errors) = encoding.encode(text);
    assert!(!had_errors, "{label} cannot represent {text}");
    bytes.into_owned()
}

fn check(bytes: &[u8], black: &str, white: &str) {
    let record = read_game_bytes(bytes).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(record.black_name.as_deref(), Some(black));
    assert_eq!(record.white_name.as_deref(), Some(white));
    let size = BoardSize::square(9).unwrap();
    let e5 = size.parse_gtp("E5").unwrap();
    let tengen_core::Move::Play(e5) = e5 else {
        panic!("E5 is a point")
    };
    assert_eq!(record.game.board().stone(e5), Some(Color::Black));
    assert!(decode_sgf(bytes).contains(&format!("C[{black} vs {white}]")));
}

#[test]
fn utf8_with_and_without_ca() {
    let (black, white) = ("이세돌 Lee Sedol", "井山裕太 — Ærø");
    for ca in [Some("UTF-8"), Some("utf-8"), None] {
        check(record(ca, black, white).as_bytes(), black, white);
    }
    // With a byte-order mark.
    let mut bytes = b"\xef\xbb\xbf".to_vec();
    bytes.extend_from_slice(record(Some("UTF-8"), black, white).as_bytes());
    check(&bytes, black, white);
}

#[test]
fn valid_utf8_wins_over_a_stale_ca() {
    // Re-saved as UTF-8 but still claiming a legacy character set.
    let (black, white) = ("古力", "José");
    for ca in ["GB2312", "ISO-8859-1", "Shift_JIS"] {
        check(record(Some(ca), black, white).as_bytes(), black, white);
    }
}

#[test]
fn legacy_character_sets() {
    let cases = [
        ("ISO-8859-1", "José Müller", "Søren Ærø"),
        ("latin1", "François Öztürk", "Ñandú"),
        ("GB2312", "古力", "柯洁"),
        ("gbk", "聂卫平", "马晓春"),
        ("GB18030", "常昊", "芈昱廷"),
        ("Big5", "周俊勳", "林海峰"),
        ("big5", "王立誠", "張栩"),
        ("Shift_JIS", "本因坊秀策", "井山裕太"),
        ("SJIS", "ヒカル", "佐為"),
        ("EUC-KR", "이세돌", "박정환"),
        ("euc-kr", "조훈현", "이창호"),
        ("EUC-JP", "本因坊道策", "呉清源"),
    ];
    for (label, black, white) in cases {
        let bytes = encode(label, &record(Some(label), black, white));
        assert!(
            std::str::from_utf8(&bytes).is_err(),
            "{label}: the test bytes should not be valid UTF-8"
        );
        check(&bytes, black, white);
    }
}

#[test]
fn unknown_or_missing_ca_falls_back_to_windows_1252() {
    for ca in [None, Some("klingon")] {
        let bytes = encode("windows-1252", &record(ca, "José", "€uro"));
        check(&bytes, "José", "€uro");
    }
}

#[test]
fn undecodable_bytes_never_fail() {
    // Not valid Shift_JIS either: decoding replaces, never panics.
    let bytes = b"(;CA[Shift_JIS]PB[\x81\xff\x80]SZ[9];B[ee])";
    let record = read_game_bytes(bytes).unwrap();
    assert!(record.black_name.unwrap().contains('\u{fffd}'));
}
