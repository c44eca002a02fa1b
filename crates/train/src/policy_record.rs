//! Game records whose moves carry a network's move probabilities: positions
//! a move model learns a whole distribution from, not only the move played.
//!
//! A policy record is an ordinary SGF game record (every viewer reads it);
//! each move node also holds the private property `POLICY`, the network's
//! probabilities for the position before that move, as space-separated
//! `VERTEX:P` entries: an SGF vertex (`dd`) or `pass`, and a probability
//! from 0 to 1. Entries below the writer's floor are left out, so a node's
//! probabilities may sum to less than 1. A move node without `POLICY` is a
//! move to replay only.

use std::fmt::Write as _;

use tengen_core::{Action, BoardSize, Game, Move};
use tengen_sgf::{parse_collection, read_game_bytes, write_game, write_tree, GameInfo, Property};

/// The SGF property holding a move node's probabilities.
pub const POLICY_PROPERTY: &str = "POLICY";

/// One position's move probabilities, as a record stores them.
pub type Policy = Vec<(Move, f32)>;

/// A game read from a policy record.
#[derive(Clone, Debug)]
pub struct PolicyRecord {
    /// The game after the last move.
    pub game: Game,
    /// For each turn of the game's history, in order, the probabilities of
    /// the position before it, if its node had them.
    pub policies: Vec<Option<Policy>>,
}

/// Why a policy record could not be read.
#[derive(Debug, thiserror::Error)]
pub enum PolicyRecordError {
    /// The SGF itself could not be read.
    #[error("{0}")]
    Sgf(#[from] tengen_sgf::ReadError),
    /// A `POLICY` value with an entry that is not `VERTEX:P`.
    #[error("move {turn}: bad POLICY entry {entry:?}: {reason}")]
    Entry {
        /// The move's turn, from 1.
        turn: usize,
        /// The entry as written.
        entry: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The record's moves and the game's turns do not pair up (a record
    /// with variations before its moves, or setup between them).
    #[error("the record has {nodes} move nodes but the game {turns} turns")]
    Turns {
        /// Move nodes on the main line.
        nodes: usize,
        /// Turns in the game's history.
        turns: usize,
    },
}

/// The text of one `POLICY` value: entries of probability `floor` or more,
/// highest first, with three decimals.
pub fn policy_text(size: BoardSize, policy: &[(Move, f32)], floor: f32) -> String {
    let mut kept: Vec<&(Move, f32)> = policy.iter().filter(|(_, p)| *p >= floor).collect();
    kept.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut out = String::new();
    for (mv, p) in kept {
        if !out.is_empty() {
            out.push(' ');
        }
        match mv {
            Move::Pass => out.push_str("pass"),
            Move::Play(_) => out.push_str(&size.sgf(*mv)),
        }
        let _ = write!(out, ":{p:.3}");
    }
    out
}

/// Reads a `POLICY` value of the move at `turn` (from 1).
pub fn parse_policy(size: BoardSize, text: &str, turn: usize) -> Result<Policy, PolicyRecordError> {
    let mut policy = Vec::new();
    for entry in text.split_whitespace() {
        let bad = |reason: String| PolicyRecordError::Entry {
            turn,
            entry: entry.to_string(),
            reason,
        };
        let (vertex, p) = entry
            .split_once(':')
            .ok_or_else(|| bad("no ':' between vertex and probability".to_string()))?;
        let mv = if vertex == "pass" {
            Move::Pass
        } else {
            match size.parse_sgf(vertex) {
                Ok(Move::Play(point)) => Move::Play(point),
                Ok(Move::Pass) => return Err(bad("a pass is written `pass`".to_string())),
                Err(error) => return Err(bad(error.to_string())),
            }
        };
        let p: f32 = p
            .parse()
            .map_err(|_| bad(format!("{p:?} is not a number")))?;
        if !(0.0..=1.0).contains(&p) {
            return Err(bad(format!("{p} is not a probability")));
        }
        policy.push((mv, p));
    }
    Ok(policy)
}

/// The record of `game` with the probabilities `policies[i]` on the node of
/// turn `i` (turns beyond `policies`, or with `None`, get none).
pub fn write_policy_record(
    game: &Game,
    info: &GameInfo,
    policies: &[Option<Policy>],
    floor: f32,
) -> String {
    let text = write_game(game, info);
    let mut trees = parse_collection(&text).expect("tengen writes records it can read");
    let mut node = &mut trees[0];
    let mut turn = 0;
    loop {
        if node.get("B").is_some() || node.get("W").is_some() {
            if let Some(Some(policy)) = policies.get(turn) {
                node.properties.push(Property {
                    id: POLICY_PROPERTY.to_string(),
                    values: vec![policy_text(game.size(), policy, floor)],
                });
            }
            turn += 1;
        }
        match node.children.first_mut() {
            Some(child) => node = child,
            None => break,
        }
    }
    write_tree(&trees[0])
}

/// Reads a policy record: the game and, for each of its turns, the
/// probabilities its node holds.
pub fn read_policy_record(bytes: &[u8]) -> Result<PolicyRecord, PolicyRecordError> {
    let record = read_game_bytes(bytes)?;
    let size = record.game.size();
    let mut policies = Vec::new();
    let mut node = Some(&record.tree);
    while let Some(current) = node {
        if current.get("B").is_some() || current.get("W").is_some() {
            let turn = policies.len() + 1;
            policies.push(match current.first(POLICY_PROPERTY) {
                Some(text) => Some(parse_policy(size, text, turn)?),
                None => None,
            });
        }
        node = current.children.first();
    }
    let turns = record
        .game
        .history()
        .filter(|(_, action)| matches!(action, Action::Move(_)))
        .count();
    if turns != policies.len() {
        return Err(PolicyRecordError::Turns {
            nodes: policies.len(),
            turns,
        });
    }
    Ok(PolicyRecord {
        game: record.game,
        policies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::Rules;

    fn game_of(moves: &[&str]) -> Game {
        let size = BoardSize::square(9).unwrap();
        let mut game = Game::new(size, Rules::preset("chinese").unwrap().with_komi(7.0));
        for text in moves {
            game.play(size.parse_gtp(text).unwrap()).unwrap();
        }
        game
    }

    #[test]
    fn policies_survive_a_round_trip() {
        let game = game_of(&["E5", "C3", "pass", "G7"]);
        let size = game.size();
        let at = |t: &str| size.parse_gtp(t).unwrap();
        let policies = vec![
            Some(vec![
                (at("E5"), 0.61),
                (at("D4"), 0.2),
                (Move::Pass, 0.0004),
            ]),
            None,
            Some(vec![(Move::Pass, 0.9), (at("A1"), 0.05)]),
            Some(vec![(at("G7"), 1.0)]),
        ];
        let text = write_policy_record(&game, &GameInfo::default(), &policies, 0.001);
        assert!(text.contains("POLICY[ee:0.610 df:0.200]"), "{text}");
        let read = read_policy_record(text.as_bytes()).unwrap();
        assert_eq!(read.game.turn_count(), 4);
        let expected: Vec<Option<Policy>> = vec![
            Some(vec![(at("E5"), 0.61), (at("D4"), 0.2)]),
            None,
            Some(vec![(Move::Pass, 0.9), (at("A1"), 0.05)]),
            Some(vec![(at("G7"), 1.0)]),
        ];
        assert_eq!(read.policies, expected);
    }

    #[test]
    fn bad_entries_are_refused_with_the_turn() {
        let size = BoardSize::square(9).unwrap();
        for (text, reason) in [
            ("ee", "no ':'"),
            ("ee:x", "not a number"),
            ("ee:1.5", "not a probability"),
            ("zz:0.1", "off"),
            (":0.1", "pass is written"),
        ] {
            let error = parse_policy(size, text, 7).unwrap_err().to_string();
            assert!(error.starts_with("move 7: bad POLICY entry"), "{error}");
            assert!(error.to_lowercase().contains(reason), "{text}: {error}");
        }
        let game = game_of(&["E5"]);
        let record = write_policy_record(&game, &GameInfo::default(), &[None], 0.0)
            .replace(";B[ee]", ";B[ee]POLICY[ee:2]");
        let error = read_policy_record(record.as_bytes()).unwrap_err();
        assert!(
            matches!(error, PolicyRecordError::Entry { turn: 1, .. }),
            "{error}"
        );
    }
}
