//! Meshes whose vertices meet many triangles (issue 44): a fan's hub, a UV sphere's poles, a
//! cone's apex. Every constraint at a hub conflicts with every other, so a coloring needs at
//! least the hub's valence in colors (a fan of 100 triangles: 200, with its bending); more than
//! the fused kernel's table holds (`world::MAX_COLORS`, 64), which once refused the cloth
//! ("colors would be 200, but the world holds at most 64"), then sent it to the global path at
//! a dispatch a color. Now the colors are bounded (`coloring::MAX_DISTANCE_COLORS` and
//! `MAX_STENCIL_COLORS`): what does not fit goes into one serial color, which one thread
//! solves record after record, and the cloth takes either path, on both backends.

mod common;

use chiffon::coloring::{MAX_DISTANCE_COLORS, MAX_STENCIL_COLORS};
use chiffon::geometry::TriangleMesh;
use chiffon::world::{ClothPath, PathChoice};
use chiffon::{
    Backend, Cloth, ClothBuilder, ClothOptions, Layout, Pinning, SolverParams, World, WorldConfig,
};
use glam::Vec3;
use std::f32::consts::{PI, TAU};

/// `segments` points evenly round a circle of `radius` about the y axis, in the x-z plane at
/// 1 m.
fn circle(radius: f32, segments: u32) -> impl Iterator<Item = Vec3> {
    (0..segments).map(move |k| {
        let a = TAU * k as f32 / segments as f32;
        Vec3::new(radius * a.cos(), 1.0, radius * a.sin())
    })
}

/// A disc of `segments` triangles round its centre (the hub), radius 0.5 m, in the x-z plane at
/// 1 m.
fn fan(segments: u32) -> TriangleMesh {
    let mut positions = vec![Vec3::new(0.0, 1.0, 0.0)];
    positions.extend(circle(0.5, segments));
    let triangles = (0..segments)
        .map(|k| [0, 1 + k, 1 + (k + 1) % segments])
        .collect();
    TriangleMesh::new("fan", positions, triangles)
}

/// A UV sphere of radius 0.3 m at 1 m: `slices` triangles meet at each pole.
fn uv_sphere(rings: u32, slices: u32) -> TriangleMesh {
    let centre = Vec3::new(0.0, 1.0, 0.0);
    let mut positions = vec![centre + Vec3::Y * 0.3, centre - Vec3::Y * 0.3];
    for r in 1..rings {
        let (s, c) = (PI * r as f32 / rings as f32).sin_cos();
        for k in 0..slices {
            let a = TAU * k as f32 / slices as f32;
            positions.push(centre + 0.3 * Vec3::new(s * a.cos(), c, s * a.sin()));
        }
    }
    let at = |r: u32, k: u32| 2 + (r - 1) * slices + k % slices;
    let mut triangles = Vec::new();
    for k in 0..slices {
        triangles.push([0, at(1, k + 1), at(1, k)]);
        triangles.push([1, at(rings - 1, k), at(rings - 1, k + 1)]);
    }
    for r in 1..rings - 1 {
        for k in 0..slices {
            triangles.push([at(r, k), at(r, k + 1), at(r + 1, k)]);
            triangles.push([at(r, k + 1), at(r + 1, k + 1), at(r + 1, k)]);
        }
    }
    TriangleMesh::new("uv sphere", positions, triangles)
}

/// An open cone: `segments` triangles meet at its apex, 0.4 m above a rim of radius 0.3 m.
fn cone(segments: u32) -> TriangleMesh {
    let mut positions = vec![Vec3::new(0.0, 1.4, 0.0)];
    positions.extend(circle(0.3, segments));
    let triangles = (0..segments)
        .map(|k| [0, 1 + (k + 1) % segments, 1 + k])
        .collect();
    TriangleMesh::new("cone", positions, triangles)
}

/// `mesh` as a cloth pinned along `pins` (none: it falls).
fn cloth(mesh: TriangleMesh, pins: Pinning) -> Cloth {
    ClothBuilder::mesh(mesh).pinning(pins).build().unwrap()
}

/// Steps `cloth` alone in a world on `paths` for `frames` frames on `backend`; its path and its
/// positions at the end.
fn run(
    backend: Backend<'_>,
    paths: PathChoice,
    cloth: &Cloth,
    frames: usize,
) -> (ClothPath, Vec<Vec3>) {
    let config = WorldConfig {
        paths,
        ..WorldConfig::default()
    };
    let mut world = World::new(backend, SolverParams::default(), config).unwrap();
    let h = world.add(cloth, ClothOptions::default()).unwrap();
    for _ in 0..frames {
        world.step(1.0 / 60.0).unwrap();
    }
    world.health().unwrap();
    (world.path(h).unwrap(), world.positions(h).unwrap())
}

/// The rim of a fan or cone (every particle but the hub, particle 0).
fn rim(segments: u32) -> Pinning {
    Pinning::List((1..=segments).collect())
}

/// Colors past the bound (the distance colors, a serial one, the stencil colors, a serial one).
fn assert_bounded(name: &str, c: &Cloth) {
    let colors = c.colors().len();
    let serial = c.colored().serial_colors().iter().filter(|&&s| s).count();
    eprintln!("{name}: {colors} colors, {serial} of them serial");
    assert!(
        colors <= MAX_DISTANCE_COLORS + MAX_STENCIL_COLORS + 2,
        "{name}: {colors} colors"
    );
    assert!(
        serial >= 1,
        "{name}: no serial color, so the test shows nothing"
    );
}

/// The defect: a 100-triangle fan (200 colors) was refused by every world, then took the global
/// path at 200 dispatches a sweep. Now it has at most 42 colors and takes either path.
#[test]
fn a_fan_of_100_triangles_round_one_vertex_simulates_with_bounded_colors() {
    let drum = cloth(fan(100), rim(100));
    assert_bounded("fan of 100", &drum);
    for paths in [PathChoice::Global, PathChoice::Fused] {
        let (path, x) = run(Backend::Cpu, paths, &drum, 120);
        let fused = matches!(path, ClothPath::Fused { .. });
        assert_eq!(fused, paths == PathChoice::Fused, "{path:?}");
        // Pinned by its rim, the membrane sags at the hub and holds: every spoke within 2 % of
        // its length (rigid constraints, gravity only).
        let s = chiffon::quality::stretch(&drum, &x);
        eprintln!(
            "fan of 100 pinned by its rim, {path:?}: stretch mean/p99/max {s:?}, hub at y {}",
            x[0].y
        );
        assert!(x[0].y < 1.0 && x[0].y > 0.9, "the hub is at {}", x[0].y);
        assert!(s.max <= 1.02, "{s:?}");
    }
}

/// A UV sphere's poles (48 triangles each) and a cone's apex (96): both keep their shape while
/// they fall, on either path.
#[test]
fn a_uv_spheres_poles_and_a_cones_apex_simulate() {
    for (name, c) in [
        ("uv sphere", cloth(uv_sphere(12, 48), Pinning::None)),
        ("cone", cloth(cone(96), Pinning::None)),
    ] {
        assert_bounded(name, &c);
        for paths in [PathChoice::Global, PathChoice::Fused] {
            let (path, x) = run(Backend::Cpu, paths, &c, 30);
            let s = chiffon::quality::stretch(&c, &x);
            eprintln!("{name}, {path:?}: stretch {s:?}");
            assert!(x.iter().all(|p| p.is_finite()), "{name}");
            assert!(s.max <= 1.05 && s.mean >= 0.98, "{name}: {s:?}");
            let fell = c.positions()[0].y - x[0].y;
            assert!(
                fell > 0.5 * 0.5 * 9.81 * 0.25,
                "{name} fell only {fell} m in 0.5 s"
            );
        }
    }
}

/// GPU = CPU (bit for bit on llvmpipe) for two fans beside a grid in one world, on each path:
/// the serial colors (the two fans' merged, on the global path) run the same on both backends,
/// in the per-color kernels and the fused one.
#[test]
fn fans_beside_a_grid_match_on_both_backends() {
    let ctx = common::gpu_or_return!("fans_beside_a_grid_match_on_both_backends");
    let drum = cloth(fan(80), rim(80));
    assert_bounded("fan of 80", &drum);
    let sheet = ClothBuilder::grid(16, 16)
        .spacing(0.03)
        .layout(Layout::Flat { height: 1.5 })
        .build()
        .unwrap();
    for paths in [PathChoice::Global, PathChoice::Fused] {
        let mut ends = Vec::new();
        for backend in [Backend::Gpu(&ctx), Backend::Cpu] {
            let config = WorldConfig {
                paths,
                ..WorldConfig::default()
            };
            let mut world = World::new(backend, SolverParams::default(), config).unwrap();
            let a = world.add(&drum, ClothOptions::default()).unwrap();
            let b = world.add(&sheet, ClothOptions::default()).unwrap();
            // A second fan: on the global path the two fans' serial colors merge.
            let c = world.add(&drum, ClothOptions::default()).unwrap();
            for k in 0..60 {
                world
                    .step(if k % 2 == 0 { 1.0 / 60.0 } else { 1.0 / 75.0 })
                    .unwrap();
            }
            let fused = paths == PathChoice::Fused
                && (ctx.fuses_cloths() || matches!(backend, Backend::Cpu));
            for h in [a, b, c] {
                let path = world.path(h).unwrap();
                assert_eq!(matches!(path, ClothPath::Fused { .. }), fused, "{path:?}");
            }
            let mut x = world.positions(a).unwrap();
            x.extend(world.positions(b).unwrap());
            x.extend(world.positions(c).unwrap());
            ends.push(x);
        }
        let what = format!("fans beside a grid, {paths:?}");
        common::assert_twins(&ctx, &what, &ends[0], &ends[1], drum.size());
    }
}
