//! Live analysis for GUIs: `lz-analyze` and `lz-genmove_analyze` in Leela
//! Zero's format (Sabaki, Lizzie), and `kata-analyze` in KataGo's.
//!
//! A response to these commands is streamed: `=` (with the id) on a line of
//! its own, then one `info …` line per report, every candidate move on that
//! line; `lz-analyze` and `kata-analyze` run until the next command arrives
//! and then end the response with an empty line, `lz-genmove_analyze` ends
//! with `play <vertex>` and the empty line.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::time::Duration;

use tengen_core::{
    Action, Analysis, AnalysisDetail, BoardSize, Color, Move, MoveFilter, SelectRequest,
};

use super::args::parse_color;
use super::protocol::format_response;
use super::{CommandError, Engine};

/// Which dialect a request asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// Leela Zero: win rates and priors as integers out of 10,000.
    LeelaZero,
    /// KataGo: win rates and priors as fractions.
    KataGo,
}

/// A parsed analysis request.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The colour to analyse for (the side to move when not given).
    pub color: Option<Color>,
    /// Time between reports.
    pub interval: Duration,
    /// Most candidates per report (0: all).
    pub max_moves: usize,
    /// Whether ownership is asked for (KataGo).
    pub ownership: bool,
    /// Whether the spread of the ownership is asked for (KataGo's
    /// `ownershipStdev`).
    pub ownership_stdev: bool,
    /// Whether each move's ownership is asked for (`movesOwnership`).
    pub moves_ownership: bool,
    /// Whether the root's statistics are asked for (`rootInfo`).
    pub root_info: bool,
    /// Whether the visits along each principal variation are asked for
    /// (`pvVisits`, and `pvEdgeVisits`, the same without transpositions).
    pub pv_visits: bool,
    /// Moves kept out of the search (`avoid`, `allow`).
    pub filters: Vec<MoveFilter>,
}

/// Shortest interval accepted, so that reports cannot flood the client.
pub const MIN_INTERVAL: Duration = Duration::from_millis(10);
/// Interval when none is given: one report a second.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// Parses `[color] [interval] [key value]…` where the interval is in
/// centiseconds and the keys are KataGo's: `interval`, `maxmoves`,
/// `minmoves` (accepted, ignored), the flags `ownership`, `ownershipStdev`,
/// `movesOwnership`, `rootInfo`, `pvVisits`, `pvEdgeVisits`
/// (`true`/`false`), and `avoid`/`allow COLOR VERTEX,VERTEX,… UNTILDEPTH`
/// (vertices on a board of `size`; `allow` once at most and not with
/// `avoid`).
pub fn parse_request(args: &[&str], size: BoardSize) -> Result<Request, CommandError> {
    let mut request = Request {
        color: None,
        interval: DEFAULT_INTERVAL,
        max_moves: 0,
        ownership: false,
        ownership_stdev: false,
        moves_ownership: false,
        root_info: false,
        pv_visits: false,
        filters: Vec::new(),
    };
    let mut rest = args;
    if let Some((first, tail)) = rest.split_first() {
        if let Ok(color) = parse_color(first) {
            request.color = Some(color);
            rest = tail;
        }
    }
    if let Some((first, tail)) = rest.split_first() {
        if let Ok(centiseconds) = first.parse::<u64>() {
            request.interval = interval(centiseconds);
            rest = tail;
        }
    }
    while let Some((key, tail)) = rest.split_first() {
        let key = key.to_ascii_lowercase();
        if key == "avoid" || key == "allow" {
            let [color, vertices, depth, tail @ ..] = tail else {
                return Err(CommandError::Syntax);
            };
            let allow = key == "allow";
            let others_allow = request.filters.iter().any(|f| f.allow);
            if allow && !request.filters.is_empty() || !allow && others_allow {
                return Err(CommandError::Invalid(
                    "allow may be given once, and not with avoid".to_string(),
                ));
            }
            let color = parse_color(color)?;
            let moves = vertices
                .split(',')
                .filter(|v| !v.is_empty())
                .map(|v| {
                    size.parse_gtp(v)
                        .map_err(|_| CommandError::Invalid(format!("bad vertex {v:?}")))
                })
                .collect::<Result<Vec<Move>, _>>()?;
            let until_depth = depth
                .parse::<u32>()
                .ok()
                .filter(|&d| d >= 1)
                .ok_or_else(|| {
                    CommandError::Invalid(format!("bad depth {depth:?} (a whole number from 1)"))
                })?;
            request.filters.push(MoveFilter {
                color,
                moves,
                until_depth,
                allow,
            });
            rest = tail;
            continue;
        }
        let Some((value, tail)) = tail.split_first() else {
            return Err(CommandError::Syntax);
        };
        match key.as_str() {
            "interval" => request.interval = interval(parse_count(value)?),
            "maxmoves" => request.max_moves = parse_count(value)? as usize,
            "minmoves" => {
                parse_count(value)?;
            }
            "ownership" => request.ownership = parse_flag(value)?,
            "ownershipstdev" => request.ownership_stdev = parse_flag(value)?,
            "movesownership" => request.moves_ownership = parse_flag(value)?,
            "rootinfo" => request.root_info = parse_flag(value)?,
            "pvvisits" | "pvedgevisits" => request.pv_visits = parse_flag(value)?,
            _ => return Err(CommandError::Syntax),
        }
        rest = tail;
    }
    Ok(request)
}

impl Request {
    /// What the search is asked to gather beyond the candidates.
    pub fn detail(&self) -> AnalysisDetail {
        AnalysisDetail {
            moves_ownership: self.moves_ownership,
            ownership_stdev: self.ownership_stdev,
        }
    }
}

fn parse_flag(text: &str) -> Result<bool, CommandError> {
    match text.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(CommandError::Syntax),
    }
}

fn parse_count(text: &str) -> Result<u64, CommandError> {
    text.parse::<u64>().map_err(|_| CommandError::Syntax)
}

fn interval(centiseconds: u64) -> Duration {
    Duration::from_millis(centiseconds.saturating_mul(10)).max(MIN_INTERVAL)
}

/// One report: `info move … pv …` for every candidate, on one line (and,
/// for KataGo when asked, `rootInfo …`, `ownership …` and
/// `ownershipStdev …` after them), ending with `\n`. Values are from the
/// point of view of `color`, the side analysed, as KataGo reports them:
/// win rates, scores and ownership alike.
pub fn format_report(
    analysis: &Analysis,
    size: BoardSize,
    dialect: Dialect,
    request: &Request,
    color: Color,
) -> String {
    let mut line = String::new();
    let candidates = match request.max_moves {
        0 => &analysis.candidates[..],
        n => &analysis.candidates[..n.min(analysis.candidates.len())],
    };
    // The analysis holds Black's ownership.
    let owner_sign = if color == Color::White { -1.0 } else { 1.0 };
    let write_ownership = |line: &mut String, name: &str, values: &[f32], sign: f32| {
        line.push(' ');
        line.push_str(name);
        for value in values {
            let _ = write!(line, " {:.4}", sign * value);
        }
    };
    for (order, candidate) in candidates.iter().enumerate() {
        if !line.is_empty() {
            line.push(' ');
        }
        let visits = candidate.visits.max(1) as f32;
        let w = candidate.winrate.clamp(0.0, 1.0);
        let lcb = candidate
            .lcb
            .unwrap_or_else(|| (w - 1.96 * (w * (1.0 - w) / visits).sqrt()).max(0.0));
        let pv: Vec<String> = candidate.pv.iter().map(|&mv| size.gtp(mv)).collect();
        let _ = match dialect {
            Dialect::LeelaZero => write!(
                line,
                "info move {} visits {} winrate {} prior {} lcb {} order {} pv {}",
                size.gtp(candidate.mv),
                candidate.visits,
                (w * 10_000.0).round() as u32,
                (candidate.prior.clamp(0.0, 1.0) * 10_000.0).round() as u32,
                (lcb * 10_000.0).round() as u32,
                order,
                pv.join(" ")
            ),
            Dialect::KataGo => write!(
                line,
                "info move {} visits {} edgeVisits {}{} winrate {:.6}{} prior {:.6} lcb {:.6}{} order {} pv {}",
                size.gtp(candidate.mv),
                candidate.visits,
                candidate.visits,
                candidate
                    .utility
                    .map_or(String::new(), |u| format!(" utility {u:.6}")),
                w,
                // KataGo prints the lead under both names (scoreMean for
                // older GUIs).
                candidate.score_lead.map_or(String::new(), |lead| format!(
                    " scoreMean {lead:.6} scoreLead {lead:.6}"
                )),
                candidate.prior.clamp(0.0, 1.0),
                lcb,
                // A move pruned as a copy under the root's symmetries,
                // reported with the values of the move it copies.
                candidate
                    .symmetry_of
                    .map_or(String::new(), |of| format!(" isSymmetryOf {}", size.gtp(of))),
                order,
                pv.join(" ")
            ),
        };
        if dialect == Dialect::KataGo {
            if request.pv_visits && !candidate.pv_visits.is_empty() {
                line.push_str(" pvVisits");
                for visits in &candidate.pv_visits {
                    let _ = write!(line, " {visits}");
                }
            }
            if request.moves_ownership && !candidate.ownership.is_empty() {
                write_ownership(
                    &mut line,
                    "movesOwnership",
                    &candidate.ownership,
                    owner_sign,
                );
            }
        }
    }
    if dialect == Dialect::KataGo {
        if let (true, Some(root)) = (request.root_info, analysis.root) {
            let _ = write!(line, " rootInfo visits {}", root.visits);
            if let Some(utility) = root.utility {
                let _ = write!(line, " utility {utility:.6}");
            }
            let _ = write!(line, " winrate {:.6}", root.winrate.clamp(0.0, 1.0));
            if let Some(lead) = root.score_lead {
                let _ = write!(line, " scoreMean {lead:.6} scoreLead {lead:.6}");
            }
        }
        if request.ownership && !analysis.ownership.is_empty() {
            write_ownership(&mut line, "ownership", &analysis.ownership, owner_sign);
        }
        if request.ownership_stdev && !analysis.ownership_stdev.is_empty() {
            write_ownership(&mut line, "ownershipStdev", &analysis.ownership_stdev, 1.0);
        }
    }
    line.push('\n');
    line
}

/// Whether `name` is a command whose response is streamed.
pub(super) fn is_streamed(name: Option<&str>) -> bool {
    matches!(
        name,
        Some(
            "lz-analyze"
                | "lz-genmove_analyze"
                | "kata-analyze"
                | "kata-genmove_analyze"
                | "analyze"
                | "genmove_analyze"
        )
    )
}

impl Engine {
    /// Answers a streamed analysis command, writing the response to `out` as
    /// it goes; `stop` says when the next command has arrived.
    pub(super) fn stream(
        &mut self,
        id: Option<&str>,
        name: &str,
        args: &[&str],
        out: &mut dyn Write,
        stop: &dyn Fn() -> bool,
    ) -> io::Result<()> {
        let dialect = if name.starts_with("lz-") {
            Dialect::LeelaZero
        } else {
            Dialect::KataGo
        };
        let request = match parse_request(args, self.game.size()) {
            Ok(request) => request,
            Err(error) => {
                out.write_all(format_response(false, id, &error.to_string()).as_bytes())?;
                return out.flush();
            }
        };
        let color = request.color.unwrap_or(self.game.to_move());
        let game = self.playable_game().into_owned();
        let view = game.with_mover(color);
        let size = game.size();
        let header = format!("={}\n", id.unwrap_or(""));
        let mut started = false;
        let mut failed: Option<io::Error> = None;
        let mut sink = |analysis: &Analysis| {
            // A report before the search has a candidate says nothing (and
            // an `ownership` with no `info` before it confuses clients).
            if failed.is_some() || analysis.candidates.is_empty() {
                return;
            }
            let mut text = String::new();
            if !started {
                text.push_str(&header);
                started = true;
            }
            text.push_str(&format_report(analysis, size, dialect, &request, color));
            if let Err(error) = out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
                failed = Some(error);
            }
        };
        if name.ends_with("genmove_analyze") {
            let nogo = self.nogo();
            let action = if self.ended() {
                if nogo {
                    Action::Resign
                } else {
                    Action::Move(Move::Pass)
                }
            } else if nogo && view.is_over() {
                // No legal move: resign, recording nothing (see genmove).
                Action::Resign
            } else {
                let action = self.agent.select(
                    &view,
                    &mut SelectRequest::new()
                        .reporting(request.interval, &mut sink)
                        .filtered(request.filters.clone())
                        .with_detail(request.detail()),
                );
                self.checked(&game, color, action)
            };
            if let Some(error) = failed {
                return Err(error);
            }
            // Nothing is recorded after the end, nor for a NoGo side that
            // cannot move (the position already decides the game).
            let stuck = nogo && view.is_over();
            if !(self.ended() || stuck) {
                self.record(color, action);
            }
            let vertex = match action {
                Action::Move(mv) => size.gtp(mv),
                Action::Resign => "resign".to_string(),
            };
            let head = if started {
                String::new()
            } else {
                header.clone()
            };
            out.write_all(format!("{head}play {vertex}\n\n").as_bytes())?;
            return out.flush();
        }
        let supported = self.agent.analyze(
            &view,
            &mut SelectRequest::new()
                .stop_when(stop)
                .reporting(request.interval, &mut sink)
                .filtered(request.filters.clone())
                .with_detail(request.detail()),
        );
        if let Some(error) = failed {
            return Err(error);
        }
        if !supported {
            let text = CommandError::AnalysisUnsupported.to_string();
            out.write_all(format_response(false, id, &text).as_bytes())?;
            return out.flush();
        }
        if !started {
            out.write_all(header.as_bytes())?;
        }
        out.write_all(b"\n")?;
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tengen_core::Candidate;

    fn nine() -> BoardSize {
        BoardSize::square(9).unwrap()
    }

    #[test]
    fn requests_parse_in_every_form() {
        let r = parse_request(&["b", "50"], nine()).unwrap();
        assert_eq!(r.color, Some(Color::Black));
        assert_eq!(r.interval, Duration::from_millis(500));
        let r = parse_request(&["interval", "20", "maxmoves", "3"], nine()).unwrap();
        assert_eq!(
            (r.color, r.interval, r.max_moves),
            (None, Duration::from_millis(200), 3)
        );
        let r = parse_request(&["W", "0", "ownership", "true"], nine()).unwrap();
        assert_eq!(r.interval, MIN_INTERVAL);
        assert!(r.ownership);
        assert_eq!(
            parse_request(&[], nine()).unwrap().interval,
            DEFAULT_INTERVAL
        );
        for bad in [
            &["b", "10", "interval"][..],
            &["x", "y"],
            &["b", "10", "avoid", "b"],
        ] {
            assert_eq!(
                parse_request(bad, nine()),
                Err(CommandError::Syntax),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_move_pruned_by_symmetry_names_the_move_it_copies() {
        // As KataGo's kata-analyze: `isSymmetryOf` after `lcb`, before
        // `order`; Leela Zero's format has no such field.
        let size = BoardSize::square(9).unwrap();
        let (c3, g7) = (size.parse_gtp("C3").unwrap(), size.parse_gtp("G7").unwrap());
        let analysis = Analysis {
            candidates: vec![
                Candidate {
                    mv: c3,
                    visits: 10,
                    pv: vec![c3],
                    ..Candidate::default()
                },
                Candidate {
                    mv: g7,
                    visits: 10,
                    pv: vec![g7],
                    symmetry_of: Some(c3),
                    ..Candidate::default()
                },
            ],
            ..Analysis::default()
        };
        let request = parse_request(&[], nine()).unwrap();
        let kata = format_report(&analysis, size, Dialect::KataGo, &request, Color::Black);
        let lines: Vec<&str> = kata.split(" info ").collect();
        assert!(!lines[0].contains("isSymmetryOf"), "{kata}");
        assert!(
            lines[1].contains(" isSymmetryOf C3 order 1 pv G7"),
            "{kata}"
        );
        let lz = format_report(&analysis, size, Dialect::LeelaZero, &request, Color::Black);
        assert!(!lz.contains("isSymmetryOf"), "{lz}");
    }

    #[test]
    fn reports_follow_the_leela_zero_and_katago_formats() {
        let size = BoardSize::square(9).unwrap();
        let d4 = size.parse_gtp("D4").unwrap();
        let e5 = size.parse_gtp("E5").unwrap();
        let analysis = Analysis {
            playouts: 100,
            winrate: 0.55,
            candidates: vec![
                Candidate {
                    mv: d4,
                    visits: 80,
                    winrate: 0.55,
                    prior: 0.25,
                    score_lead: None,
                    pv: vec![d4, e5],
                    ..Candidate::default()
                },
                Candidate {
                    mv: Move::Pass,
                    visits: 20,
                    winrate: 0.5,
                    prior: 0.1,
                    score_lead: Some(-2.5),
                    pv: vec![Move::Pass],
                    ..Candidate::default()
                },
            ],
            ownership: vec![0.5; 81],
            ..Analysis::default()
        };
        let request = parse_request(&[], nine()).unwrap();
        let lz = format_report(&analysis, size, Dialect::LeelaZero, &request, Color::Black);
        assert!(
            lz.starts_with("info move D4 visits 80 winrate 5500 prior 2500 lcb "),
            "{lz}"
        );
        assert!(
            lz.contains(" order 0 pv D4 E5 info move pass visits 20 winrate 5000"),
            "{lz}"
        );
        assert!(lz.ends_with("order 1 pv pass\n"));
        let kata_request = parse_request(&["ownership", "true", "maxmoves", "1"], nine()).unwrap();
        let kata = format_report(
            &analysis,
            size,
            Dialect::KataGo,
            &kata_request,
            Color::Black,
        );
        assert!(
            kata.starts_with(
                "info move D4 visits 80 edgeVisits 80 winrate 0.550000 prior 0.250000"
            ),
            "{kata}"
        );
        assert!(!kata.contains("pass"));
        let both = format_report(
            &analysis,
            size,
            Dialect::KataGo,
            &parse_request(&[], nine()).unwrap(),
            Color::Black,
        );
        assert!(
            both.contains("info move pass visits 20 edgeVisits 20 winrate 0.500000 scoreMean -2.500000 scoreLead -2.500000 prior"),
            "{both}"
        );
        assert_eq!(kata.matches(" 0.5000").count(), 81);
        // For White the ownership turns round, as KataGo reports it.
        let white = format_report(
            &analysis,
            size,
            Dialect::KataGo,
            &kata_request,
            Color::White,
        );
        assert_eq!(white.matches(" -0.5000").count(), 81);
    }
}
