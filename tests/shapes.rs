//! Every shape as faithful as the grid (issue 24): coarse levels for meshes and ropes
//! (src/hierarchy/graph.rs). The slack chain's catenary is in tests/reference.rs;
//! GPU agreement on a mesh with levels is in tests/conformance.rs.

use chiffon::quality::{Stretch, stretch};
use chiffon::tools::scenes::irregular_cloth;
use chiffon::{Backend, ClothBuilder, Solver, SolverParams, TriangleMesh};
use glam::Vec3;

fn settle(cloth: &chiffon::Cloth, params: SolverParams, frames: usize) -> (Solver, Stretch) {
    let mut s = Solver::new(Backend::Cpu, cloth, params).unwrap();
    for _ in 0..frames {
        s.step(1.0 / 60.0).unwrap();
    }
    let st = stretch(cloth, &s.positions().unwrap());
    (s, st)
}

#[test]
fn an_irregular_mesh_gets_coarse_levels_that_hold_it_to_its_length() {
    // The standard scene as a Delaunay triangulation of jittered points, 192² particles (the
    // size where one sweep per substep no longer carries the pins' pull across the sheet).
    let cloth = irregular_cloth(192, [true; 3]).unwrap();
    assert!(cloth.grid().is_none());
    let on = SolverParams::default();
    let (mut solver, with) = settle(&cloth, on.clone(), 60);
    let levels = solver.schedule(1.0 / 60.0).unwrap().levels.levels;
    let (_, without) = settle(
        &cloth,
        SolverParams {
            coarse_levels: false,
            ..on
        },
        60,
    );
    eprintln!("192² irregular, frame 60: {levels} levels {with:?}; without {without:?}");
    assert!(levels >= 2, "{levels} levels");
    // Measured at frame 60: mean 1.0072, p99 1.087, max 1.34 with levels; 1.0106, 1.095, 1.29
    // without (1.0088 / 1.102 / 1.58 and 1.0108 / 1.100 / 1.50 before the tethers and the
    // levels' limits on a flat convex sheet were straight lines; 1.035, 1.52, 6.6 before
    // SHAKE's fallback was fixed: see tests/contact.rs).
    assert!(with.mean < 1.012, "{with:?}");
    assert!(
        with.mean - 1.0 < 0.9 * (without.mean - 1.0),
        "levels did not help: {with:?} against {without:?}"
    );
}

/// Issue 44: the irregular sheet's drape leaves a few edges stretched that one sweep a substep
/// does not hold (1.29 × in frame 35 at the defaults, where the grid stays at 1.12; the worst
/// are flat edges along the pull, not locked ones: a membrane per triangle did no better,
/// docs/quality.md). The strain limit in every frame (`LimitFrames::All`) at 1.05 ends every
/// frame within it: measured 1.080 at worst over frames 5–70, 1.045 after 70. Read every
/// frame: the test read every fifth while the limit ran four plain sweeps a substep, and
/// passed at 540 Hz with 1.080 where every frame gave 1.176.
#[test]
fn a_strain_limit_in_every_frame_holds_an_irregular_sheets_drape() {
    use chiffon::params::LimitFrames;
    let cloth = irregular_cloth(192, [true; 3]).unwrap();
    // The worst edge of every frame from 5 to 70, and the stretch after frame 70.
    let drape = |params: SolverParams| {
        let mut s = Solver::new(Backend::Cpu, &cloth, params).unwrap();
        let mut worst: f64 = 0.0;
        let mut last = None;
        for frame in 1..=70 {
            s.step(1.0 / 60.0).unwrap();
            if frame >= 5 {
                let st = stretch(&cloth, &s.positions().unwrap());
                worst = worst.max(st.max);
                last = Some(st);
            }
        }
        (worst, last.unwrap())
    };
    let (worst_default, _) = drape(SolverParams::default());
    let (worst, last) = drape(SolverParams {
        strain_limit: Some(1.05),
        strain_limit_frames: LimitFrames::All,
        ..SolverParams::default()
    });
    eprintln!("192² irregular: worst {worst_default:.3} by default; limited {worst:.3}, {last:?}");
    // Without contact the default runs no limit, and the sheet stretches (1.291 measured).
    assert!(worst_default > 1.15, "{worst_default}");
    assert!(
        worst < 1.10,
        "worst edge {worst} with the limit in every frame"
    );
    // At rest issue 44 asks ≤ 1.05 (measured 1.045: the sweeps aim at 1.045).
    assert!(last.max <= 1.05, "{last:?}");
}

/// Regression: the irregular sheet's second row hung 5.7 mm below the line between its two
/// pins where its rest shape puts it 3.8 mm below, its edges to the first row stretched up to
/// 1.58×, whatever the iterations: the tethers, a few tens of micrometres too long from the
/// unfolding, left it that much room (`Tethers::build` now takes the straight line on a flat
/// sheet with a convex border).
#[test]
fn an_irregular_sheets_top_rows_hang_where_their_rest_shape_puts_them() {
    let cloth = irregular_cloth(192, [true; 3]).unwrap();
    let (mut solver, _) = settle(&cloth, SolverParams::default(), 60);
    let x = solver.positions().unwrap();
    let rest = cloth.positions();
    // Edges with both ends within two spacings of the pinned border (z = −0.5).
    let near_top = 2.0 / 191.0;
    let worst = cloth
        .structural_constraints()
        .filter(|c| rest[c.i as usize].z + 0.5 < near_top && rest[c.j as usize].z + 0.5 < near_top)
        .map(|c| x[c.i as usize].distance(x[c.j as usize]) / c.rest)
        .fold(0.0f32, f32::max);
    // Measured: 1.02 (1.58 before).
    assert!(
        worst < 1.1,
        "an edge by the pinned border is stretched {worst}×"
    );
}

#[test]
fn a_mesh_of_disconnected_pieces_hangs_with_coarse_levels() {
    // Two squares of one mesh that share nothing, each pinned by a corner: each piece hangs
    // from its own pin (a level that joined the pieces would hold one up by the other).
    let square = ClothBuilder::grid(32, 32).spacing(0.02).build().unwrap();
    let n = square.particle_count() as u32;
    let mut positions = square.positions().to_vec();
    positions.extend(square.positions().iter().map(|p| *p + Vec3::X));
    let mut triangles = square.triangles().to_vec();
    triangles.extend(square.triangles().iter().map(|t| t.map(|v| v + n)));
    let cloth = ClothBuilder::mesh(TriangleMesh::new("two squares", positions, triangles))
        .pinning(chiffon::Pinning::List(vec![0, n]))
        .build()
        .unwrap();
    let (mut solver, st) = settle(&cloth, SolverParams::default(), 120);
    assert!(solver.schedule(1.0 / 60.0).unwrap().levels.levels > 0);
    let x = solver.positions().unwrap();
    assert!(x.iter().all(|p| p.is_finite()));
    assert!(st.max < 1.1, "{st:?}");
    // Each piece hangs from its own pin: every particle within the piece's diagonal of it.
    let reach = 31.0 * 0.02 * std::f32::consts::SQRT_2 * 1.05;
    for (piece, pin) in [(0..n as usize, 0), (n as usize..2 * n as usize, n as usize)] {
        assert!(
            piece.clone().all(|k| x[k].distance(x[pin]) < reach),
            "a particle of the piece pinned at {pin} hangs beyond its reach"
        );
        assert!(
            x[piece.end - 1].y < x[pin].y - 0.3,
            "piece at {pin} did not fall"
        );
    }
}

#[test]
fn a_rope_of_two_points_and_a_tiny_mesh_run_without_levels() {
    let rope = ClothBuilder::rope(vec![Vec3::ZERO, Vec3::X * 0.1])
        .pinning(chiffon::Pinning::List(vec![0]))
        .build()
        .unwrap();
    let (mut s, _) = settle(&rope, SolverParams::default(), 30);
    assert_eq!(s.schedule(1.0 / 60.0).unwrap().levels.levels, 0);
    let x = s.positions().unwrap();
    assert!((x[0].distance(x[1]) - 0.1).abs() < 1e-4, "{x:?}");
    let triangle = TriangleMesh::new(
        "one triangle",
        vec![Vec3::ZERO, Vec3::X, Vec3::Z],
        vec![[0, 1, 2]],
    );
    let cloth = ClothBuilder::mesh(triangle).build().unwrap();
    let (mut s, _) = settle(&cloth, SolverParams::default(), 10);
    assert_eq!(s.schedule(1.0 / 60.0).unwrap().levels.levels, 0);
    assert!(s.positions().unwrap().iter().all(|p| p.is_finite()));
}

#[test]
fn a_square_hung_by_a_corner_hangs_symmetric_about_its_diagonal() {
    // Seed 004's worry: constraints solved in the same order every frame bias the result. A
    // 64² square hung by one corner with its diagonal vertical should stay mirror-symmetric
    // about that diagonal (its triangles, and so its bending stencils, are); only the fixed
    // color order (and rounding) can break the symmetry. Measured after 5 s: mean asymmetry
    // 0.81 mm, the far corner 1.6 mm off the vertical through the pin (1.41 m below it); the
    // membrane's own bias, the same with no bending at all (0.83 / 1.6 mm). The grid's
    // distance bends, rigid in effect, stiffened it in the plane (0.17 / 0.32 mm; rigid
    // stencils give 0.25 / 0.33). A shuffled order (a permutation per sweep, commit 41bedad)
    // did worse then (0.8 mm, a corner wandering ±1.4 mm); reversing the colors every other
    // substep gives 0.75 mm and 0.5 mm. Without tethers the bias is 36 mm.
    let n = 64u32;
    let flat = ClothBuilder::grid(n, n)
        .spacing(1.0 / 63.0)
        .total_mass(0.2)
        .layout(chiffon::Layout::Hanging { top: 0.0 })
        .pinning(chiffon::Pinning::List(vec![0]))
        .build()
        .unwrap();
    let pin = flat.positions()[0];
    let turn = glam::Affine3A::from_translation(pin)
        * glam::Affine3A::from_rotation_z(-std::f32::consts::FRAC_PI_4)
        * glam::Affine3A::from_translation(-pin);
    let cloth = flat.transformed(turn).unwrap();
    let params = SolverParams {
        damping: 2.0,
        ..Default::default()
    };
    let (mut s, _) = settle(&cloth, params, 300);
    let x = s.positions().unwrap();
    // (r, c) mirrors (c, r) across the vertical plane x = pin.x.
    let mut asymmetry = 0.0f32;
    for r in 0..n {
        for c in 0..n {
            let a = x[(r * n + c) as usize] - pin;
            let b = x[(c * n + r) as usize] - pin;
            asymmetry += Vec3::new(a.x + b.x, a.y - b.y, a.z - b.z).length();
        }
    }
    asymmetry /= (n * n) as f32;
    let far = x[(n * n - 1) as usize] - pin;
    eprintln!("asymmetry {asymmetry} m, far corner {far:?}");
    assert!(far.y < -1.4, "the far corner hangs at {far:?}");
    assert!(
        asymmetry < 1e-3 && far.x.abs() < 2e-3,
        "{asymmetry} m, {far:?}"
    );
}

/// A strip 0.4 m × 0.1 m as a triangle mesh (cells cut along alternating diagonals) at
/// `spacing`, 8 g, clamped along x ≤ 2 cm: Peirce's cantilever test of a fabric's bending.
fn cantilever(spacing: f32) -> chiffon::Cloth {
    let (nx, ny) = (
        (0.4 / spacing).round() as u32 + 1,
        (0.1 / spacing).round() as u32 + 1,
    );
    let positions = (0..ny * nx)
        .map(|k| Vec3::new((k % nx) as f32, 0.0, (k / nx) as f32) * spacing)
        .collect();
    let mut triangles = Vec::new();
    for r in 0..ny - 1 {
        for c in 0..nx - 1 {
            let (a, b) = (r * nx + c, r * nx + c + 1);
            let (d, e) = (a + nx, b + nx);
            if (r + c) % 2 == 0 {
                triangles.extend([[a, d, b], [b, d, e]]);
            } else {
                triangles.extend([[a, d, e], [a, e, b]]);
            }
        }
    }
    ClothBuilder::mesh(TriangleMesh::new("strip", positions, triangles))
        .total_mass(0.008)
        .pinning(chiffon::Pinning::Box {
            min: Vec3::splat(-1.0),
            max: Vec3::new(0.0201, 1.0, 1.0),
        })
        .build()
        .unwrap()
}

/// How far (m) past the clamp the strip reaches once it hangs, with a bending stiffness of
/// `stiffness` N·m.
fn reach(spacing: f32, stiffness: f32) -> f32 {
    let cloth = cantilever(spacing);
    let mut params = SolverParams {
        damping: 2.0,
        ..SolverParams::default()
    };
    params.compliance.curvature = 1.0 / stiffness;
    let (mut s, _) = settle(&cloth, params, 240);
    let x = s.positions().unwrap();
    x.iter().map(|p| p.x).fold(f32::MIN, f32::max) - 0.02
}

/// Issue 24's resolution-independent bending: a mesh bends across each interior edge with an
/// isometric stencil whose compliance is the inverse of a stiffness, so the same stiffness is
/// the same fabric at 2 cm and at 1 cm (within 5 %), and a stiffer one reaches further. (Where
/// the solver cannot converge the stiffness, at finer meshes or stiffer fabrics, the cloth is
/// softer than asked: docs/quality.md.)
#[test]
fn a_meshs_bending_stiffness_means_the_same_at_two_resolutions() {
    let (coarse, fine) = (reach(0.02, 2.5e-5), reach(0.01, 2.5e-5));
    assert!(coarse > 0.0 && fine > 0.0, "{coarse} {fine}");
    assert!(
        (coarse - fine).abs() < 0.05 * fine,
        "2 cm: {coarse} m, 1 cm: {fine} m"
    );
    let stiff = reach(0.02, 2.5e-4);
    assert!(stiff > 1.3 * coarse, "stiff {stiff} m, soft {coarse} m");
}
