//! A query line as KataGo's analysis engine reads it, checked field by
//! field into typed requests: the positions to analyse, the settings of
//! their searches, what to report; or an action. A bad field is an error
//! that names it; a field tengen does not know, or a setting it cannot
//! honour, is a warning and the query goes on.

use std::time::Duration;

use serde_json::{Map, Value};
use tengen_core::{AnalysisDetail, Board, BoardSize, Color, Game, Move, MoveFilter, Rules};

use crate::settings::{self, EngineSettings, Scope, SearchSettings};

/// A query that could not be served, in KataGo's error shape.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct QueryError {
    /// The query's id, when it had a readable one.
    pub id: Option<String>,
    /// The field at fault, if one is.
    pub field: Option<String>,
    /// Why.
    pub message: String,
}

/// A remark on a field that did not stop the query.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    /// The field.
    pub field: String,
    /// What was done instead.
    pub message: String,
}

/// What a line asks.
#[derive(Debug)]
pub enum Request {
    /// Positions to analyse.
    Analyze(Box<Query>),
    /// One of the special actions.
    Action(ActionRequest),
}

/// A special action, and the query to echo in its answer.
#[derive(Debug)]
pub struct ActionRequest {
    /// The query's id.
    pub id: String,
    /// What to do.
    pub action: Action,
    /// The query as sent (echoed back).
    pub echo: Map<String, Value>,
}

/// The special actions.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// `query_version`.
    QueryVersion,
    /// `clear_cache`.
    ClearCache,
    /// `terminate` (an id) or `terminate_all` (`None`), optionally only
    /// some turns.
    Terminate {
        /// Whose queries.
        id: Option<String>,
        /// Which of their turns (all when `None`).
        turns: Option<Vec<usize>>,
    },
    /// `query_models`.
    QueryModels,
}

/// What a response includes beyond the essentials.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Include {
    /// `includeOwnership`.
    pub ownership: bool,
    /// `includeOwnershipStdev`.
    pub ownership_stdev: bool,
    /// `includeMovesOwnership`.
    pub moves_ownership: bool,
    /// `includeMovesOwnershipStdev`.
    pub moves_ownership_stdev: bool,
    /// `includePolicy`.
    pub policy: bool,
    /// `includePVVisits`.
    pub pv_visits: bool,
    /// `includeNoResultValue`.
    pub no_result: bool,
}

impl Include {
    /// What the search must gather for these.
    pub fn detail(&self) -> AnalysisDetail {
        AnalysisDetail {
            moves_ownership: self.moves_ownership || self.moves_ownership_stdev,
            ownership_stdev: self.ownership_stdev || self.moves_ownership_stdev,
        }
    }
}

/// One position of a query.
#[derive(Clone, Debug)]
pub struct Position {
    /// Its turn number (0: before the first move).
    pub turn: usize,
    /// Its priority (higher first).
    pub priority: i64,
    /// The game up to it.
    pub game: Game,
}

/// An analysis query.
#[derive(Debug)]
pub struct Query {
    /// The query's id.
    pub id: String,
    /// The positions to analyse, in the order of `analyzeTurns`.
    pub positions: Vec<Position>,
    /// The settings of their searches.
    pub settings: SearchSettings,
    /// What responses include.
    pub include: Include,
    /// `avoidMoves` and `allowMoves`.
    pub filters: Vec<MoveFilter>,
    /// `reportDuringSearchEvery`.
    pub report_every: Option<Duration>,
    /// `firstReportDuringSearchAfter`: the first report then, the others
    /// every `report_every`.
    pub first_report: Option<Duration>,
    /// Remarks to send before the analysis.
    pub warnings: Vec<Warning>,
}

/// The fields of a query object, read one by one; what was never read is
/// unknown.
struct Fields<'a> {
    object: &'a Map<String, Value>,
    id: Option<String>,
    read: Vec<&'static str>,
}

impl<'a> Fields<'a> {
    fn error(&self, field: &str, message: impl Into<String>) -> QueryError {
        QueryError {
            id: self.id.clone(),
            field: Some(field.to_string()),
            message: message.into(),
        }
    }

    fn get(&mut self, name: &'static str) -> Option<&'a Value> {
        self.read.push(name);
        self.object.get(name).filter(|v| !v.is_null())
    }

    fn bool(&mut self, name: &'static str) -> Result<Option<bool>, QueryError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.error(name, "must be a boolean")),
        }
    }

    fn whole(&mut self, name: &'static str, min: i64, max: i64) -> Result<Option<i64>, QueryError> {
        match self.get(name) {
            None => Ok(None),
            Some(value) => whole(value, min, max)
                .map(Some)
                .map_err(|m| self.error(name, m)),
        }
    }

    fn real(&mut self, name: &'static str, min: f64, max: f64) -> Result<Option<f64>, QueryError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_f64() {
                Some(v) if v.is_finite() && v >= min && v <= max => Ok(Some(v)),
                _ => Err(self.error(name, format!("must be a number from {min} to {max}"))),
            },
            Some(_) => Err(self.error(name, format!("must be a number from {min} to {max}"))),
        }
    }

    fn string(&mut self, name: &'static str) -> Result<Option<&'a str>, QueryError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.error(name, "must be a string")),
        }
    }

    fn array(&mut self, name: &'static str) -> Result<Option<&'a Vec<Value>>, QueryError> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Array(items)) => Ok(Some(items)),
            Some(_) => Err(self.error(name, "must be an array")),
        }
    }

    /// Warnings for the fields never read.
    fn unknown(&self) -> Vec<Warning> {
        self.object
            .keys()
            .filter(|k| {
                !self.read.contains(&k.as_str()) && k.as_str() != "id" && k.as_str() != "action"
            })
            .map(|k| Warning {
                field: k.clone(),
                message: "unknown field, ignored".to_string(),
            })
            .collect()
    }
}

fn whole(value: &Value, min: i64, max: i64) -> Result<i64, String> {
    let text = || format!("must be a whole number from {min} to {max}");
    let Value::Number(n) = value else {
        return Err(text());
    };
    let v = match (n.as_i64(), n.as_f64()) {
        (Some(v), _) => v,
        (None, Some(f)) if f.fract() == 0.0 && f.abs() < 9e18 => f as i64,
        _ => return Err(text()),
    };
    if v < min || v > max {
        return Err(text());
    }
    Ok(v)
}

/// Parses one line. `max_side`: the largest board side the network runs.
pub fn parse(
    line: &str,
    defaults: &EngineSettings,
    max_side: usize,
) -> Result<Request, QueryError> {
    let value: Value = serde_json::from_str(line).map_err(|e| QueryError {
        id: None,
        field: None,
        message: format!("could not parse the query as JSON: {e}"),
    })?;
    let Value::Object(object) = value else {
        return Err(QueryError {
            id: None,
            field: None,
            message: "a query must be a JSON object".to_string(),
        });
    };
    let id = match object.get("id") {
        Some(Value::String(id)) => id.clone(),
        Some(_) => {
            return Err(QueryError {
                id: None,
                field: Some("id".to_string()),
                message: "must be a string".to_string(),
            })
        }
        None => {
            return Err(QueryError {
                id: None,
                field: Some("id".to_string()),
                message: "every query needs an id".to_string(),
            })
        }
    };
    let mut fields = Fields {
        object: &object,
        id: Some(id.clone()),
        read: Vec::new(),
    };
    if let Some(action) = object.get("action") {
        let action = action_of(&mut fields, action)?;
        return Ok(Request::Action(ActionRequest {
            id,
            action,
            echo: object.clone(),
        }));
    }
    parse_query(fields, id, defaults, max_side).map(|q| Request::Analyze(Box::new(q)))
}

fn action_of(fields: &mut Fields<'_>, action: &Value) -> Result<Action, QueryError> {
    let Value::String(name) = action else {
        return Err(fields.error("action", "must be a string"));
    };
    let turns = |fields: &mut Fields<'_>| -> Result<Option<Vec<usize>>, QueryError> {
        let Some(items) = fields.array("turnNumbers")? else {
            return Ok(None);
        };
        items
            .iter()
            .map(|v| whole(v, 0, 1_000_000).map(|n| n as usize))
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
            .map_err(|m| fields.error("turnNumbers", m))
    };
    Ok(match name.as_str() {
        "query_version" => Action::QueryVersion,
        "clear_cache" => Action::ClearCache,
        "query_models" => Action::QueryModels,
        "terminate" => {
            let Some(target) = fields.string("terminateId")? else {
                return Err(fields.error("terminateId", "terminate needs the id of the queries to end"));
            };
            let target = target.to_string();
            Action::Terminate {
                id: Some(target),
                turns: turns(fields)?,
            }
        }
        "terminate_all" => Action::Terminate {
            id: None,
            turns: turns(fields)?,
        },
        other => {
            return Err(fields.error(
                "action",
                format!("unknown action {other:?} (query_version, clear_cache, terminate, terminate_all, query_models)"),
            ))
        }
    })
}

/// Reads an analysis query's fields, in KataGo's order of checks: the
/// board, rules, stones and moves, the turns to analyse, the settings,
/// what to report and the move filters.
fn parse_query(
    mut fields: Fields<'_>,
    id: String,
    defaults: &EngineSettings,
    max_side: usize,
) -> Result<Query, QueryError> {
    let mut warnings = Vec::new();
    let size = board_size(&mut fields, max_side)?;
    let rules = query_rules(&mut fields)?;
    let (initial, moves, initial_player) = stones_and_moves(&mut fields, size)?;
    let start = start_position(&fields, size, rules, &initial, initial_player, &moves)?;
    let (turns, priorities) = analysed_turns(&mut fields, moves.len())?;
    let positions = replay_positions(&fields, size, start, &moves, &turns, &priorities)?;
    let engine = query_settings(&mut fields, defaults, &mut warnings)?;
    let include = include_of(&mut fields)?;
    let filters = move_filters(&mut fields, size)?;
    let report_every = fields
        .real("reportDuringSearchEvery", 0.001, 1e6)?
        .map(Duration::from_secs_f64);
    let first_report = fields
        .real("firstReportDuringSearchAfter", 0.0, 1e6)?
        .map(Duration::from_secs_f64);
    warnings.extend(fields.unknown());
    Ok(Query {
        id,
        positions,
        settings: engine.search,
        include,
        filters,
        report_every,
        first_report,
        warnings,
    })
}

/// The board size from `boardXSize` and `boardYSize`, both required, each
/// from 1 to `max_side`.
fn board_size(fields: &mut Fields<'_>, max_side: usize) -> Result<BoardSize, QueryError> {
    let max = max_side as i64;
    let width = fields.whole("boardXSize", 1, max)?.ok_or_else(|| {
        fields.error(
            "boardXSize",
            format!("required: the board's width, 1 to {max}"),
        )
    })?;
    let height = fields.whole("boardYSize", 1, max)?.ok_or_else(|| {
        fields.error(
            "boardYSize",
            format!("required: the board's height, 1 to {max}"),
        )
    })?;
    BoardSize::new(width as usize, height as usize)
        .map_err(|e| fields.error("boardXSize", e.to_string()))
}

/// The rules from `rules` (required), with `komi` and `whiteHandicapBonus`
/// when given.
fn query_rules(fields: &mut Fields<'_>) -> Result<Rules, QueryError> {
    let rules_value = fields
        .get("rules")
        .ok_or_else(|| fields.error("rules", "required: a rules name or object"))?;
    let mut rules = parse_rules(rules_value).map_err(|m| fields.error("rules", m))?;
    let komi = fields.real("komi", -400.0, 400.0)?;
    if let Some(komi) = komi {
        if (komi * 2.0).fract() != 0.0 {
            return Err(fields.error("komi", "must be a whole or half number"));
        }
        rules.komi = komi;
    }
    if let Some(value) = fields.get("whiteHandicapBonus") {
        rules.handicap_bonus = parse_handicap_bonus(value)
            .ok_or_else(|| fields.error("whiteHandicapBonus", "must be \"0\", \"N\" or \"N-1\""))?;
    }
    Ok(rules)
}

/// The player `text` names in `field`: `"B"` or `"W"` (or `"BLACK"`,
/// `"WHITE"`), in any case.
fn player_of(fields: &Fields<'_>, field: &str, text: &Value) -> Result<Color, QueryError> {
    match text.as_str().map(str::to_ascii_uppercase).as_deref() {
        Some("B") | Some("BLACK") => Ok(Color::Black),
        Some("W") | Some("WHITE") => Ok(Color::White),
        _ => Err(fields.error(field, format!("{text} is not a player (\"B\" or \"W\")"))),
    }
}

/// Stones or moves, each with its player.
type Stones = Vec<(Color, Move)>;

/// The `[player, location]` pairs of the list field `name`, empty when it
/// is absent.
fn stone_list(
    fields: &mut Fields<'_>,
    name: &'static str,
    size: BoardSize,
) -> Result<Stones, QueryError> {
    let Some(items) = fields.array(name)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let pair = item.as_array().filter(|p| p.len() == 2).ok_or_else(|| {
            fields.error(name, format!("entry {i} must be a [player, location] pair"))
        })?;
        let color = player_of(fields, name, &pair[0])?;
        let text = pair[1].as_str().ok_or_else(|| {
            fields.error(name, format!("entry {i}: the location must be a string"))
        })?;
        let mv = parse_location(size, text)
            .map_err(|m| fields.error(name, format!("entry {i}: {m}")))?;
        out.push((color, mv));
    }
    Ok(out)
}

/// The stones and moves of a query: `initialStones`, `moves` (required)
/// and `initialPlayer`.
fn stones_and_moves(
    fields: &mut Fields<'_>,
    size: BoardSize,
) -> Result<(Stones, Stones, Option<Color>), QueryError> {
    let initial = stone_list(fields, "initialStones", size)?;
    let moves = stone_list(fields, "moves", size)?;
    if fields.get("moves").is_none() {
        return Err(fields.error("moves", "required: the moves played (may be empty)"));
    }
    let initial_player = match fields.get("initialPlayer") {
        None => None,
        Some(v) => Some(player_of(fields, "initialPlayer", v)?),
    };
    Ok((initial, moves, initial_player))
}

/// The starting position: the initial stones placed, the initial player
/// (else the first mover, else Black) to move.
fn start_position(
    fields: &Fields<'_>,
    size: BoardSize,
    rules: Rules,
    initial: &[(Color, Move)],
    initial_player: Option<Color>,
    moves: &[(Color, Move)],
) -> Result<Game, QueryError> {
    let mut board = Board::new(size);
    for (i, &(color, mv)) in initial.iter().enumerate() {
        let Move::Play(point) = mv else {
            return Err(fields.error("initialStones", format!("entry {i}: a pass is not a stone")));
        };
        board
            .place_setup_stone(point, color)
            .map_err(|e| fields.error("initialStones", format!("entry {i}: {e}")))?;
    }
    // White's handicap bonus for Black stones placed at the start is the
    // game's to count (`Game::handicap_stones`), as KataGo counts it.
    let first = initial_player
        .or_else(|| moves.first().map(|&(c, _)| c))
        .unwrap_or(Color::Black);
    Ok(Game::from_position(board, first, rules))
}

/// Which turns to analyse (`analyzeTurns`, else the last) of a game of
/// `move_count` moves, with their priorities (`priorities`, else
/// `priority` for all).
fn analysed_turns(
    fields: &mut Fields<'_>,
    move_count: usize,
) -> Result<(Vec<usize>, Vec<i64>), QueryError> {
    let turns: Vec<usize> = match fields.array("analyzeTurns")? {
        None => vec![move_count],
        Some(items) => {
            let mut turns = Vec::with_capacity(items.len());
            for item in items {
                let turn = whole(item, 0, move_count as i64).map_err(|_| {
                    fields.error(
                        "analyzeTurns",
                        format!("{item} is not a turn of this game (0 to {move_count})"),
                    )
                })?;
                turns.push(turn as usize);
            }
            turns
        }
    };
    let priority = fields
        .whole("priority", i64::from(i32::MIN), i64::from(i32::MAX))?
        .unwrap_or(0);
    let priorities: Vec<i64> = match fields.array("priorities")? {
        None => vec![priority; turns.len()],
        Some(items) => {
            if items.len() != turns.len() {
                return Err(fields.error("priorities", "must have one priority per analysed turn"));
            }
            items
                .iter()
                .map(|v| whole(v, i64::from(i32::MIN), i64::from(i32::MAX)))
                .collect::<Result<_, _>>()
                .map_err(|m| fields.error("priorities", m))?
        }
    };
    Ok((turns, priorities))
}

/// Replays the whole record from `start` (a game with an illegal move is
/// refused as a whole), keeping the games of the analysed turns as the
/// query's positions, in the order of `turns`.
fn replay_positions(
    fields: &Fields<'_>,
    size: BoardSize,
    start: Game,
    moves: &[(Color, Move)],
    turns: &[usize],
    priorities: &[i64],
) -> Result<Vec<Position>, QueryError> {
    let mut wanted: Vec<usize> = turns.to_vec();
    wanted.sort_unstable();
    wanted.dedup();
    let mut games: Vec<(usize, Game)> = Vec::with_capacity(wanted.len());
    start
        .replay(moves, |turn, game| {
            if wanted.binary_search(&turn).is_ok() {
                games.push((turn, game.clone()));
            }
        })
        .map_err(|e| {
            fields.error(
                "moves",
                format!(
                    "move {} ({} {}) is illegal: {}",
                    e.index,
                    e.color.letter(),
                    size.gtp(e.mv),
                    e.reason
                ),
            )
        })?;
    Ok(turns
        .iter()
        .zip(priorities)
        .map(|(&turn, &priority)| Position {
            turn,
            priority,
            game: games
                .iter()
                .find(|(t, _)| *t == turn)
                .map(|(_, g)| g.clone())
                .expect("every analysed turn replayed"),
        })
        .collect())
}

/// The settings of the query's searches: the defaults, then the query's
/// own fields and `overrideSettings`.
fn query_settings(
    fields: &mut Fields<'_>,
    defaults: &EngineSettings,
    warnings: &mut Vec<Warning>,
) -> Result<EngineSettings, QueryError> {
    let mut engine = defaults.clone();
    // KataGo reads these four at the top level of a query as well.
    for name in [
        "maxVisits",
        "rootPolicyTemperature",
        "rootFpuReductionMax",
        "analysisPVLen",
    ] {
        let Some(value) = fields.get(name) else {
            continue;
        };
        let entry = settings::find(name).expect("a setting of the table");
        let text = setting_text(value).ok_or_else(|| fields.error(name, "must be a number"))?;
        entry
            .apply(&mut engine, name, &text)
            .map_err(|e| fields.error(name, e.to_string()))?;
    }
    if let Some(overrides) = fields.get("overrideSettings") {
        apply_overrides(fields, overrides, &mut engine, warnings)?;
    }
    Ok(engine)
}

/// Applies `overrideSettings` to `engine`: a setting a query may change is
/// set, one only the command line may, or one tengen does not know, is a
/// warning.
fn apply_overrides(
    fields: &Fields<'_>,
    overrides: &Value,
    engine: &mut EngineSettings,
    warnings: &mut Vec<Warning>,
) -> Result<(), QueryError> {
    let Value::Object(overrides) = overrides else {
        return Err(fields.error("overrideSettings", "must be an object"));
    };
    for (name, value) in overrides {
        let text = setting_text(value).ok_or_else(|| {
            fields.error(
                "overrideSettings",
                format!("{name}: must be a boolean, number or string"),
            )
        })?;
        match settings::find(name) {
            Some(entry) if entry.scope == Scope::Query => entry
                .apply(engine, name, &text)
                .map_err(|e| fields.error("overrideSettings", e.to_string()))?,
            Some(_) => warnings.push(Warning {
                field: "overrideSettings".to_string(),
                message: format!("{name} can only be set on the command line; ignored"),
            }),
            None => warnings.push(Warning {
                field: "overrideSettings".to_string(),
                message: format!("{name} is not supported by tengen; ignored"),
            }),
        }
    }
    Ok(())
}

/// A setting's value in a query as the text a config file would give.
fn setting_text(value: &Value) -> Option<String> {
    match value {
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// What the responses include, from the `include...` fields.
fn include_of(fields: &mut Fields<'_>) -> Result<Include, QueryError> {
    Ok(Include {
        ownership: fields.bool("includeOwnership")?.unwrap_or(false),
        ownership_stdev: fields.bool("includeOwnershipStdev")?.unwrap_or(false),
        moves_ownership: fields.bool("includeMovesOwnership")?.unwrap_or(false),
        moves_ownership_stdev: fields.bool("includeMovesOwnershipStdev")?.unwrap_or(false),
        policy: fields.bool("includePolicy")?.unwrap_or(false),
        pv_visits: fields.bool("includePVVisits")?.unwrap_or(false),
        no_result: fields.bool("includeNoResultValue")?.unwrap_or(false),
    })
}

/// The move filters of `avoidMoves` and `allowMoves`, at most one allow
/// entry per player.
fn move_filters(fields: &mut Fields<'_>, size: BoardSize) -> Result<Vec<MoveFilter>, QueryError> {
    let mut filters = Vec::new();
    for (name, allow) in [("avoidMoves", false), ("allowMoves", true)] {
        let Some(items) = fields.array(name)? else {
            continue;
        };
        for (i, item) in items.iter().enumerate() {
            let filter = parse_filter(size, item, allow)
                .map_err(|m| fields.error(name, format!("entry {i}: {m}")))?;
            if allow
                && filters
                    .iter()
                    .any(|f: &MoveFilter| f.allow && f.color == filter.color)
            {
                return Err(fields.error(name, "at most one entry per player"));
            }
            filters.push(filter);
        }
    }
    Ok(filters)
}

fn parse_filter(size: BoardSize, item: &Value, allow: bool) -> Result<MoveFilter, String> {
    let Value::Object(entry) = item else {
        return Err("must be an object with player, moves and untilDepth".to_string());
    };
    let color = match entry
        .get("player")
        .and_then(Value::as_str)
        .map(str::to_ascii_uppercase)
        .as_deref()
    {
        Some("B") | Some("BLACK") => Color::Black,
        Some("W") | Some("WHITE") => Color::White,
        _ => return Err("player must be \"B\" or \"W\"".to_string()),
    };
    let Some(Value::Array(list)) = entry.get("moves") else {
        return Err("moves must be an array of locations".to_string());
    };
    let mut moves = Vec::with_capacity(list.len());
    for m in list {
        let text = m.as_str().ok_or("moves must be strings")?;
        moves.push(parse_location(size, text)?);
    }
    let until = entry
        .get("untilDepth")
        .ok_or("untilDepth is required")
        .and_then(|v| {
            whole(v, 1, 1_000_000).map_err(|_| "untilDepth must be a whole number from 1")
        })
        .map_err(str::to_string)?;
    Ok(MoveFilter {
        color,
        moves,
        until_depth: until as u32,
        allow,
    })
}

/// A location as KataGo reads it: `pass`, GTP's `D4` (columns past `Z`
/// as `AA`, `AB`…) or `(x,y)` counted from the top-left corner.
pub fn parse_location(size: BoardSize, text: &str) -> Result<Move, String> {
    let trimmed = text.trim();
    if let Some(inner) = trimmed.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        let mut parts = inner.split(',').map(str::trim);
        let (Some(x), Some(y), None) = (parts.next(), parts.next(), parts.next()) else {
            return Err(format!("{text:?} is not a location"));
        };
        let (Ok(x), Ok(y)) = (x.parse::<usize>(), y.parse::<usize>()) else {
            return Err(format!("{text:?} is not a location"));
        };
        if x >= size.width() || y >= size.height() {
            return Err(format!(
                "{text:?} is off the {}x{} board",
                size.width(),
                size.height()
            ));
        }
        return Ok(Move::Play(
            size.point(x, size.height() - 1 - y).expect("on the board"),
        ));
    }
    size.parse_gtp(trimmed).map_err(|e| e.to_string())
}

mod rules;
use rules::{parse_handicap_bonus, parse_rules};

#[cfg(test)]
mod tests;
