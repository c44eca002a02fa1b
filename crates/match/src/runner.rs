//! Running a whole match: resuming from the results file, playing the games
//! left on worker threads, writing SGF records and results lines as games end.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread;

use tengen_gtp::controller::{Controller, ControllerError};
use tengen_sgf::{date, GameInfo};

use tengen_core::Game;

use crate::config::MatchConfig;
use crate::record::{GameEnd, GameRecord};
use crate::referee::{play_game, PlayedGame};
use crate::report::MatchReport;
use crate::results;

/// Why a match could not be run (an engine's misbehaviour during a game is
/// not an error: it forfeits that game).
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    /// The match's settings cannot make a game (a handicap the board does
    /// not take).
    #[error("{0}")]
    Setup(String),
    /// An engine could not be started or would not say its name before the
    /// first game, so no game could be played with it.
    #[error("engine {engine} ('{command_line}') is not usable: {source}")]
    Engine {
        /// Which engine, 0 or 1.
        engine: usize,
        /// Its command line.
        command_line: String,
        /// What went wrong.
        #[source]
        source: ControllerError,
    },
    /// The results file could not be read or appended to.
    #[error("results file {}: {source}", path.display())]
    Results {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
    /// An SGF record (or its directory) could not be written.
    #[error("SGF record {}: {source}", path.display())]
    Sgf {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: io::Error,
    },
}

/// What [`run_match`] tells its progress callback.
#[derive(Clone, Copy, Debug)]
pub enum MatchEvent<'a> {
    /// The engines answered and play is about to start.
    Started {
        /// The engines' `name version`.
        names: &'a [String; 2],
        /// Games in the match (in this run's shard).
        total: usize,
        /// Games already in the results file, not played again.
        resumed: usize,
    },
    /// A move was played (only when [`MatchConfig::watch`] is set).
    Moved {
        /// The game's index in the match.
        index: usize,
        /// The engine playing Black, 0 or 1.
        black: usize,
        /// The game after the move.
        game: &'a Game,
    },
    /// A game has ended and been recorded.
    GameFinished {
        /// The game.
        record: &'a GameRecord,
        /// Games finished so far, resumed ones included.
        finished: usize,
        /// Games in the match (in this run's shard).
        total: usize,
    },
}

/// Plays the match described by `config` and returns its report.
///
/// Only the games of [`MatchConfig::shard`] are played and reported. Games
/// already in the results file for this match (same [`MatchConfig::key`],
/// index below `games`, in the shard) are not played again but are part of
/// the report. The rest run up to `concurrency` at a time, each
/// between fresh processes of the two engines. `progress` is called on the
/// calling thread, in the order games finish.
pub fn run_match(
    config: &MatchConfig,
    mut progress: impl FnMut(&MatchEvent<'_>),
) -> Result<MatchReport, MatchError> {
    check_setup(config)?;
    let settings = results::MatchSettings::of(config);
    let resumed = resume(config, &settings.key)?;
    let done: HashSet<usize> = resumed.iter().map(|r| r.index).collect();
    let pending: Vec<usize> = config
        .shard
        .games(config.games)
        .filter(|i| !done.contains(i))
        .collect();
    let total = config.shard.game_count(config.games);

    let names = engine_names(config, &resumed, &pending)?;
    if !pending.is_empty() {
        create_sgf_dir(config)?;
    }

    progress(&MatchEvent::Started {
        names: &names,
        total,
        resumed: resumed.len(),
    });

    let mut records = resumed;
    let resumed_count = records.len();
    let failure = play_pending(
        config,
        &settings,
        &pending,
        &names,
        total,
        &mut records,
        &mut progress,
    );
    if let Some(err) = failure {
        return Err(err);
    }
    records.sort_by_key(|r| r.index);
    Ok(MatchReport {
        names,
        engines: config.engines.clone(),
        size: config.size,
        rules: config.referee_rules(),
        resumed: resumed_count,
        games: records,
    })
}

/// Checks that the match's settings can make every game: the first
/// position, and every opening once (games 2k and 2k + 1 share one).
fn check_setup(config: &MatchConfig) -> Result<(), MatchError> {
    config.new_game().map_err(MatchError::Setup)?;
    for index in (0..config.games.min(2 * config.openings.len().max(1))).step_by(2) {
        config.game_at(index).map_err(MatchError::Setup)?;
    }
    Ok(())
}

/// The games of this match (by `key`) already in the results file, if the
/// match keeps one: only those of this run's shard, even from a file that
/// holds others.
fn resume(config: &MatchConfig, key: &str) -> Result<Vec<GameRecord>, MatchError> {
    let resumed = match &config.results_file {
        Some(path) => {
            results::load(path, key, config.games).map_err(|source| MatchError::Results {
                path: path.clone(),
                source,
            })?
        }
        None => Vec::new(),
    };
    Ok(resumed
        .into_iter()
        .filter(|r| config.shard.contains(r.index))
        .collect())
}

/// The engines' names: asked of the engines when games are left to play,
/// else those of the resumed games (or the command lines).
fn engine_names(
    config: &MatchConfig,
    resumed: &[GameRecord],
    pending: &[usize],
) -> Result<[String; 2], MatchError> {
    Ok(if pending.is_empty() {
        resumed
            .first()
            .map(|r| r.names.clone())
            .unwrap_or_else(|| config.engines.clone())
    } else {
        [probe(config, 0, pending[0])?, probe(config, 1, pending[0])?]
    })
}

/// Creates the directory of the SGF records, if the match keeps them.
fn create_sgf_dir(config: &MatchConfig) -> Result<(), MatchError> {
    if let Some(dir) = &config.sgf_dir {
        fs::create_dir_all(dir).map_err(|source| MatchError::Sgf {
            path: dir.clone(),
            source,
        })?;
    }
    Ok(())
}

/// Plays the `pending` games on worker threads, adding each finished game
/// to `records` and telling `progress` on this thread as games end. Returns
/// the first error that stopped the match, if any.
fn play_pending(
    config: &MatchConfig,
    settings: &results::MatchSettings,
    pending: &[usize],
    names: &[String; 2],
    total: usize,
    records: &mut Vec<GameRecord>,
    progress: &mut impl FnMut(&MatchEvent<'_>),
) -> Option<MatchError> {
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let mut failure = None;
    thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel::<Message>();
        let workers = config.concurrency.max(1).min(pending.len());
        for _ in 0..workers {
            let sender = sender.clone();
            let (next, stop) = (&next, &stop);
            scope.spawn(move || work(config, pending, names, next, stop, sender));
        }
        // Only the workers hold senders now, so the loop ends with them.
        drop(sender);
        for message in receiver {
            let outcome = match message {
                Message::Moved { index, game } => {
                    progress(&MatchEvent::Moved {
                        index,
                        black: config.black_engine(index),
                        game: &game,
                    });
                    continue;
                }
                Message::Finished(outcome) => *outcome,
            };
            match outcome.and_then(|record| append_result(config, settings, record)) {
                Ok(record) => {
                    records.push(record);
                    progress(&MatchEvent::GameFinished {
                        record: records.last().expect("just pushed"),
                        finished: records.len(),
                        total,
                    });
                }
                Err(err) => {
                    stop.store(true, Ordering::Relaxed);
                    failure.get_or_insert(err);
                }
            }
        }
    });
    failure
}

/// A worker's loop: takes the next unplayed game until none is left or
/// the main thread has hit an error it cannot go on after, plays it and
/// sends its outcome (and, when watched, its moves) to the main thread.
fn work(
    config: &MatchConfig,
    pending: &[usize],
    names: &[String; 2],
    next: &AtomicUsize,
    stop: &AtomicBool,
    sender: mpsc::Sender<Message>,
) {
    while !stop.load(Ordering::Relaxed) {
        let Some(&index) = pending.get(next.fetch_add(1, Ordering::Relaxed)) else {
            break;
        };
        let on_move = |game: &Game| {
            if config.watch {
                // A closed channel means the match is stopping;
                // the game ends on its own.
                let _ = sender.send(Message::Moved {
                    index,
                    game: Box::new(game.clone()),
                });
            }
        };
        let played = play_game(index, config, names, &on_move);
        let outcome = save_sgf(config, played);
        if sender.send(Message::Finished(Box::new(outcome))).is_err() {
            break;
        }
    }
}

/// Appends the game's line to the results file, if the match keeps one,
/// and returns the record.
fn append_result(
    config: &MatchConfig,
    settings: &results::MatchSettings,
    record: GameRecord,
) -> Result<GameRecord, MatchError> {
    if let Some(path) = &config.results_file {
        results::append(path, &results::to_line(settings, &record)).map_err(|source| {
            MatchError::Results {
                path: path.clone(),
                source,
            }
        })?;
    }
    Ok(record)
}

/// What a worker tells the main thread.
enum Message {
    /// A move of game `index` was played (watched matches only).
    Moved { index: usize, game: Box<Game> },
    /// A game ended: its record, or the error that stops the match.
    Finished(Box<Result<GameRecord, MatchError>>),
}

/// Starts engine `engine` once, as game `index` would, to learn its name and
/// check that it speaks GTP.
fn probe(config: &MatchConfig, engine: usize, index: usize) -> Result<String, MatchError> {
    let command_line = &config.engine_command(engine, index);
    let error = |source| MatchError::Engine {
        engine,
        command_line: command_line.clone(),
        source,
    };
    let mut controller = Controller::spawn(command_line).map_err(error)?;
    controller.set_timeout(Some(config.command_timeout));
    let name = controller.name().map_err(error)?;
    // `version` may be empty or missing; the name alone will do then.
    let version = controller.version().unwrap_or_default();
    let _ = controller.quit();
    let full = format!("{} {}", name.trim(), version.trim());
    Ok(full.trim().to_string())
}

/// Writes the game's SGF record if the match keeps them, and returns the
/// record with the file's path.
fn save_sgf(config: &MatchConfig, played: PlayedGame) -> Result<GameRecord, MatchError> {
    let PlayedGame { mut record, game } = played;
    let Some(dir) = &config.sgf_dir else {
        return Ok(record);
    };
    let black = record.black;
    let mut comment = Vec::new();
    if let Some(forfeit) = &record.forfeit {
        comment.push(format!(
            "{} ({}) forfeits: {}: {}",
            record.names[forfeit.engine],
            record.color_of(forfeit.engine).name(),
            forfeit.kind,
            forfeit.reason
        ));
    }
    if record.end == GameEnd::MoveLimit {
        comment.push(format!(
            "Stopped after {} turns and counted as it stood.",
            record.moves
        ));
    }
    if record.dead_stones > 0 {
        let how = if record.dead_agreed == Some(true) {
            "as both engines agreed"
        } else {
            "as the referee estimated (the engines disagreed)"
        };
        comment.push(format!(
            "{} dead stones removed, {how}.",
            record.dead_stones
        ));
    }
    let info = GameInfo {
        black_name: Some(record.names[black].clone()),
        white_name: Some(record.names[1 - black].clone()),
        result: Some(record.result.clone()),
        date: Some(date::today()),
        event: Some(format!("tengen match, game {}", record.index)),
        comment: (!comment.is_empty()).then(|| comment.join("\n")),
    };
    let path = sgf_path(dir, record.index);
    fs::write(&path, tengen_sgf::write_game(&game, &info)).map_err(|source| MatchError::Sgf {
        path: path.clone(),
        source,
    })?;
    record.sgf = Some(path);
    Ok(record)
}

/// The SGF file of game `index`: `game-0007.sgf`.
pub fn sgf_path(dir: &Path, index: usize) -> PathBuf {
    dir.join(format!("game-{index:04}.sgf"))
}
