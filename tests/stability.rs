//! Long runs under a wildly varying dt stay finite and bounded.

mod common;

use chiffon::{Backend, Integrator, Pinning, Solver, SolverParams};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `frames` frames: first half alternating 1/120 s and 1/30 s (ratios 4 and 1/4), then random
/// dts in between (every ratio within [1/4, 4]).
fn swinging_dts(frames: usize) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    (0..frames)
        .map(|k| {
            if k < frames / 2 {
                if k % 2 == 0 { 1.0 / 120.0 } else { 1.0 / 30.0 }
            } else {
                rng.random_range(1.0 / 120.0..=1.0 / 30.0)
            }
        })
        .collect()
}

fn scene(integrator: Integrator) -> (chiffon::Cloth, SolverParams) {
    let cloth = common::pinned_grid(32, 32, Pinning::Corners);
    let params = SolverParams {
        damping: 0.0,
        integrator,
        // Gravity with a sideways pull, so the sheet swings as well as sags.
        gravity: glam::Vec3::new(0.0, -9.81, 2.0),
        ..Default::default()
    };
    (cloth, params)
}

fn check(solver: &mut Solver, dts: &[f64], label: &str) {
    let cloth_size = solver.cloth().size();
    for (k, chunk) in dts.chunks(500).enumerate() {
        for &dt in chunk {
            solver.step(dt).unwrap();
        }
        let positions = solver.positions().unwrap();
        for (i, p) in positions.iter().enumerate() {
            // Pinned at y = 1 m; a 1 m cloth can reach at most ~1.5 m from the pins, so 10
            // cloth sizes is generous and only an explosion crosses it.
            assert!(
                p.is_finite(),
                "{label}: particle {i} is {p} after {} frames",
                (k + 1) * 500
            );
            assert!(
                p.length() < 10.0 * cloth_size + 1.0,
                "{label}: particle {i} escaped to {p} after {} frames",
                (k + 1) * 500
            );
        }
    }
}

/// 10 000 frames of one integrator on the CPU reference: one test each, so they run side by
/// side (a new integrator does not compile here until it has its own).
fn ten_thousand_swinging_frames_on_the_cpu(integrator: Integrator) {
    match integrator {
        Integrator::Verlet | Integrator::TimeCorrected | Integrator::TimeCorrectedExact => {}
    }
    let dts = swinging_dts(10_000);
    let (cloth, params) = scene(integrator);
    let mut s = Solver::new(Backend::Cpu, &cloth, params).unwrap();
    check(&mut s, &dts, &format!("cpu {integrator:?}"));
}

#[test]
fn ten_thousand_swinging_frames_stay_finite_on_the_cpu_time_corrected() {
    ten_thousand_swinging_frames_on_the_cpu(Integrator::TimeCorrected);
}

#[test]
fn ten_thousand_swinging_frames_stay_finite_on_the_cpu_verlet() {
    ten_thousand_swinging_frames_on_the_cpu(Integrator::Verlet);
}

#[test]
fn ten_thousand_swinging_frames_stay_finite_on_the_cpu_time_corrected_exact() {
    ten_thousand_swinging_frames_on_the_cpu(Integrator::TimeCorrectedExact);
}

/// The GPU runs the same kernels as the CPU (the conformance tests hold it to them), so a
/// tenth of the CPU's run (500 frames alternating 1/120 and 1/30 s, 500 random) shows its own
/// path stays bounded; on lavapipe 10 000 frames would be most of CI's test time, and 2 000
/// took 50 s of it.
#[test]
fn a_thousand_swinging_frames_stay_finite_on_the_gpu() {
    let ctx = common::gpu_or_return!("a_thousand_swinging_frames_stay_finite_on_the_gpu");
    let dts = swinging_dts(1_000);
    let (cloth, params) = scene(Integrator::TimeCorrected);
    let mut s = Solver::new(Backend::Gpu(&ctx), &cloth, params).unwrap();
    check(&mut s, &dts, "gpu TimeCorrected");
}
