//! Differential test: the incremental [`Board`] and [`Game`] against a slow
//! reference written here from the rules alone.
//!
//! The reference keeps nothing incremental between positions: a grid of
//! `Option<Color>`, chains and liberties found by flood fill in every position,
//! captures by flood fill, its own Zobrist hash recomputed from scratch from
//! `tengen_core::zobrist::STONE_KEYS`, superko from its own list of positions,
//! and simple ko as "a single-stone capture may not recreate the board from
//! before the opponent's last move". Only the key table is shared with the
//! engine (the hash has to be equal, so the keys must be).
//!
//! Random games (seeded, uniform over the legal non-pass moves that do not fill
//! one's own eye, a pass when none is left, capped at 3 × points turns) are
//! played on both side by side, and after every turn everything the engine
//! shows is compared: legal moves, stones, captures, hash, chain liberties and
//! lengths, eyes, the ko point, and `check_consistency`. Afterwards each game is
//! undone to the start and every intermediate board compared with a clone taken
//! on the way forward.

use std::collections::HashSet;

use tengen_core::zobrist::STONE_KEYS;
use tengen_core::{
    Action, Board, BoardSize, Color, Game, KoRule, Move, Point, Removals, Rng, Rules, SuicideRule,
};

const NONE: usize = usize::MAX;

/// Chains of one position, found by flood fill.
struct Chains {
    /// Chain index per grid index, `NONE` for empty points.
    id: Vec<usize>,
    color: Vec<Color>,
    stones: Vec<Vec<usize>>,
    liberties: Vec<usize>,
    /// XOR of the stones' keys.
    hash: Vec<u64>,
}

/// What a move would do, worked out from the chains around it.
struct Effect {
    /// Enemy chains left without liberties.
    captured: Vec<usize>,
    captured_stones: u32,
    /// Whether the mover's own chain would be left without liberties.
    suicide: bool,
    /// The mover's chains next to the point (all removed on suicide).
    friends: Vec<usize>,
    /// Own stones removed by suicide, the new one included.
    lost: u32,
    hash_after: u64,
}

/// The slow reference: a plain grid, row 0 at the bottom, index `row * w + col`.
struct Reference {
    w: usize,
    h: usize,
    rules: Rules,
    /// The engine's point for each grid index (to compare with it, and to look
    /// up Zobrist keys, which the engine indexes by padded-array cell).
    points: Vec<Point>,
    grid: Vec<Option<Color>>,
    captures: [u32; 2],
    to_move: Color,
    passes: u32,
    /// The grid before the last move, when that move was a play (simple ko).
    before_last_play: Option<Vec<Option<Color>>>,
    /// The ko point as the engine defines it (see `play`).
    ko: Option<usize>,
    /// Every position so far: (hash of the stones, side to move), start included.
    history: Vec<(u64, Color)>,
    /// `history` as sets, for fast lookups.
    seen_boards: HashSet<u64>,
    seen_situations: HashSet<(u64, Color)>,
}

impl Reference {
    fn new(size: BoardSize, rules: Rules) -> Reference {
        let (w, h) = (size.width(), size.height());
        let mut points = Vec::with_capacity(w * h);
        for row in 0..h {
            for col in 0..w {
                points.push(size.point(col, row).expect("on the board"));
            }
        }
        let mut reference = Reference {
            w,
            h,
            rules,
            points,
            grid: vec![None; w * h],
            captures: [0, 0],
            to_move: Color::Black,
            passes: 0,
            before_last_play: None,
            ko: None,
            history: Vec::new(),
            seen_boards: HashSet::new(),
            seen_situations: HashSet::new(),
        };
        reference.record();
        reference
    }

    fn record(&mut self) {
        let hash = self.hash();
        self.history.push((hash, self.to_move));
        self.seen_boards.insert(hash);
        self.seen_situations.insert((hash, self.to_move));
    }

    fn key(&self, color: Color, i: usize) -> u64 {
        STONE_KEYS[color.index()][self.points[i].index()]
    }

    /// The Zobrist hash, from scratch.
    fn hash(&self) -> u64 {
        (0..self.grid.len())
            .filter_map(|i| self.grid[i].map(|c| self.key(c, i)))
            .fold(0, |a, b| a ^ b)
    }

    fn neighbors(&self, i: usize) -> impl Iterator<Item = usize> {
        let (w, h) = (self.w, self.h);
        let (col, row) = (i % w, i / w);
        let mut out = [NONE; 4];
        if col > 0 {
            out[0] = i - 1;
        }
        if col + 1 < w {
            out[1] = i + 1;
        }
        if row > 0 {
            out[2] = i - w;
        }
        if row + 1 < h {
            out[3] = i + w;
        }
        out.into_iter().filter(|&n| n != NONE)
    }

    /// Diagonal neighbours on the board, and how many fall off it.
    fn diagonals(&self, i: usize) -> (Vec<usize>, usize) {
        let (col, row) = ((i % self.w) as isize, (i / self.w) as isize);
        let mut on = Vec::new();
        let mut off = 0;
        for (dc, dr) in [(-1, -1), (1, -1), (-1, 1), (1, 1)] {
            let (c, r) = (col + dc, row + dr);
            if c < 0 || r < 0 || c >= self.w as isize || r >= self.h as isize {
                off += 1;
            } else {
                on.push(r as usize * self.w + c as usize);
            }
        }
        (on, off)
    }

    fn chains(&self) -> Chains {
        let n = self.grid.len();
        let mut chains = Chains {
            id: vec![NONE; n],
            color: Vec::new(),
            stones: Vec::new(),
            liberties: Vec::new(),
            hash: Vec::new(),
        };
        let mut liberty_mark = vec![NONE; n];
        for start in 0..n {
            let Some(color) = self.grid[start] else {
                continue;
            };
            if chains.id[start] != NONE {
                continue;
            }
            let id = chains.color.len();
            let mut stones = vec![start];
            chains.id[start] = id;
            let mut k = 0;
            let mut liberties = 0;
            let mut hash = 0;
            while k < stones.len() {
                let s = stones[k];
                k += 1;
                hash ^= self.key(color, s);
                for m in self.neighbors(s) {
                    match self.grid[m] {
                        None if liberty_mark[m] != id => {
                            liberty_mark[m] = id;
                            liberties += 1;
                        }
                        Some(c) if c == color && chains.id[m] == NONE => {
                            chains.id[m] = id;
                            stones.push(m);
                        }
                        _ => {}
                    }
                }
            }
            chains.color.push(color);
            chains.stones.push(stones);
            chains.liberties.push(liberties);
            chains.hash.push(hash);
        }
        chains
    }

    /// What `color` at empty point `i` would do. Only the chains next to `i`
    /// are looked at.
    fn effect(&self, chains: &Chains, hash: u64, i: usize, color: Color) -> Effect {
        let mut captured = Vec::new();
        let mut friends = Vec::new();
        let mut breathes = false;
        for m in self.neighbors(i) {
            let id = chains.id[m];
            if id == NONE {
                breathes = true;
            } else if chains.color[id] == color {
                if !friends.contains(&id) {
                    friends.push(id);
                }
                if chains.liberties[id] > 1 {
                    breathes = true;
                }
            } else if chains.liberties[id] == 1 && !captured.contains(&id) {
                captured.push(id);
            }
        }
        let captured_stones: u32 = captured
            .iter()
            .map(|&c| chains.stones[c].len() as u32)
            .sum();
        let suicide = captured.is_empty() && !breathes;
        let (lost, hash_after) = if suicide {
            let lost = 1 + friends
                .iter()
                .map(|&c| chains.stones[c].len() as u32)
                .sum::<u32>();
            (lost, friends.iter().fold(hash, |h, &c| h ^ chains.hash[c]))
        } else {
            let h = captured
                .iter()
                .fold(hash ^ self.key(color, i), |h, &c| h ^ chains.hash[c]);
            (0, h)
        };
        Effect {
            captured,
            captured_stones,
            suicide,
            friends,
            lost,
            hash_after,
        }
    }

    /// The grid after a move with this effect.
    fn grid_after(
        &self,
        chains: &Chains,
        i: usize,
        color: Color,
        effect: &Effect,
    ) -> Vec<Option<Color>> {
        let mut grid = self.grid.clone();
        for &c in &effect.captured {
            for &s in &chains.stones[c] {
                grid[s] = None;
            }
        }
        grid[i] = Some(color);
        if effect.suicide {
            grid[i] = None;
            for &c in &effect.friends {
                for &s in &chains.stones[c] {
                    grid[s] = None;
                }
            }
        }
        grid
    }

    fn is_legal(&self, chains: &Chains, hash: u64, i: usize, color: Color) -> bool {
        if self.grid[i].is_some() {
            return false;
        }
        let effect = self.effect(chains, hash, i, color);
        if effect.suicide {
            match self.rules.suicide {
                SuicideRule::Forbidden => return false,
                SuicideRule::MultiStoneAllowed if effect.lost < 2 => return false,
                _ => {}
            }
        }
        match self.rules.ko {
            KoRule::Simple => {
                if effect.captured_stones == 1 {
                    if let Some(before) = &self.before_last_play {
                        if *before == self.grid_after(chains, i, color, &effect) {
                            return false;
                        }
                    }
                }
                true
            }
            KoRule::PositionalSuperko => !self.seen_boards.contains(&effect.hash_after),
            KoRule::SituationalSuperko => {
                !self.seen_situations.contains(&(effect.hash_after, !color))
            }
        }
    }

    /// The legal plays for the side to move, as engine points in ascending
    /// order (the order of `Game::legal_moves`).
    fn legal_points(&self, chains: &Chains, hash: u64) -> Vec<usize> {
        let mut legal: Vec<usize> = (0..self.grid.len())
            .filter(|&i| self.is_legal(chains, hash, i, self.to_move))
            .collect();
        legal.sort_by_key(|&i| self.points[i]);
        legal
    }

    fn is_eye(&self, i: usize, color: Color) -> bool {
        if self.grid[i].is_some() {
            return false;
        }
        if self.neighbors(i).any(|m| self.grid[m] != Some(color)) {
            return false;
        }
        let (on, off) = self.diagonals(i);
        let friendly = on.iter().filter(|&&d| self.grid[d] == Some(color)).count();
        if off > 0 {
            friendly == on.len()
        } else {
            friendly >= 3
        }
    }

    /// Every neighbour `color`'s, none of their chains in atari, and not a
    /// false eye: fewer than two enemy diagonals in the middle, none at all
    /// next to the edge.
    fn is_real_eye(&self, chains: &Chains, i: usize, color: Color) -> bool {
        if self.grid[i].is_some() || self.neighbors(i).any(|m| self.grid[m] != Some(color)) {
            return false;
        }
        if self
            .neighbors(i)
            .any(|m| chains.liberties[chains.id[m]] == 1)
        {
            return false;
        }
        let (on, off) = self.diagonals(i);
        let enemies = on.iter().filter(|&&d| self.grid[d] == Some(!color)).count();
        if off > 0 {
            enemies == 0
        } else {
            enemies < 2
        }
    }

    fn play(&mut self, i: usize) {
        let color = self.to_move;
        let chains = self.chains();
        let hash = self.hash();
        assert!(self.is_legal(&chains, hash, i, color), "reference: illegal");
        let effect = self.effect(&chains, hash, i, color);
        let after = self.grid_after(&chains, i, color, &effect);
        let before = std::mem::replace(&mut self.grid, after);
        self.before_last_play = Some(before);
        self.captures[color.index()] += effect.captured_stones;
        self.captures[(!color).index()] += if effect.suicide { effect.lost } else { 0 };
        // The engine's ko point: one stone captured by a lone stone that is left
        // with exactly one liberty.
        self.ko = None;
        if effect.captured_stones == 1 && effect.friends.is_empty() {
            let liberties = self
                .neighbors(i)
                .filter(|&m| self.grid[m].is_none())
                .count();
            if liberties == 1 {
                self.ko = Some(chains.stones[effect.captured[0]][0]);
            }
        }
        self.to_move = !color;
        self.passes = 0;
        self.record();
    }

    fn pass(&mut self) {
        self.before_last_play = None;
        self.ko = None;
        self.to_move = !self.to_move;
        self.passes += 1;
        self.record();
    }
}

/// Compares everything the engine shows about the current position with the
/// reference.
fn check_position(game: &Game, reference: &Reference, chains: &Chains, hash: u64, context: &str) {
    let board = game.board();
    assert_eq!(game.to_move(), reference.to_move, "{context}: side to move");
    if let Err(e) = board.check_consistency() {
        panic!("{context}: inconsistent board: {e}\n{board:?}");
    }
    for (i, &p) in reference.points.iter().enumerate() {
        assert_eq!(
            board.stone(p),
            reference.grid[i],
            "{context}: stone at {}\n{board:?}",
            game.size().gtp(Move::Play(p))
        );
        match chains.id[i] {
            NONE => {
                assert_eq!(
                    board.liberties(p),
                    0,
                    "{context}: liberties of an empty point"
                );
                for color in Color::ALL {
                    assert_eq!(
                        board.is_point_an_eye(p, color),
                        reference.is_eye(i, color),
                        "{context}: eye of {color} at {}\n{board:?}",
                        game.size().gtp(Move::Play(p))
                    );
                    assert_eq!(
                        board.is_real_eye(p, color),
                        reference.is_real_eye(chains, i, color),
                        "{context}: real eye of {color} at {}\n{board:?}",
                        game.size().gtp(Move::Play(p))
                    );
                }
            }
            id => {
                assert_eq!(
                    board.liberties(p),
                    chains.liberties[id],
                    "{context}: liberties at {}\n{board:?}",
                    game.size().gtp(Move::Play(p))
                );
                assert_eq!(
                    board.chain_len(p),
                    chains.stones[id].len(),
                    "{context}: chain length"
                );
                assert!(
                    !board.is_point_an_eye(p, Color::Black)
                        && !board.is_point_an_eye(p, Color::White)
                );
            }
        }
    }
    let captures = board.captures();
    assert_eq!(
        [captures.black, captures.white],
        reference.captures,
        "{context}: captures"
    );
    assert_eq!(
        board.empty_count(),
        reference.grid.iter().filter(|c| c.is_none()).count()
    );
    assert_eq!(board.hash(), hash, "{context}: hash against the reference");
    assert_eq!(
        board.hash(),
        board.hash_from_scratch(),
        "{context}: hash from scratch"
    );
    assert_eq!(
        board.ko_point(),
        reference.ko.map(|i| reference.points[i]),
        "{context}: ko point\n{board:?}"
    );
}

#[derive(Default)]
struct Totals {
    games: usize,
    turns: usize,
    legal_comparisons: usize,
    suicides: usize,
    captures: u64,
    passes_at_end: usize,
}

struct Options {
    /// Compare the full legal-move list every `legal_every` turns (1 = always).
    legal_every: usize,
    /// Chance in percent of playing a suicide when one is legal.
    suicide_percent: usize,
}

fn play_and_check(
    size: BoardSize,
    rules: Rules,
    seed: u64,
    options: &Options,
    totals: &mut Totals,
) {
    let mut game = Game::new(size, rules);
    let mut reference = Reference::new(size, rules);
    let mut rng = Rng::new(seed);
    let cap = 3 * size.points_count();
    // Clones of every board on the way forward, and the legal moves of some.
    let mut boards: Vec<Board> = vec![game.board().clone()];
    let mut legal_lists: Vec<Option<Vec<Move>>> = Vec::new();
    loop {
        let turn = game.turn_count();
        let context = format!("{size} {rules} seed {seed} turn {turn}");
        let chains = reference.chains();
        let hash = reference.hash();
        check_position(&game, &reference, &chains, hash, &context);
        assert_eq!(
            game.is_over(),
            reference.passes >= 2,
            "{context}: game over"
        );
        if game.is_over() || turn >= cap {
            if game.is_over() {
                totals.passes_at_end += 1;
                assert!(game.legal_moves().is_empty());
            }
            break;
        }
        let legal = reference.legal_points(&chains, hash);
        if turn.is_multiple_of(options.legal_every) || legal.is_empty() {
            legal_lists.push(Some(compare_legal_moves(
                &game, &reference, &legal, &context,
            )));
            totals.legal_comparisons += 1;
        } else {
            legal_lists.push(None);
        }
        let color = reference.to_move;
        match choose_point(&reference, &chains, hash, &legal, color, options, &mut rng) {
            Some(i) => play_checked(
                &mut game,
                &mut reference,
                &chains,
                hash,
                i,
                &context,
                totals,
            ),
            None => {
                game.play(Move::Pass).unwrap();
                reference.pass();
            }
        }
        boards.push(game.board().clone());
        totals.turns += 1;
    }
    totals.games += 1;
    undo_to_the_start(&mut game, &boards, &legal_lists, seed);
}

/// The engine's legal moves, checked against the reference's.
fn compare_legal_moves(
    game: &Game,
    reference: &Reference,
    legal: &[usize],
    context: &str,
) -> Vec<Move> {
    let size = game.size();
    let expected: Vec<Move> = legal
        .iter()
        .map(|&i| Move::Play(reference.points[i]))
        .chain([Move::Pass])
        .collect();
    let engine = game.legal_moves();
    if engine != expected {
        let names =
            |moves: &[Move]| -> Vec<String> { moves.iter().map(|&m| size.gtp(m)).collect() };
        panic!(
            "{context}: legal moves differ\nengine:    {:?}\nreference: {:?}\n{:?}",
            names(&engine),
            names(&expected),
            game.board()
        );
    }
    engine
}

/// The reference's cell to play next: a suicide now and then when
/// `options` ask for them, otherwise a random legal point that fills no
/// eye; `None`: pass.
fn choose_point(
    reference: &Reference,
    chains: &Chains,
    hash: u64,
    legal: &[usize],
    color: Color,
    options: &Options,
    rng: &mut Rng,
) -> Option<usize> {
    let suicides: Vec<usize> = if options.suicide_percent > 0 {
        legal
            .iter()
            .copied()
            .filter(|&i| reference.effect(chains, hash, i, color).suicide)
            .collect()
    } else {
        Vec::new()
    };
    if !suicides.is_empty() && rng.below(100) < options.suicide_percent {
        Some(suicides[rng.below(suicides.len())])
    } else {
        let candidates: Vec<usize> = legal
            .iter()
            .copied()
            .filter(|&i| !reference.is_eye(i, color))
            .collect();
        (!candidates.is_empty()).then(|| candidates[rng.below(candidates.len())])
    }
}

/// Plays the reference's cell `i` in both, checking the engine's
/// look-ahead (hash, removals, suicide) against the reference's effect.
fn play_checked(
    game: &mut Game,
    reference: &mut Reference,
    chains: &Chains,
    hash: u64,
    i: usize,
    context: &str,
    totals: &mut Totals,
) {
    let size = game.size();
    let color = reference.to_move;
    let point = reference.points[i];
    let effect = reference.effect(chains, hash, i, color);
    if effect.suicide {
        totals.suicides += 1;
    }
    totals.captures += u64::from(effect.captured_stones);
    assert_eq!(
        game.board().hash_after(point, color),
        effect.hash_after,
        "{context}: hash_after"
    );
    assert_eq!(
        game.board().removals_after(point, color),
        Removals {
            captured: effect.captured_stones as usize,
            lost: effect.lost as usize
        },
        "{context}: removals_after"
    );
    assert_eq!(game.board().is_suicide(point, color), effect.suicide);
    if let Err(e) = game.play(Move::Play(point)) {
        panic!(
            "{context}: engine refused {}: {e}",
            size.gtp(Move::Play(point))
        );
    }
    reference.play(i);
}

/// Back to the start, comparing with the clones on the way.
fn undo_to_the_start(
    game: &mut Game,
    boards: &[Board],
    legal_lists: &[Option<Vec<Move>>],
    seed: u64,
) {
    let size = game.size();
    let moves: Vec<(Color, Action)> = game.history().collect();
    assert_eq!(moves.len() + 1, boards.len());
    for k in (0..moves.len()).rev() {
        let undone = game.undo().expect("a turn to undo");
        assert_eq!(undone, moves[k], "{size} seed {seed}: undo of turn {k}");
        let board = game.board();
        assert!(
            board == &boards[k],
            "{size} seed {seed}: board after undoing turn {k}"
        );
        assert_eq!(board.hash(), boards[k].hash());
        assert_eq!(board.to_string(), boards[k].to_string());
        assert_eq!(game.to_move(), moves[k].0);
        assert_eq!(game.turn_count(), k);
        if k % 5 == 0 {
            board.check_consistency().unwrap();
            if let Some(expected) = &legal_lists[k] {
                assert_eq!(
                    &game.legal_moves(),
                    expected,
                    "{size} seed {seed}: legal moves after undo to turn {k}"
                );
            }
        }
    }
    assert!(game.undo().is_none());
    assert_eq!(game.board(), &Board::new(size));
}

fn size(w: usize, h: usize) -> BoardSize {
    BoardSize::new(w, h).unwrap()
}

/// Default rules (situational superko, suicide forbidden) over several sizes,
/// 10,000 games in all. The legal-move list is compared in full at every turn
/// on every size; on 19×19 and 13×13 that is the bulk of the time, so those
/// sizes get fewer games.
#[test]
fn random_games_match_the_reference_under_default_rules() {
    let start = std::time::Instant::now();
    let plan: [(BoardSize, usize); 5] = [
        (size(5, 5), 5_400),
        (size(7, 11), 1_800),
        (size(9, 9), 2_200),
        (size(13, 13), 400),
        (size(19, 19), 200),
    ];
    let options = Options {
        legal_every: 1,
        suicide_percent: 0,
    };
    let mut grand = Totals::default();
    for (n, &(board_size, games)) in plan.iter().enumerate() {
        let size_start = std::time::Instant::now();
        let mut totals = Totals::default();
        for g in 0..games {
            let seed = 0x5eed_0000 + (n as u64) * 1_000_000 + g as u64;
            play_and_check(board_size, Rules::default(), seed, &options, &mut totals);
        }
        eprintln!(
            "{board_size}: {} games, {} turns, {} legal-move lists compared, {} stones captured, {} ended by two passes, {:.1?}",
            totals.games,
            totals.turns,
            totals.legal_comparisons,
            totals.captures,
            totals.passes_at_end,
            size_start.elapsed()
        );
        grand.games += totals.games;
        grand.turns += totals.turns;
        grand.legal_comparisons += totals.legal_comparisons;
    }
    eprintln!(
        "default rules: {} games, {} turns checked in {:.1?}",
        grand.games,
        grand.turns,
        start.elapsed()
    );
    assert!(grand.games >= 10_000);
}

/// Other rule sets on smaller boards, with suicides played on purpose where
/// the rules allow them: Tromp-Taylor (positional superko, all suicide
/// allowed, so a lone stone's suicide is refused as a repetition), New
/// Zealand (situational superko, multi-stone suicide) and Japanese (simple ko).
#[test]
fn random_games_match_the_reference_under_other_rules() {
    let start = std::time::Instant::now();
    let rule_sets = ["tromp-taylor", "new-zealand", "japanese", "chinese"];
    let sizes = [size(4, 4), size(5, 5), size(6, 4), size(7, 7), size(9, 9)];
    let options = Options {
        legal_every: 1,
        suicide_percent: 30,
    };
    let mut grand = Totals::default();
    for (r, name) in rule_sets.iter().enumerate() {
        let rules = Rules::preset(name).unwrap();
        let mut totals = Totals::default();
        for (s, &board_size) in sizes.iter().enumerate() {
            let games = if board_size.points_count() > 50 {
                60
            } else {
                250
            };
            for g in 0..games {
                let seed = 0xabc0_0000 + (r as u64) * 10_000_000 + (s as u64) * 100_000 + g as u64;
                play_and_check(board_size, rules, seed, &options, &mut totals);
            }
        }
        eprintln!(
            "{name}: {} games, {} turns, {} suicides played, {} stones captured",
            totals.games, totals.turns, totals.suicides, totals.captures
        );
        if rules.suicide != SuicideRule::Forbidden {
            assert!(totals.suicides > 0, "{name}: no suicide was ever played");
        } else {
            assert_eq!(totals.suicides, 0);
        }
        grand.games += totals.games;
        grand.turns += totals.turns;
    }
    eprintln!(
        "other rules: {} games, {} turns checked in {:.1?}",
        grand.games,
        grand.turns,
        start.elapsed()
    );
}
