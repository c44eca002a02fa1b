use super::*;

/// docs/guide/analysis.md holds the reference this table yields
/// (`TENGEN_UPDATE_DOCS=1` writes it).
#[test]
fn settings_reference() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/guide/analysis.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let begin = text
        .find("<!-- settings reference")
        .expect("the start marker");
    let begin = begin + text[begin..].find("-->\n").expect("the start marker's end") + 4;
    let end = text
        .find("<!-- end of settings reference -->")
        .expect("the end marker");
    let generated = format!("\n{}\n", reference());
    if std::env::var_os("TENGEN_UPDATE_DOCS").is_some() {
        let updated = format!("{}{}{}", &text[..begin], generated, &text[end..]);
        std::fs::write(&path, updated).unwrap();
        return;
    }
    assert_eq!(
        text[begin..end], generated,
        "docs/guide/analysis.md is out of date: TENGEN_UPDATE_DOCS=1 cargo test -p tengen-analysis settings_reference"
    );
}

#[test]
fn every_setting_reads_back_what_it_was_set_to() {
    for entry in entries() {
        let mut settings = EngineSettings::default();
        let value = entry.value(&settings);
        for name in entry.setting.katago {
            entry.apply(&mut settings, name, &value).unwrap();
            assert_eq!(entry.value(&settings), value, "{name}");
            assert!(
                entry.apply(&mut settings, name, "not a value").is_err(),
                "{name}"
            );
            assert_eq!(find(name).map(|e| e.setting.name), Some(entry.setting.name));
        }
    }
}

/// The analysis engine and the `katago` bot read one definition: a range
/// or a flag word cannot differ between the doors.
#[test]
fn shared_settings_take_the_same_values_at_every_door() {
    let mut settings = EngineSettings::default();
    for (name, good, bad) in [
        ("cpuctUtilityStdevScale", "5", "11"),
        ("lcbStdevs", "50", "101"),
        ("useLcbForSelection", "yes", "maybe"),
        ("useGraphSearch", "On", "2"),
        ("maxTime", "1.5", "-1"),
    ] {
        let entry = find(name).unwrap();
        entry.apply(&mut settings, name, good).unwrap();
        assert!(
            entry.apply(&mut settings, name, bad).is_err(),
            "{name}={bad}"
        );
    }
    assert_eq!(settings.search.puct.exploration.cpuct_stdev_scale, 5.0);
    assert_eq!(settings.search.puct.selection.lcb_stdevs, 50.0);
    assert!(settings.search.puct.values.transpositions);
    assert_eq!(
        settings.search.puct.limits.time,
        Some(std::time::Duration::from_millis(1500))
    );
    // Threads that mean different things have different names.
    assert_eq!(find("numSearchThreads").unwrap().setting.name, "in-flight");
    assert_eq!(find("numNNThreads").unwrap().setting.name, "threads");
    assert!(find("ponderingEnabled").is_none(), "no turns here");
}

#[test]
fn a_katago_config_file_applies_with_notes_for_the_unknown() {
    let mut settings = EngineSettings::default();
    let notes = apply_config(
        &mut settings,
        "# comment\nmaxVisits = 40\nlogDir = analysis_logs # KataGo's\nnnRandomize=false\nfoo = bar\n",
    )
    .unwrap();
    assert_eq!(settings.search.puct.limits.visits, Some(40));
    assert!(!settings.nn_randomize);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(apply_config(&mut settings, "maxVisits = many")
        .unwrap_err()
        .starts_with("line 1"));
    assert!(apply_overrides(&mut settings, "wideRootNoise=0.05, numAnalysisThreads=3").is_ok());
    assert_eq!(settings.analysis_threads, 3);
    assert!(apply_overrides(&mut settings, "wideRootNoise").is_err());
}
