//! Fixed handicap placement as the GTP specification lays it out.

use crate::point::{BoardSize, Point};

/// The largest fixed handicap a board allows: none below 7×7, four on 7×7 and
/// on even sizes (which have no centre point), nine on larger odd sizes.
/// Only square boards have a fixed handicap.
pub fn max_fixed_handicap(size: BoardSize) -> usize {
    let side = size.width();
    if !size.is_square() || side < 7 {
        0
    } else if side == 7 || side.is_multiple_of(2) {
        4
    } else {
        9
    }
}

/// The points of a fixed handicap of `stones` stones, in the GTP order: for
/// 19×19, 2: D4 Q16; 3: + D16; 4: + Q4; 5: + K10; 6: D4 Q16 D16 Q4 D10 Q10;
/// 7: + K10; 8: D4 Q16 D16 Q4 D10 Q10 K4 K16; 9: + K10. Stones go on the fourth
/// line from the edge on boards of 13×13 and more, on the third line below.
/// `None` if the board does not allow that many (or fewer than two).
pub fn fixed_handicap_points(size: BoardSize, stones: usize) -> Option<Vec<Point>> {
    if stones < 2 || stones > max_fixed_handicap(size) {
        return None;
    }
    let side = size.width();
    let edge = if side >= 13 { 3 } else { 2 };
    let (low, mid, high) = (edge, side / 2, side - 1 - edge);
    let at = |col: usize, row: usize| size.point(col, row);
    let lower_left = at(low, low)?;
    let upper_right = at(high, high)?;
    let upper_left = at(low, high)?;
    let lower_right = at(high, low)?;
    let center = at(mid, mid)?;
    let left = at(low, mid)?;
    let right = at(high, mid)?;
    let bottom = at(mid, low)?;
    let top = at(mid, high)?;
    let mut points = vec![lower_left, upper_right];
    if stones >= 3 {
        points.push(upper_left);
    }
    if stones >= 4 {
        points.push(lower_right);
    }
    if stones >= 6 {
        points.push(left);
        points.push(right);
    }
    if stones >= 8 {
        points.push(bottom);
        points.push(top);
    }
    if stones % 2 == 1 && stones >= 5 {
        points.push(center);
    }
    Some(points)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::point::Move;

    fn names(side: usize, stones: usize) -> Option<Vec<String>> {
        let size = BoardSize::square(side).unwrap();
        fixed_handicap_points(size, stones).map(|points| {
            points
                .into_iter()
                .map(|p| size.gtp(Move::Play(p)))
                .collect()
        })
    }

    #[test]
    fn nineteen_follows_the_gtp_table() {
        let table = [
            (2, "D4 Q16"),
            (3, "D4 Q16 D16"),
            (4, "D4 Q16 D16 Q4"),
            (5, "D4 Q16 D16 Q4 K10"),
            (6, "D4 Q16 D16 Q4 D10 Q10"),
            (7, "D4 Q16 D16 Q4 D10 Q10 K10"),
            (8, "D4 Q16 D16 Q4 D10 Q10 K4 K16"),
            (9, "D4 Q16 D16 Q4 D10 Q10 K4 K16 K10"),
        ];
        for (stones, expected) in table {
            assert_eq!(names(19, stones).unwrap().join(" "), expected, "{stones}");
        }
    }

    #[test]
    fn smaller_boards_and_limits() {
        assert_eq!(names(9, 4).unwrap().join(" "), "C3 G7 C7 G3");
        assert_eq!(names(9, 5).unwrap().join(" "), "C3 G7 C7 G3 E5");
        assert_eq!(
            names(13, 9).unwrap().join(" "),
            "D4 K10 D10 K4 D7 K7 G4 G10 G7"
        );
        assert_eq!(names(7, 4).unwrap().join(" "), "C3 E5 C5 E3");
        assert_eq!(names(7, 5), None);
        assert_eq!(names(10, 4).unwrap().join(" "), "C3 H8 C8 H3");
        assert_eq!(names(10, 5), None);
        assert_eq!(names(6, 2), None);
        assert_eq!(names(19, 1), None);
        assert_eq!(names(19, 10), None);
        assert_eq!(names(25, 9).unwrap().len(), 9);
        assert_eq!(
            fixed_handicap_points(BoardSize::new(9, 11).unwrap(), 2),
            None
        );
    }
}
