//! # tengen-web
//!
//! tengen in the browser: `tengen serve` runs this crate's HTTP server, which
//! answers a JSON API compatible with the book's `POST /select-move/{bot}`
//! and serves a page to play the bots on, embedded in the binary.
//!
//! The server keeps no games: every request carries the whole move list and
//! is replayed from scratch, so any number of servers can sit behind a load
//! balancer. Bot work runs on blocking threads, at most
//! [`Limits::max_concurrent`] at a time (more are answered 503), each under a
//! time cap.
//!
//! ```no_run
//! use tengen_web::{run, ServerConfig};
//!
//! let config = ServerConfig::default(); // 127.0.0.1:8080
//! run(config, |address| println!("open http://{address}/")).unwrap();
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod api;
pub mod assets;
pub mod budget;
pub mod error;
pub mod katago;
pub mod request;
pub mod review;
pub mod score;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use serde::Serialize;
use tengen_bots::{BotError, BotInfo, BotSpec};
use tengen_core::{BoardSize, MAX_SIDE};
use tokio::sync::{oneshot, Semaphore};

pub use api::router;
pub use error::{ApiError, ServeError};
pub use katago::KataGoModel;

/// What one request may ask of the server.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Longest move list replayed.
    pub max_moves: usize,
    /// Largest request body, in bytes.
    pub max_body: usize,
    /// Most playouts a budget or bot spec may ask for per move.
    pub max_playouts: u64,
    /// Longest thinking time a budget or bot spec may ask for per move.
    pub max_think: Duration,
    /// Most search threads a bot spec may ask for.
    pub max_threads: usize,
    /// Most memory (MiB) a bot spec may give a search tree.
    pub max_memory_mib: u64,
    /// Bot computations (moves, counts) running at once; more are answered
    /// 503 at once rather than queued.
    pub max_concurrent: usize,
    /// Extra time a bot gets beyond `max_think` before the request is
    /// answered 503 (building the bot, a search finishing its playout).
    pub grace: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Limits {
            max_moves: 2000,
            max_body: 64 * 1024,
            max_playouts: 1_000_000,
            max_think: Duration::from_secs(10),
            max_threads: cores,
            max_memory_mib: 1024,
            max_concurrent: 64,
            grace: Duration::from_secs(2),
        }
    }
}

impl Limits {
    /// How long a request waits for its bot before giving up.
    pub fn answer_timeout(&self) -> Duration {
        self.max_think + self.grace
    }

    /// The bot slots analyses (`POST /api/analyse`) may hold at once: half of
    /// [`Limits::max_concurrent`], at least one, so that pages reviewing
    /// games never take every slot from the moves of games being played.
    pub fn analysis_slots(&self) -> usize {
        (self.max_concurrent / 2).max(1)
    }
}

/// The bots a server offers.
#[derive(Clone, Copy, Debug)]
pub struct Bots {
    /// Their listing, as `GET /api/bots` shows it; each reads its own
    /// typed settings, which build it (tests put in slow or broken bots).
    pub list: &'static [BotInfo],
}

impl Default for Bots {
    fn default() -> Bots {
        Bots {
            list: tengen_bots::BOTS,
        }
    }
}

impl Bots {
    /// The listing entry of the bot `spec` names.
    pub fn info(&self, spec: &BotSpec) -> Result<&'static BotInfo, BotError> {
        self.list
            .iter()
            .find(|info| info.name == spec.name)
            .ok_or_else(|| BotError::UnknownBot {
                name: spec.name.clone(),
            })
    }
}

/// Where to listen and what to allow.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Address to bind (127.0.0.1 by default: only this machine).
    pub bind: IpAddr,
    /// Port; 0 picks a free one.
    pub port: u16,
    /// Per-request limits.
    pub limits: Limits,
    /// The bots offered.
    pub bots: Bots,
    /// A KataGo network, loaded at start-up, offered as the `katago` bot;
    /// without one the bot is not offered.
    pub katago: Option<KataGoModel>,
}

impl Default for ServerConfig {
    fn default() -> ServerConfig {
        ServerConfig {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 8080,
            limits: Limits::default(),
            bots: Bots::default(),
            katago: None,
        }
    }
}

/// What every handler shares: the configuration and the bot slots.
#[derive(Debug)]
pub struct AppState {
    /// The limits in force.
    pub limits: Limits,
    /// The bots offered.
    pub bots: Bots,
    /// The KataGo network offered as the `katago` bot, if any.
    pub katago: Option<KataGoModel>,
    /// One permit per bot computation allowed at once.
    pub slots: Arc<Semaphore>,
    /// One permit per analysis allowed at once ([`Limits::analysis_slots`]);
    /// an analysis holds one of these and a slot.
    pub analysis_slots: Arc<Semaphore>,
    /// The board sides of each bot offered and whether it analyses
    /// positions, found on first use.
    sizes: OnceLock<Vec<(&'static str, Option<SizeRange>, bool)>>,
}

/// The square board sides a bot plays, both ends included, as `GET
/// /api/bots` lists them; the page offers a bot only for these.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SizeRange {
    /// The smallest side.
    pub min: usize,
    /// The largest side.
    pub max: usize,
}

impl AppState {
    /// The shared state for `limits` and `bots`, with no KataGo network.
    pub fn new(limits: Limits, bots: Bots) -> AppState {
        AppState {
            limits,
            bots,
            katago: None,
            slots: Arc::new(Semaphore::new(limits.max_concurrent)),
            analysis_slots: Arc::new(Semaphore::new(limits.analysis_slots())),
            sizes: OnceLock::new(),
        }
    }

    /// The shared state a configuration describes.
    pub fn from_config(config: ServerConfig) -> AppState {
        AppState {
            katago: config.katago,
            ..AppState::new(config.limits, config.bots)
        }
    }

    /// The bots offered, in the order listed: those of [`Bots::list`] but
    /// the registry's `katago` (which needs a file a client must not name),
    /// then the server's own `katago` when it has a network.
    pub fn offered(&self) -> impl Iterator<Item = &'static BotInfo> + '_ {
        self.bots
            .list
            .iter()
            .filter(|info| info.name != katago::NAME)
            .chain(self.katago.as_ref().map(KataGoModel::info))
    }

    /// The board sides the offered bot called `name` plays with its default
    /// settings, as its [`Agent::plays_size`] answers, or `None` when no
    /// such bot is offered, it cannot be built, or it plays no side. The
    /// bots are built once, on the first call (the network bots read their
    /// model then).
    pub fn sizes(&self, name: &str) -> Option<SizeRange> {
        self.traits()
            .iter()
            .find(|(bot, _, _)| *bot == name)
            .and_then(|(_, sizes, _)| *sizes)
    }

    /// Whether the offered bot called `name` analyses positions (`POST
    /// /api/analyse`) with its default settings.
    pub fn analyses(&self, name: &str) -> bool {
        self.traits()
            .iter()
            .any(|(bot, _, analyses)| *bot == name && *analyses)
    }

    fn traits(&self) -> &[(&'static str, Option<SizeRange>, bool)] {
        self.sizes.get_or_init(|| {
            self.offered()
                .map(|info| {
                    let (sizes, analyses) = self.find_traits(info).unwrap_or((None, false));
                    (info.name, sizes, analyses)
                })
                .collect()
        })
    }

    fn find_traits(&self, info: &BotInfo) -> Option<(Option<SizeRange>, bool)> {
        let mut bot = match &self.katago {
            Some(model) if info.name == katago::NAME => model
                .make_bot(&model.settings(&BotSpec::named(info.name)).ok()?, 0)
                .ok()?,
            _ => (info.parse)(&[]).ok()?.build(0).ok()?,
        };
        let played: Vec<usize> = (1..=MAX_SIDE)
            .filter(|&side| BoardSize::square(side).is_ok_and(|size| bot.plays_size(size).is_ok()))
            .collect();
        // Asked on the smallest board it plays, stopped at once: a bot that
        // cannot analyse says so without searching.
        let smallest = BoardSize::square(*played.first()?).ok()?;
        let game = tengen_core::Game::new(smallest, tengen_core::Rules::default());
        let analyses = bot.analyze(
            &game,
            &mut tengen_core::SelectRequest::new().stop_when(&|| true),
        );
        // Every bot so far plays one run of sides; should one ever skip
        // some, the range would claim too much, so it says nothing instead.
        let (&min, &max) = (played.first()?, played.last()?);
        let sizes = (played.len() == max - min + 1).then_some(SizeRange { min, max });
        Some((sizes, analyses))
    }

    /// The listing entry of the bot `spec` names, if this server offers it.
    pub fn info(&self, spec: &BotSpec) -> Result<&'static BotInfo, ApiError> {
        if spec.name == katago::NAME && self.katago.is_none() {
            return Err(ApiError::BotNotOffered(format!(
                "this server offers no '{}' bot: it plays a KataGo network only when \
                 started with --model PATH",
                katago::NAME
            )));
        }
        self.offered()
            .find(|info| info.name == spec.name)
            .ok_or_else(|| {
                ApiError::UnknownBot(BotError::UnknownBot {
                    name: spec.name.clone(),
                })
            })
    }
}

fn runtime(limits: &Limits) -> Result<tokio::runtime::Runtime, ServeError> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Bot work holds a slot while it runs, so this many blocking threads
        // are all it can use; a few more serve anything else that blocks.
        .max_blocking_threads(limits.max_concurrent + 8)
        .build()?)
}

async fn bind(config: &ServerConfig) -> Result<tokio::net::TcpListener, ServeError> {
    let address = SocketAddr::new(config.bind, config.port);
    tokio::net::TcpListener::bind(address)
        .await
        .map_err(|source| ServeError::Bind {
            address: address.to_string(),
            source,
        })
}

/// Binds, calls `ready` with the address bound (the port chosen when the
/// configuration says 0), and serves until Ctrl-C.
pub fn run(config: ServerConfig, ready: impl FnOnce(SocketAddr)) -> Result<(), ServeError> {
    let runtime = runtime(&config.limits)?;
    runtime.block_on(async {
        let listener = bind(&config).await?;
        let address = listener.local_addr()?;
        tracing::info!(%address, "listening");
        ready(address);
        let app = router(AppState::from_config(config));
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                // If no handler can be installed, serve until killed.
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
                tracing::info!("shutting down");
            })
            .await?;
        Ok(())
    })
}

/// A server running on a thread of its own, for tests and the load tool.
/// Dropping it stops the server.
#[derive(Debug)]
pub struct ServerHandle {
    /// The address it listens on.
    pub address: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<Result<(), ServeError>>>,
}

impl ServerHandle {
    /// The base URL, `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.address)
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts a server on a background thread and returns once it listens.
pub fn spawn(config: ServerConfig) -> Result<ServerHandle, ServeError> {
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let thread = std::thread::spawn(move || {
        let runtime = runtime(&config.limits)?;
        runtime.block_on(async {
            let listener = match bind(&config).await {
                Ok(listener) => listener,
                Err(error) => {
                    let _ = ready_tx.send(Err(error));
                    return Ok(());
                }
            };
            let _ = ready_tx.send(listener.local_addr().map_err(ServeError::from));
            let app = router(AppState::from_config(config));
            axum::serve(listener, app)
                .with_graceful_shutdown(async {
                    let _ = stop_rx.await;
                })
                .await?;
            Ok(())
        })
    });
    match ready_rx.recv() {
        Ok(Ok(address)) => Ok(ServerHandle {
            address,
            stop: Some(stop_tx),
            thread: Some(thread),
        }),
        Ok(Err(error)) => Err(error),
        Err(_) => match thread.join() {
            Ok(Err(error)) => Err(error),
            _ => Err(ServeError::Io(std::io::Error::other(
                "the server thread stopped before listening",
            ))),
        },
    }
}

/// Opens `url` in the desktop's browser (`xdg-open`, `open` or `start`).
/// Failing to is not an error worth stopping the server for; the caller
/// logs it.
pub fn open_browser(url: &str) -> std::io::Result<()> {
    let mut command = if cfg!(target_os = "macos") {
        std::process::Command::new("open")
    } else if cfg!(target_os = "windows") {
        let mut command = std::process::Command::new("cmd");
        command.args(["/C", "start", ""]);
        command
    } else {
        std::process::Command::new("xdg-open")
    };
    command
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
}
