//! What a match is: the two engines, how many games, on what board, under
//! which rules, with which limits, and where to write the records.

use std::path::PathBuf;
use std::time::Duration;

use tengen_core::{BoardSize, Game, Rules};

use crate::clock::Clock;
use crate::openings::Opening;
use crate::shard::Shard;

/// The placeholder in an engine's command line that each game replaces with
/// the engine's seed for that game (see [`MatchConfig::engine_command`]).
pub const SEED_PLACEHOLDER: &str = "{seed}";

/// The default deadline for commands other than `genmove`.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// The `genmove` deadline when no time per move is set: long enough for any
/// sensible engine, short enough that a hung one does not stall a match.
pub const DEFAULT_MOVE_TIMEOUT: Duration = Duration::from_secs(300);

/// Under a clock, how long past its remaining time the referee waits for a
/// `genmove` reply before giving up on the engine (it has lost on time by
/// then anyway; the grace only tells a slow reply from a hung engine).
pub const CLOCK_GRACE: Duration = Duration::from_secs(1);

/// A match between two GTP engines.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// The two engines' command lines (split as by
    /// [`tengen_gtp::controller::split_command_line`]). Engine 0 plays Black in
    /// even-numbered games, engine 1 in odd ones.
    pub engines: [String; 2],
    /// How many games to play.
    pub games: usize,
    /// The board size (engines are sent `boardsize`).
    pub size: BoardSize,
    /// Komi; it replaces the komi of `rules` for the referee and is sent to the
    /// engines with `komi`.
    pub komi: f64,
    /// The rules the referee applies (ko, suicide, scoring; or NoGo, where a
    /// pass, a capture or a suicide forfeits, nothing is counted and the side
    /// that cannot move loses). Engines that list `tengen-rules` are told
    /// them in full, KataGo (`kata-set-rules`) as its JSON, engines that
    /// list `kgs-rules` are told the KGS rule set
    /// when the rules are one; start others with matching options (GNU Go:
    /// `--chinese-rules` for area scoring, `--positional-superko`).
    pub rules: Rules,
    /// Where to write one SGF record per game (`game-0007.sgf`); created if
    /// missing. `None`: no records.
    pub sgf_dir: Option<PathBuf>,
    /// Where to append one JSON line per finished game, and from which to
    /// resume an interrupted match (see [`crate::results`]). `None`: no file.
    pub results_file: Option<PathBuf>,
    /// How many games run at once (at least 1).
    pub concurrency: usize,
    /// Thinking time per move, told to the engines as
    /// `time_settings 0 T 1` (T seconds for every move).
    pub time_per_move: Option<Duration>,
    /// A game clock per engine (main time and byo-yomi), told to the engines
    /// with `time_settings` and, before each `genmove`, `time_left`; the
    /// referee keeps the time and an engine whose clock runs out loses on
    /// time. When set it replaces `time_per_move`, and the `genmove` deadline
    /// is the time the engine has left plus [`CLOCK_GRACE`].
    pub clock: Option<Clock>,
    /// The deadline for a `genmove` reply; an engine that misses it forfeits.
    /// `None`: 1.5 × `time_per_move` + 2 s when that is set, otherwise
    /// [`DEFAULT_MOVE_TIMEOUT`]. Not used when `clock` is set.
    pub move_timeout: Option<Duration>,
    /// The deadline for every other command's reply.
    pub command_timeout: Duration,
    /// The most turns (passes included) before the game is stopped and
    /// counted. `None`: 3 × the number of points.
    pub max_moves: Option<usize>,
    /// Black's handicap stones (0: none, else 2 up to
    /// [`tengen_core::max_fixed_handicap`]), placed where the GTP
    /// specification puts fixed handicap; White moves first after them.
    /// Engines are told with `fixed_handicap`, or with `set_free_handicap`
    /// when they lack it or place the stones elsewhere. Komi stays what
    /// `komi` says (`tengen match` makes it 0.5 unless given).
    pub handicap: usize,
    /// Engine 0 plays Black in every game (a handicap series, where one
    /// engine always gives the stones); otherwise the engines take turns.
    pub first_plays_black: bool,
    /// Whether [`crate::run_match`] reports every move
    /// ([`crate::MatchEvent::Moved`]), for watching games as they go.
    pub watch: bool,
    /// Which of the games this run plays: [`Shard::WHOLE`] for all of them;
    /// shard `I/N` plays the games whose index is `I` modulo `N`, each
    /// exactly as the whole match would (same index, colours and seeds).
    pub shard: Shard,
    /// The seed that `{seed}` in an engine's command line stands for: in
    /// game `i`, engine 0 gets `seed + 2i` and engine 1 `seed + 2i + 1`, so
    /// seeded engines replay the same games however the match is run.
    pub seed: u64,
    /// Set openings ([`crate::openings`]): game `i` starts from opening
    /// `(i / 2) mod n`, so each is played twice, the engines swapping
    /// colours. Empty: every game starts from the empty board (or the
    /// handicap).
    pub openings: Vec<Opening>,
}

impl MatchConfig {
    /// A match of `games` games between two engines on 19×19 with the
    /// default rules (komi 7.5), one game at a time, no time limit, no files.
    pub fn new(engines: [String; 2], games: usize) -> MatchConfig {
        let rules = Rules::default();
        MatchConfig {
            engines,
            games,
            size: BoardSize::square(19).expect("19 is a valid size"),
            komi: rules.komi,
            rules,
            sgf_dir: None,
            results_file: None,
            concurrency: 1,
            time_per_move: None,
            clock: None,
            move_timeout: None,
            command_timeout: DEFAULT_COMMAND_TIMEOUT,
            max_moves: None,
            handicap: 0,
            first_plays_black: false,
            watch: false,
            shard: Shard::WHOLE,
            seed: 0,
            openings: Vec::new(),
        }
    }

    /// The opening game `index` starts from, if the match has openings.
    pub fn opening(&self, index: usize) -> Option<&Opening> {
        if self.openings.is_empty() {
            return None;
        }
        self.openings.get((index / 2) % self.openings.len())
    }

    /// Game `index` of this match as it starts: [`MatchConfig::new_game`]
    /// with the game's opening played.
    pub fn game_at(&self, index: usize) -> Result<Game, String> {
        let mut game = self.new_game()?;
        if let Some(opening) = self.opening(index) {
            if self.handicap > 0 {
                return Err("set openings and a handicap do not go together".to_string());
            }
            opening
                .play_on(&mut game)
                .map_err(|reason| format!("opening {}: {reason}", opening.name))?;
        }
        Ok(game)
    }

    /// A new game of this match: the empty board, or Black's handicap
    /// stones with White to move; `Err` with the reason when the handicap
    /// does not fit the board.
    pub fn new_game(&self) -> Result<Game, String> {
        match self.handicap {
            0 => Ok(Game::new(self.size, self.referee_rules())),
            1 => Err("a handicap is 2 stones or more (0 for an even game)".to_string()),
            stones => Game::with_handicap(self.size, self.referee_rules(), stones)
                .map_err(|err| format!("handicap {stones}: {err}")),
        }
    }

    /// The rules the referee applies: `rules` with this match's komi.
    pub fn referee_rules(&self) -> Rules {
        self.rules.with_komi(self.komi)
    }

    /// The turn limit in force (see [`MatchConfig::max_moves`]).
    pub fn effective_max_moves(&self) -> usize {
        self.max_moves
            .unwrap_or(3 * self.size.points_count())
            .max(1)
    }

    /// The `genmove` deadline in force (see [`MatchConfig::move_timeout`]).
    pub fn effective_move_timeout(&self) -> Duration {
        match (self.move_timeout, self.time_per_move) {
            (Some(timeout), _) => timeout,
            (None, Some(per_move)) => per_move * 3 / 2 + Duration::from_secs(2),
            (None, None) => DEFAULT_MOVE_TIMEOUT,
        }
    }

    /// Engine `engine`'s command line for game `index`: its command line with
    /// every `{seed}` replaced by that game's seed for it (see
    /// [`MatchConfig::seed`]).
    pub fn engine_command(&self, engine: usize, index: usize) -> String {
        let seed = self
            .seed
            .wrapping_add(2 * index as u64)
            .wrapping_add(engine as u64);
        self.engines[engine].replace(SEED_PLACEHOLDER, &seed.to_string())
    }

    /// Whether an engine's command line takes a per-game seed.
    pub fn uses_seed(&self) -> bool {
        self.engines.iter().any(|e| e.contains(SEED_PLACEHOLDER))
    }

    /// Which engine plays Black in game `index`: engine 0 in even games,
    /// or in every game with [`MatchConfig::first_plays_black`].
    pub fn black_engine(&self, index: usize) -> usize {
        if self.first_plays_black {
            0
        } else {
            index % 2
        }
    }

    /// A text that identifies this match in a results file: the engines, the
    /// board, the rules, komi and limits, and the seed when an engine takes
    /// one, but not the number of games, so a match can be resumed with more
    /// games than first planned, nor the shard, so the results of every
    /// shard belong to the same match.
    pub fn key(&self) -> String {
        let time = match (self.clock, self.time_per_move) {
            (Some(clock), _) => format!("clock {clock}"),
            (None, Some(t)) => format!("{}s/move", t.as_secs_f64()),
            (None, None) => "no time limit".to_string(),
        };
        let handicap = match self.handicap {
            0 => String::new(),
            stones => format!(" | handicap {stones}"),
        };
        let colours = if self.first_plays_black {
            " | first plays Black"
        } else {
            ""
        };
        // Keys of matches without seeded engines stay what they were, so
        // their results files still resume.
        let seed = if self.uses_seed() {
            format!(" | seed {}", self.seed)
        } else {
            String::new()
        };
        // The openings by their moves, so that another set is another match.
        let openings = if self.openings.is_empty() {
            String::new()
        } else {
            let mut hash = tengen_core::Fnv1a::new();
            for opening in &self.openings {
                for (color, mv) in &opening.moves {
                    hash.write(format!("{}{};", color.letter(), self.size.gtp(*mv)).as_bytes());
                }
                hash.write(b"|");
            }
            format!(" | {} openings {:016x}", self.openings.len(), hash.finish())
        };
        format!(
            "{} vs {} | {} | {} | komi {}{handicap}{colours} | {} turns max | {time}{seed}{openings}",
            self.engines[0],
            self.engines[1],
            self.size,
            self.rules.with_komi(self.komi),
            self.komi,
            self.effective_max_moves(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_board_and_time() {
        let mut config = MatchConfig::new(["a".into(), "b".into()], 4);
        config.size = BoardSize::square(9).unwrap();
        assert_eq!(config.effective_max_moves(), 243);
        assert_eq!(config.effective_move_timeout(), DEFAULT_MOVE_TIMEOUT);
        config.time_per_move = Some(Duration::from_secs(2));
        assert_eq!(config.effective_move_timeout(), Duration::from_secs(5));
        config.move_timeout = Some(Duration::from_secs(9));
        assert_eq!(config.effective_move_timeout(), Duration::from_secs(9));
        assert_eq!(config.black_engine(0), 0);
        assert_eq!(config.black_engine(3), 1);
        let alternating = config.key();
        config.first_plays_black = true;
        assert_eq!(config.black_engine(3), 0);
        // Another match: its results never mix with the alternating one's.
        assert_ne!(config.key(), alternating);
        config.first_plays_black = false;
        config.komi = 0.5;
        assert_eq!(config.referee_rules().komi, 0.5);
        assert!(config.key().contains("komi 0.5"));
        let per_move = config.key();
        config.clock = Some(Clock::with_byo_yomi(
            Duration::from_secs(60),
            Duration::from_secs(5),
            1,
        ));
        let clocked = config.key();
        assert_ne!(per_move, clocked);
        assert!(
            clocked.ends_with("clock 60s main + 5s byo-yomi / 1 stones"),
            "{clocked}"
        );
        config.clock = Some(Clock::absolute(Duration::from_secs(60)));
        assert_ne!(config.key(), clocked);
        let even = config.key();
        config.handicap = 4;
        assert_ne!(config.key(), even, "a handicap match is another match");
    }

    #[test]
    fn seeds_reach_engines_per_game_and_shards_share_the_key() {
        let mut config = MatchConfig::new(
            [
                "tengen gtp --seed {seed}".into(),
                "gnugo --seed {seed}0".into(),
            ],
            10,
        );
        config.seed = 100;
        assert_eq!(config.engine_command(0, 0), "tengen gtp --seed 100");
        assert_eq!(config.engine_command(1, 0), "gnugo --seed 1010");
        assert_eq!(config.engine_command(0, 3), "tengen gtp --seed 106");
        assert_eq!(config.engine_command(1, 3), "gnugo --seed 1070");
        let key = config.key();
        assert!(key.ends_with(" | seed 100"), "{key}");
        config.shard = Shard::new(1, 4).unwrap();
        assert_eq!(config.key(), key, "the shard is not part of the match");
        config.seed = 101;
        assert_ne!(config.key(), key, "another seed is another match");
        let unseeded = MatchConfig::new(["a".into(), "b".into()], 2);
        assert!(!unseeded.key().contains("seed"));
        assert_eq!(unseeded.engine_command(1, 5), "b");
    }

    #[test]
    fn handicap_games_start_with_the_stones_and_white_to_move() {
        let mut config = MatchConfig::new(["a".into(), "b".into()], 2);
        let game = config.new_game().unwrap();
        assert_eq!(
            (game.handicap(), game.to_move()),
            (0, tengen_core::Color::Black)
        );
        config.handicap = 4;
        let game = config.new_game().unwrap();
        assert_eq!(game.handicap(), 4);
        assert_eq!(game.to_move(), tengen_core::Color::White);
        assert_eq!(game.board().stone_count(tengen_core::Color::Black), 4);
        config.handicap = 1;
        assert!(config.new_game().is_err());
        config.handicap = 10;
        assert!(config.new_game().unwrap_err().contains("handicap 10"));
        config.size = BoardSize::square(7).unwrap();
        config.handicap = 5;
        assert!(config.new_game().is_err(), "7x7 takes at most 4");
    }
}
