//! Bot against bot, printing every move and the board after it: the book's
//! `bot_v_bot`.

use std::io::{self, Write};
use std::time::Duration;

use tengen_core::{Agent, BoardSize, Color, Game, IllegalMove, Outcome, Rules};
use thiserror::Error;

use crate::report::{action_line, board_diagram, capitalized, result_line, size_text};
use tengen_bots::{BotError, BotSpec};

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
    /// Pause after each move, so a person can watch.
    pub delay: Duration,
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
}

/// The most turns a self-play game may last on a board of `size` before it is
/// stopped and counted: four per point. With superko a game always ends long
/// before; the cap only guards against a bot that never passes.
pub fn max_turns(size: BoardSize) -> usize {
    4 * size.points_count()
}

/// The bot a spec names, set up for self-play: bots that can resign do not,
/// unless the spec says otherwise, so that every game is played out.
fn self_play_agent(spec: &str, seed: u64) -> Result<Box<dyn Agent + Send>, BotError> {
    let mut spec: BotSpec = spec.parse()?;
    if spec
        .info()
        .is_some_and(|info| info.option("resign").is_some())
        && spec.get("resign").is_none()
    {
        spec.set("resign", "0");
    }
    tengen_bots::make_bot(&spec, seed)
}

/// Builds the two bots of `config` and plays them against each other, writing
/// a header, every move with the board after it, and the result line to `out`.
pub fn run(
    config: &SelfPlayConfig,
    out: &mut impl Write,
) -> Result<SelfPlaySummary, SelfPlayError> {
    let mut black = self_play_agent(&config.black, config.seed)?;
    let mut white = self_play_agent(&config.white, config.seed.wrapping_add(1))?;
    writeln!(
        out,
        "Self-play on {}: Black {}, White {}, rules {}, komi {}, seed {}",
        size_text(config.size),
        black.name(),
        white.name(),
        config.rules,
        config.rules.komi,
        config.seed
    )?;
    let mut game = Game::new(config.size, config.rules);
    play_game(
        &mut game,
        black.as_mut(),
        white.as_mut(),
        max_turns(config.size),
        config.delay,
        out,
    )
}

/// Plays `game` to its end between `black` and `white` (or until `max_turns`
/// turns have been played, then counts the position as it stands), writing
/// each move, the board after it and finally the result line to `out`.
pub fn play_game(
    game: &mut Game,
    black: &mut dyn Agent,
    white: &mut dyn Agent,
    max_turns: usize,
    delay: Duration,
    out: &mut impl Write,
) -> Result<SelfPlaySummary, SelfPlayError> {
    let mut capped = false;
    while !game.is_over() {
        if game.turn_count() >= max_turns {
            capped = true;
            tracing::warn!(turns = game.turn_count(), "self-play game hit the turn cap");
            writeln!(
                out,
                "\nStopped after {} turns without the game ending; counting the position as it stands.",
                game.turn_count()
            )?;
            break;
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
                    tengen_core::Action::Move(mv) => game.size().gtp(mv),
                    tengen_core::Action::Resign => "resign".to_string(),
                },
                reason,
            })?;
        writeln!(out)?;
        writeln!(out, "{}", action_line(game, color, action))?;
        write!(out, "{}", board_diagram(game))?;
        out.flush()?;
        if !delay.is_zero() && !game.is_over() {
            std::thread::sleep(delay);
        }
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
            delay: Duration::ZERO,
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
            &mut black,
            &mut white,
            3,
            Duration::ZERO,
            &mut out,
        )
        .unwrap();
        assert!(summary.capped);
        assert_eq!(summary.turns, 3);
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Stopped after 3 turns"), "{text}");
        assert!(text.lines().last().unwrap().starts_with("Result: "));
    }

    #[test]
    fn unknown_bots_are_refused() {
        let mut bad = config(1);
        bad.white = "nosuchbot".into();
        let err = run(&bad, &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("known bots: random"), "{err}");
    }
}
