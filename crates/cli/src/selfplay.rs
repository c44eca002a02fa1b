//! Bot against bot, printing every move and the board after it: the book's
//! `bot_v_bot` ([`run`]); and series of games written as SGF records, several
//! at a time ([`run_batch`]).

use std::fmt;
use std::io::{self, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use tengen_core::{Action, Agent, BoardSize, Color, Game, IllegalMove, Outcome, Rules};
use tengen_sgf::{write_game, GameInfo};
use thiserror::Error;

use crate::report::{action_line, board_diagram, capitalized, result_line, size_text, Screen};
use tengen_bots::registry::{KataGoSettings, MctsSettings};
use tengen_bots::{BotError, BotSpec};
use tengen_match::Shard;

/// What a self-play game is made of.
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayConfig {
    /// Board size.
    pub size: BoardSize,
    /// Rules, komi included.
    pub rules: Rules,
    /// Bot name for Black (a spec such as `random`, see [`tengen_bots::registry`]).
    pub black: String,
    /// Bot name for White.
    pub white: String,
    /// Seed of Black's bot; White's uses the next number, so one seed replays
    /// the whole game.
    pub seed: u64,
    /// How the moves are shown.
    pub view: View,
}

/// How a game is shown while it is played.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Pause after each move, so a person can watch.
    pub delay: Duration,
    /// Whether each board replaces the last (a terminal) or they scroll.
    pub screen: Screen,
}

impl View {
    /// Boards one after another at full speed: the output for pipes and files.
    pub const SCROLLING: View = View {
        delay: Duration::ZERO,
        screen: Screen::scrolling(),
    };
}

/// How a self-play game went.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SelfPlaySummary {
    /// The result.
    pub outcome: Outcome,
    /// Turns played (passes and a resignation included).
    pub turns: usize,
    /// Whether the game was stopped at the turn cap rather than ending by
    /// itself.
    pub capped: bool,
}

/// Why a self-play game could not be played to the end.
#[derive(Debug, Error)]
pub enum SelfPlayError {
    /// A bot spec is not known or malformed.
    #[error(transparent)]
    Bot(#[from] BotError),
    /// A bot chose a move the rules do not allow (a bug in the bot).
    #[error("{color} ({bot}) chose an illegal move {text}: {reason}")]
    IllegalMove {
        /// The side whose bot erred.
        color: Color,
        /// The bot's name.
        bot: String,
        /// The move, as GTP text.
        text: String,
        /// Why it is illegal.
        reason: IllegalMove,
    },
    /// The output could not be written.
    #[error("cannot write the game: {0}")]
    Io(#[from] io::Error),
    /// A record or its folder could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Record {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        source: io::Error,
    },
}

/// The most turns a self-play game may last on a board of `size` before it is
/// stopped and counted: four per point. With superko a game always ends long
/// before; the cap only guards against a bot that never passes.
pub fn max_turns(size: BoardSize) -> usize {
    4 * size.points_count()
}

/// The bot a spec names, set up for self-play: bots that resign by their
/// win rate do not, unless the spec says otherwise, so that every game is
/// played out.
fn self_play_agent(spec: &str, seed: u64) -> Result<Box<dyn Agent + Send>, BotError> {
    let spec: BotSpec = spec.parse()?;
    let mut settings = spec.settings()?;
    if spec.get("resign-winrate").is_none() {
        let any = settings.as_any_mut();
        if let Some(mcts) = any.downcast_mut::<MctsSettings>() {
            mcts.search.resign_below = 0.0;
        } else if let Some(katago) = any.downcast_mut::<KataGoSettings>() {
            katago.search.resignation.threshold = 0.0;
        }
    }
    settings.build(seed)
}

/// Builds the two bots of `config` and plays them against each other, writing
/// a header, every move with the board after it, and the result line to `out`.
pub fn run(
    config: &SelfPlayConfig,
    out: &mut impl Write,
) -> Result<SelfPlaySummary, SelfPlayError> {
    let mut black = self_play_agent(&config.black, config.seed)?;
    let mut white = self_play_agent(&config.white, config.seed.wrapping_add(1))?;
    let title = format!(
        "Self-play on {}: Black {}, White {}, rules {}, komi {}, seed {}",
        size_text(config.size),
        black.name(),
        white.name(),
        config.rules,
        config.rules.komi,
        config.seed
    );
    writeln!(out, "{title}")?;
    let mut game = Game::new(config.size, config.rules);
    play_game(
        &mut game,
        [black.as_mut(), white.as_mut()],
        max_turns(config.size),
        &config.view,
        &title,
        out,
    )
}

/// Plays `game` to its end between `players` (Black, White), or until
/// `max_turns` turns have been played, then counts the position as it
/// stands; writes each move and the board after it to `out` as `view`
/// says (a redrawn screen starts with `title`), then the result line.
pub fn play_game(
    game: &mut Game,
    players: [&mut dyn Agent; 2],
    max_turns: usize,
    view: &View,
    title: &str,
    out: &mut impl Write,
) -> Result<SelfPlaySummary, SelfPlayError> {
    let [black, white] = players;
    let capped = play_moves(game, black, white, max_turns, |game, color, action| {
        let mut frame = String::new();
        if view.screen.redraws() {
            frame.push_str(title);
            frame.push('\n');
        }
        frame.push_str(&action_line(game, color, action));
        frame.push('\n');
        frame.push_str(&board_diagram(game));
        view.screen.show(out, &frame)?;
        if !view.delay.is_zero() && !game.is_over() {
            std::thread::sleep(view.delay);
        }
        Ok(())
    })?;
    if capped {
        writeln!(
            out,
            "\nStopped after {} turns without the game ending; counting the position as it stands.",
            game.turn_count()
        )?;
    }
    if let Some(loser) = game.resigned() {
        tracing::debug!("{} resigned", capitalized(loser));
    }
    writeln!(out)?;
    writeln!(out, "{}", result_line(game))?;
    out.flush()?;
    Ok(SelfPlaySummary {
        outcome: game.outcome(),
        turns: game.turn_count(),
        capped,
    })
}

/// The game loop: asks the bot to move of the side to move until the game is
/// over or `max_turns` turns are played, telling `after_move` of each turn.
/// Returns whether the turn cap stopped the game.
fn play_moves(
    game: &mut Game,
    black: &mut dyn Agent,
    white: &mut dyn Agent,
    max_turns: usize,
    mut after_move: impl FnMut(&Game, Color, Action) -> io::Result<()>,
) -> Result<bool, SelfPlayError> {
    while !game.is_over() {
        if game.turn_count() >= max_turns {
            tracing::warn!(turns = game.turn_count(), "self-play game hit the turn cap");
            return Ok(true);
        }
        let color = game.to_move();
        let agent: &mut dyn Agent = match color {
            Color::Black => &mut *black,
            Color::White => &mut *white,
        };
        let action = agent.select_move(game);
        game.apply(action)
            .map_err(|reason| SelfPlayError::IllegalMove {
                color,
                bot: agent.name().to_string(),
                text: match action {
                    Action::Move(mv) => game.size().gtp(mv),
                    Action::Resign => "resign".to_string(),
                },
                reason,
            })?;
        after_move(game, color, action)?;
    }
    Ok(false)
}

/// A series of self-play games written as SGF records.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchConfig {
    /// Board size.
    pub size: BoardSize,
    /// Rules, komi included.
    pub rules: Rules,
    /// Bot spec for Black (such as `random` or `mcts:playouts=800`).
    pub black: String,
    /// Bot spec for White.
    pub white: String,
    /// Game `i`'s Black bot is seeded `seed + 2 i`, its White bot
    /// `seed + 2 i + 1`: one seed replays the whole series, whatever the
    /// concurrency.
    pub seed: u64,
    /// Number of games.
    pub games: usize,
    /// Games played at once, each on a thread of its own with bots of its
    /// own.
    pub concurrency: usize,
    /// Folder for the records (`game-0001.sgf`, ...), created if missing;
    /// `None` plays without writing records.
    pub sgf_dir: Option<PathBuf>,
    /// `DT` of the records, `YYYY-MM-DD` (see [`tengen_sgf::date::record_date`]).
    pub date: String,
    /// Which of the games this run plays: shard `I/N` plays the games whose
    /// index is `I` modulo `N`, with the seeds and record names the whole
    /// series gives them, so the shards' records together are the series'.
    pub shard: Shard,
}

impl BatchConfig {
    /// The line printed above a series' totals: board, bots, rules, komi,
    /// the seed that replays it and the shard when it is one.
    pub fn header(&self) -> String {
        let shard = if self.shard.is_whole() {
            String::new()
        } else {
            format!(", shard {} of {} games", self.shard, self.games)
        };
        format!(
            "Self-play on {}x{}: Black {}, White {}, rules {}, komi {}, seed {}{shard}",
            self.size.width(),
            self.size.height(),
            self.black,
            self.white,
            self.rules,
            self.rules.komi,
            self.seed
        )
    }
}

/// How a series of self-play games went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BatchSummary {
    /// Games played.
    pub games: usize,
    /// Games Black won.
    pub black_wins: usize,
    /// Games White won.
    pub white_wins: usize,
    /// Drawn games.
    pub draws: usize,
    /// Turns played over all games (passes and resignations included).
    pub turns: usize,
    /// Games stopped at the turn cap and counted as they stood.
    pub capped: usize,
    /// The records written, in game order.
    pub files: Vec<PathBuf>,
}

impl BatchSummary {
    /// Mean game length in turns; 0 without games.
    pub fn mean_length(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.turns as f64 / self.games as f64
        }
    }
}

impl fmt::Display for BatchSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let share = |n: usize| {
            if self.games == 0 {
                0.0
            } else {
                100.0 * n as f64 / self.games as f64
            }
        };
        writeln!(f, "Games: {}", self.games)?;
        writeln!(
            f,
            "Black wins: {} ({:.1}%), White wins: {} ({:.1}%), draws: {}",
            self.black_wins,
            share(self.black_wins),
            self.white_wins,
            share(self.white_wins),
            self.draws
        )?;
        write!(f, "Mean length: {:.1} turns", self.mean_length())?;
        if self.capped > 0 {
            write!(f, " ({} stopped at the turn cap)", self.capped)?;
        }
        writeln!(f)
    }
}

/// One finished game of a series.
struct Played {
    winner: Option<Color>,
    turns: usize,
    capped: bool,
    file: Option<PathBuf>,
}

/// Plays game `index` of the series and writes its record.
fn play_one(config: &BatchConfig, index: usize) -> Result<Played, SelfPlayError> {
    let seed = config.seed.wrapping_add(2 * index as u64);
    let mut black = self_play_agent(&config.black, seed)?;
    let mut white = self_play_agent(&config.white, seed.wrapping_add(1))?;
    let mut game = Game::new(config.size, config.rules);
    let capped = play_moves(
        &mut game,
        black.as_mut(),
        white.as_mut(),
        max_turns(config.size),
        |_, _, _| Ok(()),
    )?;
    let outcome = game.outcome();
    let file = match &config.sgf_dir {
        None => None,
        Some(dir) => {
            let info = GameInfo {
                black_name: Some(config.black.clone()),
                white_name: Some(config.white.clone()),
                result: Some(outcome.to_string()),
                date: Some(config.date.clone()),
                event: None,
                comment: Some(format!(
                    "tengen selfplay, game {} of {}, seeds {seed} (Black) and {} (White){}",
                    index + 1,
                    config.games,
                    seed.wrapping_add(1),
                    if capped {
                        ", stopped at the turn cap and counted"
                    } else {
                        ""
                    }
                )),
            };
            let digits = config.games.to_string().len().max(4);
            let path = dir.join(format!("game-{:0digits$}.sgf", index + 1));
            std::fs::write(&path, write_game(&game, &info)).map_err(|source| {
                SelfPlayError::Record {
                    path: path.clone(),
                    source,
                }
            })?;
            Some(path)
        }
    };
    Ok(Played {
        winner: outcome.winner(),
        turns: game.turn_count(),
        capped,
        file,
    })
}

/// Plays the games of `config.shard` (all `config.games` by default),
/// `config.concurrency` at a time, each written
/// as an SGF record with `PB`/`PW` (the bot specs), `KM`, `RU`, `RE`, `SZ`
/// and `DT`. `progress(done, total)` is told after each game (`total`: the
/// shard's games). Returns the totals; the first error stops the series
/// (games under way finish).
pub fn run_batch(
    config: &BatchConfig,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<BatchSummary, SelfPlayError> {
    if let Some(dir) = &config.sgf_dir {
        std::fs::create_dir_all(dir).map_err(|source| SelfPlayError::Record {
            path: dir.clone(),
            source,
        })?;
    }
    // Refuse bad specs before starting threads.
    self_play_agent(&config.black, config.seed)?;
    self_play_agent(&config.white, config.seed)?;
    let mut played: Vec<Option<Played>> = (0..config.games).map(|_| None).collect();
    let indices: Vec<usize> = config.shard.games(config.games).collect();
    let total = indices.len();
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let (sender, receiver) = mpsc::channel();
    let mut first_error = None;
    progress(0, total);
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.clamp(1, total.max(1)) {
            let sender = sender.clone();
            let (next, failed, indices) = (&next, &failed, &indices);
            scope.spawn(move || {
                while !failed.load(Ordering::Relaxed) {
                    let Some(&index) = indices.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    let result = play_one(config, index);
                    if result.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    if sender.send((index, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut done = 0;
        for (index, result) in receiver {
            match result {
                Ok(game) => {
                    played[index] = Some(game);
                    done += 1;
                    progress(done, total);
                }
                Err(error) => {
                    first_error.get_or_insert(error);
                }
            }
        }
    });
    if let Some(error) = first_error {
        return Err(error);
    }
    let mut summary = BatchSummary::default();
    for game in played.into_iter().flatten() {
        summary.games += 1;
        summary.turns += game.turns;
        summary.capped += usize::from(game.capped);
        match game.winner {
            Some(Color::Black) => summary.black_wins += 1,
            Some(Color::White) => summary.white_wins += 1,
            None => summary.draws += 1,
        }
        summary.files.extend(game.file);
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(seed: u64) -> SelfPlayConfig {
        SelfPlayConfig {
            size: BoardSize::square(5).unwrap(),
            rules: Rules::default(),
            black: "random".into(),
            white: "random".into(),
            seed,
            view: View::SCROLLING,
        }
    }

    fn transcript(config: &SelfPlayConfig) -> (SelfPlaySummary, String) {
        let mut out = Vec::new();
        let summary = run(config, &mut out).unwrap();
        (summary, String::from_utf8(out).unwrap())
    }

    #[test]
    fn games_end_with_a_result_and_replay_from_the_seed() {
        for seed in 0..20 {
            let (summary, text) = transcript(&config(seed));
            assert!(!summary.capped);
            let last = text.lines().last().unwrap();
            let expected = format!("Result: {} (", summary.outcome);
            assert!(last.starts_with(&expected), "{last}");
            assert!(text.starts_with("Self-play on 5x5: Black random, White random"));
            assert!(text.contains("Black plays "));
            assert_eq!(transcript(&config(seed)).1, text);
        }
        assert_ne!(transcript(&config(1)).1, transcript(&config(2)).1);
    }

    #[test]
    fn the_turn_cap_stops_and_counts() {
        let mut game = Game::new(BoardSize::square(5).unwrap(), Rules::default());
        let mut black = tengen_core::RandomBot::new(1);
        let mut white = tengen_core::RandomBot::new(2);
        let mut out = Vec::new();
        let summary = play_game(
            &mut game,
            [&mut black, &mut white],
            3,
            &View::SCROLLING,
            "title",
            &mut out,
        )
        .unwrap();
        assert!(summary.capped);
        assert_eq!(summary.turns, 3);
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Stopped after 3 turns"), "{text}");
        assert!(text.lines().last().unwrap().starts_with("Result: "));
    }

    /// On a terminal every board replaces the last: each frame clears the
    /// screen and starts with the title; the result stays below the last
    /// board. Piped output has no control characters.
    #[test]
    fn a_terminal_redraws_the_board_in_place() {
        let mut redrawn = config(4);
        redrawn.view.screen = Screen::redrawing();
        let (summary, text) = transcript(&redrawn);
        let clear = "\x1b[H\x1b[2J";
        assert_eq!(
            text.matches(clear).count(),
            summary.turns,
            "one frame per turn"
        );
        let frames: Vec<&str> = text.split(clear).skip(1).collect();
        for frame in &frames {
            assert!(
                frame.starts_with("Self-play on 5x5: Black random, White random"),
                "{frame}"
            );
        }
        let last = frames.last().unwrap();
        assert!(last.contains("Result: "), "{last}");
        let (_, piped) = transcript(&config(4));
        assert!(!piped.contains('\x1b'));
        // The same moves either way.
        let moves = |t: &str| {
            t.lines()
                .filter(|l| l.contains(" plays ") || l.contains(" passes"))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(moves(&text), moves(&piped));
    }

    #[test]
    fn a_series_counts_every_game() {
        let config = BatchConfig {
            size: BoardSize::square(5).unwrap(),
            rules: Rules::default(),
            black: "random".into(),
            white: "random".into(),
            seed: 9,
            games: 6,
            concurrency: 3,
            sgf_dir: None,
            date: "2026-01-01".into(),
            shard: Shard::WHOLE,
        };
        let mut calls = Vec::new();
        let summary = run_batch(&config, &mut |done, total| calls.push((done, total))).unwrap();
        assert_eq!(summary.games, 6);
        assert_eq!(summary.black_wins + summary.white_wins + summary.draws, 6);
        assert!(summary.mean_length() > 5.0);
        assert!(summary.files.is_empty());
        assert_eq!(calls.last(), Some(&(6, 6)));
        let header = config.header();
        assert!(header.starts_with("Self-play on 5x5: Black random, White random, rules "));
        assert!(header.ends_with(", seed 9"), "{header}");
        // Game 0 of a series is the single game of the same seed.
        let single = run(&self::config(9), &mut Vec::new()).unwrap();
        let one = run_batch(&BatchConfig { games: 1, ..config }, &mut |_, _| {}).unwrap();
        assert_eq!(one.turns, single.turns);
    }

    #[test]
    fn shards_write_exactly_the_records_of_the_whole_series() {
        let root =
            std::env::temp_dir().join(format!("tengen-selfplay-shards-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let whole = BatchConfig {
            size: BoardSize::square(5).unwrap(),
            rules: Rules::default(),
            black: "random".into(),
            white: "random".into(),
            seed: 4,
            games: 7,
            concurrency: 2,
            sgf_dir: Some(root.join("whole")),
            date: "2026-01-01".into(),
            shard: Shard::WHOLE,
        };
        let summary = run_batch(&whole, &mut |_, _| {}).unwrap();
        let mut sharded_games = 0;
        for index in 0..3 {
            let shard = BatchConfig {
                sgf_dir: Some(root.join("shards")),
                shard: Shard::new(index, 3).unwrap(),
                ..whole.clone()
            };
            let mut calls = Vec::new();
            let part = run_batch(&shard, &mut |done, total| calls.push((done, total))).unwrap();
            let expected = [3, 2, 2][index];
            assert_eq!(part.games, expected);
            assert_eq!(calls.last(), Some(&(expected, expected)));
            assert!(shard
                .header()
                .ends_with(&format!(", shard {index}/3 of 7 games")));
            sharded_games += part.games;
        }
        assert_eq!(sharded_games, summary.games);
        let read = |dir: &str| {
            let mut files: Vec<(String, String)> = std::fs::read_dir(root.join(dir))
                .unwrap()
                .map(|entry| {
                    let path = entry.unwrap().path();
                    let name = path.file_name().unwrap().to_string_lossy().to_string();
                    (name, std::fs::read_to_string(&path).unwrap())
                })
                .collect();
            files.sort();
            files
        };
        let (whole_files, shard_files) = (read("whole"), read("shards"));
        assert_eq!(whole_files.len(), 7);
        assert_eq!(whole_files, shard_files);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn unknown_bots_are_refused() {
        let mut bad = config(1);
        bad.white = "nosuchbot".into();
        let err = run(&bad, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("known bots: random"), "{err}");
    }
}
