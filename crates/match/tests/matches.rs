//! Whole matches: GNU Go against itself (when installed) and fake engines
//! written as shell scripts for forfeits, crashes, timeouts and resuming.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tengen_core::{BoardSize, Rules};
use tengen_match::{
    run_match, Clock, ForfeitKind, GameEnd, MatchConfig, MatchError, MatchEvent, MatchReport,
};

const GNUGO: &str = "/usr/games/gnugo";

/// A fresh directory for one test's files.
fn temp_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-match-{}-{test}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A fake GTP engine as a shell script. It answers every command with an
/// empty success except those it is told about.
struct Fake<'a> {
    name: &'a str,
    /// Shell code answering `genmove` (the id is in `$id`).
    genmove: &'a str,
    /// What `final_score` answers.
    final_score: &'a str,
    /// Exit (with status 3) on this command, counting from 1 (the process is
    /// new for every game).
    crash_on: Option<usize>,
    /// Append every command received to this file.
    log: Option<&'a Path>,
    /// What `list_commands` answers (lines separated by `\n`).
    commands: &'a str,
}

impl Fake<'_> {
    const PASS: &'static str = r#"printf '=%s pass\n\n' "$id""#;

    fn passer(name: &str) -> Fake<'_> {
        Fake {
            name,
            genmove: Fake::PASS,
            final_score: "W+7",
            crash_on: None,
            log: None,
            commands: "",
        }
    }

    /// Writes the script into `dir` and returns its command line. The shell
    /// reads the script rather than the kernel executing it: a script just
    /// written can fail to start with "text file busy" while another test
    /// thread's fork still holds a copy of the writing descriptor.
    fn write(&self, dir: &Path) -> String {
        let crash = match self.crash_on {
            Some(n) => format!("if [ \"$n\" -ge {n} ]; then echo 'fake: crashing' >&2; exit 3; fi"),
            None => String::new(),
        };
        let log = match self.log {
            Some(path) => format!("echo \"$cmd $rest\" >> '{}'", path.display()),
            None => String::new(),
        };
        let script = format!(
            r#"#!/bin/sh
n=0
while read id cmd rest; do
  n=$((n + 1))
  {log}
  {crash}
  case "$cmd" in
    name) printf '=%s {name}\n\n' "$id" ;;
    version) printf '=%s 1.0\n\n' "$id" ;;
    genmove) {genmove} ;;
    final_score) printf '=%s {score}\n\n' "$id" ;;
    list_commands) printf '=%s {commands}\n\n' "$id" ;;
    quit) printf '=%s\n\n' "$id"; exit 0 ;;
    *) printf '=%s\n\n' "$id" ;;
  esac
done
"#,
            name = self.name,
            genmove = self.genmove,
            score = self.final_score,
            commands = self.commands,
        );
        let path = dir.join(format!("{}.sh", self.name));
        fs::write(&path, script).unwrap();
        format!("/bin/sh {}", path.to_str().unwrap())
    }
}

fn small_config(engines: [String; 2], games: usize) -> MatchConfig {
    let mut config = MatchConfig::new(engines, games);
    config.size = BoardSize::square(7).unwrap();
    config.rules = Rules::preset("chinese").unwrap();
    config.komi = 7.0;
    // A hang guard: the fake engines answer at once.
    config.command_timeout = tengen_testing::hang_guard(Duration::from_secs(60));
    config
}

/// Runs the match and collects the indices of the games played in this run.
fn run(config: &MatchConfig) -> (MatchReport, Vec<usize>, usize) {
    let mut played = Vec::new();
    let mut resumed = usize::MAX;
    let report = run_match(config, |event| match event {
        MatchEvent::Started { resumed: r, .. } => resumed = *r,
        MatchEvent::GameFinished { record, .. } => played.push(record.index),
        MatchEvent::Moved { .. } => {}
    })
    .expect("the match runs");
    (report, played, resumed)
}

fn lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn gnugo_against_itself() {
    assert!(
        Path::new(GNUGO).exists(),
        "{GNUGO} is missing: install GNU Go (apt-get install gnugo; scripts/test installs it)"
    );
    let dir = temp_dir("gnugo");
    let gnugo = format!("{GNUGO} --mode gtp --level 1 --chinese-rules");
    let mut config = small_config([gnugo.clone(), gnugo], 2);
    config.max_moves = Some(20);
    config.sgf_dir = Some(dir.join("sgf"));
    config.results_file = Some(dir.join("results.jsonl"));
    let (report, played, resumed) = run(&config);
    assert_eq!(resumed, 0);
    played.iter().for_each(|&i| assert!(i < 2));
    assert_eq!(played.len(), 2);
    assert_eq!(report.games.len(), 2);
    assert!(report.names[0].starts_with("GNU Go"), "{:?}", report.names);
    for (index, game) in report.games.iter().enumerate() {
        assert_eq!(game.index, index);
        assert_eq!(game.black, index % 2, "colours alternate");
        assert!(game.forfeit.is_none(), "{game:?}");
        assert!(game.moves <= 20);
        assert!(!game.result.is_empty());
        if matches!(game.end, GameEnd::Passes | GameEnd::MoveLimit) {
            // GNU Go counts too, and the referee compares.
            assert!(game.engine_scores.iter().all(Option::is_some), "{game:?}");
            assert!(game.scores_agree.iter().all(Option::is_some), "{game:?}");
            assert!(game.dead_agreed.is_some());
        }
        assert!(game.time[0].moves + game.time[1].moves >= game.moves);
        let sgf = game.sgf.as_ref().expect("an SGF record");
        let text = fs::read_to_string(sgf).unwrap();
        assert!(text.contains("PB[GNU Go"), "{text}");
        assert!(text.contains(&format!("RE[{}]", game.result)), "{text}");
        let record = tengen_sgf::read_game(&text).expect("the record reads back");
        let stones_and_passes = record.game.turn_count();
        assert_eq!(
            stones_and_passes,
            game.moves - usize::from(game.end == GameEnd::Resignation)
        );
    }
    let results = lines(&dir.join("results.jsonl"));
    assert_eq!(results.len(), 2);
    assert!(results.iter().all(|l| l.starts_with('{')));
    let text = report.to_string();
    assert!(text.contains("Elo difference"), "{text}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn engines_are_told_the_rules_they_can_hear() {
    let dir = temp_dir("rules");
    let logs = ["tengen", "kgs", "plain"].map(|name| dir.join(format!("{name}.log")));
    let tengen_like = Fake {
        log: Some(&logs[0]),
        commands: "name\\nkgs-rules\\ntengen-rules",
        ..Fake::passer("tengen-like")
    }
    .write(&dir);
    let kgs_like = Fake {
        log: Some(&logs[1]),
        commands: "name\\nkgs-rules",
        ..Fake::passer("kgs-like")
    }
    .write(&dir);
    let plain = Fake {
        log: Some(&logs[2]),
        ..Fake::passer("plain")
    }
    .write(&dir);
    let mut config = small_config([tengen_like, kgs_like], 1);
    run(&config);
    let sent = |i: usize| fs::read_to_string(&logs[i]).unwrap();
    // Chinese rules with komi 7: in full to the one, by name to the other.
    let full = "tengen-rules ko=simple,suicide=forbidden,scoring=area,komi=7,handicap-bonus=n";
    assert!(sent(0).contains(full), "{}", sent(0));
    assert!(!sent(0).contains("kgs-rules"), "{}", sent(0));
    assert!(sent(1).contains("kgs-rules chinese"), "{}", sent(1));
    // Rules that are no KGS rule set reach only the engine that hears them
    // in full.
    config.rules = "ko=simple,scoring=area".parse().unwrap();
    config.engines[1] = plain;
    run(&config);
    let full = format!("tengen-rules {}", config.referee_rules());
    assert!(full.contains("ko=simple"), "{full}");
    assert!(sent(0).contains(&full), "{}", sent(0));
    assert!(!sent(2).contains("rules"), "{}", sent(2));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn passing_engines_are_counted_and_compared() {
    let dir = temp_dir("passers");
    let fair = Fake::passer("fair").write(&dir);
    let boastful = Fake {
        final_score: "B+100",
        ..Fake::passer("boastful")
    }
    .write(&dir);
    let (report, _, _) = run(&small_config([fair, boastful], 2));
    for game in &report.games {
        // Empty board, komi 7: White wins by 7; two passes end it.
        assert_eq!(game.result, "W+7");
        assert_eq!(game.end, GameEnd::Passes);
        assert_eq!(game.moves, 2);
        assert_eq!(game.dead_agreed, Some(true));
        assert_eq!(game.scores_agree, [Some(true), Some(false)]);
        assert_eq!(game.winner, Some(1 - game.black));
    }
    assert_eq!(report.wins(), [1, 1]);
    assert_eq!(report.wins_by_color(), [0, 2]);
    assert_eq!(report.score_disagreements(), 2);
    assert_eq!(report.elo().value, 0.0);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_first_engine_plays_black_in_every_game_when_asked() {
    let dir = temp_dir("first-black");
    let first = Fake::passer("first").write(&dir);
    let second = Fake::passer("second").write(&dir);
    let mut config = small_config([first, second], 3);
    config.first_plays_black = true;
    let (report, _, _) = run(&config);
    assert_eq!(report.games.len(), 3);
    for game in &report.games {
        assert_eq!(game.black, 0, "game {}", game.index);
        // Empty board, komi 7, two passes: White, the second engine, wins.
        assert_eq!(game.winner, Some(1));
    }
    assert_eq!(report.wins(), [0, 3]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn illegal_move_forfeits() {
    let dir = temp_dir("illegal");
    // Always A1: legal the first time, occupied the second.
    let stubborn = Fake {
        genmove: r#"printf '=%s A1\n\n' "$id""#,
        ..Fake::passer("stubborn")
    }
    .write(&dir);
    let passer = Fake::passer("passer").write(&dir);
    let mut config = small_config([stubborn, passer], 2);
    config.sgf_dir = Some(dir.join("sgf"));
    let (report, _, _) = run(&config);
    assert_eq!(report.wins(), [0, 2]);
    for game in &report.games {
        let forfeit = game.forfeit.as_ref().expect("a forfeit");
        assert_eq!(forfeit.engine, 0);
        assert_eq!(forfeit.kind, ForfeitKind::IllegalMove);
        assert_eq!(forfeit.mv.as_deref(), Some("A1"));
        assert!(forfeit.reason.contains("occupied"), "{}", forfeit.reason);
        assert_eq!(game.end, GameEnd::Forfeit);
        let winner = game.color_of(1).letter();
        assert_eq!(game.result, format!("{winner}+F"));
        let text = fs::read_to_string(game.sgf.as_ref().unwrap()).unwrap();
        assert!(text.contains("forfeits"), "{text}");
        assert!(text.contains(&format!("RE[{winner}+F]")), "{text}");
    }
    assert_eq!(report.forfeit_counts(), [2, 0]);
    assert!(report.to_string().contains("illegal-move A1"));
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn crash_forfeits() {
    let dir = temp_dir("crash");
    let passer = Fake::passer("passer").write(&dir);
    // It answers boardsize, clear_board, komi and list_commands; the game's
    // first `play` or `genmove` finds it gone.
    let fragile = Fake {
        crash_on: Some(5),
        ..Fake::passer("fragile")
    }
    .write(&dir);
    let mut config = small_config([passer, fragile], 2);
    config.max_moves = Some(10);
    let (report, _, _) = run(&config);
    for game in &report.games {
        let forfeit = game.forfeit.as_ref().expect("a forfeit");
        assert_eq!(forfeit.engine, 1, "{game:?}");
        assert_eq!(forfeit.kind, ForfeitKind::Crash, "{game:?}");
        assert!(forfeit.reason.contains("crashing"), "{}", forfeit.reason);
        assert_eq!(game.winner, Some(0));
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn timeouts_and_bad_replies_forfeit() {
    let dir = temp_dir("timeouts");
    let passer = Fake::passer("passer").write(&dir);
    let sleepy = Fake {
        genmove: "sleep 5",
        ..Fake::passer("sleepy")
    }
    .write(&dir);
    let mut config = small_config([sleepy, passer.clone()], 1);
    config.move_timeout = Some(Duration::from_millis(300));
    let (report, _, _) = run(&config);
    let game = &report.games[0];
    let forfeit = game.forfeit.as_ref().expect("a forfeit");
    assert_eq!((forfeit.engine, forfeit.kind), (0, ForfeitKind::Timeout));
    assert_eq!(game.result, "W+T");

    let confused = Fake {
        genmove: r#"printf '=%s Z99\n\n' "$id""#,
        ..Fake::passer("confused")
    }
    .write(&dir);
    let (report, _, _) = run(&small_config([passer, confused], 1));
    let forfeit = report.games[0].forfeit.as_ref().expect("a forfeit");
    assert_eq!((forfeit.engine, forfeit.kind), (1, ForfeitKind::Malformed));
    assert_eq!(report.games[0].result, "B+F");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn running_out_of_main_time_loses_on_time() {
    let dir = temp_dir("clock");
    let passer = Fake::passer("passer").write(&dir);
    // Answers after 2 s; the clock gives it 1 s and no byo-yomi.
    let log = dir.join("slow.log");
    let slow = Fake {
        genmove: r#"sleep 2; printf '=%s pass\n\n' "$id""#,
        log: Some(&log),
        ..Fake::passer("slow")
    }
    .write(&dir);
    let mut config = small_config([passer, slow], 1);
    config.clock = Some(Clock::absolute(Duration::from_secs(1)));
    config.results_file = Some(dir.join("results.jsonl"));
    let (report, _, _) = run(&config);
    let game = &report.games[0];
    let forfeit = game.forfeit.as_ref().expect("a forfeit");
    assert_eq!((forfeit.engine, forfeit.kind), (1, ForfeitKind::Timeout));
    assert!(
        forfeit.reason.contains("lost on time"),
        "{}",
        forfeit.reason
    );
    assert!(
        forfeit.reason.contains("1s main absolute"),
        "{}",
        forfeit.reason
    );
    assert_eq!(game.result, "B+T");
    assert_eq!(game.winner, Some(0));
    let sent = fs::read_to_string(&log).unwrap();
    assert!(sent.contains("time_settings 1 0 0"), "{sent}");
    assert!(sent.contains("time_left white 1 0"), "{sent}");
    // The key names the clock: the same match with another clock starts afresh.
    let results = lines(&dir.join("results.jsonl"));
    assert!(results[0].contains("1s main absolute"), "{}", results[0]);
    // Five times the 2 s it takes: no loss on time, however busy the machine.
    config.clock = Some(Clock::absolute(Duration::from_secs(10)));
    let (report, played, resumed) = run(&config);
    assert_eq!((played, resumed), (vec![0], 0));
    assert!(report.games[0].forfeit.is_none(), "{:?}", report.games[0]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn japanese_byo_yomi_periods_reach_engines_that_know_them() {
    let dir = temp_dir("periods");
    let black_log = dir.join("black.log");
    let black = Fake {
        log: Some(&black_log),
        commands: "kgs-time_settings",
        ..Fake::passer("knows-kgs")
    }
    .write(&dir);
    // Takes 2 s a move with no main time and ten 1-s periods: the move
    // overruns periods without losing, and the clock counts them down.
    let white_log = dir.join("white.log");
    let white = Fake {
        genmove: r#"sleep 2; printf '=%s pass\n\n' "$id""#,
        log: Some(&white_log),
        ..Fake::passer("plain-gtp")
    }
    .write(&dir);
    let mut config = small_config([black, white], 1);
    config.first_plays_black = true;
    config.clock = Some(Clock::japanese(Duration::ZERO, Duration::from_secs(1), 10));
    config.results_file = Some(dir.join("results.jsonl"));
    let (report, _, _) = run(&config);
    let game = &report.games[0];
    assert!(game.forfeit.is_none(), "{:?}", game.forfeit);
    assert_eq!(game.end, GameEnd::Passes);
    // The engine that knows KGS's command hears the periods, and in
    // byo-yomi the periods left; the other one period of one stone.
    let sent = fs::read_to_string(&black_log).unwrap();
    assert!(sent.contains("kgs-time_settings byoyomi 0 1 10"), "{sent}");
    assert!(!sent.contains("\ntime_settings"), "{sent}");
    assert!(sent.contains("time_left black 1 10"), "{sent}");
    let sent = fs::read_to_string(&white_log).unwrap();
    assert!(sent.contains("time_settings 0 1 1"), "{sent}");
    assert!(sent.contains("time_left white 1 1"), "{sent}");
    // Every move's time is kept, in the order played.
    assert_eq!(game.move_times.len(), 2);
    assert!(
        game.move_times[1] >= Duration::from_secs(2),
        "{:?}",
        game.move_times
    );
    let results = lines(&dir.join("results.jsonl"));
    assert!(results[0].contains("\"move_seconds\":["), "{}", results[0]);
    assert!(
        results[0].contains("0s main + 10 × 1s byo-yomi"),
        "{}",
        results[0]
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn gnugo_plays_under_a_clock() {
    assert!(
        Path::new(GNUGO).exists(),
        "{GNUGO} is missing: install GNU Go (apt-get install gnugo; scripts/test installs it)"
    );
    let dir = temp_dir("gnugo-clock");
    // GNU Go behind tee, so the commands and replies can be checked.
    let script = dir.join("gnugo.sh");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\ntee -a '{dir}/in.log' | {GNUGO} --mode gtp --level 1 --chinese-rules | tee -a '{dir}/out.log'\n",
            dir = dir.display()
        ),
    )
    .unwrap();
    // Read by the shell, as in `Fake::write`.
    let gnugo = format!("/bin/sh {}", script.to_str().unwrap());
    let mut config = small_config([gnugo.clone(), gnugo], 1);
    config.max_moves = Some(30);
    config.clock = Some(Clock::with_byo_yomi(
        Duration::from_secs(30),
        Duration::from_secs(5),
        1,
    ));
    let (report, _, _) = run(&config);
    let game = &report.games[0];
    assert!(game.forfeit.is_none(), "{game:?}");
    assert!(matches!(
        game.end,
        GameEnd::Passes | GameEnd::MoveLimit | GameEnd::Resignation
    ));
    assert!(game.moves > 0);
    let sent = fs::read_to_string(dir.join("in.log")).unwrap();
    assert!(sent.contains("time_settings 30 5 1"), "{sent}");
    // The first move of each side is asked with the full main time.
    assert!(sent.contains("time_left black 30 0"), "{sent}");
    assert!(sent.contains("time_left white 30 0"), "{sent}");
    let replies = fs::read_to_string(dir.join("out.log")).unwrap();
    assert!(
        !replies.lines().any(|l| l.starts_with('?')),
        "GNU Go refused a command:\n{replies}"
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resumes_from_the_results_file() {
    let dir = temp_dir("resume");
    let engines = [
        Fake::passer("first").write(&dir),
        Fake::passer("second").write(&dir),
    ];
    let results = dir.join("results.jsonl");
    let mut config = small_config(engines.clone(), 2);
    config.results_file = Some(results.clone());
    config.concurrency = 2;
    let (first, played, resumed) = run(&config);
    assert_eq!(resumed, 0);
    assert_eq!(played.len(), 2);
    assert_eq!(first.resumed, 0);
    assert_eq!(lines(&results).len(), 2);

    // A line of another match (other komi) in the same file is left alone.
    let mut other = small_config(engines, 1);
    other.komi = 0.5;
    other.results_file = Some(results.clone());
    let (_, played, resumed) = run(&other);
    assert_eq!((played, resumed), (vec![0], 0));
    assert_eq!(lines(&results).len(), 3);

    // Asking for four games plays only the two missing ones.
    config.games = 4;
    let (second, mut played, resumed) = run(&config);
    played.sort();
    assert_eq!(resumed, 2);
    assert_eq!(played, vec![2, 3]);
    assert_eq!(second.resumed, 2);
    assert_eq!(second.games.len(), 4);
    for (resumed, original) in second.games.iter().zip(&first.games) {
        assert_eq!(
            (
                resumed.index,
                resumed.black,
                resumed.winner,
                &resumed.result
            ),
            (
                original.index,
                original.black,
                original.winner,
                &original.result
            )
        );
    }
    assert_eq!(second.wins(), [2, 2]);
    assert_eq!(lines(&results).len(), 5);

    // Everything recorded: nothing is played again.
    let (third, played, resumed) = run(&config);
    assert!(played.is_empty());
    assert_eq!(resumed, 4);
    assert_eq!(third.games.len(), 4);
    assert_eq!(lines(&results).len(), 5);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn concurrent_games_are_all_recorded() {
    let dir = temp_dir("concurrent");
    let engines = [
        Fake::passer("one").write(&dir),
        Fake::passer("two").write(&dir),
    ];
    let mut config = small_config(engines, 6);
    config.concurrency = 3;
    config.results_file = Some(dir.join("results.jsonl"));
    config.sgf_dir = Some(dir.join("sgf"));
    let (report, mut played, _) = run(&config);
    played.sort();
    assert_eq!(played, (0..6).collect::<Vec<_>>());
    assert_eq!(report.games.len(), 6);
    assert_eq!(lines(&dir.join("results.jsonl")).len(), 6);
    for index in 0..6 {
        assert!(tengen_match::sgf_path(&dir.join("sgf"), index).exists());
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unusable_engine_is_an_error() {
    let dir = temp_dir("unusable");
    let passer = Fake::passer("passer").write(&dir);
    let config = small_config([passer, "/no/such/engine --gtp".into()], 2);
    match run_match(&config, |_| {}) {
        Err(MatchError::Engine { engine, .. }) => assert_eq!(engine, 1),
        other => panic!("expected an engine error, got {other:?}"),
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn nogo_ends_when_the_side_to_move_cannot_move_and_passes_forfeit() {
    let dir = temp_dir("nogo");
    let log = dir.join("commands.log");
    let passer = Fake {
        log: Some(&log),
        ..Fake::passer("passer")
    }
    .write(&dir);
    let other = Fake::passer("other").write(&dir);
    // 1×1: Black's only point would be suicide, so Black has lost before
    // anyone is asked for a move; nothing is counted.
    let mut config = small_config([passer.clone(), other.clone()], 2);
    config.size = BoardSize::square(1).unwrap();
    config.rules = Rules::preset("nogo").unwrap();
    config.komi = 0.0;
    config.sgf_dir = Some(dir.join("sgf"));
    let (report, _, _) = run(&config);
    for game in &report.games {
        assert_eq!(game.end, GameEnd::NoLegalMove);
        assert_eq!(game.result, "W+");
        assert_eq!(game.winner, Some(1 - game.black));
        assert_eq!(game.moves, 0);
        assert_eq!(game.dead_agreed, None);
        assert_eq!(game.engine_scores, [None, None]);
        let text = fs::read_to_string(game.sgf.as_ref().unwrap()).unwrap();
        assert!(
            text.contains("GM[1]") && text.contains("RU[NoGo]") && text.contains("RE[W+]"),
            "{text}"
        );
    }
    assert_eq!(report.wins(), [1, 1]);
    assert!(report.to_string().contains("want of a legal move: 2"));
    let commands = fs::read_to_string(&log).unwrap();
    assert!(!commands.contains("genmove"), "{commands}");
    assert!(!commands.contains("final_score"), "{commands}");

    // 7×7: the first pass is an illegal move and forfeits.
    config.size = BoardSize::square(7).unwrap();
    config.sgf_dir = None;
    let (report, _, _) = run(&config);
    for game in &report.games {
        let forfeit = game.forfeit.as_ref().expect("a forfeit");
        assert_eq!(forfeit.kind, ForfeitKind::IllegalMove);
        assert_eq!(forfeit.engine, game.black);
        assert!(
            forfeit.reason.contains("passing is not allowed"),
            "{}",
            forfeit.reason
        );
        assert_eq!(game.result, "W+F");
    }
    fs::remove_dir_all(&dir).unwrap();
}

/// A handicap game against GNU Go: the engines are told the stones, White
/// moves first, the record has `HA` and `AB`, and a watched match reports
/// every move.
#[test]
fn handicap_games_against_gnugo() {
    assert!(
        Path::new(GNUGO).exists(),
        "{GNUGO} is missing: install GNU Go (apt-get install gnugo; scripts/test installs it)"
    );
    let dir = temp_dir("handicap");
    let gnugo = format!("{GNUGO} --mode gtp --level 1 --chinese-rules");
    let mut config = small_config([gnugo.clone(), gnugo], 2);
    config.size = BoardSize::square(9).unwrap();
    config.komi = 0.5;
    config.handicap = 4;
    config.max_moves = Some(12);
    config.watch = true;
    config.sgf_dir = Some(dir.join("sgf"));
    let mut moves = [0usize; 2];
    let mut first_mover = Vec::new();
    let report = run_match(&config, |event| {
        if let MatchEvent::Moved { index, game, .. } = event {
            if moves[*index] == 0 {
                first_mover.push(game.last_move().map(|(color, _)| color));
            }
            moves[*index] += 1;
            assert_eq!(
                game.turn_count(),
                moves[*index],
                "one event per move, in order"
            );
            assert_eq!(game.handicap(), 4);
        }
    })
    .expect("the match runs");
    for game in &report.games {
        assert!(game.forfeit.is_none(), "{:?}", game.forfeit);
        assert_eq!(moves[game.index], game.moves, "game {}", game.index);
    }
    assert_eq!(first_mover, vec![Some(tengen_core::Color::White); 2]);
    let sgf = fs::read_to_string(dir.join("sgf").join("game-0000.sgf")).unwrap();
    assert!(sgf.contains("HA[4]"), "{sgf}");
    // The AB property's values: up to the next property or node.
    let after = sgf.split("AB").nth(1).expect("AB in the record");
    let setup = &after[..after
        .find(|c: char| c.is_ascii_uppercase() || c == ';')
        .unwrap()];
    let mut stones: Vec<&str> = setup.split_inclusive(']').collect();
    stones.sort();
    assert_eq!(stones, ["[cc]", "[cg]", "[gc]", "[gg]"], "{sgf}");
    assert!(sgf.contains(";W["), "White moves first: {sgf}");
    let record = tengen_sgf::read_game(&sgf).expect("the record reads back");
    assert_eq!(record.game.handicap(), 4);
}

/// Engines without `fixed_handicap`, or that place the stones elsewhere,
/// are told the referee's stones with `set_free_handicap`.
#[test]
fn engines_without_fixed_handicap_get_free_placement() {
    let dir = temp_dir("free-handicap");
    let logs = ["fixed", "plain"].map(|name| dir.join(format!("{name}.log")));
    // Lists fixed_handicap but answers no stones: the referee sends its own.
    let fixed = Fake {
        log: Some(&logs[0]),
        commands: "name\\nfixed_handicap\\nset_free_handicap",
        ..Fake::passer("fixed")
    }
    .write(&dir);
    let plain = Fake {
        log: Some(&logs[1]),
        ..Fake::passer("plain")
    }
    .write(&dir);
    let mut config = small_config([fixed, plain], 1);
    config.handicap = 2;
    let (report, _, _) = run(&config);
    assert!(report.games[0].forfeit.is_none());
    let sent = |i: usize| fs::read_to_string(&logs[i]).unwrap();
    // 7x7, two stones: the GTP specification's E5 and C3.
    assert!(sent(0).contains("fixed_handicap 2"), "{}", sent(0));
    assert!(sent(0).contains("set_free_handicap C3 E5"), "{}", sent(0));
    let after_fixed = sent(0)
        .split("fixed_handicap 2")
        .nth(1)
        .unwrap()
        .to_string();
    assert!(
        after_fixed.contains("clear_board"),
        "cleared before placing: {after_fixed}"
    );
    assert!(!sent(1).contains("fixed_handicap"), "{}", sent(1));
    assert!(sent(1).contains("set_free_handicap C3 E5"), "{}", sent(1));
    // A handicap the board does not take stops the match before it starts.
    config.handicap = 5;
    let err = run_match(&config, |_| {}).unwrap_err();
    assert!(matches!(err, MatchError::Setup(_)), "{err}");
    assert!(err.to_string().contains("handicap 5"), "{err}");
}
