//! `tengen play`: a person against a bot in the terminal (or through a pipe,
//! with the input echoed).

use std::io::{self, IsTerminal};

use anyhow::Result;
use tengen::check_plays;
use tengen::terminal::Session;
use tengen_core::Game;

use super::{board_and_rules, seed_or_clock};
use crate::args::PlayArgs;

/// Runs `tengen play`: the bot is checked against the game before the session starts.
pub fn run(args: PlayArgs) -> Result<()> {
    let (size, mut rules) = board_and_rules(&args.game)?;
    if args.handicap > 0 && args.game.komi.is_none() {
        rules = rules.with_komi(0.5);
    }
    let seed = seed_or_clock(args.game.seed);
    let bot = tengen::make_agent(&args.bot, seed)?;
    check_plays(bot.as_ref(), &args.bot, &rules, size)?;
    let game = Game::with_handicap(size, rules, args.handicap)?;
    let stdin = io::stdin();
    let echo = !stdin.is_terminal();
    let mut session =
        Session::new(game, args.color, bot, stdin.lock(), io::stdout().lock()).with_echo(echo);
    let end = session.run()?;
    tracing::info!(?end, "session over");
    Ok(())
}
