//! Frame-rate independence on cloth: the same scene at several frame rates, against a reference
//! run at a small fixed step.

use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::cloth::{ClothBuilder, Pinning};
use crate::conformance::deviation;
use crate::cpu::CpuSolver;
use crate::error::Result;
use crate::gpu::{GpuContext, GpuSolver};
use crate::integrator::Integrator;
use crate::params::{SolverParams, Sphere};
use crate::solver::Solver;

/// Simulated time of every run (s).
pub const DURATION: f64 = 2.0;
/// Runs are compared every 1/6 s: a whole number of frames at 30, 60, 144 and 960 fps, so
/// the fixed-rate runs need no clipped frames.
pub const CHECKPOINT: f64 = 1.0 / 6.0;
/// Step of the reference run (s).
pub const REFERENCE_DT: f64 = 1.0 / 960.0;

/// How a run's frame times are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FrameRate {
    Fixed(f64),
    /// Each frame's fps uniform in [min, max], seeded.
    Random {
        min: f64,
        max: f64,
        seed: u64,
    },
}

impl FrameRate {
    /// Label for tables.
    pub fn label(&self) -> String {
        match self {
            FrameRate::Fixed(f) => format!("fixed {f} fps"),
            FrameRate::Random { min, max, .. } => format!("random {min}-{max} fps"),
        }
    }

    /// Frame times covering exactly [`DURATION`]; a random frame that would cross a checkpoint
    /// is shortened to land on it.
    pub fn dts(&self) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(match self {
            FrameRate::Random { seed, .. } => *seed,
            FrameRate::Fixed(_) => 0,
        });
        super::clipped_steps(DURATION, CHECKPOINT, || match self {
            FrameRate::Random { min, max, .. } => 1.0 / rng.random_range(*min..=*max),
            FrameRate::Fixed(f) => 1.0 / f,
        })
    }
}

/// One row of the cloth table: distances from the reference over all checkpoints.
#[derive(Clone, Debug, Serialize)]
pub struct ClothRecord {
    pub integrator: &'static str,
    pub frame_rate: String,
    pub frames: usize,
    pub mean_distance_m: f32,
    pub max_distance_m: f32,
}

/// Which solver runs the cloth experiment.
pub enum ClothBackend<'a> {
    Gpu(&'a GpuContext),
    Cpu,
}

/// The scene: a hanging 32×32 cloth, corners pinned, swinging into a sphere behind it.
fn scene(integrator: Integrator) -> Result<(crate::Cloth, SolverParams)> {
    let cloth = ClothBuilder::grid(32, 32)
        .pinning(Pinning::Corners)
        .velocity(Vec3::new(0.0, 0.0, -1.5))
        .build()?;
    let params = SolverParams {
        integrator,
        sphere: Some(Sphere {
            center: Vec3::new(0.0, 0.45, -0.4),
            radius: 0.3,
        }),
        ..SolverParams::default()
    };
    Ok((cloth, params))
}

/// Runs the scene and returns the positions at every checkpoint.
fn run(backend: &ClothBackend, integrator: Integrator, dts: &[f64]) -> Result<Vec<Vec<Vec3>>> {
    let (cloth, params) = scene(integrator)?;
    let mut solver: Box<dyn Solver> = match backend {
        ClothBackend::Gpu(ctx) => Box::new(GpuSolver::new(ctx, &cloth, params)?),
        ClothBackend::Cpu => Box::new(CpuSolver::new(&cloth, params)?),
    };
    let mut snapshots = Vec::new();
    let mut t = 0.0;
    for (k, &dt) in dts.iter().enumerate() {
        solver.step(dt)?;
        t += dt;
        let nearest = (t / CHECKPOINT).round() * CHECKPOINT;
        if (t - nearest).abs() < 1e-9 {
            let p = solver.positions()?;
            crate::solver::check_finite(&p, k as u64 + 1)?;
            snapshots.push(p);
        }
    }
    Ok(snapshots)
}

/// The frame rates the experiment compares.
pub fn frame_rates(seed: u64) -> Vec<FrameRate> {
    vec![
        FrameRate::Fixed(30.0),
        FrameRate::Fixed(60.0),
        FrameRate::Fixed(144.0),
        FrameRate::Random {
            min: 30.0,
            max: 144.0,
            seed,
        },
    ]
}

/// The reference: the scene at [`REFERENCE_DT`], at every checkpoint. At a fixed step all three
/// integrators are the same formula, so one reference serves all.
pub fn reference(backend: &ClothBackend) -> Result<Vec<Vec<Vec3>>> {
    let dts = vec![REFERENCE_DT; (DURATION / REFERENCE_DT).round() as usize];
    run(backend, Integrator::TimeCorrected, &dts)
}

/// Runs `integrator` at `rate` and measures its distance from `reference` over all checkpoints.
pub fn compare(
    backend: &ClothBackend,
    integrator: Integrator,
    rate: FrameRate,
    reference: &[Vec<Vec3>],
) -> Result<ClothRecord> {
    let dts = rate.dts();
    let snapshots = run(backend, integrator, &dts)?;
    assert_eq!(snapshots.len(), reference.len(), "checkpoints differ");
    let d: Vec<_> = snapshots
        .iter()
        .zip(reference)
        .map(|(p, r)| deviation(p, r))
        .collect();
    Ok(ClothRecord {
        integrator: integrator.cli_name(),
        frame_rate: rate.label(),
        frames: dts.len(),
        mean_distance_m: d.iter().map(|d| d.mean_m).sum::<f32>() / d.len() as f32,
        max_distance_m: d.iter().map(|d| d.max_m).fold(0.0, f32::max),
    })
}

/// Runs every integrator at every frame rate and measures the distance from the reference.
pub fn experiment(backend: &ClothBackend, seed: u64) -> Result<Vec<ClothRecord>> {
    let reference = reference(backend)?;
    let mut out = Vec::new();
    for integrator in Integrator::ALL {
        for rate in frame_rates(seed) {
            out.push(compare(backend, integrator, rate, &reference)?);
        }
    }
    Ok(out)
}
