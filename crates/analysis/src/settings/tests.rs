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
    for setting in SETTINGS {
        let mut settings = EngineSettings::default();
        let Some(value) = setting.value(&settings) else {
            continue;
        };
        setting.apply(&mut settings, &value).unwrap();
        assert_eq!(
            setting.value(&settings),
            Some(value.clone()),
            "{}",
            setting.name
        );
        assert!(
            setting.apply(&mut settings, "not a value").is_err(),
            "{}",
            setting.name
        );
    }
}

#[test]
fn a_katago_config_file_applies_with_notes_for_the_unknown() {
    let mut settings = EngineSettings::default();
    let notes = apply_config(
        &mut settings,
        "# comment\nmaxVisits = 40\nlogDir = analysis_logs # KataGo's\nnnRandomize=false\nfoo = bar\n",
    )
    .unwrap();
    assert_eq!(settings.search.puct.visits, Some(40));
    assert!(!settings.nn_randomize);
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(apply_config(&mut settings, "maxVisits = many")
        .unwrap_err()
        .starts_with("line 1"));
    assert!(apply_overrides(&mut settings, "wideRootNoise=0.05, numAnalysisThreads=3").is_ok());
    assert_eq!(settings.analysis_threads, 3);
    assert!(apply_overrides(&mut settings, "wideRootNoise").is_err());
}
