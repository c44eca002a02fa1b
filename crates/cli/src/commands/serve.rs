//! `tengen serve`: the page and the JSON API over HTTP.

use std::io::{self, Write};

use anyhow::Result;

use crate::args::ServeArgs;

/// Runs `tengen serve` until the process is stopped.
pub fn run(args: ServeArgs) -> Result<()> {
    let mut config = tengen_web::ServerConfig {
        bind: args.bind,
        port: args.port,
        ..tengen_web::ServerConfig::default()
    };
    config.limits.max_concurrent = args.max_concurrent as usize;
    if let Some(path) = &args.model {
        // Loaded now, so that a file that cannot be read stops the server
        // before it listens rather than failing a game.
        let threads = config.limits.max_threads;
        config.katago = Some(tengen_web::KataGoModel::load(
            path,
            threads,
            args.precision,
        )?);
    }
    tengen_web::run(config, |address| {
        let url = format!("http://{address}/");
        // The one line on stdout: people open it, the browser test reads it.
        println!("tengen serve: open {url}");
        let _ = io::stdout().flush();
        if args.open {
            if let Err(error) = tengen_web::open_browser(&url) {
                tracing::warn!(%error, "cannot open a browser; open the address by hand");
            }
        }
    })?;
    Ok(())
}
