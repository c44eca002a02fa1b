//! The engine's config file and `-override-config`, and the reference of
//! every setting they take.

use super::*;

/// Reads a KataGo-style config file: `name = value` lines, `#` comments.
/// Every line is applied in order; the first bad one is the error, with
/// its line number.
pub fn apply_config(settings: &mut EngineSettings, text: &str) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let Some((name, value)) = line.split_once('=') else {
            return Err(format!(
                "line {}: expected name = value, got {line:?}",
                number + 1
            ));
        };
        match apply_one(settings, name.trim(), value.trim()) {
            Ok(Some(note)) => notes.push(format!("line {}: {note}", number + 1)),
            Ok(None) => {}
            Err(e) => return Err(format!("line {}: {e}", number + 1)),
        }
    }
    Ok(notes)
}

/// Applies `--override-config` text: `name=value` pairs separated by
/// commas.
pub fn apply_overrides(settings: &mut EngineSettings, text: &str) -> Result<Vec<String>, String> {
    let mut notes = Vec::new();
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let Some((name, value)) = pair.split_once('=') else {
            return Err(format!("expected name=value, got {pair:?}"));
        };
        if let Some(note) =
            apply_one(settings, name.trim(), value.trim()).map_err(|e| e.to_string())?
        {
            notes.push(note);
        }
    }
    Ok(notes)
}

/// Applies one setting from the command line; an unknown name is a note,
/// not an error (KataGo's configs carry many settings tengen has no
/// counterpart of).
fn apply_one(
    settings: &mut EngineSettings,
    name: &str,
    value: &str,
) -> Result<Option<String>, SettingError> {
    if IGNORED.contains(&name) {
        return Ok(Some(format!("{name} is KataGo's and unused here")));
    }
    match find(name) {
        Some(entry) => {
            entry.apply(settings, name, value)?;
            Ok(None)
        }
        None => Ok(Some(format!("unknown setting {name} ignored"))),
    }
}

/// The settings reference as Markdown (docs/guide/analysis.md's table):
/// each setting under KataGo's names, with tengen's name where the
/// `katago` bot has it too.
pub fn reference() -> String {
    let defaults = EngineSettings::default();
    let mut out = String::from(
        "| setting | `katago` bot | where | default | what it does |\n|---|---|---|---|---|\n",
    );
    for entry in entries() {
        let setting = entry.setting;
        let names: Vec<String> = setting.katago.iter().map(|n| format!("`{n}`")).collect();
        let default = match setting.name {
            "threads" => "cores".to_string(),
            _ => entry.value(&defaults),
        };
        let bot = if entry.shared {
            format!("`{}`", setting.name)
        } else {
            "—".to_string()
        };
        let scope = match entry.scope {
            Scope::Engine => "command line",
            Scope::Query => "also per query",
        };
        let _ = writeln!(
            out,
            "| {} | {bot} | {scope} | `{default}` | {} |",
            names.join(", "),
            setting.help
        );
    }
    out.push_str(
        "\nAt these names a time is in seconds (`maxTime = 0`: no limit); `none` is no limit for `maxVisits` and `maxPlayouts`.\n",
    );
    let ignored: Vec<String> = IGNORED.iter().map(|name| format!("`{name}`")).collect();
    let _ = writeln!(
        out,
        "\nAccepted and unused (KataGo's logging, GPU and thread layout): {}.",
        ignored.join(", ")
    );
    out
}
