//! `tengen match`: games between two GTP engines refereed by
//! `tengen-match`, a progress bar, then the report.

use anyhow::{Context, Result};
use indicatif::ProgressBar;
use std::io;
use tengen::options::{game_settings, match_clock};
use tengen::progress::stderr_bar;

use tengen::report::{action_line, board_diagram, estimate_line, result_line, Screen};
use tengen_core::{Color, Game, Rules};

use crate::args::{MatchArgs, MatchCommand, MergeArgs};

/// Runs `tengen match`: the arguments become a `MatchConfig`.
pub fn run(args: MatchArgs) -> Result<()> {
    if let Some(MatchCommand::Merge(merge_args)) = args.command {
        return merge(merge_args);
    }
    let [first, second]: [String; 2] = args.engines.try_into().map_err(|given: Vec<String>| {
        anyhow::anyhow!("give exactly two --engine options, not {}", given.len())
    })?;
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    anyhow::ensure!(args.concurrency > 0, "--concurrency must be at least 1");
    let mut config = tengen_match::MatchConfig::new([first, second], args.games);
    let chinese = Rules::preset("chinese").expect("the chinese preset");
    // A handicap game gives White half a point unless told otherwise.
    let komi = match (args.komi, args.handicap) {
        (None, stones) if stones > 0 => Some(0.5),
        (komi, _) => komi,
    };
    let (size, rules) = game_settings(args.game, args.size, args.rules, komi, chinese)
        .map_err(anyhow::Error::msg)?;
    config.size = size;
    config.rules = rules;
    config.komi = rules.komi;
    config.handicap = args.handicap;
    config.first_plays_black = args.first_plays_black;
    config.watch = args.watch;
    config.results_file = args
        .results
        .or_else(|| args.sgf_dir.as_ref().map(|dir| dir.join("results.jsonl")));
    config.sgf_dir = args.sgf_dir;
    config.concurrency = args.concurrency;
    config.time_per_move = args.time_per_move;
    config.clock = match_clock(
        args.main_time,
        args.byo_yomi,
        args.byo_yomi_stones,
        args.byo_yomi_periods,
    )
    .map_err(anyhow::Error::msg)?;
    config.max_moves = args.max_moves;
    config.shard = args.shard.unwrap_or_default();
    config.seed = args.seed;
    if let Some(path) = &args.openings {
        anyhow::ensure!(
            args.handicap == 0,
            "--openings and --handicap do not go together"
        );
        config.openings = tengen_match::load_openings(path, size, config.referee_rules())?;
        tracing::info!(openings = config.openings.len(), "set openings");
    }
    if let Some(dir) = &config.sgf_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let template = "{bar:40} {pos}/{len} games {msg}";
    let bar = if args.watch {
        // The boards are the progress.
        ProgressBar::hidden()
    } else {
        stderr_bar(Some(config.shard.game_count(args.games) as u64), template)
    };
    let screen = Screen::stdout();
    let mut names = [String::new(), String::new()];
    let mut watch_error = None;
    let report = tengen_match::run_match(&config, |event| match event {
        tengen_match::MatchEvent::Started {
            resumed,
            names: engine_names,
            ..
        } => {
            bar.set_position(*resumed as u64);
            names = (*engine_names).clone();
        }
        tengen_match::MatchEvent::Moved { index, black, game } => {
            let frame = watch_frame(*index, [&names[*black], &names[1 - *black]], game);
            if let Err(err) = screen.show(&mut io::stdout().lock(), &frame) {
                watch_error.get_or_insert(err);
            }
        }
        tengen_match::MatchEvent::GameFinished {
            record, finished, ..
        } => {
            bar.set_position(*finished as u64);
            bar.set_message(record.result.clone());
        }
    })?;
    bar.finish_and_clear();
    if let Some(err) = watch_error {
        tracing::warn!("could not show every move: {err}");
    }
    if !config.shard.is_whole() {
        println!(
            "Shard {} of match: games {} of {} (index mod {} = {})",
            config.shard,
            config.shard.game_count(config.games),
            config.games,
            config.shard.count(),
            config.shard.index()
        );
    }
    print!("{report}");
    Ok(())
}

/// Runs `tengen match merge`: the files merged, the merged file written
/// when asked, and the match's report over every game.
fn merge(args: MergeArgs) -> Result<()> {
    let merged = tengen_match::merge::merge_files(&args.files)?;
    for skipped in &merged.skipped {
        eprintln!("skipped unreadable line {skipped}");
    }
    if let Some(path) = &args.output {
        tengen_match::merge::write_merged(&merged, path)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    println!(
        "Merged {} games from {} files ({} repeated lines counted once)",
        merged.games.len(),
        args.files.len(),
        merged.duplicates
    );
    print!("{}", merged.report());
    Ok(())
}

/// What `--watch` shows after a move: the game, the players, the move, the
/// board with the move marked, the captures and the count as it stands.
fn watch_frame(index: usize, [black, white]: [&str; 2], game: &Game) -> String {
    let mut frame = format!("Game {index}: Black {black}, White {white}");
    if game.handicap() > 0 {
        frame.push_str(&format!(", handicap {}", game.handicap()));
    }
    frame.push('\n');
    if let Some((color, action)) = game.history().last() {
        frame.push_str(&format!(
            "Turn {}: {}\n",
            game.turn_count(),
            action_line(game, color, action)
        ));
    }
    frame.push_str(&board_diagram(game));
    let captures = game.board().captures();
    frame.push_str(&format!(
        "Captured by Black {}, by White {}\n",
        captures[Color::Black],
        captures[Color::White]
    ));
    // A counted game's result comes from the referee, in the report.
    if game.resigned().is_some() {
        frame.push_str(&result_line(game));
    } else {
        frame.push_str(&estimate_line(game));
    }
    frame.push('\n');
    frame
}
