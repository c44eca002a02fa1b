//! The record written back with its review in it, for the programs people
//! read records with:
//!
//! - Sabaki: `SBKV`, Black's win rate in percent, and `SBKS`, Black's
//!   score lead, on the root and on every move (its win-rate and score
//!   graph reads them);
//! - KaTrain: `KT`, its own analysis format (three base64 texts of gzip
//!   data: the ownership and the policy as half-precision floats, and the
//!   root and move analysis as JSON, Black's point of view), with `KTV` on
//!   the root; KaTrain shows the score, the points lost and the candidates
//!   from it without analysing again;
//! - everyone: a comment on each move (the points lost, the win rate, the
//!   engine's preferred moves and line) and a summary of each side's
//!   biggest mistakes in the root's comment.
//!
//! Everything else in the record (variations, markup, other properties) is
//! kept. Reviewing a reviewed record replaces the earlier review.

use std::fmt::Write as _;
use std::io::Write as _;

use base64::Engine as _;
use flate2::write::GzEncoder;
use flate2::Compression;
use serde_json::{json, Map};
use tengen_analysis::PositionResponse;
use tengen_core::{BoardSize, Color};
use tengen_sgf::{Node, Property, Record};

use crate::review::{sign, GameReview, MoveReview, PositionAnalysis, MISTAKES_LISTED};

/// The first line of every comment a review writes: what follows it is
/// the review's, and a later review replaces it.
pub const COMMENT_MARK: &str = "—— tengen review ——";

/// KaTrain's analysis format version (`KTV`).
pub const KATRAIN_FORMAT: &str = "1.0";

/// What produced the review, for the root's comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reviewer {
    /// The program and its version.
    pub program: String,
    /// The network's name.
    pub network: String,
    /// Visits a position.
    pub visits: u64,
}

/// The record `record` with `review` in it, as SGF text; `responses` are
/// the analysis engine's of each position (Black's point of view), for
/// KaTrain.
pub fn annotate(
    record: &Record,
    review: &GameReview,
    responses: &[PositionResponse],
    reviewer: &Reviewer,
) -> String {
    let size = record.game.size();
    let mut tree = record.tree.clone();
    let mut node = &mut tree;
    for (index, info) in record.main_line.iter().enumerate() {
        let analysed = match (index, info.play, info.turn) {
            (0, _, Some(0)) => Some(0),
            (_, Some(_), Some(turn)) if turn > 0 => Some(turn),
            _ => None,
        };
        if let Some(position) = analysed.and_then(|turn| review.positions.get(turn)) {
            set(
                node,
                "SBKV",
                vec![format!("{:.2}", 100.0 * position.winrate)],
            );
            set(node, "SBKS", vec![format!("{:.2}", position.score_lead)]);
            if let Some(response) = responses.get(position.turn) {
                set(node, "KT", katrain_analysis(response));
            }
            let text = if index == 0 {
                summary(review, reviewer, size)
            } else {
                let Some(review) = review.moves.get(position.turn - 1) else {
                    break;
                };
                move_comment(review, position, size)
            };
            comment(node, &text);
        }
        if index == 0 {
            set(node, "KTV", vec![KATRAIN_FORMAT.to_string()]);
        }
        if index + 1 == record.main_line.len() || node.children.is_empty() {
            break;
        }
        node = &mut node.children[0];
    }
    tengen_sgf::write_tree(&tree)
}

/// Sets property `id` of `node` to `values`, replacing it if present.
fn set(node: &mut Node, id: &str, values: Vec<String>) {
    if let Some(property) = node.properties.iter_mut().find(|p| p.id == id) {
        property.values = values;
    } else {
        node.properties.push(Property {
            id: id.to_string(),
            values,
        });
    }
}

/// Puts `text` in the node's comment after what a person wrote there (an
/// earlier review's text is dropped).
fn comment(node: &mut Node, text: &str) {
    let own = node
        .first("C")
        .map(|c| {
            c.split(COMMENT_MARK)
                .next()
                .unwrap_or("")
                .trim_end()
                .to_string()
        })
        .unwrap_or_default();
    let value = if own.is_empty() {
        format!("{COMMENT_MARK}\n{text}")
    } else {
        format!("{own}\n\n{COMMENT_MARK}\n{text}")
    };
    set(node, "C", vec![value]);
}

/// Points to one decimal, never `-0.0`.
fn points(value: f64) -> String {
    let rounded = (value * 10.0).round() / 10.0;
    format!("{:.1}", if rounded == 0.0 { 0.0 } else { rounded })
}

/// A score lead from Black's point of view as players write it: `B+2.5`,
/// `W+0.5`, `0`.
pub fn lead_text(lead: f64) -> String {
    let rounded = (lead * 10.0).round() / 10.0;
    if rounded > 0.0 {
        format!("B+{rounded:.1}")
    } else if rounded < 0.0 {
        format!("W+{:.1}", -rounded)
    } else {
        "0".to_string()
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// The comment of one move.
fn move_comment(review: &MoveReview, after: &PositionAnalysis, size: BoardSize) -> String {
    let before_lead = after.score_lead + sign(review.color) * review.points_lost;
    let before_winrate = after.winrate + sign(review.color) * review.winrate_lost;
    // The mover's own win rate, before and after.
    let own = |black: f64| match review.color {
        Color::Black => black,
        Color::White => 1.0 - black,
    };
    let mut text = format!(
        "Move {}, {} {}: ",
        review.number,
        color_name(review.color),
        size.gtp(review.mv)
    );
    if review.ends_game {
        let _ = write!(
            text,
            "ends the game; not rated (score {} → {}: the search counts a game ended by passes \
             as it stands, dead stones and all, where players remove them by agreement).",
            lead_text(before_lead),
            lead_text(after.score_lead),
        );
        return text;
    }
    if review.was_best() {
        text.push_str("the engine's first choice; ");
    }
    let _ = writeln!(
        text,
        "{} points lost (score {} → {}, {}'s win rate {:.1}% → {:.1}%).",
        points(review.points_lost),
        lead_text(before_lead),
        lead_text(after.score_lead),
        color_name(review.color),
        100.0 * own(before_winrate),
        100.0 * own(after.winrate),
    );
    let choices: Vec<String> = review
        .preferred
        .iter()
        .take(3)
        .map(|(c, lost)| format!("{} ({})", size.gtp(c.mv), points(*lost)))
        .collect();
    if !choices.is_empty() {
        let _ = writeln!(
            text,
            "The engine preferred (points lost): {}.",
            choices.join(", ")
        );
    }
    if let Some((best, _)) = review.preferred.first() {
        let line: Vec<String> = best.pv.iter().take(10).map(|&m| size.gtp(m)).collect();
        let _ = write!(text, "Its line: {}", line.join(" "));
    }
    text.trim_end().to_string()
}

/// The root's comment: who reviewed, and each side's losses and mistakes.
fn summary(review: &GameReview, reviewer: &Reviewer, size: BoardSize) -> String {
    let mut text = format!(
        "Reviewed by {} with the network {}, {} visits a position.\n",
        reviewer.program, reviewer.network, reviewer.visits
    );
    for color in [Color::Black, Color::White] {
        let (moves, lost) = review.total_points_lost(color);
        let mistakes: Vec<String> = review
            .mistakes(color, MISTAKES_LISTED)
            .iter()
            .map(|m| {
                format!(
                    "move {} {} ({})",
                    m.number,
                    size.gtp(m.mv),
                    points(m.points_lost)
                )
            })
            .collect();
        let _ = write!(
            text,
            "{}: {} moves rated, {} points lost in all",
            color_name(color),
            moves,
            points(lost)
        );
        if mistakes.is_empty() {
            text.push_str("; no move lost half a point or more.\n");
        } else {
            let _ = writeln!(
                text,
                "; biggest mistakes (points lost): {}.",
                mistakes.join(", ")
            );
        }
        if let Some(strength) = review.strength(color, size.points_count()) {
            let _ = writeln!(
                text,
                "{}'s play: about {} ({:.1} points lost a move).",
                color_name(color),
                strength.rank,
                strength.mean_loss
            );
        }
    }
    text.trim_end().to_string()
}

/// KaTrain's `KT` values for one position.
fn katrain_analysis(response: &PositionResponse) -> Vec<String> {
    let floats = |values: Option<&Vec<f64>>| -> Vec<u8> {
        values
            .into_iter()
            .flatten()
            .flat_map(|&v| half::f16::from_f64(v).to_le_bytes())
            .collect()
    };
    let moves: Map<String, serde_json::Value> = response
        .moves
        .iter()
        .map(|info| (response.size.gtp(info.mv), info.to_json(response.size)))
        .collect();
    let main = json!({
        "root": response.root.to_json(),
        "moves": moves,
        "completed": true,
    });
    [
        floats(response.ownership.as_ref()),
        floats(response.policy.as_ref()),
        main.to_string().into_bytes(),
    ]
    .iter()
    .map(|data| base64::engine::general_purpose::STANDARD.encode(gzip(data)))
    .collect()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
    encoder
        .write_all(data)
        .expect("writing to memory cannot fail");
    encoder.finish().expect("writing to memory cannot fail")
}
