//! The utility of a search's values: win/loss and the bounded score
//! terms, KataGo's, and the average utilities of nodes.

use super::*;

/// The score part of the utility, after KataGo: a static term centred on a
/// draw and a dynamic one centred near the root's expected score, each
/// `(2/π)·atan(x / scale)` of the score, so a point matters most near the
/// centre and the total stays bounded. As KataGo, it is taken in
/// expectation over the score's distribution (a normal one with the
/// network's mean and spread, by 20-point Gauss–Hermite quadrature) when
/// [`ScoreUtility::score_distribution`](crate::ScoreUtility::score_distribution) is on; otherwise of the expected lead.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Utility {
    static_factor: f64,
    dynamic_factor: f64,
    static_scale: f64,
    dynamic_scale: f64,
    /// Black's score the dynamic term is centred on.
    center: f64,
    /// Whether the score's distribution is used (else the lead).
    distribution: bool,
}

/// Nodes and weights of 20-point Gauss–Hermite quadrature (the positive
/// half; the rule is symmetric): `∫ e^{-x²} f(x) dx ≈ Σ wᵢ f(xᵢ)`.
const GAUSS_HERMITE: [(f64, f64); 10] = [
    (0.245_340_708_300_901_24, 0.462_243_669_600_610_1),
    (0.737_473_728_545_394_3, 0.286_675_505_362_834_04),
    (1.234_076_215_395_323, 0.109_017_206_020_023_3),
    (1.738_537_712_116_586_1, 0.024_810_520_887_463_626),
    (2.254_974_002_089_275_7, 0.003_243_773_342_237_852_8),
    (2.788_806_058_428_130_5, 0.000_228_338_636_016_352_64),
    (3.347_854_567_383_216_3, 7.802_556_478_532_067e-6),
    (3.944_764_040_115_625, 1.086_069_370_769_281_5e-7),
    (4.603_682_449_550_744, 4.399_340_992_273_18e-10),
    (5.387_480_890_011_233, 2.229_393_645_534_152_3e-13),
];

impl Utility {
    /// The utility for `config` on a board of `points` points, centred at 0
    /// until [`Utility::recentre`] is told the root's expected lead.
    pub fn new(config: &PuctConfig, points: usize) -> Utility {
        let root = (points as f64).sqrt().max(1.0);
        Utility {
            static_factor: f64::from(config.utility.static_score_utility),
            dynamic_factor: f64::from(config.utility.dynamic_score_utility),
            static_scale: 2.0 * root,
            dynamic_scale: f64::from(config.utility.dynamic_score_center_scale).max(0.05) * root,
            center: 0.0,
            distribution: config.utility.score_distribution,
        }
    }

    /// The score utility for Black of a score with this mean and standard
    /// deviation: the expectation of [`Utility::score`] under a normal
    /// distribution.
    pub fn expected_score(&self, mean: f64, stdev: f64) -> f64 {
        if stdev < 1e-6 {
            return self.score(mean);
        }
        let spread = std::f64::consts::SQRT_2 * stdev;
        let sum: f64 = GAUSS_HERMITE
            .iter()
            .map(|&(x, w)| w * (self.score(mean + spread * x) + self.score(mean - spread * x)))
            .sum();
        sum / std::f64::consts::PI.sqrt()
    }

    /// The utility for Black of a backed-up value.
    pub fn of_value(&self, value: &LeafValue) -> f64 {
        let win_loss = f64::from(value.black_win) - f64::from(value.white_win);
        if self.distribution {
            win_loss + self.expected_score(f64::from(value.black_score), value.score_stdev())
        } else {
            win_loss + self.score(f64::from(value.black_lead))
        }
    }

    /// Whether the score's distribution is used.
    pub fn uses_distribution(&self) -> bool {
        self.distribution
    }

    /// Centres the dynamic term on `black_lead` pulled `zero_weight` of the
    /// way to 0, no further from `black_lead` than the dynamic scale.
    pub fn recentre(&mut self, black_lead: f64, zero_weight: f64) {
        let pulled = black_lead * (1.0 - zero_weight.clamp(0.0, 1.0));
        self.center = pulled.clamp(
            black_lead - self.dynamic_scale,
            black_lead + self.dynamic_scale,
        );
    }

    /// The centre of the dynamic term (Black's lead).
    pub fn center(&self) -> f64 {
        self.center
    }

    /// The score utility of Black's lead, for Black.
    pub fn score(&self, black_lead: f64) -> f64 {
        let f = std::f64::consts::FRAC_2_PI;
        self.static_factor * f * (black_lead / self.static_scale).atan()
            + self.dynamic_factor * f * ((black_lead - self.center) / self.dynamic_scale).atan()
    }

    /// The slope of [`Utility::score`] at Black's score `x` (KataGo's
    /// `getApproxScoreUtilityDerivative`).
    pub fn score_slope(&self, x: f64) -> f64 {
        let f = std::f64::consts::FRAC_2_PI;
        let term = |scale: f64, centre: f64| {
            let u = (x - centre) / scale;
            f / (scale * (1.0 + u * u))
        };
        self.static_factor * term(self.static_scale, 0.0)
            + self.dynamic_factor * term(self.dynamic_scale, self.center)
    }

    /// The whole utility for Black: win − loss plus the score utility.
    pub fn black(&self, win_loss: f64, black_lead: f64) -> f64 {
        win_loss + self.score(black_lead)
    }

    /// The largest size a utility can have: win−loss plus both score
    /// terms at their bounds.
    pub fn range(&self) -> f64 {
        1.0 + self.static_factor.abs() + self.dynamic_factor.abs()
    }

    /// The worst utility there is, the value of a virtual loss.
    pub fn worst(&self) -> f64 {
        -self.range()
    }
}

/// A node's average utility for Black, if visited: the weighted mean of
/// the utilities its visits were backed up with, each under the score
/// utility of its time, subtree value bias included (KataGo's
/// `utilityAvg`, what exploration and the move's choice compare).
pub fn mean_utility(tree: &Tree, id: NodeId) -> Option<f64> {
    tree.node(id).utility_moments().map(|(mean, _)| mean)
}

/// The utility for Black of a node's average values (its mean win−loss and
/// score), if visited: what a node without children is recomputed to when
/// the score utility changes.
pub fn node_utility(tree: &Tree, id: NodeId, utility: &Utility) -> Option<f64> {
    let node = tree.node(id);
    let win_loss = node.black_win_loss()?;
    if utility.uses_distribution() {
        let (mean, stdev) = node.black_score()?;
        Some(win_loss + utility.expected_score(mean, stdev))
    } else {
        Some(utility.black(win_loss, node.black_lead()?))
    }
}
