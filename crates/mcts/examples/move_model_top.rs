//! The shipped move model's first five moves, with their probabilities, in
//! positions read from standard input: one line per position, the moves
//! from the empty board in GTP vertices (`D4 D6 F5`), Black first; the
//! board is 9×9 unless `--size N` is given, and `--model FILE` rates with a
//! model written by `tengen nn move-model` instead of the shipped one.
//!
//! `scripts/prior-agreement` compares these choices with Pachi's pattern
//! prior and a KataGo network's policy.

use std::io::BufRead;

use tengen_core::{BoardSize, Game, Move, Rules};
use tengen_mcts::features::{recent_stones, MoveModel, PositionFeatures};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let side = match args.iter().position(|a| a == "--size") {
        Some(i) => args
            .get(i + 1)
            .and_then(|s| s.parse().ok())
            .ok_or("--size needs a number")?,
        None => 9,
    };
    let size = BoardSize::square(side).map_err(|e| e.to_string())?;
    let rules = Rules::preset("chinese").ok_or("no chinese rules")?;
    let model = match args.iter().position(|a| a == "--model") {
        Some(i) => MoveModel::from_file(std::path::Path::new(
            args.get(i + 1).ok_or("--model needs a file")?,
        ))?,
        None => MoveModel::builtin(),
    };
    for (number, line) in std::io::stdin().lock().lines().enumerate() {
        let line = line.map_err(|e| e.to_string())?;
        let mut game = Game::new(size, rules);
        for vertex in line.split_whitespace() {
            let mv = size
                .parse_gtp(vertex)
                .map_err(|e| format!("line {}: {vertex}: {e}", number + 1))?;
            game.play(mv)
                .map_err(|e| format!("line {}: {vertex}: {e}", number + 1))?;
        }
        let board = game.board();
        let to_move = game.to_move();
        let (last, before_last) = recent_stones(&game);
        let mut features = PositionFeatures::new(board, to_move, last, before_last);
        let mut rated: Vec<(f32, Move)> = board
            .empty_points()
            .filter(|&p| {
                !board.is_point_an_eye(p, to_move)
                    && board.is_legal_simple(p, to_move)
                    && game.legal(Move::Play(p)).is_ok()
            })
            .map(|p| (model.strength(&features.of(board, p)), Move::Play(p)))
            .collect();
        let total: f32 = rated.iter().map(|r| r.0).sum();
        rated.sort_by(|a, b| b.0.total_cmp(&a.0));
        let top: Vec<String> = rated
            .iter()
            .take(5)
            .map(|(strength, mv)| format!("{}:{:.3}", size.gtp(*mv), strength / total))
            .collect();
        println!("{}", top.join(" "));
    }
    Ok(())
}
