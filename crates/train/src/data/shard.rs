//! The shard format (`.tgs`): game records written compactly, read back with
//! every byte checked, and a prepared folder of shards loaded as a
//! [`Dataset`].
//!
//! # Format (version 1)
//!
//! All numbers are little-endian.
//!
//! | bytes | what |
//! |---|---|
//! | 4 | magic `TGSH` |
//! | 2 | version, `u16` = 1 |
//! | 4 | game count, `u32` |
//! | ... | the games, one after the other |
//!
//! Each game:
//!
//! | bytes | what |
//! |---|---|
//! | 1 | width, `u8`, 1 to 25 |
//! | 1 | height, `u8`, 1 to 25 |
//! | 4 | komi, `f32`, finite |
//! | 1 | first to move after the setup: 0 Black, 1 White |
//! | 1 | winner: 0 none (draw, void, unknown), 1 Black, 2 White |
//! | 2 | setup stone count, `u16` |
//! | 2 each | setup stones, `u16`: the point index in the low 15 bits, bit 15 set for a White stone |
//! | 4 | move count, `u32` |
//! | 2 each | moves, `u16`: the point index, or `0xFFFF` for a pass |
//!
//! A point index is `row * width + col`, with `(col, row)` as
//! [`BoardSize::col_row`] gives them (row 0 at the bottom). Colours of the
//! moves are not stored: they alternate from the first. Nothing may follow
//! the last game.

use std::path::{Path, PathBuf};

use tengen_core::{BoardSize, Color};

use super::record::{positions, GameRecord};
use super::{io_error, DataError};

/// The first four bytes of every shard.
pub const MAGIC: [u8; 4] = *b"TGSH";
/// The shard format version this code writes and reads.
pub const VERSION: u16 = 1;
/// The move value that stands for a pass.
pub const PASS: u16 = 0xFFFF;
/// The extension of shard files.
pub const SHARD_EXTENSION: &str = "tgs";

/// Bit 15 of a setup entry: the stone is White.
const WHITE_BIT: u16 = 0x8000;
/// Bytes of a game before its setup entries.
const GAME_HEADER: usize = 1 + 1 + 4 + 1 + 1 + 2;

/// What is wrong with the bytes of a shard.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ShardFault {
    /// The file does not start with [`MAGIC`].
    #[error("not a tengen shard (bad magic {0:02x?})")]
    BadMagic([u8; 4]),
    /// A version this code does not read.
    #[error("unsupported shard version {0} (this build reads version {VERSION})")]
    Version(u16),
    /// The file ends inside a value.
    #[error("truncated: {needed} more byte(s) needed")]
    Truncated {
        /// Bytes missing.
        needed: usize,
    },
    /// A board width or height outside 1 to 25.
    #[error("bad board size {width}x{height}")]
    BoardSize {
        /// Width as stored.
        width: u8,
        /// Height as stored.
        height: u8,
    },
    /// Komi that is not a finite number.
    #[error("komi is not a finite number ({0})")]
    Komi(f32),
    /// A colour byte that is neither 0 nor 1.
    #[error("bad colour byte {0}")]
    Color(u8),
    /// A winner byte that is not 0, 1 or 2.
    #[error("bad winner byte {0}")]
    Winner(u8),
    /// A point index off the board.
    #[error("point {point} is off the board ({points} points)")]
    Point {
        /// The index as stored.
        point: u16,
        /// Points on the board.
        points: usize,
    },
    /// Bytes after the last game.
    #[error("{0} byte(s) after the last game")]
    Trailing(usize),
}

/// The bytes of a shard holding `games`; `path` only names the shard in
/// errors.
fn encode_shard(path: &Path, games: &[GameRecord]) -> Result<Vec<u8>, DataError> {
    let unwritable = |game: usize, reason: String| DataError::Unwritable {
        path: path.to_path_buf(),
        game,
        reason,
    };
    let count = u32::try_from(games.len()).map_err(|_| unwritable(0, "too many games".into()))?;
    let total: usize = games
        .iter()
        .map(|g| GAME_HEADER + 4 + 2 * (g.setup.len() + g.moves.len()))
        .sum();
    let mut bytes = Vec::with_capacity(10 + total);
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&count.to_le_bytes());
    for (n, game) in games.iter().enumerate() {
        let points = game.size.points_count();
        let check_point = |point: u16, what: &str| {
            if usize::from(point) < points {
                Ok(point)
            } else {
                Err(unwritable(
                    n,
                    format!("{what} point {point} is off a {} board", game.size),
                ))
            }
        };
        if !game.komi.is_finite() {
            return Err(unwritable(n, format!("komi {} is not finite", game.komi)));
        }
        let setup_count = u16::try_from(game.setup.len())
            .map_err(|_| unwritable(n, "too many setup stones".into()))?;
        let move_count =
            u32::try_from(game.moves.len()).map_err(|_| unwritable(n, "too many moves".into()))?;
        bytes.push(game.size.width() as u8);
        bytes.push(game.size.height() as u8);
        bytes.extend_from_slice(&game.komi.to_le_bytes());
        bytes.push(game.first.index() as u8);
        bytes.push(match game.winner {
            None => 0,
            Some(Color::Black) => 1,
            Some(Color::White) => 2,
        });
        bytes.extend_from_slice(&setup_count.to_le_bytes());
        for &(color, point) in &game.setup {
            let mut value = check_point(point, "setup")?;
            if color == Color::White {
                value |= WHITE_BIT;
            }
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes.extend_from_slice(&move_count.to_le_bytes());
        for &mv in &game.moves {
            let value = match mv {
                None => PASS,
                Some(point) => check_point(point, "move")?,
            };
            bytes.extend_from_slice(&value.to_le_bytes());
        }
    }
    Ok(bytes)
}

/// Writes `games` as a shard at `path` (see the module documentation for
/// the format). The file is written under a temporary name and renamed, so
/// a shard is never seen half-written.
pub fn write_shard(path: &Path, games: &[GameRecord]) -> Result<(), DataError> {
    let bytes = encode_shard(path, games)?;
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(".partial");
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, bytes).map_err(io_error(&temporary))?;
    std::fs::rename(&temporary, path).map_err(io_error(path))
}

/// A reader over a shard's bytes that knows its offset.
struct Cursor<'a> {
    bytes: &'a [u8],
    offset: usize,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], (usize, ShardFault)> {
        let available = self.bytes.len() - self.offset;
        if available < N {
            return Err((
                self.offset,
                ShardFault::Truncated {
                    needed: N - available,
                },
            ));
        }
        let mut out = [0; N];
        out.copy_from_slice(&self.bytes[self.offset..self.offset + N]);
        self.offset += N;
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8, (usize, ShardFault)> {
        Ok(self.take::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, (usize, ShardFault)> {
        self.take().map(u16::from_le_bytes)
    }

    fn u32(&mut self) -> Result<u32, (usize, ShardFault)> {
        self.take().map(u32::from_le_bytes)
    }
}

/// The games of a shard's bytes, or the offset and nature of the first fault.
fn decode_shard(bytes: &[u8]) -> Result<Vec<GameRecord>, (usize, ShardFault)> {
    let mut cursor = Cursor { bytes, offset: 0 };
    let magic = cursor.take::<4>()?;
    if magic != MAGIC {
        return Err((0, ShardFault::BadMagic(magic)));
    }
    let version = cursor.u16()?;
    if version != VERSION {
        return Err((4, ShardFault::Version(version)));
    }
    let count = cursor.u32()? as usize;
    // A game takes at least GAME_HEADER + 4 bytes: do not trust the count
    // for the allocation.
    let mut games = Vec::with_capacity(count.min(bytes.len() / (GAME_HEADER + 4)));
    for _ in 0..count {
        let at = cursor.offset;
        let (width, height) = (cursor.u8()?, cursor.u8()?);
        let size = BoardSize::new(width.into(), height.into())
            .map_err(|_| (at, ShardFault::BoardSize { width, height }))?;
        let points = size.points_count();
        let at = cursor.offset;
        let komi = f32::from_le_bytes(cursor.take()?);
        if !komi.is_finite() {
            return Err((at, ShardFault::Komi(komi)));
        }
        let color = |byte: u8, at: usize| match byte {
            0 => Ok(Color::Black),
            1 => Ok(Color::White),
            other => Err((at, ShardFault::Color(other))),
        };
        let at = cursor.offset;
        let first = color(cursor.u8()?, at)?;
        let at = cursor.offset;
        let winner = match cursor.u8()? {
            0 => None,
            1 => Some(Color::Black),
            2 => Some(Color::White),
            other => return Err((at, ShardFault::Winner(other))),
        };
        let check = |point: u16, at: usize| {
            if usize::from(point) < points {
                Ok(point)
            } else {
                Err((at, ShardFault::Point { point, points }))
            }
        };
        let setup_count = cursor.u16()? as usize;
        let mut setup = Vec::with_capacity(setup_count.min(points));
        for _ in 0..setup_count {
            let at = cursor.offset;
            let value = cursor.u16()?;
            let color = if value & WHITE_BIT != 0 {
                Color::White
            } else {
                Color::Black
            };
            setup.push((color, check(value & !WHITE_BIT, at)?));
        }
        let move_count = cursor.u32()? as usize;
        let left = (bytes.len() - cursor.offset) / 2;
        let mut moves = Vec::with_capacity(move_count.min(left));
        for _ in 0..move_count {
            let at = cursor.offset;
            moves.push(match cursor.u16()? {
                PASS => None,
                point => Some(check(point, at)?),
            });
        }
        games.push(GameRecord {
            size,
            komi,
            setup,
            first,
            moves,
            winner,
        });
    }
    if cursor.offset != bytes.len() {
        return Err((
            cursor.offset,
            ShardFault::Trailing(bytes.len() - cursor.offset),
        ));
    }
    Ok(games)
}

/// Reads the games of the shard at `path`. Bad magic, an unknown version,
/// truncation, trailing bytes, bad sizes, colours or komi and points off
/// the board are refused with [`DataError::Corrupt`], which names the file
/// and the byte offset. Legality of the moves is not checked here (see
/// [`GameRecord::replay`]).
pub fn read_shard(path: &Path) -> Result<Vec<GameRecord>, DataError> {
    let bytes = std::fs::read(path).map_err(io_error(path))?;
    decode_shard(&bytes).map_err(|(offset, fault)| DataError::Corrupt {
        path: path.to_path_buf(),
        offset,
        fault,
    })
}

/// The shards of one split in `dir`: `PREFIX-*.tgs`, in name order.
pub(crate) fn shards_of(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>, DataError> {
    let mut shards = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(io_error(dir))? {
        let path = entry.map_err(io_error(dir))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let is_shard = name
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix('-'))
            .and_then(|rest| rest.strip_suffix(SHARD_EXTENSION))
            .is_some_and(|rest| rest.ends_with('.'));
        if is_shard && path.is_file() {
            shards.push(path);
        }
    }
    shards.sort();
    Ok(shards)
}

/// A prepared data folder: its training and validation games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    /// The games of the `train-NNN.tgs` shards, in shard order.
    pub train: Vec<GameRecord>,
    /// The games of the `validation-NNN.tgs` shards, in shard order.
    pub validation: Vec<GameRecord>,
}

impl Dataset {
    /// Reads every `train-*.tgs` and `validation-*.tgs` shard of `dir`.
    /// A folder with neither is an error ([`DataError::NoShards`]).
    pub fn load(dir: &Path) -> Result<Dataset, DataError> {
        let train = shards_of(dir, "train")?;
        let validation = shards_of(dir, "validation")?;
        if train.is_empty() && validation.is_empty() {
            return Err(DataError::NoShards {
                path: dir.to_path_buf(),
            });
        }
        let mut dataset = Dataset::default();
        for path in train {
            dataset.train.extend(read_shard(&path)?);
        }
        for path in validation {
            dataset.validation.extend(read_shard(&path)?);
        }
        Ok(dataset)
    }

    /// Positions (moves) of the training games.
    pub fn train_positions(&self) -> usize {
        positions(&self.train)
    }

    /// Positions (moves) of the validation games.
    pub fn validation_positions(&self) -> usize {
        positions(&self.validation)
    }
}
