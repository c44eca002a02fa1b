//! How far each game of a series stayed in an opening book: for every SGF
//! record named on the command line, the moves of the player whose name
//! starts with `--player NAME` (`tengen` unless given) that the book knew
//! (`OpeningBook::lookup` on the position before the move), then a count of
//! games by the number of such moves. The book is the shipped one unless
//! `--book FILE` names another.
//!
//! ```sh
//! cargo run --release -p tengen-mcts --example book_moves -- DIR/*.sgf
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use tengen_core::{Action, Color, Game};
use tengen_mcts::book::OpeningBook;

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut book = OpeningBook::builtin();
    let mut player = String::from("tengen");
    let mut files = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--book" => {
                let file = args.next().ok_or("--book needs a file")?;
                book = OpeningBook::from_file(Path::new(&file)).map_err(|e| e.to_string())?;
            }
            "--player" => player = args.next().ok_or("--player needs a name")?,
            _ => files.push(arg),
        }
    }
    // Games by the number of the player's moves the book knew.
    let mut games_by_count: BTreeMap<usize, usize> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))?;
        let record = tengen_sgf::read_game(&text).map_err(|e| format!("{file}: {e}"))?;
        let name_is =
            |name: &Option<String>| name.as_deref().is_some_and(|n| n.starts_with(&player));
        let color = match (name_is(&record.black_name), name_is(&record.white_name)) {
            (true, false) => Color::Black,
            (false, true) => Color::White,
            _ => return Err(format!("{file}: not one player named {player}*")),
        };
        // Replayed from the start, so that each position is looked up as the
        // bot saw it.
        let final_game = &record.game;
        let initial = final_game.initial_board();
        if initial.empty_count() != initial.size().points().count() {
            return Err(format!("{file}: starts with stones on the board"));
        }
        let mut game = Game::new(final_game.size(), *final_game.rules());
        let mut known = Vec::new();
        for (turn, (mover, action)) in final_game.history().enumerate() {
            let Action::Move(mv) = action else { break };
            if mover == color && book.lookup(&game).is_some() {
                known.push(turn + 1);
            }
            game.play_as(mover, mv)
                .map_err(|e| format!("{file}: turn {}: {e}", turn + 1))?;
        }
        println!("{file}: {} book moves, at turns {known:?}", known.len());
        *games_by_count.entry(known.len()).or_default() += 1;
    }
    let summary: Vec<String> = games_by_count
        .iter()
        .map(|(moves, games)| format!("{moves} in {games}"))
        .collect();
    println!("games by book moves: {}", summary.join(", "));
    Ok(())
}
