//! The benchmark's scenes: the standard sheet (a grid, or an irregular Delaunay sheet), the
//! capes, and the colliders scene's sheet and bodies (a sphere, a turned table, a bed of
//! capsules, a bumpy sphere as a mesh).

use super::*;

/// Frame time of the standard scene (s): 60 fps.
pub const STANDARD_DT: f64 = 1.0 / 60.0;

/// The benchmark's standard scene, so results compare with other cloth solvers: an N×N grid
/// over 1 m × 1 m lying flat at y = 0, the two corners of one edge pinned, 0.2 kg, with the
/// constraint kinds in `kinds` (structural, shear, bend) at stiffness 1.
pub fn standard_cloth(n: u32, kinds: [bool; 3]) -> Result<Cloth> {
    standard_builder(n, kinds).build()
}

/// [`standard_cloth`]'s builder, for a variant of it (another [`crate::Membrane`]).
pub fn standard_builder(n: u32, kinds: [bool; 3]) -> ClothBuilder {
    let mut b = ClothBuilder::grid(n, n)
        .spacing(1.0 / n.saturating_sub(1).max(1) as f32)
        .total_mass(0.2)
        .layout(Layout::Flat { height: 0.0 })
        .pinning(Pinning::Corners);
    for (kind, on) in ConstraintKind::ALL.into_iter().zip(kinds) {
        b = b.constraint(kind, on);
    }
    b
}

/// The standard scene's sheet as an irregular mesh: about `n`×`n` particles over the same
/// 1 m × 1 m at y = 0, a Delaunay triangulation of jittered points (a grid's points each moved
/// by up to 0.35 of a spacing in x and z; the border's points evenly spaced along it, so the
/// square keeps its corners), 0.2 kg, the two corners of the edge at z = −0.5 pinned, the
/// constraint kinds in `kinds` (a mesh's shear constraints are its quads' diagonals, so a
/// triangulation has none). The same seed gives the same mesh. Not a grid: its vertices
/// have 4 to 9 neighbours and its edges differ in length by up to 3×, which is what a garment
/// from a modelling tool looks like to the solver.
#[cfg(feature = "tools")]
pub fn irregular_cloth(n: u32, kinds: [bool; 3]) -> Result<Cloth> {
    irregular_builder(n, kinds).build()
}

/// [`irregular_cloth`]'s builder, for a variant of it (another [`crate::Membrane`]).
#[cfg(feature = "tools")]
pub fn irregular_builder(n: u32, kinds: [bool; 3]) -> ClothBuilder {
    use rand::{Rng, SeedableRng};
    let n = n.max(2);
    let h = 1.0 / (n - 1) as f64;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0x5eed_0024);
    let mut points = Vec::with_capacity((n * n) as usize);
    for r in 0..n {
        for c in 0..n {
            let border = r == 0 || c == 0 || r == n - 1 || c == n - 1;
            let (mut x, mut z) = (c as f64 * h, r as f64 * h);
            if !border {
                x += rng.random_range(-0.35..0.35) * h;
                z += rng.random_range(-0.35..0.35) * h;
            }
            points.push(delaunator::Point {
                x: x - 0.5,
                y: z - 0.5,
            });
        }
    }
    let triangulation = delaunator::triangulate(&points);
    let positions = points
        .iter()
        .map(|p| Vec3::new(p.x as f32, 0.0, p.y as f32))
        .collect();
    let triangles = triangulation
        .triangles
        .chunks_exact(3)
        .map(|t| [t[0] as u32, t[1] as u32, t[2] as u32])
        .collect();
    let corner = |x: f32| Pinning::Box {
        min: Vec3::new(x, 0.0, -0.5) - Vec3::splat(1e-4),
        max: Vec3::new(x, 0.0, -0.5) + Vec3::splat(1e-4),
    };
    let mut b = ClothBuilder::mesh(TriangleMesh::new("irregular", positions, triangles))
        .total_mass(0.2)
        .pinning(corner(-0.5))
        .pin(corner(0.5));
    for (kind, on) in ConstraintKind::ALL.into_iter().zip(kinds) {
        b = b.constraint(kind, on);
    }
    b
}

/// One cape of the many-cloths scene: `columns`×`rows` particles, 0.6 m wide (rows at the same
/// spacing), 0.15 kg,
/// lying flat at y = 1.5 m and pinned along its first row (the collar), so it swings down.
pub fn cape(columns: u32, rows: u32) -> Result<Cloth> {
    cape_builder(columns, rows)
        .layout(Layout::Flat { height: 1.5 })
        .build()
}

/// The same cape hanging straight down from its collar, at rest from the start (the capes
/// bench's sleepers).
pub fn hanging_cape(columns: u32, rows: u32) -> Result<Cloth> {
    cape_builder(columns, rows)
        .layout(Layout::Hanging { top: 1.5 })
        .build()
}

/// A cape's grid, mass and collar, before its layout.
fn cape_builder(columns: u32, rows: u32) -> ClothBuilder {
    ClothBuilder::grid(columns, rows)
        .spacing(0.6 / columns.saturating_sub(1).max(1) as f32)
        .total_mass(0.15)
        .pinning(Pinning::Edge)
}

/// Where cape `k` of `count` hangs: a square field, one cape per square metre.
pub fn cape_position(k: usize, count: usize) -> Vec3 {
    let side = (count as f64).sqrt().ceil().max(1.0) as usize;
    let (i, j) = (k % side, k / side);
    let centre = (side as f32 - 1.0) / 2.0;
    Vec3::new(i as f32 - centre, 0.0, j as f32 - centre)
}

/// The standard scene's parameters: the library's defaults (gravity −9.81 m/s², damping 0.5/s,
/// no colliders).
pub fn standard_params() -> SolverParams {
    SolverParams::default()
}

/// The colliders benchmark's sheet: `n`×`n` over 1 m × 1 m, 0.2 kg, flat at 0.9 m and free,
/// falling onto the bodies below it ([`collider_sphere`], [`capsule_field`],
/// [`bumpy_sphere`]), whose tops are at 0.8 m.
pub fn collider_sheet(n: u32) -> Result<Cloth> {
    ClothBuilder::grid(n, n)
        .spacing(1.0 / n.saturating_sub(1).max(1) as f32)
        .total_mass(0.2)
        .layout(Layout::Flat { height: 0.9 })
        .pinning(Pinning::None)
        .build()
}

/// Centre of the colliders benchmark's round body (m): the sphere's, and the mesh's.
pub const BODY_CENTER: Vec3 = Vec3::new(0.0, 0.45, 0.0);
/// Radius of the colliders benchmark's round body (m): its top is at 0.8 m.
pub const BODY_RADIUS: f32 = 0.35;

/// One sphere under the colliders benchmark's sheet.
pub fn collider_sphere() -> Collider {
    Collider::sphere(BODY_CENTER, BODY_RADIUS).friction(CONTACT_FRICTION)
}

/// A box under the colliders benchmark's sheet, a small table 0.6 m × 0.4 m turned 17° about
/// the vertical, its top at 0.8 m like the round body's: its corners and edges lie under the
/// cloth (the box-edge contact kernels' work).
pub fn collider_box() -> Collider {
    Collider::cuboid(
        Vec3::new(0.0, 0.4, 0.0),
        Vec3::new(0.3, 0.4, 0.2),
        glam::Quat::from_rotation_y(17f32.to_radians()),
    )
    .friction(CONTACT_FRICTION)
}

/// `side`×`side` upright tapered capsules (posts, 4 cm across at the foot, 3 cm at the top)
/// from the floor to 0.8 m, spread evenly under the colliders benchmark's 1 m sheet: a bed of
/// posts it drapes over. The 64 capsules are `side = 8`.
pub fn capsule_field(side: u32) -> Vec<Collider> {
    let step = 0.9 / side.max(1) as f32;
    let centre = (side as f32 - 1.0) / 2.0;
    let (top, r_foot, r_top) = (0.8, 0.04, 0.03);
    (0..side * side)
        .map(|k| {
            let (i, j) = ((k % side) as f32, (k / side) as f32);
            let at = Vec3::new((i - centre) * step, 0.0, (j - centre) * step);
            Collider::capsule(at, at + Vec3::Y * (top - r_top), r_foot, r_top)
                .friction(CONTACT_FRICTION)
        })
        .collect()
}

/// A closed, bumpy UV sphere of radius [`BODY_RADIUS`] about [`BODY_CENTER`]: `stacks` rings
/// from pole to pole of `slices` vertices each, one vertex at each pole (welded: no slivers
/// meet there), `2 · slices · (stacks − 1)` triangles. Its radius varies by ±6 % in a pattern
/// of 8 × 12 bumps, so the surface is not a sphere a grid could get right by luck.
/// `bumpy_sphere(160, 320)` has 101 760 triangles.
pub fn bumpy_sphere(stacks: u32, slices: u32) -> TriangleMesh {
    let radius = |theta: f32, phi: f32| {
        BODY_RADIUS * (1.0 + 0.06 * (8.0 * theta).sin() * (12.0 * phi).sin() * theta.sin())
    };
    uv_surface("bumpy sphere", stacks, slices, |theta, phi| {
        BODY_CENTER + radius(theta, phi) * polar_direction(theta, phi)
    })
}

/// The unit direction at `theta` from +y and `phi` about it (from +x towards +z).
pub(super) fn polar_direction(theta: f32, phi: f32) -> Vec3 {
    Vec3::new(
        theta.sin() * phi.cos(),
        theta.cos(),
        theta.sin() * phi.sin(),
    )
}

/// A closed surface with a sphere's connectivity: `point(theta, phi)` at `stacks` − 1 rings
/// of `slices` vertices (theta from +y, phi about it), one vertex at each pole (welded: no
/// slivers meet there), `2 · slices · (stacks − 1)` triangles, counter-clockwise seen from
/// outside where the surface is star-shaped about the point the directions start from.
pub(super) fn uv_surface(
    name: &str,
    stacks: u32,
    slices: u32,
    point: impl Fn(f32, f32) -> Vec3,
) -> TriangleMesh {
    let (stacks, slices) = (stacks.max(2), slices.max(3));
    let mut positions = vec![point(0.0, 0.0)];
    for i in 1..stacks {
        let theta = PI * i as f32 / stacks as f32;
        for j in 0..slices {
            positions.push(point(theta, TAU * j as f32 / slices as f32));
        }
    }
    let south = positions.len() as u32;
    positions.push(point(PI, 0.0));
    // Vertex j of ring i (1 ..= stacks − 1), around the ring.
    let ring = |i: u32, j: u32| 1 + (i - 1) * slices + j % slices;
    let mut triangles = Vec::with_capacity((2 * slices * (stacks - 1)) as usize);
    for j in 0..slices {
        // Counter-clockwise seen from outside.
        triangles.push([0, ring(1, j + 1), ring(1, j)]);
        triangles.push([south, ring(stacks - 1, j), ring(stacks - 1, j + 1)]);
    }
    for i in 1..stacks - 1 {
        for j in 0..slices {
            let (a, b) = (ring(i, j), ring(i, j + 1));
            let (c, d) = (ring(i + 1, j), ring(i + 1, j + 1));
            triangles.push([a, b, c]);
            triangles.push([b, d, c]);
        }
    }
    TriangleMesh::new(name, positions, triangles)
}

/// Rings and slices of the colliders benchmark's mesh body at full size: 101 760 triangles.
pub const BUMPY_SPHERE_FULL: (u32, u32) = (160, 320);
