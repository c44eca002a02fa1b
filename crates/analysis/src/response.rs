//! The engine's responses as typed values, and their JSON as KataGo's
//! analysis engine writes it: one object a line, values from the point of
//! view `reportAnalysisWinratesAs` names. Programs that run the engine
//! inside themselves (`tengen review`) read the values; only
//! [`Response::to_json`] knows the wire's field names.

use serde_json::{json, Map, Value};
use tengen_core::{BoardSize, Color, Game, Move};
use tengen_puct::{PuctAnalysis, PuctCandidate, RawRoot};

use crate::query::{Include, QueryError, Warning};
use crate::settings::ReportAs;

/// One response of the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum Response {
    /// A line that could not be read, or a query's field at fault.
    Error(QueryError),
    /// A remark on a query's field that did not stop the query.
    Warning {
        /// The query's id.
        id: String,
        /// The field and what was done instead.
        warning: Warning,
    },
    /// A position's analysis, during its search or final.
    Analysis(Box<PositionResponse>),
    /// A position whose search ended before any visit (terminated, or
    /// dropped before it started).
    NoResults {
        /// The query's id.
        id: String,
        /// The turn.
        turn: usize,
    },
    /// A position whose search failed (the network could not evaluate).
    SearchFailed {
        /// The query's id.
        id: String,
        /// The turn.
        turn: usize,
        /// Why.
        message: String,
    },
    /// The answer to a special action: the query echoed, with what the
    /// action reports.
    Action {
        /// The query as sent.
        echo: Map<String, Value>,
        /// What the action reports beside the echo.
        answer: ActionAnswer,
    },
}

/// What a special action reports beside its echoed query.
#[derive(Clone, Debug, PartialEq)]
pub enum ActionAnswer {
    /// `clear_cache` and `terminate`: the echo alone.
    Done,
    /// `query_version`: the protocol's version and the engine's.
    Version {
        /// The KataGo release whose protocol is spoken.
        protocol: &'static str,
        /// tengen's version.
        engine_version: &'static str,
    },
    /// `query_models`: the loaded model.
    Models {
        /// The model file as given.
        file: String,
        /// The model's own name.
        internal_name: String,
        /// Most positions in one forward pass.
        max_batch: usize,
        /// The model format's version.
        version: i64,
    },
}

/// A position's analysis, its values from the point of view asked for.
#[derive(Clone, Debug, PartialEq)]
pub struct PositionResponse {
    /// The query's id.
    pub id: String,
    /// The turn analysed.
    pub turn: usize,
    /// The board's size (the moves' coordinates).
    pub size: BoardSize,
    /// Whether the search goes on (a report during it) or ended.
    pub during_search: bool,
    /// The candidates, the best first (KataGo's `moveInfos`).
    pub moves: Vec<MoveInfo>,
    /// The root's values (`rootInfo`).
    pub root: RootInfo,
    /// Each point's owner, +1 the viewpoint's, when asked for.
    pub ownership: Option<Vec<f64>>,
    /// The ownership's standard deviations, when asked for.
    pub ownership_stdev: Option<Vec<f64>>,
    /// The network's policy, -1 for illegal moves, when asked for.
    pub policy: Option<Vec<f64>>,
}

/// One candidate move.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveInfo {
    /// The move.
    pub mv: Move,
    /// Its visits.
    pub visits: u64,
    /// Win rate, 0 to 1.
    pub winrate: f64,
    /// Score lead in points.
    pub score_lead: f64,
    /// The score self-play would reach.
    pub score_selfplay: f64,
    /// The score's standard deviation.
    pub score_stdev: f64,
    /// The network's prior.
    pub prior: f64,
    /// The search's utility.
    pub utility: f64,
    /// Its lower confidence bound.
    pub utility_lcb: f64,
    /// The win rate's lower confidence bound.
    pub lcb: f64,
    /// The visits' total weight.
    pub weight: f64,
    /// Chance of no result, when asked for.
    pub no_result: Option<f64>,
    /// Its rank, 0 the best.
    pub order: usize,
    /// The principal variation, starting with the move.
    pub pv: Vec<Move>,
    /// Visits along the variation, when asked for.
    pub pv_visits: Option<Vec<u64>>,
    /// Ownership after the move, when asked for.
    pub ownership: Option<Vec<f64>>,
    /// Its standard deviations, when asked for.
    pub ownership_stdev: Option<Vec<f64>>,
    /// The move searched when this one is its copy under a symmetry of the
    /// root's board (`isSymmetryOf`, root symmetry pruning).
    pub is_symmetry_of: Option<Move>,
}

/// The search's values at the root, and the network's own when known.
#[derive(Clone, Debug, PartialEq)]
pub struct RootInfo {
    /// Root visits.
    pub visits: u64,
    /// Win rate, 0 to 1.
    pub winrate: f64,
    /// Score lead in points.
    pub score_lead: f64,
    /// The score self-play would reach.
    pub score_selfplay: f64,
    /// The score's standard deviation.
    pub score_stdev: f64,
    /// The search's utility.
    pub utility: f64,
    /// The visits' total weight.
    pub weight: f64,
    /// Who is to move.
    pub to_move: Color,
    /// The network's values at the root.
    pub raw: Option<RawInfo>,
}

/// The network's evaluation of the root.
#[derive(Clone, Debug, PartialEq)]
pub struct RawInfo {
    /// Win rate, 0 to 1.
    pub winrate: f64,
    /// Score lead.
    pub lead: f64,
    /// The score self-play would reach, if the network says.
    pub score_selfplay: Option<f64>,
    /// Its standard deviation, if the network says.
    pub score_stdev: Option<f64>,
    /// Chance of no result.
    pub no_result: f64,
    /// Time left in the game's variance, if the network says.
    pub var_time_left: Option<f64>,
    /// Short-term errors of the win rate and the score, if the network
    /// says.
    pub shortterm_error: Option<(f64, f64)>,
}

/// What an analysis response is made from besides the analysis.
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

impl PositionResponse {
    /// The response for `analysis`, a search of `context.game`.
    pub fn new(
        analysis: &PuctAnalysis,
        context: &Context<'_>,
        during_search: bool,
    ) -> PositionResponse {
        let game = context.game;
        let to_move = game.to_move();
        let view = View::of(context.report_as, to_move);
        let include = &context.include;
        PositionResponse {
            id: context.id.to_string(),
            turn: context.turn,
            size: game.size(),
            during_search,
            moves: analysis
                .candidates
                .iter()
                .enumerate()
                .map(|(order, c)| MoveInfo::new(c, order, context, &view))
                .collect(),
            root: RootInfo::new(analysis, to_move, &view),
            ownership: owned(&analysis.ownership, view.ownership_sign, include.ownership),
            ownership_stdev: owned(&analysis.ownership_stdev, 1.0, include.ownership_stdev),
            policy: analysis.raw.as_ref().filter(|_| include.policy).map(|raw| {
                raw.policy
                    .iter()
                    .map(|&p| if p < 0.0 { -1.0 } else { f64::from(p) })
                    .collect()
            }),
        }
    }

    /// KataGo's JSON of it.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        out.insert("id".into(), json!(self.id));
        out.insert("isDuringSearch".into(), json!(self.during_search));
        out.insert("turnNumber".into(), json!(self.turn));
        out.insert(
            "moveInfos".into(),
            Value::Array(self.moves.iter().map(|m| m.to_json(self.size)).collect()),
        );
        out.insert("rootInfo".into(), self.root.to_json());
        if let Some(ownership) = &self.ownership {
            out.insert("ownership".into(), nums(ownership));
        }
        if let Some(stdev) = &self.ownership_stdev {
            out.insert("ownershipStdev".into(), nums(stdev));
        }
        if let Some(policy) = &self.policy {
            out.insert("policy".into(), nums(policy));
        }
        Value::Object(out)
    }
}

impl MoveInfo {
    /// Candidate `c`, ranked `order`.
    fn new(c: &PuctCandidate, order: usize, context: &Context<'_>, view: &View) -> MoveInfo {
        let pv_len = c.pv.len().min(context.pv_len + 1);
        let include = &context.include;
        MoveInfo {
            mv: c.mv,
            visits: c.visits,
            winrate: view.rate(c.winrate),
            score_lead: view.value(c.lead),
            score_selfplay: view.value(c.score_selfplay),
            score_stdev: f64::from(c.score_stdev),
            prior: f64::from(c.prior),
            utility: view.value(c.utility),
            utility_lcb: view.value(c.utility_lcb),
            lcb: view.rate(c.lcb),
            weight: c.weight,
            no_result: include.no_result.then(|| f64::from(c.no_result)),
            order,
            pv: c.pv[..pv_len].to_vec(),
            pv_visits: include
                .pv_visits
                .then(|| c.pv_visits.iter().take(pv_len).copied().collect()),
            ownership: owned(&c.ownership, view.ownership_sign, include.moves_ownership),
            ownership_stdev: owned(&c.ownership_stdev, 1.0, include.moves_ownership_stdev),
            is_symmetry_of: c.symmetry_of,
        }
    }

    /// Its entry of `moveInfos`, coordinates for a board of `size`.
    pub fn to_json(&self, size: BoardSize) -> Value {
        let mut info = Map::new();
        info.insert("move".into(), json!(size.gtp(self.mv)));
        info.insert("visits".into(), json!(self.visits));
        info.insert("edgeVisits".into(), json!(self.visits));
        info.insert("winrate".into(), num(self.winrate));
        info.insert("scoreLead".into(), num(self.score_lead));
        info.insert("scoreMean".into(), num(self.score_lead));
        info.insert("scoreSelfplay".into(), num(self.score_selfplay));
        info.insert("scoreStdev".into(), num(self.score_stdev));
        info.insert("prior".into(), num(self.prior));
        info.insert("utility".into(), num(self.utility));
        info.insert("utilityLcb".into(), num(self.utility_lcb));
        info.insert("lcb".into(), num(self.lcb));
        info.insert("weight".into(), num(self.weight));
        if let Some(no_result) = self.no_result {
            info.insert("noResultValue".into(), num(no_result));
        }
        info.insert("edgeWeight".into(), num(self.weight));
        info.insert("order".into(), json!(self.order));
        if let Some(source) = self.is_symmetry_of {
            info.insert("isSymmetryOf".into(), json!(size.gtp(source)));
        }
        info.insert(
            "pv".into(),
            Value::Array(self.pv.iter().map(|&m| json!(size.gtp(m))).collect()),
        );
        if let Some(visits) = &self.pv_visits {
            info.insert("pvVisits".into(), json!(visits));
            info.insert("pvEdgeVisits".into(), json!(visits));
        }
        if let Some(ownership) = &self.ownership {
            info.insert("ownership".into(), nums(ownership));
        }
        if let Some(stdev) = &self.ownership_stdev {
            info.insert("ownershipStdev".into(), nums(stdev));
        }
        Value::Object(info)
    }
}

impl RootInfo {
    fn new(analysis: &PuctAnalysis, to_move: Color, view: &View) -> RootInfo {
        RootInfo {
            visits: analysis.visits,
            winrate: view.rate(analysis.root_winrate),
            score_lead: view.value(analysis.root_lead),
            score_selfplay: view.value(analysis.root_score_selfplay),
            score_stdev: f64::from(analysis.root_score_stdev),
            utility: view.value(analysis.root_utility),
            weight: analysis.root_weight,
            to_move,
            raw: analysis.raw.as_ref().map(|raw| RawInfo::new(raw, view)),
        }
    }

    /// The `rootInfo` object: the search's values, then the network's.
    pub fn to_json(&self) -> Value {
        let mut root = Map::new();
        root.insert("visits".into(), json!(self.visits));
        root.insert("winrate".into(), num(self.winrate));
        root.insert("scoreLead".into(), num(self.score_lead));
        root.insert("scoreSelfplay".into(), num(self.score_selfplay));
        root.insert("scoreStdev".into(), num(self.score_stdev));
        root.insert("utility".into(), num(self.utility));
        root.insert("weight".into(), num(self.weight));
        root.insert(
            "currentPlayer".into(),
            json!(self.to_move.letter().to_string()),
        );
        if let Some(raw) = &self.raw {
            raw.insert_into(&mut root);
        }
        Value::Object(root)
    }
}

impl RawInfo {
    fn new(raw: &RawRoot, view: &View) -> RawInfo {
        RawInfo {
            winrate: view.rate(raw.winrate),
            lead: view.value(raw.lead),
            score_selfplay: raw.score_selfplay.map(|s| view.value(s)),
            score_stdev: raw.score_stdev.map(f64::from),
            no_result: f64::from(raw.no_result),
            var_time_left: raw.var_time_left.map(f64::from),
            shortterm_error: raw
                .shortterm_error
                .map(|(winloss, score)| (f64::from(winloss) / 2.0, f64::from(score))),
        }
    }

    /// The network's values at the root (`rawWinrate`, ...) into `root`.
    fn insert_into(&self, root: &mut Map<String, Value>) {
        root.insert("rawWinrate".into(), num(self.winrate));
        root.insert("rawLead".into(), num(self.lead));
        if let Some(score) = self.score_selfplay {
            root.insert("rawScoreSelfplay".into(), num(score));
        }
        if let Some(stdev) = self.score_stdev {
            root.insert("rawScoreSelfplayStdev".into(), num(stdev));
        }
        root.insert("rawNoResultProb".into(), num(self.no_result));
        if let Some(left) = self.var_time_left {
            root.insert("rawVarTimeLeft".into(), num(left));
        }
        if let Some((winrate, score)) = self.shortterm_error {
            root.insert("rawStWrError".into(), num(winrate));
            root.insert("rawStScoreError".into(), num(score));
        }
    }
}

impl Response {
    /// KataGo's JSON of it: what the engine writes, one line each.
    pub fn to_json(&self) -> Value {
        match self {
            Response::Error(error) => {
                let mut out = Map::new();
                out.insert("error".into(), json!(error.message));
                if let Some(field) = &error.field {
                    out.insert("field".into(), json!(field));
                }
                if let Some(id) = &error.id {
                    out.insert("id".into(), json!(id));
                }
                Value::Object(out)
            }
            Response::Warning { id, warning } => {
                json!({"id": id, "field": warning.field, "warning": warning.message})
            }
            Response::Analysis(position) => position.to_json(),
            Response::NoResults { id, turn } => {
                json!({"id": id, "isDuringSearch": false, "noResults": true, "turnNumber": turn})
            }
            Response::SearchFailed { id, turn, message } => {
                json!({"id": id, "turnNumber": turn, "error": message})
            }
            Response::Action { echo, answer } => {
                let mut out = echo.clone();
                answer.insert_into(&mut out);
                Value::Object(out)
            }
        }
    }

    /// The query it answers, when it answers one.
    pub fn id(&self) -> Option<&str> {
        match self {
            Response::Error(error) => error.id.as_deref(),
            Response::Warning { id, .. }
            | Response::NoResults { id, .. }
            | Response::SearchFailed { id, .. } => Some(id),
            Response::Analysis(position) => Some(&position.id),
            Response::Action { echo, .. } => echo.get("id").and_then(Value::as_str),
        }
    }
}

impl ActionAnswer {
    fn insert_into(&self, out: &mut Map<String, Value>) {
        match self {
            ActionAnswer::Done => {}
            ActionAnswer::Version {
                protocol,
                engine_version,
            } => {
                out.insert("version".into(), json!(protocol));
                out.insert("git_hash".into(), json!("<omitted>"));
                out.insert("engine".into(), json!("tengen"));
                out.insert("engineVersion".into(), json!(engine_version));
            }
            ActionAnswer::Models {
                file,
                internal_name,
                max_batch,
                version,
            } => {
                out.insert(
                    "models".into(),
                    json!([{
                        "name": file,
                        "internalName": internal_name,
                        "maxBatchSize": max_batch,
                        "usesHumanSLProfile": false,
                        "version": version,
                        "usingFP16": "false",
                    }]),
                );
            }
        }
    }
}

/// `values` times `sign`, when asked for and known.
fn owned(values: &[f32], sign: f64, asked: bool) -> Option<Vec<f64>> {
    (asked && !values.is_empty()).then(|| values.iter().map(|&v| sign * f64::from(v)).collect())
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

fn nums(values: &[f64]) -> Value {
    Value::Array(values.iter().map(|&v| num(v)).collect())
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
        let black_to_move = if to_move == Color::Black { 1.0 } else { -1.0 };
        let ownership_sign = match report_as {
            ReportAs::Black => 1.0,
            ReportAs::White => -1.0,
            ReportAs::SideToMove => black_to_move,
        };
        View {
            flip,
            sign: if flip { -1.0 } else { 1.0 },
            ownership_sign,
        }
    }

    /// A win rate of the side to move, from this point of view.
    fn rate(&self, w: f32) -> f64 {
        if self.flip {
            1.0 - f64::from(w)
        } else {
            f64::from(w)
        }
    }

    /// A score or utility of the side to move, from this point of view.
    fn value(&self, v: f32) -> f64 {
        self.sign * f64::from(v)
    }
}
