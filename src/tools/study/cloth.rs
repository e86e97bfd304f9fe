//! Frame-rate independence on cloth: the same scene at several frame rates, against a reference
//! run at a small fixed step.

use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::conformance::deviation;
use crate::error::Result;
use crate::gpu::GpuContext;
use crate::integrator::Integrator;

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
    /// Every frame at this many fps.
    Fixed(f64),
    /// Each frame's fps uniform in [min, max], seeded.
    Random {
        /// Lowest fps.
        min: f64,
        /// Highest fps.
        max: f64,
        /// Seed of the generator.
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
        let mut rng = self.rng();
        super::clipped_steps(DURATION, CHECKPOINT, || self.draw(&mut rng))
    }

    /// Frame times covering at least `seconds`, none shortened.
    pub fn sequence(&self, seconds: f64) -> Vec<f64> {
        let mut rng = self.rng();
        let (mut out, mut t) = (Vec::new(), 0.0);
        while t < seconds {
            let dt = self.draw(&mut rng);
            out.push(dt);
            t += dt;
        }
        out
    }

    fn rng(&self) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(match self {
            FrameRate::Random { seed, .. } => *seed,
            FrameRate::Fixed(_) => 0,
        })
    }

    fn draw(&self, rng: &mut ChaCha8Rng) -> f64 {
        match self {
            FrameRate::Random { min, max, .. } => 1.0 / rng.random_range(*min..=*max),
            FrameRate::Fixed(f) => 1.0 / f,
        }
    }
}

/// One row of the cloth table: distances from the reference over all checkpoints.
#[derive(Clone, Debug, Serialize)]
pub struct ClothRecord {
    /// [`Integrator::name`].
    pub integrator: &'static str,
    /// The frame rate's label.
    pub frame_rate: String,
    /// Frames run.
    pub frames: usize,
    /// Mean particle distance from the reference over all checkpoints (m).
    pub mean_distance_m: f32,
    /// Largest particle distance from the reference at any checkpoint (m).
    pub max_distance_m: f32,
}

/// Runs the scene and returns the positions at every checkpoint.
fn run(gpu: Option<&GpuContext>, integrator: Integrator, dts: &[f64]) -> Result<Vec<Vec<Vec3>>> {
    let (cloth, params) = crate::tools::scenes::study_cloth(integrator)?;
    let mut solver = super::solver(gpu, &cloth, params)?;
    let mut snapshots = Vec::new();
    let mut t = 0.0;
    for &dt in dts {
        solver.step(dt)?;
        t += dt;
        let nearest = (t / CHECKPOINT).round() * CHECKPOINT;
        if (t - nearest).abs() < 1e-9 {
            solver.health()?;
            snapshots.push(solver.positions()?);
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
pub fn reference(gpu: Option<&GpuContext>) -> Result<Vec<Vec<Vec3>>> {
    let dts = vec![REFERENCE_DT; (DURATION / REFERENCE_DT).round() as usize];
    run(gpu, Integrator::TimeCorrected, &dts)
}

/// Runs `integrator` at `rate` and measures its distance from `reference` over all checkpoints.
pub fn compare(
    gpu: Option<&GpuContext>,
    integrator: Integrator,
    rate: FrameRate,
    reference: &[Vec<Vec3>],
) -> Result<ClothRecord> {
    let dts = rate.dts();
    let snapshots = run(gpu, integrator, &dts)?;
    assert_eq!(snapshots.len(), reference.len(), "checkpoints differ");
    let d: Vec<_> = snapshots
        .iter()
        .zip(reference)
        .map(|(p, r)| deviation(p, r))
        .collect();
    Ok(ClothRecord {
        integrator: integrator.name(),
        frame_rate: rate.label(),
        frames: dts.len(),
        mean_distance_m: d.iter().map(|d| d.mean_m).sum::<f32>() / d.len() as f32,
        max_distance_m: d.iter().map(|d| d.max_m).fold(0.0, f32::max),
    })
}

/// Runs every integrator at every frame rate and measures the distance from the reference.
pub fn experiment(gpu: Option<&GpuContext>, seed: u64) -> Result<Vec<ClothRecord>> {
    let reference = reference(gpu)?;
    let mut out = Vec::new();
    for integrator in Integrator::ALL {
        for rate in frame_rates(seed) {
            out.push(compare(gpu, integrator, rate, &reference)?);
        }
    }
    Ok(out)
}
