//! One game in replayable form, and the winner an SGF result names.
//!
//! A [`GameRecord`] keeps a game as board size, komi, setup stones, the side
//! to move first, the moves and the winner: a few hundred bytes where encoded
//! positions would take megabytes. Training replays it with
//! [`GameRecord::for_each_position`] and encodes each position as it goes.

use tengen_core::{Action, Board, BoardSize, Color, Game, IllegalMove, Move, Rules};

/// One game, replayable: board size, komi, setup stones, moves, winner.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// The board size.
    pub size: BoardSize,
    /// Points given to White.
    pub komi: f32,
    /// Setup stones (handicap / AB / AW) as (colour, point index
    /// `row * width + col` with `(col, row)` from [`BoardSize::col_row`]).
    pub setup: Vec<(Color, u16)>,
    /// The side to move first after the setup.
    pub first: Color,
    /// The moves of the main line in order: `Some(point index)` or `None` for
    /// a pass. Colours alternate from `first` (a record whose colours do not
    /// alternate, such as two Black moves in a row, is skipped by [`prepare`](fn@super::prepare)
    /// with reason "non-alternating").
    pub moves: Vec<Option<u16>>,
    /// The winner from the record's `RE[]` (`None` for a draw, void or
    /// unknown result).
    pub winner: Option<Color>,
}

/// Why a [`GameRecord`] does not replay.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    /// A setup stone is off the board, on another stone, or leaves a chain
    /// without liberties.
    #[error("setup stone {index}: {reason}")]
    Setup {
        /// The setup entry, from 0.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A move's point is not on the board.
    #[error("move {turn}: point {point} is off a {width}x{height} board")]
    OffBoard {
        /// The turn, from 0.
        turn: usize,
        /// The point index.
        point: u16,
        /// Board width.
        width: usize,
        /// Board height.
        height: usize,
    },
    /// The rules refuse a move.
    #[error("move {turn}: {reason}")]
    Illegal {
        /// The turn, from 0.
        turn: usize,
        /// Why the rules refuse it.
        reason: IllegalMove,
    },
}

impl GameRecord {
    /// The core point of a point index, if it is on this record's board.
    fn point(&self, index: u16) -> Option<tengen_core::Point> {
        let width = self.size.width();
        let index = usize::from(index);
        self.size.point(index % width, index / width)
    }

    /// The point index of a core point of `size` (see [`GameRecord::setup`]).
    pub fn index_of(size: BoardSize, point: tengen_core::Point) -> u16 {
        let (col, row) = size.col_row(point);
        (row * size.width() + col) as u16
    }

    /// The rules positions are replayed under: [`Rules::default`]
    /// (situational superko, suicide forbidden, area scoring) with this
    /// record's komi.
    pub fn rules(&self) -> Rules {
        Rules::default().with_komi(f64::from(self.komi))
    }

    /// The game at its start, setup stones placed and checked.
    fn checked_start(&self) -> Result<Game, ReplayError> {
        let mut board = Board::new(self.size);
        for (index, &(color, point)) in self.setup.iter().enumerate() {
            let bad = |reason: String| ReplayError::Setup { index, reason };
            let point = self
                .point(point)
                .ok_or_else(|| bad(format!("point {point} is off the board")))?;
            board
                .place_setup_stone(point, color)
                .map_err(|e| bad(e.to_string()))?;
        }
        let handicap = self.setup.len() >= 2
            && self.first == Color::White
            && self.setup.iter().all(|&(color, _)| color == Color::Black);
        if handicap {
            let points: Vec<_> = self
                .size
                .points()
                .filter(|&p| board.stone(p).is_some())
                .collect();
            if let Ok(game) = Game::with_free_handicap(self.size, self.rules(), &points) {
                return Ok(game);
            }
        }
        Ok(Game::from_position(board, self.first, self.rules()))
    }

    /// The game at its start (setup stones placed, `first` to move), under
    /// [`GameRecord::rules`]. Black setup stones with White to move are a
    /// handicap, as the SGF reader makes them. A setup stone that cannot be
    /// placed (never the case for records made by [`prepare`](fn@super::prepare)) is left out.
    pub fn start(&self) -> Game {
        self.checked_start().unwrap_or_else(|error| {
            tracing::warn!(%error, "a setup stone of a game record cannot be placed");
            let mut board = Board::new(self.size);
            for &(color, point) in &self.setup {
                if let Some(point) = self.point(point) {
                    let _ = board.place_setup_stone(point, color);
                }
            }
            Game::from_position(board, self.first, self.rules())
        })
    }

    /// The colour that plays turn `n`: `first` on even turns, the other on
    /// odd ones.
    pub fn color_at(&self, n: usize) -> Color {
        if n.is_multiple_of(2) {
            self.first
        } else {
            !self.first
        }
    }

    /// The move at turn `n` as a core [`Move`].
    ///
    /// # Panics
    ///
    /// If `n` is past the last move, or the move's point is off the board
    /// (never for records read by [`read_shard`](super::read_shard), which checks them).
    pub fn move_at(&self, n: usize) -> Move {
        match self.moves[n] {
            None => Move::Pass,
            Some(index) => {
                Move::Play(self.point(index).unwrap_or_else(|| {
                    panic!("move {n}: point {index} is off a {} board", self.size)
                }))
            }
        }
    }

    /// Replays every move, checking each against the rules; the game after
    /// the last move.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        let mut game = self.checked_start()?;
        for (turn, &mv) in self.moves.iter().enumerate() {
            let mv = match mv {
                None => Move::Pass,
                Some(point) => Move::Play(self.point(point).ok_or(ReplayError::OffBoard {
                    turn,
                    point,
                    width: self.size.width(),
                    height: self.size.height(),
                })?),
            };
            game.play_as(self.color_at(turn), mv)
                .map_err(|reason| ReplayError::Illegal { turn, reason })?;
        }
        Ok(game)
    }

    /// Replays the game and calls `f(&game_before_move, move, turn)` for
    /// every move: the way training iterates positions. The side to move in
    /// the game passed is the one playing the move. Should a move be refused
    /// by the rules (never for records made by [`prepare`](fn@super::prepare), which replays
    /// them all), the replay stops there with a warning.
    pub fn for_each_position(&self, mut f: impl FnMut(&Game, Move, usize)) {
        let mut game = self.start();
        for turn in 0..self.moves.len() {
            let mv = self.move_at(turn);
            f(&game, mv, turn);
            if let Err(reason) = game.play_as(self.color_at(turn), mv) {
                tracing::warn!(turn, %reason, "a game record's move is illegal; replay stopped");
                return;
            }
        }
    }

    /// The record of a replayed game: the setup of its initial board, the
    /// moves of its history, komi from its rules. `None` when a turn is a
    /// resignation or the colours do not alternate.
    pub fn from_game(game: &Game, winner: Option<Color>) -> Option<GameRecord> {
        let size = game.size();
        let initial = game.initial_board();
        let setup = size
            .points()
            .filter_map(|p| initial.stone(p).map(|c| (c, GameRecord::index_of(size, p))))
            .collect();
        let mut first = None;
        let mut moves = Vec::with_capacity(game.turn_count());
        for (turn, (color, action)) in game.history().enumerate() {
            let first = *first.get_or_insert(color);
            let expected = if turn.is_multiple_of(2) {
                first
            } else {
                !first
            };
            if color != expected {
                return None;
            }
            match action {
                Action::Move(Move::Pass) => moves.push(None),
                Action::Move(Move::Play(p)) => moves.push(Some(GameRecord::index_of(size, p))),
                Action::Resign => return None,
            }
        }
        // Without turns, the game is still at its start.
        let first = first.unwrap_or_else(|| game.to_move());
        Some(GameRecord {
            size,
            komi: game.rules().komi as f32,
            setup,
            first,
            moves,
            winner,
        })
    }
}

/// The winner an SGF `RE` value names: `B+...` Black, `W+...` White (any
/// case), anything else (`0`, `Draw`, `Void`, `?`) nobody.
pub fn winner_of_result(result: &str) -> Option<Color> {
    let mut chars = result.trim().chars();
    let color = match chars.next()?.to_ascii_uppercase() {
        'B' => Color::Black,
        'W' => Color::White,
        _ => return None,
    };
    (chars.next() == Some('+')).then_some(color)
}

/// Positions (moves) of `games`: every move is one position to learn from.
pub(crate) fn positions(games: &[GameRecord]) -> usize {
    games.iter().map(|g| g.moves.len()).sum()
}
