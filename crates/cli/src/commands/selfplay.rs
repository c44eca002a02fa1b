//! `tengen selfplay`: one game printed move by move, or a series of games
//! with a progress bar and the totals.

use std::io;
use std::time::Duration;

use anyhow::Result;
use tengen::check_plays;
use tengen::progress::stderr_bar;
use tengen::report::Screen;
use tengen::selfplay::{self, BatchConfig, SelfPlayConfig, View};

use super::{board_and_rules, seed_or_clock};
use crate::args::SelfplayArgs;

/// Runs `tengen selfplay`.
pub fn run(args: SelfplayArgs) -> Result<()> {
    let (size, rules) = board_and_rules(&args.game)?;
    let (black, white) = match &args.bot {
        Some(bot) => (bot.clone(), bot.clone()),
        None => (args.black.clone(), args.white.clone()),
    };
    for spec in [&black, &white] {
        check_plays(tengen::make_agent(spec, 0)?.as_ref(), spec, &rules, size)?;
    }
    if let Some(games) = args.games {
        let shard = args.shard.unwrap_or_default();
        // Shards seeded from their own clocks would not add up to one series.
        anyhow::ensure!(
            shard.is_whole() || args.game.seed.is_some(),
            "--shard needs --seed: every shard must play the games of the same series"
        );
        let config = BatchConfig {
            size,
            rules,
            black,
            white,
            seed: seed_or_clock(args.game.seed),
            games: games as usize,
            concurrency: args.concurrency as usize,
            sgf_dir: args.sgf_dir,
            date: tengen_sgf::date::record_date(),
            shard,
        };
        return series(&config);
    }
    let config = SelfPlayConfig {
        size,
        rules,
        black,
        white,
        seed: seed_or_clock(args.game.seed),
        view: watch_view(args.delay_ms),
    };
    let summary = selfplay::run(&config, &mut io::stdout().lock())?;
    tracing::info!(
        turns = summary.turns,
        capped = summary.capped,
        "self-play finished"
    );
    Ok(())
}

/// How a single game is shown: on a terminal the board is redrawn in place
/// with a pause after each move (300 ms unless `--delay-ms` says otherwise),
/// as the book's `bot_v_bot` does; piped, boards follow one another at full
/// speed unless a delay is given.
fn watch_view(delay_ms: Option<u64>) -> View {
    let screen = Screen::stdout();
    let default = if screen.redraws() { 300 } else { 0 };
    View {
        delay: Duration::from_millis(delay_ms.unwrap_or(default)),
        screen,
    }
}

/// A series of self-play games: a progress bar, then the totals.
fn series(config: &BatchConfig) -> Result<()> {
    let bar = stderr_bar(
        Some(config.shard.game_count(config.games) as u64),
        "{bar:40} {pos}/{len} games [{elapsed_precise}, {eta} left]",
    );
    let summary = selfplay::run_batch(config, &mut |done, _| bar.set_position(done as u64))?;
    bar.finish_and_clear();
    println!("{}", config.header());
    print!("{summary}");
    if let Some(dir) = &config.sgf_dir {
        println!("Records: {} in {}", summary.files.len(), dir.display());
    }
    Ok(())
}
