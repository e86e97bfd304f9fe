//! Self-collision: the hash the GPU builds is the CPU twin's bit for bit; a sheet dropped in a
//! heap ends with no two of its triangles crossing (checked here with an exact
//! triangle–triangle test, independent of the solver); cloths of a world do not pass through
//! each other; and the GPU stays within the conformance tolerance of the CPU.

mod common;

use chiffon::{
    Backend, Cloth, ClothBuilder, ClothOptions, Collider, Pinning, SelfCollision, Solver,
    SolverParams, World, WorldConfig,
};
use common::{backends, flat_grid, flat_sheet};
use glam::Vec3;

/// Whether segment pq crosses triangle abc (Möller–Trumbore; touching at an edge counts).
fn segment_hits_triangle(p: Vec3, q: Vec3, a: Vec3, b: Vec3, c: Vec3) -> bool {
    let dir = q - p;
    let (e1, e2) = (b - a, c - a);
    let h = dir.cross(e2);
    let det = e1.dot(h);
    if det.abs() < 1e-12 {
        return false; // parallel (coplanar overlaps are left to the other triangle's edges)
    }
    let inv = 1.0 / det;
    let s = p - a;
    let u = inv * s.dot(h);
    if !(0.0..=1.0).contains(&u) {
        return false;
    }
    let qv = s.cross(e1);
    let v = inv * dir.dot(qv);
    if v < 0.0 || u + v > 1.0 {
        return false;
    }
    let t = inv * e2.dot(qv);
    (0.0..=1.0).contains(&t)
}

/// Whether two triangles cross: an edge of one passes through the other.
fn triangles_cross(t: [Vec3; 3], u: [Vec3; 3]) -> bool {
    let edges = |x: [Vec3; 3]| [(x[0], x[1]), (x[1], x[2]), (x[2], x[0])];
    edges(t)
        .iter()
        .any(|&(p, q)| segment_hits_triangle(p, q, u[0], u[1], u[2]))
        || edges(u)
            .iter()
            .any(|&(p, q)| segment_hits_triangle(p, q, t[0], t[1], t[2]))
}

/// The distance between segments pq and rs (the test's own, Ericson §5.1.9).
fn segment_distance(p: Vec3, q: Vec3, r: Vec3, s: Vec3) -> f32 {
    let (d1, d2, w) = (q - p, s - r, p - r);
    let (a, e, f) = (d1.dot(d1), d2.dot(d2), d2.dot(w));
    let (mut t1, mut t2);
    if a <= 1e-20 && e <= 1e-20 {
        return p.distance(r);
    }
    if a <= 1e-20 {
        t1 = 0.0;
        t2 = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(w);
        if e <= 1e-20 {
            t2 = 0.0;
            t1 = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            t1 = if denom > 1e-20 {
                ((b * f - c * e) / denom).clamp(0.0, 1.0)
            } else {
                0.0
            };
            t2 = (b * t1 + f) / e;
            if t2 < 0.0 {
                t2 = 0.0;
                t1 = (-c / a).clamp(0.0, 1.0);
            } else if t2 > 1.0 {
                t2 = 1.0;
                t1 = ((b - c) / a).clamp(0.0, 1.0);
            }
        }
    }
    (p + d1 * t1).distance(r + d2 * t2)
}

/// The distance from point p to triangle abc.
fn point_triangle_distance(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> f32 {
    let n = (b - a).cross(c - a);
    if n.length_squared() > 1e-30 {
        let n = n.normalize();
        let q = p - n * (p - a).dot(n);
        let inside = [(a, b), (b, c), (c, a)]
            .iter()
            .all(|&(u, v)| (v - u).cross(q - u).dot(n) >= 0.0);
        if inside {
            return p.distance(q);
        }
    }
    [(a, b), (b, c), (c, a)]
        .iter()
        .map(|&(u, v)| segment_distance(p, p, u, v))
        .fold(f32::INFINITY, f32::min)
}

/// The distance between two triangles: 0 when they cross, else the least of the edge–edge
/// and vertex–triangle distances.
fn triangle_distance(t: [Vec3; 3], u: [Vec3; 3]) -> f32 {
    if triangles_cross(t, u) {
        return 0.0;
    }
    let edges = |x: [Vec3; 3]| [(x[0], x[1]), (x[1], x[2]), (x[2], x[0])];
    let mut d = f32::INFINITY;
    for (p, q) in edges(t) {
        for (r, s) in edges(u) {
            d = d.min(segment_distance(p, q, r, s));
        }
    }
    for v in t {
        d = d.min(point_triangle_distance(v, u[0], u[1], u[2]));
    }
    for v in u {
        d = d.min(point_triangle_distance(v, t[0], t[1], t[2]));
    }
    d
}

/// Triangles closer than this count as crossing (coplanar overlaps included).
const TOUCH: f32 = 1e-4;

/// Pairs of triangles of `cloth` at `positions` that share no vertex and cross or touch
/// (closer than [`TOUCH`]), found through a grid over their bounding boxes.
fn crossing_pairs(cloth: &Cloth, positions: &[Vec3]) -> usize {
    let tris = cloth.triangles();
    let corners = |t: &[u32; 3]| t.map(|i| positions[i as usize]);
    let cell = 2.0 * cloth.mean_edge_length();
    let mut grid: std::collections::HashMap<(i32, i32, i32), Vec<usize>> = Default::default();
    for (k, t) in tris.iter().enumerate() {
        let c = corners(t);
        let lo = (c[0].min(c[1]).min(c[2]) / cell).floor().as_ivec3();
        let hi = (c[0].max(c[1]).max(c[2]) / cell).floor().as_ivec3();
        for x in lo.x..=hi.x {
            for y in lo.y..=hi.y {
                for z in lo.z..=hi.z {
                    grid.entry((x, y, z)).or_default().push(k);
                }
            }
        }
    }
    let mut pairs = std::collections::HashSet::new();
    for bucket in grid.values() {
        for (m, &a) in bucket.iter().enumerate() {
            for &b in &bucket[m + 1..] {
                let (ta, tb) = (tris[a], tris[b]);
                if ta.iter().any(|v| tb.contains(v)) {
                    continue;
                }
                if triangle_distance(corners(&ta), corners(&tb)) < TOUCH {
                    pairs.insert((a.min(b), a.max(b)));
                }
            }
        }
    }
    pairs.len()
}

/// A flat sheet, `n`×`n`, 0.8 m wide, at 1.2 m.
fn heap_sheet(n: u32) -> Cloth {
    flat_sheet(n, 0.8, 1.2, Pinning::None)
}

fn heap_params(self_collision: bool) -> SolverParams {
    SolverParams {
        colliders: vec![Collider::ground(0.0).friction(0.5)],
        self_collision: self_collision.then(SelfCollision::default),
        ..SolverParams::default()
    }
}

/// The heap, a towel dropped by a corner: the sheet hangs from one corner for `hold` frames,
/// then falls, bottom corner first, and folds onto itself on the floor. Returns the crossing
/// pairs after `frames` frames.
fn heap(backend: Backend<'_>, n: u32, hold: usize, frames: usize, self_collision: bool) -> usize {
    let sheet = heap_sheet(n);
    let mut world =
        World::new(backend, heap_params(self_collision), WorldConfig::default()).unwrap();
    let h = world.add(&sheet, ClothOptions::new()).unwrap();
    world.set_inverse_mass(h, 0, 0.0).unwrap();
    for k in 0..frames {
        if k == hold {
            let w = sheet.free_inverse_masses()[0];
            world.set_inverse_mass(h, 0, w).unwrap();
        }
        world.step(1.0 / 60.0).unwrap();
    }
    crossing_pairs(&sheet, &world.positions(h).unwrap())
}

#[test]
fn a_heap_settles_with_no_crossing_triangles() {
    let ctx = common::gpu("a_heap_settles_with_no_crossing_triangles");
    // Without self-collision the same drop crosses itself (a test of the checker).
    let free = heap(Backend::Cpu, 32, 60, 150, false);
    assert!(
        free > 0,
        "the sheet did not fold onto itself without self-collision"
    );
    for backend in backends(&ctx) {
        let crossings = heap(backend, 32, 60, 150, true);
        assert_eq!(
            crossings, 0,
            "{backend:?}: {crossings} crossing triangle pairs"
        );
    }
}

/// Issue 42's peer scene, the one NVIDIA Newton's Style3D solver is timed on
/// (`benches/peer/newton_towel.py`, docs/performance.md "Against Newton"): a 48² towel,
/// nothing pinned, hanging with its top row at 1 m, dropped onto a sphere and the floor with
/// self-collision, 240 frames at the defaults, as `chiffon simulate --grid 48x48 --pin none
/// --layout hanging --sphere 0,0.4,0.1,0.15 --ground 0 --self-collision on` runs it. The speed
/// the benchmark reports is worth something only if the towel ends as the peer's does: no two
/// of its triangles crossing, and its edges near their length.
#[test]
fn the_peer_towel_ends_with_no_crossing_triangles() {
    let ctx = common::gpu("the_peer_towel_ends_with_no_crossing_triangles");
    let towel = ClothBuilder::grid(48, 48)
        .pinning(Pinning::None)
        .build()
        .unwrap();
    let params = SolverParams {
        colliders: vec![
            Collider::sphere(Vec3::new(0.0, 0.4, 0.1), 0.15),
            Collider::ground(0.0),
        ],
        self_collision: Some(SelfCollision::default()),
        ..SolverParams::default()
    };
    for backend in backends(&ctx) {
        let mut world = World::new(backend, params.clone(), WorldConfig::default()).unwrap();
        let h = world.add(&towel, ClothOptions::new()).unwrap();
        for _ in 0..240 {
            world.step(1.0 / 60.0).unwrap();
        }
        let positions = world.positions(h).unwrap();
        let crossings = crossing_pairs(&towel, &positions);
        assert_eq!(
            crossings, 0,
            "{backend:?}: {crossings} crossing triangle pairs"
        );
        let stretch = chiffon::quality::stretch(&towel, &positions);
        assert!(
            stretch.max < 1.1,
            "{backend:?}: an edge at {:.3} × its length",
            stretch.max
        );
    }
}

/// The hash is built with u32 atomics and each bucket sorted, so the GPU's table (counts,
/// starts, block sums, the candidate lists' state), buckets and candidate lists equal the CPU
/// twin's bit for bit, frame after frame of a heap.
#[test]
fn the_gpus_hash_is_the_cpu_twins_bit_for_bit() {
    let ctx = common::gpu_or_return!("the_gpus_hash_is_the_cpu_twins_bit_for_bit");
    let sheet = heap_sheet(24);
    let mut worlds: Vec<World> = [Backend::Gpu(&ctx), Backend::Cpu]
        .into_iter()
        .map(|b| {
            let mut w = World::new(b, heap_params(true), WorldConfig::default()).unwrap();
            w.add(&sheet, ClothOptions::new()).unwrap();
            w
        })
        .collect();
    for frame in 1..=20 {
        for w in &mut worlds {
            w.step(1.0 / 60.0).unwrap();
        }
        if frame % 5 == 0 {
            let gpu = worlds[0].self_collision_tables().unwrap().unwrap();
            let cpu = worlds[1].self_collision_tables().unwrap().unwrap();
            assert_eq!(gpu.0, cpu.0, "frame {frame}: the tables differ");
            assert_eq!(gpu.1, cpu.1, "frame {frame}: the buckets differ");
            // A hash of a heap that does something: some bucket holds several particles.
            let n = sheet.particle_count();
            assert!(
                cpu.1[..n]
                    .iter()
                    .any(|&b| cpu.1[..n].iter().filter(|&&c| c == b).count() > 1)
            );
        }
    }
    // A second cloth, then without it: new layouts, whose lists start at other offsets (the
    // smaller one fits the buffers the larger one had). The GPU's buffers are made again for
    // each, zeroed as the CPU twin's are, so even the lists' unused words agree.
    let second = heap_sheet(12);
    for w in &mut worlds {
        let extra = w.add(&second, ClothOptions::new()).unwrap();
        for _ in 0..5 {
            w.step(1.0 / 60.0).unwrap();
        }
        w.remove(extra).unwrap();
    }
    for frame in 1..=5 {
        for w in &mut worlds {
            w.step(1.0 / 60.0).unwrap();
        }
        let gpu = worlds[0].self_collision_tables().unwrap().unwrap();
        let cpu = worlds[1].self_collision_tables().unwrap().unwrap();
        assert_eq!(
            gpu.0, cpu.0,
            "frame {frame} after a layout: the tables differ"
        );
        assert_eq!(
            gpu.1, cpu.1,
            "frame {frame} after a layout: the buckets differ"
        );
    }
}

/// The candidate lists are kept from frame to frame, so a change the host makes that they
/// rest on must build them again: a pinned particle keeps no list, and once freed it must be
/// pushed off the cloth it is within the distance of, on the next frame's first substep. A
/// small sheet pinned 2 cm over a sheet lying on the floor (the distance is 6 cm) is freed:
/// it must rise off it (with the lists it had while pinned, empty, it fell through it).
#[test]
fn a_particle_freed_between_frames_is_pushed_off_the_cloth_under_it() {
    let ctx = common::gpu("a_particle_freed_between_frames_is_pushed_off_the_cloth_under_it");
    let lower = flat_sheet(16, 0.6, 0.02, Pinning::None);
    let upper = flat_grid(3, 0.04, 0.0, Pinning::None);
    let mean_y = |p: &[Vec3]| p.iter().map(|p| p.y).sum::<f32>() / p.len() as f32;
    for backend in backends(&ctx) {
        let mut world = World::new(backend, heap_params(true), WorldConfig::default()).unwrap();
        let l = world.add(&lower, ClothOptions::new()).unwrap();
        for _ in 0..20 {
            world.step(1.0 / 60.0).unwrap();
        }
        let floor = mean_y(&world.positions(l).unwrap());
        let placed = ClothOptions::new().translate(Vec3::new(0.0, floor + 0.02, 0.0));
        let u = world.add(&upper, placed).unwrap();
        for i in 0..upper.particle_count() {
            world.set_inverse_mass(u, i, 0.0).unwrap();
        }
        for _ in 0..5 {
            world.step(1.0 / 60.0).unwrap();
        }
        let pinned = mean_y(&world.positions(u).unwrap());
        for (i, &w) in upper.free_inverse_masses().iter().enumerate() {
            world.set_inverse_mass(u, i, w).unwrap();
        }
        world.step(1.0 / 60.0).unwrap();
        let freed = mean_y(&world.positions(u).unwrap());
        assert!(
            freed > pinned + 0.005,
            "{backend:?}: the freed sheet went from {pinned:.4} to {freed:.4} m, over a sheet at \
             {floor:.4} m: not pushed off it"
        );
    }
}

/// Two sheets of one world, one dropped onto the other lying on the floor: with
/// self-collision on they do not pass through each other (inter-collision, the same hash), and
/// without it they do.
#[test]
fn cloths_of_a_world_do_not_pass_through_each_other() {
    let ctx = common::gpu("cloths_of_a_world_do_not_pass_through_each_other");
    let lower = flat_sheet(16, 0.6, 0.05, Pinning::None);
    let upper = flat_sheet(12, 0.4, 0.4, Pinning::None);
    let run = |backend: Backend<'_>, on: bool| {
        let mut world = World::new(backend, heap_params(on), WorldConfig::default()).unwrap();
        let a = world.add(&lower, ClothOptions::new()).unwrap();
        let b = world.add(&upper, ClothOptions::new()).unwrap();
        for _ in 0..90 {
            world.step(1.0 / 60.0).unwrap();
        }
        let (pa, pb) = (world.positions(a).unwrap(), world.positions(b).unwrap());
        // The upper sheet's particles over the lower one: how many ended below it.
        let floor = pa.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
        pb.iter()
            .filter(|p| p.x.abs() < 0.25 && p.z.abs() < 0.25)
            .filter(|p| p.y <= floor)
            .count()
    };
    assert!(
        run(Backend::Cpu, false) > 0,
        "without self-collision the sheets should meet"
    );
    for backend in backends(&ctx) {
        let through = run(backend, true);
        assert_eq!(
            through, 0,
            "{backend:?}: {through} particles went through the lower sheet"
        );
    }
}

/// A non-chaotic self-collision run (one sheet settling onto another at random frame rates):
/// the GPU stays within the conformance tolerance of the CPU twin.
#[test]
fn self_collision_matches_on_a_long_random_dt_run() {
    let ctx = common::gpu_or_return!("self_collision_matches_on_a_long_random_dt_run");
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let dts: Vec<f64> = (0..120)
        .map(|_| rng.random_range(1.0 / 144.0..=1.0 / 30.0))
        .collect();
    let sheet = flat_sheet(20, 0.5, 0.02, Pinning::None);
    let top = flat_sheet(20, 0.5, 0.3, Pinning::Corners);
    let mut out = Vec::new();
    for backend in [Backend::Gpu(&ctx), Backend::Cpu] {
        let mut world = World::new(backend, heap_params(true), WorldConfig::default()).unwrap();
        world.add(&sheet, ClothOptions::new()).unwrap();
        let h = world.add(&top, ClothOptions::new()).unwrap();
        for (k, &dt) in dts.iter().enumerate() {
            if k == 30 {
                // Let the top sheet's corners go: it settles onto the lower one.
                for i in [0, 19, 380, 399] {
                    world
                        .set_inverse_mass(h, i, top.free_inverse_masses()[i])
                        .unwrap();
                }
            }
            world.step(dt).unwrap();
        }
        out.push(world.all_positions().unwrap());
    }
    let flat = |v: &Vec<(chiffon::ClothHandle, Vec<Vec3>)>| -> Vec<Vec3> {
        v.iter().flat_map(|(_, p)| p.clone()).collect()
    };
    let d = chiffon::conformance::deviation(&flat(&out[0]), &flat(&out[1]));
    let tolerance = chiffon::conformance::LONG_RUN_TOLERANCE * sheet.size();
    assert!(
        d.max_m <= tolerance,
        "GPU and CPU differ by {} m (tolerance {tolerance})",
        d.max_m
    );
}

#[test]
fn bad_self_collision_settings_are_clear_errors() {
    for (sc, says) in [
        (
            SelfCollision {
                thickness: Some(f32::NAN),
                friction: 0.0,
            },
            "self-collision thickness",
        ),
        (
            SelfCollision {
                thickness: Some(-0.01),
                friction: 0.0,
            },
            "self-collision thickness",
        ),
        (
            SelfCollision {
                thickness: None,
                friction: -1.0,
            },
            "self-collision friction",
        ),
    ] {
        let params = SolverParams {
            self_collision: Some(sc),
            ..SolverParams::default()
        };
        let e = params.validate().unwrap_err().to_string();
        assert!(e.contains(says), "{sc:?}: {e}");
    }
}

/// Self-collision's candidate lists take 34 words a particle, sized to the particles there are
/// when it first runs: on a device whose binding limit cannot hold them, stepping with
/// self-collision on is a clear error naming the buffer and the limit, not a validation panic,
/// while the same cloth without self-collision still steps.
#[test]
fn self_collision_too_large_for_the_device_is_a_clear_error() {
    let ctx = common::gpu_or_return!("self_collision_too_large_for_the_device_is_a_clear_error");
    const LOWERED: u64 = 1 << 20;
    let lowered = ctx
        .with_limits(wgpu::Limits {
            max_storage_buffer_binding_size: LOWERED,
            ..ctx.limits()
        })
        .unwrap();
    // 96 x 96 without bending: its own buffers fit 1 MiB (the constraints, 4 records of 16
    // bytes a particle, 0.6 MB); its lists (9 216 x 136 bytes) do not.
    let cloth = ClothBuilder::grid(96, 96)
        .constraint(chiffon::ConstraintKind::Bend, false)
        .pinning(Pinning::None)
        .build()
        .unwrap();
    let mut plain = Solver::new(Backend::Gpu(&lowered), &cloth, SolverParams::default()).unwrap();
    plain.step(1.0 / 60.0).unwrap();
    let params = SolverParams {
        self_collision: Some(SelfCollision::default()),
        ..SolverParams::default()
    };
    let mut solver = Solver::new(Backend::Gpu(&lowered), &cloth, params).unwrap();
    let msg = solver
        .step(1.0 / 60.0)
        .expect_err("self-collision's lists were accepted past the binding limit")
        .to_string();
    assert!(
        msg.contains("self-collision")
            && msg.contains("max_storage_buffer_binding_size")
            && msg.contains(&LOWERED.to_string()),
        "{msg}"
    );
}
