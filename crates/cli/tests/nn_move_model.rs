//! `tengen nn move-model`: the move model fitted to real professional
//! records, read back by the bot's parser, and bad input refused.

use std::path::PathBuf;
use std::process::{Command, Output};

use tengen_mcts::features::MoveModel;

const GOBAN: &str = "/usr/share/goban";

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "tengen-nn-move-model-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tengen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .output()
        .expect("run tengen")
}

#[test]
fn a_fit_on_professional_records_predicts_held_out_moves() {
    // Ten records of goban-original-games (scripts/test installs it).
    let mut files: Vec<PathBuf> = std::fs::read_dir(GOBAN)
        .unwrap_or_else(|e| panic!("{GOBAN}: {e} (install goban-original-games)"))
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    files.truncate(10);
    let dir = temp_dir("fit");
    for file in &files {
        std::fs::copy(file, dir.join(file.file_name().unwrap())).unwrap();
    }
    let model_path = dir.join("model.txt");
    let out = tengen(&[
        "nn",
        "move-model",
        dir.to_str().unwrap(),
        "-o",
        model_path.to_str().unwrap(),
        "--iterations",
        "4",
        "--test-every",
        "5",
        "--min-wins",
        "3",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("10 records"), "{stdout}");
    // Two records of ten held out, and how well the model does on them.
    let held_out = stdout
        .lines()
        .find(|l| l.starts_with("held out:"))
        .unwrap_or_else(|| panic!("{stdout}"));
    let top1: f64 = held_out
        .split("top-1 ")
        .nth(1)
        .and_then(|rest| rest.split('%').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{held_out}"));
    // Choosing at random among some 250 candidates would give under 1%.
    assert!(top1 > 10.0, "{held_out}");
    let text = std::fs::read_to_string(&model_path).unwrap();
    let model = MoveModel::parse(&text).unwrap();
    assert!(model.known_patterns() > 20, "{}", model.known_patterns());
    assert!(model.known_shapes() > 20, "{}", model.known_shapes());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_records_is_a_clear_error() {
    let dir = temp_dir("empty");
    std::fs::write(dir.join("notes.sgf"), "not a record").unwrap();
    let out = tengen(&[
        "nn",
        "move-model",
        dir.to_str().unwrap(),
        "-o",
        dir.join("model.txt").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no readable game records"), "{stderr}");
    assert!(!dir.join("model.txt").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The "N training positions" figure of a fit's report.
fn training_positions(stdout: &str) -> usize {
    stdout
        .split(" training positions")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{stdout}"))
}

#[test]
fn labelled_positions_add_their_last_move_only() {
    let dir = temp_dir("positions");
    let games = dir.join("games");
    let positions = dir.join("positions");
    std::fs::create_dir_all(&games).unwrap();
    std::fs::create_dir_all(&positions).unwrap();
    std::fs::write(
        games.join("game.sgf"),
        "(;FF[4]GM[1]SZ[9];B[ee];W[gc];B[cg];W[cc];B[gg];W[dd];B[ed])",
    )
    .unwrap();
    // Three positions; the last stone of each is the move to learn.
    for (name, moves) in [
        ("a.sgf", ";B[ee];W[gc];B[cg]"),
        ("b.sgf", ";B[ee];W[gc];B[cg];W[cc];B[gg]"),
        ("c.sgf", ";B[dd];W[ff]"),
    ] {
        std::fs::write(positions.join(name), format!("(;FF[4]GM[1]SZ[9]{moves})")).unwrap();
    }
    let model = dir.join("model.txt");
    let model = model.to_str().unwrap();
    let fit = |extra: &[&str]| {
        let mut args = vec![
            "nn",
            "move-model",
            games.to_str().unwrap(),
            "-o",
            model,
            "--iterations",
            "2",
            "--test-every",
            "0",
            "--min-wins",
            "1",
        ];
        args.extend_from_slice(extra);
        succeeds(&args)
    };
    let alone = fit(&[]);
    assert_eq!(training_positions(&alone), 7, "{alone}");
    let with = fit(&["--positions", positions.to_str().unwrap()]);
    assert!(with.contains("4 records"), "{with}");
    assert_eq!(training_positions(&with), 7 + 3, "{with}");

    // A positions folder with nothing readable is refused.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = tengen(&[
        "nn",
        "move-model",
        games.to_str().unwrap(),
        "--positions",
        empty.to_str().unwrap(),
        "-o",
        dir.join("refused.txt").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--positions"), "{stderr}");
    assert!(!dir.join("refused.txt").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs tengen, which must succeed, and gives its standard output.
fn succeeds(args: &[&str]) -> String {
    let out = tengen(args);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn policy_games_of_the_katago_network_teach_a_model_alone() {
    let dir = temp_dir("policies");
    let games = dir.join("games");
    let model = tengen_katago::reference::model_path();
    let stdout = succeeds(&[
        "nn",
        "policy-games",
        "--model",
        model.to_str().unwrap(),
        "--out",
        games.to_str().unwrap(),
        "--games",
        "3",
        "--parallel",
        "2",
        "--max-turns",
        "12",
        "--seed",
        "5",
    ]);
    assert!(stdout.starts_with("3 games"), "{stdout}");
    // Every move of every record carries the network's probabilities,
    // the move played among them.
    let mut names: Vec<_> = std::fs::read_dir(&games)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["game-00000.sgf", "game-00001.sgf", "game-00002.sgf"]
    );
    for name in &names {
        let bytes = std::fs::read(games.join(name)).unwrap();
        let record = tengen_train::policy_record::read_policy_record(&bytes).unwrap();
        assert_eq!(record.game.turn_count(), 12, "{name}");
        let played: Vec<_> = record.game.history().collect();
        for ((_, action), policy) in played.iter().zip(&record.policies) {
            let policy = policy.as_ref().expect("every move has its policy");
            let total: f32 = policy.iter().map(|(_, p)| p).sum();
            assert!(total > 0.95 && total <= 1.001, "{name}: {total}");
            let tengen_core::Action::Move(mv) = action else {
                panic!("{name}: {action:?}");
            };
            assert!(policy.iter().any(|(m, _)| m == mv), "{name}: {mv:?}");
        }
    }

    // A model fitted to them alone (no professional records).
    let model_path = dir.join("model.txt");
    let stdout = succeeds(&[
        "nn",
        "move-model",
        "--policies",
        games.to_str().unwrap(),
        "-o",
        model_path.to_str().unwrap(),
        "--iterations",
        "3",
        "--test-every",
        "0",
        "--min-wins",
        "1",
    ]);
    assert!(stdout.contains("3 records"), "{stdout}");
    assert_eq!(training_positions(&stdout), 36, "{stdout}");
    MoveModel::parse(&std::fs::read_to_string(&model_path).unwrap()).unwrap();

    // A folder without policy records is refused.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = tengen(&[
        "nn",
        "move-model",
        "--policies",
        empty.to_str().unwrap(),
        "-o",
        dir.join("refused.txt").to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--policies"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
