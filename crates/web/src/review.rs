//! `POST /api/review`: what each move of a game lost, each candidate of
//! each analysed position, and each side's biggest mistakes, by the one
//! rule of `tengen review` (`tengen_review::loss`). The page asks for the
//! analyses position by position and sends them back here with the game;
//! it draws what it gets and computes no loss itself.

use serde::{Deserialize, Serialize};
use tengen_core::{Color, Game, Move};
use tengen_review::loss::{self, LossUnit, MoveLoss, Value, MISTAKES_LISTED};
use tengen_review::strength::estimate_strength;

use crate::error::ApiError;
use crate::request::GameRequest;
use crate::Limits;

/// The game and the analyses the page holds of its positions.
#[derive(Clone, Debug, Deserialize)]
pub struct ReviewRequest {
    /// The game, as every endpoint takes it.
    #[serde(flatten)]
    pub game: GameRequest,
    /// One entry per position, from the start to after the last move (the
    /// list may stop early); null where a position is not analysed.
    #[serde(default)]
    pub analyses: Vec<Option<PositionNumbers>>,
}

/// An analysis as `POST /api/analyse/{bot}` gave it: values from the side
/// to move's point of view.
#[derive(Clone, Debug, Deserialize)]
pub struct PositionNumbers {
    /// Whose point of view: `black` or `white`.
    pub perspective: String,
    /// Win rate, 0 to 1.
    pub winrate: f64,
    /// Score lead, when the bot estimates one.
    #[serde(rename = "scoreLead", default)]
    pub score_lead: Option<f64>,
    /// The candidates whose losses are wanted, in the page's order.
    #[serde(default)]
    pub candidates: Vec<CandidateNumbers>,
}

/// A candidate move of an analysis, the same point of view.
#[derive(Clone, Debug, Deserialize)]
pub struct CandidateNumbers {
    /// Win rate after it.
    pub winrate: f64,
    /// Score lead after it, when the bot estimates one.
    #[serde(rename = "scoreLead", default)]
    pub score_lead: Option<f64>,
}

/// The review of the game as far as it is analysed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReviewAnswer {
    /// What losses are counted in: `points` or `percent` (of win rate).
    pub unit: &'static str,
    /// Each move, the first first.
    pub moves: Vec<MoveAnswer>,
    /// Each position's candidates' losses, in the order sent, from the
    /// side to move's point of view; null where not analysed.
    pub candidates: Vec<Option<Vec<Option<f64>>>>,
    /// Each side's biggest mistakes, the biggest first.
    pub mistakes: Mistakes,
    /// Each side's playing strength estimated from its losses (`tengen
    /// review`'s estimate); null without a score or with too few rated
    /// moves analysed.
    pub strength: Strengths,
}

/// Each side's estimated strength.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Strengths {
    /// Black's.
    pub black: Option<StrengthAnswer>,
    /// White's.
    pub white: Option<StrengthAnswer>,
}

/// One side's estimated strength.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StrengthAnswer {
    /// The rank: `8k`, `2d`.
    pub rank: String,
    /// Its mean loss a rated move, each counted up to the cap, in points.
    pub mean_loss: f64,
    /// The rated moves it is estimated from.
    pub moves: usize,
}

/// What one move lost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MoveAnswer {
    /// Its number, from 1.
    pub number: usize,
    /// Who played it: `black` or `white`.
    pub color: &'static str,
    /// What it lost; null unless the positions before and after it are
    /// analysed.
    pub loss: Option<f64>,
    /// Whether it is rated (the two passes that end a game are not).
    pub rated: bool,
}

/// Each side's biggest mistakes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mistakes {
    /// Black's.
    pub black: Vec<MistakeAnswer>,
    /// White's.
    pub white: Vec<MistakeAnswer>,
}

/// One mistake.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MistakeAnswer {
    /// The move's number, from 1.
    #[serde(rename = "move")]
    pub number: usize,
    /// The move as GTP writes it.
    pub text: String,
    /// What it lost.
    pub loss: f64,
}

/// A value from `perspective`'s point of view turned into Black's.
fn blacks(perspective: Color, winrate: f64, score_lead: Option<f64>) -> Value {
    Value {
        winrate: match perspective {
            Color::Black => winrate,
            Color::White => 1.0 - winrate,
        },
        score_lead: score_lead.map(|lead| loss::sign(perspective) * lead),
    }
}

/// Checks one analysis against the position it is of.
fn checked(t: usize, numbers: &PositionNumbers, to_move: Color) -> Result<(), ApiError> {
    let bad = |why: String| Err(ApiError::BadAnalysis(format!("position {t}: {why}")));
    let perspective = match numbers.perspective.as_str() {
        "black" => Color::Black,
        "white" => Color::White,
        other => return bad(format!("perspective {other:?} is neither black nor white")),
    };
    if perspective != to_move {
        return bad(format!(
            "the analysis is {}'s view, but {} is to move there",
            perspective.name(),
            to_move.name()
        ));
    }
    let rates =
        std::iter::once(numbers.winrate).chain(numbers.candidates.iter().map(|c| c.winrate));
    if let Some(rate) = rates.into_iter().find(|r| !(0.0..=1.0).contains(r)) {
        return bad(format!("win rate {rate} is not between 0 and 1"));
    }
    let leads =
        std::iter::once(numbers.score_lead).chain(numbers.candidates.iter().map(|c| c.score_lead));
    if let Some(lead) = leads
        .flatten()
        .find(|l| !l.is_finite() || l.abs() > 10_000.0)
    {
        return bad(format!("score lead {lead} is not a lead"));
    }
    Ok(())
}

/// The review of `request`'s game by its analyses.
pub fn review(request: &ReviewRequest, limits: &Limits) -> Result<ReviewAnswer, ApiError> {
    let game: Game = request.game.replay(limits)?;
    let played = game.moves();
    if request.analyses.len() > played.len() + 1 {
        return Err(ApiError::BadAnalysis(format!(
            "{} analyses for {} positions",
            request.analyses.len(),
            played.len() + 1
        )));
    }
    // Who is to move at each position: the mover of the next move, or the
    // game's side to move after the last.
    let to_move = |t: usize| played.get(t).map_or(game.to_move(), |&(color, _)| color);
    let mut values: Vec<Option<Value>> = Vec::with_capacity(played.len() + 1);
    for (t, numbers) in request.analyses.iter().enumerate() {
        let Some(numbers) = numbers else {
            values.push(None);
            continue;
        };
        checked(t, numbers, to_move(t))?;
        values.push(Some(blacks(
            to_move(t),
            numbers.winrate,
            numbers.score_lead,
        )));
    }
    values.resize(played.len() + 1, None);
    let unit = LossUnit::of(values.iter().flatten());
    let moves_only: Vec<Move> = played.iter().map(|&(_, mv)| mv).collect();
    let rated = loss::rated_moves(&moves_only);
    let losses: Vec<MoveLoss> = played
        .iter()
        .enumerate()
        .map(|(index, &(color, _))| MoveLoss {
            number: index + 1,
            color,
            loss: match (&values[index], &values[index + 1]) {
                (Some(before), Some(after)) => loss::loss(before, after, color, unit),
                _ => None,
            },
            rated: index < rated,
        })
        .collect();
    let candidates = request
        .analyses
        .iter()
        .enumerate()
        .map(|(t, numbers)| {
            let numbers = numbers.as_ref()?;
            let mover = to_move(t);
            let position = values[t]?;
            Some(
                numbers
                    .candidates
                    .iter()
                    .map(|c| {
                        let candidate = blacks(mover, c.winrate, c.score_lead);
                        loss::loss(&position, &candidate, mover, unit)
                    })
                    .collect(),
            )
        })
        .collect();
    let size = game.size();
    let listed = |color| {
        loss::mistakes(&losses, color, MISTAKES_LISTED)
            .into_iter()
            .map(|m| MistakeAnswer {
                number: m.number,
                text: size.gtp(played[m.number - 1].1),
                loss: m.loss.unwrap_or(0.0),
            })
            .collect()
    };
    let strength = |color| {
        if unit != LossUnit::Points {
            return None;
        }
        // Moves whose loss is unknown (not analysed) count for nothing.
        estimate_strength(&losses, color, size.points_count()).map(|s| StrengthAnswer {
            rank: s.rank.to_string(),
            mean_loss: s.mean_loss,
            moves: s.moves,
        })
    };
    Ok(ReviewAnswer {
        unit: unit.name(),
        strength: Strengths {
            black: strength(Color::Black),
            white: strength(Color::White),
        },
        moves: losses
            .iter()
            .map(|m| MoveAnswer {
                number: m.number,
                color: m.color.name(),
                loss: m.loss,
                rated: m.rated,
            })
            .collect(),
        candidates,
        mistakes: Mistakes {
            black: listed(Color::Black),
            white: listed(Color::White),
        },
    })
}
