//! The `tengen` command: argument parsing and wiring only; the work is done in
//! the `tengen` library. The arguments are in `args.rs`, one handler per
//! command in `commands/`.

mod args;
mod commands;

use std::io;

use anyhow::Result;
use clap::Parser;
use tracing_subscriber::EnvFilter;

use args::{BenchCommand, Cli, Command};

/// Whether the logs may carry terminal colour codes: only on a terminal,
/// and not where `NO_COLOR` is set to anything (no-color.org). Programs
/// that read tengen's stderr (KaTrain's log, GTP front ends) get plain text.
fn colour_logs() -> bool {
    use std::io::IsTerminal;
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    io::stderr().is_terminal() && !no_color
}

fn main() -> Result<()> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(io::stderr)
        .with_ansi(colour_logs())
        .init();
    let cli = Cli::parse_from(katago_flags(std::env::args_os()));
    match cli.command {
        Command::Selfplay(args) => commands::selfplay::run(args),
        Command::Play(args) => commands::play::run(args),
        Command::Gtp(args) => commands::gtp::run(args),
        Command::Analysis(args) => commands::analysis::run(args),
        Command::Match(args) => commands::match_cmd::run(args),
        Command::Review(args) => commands::review::run(args),
        Command::Bench {
            bench: BenchCommand::Playouts(args),
        } => commands::bench::playouts(args),
        Command::Bench {
            bench: BenchCommand::Search(args),
        } => commands::bench::search(args),
        Command::Bench {
            bench: BenchCommand::Katago(args),
        } => commands::bench::katago(args),
        Command::Bench {
            bench: BenchCommand::Policy(args),
        } => commands::bench::policy(args),
        Command::Bench {
            bench: BenchCommand::Analysis(args),
        } => commands::bench::analysis(args),
        Command::Sgf { sgf } => commands::sgf::run(sgf),
        Command::Serve(args) => commands::serve::run(args),
        Command::Nn { nn } => commands::nn::run(nn),
    }
}

/// KataGo's single-dash flags of `katago analysis` (`-model`, `-config`,
/// `-override-config`, `-quit-without-waiting`) as `tengen analysis` reads
/// them: GUIs that start KataGo write them so.
fn katago_flags(args: impl Iterator<Item = std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    let args: Vec<std::ffi::OsString> = args.collect();
    if args.get(1).and_then(|a| a.to_str()) != Some("analysis") {
        return args;
    }
    args.into_iter()
        .map(|arg| match arg.to_str() {
            Some(
                flag @ ("-model"
                | "-config"
                | "-override-config"
                | "-quit-without-waiting"
                | "-human-model"),
            ) => format!("-{flag}").into(),
            _ => arg,
        })
        .collect()
}
