//! `tengen nn prepare`, `train`, `bench`, `move-model`, `policy-games` and
//! `info` (the work is in [`tengen::nn_prepare`], [`tengen::nn_train`] and
//! [`tengen_research::policy_games`]).

use std::io;
use std::path::PathBuf;

use anyhow::Result;
use tengen::nn_prepare;
use tengen::progress::{stderr_bar, SuspendingWriter};
use tengen_train::data::PrepareOptions;

use crate::args::{
    NnBalancedOpeningsArgs, NnBenchArgs, NnCommand, NnMoveModelArgs, NnOpeningBookArgs,
    NnPolicyGamesArgs, NnPrepareArgs, NnTrainArgs,
};

/// Runs `tengen nn prepare`, `train`, `bench` or `info`.
pub fn run(command: NnCommand) -> Result<()> {
    match command {
        NnCommand::Prepare(args) => prepare(args),
        NnCommand::Train(args) => train(args),
        NnCommand::Bench(args) => bench(args),
        NnCommand::MoveModel(args) => move_model(args),
        NnCommand::PolicyGames(args) => policy_games(args),
        NnCommand::OpeningBook(args) => opening_book(args),
        NnCommand::BalancedOpenings(args) => balanced_openings(args),
        NnCommand::Info { model } => info(model),
    }
}

fn prepare(args: NnPrepareArgs) -> Result<()> {
    let options = PrepareOptions {
        size: args.size,
        validation_fraction: args.validation,
        games_per_shard: args.games_per_shard as usize,
        min_moves: args.min_moves,
    };
    let bar = stderr_bar(None, "{bar:40} {pos}/{len} files [{elapsed_precise}]");
    let mut out = SuspendingWriter::new(&bar, io::stdout().lock());
    let result = nn_prepare::run(
        &args.paths,
        &args.out,
        &options,
        &mut out,
        &mut |done, total| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
    );
    bar.finish_and_clear();
    result?;
    Ok(())
}

fn train(args: NnTrainArgs) -> Result<()> {
    let architecture: tengen_nn::net::Architecture = args.net.parse()?;
    let job = tengen::nn_train::TrainJob {
        data: args.data,
        config: tengen_train::train::TrainConfig {
            encoder: args.encoder,
            architecture,
            epochs: args.epochs as usize,
            batch: args.batch as usize,
            learning_rate: args.lr,
            seed: args.seed,
            augment: !args.no_augment,
            value_weight: 1.0,
            positions_per_epoch: args.positions_per_epoch,
            validation_limit: Some(args.validation_limit),
        },
        checkpoints: args.checkpoints,
        resume: args.resume,
        output: args.output,
    };
    let bar = stderr_bar(
        None,
        "epoch {prefix} [{bar:30}] {pos}/{len} batches, loss {msg} ({eta})",
    );
    bar.set_style(bar.style().progress_chars("=> "));
    let mut out = SuspendingWriter::new(&bar, io::stdout().lock());
    let result = tengen::nn_train::train(&job, &mut out, &mut |epoch, done, total, loss| {
        if done == 1 {
            bar.reset();
            bar.set_length(total as u64);
            bar.set_prefix(epoch.to_string());
        }
        bar.set_position(done as u64);
        bar.set_message(format!("{loss:.3}"));
    });
    bar.finish_and_clear();
    result.map(|_| ())
}

fn bench(args: NnBenchArgs) -> Result<()> {
    let model = tengen_bots::registry::load_model(&args.model)?;
    let batches: Vec<usize> = args.batch.iter().map(|&b| b as usize).collect();
    println!(
        "model {} ({} on {}x{}, encoder {}), one thread",
        args.model,
        model.metadata().architecture,
        model.metadata().width,
        model.metadata().height,
        model.metadata().encoder
    );
    for speed in tengen::nn_train::bench_inference(&model, &batches, args.seconds) {
        println!(
            "batch {:4}: {:9.1} positions/s ({:.3} ms per batch, {} positions)",
            speed.batch,
            speed.per_second,
            1000.0 * speed.batch as f64 / speed.per_second,
            speed.positions
        );
    }
    Ok(())
}

fn info(path: PathBuf) -> Result<()> {
    let model = tengen_bots::registry::load_model(&path.display().to_string())?;
    println!("{}", tengen::nn_train::describe(&path, &model));
    Ok(())
}

fn move_model(args: NnMoveModelArgs) -> Result<()> {
    use anyhow::Context;
    use std::io::Write;
    use tengen_train::move_model::{fit_move_model_to, FitProgress, FitRecord, MoveModelOptions};

    /// The records under `paths` that `read` accepts, in name order, as
    /// fit records; the others are skipped with a warning.
    fn read_records<R, E: std::fmt::Display>(
        paths: &[std::path::PathBuf],
        read: impl Fn(&[u8]) -> Result<R, E>,
        record: impl Fn(R) -> FitRecord,
    ) -> Result<Vec<FitRecord>> {
        let (mut files, errors) = tengen::sgf_command::find_records(paths);
        for error in &errors {
            tracing::warn!(%error, "skipped");
        }
        files.sort();
        let mut records = Vec::new();
        for file in &files {
            let bytes =
                std::fs::read(file).with_context(|| format!("reading {}", file.display()))?;
            match read(&bytes) {
                Ok(read) => records.push(record(read)),
                Err(error) => tracing::warn!(file = %file.display(), %error, "skipped"),
            }
        }
        Ok(records)
    }
    let game = |bytes: &[u8]| tengen_sgf::read_game_bytes(bytes).map(|record| record.game);
    let mut games = read_records(&args.paths, game, FitRecord::Game)?;
    anyhow::ensure!(
        args.paths.is_empty() || !games.is_empty(),
        "no readable game records in the paths given"
    );
    if !args.positions.is_empty() {
        let positions = read_records(&args.positions, game, FitRecord::Position)?;
        anyhow::ensure!(
            !positions.is_empty(),
            "no readable records in the --positions paths given"
        );
        games.extend(positions);
    }
    if !args.policies.is_empty() {
        let policies = read_records(
            &args.policies,
            tengen_train::policy_record::read_policy_record,
            FitRecord::Policy,
        )?;
        anyhow::ensure!(
            !policies.is_empty(),
            "no readable policy records in the --policies paths given"
        );
        games.extend(policies);
    }
    let options = MoveModelOptions {
        min_wins: args.min_wins,
        iterations: args.iterations,
        test_every: args.test_every,
    };
    let bar = stderr_bar(
        Some(games.len() as u64),
        "{msg} {bar:40} {pos}/{len} [{elapsed_precise}]",
    );
    bar.set_message("reading records");
    let (model, report) = fit_move_model_to(&games, &options, &mut |progress| match progress {
        FitProgress::Reading(done, _) => bar.set_position(done as u64),
        FitProgress::Sweep(sweep, ll) => {
            if sweep == 1 {
                bar.set_length(options.iterations as u64);
            }
            bar.set_message(format!("sweeps, log-likelihood {ll:.4}"));
            bar.set_position(sweep as u64);
        }
    });
    bar.finish_and_clear();
    std::fs::write(&args.output, model.to_text())
        .with_context(|| format!("writing {}", args.output.display()))?;
    let mut out = io::stdout().lock();
    writeln!(
        out,
        "{} records: {} training positions ({} candidate moves in {} entries), {} held out; {} 3x3 shapes and {} larger shapes rated",
        games.len(),
        report.train_positions,
        report.train_candidates,
        report.train_entries,
        report.test_positions,
        report.known_patterns,
        report.known_shapes
    )?;
    if let Some(ll) = report.train_log_likelihood.last() {
        writeln!(out, "training log-likelihood per move {ll:.4}")?;
    }
    if report.test_positions > 0 {
        writeln!(
            out,
            "held out: log-likelihood per move {:.4}, top-1 {:.1}%, top-5 {:.1}%",
            report.test_log_likelihood,
            100.0 * report.test_top1,
            100.0 * report.test_top5
        )?;
    }
    writeln!(out, "model written to {}", args.output.display())?;
    Ok(())
}

fn policy_games(args: NnPolicyGamesArgs) -> Result<()> {
    use anyhow::Context;
    use std::io::Write;
    use tengen_research::policy_games::{play_policy_games, PolicyGamesOptions};

    let network = tengen_katago::network::Network::load(&args.model, args.threads as usize)
        .with_context(|| format!("loading {}", args.model.display()))?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let options = PolicyGamesOptions {
        size: args.size,
        rules: args.rules.with_komi(args.komi),
        games: args.games,
        parallel: args.parallel as usize,
        temperature: args.temperature,
        max_turns: args.max_turns.unwrap_or(2 * args.size.points_count()),
        floor: args.floor,
        seed: args.seed,
    };
    let bar = stderr_bar(
        Some(args.games as u64),
        "{bar:40} {pos}/{len} games, {msg} [{elapsed_precise}]",
    );
    let start = std::time::Instant::now();
    let out_dir = args.out.clone();
    let first = args.first;
    let report = play_policy_games(
        &network,
        &options,
        &mut |index, record| {
            let path = out_dir.join(format!("game-{:05}.sgf", first + index));
            std::fs::write(&path, record).with_context(|| format!("writing {}", path.display()))
        },
        &mut |report| {
            bar.set_position(report.games as u64);
            bar.set_message(format!("{} positions", report.positions));
        },
    );
    bar.finish_and_clear();
    let report = report?;
    let seconds = start.elapsed().as_secs_f64();
    writeln!(
        io::stdout().lock(),
        "{} games ({} ended by two passes), {} positions in {:.1} s ({:.1} positions/s), written to {}",
        report.games,
        report.ended_by_passes,
        report.positions,
        seconds,
        report.positions as f64 / seconds.max(1e-9),
        args.out.display()
    )?;
    Ok(())
}

fn balanced_openings(args: NnBalancedOpeningsArgs) -> Result<()> {
    use anyhow::Context;
    use tengen_research::balanced_openings::{
        balanced_openings, openings_text, BalancedOpeningsOptions,
    };

    // f32, so that the openings do not depend on the CPU that chose them.
    let network = tengen_puct::katago::load_network(
        &args.model,
        args.threads as usize,
        tengen_katago::forward::Precision::F32,
    )
    .map_err(anyhow::Error::msg)
    .with_context(|| format!("loading {}", args.model.display()))?;
    let evaluator = tengen_puct::katago::KataGoEvaluator::new(network);
    let options = BalancedOpeningsOptions {
        size: args.size,
        rules: args.rules.with_komi(args.komi),
        moves: args.moves as usize,
        candidates: args.candidates as usize,
        count: args.count,
    };
    let bar = stderr_bar(None, "{spinner} {pos} positions valued [{elapsed_precise}]");
    let openings = balanced_openings(&evaluator, &options, &|done| bar.set_position(done as u64))
        .map_err(anyhow::Error::msg)?;
    bar.finish_and_clear();
    let model_name = args
        .model
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let header = vec![
        format!(
            "{} openings for {}x{}, komi {}, each played twice with the colours swapped by `tengen match --openings`.",
            openings.len(),
            args.size.width(),
            args.size.height(),
            args.komi
        ),
        format!(
            "Made by `tengen nn balanced-openings --model {model_name} --size {} --komi {} --moves {} --candidates {} --count {}`:",
            args.size.width(),
            args.komi,
            args.moves,
            args.candidates,
            args.count
        ),
        "each ply follows the network's likeliest moves, positions alike up to symmetry are kept once, and those".to_string(),
        "whose raw win rate for Black is nearest one half come first (the comment after each line).".to_string(),
    ];
    std::fs::write(&args.output, openings_text(args.size, &header, &openings))
        .with_context(|| format!("writing {}", args.output.display()))?;
    println!(
        "{} openings written to {}",
        openings.len(),
        args.output.display()
    );
    Ok(())
}

fn opening_book(args: NnOpeningBookArgs) -> Result<()> {
    use anyhow::Context;
    use std::io::Write;
    use tengen_research::opening_book::{book_text, build_opening_book, OpeningBookOptions};

    let start = std::time::Instant::now();
    let options = OpeningBookOptions {
        model: args.model.clone(),
        size: args.size,
        rules: args.rules.with_komi(args.komi),
        visits: args.visits,
        positions: args.positions,
        max_turns: args.max_turns,
        min_policy: args.min_policy,
        replies: args.replies,
        workers: args.workers as usize,
        deadline: args
            .seconds
            .map(|s| start + std::time::Duration::from_secs_f64(s.clamp(0.0, 1e9))),
        seed: args.seed,
    };
    let bar = stderr_bar(
        Some(args.positions as u64),
        "{bar:40} {pos}/{len} positions [{elapsed_precise}]",
    );
    let entries = build_opening_book(&options, &|done| bar.set_position(done as u64));
    bar.finish_and_clear();
    let entries = entries?;
    let model_name = args
        .model
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let header = vec![
        format!(
            "Opening book for {}x{}, komi {}: `tengen nn opening-book --model {} --size {} --komi {} --visits {} --positions {} --max-turns {} --min-policy {} --replies {}`.",
            args.size.width(),
            args.size.height(),
            args.komi,
            model_name,
            args.size.width(),
            args.komi,
            args.visits,
            args.positions,
            args.max_turns,
            args.min_policy,
            args.replies
        ),
        if args.visits == 1 {
            "Each move is the KataGo network's first choice (its search at one visit); the opponent's replies are the network's policy.".to_string()
        } else {
            format!(
                "Each move is the choice of the KataGo network's search at {} visits; the opponent's replies are the network's policy.",
                args.visits
            )
        },
        "reach: the chance of the position when the other side plays by that policy; win: the searching side's chance.".to_string(),
    ];
    std::fs::write(&args.output, book_text(&options, &header, &entries))
        .with_context(|| format!("writing {}", args.output.display()))?;
    let seconds = start.elapsed().as_secs_f64();
    writeln!(
        io::stdout().lock(),
        "{} positions in {:.1} s ({:.2} positions/s), the deepest after {} moves; written to {}",
        entries.len(),
        seconds,
        entries.len() as f64 / seconds.max(1e-9),
        entries.iter().map(|e| e.turn).max().unwrap_or(0),
        args.output.display()
    )?;
    Ok(())
}
