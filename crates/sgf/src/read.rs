//! The main line of an SGF record replayed into a [`Game`].

use tengen_core::{Board, BoardSize, Color, Game, Move, Rules};

use crate::info::{main_line, rules_named, IgnoredValue, NodeInfo, RecordInfo, RulesText};
use crate::parse::{parse_collection, Node, ParseError};

/// A game read from a record, with what the record says about it.
#[derive(Clone, Debug)]
pub struct Record {
    /// The game after the last move of the main line.
    pub game: Game,
    /// The game-info properties (players, ranks, date, event, rules, komi,
    /// handicap, time, result, ...), typed.
    pub info: RecordInfo,
    /// Each node of the main line, root first: its move, setup, comment and
    /// time left, typed.
    pub main_line: Vec<NodeInfo>,
    /// `PB`, if present (the same as `info.black_name`).
    pub black_name: Option<String>,
    /// `PW`, if present (the same as `info.white_name`).
    pub white_name: Option<String>,
    /// `RE`, if present (the same as `info.result`).
    pub result: Option<String>,
    /// Moves that broke the rules and were executed anyway
    /// ([`IllegalMovePolicy::Execute`]); empty under the strict policy.
    pub executed_illegal: Vec<ExecutedIllegal>,
    /// Informative values that could not be typed and were left out of
    /// `info` and `main_line`, such as `TM[1 hour]`.
    pub ignored: Vec<IgnoredValue>,
    /// The first game tree as parsed: every property of every node,
    /// variations, markup and unknown properties included, for
    /// [`crate::write_tree`] or anything the typed views leave out.
    pub tree: Node,
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
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    /// The text is not SGF.
    #[error("{0}")]
    Syntax(ParseError),
    /// `GM` names a game other than Go.
    #[error("GM[{0}] is not Go")]
    NotGo(String),
    /// A property value that cannot be understood here.
    #[error("node {node}: bad {property}[{value}]")]
    BadValue {
        /// Property identifier.
        property: String,
        /// The value.
        value: String,
        /// Main-line node number, 0 for the root.
        node: usize,
    },
    /// A move of the main line is illegal.
    #[error("node {node}: illegal move [{value}]: {reason}")]
    IllegalMove {
        /// Main-line node number.
        node: usize,
        /// The move as written.
        value: String,
        /// Why it is illegal.
        reason: tengen_core::IllegalMove,
    },
}

/// Replays the main line of the first game tree in `text`: setup (`AB`, `AW`,
/// `AE`, `PL`) and moves (`B`, `W`), with size (`SZ`), komi (`KM`), rules
/// (`RU`) and handicap (`HA`) from the game information. Moves are checked
/// against the rules; the first illegal one stops the replay with an error
/// naming its node. The typed game information and per-node data come with
/// the game (see [`Record`]).
pub fn read_game(text: &str) -> Result<Record, ReadError> {
    read_game_with(text, IllegalMovePolicy::Stop)
}

/// [`read_game`] with a choice of what to do with illegal moves.
pub fn read_game_with(text: &str, policy: IllegalMovePolicy) -> Result<Record, ReadError> {
    let mut ignored = Vec::new();
    let mut trees = parse_collection(text).map_err(ReadError::Syntax)?;
    // `parse_collection` returns at least one tree or an error.
    let tree = trees.swap_remove(0);
    let root = &tree;
    if let Some(gm) = root.first("GM") {
        if gm.trim() != "1" {
            return Err(ReadError::NotGo(gm.to_string()));
        }
    }
    let size = board_size(root)?;
    let info = RecordInfo::from_main_line(root, &mut ignored);
    let rules = record_rules(root, &info)?;
    let handicap = info.handicap.map_or(0, |h| h as usize);

    let mut replay = Replay::new(size, rules, handicap, policy);
    let mut nodes: Vec<NodeInfo> = Vec::new();
    for (index, node) in main_line(root).enumerate() {
        nodes.push(replay.node(node, index, &mut ignored)?);
    }
    // Nodes before the last restart are not in the returned game's history.
    for typed in &mut nodes[..replay.restart] {
        typed.turn = None;
    }
    let game = replay
        .game
        .unwrap_or_else(|| Game::from_position(replay.board, Color::Black, rules));
    Ok(Record {
        game,
        black_name: info.black_name.clone(),
        white_name: info.white_name.clone(),
        result: info.result.clone(),
        info,
        main_line: nodes,
        executed_illegal: replay.executed_illegal,
        ignored,
        tree,
    })
}

/// The error for a property value that cannot be understood.
fn bad(property: &str, value: &str, node: usize) -> ReadError {
    ReadError::BadValue {
        property: property.to_string(),
        value: value.to_string(),
        node,
    }
}

/// The board size from the root's `SZ` (`19` or `7:5`), 19×19 without one.
fn board_size(root: &Node) -> Result<BoardSize, ReadError> {
    match root.first("SZ") {
        None => BoardSize::square(19).map_err(|_| bad("SZ", "19", 0)),
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
            parsed.ok_or_else(|| bad("SZ", sz, 0))
        }
    }
}

/// The rules the record names (`RU`), with its komi (`KM`, anywhere on the
/// main line).
fn record_rules(root: &Node, info: &RecordInfo) -> Result<Rules, ReadError> {
    let mut rules = match &info.rules {
        RulesText::Given(name) => rules_named(name),
        RulesText::Absent | RulesText::FromGame => Rules::default(),
    };
    // Komi changes the score, so a malformed `KM` is an error, not ignored.
    let km = main_line(root)
        .enumerate()
        .find_map(|(index, node)| node.first("KM").map(|km| (index, km)));
    if let Some((index, km)) = km {
        match info.komi {
            Some(komi) if komi.abs() <= 1000.0 => rules.komi = komi,
            _ if km.trim().is_empty() => {}
            _ => return Err(bad("KM", km, index)),
        }
    }
    Ok(rules)
}

/// The main line being replayed, node by node.
struct Replay {
    size: BoardSize,
    rules: Rules,
    handicap: usize,
    policy: IllegalMovePolicy,
    /// The set-up position, until a game starts from it.
    board: Board,
    /// The game so far, once a node has started one.
    game: Option<Game>,
    /// The main-line node where the returned game's history starts.
    restart: usize,
    executed_illegal: Vec<ExecutedIllegal>,
}

impl Replay {
    /// A replay on an empty board of `size`.
    fn new(size: BoardSize, rules: Rules, handicap: usize, policy: IllegalMovePolicy) -> Replay {
        Replay {
            size,
            rules,
            handicap,
            policy,
            board: Board::new(size),
            game: None,
            restart: 0,
            executed_illegal: Vec::new(),
        }
    }

    /// Replays main-line node `index`: its setup, side to play and moves.
    /// Returns the node's typed data.
    fn node(
        &mut self,
        node: &Node,
        index: usize,
        ignored: &mut Vec<IgnoredValue>,
    ) -> Result<NodeInfo, ReadError> {
        let mut typed = NodeInfo::of(node, index, ignored);
        let has_setup = ["AB", "AW", "AE"].iter().any(|id| node.get(id).is_some());
        if has_setup {
            self.setup(node, index, &mut typed)?;
        }
        if let Some(pl) = node.first("PL") {
            typed.to_play = Some(Color::parse(pl.trim()).ok_or_else(|| bad("PL", pl, index))?);
        }
        let to_move = self.to_move(node, &typed);
        if self.game.is_none() || has_setup || typed.to_play.is_some() {
            self.game = Some(start_game(
                &self.board,
                to_move,
                self.rules,
                self.handicap,
                index,
            ));
            self.restart = index;
        }
        self.play_moves(node, index, &mut typed)?;
        Ok(typed)
    }

    /// Applies the node's `AB`, `AW` and `AE` to the position reached,
    /// noting the points in `typed`.
    fn setup(&mut self, node: &Node, index: usize, typed: &mut NodeInfo) -> Result<(), ReadError> {
        if let Some(g) = self.game.take() {
            // Setup after moves: continue from the position reached.
            self.board = g.board().clone();
        }
        for (id, color) in [
            ("AB", Some(Color::Black)),
            ("AW", Some(Color::White)),
            ("AE", None),
        ] {
            for value in node.get(id).unwrap_or_default() {
                for point in expand_points(self.size, value).ok_or_else(|| bad(id, value, index))? {
                    self.board = replace_stone(&self.board, point, color)
                        .ok_or_else(|| bad(id, value, index))?;
                    match color {
                        Some(Color::Black) => typed.added_black.push(point),
                        Some(Color::White) => typed.added_white.push(point),
                        None => typed.cleared.push(point),
                    }
                }
            }
        }
        Ok(())
    }

    /// The side to move at the node: as `PL` says, else as the game goes
    /// on, else White for a node with only a White move, else Black.
    fn to_move(&self, node: &Node, typed: &NodeInfo) -> Color {
        match typed.to_play {
            Some(color) => color,
            None => self.game.as_ref().map_or_else(
                || {
                    if node.get("W").is_some() && node.get("B").is_none() {
                        Color::White
                    } else {
                        Color::Black
                    }
                },
                Game::to_move,
            ),
        }
    }

    /// Plays the node's `B` and `W` moves, handling an illegal one as the
    /// policy says, and notes the move and turn in `typed`.
    fn play_moves(
        &mut self,
        node: &Node,
        index: usize,
        typed: &mut NodeInfo,
    ) -> Result<(), ReadError> {
        let current = self.game.as_mut().expect("game set above");
        for (id, color) in [("B", Color::Black), ("W", Color::White)] {
            if let Some(value) = node.first(id) {
                let mv = self
                    .size
                    .parse_sgf(value.trim())
                    .map_err(|_| bad(id, value, index))?;
                typed.play = typed.play.or(Some((color, mv)));
                match current.play_as(color, mv) {
                    Ok(()) => {}
                    Err(reason) if self.policy == IllegalMovePolicy::Execute => {
                        let forced = forced_board(current.board(), mv, color)
                            .ok_or_else(|| bad(id, value, index))?;
                        *current = Game::from_position(forced, !color, self.rules);
                        self.restart = index;
                        self.executed_illegal.push(ExecutedIllegal {
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
        typed.turn = Some(current.turn_count());
        Ok(())
    }
}

/// `board` after `color` plays `mv` as the SGF specification says, whatever
/// the rules: any stone on the point replaced, then captures and suicide.
/// `None` when the stone on the point cannot be lifted.
fn forced_board(board: &Board, mv: Move, color: Color) -> Option<Board> {
    let mut forced = board.clone();
    if let Some(point) = mv.point() {
        if forced.stone(point).is_some() {
            forced = replace_stone(&forced, point, None)?;
        }
        forced.play_unchecked(point, color);
    }
    Some(forced)
}

/// A game from a set-up position. In the root, Black stones matching `HA`
/// with White to move are a handicap, which the game records as such.
fn start_game(board: &Board, to_move: Color, rules: Rules, handicap: usize, index: usize) -> Game {
    let size = board.size();
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
