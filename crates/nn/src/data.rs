//! Training data: game records as compact shards (move sequences, not
//! tensors), made from SGF collections and split into training and
//! validation sets by game.
//!
//! A [`GameRecord`] is one game in replayable form: board size, komi, setup
//! stones, the side to move first, the moves and the winner. Training replays
//! it with [`GameRecord::for_each_position`] and encodes each position as it
//! goes, so a shard holds a few hundred bytes per game where tensors would
//! hold megabytes.
//!
//! [`prepare`] reads SGF (and `.mgt`) files and folders, keeps the games of
//! one board size that replay legally under [`Rules::default`], and writes
//! them into a data folder:
//!
//! - `train-000.tgs`, `train-001.tgs`, ...: the training games,
//! - `validation-000.tgs`, ...: the validation games,
//! - `summary.txt`: what was read, kept and skipped, for people.
//!
//! [`Dataset::load`] reads such a folder back.
//!
//! # Shard format (`.tgs`, version 1)
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

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use tengen_core::{Action, Board, BoardSize, Color, Game, IllegalMove, Move, Rules};
use tengen_sgf::{decode_sgf, parse_collection, read_game, write_tree, ReadError};

/// The first four bytes of every shard.
pub const MAGIC: [u8; 4] = *b"TGSH";
/// The shard format version this code writes and reads.
pub const VERSION: u16 = 1;
/// The move value that stands for a pass.
pub const PASS: u16 = 0xFFFF;
/// The extension of shard files.
pub const SHARD_EXTENSION: &str = "tgs";
/// The name of the summary file [`prepare`] writes into its folder.
pub const SUMMARY_FILE: &str = "summary.txt";

/// Bit 15 of a setup entry: the stone is White.
const WHITE_BIT: u16 = 0x8000;
/// Bytes of a game before its setup entries.
const GAME_HEADER: usize = 1 + 1 + 4 + 1 + 1 + 2;

/// One game, replayable: board size, komi, setup stones, moves, winner.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The board size.
    pub size: BoardSize,
    /// Points given to White.
    pub komi: f32,
    /// Setup stones (handicap / AB / AW) as (colour, point index
    /// `row * width + col` with `(col, row)` from [`BoardSize::col_row`]).
    pub setup: Vec<(Color, u16)>,
    /// The side to move first after the setup.
    pub first: Color,
    /// The moves of the main line in order: `Some(point index)` or `None` for
    /// a pass. Colours alternate from `first` (a record whose colours do not
    /// alternate, such as two Black moves in a row, is skipped by [`prepare`]
    /// with reason "non-alternating").
    pub moves: Vec<Option<u16>>,
    /// The winner from the record's `RE[]` (`None` for a draw, void or
    /// unknown result).
    pub winner: Option<Color>,
}

/// Why a [`GameRecord`] does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// A setup stone is off the board, on another stone, or leaves a chain
    /// without liberties.
    #[error("setup stone {index}: {reason}")]
    Setup {
        /// The setup entry, from 0.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A move's point is not on the board.
    #[error("move {turn}: point {point} is off a {width}x{height} board")]
    OffBoard {
        /// The turn, from 0.
        turn: usize,
        /// The point index.
        point: u16,
        /// Board width.
        width: usize,
        /// Board height.
        height: usize,
    },
    /// The rules refuse a move.
    #[error("move {turn}: {reason}")]
    Illegal {
        /// The turn, from 0.
        turn: usize,
        /// Why the rules refuse it.
        reason: IllegalMove,
    },
}

impl GameRecord {
    /// The core point of a point index, if it is on this record's board.
    fn point(&self, index: u16) -> Option<tengen_core::Point> {
        let width = self.size.width();
        let index = usize::from(index);
        self.size.point(index % width, index / width)
    }

    /// The point index of a core point of `size` (see [`GameRecord::setup`]).
    pub fn index_of(size: BoardSize, point: tengen_core::Point) -> u16 {
        let (col, row) = size.col_row(point);
        (row * size.width() + col) as u16
    }

    /// The rules positions are replayed under: [`Rules::default`]
    /// (situational superko, suicide forbidden, area scoring) with this
    /// record's komi.
    pub fn rules(&self) -> Rules {
        Rules::default().with_komi(f64::from(self.komi))
    }

    /// The game at its start, setup stones placed and checked.
    fn checked_start(&self) -> Result<Game, ReplayError> {
        let mut board = Board::new(self.size);
        for (index, &(color, point)) in self.setup.iter().enumerate() {
            let bad = |reason: String| ReplayError::Setup { index, reason };
            let point = self
                .point(point)
                .ok_or_else(|| bad(format!("point {point} is off the board")))?;
            board
                .place_setup_stone(point, color)
                .map_err(|e| bad(e.to_string()))?;
        }
        let handicap = self.setup.len() >= 2
            && self.first == Color::White
            && self.setup.iter().all(|&(color, _)| color == Color::Black);
        if handicap {
            let points: Vec<_> = self
                .size
                .points()
                .filter(|&p| board.stone(p).is_some())
                .collect();
            if let Ok(game) = Game::with_free_handicap(self.size, self.rules(), &points) {
                return Ok(game);
            }
        }
        Ok(Game::from_position(board, self.first, self.rules()))
    }

    /// The game at its start (setup stones placed, `first` to move), under
    /// [`GameRecord::rules`]. Black setup stones with White to move are a
    /// handicap, as the SGF reader makes them. A setup stone that cannot be
    /// placed (never the case for records made by [`prepare`]) is left out.
    pub fn start(&self) -> Game {
        self.checked_start().unwrap_or_else(|error| {
            tracing::warn!(%error, "a setup stone of a game record cannot be placed");
            let mut board = Board::new(self.size);
            for &(color, point) in &self.setup {
                if let Some(point) = self.point(point) {
                    let _ = board.place_setup_stone(point, color);
                }
            }
            Game::from_position(board, self.first, self.rules())
        })
    }

    /// The colour that plays turn `n`: `first` on even turns, the other on
    /// odd ones.
    pub fn color_at(&self, n: usize) -> Color {
        if n.is_multiple_of(2) {
            self.first
        } else {
            !self.first
        }
    }

    /// The move at turn `n` as a core [`Move`].
    ///
    /// # Panics
    ///
    /// If `n` is past the last move, or the move's point is off the board
    /// (never for records read by [`read_shard`], which checks them).
    pub fn move_at(&self, n: usize) -> Move {
        match self.moves[n] {
            None => Move::Pass,
            Some(index) => {
                Move::Play(self.point(index).unwrap_or_else(|| {
                    panic!("move {n}: point {index} is off a {} board", self.size)
                }))
            }
        }
    }

    /// Replays every move, checking each against the rules; the game after
    /// the last move.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        let mut game = self.checked_start()?;
        for (turn, &mv) in self.moves.iter().enumerate() {
            let mv = match mv {
                None => Move::Pass,
                Some(point) => Move::Play(self.point(point).ok_or(ReplayError::OffBoard {
                    turn,
                    point,
                    width: self.size.width(),
                    height: self.size.height(),
                })?),
            };
            game.play_as(self.color_at(turn), mv)
                .map_err(|reason| ReplayError::Illegal { turn, reason })?;
        }
        Ok(game)
    }

    /// Replays the game and calls `f(&game_before_move, move, turn)` for
    /// every move: the way training iterates positions. The side to move in
    /// the game passed is the one playing the move. Should a move be refused
    /// by the rules (never for records made by [`prepare`], which replays
    /// them all), the replay stops there with a warning.
    pub fn for_each_position(&self, mut f: impl FnMut(&Game, Move, usize)) {
        let mut game = self.start();
        for turn in 0..self.moves.len() {
            let mv = self.move_at(turn);
            f(&game, mv, turn);
            if let Err(reason) = game.play_as(self.color_at(turn), mv) {
                tracing::warn!(turn, %reason, "a game record's move is illegal; replay stopped");
                return;
            }
        }
    }

    /// The record of a replayed game: the setup of its initial board, the
    /// moves of its history, komi from its rules. `None` when a turn is a
    /// resignation or the colours do not alternate.
    pub fn from_game(game: &Game, winner: Option<Color>) -> Option<GameRecord> {
        let size = game.size();
        let initial = game.initial_board();
        let setup = size
            .points()
            .filter_map(|p| initial.stone(p).map(|c| (c, GameRecord::index_of(size, p))))
            .collect();
        let mut first = None;
        let mut moves = Vec::with_capacity(game.turn_count());
        for (turn, (color, action)) in game.history().enumerate() {
            let first = *first.get_or_insert(color);
            let expected = if turn.is_multiple_of(2) {
                first
            } else {
                !first
            };
            if color != expected {
                return None;
            }
            match action {
                Action::Move(Move::Pass) => moves.push(None),
                Action::Move(Move::Play(p)) => moves.push(Some(GameRecord::index_of(size, p))),
                Action::Resign => return None,
            }
        }
        // Without turns, the game is still at its start.
        let first = first.unwrap_or_else(|| game.to_move());
        Some(GameRecord {
            size,
            komi: game.rules().komi as f32,
            setup,
            first,
            moves,
            winner,
        })
    }
}

/// The winner an SGF `RE` value names: `B+...` Black, `W+...` White (any
/// case), anything else (`0`, `Draw`, `Void`, `?`) nobody.
pub fn winner_of_result(result: &str) -> Option<Color> {
    let mut chars = result.trim().chars();
    let color = match chars.next()?.to_ascii_uppercase() {
        'B' => Color::Black,
        'W' => Color::White,
        _ => return None,
    };
    (chars.next() == Some('+')).then_some(color)
}

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

/// Why reading, writing or preparing training data failed.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// A file or folder could not be read, written or listed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
    /// A shard's bytes are not a valid shard.
    #[error("{}: at byte {offset}: {fault}", path.display())]
    Corrupt {
        /// The shard.
        path: PathBuf,
        /// Where in the file the fault was found.
        offset: usize,
        /// What is wrong.
        fault: ShardFault,
    },
    /// A record that cannot be written in the shard format.
    #[error("{}: game {game}: {reason}", path.display())]
    Unwritable {
        /// The shard being written.
        path: PathBuf,
        /// The game, from 0.
        game: usize,
        /// Why it cannot be written.
        reason: String,
    },
    /// A data folder without any shard.
    #[error("{}: no train-NNN.{SHARD_EXTENSION} or validation-NNN.{SHARD_EXTENSION} shards", path.display())]
    NoShards {
        /// The folder.
        path: PathBuf,
    },
    /// Options that make no sense.
    #[error("bad options: {0}")]
    Options(String),
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> DataError + '_ {
    move |source| DataError::Io {
        path: path.to_path_buf(),
        source,
    }
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

/// A prepared data folder: its training and validation games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dataset {
    /// The games of the `train-NNN.tgs` shards, in shard order.
    pub train: Vec<GameRecord>,
    /// The games of the `validation-NNN.tgs` shards, in shard order.
    pub validation: Vec<GameRecord>,
}

/// The shards of one split in `dir`: `PREFIX-*.tgs`, in name order.
fn shards_of(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>, DataError> {
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

fn positions(games: &[GameRecord]) -> usize {
    games.iter().map(|g| g.moves.len()).sum()
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

/// What [`prepare`] keeps and how it splits and stores it.
#[derive(Clone, Debug, PartialEq)]
pub struct PrepareOptions {
    /// The board size kept; games of other sizes are skipped ("wrong size").
    pub size: BoardSize,
    /// The share of games put in the validation split, 0 to 1 (default 0.1).
    pub validation_fraction: f64,
    /// Games per shard file (default 5000).
    pub games_per_shard: usize,
    /// Games with fewer moves are skipped ("too short"; default 10).
    pub min_moves: usize,
}

impl PrepareOptions {
    /// The defaults for board `size`.
    pub fn new(size: BoardSize) -> PrepareOptions {
        PrepareOptions {
            size,
            validation_fraction: 0.1,
            games_per_shard: 5000,
            min_moves: 10,
        }
    }
}

impl Default for PrepareOptions {
    /// The defaults on 19x19.
    fn default() -> PrepareOptions {
        PrepareOptions::new(BoardSize::square(19).expect("19x19 is a board size"))
    }
}

/// What [`prepare`] read, kept, skipped and wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrepareReport {
    /// Record files read.
    pub files: usize,
    /// Game trees found in them (a file that does not parse counts as one).
    pub games_read: usize,
    /// Games kept.
    pub games_kept: usize,
    /// Games skipped, by reason: "parse error", "bad value", "not Go",
    /// "wrong size", "setup after moves", "non-alternating",
    /// "illegal move", "too short", "duplicate", "unreadable".
    pub skipped: BTreeMap<String, usize>,
    /// Games in the training split.
    pub train_games: usize,
    /// Games in the validation split.
    pub validation_games: usize,
    /// Positions (moves) in the training split.
    pub train_positions: usize,
    /// Positions (moves) in the validation split.
    pub validation_positions: usize,
}

impl fmt::Display for PrepareReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "files read:   {}", self.files)?;
        writeln!(f, "games read:   {}", self.games_read)?;
        writeln!(f, "games kept:   {}", self.games_kept)?;
        let skipped: usize = self.skipped.values().sum();
        writeln!(f, "games skipped: {skipped}")?;
        for (reason, count) in &self.skipped {
            writeln!(f, "  {reason}: {count}")?;
        }
        writeln!(
            f,
            "train:      {} games, {} positions",
            self.train_games, self.train_positions
        )?;
        writeln!(
            f,
            "validation: {} games, {} positions",
            self.validation_games, self.validation_positions
        )
    }
}

/// Whether a file found in a folder is a record: `.sgf` or `.mgt`, any case.
fn is_record_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("sgf") || e.eq_ignore_ascii_case("mgt"))
}

/// The record files under `inputs`: a file given by name whatever its
/// extension, and the `.sgf` and `.mgt` files of folders, recursively, in
/// name order.
pub fn find_record_files(inputs: &[PathBuf]) -> Result<Vec<PathBuf>, DataError> {
    let mut files = Vec::new();
    let mut pending: Vec<(PathBuf, bool)> =
        inputs.iter().rev().map(|p| (p.clone(), true)).collect();
    while let Some((path, given)) = pending.pop() {
        let metadata = std::fs::metadata(&path).map_err(io_error(&path))?;
        if metadata.is_dir() {
            let mut entries = std::fs::read_dir(&path)
                .and_then(|dir| {
                    dir.map(|e| e.map(|e| e.path()))
                        .collect::<io::Result<Vec<_>>>()
                })
                .map_err(io_error(&path))?;
            entries.sort();
            pending.extend(entries.into_iter().rev().map(|p| (p, false)));
        } else if given || is_record_file(&path) {
            files.push(path);
        }
    }
    Ok(files)
}

/// The skip reason of a record that does not replay.
fn read_error_reason(error: &ReadError) -> &'static str {
    match error {
        ReadError::Syntax(_) => "parse error",
        ReadError::NotGo(_) => "not Go",
        ReadError::BadValue { .. } => "bad value",
        ReadError::IllegalMove { .. } => "illegal move",
    }
}

/// One game tree as a record of `size`, or the reason it is skipped.
fn game_of_tree(text: &str, options: &PrepareOptions) -> Result<GameRecord, &'static str> {
    let record = read_game(text).map_err(|e| read_error_reason(&e))?;
    if record.game.size() != options.size {
        return Err("wrong size");
    }
    if record.main_line.iter().any(|node| node.turn.is_none()) {
        return Err("setup after moves");
    }
    let winner = record.result.as_deref().and_then(winner_of_result);
    let game = GameRecord::from_game(&record.game, winner).ok_or("non-alternating")?;
    // The record's own rules may differ (simple ko, say): replay under the
    // rules training replays with.
    game.replay().map_err(|_| "illegal move")?;
    if game.moves.len() < options.min_moves {
        return Err("too short");
    }
    Ok(game)
}

/// Every game tree of one file, each kept or with its skip reason.
fn games_of_file(path: &Path, options: &PrepareOptions) -> Vec<Result<GameRecord, &'static str>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "cannot read a record file");
            return vec![Err("unreadable")];
        }
    };
    let text = decode_sgf(&bytes);
    match parse_collection(&text) {
        Err(_) => vec![Err("parse error")],
        Ok(trees) if trees.len() == 1 => vec![game_of_tree(&text, options)],
        Ok(trees) => trees
            .iter()
            .map(|tree| game_of_tree(&write_tree(tree), options))
            .collect(),
    }
}

/// A stable 64-bit FNV-1a hash of a game's board, setup and moves.
fn game_hash(game: &GameRecord) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    feed(&[game.size.width() as u8, game.size.height() as u8]);
    for &(color, point) in &game.setup {
        feed(&[color.index() as u8]);
        feed(&point.to_le_bytes());
    }
    for &mv in &game.moves {
        feed(&mv.unwrap_or(PASS).to_le_bytes());
    }
    hash
}

/// Whether a game goes to the validation split: decided by a hash of its
/// moves (and board and setup), so the same game always lands in the same
/// split whatever else is prepared with it.
pub fn is_validation(game: &GameRecord, validation_fraction: f64) -> bool {
    // The top 53 bits as a number in [0, 1).
    let unit = (game_hash(game) >> 11) as f64 / (1u64 << 53) as f64;
    unit < validation_fraction
}

/// Reads SGF/MGT files and folders (recursively), keeps games of
/// `options.size` that replay legally, writes `train-NNN.tgs` /
/// `validation-NNN.tgs` shards into `out` plus a small human-readable
/// summary file ([`SUMMARY_FILE`]). The split is by game and deterministic:
/// decided by a hash of the game's moves (so the same game always lands in
/// the same split; see [`is_validation`]).
///
/// Every game tree of a collection file counts. Games are replayed with
/// [`Rules::default`] (situational superko); a game the rules refuse is
/// skipped as "illegal move". A game identical to one already kept (same
/// board, setup and moves) is skipped as "duplicate". Files are read on
/// all cores; `progress(done, total)` is told after each file. Shards of an
/// earlier run in `out` are removed first. Games are stored in the order of
/// the files, so the same inputs give the same shards.
pub fn prepare(
    inputs: &[PathBuf],
    out: &Path,
    options: &PrepareOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<PrepareReport, DataError> {
    if !(0.0..=1.0).contains(&options.validation_fraction) {
        return Err(DataError::Options(format!(
            "the validation fraction must be from 0 to 1, not {}",
            options.validation_fraction
        )));
    }
    if options.games_per_shard == 0 {
        return Err(DataError::Options(
            "games per shard must be at least 1".into(),
        ));
    }
    let files = find_record_files(inputs)?;
    let per_file = read_files(&files, options, progress);

    let mut report = PrepareReport {
        files: files.len(),
        ..PrepareReport::default()
    };
    let mut seen = HashSet::new();
    let (mut train, mut validation) = (Vec::new(), Vec::new());
    for games in per_file {
        for game in games {
            report.games_read += 1;
            let game = game.and_then(|game| {
                if seen.insert((game_hash(&game), game.setup.clone(), game.moves.clone())) {
                    Ok(game)
                } else {
                    Err("duplicate")
                }
            });
            match game {
                Err(reason) => *report.skipped.entry(reason.to_string()).or_insert(0) += 1,
                Ok(game) if is_validation(&game, options.validation_fraction) => {
                    validation.push(game)
                }
                Ok(game) => train.push(game),
            }
        }
    }
    report.games_kept = train.len() + validation.len();
    report.train_games = train.len();
    report.validation_games = validation.len();
    report.train_positions = positions(&train);
    report.validation_positions = positions(&validation);

    std::fs::create_dir_all(out).map_err(io_error(out))?;
    for prefix in ["train", "validation"] {
        for old in shards_of(out, prefix)? {
            std::fs::remove_file(&old).map_err(io_error(&old))?;
        }
    }
    for (prefix, games) in [("train", &train), ("validation", &validation)] {
        for (n, chunk) in games.chunks(options.games_per_shard).enumerate() {
            let path = out.join(format!("{prefix}-{n:03}.{SHARD_EXTENSION}"));
            write_shard(&path, chunk)?;
        }
    }
    let summary_path = out.join(SUMMARY_FILE);
    let summary = format!(
        "tengen training data, board {}x{}, validation fraction {}, at least {} moves a game\n\
         inputs: {}\n{report}",
        options.size.width(),
        options.size.height(),
        options.validation_fraction,
        options.min_moves,
        inputs
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(" "),
    );
    std::fs::write(&summary_path, summary).map_err(io_error(&summary_path))?;
    Ok(report)
}

/// The games of every file, in file order, read on all cores.
fn read_files(
    files: &[PathBuf],
    options: &PrepareOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Vec<Vec<Result<GameRecord, &'static str>>> {
    let mut results: Vec<Option<Vec<_>>> = vec![None; files.len()];
    progress(0, files.len());
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(files.len())
        .max(1);
    let next = AtomicUsize::new(0);
    let (sender, receiver) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || loop {
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(index) else {
                    break;
                };
                if sender.send((index, games_of_file(path, options))).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        for (done, (index, games)) in receiver.iter().enumerate() {
            results[index] = Some(games);
            progress(done + 1, files.len());
        }
    });
    results.into_iter().map(Option::unwrap_or_default).collect()
}
