//! Dirichlet noise for the root's priors (AlphaZero's exploration in
//! self-play), drawn from tengen's own seeded generator.

use tengen_core::Rng;

/// `n` weights drawn from a symmetric Dirichlet distribution with
/// concentration `alpha` per component, determined by `seed`. They sum to 1.
pub fn dirichlet(seed: u64, alpha: f64, n: usize) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    let alpha = alpha.max(1e-3);
    let mut draws: Vec<f64> = (0..n).map(|_| gamma(&mut rng, alpha)).collect();
    let total: f64 = draws.iter().sum();
    if total > 0.0 && total.is_finite() {
        for d in &mut draws {
            *d /= total;
        }
    } else {
        draws = vec![1.0 / n.max(1) as f64; n];
    }
    draws
}

/// A Gamma(`alpha`, 1) draw: Marsaglia and Tsang's method, with the usual
/// `U^(1/alpha)` boost below 1.
fn gamma(rng: &mut Rng, alpha: f64) -> f64 {
    if alpha < 1.0 {
        let u = open_unit(rng);
        return gamma(rng, alpha + 1.0) * u.powf(1.0 / alpha);
    }
    let d = alpha - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = normal(rng);
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = open_unit(rng);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// A uniform draw in `(0, 1)`.
fn open_unit(rng: &mut Rng) -> f64 {
    loop {
        let u = rng.next_f64();
        if u > 0.0 {
            return u;
        }
    }
}

/// A standard normal draw (Box–Muller).
fn normal(rng: &mut Rng) -> f64 {
    let u1 = open_unit(rng);
    let u2 = rng.next_f64();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dirichlet_sums_to_one_and_is_deterministic() {
        let a = dirichlet(7, 0.03, 50);
        let b = dirichlet(7, 0.03, 50);
        assert_eq!(a, b);
        assert!((a.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(a.iter().all(|&x| (0.0..=1.0).contains(&x)));
        // A small concentration puts most of the mass on few components.
        let max = a.iter().cloned().fold(0.0, f64::max);
        assert!(max > 0.2, "max {max}");
        assert_ne!(dirichlet(8, 0.03, 50), a);
    }
}
