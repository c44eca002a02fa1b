//! `tengen analysis`: KataGo's JSON analysis engine on stdin and stdout.

use std::io;
use std::sync::Arc;

use anyhow::{Context, Result};
use tengen_analysis::{settings, Engine, EngineSettings, Output};

use crate::args::AnalysisArgs;

pub fn run(args: AnalysisArgs) -> Result<()> {
    if args.settings_reference {
        print!("{}", settings::reference());
        return Ok(());
    }
    let mut engine_settings = EngineSettings::default();
    if let Some(path) = &args.config {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the config {}", path.display()))?;
        let notes = settings::apply_config(&mut engine_settings, &text)
            .map_err(|e| anyhow::anyhow!("config {}: {e}", path.display()))?;
        for note in notes {
            tracing::warn!("config {}: {note}", path.display());
        }
    }
    for overrides in &args.override_config {
        let notes = settings::apply_overrides(&mut engine_settings, overrides)
            .map_err(|e| anyhow::anyhow!("--override-config: {e}"))?;
        for note in notes {
            tracing::warn!("--override-config: {note}");
        }
    }
    if let Some(path) = &args.human_model {
        tracing::warn!(
            "-human-model {}: human-imitation networks are not supported; ignored",
            path.display()
        );
    }
    // A model that cannot be read stops the engine before any query.
    let network = tengen_puct::katago::load_network(
        &args.model,
        engine_settings.nn_threads,
        engine_settings.precision,
    )
    .map_err(|reason| anyhow::anyhow!("model {}: {reason}", args.model.display()))?;
    tracing::info!(
        model = %args.model.display(),
        threads = engine_settings.analysis_threads,
        nn_threads = engine_settings.nn_threads,
        kernel = %network.kernel(),
        "analysis engine started"
    );
    eprintln!(
        "tengen analysis engine ready ({} protocol)",
        tengen_analysis::PROTOCOL_VERSION
    );
    let output = Arc::new(Output::new(Box::new(io::stdout())));
    let engine = Engine::new(engine_settings, network, &args.model, output);
    engine.serve(io::stdin().lock(), args.quit_without_waiting);
    Ok(())
}
