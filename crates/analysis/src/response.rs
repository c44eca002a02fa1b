//! Responses as KataGo's analysis engine writes them: one JSON object a
//! line, values from the point of view `reportAnalysisWinratesAs` names.

use serde_json::{json, Map, Value};
use tengen_core::{BoardSize, Color, Game};
use tengen_puct::{PuctAnalysis, PuctCandidate, RawRoot};

use crate::query::{Include, QueryError, Warning};
use crate::settings::ReportAs;

/// A general error, or one of a query's fields.
pub fn error(error: &QueryError) -> Value {
    let mut out = Map::new();
    out.insert("error".to_string(), Value::String(error.message.clone()));
    if let Some(field) = &error.field {
        out.insert("field".to_string(), Value::String(field.clone()));
    }
    if let Some(id) = &error.id {
        out.insert("id".to_string(), Value::String(id.clone()));
    }
    Value::Object(out)
}

/// A warning on a query's field.
pub fn warning(id: &str, warning: &Warning) -> Value {
    json!({"id": id, "field": warning.field, "warning": warning.message})
}

/// The answer of a position whose search ended before any visit.
pub fn no_results(id: &str, turn: usize) -> Value {
    json!({"id": id, "isDuringSearch": false, "noResults": true, "turnNumber": turn})
}

/// What a response is made from besides the analysis.
pub struct Context<'a> {
    /// The query's id.
    pub id: &'a str,
    /// The turn analysed.
    pub turn: usize,
    /// The position analysed.
    pub game: &'a Game,
    /// What to include.
    pub include: Include,
    /// Whose point of view.
    pub report_as: ReportAs,
    /// Moves of each variation after the first.
    pub pv_len: usize,
}

/// Rounds a value for the wire: six significant digits are more than any
/// client reads, and the lines stay short.
fn num(v: f64) -> Value {
    if !v.is_finite() {
        return Value::Null;
    }
    let rounded = if v == 0.0 {
        0.0
    } else {
        let digits = 6 - v.abs().log10().ceil() as i32;
        let scale = 10f64.powi(digits.clamp(0, 12));
        (v * scale).round() / scale
    };
    json!(rounded)
}

fn nums(values: &[f32], sign: f64) -> Value {
    Value::Array(values.iter().map(|&v| num(sign * f64::from(v))).collect())
}

/// The response for `analysis`, a search of `context.game`.
pub fn analysis(analysis: &PuctAnalysis, context: &Context<'_>, during_search: bool) -> Value {
    let game = context.game;
    let size: BoardSize = game.size();
    let to_move = game.to_move();
    let view = View::of(context.report_as, to_move);
    let move_infos: Vec<Value> = analysis
        .candidates
        .iter()
        .enumerate()
        .map(|(order, c)| move_info(c, order, size, context, &view))
        .collect();
    let root = root_info(analysis, to_move, &view);

    let mut out = Map::new();
    out.insert("id".into(), json!(context.id));
    out.insert("isDuringSearch".into(), json!(during_search));
    out.insert("turnNumber".into(), json!(context.turn));
    out.insert("moveInfos".into(), Value::Array(move_infos));
    out.insert("rootInfo".into(), Value::Object(root));
    if context.include.ownership && !analysis.ownership.is_empty() {
        out.insert(
            "ownership".into(),
            nums(&analysis.ownership, view.ownership_sign),
        );
    }
    if context.include.ownership_stdev && !analysis.ownership_stdev.is_empty() {
        out.insert(
            "ownershipStdev".into(),
            nums(&analysis.ownership_stdev, 1.0),
        );
    }
    if context.include.policy {
        if let Some(raw) = &analysis.raw {
            out.insert("policy".into(), policy_values(raw));
        }
    }
    Value::Object(out)
}

/// The point of view of a response's values.
struct View {
    /// Whether values are flipped from the side to move's point of view,
    /// the analysis's, to the one asked for.
    flip: bool,
    /// The sign of the values asked for against the side to move's.
    sign: f64,
    /// The sign of the ownership asked for against Black's, the
    /// ownership's.
    ownership_sign: f64,
}

impl View {
    /// The point of view `report_as` names, with `to_move` to move.
    fn of(report_as: ReportAs, to_move: Color) -> View {
        let flip = match report_as {
            ReportAs::Black => to_move == Color::White,
            ReportAs::White => to_move == Color::Black,
            ReportAs::SideToMove => false,
        };
        let sign = if flip { -1.0 } else { 1.0 };
        let ownership_sign = match report_as {
            ReportAs::Black => 1.0,
            ReportAs::White => -1.0,
            ReportAs::SideToMove => {
                if to_move == Color::Black {
                    1.0
                } else {
                    -1.0
                }
            }
        };
        View {
            flip,
            sign,
            ownership_sign,
        }
    }

    /// A win rate of the side to move, from this point of view.
    fn rate(&self, w: f32) -> Value {
        num(if self.flip {
            1.0 - f64::from(w)
        } else {
            f64::from(w)
        })
    }

    /// A score or utility of the side to move, from this point of view.
    fn value(&self, v: f32) -> Value {
        num(self.sign * f64::from(v))
    }
}

/// One candidate's entry of `moveInfos`; `order` its rank.
fn move_info(
    c: &PuctCandidate,
    order: usize,
    size: BoardSize,
    context: &Context<'_>,
    view: &View,
) -> Value {
    let pv_len = c.pv.len().min(context.pv_len + 1);
    let mut info = Map::new();
    info.insert("move".into(), json!(size.gtp(c.mv)));
    info.insert("visits".into(), json!(c.visits));
    info.insert("edgeVisits".into(), json!(c.visits));
    info.insert("winrate".into(), view.rate(c.winrate));
    info.insert("scoreLead".into(), view.value(c.lead));
    info.insert("scoreMean".into(), view.value(c.lead));
    info.insert("scoreSelfplay".into(), view.value(c.score_selfplay));
    info.insert("scoreStdev".into(), num(f64::from(c.score_stdev)));
    info.insert("prior".into(), num(f64::from(c.prior)));
    info.insert("utility".into(), view.value(c.utility));
    info.insert("utilityLcb".into(), view.value(c.utility_lcb));
    info.insert("lcb".into(), view.rate(c.lcb));
    info.insert("weight".into(), num(c.weight));
    if context.include.no_result {
        info.insert("noResultValue".into(), num(f64::from(c.no_result)));
    }
    info.insert("edgeWeight".into(), num(c.weight));
    info.insert("order".into(), json!(order));
    info.insert(
        "pv".into(),
        Value::Array(c.pv[..pv_len].iter().map(|&m| json!(size.gtp(m))).collect()),
    );
    if context.include.pv_visits {
        let visits: Vec<u64> = c.pv_visits.iter().take(pv_len).copied().collect();
        info.insert("pvVisits".into(), json!(visits));
        info.insert("pvEdgeVisits".into(), json!(visits));
    }
    if context.include.moves_ownership && !c.ownership.is_empty() {
        info.insert("ownership".into(), nums(&c.ownership, view.ownership_sign));
    }
    if context.include.moves_ownership_stdev && !c.ownership_stdev.is_empty() {
        info.insert("ownershipStdev".into(), nums(&c.ownership_stdev, 1.0));
    }
    Value::Object(info)
}

/// The `rootInfo` object: the search's values at the root, then the
/// network's own when the analysis has them.
fn root_info(analysis: &PuctAnalysis, to_move: Color, view: &View) -> Map<String, Value> {
    let mut root = Map::new();
    root.insert("visits".into(), json!(analysis.visits));
    root.insert("winrate".into(), view.rate(analysis.root_winrate));
    root.insert("scoreLead".into(), view.value(analysis.root_lead));
    root.insert(
        "scoreSelfplay".into(),
        view.value(analysis.root_score_selfplay),
    );
    root.insert(
        "scoreStdev".into(),
        num(f64::from(analysis.root_score_stdev)),
    );
    root.insert("utility".into(), view.value(analysis.root_utility));
    root.insert("weight".into(), num(analysis.root_weight));
    root.insert("currentPlayer".into(), json!(to_move.letter().to_string()));
    if let Some(raw) = &analysis.raw {
        insert_raw(&mut root, raw, view);
    }
    root
}

/// The network's values at the root (`rawWinrate`, ...) into `root`.
fn insert_raw(root: &mut Map<String, Value>, raw: &RawRoot, view: &View) {
    root.insert("rawWinrate".into(), view.rate(raw.winrate));
    root.insert("rawLead".into(), view.value(raw.lead));
    if let Some(score) = raw.score_selfplay {
        root.insert("rawScoreSelfplay".into(), view.value(score));
    }
    if let Some(stdev) = raw.score_stdev {
        root.insert("rawScoreSelfplayStdev".into(), num(f64::from(stdev)));
    }
    root.insert("rawNoResultProb".into(), num(f64::from(raw.no_result)));
    if let Some(left) = raw.var_time_left {
        root.insert("rawVarTimeLeft".into(), num(f64::from(left)));
    }
    if let Some((winloss, score)) = raw.shortterm_error {
        root.insert("rawStWrError".into(), num(f64::from(winloss) / 2.0));
        root.insert("rawStScoreError".into(), num(f64::from(score)));
    }
}

/// The network's raw policy, -1 for the illegal moves.
fn policy_values(raw: &RawRoot) -> Value {
    Value::Array(
        raw.policy
            .iter()
            .map(|&p| {
                if p < 0.0 {
                    json!(-1.0)
                } else {
                    num(f64::from(p))
                }
            })
            .collect(),
    )
}
