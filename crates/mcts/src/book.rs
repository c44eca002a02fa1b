//! Opening books: the move to play in known positions of the opening, read
//! from a text file, as Fuego and MoGo play their 9×9 openings from books.
//!
//! A book is for one board size and one komi (within half a point). Each
//! entry is a position, the side to move and the move:
//!
//! ```text
//! # comments and blank lines are skipped
//! size 9
//! komi 7
//! ........./........./........./........./........./........./........./........./......... b E5
//! ........./........./........./........./....X..../........./........./........./......... w F4
//! ```
//!
//! The position is written row by row from the top (row 9 on 9×9) down,
//! each row from column A, with `.` empty, `X` Black and `O` White. A
//! position is found under any of the board's eight symmetries (the book
//! keeps each in its canonical orientation, the least text of the eight,
//! and turns a position into it to look it up), so a book lists each
//! position once, in any orientation, and its move in that orientation.
//! Text after the `#` is a comment.
//!
//! `tengen nn opening-book` builds a book with a KataGo network's search;
//! the one shipped (`models/opening-book-9x9.txt`, komi 7) is built so.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use tengen_core::{Board, BoardSize, Color, Game, Move, Point};

/// The book shipped with tengen: 9×9, komi 7.
pub static BUILTIN_BOOK: &str = include_str!("../../../models/opening-book-9x9.txt");

/// Why a book cannot be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BookError {
    /// A line that is not a directive, a comment or an entry.
    #[error("line {line}: {reason}")]
    Line {
        /// The line's number, from 1.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// An entry before the `size` line.
    #[error("line {line}: an entry before the `size` line")]
    NoSize {
        /// The entry's line.
        line: usize,
    },
    /// The book never gives its komi.
    #[error("the book has no `komi` line")]
    NoKomi,
    /// The file cannot be read.
    #[error("reading {path}: {reason}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        reason: String,
    },
}

/// The eight symmetries of a square board, by number: bit 2 transposes,
/// bit 0 mirrors the columns, bit 1 the rows (in that order).
pub const SYMMETRIES: u8 = 8;

/// `(col, row)` under symmetry `symmetry` of a square board of side `side`.
pub fn transform(symmetry: u8, side: usize, (col, row): (usize, usize)) -> (usize, usize) {
    let (mut col, mut row) = if symmetry & 4 != 0 {
        (row, col)
    } else {
        (col, row)
    };
    if symmetry & 1 != 0 {
        col = side - 1 - col;
    }
    if symmetry & 2 != 0 {
        row = side - 1 - row;
    }
    (col, row)
}

/// The symmetry that undoes `symmetry`: mirrors undo themselves, and after
/// a transposition the column and row mirrors trade places.
pub fn inverse(symmetry: u8) -> u8 {
    if symmetry & 4 == 0 {
        symmetry
    } else {
        4 | ((symmetry & 1) << 1) | ((symmetry & 2) >> 1)
    }
}

/// A point under a symmetry of its (square) board.
pub fn transform_point(symmetry: u8, size: BoardSize, point: Point) -> Point {
    let (col, row) = transform(symmetry, size.width(), size.col_row(point));
    size.point(col, row)
        .expect("a symmetry keeps points on a square board")
}

/// A position as the book writes it, without the row separators: row by
/// row from the top, `.` empty, `X` Black, `O` White.
pub fn position_text(board: &Board) -> Vec<u8> {
    let size = board.size();
    let mut text = Vec::with_capacity(size.width() * size.height());
    for row in (0..size.height()).rev() {
        for col in 0..size.width() {
            let point = size.point(col, row).expect("on the board");
            text.push(match board.stone(point) {
                None => b'.',
                Some(Color::Black) => b'X',
                Some(Color::White) => b'O',
            });
        }
    }
    text
}

/// `text` (as [`position_text`] writes it, square, of side `side`) under
/// `symmetry`.
fn transform_text(symmetry: u8, side: usize, text: &[u8]) -> Vec<u8> {
    let mut out = vec![b'.'; text.len()];
    for row in 0..side {
        for col in 0..side {
            let (c, r) = transform(symmetry, side, (col, row));
            // Text index of (col, row): rows from the top.
            out[(side - 1 - r) * side + c] = text[(side - 1 - row) * side + col];
        }
    }
    out
}

/// A position's canonical orientation: the symmetry under which its text
/// is least, and that text. Positions that are one another's mirror images
/// have the same canonical text.
pub fn canonical(board: &Board) -> (u8, Vec<u8>) {
    let size = board.size();
    assert_eq!(size.width(), size.height(), "books are for square boards");
    canonical_text(size.width(), &position_text(board))
}

/// [`canonical`] for a position's text.
fn canonical_text(side: usize, text: &[u8]) -> (u8, Vec<u8>) {
    (0..SYMMETRIES)
        .map(|s| (s, transform_text(s, side, text)))
        .min_by(|a, b| a.1.cmp(&b.1))
        .expect("eight symmetries")
}

/// The book's line for playing `mv` in `game`'s position, written in the
/// position's canonical orientation, with `comment` after it when not empty.
pub fn entry_line(game: &Game, mv: Point, comment: &str) -> String {
    let size = game.size();
    let side = size.width();
    let (symmetry, text) = canonical(game.board());
    let mut line = String::with_capacity(text.len() + side + 16);
    for (i, row) in text.chunks(side).enumerate() {
        if i > 0 {
            line.push('/');
        }
        line.push_str(std::str::from_utf8(row).expect("ASCII"));
    }
    let color = match game.to_move() {
        Color::Black => 'b',
        Color::White => 'w',
    };
    let mv = size.gtp(Move::Play(transform_point(symmetry, size, mv)));
    line.push(' ');
    line.push(color);
    line.push(' ');
    line.push_str(&mv);
    if !comment.is_empty() {
        line.push(' ');
        line.push_str(comment);
    }
    line
}

/// An opening book (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct OpeningBook {
    size: BoardSize,
    komi: f64,
    entries: usize,
    /// Each entry in its canonical orientation: position text and side to
    /// move, and the move turned with the position.
    moves: HashMap<(Vec<u8>, Color), Point>,
}

impl OpeningBook {
    /// Reads a book from its text.
    pub fn parse(text: &str) -> Result<OpeningBook, BookError> {
        let mut size: Option<BoardSize> = None;
        let mut komi: Option<f64> = None;
        let mut entries = 0;
        let mut moves = HashMap::new();
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let bad = |reason: String| BookError::Line { line, reason };
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let mut words = content.split_whitespace();
            let first = words.next().unwrap_or("");
            match first {
                "size" => {
                    if size.is_some() {
                        return Err(bad("a second `size` line".into()));
                    }
                    let side: usize = words
                        .next()
                        .and_then(|w| w.parse().ok())
                        .ok_or_else(|| bad("expected `size N`".into()))?;
                    let board = BoardSize::square(side)
                        .map_err(|e| bad(format!("bad size {side}: {e}")))?;
                    size = Some(board);
                }
                "komi" => {
                    let value: f64 = words
                        .next()
                        .and_then(|w| w.parse().ok())
                        .filter(|k: &f64| k.is_finite() && k.abs() <= 1000.0)
                        .ok_or_else(|| bad("expected `komi K`, a number".into()))?;
                    komi = Some(value);
                }
                _ => {
                    let size = size.ok_or(BookError::NoSize { line })?;
                    let (text, color, point) = parse_entry(size, first, &mut words).map_err(bad)?;
                    entries += 1;
                    let (symmetry, text) = canonical_text(size.width(), &text);
                    moves
                        .entry((text, color))
                        .or_insert_with(|| transform_point(symmetry, size, point));
                }
            }
        }
        let size = size.unwrap_or(BoardSize::square(9).expect("9x9"));
        Ok(OpeningBook {
            size,
            komi: komi.ok_or(BookError::NoKomi)?,
            entries,
            moves,
        })
    }

    /// The book shipped with tengen ([`BUILTIN_BOOK`]), read once.
    pub fn builtin() -> &'static OpeningBook {
        static BUILTIN: OnceLock<OpeningBook> = OnceLock::new();
        BUILTIN.get_or_init(|| OpeningBook::parse(BUILTIN_BOOK).expect("the shipped book reads"))
    }

    /// The book in file `path`, read once per path and kept for the rest of
    /// the process, so that bots hold it by plain reference.
    pub fn from_file(path: &Path) -> Result<&'static OpeningBook, BookError> {
        static LOADED: OnceLock<Mutex<HashMap<PathBuf, &'static OpeningBook>>> = OnceLock::new();
        let mut loaded = LOADED
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&book) = loaded.get(path) {
            return Ok(book);
        }
        let text = std::fs::read_to_string(path).map_err(|e| BookError::Read {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        let book: &'static OpeningBook = Box::leak(Box::new(OpeningBook::parse(&text)?));
        loaded.insert(path.to_path_buf(), book);
        Ok(book)
    }

    /// The board size the book is for.
    pub fn size(&self) -> BoardSize {
        self.size
    }

    /// The komi the book is for.
    pub fn komi(&self) -> f64 {
        self.komi
    }

    /// Entries as the file lists them.
    pub fn len(&self) -> usize {
        self.entries
    }

    /// Whether the book has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// The book's move in `game`'s position, if the book knows the position
    /// and is for this game: Go on the book's board, komi within half a
    /// point of the book's, and the move legal.
    pub fn lookup(&self, game: &Game) -> Option<Point> {
        if game.size() != self.size
            || game.rules().is_nogo()
            || (game.rules().komi - self.komi).abs() > 0.5 + 1e-9
        {
            return None;
        }
        let (symmetry, text) = canonical(game.board());
        let point = *self.moves.get(&(text, game.to_move()))?;
        let point = transform_point(inverse(symmetry), self.size, point);
        game.legal(Move::Play(point)).ok().map(|()| point)
    }
}

/// An entry's position, colour and move, from its first word and the rest.
fn parse_entry<'a>(
    size: BoardSize,
    position: &str,
    words: &mut impl Iterator<Item = &'a str>,
) -> Result<(Vec<u8>, Color, Point), String> {
    let side = size.width();
    let rows: Vec<&str> = position.split('/').collect();
    if rows.len() != side || rows.iter().any(|r| r.len() != side) {
        return Err(format!(
            "expected a position of {side} rows of {side} points separated by `/`, or `size` or `komi`"
        ));
    }
    let mut text = Vec::with_capacity(side * side);
    for row in &rows {
        for c in row.bytes() {
            match c {
                b'.' | b'X' | b'O' => text.push(c),
                _ => return Err(format!("`{}` is not a point (. X O)", c as char)),
            }
        }
    }
    let color = match words.next() {
        Some("b" | "B") => Color::Black,
        Some("w" | "W") => Color::White,
        Some(other) => {
            return Err(format!(
                "expected b or w for the side to move, got `{other}`"
            ))
        }
        None => return Err("expected the side to move (b or w) after the position".into()),
    };
    let vertex = words
        .next()
        .ok_or_else(|| "expected the move after the side to move".to_string())?;
    let point = match size.parse_gtp(vertex) {
        Ok(Move::Play(point)) => point,
        Ok(_) => return Err(format!("`{vertex}`: the book plays stones, not passes")),
        Err(e) => return Err(format!("`{vertex}`: {e}")),
    };
    let (col, row) = size.col_row(point);
    if text[(side - 1 - row) * side + col] != b'.' {
        return Err(format!("`{vertex}` is not empty in the position"));
    }
    Ok((text, color, point))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::Rules;

    fn game(moves: &[&str], komi: f64) -> Game {
        let size = BoardSize::square(9).unwrap();
        let mut rules = Rules::preset("chinese").unwrap();
        rules.komi = komi;
        let mut game = Game::new(size, rules);
        for mv in moves {
            game.play(size.parse_gtp(mv).unwrap()).unwrap();
        }
        game
    }

    fn point(text: &str) -> Point {
        match BoardSize::square(9).unwrap().parse_gtp(text).unwrap() {
            Move::Play(p) => p,
            _ => unreachable!(),
        }
    }

    #[test]
    fn symmetries_are_the_eight_of_the_square() {
        let side = 9;
        let mut images: Vec<(usize, usize)> = (0..SYMMETRIES)
            .map(|s| transform(s, side, (1, 3)))
            .collect();
        images.sort();
        images.dedup();
        assert_eq!(images.len(), 8);
        // Each is a bijection of the board, undone by its inverse.
        for s in 0..SYMMETRIES {
            for row in 0..side {
                for col in 0..side {
                    let there = transform(s, side, (col, row));
                    assert_eq!(transform(inverse(s), side, there), (col, row), "{s}");
                }
            }
            let mut seen = vec![false; side * side];
            for row in 0..side {
                for col in 0..side {
                    let (c, r) = transform(s, side, (col, row));
                    assert!(!seen[r * side + c]);
                    seen[r * side + c] = true;
                }
            }
        }
    }

    #[test]
    fn an_entry_is_found_under_every_symmetry() {
        // After Black E5 and White C6 (a position with no symmetry of its
        // own), Black answers at D3; each of the eight images of the
        // position is answered by the image of D3.
        let size = BoardSize::square(9).unwrap();
        let written = game(&["E5", "C6"], 7.0);
        let line = entry_line(&written, point("D3"), "# a test");
        let book = OpeningBook::parse(&format!("size 9\nkomi 7\n{line}\n")).unwrap();
        assert_eq!(book.len(), 1);
        let mut answers = Vec::new();
        for symmetry in 0..SYMMETRIES {
            let image =
                |text: &str| size.gtp(Move::Play(transform_point(symmetry, size, point(text))));
            let turned = game(&[&image("E5"), &image("C6")], 7.0);
            assert_eq!(
                book.lookup(&turned),
                Some(point(&image("D3"))),
                "symmetry {symmetry}"
            );
            answers.push(image("D3"));
        }
        answers.sort();
        answers.dedup();
        assert_eq!(answers.len(), 8);
        // Another stone anywhere makes it another position.
        assert_eq!(book.lookup(&game(&["E5", "C6", "J9"], 7.0)), None);
    }

    #[test]
    fn a_book_is_only_for_its_size_komi_and_colour() {
        let empty = game(&[], 7.0);
        let book = OpeningBook::parse(&format!(
            "size 9\nkomi 7\n{}\n",
            entry_line(&empty, point("E5"), "")
        ))
        .unwrap();
        assert_eq!(book.lookup(&empty), Some(point("E5")));
        assert_eq!(book.lookup(&game(&[], 6.5)), Some(point("E5")));
        assert_eq!(book.lookup(&game(&[], 7.5)), Some(point("E5")));
        assert_eq!(book.lookup(&game(&[], 5.5)), None);
        assert_eq!(book.lookup(&game(&[], 0.5)), None);
        // White to move on the empty board (after a pass) is another position.
        let mut passed = game(&[], 7.0);
        passed.play(Move::Pass).unwrap();
        assert_eq!(book.lookup(&passed), None);
        let size = BoardSize::square(13).unwrap();
        assert_eq!(
            book.lookup(&Game::new(size, Rules::preset("chinese").unwrap())),
            None
        );
        assert_eq!(book.lookup(&game(&["E5"], 7.0)), None);
    }

    #[test]
    fn the_canonical_orientation_is_shared_by_mirror_images() {
        let a = game(&["C3", "E5", "D7"], 7.0);
        let b = game(&["G7", "E5", "F3"], 7.0);
        assert_eq!(canonical(a.board()).1, canonical(b.board()).1);
        let c = game(&["C3", "E5", "D6"], 7.0);
        assert_ne!(canonical(a.board()).1, canonical(c.board()).1);
        // The line names the move in the canonical orientation, and reads back.
        let line = entry_line(&a, point("F4"), "");
        let book = OpeningBook::parse(&format!("size 9\nkomi 7\n{line}")).unwrap();
        assert_eq!(book.lookup(&a), Some(point("F4")));
        assert_eq!(book.lookup(&b), Some(point("D6")));
    }

    #[test]
    fn bad_books_are_refused_with_the_line_and_the_reason() {
        let empty_row = ".........";
        let position = [empty_row; 9].join("/");
        let cases = [
            ("size 9\n", "no `komi`"),
            ("komi 7\nsize x\n", "line 2: expected `size N`"),
            ("size 9\nkomi seven\n", "line 2: expected `komi K`"),
            ("size 9\nsize 9\nkomi 7\n", "line 2: a second `size`"),
            (
                &*format!("komi 7\n{position} b E5\n"),
                "line 2: an entry before the `size` line",
            ),
            (
                &*format!("size 9\nkomi 7\n{position}\n"),
                "line 3: expected the side to move",
            ),
            (
                &*format!("size 9\nkomi 7\n{position} x E5\n"),
                "expected b or w",
            ),
            (
                &*format!("size 9\nkomi 7\n{position} b\n"),
                "expected the move",
            ),
            (&*format!("size 9\nkomi 7\n{position} b Z5\n"), "`Z5`"),
            (
                &*format!("size 9\nkomi 7\n{position} b pass\n"),
                "not passes",
            ),
            ("size 9\nkomi 7\n..../.... b E5\n", "9 rows of 9 points"),
            (
                &*format!(
                    "size 9\nkomi 7\n{}/....X.... b E1\n",
                    [empty_row; 8].join("/")
                ),
                "`E1` is not empty",
            ),
            (
                &*format!(
                    "size 9\nkomi 7\n{}/....?.... b E5\n",
                    [empty_row; 8].join("/")
                ),
                "`?` is not a point",
            ),
        ];
        for (text, reason) in cases {
            let error = OpeningBook::parse(text).expect_err(text).to_string();
            assert!(error.contains(reason), "{text:?}: {error}");
        }
    }

    #[test]
    fn mangled_books_are_refused_or_answer_legal_moves() {
        // A real book's first lines, then thousands of random edits of
        // them: bytes replaced, removed and repeated. Each parses or is
        // refused with a reason, and a book that parses plays legal moves.
        let base: String = BUILTIN_BOOK.lines().take(12).collect::<Vec<_>>().join("\n");
        let alphabet = b".XO/ \n#bwBWsizekom0123456789ABCDEFGHJKZ-";
        let mut rng = tengen_core::Rng::new(11);
        for _ in 0..3000 {
            let mut bytes = base.clone().into_bytes();
            for _ in 0..1 + rng.below(4) {
                if bytes.is_empty() {
                    break;
                }
                let at = rng.below(bytes.len());
                match rng.below(3) {
                    0 => bytes[at] = alphabet[rng.below(alphabet.len())],
                    1 => {
                        bytes.remove(at);
                    }
                    _ => {
                        let end = (at + 1 + rng.below(90)).min(bytes.len());
                        let copy = bytes[at..end].to_vec();
                        bytes.splice(at..at, copy);
                    }
                }
            }
            let text = String::from_utf8_lossy(&bytes);
            let Ok(book) = OpeningBook::parse(&text) else {
                continue;
            };
            let mut rules = Rules::preset("chinese").unwrap();
            rules.komi = book.komi();
            let mut game = Game::new(book.size(), rules);
            for _ in 0..6 {
                let Some(point) = book.lookup(&game) else {
                    break;
                };
                game.play(Move::Play(point))
                    .expect("the book's move is legal");
            }
        }
    }

    #[test]
    fn the_shipped_book_reads_and_its_moves_are_legal() {
        let book = OpeningBook::builtin();
        assert_eq!(book.size(), BoardSize::square(9).unwrap());
        assert_eq!(book.komi(), 7.0);
        for (line_number, line) in BUILTIN_BOOK.lines().enumerate() {
            let content = line.split('#').next().unwrap_or("").trim();
            let Some(first) = content.split_whitespace().next() else {
                continue;
            };
            if first == "size" || first == "komi" {
                continue;
            }
            // Every entry's position is one a game could reach: set it up
            // and check that the book answers with a legal move there.
            let mut words = content.split_whitespace();
            let position = words.next().unwrap();
            let (text, color, point) = parse_entry(book.size(), position, &mut words).unwrap();
            let size = book.size();
            let mut board = Board::new(size);
            for (i, c) in text.iter().enumerate() {
                let (col, row) = (i % 9, 8 - i / 9);
                let stone = match c {
                    b'X' => Color::Black,
                    b'O' => Color::White,
                    _ => continue,
                };
                board
                    .place_setup_stone(size.point(col, row).unwrap(), stone)
                    .unwrap_or_else(|e| panic!("line {}: {e}", line_number + 1));
            }
            let mut rules = Rules::preset("chinese").unwrap();
            rules.komi = 7.0;
            let game = Game::from_position(board, color, rules);
            assert_eq!(book.lookup(&game), Some(point), "line {}", line_number + 1);
        }
    }
}
