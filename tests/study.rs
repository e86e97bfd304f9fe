//! The integrator study's claims, pinned by tests. Every run uses the library's own formulas.

mod common;

use chiffon::Integrator;
use chiffon::tools::study::cloth::{self, FrameRate};
use chiffon::tools::study::point_mass::{Method, Problem, Start, integrate};
use chiffon::tools::study::{DURATION, DtMode, NOMINAL_DT, orders, steps};
use common::cli::{assert_success, command};

fn max_error(problem: Problem, method: Method, start: Start, dts: &[f64]) -> f64 {
    integrate(problem, method, start, dts).errors(problem).0
}

#[test]
fn exact_form_and_velocity_verlet_are_exact_for_the_projectile_under_random_dt() {
    for seed in 1..=20 {
        let dts = steps(DtMode::Random, NOMINAL_DT, DURATION, seed);
        // 5 s of flight, ~75 m: f64 rounding only.
        let exact = max_error(
            Problem::Projectile,
            Method::TimeCorrectedExact,
            Start::Correct,
            &dts,
        );
        let vv = max_error(
            Problem::Projectile,
            Method::VelocityVerlet,
            Start::None,
            &dts,
        );
        assert!(exact < 1e-10, "seed {seed}: tcv-exact {exact}");
        assert!(vv < 1e-10, "seed {seed}: velocity Verlet {vv}");
    }
}

#[test]
fn time_corrected_beats_plain_verlet_on_random_dt_for_every_problem() {
    for seed in 1..=20 {
        let dts = steps(DtMode::Random, NOMINAL_DT, DURATION, seed);
        for problem in Problem::ALL {
            let tcv = max_error(problem, Method::TimeCorrected, Start::Correct, &dts);
            let verlet = max_error(problem, Method::Verlet, Start::Correct, &dts);
            assert!(
                tcv < verlet,
                "seed {seed}, {problem:?}: tcv {tcv} vs verlet {verlet}"
            );
        }
    }
}

#[test]
fn observed_orders_match_theory_on_the_sine_wave() {
    for o in orders() {
        let expected = match o.integrator {
            Method::ExplicitEuler | Method::SemiImplicitEuler => 1.0,
            _ => 2.0,
        };
        assert!(
            (o.observed_order - expected).abs() < 0.3,
            "{:?}: order {} (errors {:?}), expected {expected}",
            o.integrator,
            o.observed_order,
            o.max_abs_errors
        );
    }
}

#[test]
fn correct_start_beats_naive_start_on_the_projectile() {
    for mode in [DtMode::Fixed, DtMode::Random] {
        let dts = steps(mode, NOMINAL_DT, DURATION, 3);
        for m in [
            Method::Verlet,
            Method::TimeCorrected,
            Method::TimeCorrectedExact,
        ] {
            let good = max_error(Problem::Projectile, m, Start::Correct, &dts);
            let naive = max_error(Problem::Projectile, m, Start::Naive, &dts);
            assert!(
                good < naive,
                "{mode:?} {m:?}: correct {good} vs naive {naive}"
            );
        }
    }
}

#[test]
fn naive_start_verlet_is_semi_implicit_euler() {
    // x₋₁ = x₀ − v₀h makes position Verlet algebraically symplectic Euler: a cross-check that
    // both formulas are what they claim to be.
    let dts = steps(DtMode::Fixed, NOMINAL_DT, DURATION, 0);
    for problem in Problem::ALL {
        let a = integrate(problem, Method::Verlet, Start::Naive, &dts);
        let b = integrate(problem, Method::SemiImplicitEuler, Start::None, &dts);
        for (x, y) in a.x.iter().zip(&b.x) {
            assert!(
                (x - y).abs() < 1e-9 * (1.0 + x.abs()),
                "{problem:?}: {x} vs {y}"
            );
        }
    }
}

#[test]
fn cloth_time_corrected_forms_track_the_reference_better_at_random_fps() {
    // On the CPU reference: an integrator's accuracy is the same on both backends (the
    // conformance tests hold the GPU to the CPU over long random-dt runs), and on lavapipe
    // these four runs took over a minute of CI.
    let reference = cloth::reference(None).unwrap();
    let rate = FrameRate::Random {
        min: 30.0,
        max: 144.0,
        seed: 1,
    };
    let mean = |i| {
        cloth::compare(None, i, rate, &reference)
            .unwrap()
            .mean_distance_m
    };
    let verlet = mean(Integrator::Verlet);
    for i in [Integrator::TimeCorrected, Integrator::TimeCorrectedExact] {
        let d = mean(i);
        // The mean over every particle and checkpoint; the max is dominated by contact events.
        assert!(d < verlet, "{i:?}: mean {d} m vs Verlet {verlet} m");
    }
}

#[test]
fn study_command_writes_tables_plots_and_json() {
    let dir = std::env::temp_dir().join(format!("chiffon-study-{}", std::process::id()));
    let out = command()
        .args(["study", "--json", "--cloth-backend", "cpu", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_success(&out);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors = v["errors"].as_array().unwrap();
    // 3 problems × 2 dt modes × 9 variants (6 methods, the Verlet family with both starts).
    assert_eq!(errors.len(), 54);
    for key in [
        "problem",
        "integrator",
        "start",
        "dt_mode",
        "max_abs_error",
        "final_abs_error",
    ] {
        assert!(errors[0].get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["orders"].as_array().unwrap().len(), 6);
    assert!(v["orders"][0]["observed_order"].is_number());
    assert_eq!(v["cloth"].as_array().unwrap().len(), 12);
    for f in [
        "study.md",
        "errors.csv",
        "study.json",
        "sine_random.svg",
        "sine_random.png",
        "cloth.png",
    ] {
        let meta = std::fs::metadata(dir.join(f)).unwrap_or_else(|_| panic!("{f} missing"));
        assert!(meta.len() > 100, "{f} is empty");
    }
}
