//! The `katago` bot a server offers when it is started with a KataGo
//! network (`tengen serve --model PATH`): the network is loaded once, at
//! start-up, and every request's bot searches with it. Clients choose the
//! search's settings (the registry's `katago` options) but never the
//! network or its threads: the server names them, so no request can make it
//! open a file. The bot is built by the registry's
//! [`KataGoSettings::build_with`], as everywhere else.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tengen_katago::forward::Precision;

use tengen_bots::registry::{KataGoSettings, KATAGO};
use tengen_bots::settings::{Door, OptionDoc, OptionList};
use tengen_bots::{BotError, BotInfo, BotSettings, BotSpec};
use tengen_core::Agent;
use tengen_katago::network::Network;

use crate::error::{ApiError, ServeError};
use crate::Limits;

/// The name the bot is offered under.
pub const NAME: &str = "katago";

/// Root visits per move when a request sets neither a budget nor `visits`
/// nor `time` (fewer if the server's limit is lower): the server's default
/// budget, smaller than the bot's own so that a page's move comes quickly.
pub const DEFAULT_VISITS: u64 = 100;

/// The longest a `katago` search may think: the server's `max_think`, as
/// for every bot. A search plans its batches to end by then; one that runs
/// over (a batch on a large board can take a second on a small machine) is
/// stopped in the middle of its batch by the request's stop signal, half
/// the grace later.
pub fn time_cap(limits: &Limits) -> Duration {
    limits.max_think
}

/// The `katago` options the server keeps to itself: the machine's
/// (the network file and its threads), and `reuse`,
/// since every request builds a bot of its own and no tree is kept.
const SERVER_OPTIONS: &[&str] = &["model", "threads", "reuse"];

/// The `katago` bot's options a client may give: those of the registry's
/// table but [`SERVER_OPTIONS`].
struct ServedOptions;

impl OptionList for ServedOptions {
    fn docs(&self) -> Vec<OptionDoc> {
        KATAGO
            .docs()
            .into_iter()
            .filter(|option| !SERVER_OPTIONS.contains(&option.name))
            .map(|option| match option.name {
                "visits" => OptionDoc {
                    default: DEFAULT_VISITS.to_string(),
                    help: "root visits per move (the budget's playouts); at most the server's max_playouts; with neither visits nor time, the server's default",
                    ..option
                },
                "time" => OptionDoc {
                    help: "thinking time per move; at most the server's max_seconds, and every search stops a little before it",
                    ..option
                },
                _ => option,
            })
            .collect()
    }

    fn value(&self, settings: &dyn std::any::Any, name: &str, door: Door) -> Option<String> {
        if SERVER_OPTIONS.contains(&name) {
            return None;
        }
        KATAGO.value(settings, name, door)
    }

    fn set_value(
        &self,
        bot: &str,
        settings: &mut dyn std::any::Any,
        name: &str,
        text: &str,
        door: Door,
    ) -> Result<(), BotError> {
        if SERVER_OPTIONS.contains(&name) {
            return Err(BotError::UnknownOption {
                bot: bot.to_string(),
                key: name.to_string(),
                known: self
                    .docs()
                    .iter()
                    .map(|doc| doc.name)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        KATAGO.set_value(bot, settings, name, text, door)
    }
}

/// A KataGo network loaded for serving.
#[derive(Clone, Debug)]
pub struct KataGoModel {
    path: PathBuf,
    network: Arc<Network>,
    info: &'static BotInfo,
}

impl KataGoModel {
    /// Loads the network in `path` to run on `threads` threads at
    /// `precision`, or says in one line why it cannot be (missing, a
    /// directory, not a KataGo model, truncated).
    pub fn load(
        path: &Path,
        threads: usize,
        precision: Precision,
    ) -> Result<KataGoModel, ServeError> {
        let network = tengen_puct::katago::load_network(path, threads.max(1), precision).map_err(
            |reason| {
                ServeError::Model {
                    path: path.display().to_string(),
                    // The reasons are one line; keep them so whatever the source.
                    reason: reason.replace('\n', " "),
                }
            },
        )?;
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
            options: &ServedOptions,
            parse: |options| Ok(Box::new(KATAGO.parse(NAME, options)?)),
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

    /// The settings a request's spec gives, or why they are refused: the
    /// machine's options (`model`, the server's network being the only one
    /// played, and `threads`) are the server's.
    pub fn settings(&self, spec: &BotSpec) -> Result<KataGoSettings, ApiError> {
        for (key, value) in &spec.options {
            let reason = match key.as_str() {
                "model" => format!(
                    "bot option model={value}: this server's {NAME} bot plays the KataGo network \
                     it was started with; a request cannot choose a model file"
                ),
                "threads" => format!(
                    "bot option threads={value}: this server sets the network's threads itself"
                ),
                _ if SERVER_OPTIONS.contains(&key.as_str()) || KATAGO.get(key).is_none() => {
                    match KATAGO.find(NAME, key) {
                        // A renamed or left-out option says so; others name the
                        // options this server takes.
                        Err(error @ (BotError::Renamed { .. } | BotError::Experiment { .. })) => {
                            return Err(ApiError::BotSpec(error))
                        }
                        _ => format!(
                            "bot '{NAME}' has no option '{key}' on this server (its options: {})",
                            ServedOptions
                                .docs()
                                .iter()
                                .map(|option| option.name)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    }
                }
                _ => continue,
            };
            return Err(ApiError::OptionRefused(reason));
        }
        Ok(KATAGO.parse(NAME, &spec.options)?)
    }

    /// Fills in the server's budget after the request's own (see
    /// [`crate::budget::apply`]): [`DEFAULT_VISITS`] when neither visits nor
    /// a time is set, and a time no longer than [`time_cap`], so that a
    /// search ends before the request would time out.
    pub fn fill_budget(&self, settings: &mut dyn BotSettings, limits: &Limits) {
        let Some(settings) = settings.as_any_mut().downcast_mut::<KataGoSettings>() else {
            return;
        };
        let search = &mut settings.search;
        if search.limits.visits.is_none() && search.limits.time.is_none() {
            search.limits.visits = Some(DEFAULT_VISITS.min(limits.max_playouts.max(1)));
        }
        let cap = time_cap(limits);
        if search.limits.time.is_none_or(|time| time > cap) {
            search.limits.time = Some(cap);
        }
    }

    /// A bot for one request, searching with the loaded network.
    /// `settings` are those [`KataGoModel::settings`] read; other settings
    /// build their own bot.
    pub fn make_bot(
        &self,
        settings: &dyn BotSettings,
        seed: u64,
    ) -> Result<Box<dyn Agent + Send>, BotError> {
        match settings.as_any().downcast_ref::<KataGoSettings>() {
            Some(settings) => Ok(settings.build_with(Arc::clone(&self.network), seed)),
            None => settings.build(seed),
        }
    }
}
