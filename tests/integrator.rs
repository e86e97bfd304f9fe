//! Integrator math on the CPU: exactness for a projectile, the exact form under random dt, and
//! the correct Verlet start against the naive one.

use chiffon::integrator::{Integrator, naive_start_previous, start_previous, verlet_next};
use chiffon::{Backend, ClothBuilder, Layout, Pinning, Solver, SolverParams};
use glam::{DVec3, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const X0: DVec3 = DVec3::new(0.0, 1.0, 0.0);
const V0: DVec3 = DVec3::new(3.0, 4.0, -1.0);
const A: DVec3 = DVec3::new(0.5, -9.81, 0.0);

fn exact(t: f64) -> DVec3 {
    X0 + V0 * t + A * (0.5 * t * t)
}

fn random_dts(seed: u64, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.random_range(lo..=hi)).collect()
}

/// Runs the shared formulas in f64; returns the largest distance from the exact trajectory.
fn projectile_error(integrator: Integrator, dts: &[f64], naive: bool) -> f64 {
    let h0 = dts[0];
    let mut prev = if naive {
        naive_start_previous(X0, V0, h0)
    } else {
        start_previous(X0, V0, A, h0)
    };
    let (mut x, mut t, mut h_prev, mut worst) = (X0, 0.0, h0, 0.0f64);
    for &h in dts {
        let c = integrator.coefficients(h, h_prev);
        let next = verlet_next(x, prev, A, c.ratio, 1.0, c.accel_scale);
        (prev, x, h_prev) = (x, next, h);
        t += h;
        worst = worst.max(x.distance(exact(t)));
    }
    worst
}

#[test]
fn projectile_with_constant_dt_is_exact_for_every_integrator() {
    let dts = vec![1.0 / 60.0; 240];
    for integrator in Integrator::ALL {
        let err = projectile_error(integrator, &dts, false);
        // 4 s of flight, ~80 m of travel: pure f64 rounding.
        assert!(err < 1e-10, "{integrator:?}: {err} m");
    }
}

#[test]
fn exact_form_stays_exact_under_random_dt() {
    for seed in 1..=10 {
        let dts = random_dts(seed, 240, 1.0 / 144.0, 1.0 / 30.0);
        let err = projectile_error(Integrator::TimeCorrectedExact, &dts, false);
        assert!(err < 1e-10, "seed {seed}: {err} m");
        // The test can fail: Dummer's form and plain Verlet are not exact under random dt.
        let tcv = projectile_error(Integrator::TimeCorrected, &dts, false);
        let verlet = projectile_error(Integrator::Verlet, &dts, false);
        assert!(tcv > 1e-4, "seed {seed}: TCV unexpectedly exact ({tcv} m)");
        assert!(
            verlet > tcv,
            "seed {seed}: Verlet {verlet} m should be worse than TCV {tcv} m"
        );
    }
}

#[test]
fn correct_start_beats_the_naive_start() {
    let dts = vec![1.0 / 30.0; 120];
    for integrator in Integrator::ALL {
        let good = projectile_error(integrator, &dts, false);
        let naive = projectile_error(integrator, &dts, true);
        // The naive start is off by a h²/2, i.e. a velocity error of a h/2 that grows linearly.
        assert!(
            naive > 0.05,
            "{integrator:?}: naive start error only {naive} m"
        );
        assert!(
            good * 1e6 < naive,
            "{integrator:?}: good {good} m vs naive {naive} m"
        );
    }
}

/// A free 2×2 cloth thrown through the air, stepped by the CPU solver in f32.
fn solver_projectile(integrator: Integrator, dts: &[f64]) -> f32 {
    let v0 = Vec3::new(3.0, 4.0, -1.0);
    let cloth = ClothBuilder::grid(2, 2)
        .pinning(Pinning::None)
        .layout(Layout::Flat { height: 1.0 })
        .velocity(v0)
        .build()
        .unwrap();
    // One step per frame, so each frame's dt reaches the integrator as it is.
    let params = SolverParams {
        damping: 0.0,
        integrator,
        substeps: chiffon::params::Substeps::Fixed(1),
        ..Default::default()
    };
    let a = params.gravity;
    let mut solver = Solver::new(Backend::Cpu, &cloth, params).unwrap();
    let mut t = 0.0f64;
    let mut worst = 0.0f32;
    for &dt in dts {
        solver.step(dt).unwrap();
        t += dt;
        let tf = t as f32;
        for (p, p0) in solver.positions().unwrap().iter().zip(cloth.positions()) {
            let expected = *p0 + v0 * tf + a * (0.5 * tf * tf);
            worst = worst.max(p.distance(expected));
        }
    }
    worst
}

#[test]
fn cpu_solver_projectile_is_exact_to_f32_rounding() {
    // 2 s of flight covers ~20 m; f32 carries ~7 digits, and Verlet accumulates rounding
    // over 120 steps, so 1e-4 relative is "exact to f32 rounding" here.
    let constant = vec![1.0 / 60.0; 120];
    for integrator in Integrator::ALL {
        let err = solver_projectile(integrator, &constant);
        assert!(err < 2e-3, "{integrator:?} at constant dt: {err} m");
    }
    let random = random_dts(3, 120, 1.0 / 144.0, 1.0 / 30.0);
    let exact_err = solver_projectile(Integrator::TimeCorrectedExact, &random);
    assert!(
        exact_err < 2e-3,
        "exact form under random dt: {exact_err} m"
    );
    let verlet_err = solver_projectile(Integrator::Verlet, &random);
    assert!(
        verlet_err > 50.0 * exact_err,
        "Verlet {verlet_err} m vs exact {exact_err} m"
    );
}

#[test]
fn damping_is_frame_rate_independent() {
    // A free particle with damping and no gravity: after 1 s its speed must have decayed by
    // exp(-c) whether the frames are 1/30 s or 1/144 s.
    let speed_after_one_second = |fps: f64| {
        let cloth = ClothBuilder::grid(2, 2)
            .pinning(Pinning::None)
            .velocity(Vec3::X)
            .build()
            .unwrap();
        let params = SolverParams {
            gravity: Vec3::ZERO,
            damping: 2.0,
            ..Default::default()
        };
        let mut s = Solver::new(Backend::Cpu, &cloth, params).unwrap();
        let mut x = Vec::new();
        for _ in 0..fps as usize {
            s.step(1.0 / fps).unwrap();
            x.push(s.positions().unwrap()[0].x as f64);
        }
        // Implied velocity over the last frame.
        (x[x.len() - 1] - x[x.len() - 2]) * fps
    };
    let (slow, fast) = (speed_after_one_second(30.0), speed_after_one_second(144.0));
    let expected = (-2.0f64).exp();
    assert!(
        (slow - expected).abs() < 0.05,
        "30 fps: {slow} vs {expected}"
    );
    assert!(
        (fast - expected).abs() < 0.05,
        "144 fps: {fast} vs {expected}"
    );
}
