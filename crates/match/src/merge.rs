//! Merging results files: the shards of a match (or reruns of it) become one
//! set of games and one report.
//!
//! Every line of every file must belong to the same match (the same
//! [`crate::MatchConfig::key`]); a game that appears more than once is kept
//! once when its copies agree on everything but the timings and the SGF
//! file's path (a game replayed after a lost worker plays the same moves at
//! another speed), and refused when they disagree.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::record::{EngineTime, GameRecord};
use crate::report::MatchReport;
use crate::results::{self, MatchSettings};

/// Why results files could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No files were given.
    #[error("no results files to merge")]
    NoFiles,
    /// A file could not be read.
    #[error("results file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// The files hold no readable line.
    #[error("the results files hold no games")]
    NoGames,
    /// Two lines belong to different matches.
    #[error(
        "{} line {line} is from another match than {} line {first_line}:\n  '{key}'\n  '{first_key}'",
        path.display(),
        first_path.display()
    )]
    DifferentMatch {
        /// The file of the first line read.
        first_path: PathBuf,
        /// Its line number, from 1.
        first_line: usize,
        /// Its match key.
        first_key: String,
        /// The file of the line that differs.
        path: PathBuf,
        /// Its line number, from 1.
        line: usize,
        /// Its match key.
        key: String,
    },
    /// The same game appears twice with different outcomes.
    #[error(
        "game {index} differs between {} line {first_line} and {} line {line}: {what}",
        first_path.display(),
        path.display()
    )]
    Conflict {
        /// The game's index.
        index: usize,
        /// Where it was first read.
        first_path: PathBuf,
        /// Its line number there, from 1.
        first_line: usize,
        /// Where the other copy is.
        path: PathBuf,
        /// Its line number there, from 1.
        line: usize,
        /// What differs.
        what: String,
    },
    /// No line names the engines, board and rules (files written before
    /// results lines carried them).
    #[error("no results line names the engines, board and rules (the files were written by a tengen from before lines carried them)")]
    NoSettings,
}

/// Results files merged: one line per game, in index order.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// The match the games belong to.
    pub settings: MatchSettings,
    /// Every game once, in index order, with the line it was read from.
    pub games: Vec<(GameRecord, String)>,
    /// Lines that repeated a game already read (and agreed with it).
    pub duplicates: usize,
    /// Lines skipped because they could not be read (a line cut short by a
    /// crash), as `file:line: reason`.
    pub skipped: Vec<String>,
}

impl Merged {
    /// The merged results file's text: each game's line as it was read, in
    /// index order.
    pub fn text(&self) -> String {
        self.games
            .iter()
            .map(|(_, line)| format!("{line}\n"))
            .collect()
    }

    /// The report over the merged games, as the match prints it.
    pub fn report(&self) -> MatchReport {
        let games: Vec<GameRecord> = self.games.iter().map(|(r, _)| r.clone()).collect();
        MatchReport {
            names: games
                .first()
                .map(|r| r.names.clone())
                .unwrap_or_else(|| self.settings.engines.clone()),
            engines: self.settings.engines.clone(),
            size: self.settings.size,
            rules: self.settings.rules,
            resumed: 0,
            games,
        }
    }
}

/// Where a game was first read.
struct Seen {
    path: PathBuf,
    line: usize,
}

/// Merges the results files at `paths` (see the module's description).
pub fn merge_files(paths: &[PathBuf]) -> Result<Merged, MergeError> {
    if paths.is_empty() {
        return Err(MergeError::NoFiles);
    }
    let mut first: Option<(Seen, String)> = None;
    let mut settings: Option<MatchSettings> = None;
    let mut games: Vec<(GameRecord, String, Seen)> = Vec::new();
    // Where each game index is in `games`.
    let mut position: HashMap<usize, usize> = HashMap::new();
    let mut duplicates = 0;
    let mut skipped = Vec::new();
    for path in paths {
        let text = fs::read_to_string(path).map_err(|source| MergeError::Read {
            path: path.clone(),
            source,
        })?;
        for (number, text) in text.lines().enumerate() {
            let line = number + 1;
            if text.trim().is_empty() {
                continue;
            }
            let read = match results::read_line(text) {
                Ok(read) => read,
                Err(reason) => {
                    skipped.push(format!("{}:{line}: {reason}", path.display()));
                    continue;
                }
            };
            match &first {
                None => {
                    first = Some((
                        Seen {
                            path: path.clone(),
                            line,
                        },
                        read.key.clone(),
                    ))
                }
                Some((seen, key)) if *key != read.key => {
                    return Err(MergeError::DifferentMatch {
                        first_path: seen.path.clone(),
                        first_line: seen.line,
                        first_key: key.clone(),
                        path: path.clone(),
                        line,
                        key: read.key,
                    });
                }
                Some(_) => {}
            }
            if settings.is_none() {
                settings = read.settings;
            }
            match position.get(&read.record.index) {
                None => {
                    position.insert(read.record.index, games.len());
                    games.push((
                        read.record,
                        text.to_string(),
                        Seen {
                            path: path.clone(),
                            line,
                        },
                    ));
                }
                Some(&at) => {
                    let (kept, _, seen) = &games[at];
                    if let Some(what) = difference(kept, &read.record) {
                        return Err(MergeError::Conflict {
                            index: kept.index,
                            first_path: seen.path.clone(),
                            first_line: seen.line,
                            path: path.clone(),
                            line,
                            what,
                        });
                    }
                    duplicates += 1;
                }
            }
        }
    }
    if first.is_none() {
        return Err(MergeError::NoGames);
    }
    let settings = settings.ok_or(MergeError::NoSettings)?;
    games.sort_by_key(|(r, _, _)| r.index);
    Ok(Merged {
        settings,
        games: games.into_iter().map(|(r, line, _)| (r, line)).collect(),
        duplicates,
        skipped,
    })
}

/// What differs between two records of the same game, timings and the SGF
/// path aside; `None` when they are the same game.
fn difference(a: &GameRecord, b: &GameRecord) -> Option<String> {
    let comparable = |r: &GameRecord| GameRecord {
        time: r.time.map(|t| EngineTime {
            moves: t.moves,
            ..EngineTime::default()
        }),
        move_times: Vec::new(),
        sgf: None,
        ..r.clone()
    };
    let (a, b) = (comparable(a), comparable(b));
    if a == b {
        return None;
    }
    let fields: [(&str, String, String); 6] = [
        ("black", a.black.to_string(), b.black.to_string()),
        ("result", a.result.clone(), b.result.clone()),
        ("end", a.end.to_string(), b.end.to_string()),
        ("moves", a.moves.to_string(), b.moves.to_string()),
        ("names", format!("{:?}", a.names), format!("{:?}", b.names)),
        (
            "forfeit",
            format!("{:?}", a.forfeit),
            format!("{:?}", b.forfeit),
        ),
    ];
    Some(
        fields
            .iter()
            .find(|(_, x, y)| x != y)
            .map(|(name, x, y)| format!("{name} {x} against {y}"))
            .unwrap_or_else(|| "the counts or the engines' scores".to_string()),
    )
}

/// Writes the merged file to `path`.
pub fn write_merged(merged: &Merged, path: &Path) -> io::Result<()> {
    fs::write(path, merged.text())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::GameEnd;
    use std::time::Duration;
    use tengen_core::{BoardSize, Rules};

    fn settings(key: &str) -> MatchSettings {
        MatchSettings {
            key: key.to_string(),
            engines: ["a".to_string(), "b".to_string()],
            size: BoardSize::square(9).unwrap(),
            rules: Rules::preset("chinese").unwrap(),
        }
    }

    fn game(index: usize, winner: usize, seconds: u64) -> GameRecord {
        GameRecord {
            index,
            black: index % 2,
            winner: Some(winner),
            result: if winner == index % 2 { "B+R" } else { "W+R" }.to_string(),
            end: GameEnd::Resignation,
            moves: 40 + index,
            forfeit: None,
            dead_stones: 0,
            dead_agreed: None,
            engine_scores: [None, None],
            scores_agree: [None, None],
            time: [EngineTime {
                moves: 20,
                total: Duration::from_secs(seconds),
                max: Duration::from_secs(1),
            }; 2],
            move_times: Vec::new(),
            names: ["A 1".to_string(), "B 1".to_string()],
            sgf: Some(PathBuf::from(format!("shard{seconds}/game-{index:04}.sgf"))),
            opening: None,
        }
    }

    fn write(dir: &Path, name: &str, lines: &[String]) -> PathBuf {
        let path = dir.join(name);
        fs::write(&path, lines.join("\n") + "\n").unwrap();
        path
    }

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tengen-merge-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn shards_merge_in_index_order_and_repeats_count_once() {
        let dir = scratch("order");
        let key = settings("k");
        let line = |i, w, s| results::to_line(&key, &game(i, w, s));
        let a = write(&dir, "a.jsonl", &[line(0, 0, 1), line(2, 1, 1)]);
        // Game 2 again, replayed at another speed into another folder.
        let b = write(
            &dir,
            "b.jsonl",
            &[line(3, 0, 2), line(1, 1, 2), line(2, 1, 2)],
        );
        let merged = merge_files(&[a, b]).unwrap();
        let indices: Vec<usize> = merged.games.iter().map(|(r, _)| r.index).collect();
        assert_eq!(indices, vec![0, 1, 2, 3]);
        assert_eq!(merged.duplicates, 1);
        assert_eq!(merged.settings, key);
        assert_eq!(merged.text().lines().count(), 4);
        assert_eq!(merged.text().lines().nth(2), Some(line(2, 1, 1).as_str()));
        let report = merged.report();
        assert_eq!(report.wins(), [2, 2]);
        assert_eq!(report.games.len(), 4);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn other_matches_and_conflicts_are_refused_with_the_reason() {
        let dir = scratch("refuse");
        let a = write(
            &dir,
            "a.jsonl",
            &[results::to_line(&settings("k1"), &game(0, 0, 1))],
        );
        let b = write(
            &dir,
            "b.jsonl",
            &[results::to_line(&settings("k2"), &game(1, 0, 1))],
        );
        let err = merge_files(&[a.clone(), b.clone()])
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("b.jsonl line 1 is from another match than"),
            "{err}"
        );
        assert!(err.contains("a.jsonl line 1"), "{err}");
        assert!(err.contains("'k2'") && err.contains("'k1'"), "{err}");

        let c = write(
            &dir,
            "c.jsonl",
            &[results::to_line(&settings("k1"), &game(0, 1, 1))],
        );
        let err = merge_files(&[a.clone(), c]).unwrap_err().to_string();
        assert!(err.starts_with("game 0 differs between"), "{err}");
        assert!(err.contains("result B+R against W+R"), "{err}");

        assert!(matches!(merge_files(&[]), Err(MergeError::NoFiles)));
        let empty = write(&dir, "empty.jsonl", &[]);
        assert!(matches!(merge_files(&[empty]), Err(MergeError::NoGames)));
        let missing = dir.join("missing.jsonl");
        let err = merge_files(&[missing]).unwrap_err().to_string();
        assert!(err.contains("missing.jsonl"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_line_cut_short_is_skipped_and_listed() {
        let dir = scratch("cut");
        let line = results::to_line(&settings("k"), &game(0, 0, 1));
        let path = write(
            &dir,
            "a.jsonl",
            &[line, "{\"match\":\"k\",\"ga".to_string()],
        );
        let merged = merge_files(&[path]).unwrap();
        assert_eq!(merged.games.len(), 1);
        assert_eq!(merged.skipped.len(), 1);
        assert!(
            merged.skipped[0].contains("a.jsonl:2"),
            "{:?}",
            merged.skipped
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
