//! Solver parameters: everything that may change between frames without rebuilding the cloth.

use glam::Vec3;

use crate::error::{ChiffonError, Result, check_at_least, check_finite3, check_range};
use crate::integrator::Integrator;

/// A sphere collider.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Sphere {
    /// Centre (m).
    pub center: Vec3,
    /// Radius (m), > 0.
    pub radius: f32,
}

/// How the solver advances the cloth. Every field can change between frames.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SolverParams {
    /// Gravity as an acceleration (m/s²). Default `(0, -9.81, 0)`.
    pub gravity: Vec3,
    /// Wind, as a constant acceleration added to gravity (m/s²). Default zero.
    pub wind: Vec3,
    /// Velocity decay rate (1/s): each step keeps `exp(-damping · h)` of the implied velocity,
    /// so the decay does not depend on the frame rate. 0 disables damping. Default 0.5.
    pub damping: f32,
    /// Constraint relaxation sweeps per substep (over every color). Default 10.
    pub iterations: u32,
    /// Substeps per `step(dt)` call; each is `dt / substeps` long. Default 1.
    pub substeps: u32,
    /// Integration scheme. Default [`Integrator::TimeCorrected`].
    pub integrator: Integrator,
    /// Height of an infinite ground plane with normal +y (m), or `None`. Default `None`.
    pub ground: Option<f32>,
    /// One sphere collider, or `None`. Default `None`.
    pub sphere: Option<Sphere>,
    /// Friction for both colliders, in [0, 1]: the fraction of tangential motion removed on
    /// contact in one step. Default 0.3.
    pub friction: f32,
}

impl Default for SolverParams {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            wind: Vec3::ZERO,
            damping: 0.5,
            iterations: 10,
            substeps: 1,
            integrator: Integrator::TimeCorrected,
            ground: None,
            sphere: None,
            friction: 0.3,
        }
    }
}

/// Upper bounds that catch typos (an extra zero) before they become a hang.
pub const MAX_ITERATIONS: u32 = 1000;
/// See [`MAX_ITERATIONS`].
pub const MAX_SUBSTEPS: u32 = 256;
/// Largest acceleration magnitude accepted for gravity or wind (m/s²): 1000 g.
pub const MAX_ACCELERATION: f32 = 9810.0;

impl SolverParams {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<()> {
        check_finite3("gravity", self.gravity)?;
        check_finite3("wind", self.wind)?;
        for (name, v) in [("gravity", self.gravity), ("wind", self.wind)] {
            check_range(name, v.length() as f64, 0.0, MAX_ACCELERATION as f64)?;
        }
        check_range("damping (1/s)", self.damping as f64, 0.0, 1.0e4)?;
        check_range(
            "iterations",
            self.iterations as f64,
            0.0,
            MAX_ITERATIONS as f64,
        )?;
        check_range("substeps", self.substeps as f64, 1.0, MAX_SUBSTEPS as f64)?;
        check_range("friction", self.friction as f64, 0.0, 1.0)?;
        if let Some(h) = self.ground {
            check_at_least("ground height", h as f64, -1.0e6)?;
        }
        if let Some(s) = self.sphere {
            check_finite3("sphere centre", s.center)?;
            check_at_least("sphere radius", s.radius as f64, 0.0)?;
            if s.radius <= 0.0 {
                return Err(ChiffonError::InvalidParameter {
                    name: "sphere radius",
                    reason: format!("{} must be greater than 0", s.radius),
                });
            }
        }
        Ok(())
    }

    /// The total constant acceleration (gravity + wind), m/s².
    pub fn acceleration(&self) -> Vec3 {
        self.gravity + self.wind
    }
}

/// Largest single step accepted by `step(dt)` (s). Longer frames should be clamped by the host.
pub const MAX_DT: f64 = 1.0;

/// Checks a frame time handed to `step`.
pub fn validate_dt(dt: f64) -> Result<()> {
    if !dt.is_finite() || dt <= 0.0 {
        return Err(ChiffonError::InvalidParameter {
            name: "dt",
            reason: format!("{dt} s is not a positive finite time step"),
        });
    }
    check_range("dt (s)", dt, 1.0e-7, MAX_DT)
}
