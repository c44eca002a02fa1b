use super::*;
use tengen_core::{KoRule, Scoring};

fn parse_ok(line: &str) -> Request {
    parse(line, &EngineSettings::default(), 25).expect("a valid query")
}

fn parse_err(line: &str) -> QueryError {
    parse(line, &EngineSettings::default(), 25).expect_err("an invalid query")
}

#[test]
fn a_whole_game_query() {
    let Request::Analyze(query) = parse_ok(
        r#"{"id":"foo","initialStones":[["B","Q4"],["B","C4"]],"moves":[["W","P5"],["B","P6"]],"rules":"tromp-taylor","komi":7.5,"boardXSize":19,"boardYSize":19,"analyzeTurns":[0,1,2],"maxVisits":10}"#,
    ) else {
        panic!("not an analysis")
    };
    assert_eq!(query.positions.len(), 3);
    assert_eq!(query.positions[0].game.to_move(), Color::White);
    assert_eq!(query.positions[2].game.to_move(), Color::White);
    assert_eq!(query.positions[2].game.turn_count(), 2);
    assert_eq!(query.settings.puct.limits.visits, Some(10));
    assert!(query.warnings.is_empty(), "{:?}", query.warnings);
}

#[test]
fn errors_name_the_field() {
    let cases = [
        (
            r#"{"id":"a","moves":[],"rules":"chinese","boardXSize":19}"#,
            "boardYSize",
        ),
        (
            r#"{"id":"a","moves":[],"rules":"chinese","boardXSize":26,"boardYSize":19}"#,
            "boardXSize",
        ),
        (
            r#"{"id":"a","moves":[["B","D4"],["W","D4"]],"rules":"chinese","boardXSize":19,"boardYSize":19}"#,
            "moves",
        ),
        (
            r#"{"id":"a","moves":[["X","D4"]],"rules":"chinese","boardXSize":19,"boardYSize":19}"#,
            "moves",
        ),
        (
            r#"{"id":"a","moves":[["B","Z99"]],"rules":"chinese","boardXSize":19,"boardYSize":19}"#,
            "moves",
        ),
        (
            r#"{"id":"a","moves":[],"rules":"pirate","boardXSize":19,"boardYSize":19}"#,
            "rules",
        ),
        (
            r#"{"id":"a","moves":[],"rules":"chinese","komi":7.2,"boardXSize":19,"boardYSize":19}"#,
            "komi",
        ),
        (
            r#"{"id":"a","moves":[],"rules":"chinese","boardXSize":19,"boardYSize":19,"maxVisits":"many"}"#,
            "maxVisits",
        ),
        (
            r#"{"id":"a","moves":[],"rules":"chinese","boardXSize":19,"boardYSize":19,"analyzeTurns":[1]}"#,
            "analyzeTurns",
        ),
        (
            r#"{"id":"a","moves":[],"rules":"chinese","boardXSize":19,"boardYSize":19,"overrideSettings":{"maxVisits":-3}}"#,
            "overrideSettings",
        ),
        (r#"{"id":"a","action":"terminate"}"#, "terminateId"),
        (r#"{"id":"a","action":"fly"}"#, "action"),
        (r#"{"id":7,"moves":[]}"#, "id"),
    ];
    for (line, field) in cases {
        let error = parse_err(line);
        assert_eq!(error.field.as_deref(), Some(field), "{line}: {error:?}");
        assert!(!error.message.is_empty());
    }
    let error = parse_err("{not json");
    assert_eq!(error.field, None);
    assert!(error.message.contains("JSON"), "{}", error.message);
}

#[test]
fn unknown_fields_and_settings_are_warnings() {
    let Request::Analyze(query) = parse_ok(
        r#"{"id":"a","moves":[],"rules":"japanese","boardXSize":9,"boardYSize":9,"colour":"blue","overrideSettings":{"humanSLProfile":"rank_3d","wideRootNoise":0.04}}"#,
    ) else {
        panic!("not an analysis")
    };
    let fields: Vec<&str> = query.warnings.iter().map(|w| w.field.as_str()).collect();
    assert!(fields.contains(&"colour"), "{fields:?}");
    assert!(fields.contains(&"overrideSettings"), "{fields:?}");
    // Japanese rules are played as they are: nothing to warn about.
    assert!(!fields.contains(&"rules"), "{fields:?}");
    assert_eq!(query.positions[0].game.rules().tax, tengen_core::Tax::Seki);
    assert!((query.settings.puct.exploration.wide_root_noise - 0.04).abs() < 1e-6);
    assert_eq!(query.positions[0].game.rules().komi, 6.5);
}

#[test]
fn rules_in_every_spelling_gui_send() {
    // KaTrain, Ogatak and LizzieYzy's spellings.
    for (rules, ko, scoring) in [
        ("\"Tromp Taylor\"", KoRule::PositionalSuperko, Scoring::Area),
        ("\"Chinese\"", KoRule::Simple, Scoring::Area),
        ("\"new zealand\"", KoRule::SituationalSuperko, Scoring::Area),
        ("\"stone_scoring\"", KoRule::Simple, Scoring::Area),
        ("\"AGA\"", KoRule::SituationalSuperko, Scoring::Area),
        ("\"Japanese\"", KoRule::Simple, Scoring::Territory),
        (
            r#"{"scoring":"TERRITORY","ko":"POSITIONAL","suicide":false,"tax":"NONE","whiteHandicapBonus":"0","hasButton":false,"friendlyPassOk":true}"#,
            KoRule::PositionalSuperko,
            Scoring::Territory,
        ),
    ] {
        let line =
            format!(r#"{{"id":"r","moves":[],"rules":{rules},"boardXSize":9,"boardYSize":9}}"#);
        let Request::Analyze(query) = parse_ok(&line) else {
            panic!("not an analysis")
        };
        let got = query.positions[0].game.rules();
        assert_eq!((got.ko, got.scoring), (ko, scoring), "{rules}");
    }
}

#[test]
fn rules_objects_take_katagos_defaults_and_refuse_what_tengen_cannot_play() {
    let rules_of = |rules: &str| {
        let line =
            format!(r#"{{"id":"r","moves":[],"rules":{rules},"boardXSize":9,"boardYSize":9}}"#);
        match parse_ok(&line) {
            Request::Analyze(query) => *query.positions[0].game.rules(),
            _ => panic!("not an analysis"),
        }
    };
    // An empty object is KataGo's Tromp-Taylor-like default.
    let empty = rules_of("{}");
    assert_eq!(empty.ko, KoRule::PositionalSuperko);
    assert!(!empty.friendly_pass_ok);
    assert_eq!(empty.tax, tengen_core::Tax::None);
    // Territory scoring brings the seki tax and komi 6.5; a button komi 7.
    let territory = rules_of(r#"{"scoring":"TERRITORY"}"#);
    assert_eq!(
        (territory.tax, territory.komi),
        (tengen_core::Tax::Seki, 6.5)
    );
    let button = rules_of(r#"{"hasButton":true,"whiteHandicapBonus":"N-1"}"#);
    assert!(button.button);
    assert_eq!(button.komi, 7.0);
    assert_eq!(rules_of("\"korean\""), Rules::preset("japanese").unwrap());
    let error =
        parse_err(r#"{"id":"r","moves":[],"rules":{"ko":"SPIGHT"},"boardXSize":9,"boardYSize":9}"#);
    assert_eq!(error.field.as_deref(), Some("rules"));
    assert!(error.message.contains("SPIGHT"), "{}", error.message);
}

#[test]
fn locations_in_every_form() {
    let size = BoardSize::square(19).unwrap();
    assert_eq!(parse_location(size, "pass"), Ok(Move::Pass));
    assert_eq!(
        parse_location(size, "(0,0)"),
        size.parse_gtp("A19").map_err(|e| e.to_string())
    );
    assert_eq!(
        parse_location(size, "(18,18)"),
        size.parse_gtp("T1").map_err(|e| e.to_string())
    );
    assert!(parse_location(size, "(19,0)").is_err());
    assert!(parse_location(size, "I5").is_err());
}

#[test]
fn handicap_bonus_is_the_games_to_count() {
    let Request::Analyze(query) = parse_ok(
        r#"{"id":"h","initialStones":[["B","D4"],["B","Q16"]],"moves":[],"rules":"chinese","komi":0.5,"boardXSize":19,"boardYSize":19}"#,
    ) else {
        panic!("not an analysis")
    };
    let game = &query.positions[0].game;
    assert_eq!(game.rules().komi, 0.5);
    assert_eq!(game.rules().handicap_bonus, tengen_core::HandicapBonus::N);
    assert_eq!(game.handicap_stones(), 2);
    assert_eq!(game.to_move(), Color::Black);
}
