//! Model files: a saved model reloads to identical outputs; damaged,
//! truncated and inconsistent files are refused with a clear error.

use tengen_core::{BoardSize, Game, Move, Rules};
use tengen_nn::model::{Model, ModelError};
use tengen_nn::net::Architecture;

fn size(n: usize) -> BoardSize {
    BoardSize::square(n).unwrap()
}

fn sample_games(n: usize) -> Vec<Game> {
    let mut games = Vec::new();
    let mut game = Game::new(size(n), Rules::default());
    games.push(game.clone());
    for text in ["C3", "D4", "B2", "pass", "D2"] {
        let mv = size(n).parse_gtp(text).unwrap();
        game.play(mv).unwrap();
        games.push(game.clone());
    }
    games
}

fn tiny(encoder: &str, arch: Architecture) -> Model {
    Model::untrained(encoder, size(5), arch, 11).unwrap()
}

#[test]
fn a_saved_model_reloads_to_identical_outputs() {
    let games = sample_games(5);
    let refs: Vec<&Game> = games.iter().collect();
    for (encoder, arch) in [
        (
            "zero",
            Architecture::Residual {
                blocks: 2,
                channels: 8,
            },
        ),
        ("sevenplane", Architecture::Small),
    ] {
        let model = tiny(encoder, arch);
        let bytes = model.to_bytes().unwrap();
        let loaded = Model::from_bytes(&bytes).unwrap();
        assert_eq!(loaded.metadata(), model.metadata());
        assert_eq!(
            loaded.predict(&refs),
            model.predict(&refs),
            "{encoder} {arch}"
        );
        // And through a file.
        let dir =
            std::env::temp_dir().join(format!("tengen-model-{}-{encoder}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.tgm");
        model.save(&path).unwrap();
        assert_eq!(
            Model::load(&path).unwrap().predict(&refs),
            model.predict(&refs)
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn predictions_are_probabilities_and_values_in_range() {
    let model = tiny(
        "zero",
        Architecture::Residual {
            blocks: 1,
            channels: 4,
        },
    );
    let games = sample_games(5);
    let refs: Vec<&Game> = games.iter().collect();
    for prediction in model.predict(&refs) {
        assert_eq!(prediction.policy.len(), 26);
        let total: f32 = prediction.policy.iter().sum();
        assert!((total - 1.0).abs() < 1e-4, "{total}");
        let value = prediction.value.expect("a value head");
        assert!((-1.0..=1.0).contains(&value));
    }
    let policy_only = tiny("oneplane", Architecture::Small);
    assert!(policy_only.predict(&refs[..1])[0].value.is_none());
    assert_eq!(Move::Pass, Move::Pass);
}

#[test]
fn truncated_and_damaged_files_are_refused() {
    let model = tiny("simple", Architecture::Small);
    let bytes = model.to_bytes().unwrap();
    for cut in [
        0,
        4,
        8,
        15,
        40,
        bytes.len() / 2,
        bytes.len() - 9,
        bytes.len() - 1,
    ] {
        let err = Model::from_bytes(&bytes[..cut]).unwrap_err();
        assert!(
            matches!(err, ModelError::Truncated { .. } | ModelError::BadMagic),
            "cut at {cut}: {err}"
        );
        assert!(!err.to_string().is_empty());
    }
    let mut damaged = bytes.clone();
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0x40;
    let err = Model::from_bytes(&damaged).unwrap_err();
    assert!(matches!(err, ModelError::Checksum { .. }), "{err}");
    assert!(err.to_string().contains("damaged"), "{err}");
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(matches!(
        Model::from_bytes(&extra).unwrap_err(),
        ModelError::TrailingBytes(1)
    ));
    let mut magic = bytes;
    magic[0] = b'X';
    assert!(matches!(
        Model::from_bytes(&magic).unwrap_err(),
        ModelError::BadMagic
    ));
}

/// Re-writes a model file's metadata (and checksum), as a tool that edits
/// the JSON by hand would.
fn with_metadata(bytes: &[u8], edit: impl Fn(&str) -> String) -> Vec<u8> {
    let meta_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let meta = std::str::from_utf8(&bytes[16..16 + meta_len]).unwrap();
    let new_meta = edit(meta);
    let mut out = Vec::new();
    out.extend_from_slice(&bytes[..12]);
    out.extend_from_slice(&(new_meta.len() as u32).to_le_bytes());
    out.extend_from_slice(new_meta.as_bytes());
    out.extend_from_slice(&bytes[16 + meta_len..bytes.len() - 8]);
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in &out {
        hash ^= b as u64;
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    out.extend_from_slice(&hash.to_le_bytes());
    out
}

#[test]
fn wrong_metadata_is_refused_with_a_reason() {
    let model = tiny("sevenplane", Architecture::Small);
    let bytes = model.to_bytes().unwrap();
    // The untouched rewrite still loads: the test's re-checksumming is right.
    assert!(Model::from_bytes(&with_metadata(&bytes, |m| m.to_string())).is_ok());

    let unknown = with_metadata(&bytes, |m| m.replace("\"sevenplane\"", "\"eightplane\""));
    let err = Model::from_bytes(&unknown).unwrap_err();
    assert!(matches!(err, ModelError::Inconsistent(_)), "{err}");
    assert!(err.to_string().contains("eightplane"), "{err}");

    let planes = with_metadata(&bytes, |m| m.replace("\"planes\": 7", "\"planes\": 11"));
    let err = Model::from_bytes(&planes).unwrap_err();
    assert!(matches!(err, ModelError::Inconsistent(_)), "{err}");

    // Another encoder with the same planes would fit the metadata but not the
    // weights' shapes: sevenplane → a board of another size.
    let board = with_metadata(&bytes, |m| {
        m.replace("\"width\": 5", "\"width\": 6")
            .replace("\"height\": 5", "\"height\": 6")
            .replace("\"moves\": 25", "\"moves\": 36")
    });
    let err = Model::from_bytes(&board).unwrap_err();
    assert!(matches!(err, ModelError::Weights(_)), "{err}");

    let arch = with_metadata(&bytes, |m| m.replace("\"small\"", "\"medium\""));
    let err = Model::from_bytes(&arch).unwrap_err();
    assert!(matches!(err, ModelError::Weights(_)), "{err}");

    let garbage = with_metadata(&bytes, |_| "{not json".to_string());
    assert!(matches!(
        Model::from_bytes(&garbage).unwrap_err(),
        ModelError::Metadata(_)
    ));

    let err = model.expect_size(size(9)).unwrap_err();
    assert!(err.to_string().contains("5x5"), "{err}");
}
