//! Comparing two runs of the same scene (GPU against the CPU reference).
//!
//! Never bitwise: GPUs fuse multiply-adds and round `length` differently, so positions drift
//! apart by a few ulps per step, and constraint projection and contact can amplify that over
//! many frames. Tolerances are therefore relative to the cloth's size.

use glam::Vec3;

/// Tolerance of one integrate step, relative to the cloth size: a handful of f32 ulps of a
/// position of order one cloth size.
pub const ONE_STEP_TOLERANCE: f32 = 1.0e-6;
/// Tolerance of one frame of 10 iterations with collisions: ulp-level differences, passed
/// through 10 sweeps of projections that each mix neighbours.
pub const ONE_FRAME_TOLERANCE: f32 = 1.0e-5;
/// Tolerance of a long run (hundreds of frames, contacts, random dt): rounding differences are
/// amplified by contact decisions, so this bounds visible agreement (0.5 % of the cloth) rather
/// than arithmetic identity. `chiffon conform` uses it by default.
pub const LONG_RUN_TOLERANCE: f32 = 5.0e-3;

/// How far apart two position sets are.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Deviation {
    /// Largest distance between corresponding particles (m).
    pub max_m: f32,
    /// Mean distance between corresponding particles (m).
    pub mean_m: f32,
    /// Index of the particle with the largest distance.
    pub worst_particle: usize,
}

/// Per-particle distance between `a` and `b` (same length), maximum and mean.
pub fn deviation(a: &[Vec3], b: &[Vec3]) -> Deviation {
    assert_eq!(a.len(), b.len(), "comparing runs of different cloths");
    let mut d = Deviation {
        max_m: 0.0,
        mean_m: 0.0,
        worst_particle: 0,
    };
    let mut sum = 0.0f64;
    for (k, (p, q)) in a.iter().zip(b).enumerate() {
        let dist = p.distance(*q);
        sum += dist as f64;
        // A NaN must count as the worst possible deviation, not be skipped by `>`.
        if dist > d.max_m || dist.is_nan() {
            d.max_m = if dist.is_nan() { f32::INFINITY } else { dist };
            d.worst_particle = k;
        }
    }
    d.mean_m = (sum / a.len().max(1) as f64) as f32;
    if !d.mean_m.is_finite() {
        d.mean_m = f32::INFINITY;
    }
    d
}

/// Whether two runs agree: their [`Deviation`] against a tolerance.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Verdict {
    /// How far apart they are.
    pub deviation: Deviation,
    /// The largest accepted deviation (m): the tolerance times the cloth's size.
    pub tolerance_m: f32,
    /// Whether [`Deviation::max_m`] is within it (a NaN position never is).
    pub pass: bool,
}

/// Compares `a` with `b`, positions of a cloth of size `size` (m), at `tolerance` (a fraction
/// of that size, e.g. [`LONG_RUN_TOLERANCE`]): the decision `chiffon conform` prints.
pub fn verdict(a: &[Vec3], b: &[Vec3], size: f32, tolerance: f32) -> Verdict {
    let deviation = deviation(a, b);
    let tolerance_m = tolerance * size;
    Verdict {
        deviation,
        tolerance_m,
        pass: deviation.max_m <= tolerance_m,
    }
}
