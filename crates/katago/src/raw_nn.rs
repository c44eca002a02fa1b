//! KataGo's `kata-raw-nn` answer text, so that tengen's answers can be
//! compared with KataGo's line by line.

use std::fmt::Write;

use crate::output::Evaluation;

/// One symmetry's block of a `kata-raw-nn` answer: values to fixed
/// decimals, the policy and White's ownership as rows from the top, `NAN`
/// on illegal points. `symmetry` is the number, or `all`.
pub fn format(evaluation: &Evaluation, width: usize, height: usize, symmetry: &str) -> String {
    let e = evaluation;
    let mut out = String::new();
    let _ = writeln!(out, "symmetry {symmetry}");
    let _ = writeln!(out, "whiteWin {:.6}", e.white_win);
    let _ = writeln!(out, "whiteLoss {:.6}", e.white_loss);
    let _ = writeln!(out, "noResult {:.6}", e.no_result);
    let _ = writeln!(out, "whiteLead {:.3}", e.white_lead);
    let _ = writeln!(out, "whiteScoreSelfplay {:.3}", e.white_score_mean);
    let _ = writeln!(out, "whiteScoreSelfplaySq {:.3}", e.white_score_mean_sq);
    let _ = writeln!(out, "varTimeLeft {:.3}", e.var_time_left);
    let _ = writeln!(
        out,
        "shorttermWinlossError {:.3}",
        e.shortterm_winloss_error
    );
    let _ = writeln!(out, "shorttermScoreError {:.3}", e.shortterm_score_error);
    out.push_str("policy\n");
    let policy_entry = |out: &mut String, p: f32| {
        if p < 0.0 {
            out.push_str("    NAN ");
        } else {
            let _ = write!(out, "{p:8.6} ");
        }
    };
    for y in 0..height {
        for x in 0..width {
            policy_entry(&mut out, e.policy[y * width + x]);
        }
        out.push('\n');
    }
    out.push_str("policyPass ");
    policy_entry(&mut out, e.policy[width * height]);
    out.push('\n');
    out.push_str("whiteOwnership\n");
    for y in 0..height {
        for x in 0..width {
            let _ = write!(out, "{:9.7} ", e.white_ownership[y * width + x]);
        }
        out.push('\n');
    }
    out
}
