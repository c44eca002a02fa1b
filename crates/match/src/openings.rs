//! Set openings for a match (`tengen match --openings FILE|DIR`): each game
//! starts from one of them, every opening played twice with the colours
//! swapped, as GoGui's `twogtp -openings` and chess's opening books do. At a
//! fixed visit count engines are nearly deterministic, so a match without
//! set openings replays the same few games.
//!
//! An opening is a sequence of moves from the empty board, read from
//!
//! - an SGF record: its main line (setup stones are refused: engines are
//!   told the opening by `play` commands);
//! - a text file: one opening per line, GTP vertices separated by spaces,
//!   Black first and the colours alternating (`pass` allowed); `#` starts a
//!   comment, blank lines are skipped;
//! - a directory: its `.sgf` and `.txt` files, in name order.

use std::fs;
use std::path::Path;

use tengen_core::{Action, BoardSize, Color, Game, Move, Rules};

/// One opening: moves from the empty board.
#[derive(Clone, Debug, PartialEq)]
pub struct Opening {
    /// Where it came from, for the records: `file.sgf`, or `file.txt:7`.
    pub name: String,
    /// The moves, in order.
    pub moves: Vec<(Color, Move)>,
}

/// Why a set of openings could not be read.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    /// The file or directory could not be read.
    #[error("cannot read {path}: {reason}")]
    Read {
        /// The path.
        path: String,
        /// Why.
        reason: String,
    },
    /// An opening that is not one.
    #[error("{name}: {reason}")]
    Bad {
        /// Which opening.
        name: String,
        /// Why.
        reason: String,
    },
    /// Nothing found.
    #[error("no openings in {0}")]
    Empty(String),
}

impl Opening {
    /// Plays the opening on `game` (the empty board), or says why it
    /// cannot be played there.
    pub fn play_on(&self, game: &mut Game) -> Result<(), String> {
        for (turn, &(color, mv)) in self.moves.iter().enumerate() {
            game.play_as(color, mv).map_err(|reason| {
                format!(
                    "move {} ({} {}) is illegal: {reason}",
                    turn + 1,
                    color.letter(),
                    game.size().gtp(mv)
                )
            })?;
            if game.is_over() {
                return Err(format!("the game is over after move {}", turn + 1));
            }
        }
        Ok(())
    }
}

/// The openings at `path` for games on `size` under `rules`, each checked
/// to be playable.
pub fn load_openings(
    path: &Path,
    size: BoardSize,
    rules: Rules,
) -> Result<Vec<Opening>, OpeningsError> {
    let read_error = |reason: std::io::Error| OpeningsError::Read {
        path: path.display().to_string(),
        reason: reason.to_string(),
    };
    let mut openings = Vec::new();
    if path.is_dir() {
        let mut files: Vec<_> = fs::read_dir(path)
            .map_err(read_error)?
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|p| {
                p.is_file()
                    && p.extension().is_some_and(|e| {
                        e.eq_ignore_ascii_case("sgf") || e.eq_ignore_ascii_case("txt")
                    })
            })
            .collect();
        files.sort();
        for file in files {
            openings.extend(load_file(&file, size)?);
        }
    } else {
        openings = load_file(path, size)?;
    }
    if openings.is_empty() {
        return Err(OpeningsError::Empty(path.display().to_string()));
    }
    for opening in &openings {
        opening
            .play_on(&mut Game::new(size, rules))
            .map_err(|reason| OpeningsError::Bad {
                name: opening.name.clone(),
                reason,
            })?;
    }
    Ok(openings)
}

/// The openings of one file: an SGF record, or a text file of move lists.
fn load_file(path: &Path, size: BoardSize) -> Result<Vec<Opening>, OpeningsError> {
    let bytes = fs::read(path).map_err(|reason| OpeningsError::Read {
        path: path.display().to_string(),
        reason: reason.to_string(),
    })?;
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let is_sgf = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("sgf"));
    if is_sgf {
        return Ok(vec![from_sgf(&name, &bytes, size)?]);
    }
    let text = String::from_utf8(bytes).map_err(|_| OpeningsError::Bad {
        name: name.clone(),
        reason: "not UTF-8 text".to_string(),
    })?;
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let line = line.split('#').next().unwrap_or("").trim();
            (!line.is_empty()).then(|| from_line(&format!("{name}:{}", i + 1), line, size))
        })
        .collect()
}

/// An opening from a line of GTP vertices, Black first.
fn from_line(name: &str, line: &str, size: BoardSize) -> Result<Opening, OpeningsError> {
    let mut moves = Vec::new();
    let mut color = Color::Black;
    for word in line.split_whitespace() {
        let mv = size.parse_gtp(word).map_err(|reason| OpeningsError::Bad {
            name: name.to_string(),
            reason: format!("{word:?}: {reason}"),
        })?;
        moves.push((color, mv));
        color = !color;
    }
    Ok(Opening {
        name: name.to_string(),
        moves,
    })
}

/// An opening from an SGF record's main line.
fn from_sgf(name: &str, bytes: &[u8], size: BoardSize) -> Result<Opening, OpeningsError> {
    let bad = |reason: String| OpeningsError::Bad {
        name: name.to_string(),
        reason,
    };
    let text = tengen_sgf::decode_sgf(bytes);
    let record = tengen_sgf::read_game(&text).map_err(|e| bad(e.to_string()))?;
    let game = &record.game;
    if game.size() != size {
        let dims = |s: BoardSize| format!("{}x{}", s.width(), s.height());
        return Err(bad(format!(
            "a {} record for a {} match",
            dims(game.size()),
            dims(size)
        )));
    }
    if game.initial_board().empty_count() != size.points_count() {
        return Err(bad(
            "setup stones (AB/AW) are not supported: give the opening as moves".to_string(),
        ));
    }
    let moves = game
        .history()
        .map(|(color, action)| match action {
            Action::Move(mv) => Ok((color, mv)),
            Action::Resign => Err(bad("a resignation is not an opening move".to_string())),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Opening {
        name: name.to_string(),
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nine() -> BoardSize {
        BoardSize::square(9).unwrap()
    }

    fn dir(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("tengen-openings-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn text_files_hold_one_opening_a_line() {
        let d = dir("text");
        let file = d.join("set.txt");
        fs::write(&file, "# balanced\nE5 C3\n\nE5 G7 C5 # three moves\n").unwrap();
        let openings = load_openings(&file, nine(), Rules::default()).unwrap();
        assert_eq!(openings.len(), 2);
        assert_eq!(openings[0].name, "set.txt:2");
        assert_eq!(openings[1].moves.len(), 3);
        assert_eq!(openings[1].moves[1].0, Color::White);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn directories_read_records_and_lists_in_name_order() {
        let d = dir("dir");
        fs::write(d.join("b.txt"), "C3\n").unwrap();
        fs::write(d.join("a.sgf"), "(;GM[1]SZ[9];B[ee];W[cc])").unwrap();
        fs::write(d.join("notes.md"), "ignored").unwrap();
        let openings = load_openings(&d, nine(), Rules::default()).unwrap();
        let names: Vec<_> = openings.iter().map(|o| o.name.as_str()).collect();
        assert_eq!(names, ["a.sgf", "b.txt:1"]);
        assert_eq!(openings[0].moves.len(), 2);
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn bad_openings_are_refused_with_the_reason() {
        let d = dir("bad");
        let cases: [(&str, &str, &str); 6] = [
            ("occupied.txt", "E5 E5\n", "move 2 (W E5) is illegal"),
            ("vertex.txt", "E5 Z9\n", "\"Z9\""),
            ("over.txt", "pass pass\n", "the game is over"),
            (
                "size.sgf",
                "(;GM[1]SZ[19];B[dd])",
                "a 19x19 record for a 9x9 match",
            ),
            ("setup.sgf", "(;GM[1]SZ[9]AB[ee];W[cc])", "setup stones"),
            ("empty.txt", "# nothing\n", "no openings"),
        ];
        for (file, text, reason) in cases {
            let path = d.join(file);
            fs::write(&path, text).unwrap();
            let error = load_openings(&path, nine(), Rules::default()).unwrap_err();
            assert!(error.to_string().contains(reason), "{file}: {error}");
        }
        let missing = load_openings(&d.join("missing.txt"), nine(), Rules::default()).unwrap_err();
        assert!(missing.to_string().starts_with("cannot read"), "{missing}");
        fs::remove_dir_all(&d).unwrap();
    }
}
