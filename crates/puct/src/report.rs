//! What a search reports: the candidates of the root and their
//! statistics, for analysis clients and the bot's own choices.

use tengen_core::{Analysis, BoardSize, Candidate, Move, RootInfo};

use crate::*;

/// One candidate of a [`PuctAnalysis`].
#[derive(Clone, Debug, PartialEq)]
pub struct PuctCandidate {
    /// The move.
    pub mv: Move,
    /// Visits of its subtree.
    pub visits: u64,
    /// Probability of no result after it (a long cycle under rules without
    /// superko).
    pub no_result: f32,
    /// Win rate of the side to move (at the root) after it, `(1 + win −
    /// loss) / 2`.
    pub winrate: f32,
    /// Expected lead of the side to move after it, in points.
    pub lead: f32,
    /// Expected final score of the side to move after it, as in self-play
    /// (the network's score mean; the lead when the evaluator has none).
    pub score_selfplay: f32,
    /// Standard deviation of that final score over the visits.
    pub score_stdev: f32,
    /// Total weight of its visits (each visit's certainty when playouts
    /// are weighted by uncertainty, else 1 a visit).
    pub weight: f64,
    /// Its weight in the choice of the move (KataGo's play-selection
    /// value): the weight the search would have given it knowing what it
    /// knows now, the most certain move raised by its lower bound. The
    /// first candidate has the most; a temperature draws by these
    /// ([`MoveSelection::temperature_at`](crate::MoveSelection::temperature_at)).
    pub play_weight: f64,
    /// Utility of the side to move after it.
    pub utility: f32,
    /// A lower confidence bound of that utility ([`lcb_of`]).
    pub utility_lcb: f32,
    /// The same bound on the win rate's scale (half the utility's radius
    /// below the win rate).
    pub lcb: f32,
    /// The network's prior (legal moves renormalised, before noise).
    pub prior: f32,
    /// The expected continuation, starting with the move.
    pub pv: Vec<Move>,
    /// Visits of the position after each move of `pv`.
    pub pv_visits: Vec<u64>,
    /// Black's ownership after the move (as [`PuctAnalysis::ownership`]),
    /// over this search's evaluations below it; empty unless asked for.
    pub ownership: Vec<f32>,
    /// The standard deviation of that ownership over the same
    /// evaluations; empty unless both are asked for.
    pub ownership_stdev: Vec<f32>,
    /// The move searched when this one is its copy under a symmetry of the
    /// root's board (root symmetry pruning, [`symmetry`](crate::symmetry));
    /// `None` for a move searched.
    pub symmetry_of: Option<Move>,
}

/// The full view of a search: [`Analysis`] plus score leads and utilities,
/// which [`Analysis`] has no place for.
#[derive(Clone, Debug, PartialEq)]
pub struct PuctAnalysis {
    /// Root visits.
    pub visits: u64,
    /// The side to move's win rate over the whole root.
    pub root_winrate: f32,
    /// The side to move's expected lead over the whole root.
    pub root_lead: f32,
    /// The side to move's utility over the whole root.
    pub root_utility: f32,
    /// The side to move's expected final score (as in self-play) over the
    /// whole root.
    pub root_score_selfplay: f32,
    /// Standard deviation of that score over the whole root.
    pub root_score_stdev: f32,
    /// Total weight of the root's visits.
    pub root_weight: f64,
    /// The network's own evaluation of the root, before any search; `None`
    /// when an earlier search evaluated the root (a kept tree).
    pub raw: Option<RawRoot>,
    /// Candidates with a visit, the most visited first (ties: the better
    /// value first).
    pub candidates: Vec<PuctCandidate>,
    /// Black's ownership, row-major from the top-left corner (as
    /// [`Analysis::ownership`]), averaged over the evaluations this search
    /// made in the root's subtree; empty if the evaluator gives none, or if
    /// the search made no evaluation (a kept tree already at the limit).
    pub ownership: Vec<f32>,
    /// The standard deviation of that ownership over the same evaluations;
    /// empty unless asked for.
    pub ownership_stdev: Vec<f32>,
}

impl PuctAnalysis {
    /// The [`Analysis`] GTP and the web page read: the win rate is the most
    /// visited candidate's (the root's when there is none).
    pub fn to_analysis(&self) -> Analysis {
        Analysis {
            playouts: self.visits,
            winrate: self
                .candidates
                .first()
                .map_or(self.root_winrate, |c| c.winrate),
            candidates: self
                .candidates
                .iter()
                .map(|c| Candidate {
                    mv: c.mv,
                    visits: c.visits,
                    winrate: c.winrate,
                    prior: c.prior,
                    score_lead: Some(c.lead),
                    pv: c.pv.clone(),
                    pv_visits: c.pv_visits.clone(),
                    utility: Some(c.utility),
                    lcb: Some(c.lcb),
                    ownership: c.ownership.clone(),
                    symmetry_of: c.symmetry_of,
                })
                .collect(),
            ownership: self.ownership.clone(),
            ownership_stdev: self.ownership_stdev.clone(),
            root: Some(RootInfo {
                visits: self.visits,
                winrate: self.root_winrate,
                score_lead: Some(self.root_lead),
                utility: Some(self.root_utility),
            }),
        }
    }
}

/// The network's evaluation of a search's root, from the side to move's
/// point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct RawRoot {
    /// Win rate, `(1 + win − loss) / 2`.
    pub winrate: f32,
    /// Expected lead in points.
    pub lead: f32,
    /// Expected final score as in self-play, if the evaluator gives it.
    pub score_selfplay: Option<f32>,
    /// Standard deviation of that score, if given.
    pub score_stdev: Option<f32>,
    /// Probability of no result.
    pub no_result: f32,
    /// The network's short-term errors of the win−loss value and of the
    /// score, if given.
    pub shortterm_error: Option<(f32, f32)>,
    /// How long a meaningful game is left, if given.
    pub var_time_left: Option<f32>,
    /// The policy row by row from the top-left corner, the pass last; −1
    /// for illegal moves.
    pub policy: Vec<f32>,
}

impl RawRoot {
    /// The raw view of `eval`, the evaluation of a position of this size.
    pub fn new(eval: &NetEvaluation, size: BoardSize) -> RawRoot {
        let (width, height) = (size.width(), size.height());
        let mut policy = vec![-1.0f32; width * height + 1];
        for &(mv, p) in &eval.policy {
            let index = match mv {
                Move::Pass => width * height,
                Move::Play(point) => {
                    let (col, row) = size.col_row(point);
                    (height - 1 - row) * width + col
                }
            };
            policy[index] = p;
        }
        let (score_selfplay, score_stdev) = match (eval.score_mean, eval.score_mean_sq) {
            (Some(mean), Some(sq)) => (
                Some(mean),
                Some(
                    (f64::from(sq) - f64::from(mean) * f64::from(mean))
                        .max(0.0)
                        .sqrt() as f32,
                ),
            ),
            (mean, _) => (mean, None),
        };
        RawRoot {
            winrate: 0.5 * (1.0 + eval.win - eval.loss),
            lead: eval.lead,
            score_selfplay,
            score_stdev,
            no_result: eval.no_result,
            shortterm_error: eval.shortterm_error,
            var_time_left: eval.var_time_left,
            policy,
        }
    }
}

/// What [`PuctBot::analyse`](tengen_search::SearchBot::analyse) is asked
/// beyond the bot's own limits.
pub type AnalyseRequest<'a> = tengen_search::bot::AnalyseRequest<'a, PuctAnalysis>;

/// Reports of the full analysis during a search.
pub type DetailedReport<'a> = tengen_search::bot::DetailedReport<'a, PuctAnalysis>;
