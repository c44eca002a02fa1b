//! The book's termination strategies for any bot: `PassWhenOpponentPasses`
//! and `ResignLargeMargin`, as one wrapper ([`Terminating`]) that the
//! registry puts around every bot given `pass=opponent` or `resign-margin=MARGIN`.
//!
//! Passing reads the count of the board as it stands, with the dead stones
//! that [`game_status`] finds (the estimate GTP's `final_score`, the web
//! page and the match referee use), scored under the game's rules with
//! komi: passing after the opponent's pass ends the game, and the game is
//! then counted that way, so the bot passes exactly when that count gives
//! it the win. Resigning reads the expected lead of the same playouts
//! ([`expected_lead`]), which also means something while the board is
//! still open.

use tengen_core::scoring::{expected_lead, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED};
use tengen_core::{
    Action, Agent, Analysis, BoardSize, Color, Game, Move, SelectRequest, TimeLeft, TimeSettings,
    Variant,
};

/// When a bot stops playing on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Termination {
    /// Pass when the opponent has just passed and the count as it stands
    /// wins (the book's `PassWhenOpponentPasses`, made safe: the book's
    /// strategy passes even when passing loses).
    pub pass_after_opponent: bool,
    /// Resign when the expected lead ([`expected_lead`]) puts the bot
    /// behind by more than this many points (the book's
    /// `ResignLargeMargin`). `None` never resigns.
    pub resign_margin: Option<f64>,
    /// Turns of the game before resigning is considered (the book's
    /// `cut_off_move`).
    pub resign_after: usize,
}

/// No termination: the bot decides alone.
impl Default for Termination {
    fn default() -> Self {
        Termination::NONE
    }
}

impl Termination {
    /// No termination: the bot decides alone.
    pub const NONE: Termination = Termination {
        pass_after_opponent: false,
        resign_margin: None,
        resign_after: 0,
    };

    /// Whether either strategy is switched on.
    pub fn is_active(&self) -> bool {
        self.pass_after_opponent || self.resign_margin.is_some()
    }

    /// What the strategies decide for the side to move of `game`, or
    /// `None` when the bot should choose. NoGo has no passes and no count,
    /// so there they never decide.
    pub fn decide(&self, game: &Game) -> Option<Action> {
        if game.rules().is_nogo() || game.is_over() {
            return None;
        }
        let opponent_passed = matches!(game.last_move(), Some((_, Move::Pass)));
        let wants_pass = self.pass_after_opponent && opponent_passed;
        let wants_resign_check =
            self.resign_margin.is_some() && game.turn_count() >= self.resign_after;
        if !wants_pass && !wants_resign_check {
            return None;
        }
        if wants_pass && lead_as_it_stands(game, game.to_move()) > 0.0 {
            return Some(Action::Move(Move::Pass));
        }
        match self.resign_margin {
            Some(margin) if wants_resign_check && expected_lead_of(game) < -margin => {
                Some(Action::Resign)
            }
            _ => None,
        }
    }
}

/// The side to move's expected lead ([`expected_lead`]).
fn expected_lead_of(game: &Game) -> f64 {
    let black_lead = expected_lead(game, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED)
        .expect("Go positions have a count");
    match game.to_move() {
        Color::Black => black_lead,
        Color::White => -black_lead,
    }
}

pub use tengen_search::shell::lead_as_it_stands;

/// A bot with [`Termination`] strategies: each move, the strategies are
/// asked first, and the bot only when they do not decide. Everything else
/// (analysis, clocks, cleanup moves) is the bot's own.
pub struct Terminating {
    bot: Box<dyn Agent + Send>,
    termination: Termination,
}

impl Terminating {
    /// `bot` with `termination`.
    pub fn new(bot: Box<dyn Agent + Send>, termination: Termination) -> Terminating {
        Terminating { bot, termination }
    }

    /// `bot` with `termination`, or `bot` itself when no strategy is on.
    pub fn wrap(bot: Box<dyn Agent + Send>, termination: Termination) -> Box<dyn Agent + Send> {
        if termination.is_active() {
            Box::new(Terminating::new(bot, termination))
        } else {
            bot
        }
    }

    /// The strategies.
    pub fn termination(&self) -> Termination {
        self.termination
    }
}

impl Agent for Terminating {
    fn name(&self) -> &str {
        self.bot.name()
    }

    fn select_move(&mut self, game: &Game) -> Action {
        match self.termination.decide(game) {
            Some(action) => action,
            None => self.bot.select_move(game),
        }
    }

    fn select(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> Action {
        // Cleanup play captures dead stones before the count: passing
        // early is what it exists to prevent, so the bot decides alone.
        if request.cleanup {
            return self.bot.select(game, request);
        }
        match self.termination.decide(game) {
            Some(action) => action,
            None => self.bot.select(game, request),
        }
    }

    fn analyze(&mut self, game: &Game, request: &mut SelectRequest<'_>) -> bool {
        self.bot.analyze(game, request)
    }

    fn plays(&self, variant: Variant) -> bool {
        self.bot.plays(variant)
    }

    fn plays_size(&self, size: BoardSize) -> Result<(), String> {
        self.bot.plays_size(size)
    }

    fn reset(&mut self) {
        self.bot.reset()
    }

    fn set_time_settings(&mut self, settings: TimeSettings) {
        self.bot.set_time_settings(settings)
    }

    fn set_time_left(&mut self, color: Color, left: TimeLeft) {
        self.bot.set_time_left(color, left)
    }

    fn analysis(&self) -> Option<Analysis> {
        self.bot.analysis()
    }

    fn ponder(&mut self, game: &Game, stop: &dyn Fn() -> bool) {
        self.bot.ponder(game, stop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::scoring::game_status;
    use tengen_core::{Board, RandomBot, Rules};

    fn position(diagram: &str, to_move: Color) -> Game {
        Game::from_position(
            Board::from_ascii(diagram).unwrap(),
            to_move,
            Rules::default(),
        )
    }

    /// White has the whole 5×5 but a corner; Black's lone stone is dead.
    const WHITE_AHEAD: &str = "o o o o o\n\
                               o o o o o\n\
                               o o . o o\n\
                               . . . . .\n\
                               x . . . .";

    #[test]
    fn the_count_takes_off_dead_stones_and_adds_komi() {
        // A two-eyed white wall, and a black stone inside White's area.
        let game = position(
            ". o . o .\n\
             o o o o o\n\
             . . . . .\n\
             . . x . .\n\
             . . . . .",
            Color::Black,
        );
        let lead = lead_as_it_stands(&game, Color::White);
        let dead = game_status(&game, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED);
        let expected = -game.score_with_dead(&dead.dead_points()).margin();
        assert_eq!(lead, expected);
        assert_eq!(lead_as_it_stands(&game, Color::Black), -lead);
    }

    #[test]
    fn passes_after_the_opponent_only_when_the_count_wins() {
        let passer = Termination {
            pass_after_opponent: true,
            ..Termination::NONE
        };
        // White, far ahead, passes back.
        let mut game = position(WHITE_AHEAD, Color::Black);
        assert_eq!(passer.decide(&game), None, "nobody has passed");
        game.play(Move::Pass).unwrap();
        assert_eq!(passer.decide(&game), Some(Action::Move(Move::Pass)));
        // Black, far behind, plays on after White's pass.
        let mut game = position(WHITE_AHEAD, Color::White);
        game.play(Move::Pass).unwrap();
        assert_eq!(passer.decide(&game), None, "passing would lose");
        // Never under NoGo, which has no passes.
        let nogo = Game::new(BoardSize::square(5).unwrap(), "nogo".parse().unwrap());
        assert_eq!(passer.decide(&nogo), None);
    }

    #[test]
    fn resigns_only_beyond_the_margin_and_after_the_cut_off() {
        let game = position(WHITE_AHEAD, Color::Black);
        let behind = -expected_lead_of(&game);
        assert!(behind > 10.0, "{behind}");
        let resigner = |margin: f64, after: usize| Termination {
            resign_margin: Some(margin),
            resign_after: after,
            ..Termination::NONE
        };
        assert_eq!(resigner(10.0, 0).decide(&game), Some(Action::Resign));
        assert_eq!(resigner(behind + 1.0, 0).decide(&game), None);
        assert_eq!(resigner(10.0, 50).decide(&game), None);
        // White, far ahead, never resigns.
        let white = position(WHITE_AHEAD, Color::White);
        assert_eq!(resigner(0.0, 0).decide(&white), None);
        // An open board is no reason to resign: two stones each on 9×9
        // is about komi, whatever the playouts say of a lone stone.
        let mut open = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        for vertex in ["C3", "G7", "A9", "J1"] {
            open.play(open.size().parse_gtp(vertex).unwrap()).unwrap();
        }
        let lead = expected_lead_of(&open);
        assert!(lead.abs() < 20.0, "{lead}");
        assert_eq!(resigner(30.0, 0).decide(&open), None);
    }

    #[test]
    fn the_wrapper_asks_the_bot_when_the_strategies_do_not_decide() {
        let termination = Termination {
            pass_after_opponent: true,
            resign_margin: Some(100.0),
            resign_after: 0,
        };
        let mut bot = Terminating::new(Box::new(RandomBot::new(3)), termination);
        assert_eq!(bot.name(), "random");
        let game = Game::new(BoardSize::square(9).unwrap(), Rules::default());
        assert!(matches!(
            bot.select_move(&game),
            Action::Move(Move::Play(_))
        ));
        assert_eq!(bot.termination(), termination);
    }
}
