//! Physical reference systems with known answers (`src/study/reference.rs`), on the CPU
//! reference and on the GPU. Each tolerance says why it is what it is.

mod common;

use chiffon::params::Projection;
use chiffon::tools::study::cloth::FrameRate;
use chiffon::tools::study::reference::{hanging_chain, hanging_rope, hanging_sheet, pendulum};

/// Both backends: the CPU always, the GPU when there is one (a failure in CI without one).
fn backends(test: &str) -> Vec<Option<chiffon::GpuContext>> {
    let mut v = vec![None];
    if let Some(ctx) = common::gpu(test) {
        v.push(Some(ctx));
    }
    v
}

#[test]
fn hanging_rope_stretches_by_its_compliance_times_its_load() {
    for gpu in backends("hanging_rope_stretches_by_its_compliance_times_its_load") {
        let r = hanging_rope(gpu.as_ref(), 10.0).unwrap();
        eprintln!(
            "{}: max error {:.4} of the top link's stretch; length {:.5} m (exact {:.5} m)",
            r.backend, r.max_error_of_top_stretch, r.length_m.0, r.length_m.1
        );
        // With the multipliers converged (8 sweeps) what is left is f32 rounding of positions
        // near 1 m (0.1 µm a link) and the last of the damped motion: measured 0.05 % of the
        // top link's 9.8 mm stretch; 1 % leaves room for a GPU that rounds differently.
        assert!(r.max_error_of_top_stretch < 0.01, "{r:?}");
        // And the stretch is real: the loaded rope is 10 % longer than at rest.
        assert!(r.length_m.1 > 1.09 && r.length_m.0 > 1.09, "{r:?}");
    }
}

#[test]
fn pendulum_keeps_its_swing_and_period_at_random_frame_rates() {
    let frames = FrameRate::Random {
        min: 30.0,
        max: 144.0,
        seed: 3,
    };
    for gpu in backends("pendulum_keeps_its_swing_and_period_at_random_frame_rates") {
        let r = pendulum(gpu.as_ref(), Projection::Shake, frames, 20.0).unwrap();
        eprintln!(
            "{} shake: amplitude {:.3}° after 20 s (released at {:.1}°), period {:.5} s (exact {:.5} s)",
            r.backend, r.final_amplitude_deg, r.release_deg, r.period_s.0, r.period_s.1
        );
        // The targets: amplitude within 2 % after 20 s, period within 1 %. Reading the peak
        // from frames at 30 fps misses it by at most 1 - cos(ω / 60) = 0.3 %.
        assert!((r.amplitude_ratio() - 1.0).abs() < 0.02, "amplitude {r:?}");
        assert!(r.period_error() < 0.01, "period {:?}", r.period_s);
    }
}

#[test]
fn jakobsen_projection_bleeds_the_swing_that_shake_keeps() {
    // What the SHAKE direction is for: the same pendulum with the current-bond direction.
    let frames = FrameRate::Fixed(60.0);
    let jakobsen = pendulum(None, Projection::Jakobsen, frames, 20.0).unwrap();
    let shake = pendulum(None, Projection::Shake, frames, 20.0).unwrap();
    eprintln!(
        "60 fps, 20 s: jakobsen {:.3}°, shake {:.3}°",
        jakobsen.final_amplitude_deg, shake.final_amplitude_deg
    );
    assert!(jakobsen.final_amplitude_deg < shake.final_amplitude_deg);
}

#[test]
fn sheet_pinned_along_its_top_hangs_at_its_rest_length() {
    for gpu in backends("sheet_pinned_along_its_top_hangs_at_its_rest_length") {
        let r = hanging_sheet(gpu.as_ref(), 64, 3.0).unwrap();
        eprintln!(
            "{} 64²: length ratio {:.5}, stretch {:?}",
            r.backend, r.length_ratio, r.stretch
        );
        // The target (1 %) at 64²; `chiffon study` reports 256².
        assert!((r.length_ratio - 1.0).abs() < 0.01, "{r:?}");
    }
}

#[test]
fn a_slack_chain_settles_within_two_percent_of_the_exact_catenary_sag() {
    for gpu in backends("a_slack_chain_settles_within_two_percent_of_the_exact_catenary_sag") {
        let r = hanging_chain(gpu.as_ref(), 150, true, 8.0).unwrap();
        eprintln!(
            "{}: sag {:.4} m (exact {:.4} m), error {:.2} %, longest link {:.4}",
            r.backend,
            r.sag_m.0,
            r.sag_m.1,
            100.0 * r.sag_error,
            r.max_link_stretch
        );
        // Measured 0.46 %: the rope's bend constraints (default compliance) stiffen it a
        // little, so it sags slightly more than a chain of free hinges.
        assert!(r.sag_error < 0.02, "{r:?}");
        assert!(r.max_link_stretch < 1.05, "{r:?}");
    }
}

#[test]
fn without_coarse_levels_a_slack_chain_sags_into_a_v() {
    // The regression the graph levels fix: tethers alone let the middle links stretch until
    // the chain hangs as two straight arms from its anchors.
    let r = hanging_chain(None, 150, false, 8.0).unwrap();
    assert!(r.sag_error > 0.1 && r.max_link_stretch > 1.2, "{r:?}");
}

#[test]
fn energy_readout_shows_a_conservative_pendulum_and_a_damped_cloth() {
    use chiffon::tools::study::reference::cloth_energy;
    for gpu in backends("energy_readout_shows_a_conservative_pendulum_and_a_damped_cloth") {
        let p = pendulum(
            gpu.as_ref(),
            Projection::Shake,
            FrameRate::Fixed(60.0),
            10.0,
        )
        .unwrap();
        let e = &p.energy;
        let swing = 9.81 * 0.5 * (1.0 - 30f64.to_radians().cos());
        // At release: at rest, its bob L cos θ₀ below the pivot.
        assert!(e[0].1 == 0.0 && (e[0].2 + 9.81 * 0.5 * 30f64.to_radians().cos()).abs() < 1e-4);
        // The swing trades the two: kinetic peaks near the swing energy at the bottom.
        let peak = e.iter().map(|e| e.1).fold(0.0, f64::max);
        eprintln!(
            "{}: pendulum drift {:.4} of the swing energy, kinetic peak {:.4} J (swing {:.4} J)",
            p.backend,
            p.energy_drift(),
            peak,
            swing
        );
        assert!((peak / swing - 1.0).abs() < 0.03, "kinetic peak {peak} J");
        // Without damping the total stays put (velocity from positions lags half a substep).
        assert!(p.energy_drift() < 0.02, "drift {}", p.energy_drift());
        // A damped cloth loses energy: its total after falling is far below its start, and
        // it never gains (within the readout's half-substep lag).
        let c = cloth_energy(gpu.as_ref(), 3.0).unwrap();
        let total: Vec<f64> = c.energy.iter().map(|e| e.4).collect();
        let fall = total[0] - total.iter().copied().fold(f64::INFINITY, f64::min);
        eprintln!("{}: cloth lost {fall:.4} J", c.backend);
        assert!(fall > 0.05, "the cloth lost only {fall} J");
        assert!(
            total.windows(2).all(|w| w[1] <= w[0] + 0.01 * fall),
            "the damped cloth gained energy"
        );
    }
}
