//! Playing handicap games to win, as KataGo's GTP engine does: the side
//! giving the handicap (or komi far from fair) searches with a *playout
//! doubling advantage* (PDA): the network is told that this side searches
//! 2^pda times as much as its opponent, and its opponent −pda, so that it
//! values positions as a stronger player facing a weaker one would, and
//! keeps complications rather than settling for a slowly shrinking loss.
//!
//! The advantage follows the game's initial imbalance ([`initial_black_advantage`]):
//! none below a few points (a normal game), growing with the points given
//! (`cap_per_lead` a point, KataGo's `dynamicPlayoutDoublingAdvantageCapPerOppLead`)
//! up to 2.75; within that cap it is stepped by ⅛ after each move to keep
//! the giver's own win/loss value between −0.9 and −0.5 (KataGo's rule:
//! believe in the win enough to fight, not so much that it gambles).
//! Analyses never use it: what a position is worth stays unbiased.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use tengen_core::{
    Action, Agent, Analysis, BoardSize, Color, Game, HandicapBonus, Scoring, SelectRequest,
    TimeLeft, TimeSettings, Variant,
};

/// The highest advantage the rule sets: beyond it the networks saw little
/// training.
pub const MAX_ADVANTAGE: f32 = 2.75;
/// The step the advantage moves by between moves.
pub const ADVANTAGE_STEP: f32 = 0.125;
/// KataGo's default advantage per point of the opponent's initial lead.
pub const DEFAULT_CAP_PER_LEAD: f32 = 0.045;

/// The playout doubling advantage an evaluator shows its network: whose it
/// is and how much (none: 0), shared between the bot that sets it before a
/// move and the evaluator that reads it for every position.
#[derive(Debug, Default)]
pub struct PlayoutAdvantage(AtomicU64);

impl PlayoutAdvantage {
    /// An advantage of `pda` for `color` from the start.
    pub fn new(advantage: Option<(Color, f32)>) -> PlayoutAdvantage {
        let cell = PlayoutAdvantage::default();
        cell.set(advantage);
        cell
    }

    /// The advantage: whose, how much; `None` when there is none.
    pub fn get(&self) -> Option<(Color, f32)> {
        let bits = self.0.load(Ordering::Acquire);
        if bits == 0 {
            return None;
        }
        let color = if bits >> 32 == 1 {
            Color::Black
        } else {
            Color::White
        };
        Some((color, f32::from_bits(bits as u32)))
    }

    /// Sets it (`None`, or an advantage of 0, for none); returns whether it changed.
    pub fn set(&self, advantage: Option<(Color, f32)>) -> bool {
        let bits = match advantage {
            Some((color, pda)) if pda != 0.0 && pda.is_finite() => {
                let owner: u64 = if color == Color::Black { 1 } else { 2 };
                (owner << 32) | u64::from(pda.to_bits())
            }
            _ => 0,
        };
        self.0.swap(bits, Ordering::AcqRel) != bits
    }

    /// The advantage as the network sees it with `to_move` to play: its
    /// owner's, else the negation.
    pub fn seen_by(&self, to_move: Color) -> f32 {
        match self.get() {
            Some((color, pda)) if color == to_move => pda,
            Some((_, pda)) => -pda,
            None => 0.0,
        }
    }

    /// A value that differs whenever the advantage does (0 for none), for
    /// evaluation caches to tell evaluations under one advantage from
    /// another's.
    pub fn salt(&self) -> u64 {
        self.0.load(Ordering::Acquire)
    }
}

/// Black's advantage in points at the start of `game`, as KataGo's GTP
/// engine reckons it to tell a handicap game: 7 points minus the komi, plus
/// about one move's worth (15 points under area scoring, 14 under
/// territory) for each handicap stone after the first, less White's
/// handicap bonus.
pub fn initial_black_advantage(game: &Game) -> f32 {
    let rules = game.rules();
    let komi = rules.komi as f32;
    let stones = game.handicap_stones();
    if stones <= 1 {
        return 7.0 - komi;
    }
    let stone_value = if rules.scoring == Scoring::Area {
        15.0
    } else {
        14.0
    };
    let bonus = match rules.handicap_bonus {
        HandicapBonus::Zero => 0.0,
        HandicapBonus::N => stones as f32,
        HandicapBonus::NMinusOne => (stones - 1) as f32,
    };
    stone_value * (stones - 1) as f32 + 7.0 - komi - bonus
}

/// How much a point counts on a board of `size` against 19×19: a lead on a
/// small board is worth more.
fn size_scaling(size: BoardSize) -> f32 {
    (361.0 / size.points_count() as f32).powf(0.75)
}

/// The initial advantage, in points, from which a game is played as a
/// handicap game on a board of `size`.
pub fn handicap_threshold(size: BoardSize) -> f32 {
    (4.0 / size_scaling(size)).max(2.0)
}

/// The rule that sets the advantage before each move: KataGo's dynamic
/// playout doubling advantage.
#[derive(Clone, Debug, PartialEq)]
pub struct DynamicAdvantage {
    /// Advantage a point of the opponent's initial lead beyond the
    /// threshold (0: never any).
    pub cap_per_lead: f32,
    /// The advantage last set, from White's side (negative: Black's).
    for_white: f32,
    /// The bot's win/loss values (−1 to 1) after its recent moves, from
    /// White's side.
    recent: Vec<f32>,
}

impl DynamicAdvantage {
    /// The rule with this advantage a point.
    pub fn new(cap_per_lead: f32) -> DynamicAdvantage {
        DynamicAdvantage {
            cap_per_lead,
            for_white: 0.0,
            recent: Vec::new(),
        }
    }

    /// Forgets the game: the next advantage starts from the cap.
    pub fn reset(&mut self) {
        self.for_white = 0.0;
        self.recent.clear();
    }

    /// Keeps the bot's win/loss value after a move (−1 to 1, from White's side).
    pub fn record(&mut self, white_win_loss: f32) {
        self.recent.push(white_win_loss);
    }

    /// The advantage for the coming move of `game`, from White's side
    /// (negative when Black is the one given it).
    pub fn update(&mut self, game: &Game) -> f32 {
        self.for_white = self.next(game);
        self.for_white
    }

    fn next(&self, game: &Game) -> f32 {
        let size = game.size();
        let black_lead = initial_black_advantage(game);
        let lead = black_lead.abs();
        let threshold = handicap_threshold(size);
        if self.cap_per_lead <= 0.0 || lead < threshold || size.width() <= 7 || size.height() <= 7 {
            return 0.0;
        }
        // The side the start disfavours is the one that must play for more.
        let giver = if black_lead >= 0.0 {
            Color::White
        } else {
            Color::Black
        };
        let sign = if giver == Color::White { 1.0 } else { -1.0 };
        let raw = (self.cap_per_lead * (lead - threshold) * size_scaling(size)).min(MAX_ADVANTAGE);
        let cap = (raw / ADVANTAGE_STEP).round() * ADVANTAGE_STEP;
        // A new game, or a position set up without White stones: the cap.
        let has_white = || {
            size.points()
                .any(|p| game.board().stone(p) == Some(Color::White))
        };
        let last = match self.recent.last() {
            Some(&last) if has_white() => last,
            _ => return sign * cap,
        };
        let mut mine = sign * self.for_white;
        let value = sign * last;
        if value < -0.9 {
            mine += ADVANTAGE_STEP;
        } else if value > -0.5 {
            mine -= ADVANTAGE_STEP;
        }
        sign * mine.clamp(0.0, cap)
    }
}

/// A searching bot that plays handicap games to win: before each move it
/// sets the evaluator's advantage by [`DynamicAdvantage`] (or holds a
/// fixed one for itself), and after it keeps the search's value; an
/// analysis runs without any advantage. When the advantage changes, the
/// bot's kept tree is dropped, since its values were of another network
/// input.
pub struct HandicapPlay<A: Agent> {
    inner: A,
    advantage: Arc<PlayoutAdvantage>,
    rule: DynamicAdvantage,
    fixed: Option<f32>,
}

impl<A: Agent> HandicapPlay<A> {
    /// `inner`, whose evaluator reads `advantage`; `fixed` (non-zero) is an
    /// advantage for the bot's own side on every move instead of the rule.
    pub fn new(
        inner: A,
        advantage: Arc<PlayoutAdvantage>,
        cap_per_lead: f32,
        fixed: Option<f32>,
    ) -> Self {
        HandicapPlay {
            inner,
            advantage,
            rule: DynamicAdvantage::new(cap_per_lead),
            fixed: fixed.filter(|pda| *pda != 0.0),
        }
    }

    /// The advantage the evaluator holds now.
    pub fn advantage(&self) -> Option<(Color, f32)> {
        self.advantage.get()
    }

    fn set(&mut self, advantage: Option<(Color, f32)>) {
        if self.advantage.set(advantage) {
            self.inner.reset();
        }
    }

    /// Sets the advantage for the move of the side to move of `game`.
    fn prepare(&mut self, game: &Game) {
        let me = game.to_move();
        let advantage = match self.fixed {
            Some(pda) => Some((me, pda)),
            None => {
                let for_white = self.rule.update(game);
                Some((Color::White, for_white))
            }
        };
        self.set(advantage);
    }

    /// Keeps the value the search found for its move.
    fn after(&mut self, game: &Game) {
        if let Some(analysis) = self.inner.analysis() {
            let mine = 2.0 * analysis.winrate - 1.0;
            let white = if game.to_move() == Color::White {
                mine
            } else {
                -mine
            };
            self.rule.record(white);
        }
    }
}

impl<A: Agent> Agent for HandicapPlay<A> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn select_move(&mut self, game: &Game) -> Action {
        self.select(game, &mut SelectRequest::new())
    }

    fn select(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> Action {
        self.prepare(game);
        let action = self.inner.select(game, request);
        self.after(game);
        action
    }

    fn analyze(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> bool {
        self.set(None);
        self.inner.analyze(game, request)
    }

    fn plays(&self, variant: Variant) -> bool {
        self.inner.plays(variant)
    }

    fn plays_size(&self, size: BoardSize) -> Result<(), String> {
        self.inner.plays_size(size)
    }

    fn reset(&mut self) {
        self.rule.reset();
        self.inner.reset();
    }

    fn set_time_settings(&mut self, settings: TimeSettings) {
        self.inner.set_time_settings(settings);
    }

    fn set_time_left(&mut self, color: Color, left: TimeLeft) {
        self.inner.set_time_left(color, left);
    }

    fn analysis(&self) -> Option<Analysis> {
        self.inner.analysis()
    }

    fn ponder(&mut self, game: &Game, stop: &dyn Fn() -> bool) {
        self.inner.ponder(game, stop);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::{Move, Rules};

    fn game(size: usize, rules: &str, komi: f64, stones: usize) -> Game {
        let mut rules = Rules::preset(rules).unwrap();
        rules.komi = komi;
        Game::with_handicap(BoardSize::square(size).unwrap(), rules, stones).unwrap()
    }

    fn play(game: &mut Game, vertex: &str) {
        let mv = game.size().parse_gtp(vertex).unwrap();
        game.play(mv).unwrap();
    }

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() < 1e-4
    }

    #[test]
    fn the_initial_advantage_counts_komi_stones_and_the_bonus() {
        assert!(close(
            initial_black_advantage(&game(19, "chinese", 7.5, 0)),
            -0.5
        ));
        // Area scoring, a point of bonus a stone: 15 * 3 + 7 - 0.5 - 4.
        assert!(close(
            initial_black_advantage(&game(19, "chinese", 0.5, 4)),
            47.5
        ));
        // Territory scoring, no bonus: 14 * 3 + 7 - 0.5.
        assert!(close(
            initial_black_advantage(&game(19, "japanese", 0.5, 4)),
            48.5
        ));
        // AGA: one point of bonus a stone after the first.
        assert!(close(
            initial_black_advantage(&game(19, "aga", 0.5, 4)),
            48.5
        ));
        // Reverse komi favours White.
        assert!(close(
            initial_black_advantage(&game(19, "chinese", 30.0, 0)),
            -23.0
        ));
    }

    #[test]
    fn the_advantage_starts_at_the_cap_for_the_side_giving_points() {
        let mut rule = DynamicAdvantage::new(DEFAULT_CAP_PER_LEAD);
        // An even game: none.
        assert_eq!(rule.update(&game(19, "chinese", 7.5, 0)), 0.0);
        // Four stones: 0.045 * (47.5 - 4) = 1.96, to the nearest eighth.
        assert_eq!(rule.update(&game(19, "chinese", 0.5, 4)), 2.0);
        // Six stones: capped.
        assert_eq!(rule.update(&game(19, "chinese", 0.5, 6)), MAX_ADVANTAGE);
        // Black gives the points under reverse komi: negative, from White's side.
        // 0.045 * (23 - 4) = 0.855, to 0.875.
        assert_eq!(rule.update(&game(19, "chinese", 30.0, 0)), -0.875);
        // Small boards count a point for more, and 7x7 never.
        assert!(rule.update(&game(9, "chinese", 0.5, 2)) > 0.0);
        assert_eq!(rule.update(&game(7, "chinese", -20.0, 0)), 0.0);
        // Switched off.
        assert_eq!(
            DynamicAdvantage::new(0.0).update(&game(19, "chinese", 0.5, 6)),
            0.0
        );
        assert!(close(
            handicap_threshold(BoardSize::square(19).unwrap()),
            4.0
        ));
        assert!(close(
            handicap_threshold(BoardSize::square(9).unwrap()),
            2.0
        ));
    }

    #[test]
    fn the_advantage_steps_to_keep_the_value_between_bounds() {
        let mut game = game(19, "chinese", 0.5, 4);
        let mut rule = DynamicAdvantage::new(DEFAULT_CAP_PER_LEAD);
        assert_eq!(rule.update(&game), 2.0);
        // No White stone yet: the cap whatever the value.
        rule.record(0.5);
        assert_eq!(rule.update(&game), 2.0);
        play(&mut game, "C3");
        // Winning too comfortably (White's value above -0.5): less.
        rule.record(-0.3);
        assert_eq!(rule.update(&game), 1.875);
        rule.record(-0.2);
        assert_eq!(rule.update(&game), 1.75);
        // In the band: unchanged.
        rule.record(-0.7);
        assert_eq!(rule.update(&game), 1.75);
        // Losing badly: more, up to the cap.
        rule.record(-0.95);
        assert_eq!(rule.update(&game), 1.875);
        rule.record(-0.95);
        assert_eq!(rule.update(&game), 2.0);
        rule.record(-0.95);
        assert_eq!(rule.update(&game), 2.0);
        rule.reset();
        assert_eq!(rule.update(&game), 2.0);
    }

    #[test]
    fn the_shared_advantage_is_its_owners_and_the_opponents_negation() {
        let cell = PlayoutAdvantage::default();
        assert_eq!(cell.get(), None);
        assert_eq!(cell.salt(), 0);
        assert!(cell.set(Some((Color::White, 1.5))));
        assert!(!cell.set(Some((Color::White, 1.5))));
        assert_eq!(cell.get(), Some((Color::White, 1.5)));
        assert_eq!(cell.seen_by(Color::White), 1.5);
        assert_eq!(cell.seen_by(Color::Black), -1.5);
        let salt = cell.salt();
        assert!(cell.set(Some((Color::Black, 1.5))));
        assert_ne!(cell.salt(), salt);
        assert_eq!(cell.seen_by(Color::White), -1.5);
        // An advantage of 0 is none.
        assert!(cell.set(Some((Color::Black, 0.0))));
        assert_eq!(cell.get(), None);
        assert_eq!(cell.seen_by(Color::Black), 0.0);
    }

    /// An agent that passes, reports a fixed win rate and counts resets.
    struct Stub {
        resets: usize,
        winrate: f32,
    }

    impl Agent for Stub {
        fn name(&self) -> &str {
            "stub"
        }
        fn select_move(&mut self, _game: &Game) -> Action {
            Action::Move(Move::Pass)
        }
        fn analyze(&mut self, _game: &Game, _request: &mut SelectRequest<'_>) -> bool {
            true
        }
        fn reset(&mut self) {
            self.resets += 1;
        }
        fn analysis(&self) -> Option<Analysis> {
            Some(Analysis {
                winrate: self.winrate,
                ..Analysis::default()
            })
        }
    }

    #[test]
    fn the_bot_sets_the_advantage_for_its_moves_and_clears_it_to_analyse() {
        let cell = Arc::new(PlayoutAdvantage::default());
        let stub = Stub {
            resets: 0,
            winrate: 0.9,
        };
        let mut bot = HandicapPlay::new(stub, Arc::clone(&cell), DEFAULT_CAP_PER_LEAD, Some(0.0));
        let mut handicap = game(19, "chinese", 0.5, 4);
        play(&mut handicap, "C17");
        play(&mut handicap, "K10");
        assert_eq!(handicap.to_move(), Color::White);
        bot.select_move(&handicap);
        assert_eq!(cell.get(), Some((Color::White, 2.0)));
        assert_eq!(
            bot.inner.resets, 1,
            "the kept tree dropped as the advantage changed"
        );
        // White's value 0.8 after the move: comfortably ahead, so one step less.
        let mut later = handicap.clone();
        play(&mut later, "R3");
        play(&mut later, "R17");
        bot.select_move(&later);
        assert_eq!(cell.get(), Some((Color::White, 1.875)));
        // An analysis is unbiased.
        assert!(bot.analyze(&later, &mut SelectRequest::new()));
        assert_eq!(cell.get(), None);
        // An even game: nothing set.
        bot.reset();
        bot.select_move(&game(19, "chinese", 7.5, 0));
        assert_eq!(cell.get(), None);
        // A fixed advantage is the bot's own side's.
        let mut fixed = HandicapPlay::new(
            Stub {
                resets: 0,
                winrate: 0.5,
            },
            Arc::clone(&cell),
            DEFAULT_CAP_PER_LEAD,
            Some(1.0),
        );
        fixed.select_move(&game(19, "chinese", 7.5, 0));
        assert_eq!(cell.get(), Some((Color::Black, 1.0)));
    }
}
