//! How good a cloth state is, reported beside every speed figure: structural edge stretch
//! (current length over rest length), and its energy (how a user checks a solver's damping).

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

/// The stretch of several cloths at once, as the demos show it: the largest p99 and max of
/// any cloth, and the mean of the cloths' means. Each item is a cloth and its positions.
pub fn stretch_of_cloths<'a>(cloths: impl IntoIterator<Item = (&'a Cloth, &'a [Vec3])>) -> Stretch {
    let all: Vec<Stretch> = cloths
        .into_iter()
        .map(|(cloth, positions)| stretch(cloth, positions))
        .collect();
    let mut total = Stretch::default();
    for one in &all {
        total.mean += one.mean / all.len() as f64;
        total.p99 = total.p99.max(one.p99);
        total.max = total.max.max(one.max);
    }
    total
}

/// A cloth's mechanical energy (J), from Verlet's positions (seed 001): what a user plots to
/// see how much a solver damps.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Energy {
    /// Σ ½ m |v|² over the free particles, v = (x − x₋₁) / h from the last substep.
    pub kinetic: f64,
    /// Σ −m g · x over the free particles (0 at the origin; only its changes mean anything).
    pub gravitational: f64,
    /// Σ ½ C² / α over the compliant constraints (C = length − rest, α in m/N). Rigid
    /// constraints (α = 0) hold no energy: what they remove shows as the others' loss.
    pub elastic: f64,
}

impl Energy {
    /// Kinetic + gravitational + elastic.
    pub fn total(&self) -> f64 {
        self.kinetic + self.gravitational + self.elastic
    }
}

/// The energy of a cloth state: `positions` (inverse mass in w: 0 for a pinned or held
/// particle, which is left out) and `previous` from the last substep of length `h` (s),
/// under `gravity` (m/s²) and `compliance`. Masses are the cloth's free masses.
pub fn energy(
    cloth: &Cloth,
    positions: &[glam::Vec4],
    previous: &[glam::Vec4],
    h: f64,
    gravity: Vec3,
    compliance: &crate::params::Compliance,
) -> Energy {
    let mut e = Energy::default();
    let g = gravity.as_dvec3();
    for ((x, x0), &w) in positions
        .iter()
        .zip(previous)
        .zip(cloth.free_inverse_masses())
    {
        if x.w == 0.0 || w == 0.0 {
            continue;
        }
        let m = 1.0 / w as f64;
        let v = (x.truncate().as_dvec3() - x0.truncate().as_dvec3()) / h;
        e.kinetic += 0.5 * m * v.length_squared();
        e.gravitational -= m * g.dot(x.truncate().as_dvec3());
    }
    let records = cloth.constraints();
    for (k, c) in records.iter().enumerate() {
        if c.is_stencil() {
            // A bending stencil (its head): ½ |κ|² / α.
            let alpha = compliance.curvature as f64;
            if c.is_stencil_tail() || alpha <= 0.0 {
                continue;
            }
            let (p, w) = crate::Constraint::stencil_parts(c, &records[k + 1]);
            let kappa: glam::DVec3 = (0..4)
                .map(|a| positions[p[a] as usize].truncate().as_dvec3() * w[a] as f64)
                .sum();
            e.elastic += 0.5 * kappa.length_squared() / alpha;
            continue;
        }
        let Some(kind) = crate::ConstraintKind::from_index(c.kind_number()) else {
            continue;
        };
        let alpha = compliance.of(kind) as f64;
        if alpha > 0.0 {
            let (a, b) = (positions[c.i as usize], positions[c.j as usize]);
            let stretch = a.truncate().distance(b.truncate()) as f64 - c.rest as f64;
            e.elastic += 0.5 * stretch * stretch / alpha;
        }
    }
    e
}
