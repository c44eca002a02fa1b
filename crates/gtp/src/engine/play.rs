//! Moves from the controller: `play` (with NoGo's own refusals), `undo`,
//! the legality questions `is_legal` and `all_legal`/`legal_moves`, and the
//! resumption of a finished game that `play` and `genmove` share.

use std::borrow::Cow;

use tengen_core::{Color, Game, IllegalMove, Move};

use super::args::{no_args, parse_color, parse_vertex};
use super::error::CommandResult;
use super::{CommandError, Engine, NoGoRefusal};

impl Engine {
    /// `play color vertex`: the move if the rules allow it, resuming the game
    /// when it has ended.
    pub(super) fn play(&mut self, args: &[&str]) -> CommandResult {
        if self.nogo() {
            return self.play_nogo(args);
        }
        let [color, vertex] = args else {
            return Err(CommandError::Syntax);
        };
        let color = parse_color(color)?;
        let mv = parse_vertex(self.game.size(), vertex)?
            .ok_or(CommandError::IllegalMove(Some(IllegalMove::OffBoard)))?;
        self.playable_game()
            .legal_as(color, mv)
            .map_err(|reason| CommandError::IllegalMove(Some(reason)))?;
        if self.ended() {
            self.resume();
        }
        self.game
            .play_as(color, mv)
            .map_err(|reason| CommandError::IllegalMove(Some(reason)))?;
        Ok(String::new())
    }

    /// `play` under NoGo: the CMPUT 455 engines' refusals (see the module
    /// documentation).
    fn play_nogo(&mut self, args: &[&str]) -> CommandResult {
        let [color_text, vertex_text] = args else {
            return Err(CommandError::Syntax);
        };
        let refuse = |reason: NoGoRefusal| CommandError::NoGoIllegalMove {
            color: color_text.to_string(),
            vertex: vertex_text.to_string(),
            reason,
        };
        let color = Color::parse(color_text).ok_or_else(|| refuse(NoGoRefusal::WrongColor))?;
        let mv = match self.game.size().parse_gtp(vertex_text) {
            Ok(Move::Play(point)) => Move::Play(point),
            Ok(Move::Pass) | Err(_) => return Err(refuse(NoGoRefusal::WrongCoordinate)),
        };
        self.playable_game()
            .legal_as(color, mv)
            .map_err(|reason| refuse(reason.into()))?;
        if self.ended() {
            self.resume();
        }
        self.game
            .play_as(color, mv)
            .map_err(|reason| refuse(reason.into()))?;
        Ok(String::new())
    }

    /// `undo`: takes back the last move, stepping back over a resumption
    /// into the finished game when the resumed one has no moves yet.
    pub(super) fn undo(&mut self, args: &[&str]) -> CommandResult {
        no_args(args)?;
        if self.game.turn_count() == 0 {
            let Some(previous) = self.resumed_from.pop() else {
                return Err(CommandError::CannotUndo);
            };
            self.game = previous;
        }
        self.game.undo().ok_or(CommandError::CannotUndo)?;
        self.agent.reset();
        Ok(String::new())
    }

    /// `is_legal color vertex`: `1` or `0`, in the game `play` would play in.
    pub(super) fn is_legal(&self, args: &[&str]) -> CommandResult {
        let [color, vertex] = args else {
            return Err(CommandError::Syntax);
        };
        let color = parse_color(color)?;
        let legal = match parse_vertex(self.game.size(), vertex)? {
            None => false,
            Some(mv) => self.playable_game().legal_as(color, mv).is_ok(),
        };
        Ok(if legal { "1" } else { "0" }.to_string())
    }

    /// `all_legal color` (also `legal_moves color`): every legal stone for
    /// `color`, without pass.
    pub(super) fn all_legal(&self, args: &[&str]) -> CommandResult {
        let [color] = args else {
            return Err(CommandError::Syntax);
        };
        let color = parse_color(color)?;
        let game = self.playable_game();
        let size = game.size();
        let moves: Vec<String> = size
            .points()
            .map(Move::Play)
            .filter(|&mv| game.legal_as(color, mv).is_ok())
            .map(|mv| size.gtp(mv))
            .collect();
        Ok(moves.join(" "))
    }

    /// Whether the game has ended in a way that `play` resumes from: two
    /// passes or a resignation. (Under Go that is [`Game::is_over`]; under
    /// NoGo a side to move without a legal move is not such an end: the
    /// position stands, and only the other colour could still play.)
    pub(super) fn ended(&self) -> bool {
        self.game.resigned().is_some() || self.game.consecutive_passes() >= 2
    }

    /// The game in which the next `play` would be made: the current one, or,
    /// when it has ended, the continuation that `play` would resume.
    pub(super) fn playable_game(&self) -> Cow<'_, Game> {
        if self.ended() {
            Cow::Owned(self.continuation())
        } else {
            Cow::Borrowed(&self.game)
        }
    }

    /// The game that play resumes after the end: the resignation taken back,
    /// or after two passes a new game from the position with the same side to
    /// move and the same rules.
    fn continuation(&self) -> Game {
        if self.game.resigned().is_some() {
            let mut game = self.game.clone();
            game.undo();
            if game.resigned().is_none() && game.consecutive_passes() < 2 {
                return game;
            }
        }
        Game::from_position(
            self.game.board().clone(),
            self.game.to_move(),
            *self.game.rules(),
        )
    }

    /// Makes the continuation the current game, keeping the finished game for
    /// `undo` when positions were dropped.
    pub(super) fn resume(&mut self) {
        let next = self.continuation();
        let finished = std::mem::replace(&mut self.game, next);
        if finished.resigned().is_none() {
            self.resumed_from.push(finished);
        }
        tracing::info!("play resumes after the end of the game");
    }
}
