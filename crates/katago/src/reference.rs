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

/// KataGo's `kata-raw-nn` answer for one position, as
/// `tests/data/kata-raw-nn.txt` holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct RawAnswer {
    /// The position's name.
    pub name: String,
    /// The scalar outputs by KataGo's names (`whiteWin`, `whiteLead`, ...).
    pub values: Vec<(String, f64)>,
    /// The policy row by row from the top, `None` where illegal.
    pub policy: Vec<Option<f64>>,
    /// The pass's policy.
    pub pass: Option<f64>,
    /// White's ownership row by row from the top.
    pub ownership: Vec<f64>,
}

impl RawAnswer {
    /// The scalar output of that name.
    ///
    /// # Panics
    ///
    /// If the answer has none.
    pub fn value(&self, key: &str) -> f64 {
        self.values
            .iter()
            .find(|(k, _)| k == key)
            .unwrap_or_else(|| panic!("{}: no {key} in the answer", self.name))
            .1
    }
}

/// Reads a file of `kata-raw-nn` answers, each block headed `# NAME`.
///
/// # Panics
///
/// On a malformed file (it is test data).
pub fn read_answers(text: &str) -> Vec<RawAnswer> {
    let mut blocks = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(name) = line.strip_prefix("# ") else {
            continue;
        };
        let mut e = RawAnswer {
            name: name.to_string(),
            values: Vec::new(),
            policy: Vec::new(),
            pass: None,
            ownership: Vec::new(),
        };
        let mut section = "";
        while let Some(line) = lines.peek() {
            if line.starts_with("# ") {
                break;
            }
            let line = lines.next().unwrap();
            let mut words = line.split_whitespace();
            match words.next() {
                None => {}
                Some("symmetry") => {}
                Some("policy") => section = "policy",
                Some("whiteOwnership") => section = "ownership",
                Some("policyPass") => {
                    e.pass = words
                        .next()
                        .and_then(|w| w.parse::<f64>().ok())
                        .filter(|v| !v.is_nan());
                }
                Some(first)
                    if first.chars().next().unwrap().is_ascii_alphabetic() && first != "NAN" =>
                {
                    e.values
                        .push((first.to_string(), words.next().unwrap().parse().unwrap()));
                }
                Some(_) => {
                    for word in line.split_whitespace() {
                        match section {
                            "policy" => e
                                .policy
                                .push(word.parse::<f64>().ok().filter(|v| !v.is_nan())),
                            _ => e.ownership.push(word.parse().unwrap()),
                        }
                    }
                }
            }
        }
        blocks.push(e);
    }
    blocks
}
