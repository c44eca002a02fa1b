//! The network tengen's KataGo tests compare with KataGo's own answers: the
//! one the PyPI package `katrain==1.20.0` ships. It is not part of tengen;
//! `scripts/katago-model` downloads the package with pip once and caches the
//! network under `target/katago/`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// The reference network's path, fetched on first use (once per process).
///
/// # Panics
///
/// When the script cannot run or the download is impossible, with pip's
/// message: the tests that need the network cannot run without it.
pub fn model_path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let output = Command::new("bash")
            .arg(root.join("scripts/katago-model"))
            .output()
            .expect("run scripts/katago-model");
        assert!(
            output.status.success(),
            "cannot get the KataGo network katrain==1.20.0 from PyPI (needed by this test): {}",
            String::from_utf8_lossy(&output.stderr)
        );
        PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
    })
}
