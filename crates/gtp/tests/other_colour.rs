//! `genmove` for the colour not to move: what the bot is shown.
//!
//! A bot that passes once its opponent has passed (as the MCTS bot does when
//! the board already wins) must not be shown a pass nobody made. The spy bot
//! here records the game it is asked about and plays the first point it may.

use std::sync::{Arc, Mutex};

use tengen_core::{Action, Agent, BoardSize, Color, Game, Move, Rules};
use tengen_gtp::engine::Engine;

/// What the bot saw: side to move, passes in a row, turns in the history.
type Seen = (Color, u8, usize);

struct Spy {
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Agent for Spy {
    fn name(&self) -> &str {
        "spy"
    }

    fn select_move(&mut self, game: &Game) -> Action {
        self.seen.lock().unwrap().push((
            game.to_move(),
            game.consecutive_passes(),
            game.history().count(),
        ));
        let first = game
            .size()
            .points()
            .map(Move::Play)
            .find(|&mv| game.legal(mv).is_ok())
            .unwrap_or(Move::Pass);
        Action::Move(first)
    }
}

#[test]
fn the_bot_sees_the_game_with_no_pass_added() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let spy = Spy { seen: seen.clone() };
    let mut engine = Engine::new(
        Box::new(spy),
        BoardSize::square(9).unwrap(),
        Rules::default(),
    );
    let mut say = |line: &str| engine.handle_line(line).unwrap_or_default();
    assert_eq!(say("play b e5"), "= \n\n");
    assert_eq!(say("play w pass"), "= \n\n");
    // Black is to move and asked: White's real pass is there to see.
    assert_eq!(say("genmove b"), "= A1\n\n");
    assert_eq!(say("play w pass"), "= \n\n");
    // Black is to move, but White, which just passed, is asked again: it
    // sees the whole game and no pass to answer.
    assert_eq!(say("genmove w"), "= B1\n\n");
    // Black is to move; White, which just played, is asked again.
    assert_eq!(say("genmove w"), "= C1\n\n");
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            (Color::Black, 1, 2),
            (Color::White, 0, 4),
            (Color::White, 0, 5),
        ]
    );
}
