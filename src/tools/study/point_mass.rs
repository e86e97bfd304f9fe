//! Point-mass problems with known solutions, integrated by the library's own formulas
//! (`crate::integrator`), in f64.

use serde::Serialize;

use crate::integrator::{
    Integrator, explicit_euler_step, naive_start_previous, semi_implicit_euler_step,
    start_previous, velocity_verlet_step, verlet_next,
};

/// A 1-D problem with an exact solution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Problem {
    /// Constant acceleration: x = x₀ + v₀t + ½at².
    Projectile,
    /// x(t) a cubic, so the acceleration changes linearly in time.
    Polynomial,
    /// A spring, a = −ω²x: x = cos(ωt).
    Sine,
}

/// Angular frequency of the sine problem (rad/s): a 2 s period.
const OMEGA: f64 = std::f64::consts::PI;

crate::names::named_enum!(Problem "problem" {
    Projectile => "projectile",
    Polynomial => "polynomial",
    Sine => "sine",
});

impl Problem {
    /// Exact position at time t.
    pub fn exact(self, t: f64) -> f64 {
        match self {
            Problem::Projectile => 10.0 * t - 0.5 * 9.81 * t * t,
            Problem::Polynomial => 0.5 * t * t * t - 2.0 * t * t + 3.0 * t + 1.0,
            Problem::Sine => (OMEGA * t).cos(),
        }
    }

    /// Exact velocity at time t.
    pub fn velocity(self, t: f64) -> f64 {
        match self {
            Problem::Projectile => 10.0 - 9.81 * t,
            Problem::Polynomial => 1.5 * t * t - 4.0 * t + 3.0,
            Problem::Sine => -OMEGA * (OMEGA * t).sin(),
        }
    }

    /// Acceleration at position x and time t (the only thing an integrator may ask).
    pub fn accel(self, x: f64, t: f64) -> f64 {
        match self {
            Problem::Projectile => -9.81,
            Problem::Polynomial => 3.0 * t - 4.0,
            Problem::Sine => -OMEGA * OMEGA * x,
        }
    }
}

/// Every integrator the study compares; serialized by [`Method::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(into = "&'static str")]
pub enum Method {
    /// Explicit (forward) Euler.
    ExplicitEuler,
    /// Semi-implicit (symplectic) Euler.
    SemiImplicitEuler,
    /// Position Verlet (Störmer), ignores dt changes.
    Verlet,
    /// Dummer's time-corrected Verlet.
    TimeCorrected,
    /// Exact variable-step Störmer.
    TimeCorrectedExact,
    /// Velocity Verlet.
    VelocityVerlet,
}

impl From<Method> for &'static str {
    fn from(m: Method) -> Self {
        m.name()
    }
}

impl Method {
    /// All, in report order.
    pub const ALL: [Method; 6] = [
        Method::ExplicitEuler,
        Method::SemiImplicitEuler,
        Method::Verlet,
        Method::TimeCorrected,
        Method::TimeCorrectedExact,
        Method::VelocityVerlet,
    ];

    /// Short name; the Verlet family uses [`Integrator::name`], the solver's spelling.
    pub fn name(self) -> &'static str {
        match self.verlet_family() {
            Some(integrator) => integrator.name(),
            None => match self {
                Method::ExplicitEuler => "explicit-euler",
                Method::SemiImplicitEuler => "semi-implicit-euler",
                _ => "velocity-verlet",
            },
        }
    }

    /// The solver's integrator for the position-Verlet family.
    pub fn verlet_family(self) -> Option<Integrator> {
        match self {
            Method::Verlet => Some(Integrator::Verlet),
            Method::TimeCorrected => Some(Integrator::TimeCorrected),
            Method::TimeCorrectedExact => Some(Integrator::TimeCorrectedExact),
            _ => None,
        }
    }

    /// How the method starts when started correctly: [`Start::Correct`] for the
    /// position-Verlet family, [`Start::None`] for the others.
    pub fn correct_start(self) -> Start {
        if self.verlet_family().is_some() {
            Start::Correct
        } else {
            Start::None
        }
    }
}

/// How the position-Verlet family gets its x₋₁.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Start {
    /// x₋₁ = x₀ − v₀h + ½ah².
    Correct,
    /// x₋₁ = x₀ − v₀h.
    Naive,
    /// Not a position-Verlet method.
    None,
}

/// Times and positions of one run, starting at t = 0.
#[derive(Clone, Debug)]
pub struct Trajectory {
    /// Times (s).
    pub t: Vec<f64>,
    /// Positions (m) at those times.
    pub x: Vec<f64>,
}

impl Trajectory {
    /// Largest and final absolute error against the exact solution.
    pub fn errors(&self, problem: Problem) -> (f64, f64) {
        let err: Vec<f64> = self
            .t
            .iter()
            .zip(&self.x)
            .map(|(&t, &x)| (x - problem.exact(t)).abs())
            .collect();
        (
            err.iter().copied().fold(0.0, f64::max),
            *err.last().unwrap(),
        )
    }
}

/// Integrates `problem` over the step sequence `dts` (s).
pub fn integrate(problem: Problem, method: Method, start: Start, dts: &[f64]) -> Trajectory {
    let (mut t, mut x, mut v) = (0.0f64, problem.exact(0.0), problem.velocity(0.0));
    let mut out = Trajectory {
        t: vec![t],
        x: vec![x],
    };
    let a = |x: f64, t: f64| problem.accel(x, t);
    if let Some(integrator) = method.verlet_family() {
        let h0 = dts[0];
        let mut prev = match start {
            Start::Naive => naive_start_previous(x, v, h0),
            _ => start_previous(x, v, a(x, t), h0),
        };
        let mut h_prev = h0;
        for &h in dts {
            let c = integrator.coefficients(h, h_prev);
            let next = verlet_next(x, prev, a(x, t), c.ratio, 1.0, c.accel_scale);
            (prev, x, h_prev) = (x, next, h);
            t += h;
            out.t.push(t);
            out.x.push(x);
        }
        return out;
    }
    let mut acc = a(x, t);
    for &h in dts {
        (x, v) = match method {
            Method::ExplicitEuler => explicit_euler_step(x, v, a(x, t), h),
            Method::SemiImplicitEuler => semi_implicit_euler_step(x, v, a(x, t), h),
            Method::VelocityVerlet => {
                let (xn, vn, an) = velocity_verlet_step(x, v, acc, h, |xn| a(xn, t + h));
                acc = an;
                (xn, vn)
            }
            _ => unreachable!("Verlet family handled above"),
        };
        t += h;
        out.t.push(t);
        out.x.push(x);
    }
    out
}
