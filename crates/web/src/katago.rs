//! The `katago` bot a server offers when it is started with a KataGo
//! network (`tengen serve --model PATH`): the network is loaded once, at
//! start-up, and every request's bot searches with it. Clients choose the
//! search's settings (`visits`, `time`, `batch`, `resignrate`) and the
//! termination options (`pass`, `resign`) but never the
//! network: the server names it, so no request can make it open a file.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use tengen_bots::katago::KataGoEvaluator;
use tengen_bots::puct::PuctBot;
use tengen_bots::termination::Terminating;
use tengen_bots::{BotError, BotInfo, BotOption, BotSpec};
use tengen_core::{parse_duration, Agent};
use tengen_katago::network::Network;

use crate::error::{ApiError, ServeError};
use crate::Limits;

/// The name the bot is offered under.
pub const NAME: &str = "katago";

/// Root visits per move when a request sets neither a budget nor `visits`
/// nor `time` (fewer if the server's limit is lower).
pub const DEFAULT_VISITS: u64 = 100;

/// The longest a `katago` search may think: the server's `max_think`, as
/// for every bot. A search plans its batches to end by then; one that runs
/// over (a batch on a large board can take a second on a small machine) is
/// stopped in the middle of its batch by the request's stop signal, half
/// the grace later.
pub fn time_cap(limits: &Limits) -> Duration {
    limits.max_think
}

/// The settings a client may give the server's `katago` bot. `model` and
/// `threads` are the server's.
pub const OPTIONS: &[BotOption] = &[
    BotOption {
        name: "visits",
        default: "100",
        help: "root visits per move (the budget's playouts); at most the server's max_playouts",
    },
    BotOption {
        name: "time",
        default: "none",
        help: "thinking time per move, such as 2s or 500ms; at most the server's max_seconds, and every search stops a little before it",
    },
    BotOption {
        name: "batch",
        default: "8",
        help: "leaves evaluated together in one forward pass (1 to 256)",
    },
    BotOption {
        name: "resignrate",
        default: "0",
        help: "resign when the win rate stays below this for 3 moves (0 never resigns)",
    },
    tengen_bots::registry::PASS_OPTION,
    tengen_bots::registry::RESIGN_OPTION,
];

/// A KataGo network loaded for serving.
#[derive(Clone, Debug)]
pub struct KataGoModel {
    path: PathBuf,
    network: Arc<Network>,
    info: &'static BotInfo,
}

impl KataGoModel {
    /// Loads the network in `path` to run on `threads` threads, or says in
    /// one line why it cannot be (missing, a directory, not a KataGo model,
    /// truncated).
    pub fn load(path: &Path, threads: usize) -> Result<KataGoModel, ServeError> {
        let network =
            tengen_bots::katago::load_network(path, threads.max(1)).map_err(|reason| {
                ServeError::Model {
                    path: path.display().to_string(),
                    // The reasons are one line; keep them so whatever the source.
                    reason: reason.replace('\n', " "),
                }
            })?;
        let file = path.file_name().map_or_else(
            || path.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        let description = format!(
            "KataGo network: PUCT tree search guided by the network {file} (policy, value, score and ownership)"
        );
        // One listing per model loaded, which a server does once.
        let info = Box::leak(Box::new(BotInfo {
            name: NAME,
            description: Box::leak(description.into_boxed_str()),
            options: OPTIONS,
        }));
        Ok(KataGoModel {
            path: path.to_path_buf(),
            network,
            info,
        })
    }

    /// The file it was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The network.
    pub fn network(&self) -> &Arc<Network> {
        &self.network
    }

    /// Its entry in the bot listing.
    pub fn info(&self) -> &'static BotInfo {
        self.info
    }

    /// Refuses the options a client may not give: `model` (the server's
    /// network is the only one played), `threads` (the server's), and any
    /// the listing does not show.
    pub fn check_options(&self, spec: &BotSpec) -> Result<(), ApiError> {
        for (key, value) in &spec.options {
            let reason = match key.as_str() {
                "model" => format!(
                    "bot option model={value}: this server's {NAME} bot plays the KataGo network \
                     it was started with; a request cannot choose a model file"
                ),
                "threads" => format!(
                    "bot option threads={value}: this server sets the network's threads itself"
                ),
                _ if self.info.option(key).is_none() => format!(
                    "bot '{NAME}' has no option '{key}' on this server (its options: {})",
                    OPTIONS
                        .iter()
                        .map(|option| option.name)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ => continue,
            };
            return Err(ApiError::OptionRefused(reason));
        }
        Ok(())
    }

    /// Fills in the server's budget after the request's own (see
    /// [`crate::budget::apply`]): `visits` when neither `visits` nor `time`
    /// is set, and a `time` no longer than [`time_cap`], so that a search
    /// ends before the request would time out.
    pub fn fill_budget(&self, spec: &mut BotSpec, limits: &Limits) {
        if spec.get("visits").is_none() && spec.get("time").is_none() {
            spec.set(
                "visits",
                DEFAULT_VISITS.min(limits.max_playouts.max(1)).to_string(),
            );
        }
        let cap = time_cap(limits);
        let asked = spec.get("time").and_then(|text| parse_duration(text).ok());
        if asked.is_none_or(|time| time > cap) {
            spec.set("time", format!("{}s", cap.as_secs_f64()));
        }
    }

    /// A bot for one request, searching with the loaded network.
    pub fn make_bot(&self, spec: &BotSpec) -> Result<Box<dyn Agent + Send>, BotError> {
        let config = tengen_bots::registry::puct_config(spec)?;
        let termination = tengen_bots::registry::termination(spec, self.info)?;
        let bot = PuctBot::new(config, KataGoEvaluator::new(Arc::clone(&self.network))).named(NAME);
        Ok(Terminating::wrap(Box::new(bot), termination))
    }
}
