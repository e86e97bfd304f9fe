//! GPU against the CPU reference on the same scene. Tolerances are relative to the cloth size;
//! the reasons are written next to the constants in `src/conformance.rs`.

mod common;

use chiffon::conformance::{
    LONG_RUN_TOLERANCE, ONE_FRAME_TOLERANCE, ONE_STEP_TOLERANCE, deviation, verdict,
};
use chiffon::params::{Compliance, Projection, Substeps};
use chiffon::{
    Backend, Cloth, ClothBuilder, Collider, Integrator, Layout, Pinning, Solver, SolverParams,
};
use glam::Vec3;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A GPU solver and its CPU twin, in that order, on the same cloth with the same parameters.
fn twins(ctx: &chiffon::GpuContext, cloth: &Cloth, params: &SolverParams) -> [Solver; 2] {
    let gpu = Solver::new(Backend::Gpu(ctx), cloth, params.clone()).unwrap();
    let cpu = Solver::new(Backend::Cpu, cloth, params.clone()).unwrap();
    [gpu, cpu]
}

fn run_both(
    ctx: &chiffon::GpuContext,
    cloth: &Cloth,
    params: &SolverParams,
    dts: &[f64],
) -> (Vec<Vec3>, Vec<Vec3>) {
    let [mut gpu, mut cpu] = twins(ctx, cloth, params);
    for &dt in dts {
        gpu.step(dt).unwrap();
        cpu.step(dt).unwrap();
    }
    (gpu.positions().unwrap(), cpu.positions().unwrap())
}

fn assert_close(label: &str, g: &[Vec3], c: &[Vec3], cloth: &Cloth, tolerance: f32) {
    let d = deviation(g, c);
    let limit = tolerance * cloth.size();
    eprintln!(
        "{label}: max {:.3e} m, mean {:.3e} m, tolerance {limit:.3e} m",
        d.max_m, d.mean_m
    );
    assert!(
        d.max_m <= limit,
        "{label}: particle {} off by {} m (tolerance {limit} m)",
        d.worst_particle,
        d.max_m
    );
}

#[test]
fn one_integrate_step_matches() {
    let ctx = common::gpu_or_return!("one_integrate_step_matches");
    let cloth = ClothBuilder::grid(33, 17)
        .layout(Layout::Flat { height: 0.5 })
        .velocity(Vec3::new(0.3, 1.5, -0.2))
        .build()
        .unwrap();
    // Integration only: no constraint sweeps, no colliders.
    let params = SolverParams {
        iterations: 0,
        air: Some(chiffon::Air::wind(Vec3::new(3.0, 0.0, 1.5)).with_gusts(0.3)),
        ..Default::default()
    };
    let (g, c) = run_both(&ctx, &cloth, &params, &[1.0 / 60.0]);
    // A particle mid-cloth: the first row, between two pins exactly its length apart, is held
    // on the straight line between them by its tethers.
    let mid = 33 * 8 + 16;
    assert_ne!(c[mid], cloth.positions()[mid], "the step moved nothing");
    assert_close("one integrate step", &g, &c, &cloth, ONE_STEP_TOLERANCE);
}

#[test]
fn one_frame_with_iterations_and_collisions_matches() {
    let ctx = common::gpu_or_return!("one_frame_with_iterations_and_collisions_matches");
    // A flat cloth that starts half inside a sphere and falling onto the ground, so the first
    // frame exercises all three kernels.
    let cloth = ClothBuilder::grid(48, 48)
        .layout(Layout::Flat { height: 0.05 })
        .velocity(Vec3::new(0.0, -4.0, 0.0))
        .pinning(Pinning::None)
        .build()
        .unwrap();
    let (center, radius) = (Vec3::new(0.1, -0.1, 0.0), 0.25);
    // One substep, so the contacts are the frame's last word; no thickness, so a particle
    // in contact lies on the surface.
    let params = SolverParams {
        iterations: 10,
        substeps: Substeps::Fixed(1),
        colliders: vec![
            Collider::ground(0.0).thickness(0.0),
            Collider::sphere(center, radius).thickness(0.0),
        ],
        ..Default::default()
    };
    let (g, c) = run_both(&ctx, &cloth, &params, &[1.0 / 30.0]);
    let on_sphere = c
        .iter()
        .filter(|p| (p.distance(center) - radius).abs() < 1e-5)
        .count();
    let on_ground = c.iter().filter(|p| p.y.abs() < 1e-6).count();
    assert!(
        on_sphere > 10 && on_ground > 10,
        "collisions not exercised: {on_sphere} on the sphere, {on_ground} on the ground"
    );
    assert_close("one frame", &g, &c, &cloth, ONE_FRAME_TOLERANCE);
}

/// One integrator's long run, GPU against CPU, on a 64² cloth started through a sphere over a
/// ground, in wind, at random frame times. One test each, so they run side by side (a new
/// integrator does not compile here until it has its own).
fn long_run_with_random_dt_and_colliders(test: &str, integrator: Integrator) {
    // The default integrator for 240 frames; the other two differ only in the integrate
    // kernel, and 120 frames hold it (the three took 75 s of CI on lavapipe at 240).
    match integrator {
        Integrator::Verlet | Integrator::TimeCorrected | Integrator::TimeCorrectedExact => {}
    }
    let frames = if integrator == Integrator::default() {
        240
    } else {
        120
    };
    let ctx = common::gpu_or_return!(test);
    let cloth = common::pinned_grid(64, 64, Pinning::Corners);
    let params = SolverParams {
        integrator,
        colliders: vec![
            Collider::ground(-0.4),
            Collider::sphere(Vec3::new(0.0, 0.3, 0.15), 0.3),
        ],
        air: Some(chiffon::Air::wind(Vec3::new(0.0, 0.0, 4.5)).with_gusts(0.3)),
        ..Default::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let dts: Vec<f64> = (0..frames)
        .map(|_| rng.random_range(1.0 / 144.0..=1.0 / 30.0))
        .collect();
    let (g, c) = run_both(&ctx, &cloth, &params, &dts);
    let moved = c
        .iter()
        .zip(cloth.positions())
        .filter(|(p, q)| p.distance(**q) > 0.05)
        .count();
    // The cloth starts through the sphere and hangs around it (a quarter of it moves more
    // than 5 cm); the old collide kernel counted the push out as velocity and threw it.
    assert!(
        moved > cloth.particle_count() / 4,
        "{integrator:?}: the cloth barely moved ({moved} particles)"
    );
    assert_close(
        &format!("{frames} frames, {integrator:?}"),
        &g,
        &c,
        &cloth,
        LONG_RUN_TOLERANCE,
    );
}

#[test]
fn long_run_with_random_dt_and_colliders_matches() {
    long_run_with_random_dt_and_colliders(
        "long_run_with_random_dt_and_colliders_matches",
        Integrator::TimeCorrected,
    );
}

#[test]
fn long_run_with_random_dt_and_colliders_matches_with_plain_verlet() {
    long_run_with_random_dt_and_colliders(
        "long_run_with_random_dt_and_colliders_matches_with_plain_verlet",
        Integrator::Verlet,
    );
}

#[test]
fn long_run_with_random_dt_and_colliders_matches_with_the_exact_form() {
    long_run_with_random_dt_and_colliders(
        "long_run_with_random_dt_and_colliders_matches_with_the_exact_form",
        Integrator::TimeCorrectedExact,
    );
}

#[test]
fn reset_replays_the_same_frames() {
    let ctx = common::gpu_or_return!("reset_replays_the_same_frames");
    let cloth = ClothBuilder::grid(24, 24).build().unwrap();
    let mut gpu = Solver::new(Backend::Gpu(&ctx), &cloth, SolverParams::default()).unwrap();
    let dts = [1.0 / 60.0, 1.0 / 45.0, 1.0 / 90.0, 1.0 / 60.0];
    for dt in dts {
        gpu.step(dt).unwrap();
    }
    let first = gpu.positions().unwrap();
    gpu.reset().unwrap();
    assert_eq!(
        gpu.positions().unwrap(),
        cloth.positions(),
        "reset did not restore the cloth"
    );
    for dt in dts {
        gpu.step(dt).unwrap();
    }
    // A fixed color order makes the GPU solve deterministic.
    assert_eq!(gpu.positions().unwrap(), first);
}

#[test]
fn parameter_changes_between_frames_match() {
    let ctx = common::gpu_or_return!("parameter_changes_between_frames_match");
    let cloth = ClothBuilder::grid(32, 32).build().unwrap();
    let [mut gpu, mut cpu] = twins(&ctx, &cloth, &SolverParams::default());
    for k in 0..60 {
        if k == 20 {
            let p = SolverParams {
                substeps: Substeps::Fixed(3),
                iterations: 4,
                projection: Projection::Jakobsen,
                compliance: Compliance {
                    stretch: 1e-4,
                    shear: 1e-3,
                    curvature: 1e7,
                    ..Compliance::default()
                },
                over_relaxation: 1.5,
                integrator: Integrator::TimeCorrectedExact,
                air: Some(chiffon::Air::wind(Vec3::new(9.0, 0.0, 6.0)).with_gusts(0.3)),
                damping: 0.0,
                ..Default::default()
            };
            gpu.set_params(p.clone()).unwrap();
            cpu.set_params(p).unwrap();
        }
        let dt = if k % 3 == 0 { 1.0 / 40.0 } else { 1.0 / 75.0 };
        gpu.step(dt).unwrap();
        cpu.step(dt).unwrap();
    }
    let (g, c) = (gpu.positions().unwrap(), cpu.positions().unwrap());
    assert_close("parameter change", &g, &c, &cloth, LONG_RUN_TOLERANCE);
}

/// The decision `chiffon conform` prints, on positions made to differ by known amounts: the
/// right largest and mean distances and worst particle, the tolerance scaled by the cloth's
/// size, FAIL over it and PASS within it, and a NaN never passing. (On lavapipe the backends
/// are bit-identical, so a real run never reaches FAIL; the CLI's `--perturb` is tested in
/// tests/cli.rs.)
#[test]
fn the_verdict_fails_positions_further_apart_than_the_tolerance() {
    let a: Vec<Vec3> = (0..10).map(|k| Vec3::new(k as f32, 0.0, 0.0)).collect();
    let mut b = a.clone();
    b[7] += Vec3::new(0.0, 0.03, 0.04); // 0.05 m
    b[3] += Vec3::new(0.01, 0.0, 0.0);
    let v = verdict(&a, &b, 2.0, LONG_RUN_TOLERANCE);
    assert!(!v.pass, "{v:?}");
    assert_eq!(v.deviation.worst_particle, 7);
    assert!((v.deviation.max_m - 0.05).abs() < 1e-6, "{v:?}");
    assert!((v.deviation.mean_m - 0.006).abs() < 1e-6, "{v:?}");
    assert_eq!(v.tolerance_m, 2.0 * LONG_RUN_TOLERANCE);
    // Just over and just under the largest distance, as fractions of the 2 m cloth.
    assert!(!verdict(&a, &b, 2.0, 0.024).pass);
    assert!(verdict(&a, &b, 2.0, 0.026).pass);
    // Identical runs pass any tolerance.
    let same = verdict(&a, &a, 2.0, 1e-30);
    assert!(same.pass && same.deviation.max_m == 0.0, "{same:?}");
    // A NaN is the worst deviation there is, not one a comparison skips.
    b[5].y = f32::NAN;
    let v = verdict(&a, &b, 2.0, 1e30);
    assert!(!v.pass && v.deviation.max_m == f32::INFINITY, "{v:?}");
    assert_eq!(v.deviation.worst_particle, 5);
}

/// A cloth over the device's buffer limits is refused with the limit's name, not a wgpu
/// validation panic. The device is this adapter opened again with a lowered limit, so the check
/// runs on every GPU (most have over 1 GiB a binding, more than any grid the builder accepts).
#[test]
fn a_grid_too_large_for_the_device_is_a_clear_error() {
    let ctx = common::gpu_or_return!("a_grid_too_large_for_the_device_is_a_clear_error");
    const LOWERED: u64 = 1 << 20;
    let grid = |side: u32| {
        ClothBuilder::grid(side, side)
            .constraint(chiffon::ConstraintKind::Bend, false)
            .build()
            .unwrap()
    };
    // Structural and shear constraints, about 4 records of 16 bytes a particle: 192 x 192 needs
    // about 2.4 MB of constraints, 32 x 32 about 70 kB.
    let (large, small) = (grid(192), grid(32));
    // The full device holds both, so the refusals below are the lowered limits' doing.
    for cloth in [&large, &small] {
        Solver::new(Backend::Gpu(&ctx), cloth, SolverParams::default()).unwrap();
    }
    let full = ctx.limits();
    for (limits, name) in [
        (
            wgpu::Limits {
                max_storage_buffer_binding_size: LOWERED,
                ..full.clone()
            },
            "max_storage_buffer_binding_size",
        ),
        (
            wgpu::Limits {
                max_buffer_size: LOWERED,
                ..full.clone()
            },
            "max_buffer_size",
        ),
    ] {
        let lowered = ctx.with_limits(limits).unwrap();
        Solver::new(Backend::Gpu(&lowered), &small, SolverParams::default())
            .unwrap_or_else(|e| panic!("{name} = {LOWERED}: a 32 x 32 grid was refused: {e}"));
        let err = Solver::new(Backend::Gpu(&lowered), &large, SolverParams::default())
            .err()
            .unwrap_or_else(|| panic!("{name} = {LOWERED}: a 192 x 192 grid was accepted"));
        let msg = err.to_string();
        assert!(
            msg.contains(name) && msg.contains(&LOWERED.to_string()),
            "{name} = {LOWERED}: {msg}"
        );
    }
}

/// The shipped round tablecloth: a mesh that is not a grid (rings of 6k vertices).
fn tablecloth() -> Cloth {
    ClothBuilder::obj(common::asset("tablecloth.obj"))
        .unwrap()
        .build()
        .unwrap()
}

#[cfg(feature = "demo")]
#[test]
fn normals_kernel_matches_its_cpu_twin_on_a_mesh() {
    let ctx = common::gpu_or_return!("normals_kernel_matches_its_cpu_twin_on_a_mesh");
    use chiffon::cpu::cloth_normals;
    use chiffon::view::render::Renderer;
    // A mesh that is not a grid, draped over a sphere so its normals point every way.
    let cloth = tablecloth();
    let params = SolverParams {
        colliders: vec![Collider::sphere(Vec3::new(0.0, 0.45, 0.1), 0.28)],
        ..Default::default()
    };
    let mut gpu = Solver::new(Backend::Gpu(&ctx), &cloth, params).unwrap();
    for _ in 0..40 {
        gpu.step(1.0 / 60.0).unwrap();
    }
    let renderer = Renderer::new(&ctx.device, wgpu::TextureFormat::Rgba8UnormSrgb, 1);
    let mesh = renderer
        .cloth_mesh(&ctx.device, &cloth, gpu.position_buffer().unwrap())
        .unwrap();
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    renderer.compute_normals(&mut encoder, &mesh);
    ctx.queue.submit([encoder.finish()]);
    let gpu_normals: Vec<glam::Vec4> = ctx.read_buffer(mesh.normals()).unwrap();

    let positions = gpu.positions().unwrap();
    let cpu_normals = cloth_normals(&cloth, &positions);
    let mut worst = 0.0f32;
    for (g, c) in gpu_normals.iter().zip(&cpu_normals) {
        assert!((c.length() - 1.0).abs() < 1e-4, "not unit: {c}");
        worst = worst.max((g.truncate() - *c).length());
    }
    // Unit vectors from the same positions: only rounding separates them.
    assert!(worst < 1e-4, "normals differ by {worst}");
    // The draped cloth is not flat, so the test compares real normals.
    assert!(cpu_normals.iter().filter(|n| n.y.abs() < 0.5).count() > 50);
}

#[test]
fn a_non_grid_mesh_matches_over_a_long_random_dt_run_with_colliders() {
    let ctx =
        common::gpu_or_return!("a_non_grid_mesh_matches_over_a_long_random_dt_run_with_colliders");
    // The tablecloth pinned at its rim's highest-x particles, blown onto a sphere and the
    // ground: irregular coloring, area masses, tethers, both colliders.
    let cloth = ClothBuilder::obj(common::asset("tablecloth.obj"))
        .unwrap()
        .pinning(Pinning::Box {
            min: Vec3::new(0.55, -1.0, -1.0),
            max: Vec3::new(1.0, 2.0, 1.0),
        })
        .build()
        .unwrap();
    assert!(cloth.grid().is_none() && cloth.colors().len() > 12);
    // A mesh gets coarse levels of its own (graph levels), so their kernels run here too.
    let levels = Solver::new(Backend::Cpu, &cloth, SolverParams::default())
        .unwrap()
        .schedule(1.0 / 60.0)
        .unwrap()
        .levels
        .levels;
    assert!(levels > 0, "the tablecloth has no coarse levels");
    let params = SolverParams {
        colliders: vec![
            Collider::ground(0.65),
            Collider::sphere(Vec3::new(0.0, 0.8, 0.0), 0.25),
        ],
        air: Some(chiffon::Air::wind(Vec3::new(-1.0, 0.0, 1.0)).with_gusts(0.3)),
        ..Default::default()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let dts: Vec<f64> = (0..240)
        .map(|_| rng.random_range(1.0 / 144.0..=1.0 / 30.0))
        .collect();
    let (g, c) = run_both(&ctx, &cloth, &params, &dts);
    // In contact: within the colliders' thickness of their surfaces.
    let r = chiffon::contact::DEFAULT_THICKNESS;
    let on_ground = c.iter().filter(|p| p.y <= 0.65 + r + 1e-4).count();
    let on_sphere = c
        .iter()
        .filter(|p| p.distance(Vec3::new(0.0, 0.8, 0.0)) < 0.25 + r + 1e-3)
        .count();
    assert!(
        on_ground > 10 && on_sphere > 10,
        "colliders not exercised: {on_ground} on the ground, {on_sphere} on the sphere"
    );
    assert_close(
        "tablecloth, 240 random frames",
        &g,
        &c,
        &cloth,
        LONG_RUN_TOLERANCE,
    );
}

/// The strain limit in every frame (`LimitFrames::All`) runs the limit stage in frames with
/// no contact (its over-relaxed sweeps in each frame's last substep only), and in frames with
/// contact also its plain sweep in the others and a second collide after the end sweeps: GPU =
/// CPU on the global path (a lone solver) and the fused path (a world), and the limit changes
/// the run (without it the sheet ends elsewhere).
#[test]
fn a_strain_limit_in_every_frame_matches_on_the_global_and_fused_paths() {
    use chiffon::params::LimitFrames;
    let ctx = common::gpu_or_return!(
        "a_strain_limit_in_every_frame_matches_on_the_global_and_fused_paths"
    );
    let cloth = chiffon::tools::scenes::irregular_cloth(40, [true; 3]).unwrap();
    // Hanging from two corners, the 1 m sheet reaches the ground at y = -0.7 in its first
    // swing.
    for colliders in [vec![], vec![chiffon::Collider::ground(-0.7)]] {
        let params = SolverParams {
            strain_limit: Some(1.005),
            strain_limit_frames: LimitFrames::All,
            colliders,
            ..Default::default()
        };
        limit_in_every_frame_matches(&ctx, &cloth, &params);
    }
}

/// One scene of [`a_strain_limit_in_every_frame_matches_on_the_global_and_fused_paths`].
fn limit_in_every_frame_matches(ctx: &chiffon::GpuContext, cloth: &Cloth, params: &SolverParams) {
    use chiffon::world::{ClothPath, PathChoice};
    use chiffon::{ClothOptions, World, WorldConfig};
    let dts = [1.0 / 60.0; 60];
    let (g, c) = run_both(ctx, cloth, params, &dts);
    assert_close(
        "limit in every frame, global path",
        &g,
        &c,
        cloth,
        LONG_RUN_TOLERANCE,
    );
    let mut unlimited = Solver::new(
        Backend::Cpu,
        cloth,
        SolverParams {
            strain_limit: None,
            ..params.clone()
        },
    )
    .unwrap();
    for &dt in &dts {
        unlimited.step(dt).unwrap();
    }
    // Farther than the twins' tolerance, so a GPU that skipped the limit would fail above.
    let unlimited = unlimited.positions().unwrap();
    let moved = chiffon::conformance::deviation(&c, &unlimited).max_m;
    eprintln!("the limit moved the sheet by up to {moved:.3e} m");
    assert!(
        moved > 2.0 * LONG_RUN_TOLERANCE * cloth.size(),
        "the limit moved the sheet by only {moved} m"
    );
    let config = WorldConfig {
        paths: PathChoice::Fused,
        ..WorldConfig::default()
    };
    let [mut gpu, mut cpu] =
        [Backend::Gpu(ctx), Backend::Cpu].map(|b| World::new(b, params.clone(), config).unwrap());
    let gh = gpu.add(cloth, ClothOptions::new()).unwrap();
    let ch = cpu.add(cloth, ClothOptions::new()).unwrap();
    assert!(matches!(gpu.path(gh).unwrap(), ClothPath::Fused { .. }));
    for &dt in &dts {
        gpu.step(dt).unwrap();
        cpu.step(dt).unwrap();
    }
    let (g, c) = (gpu.positions(gh).unwrap(), cpu.positions(ch).unwrap());
    assert_close(
        "limit in every frame, fused path",
        &g,
        &c,
        cloth,
        LONG_RUN_TOLERANCE,
    );
    // The fused kernel ran the limit too: it ends where the limited lone solver does, not
    // where the unlimited one does.
    let moved = chiffon::conformance::deviation(&c, &unlimited).max_m;
    assert!(
        moved > 2.0 * LONG_RUN_TOLERANCE * cloth.size(),
        "the fused path's limit moved the sheet by only {moved} m"
    );
}

#[test]
fn particle_and_compliance_edits_match() {
    let ctx = common::gpu_or_return!("particle_and_compliance_edits_match");
    let cloth = ClothBuilder::grid(20, 20).build().unwrap();
    let mut results = Vec::new();
    for s in &mut twins(&ctx, &cloth, &SolverParams::default()) {
        for k in 0..40 {
            if k == 10 {
                // Grab the middle of the bottom row and hold it out in front.
                s.set_particle(390, Vec3::new(0.0, 0.5, 0.4), 0.0).unwrap();
                let mut p = s.params().clone();
                p.compliance.curvature = 1e8;
                s.set_params(p).unwrap();
            }
            if k == 25 {
                // Release it, and unpin a corner (the tethers are rebuilt from one pin).
                s.set_inverse_mass(390, 2000.0).unwrap();
                s.set_inverse_mass(0, 2000.0).unwrap();
                assert_eq!(s.tethers().unwrap().anchors(), &[19]);
            }
            s.step(1.0 / 60.0).unwrap();
        }
        results.push(s.positions().unwrap());
        assert!(
            s.set_particle(10_000, Vec3::ZERO, 0.0).is_err(),
            "out-of-range index accepted"
        );
        assert!(
            s.set_inverse_mass(3, f32::NAN).is_err(),
            "NaN inverse mass accepted"
        );
        let mut bad = s.params().clone();
        bad.compliance.shear = -1.0;
        assert!(s.set_params(bad).is_err(), "negative compliance accepted");
    }
    // The corner moved once unpinned.
    assert!(
        results[1][0].distance(cloth.positions()[0]) > 0.05,
        "corner still pinned: {}",
        results[1][0]
    );
    assert_close(
        "edits",
        &results[0],
        &results[1],
        &cloth,
        LONG_RUN_TOLERANCE,
    );
}

/// Regression: `GpuSolver` built x₋₁ from the cloth's *initial* positions on the first step,
/// overwriting what `set_particle` wrote before it; the CPU used the current state. An 8×8
/// cloth with two particles edited (one pinned, one moved) ended 35 mm apart after one step.
#[test]
fn gpu_keeps_particle_edits_made_before_the_first_step() {
    let ctx = common::gpu_or_return!("gpu_keeps_particle_edits_made_before_the_first_step");
    let cloth = ClothBuilder::grid(8, 8)
        .velocity(Vec3::new(0.0, 0.0, 0.8))
        .build()
        .unwrap();
    let [mut gpu, mut cpu] = twins(&ctx, &cloth, &SolverParams::default());
    let mut results = Vec::new();
    for s in [&mut gpu, &mut cpu] {
        s.set_particle(60, Vec3::new(0.1, 0.2, 0.3), 0.0).unwrap();
        s.set_particle(27, Vec3::new(-0.2, 0.5, 0.1), 64.0 / 0.2)
            .unwrap();
        s.step(1.0 / 60.0).unwrap();
        results.push(s.positions().unwrap());
    }
    let (g, c) = (&results[0], &results[1]);
    assert_eq!(c[60], Vec3::new(0.1, 0.2, 0.3), "the pinned edit moved");
    assert_close(
        "edits before the first step",
        g,
        c,
        &cloth,
        ONE_STEP_TOLERANCE,
    );
    // And after a reset, the same edits again give the same frame.
    gpu.reset().unwrap();
    gpu.set_particle(60, Vec3::new(0.1, 0.2, 0.3), 0.0).unwrap();
    gpu.set_particle(27, Vec3::new(-0.2, 0.5, 0.1), 64.0 / 0.2)
        .unwrap();
    gpu.step(1.0 / 60.0).unwrap();
    assert_eq!(
        &gpu.positions().unwrap(),
        g,
        "reset then edits replays differently"
    );
}

#[test]
fn health_check_names_the_first_diverged_particle_on_both_backends() {
    let ctx =
        common::gpu_or_return!("health_check_names_the_first_diverged_particle_on_both_backends");
    let cloth = ClothBuilder::grid(16, 16).build().unwrap();
    let mut named = Vec::new();
    for s in &mut twins(&ctx, &cloth, &SolverParams::default()) {
        for _ in 0..3 {
            s.step(1.0 / 60.0).unwrap();
        }
        s.health().unwrap();
        // Hold particle 100 five kilometres away: beyond the 1 km health limit.
        s.set_particle(100, Vec3::new(5000.0, 0.0, 0.0), 0.0)
            .unwrap();
        let first = s.step(1.0 / 60.0);
        let err = s.health().unwrap_err();
        let chiffon::ChiffonError::Diverged {
            particle, frame, ..
        } = err
        else {
            panic!("{}: not a divergence: {err}", s.backend_name());
        };
        assert_eq!(frame, 4, "{}: found in frame {frame}", s.backend_name());
        assert!(particle <= 100, "{}: particle {particle}", s.backend_name());
        // step says so too: the CPU on that frame, the GPU within two more (no stall).
        let said = first.is_err() || s.step(1.0 / 60.0).is_err() || s.step(1.0 / 60.0).is_err();
        assert!(
            said,
            "{}: step never reported the divergence",
            s.backend_name()
        );
        assert!(s.step(1.0 / 60.0).is_err(), "the error is not sticky");
        named.push(particle);
        // A reset clears it.
        s.reset().unwrap();
        s.step(1.0 / 60.0).unwrap();
        s.health().unwrap();
    }
    assert_eq!(named[0], named[1], "the backends name different particles");
}

#[test]
fn coarse_levels_match_on_an_even_grid_with_held_and_pinned_particles() {
    let ctx = common::gpu_or_return!(
        "coarse_levels_match_on_an_even_grid_with_held_and_pinned_particles"
    );
    // 72 × 42: both even, so every level keeps a last column and row narrower than the rest;
    // two levels (19 × 12, 10 × 7).
    let cloth = common::pinned_grid(72, 42, Pinning::Corners);
    let params = SolverParams {
        colliders: vec![Collider::sphere(Vec3::new(0.0, -0.5, 0.2), 0.3)],
        ..Default::default()
    };
    let [mut gpu, mut cpu] = twins(&ctx, &cloth, &params);
    assert!(
        gpu.schedule(1.0 / 60.0).unwrap().levels.levels >= 2,
        "the grid should have coarse levels"
    );
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for k in 0..90 {
        // Grab a particle of both coarse levels (row 4, column 8) and hold it (as the demo's
        // mouse does), pin a dropped one, then free both.
        let edits: &[(usize, f32)] = match k {
            20 => &[(4 * 72 + 8, 0.0), (72 + 7, -1.0)],
            60 => &[(4 * 72 + 8, 1.0), (72 + 7, 1.0)],
            _ => &[],
        };
        for &(i, w) in edits {
            if w < 0.0 {
                gpu.set_inverse_mass(i, 0.0).unwrap();
                cpu.set_inverse_mass(i, 0.0).unwrap();
            } else {
                let at = cpu.positions().unwrap()[i] + Vec3::new(0.0, 0.05, 0.0);
                let w = w * cloth.free_inverse_masses()[i];
                gpu.set_particle(i, at, w).unwrap();
                cpu.set_particle(i, at, w).unwrap();
            }
        }
        let dt = rng.random_range(1.0 / 144.0..=1.0 / 30.0);
        gpu.step(dt).unwrap();
        cpu.step(dt).unwrap();
    }
    let (g, c) = (gpu.positions().unwrap(), cpu.positions().unwrap());
    assert_close("coarse levels", &g, &c, &cloth, LONG_RUN_TOLERANCE);
}
