//! ARCHITECTURE.md states which crate may depend on which; this checks it
//! against the workspace as `cargo metadata` reads it, so the document
//! cannot drift from the code.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace's folder")
}

/// The workspace's packages: name → (normal dependencies, dev-dependencies),
/// every dependency named, tengen's own and the rest.
struct Workspace {
    packages: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>,
    /// name → the folder of its `Cargo.toml`.
    folders: BTreeMap<String, PathBuf>,
}

impl Workspace {
    fn read() -> Workspace {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let output = Command::new(cargo)
            .args([
                "metadata",
                "--format-version",
                "1",
                "--no-deps",
                "--offline",
            ])
            .current_dir(workspace_root())
            .output()
            .expect("cargo metadata runs");
        assert!(
            output.status.success(),
            "cargo metadata failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let metadata: Value = serde_json::from_slice(&output.stdout).expect("metadata is JSON");
        let mut packages = BTreeMap::new();
        let mut folders = BTreeMap::new();
        for package in metadata["packages"].as_array().expect("packages") {
            let name = package["name"].as_str().expect("name").to_string();
            let manifest = PathBuf::from(package["manifest_path"].as_str().expect("manifest"));
            folders.insert(
                name.clone(),
                manifest.parent().expect("folder").to_path_buf(),
            );
            let (mut normal, mut dev) = (BTreeSet::new(), BTreeSet::new());
            for dependency in package["dependencies"].as_array().expect("dependencies") {
                let dep = dependency["name"].as_str().expect("name").to_string();
                match dependency["kind"].as_str() {
                    None => normal.insert(dep),
                    Some("dev") => dev.insert(dep),
                    // Build dependencies run at compile time only.
                    Some(_) => false,
                };
            }
            packages.insert(name, (normal, dev));
        }
        Workspace { packages, folders }
    }

    fn ours(&self, deps: &BTreeSet<String>) -> BTreeSet<String> {
        deps.iter()
            .filter(|d| self.packages.contains_key(*d))
            .cloned()
            .collect()
    }

    /// Every workspace crate `name` builds on, directly or not.
    fn reaches(&self, name: &str) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![name.to_string()];
        while let Some(next) = stack.pop() {
            for dep in self.ours(&self.packages[&next].0) {
                if seen.insert(dep.clone()) {
                    stack.push(dep);
                }
            }
        }
        seen
    }
}

fn architecture() -> String {
    std::fs::read_to_string(workspace_root().join("ARCHITECTURE.md")).expect("ARCHITECTURE.md")
}

/// The dependency block of "Crates and their dependencies": crate → the
/// tengen crates it depends on, names in full.
fn documented_dependencies(doc: &str, workspace: &Workspace) -> BTreeMap<String, BTreeSet<String>> {
    let section = doc
        .split("## Crates and their dependencies")
        .nth(1)
        .expect("the section");
    let block = section.split("```").nth(1).expect("the dependency block");
    let mut table = BTreeMap::new();
    for line in block.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (name, rest) = match line.strip_prefix("tengen (cli)") {
            Some(rest) => ("tengen".to_string(), rest.trim()),
            None => {
                let (name, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
                (name.to_string(), rest.trim())
            }
        };
        if !workspace.packages.contains_key(&name) {
            // tengen-ray is Python, outside the workspace.
            assert!(
                rest.contains("outside the workspace"),
                "ARCHITECTURE.md names `{name}`, which is not a workspace crate"
            );
            continue;
        }
        let deps: BTreeSet<String> = if rest.starts_with('(') {
            BTreeSet::new()
        } else if let Some(but) = rest.strip_prefix("every crate above but ") {
            let above: BTreeSet<String> = table.keys().cloned().collect();
            let left_out: BTreeSet<String> = but.split(',').map(|c| c.trim().to_string()).collect();
            above
                .into_iter()
                .filter(|c: &String| !left_out.contains(c))
                .collect()
        } else {
            rest.split(',')
                .map(|short| format!("tengen-{}", short.trim()))
                .collect()
        };
        assert!(
            table.insert(name.clone(), deps).is_none(),
            "`{name}` is listed twice"
        );
    }
    table
}

/// A newcomer reads the whole page; the detail belongs in the crates' READMEs.
#[test]
fn the_architecture_page_stays_short() {
    let lines = architecture().lines().count();
    assert!(
        lines <= 400,
        "ARCHITECTURE.md has {lines} lines, over 400: move detail to a crate's README"
    );
}

#[test]
fn the_documented_dependencies_are_the_workspace_s() {
    let workspace = Workspace::read();
    let documented = documented_dependencies(&architecture(), &workspace);
    let mut wrong = Vec::new();
    for (name, (normal, _)) in &workspace.packages {
        let actual = workspace.ours(normal);
        match documented.get(name) {
            None => wrong.push(format!("{name} is not in the table")),
            Some(listed) if *listed != actual => wrong.push(format!(
                "{name}: the table says {listed:?}, Cargo.toml has {actual:?}"
            )),
            Some(_) => {}
        }
    }
    assert!(
        wrong.is_empty(),
        "ARCHITECTURE.md's dependency table is wrong:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_layering_invariants_hold() {
    let workspace = Workspace::read();
    let doc = architecture();
    // tengen-core: no dependencies at all, not only none of ours.
    // (Its benchmarks use criterion: a dev-dependency, never built into
    // the library.)
    let (core, _) = &workspace.packages["tengen-core"];
    assert!(doc.contains("`tengen-core` has no dependencies"));
    assert!(core.is_empty(), "tengen-core depends on {core:?}");
    // Inference builds without training; the servers without research.
    assert!(doc.contains(
        "network inference (`tengen-nn`) does not\n  depend on training (`tengen-train`)"
    ));
    assert!(!workspace.reaches("tengen-nn").contains("tengen-train"));
    for front in ["tengen-web", "tengen-gtp", "tengen-analysis"] {
        assert!(
            !workspace.reaches(front).contains("tengen-research"),
            "{front} builds on tengen-research"
        );
    }
    // The test helpers never ship.
    for (name, (normal, _)) in &workspace.packages {
        assert!(
            !normal.contains("tengen-testing"),
            "{name} depends on tengen-testing outside its tests"
        );
    }
}

/// The paragraph of ARCHITECTURE.md's invariants that starts with `start`.
fn invariant<'a>(doc: &'a str, start: &str) -> &'a str {
    let at = doc
        .find(start)
        .unwrap_or_else(|| panic!("ARCHITECTURE.md says {start:?}"));
    let rest = &doc[at..];
    let end = rest.find("\n- ").unwrap_or(rest.len());
    &rest[..end]
}

/// The workspace crates named in backquotes in `text`.
fn crates_named(text: &str, workspace: &Workspace) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .filter(|word| workspace.packages.contains_key(*word))
        .map(str::to_string)
        .collect()
}

#[test]
fn http_and_json_are_where_the_document_says() {
    let workspace = Workspace::read();
    let doc = architecture();
    let text = invariant(&doc, "only `tengen-web` knows HTTP");
    let json_part = text
        .split("JSON is read")
        .nth(1)
        .expect("the JSON sentence");
    let documented = crates_named(json_part, &workspace);
    let uses = |dep: &str| -> BTreeSet<String> {
        workspace
            .packages
            .iter()
            .filter(|(_, (normal, _))| normal.contains(dep))
            .map(|(name, _)| name.clone())
            .collect()
    };
    assert_eq!(uses("serde_json"), documented, "the crates that know JSON");
    for http in ["axum", "tokio", "hyper"] {
        let users = uses(http);
        assert!(
            users.iter().all(|c| c == "tengen-web"),
            "{http} is used by {users:?}"
        );
    }
}

/// The Rust files under `folder`, recursively.
fn rust_files(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).expect("a readable folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            found.push(path);
        }
    }
}

/// Whether a line of code (not a comment) opens an `unsafe` block, function,
/// impl or trait.
fn has_unsafe_code(line: &str) -> bool {
    let code = line.split("//").next().unwrap_or("");
    [
        "unsafe {",
        "unsafe fn",
        "unsafe impl",
        "unsafe trait",
        "unsafe extern",
    ]
    .iter()
    .any(|form| code.contains(form))
}

#[test]
fn unsafe_is_where_the_document_says_and_each_use_gives_its_reason() {
    let workspace = Workspace::read();
    let doc = architecture();
    let documented = crates_named(invariant(&doc, "`unsafe` lives in"), &workspace);
    let mut with_unsafe = BTreeSet::new();
    for (name, folder) in &workspace.folders {
        let mut files = Vec::new();
        rust_files(&folder.join("src"), &mut files);
        let uses = files.iter().any(|file| {
            std::fs::read_to_string(file)
                .expect("a source file")
                .lines()
                .any(has_unsafe_code)
        });
        let lib = std::fs::read_to_string(folder.join("src/lib.rs")).expect("lib.rs");
        if uses {
            with_unsafe.insert(name.clone());
            for lint in [
                "unsafe_op_in_unsafe_fn",
                "clippy::undocumented_unsafe_blocks",
                "clippy::missing_safety_doc",
            ] {
                assert!(lib.contains(lint), "{name}'s lib.rs does not deny {lint}");
            }
        } else {
            assert!(
                lib.contains("#![forbid(unsafe_code)]"),
                "{name} has no unsafe code but does not forbid it"
            );
        }
    }
    assert_eq!(with_unsafe, documented, "the crates with unsafe code");
}

/// The functions of `text` longer than `limit` lines, from the `fn` line to
/// the brace that closes it at the same indentation (rustfmt's layout).
fn long_functions(text: &str, limit: usize) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (start, line) in lines.iter().enumerate() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let mut words = code.split_whitespace();
        let is_fn = words
            .by_ref()
            .take_while(|w| {
                w.starts_with("pub")
                    || ["const", "unsafe", "async", "extern", "\"C\"", "fn"].contains(w)
            })
            .any(|w| w == "fn")
            || code.starts_with("fn ");
        if !is_fn {
            continue;
        }
        // The line that opens the body; a declaration ends with `;`.
        let Some(open) = (start..lines.len())
            .find(|&k| lines[k].trim_end().ends_with('{') || lines[k].trim_end().ends_with(';'))
        else {
            continue;
        };
        if lines[open].trim_end().ends_with(';') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = (open + 1..lines.len()).find(|&k| lines[k].trim_end() == close) {
            if end - start + 1 > limit {
                long.push((start + 1, end - start + 1));
            }
        }
    }
    long
}

#[test]
fn no_function_over_120_lines_and_no_source_file_over_800() {
    let workspace = Workspace::read();
    let mut wrong = Vec::new();
    for folder in workspace.folders.values() {
        let mut files = Vec::new();
        for sub in ["src", "tests", "benches", "examples"] {
            if folder.join(sub).is_dir() {
                rust_files(&folder.join(sub), &mut files);
            }
        }
        for file in files {
            let text = std::fs::read_to_string(&file).expect("a source file");
            let name = file
                .strip_prefix(workspace_root())
                .unwrap_or(&file)
                .display()
                .to_string();
            let is_test = name.contains("/tests/") || name.ends_with("/tests.rs");
            let count = text.lines().count();
            if !is_test && count > 800 {
                wrong.push(format!("{name}: {count} lines"));
            }
            for (line, length) in long_functions(&text, 120) {
                wrong.push(format!("{name}:{line}: a function of {length} lines"));
            }
        }
    }
    assert!(wrong.is_empty(), "too long:\n{}", wrong.join("\n"));
}

#[test]
fn long_functions_are_found() {
    let body = "    x();\n".repeat(130);
    let text = format!("impl A {{\n    pub(crate) fn f(\n        a: u8,\n    ) {{\n{body}    }}\n\n    fn g() {{}}\n}}\n");
    assert_eq!(long_functions(&text, 120), vec![(2, 134)]);
    assert!(long_functions(&text, 140).is_empty());
}

#[test]
fn the_network_model_does_not_name_the_runtime() {
    let doc = architecture();
    assert!(
        doc.contains("`model/` never uses `forward`"),
        "ARCHITECTURE.md states the invariant this checks"
    );
    let mut files = Vec::new();
    rust_files(
        &workspace_root().join("crates/katago/src/model"),
        &mut files,
    );
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            assert!(
                !code.contains("forward::") && !code.contains("forward::{"),
                "{}:{}: the model names the forward pass: {line}",
                file.display(),
                i + 1
            );
        }
    }
}
