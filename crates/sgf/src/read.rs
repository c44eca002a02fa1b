//! The main line of an SGF record replayed into a [`Game`].

use std::fmt;

use tengen_core::{Board, BoardSize, Color, Game, Move, Rules};

use crate::parse::{parse_collection, Node, ParseError};

/// A game read from a record, with the root's text properties.
#[derive(Clone, Debug)]
pub struct Record {
    /// The game after the last move of the main line.
    pub game: Game,
    /// `PB`, if present.
    pub black_name: Option<String>,
    /// `PW`, if present.
    pub white_name: Option<String>,
    /// `RE`, if present.
    pub result: Option<String>,
    /// Moves that broke the rules and were executed anyway
    /// ([`IllegalMovePolicy::Execute`]); empty under the strict policy.
    pub executed_illegal: Vec<ExecutedIllegal>,
}

/// What to do with a move of the record that the rules forbid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IllegalMovePolicy {
    /// Stop with [`ReadError::IllegalMove`] naming the node.
    #[default]
    Stop,
    /// Do what the SGF specification says: put the stone down (replacing any
    /// stone on the point), remove opponent chains without liberties, then the
    /// mover's own chain if it has none; record the move in
    /// [`Record::executed_illegal`] and go on. The game's history restarts
    /// from the position reached, since no legal sequence leads there.
    Execute,
}

/// A move executed although the rules forbid it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecutedIllegal {
    /// Main-line node number.
    pub node: usize,
    /// The move as written.
    pub value: String,
    /// Why the rules forbid it.
    pub reason: tengen_core::IllegalMove,
}

/// Why a record could not be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// The text is not SGF.
    Syntax(ParseError),
    /// `GM` names a game other than Go.
    NotGo(String),
    /// A property value that cannot be understood here.
    BadValue {
        /// Property identifier.
        property: String,
        /// The value.
        value: String,
        /// Main-line node number, 0 for the root.
        node: usize,
    },
    /// A move of the main line is illegal.
    IllegalMove {
        /// Main-line node number.
        node: usize,
        /// The move as written.
        value: String,
        /// Why it is illegal.
        reason: tengen_core::IllegalMove,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Syntax(e) => write!(f, "{e}"),
            ReadError::NotGo(gm) => write!(f, "GM[{gm}] is not Go"),
            ReadError::BadValue {
                property,
                value,
                node,
            } => {
                write!(f, "node {node}: bad {property}[{value}]")
            }
            ReadError::IllegalMove {
                node,
                value,
                reason,
            } => {
                write!(f, "node {node}: illegal move [{value}]: {reason}")
            }
        }
    }
}

impl std::error::Error for ReadError {}

/// The rules named by an `RU` value; unknown names fall back to the default
/// rules (the record still replays: only scoring and superko depend on them).
fn rules_from(ru: Option<&str>) -> Rules {
    let Some(name) = ru else {
        return Rules::default();
    };
    let lowered = name.trim().to_ascii_lowercase();
    let preset = match lowered.as_str() {
        "japanese" | "jp" | "korean" => "japanese",
        "chinese" | "cn" => "chinese",
        "aga" => "aga",
        "nz" | "new zealand" | "new-zealand" => "new-zealand",
        "tromp-taylor" | "tt" => "tromp-taylor",
        other => other,
    };
    Rules::preset(preset)
        .or_else(|| name.parse().ok())
        .unwrap_or_default()
}

/// Replays the main line of the first game tree in `text`: setup (`AB`, `AW`,
/// `AE`, `PL`) and moves (`B`, `W`), with size (`SZ`), komi (`KM`) and rules
/// (`RU`) from the root. Moves are checked against the rules; the first
/// illegal one stops the replay with an error naming its node.
pub fn read_game(text: &str) -> Result<Record, ReadError> {
    read_game_with(text, IllegalMovePolicy::Stop)
}

/// [`read_game`] with a choice of what to do with illegal moves.
pub fn read_game_with(text: &str, policy: IllegalMovePolicy) -> Result<Record, ReadError> {
    let mut executed_illegal = Vec::new();
    let trees = parse_collection(text).map_err(ReadError::Syntax)?;
    let root = &trees[0];
    let bad = |property: &str, value: &str, node: usize| ReadError::BadValue {
        property: property.to_string(),
        value: value.to_string(),
        node,
    };
    if let Some(gm) = root.first("GM") {
        if gm.trim() != "1" {
            return Err(ReadError::NotGo(gm.to_string()));
        }
    }
    let size = match root.first("SZ") {
        None => BoardSize::square(19).map_err(|_| bad("SZ", "19", 0))?,
        Some(sz) => {
            let parsed = match sz.split_once(':') {
                Some((w, h)) => w
                    .trim()
                    .parse()
                    .ok()
                    .zip(h.trim().parse().ok())
                    .and_then(|(w, h)| BoardSize::new(w, h).ok()),
                None => sz
                    .trim()
                    .parse()
                    .ok()
                    .and_then(|s| BoardSize::square(s).ok()),
            };
            parsed.ok_or_else(|| bad("SZ", sz, 0))?
        }
    };
    let mut rules = rules_from(root.first("RU"));
    if let Some(km) = root.first("KM") {
        match km.trim().parse::<f64>() {
            Ok(komi) if komi.is_finite() && komi.abs() <= 1000.0 => rules.komi = komi,
            _ if km.trim().is_empty() => {}
            _ => return Err(bad("KM", km, 0)),
        }
    }

    // Setup in the root (and any later setup node before the first move).
    let mut board = Board::new(size);
    let mut game: Option<Game> = None;
    let mut node: &Node = root;
    let mut index = 0;
    loop {
        let has_setup = ["AB", "AW", "AE"].iter().any(|id| node.get(id).is_some());
        if has_setup {
            if let Some(g) = game.take() {
                // Setup after moves: continue from the position reached.
                board = g.board().clone();
            }
            for (id, color) in [
                ("AB", Some(Color::Black)),
                ("AW", Some(Color::White)),
                ("AE", None),
            ] {
                for value in node.get(id).unwrap_or_default() {
                    for point in expand_points(size, value).ok_or_else(|| bad(id, value, index))? {
                        board = replace_stone(&board, point, color)
                            .ok_or_else(|| bad(id, value, index))?;
                    }
                }
            }
        }
        let to_move = match node.first("PL") {
            Some(pl) => Color::parse(pl.trim()).ok_or_else(|| bad("PL", pl, index))?,
            None => game.as_ref().map_or_else(
                || {
                    if node.get("W").is_some() && node.get("B").is_none() {
                        Color::White
                    } else {
                        Color::Black
                    }
                },
                Game::to_move,
            ),
        };
        if game.is_none() || has_setup || node.first("PL").is_some() {
            game = Some(start_game(root, &board, to_move, rules, index));
        }
        let current = game.as_mut().expect("game set above");
        for (id, color) in [("B", Color::Black), ("W", Color::White)] {
            if let Some(value) = node.first(id) {
                let mv = size
                    .parse_sgf(value.trim())
                    .map_err(|_| bad(id, value, index))?;
                match current.play_as(color, mv) {
                    Ok(()) => {}
                    Err(reason) if policy == IllegalMovePolicy::Execute => {
                        let mut forced = current.board().clone();
                        if let Some(point) = mv.point() {
                            if forced.stone(point).is_some() {
                                forced = replace_stone(&forced, point, None)
                                    .ok_or_else(|| bad(id, value, index))?;
                            }
                            forced.play(point, color);
                        }
                        *current = Game::from_position(forced, !color, rules);
                        executed_illegal.push(ExecutedIllegal {
                            node: index,
                            value: value.to_string(),
                            reason,
                        });
                    }
                    Err(reason) => {
                        return Err(ReadError::IllegalMove {
                            node: index,
                            value: value.to_string(),
                            reason,
                        })
                    }
                }
            }
        }
        match node.children.first() {
            Some(next) => {
                node = next;
                index += 1;
            }
            None => break,
        }
    }
    Ok(Record {
        game: game.unwrap_or_else(|| Game::from_position(board, Color::Black, rules)),
        black_name: root.first("PB").map(str::to_string),
        white_name: root.first("PW").map(str::to_string),
        result: root.first("RE").map(str::to_string),
        executed_illegal,
    })
}

/// A game from a set-up position. In the root, Black stones matching `HA`
/// with White to move are a handicap, which the game records as such.
fn start_game(root: &Node, board: &Board, to_move: Color, rules: Rules, index: usize) -> Game {
    let size = board.size();
    let handicap: usize = root
        .first("HA")
        .and_then(|ha| ha.trim().parse().ok())
        .unwrap_or(0);
    let black: Vec<_> = size
        .points()
        .filter(|&p| board.stone(p) == Some(Color::Black))
        .collect();
    let no_white = board.stone_count(Color::White) == 0;
    if index == 0 && handicap >= 2 && black.len() == handicap && no_white && to_move == Color::White
    {
        if let Ok(game) = Game::with_free_handicap(size, rules, &black) {
            return game;
        }
    }
    Game::from_position(board.clone(), to_move, rules)
}

/// A point value or a compressed rectangle `aa:cc` (FF\[4\] point lists).
fn expand_points(size: BoardSize, value: &str) -> Option<Vec<tengen_core::Point>> {
    let value = value.trim();
    let point = |text: &str| match size.parse_sgf(text) {
        Ok(Move::Play(p)) => Some(p),
        _ => None,
    };
    match value.split_once(':') {
        None => point(value).map(|p| vec![p]),
        Some((a, b)) => {
            let (a, b) = (point(a)?, point(b)?);
            let ((c1, r1), (c2, r2)) = (size.col_row(a), size.col_row(b));
            let mut points = Vec::new();
            for row in r1.min(r2)..=r1.max(r2) {
                for col in c1.min(c2)..=c1.max(c2) {
                    points.push(size.point(col, row)?);
                }
            }
            Some(points)
        }
    }
}

/// The board with `point` set to `color` (or emptied), rebuilt so that every
/// invariant holds; `None` if the result would leave a chain without liberties.
fn replace_stone(board: &Board, point: tengen_core::Point, color: Option<Color>) -> Option<Board> {
    let size = board.size();
    let mut fresh = Board::new(size);
    for p in size.points() {
        let stone = if p == point { color } else { board.stone(p) };
        if let Some(c) = stone {
            fresh.place_setup_stone(p, c).ok()?;
        }
    }
    Some(fresh)
}
