//! GNU Go, a real and independent SGF reader, loads tengen's records and sees
//! the same stones. Skipped (with a note) where GNU Go is not installed; the
//! test script installs it.

use std::io::Write;
use std::process::{Command, Stdio};

use tengen_core::{Agent, BoardSize, Color, Game, Move, RandomBot, Rules};
use tengen_sgf::{write_game, GameInfo};

const GNUGO: &str = "/usr/games/gnugo";

fn gnugo_stones(sgf_path: &std::path::Path) -> (String, String) {
    let mut child = Command::new(GNUGO)
        .args(["--mode", "gtp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start gnugo");
    let script = format!(
        "loadsgf {}\nlist_stones black\nlist_stones white\nquit\n",
        sgf_path.display()
    );
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let replies: Vec<&str> = text.split("\n\n").collect();
    assert!(replies[0].starts_with('='), "loadsgf failed: {text}");
    let list = |reply: &str| {
        let mut v: Vec<String> = reply
            .trim_start_matches('=')
            .split_whitespace()
            .map(str::to_uppercase)
            .collect();
        v.sort();
        v.join(" ")
    };
    (list(replies[1]), list(replies[2]))
}

#[test]
fn gnugo_loads_tengen_records() {
    assert!(
        std::path::Path::new(GNUGO).exists(),
        "{GNUGO} is missing: install GNU Go (apt-get install gnugo; scripts/test installs it)"
    );
    let dir = std::env::temp_dir().join(format!("tengen-sgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (seed, side, handicap) in [(1u64, 9usize, 0usize), (2, 13, 3), (3, 19, 0)] {
        let size = BoardSize::square(side).unwrap();
        let mut game =
            Game::with_handicap(size, Rules::preset("chinese").unwrap(), handicap).unwrap();
        let mut bot = RandomBot::new(seed);
        for _ in 0..(side * side) {
            if game.is_over() {
                break;
            }
            let action = bot.select_move(&game);
            game.apply(action).unwrap();
        }
        let path = dir.join(format!("game{seed}.sgf"));
        std::fs::write(&path, write_game(&game, &GameInfo::default())).unwrap();
        let stones = |color| {
            let mut v: Vec<String> = size
                .points()
                .filter(|&p| game.board().stone(p) == Some(color))
                .map(|p| size.gtp(Move::Play(p)))
                .collect();
            v.sort();
            v.join(" ")
        };
        let (black, white) = gnugo_stones(&path);
        assert_eq!(black, stones(Color::Black), "black stones, seed {seed}");
        assert_eq!(white, stones(Color::White), "white stones, seed {seed}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
