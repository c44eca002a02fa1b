//! The parts of a searching bot's lifecycle, which [`crate::bot::SearchBot`]
//! puts together: the clock and each move's thinking time ([`Clock`]), the
//! tree kept between moves ([`KeptTree`]), the cadence of analysis reports
//! ([`ReportCadence`]), resignation ([`ResignRule`], [`Resignation`]) and
//! the rule for answering a pass ([`answers_pass`]).

use std::time::Duration;

use tengen_core::scoring::{game_status, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED};
use tengen_core::{BoardSize, ByColor, Color, Game, Move, Rules, TimeLeft, TimeSettings};

use crate::bot::ThinkTimes;
use crate::time;

/// The game's clock as the controller set it, and each move's thinking time
/// under it.
#[derive(Clone, Copy, Debug, Default)]
pub struct Clock {
    settings: TimeSettings,
    left: ByColor<Option<TimeLeft>>,
}

impl Clock {
    /// New time settings; the times left are forgotten until reported.
    pub fn set_settings(&mut self, settings: TimeSettings) {
        self.settings = settings;
        self.left = ByColor::default();
    }

    /// The time `color` has left, as reported before a move.
    pub fn set_left(&mut self, color: Color, left: TimeLeft) {
        self.left[color] = Some(left);
    }

    /// The target and maximum thinking times for the side to move in `game`
    /// under the bot's own `fixed` time and the clock
    /// ([`time::think_times`]).
    pub fn think_times(&self, fixed: Option<Duration>, game: &Game) -> ThinkTimes {
        time::think_times(
            fixed,
            self.settings,
            self.left[game.to_move()],
            time::Stage::of(game),
        )
    }
}

/// A search tree that can be cut down to the subtree after some moves.
pub trait Reroot: Sized {
    /// The subtree reached from the root by `moves`, as a tree of its own;
    /// `None` if the tree does not hold that position.
    fn reroot(&self, moves: &[Move]) -> Option<Self>;
}

/// What identifies a game's start: a kept tree is reused only for a game
/// that starts the same way.
#[derive(Clone, Copy, Debug, PartialEq)]
struct SetupKey {
    size: BoardSize,
    /// The rules, komi included.
    rules: Rules,
    /// The hash of the initial stones (handicap, setup).
    initial_hash: u64,
    first_to_move: Color,
}

impl SetupKey {
    fn of(game: &Game) -> SetupKey {
        SetupKey {
            size: game.size(),
            rules: *game.rules(),
            initial_hash: game.initial_board().hash(),
            first_to_move: game
                .history()
                .next()
                .map_or(game.to_move(), |(color, _)| color),
        }
    }
}

/// The tree kept from the last search, with the game it was grown for.
#[derive(Debug)]
struct Kept<T> {
    tree: T,
    setup: SetupKey,
    /// The moves from the setup to the tree's root.
    history: Vec<(Color, Move)>,
    /// The side to move at the tree's root.
    to_move: Color,
}

/// The tree kept between moves (when reuse is on): handed back re-rooted at
/// the position of the next search when the game continues the one it was
/// grown for with alternating moves.
#[derive(Debug)]
pub struct KeptTree<T> {
    reuse: bool,
    kept: Option<Kept<T>>,
}

impl<T: Reroot> KeptTree<T> {
    /// Keeps trees between moves when `reuse` is true.
    pub fn new(reuse: bool) -> KeptTree<T> {
        KeptTree { reuse, kept: None }
    }

    /// Keeps `tree`, grown for `game`'s position, when reuse is on.
    pub fn keep(&mut self, tree: T, game: &Game) {
        if self.reuse {
            self.kept = Some(Kept {
                tree,
                setup: SetupKey::of(game),
                history: game.moves(),
                to_move: game.to_move(),
            });
        }
    }

    /// The kept tree re-rooted at `game`'s position, if `game` continues the
    /// game it was grown for (the same start, its moves and then
    /// alternating ones up to the side to move now); `None` otherwise. The
    /// kept tree is given up either way.
    pub fn take(&mut self, game: &Game) -> Option<T> {
        let kept = self.kept.take()?;
        if !self.reuse || kept.setup != SetupKey::of(game) {
            return None;
        }
        let history = game.moves();
        if history.len() < kept.history.len() || history[..kept.history.len()] != kept.history[..] {
            return None;
        }
        let extra = &history[kept.history.len()..];
        let mut expected = kept.to_move;
        let alternating = extra.iter().all(|&(color, _)| {
            let ok = color == expected;
            expected = !expected;
            ok
        }) && expected == game.to_move();
        if !alternating {
            return None;
        }
        let moves: Vec<Move> = extra.iter().map(|&(_, mv)| mv).collect();
        kept.tree.reroot(&moves)
    }

    /// The kept tree, if any.
    pub fn tree(&self) -> Option<&T> {
        self.kept.as_ref().map(|kept| &kept.tree)
    }

    /// Forgets the kept tree.
    pub fn clear(&mut self) {
        self.kept = None;
    }

    /// Turns reuse on or off (off forgets the kept tree).
    pub fn set_reuse(&mut self, reuse: bool) {
        self.reuse = reuse;
        if !reuse {
            self.kept = None;
        }
    }
}

/// When the next analysis report of a search is due.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReportCadence {
    next: Duration,
}

impl ReportCadence {
    /// Whether a report is due `elapsed` into the search (the first at
    /// once); if so the next one is scheduled `interval` later.
    pub fn due(&mut self, interval: Duration, elapsed: Duration) -> bool {
        if elapsed < self.next {
            return false;
        }
        self.next = elapsed + interval;
        true
    }
}

/// When a bot gives up, as KataGo resigns: once the win rate has been
/// below the threshold for some searches in a row, each large enough to
/// trust, and never in the first moves of a game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResignRule {
    /// Resign below this win rate (0: never).
    pub threshold: f32,
    /// Searches in a row below it before resigning.
    pub consecutive: u32,
    /// No resignation before this many moves per point of the board
    /// (KataGo's `resignMinMovesPerBoardArea`): a game is not given up on
    /// the strength of its opening.
    pub min_moves_per_point: f32,
}

impl ResignRule {
    /// Never resign.
    pub const NEVER: ResignRule = ResignRule {
        threshold: 0.0,
        consecutive: 1,
        min_moves_per_point: 0.0,
    };
}

/// The streak of searches that judged the game lost, under a
/// [`ResignRule`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Resignation {
    streak: u32,
}

impl Resignation {
    /// Counts a search whose chosen move has `winrate` (`trusted`: the
    /// search was large enough to judge) and says whether `rule` resigns
    /// now, at any move.
    pub fn update(&mut self, rule: &ResignRule, winrate: f32, trusted: bool) -> bool {
        if rule.threshold > 0.0 && trusted && winrate < rule.threshold {
            self.streak += 1;
        } else {
            self.streak = 0;
        }
        rule.threshold > 0.0 && self.streak >= rule.consecutive.max(1)
    }

    /// [`Resignation::update`] for a search of `game`: the streak counts
    /// from the first move, the resignation waits for the rule's minimum
    /// turn.
    pub fn update_in(
        &mut self,
        rule: &ResignRule,
        game: &Game,
        winrate: f32,
        trusted: bool,
    ) -> bool {
        let resign = self.update(rule, winrate, trusted);
        let points = game.size().points_count() as f32;
        resign && game.turn_count() as f32 >= rule.min_moves_per_point * points
    }

    /// Forgets the streak (a new game).
    pub fn reset(&mut self) {
        self.streak = 0;
    }
}

/// `color`'s lead in points by the count as it stands: area or territory
/// under the game's rules, komi included, with the dead stones that
/// [`game_status`] finds taken off (the count behind GTP's `final_score`,
/// the web page's and the match referee's). Negative when `color` is
/// behind. Passing after the opponent's pass ends the game and the game is
/// then counted this way, so this is what a pass wins or loses.
pub fn lead_as_it_stands(game: &Game, color: Color) -> f64 {
    let dead = game_status(game, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED).dead_points();
    let black_lead = game.score_with_dead(&dead).margin();
    match color {
        Color::Black => black_lead,
        Color::White => -black_lead,
    }
}

/// Whether to answer the opponent's pass with a pass without searching:
/// the opponent has just passed (outside cleanup play) and `count_wins`,
/// the bot's count of the board as it stands, says the side to move wins.
/// The count is asked only when the opponent has passed.
pub fn answers_pass(game: &Game, cleanup: bool, count_wins: impl FnOnce() -> bool) -> bool {
    !cleanup && game.consecutive_passes() > 0 && count_wins()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A "tree" that records the moves it was re-rooted along.
    #[derive(Clone, Debug, PartialEq)]
    struct Path(Vec<Move>);

    impl Reroot for Path {
        fn reroot(&self, moves: &[Move]) -> Option<Path> {
            let mut path = self.0.clone();
            path.extend_from_slice(moves);
            Some(path.into())
        }
    }

    impl From<Vec<Move>> for Path {
        fn from(moves: Vec<Move>) -> Path {
            Path(moves)
        }
    }

    fn at(game: &Game, col: usize, row: usize) -> Move {
        Move::Play(game.size().point(col, row).unwrap())
    }

    #[test]
    fn a_kept_tree_follows_the_moves_played_since() {
        let mut game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        let mut kept = KeptTree::new(true);
        kept.keep(Path(vec![]), &game);
        let (a, b) = (at(&game, 2, 2), at(&game, 6, 6));
        game.play(a).unwrap();
        game.play(b).unwrap();
        assert_eq!(kept.take(&game), Some(Path(vec![a, b])));
        // Taken once: the next search starts afresh unless a tree is kept.
        assert_eq!(kept.take(&game), None);
        kept.keep(Path(vec![]), &game);
        let other = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        assert_eq!(kept.take(&other), None, "another game");
        let mut off = KeptTree::new(false);
        off.keep(Path(vec![]), &game);
        assert_eq!(off.take(&game), None, "reuse off");
    }

    #[test]
    fn a_move_out_of_turn_starts_afresh() {
        let mut game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        let mut kept = KeptTree::new(true);
        kept.keep(Path(vec![]), &game);
        game.play_as(Color::White, at(&game, 3, 3)).unwrap();
        assert_eq!(kept.take(&game), None);
    }

    /// A tree grown for Black to move is no tree for White to move in the
    /// same position (GoGui's analysis for the side not to move).
    #[test]
    fn the_other_side_to_move_starts_afresh() {
        let game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        let mut kept = KeptTree::new(true);
        kept.keep(Path(vec![]), &game);
        assert_eq!(kept.take(&game.with_mover(Color::White)), None);
    }

    fn rule_of(threshold: f32, consecutive: u32, min_moves_per_point: f32) -> ResignRule {
        ResignRule {
            threshold,
            consecutive,
            min_moves_per_point,
        }
    }

    #[test]
    fn resignation_needs_a_streak_of_trusted_searches() {
        let rule = rule_of(0.1, 3, 0.0);
        let mut resign = Resignation::default();
        assert!(!resign.update(&rule, 0.05, true));
        assert!(!resign.update(&rule, 0.05, true));
        assert!(
            !resign.update(&rule, 0.05, false),
            "an untrusted search breaks it"
        );
        assert!(!resign.update(&rule, 0.05, true));
        assert!(!resign.update(&rule, 0.05, true));
        assert!(resign.update(&rule, 0.05, true));
        let mut never = Resignation::default();
        assert!(!never.update(&ResignRule::NEVER, 0.0, true));
        let mut at_once = Resignation::default();
        assert!(at_once.update(&rule_of(0.1, 1, 0.0), 0.01, true));
    }

    #[test]
    fn resignation_waits_for_the_minimum_turn() {
        let mut game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        // 0.2 of 81 points: not before move 17 (turn 16.2 rounded up).
        let rule = rule_of(0.1, 2, 0.2);
        let mut resign = Resignation::default();
        for turn in 0..17 {
            assert!(!resign.update_in(&rule, &game, 0.01, true), "turn {turn}");
            let mv = game
                .legal_moves()
                .into_iter()
                .find(|mv| *mv != Move::Pass)
                .unwrap();
            game.play(mv).unwrap();
        }
        assert!(
            resign.update_in(&rule, &game, 0.01, true),
            "the streak counted all along"
        );
    }

    #[test]
    fn the_count_as_it_stands_takes_dead_stones_off() {
        // A lone black stone deep in White's area is dead: counted with it
        // on the board Black would own a point and share none of White's.
        let board = tengen_core::Board::from_ascii(
            ". . . o .
             . x . o .
             . . . o o
             o o o o .
             . . . . .",
        )
        .unwrap();
        let game = Game::from_position(board, Color::Black, Rules::default().with_komi(0.5));
        let lead = lead_as_it_stands(&game, Color::White);
        assert_eq!(lead, 25.5, "every point White's, the dead stone taken off");
        assert_eq!(lead_as_it_stands(&game, Color::Black), -lead);
    }

    #[test]
    fn reports_come_at_the_cadence() {
        let mut seen = Vec::new();
        let mut sink = |a: &tengen_core::Analysis| seen.push(a.playouts);
        let report = tengen_core::Report {
            interval: Duration::from_millis(100),
            sink: &mut sink,
        };
        let mut cadence = ReportCadence::default();
        for (ms, playouts) in [(0, 1), (50, 2), (100, 3), (150, 4), (210, 5)] {
            if cadence.due(report.interval, Duration::from_millis(ms)) {
                (report.sink)(&tengen_core::Analysis {
                    playouts,
                    ..Default::default()
                });
            }
        }
        assert_eq!(seen, vec![1, 3, 5]);
    }
}
