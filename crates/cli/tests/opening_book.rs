//! `tengen nn opening-book` builds a book from the KataGo network that the
//! MCTS bot reads, the likeliest positions first; the bot plays from it
//! through GTP.

use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use tengen_core::{BoardSize, Game, Rules};
use tengen_mcts::book::OpeningBook;

fn tengen(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("tengen runs")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-book-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_book_of_the_network_reads_and_the_bot_plays_from_it() {
    let dir = temp_dir("build");
    let book_path = dir.join("book.txt");
    let model = tengen_katago::reference::model_path();
    let out = tengen(&[
        "nn",
        "opening-book",
        "--model",
        model.to_str().unwrap(),
        "--visits",
        "1",
        "--positions",
        "12",
        "--max-turns",
        "5",
        "--workers",
        "2",
        "-o",
        book_path.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.starts_with("12 positions"), "{stdout}");
    let text = std::fs::read_to_string(&book_path).unwrap();
    let book = OpeningBook::parse(&text).unwrap();
    assert_eq!(book.len(), 12);
    assert_eq!(book.komi(), 7.0);
    // Entries come likeliest first, none after the last turn allowed.
    let reaches: Vec<f64> = text
        .lines()
        .filter_map(|l| l.split("reach ").nth(1))
        .map(|r| r.split(',').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(reaches.len(), 12);
    assert_eq!(reaches[0], 1.0, "the empty board comes first");
    assert!(reaches.windows(2).all(|w| w[0] >= w[1]), "{reaches:?}");
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains("reach"))
    {
        let turn: usize = line
            .split("turn ")
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(turn < 5, "{line}");
        let stones = line
            .split(' ')
            .next()
            .unwrap()
            .bytes()
            .filter(|b| *b == b'X' || *b == b'O')
            .count();
        assert_eq!(stones, turn, "{line}");
    }
    // The book has both colours' first moves: Black's on the empty board,
    // White's after the network's favourite first move.
    let size = BoardSize::square(9).unwrap();
    let mut game = Game::new(size, Rules::preset("chinese").unwrap().with_komi(7.0));
    let first = book.lookup(&game).expect("the empty board is in the book");
    game.play(tengen_core::Move::Play(first)).unwrap();
    assert!(
        book.lookup(&game).is_some(),
        "White's answer is in the book"
    );

    // Through GTP the bot plays the book's move without searching.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args([
            "gtp",
            "--bot",
            &format!("mcts:playouts=1,book={}", book_path.display()),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"boardsize 9\nkomi 7\nclear_board\ngenmove b\nquit\n")
        .unwrap();
    let answers = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
    let first_gtp = size.gtp(tengen_core::Move::Play(first));
    assert!(answers.contains(&format!("= {first_gtp}")), "{answers}");

    // A bad book is refused when the bot is made, with the reason.
    std::fs::write(dir.join("bad.txt"), "size 9\nkomi 7\nE5\n").unwrap();
    let out = tengen(&[
        "gtp",
        "--bot",
        &format!("mcts:book={}", dir.join("bad.txt").display()),
    ]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("line 3"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}
