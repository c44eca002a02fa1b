//! `tengen gtp`: a bot served over the Go Text Protocol on standard input
//! and output (or the bot listing).

use std::io;

use anyhow::Result;
use tengen::check_plays;

use super::{board_and_rules, seed_or_clock};
use crate::args::GtpArgs;

/// Runs `tengen gtp` until the controller quits or input ends.
pub fn run(args: GtpArgs) -> Result<()> {
    if args.list_bots {
        print!("{}", tengen::bot_listing());
        return Ok(());
    }
    let (size, rules) = board_and_rules(&args.game)?;
    let seed = seed_or_clock(args.game.seed);
    let bot = tengen::make_agent(&args.bot, seed)?;
    check_plays(bot.as_ref(), &args.bot, &rules, size)?;
    // The count keeps the default estimate seed, so that this engine, the
    // match referee and the web server find the same dead stones; `seed`
    // is the bot's.
    let mut engine = tengen_gtp::Engine::new(bot, size, rules)
        .with_tunable(tengen::bot_params(&args.bot, seed)?);
    if let Some(network) = tengen::raw_network(&args.bot)? {
        engine = engine.with_network(network);
    }
    engine.run(io::BufReader::new(io::stdin()), io::stdout().lock())?;
    tracing::info!("gtp session over");
    Ok(())
}
