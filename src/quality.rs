//! How good a cloth state is, reported beside every speed figure: structural edge stretch
//! (current length over rest length).

use glam::Vec3;

use crate::cloth::Cloth;

/// Structural edge length over rest length, over every structural constraint of a state.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Stretch {
    /// Mean ratio (1 = at rest length).
    pub mean: f64,
    /// 99th percentile of the ratio.
    pub p99: f64,
    /// Largest ratio.
    pub max: f64,
}

/// The stretch of `positions` (in the cloth's particle order). A cloth without structural
/// constraints reports all ones.
pub fn stretch(cloth: &Cloth, positions: &[Vec3]) -> Stretch {
    let mut ratios: Vec<f64> = cloth
        .structural_constraints()
        .filter(|c| c.rest > 0.0)
        .map(|c| (positions[c.i as usize].distance(positions[c.j as usize]) / c.rest) as f64)
        .collect();
    if ratios.is_empty() {
        return Stretch {
            mean: 1.0,
            p99: 1.0,
            max: 1.0,
        };
    }
    ratios.sort_by(f64::total_cmp);
    let n = ratios.len();
    Stretch {
        mean: ratios.iter().sum::<f64>() / n as f64,
        p99: ratios[((n - 1) as f64 * 0.99).round() as usize],
        max: ratios[n - 1],
    }
}
