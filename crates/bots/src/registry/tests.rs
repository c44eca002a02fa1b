use std::time::Duration;

use tengen_core::{Action, Board, BoardSize, Color, EyeTest, Game, Move, Rules};

use super::*;
use crate::settings::FileChoice;
use tengen_mcts::prior::{ModelChoice, PriorSource};

fn spec(text: &str) -> BotSpec {
    text.parse().unwrap()
}

fn mcts(text: &str) -> Result<MctsSettings, BotError> {
    let settings = parse_bot(text)?;
    Ok(settings
        .as_any()
        .downcast_ref::<MctsSettings>()
        .expect("an mcts spec")
        .clone())
}

fn katago(text: &str) -> Result<KataGoSettings, BotError> {
    let settings = parse_bot(text)?;
    Ok(settings
        .as_any()
        .downcast_ref::<KataGoSettings>()
        .expect("a katago spec")
        .clone())
}

#[test]
fn specs_parse_and_print() {
    let s = spec(" MCTS : Playouts=20000, threads=2 ");
    assert_eq!(s.name, "mcts");
    assert_eq!(s.get("playouts"), Some("20000"));
    assert_eq!(s.get("threads"), Some("2"));
    assert_eq!(s.to_string(), "mcts:playouts=20000,threads=2");
    assert_eq!(spec("random").to_string(), "random");
    assert_eq!(spec("random:").options, vec![]);
}

#[test]
fn malformed_specs_are_refused_with_reasons() {
    assert_eq!("".parse::<BotSpec>(), Err(BotError::Empty));
    assert_eq!(":x=1".parse::<BotSpec>(), Err(BotError::Empty));
    assert_eq!(
        "mcts:playouts".parse::<BotSpec>().unwrap_err().to_string(),
        "bot option 'playouts' is not of the form key=value"
    );
    assert_eq!(
        "mcts:a=1,a=2".parse::<BotSpec>().unwrap_err().to_string(),
        "bot option 'a' given twice"
    );
    assert!("mcts:=3".parse::<BotSpec>().is_err());
}

/// Settings print as the canonical spec: the options that differ from the
/// defaults, in the table's order, which reads back to the same settings.
#[test]
fn settings_print_as_the_spec_that_reads_back() {
    for (text, canonical) in [
        ("mcts", "mcts"),
        (
            "mcts:threads=2,playouts=2000",
            "mcts:playouts=2000,threads=2",
        ),
        ("mcts:playouts=none,reuse=true", "mcts"),
        ("mcts:time=1.5s,rave=1000", "mcts:time=1500ms,rave=1000"),
        (
            "katago:model=x.bin.gz,visits=8",
            "katago:model=x.bin.gz,visits=8",
        ),
        (
            "katago:noise=0.25,resign-winrate=0.1",
            "katago:noise=0.25,resign-winrate=0.1",
        ),
        (
            "random:eyes=fill,resign-margin=20",
            "random:eyes=fill,resign-margin=20",
        ),
        ("policy:pass=never", "policy:pass=never"),
        ("katago:rank=15K", "katago:rank=15k"),
        ("katago:rank=2d,visits=8", "katago:rank=2d,visits=8"),
        ("katago:rank=off", "katago"),
    ] {
        let settings = parse_bot(text).unwrap();
        assert_eq!(settings.to_string(), canonical, "{text}");
        assert_eq!(
            parse_bot(canonical).unwrap().to_string(),
            canonical,
            "{canonical}"
        );
    }
}

#[test]
fn every_listed_bot_builds_by_name() {
    for info in BOTS {
        let settings = parse_bot(info.name).unwrap();
        assert_eq!(settings.info().name, info.name);
        if info.name == "katago" {
            // A network file is required; its absence is a clear error.
            let err = settings.build(1).err().unwrap();
            assert!(err.to_string().contains("needs model=PATH"), "{err}");
            continue;
        }
        let bot = settings.build(1).unwrap();
        assert_eq!(bot.name(), info.name);
    }
}

#[test]
fn the_policy_bot_at_a_rank_plays_legal_moves_without_filling_its_eyes() {
    use tengen_core::{BoardSize, Game, Rules};
    let settings = parse_bot("policy:rank=15k").unwrap();
    assert_eq!(settings.to_string(), "policy:rank=15k");
    let mut bot = settings.build(3).unwrap();
    let mut game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
    for _ in 0..60 {
        if game.is_over() {
            break;
        }
        let action = bot.select_move(&game);
        if let tengen_core::Action::Move(tengen_core::Move::Play(point)) = action {
            assert!(!game.board().is_point_an_eye(point, game.to_move()));
        }
        game.apply(action).unwrap();
    }
    assert!(game.moves().len() >= 30, "{} moves", game.moves().len());
}

/// Every option's default, as the listing and the docs show it, reads back
/// to the default settings: the defaults are written once, in the settings'
/// `Default`, and shown from there.
#[test]
fn listed_defaults_read_back_to_the_defaults() {
    // What a condition needs, in a spec that meets it.
    let enable = |condition: &str| match condition {
        "network=FILE or network=builtin" => "network=builtin",
        other => panic!("no spec meets {other}"),
    };
    for info in BOTS {
        let docs = info.options.docs();
        let mut items: Vec<String> = Vec::new();
        let mut conditional = Vec::new();
        for option in &docs {
            let item = format!("{}={}", option.name, option.default);
            match option.applies {
                Some(condition) => conditional.push((condition, item)),
                None => items.push(item),
            }
        }
        let spelled = format!("{}:{}", info.name, items.join(","));
        let settings = parse_bot(&spelled).unwrap_or_else(|e| panic!("{spelled}: {e}"));
        assert_eq!(settings.to_string(), info.name, "{spelled}");
        for (condition, item) in conditional {
            // Applies with the defaults, or with the condition met.
            let base = match parse_bot(&format!("{}:{item}", info.name)) {
                Ok(settings) => {
                    assert_eq!(settings.to_string(), info.name, "{item}");
                    continue;
                }
                Err(_) => format!("{}:{}", info.name, enable(condition)),
            };
            let with = parse_bot(&format!("{base},{item}")).unwrap();
            assert_eq!(
                with.to_string(),
                parse_bot(&base).unwrap().to_string(),
                "{item}"
            );
        }
    }
    let spelled = mcts(
        "mcts:playouts=none,time=none,threads=1,memory=512,resign-winrate=0.1,reuse=true,\
         rave=3500,expand=8,playout=heavy,eyes=real,prior-source=learned,prior-weight=150,\
         move-model=builtin,book=builtin,network=none,pass=never,resign-margin=none",
    )
    .unwrap();
    assert_eq!(spelled, MctsSettings::default());
    assert_eq!(
        spelled.search_config(),
        tengen_mcts::mcts::MctsConfig::default()
    );
}

#[test]
fn unknown_bots_and_options_name_what_is_known() {
    let err = parse_bot("nosuchbot").err().unwrap();
    assert!(err
        .to_string()
        .starts_with("unknown bot 'nosuchbot' (known bots: random"));
    let err = parse_bot("random:depth=3").err().unwrap();
    assert_eq!(
        err.to_string(),
        "bot 'random' has no option 'depth' (its options: eyes, pass, resign-margin)"
    );
}

/// An option's old name is refused in one line that names the new one.
#[test]
fn renamed_options_name_their_new_names() {
    for (text, old, new) in [
        ("mcts:resignrate=0", "resignrate", "resign-winrate"),
        ("katago:resignrate=0", "resignrate", "resign-winrate"),
        ("random:resign=5", "resign", "resign-margin"),
        ("mcts:priors=rules", "priors", "prior-source"),
        ("mcts:priorweight=60", "priorweight", "prior-weight"),
        ("mcts:movemodel=builtin", "movemodel", "move-model"),
        ("mcts:model=builtin", "model", "network"),
        ("mcts:value=0.5", "value", "network-value"),
        ("mcts:prior=20", "prior", "network-prior"),
        ("mcts:netvisits=10", "netvisits", "network-visits"),
    ] {
        let error = parse_bot(text).err().unwrap();
        assert_eq!(
            error.to_string(),
            format!("bot option '{old}' is now called '{new}'"),
            "{text}"
        );
    }
}

/// The measured dead ends are not options of the shipped bot; naming one
/// says why it is refused.
#[cfg(not(feature = "experiments"))]
#[test]
fn experiments_are_left_out_of_the_default_build() {
    for name in [
        "nakade",
        "lgrf",
        "ravedistance",
        "criticality",
        "twolib",
        "selfatari1",
        "sacrifice",
        "margin",
        "explore",
        "extend",
    ] {
        let error = parse_bot(&format!("mcts:{name}=1")).err().unwrap();
        assert_eq!(error, BotError::Experiment { key: name.into() });
        assert!(error.to_string().contains("--features experiments"));
        assert!(!bot_listing().contains(&format!(" {name}=")), "{name}");
    }
}

/// With the `experiments` feature the dead ends are options again, read as
/// before and refused where they do not apply.
#[cfg(feature = "experiments")]
#[test]
fn experiments_are_options_with_the_feature() {
    let heavy = |text: &str| mcts(text).map(|s| s.playout_policy());
    assert!(heavy("mcts:lgrf=true").unwrap().last_good_reply);
    assert!(!heavy("mcts:lgrf=false").unwrap().last_good_reply);
    assert!(heavy("mcts:nakade=true").unwrap().nakade);
    assert!(heavy("mcts:sacrifice=true").unwrap().nakade_sacrifice);
    assert_eq!(heavy("mcts:twolib=25").unwrap().two_liberty_percent, 25);
    assert_eq!(
        heavy("mcts:selfatari1=25").unwrap().lone_self_atari_refusal,
        25
    );
    for name in [
        "lgrf=true",
        "nakade=true",
        "sacrifice=true",
        "twolib=25",
        "selfatari1=25",
    ] {
        let error = mcts(&format!("mcts:playout=uniform,{name}")).unwrap_err();
        assert!(
            error
                .to_string()
                .contains("applies only with playout=heavy"),
            "{name}: {error}"
        );
    }
    for name in ["twolib", "selfatari1"] {
        assert!(mcts(&format!("mcts:{name}=101")).is_err());
    }
    assert_eq!(mcts("mcts:margin=0.05").unwrap().margin, 0.05);
    assert!(mcts("mcts:margin=1.5").is_err());
    let settings = mcts("mcts:ravedistance=2.5,criticality=1.1,explore=0.2,extend=0.5").unwrap();
    let config = settings.search_config();
    assert_eq!(config.params.amaf_distance, 2.5);
    assert_eq!(config.params.selection.criticality, 1.1);
    assert_eq!(config.params.selection.exploration, 0.2);
    assert_eq!(config.extension, 0.5);
    assert_eq!(
        settings.to_string(),
        "mcts:extend=0.5,criticality=1.1,ravedistance=2.5,explore=0.2"
    );
    for bad in [
        "mcts:ravedistance=-1",
        "mcts:ravedistance=far",
        "mcts:lgrf=maybe",
    ] {
        assert!(matches!(mcts(bad), Err(BotError::BadValue { .. })), "{bad}");
    }
}

#[test]
fn options_that_do_not_apply_are_refused_with_the_reason() {
    for (text, reason) in [
        (
            "mcts:prior-source=rules,prior-weight=3",
            "bot option 'prior-weight' applies only with prior-source=learned",
        ),
        (
            "mcts:prior-weight=3,prior-source=rules",
            "bot option 'prior-weight' applies only with prior-source=learned",
        ),
        (
            "mcts:prior-source=rules,move-model=builtin",
            "bot option 'move-model' applies only with prior-source=learned",
        ),
        (
            "mcts:network-value=0.5",
            "bot option 'network-value' applies only with network=FILE or network=builtin",
        ),
        (
            "mcts:network-prior=20",
            "bot option 'network-prior' applies only with network=FILE or network=builtin",
        ),
        (
            "mcts:network-visits=20,network=none",
            "bot option 'network-visits' applies only with network=FILE or network=builtin",
        ),
    ] {
        assert_eq!(parse_bot(text).unwrap_err().to_string(), reason, "{text}");
    }
    let settings = mcts("mcts:network=builtin,network-value=0.3,network-prior=20").unwrap();
    assert_eq!(settings.mix.value_weight, 0.3);
    assert_eq!(settings.mix.prior_weight, 20.0);
}

#[test]
fn katago_models_that_cannot_be_read_are_refused_with_the_reason() {
    let dir = std::env::temp_dir().join(format!("tengen-katago-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let not_model = dir.join("notes.txt");
    std::fs::write(&not_model, "hello world\n").unwrap();
    let cases = [
        (
            format!("katago:model={}", dir.join("missing.bin.gz").display()),
            "cannot read",
        ),
        (format!("katago:model={}", dir.display()), "is a directory"),
        (
            format!("katago:model={}", not_model.display()),
            "not a KataGo model",
        ),
    ];
    for (text, reason) in cases {
        let err = make_bot(&spec(&text), 1).err().unwrap().to_string();
        assert!(err.contains(reason), "{text}: {err}");
    }
    for bad in [
        "katago:model=x,visits=0",
        "katago:model=x,batch=0",
        "katago:model=x,resign-winrate=2",
        "katago:model=x,resign-margin=-1",
        "katago:model=x,pass=sometimes",
        "katago:noise=2",
        "katago:noise=some",
        "katago:rank=25k",
        "katago:rank=10d",
        "katago:rank=5",
    ] {
        let err = make_bot(&spec(bad), 1).err().unwrap();
        assert!(matches!(err, BotError::BadValue { .. }), "{bad}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(
        katago("katago:rank=3k").unwrap().rank,
        Some("3k".parse().unwrap())
    );
    assert_eq!(
        katago("katago:noise=0.25")
            .unwrap()
            .search
            .exploration
            .noise_weight,
        0.25
    );
    assert_eq!(
        katago("katago").unwrap().search.exploration.noise_weight,
        0.0
    );
    assert_eq!(katago("katago").unwrap().search.batching.size, 8);
}

#[test]
fn prior_options_choose_the_source_and_its_weight() {
    let prior = |text: &str| mcts(text).map(|s| s.search_config().params.prior);
    assert_eq!(prior("mcts"), Ok(PriorSource::default()));
    assert_eq!(
        prior("mcts:prior-source=learned"),
        Ok(PriorSource::Learned {
            weight: 150.0,
            model: ModelChoice::Builtin
        })
    );
    assert_eq!(
        prior("mcts:prior-weight=60"),
        Ok(PriorSource::Learned {
            weight: 60.0,
            model: ModelChoice::Builtin
        })
    );
    assert_eq!(prior("mcts:prior-source=rules"), Ok(PriorSource::Rules));
    for (text, reason) in [
        ("mcts:prior-source=both", "expected learned or rules"),
        ("mcts:prior-weight=-1", "must be from"),
        ("mcts:prior-weight=lots", "expected a number"),
    ] {
        let error = prior(text).unwrap_err().to_string();
        assert!(error.contains(reason), "{text}: {error}");
    }
}

#[test]
fn the_book_option_is_builtin_none_or_a_file() {
    use tengen_mcts::book::OpeningBook;
    let book = |text: &str| mcts(text).map(|s| s.search_config().book);
    assert!(std::ptr::eq(
        book("mcts").unwrap().unwrap(),
        OpeningBook::builtin()
    ));
    assert!(std::ptr::eq(
        book("mcts:book=builtin").unwrap().unwrap(),
        OpeningBook::builtin()
    ));
    assert_eq!(book("mcts:book=none"), Ok(None));
    let dir = std::env::temp_dir().join(format!("tengen-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("book.txt");
    let row = ".........";
    let empty = [row; 9].join("/");
    std::fs::write(&file, format!("size 9\nkomi 7\n{empty} b J9\n")).unwrap();
    let text = format!("mcts:book={}", file.display());
    let loaded = book(&text).unwrap().unwrap();
    assert_eq!(loaded.len(), 1);
    assert_eq!(mcts(&text).unwrap().book, FileChoice::Path(file.clone()));
    // The same file again is the same book, not another copy.
    assert!(std::ptr::eq(book(&text).unwrap().unwrap(), loaded));
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, format!("size 9\nkomi 7\n{empty} b Q9\n")).unwrap();
    for (text, reason) in [
        (
            format!("mcts:book={}", dir.join("none").display()),
            "reading",
        ),
        (format!("mcts:book={}", dir.display()), "reading"),
        (format!("mcts:book={}", bad.display()), "line 3: `Q9`"),
    ] {
        let error = book(&text).unwrap_err().to_string();
        assert!(error.contains(reason), "{text}: {error}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_move_model_option_reads_a_file_once() {
    use tengen_mcts::features::MoveModel;
    let prior = |text: &str| mcts(text).map(|s| s.search_config().params.prior);
    assert_eq!(prior("mcts:move-model=builtin"), Ok(PriorSource::default()));
    let dir = std::env::temp_dir().join(format!("tengen-movemodel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("model.txt");
    std::fs::write(&file, MoveModel::builtin().to_text()).unwrap();
    let text = format!("mcts:move-model={},prior-weight=90", file.display());
    let Ok(PriorSource::Learned { weight, model }) = prior(&text) else {
        panic!("{text} gives learned priors");
    };
    assert_eq!(weight, 90.0);
    let ModelChoice::Loaded(loaded) = model else {
        panic!("{text} loads the file");
    };
    assert_eq!(loaded.to_text(), MoveModel::builtin().to_text());
    assert!(!std::ptr::eq(loaded, MoveModel::builtin()));
    // The same file again is the same model, not another copy.
    assert_eq!(
        prior(&text).unwrap(),
        PriorSource::Learned { weight, model }
    );
    for text in [
        format!("mcts:move-model={}", dir.join("none").display()),
        format!("mcts:move-model={}", dir.display()),
    ] {
        let error = prior(&text).unwrap_err().to_string();
        assert!(error.contains("reading"), "{text}: {error}");
    }
    std::fs::write(dir.join("bad.txt"), "pattern 0 -1\n").unwrap();
    let error = prior(&format!(
        "mcts:move-model={}",
        dir.join("bad.txt").display()
    ))
    .unwrap_err()
    .to_string();
    assert!(error.contains("line 1"), "{error}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_playout_option_chooses_the_policy() {
    let policy = |text: &str| mcts(text).map(|s| s.playout_policy());
    assert_eq!(policy("mcts").unwrap().capture_percent, 90);
    assert_eq!(policy("mcts:playout=heavy").unwrap().capture_percent, 90);
    let uniform = policy("mcts:playout=uniform").unwrap();
    assert_eq!((uniform.capture_percent, uniform.pattern_percent), (0, 0));
    let error = parse_bot("mcts:playout=light").err().unwrap();
    assert!(
        error.to_string().contains("expected heavy or uniform"),
        "{error}"
    );
    assert!(make_bot(&spec("mcts:playout=uniform,playouts=10"), 1).is_ok());
    assert!(!policy("mcts").unwrap().last_good_reply);
    // The eye test reaches the playouts and the tree alike.
    for (text, eyes) in [
        ("mcts:eyes=book", EyeTest::Book),
        ("mcts:eyes=real", EyeTest::Real),
        ("mcts:playout=uniform,eyes=real", EyeTest::Real),
        ("mcts:eyes=book,playout=uniform", EyeTest::Book),
    ] {
        assert_eq!(policy(text).unwrap().eyes, eyes, "{text}");
        assert_eq!(
            mcts(text).unwrap().search_config().params.eyes,
            eyes,
            "{text}"
        );
    }
    let error = parse_bot("mcts:eyes=false").err().unwrap();
    assert!(error.to_string().contains("book or real"), "{error}");
}

#[test]
fn mcts_options_are_checked() {
    let settings = mcts("mcts:playouts=2000,threads=2,time=1.5s,reuse=false,memory=64").unwrap();
    let config = settings.search_config();
    assert_eq!(config.playouts, Some(2000));
    assert_eq!(config.threads, 2);
    assert_eq!(config.time, Some(Duration::from_millis(1500)));
    assert!(!config.reuse);
    assert_eq!(config.max_nodes, tengen_mcts::mcts::nodes_for_mib(64));
    assert_eq!(config.params.amaf_distance, 0.0);
    assert_eq!(
        mcts("mcts:time=1h").unwrap().search.time,
        Some(Duration::from_secs(3600))
    );
    for bad in [
        "mcts:playouts=0",
        "mcts:playouts=lots",
        "mcts:threads=1000",
        "mcts:time=0s",
        "mcts:time=25h",
        "mcts:time=1d",
        "mcts:time=-1",
        "mcts:memory=0",
        "mcts:resign-winrate=0.9",
        "mcts:resign-margin=lots",
        "random:eyes=maybe",
        "random:pass=always",
        "mcts:reuse=maybe",
        "mcts:rave=nan",
    ] {
        let err = parse_bot(bad).err().unwrap();
        assert!(matches!(err, BotError::BadValue { .. }), "{bad}: {err}");
    }
    assert_eq!(
        parse_bot("mcts:time=0s").err().unwrap().to_string(),
        "bad value '0s' for option 'time': must be more than 0 and at most a day"
    );
}

/// `pass` and `resign-margin` are offered by every bot and built by one
/// wrapper; the options change what the bot does.
#[test]
fn every_bot_takes_the_termination_options() {
    for info in BOTS {
        let docs = info.options.docs();
        assert!(docs.iter().any(|o| o.name == "pass"), "{}", info.name);
        let resign = docs.iter().find(|o| o.name == "resign-margin").unwrap();
        assert_eq!(resign.default, "none", "{}", info.name);
    }
    let policy = parse_bot("policy").unwrap();
    let policy = policy.as_any().downcast_ref::<PolicySettings>().unwrap();
    assert_eq!(
        policy.termination,
        Termination {
            pass_after_opponent: true,
            ..Termination::NONE
        }
    );
    // White to move after Black's pass on an empty board: komi wins.
    let mut game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
    game.play(Move::Pass).unwrap();
    let mut plain = make_bot(&spec("random"), 1).unwrap();
    let mut passer = make_bot(&spec("random:pass=opponent"), 1).unwrap();
    assert!(matches!(
        plain.select_move(&game),
        Action::Move(Move::Play(_))
    ));
    assert_eq!(passer.select_move(&game), Action::Move(Move::Pass));
    let mut resigner = make_bot(&spec("mcts:resign-margin=5,playouts=10"), 1).unwrap();
    assert!(
        matches!(resigner.select_move(&game), Action::Move(_)),
        "7.5 ahead"
    );
    let fresh = Game::new(BoardSize::square(9).unwrap(), Rules::default());
    assert_eq!(resigner.select_move(&fresh), Action::Resign, "7.5 behind");
    assert_eq!(resigner.name(), "mcts");
    // Go0 fills its own eyes where Go1 passes.
    let board = Board::from_ascii(
        ". x . x .\n\
         x x x x x\n\
         o o o o o\n\
         o . o . o\n\
         o o o o o",
    )
    .unwrap();
    let game = Game::from_position(board, Color::Black, Rules::default());
    let mut go1 = make_bot(&spec("random:eyes=keep"), 1).unwrap();
    let mut go0 = make_bot(&spec("random:eyes=fill"), 1).unwrap();
    assert_eq!(go1.select_move(&game), Action::Move(Move::Pass));
    assert!(matches!(
        go0.select_move(&game),
        Action::Move(Move::Play(_))
    ));
}

/// A server's budget reads and writes the settings it limits.
#[test]
fn budgets_read_and_write_the_settings() {
    let mut settings = parse_bot("mcts:playouts=100,threads=2").unwrap();
    let budget = settings.budget();
    assert_eq!(budget.count, Some(("playouts", Some(100))));
    assert_eq!(budget.threads, Some(2));
    assert_eq!(budget.memory_mib, Some(512));
    settings.set_budget(&Budget {
        count: Some(("playouts", Some(50))),
        time: Some(Some(Duration::from_secs(1))),
        ..budget
    });
    assert_eq!(settings.to_string(), "mcts:playouts=50,time=1s,threads=2");
    let mut settings = parse_bot("katago:model=m.bin.gz").unwrap();
    assert_eq!(settings.budget().count, Some(("visits", None)));
    settings.set_budget(&Budget {
        count: Some(("visits", Some(8))),
        ..settings.budget()
    });
    assert_eq!(settings.to_string(), "katago:model=m.bin.gz,visits=8");
    assert_eq!(parse_bot("random").unwrap().budget(), Budget::default());
}

/// `docs/options.md` is written from the tables; when they change, the file
/// is written anew with `TENGEN_UPDATE_DOCS=1 cargo test -p tengen-bots
/// options_reference`.
#[cfg(not(feature = "experiments"))]
#[test]
fn the_options_reference_is_up_to_date() {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/options.md");
    let expected = options_reference();
    if std::env::var_os("TENGEN_UPDATE_DOCS").is_some() {
        std::fs::write(&path, &expected).unwrap();
    }
    let found = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        found == expected,
        "{} is out of date: run `TENGEN_UPDATE_DOCS=1 cargo test -p tengen-bots options_reference`",
        path.display()
    );
}
