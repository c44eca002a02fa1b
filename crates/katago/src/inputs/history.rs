//! The part of KataGo's `BoardHistory` the inputs read, rebuilt by replaying
//! a tengen [`Game`] from its initial board: the move list, the boards one
//! and two turns ago, consecutive ending passes and the positions before
//! each pass (for the Spight-like ending that simple ko uses), the
//! repetition record for superko bans, the count of turns valid in this
//! phase, whether the game is finished, the button, and White's bonus
//! points (territory scoring's one point per stone played, handicap).
//!
//! tengen plays no cleanup phase: KataGo in GTP does not enter one either
//! (its default `preventCleanupPhase`), so two passes under territory
//! scoring only mark the normal phase as ended. A search is another matter:
//! KataGo's goes on into the first cleanup phase there, and
//! [`History::start_cleanup_phase`] shows the position as it does.

use tengen_core::{Action, Board, Color, Game, Move, Point};

use super::board::{opp, player_hash, KBoard, BLACK, EMPTY, PASS_LOC, WHITE};
use super::rules::{HandicapBonus, KataKo, KataRules};

/// KataGo's player code for a tengen colour.
pub(crate) fn player(color: Color) -> u8 {
    match color {
        Color::Black => BLACK,
        Color::White => WHITE,
    }
}

/// The loc of a tengen point on `kboard`.
pub(crate) fn loc_of(board: &Board, kboard: &KBoard, point: Point) -> usize {
    let (col, row) = board.size().col_row(point);
    kboard.loc(col, board.size().height() - 1 - row)
}

/// The replayed history.
pub(crate) struct History {
    pub rules: KataRules,
    pub board: KBoard,
    /// The board before the last move and before the one before it (the
    /// initial board where there are not so many moves).
    pub recent: [KBoard; 2],
    /// Moves in order: loc (or `PASS_LOC`) and player.
    pub moves: Vec<(usize, u8)>,
    pub consecutive_ending_passes: u32,
    hashes_before_pass: [Vec<u64>; 2],
    /// Repetition keys since the record was last cleared, the current
    /// position's included.
    ko_hash_history: Vec<u64>,
    pub approx_valid_turns: usize,
    pub game_finished: bool,
    pub past_normal_phase_end: bool,
    /// KataGo's encore (cleanup) phase: 0, or 1 once started.
    pub encore_phase: u8,
    pub white_bonus: f32,
    pub white_handicap_bonus: f32,
    pub has_button: bool,
    initial: KBoard,
    white_has_moved: bool,
}

impl History {
    /// Replays `game` under `rules`.
    pub fn replay(game: &Game, rules: &KataRules) -> History {
        let start = game.initial_board();
        let size = start.size();
        let mut initial = KBoard::new(size.width(), size.height());
        for y in 0..size.height() {
            for x in 0..size.width() {
                let Some(point) = size.point(x, size.height() - 1 - y) else {
                    continue;
                };
                if let Some(color) = start.stone(point) {
                    let loc = initial.loc(x, y);
                    let pla = player(color);
                    if !initial.is_illegal_suicide(loc, pla, true) {
                        initial.play(loc, pla);
                    }
                }
            }
        }
        initial.ko_loc = 0;
        let first_player = game
            .history()
            .find_map(|(color, action)| matches!(action, Action::Move(_)).then_some(color))
            .unwrap_or(game.to_move());

        let mut hist = History {
            rules: *rules,
            board: initial.clone(),
            recent: [initial.clone(), initial.clone()],
            moves: Vec::new(),
            consecutive_ending_passes: 0,
            hashes_before_pass: [Vec::new(), Vec::new()],
            ko_hash_history: Vec::new(),
            approx_valid_turns: 0,
            game_finished: false,
            past_normal_phase_end: false,
            encore_phase: 0,
            white_bonus: 0.0,
            white_handicap_bonus: 0.0,
            has_button: rules.has_button,
            initial,
            white_has_moved: false,
        };
        hist.ko_hash_history
            .push(hist.ko_hash(player(first_player)));
        if rules.territory_scoring {
            for loc in 0..hist.board.colors.len() {
                match hist.board.colors[loc] {
                    BLACK => hist.white_bonus += 1.0,
                    WHITE => hist.white_bonus -= 1.0,
                    _ => {}
                }
            }
        }
        hist.white_handicap_bonus = hist.handicap_bonus();

        let moves: Vec<(usize, u8)> = game
            .history()
            .filter_map(|(color, action)| match action {
                Action::Move(Move::Play(point)) => {
                    Some((loc_of(start, &hist.board, point), player(color)))
                }
                Action::Move(Move::Pass) => Some((PASS_LOC, player(color))),
                Action::Resign => None,
            })
            .collect();
        let n = moves.len();
        for (i, &(loc, pla)) in moves.iter().enumerate() {
            if i + 2 >= n {
                let slot = n - 1 - i;
                hist.recent[slot] = hist.board.clone();
            }
            hist.play(loc, pla);
        }
        hist
    }

    /// Starts KataGo's first cleanup phase after the passes that ended the
    /// normal phase, as KataGo's search does under territory scoring
    /// (`makeBoardMoveAssumeLegal` without `preventEncore`): no passes, no
    /// repetition record and no valid turns in the new phase.
    pub fn start_cleanup_phase(&mut self) {
        let Some(&(_, last)) = self.moves.last() else {
            return;
        };
        self.past_normal_phase_end = false;
        self.encore_phase = 1;
        self.consecutive_ending_passes = 0;
        self.hashes_before_pass = [Vec::new(), Vec::new()];
        self.approx_valid_turns = 0;
        self.ko_hash_history.clear();
        let key = self.ko_hash(opp(last));
        self.ko_hash_history.push(key);
    }

    /// KataGo's repetition key of the board with `pla` to move.
    pub fn ko_hash(&self, pla: u8) -> u64 {
        self.ko_hash_of(self.board.pos_hash, pla)
    }

    fn ko_hash_of(&self, pos_hash: u64, pla: u8) -> u64 {
        match self.rules.ko {
            KataKo::Simple | KataKo::Situational => pos_hash ^ player_hash(pla),
            KataKo::Positional => pos_hash,
        }
    }

    /// Whether `pla` passing now repeats a position in which `pla` passed
    /// before, which ends the phase under simple ko.
    pub fn would_be_spightlike_ending_pass(&self, pla: u8) -> bool {
        if self.rules.ko != KataKo::Simple {
            return false;
        }
        let key = self.ko_hash(pla);
        self.hashes_before_pass[(pla - 1) as usize].contains(&key)
    }

    /// KataGo's `passWouldEndPhase`.
    pub fn pass_would_end_phase(&self, pla: u8) -> bool {
        self.consecutive_ending_passes + 1 >= 2 || self.would_be_spightlike_ending_pass(pla)
    }

    /// KataGo's `passWouldEndGame` (no cleanup phase: area scoring only).
    pub fn pass_would_end_game(&self, pla: u8) -> bool {
        self.pass_would_end_phase(pla) && !self.rules.territory_scoring
    }

    /// KataGo's `shouldSuppressEndGameFromFriendlyPass`.
    pub fn should_suppress_end_game_from_friendly_pass(&self, pla: u8) -> bool {
        self.rules.friendly_pass_ok
            && !self.rules.territory_scoring
            && self.consecutive_ending_passes + 1 == 2
            && !self.would_be_spightlike_ending_pass(pla)
    }

    /// Points KataGo bans for the next player by superko (not the simple
    /// ko point, nor illegal suicides), for the player after the last move.
    pub fn superko_banned(&self) -> Vec<bool> {
        let mut banned = vec![false; self.board.colors.len()];
        if self.rules.ko == KataKo::Simple {
            return banned;
        }
        let Some(&(_, last)) = self.moves.last() else {
            return banned;
        };
        let next = opp(last);
        let b = &self.board;
        for y in 0..b.y_size {
            for x in 0..b.x_size {
                let loc = b.loc(x, y);
                if b.colors[loc] != EMPTY
                    || b.is_illegal_suicide(loc, next, self.rules.multi_stone_suicide)
                    || loc == b.ko_loc
                {
                    continue;
                }
                let key = self.ko_hash_of(b.pos_hash_after_move(loc, next), opp(next));
                banned[loc] = self.ko_hash_history.contains(&key);
            }
        }
        banned
    }

    /// KataGo's `computeNumHandicapStones`, treating a run of Black moves at
    /// the start as handicap (as KataGo's GTP does).
    fn handicap_stones(&self) -> usize {
        let mut black_turns = 0;
        for (i, &(loc, pla)) in self.moves.iter().enumerate() {
            if pla != BLACK {
                if i + 1 < self.moves.len() && self.moves[i + 1].1 != BLACK {
                    black_turns = 0;
                    break;
                }
                if loc == PASS_LOC {
                    continue;
                }
                break;
            }
            if loc != PASS_LOC {
                black_turns += 1;
            }
        }
        let (mut black, mut white) = (0, 0);
        for &c in &self.initial.colors {
            match c {
                BLACK => black += 1,
                WHITE => white += 1,
                _ => {}
            }
        }
        if white != 0 {
            return 0;
        }
        let advantage = black + black_turns;
        if advantage <= 1 {
            0
        } else {
            advantage
        }
    }

    fn handicap_bonus(&self) -> f32 {
        match self.rules.white_handicap_bonus {
            HandicapBonus::Zero => 0.0,
            HandicapBonus::N => self.handicap_stones() as f32,
            HandicapBonus::NMinusOne => self.handicap_stones().saturating_sub(1) as f32,
        }
    }

    /// KataGo's `makeBoardMoveAssumeLegal` without the cleanup phase.
    fn play(&mut self, loc: usize, pla: u8) {
        if self.game_finished || self.past_normal_phase_end {
            self.approx_valid_turns = self.approx_valid_turns.min(1);
        }
        self.game_finished = false;
        self.past_normal_phase_end = false;

        let mut spightlike = false;
        if loc != PASS_LOC {
            self.consecutive_ending_passes = 0;
        } else if self.has_button {
            self.has_button = false;
            self.white_bonus += if pla == WHITE { 0.5 } else { -0.5 };
            self.consecutive_ending_passes = 0;
            self.hashes_before_pass = [Vec::new(), Vec::new()];
            self.ko_hash_history.clear();
        } else {
            if self.rules.ko == KataKo::Simple {
                self.ko_hash_history.clear();
            }
            let before = self.ko_hash(pla);
            self.consecutive_ending_passes += 1;
            spightlike = self.would_be_spightlike_ending_pass(pla);
            self.hashes_before_pass[(pla - 1) as usize].push(before);
        }

        self.board.play(loc, pla);
        let key = self.ko_hash(opp(pla));
        self.ko_hash_history.push(key);
        self.moves.push((loc, pla));
        self.approx_valid_turns += 1;

        if self.rules.territory_scoring && loc != PASS_LOC {
            self.white_bonus += if pla == BLACK { 1.0 } else { -1.0 };
        }
        if pla == WHITE && loc != PASS_LOC {
            self.white_has_moved = true;
        }
        if !self.white_has_moved
            && pla == BLACK
            && self.rules.white_handicap_bonus != HandicapBonus::Zero
        {
            self.white_handicap_bonus = self.handicap_bonus();
        }

        if self.consecutive_ending_passes >= 2 || spightlike {
            if !self.rules.territory_scoring {
                if self.has_button {
                    self.has_button = false;
                    self.white_bonus += if opp(pla) == WHITE { 0.5 } else { -0.5 };
                }
                self.game_finished = true;
            } else {
                self.past_normal_phase_end = true;
                self.approx_valid_turns = self.approx_valid_turns.min(1);
            }
        }

        // Long cycles under simple ko end the game without a result.
        if loc != PASS_LOC && self.rules.ko == KataKo::Simple {
            let occurrences = self.ko_hash_history.iter().filter(|&&h| h == key).count();
            if occurrences >= 3 {
                self.game_finished = true;
            }
        }
    }

    /// White's komi plus bonuses, from `pla`'s side (KataGo's
    /// `currentSelfKomi` with draws worth half a win).
    pub fn self_komi(&self, pla: u8) -> f32 {
        // Draws are worth half a win, so KataGo's draw adjustment
        // (drawEquivalentWinsForWhite - 0.5 when the result is a whole
        // number) is 0.
        let white = self.white_bonus + self.white_handicap_bonus + self.rules.komi;
        if pla == WHITE {
            white
        } else {
            -white
        }
    }
}
