//! KataGo's input features (input version 7): 22 spatial planes and 19
//! global values, computed from a [`tengen_core::Game`] exactly as KataGo's
//! `NNInputs::fillRowV7` computes them from its board and history.
//!
//! # Layout
//!
//! `spatial` is `[SPATIAL_FEATURES][nn_y][nn_x]`, row-major. Column `x = 0`
//! is GTP column A; row `y = 0` is the **top** row of the board (GTP row
//! `height`). The board sits in the top-left corner of the grid; every value
//! outside it is 0, feature 0 included (it is the mask). Everything is seen
//! from the side to move ("pla"); "opp" is the other side.
//!
//! # Spatial features
//!
//! | # | meaning |
//! |---|---|
//! | 0 | on the board |
//! | 1, 2 | pla's stone, opp's stone |
//! | 3, 4, 5 | a stone whose chain has 1, 2, 3 liberties |
//! | 6 | the simple-ko point, and the points superko bans (positional or situational ko, for the player after the last move; never a point where the move would be an illegal suicide) |
//! | 7, 8 | always 0 here (ko recaptures blocked in a cleanup phase; none at its start) |
//! | 9..13 | where the move 1..5 turns ago was played (see history below) |
//! | 14 | a stone of a chain with 1 or 2 liberties that is captured in a ladder (2 liberties: the attacker moving first) |
//! | 15, 16 | the same on the board 1 and 2 turns ago (the later board where fewer turns of history are shown) |
//! | 17 | for opp's chains with 2 liberties captured in a ladder, the attacker's first moves that capture them |
//! | 18, 19 | pla's and opp's area (see area below) |
//! | 20, 21 | always 0 here (second cleanup phase) |
//!
//! **History.** The move `k` turns ago (k = 1..5) is shown only while the
//! moves alternate back from the last one (k odd by opp, k even by pla); a
//! pass sets global `k - 1`, a stone feature `8 + k`. No history at all is
//! shown when a pass would end the game and either
//! [`InputOptions::conservative_pass`] is set or the pass would be a
//! "friendly" one (friendly passes allowed, area scoring, the opponent's
//! pass just before) or, with [`InputOptions::passing_hacks`], the area
//! count as it stands would not be a win for the side to move; then global
//! 14 is 0 too. Once the game is over (two
//! passes, a repetition ending under simple ko, a triple repetition) only the
//! last turn is shown.
//!
//! **Ladders.** KataGo's search, replicated step by step on a board that
//! links its chains the way KataGo's does (see `board.rs`, `ladder.rs`),
//! including the 25 000-node budget, the depth limit, the ko and double-ko
//! rules, and the order in which liberties are tried.
//!
//! **Area.** Area scoring without tax: KataGo's `calculateArea` with every
//! option on (`area.rs`): pass-alive chains and their territory, then every
//! other stone, then empty regions bordered by one colour only (not inside
//! the other side's pass-alive area). Under territory scoring the planes are
//! 0 (KataGo shows them only in the second cleanup phase, which tengen does
//! not have). With a group tax, KataGo's "independent life" area.
//!
//! # Global features
//!
//! | # | meaning |
//! |---|---|
//! | 0..4 | the move 1..5 turns ago was a pass |
//! | 5 | pla's komi / 20: komi (plus, under territory scoring, one point per Black stone played minus one per White stone, and White's handicap bonus) for White, its negation for Black, clipped to ±(width·height + 20) |
//! | 6, 7 | ko: simple 0, 0; positional 1, 0.5; situational 1, −0.5 |
//! | 8 | multi-stone suicide legal |
//! | 9 | territory scoring |
//! | 10, 11 | tax: seki 1, 0; all 1, 1 |
//! | 12, 13 | cleanup phase 1 and 2: 12 only, for a game two passes ended under territory scoring, with [`InputOptions::cleanup_after_passes`] |
//! | 14 | a pass would end the phase (two passes in a row, or under simple ko a position in which the same player passed before) |
//! | 15, 16 | playout doubling advantage ≠ 0: 1 and half of it |
//! | 17 | the button is still to be taken |
//! | 18 | area scoring: the komi parity wave (see [`fill`]) |
//!
//! Draws count as half a win (KataGo's default), so no draw adjustment is
//! added to the komi.

mod area;
mod board;
mod history;
mod ladder;
mod rules;
#[cfg(test)]
mod tests;

use tengen_core::Game;
use thiserror::Error;

pub use rules::{HandicapBonus, KataKo, KataRules, Tax};

use board::{opp, KBoard, EMPTY, NULL_LOC, PASS_LOC, WHITE};
use history::{player, History};

/// Number of spatial input planes.
pub const SPATIAL_FEATURES: usize = 22;
/// Number of global inputs.
pub const GLOBAL_FEATURES: usize = 19;

/// KataGo's bound on |komi| beyond the board's area.
const KOMI_CLIP_RADIUS: f32 = 20.0;

/// Why the inputs could not be computed.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum InputError {
    /// NoGo has no KataGo counterpart.
    #[error("KataGo networks do not play NoGo")]
    NoGo,
    /// The komi is not a finite number.
    #[error("komi {0} is not a number KataGo can use")]
    BadKomi(f64),
    /// The board does not fit in the network's grid.
    #[error("a {width}x{height} board does not fit in a {nn_x}x{nn_y} input grid")]
    BoardTooLarge {
        /// Board width.
        width: usize,
        /// Board height.
        height: usize,
        /// Grid width.
        nn_x: usize,
        /// Grid height.
        nn_y: usize,
    },
    /// A buffer has the wrong length.
    #[error("the {buffer} buffer holds {got} values, {expected} expected")]
    BufferSize {
        /// `spatial` or `global`.
        buffer: &'static str,
        /// Length needed.
        expected: usize,
        /// Length given.
        got: usize,
    },
}

/// Per-evaluation options; the defaults are those of a plain `katago gtp`
/// `kata-raw-nn` call.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InputOptions {
    /// KataGo's `conservativePass` at the root: hide the history when a pass
    /// would end the game.
    pub conservative_pass: bool,
    /// Playout doubling advantage, from the side to move's view (0: none).
    pub playout_doubling_advantage: f32,
    /// Show at most this many turns of history (KataGo's
    /// `ignorePreRootHistory`: a search shows none before its root).
    pub history_limit: Option<usize>,
    /// Compute pass-alive areas as if multi-stone suicide were legal even
    /// when it is not (KataGo's `alwaysComputePassAliveUnderSuicideRules`).
    pub prefer_pass_alive_under_suicide: bool,
    /// KataGo's `enablePassingHacks` (on in its GTP and analysis engines):
    /// when a pass would end the game and the area count as it stands
    /// would not be a win for the side to move, hide the history as under
    /// `conservative_pass`, so that the network does not value a losing
    /// side's pass as the end of the game.
    pub passing_hacks: bool,
    /// Show a game that two passes ended under territory scoring as
    /// KataGo's search sees it: at the start of its first cleanup phase
    /// (global 12), where play goes on to settle dead stones and seki.
    /// Without it, as KataGo's GTP and analysis engines show the moves
    /// given to them: the normal phase ended, nothing more.
    pub cleanup_after_passes: bool,
}

/// Fills `spatial` (`[SPATIAL_FEATURES][nn_y][nn_x]`) and `global`
/// (`[GLOBAL_FEATURES]`) for the side to move of `game`, overwriting every
/// value. See the module documentation for the features.
///
/// The komi parity wave (global 18, area scoring only): with `k` pla's komi
/// and `floor_k` the largest komi below it at which a draw is possible
/// (even numbers on boards of even area, odd ones on boards of odd area),
/// `d = k - floor_k` clamped to [0, 2]; the wave is `d` below 0.5, `1 - d`
/// below 1.5, and `d - 2` above.
pub fn fill(
    game: &Game,
    rules: &KataRules,
    options: &InputOptions,
    nn_x: usize,
    nn_y: usize,
    spatial: &mut [f32],
    global: &mut [f32],
) -> Result<(), InputError> {
    check_fill(game, rules, nn_x, nn_y, spatial.len(), global.len())?;
    spatial.fill(0.0);
    global.fill(0.0);

    let mut hist = History::replay(game, rules);
    if options.cleanup_after_passes && hist.past_normal_phase_end && game.is_over() {
        hist.start_cleanup_phase();
    }
    let pla = player(game.to_move());
    let mut planes = Planes {
        spatial,
        plane: nn_x * nn_y,
        nn_x,
        board: &hist.board,
    };
    stone_features(&mut planes, pla);
    ko_features(&mut planes, &hist);
    let end_would_not_win = area_features(&mut planes, &hist, rules, options, pla);
    let (max_turns, suppress_pass_ends) = history_shown(&hist, options, pla, end_would_not_win);
    let turns_included = history_features(&mut planes, global, &hist, options, pla, max_turns);
    ladder_features(&mut planes, &hist, pla, turns_included);
    global_features(global, &hist, rules, options, pla, suppress_pass_ends);
    Ok(())
}

/// Why [`fill`] cannot fill buffers of these lengths for `game`, if it
/// cannot.
fn check_fill(
    game: &Game,
    rules: &KataRules,
    nn_x: usize,
    nn_y: usize,
    spatial_len: usize,
    global_len: usize,
) -> Result<(), InputError> {
    if game.rules().is_nogo() {
        return Err(InputError::NoGo);
    }
    if !rules.komi.is_finite() {
        return Err(InputError::BadKomi(rules.komi as f64));
    }
    let size = game.size();
    let (x_size, y_size) = (size.width(), size.height());
    if x_size > nn_x || y_size > nn_y {
        return Err(InputError::BoardTooLarge {
            width: x_size,
            height: y_size,
            nn_x,
            nn_y,
        });
    }
    let plane = nn_x * nn_y;
    if spatial_len != SPATIAL_FEATURES * plane {
        return Err(InputError::BufferSize {
            buffer: "spatial",
            expected: SPATIAL_FEATURES * plane,
            got: spatial_len,
        });
    }
    if global_len != GLOBAL_FEATURES {
        return Err(InputError::BufferSize {
            buffer: "global",
            expected: GLOBAL_FEATURES,
            got: global_len,
        });
    }
    Ok(())
}

/// The spatial planes being filled, with the board whose locs they take.
struct Planes<'a> {
    /// `[SPATIAL_FEATURES][nn_y][nn_x]`.
    spatial: &'a mut [f32],
    /// `nn_x * nn_y`.
    plane: usize,
    /// The grid's width.
    nn_x: usize,
    /// The current board (every board of the history has its size).
    board: &'a KBoard,
}

impl Planes<'_> {
    /// Sets `feature` at the point of board loc `loc` to 1.
    #[inline]
    fn set(&mut self, feature: usize, loc: usize) {
        let (x, y) = self.board.xy(loc);
        self.spatial[feature * self.plane + y * self.nn_x + x] = 1.0;
    }
}

/// Features 0 to 5: on the board, the stones, and the liberties of their
/// chains up to 3.
fn stone_features(planes: &mut Planes<'_>, pla: u8) {
    let board = planes.board;
    for y in 0..board.y_size {
        for x in 0..board.x_size {
            let loc = board.loc(x, y);
            planes.set(0, loc);
            let stone = board.colors[loc];
            if stone == EMPTY {
                continue;
            }
            planes.set(if stone == pla { 1 } else { 2 }, loc);
            match board.libs(loc) {
                1 => planes.set(3, loc),
                2 => planes.set(4, loc),
                3 => planes.set(5, loc),
                _ => {}
            }
        }
    }
}

/// Feature 6: the simple-ko point and the points superko bans.
fn ko_features(planes: &mut Planes<'_>, hist: &History) {
    let board = planes.board;
    if board.ko_loc != NULL_LOC {
        planes.set(6, board.ko_loc);
    }
    for (loc, &banned) in hist.superko_banned().iter().enumerate() {
        if banned {
            planes.set(6, loc);
        }
    }
}

/// Features 18 and 19 (area scoring only); returns whether the game, ended
/// now and counted as it stands, would not be a win for pla (KataGo's
/// `finalPhaseAndGameEndWouldNotBeWin`).
fn area_features(
    planes: &mut Planes<'_>,
    hist: &History,
    rules: &KataRules,
    options: &InputOptions,
    pla: u8,
) -> bool {
    let board = planes.board;
    let suicide_legal = rules.multi_stone_suicide || options.prefer_pass_alive_under_suicide;
    let area = if rules.territory_scoring {
        None
    } else if rules.tax == Tax::None {
        Some((
            area::calculate_area(board, true, true, true, suicide_legal),
            0,
        ))
    } else {
        let (area, white_minus_black_regions) =
            area::calculate_independent_life_area(board, false, true, suicide_legal);
        // Under the full tax each region of independent life gives up
        // two points.
        let tax = if rules.tax == Tax::All {
            2 * white_minus_black_regions * if pla == WHITE { -1 } else { 1 }
        } else {
            0
        };
        Some((area, tax))
    };
    let mut end_would_not_win = false;
    if let Some((area, tax)) = area {
        let o = opp(pla);
        for y in 0..board.y_size {
            for x in 0..board.x_size {
                let loc = board.loc(x, y);
                if area[loc] == pla {
                    planes.set(18, loc);
                } else if area[loc] == o {
                    planes.set(19, loc);
                }
            }
        }
        let score_for_pla = area::balance(board, &area, pla) + tax;
        end_would_not_win = score_for_pla as f32 + hist.self_komi(pla) <= 0.0;
    }
    end_would_not_win
}

/// How many turns of history may be shown, and whether the history is
/// hidden because a pass would end the game (which also clears global 14).
fn history_shown(
    hist: &History,
    options: &InputOptions,
    pla: u8,
    end_would_not_win: bool,
) -> (usize, bool) {
    if hist.pass_would_end_game(pla)
        && (options.conservative_pass
            || hist.should_suppress_end_game_from_friendly_pass(pla)
            || (options.passing_hacks && end_would_not_win))
    {
        (0, true)
    } else if hist.game_finished || hist.past_normal_phase_end {
        (1, false)
    } else {
        (5, false)
    }
}

/// The history: features 9 to 13 and globals 0 to 4, for at most
/// `max_turns` turns; returns how many turns are shown.
fn history_features(
    planes: &mut Planes<'_>,
    global: &mut [f32],
    hist: &History,
    options: &InputOptions,
    pla: u8,
    max_turns: usize,
) -> usize {
    let o = opp(pla);
    let usable = max_turns
        .min(hist.approx_valid_turns)
        .min(options.history_limit.unwrap_or(usize::MAX));
    let mut turns_included = 0;
    for k in 1..=usable {
        let Some(&(loc, mover)) = hist.moves.len().checked_sub(k).map(|i| &hist.moves[i]) else {
            break;
        };
        let expected = if k % 2 == 1 { o } else { pla };
        if mover != expected {
            break;
        }
        turns_included = k;
        if loc == PASS_LOC {
            global[k - 1] = 1.0;
        } else {
            planes.set(8 + k, loc);
        }
    }
    turns_included
}

/// Ladders: features 14 to 17, on the boards as far back as the shown
/// history reaches.
fn ladder_features(planes: &mut Planes<'_>, hist: &History, pla: u8, turns_included: usize) {
    let board = planes.board;
    let o = opp(pla);
    ladder::iter_ladders(board, |loc, working| {
        planes.set(14, loc);
        if board.colors[loc] == o && board.libs(loc) > 1 {
            for &w in working {
                planes.set(17, w);
            }
        }
    });
    let prev = if turns_included < 1 {
        board
    } else {
        &hist.recent[0]
    };
    ladder::iter_ladders(prev, |loc, _| planes.set(15, loc));
    let prev_prev = if turns_included < 2 {
        prev
    } else {
        &hist.recent[1]
    };
    ladder::iter_ladders(prev_prev, |loc, _| planes.set(16, loc));
}

/// Globals 5 to 18: komi, rules, phase, playout doubling, button and the
/// komi parity wave.
fn global_features(
    global: &mut [f32],
    hist: &History,
    rules: &KataRules,
    options: &InputOptions,
    pla: u8,
    suppress_pass_ends: bool,
) {
    let board = &hist.board;
    let mut self_komi = hist.self_komi(pla);
    let board_area = (board.x_size * board.y_size) as f32;
    self_komi = self_komi.clamp(
        -board_area - KOMI_CLIP_RADIUS,
        board_area + KOMI_CLIP_RADIUS,
    );
    global[5] = self_komi / 20.0;
    match rules.ko {
        KataKo::Simple => {}
        KataKo::Positional => {
            global[6] = 1.0;
            global[7] = 0.5;
        }
        KataKo::Situational => {
            global[6] = 1.0;
            global[7] = -0.5;
        }
    }
    if rules.multi_stone_suicide {
        global[8] = 1.0;
    }
    if rules.territory_scoring {
        global[9] = 1.0;
    }
    match rules.tax {
        Tax::None => {}
        Tax::Seki => global[10] = 1.0,
        Tax::All => {
            global[10] = 1.0;
            global[11] = 1.0;
        }
    }
    if hist.encore_phase > 0 {
        global[12] = 1.0;
    }
    if !suppress_pass_ends && hist.pass_would_end_phase(pla) {
        global[14] = 1.0;
    }
    if options.playout_doubling_advantage != 0.0 {
        global[15] = 1.0;
        global[16] = 0.5 * options.playout_doubling_advantage;
    }
    if hist.has_button {
        global[17] = 1.0;
    }
    if !rules.territory_scoring {
        global[18] = komi_wave(self_komi, (board.x_size * board.y_size).is_multiple_of(2));
    }
}

/// The komi parity wave of global feature 18.
fn komi_wave(self_komi: f32, even_area: bool) -> f32 {
    let floor = if even_area {
        (self_komi / 2.0).floor() * 2.0
    } else {
        ((self_komi - 1.0) / 2.0).floor() * 2.0 + 1.0
    };
    let delta = (self_komi - floor).clamp(0.0, 2.0);
    if delta < 0.5 {
        delta
    } else if delta < 1.5 {
        1.0 - delta
    } else {
        delta - 2.0
    }
}

/// Black's margin (Black's area less White's, less White's komi and
/// bonuses) of `game` counted as KataGo's search counts a finished game
/// under area scoring (`endAndScoreGameNow`): every stone and every empty
/// region bordered by one colour is that colour's, and so is all of a
/// pass-alive group's territory, opponent's stones in it included — dead
/// stones left inside a pass-alive area count for its owner, where the
/// bare count would call the region neutral. `None` under territory
/// scoring or a rule set KataGo's inputs cannot express (scored the plain
/// way there).
pub fn finished_margin(game: &Game) -> Option<f32> {
    let rules = KataRules::from_rules(game.rules()).ok()?;
    if rules.territory_scoring || rules.tax != Tax::None {
        return None;
    }
    let hist = History::replay(game, &rules);
    let board = &hist.board;
    let area = area::calculate_area(board, true, true, true, rules.multi_stone_suicide);
    Some(area::balance(board, &area, board::BLACK) as f32 + hist.self_komi(board::BLACK))
}
