//! The value of a leaf: a finished game's exact count, or the network's
//! evaluation for the side to move, and its legal policy.

use super::*;

/// The exact value of a finished game (or of the position as it stands):
/// the winner by the game's own count, the margin as the lead.
pub fn exact_value(game: &Game) -> LeafValue {
    let (winner, lead) = match game.outcome() {
        Outcome::Counted(score) => (score.winner(), score.margin() as f32),
        other => (other.winner(), 0.0),
    };
    decided_value(winner, lead)
}

/// The value of a decided game: certain for `winner` (half each for a
/// draw), Black's `lead` as the lead.
pub(super) fn decided_value(winner: Option<Color>, lead: f32) -> LeafValue {
    let (black_win, white_win) = match winner {
        Some(Color::Black) => (1.0, 0.0),
        Some(Color::White) => (0.0, 1.0),
        None => (0.5, 0.5),
    };
    LeafValue::from_lead(black_win, white_win, lead)
}

/// A network's value turned to Black's point of view, sanitised.
pub fn leaf_value(to_move: Color, eval: &NetEvaluation) -> LeafValue {
    let finite = |x: f32| {
        if x.is_finite() {
            x.clamp(0.0, 1.0)
        } else {
            0.0
        }
    };
    let (win, loss) = (finite(eval.win), finite(eval.loss));
    let lead = if eval.lead.is_finite() {
        eval.lead
    } else {
        0.0
    };
    // The score and its square, or the lead with no spread.
    let (score, score_sq) = match (eval.score_mean, eval.score_mean_sq) {
        (Some(mean), Some(sq)) if mean.is_finite() && sq.is_finite() => (mean, sq.max(mean * mean)),
        _ => (lead, lead * lead),
    };
    let s = if to_move == Color::Black { 1.0 } else { -1.0 };
    let (black_win, white_win) = if to_move == Color::Black {
        (win, loss)
    } else {
        (loss, win)
    };
    LeafValue {
        black_win,
        white_win,
        black_lead: s * lead,
        black_score: s * score,
        score_sq,
    }
}

/// The policy restricted to moves legal in `game` (superko included), each
/// once, renormalised and sorted by prior (highest first, ties in the
/// evaluator's order). Uniform over the legal moves if the evaluator gave
/// none of them any weight.
pub fn legal_policy(game: &Game, policy: &[(Move, f32)]) -> Vec<(Move, f32)> {
    let mut seen = std::collections::HashSet::new();
    let mut out: Vec<(Move, f32)> = policy
        .iter()
        .filter(|(mv, p)| p.is_finite() && *p >= 0.0 && game.legal(*mv).is_ok())
        .filter(|(mv, _)| seen.insert(*mv))
        .copied()
        .collect();
    let total: f32 = out.iter().map(|(_, p)| p).sum();
    if total > 0.0 {
        for (_, p) in &mut out {
            *p /= total;
        }
    } else {
        let moves = game.legal_moves();
        let p = 1.0 / moves.len().max(1) as f32;
        out = moves.into_iter().map(|mv| (mv, p)).collect();
    }
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}
