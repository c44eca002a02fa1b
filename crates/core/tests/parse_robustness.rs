//! Every text parser of the core answers arbitrary input with a value or an
//! error, never a panic: random byte strings, and mutations of valid inputs.

use tengen_core::{Board, BoardSize, Rng, Rules};

const VALID: &[&str] = &[
    "D4",
    "d4",
    "pass",
    "T19",
    "Z25",
    "dd",
    "tt",
    "",
    "19",
    "7x11",
    "japanese,komi=0",
    "ko=positional,suicide=allowed,scoring=area,komi=7.5",
    "x.o\n.xo\n...",
];

const ALPHABET: &[u8] = b"aAbBdDiIjJoOtTxXzZ0123456789.,=+-x:\n \t\xc3\xa9\xff";

fn random_text(rng: &mut Rng) -> String {
    let len = rng.below(12);
    let bytes: Vec<u8> = (0..len)
        .map(|_| ALPHABET[rng.below(ALPHABET.len())])
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(3) {
        match rng.below(3) {
            0 if !bytes.is_empty() => {
                let i = rng.below(bytes.len());
                bytes.remove(i);
            }
            1 => {
                let i = rng.below(bytes.len() + 1);
                bytes.insert(i, ALPHABET[rng.below(ALPHABET.len())]);
            }
            _ if !bytes.is_empty() => {
                let i = rng.below(bytes.len());
                bytes[i] = ALPHABET[rng.below(ALPHABET.len())];
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn parsers_never_panic() {
    let mut rng = Rng::new(2024);
    let sizes = [
        BoardSize::square(1).unwrap(),
        BoardSize::square(9).unwrap(),
        BoardSize::square(19).unwrap(),
        BoardSize::square(25).unwrap(),
        BoardSize::new(7, 11).unwrap(),
    ];
    let mut accepted = 0;
    for round in 0..200_000 {
        let text = if round % 2 == 0 {
            random_text(&mut rng)
        } else {
            mutate(VALID[rng.below(VALID.len())], &mut rng)
        };
        for size in sizes {
            if let Ok(mv) = size.parse_gtp(&text) {
                accepted += 1;
                // Whatever parses must print back to something that parses the same.
                assert_eq!(size.parse_gtp(&size.gtp(mv)), Ok(mv), "{text:?}");
            }
            if let Ok(mv) = size.parse_sgf(&text) {
                assert_eq!(size.parse_sgf(&size.sgf(mv)), Ok(mv), "{text:?}");
            }
        }
        if let Ok(rules) = text.parse::<Rules>() {
            assert_eq!(rules.to_string().parse::<Rules>(), Ok(rules), "{text:?}");
        }
        let _ = BoardSize::parse(&text);
        if let Ok(board) = Board::from_ascii(&text) {
            if let Err(e) = board.check_consistency() {
                panic!("{text:?}: {e}\n{board:?}");
            }
        }
    }
    assert!(
        accepted > 1000,
        "the generator should produce some valid vertices"
    );
}
