//! One game between two engine processes, refereed on tengen's own [`Game`].

use std::time::{Duration, Instant};

use tengen_core::scoring::{game_status, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED};
use tengen_core::{Action, Color, Game, Move, Outcome, Point, Rules, Score};
use tengen_gtp::controller::{Controller, ControllerError, FinalScore, GenMove, StoneStatus};

use crate::clock::ClockState;
use crate::config::{MatchConfig, CLOCK_GRACE};
use crate::record::{EngineTime, Forfeit, ForfeitKind, GameEnd, GameRecord};

/// How long a well-behaved engine gets to answer `quit` at the end of a game.
const QUIT_TIMEOUT: Duration = Duration::from_secs(2);

/// The forfeit kind an engine's failure amounts to.
fn forfeit_kind(error: &ControllerError) -> ForfeitKind {
    match error {
        ControllerError::CommandLine { .. } | ControllerError::Spawn { .. } => ForfeitKind::Startup,
        ControllerError::EngineExited { .. } => ForfeitKind::Crash,
        ControllerError::Malformed { .. } | ControllerError::InvalidCommand(_) => {
            ForfeitKind::Malformed
        }
        ControllerError::Timeout { .. } => ForfeitKind::Timeout,
        ControllerError::Engine { .. } => ForfeitKind::EngineError,
    }
}

fn forfeit_from_error(engine: usize, error: &ControllerError) -> Forfeit {
    Forfeit {
        engine,
        kind: forfeit_kind(error),
        mv: None,
        reason: error.to_string(),
    }
}

/// A game's outcome together with what the referee learnt while counting.
pub(crate) struct PlayedGame {
    /// The record, without the SGF path (the caller writes the file).
    pub record: GameRecord,
    /// The game as played, for the SGF record.
    pub game: Game,
}

/// Starts an engine and prepares it for a game: board size, empty board, komi,
/// the rules where the engine has a command for them, and, when set, the
/// clock or else the time per move. Also says whether the engine was told
/// the byo-yomi's periods (`kgs-time_settings`), which changes what
/// `time_left` tells it.
fn start_engine(
    command_line: &str,
    config: &MatchConfig,
) -> Result<(Controller, bool), ControllerError> {
    let mut engine = Controller::spawn(command_line)?;
    engine.set_timeout(Some(config.command_timeout));
    engine.boardsize(config.size)?;
    engine.clear_board()?;
    engine.komi(config.komi)?;
    tell_rules(&mut engine, config)?;
    if let Some(kgs) = config.clock.and_then(|clock| clock.kgs_time_settings()) {
        if knows(&mut engine, "kgs-time_settings")? {
            match engine.send(&format!("kgs-time_settings {kgs}")) {
                Ok(_) => return Ok((engine, true)),
                Err(ControllerError::Engine { .. }) => {}
                Err(err) => return Err(err),
            }
        }
    }
    let settings = match (config.clock, config.time_per_move) {
        (Some(clock), _) => Some(clock.time_settings()),
        (None, Some(per_move)) => Some((Duration::ZERO, per_move, 1)),
        (None, None) => None,
    };
    if let Some((main, byo_yomi, stones)) = settings {
        // An engine without time control still plays; only a broken one forfeits.
        match engine.time_settings(main, byo_yomi, stones) {
            Ok(()) | Err(ControllerError::Engine { .. }) => {}
            Err(err) => return Err(err),
        }
    }
    Ok((engine, false))
}

/// Whether the engine lists `command`; an engine without `list_commands`
/// knows nothing beyond GTP's core.
fn knows(engine: &mut Controller, command: &str) -> Result<bool, ControllerError> {
    match engine.list_commands() {
        Ok(known) => Ok(known.iter().any(|c| c == command)),
        Err(ControllerError::Engine { .. }) => Ok(false),
        Err(err) => Err(err),
    }
}

/// The command that tells an engine the referee's rules, given the commands
/// it lists: `tengen-rules` with the rules in full, else KataGo's
/// `kata-set-rules` with its JSON (komi goes apart, by `komi`), else
/// `kgs-rules` when the rules are one of the KGS rule sets; `None` when the
/// engine has no way to hear them (NoGo engines are started in their own
/// mode).
pub(crate) fn rules_command(rules: &Rules, known: &[String]) -> Option<String> {
    if rules.is_nogo() {
        return None;
    }
    let knows = |command: &str| known.iter().any(|k| k == command);
    if knows("tengen-rules") {
        return Some(format!("tengen-rules {rules}"));
    }
    if knows("kata-set-rules") {
        if let Ok(json) = rules.to_katago_json() {
            return Some(format!("kata-set-rules {json}"));
        }
    }
    if knows("kgs-rules") {
        let kgs = ["japanese", "chinese", "aga", "new_zealand"];
        return kgs
            .iter()
            .find(|name| Rules::preset(name).is_some_and(|p| p.with_komi(rules.komi) == *rules))
            .map(|name| format!("kgs-rules {name}"));
    }
    None
}

/// Tells the engine the referee's rules where it has a command for them, so
/// that its moves obey the same ko rule the referee applies. An engine that
/// refuses them still plays (its moves are checked all the same); only a
/// broken one forfeits.
fn tell_rules(engine: &mut Controller, config: &MatchConfig) -> Result<(), ControllerError> {
    let known = match engine.list_commands() {
        Ok(known) => known,
        Err(ControllerError::Engine { .. }) => return Ok(()),
        Err(err) => return Err(err),
    };
    let Some(command) = rules_command(&config.referee_rules(), &known) else {
        return Ok(());
    };
    match engine.send(&command) {
        Ok(_) => Ok(()),
        Err(ControllerError::Engine { message, .. }) => {
            tracing::warn!(engine = engine.command_line(), %command, %message, "the engine refused the rules");
            Ok(())
        }
        Err(err) => Err(err),
    }
}

/// Tells an engine Black's handicap stones: `fixed_handicap` when it knows
/// the command and places the stones where the referee does, else (after
/// clearing the board again) `set_free_handicap` with the referee's points.
fn place_handicap(engine: &mut Controller, game: &Game) -> Result<(), ControllerError> {
    let stones = game.handicap();
    let board = game.board();
    let mut points: Vec<Point> = board
        .size()
        .points()
        .filter(|&p| board.stone(p) == Some(Color::Black))
        .collect();
    points.sort();
    if knows(engine, "fixed_handicap")? {
        match engine.fixed_handicap(stones) {
            Ok(mut placed) => {
                placed.sort();
                if placed == points {
                    return Ok(());
                }
                tracing::warn!(
                    engine = engine.command_line(),
                    "the engine's fixed handicap differs from the referee's; sending the referee's"
                );
                engine.clear_board()?;
            }
            Err(ControllerError::Engine { .. }) => engine.clear_board()?,
            Err(err) => return Err(err),
        }
    }
    engine.set_free_handicap(&points)
}

/// Starts both engines for game `index` and sets up `game`'s position in
/// each: the engines (those started), whether each was told the byo-yomi's
/// periods, and the forfeit of the first that failed.
fn start_engines(
    config: &MatchConfig,
    index: usize,
    game: &Game,
) -> ([Option<Controller>; 2], [bool; 2], Option<Forfeit>) {
    let mut engines: [Option<Controller>; 2] = [None, None];
    let mut told_periods = [false; 2];
    let mut forfeit = None;
    for (e, slot) in engines.iter_mut().enumerate() {
        let started = start_engine(&config.engine_command(e, index), config).and_then(
            |(mut engine, told)| {
                told_periods[e] = told;
                if game.handicap() > 0 {
                    place_handicap(&mut engine, game)?;
                }
                for (color, action) in game.history() {
                    if let Action::Move(mv) = action {
                        engine.play(color, mv)?;
                    }
                }
                Ok(engine)
            },
        );
        match started {
            Ok(engine) => *slot = Some(engine),
            Err(err) => {
                forfeit = Some(forfeit_from_error(e, &err));
                break;
            }
        }
    }

    (engines, told_periods, forfeit)
}

/// Plays game `index` of the match between fresh processes of both engines.
/// `names` are the engines' names for the record; `on_move` sees the game
/// after every move.
pub(crate) fn play_game(
    index: usize,
    config: &MatchConfig,
    names: &[String; 2],
    on_move: &dyn Fn(&Game),
) -> PlayedGame {
    let black = config.black_engine(index);
    let engine_of = |color: Color| match color {
        Color::Black => black,
        Color::White => 1 - black,
    };
    let mut game = config
        .game_at(index)
        .expect("run_match checks that the match makes every game");
    let mut timing = Timing::default();
    let mut record = GameRecord {
        index,
        black,
        winner: None,
        result: String::new(),
        end: GameEnd::Passes,
        moves: 0,
        forfeit: None,
        dead_stones: 0,
        dead_agreed: None,
        engine_scores: [None, None],
        scores_agree: [None, None],
        time: timing.engines,
        move_times: Vec::new(),
        names: names.clone(),
        sgf: None,
        opening: config.opening(index).map(|o| o.name.clone()),
    };

    let (mut engines, told_periods, mut forfeit) = start_engines(config, index, &game);

    let mut capped = false;
    if forfeit.is_none() {
        let [Some(first), Some(second)] = &mut engines else {
            unreachable!("both engines started");
        };
        let mut pair = [first, second];
        let seats = Seats {
            engine_of: &engine_of,
            told_periods,
        };
        forfeit = play_moves(&mut game, &mut pair, &seats, config, &mut timing, on_move);
        capped = forfeit.is_none() && !game.is_over();
    }
    record.time = timing.engines;
    record.move_times = timing.moves;
    record.moves = game.turn_count();

    if let Some(forfeit) = forfeit {
        let loser = forfeit.engine;
        let winner_color = !record.color_of(loser);
        let mark = if forfeit.kind == ForfeitKind::Timeout {
            'T'
        } else {
            'F'
        };
        record.winner = Some(1 - loser);
        record.result = format!("{}+{mark}", winner_color.letter());
        record.end = GameEnd::Forfeit;
        record.forfeit = Some(forfeit);
    } else if let Some(loser) = game.resigned() {
        record.winner = Some(engine_of(!loser));
        record.result = Outcome::Resignation { winner: !loser }.to_string();
        record.end = GameEnd::Resignation;
    } else if game.rules().is_nogo() {
        // Nothing is counted in NoGo: the side to move that has no legal
        // move has lost; a game the turn limit stopped has no result.
        if capped {
            record.end = GameEnd::MoveLimit;
            record.result = "Void".to_string();
        } else {
            let winner = !game.to_move();
            record.winner = Some(engine_of(winner));
            record.result = Outcome::NoLegalMove { winner }.to_string();
            record.end = GameEnd::NoLegalMove;
        }
    } else {
        record.end = if capped {
            GameEnd::MoveLimit
        } else {
            GameEnd::Passes
        };
        let [Some(first), Some(second)] = &mut engines else {
            unreachable!("both engines played the game");
        };
        let score = count(&game, [first, second], &mut record);
        record.winner = score.winner().map(engine_of);
    }

    for engine in engines.into_iter().flatten() {
        finish(engine, record.forfeit.as_ref());
    }
    PlayedGame { record, game }
}

/// Quits an engine politely, unless it misbehaved (then dropping it kills it,
/// without waiting on an engine that may not answer).
fn finish(mut engine: Controller, forfeit: Option<&Forfeit>) {
    let misbehaved = forfeit.is_some_and(|f| {
        matches!(
            f.kind,
            ForfeitKind::Timeout | ForfeitKind::Crash | ForfeitKind::Malformed
        )
    });
    if !misbehaved {
        engine.set_timeout(Some(QUIT_TIMEOUT));
        let _ = engine.quit();
    }
}

/// Who sits where: the engine playing each colour, and whether each was
/// told the byo-yomi's periods.
struct Seats<'a> {
    engine_of: &'a dyn Fn(Color) -> usize,
    told_periods: [bool; 2],
}

/// What the referee measures of the engines' thinking: each engine's totals
/// and every move's time in the order played.
#[derive(Default)]
struct Timing {
    engines: [EngineTime; 2],
    moves: Vec<Duration>,
}

/// The game loop: ask the side to move, check, tell the other side. Returns
/// the forfeit that ended the game, if one did.
///
/// Under NoGo the rules do the rest: a pass or a capturing or suicidal move
/// is an illegal move and forfeits, and the loop stops, without asking, as
/// soon as the side to move has no legal move ([`Game::is_over`]); that side
/// has lost (an engine would answer `resign` there).
fn play_moves(
    game: &mut Game,
    engines: &mut [&mut Controller; 2],
    seats: &Seats,
    config: &MatchConfig,
    timing: &mut Timing,
    on_move: &dyn Fn(&Game),
) -> Option<Forfeit> {
    let size = game.size();
    let max_moves = config.effective_max_moves();
    let move_timeout = config.effective_move_timeout();
    let mut clocks = config
        .clock
        .map(|clock| [ClockState::new(clock), ClockState::new(clock)]);
    while !game.is_over() && game.turn_count() < max_moves {
        let color = game.to_move();
        let side = (seats.engine_of)(color);
        let other = 1 - side;
        let mut deadline = move_timeout;
        if let Some(clocks) = &clocks {
            let state = &clocks[side];
            let (left, stones) = state.time_left(seats.told_periods[side]);
            // Whole seconds, rounded down, so the engine never thinks it has
            // more time than it does.
            let left = Duration::from_secs(left.as_secs());
            match engines[side].time_left(color, left, stones) {
                Ok(()) | Err(ControllerError::Engine { .. }) => {}
                Err(err) => return Some(forfeit_from_error(side, &err)),
            }
            deadline = state.available() + CLOCK_GRACE;
        }
        let started = Instant::now();
        let answer = {
            let engine = &mut *engines[side];
            let previous = engine.timeout();
            engine.set_timeout(Some(deadline));
            let answer = engine.genmove(color);
            engine.set_timeout(previous);
            answer
        };
        let elapsed = started.elapsed();
        timing.engines[side].add(elapsed);
        timing.moves.push(elapsed);
        if let Some(clocks) = &mut clocks {
            let before = clocks[side];
            let timed_out = matches!(answer, Err(ControllerError::Timeout { .. }));
            if !clocks[side].spend(elapsed) || timed_out {
                return Some(lost_on_time(side, color, &before, elapsed));
            }
        }
        let mv = match answer {
            Err(err) => return Some(forfeit_from_error(side, &err)),
            Ok(GenMove::Resign) => {
                game.resign().expect("the game is not over");
                on_move(game);
                return None;
            }
            Ok(GenMove::Move(mv)) => mv,
        };
        if let Err(illegal) = game.play(mv) {
            return Some(Forfeit {
                engine: side,
                kind: ForfeitKind::IllegalMove,
                mv: Some(size.gtp(mv)),
                reason: format!("{} {}: {illegal}", color.name(), size.gtp(mv)),
            });
        }
        if let Err(err) = engines[other].play(color, mv) {
            // The referee found the move legal; an opponent that refuses it
            // (different ko rules, a bug) or breaks down loses.
            let mut forfeit = forfeit_from_error(other, &err);
            if matches!(mv, Move::Play(_)) && forfeit.kind == ForfeitKind::EngineError {
                forfeit.mv = Some(size.gtp(mv));
            }
            return Some(forfeit);
        }
        on_move(game);
    }
    None
}

/// The forfeit of an engine whose clock ran out on a move that took `elapsed`,
/// `before` being its clock when the move was asked for.
fn lost_on_time(engine: usize, color: Color, before: &ClockState, elapsed: Duration) -> Forfeit {
    let (_, stones) = before.time_left(false);
    let period = if stones > 0 {
        format!(" for {stones} more stones in byo-yomi")
    } else {
        String::new()
    };
    Forfeit {
        engine,
        kind: ForfeitKind::Timeout,
        mv: None,
        reason: format!(
            "{} lost on time: the move took {:.2}s with {:.2}s left{period} (clock {})",
            color.name(),
            elapsed.as_secs_f64(),
            before.available().as_secs_f64(),
            before.clock(),
        ),
    }
}

/// Sorted, deduplicated stones an engine calls dead, or `None` if it cannot say.
fn dead_stones(engine: &mut Controller) -> Option<Vec<Point>> {
    match engine.final_status_list(StoneStatus::Dead) {
        Ok(mut points) => {
            points.sort();
            points.dedup();
            Some(points)
        }
        Err(err) => {
            tracing::debug!("no dead stone list from {}: {err}", engine.command_line());
            None
        }
    }
}

/// Counts a finished game: the dead stones both engines list when they list
/// the same ones, else those of tengen's own estimate (the count the GTP
/// engine and the web page make, [`game_status`]); then the referee's count
/// under the match rules, and each engine's own `final_score` compared with
/// it. Returns the referee's score.
fn count(game: &Game, engines: [&mut Controller; 2], record: &mut GameRecord) -> Score {
    let [first, second] = engines;
    let lists = [dead_stones(first), dead_stones(second)];
    let dead = match &lists {
        [Some(a), Some(b)] if a == b => {
            record.dead_agreed = Some(true);
            a.clone()
        }
        _ => {
            record.dead_agreed = Some(false);
            game_status(game, DEFAULT_STATUS_PLAYOUTS, DEFAULT_STATUS_SEED).dead_points()
        }
    };
    // Only stones actually on the board count as removed.
    let dead: Vec<Point> = dead
        .into_iter()
        .filter(|&p| game.board().stone(p).is_some())
        .collect();
    record.dead_stones = dead.len();
    let score = game.score_with_dead(&dead);
    record.result = Outcome::Counted(score).to_string();
    for (e, engine) in [first, second].into_iter().enumerate() {
        match engine.final_score() {
            Ok(theirs) => {
                record.engine_scores[e] = Some(theirs.to_string());
                record.scores_agree[e] = Some(agrees(theirs, score));
            }
            Err(err) => {
                tracing::debug!("no final score from {}: {err}", engine.command_line());
            }
        }
    }
    score
}

/// Whether an engine's score matches the referee's: same winner, and the same
/// margin when the engine gave one.
fn agrees(theirs: FinalScore, referee: Score) -> bool {
    theirs.winner == referee.winner()
        && theirs
            .margin
            .is_none_or(|margin| (margin - referee.margin().abs()).abs() < 1e-6)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(commands: &[&str]) -> Vec<String> {
        commands.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn the_rules_command_suits_the_engine() {
        let chinese = Rules::preset("chinese").unwrap();
        let both = listed(&["kgs-rules", "tengen-rules"]);
        assert_eq!(
            rules_command(&chinese, &both).as_deref(),
            Some("tengen-rules chinese")
        );
        let kgs = listed(&["play", "kgs-rules"]);
        assert_eq!(
            rules_command(&chinese.with_komi(6.5), &kgs).as_deref(),
            Some("kgs-rules chinese")
        );
        let nz = Rules::preset("new-zealand").unwrap().with_komi(0.5);
        assert_eq!(
            rules_command(&nz, &kgs).as_deref(),
            Some("kgs-rules new_zealand")
        );
        let tromp_taylor = Rules::preset("tromp-taylor").unwrap();
        assert_eq!(rules_command(&tromp_taylor, &kgs), None);
        // KataGo hears every rule set as its JSON.
        let katago = listed(&["kgs-rules", "kata-set-rules"]);
        let japanese = Rules::preset("japanese").unwrap();
        assert_eq!(
            rules_command(&japanese, &katago),
            Some(format!(
                "kata-set-rules {}",
                japanese.to_katago_json().unwrap()
            ))
        );
        assert_eq!(rules_command(&chinese, &listed(&["play"])), None);
        let nogo = Rules::preset("nogo").unwrap();
        assert_eq!(rules_command(&nogo, &both), None);
    }
}
