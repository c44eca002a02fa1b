//! `tengen match`: games between two GTP engines refereed by
//! `tengen-match`, a progress bar, then the report.

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use tengen::options::{game_settings, match_clock};
use tengen::progress::hidden_unless_terminal;
use tengen_core::Rules;

use crate::args::MatchArgs;

/// Runs `tengen match`: the arguments become a `MatchConfig`.
pub fn run(args: MatchArgs) -> Result<()> {
    let [first, second]: [String; 2] = args.engines.try_into().map_err(|given: Vec<String>| {
        anyhow::anyhow!("give exactly two --engine options, not {}", given.len())
    })?;
    anyhow::ensure!(args.games > 0, "--games must be at least 1");
    anyhow::ensure!(args.concurrency > 0, "--concurrency must be at least 1");
    let mut config = tengen_match::MatchConfig::new([first, second], args.games);
    let chinese = Rules::preset("chinese").expect("the chinese preset");
    let (size, rules) = game_settings(args.game, args.size, args.rules, args.komi, chinese)
        .map_err(anyhow::Error::msg)?;
    config.size = size;
    config.rules = rules;
    config.komi = rules.komi;
    config.results_file = args
        .results
        .or_else(|| args.sgf_dir.as_ref().map(|dir| dir.join("results.jsonl")));
    config.sgf_dir = args.sgf_dir;
    config.concurrency = args.concurrency;
    config.time_per_move = args.time_per_move;
    config.clock = match_clock(args.main_time, args.byo_yomi, args.byo_yomi_stones)
        .map_err(anyhow::Error::msg)?;
    config.max_moves = args.max_moves;
    if let Some(dir) = &config.sgf_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let bar = hidden_unless_terminal(ProgressBar::with_draw_target(
        Some(args.games as u64),
        ProgressDrawTarget::stderr(),
    ));
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let report = tengen_match::run_match(&config, |event| match event {
        tengen_match::MatchEvent::Started { resumed, .. } => bar.set_position(*resumed as u64),
        tengen_match::MatchEvent::GameFinished {
            record, finished, ..
        } => {
            bar.set_position(*finished as u64);
            bar.set_message(record.result.clone());
        }
    })?;
    bar.finish_and_clear();
    print!("{report}");
    Ok(())
}
