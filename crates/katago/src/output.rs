//! From the network's raw outputs to probabilities and points, as KataGo's
//! evaluator post-processes them: a softmax over legal moves, win/loss/no
//! result probabilities, scores in points, ownership through tanh, and
//! everything but the policy turned to White's point of view.

use crate::forward::RawOutput;
use crate::model::ModelDesc;

/// One evaluated position, in KataGo's terms.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Move probabilities of the side to move, row-major from the top-left
    /// point, then pass; −1 on illegal moves.
    pub policy: Vec<f32>,
    /// White's chance of winning.
    pub white_win: f64,
    /// White's chance of losing.
    pub white_loss: f64,
    /// The chance of no result (a long cycle under some rules).
    pub no_result: f64,
    /// White's expected lead in points.
    pub white_lead: f64,
    /// White's expected score (self-play estimate).
    pub white_score_mean: f64,
    /// Its second moment.
    pub white_score_mean_sq: f64,
    /// The expected variance of the result over the rest of the game.
    pub var_time_left: f64,
    /// The network's estimate of its own short-term win/loss error.
    pub shortterm_winloss_error: f64,
    /// The network's estimate of its own short-term score error.
    pub shortterm_score_error: f64,
    /// White's ownership per point (+1 White's, −1 Black's), row-major.
    pub white_ownership: Vec<f32>,
}

impl Evaluation {
    /// The policy as moves of a board of `size` (the one evaluated): every
    /// legal point, row by row from the top, then the pass if legal, each
    /// with its probability.
    pub fn move_policy(&self, size: tengen_core::BoardSize) -> Vec<(tengen_core::Move, f32)> {
        let (width, height) = (size.width(), size.height());
        let mut policy = Vec::with_capacity(width * height + 1);
        for y in 0..height {
            for x in 0..width {
                let p = self.policy[y * width + x];
                if p >= 0.0 {
                    policy.push((
                        tengen_core::Move::Play(crate::network::grid_point(size, x, y)),
                        p,
                    ));
                }
            }
        }
        let pass = self.policy[width * height];
        if pass >= 0.0 {
            policy.push((tengen_core::Move::Pass, pass));
        }
        policy
    }
}

/// `log(1 + e^x)`, exact for large `x` as KataGo computes it.
fn softplus(x: f64) -> f64 {
    if x > 40.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

/// With passing hacks, the pass's prior is at most this many times the
/// other moves' together (KataGo's cap of 95%).
const MAX_PASS_SHARE_FACTOR: f32 = 19.0;

/// Post-processes `raw` for a position with `white_to_move`, whose legal
/// moves (points row-major, then pass) are `legal`. `no_result_impossible`
/// is KataGo's test for rules with superko under area scoring, where a
/// cycle cannot leave the game without result. With `cap_pass` (KataGo's
/// passing hacks) the pass gets at most 19 times the other moves' share
/// before normalising, 95% of the policy.
pub fn evaluate(
    model: &ModelDesc,
    raw: &RawOutput,
    legal: &[bool],
    white_to_move: bool,
    no_result_impossible: bool,
    cap_pass: bool,
) -> Evaluation {
    assert_eq!(
        legal.len(),
        raw.policy.len(),
        "one legality flag per policy entry"
    );
    // Policy: softmax over the legal moves, in f32.
    let mut policy = vec![-1.0f32; raw.policy.len()];
    let max = raw
        .policy
        .iter()
        .zip(legal)
        .filter(|(_, &ok)| ok)
        .map(|(&logit, _)| logit)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0f32;
    for ((out, &logit), &ok) in policy.iter_mut().zip(&raw.policy).zip(legal) {
        if ok {
            *out = (logit - max).exp();
            sum += *out;
        }
    }
    let pass = policy.len() - 1;
    if cap_pass && legal[pass] {
        let others = sum - policy[pass];
        let capped = policy[pass].min(others * MAX_PASS_SHARE_FACTOR).max(1e-20);
        sum = others + capped;
        policy[pass] = capped;
    }
    let legal_count = legal.iter().filter(|&&ok| ok).count();
    for (out, &ok) in policy.iter_mut().zip(legal) {
        if ok {
            *out = if sum > 0.0 {
                *out / sum
            } else {
                1.0 / legal_count as f32
            };
        }
    }

    // Values, in f64.
    let mut logits = raw.value.map(f64::from);
    if no_result_impossible {
        logits[2] -= 100_000.0;
    }
    let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exps = logits.map(|x| (x - max).exp());
    let total: f64 = exps.iter().sum();
    let (win, loss) = (exps[0] / total, exps[1] / total);
    let no_result = if no_result_impossible {
        0.0
    } else {
        exps[2] / total
    };

    let post = &model.post_process;
    let score = raw.score.map(f64::from);
    let mut score_mean = score[0] * f64::from(post.score_mean_multiplier);
    let stdev = softplus(score[1]) * f64::from(post.score_stdev_multiplier);
    let mut score_mean_sq = score_mean * score_mean + stdev * stdev;
    let mut lead = score[2] * f64::from(post.lead_multiplier);
    let var_time_left = softplus(score[3]) * f64::from(post.variance_time_multiplier);
    score_mean *= 1.0 - no_result;
    score_mean_sq *= 1.0 - no_result;
    lead *= 1.0 - no_result;
    let (shortterm_winloss_error, shortterm_score_error) = match model.version {
        14.. => {
            let a = softplus(0.5 * score[4]);
            let b = softplus(0.5 * score[5]);
            (
                (a * a * f64::from(post.shortterm_value_error_multiplier)).sqrt(),
                (b * b * f64::from(post.shortterm_score_error_multiplier)).sqrt(),
            )
        }
        10..=13 => (
            (softplus(score[4]) * f64::from(post.shortterm_value_error_multiplier)).sqrt(),
            (softplus(score[5]) * f64::from(post.shortterm_score_error_multiplier)).sqrt(),
        ),
        9 => (softplus(score[4]), 10.0 * softplus(score[5])),
        _ => (-1.0, -1.0),
    };

    let sign = if white_to_move { 1.0 } else { -1.0 };
    let (white_win, white_loss) = if white_to_move {
        (win, loss)
    } else {
        (loss, win)
    };
    let white_ownership = raw
        .ownership
        .iter()
        .map(|&x| sign as f32 * x.tanh())
        .collect();
    Evaluation {
        policy,
        white_win,
        white_loss,
        no_result,
        white_lead: sign * lead,
        white_score_mean: sign * score_mean,
        white_score_mean_sq: score_mean_sq,
        var_time_left,
        shortterm_winloss_error,
        shortterm_score_error,
        white_ownership,
    }
}
