//! `tengen nn balanced-openings`: sets of openings for matches
//! (`tengen match --openings`) whose positions a KataGo network judges
//! even. From the empty board, each ply follows the network's likeliest
//! moves (its policy's top few, passes left out); every position reached
//! after the last ply is valued by the network, positions the same up to
//! the board's symmetries are kept once, and those whose win rate for
//! Black lies nearest one half are the set.

use tengen_core::{BoardSize, Game, Move, Point, Rules};
use tengen_puct::{NetEvaluation, PositionEvaluator};

/// What set to make.
#[derive(Clone, Debug)]
pub struct BalancedOpeningsOptions {
    /// The board.
    pub size: BoardSize,
    /// Rules, komi included, the network is told.
    pub rules: Rules,
    /// Moves in each opening.
    pub moves: usize,
    /// Moves followed in each position: the policy's likeliest.
    pub candidates: usize,
    /// Openings in the set.
    pub count: usize,
}

/// One opening of the set.
#[derive(Clone, Debug, PartialEq)]
pub struct BalancedOpening {
    /// The moves, Black first.
    pub moves: Vec<Move>,
    /// Black's win rate after them, by the network.
    pub black_winrate: f32,
}

/// The `options.count` openings nearest an even game, the most even
/// first; `progress` is told how many positions have been valued.
pub fn balanced_openings(
    evaluator: &dyn PositionEvaluator,
    options: &BalancedOpeningsOptions,
    progress: &dyn Fn(usize),
) -> Result<Vec<BalancedOpening>, String> {
    let mut frontier = vec![Game::new(options.size, options.rules)];
    let mut valued = 0;
    for _ in 0..options.moves {
        let mut next = Vec::new();
        for chunk in frontier.chunks(16) {
            let games: Vec<&Game> = chunk.iter().collect();
            let evals = evaluator.evaluate(&games).map_err(|e| e.to_string())?;
            valued += games.len();
            progress(valued);
            for (game, eval) in chunk.iter().zip(evals) {
                for mv in likeliest(&eval, options.candidates) {
                    let mut child = game.clone();
                    if child.play(mv).is_ok() {
                        next.push(child);
                    }
                }
            }
        }
        frontier = unique_up_to_symmetry(next);
    }
    let mut openings = Vec::with_capacity(frontier.len());
    for chunk in frontier.chunks(16) {
        let games: Vec<&Game> = chunk.iter().collect();
        let evals = evaluator.evaluate(&games).map_err(|e| e.to_string())?;
        valued += games.len();
        progress(valued);
        for (game, eval) in chunk.iter().zip(evals) {
            let to_move = (1.0 + eval.win - eval.loss) / 2.0;
            let black_winrate = match game.to_move() {
                tengen_core::Color::Black => to_move,
                tengen_core::Color::White => 1.0 - to_move,
            };
            let moves = game
                .history()
                .filter_map(|(_, action)| match action {
                    tengen_core::Action::Move(mv) => Some(mv),
                    tengen_core::Action::Resign => None,
                })
                .collect();
            openings.push(BalancedOpening {
                moves,
                black_winrate,
            });
        }
    }
    openings.sort_by(|a, b| {
        (a.black_winrate - 0.5)
            .abs()
            .total_cmp(&(b.black_winrate - 0.5).abs())
    });
    openings.truncate(options.count);
    Ok(openings)
}

/// The `count` moves of highest policy, passes left out.
fn likeliest(eval: &NetEvaluation, count: usize) -> Vec<Move> {
    let mut policy: Vec<(Move, f32)> = eval
        .policy
        .iter()
        .filter(|(mv, p)| *mv != Move::Pass && p.is_finite())
        .copied()
        .collect();
    policy.sort_by(|a, b| b.1.total_cmp(&a.1));
    policy.into_iter().take(count).map(|(mv, _)| mv).collect()
}

/// The games, each position once up to the square board's eight
/// symmetries (the first game reaching it kept).
fn unique_up_to_symmetry(games: Vec<Game>) -> Vec<Game> {
    let mut seen = std::collections::HashSet::new();
    games
        .into_iter()
        .filter(|game| seen.insert(canonical(game)))
        .collect()
}

/// The smallest of the position's eight images, as a list of stones.
fn canonical(game: &Game) -> Vec<(usize, u8)> {
    let size = game.size();
    let (w, h) = (size.width(), size.height());
    let board = game.board();
    let stones: Vec<(usize, usize, u8)> = size
        .points()
        .filter_map(|p: Point| {
            let color = board.stone(p)?;
            let (col, row) = size.col_row(p);
            Some((col, row, color as u8))
        })
        .collect();
    (0..8)
        .filter(|s| w == h || s % 2 == 0 && *s < 4)
        .map(|s| {
            let mut image: Vec<(usize, u8)> = stones
                .iter()
                .map(|&(c, r, color)| {
                    let (c, r) = if s & 4 != 0 { (r, c) } else { (c, r) };
                    let c = if s & 1 != 0 { w - 1 - c } else { c };
                    let r = if s & 2 != 0 { h - 1 - r } else { r };
                    (r * w + c, color)
                })
                .collect();
            image.sort_unstable();
            image
        })
        .min()
        .unwrap_or_default()
}

/// The set as a text file `tengen match --openings` reads: a header of `#`
/// lines, then one opening a line with Black's win rate as a comment.
pub fn openings_text(size: BoardSize, header: &[String], openings: &[BalancedOpening]) -> String {
    let mut text = String::new();
    for line in header {
        text.push_str("# ");
        text.push_str(line);
        text.push('\n');
    }
    for opening in openings {
        let moves: Vec<String> = opening.moves.iter().map(|&mv| size.gtp(mv)).collect();
        text.push_str(&format!(
            "{}  # black {:.3}\n",
            moves.join(" "),
            opening.black_winrate
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_puct::EvaluatorError;

    /// A network that likes the centre and values a position by whether
    /// Black holds it (the same in every orientation).
    struct Toy;

    impl PositionEvaluator for Toy {
        fn evaluate(&self, positions: &[&Game]) -> Result<Vec<NetEvaluation>, EvaluatorError> {
            Ok(positions
                .iter()
                .map(|game| {
                    let size = game.size();
                    let policy = game
                        .legal_moves()
                        .into_iter()
                        .map(|mv| {
                            let p = match mv {
                                Move::Play(p) => {
                                    let (col, row) = size.col_row(p);
                                    let d = (col as f32 - 2.0).abs() + (row as f32 - 2.0).abs();
                                    1.0 / (1.0 + d)
                                }
                                Move::Pass => 0.5,
                            };
                            (mv, p)
                        })
                        .collect();
                    let top = size
                        .points()
                        .filter(|p| {
                            size.col_row(*p) == (2, 2)
                                && game.board().stone(*p) == Some(tengen_core::Color::Black)
                        })
                        .count() as f32;
                    let black = 0.3 + 0.2 * top;
                    let win = if game.to_move() == tengen_core::Color::Black {
                        black
                    } else {
                        1.0 - black
                    };
                    NetEvaluation {
                        policy,
                        win,
                        loss: 1.0 - win,
                        ..NetEvaluation::default()
                    }
                })
                .collect())
        }

        fn supports(&self, _: BoardSize) -> Result<(), String> {
            Ok(())
        }

        fn name(&self) -> &str {
            "toy"
        }
    }

    #[test]
    fn the_most_even_openings_come_first_each_position_once() {
        let size = BoardSize::square(5).unwrap();
        let options = BalancedOpeningsOptions {
            size,
            rules: Rules::default(),
            moves: 2,
            candidates: 5,
            count: 100,
        };
        let openings = balanced_openings(&Toy, &options, &|_| {}).unwrap();
        assert!(!openings.is_empty());
        // Black on the centre is worth 0.5 exactly.
        assert!(
            (openings[0].black_winrate - 0.5).abs() < 1e-6,
            "{openings:?}"
        );
        assert!(openings
            .windows(2)
            .all(|w| { (w[0].black_winrate - 0.5).abs() <= (w[1].black_winrate - 0.5).abs() }));
        let mut images = std::collections::HashSet::new();
        for opening in &openings {
            assert_eq!(opening.moves.len(), 2);
            let mut game = Game::new(size, Rules::default());
            for &mv in &opening.moves {
                game.play(mv).unwrap();
            }
            assert!(images.insert(canonical(&game)), "{opening:?} twice");
        }
        let text = openings_text(size, &["made by a test".to_string()], &openings);
        assert!(text.starts_with("# made by a test\n"));
        assert_eq!(text.lines().count(), openings.len() + 1);
    }
}
