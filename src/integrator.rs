//! The integration formulas, written once.
//!
//! The CPU `integrate` kernel (the twin of `shaders/integrate.wgsl`) and the integrator study both
//! call these functions, and the GPU receives the coefficients computed by
//! [`Integrator::coefficients`], so a formula lives in exactly one place.
//!
//! Every Verlet-family update has the shape
//! `x_next = x + (x - x_prev) * (ratio * damping) + a * accel_scale`;
//! the integrators differ only in `ratio` and `accel_scale`:
//!
//! | scheme | update |
//! | --- | --- |
//! | position Verlet (Störmer) | `x + (x − x_prev) + a h²` |
//! | time-corrected Verlet (Dummer) | `x + (x − x_prev) (h / h_prev) + a h²` |
//! | exact variable-step Störmer | `x + (x − x_prev) (h / h_prev) + a h (h + h_prev) / 2` |
//!
//! The third is exact for constant acceleration under any dt sequence; the second, as
//! published, is not. `docs/study/study.md` measures all of them.

use std::ops::{Add, Mul, Sub};

/// Which position-Verlet variant advances the particles. Its one spelling everywhere (command
/// line, JSON, tables, the demo) is [`Integrator::name`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "&'static str", try_from = "String")
)]
pub enum Integrator {
    /// Plain position (Störmer) Verlet: `x + (x - x_prev) + a h²`. Ignores dt changes, so it is
    /// only right for a constant step.
    Verlet,
    /// Time-corrected Verlet (Dummer): `x + (x - x_prev) (h / h_prev) + a h²`.
    #[default]
    TimeCorrected,
    /// Exact variable-step Störmer: `x + (x - x_prev) (h / h_prev) + a h (h + h_prev) / 2`;
    /// exact for constant acceleration under any dt sequence.
    TimeCorrectedExact,
}

crate::names::named_enum!(Integrator "integrator" {
    Verlet => "verlet",
    TimeCorrected => "tcv",
    TimeCorrectedExact => "tcv-exact",
});

impl Integrator {
    /// Coefficients of one step of length `h` (s) that follows a step of length `h_prev` (s).
    pub fn coefficients(self, h: f64, h_prev: f64) -> StepCoefficients {
        match self {
            Integrator::Verlet => StepCoefficients {
                ratio: 1.0,
                accel_scale: h * h,
            },
            Integrator::TimeCorrected => StepCoefficients {
                ratio: h / h_prev,
                accel_scale: h * h,
            },
            Integrator::TimeCorrectedExact => StepCoefficients {
                ratio: h / h_prev,
                accel_scale: h * (h + h_prev) * 0.5,
            },
        }
    }
}

impl From<Integrator> for &'static str {
    fn from(i: Integrator) -> Self {
        i.name()
    }
}

impl TryFrom<String> for Integrator {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

/// The two numbers that make one Verlet step: the dt ratio and the acceleration's factor (s²).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepCoefficients {
    /// Multiplies the implied displacement `x - x_prev`: `h / h_prev` (1 for plain Verlet).
    pub ratio: f64,
    /// Multiplies the acceleration: `h²`, or `h (h + h_prev) / 2` for the exact form (s²).
    pub accel_scale: f64,
}

/// Per-step velocity factor for a damping rate `c` (1/s): `exp(-c h)`, so that the decay per
/// second is the same at any frame rate.
pub fn damping_factor(rate_per_s: f64, h: f64) -> f64 {
    (-rate_per_s * h).exp()
}

/// One Verlet-family step: `x + (x - x_prev) * (ratio * damping) + a * accel_scale`.
///
/// The order of the arithmetic is the one `shaders/integrate.wgsl` uses.
#[inline]
pub fn verlet_next<V, S>(x: V, x_prev: V, a: V, ratio: S, damping: S, accel_scale: S) -> V
where
    V: Copy + Add<Output = V> + Sub<Output = V> + Mul<S, Output = V>,
    S: Copy + Mul<Output = S>,
{
    x + (x - x_prev) * (ratio * damping) + a * accel_scale
}

/// The position one step of length `h` before `x0`, for a particle with velocity `v0` and
/// constant acceleration `a`: `x₋₁ = x₀ − v₀h + ½ah²`. With it, the first Verlet step lands
/// exactly on the constant-acceleration trajectory.
#[inline]
pub fn start_previous<V, S>(x0: V, v0: V, a: V, h: S) -> V
where
    V: Copy + Add<Output = V> + Sub<Output = V> + Mul<S, Output = V>,
    S: Copy + Mul<Output = S> + From<f32>,
{
    x0 - v0 * h + a * (h * h * S::from(0.5))
}

/// A particle's previous position when its Verlet history starts (`p`: position, inverse mass
/// in w): [`start_previous`] for a free particle, its own position for a pinned one (which
/// never moves). The world starts every cloth this way, on the host, when it joins or resets.
#[inline]
pub fn start_particle(p: glam::Vec4, v0: glam::Vec3, a: glam::Vec3, h: f32) -> glam::Vec4 {
    let x = p.truncate();
    if p.w == 0.0 {
        x.extend(0.0)
    } else {
        start_previous(x, v0, a, h).extend(0.0)
    }
}

/// The tempting but wrong start `x₋₁ = x₀ − v₀h`, off by `½ah²`; kept for the study and the
/// test that shows why it is wrong.
#[inline]
pub fn naive_start_previous<V, S>(x0: V, v0: V, h: S) -> V
where
    V: Copy + Sub<Output = V> + Mul<S, Output = V>,
{
    x0 - v0 * h
}

/// Explicit (forward) Euler: position first, with the old velocity. Global error O(h).
#[inline]
pub fn explicit_euler_step<V, S>(x: V, v: V, a: V, h: S) -> (V, V)
where
    V: Copy + Add<Output = V> + Mul<S, Output = V>,
    S: Copy,
{
    (x + v * h, v + a * h)
}

/// Semi-implicit (symplectic) Euler: velocity first, then position with the new velocity.
#[inline]
pub fn semi_implicit_euler_step<V, S>(x: V, v: V, a: V, h: S) -> (V, V)
where
    V: Copy + Add<Output = V> + Mul<S, Output = V>,
    S: Copy,
{
    let v_next = v + a * h;
    (x + v_next * h, v_next)
}

/// Velocity Verlet: `x += v h + a h²/2`, then `v += (a_old + a_new) h / 2` where `a_new` is the
/// acceleration at the new position and time, given by `accel`. Returns (x, v, a_new).
#[inline]
pub fn velocity_verlet_step<V, S>(x: V, v: V, a: V, h: S, accel: impl Fn(V) -> V) -> (V, V, V)
where
    V: Copy + Add<Output = V> + Mul<S, Output = V>,
    S: Copy + Mul<Output = S> + From<f32>,
{
    let half = S::from(0.5);
    let x_next = x + v * h + a * (h * h * half);
    let a_next = accel(x_next);
    (x_next, v + (a + a_next) * (h * half), a_next)
}
