//! The air (issue 45): drag and lift on each triangle from the wind relative to it
//! (`chiffon::Air`, `shaders/air.wgsl` ↔ `src/cpu/air.rs`), held to the model's known answers
//! on both backends: a plate facing the wind, edge-on and in between; a sheet falling to its
//! terminal speed; a flag on a pole that streams further the harder it blows, flutters, and
//! survives a gale; and gusts that both backends draw the same, bit for bit.

mod common;

use chiffon::{
    Air, Backend, Cloth, ClothBuilder, GpuContext, Layout, Pinning, Solver, SolverParams,
};
use glam::Vec3;

const DT: f64 = 1.0 / 60.0;

/// The CPU reference, and the GPU when there is one (loudly skipped elsewhere).
fn backends(test: &str) -> Vec<(&'static str, Option<GpuContext>)> {
    let mut out = vec![("cpu", None)];
    if let Some(ctx) = common::gpu(test) {
        out.push(("gpu", Some(ctx)));
    }
    out
}

fn backend(ctx: &Option<GpuContext>) -> Backend<'_> {
    match ctx {
        Some(ctx) => Backend::Gpu(ctx),
        None => Backend::Cpu,
    }
}

/// A 1 m × 1 m plate of `mass` kg (2 × 2 particles, two triangles) flat at y = 1 m, free.
fn plate(mass: f32) -> Cloth {
    ClothBuilder::grid(2, 2)
        .spacing(1.0)
        .total_mass(mass)
        .layout(Layout::Flat { height: 1.0 })
        .pinning(Pinning::None)
        .build()
        .unwrap()
}

/// Nothing but the air: no gravity, no damping.
fn airy(air: Air) -> SolverParams {
    SolverParams {
        gravity: Vec3::ZERO,
        damping: 0.0,
        air: Some(air),
        ..SolverParams::default()
    }
}

/// The force the air puts on a resting 1 m² plate of 10 kg (N), measured from how far it moves
/// in its first frame: the air changes its velocity once, at the frame's start.
fn plate_force(ctx: &Option<GpuContext>, air: Air) -> Vec3 {
    let mass = 10.0;
    let cloth = plate(mass);
    let start: Vec3 = cloth.positions().iter().sum::<Vec3>() / 4.0;
    let mut solver = Solver::new(backend(ctx), &cloth, airy(air)).unwrap();
    solver.step(DT).unwrap();
    let end: Vec3 = solver.positions().unwrap().iter().sum::<Vec3>() / 4.0;
    (end - start) * (mass / (DT * DT) as f32)
}

/// The model's force on a flat plate of area vector `area` in the wind `u` (params::Air).
fn expected(air: &Air, area: Vec3, u: Vec3) -> Vec3 {
    let (a, speed) = (area.length(), u.length());
    let cos = area.dot(u) / (a * speed);
    let q = 0.5 * air.density * speed * speed * a;
    let u_hat = u / speed;
    q * (air.drag * cos.abs() * u_hat + air.lift * cos * (area / a - cos * u_hat))
}

#[test]
fn a_plate_facing_the_wind_feels_half_rho_cd_a_v_squared_and_nothing_edge_on() {
    for (name, ctx) in backends("a_plate_facing_the_wind") {
        let air = Air::wind(Vec3::new(0.0, 10.0, 0.0));
        let f = plate_force(&ctx, air);
        let want = 0.5 * air.density * air.drag * 1.0 * 100.0; // ½ ρ C_d A v², 60 N
        assert!(
            (f.y - want).abs() <= 0.01 * want && f.x.abs() < 1e-3 && f.z.abs() < 1e-3,
            "{name}: facing the wind the plate feels {f} N, want (0, {want}, 0)"
        );
        let edge_on = plate_force(&ctx, Air::wind(Vec3::new(10.0, 0.0, 0.0)));
        assert_eq!(
            edge_on,
            Vec3::ZERO,
            "{name}: edge-on, the plate feels {edge_on} N"
        );
    }
}

#[test]
fn lift_pushes_across_the_flow_most_at_45_degrees_and_never_facing_or_edge_on() {
    for (name, ctx) in backends("lift_pushes_across_the_flow") {
        let mut across = Vec::new();
        for degrees in [0.0f32, 15.0, 30.0, 45.0, 60.0, 75.0, 90.0] {
            // The wind meets the plate (normal +y) at `degrees` from its surface.
            let a = degrees.to_radians();
            let u = 10.0 * Vec3::new(a.cos(), a.sin(), 0.0);
            let air = Air::wind(u);
            let f = plate_force(&ctx, air);
            let want = expected(&air, Vec3::Y, u);
            assert!(
                (f - want).length() <= 0.01 * want.length().max(1e-3),
                "{name} at {degrees}°: {f} N, the model says {want} N"
            );
            // Lift: the part across the flow, towards the side the air pushes the plate.
            let side = (Vec3::Y - a.sin() * u.normalize()).normalize_or_zero();
            across.push((degrees, f.dot(side)));
        }
        let lift = |d: f32| across.iter().find(|(x, _)| *x == d).unwrap().1;
        assert!(
            lift(0.0).abs() < 1e-3 && lift(90.0).abs() < 1e-3,
            "{name}: {across:?}"
        );
        assert!(
            across.iter().all(|(_, l)| *l >= -1e-3),
            "{name}: lift against the flow's push: {across:?}"
        );
        let best = across.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap().0;
        assert_eq!(best, 45.0, "{name}: lift peaks at {best}°: {across:?}");
        // The model's peak: ½ ρ C_l A v² cos 45° sin 45° = 15 N at 10 m/s.
        let peak = 0.5 * 1.2 * 0.5 * 100.0 * 0.5;
        assert!(
            (lift(45.0) - peak).abs() <= 0.01 * peak,
            "{name}: {across:?}"
        );
    }
}

#[test]
fn a_sheet_falling_flat_through_still_air_reaches_the_drag_laws_terminal_speed() {
    // 1 m², 0.2 kg: v_t = √(2 m g / (ρ C_d A)) = 1.81 m/s.
    let (mass, g) = (0.2f32, 9.81f32);
    let air = Air::default();
    let terminal = (2.0 * mass * g / (air.density * air.drag * 1.0)).sqrt();
    for (name, ctx) in backends("a_sheet_falling_flat") {
        let cloth = ClothBuilder::grid(16, 16)
            .spacing(1.0 / 15.0)
            .total_mass(mass)
            .layout(Layout::Flat { height: 10.0 })
            .pinning(Pinning::None)
            .build()
            .unwrap();
        let params = SolverParams {
            damping: 0.0,
            air: Some(air),
            ..SolverParams::default()
        };
        let mut solver = Solver::new(backend(&ctx), &cloth, params).unwrap();
        let centre = |s: &mut Solver| s.positions().unwrap().iter().sum::<Vec3>() / 256.0;
        for _ in 0..120 {
            solver.step(DT).unwrap();
        }
        let before = centre(&mut solver);
        for _ in 0..30 {
            solver.step(DT).unwrap();
        }
        let speed = (before.y - centre(&mut solver).y) / (30.0 * DT as f32);
        println!("{name}: falls at {speed:.4} m/s; the drag law says {terminal:.4} m/s");
        // The sheet's rim has half the area of its middle for the same mass per particle, so
        // it dishes a little: its projected area, and so its speed, is within a few percent.
        assert!(
            (speed - terminal).abs() <= 0.03 * terminal,
            "{name}: falls at {speed} m/s, the drag law says {terminal} m/s"
        );
    }
}

/// A flag 0.9 m × 0.57 m, 0.1 kg (the demo's), its hoist (first column) pinned along a pole
/// (a capsule collider just behind it), top at 2.2 m, in the x-y plane.
fn flag() -> Cloth {
    let (columns, rows) = chiffon::scenes::FLAG_PARTICLES;
    ClothBuilder::grid(columns, rows)
        .spacing(0.9 / (columns - 1) as f32)
        .total_mass(0.1)
        .layout(Layout::Hanging { top: 2.2 })
        .pinning(Pinning::List((0..rows).map(|r| r * columns).collect()))
        .build()
        .unwrap()
}

/// The flag in a wind of `speed` m/s, heading 80° from +z (almost along the flag, +x), for
/// `frames`; each frame's positions.
fn fly(ctx: &Option<GpuContext>, speed: f32, gusts: f32, frames: usize) -> (Cloth, Vec<Vec<Vec3>>) {
    let cloth = flag();
    let pole_x = cloth.positions()[0].x - 0.02;
    let heading = 80f32.to_radians();
    let params = SolverParams {
        air: Some(
            Air::wind(speed * Vec3::new(heading.sin(), 0.0, heading.cos())).with_gusts(gusts),
        ),
        colliders: vec![chiffon::Collider::capsule(
            Vec3::new(pole_x, 0.0, 0.0),
            Vec3::new(pole_x, 2.3, 0.0),
            0.015,
            0.015,
        )],
        ..SolverParams::default()
    };
    let mut solver = Solver::new(backend(ctx), &cloth, params).unwrap();
    // No flag is ever quite flat: a ripple along it, 1 cm, lets it fold and hang.
    for (i, p) in solver.raw_positions().unwrap().into_iter().enumerate() {
        if p.w > 0.0 {
            let along = (p.x - pole_x) / 0.9;
            let ripple = 0.01 * (std::f32::consts::PI * along).sin() * (1.0 + 0.3 * p.y);
            solver
                .set_particle(i, p.truncate() + Vec3::Z * ripple, p.w)
                .unwrap();
        }
    }
    let mut out = Vec::with_capacity(frames);
    for _ in 0..frames {
        solver.step(DT).unwrap();
        out.push(solver.positions().unwrap());
    }
    (cloth, out)
}

/// The flag's mean angle from its pole (°; 0 hanging down it, 90 straight out) over `frames`:
/// the line from the hoist's middle to the fly's middle, against the downward vertical.
fn mean_angle(cloth: &Cloth, frames: &[Vec<Vec3>]) -> f32 {
    let (columns, rows) = chiffon::scenes::FLAG_PARTICLES;
    let middle = |p: &[Vec3], column: u32| {
        (0..rows)
            .map(|r| p[(r * columns + column) as usize])
            .sum::<Vec3>()
            / rows as f32
    };
    let hoist = middle(cloth.positions(), 0);
    let angles = frames.iter().map(|p| {
        let d = middle(p, columns - 1) - hoist;
        d.x.hypot(d.z).atan2(-d.y).to_degrees()
    });
    angles.sum::<f32>() / frames.len() as f32
}

/// The free top corner's motion across the wind (m) over `frames`: its standard deviation, and
/// the strongest frequency of its spectrum (Hz) with that line's amplitude (m).
fn flutter(frames: &[Vec<Vec3>]) -> (f32, f32, f32) {
    let corner = chiffon::scenes::FLAG_PARTICLES.0 as usize - 1;
    let z: Vec<f64> = frames.iter().map(|p| p[corner].z as f64).collect();
    let n = z.len() as f64;
    let mean = z.iter().sum::<f64>() / n;
    let sd = (z.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
    let mut best = (0.0, 0.0);
    for k in 1..z.len() / 2 {
        let (mut re, mut im) = (0.0, 0.0);
        for (t, v) in z.iter().enumerate() {
            let a = std::f64::consts::TAU * (k * t) as f64 / n;
            re += (v - mean) * a.cos();
            im -= (v - mean) * a.sin();
        }
        let amplitude = 2.0 * re.hypot(im) / n;
        if amplitude > best.1 {
            best = (k as f64 / (n * DT), amplitude);
        }
    }
    (sd as f32, best.0 as f32, best.1 as f32)
}

#[test]
fn a_flag_on_its_pole_hangs_in_still_air_streams_further_as_it_blows_and_flutters() {
    for (name, ctx) in backends("a_flag_on_its_pole") {
        let mut angles = Vec::new();
        for speed in [0.0f32, 3.0, 6.0, 12.0] {
            let (cloth, frames) = fly(&ctx, speed, 0.0, 480);
            // After two seconds of settling in, four seconds.
            let late = &frames[240..];
            let angle = mean_angle(&cloth, late);
            let (sd, hz, amplitude) = flutter(late);
            println!(
                "{name}: {speed:4.1} m/s: {angle:5.1}° from the pole; the corner moves across the \
                 wind by {sd:.3} m (sd), strongest at {hz:.2} Hz ({amplitude:.3} m)"
            );
            if speed > 0.0 {
                assert!(
                    sd > 0.01,
                    "{name}: at {speed} m/s the flag does not flutter ({sd} m)"
                );
            }
            angles.push(angle);
        }
        assert!(
            angles[0] < 20.0,
            "{name}: in still air the flag stands out at {}°",
            angles[0]
        );
        assert!(
            angles.windows(2).all(|w| w[1] > w[0]),
            "{name}: the angle from the pole does not grow with the wind: {angles:?}"
        );
    }
}

#[test]
fn a_flag_in_a_30_m_per_s_gale_stays_finite_and_whole() {
    for (name, ctx) in backends("a_flag_in_a_gale") {
        let (cloth, frames) = fly(&ctx, 30.0, 0.5, 300);
        for (k, p) in frames.iter().enumerate() {
            assert!(
                p.iter().all(|v| v.is_finite()),
                "{name}: frame {k} is not finite"
            );
        }
        let last = chiffon::quality::stretch(&cloth, frames.last().unwrap());
        println!("{name}: after 5 s of a gusty 30 m/s gale: stretch {last:?}");
        // The air accelerates the fabric at up to ~280 g here: it stretches (a real flag
        // tears), but every particle stays within reach of the hoist (the tethers) and the
        // velocity change is bounded by the wind, so nothing runs away.
        assert!(
            last.mean < 1.15,
            "{name}: the gale pulls the flag apart: {last:?}"
        );
        let hoist = cloth.positions()[0];
        let reach = frames
            .iter()
            .flatten()
            .map(|p| p.distance(hoist))
            .fold(0.0, f32::max);
        assert!(reach < 1.5, "{name}: a particle {reach} m from the hoist");
    }
}

/// Gusts are a seeded integer hash and smooth noise, written so that lavapipe's compiler keeps
/// the twins' order of arithmetic: a world of two flags on the fused path and a sheet on the
/// global path, in gusty air, at random frame times, is the same on the GPU as on the CPU
/// reference, bit for bit; and the same seed gives the same run, another seed another.
#[test]
fn gusts_are_the_same_on_both_backends_and_both_paths_bit_for_bit() {
    use chiffon::world::{ClothPath, PathChoice, World, WorldConfig};
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(45);
    let dts: Vec<f64> = (0..120)
        .map(|_| rng.random_range(1.0 / 144.0..=1.0 / 30.0))
        .collect();
    let run = |backend: Backend<'_>, seed: u32| {
        let params = SolverParams {
            air: Some(Air {
                seed,
                ..Air::wind(Vec3::new(6.0, 0.0, 2.0)).with_gusts(0.5)
            }),
            ..SolverParams::default()
        };
        // Flags (640 particles) fused; the sheet (1600) above the limit, global.
        let config = WorldConfig {
            paths: PathChoice::Fused,
            fused_max_particles: 1000,
            ..WorldConfig::default()
        };
        let mut world = World::new(backend, params, config).unwrap();
        let flag = flag();
        let sheet = common::pinned_grid(40, 40, Pinning::Corners);
        let mut handles = Vec::new();
        for (k, cloth) in [&flag, &flag, &sheet].into_iter().enumerate() {
            let at = glam::Affine3A::from_translation(Vec3::new(1.5 * k as f32, 0.0, 0.0));
            let options = chiffon::ClothOptions::new().transform(at);
            handles.push(world.add(cloth, options).unwrap());
        }
        let fused = |p: ClothPath| matches!(p, ClothPath::Fused { .. });
        let paths: Vec<bool> = handles
            .iter()
            .map(|&h| fused(world.path(h).unwrap()))
            .collect();
        assert_eq!(
            paths,
            [true, true, false],
            "the flags fused, the sheet global"
        );
        for &dt in &dts {
            world.step(dt).unwrap();
        }
        handles
            .iter()
            .map(|&h| world.positions(h).unwrap())
            .collect::<Vec<_>>()
    };
    let cpu = run(Backend::Cpu, 7);
    assert_eq!(cpu, run(Backend::Cpu, 7), "the same seed, another run");
    assert_ne!(cpu, run(Backend::Cpu, 8), "another seed, the same gusts");
    if let Some(ctx) = common::gpu("gusts_are_the_same_on_both_backends") {
        assert_eq!(
            run(Backend::Gpu(&ctx), 7),
            cpu,
            "GPU and CPU differ in gusty air"
        );
    }
}

/// Bad air is a clear error naming the field, before anything runs: never NaNs that spread.
#[test]
fn bad_air_is_refused_naming_what_is_wrong() {
    // The default air with one field changed.
    let with = |change: fn(&mut Air)| {
        let mut air = Air::default();
        change(&mut air);
        air
    };
    let cases: [(&str, Air); 9] = [
        ("wind (m/s)", Air::wind(Vec3::new(f32::NAN, 0.0, 0.0))),
        ("wind speed", Air::wind(Vec3::new(1e4, 0.0, 0.0))),
        ("wind", Air::wind(Vec3::new(f32::MAX, f32::MAX, 0.0))),
        ("air density", with(|a| a.density = -1.0)),
        ("drag coefficient", with(|a| a.drag = f32::INFINITY)),
        ("lift coefficient", with(|a| a.lift = -0.5)),
        ("gusts", with(|a| a.gusts = f32::NAN)),
        ("gust size", with(|a| a.gust_size = 0.0)),
        ("gust size", with(|a| a.gust_size = -2.0)),
    ];
    for (name, air) in cases {
        let params = SolverParams {
            air: Some(air),
            ..SolverParams::default()
        };
        let Err(e) = Solver::new(Backend::Cpu, &plate(1.0), params) else {
            panic!("{air:?} was accepted");
        };
        let message = e.to_string();
        assert!(message.contains(name), "{air:?}: {message}");
        // And set on a running solver, the same refusal; the solver keeps its old air.
        let mut solver = Solver::new(Backend::Cpu, &plate(1.0), airy(Air::default())).unwrap();
        let bad = SolverParams {
            air: Some(air),
            ..solver.params().clone()
        };
        assert!(
            solver.set_params(bad).is_err(),
            "{air:?} was accepted by set_params"
        );
        assert_eq!(solver.params().air, Some(Air::default()));
    }
}
