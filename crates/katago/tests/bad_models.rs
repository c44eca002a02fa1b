//! Damaged model files are refused with the offset and layer, never a
//! panic: the real network cut short at many places and with bytes changed
//! in its text tokens, and files that are not KataGo models at all.

use std::io::Read;
use tengen_katago::reference::model_path;

use tengen_katago::model::{ModelDesc, ModelError};

fn decompressed() -> Vec<u8> {
    let file = std::fs::File::open(model_path()).unwrap();
    let mut bytes = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

/// A small deterministic generator for the damage.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn truncated_models_name_where_they_end() {
    let bytes = decompressed();
    assert!(ModelDesc::parse(&bytes).is_ok());
    let mut rng = Lcg(7);
    let mut cuts: Vec<usize> = (0..40).map(|_| rng.next() as usize % bytes.len()).collect();
    // The file ends with a newline after the last weights: cut before it.
    cuts.extend([0, 1, 10, 100, 1000, bytes.len() - 2]);
    for cut in cuts {
        let Err(error) = ModelDesc::parse(&bytes[..cut]) else {
            panic!("the model cut at byte {cut} was read");
        };
        assert!(error.offset <= cut, "cut at {cut}: {error}");
        assert!(!error.layer.is_empty() && !error.reason.is_empty());
    }
    // Cut inside the last weights: the message names the layer.
    let error = ModelDesc::parse(&bytes[..bytes.len() - 2]).unwrap_err();
    assert!(error.layer.contains("conv_ownership"), "{error}");
    assert!(error.reason.contains("truncated"), "{error}");
}

#[test]
fn changed_tokens_are_refused_or_read_but_never_panic() {
    let bytes = decompressed();
    // Offsets of the text tokens (outside the weight arrays) in the first
    // part of the file: the header, the trunk's first layers.
    let mut rng = Lcg(11);
    let replacements: &[&[u8]] = &[b"0", b"-1", b"99999999999", b"x", b"@BIN@", b"\n", b"2"];
    for _ in 0..150 {
        let mut damaged = bytes[..2_000_000].to_vec();
        let at = rng.next() as usize % 1200;
        let with = replacements[rng.next() as usize % replacements.len()];
        damaged.splice(at..at + 1, with.iter().copied());
        // Whatever happens, it returns.
        let _ = ModelDesc::parse(&damaged);
    }
    // A version tengen does not read.
    let text = String::from_utf8_lossy(&bytes[..40]).to_string();
    let old = text.replacen("\n15\n", "\n7\n", 1);
    let mut versioned = old.into_bytes();
    versioned.extend_from_slice(&bytes[40..]);
    let error = ModelDesc::parse(&versioned).unwrap_err();
    assert!(
        error.reason.contains("model version 7 is not supported"),
        "{error}"
    );
}

#[test]
fn files_that_are_not_models_are_named_as_such() {
    let dir = std::env::temp_dir().join(format!("tengen-bad-models-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, &[u8], &str); 4] = [
        ("empty.bin", b"", "not a KataGo model"),
        (
            "words.bin",
            b"hello world, this is text",
            "not a KataGo model",
        ),
        (
            "binary.bin",
            &[0u8, 1, 2, 3, 255, 254],
            "not a KataGo model",
        ),
        (
            "fake.bin.gz",
            &[0x1f, 0x8b, 8, 0, 1, 2, 3],
            "gzip stream is corrupt",
        ),
    ];
    for (name, content, reason) in cases {
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        let error = ModelDesc::load(&path).unwrap_err();
        assert!(
            matches!(error, ModelError::Format { .. }),
            "{name}: {error}"
        );
        assert!(error.to_string().contains(reason), "{name}: {error}");
        assert!(
            error.to_string().contains(name),
            "the message names the file: {error}"
        );
    }
    assert!(matches!(
        ModelDesc::load(&dir).unwrap_err(),
        ModelError::Directory(_)
    ));
    assert!(matches!(
        ModelDesc::load(&dir.join("missing.bin.gz")).unwrap_err(),
        ModelError::Io { .. }
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
