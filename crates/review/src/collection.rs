//! Many records at once: which files, where each review goes, which are
//! done already (a rerun skips them), and which belong to this shard of a
//! run split over several machines.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Why a collection could not be planned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// An input is neither a file nor a folder.
    #[error("{0}: no such file or folder")]
    Missing(String),
    /// A folder could not be listed.
    #[error("{path}: cannot list the folder: {reason}")]
    Unlisted {
        /// The folder.
        path: String,
        /// Why.
        reason: String,
    },
    /// Two inputs would write the same output.
    #[error("{first} and {second} have the same name: their reviews would overwrite each other")]
    SameName {
        /// The first input.
        first: String,
        /// The second.
        second: String,
    },
    /// No record to review.
    #[error("no SGF records among the inputs")]
    Empty,
}

/// One record to review and where its review goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// Its place in the whole collection, from 0.
    pub index: usize,
    /// The record.
    pub input: PathBuf,
    /// Its review.
    pub output: PathBuf,
}

/// What a run over a collection does.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The records to review, in the collection's order.
    pub jobs: Vec<Job>,
    /// This shard's records whose review is already there.
    pub done: Vec<Job>,
    /// Records in the whole collection, every shard's.
    pub total: usize,
}

/// The records among `inputs`: files as given, folders as their `.sgf`
/// files (not their subfolders) in name order.
pub fn records(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, PlanError> {
    let mut records = Vec::new();
    for input in inputs {
        if input.is_dir() {
            let entries = std::fs::read_dir(input).map_err(|e| PlanError::Unlisted {
                path: input.display().to_string(),
                reason: e.to_string(),
            })?;
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.is_file() && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("sgf"))
                })
                .collect();
            found.sort();
            records.extend(found);
        } else if input.is_file() {
            records.push(input.clone());
        } else {
            return Err(PlanError::Missing(input.display().to_string()));
        }
    }
    if records.is_empty() {
        return Err(PlanError::Empty);
    }
    Ok(records)
}

/// The plan for reviewing `records` into `out_dir` (each review under its
/// record's file name), in shard `shard` of `shards`: the records whose
/// place in the collection leaves `shard` when divided by `shards`, less
/// those whose review is there already.
pub fn plan(
    records: &[PathBuf],
    out_dir: &Path,
    shard: usize,
    shards: usize,
) -> Result<Plan, PlanError> {
    let mut names: HashMap<&std::ffi::OsStr, &Path> = HashMap::new();
    let mut plan = Plan {
        total: records.len(),
        ..Plan::default()
    };
    for (index, input) in records.iter().enumerate() {
        let name = input
            .file_name()
            .ok_or_else(|| PlanError::Missing(input.display().to_string()))?;
        if let Some(first) = names.insert(name, input) {
            return Err(PlanError::SameName {
                first: first.display().to_string(),
                second: input.display().to_string(),
            });
        }
        if index % shards.max(1) != shard {
            continue;
        }
        let job = Job {
            index,
            input: input.clone(),
            output: out_dir.join(name),
        };
        if job.output.is_file() {
            plan.done.push(job);
        } else {
            plan.jobs.push(job);
        }
    }
    Ok(plan)
}

/// Writes `text` to `path` whole or not at all: into a file beside it
/// first, renamed over it when complete, so that a run stopped halfway
/// leaves no half-written review that a rerun would take for done.
pub fn write_whole(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let partial = path.with_file_name(format!(".{name}.partial"));
    std::fs::write(&partial, text)?;
    std::fs::rename(&partial, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_the_collection_and_done_reviews_are_skipped() {
        let dir = std::env::temp_dir().join(format!("tengen-review-plan-{}", std::process::id()));
        let inputs = dir.join("in");
        let out = dir.join("out");
        std::fs::create_dir_all(&inputs).unwrap();
        std::fs::create_dir_all(&out).unwrap();
        for name in ["c.sgf", "a.sgf", "b.SGF", "notes.txt"] {
            std::fs::write(inputs.join(name), "(;)").unwrap();
        }
        let records = records(std::slice::from_ref(&inputs)).unwrap();
        let names: Vec<_> = records
            .iter()
            .map(|p| p.file_name().unwrap().to_owned())
            .collect();
        assert_eq!(names, ["a.sgf", "b.SGF", "c.sgf"]);
        write_whole(&out.join("b.SGF"), "(;)").unwrap();
        let whole = plan(&records, &out, 0, 1).unwrap();
        assert_eq!(whole.total, 3);
        assert_eq!(
            whole.jobs.iter().map(|j| j.index).collect::<Vec<_>>(),
            [0, 2]
        );
        assert_eq!(whole.done.iter().map(|j| j.index).collect::<Vec<_>>(), [1]);
        let mut seen: Vec<usize> = (0..2)
            .flat_map(|shard| {
                let part = plan(&records, &out, shard, 2).unwrap();
                part.jobs.into_iter().chain(part.done).map(|j| j.index)
            })
            .collect();
        seen.sort_unstable();
        assert_eq!(seen, [0, 1, 2]);
        // The same name from two folders is refused.
        let twice = [inputs.join("a.sgf"), dir.join("a.sgf")];
        std::fs::write(&twice[1], "(;)").unwrap();
        assert!(matches!(
            plan(&twice, &out, 0, 1),
            Err(PlanError::SameName { .. })
        ));
        let missing = dir.join("nothing");
        assert_eq!(
            super::records(std::slice::from_ref(&missing)),
            Err(PlanError::Missing(missing.display().to_string()))
        );
        // No partial file is left behind.
        assert!(!out.join(".b.SGF.partial").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
