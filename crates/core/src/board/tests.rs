use super::*;
use crate::rng::Rng;

/// The neighbourhood code read cell by cell through the public API.
fn neighborhood_by_hand(board: &Board, point: Point) -> u16 {
    let [n, w, e, s] = board.neighbors(point);
    let [nw, ne, sw, se] = board.diagonals(point);
    let mut code = 0;
    for (i, cell) in [n, w, e, s, nw, ne, sw, se].into_iter().enumerate() {
        let value = match board.stone(cell) {
            Some(Color::Black) => 1,
            Some(Color::White) => 2,
            None if board.is_on_board(cell) => 0,
            None => 3,
        };
        code |= value << (2 * i);
    }
    code
}

#[test]
fn neighborhood_codes_match_the_cells() {
    let board = Board::from_ascii(
        "x o .
         . x o
         o . x",
    )
    .unwrap();
    let size = board.size();
    let center = size.point(1, 1).unwrap();
    // Row 1 is the bottom line of the diagram. Below ., left ., right o,
    // above o; lower-left o, lower-right x, upper-left x, upper-right .
    assert_eq!(
        board.neighborhood(center),
        2 << 4 | 2 << 6 | 2 << 8 | 1 << 10 | 1 << 12
    );
    let mut rng = Rng::new(5);
    for (w, h) in [(9, 9), (1, 1), (3, 7), (19, 19)] {
        let size = BoardSize::new(w, h).unwrap();
        let mut board = Board::new(size);
        let mut color = Color::Black;
        for _ in 0..size.points_count() {
            for point in size.points() {
                assert_eq!(
                    board.neighborhood(point),
                    neighborhood_by_hand(&board, point)
                );
            }
            if let Some(p) = board.random_playout_move(color, &mut rng) {
                board.play_unchecked(p, color);
            }
            color = !color;
        }
    }
}

#[test]
fn clone_from_smaller_board_matches_fresh_copy() {
    let mut rng = Rng::new(5);
    let mut big = Board::new(BoardSize::square(19).unwrap());
    for i in 0..200 {
        let color = if i % 2 == 0 {
            Color::Black
        } else {
            Color::White
        };
        if let Some(p) = big.random_playout_move(color, &mut rng) {
            big.play_unchecked(p, color);
        }
    }
    let small = Board::from_ascii("x.o\n.xo\n...").unwrap();
    big.clone_from(&small);
    assert_eq!(big, small);
    assert_eq!(big.hash(), small.hash());
    big.check_consistency().unwrap();
    let p = small.size().point(0, 0).unwrap();
    big.play_unchecked(p, Color::White);
    big.check_consistency().unwrap();
}
