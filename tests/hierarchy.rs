//! The coarse levels (src/hierarchy/) on the CPU reference: what they buy, and that they
//! leave alone what they must. GPU agreement is in tests/conformance.rs.

use chiffon::quality::{Stretch, stretch};
use chiffon::tools::scenes::standard_cloth;
use chiffon::{Backend, Solver, SolverParams};
use glam::Vec3;

fn run(n: u32, frames: usize, coarse_levels: bool, mut each: impl FnMut(usize, Stretch)) {
    let cloth = standard_cloth(n, [true, true, true]).unwrap();
    let params = SolverParams {
        coarse_levels,
        ..Default::default()
    };
    let mut solver = Solver::new(Backend::Cpu, &cloth, params).unwrap();
    for k in 1..=frames {
        solver.step(1.0 / 60.0).unwrap();
        if k % 10 == 0 {
            each(k, stretch(&cloth, &solver.positions().unwrap()));
        }
    }
}

#[test]
fn coarse_levels_hold_a_fine_cloth_to_its_length() {
    // The benchmark's scene at 128²: one sweep per substep carries a pull a few particles,
    // so without levels the swinging cloth stretches; with them it stays near its length.
    let last = |on| {
        let mut out = Stretch::default();
        run(128, 60, on, |_, s| out = s);
        out
    };
    let (with, without) = (last(true), last(false));
    eprintln!("128², frame 60: with levels {with:?}, without {without:?}");
    assert!(with.mean <= 1.01, "mean stretch {}", with.mean);
    assert!(
        with.mean - 1.0 < 0.5 * (without.mean - 1.0) && with.p99 < without.p99,
        "levels did not help: {with:?} against {without:?}"
    );
}

#[test]
fn coarse_levels_stay_stable_on_an_even_grid() {
    // Regression: a first coarsening by maximal independent sets left an irregular strip
    // along the last column of an even grid, and a 1024² cloth crumpled from there within
    // 15 frames (256² within 60). Levels now keep the last column and row.
    run(256, 90, true, |k, s| {
        assert!(s.max < 1.5 && s.mean < 1.01, "frame {k}: {s:?}");
    });
}

#[test]
fn coarse_levels_leave_pinned_and_held_particles_where_they_are() {
    let cloth = standard_cloth(64, [true, true, true]).unwrap();
    let mut solver = Solver::new(Backend::Cpu, &cloth, SolverParams::default()).unwrap();
    assert!(solver.schedule(1.0 / 60.0).unwrap().levels.levels > 0);
    for _ in 0..5 {
        solver.step(1.0 / 60.0).unwrap();
    }
    // Hold a particle of every level (row 32, column 32) and one no level has (33, 33).
    let held = [32 * 64 + 32, 33 * 64 + 33];
    let at = Vec3::new(0.1, -0.3, 0.2);
    for (k, &i) in held.iter().enumerate() {
        solver
            .set_particle(i, at + Vec3::X * k as f32 * 0.1, 0.0)
            .unwrap();
    }
    for _ in 0..30 {
        solver.step(1.0 / 60.0).unwrap();
    }
    let x = solver.positions().unwrap();
    for (k, &i) in held.iter().enumerate() {
        assert_eq!(
            x[i],
            at + Vec3::X * k as f32 * 0.1,
            "held particle {i} moved"
        );
    }
    for pin in [0, 63] {
        assert_eq!(x[pin], cloth.positions()[pin], "pin {pin} moved");
    }
}
