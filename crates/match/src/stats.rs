//! Match statistics: the Wilson score interval for a win rate and the Elo
//! difference it implies.

/// The normal quantile for a two-sided 95% interval.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// A value with a confidence interval around it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The point estimate.
    pub value: f64,
    /// The lower end of the interval.
    pub low: f64,
    /// The upper end of the interval.
    pub high: f64,
}

/// The Wilson score interval for `successes` out of `trials` at normal quantile
/// `z` (use [`Z_95`] for 95%). `successes` may be fractional, so that draws
/// can count half. With no trials the interval is all of `[0, 1]` around 0.5.
///
/// Wilson's interval rather than the plain normal one because it stays inside
/// `[0, 1]` and behaves at small samples and extreme rates (10 wins out of 10),
/// which short engine matches produce all the time.
pub fn wilson_interval(successes: f64, trials: f64, z: f64) -> Estimate {
    if trials <= 0.0 {
        return Estimate {
            value: 0.5,
            low: 0.0,
            high: 1.0,
        };
    }
    let p = (successes / trials).clamp(0.0, 1.0);
    let z2 = z * z;
    let denominator = 1.0 + z2 / trials;
    let center = (p + z2 / (2.0 * trials)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / trials + z2 / (4.0 * trials * trials)).sqrt();
    // At a rate of exactly 0 or 1 the matching end is exactly 0 or 1; say so
    // rather than trust rounding, since the Elo scale turns it into infinity.
    Estimate {
        value: p,
        low: if p == 0.0 {
            0.0
        } else {
            (center - half).max(0.0)
        },
        high: if p == 1.0 {
            1.0
        } else {
            (center + half).min(1.0)
        },
    }
}

/// The Elo difference that makes the expected score `score` (0 to 1) under the
/// logistic model: `400 · log10(score / (1 − score))`. A score of 0 or 1 gives
/// an infinite difference.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        400.0 * (score / (1.0 - score)).log10()
    }
}

/// The expected score of a player `elo` points stronger: the inverse of
/// [`elo_from_score`].
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The Elo difference and its interval from a score rate and its interval:
/// the Elo scale is monotonic in the score, so the ends map to the ends.
pub fn elo_estimate(score: Estimate) -> Estimate {
    Estimate {
        value: elo_from_score(score.value),
        low: elo_from_score(score.low),
        high: elo_from_score(score.high),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    #[test]
    fn elo_known_values() {
        assert_eq!(elo_from_score(0.5), 0.0);
        // 400 · log10(3) = 190.848...
        assert!(close(elo_from_score(0.75), 190.848, 0.001));
        assert!(close(elo_from_score(0.25), -190.848, 0.001));
        // 400 · log10(9) = 381.697...
        assert!(close(elo_from_score(0.9), 381.697, 0.001));
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        for elo in [-500.0, -100.0, 0.0, 42.0, 300.0] {
            assert!(close(elo_from_score(score_from_elo(elo)), elo, 1e-9));
        }
    }

    #[test]
    fn wilson_known_values() {
        // 50 of 100 at 95%: 0.5 ± 0.0962 (centre stays at 0.5).
        let e = wilson_interval(50.0, 100.0, Z_95);
        assert_eq!(e.value, 0.5);
        assert!(close(e.low, 0.4038, 0.0001), "{e:?}");
        assert!(close(e.high, 0.5962, 0.0001), "{e:?}");
        // 8 of 10: [0.4902, 0.9433].
        let e = wilson_interval(8.0, 10.0, Z_95);
        assert!(close(e.low, 0.4902, 0.0001), "{e:?}");
        assert!(close(e.high, 0.9433, 0.0001), "{e:?}");
        // 10 of 10 stays inside [0, 1]: [0.7225, 1].
        let e = wilson_interval(10.0, 10.0, Z_95);
        assert!(close(e.low, 0.7225, 0.0001), "{e:?}");
        assert_eq!(e.high, 1.0);
        // 0 of 10 mirrors it.
        let e = wilson_interval(0.0, 10.0, Z_95);
        assert_eq!(e.low, 0.0);
        assert!(close(e.high, 0.2775, 0.0001), "{e:?}");
        // No games: no information.
        let e = wilson_interval(0.0, 0.0, Z_95);
        assert_eq!((e.low, e.high), (0.0, 1.0));
    }

    #[test]
    fn elo_interval_maps_the_ends() {
        let score = wilson_interval(75.0, 100.0, Z_95);
        let elo = elo_estimate(score);
        assert!(close(elo.value, 190.848, 0.001));
        assert!(elo.low < elo.value && elo.value < elo.high);
        assert!(close(elo.low, elo_from_score(score.low), 1e-9));
        // A clean sweep has no upper bound.
        let sweep = elo_estimate(wilson_interval(10.0, 10.0, Z_95));
        assert_eq!(sweep.value, f64::INFINITY);
        assert_eq!(sweep.high, f64::INFINITY);
        assert!(sweep.low.is_finite() && sweep.low > 0.0);
    }
}
