//! GTP sessions kept as data: every `tests/data/*.gtp` file is replayed
//! against an [`Engine`] serving a seeded bot (`RandomBot` unless the file
//! names another), and every response must match the file exactly.
//!
//! # Format
//!
//! One item per line:
//!
//! - `> text`: an input line sent to the engine (the text after `> `, without
//!   a line end). Escapes: `\t` tab, `\r` carriage return, `\0` NUL, `\xNN` any
//!   byte (so invalid UTF-8 can be written), `\s` space, `\\` backslash.
//! - `< text`: one line of the expected response to the input line before it,
//!   with the same escapes. A trailing space is written `\s` so that editors
//!   cannot strip it (`=` with nothing after it is written `< =\s`). The
//!   expected response is the `<` lines joined by line breaks plus the empty
//!   line that ends every GTP response. An input with no `<` lines must get no
//!   response at all (comments, blank lines).
//! - `! seed N`, `! size N`, `! rules R`, `! game G`, `! bot SPEC`: settings
//!   of the engine, before the first input line (defaults: seed 1, 19×19,
//!   `aga`, `go`, `random`). `! game nogo` is `tengen gtp --game nogo`: the
//!   `nogo` rules and, unless `! size` says otherwise, a 7×7 board. `! bot`
//!   takes a spec as `tengen gtp --bot` does (`mcts:playouts=50`), built with
//!   the seed; a searching bot's answers are reproducible only with a
//!   playout budget and one thread.
//! - `% text`: a note for readers; blank lines are ignored too.
//!
//! After every command the board's incremental state is checked against a
//! rebuild from the stones.
//!
//! Run with `TENGEN_BLESS=1` to rewrite the `<` lines from what the engine
//! answers now (then read the diff before committing).

use std::fs;
use std::path::{Path, PathBuf};

use tengen_bots::params::{ParamError, Params};
use tengen_bots::{make_bot, BotSpec};
use tengen_core::{Agent, BoardSize, Rules, Variant};
use tengen_gtp::{Engine, SetParamError, Tunable};

/// The bot's settings by name, for `kata-set-param` (as `tengen gtp`
/// serves them).
struct TranscriptParams(Params);

impl Tunable for TranscriptParams {
    fn names(&self) -> Vec<String> {
        self.0.names()
    }

    fn get(&self, name: &str) -> Option<String> {
        self.0.get(name)
    }

    fn set(&mut self, name: &str, value: &str) -> Result<Box<dyn Agent + Send>, SetParamError> {
        self.0.set(name, value).map_err(|error| match error {
            ParamError::Unknown(name) => SetParamError::Unknown(name),
            ParamError::Refused(reason) => SetParamError::Refused(reason),
        })
    }
}

fn unescape(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' || i + 1 == bytes.len() {
            out.push(bytes[i]);
            i += 1;
            continue;
        }
        match bytes[i + 1] {
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'0' => out.push(0),
            b's' => out.push(b' '),
            b'\\' => out.push(b'\\'),
            b'x' => {
                let hex =
                    std::str::from_utf8(&bytes[i + 2..i + 4]).expect("\\x needs two hex digits");
                out.push(u8::from_str_radix(hex, 16).expect("bad \\x escape"));
                i += 2;
            }
            other => panic!("unknown escape \\{}", other as char),
        }
        i += 2;
    }
    out
}

/// Escapes a response line for the file: backslashes, and trailing spaces.
fn escape_expected(line: &str) -> String {
    let escaped = line.replace('\\', "\\\\");
    let kept = escaped.trim_end_matches(' ');
    let trailing = escaped.len() - kept.len();
    format!("{kept}{}", "\\s".repeat(trailing))
}

struct Step {
    input: Vec<u8>,
    input_line: usize,
    expected: Vec<String>,
}

struct Transcript {
    seed: u64,
    bot: BotSpec,
    size: BoardSize,
    rules: Rules,
    steps: Vec<Step>,
}

/// The settings as read, before the defaults are filled in.
#[derive(Default)]
struct Settings {
    seed: Option<u64>,
    size: Option<BoardSize>,
    rules: Option<Rules>,
    game: Option<Variant>,
    bot: Option<BotSpec>,
}

fn parse(path: &Path, text: &str) -> Transcript {
    let mut settings = Settings::default();
    let mut transcript = Transcript {
        seed: 1,
        bot: "random".parse().unwrap(),
        size: BoardSize::square(19).unwrap(),
        rules: Rules::default(),
        steps: Vec::new(),
    };
    for (number, line) in text.lines().enumerate() {
        let where_ = format!("{}:{}", path.display(), number + 1);
        if let Some(input) = line.strip_prefix("> ").or(line.strip_prefix('>')) {
            transcript.steps.push(Step {
                input: unescape(input),
                input_line: number + 1,
                expected: Vec::new(),
            });
        } else if let Some(expected) = line.strip_prefix("< ").or(line.strip_prefix('<')) {
            let step = transcript
                .steps
                .last_mut()
                .unwrap_or_else(|| panic!("{where_}: response before any input"));
            let bytes = unescape(expected);
            step.expected
                .push(String::from_utf8(bytes).expect("utf-8 response"));
        } else if let Some(setting) = line.strip_prefix("! ") {
            assert!(transcript.steps.is_empty(), "{where_}: settings come first");
            let (key, value) = setting.split_once(' ').expect("! key value");
            match key {
                "seed" => settings.seed = Some(value.parse().expect("seed")),
                "size" => settings.size = Some(BoardSize::parse(value).expect("size")),
                "rules" => settings.rules = Some(value.parse().expect("rules")),
                "game" => settings.game = Some(Variant::parse(value).expect("go or nogo")),
                "bot" => settings.bot = Some(value.parse().expect("bot spec")),
                _ => panic!("{where_}: unknown setting {key}"),
            }
        } else if !(line.trim().is_empty() || line.starts_with('%')) {
            panic!("{where_}: cannot read line {line:?}");
        }
    }
    let nogo = settings.game == Some(Variant::NoGo);
    transcript.seed = settings.seed.unwrap_or(1);
    if let Some(bot) = settings.bot {
        transcript.bot = bot;
    }
    transcript.size = settings
        .size
        .unwrap_or_else(|| BoardSize::square(if nogo { 7 } else { 19 }).unwrap());
    transcript.rules = match (settings.rules, nogo) {
        (Some(rules), _) => rules,
        (None, true) => Rules::preset("nogo").unwrap(),
        (None, false) => Rules::default(),
    };
    if settings.game.is_some() {
        assert_eq!(
            transcript.rules.is_nogo(),
            nogo,
            "{}: `! game` and `! rules` disagree",
            path.display()
        );
    }
    transcript
}

fn transcript_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .expect("tests/data")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "gtp"))
        .collect();
    files.sort();
    files
}

/// Replays one file; returns the actual responses (for blessing) and the
/// mismatches found.
fn replay(path: &Path) -> (Vec<Option<String>>, Vec<String>) {
    let text = fs::read_to_string(path).unwrap();
    let transcript = parse(path, &text);
    let bot: Box<dyn Agent> = make_bot(&transcript.bot, transcript.seed)
        .unwrap_or_else(|e| panic!("{}: bot {}: {e}", path.display(), transcript.bot));
    let settings = tengen_bots::parse_bot(&transcript.bot.to_string()).unwrap();
    let mut engine = Engine::new(bot, transcript.size, transcript.rules)
        .with_status_seed(transcript.seed)
        .with_tunable(Box::new(TranscriptParams(Params::new(
            settings,
            transcript.seed,
        ))));
    let mut actual = Vec::new();
    let mut failures = Vec::new();
    for step in &transcript.steps {
        let response = engine.handle_bytes(&step.input);
        let expected = if step.expected.is_empty() {
            None
        } else {
            Some(format!("{}\n\n", step.expected.join("\n")))
        };
        if response != expected {
            failures.push(format!(
                "{}:{}: input {:?}\n  expected {:?}\n  actual   {:?}",
                path.display(),
                step.input_line,
                String::from_utf8_lossy(&step.input),
                expected,
                response
            ));
        }
        if let Err(e) = engine.game().board().check_consistency() {
            failures.push(format!(
                "{}:{}: board inconsistent: {e}",
                path.display(),
                step.input_line
            ));
        }
        actual.push(response);
    }
    (actual, failures)
}

/// Rewrites the `<` lines of `path` from `actual`.
fn bless(path: &Path, actual: &[Option<String>]) {
    let text = fs::read_to_string(path).unwrap();
    let mut out = String::new();
    let mut responses = actual.iter();
    for line in text.lines() {
        if line.starts_with('<') {
            continue;
        }
        out.push_str(line);
        out.push('\n');
        if line.starts_with('>') {
            if let Some(Some(response)) = responses.next() {
                for response_line in response.trim_end_matches('\n').split('\n') {
                    out.push_str("< ");
                    out.push_str(&escape_expected(response_line));
                    out.push('\n');
                }
            }
        }
    }
    fs::write(path, out).unwrap();
}

#[test]
fn transcripts_replay_exactly() {
    let files = transcript_files();
    assert!(!files.is_empty(), "no transcripts found");
    let blessing = std::env::var_os("TENGEN_BLESS").is_some();
    let mut failures = Vec::new();
    for path in &files {
        let (actual, file_failures) = replay(path);
        if blessing {
            bless(path, &actual);
        } else {
            failures.extend(file_failures);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn escapes_round_trip() {
    assert_eq!(unescape(r"a\tb\r\0\x41\\\s"), b"a\tb\r\0A\\ ");
    assert_eq!(escape_expected("= "), r"=\s");
    assert_eq!(unescape(&escape_expected(r"x\y  ")), b"x\\y  ");
}
