#![no_main]
//! Bot specs (`name:key=value,…`): no panic; what parses prints as a
//! canonical spec that reads back to the same canonical spec. Options that
//! name files are left out, so that the fuzzer opens no file.

use libfuzzer_sys::fuzz_target;
use tengen_bots::{BotSpec, BOTS};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(spec) = text.parse::<BotSpec>() else {
        return;
    };
    assert_eq!(spec.to_string().parse::<BotSpec>(), Ok(spec.clone()));
    let Some(info) = BOTS.iter().find(|info| info.name == spec.name) else {
        return;
    };
    let docs = info.options.docs();
    let names_a_file = spec.options.iter().any(|(key, value)| {
        docs.iter().any(|option| {
            option.name == key
                && option
                    .file_words
                    .is_some_and(|words| !words.contains(&value.as_str()))
        })
    });
    if names_a_file {
        return;
    }
    if let Ok(settings) = spec.settings() {
        let canonical = settings.to_string();
        let again = tengen_bots::parse_bot(&canonical).expect("a canonical spec reads back");
        assert_eq!(again.to_string(), canonical);
    }
});
