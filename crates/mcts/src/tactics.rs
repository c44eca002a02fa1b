//! Tactical facts about chains that the playout policy and the tree's priors
//! share: liberties, ataris, self-ataris, escapes and captures.
//!
//! Everything here reads the board through its public API and never changes
//! it. The answers are exact for the board as it stands; "after the move"
//! answers look at the move's neighbours only, as fast playouts need.

use tengen_core::{Board, Color, Point};

/// A small set of points kept in a fixed array, in insertion order.
#[derive(Clone, Copy, Debug)]
pub struct PointSet<const N: usize> {
    points: [Point; N],
    len: usize,
}

impl<const N: usize> PointSet<N> {
    /// The empty set. `filler` only fills the unused slots.
    pub fn new(filler: Point) -> Self {
        PointSet {
            points: [filler; N],
            len: 0,
        }
    }

    /// Adds `point` unless present; returns false when the set is full.
    #[inline]
    pub fn insert(&mut self, point: Point) -> bool {
        if self.as_slice().contains(&point) {
            return true;
        }
        if self.len == N {
            return false;
        }
        self.points[self.len] = point;
        self.len += 1;
        true
    }

    /// The points, in insertion order.
    #[inline]
    pub fn as_slice(&self) -> &[Point] {
        &self.points[..self.len]
    }

    /// Number of points.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set is empty.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Up to `N` distinct liberties of the chain through `stone` (an empty set if
/// `stone` is empty). Stops walking the chain as soon as `N` are found.
pub fn chain_liberties<const N: usize>(board: &Board, stone: Point) -> PointSet<N> {
    let mut libs = PointSet::new(stone);
    for s in board.chain(stone) {
        for n in board.neighbors(s) {
            if board.is_empty_at(n) && !libs.insert(n) {
                return libs;
            }
        }
    }
    libs
}

/// Every liberty of the chain through `stone`, which has at most four: the
/// walk along the chain stops as soon as it has found as many as the board
/// counts.
fn few_liberties(board: &Board, stone: Point) -> PointSet<4> {
    let count = board.liberties(stone);
    let mut libs = PointSet::new(stone);
    debug_assert!(count <= 4);
    if count == 0 {
        return libs;
    }
    for s in board.chain(stone) {
        for n in board.neighbors(s) {
            if board.is_empty_at(n) && (!libs.insert(n) || libs.len() == count) {
                return libs;
            }
        }
    }
    libs
}

/// The only liberty of the chain through `stone`, if it has exactly one.
#[inline]
pub fn atari_liberty(board: &Board, stone: Point) -> Option<Point> {
    if board.liberties(stone) != 1 {
        return None;
    }
    chain_liberties::<1>(board, stone)
        .as_slice()
        .first()
        .copied()
}

/// If `color` playing at empty `point` would leave the new chain with exactly
/// one liberty, the number of stones in that chain; 0 if not.
///
/// Captures count as liberties where the captured stones touch the new stone;
/// a capture of more than one stone is never called a self-atari. A move with
/// no liberty at all (suicide) is also reported, with its chain size.
pub fn self_atari_size(board: &Board, point: Point, color: Color) -> usize {
    let mut libs = PointSet::<2>::new(point);
    let neighbors = board.neighbors(point);
    // Empty neighbours and single stones captured are liberties at once.
    for n in neighbors {
        match board.stone(n) {
            None if board.is_on_board(n) => {
                libs.insert(n);
            }
            Some(c) if c != color && board.liberties(n) == 1 => {
                if board.chain_len(n) > 1 {
                    return 0;
                }
                libs.insert(n);
            }
            _ => {}
        }
        if libs.len() >= 2 {
            return 0;
        }
    }
    let mut size = 1;
    let mut seen = PointSet::<4>::new(point);
    for n in neighbors {
        if board.stone(n) != Some(color) {
            continue;
        }
        let Some(head) = board.chain_head(n) else {
            continue;
        };
        if seen.as_slice().contains(&head) {
            continue;
        }
        seen.insert(head);
        if board.liberties(n) > 2 {
            return 0;
        }
        size += board.chain_len(n);
        for lib in chain_liberties::<3>(board, n).as_slice() {
            if *lib != point {
                libs.insert(*lib);
            }
        }
        if libs.len() >= 2 {
            return 0;
        }
    }
    size
}

/// The moves that save `color`'s chain through `stone` from atari: extending
/// at its liberty when that gives it two or more, and capturing a neighbouring
/// enemy chain that is itself in atari. Appends to `out`; nothing if the chain
/// is not in atari.
pub fn escape_moves(board: &Board, stone: Point, color: Color, out: &mut Vec<Point>) {
    let Some(liberty) = atari_liberty(board, stone) else {
        return;
    };
    if self_atari_size(board, liberty, color) == 0 && !out.contains(&liberty) {
        out.push(liberty);
    }
    captures_next_to(board, stone, color, out);
}

/// The captures of enemy chains in atari next to `color`'s chain through
/// `stone`: the liberty of each, appended to `out` unless present.
pub fn captures_next_to(board: &Board, stone: Point, color: Color, out: &mut Vec<Point>) {
    let head = board.chain_head(stone);
    let mut counted = PointSet::<8>::new(stone);
    for s in board.chain(stone) {
        for n in board.neighbors(s) {
            if board.stone(n) != Some(!color) {
                continue;
            }
            let Some(enemy) = board.chain_head(n) else {
                continue;
            };
            if enemy == head.unwrap_or(enemy) || !counted.insert(enemy) {
                continue;
            }
            if let Some(capture) = atari_liberty(board, n) {
                if !out.contains(&capture) {
                    out.push(capture);
                }
            }
        }
    }
}

/// Stones `color` would capture by playing at empty `point`.
#[inline]
pub fn capture_size(board: &Board, point: Point, color: Color) -> usize {
    board.removals_after(point, color).captured
}

/// Whether an enemy chain next to empty `point` has at most two liberties,
/// so that `color` playing there captures it or puts it in atari: a
/// one-stone self-atari that does so is a fight, not a gift.
pub fn touches_short_enemy(board: &Board, point: Point, color: Color) -> bool {
    board
        .neighbors(point)
        .into_iter()
        .any(|n| board.stone(n) == Some(!color) && board.liberties(n) <= 2)
}

/// Whether `color` playing at empty `point` takes a liberty from an enemy
/// chain that would then be left in atari (not counting captures).
pub fn gives_atari(board: &Board, point: Point, color: Color) -> bool {
    board
        .neighbors(point)
        .into_iter()
        .any(|n| board.stone(n) == Some(!color) && board.liberties(n) == 2)
}

/// How many positions one ladder read may visit. A plain ladder across a
/// 19×19 board visits about 70; a read that runs out calls the chain safe,
/// so a playout never spends long on one question.
const LADDER_BUDGET: u32 = 100;

/// The boards a ladder read plays on, one per ply, kept between reads: a
/// read copies only the part of a board its size uses
/// ([`Board::clone_from`]) instead of cloning whole boards.
#[derive(Clone, Default)]
pub struct LadderScratch {
    boards: Vec<Board>,
}

impl std::fmt::Debug for LadderScratch {
    /// The number of boards only: printing a hundred boards says nothing.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LadderScratch")
            .field("boards", &self.boards.len())
            .finish()
    }
}

impl LadderScratch {
    /// The boards, as many as a read may go deep.
    fn boards(&mut self, size: tengen_core::BoardSize) -> &mut [Board] {
        if self.boards.is_empty() {
            self.boards = vec![Board::new(size); LADDER_BUDGET as usize];
        }
        &mut self.boards
    }
}

/// The liberties (counted up to 3) of the chain `color` would make by
/// playing at empty `point`, without playing it; `None` when the move
/// captures, which a ladder read plays out instead.
fn extension_liberties(board: &Board, point: Point, color: Color) -> Option<usize> {
    extension_liberties_without(board, point, color, point)
}

/// [`extension_liberties`] as if `taken` (an empty point) were filled by the
/// opponent, so that an atari at `taken` need not be played to see that
/// the extension at `point` answers it with three liberties.
fn extension_liberties_without(
    board: &Board,
    point: Point,
    color: Color,
    taken: Point,
) -> Option<usize> {
    let mut libs = PointSet::<3>::new(point);
    let mut plenty = false;
    for n in board.neighbors(point) {
        match board.stone(n) {
            None if board.is_on_board(n) && n != taken => {
                libs.insert(n);
            }
            Some(c) if c == color => {
                // With five or more liberties, three remain whatever `point`
                // and `taken` fill; with fewer, the walk stops once it has
                // found them all.
                let liberties = board.liberties(n);
                if liberties >= 5 {
                    plenty = true;
                    continue;
                }
                // `point` is a liberty of every chain next to it: a chain
                // with one liberty, or with two when the other is `taken`,
                // brings none. A ladder asks this of its long chain at every
                // ply, so the walk along it is worth saving.
                if liberties == 1
                    || (liberties == 2 && taken != point && board.is_next_to_chain(taken, n))
                {
                    continue;
                }
                for &lib in few_liberties(board, n).as_slice() {
                    if lib != point && lib != taken {
                        libs.insert(lib);
                    }
                }
            }
            Some(_) if board.liberties(n) == 1 => return None,
            _ => {}
        }
    }
    Some(if plenty { 3 } else { libs.len() })
}

/// Whether `color` extending its chain in atari at `liberty` (that chain's
/// only liberty) runs into a ladder: the extended chain has exactly two
/// liberties and the opponent, moving first, captures it by ataris alone.
/// An extension to three or more liberties, or an illegal one, is no ladder.
pub fn escape_is_laddered(
    board: &Board,
    liberty: Point,
    color: Color,
    scratch: &mut LadderScratch,
) -> bool {
    if extension_liberties(board, liberty, color) != Some(2)
        || !board.is_legal_simple(liberty, color)
    {
        return false;
    }
    let Some((after, rest)) = scratch.boards(board.size()).split_first_mut() else {
        return false;
    };
    after.clone_from(board);
    after.play_unchecked(liberty, color);
    if after.liberties(liberty) != 2 {
        return false;
    }
    let mut budget = LADDER_BUDGET;
    ladder_attack_wins(after, liberty, rest, &mut budget)
}

/// Whether `color` playing at empty `point` puts an enemy chain next to it
/// in atari that then cannot escape: every extension and every capture of
/// an attacker ends, by further ataris, in its capture. The point of the
/// enemy chain is returned when it is caught.
pub fn atari_captures_in_ladder(
    board: &Board,
    point: Point,
    color: Color,
    scratch: &mut LadderScratch,
) -> Option<Point> {
    if !board.is_legal_simple(point, color) || !gives_atari(board, point, color) {
        return None;
    }
    let (after, rest) = scratch.boards(board.size()).split_first_mut()?;
    after.clone_from(board);
    after.play_unchecked(point, color);
    if after.liberties(point) < 2 {
        // An atari that can simply be captured is no ladder.
        return None;
    }
    let mut targets = PointSet::<4>::new(point);
    for n in board.neighbors(point) {
        if after.stone(n) == Some(!color) && after.liberties(n) == 1 {
            targets.insert(n);
        }
    }
    let mut budget = LADDER_BUDGET;
    for (i, &target) in targets.as_slice().iter().enumerate() {
        if i > 0 {
            // The read before played on `after`: set it up again.
            after.clone_from(board);
            after.play_unchecked(point, color);
        }
        if ladder_defence_fails(after, target, rest, &mut budget) {
            return Some(target);
        }
    }
    None
}

/// The answers to the enemy stone at `last` that concern chains left with
/// two liberties, for `color` to play (the "low liberty" moves of Fuego's
/// playouts, Pachi's two-liberty check):
/// - for each of `color`'s chains next to `last` with two liberties, the
///   liberties where the chain extends to three or more (or captures), and
///   the captures of enemy chains in atari next to it;
/// - when the chain of `last` has two liberties, the ataris on it that
///   capture it in a ladder.
///
/// Appends to `out`, skipping points already there. A chain with two
/// liberties is where a fight is decided one move later; a playout that
/// leaves it alone misjudges the fight as surely as one that ignores an
/// atari.
pub fn two_liberty_replies(
    board: &Board,
    color: Color,
    last: Point,
    out: &mut Vec<Point>,
    scratch: &mut LadderScratch,
) {
    let mut seen = PointSet::<4>::new(last);
    for n in board.neighbors(last) {
        if board.stone(n) != Some(color) || board.liberties(n) != 2 {
            continue;
        }
        let Some(head) = board.chain_head(n) else {
            continue;
        };
        if seen.as_slice().contains(&head) {
            continue;
        }
        seen.insert(head);
        for &liberty in chain_liberties::<2>(board, n).as_slice() {
            let gains = match extension_liberties(board, liberty, color) {
                Some(liberties) => liberties >= 3,
                // The extension captures: it gains at least the captured
                // stones' points.
                None => true,
            };
            if gains && !out.contains(&liberty) {
                out.push(liberty);
            }
        }
        captures_next_to(board, n, color, out);
    }
    if board.stone(last) == Some(!color) && board.liberties(last) == 2 {
        let liberties = chain_liberties::<2>(board, last);
        for (i, &atari) in liberties.as_slice().iter().enumerate() {
            // Most ataris are answered at once by an extension to three
            // liberties: seen without playing, before a read.
            let answer = liberties.as_slice()[1 - i];
            if out.contains(&atari)
                || extension_liberties_without(board, answer, !color, atari).is_some_and(|l| l >= 3)
            {
                continue;
            }
            if atari_captures_chain_in_ladder(board, atari, color, last, scratch) {
                out.push(atari);
            }
        }
    }
}

/// Whether `color` playing at empty `point` puts the enemy chain through
/// `target` in atari and that chain then cannot escape (as
/// [`atari_captures_in_ladder`] reads it, for this one chain).
fn atari_captures_chain_in_ladder(
    board: &Board,
    point: Point,
    color: Color,
    target: Point,
    scratch: &mut LadderScratch,
) -> bool {
    if !board.is_legal_simple(point, color) {
        return false;
    }
    let Some((after, rest)) = scratch.boards(board.size()).split_first_mut() else {
        return false;
    };
    after.clone_from(board);
    after.play_unchecked(point, color);
    if after.liberties(point) < 2 || after.liberties(target) != 1 {
        return false;
    }
    let mut budget = LADDER_BUDGET;
    ladder_defence_fails(after, target, rest, &mut budget)
}

/// The chain through `stone` has one liberty and its owner is to move:
/// whether every escape (extending, or capturing an attacker in atari) still
/// leads to capture. `boards` are free boards for the plies below; a read
/// that runs out of them or of budget counts as an escape.
///
/// The read plays its last move on `board` itself rather than on a copy, so
/// the caller must not need `board` afterwards: most plies of a ladder have
/// one move worth reading, and copying the board would be much of its cost.
fn ladder_defence_fails(
    board: &mut Board,
    stone: Point,
    boards: &mut [Board],
    budget: &mut u32,
) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let Some(color) = board.stone(stone) else {
        return true;
    };
    let Some(liberty) = atari_liberty(board, stone) else {
        return false;
    };
    let mut escapes = PointSet::<8>::new(liberty);
    escapes.insert(liberty);
    for s in board.chain(stone) {
        for n in board.neighbors(s) {
            if board.stone(n) == Some(!color) {
                if let Some(capture) = atari_liberty(board, n) {
                    escapes.insert(capture);
                }
            }
        }
    }
    let Some((after, rest)) = boards.split_first_mut() else {
        return false;
    };
    // The escapes are tried in order: one that extends to three liberties
    // saves the chain and ends the read, an illegal one is skipped, the
    // others are played out. Which is which is seen on `board` before any
    // is played, so that the last one played out can use `board` itself.
    let escapes = escapes.as_slice();
    let saving = escapes
        .iter()
        .position(|&e| extension_liberties(board, e, color).is_some_and(|libs| libs >= 3))
        .unwrap_or(escapes.len());
    let mut tried = PointSet::<8>::new(liberty);
    for &escape in &escapes[..saving] {
        if board.is_legal_simple(escape, color) {
            tried.insert(escape);
        }
    }
    let Some((&last, others)) = tried.as_slice().split_last() else {
        return saving == escapes.len();
    };
    for &escape in others {
        after.clone_from(board);
        after.play_unchecked(escape, color);
        if !escape_fails(after, stone, rest, budget) {
            return false;
        }
    }
    board.play_unchecked(last, color);
    escape_fails(board, stone, rest, budget) && saving == escapes.len()
}

/// After the owner of the chain through `stone` played an escape on
/// `board`: whether the chain is still lost (no liberty gained, or two and
/// the attacker wins the ladder from there).
#[inline]
fn escape_fails(board: &mut Board, stone: Point, boards: &mut [Board], budget: &mut u32) -> bool {
    match board.liberties(stone) {
        0 | 1 => true,
        2 => ladder_attack_wins(board, stone, boards, budget),
        _ => false,
    }
}

/// The chain through `stone` has two liberties and the opponent is to move:
/// whether an atari on one of them starts a ladder that captures it. Like
/// [`ladder_defence_fails`], it may play on `board`.
fn ladder_attack_wins(
    board: &mut Board,
    stone: Point,
    boards: &mut [Board],
    budget: &mut u32,
) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let Some(color) = board.stone(stone) else {
        return false;
    };
    let attacker = !color;
    let Some((after, rest)) = boards.split_first_mut() else {
        return false;
    };
    if board.liberties(stone) != 2 {
        return false;
    }
    let liberties = few_liberties(board, stone);
    let liberties = liberties.as_slice();
    // The defender's answer is the other liberty; when it reaches three
    // liberties even with the atari's point taken, the atari is not worth
    // playing out (an atari that captures only adds liberties). Seen
    // before either is played, so that the last one read can use `board`.
    let worth = |i: usize| {
        let (atari, answer) = (liberties[i], liberties[1 - i]);
        extension_liberties_without(board, answer, color, atari).is_none_or(|l| l < 3)
            && board.is_legal_simple(atari, attacker)
    };
    let worth = [worth(0), worth(1)];
    let mut read = |board: &mut Board, atari: Point, budget: &mut u32| {
        board.play_unchecked(atari, attacker);
        board.liberties(stone) == 1 && ladder_defence_fails(board, stone, rest, budget)
    };
    match worth {
        [true, true] => {
            after.clone_from(board);
            read(after, liberties[0], budget) || read(board, liberties[1], budget)
        }
        [true, false] => read(board, liberties[0], budget),
        [false, true] => read(board, liberties[1], budget),
        [false, false] => false,
    }
}

/// The vital point of an enclosed eye space, if it has one: a region of 3 to
/// 6 empty points reached from `start`, bounded only by stones of one colour
/// (and the board's edge), whose shape dies when the opponent plays the
/// vital point first and lives when the owner does. Those shapes are the
/// straight and bent three (the middle), the pyramid four (its centre), the
/// crossed and bulky five, and the rabbity six (the point touching four
/// others, or the square's point touching three).
///
/// Other shapes of these sizes have no single vital point: the straight and
/// bent four live, the square four is dead, and so on.
pub fn nakade_point(board: &Board, start: Point) -> Option<Point> {
    let mut region = PointSet::new(start);
    if !eye_space(board, start, None, &mut region) {
        return None;
    }
    vital_point(board, region.as_slice())
}

/// Fills `region` with the empty region through `start` and says whether it
/// is an eye space that may need a vital point: 3 to 6 points, bounded by
/// stones of one colour
/// (`owner`'s, when given) and the edge. A region that is not stops the
/// walk early, at 7 points or at the first stone of a second colour; every
/// point in `region` then still belongs to the same empty region.
pub fn eye_space(
    board: &Board,
    start: Point,
    mut owner: Option<Color>,
    region: &mut PointSet<7>,
) -> bool {
    *region = PointSet::new(start);
    if !board.is_empty_at(start) {
        return false;
    }
    region.insert(start);
    if !may_be_eye_space(board, start, owner) {
        return false;
    }
    let mut next = 0;
    while next < region.len() {
        let point = region.as_slice()[next];
        next += 1;
        for n in board.neighbors(point) {
            if board.is_empty_at(n) {
                if !region.insert(n) || region.len() > 6 {
                    return false;
                }
            } else if let Some(color) = board.stone(n) {
                if *owner.get_or_insert(color) != color {
                    return false;
                }
            }
        }
    }
    owner.is_some() && region.len() >= 3
}

/// A test of `start`'s eight neighbours that rejects single eyes and most
/// points of open areas before any walk: the empty orthogonal neighbours,
/// and the empty diagonal ones next to one of those, all lie in `start`'s
/// region, so seven of them make it too large; and an orthogonal stone not
/// `owner`'s makes it no eye space of `owner`'s.
#[inline]
fn may_be_eye_space(board: &Board, start: Point, owner: Option<Color>) -> bool {
    let code = board.neighborhood(start);
    let cell = |i: usize| (code >> (2 * i)) & 3;
    if let Some(owner) = owner {
        let opponent = match owner {
            Color::Black => 2,
            Color::White => 1,
        };
        if (0..4).any(|i| cell(i) == opponent) {
            return false;
        }
    }
    let empty = |i: usize| cell(i) == 0;
    let orthogonal = (0..4).filter(|&i| empty(i)).count();
    // A lone empty point is a space of one: an eye, not an eye space.
    if orthogonal == 0 {
        return false;
    }
    // Each diagonal with the two orthogonal neighbours it touches, in the
    // order of `Board::neighborhood`.
    let diagonal = [(4, 0, 1), (5, 0, 2), (6, 3, 1), (7, 3, 2)]
        .into_iter()
        .filter(|&(d, a, b)| empty(d) && (empty(a) || empty(b)))
        .count();
    1 + orthogonal + diagonal <= 6
}

/// Whether `color` playing at empty `point` makes a chain of three to six
/// stones that, once captured, leaves the capturer an eye space of a dead
/// shape: straight or bent three, pyramid or square four, bulky or crossed
/// five, rabbity six. Meant for moves that are a self-atari (the chain then
/// has one liberty, so its points are the whole space): such a sacrifice
/// kills by nakade, and a playout that refuses every large self-atari
/// never finds it.
pub fn is_nakade_sacrifice(board: &Board, point: Point, color: Color) -> bool {
    let mut stones = PointSet::<6>::new(point);
    stones.insert(point);
    for n in board.neighbors(point) {
        if board.stone(n) == Some(color) {
            for stone in board.chain(n) {
                if !stones.insert(stone) {
                    return false;
                }
            }
        }
    }
    let points = stones.as_slice();
    points.len() >= 3
        && (vital_point(board, points).is_some()
            || (points.len() == 4 && has_square(board, points)))
}

/// The vital point of the eye space `points` (see [`nakade_point`]), if its
/// shape has one.
pub fn vital_point(board: &Board, points: &[Point]) -> Option<Point> {
    // Spaces of one or two points, the most common, need no shape.
    if !(3..=6).contains(&points.len()) {
        return None;
    }
    let degree = |p: Point| {
        board
            .neighbors(p)
            .into_iter()
            .filter(|n| points.contains(n))
            .count()
    };
    let most = points.iter().copied().max_by_key(|&p| degree(p))?;
    let top = degree(most);
    let unique = points.iter().filter(|&&p| degree(p) == top).count() == 1;
    let square = has_square(board, points);
    let vital = match (points.len(), top) {
        (3, 2) => true,
        (4, 3) => true,
        (5, 4) => true,
        (5, 3) => unique && square,
        (6, 4) => square,
        _ => false,
    };
    vital.then_some(most)
}

/// Whether `points` hold a 2×2 block.
fn has_square(board: &Board, points: &[Point]) -> bool {
    let inside = |p: &Point| points.contains(p);
    points.iter().any(|&a| {
        let ns = board.neighbors(a);
        // Two neighbours of `a` at a right angle, and a fourth point next to
        // both of them.
        ns.iter().enumerate().any(|(i, b)| {
            ns[i + 1..].iter().any(|c| {
                inside(b)
                    && inside(c)
                    && points.iter().any(|&d| {
                        d != a && board.neighbors(d).contains(b) && board.neighbors(d).contains(c)
                    })
            })
        })
    })
}

#[cfg(test)]
mod tests;
