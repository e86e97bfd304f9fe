//! The scenes chiffon's tools share, each defined once: the benchmark's standard scene, the
//! demo's scene and the integrator study's cloth scene.

use glam::Vec3;

use crate::Collider;
use crate::cloth::{Cloth, ConstraintKind};
use crate::error::Result;
use crate::integrator::Integrator;
use crate::params::{Compliance, Projection, SolverParams, Substeps};
use crate::{ClothBuilder, Layout, Pinning};

/// Frame time of the standard scene (s): 60 fps.
pub const STANDARD_DT: f64 = 1.0 / 60.0;

/// The benchmark's standard scene, so results compare with other cloth solvers: an N×N grid
/// over 1 m × 1 m lying flat at y = 0, the two corners of one edge pinned, 0.2 kg, with the
/// constraint kinds in `kinds` (structural, shear, bend) at stiffness 1.
pub fn standard_cloth(n: u32, kinds: [bool; 3]) -> Result<Cloth> {
    let mut b = ClothBuilder::grid(n, n)
        .spacing(1.0 / n.saturating_sub(1).max(1) as f32)
        .total_mass(0.2)
        .layout(Layout::Flat { height: 0.0 })
        .pinning(Pinning::Corners);
    for (kind, on) in ConstraintKind::ALL.into_iter().zip(kinds) {
        b = b.constraint(kind, on);
    }
    b.build()
}

/// One cape of the many-cloths scene: `columns`×`rows` particles, 0.6 m wide (rows at the same
/// spacing), 0.15 kg,
/// lying flat at y = 1.5 m and pinned along its first row (the collar), so it swings down.
pub fn cape(columns: u32, rows: u32) -> Result<Cloth> {
    ClothBuilder::grid(columns, rows)
        .spacing(0.6 / columns.saturating_sub(1).max(1) as f32)
        .total_mass(0.15)
        .layout(Layout::Flat { height: 1.5 })
        .pinning(Pinning::Edge)
        .build()
}

/// Where cape `k` of `count` hangs: a square field, one cape per square metre.
pub fn cape_position(k: usize, count: usize) -> Vec3 {
    let side = (count as f64).sqrt().ceil().max(1.0) as usize;
    let (i, j) = (k % side, k / side);
    let centre = (side as f32 - 1.0) / 2.0;
    Vec3::new(i as f32 - centre, 0.0, j as f32 - centre)
}

/// What the demo shows: one cloth (the grid, or a mesh), or many (the demo holds either as one
/// [`crate::World`]). Adding a scene: its variant here and in the names below, its builder in
/// this file, and its arms in `tools/demo/scene.rs` (which says what else).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DemoScene {
    /// One cloth held by two corners falling onto a sphere ([`demo_cloth`]), or a mesh.
    #[default]
    Cloth,
    /// A field of flags in the wind, one [`crate::World`] ([`flag_field`]).
    Flags,
}

crate::names::named_enum!(DemoScene "scene" {
    Cloth => "cloth",
    Flags => "flags",
});

/// Particles of one flag of [`flag_field`]: columns along the fly, rows down the pole.
pub const FLAG_PARTICLES: (u32, u32) = (32, 20);

/// The demo's many-cloths scene: `side`×`side` flags of [`FLAG_PARTICLES`] (0.9 m × 0.57 m,
/// 0.1 kg), each held along its pole (its first column), tops at 2.2 m, one per 1.4 m square,
/// each turned its own way; every other flag is of a softer, stretchier cloth (its own
/// material).
pub fn flag_field(side: u32) -> Result<Vec<(Cloth, crate::world::ClothOptions)>> {
    let (columns, rows) = FLAG_PARTICLES;
    let flag = ClothBuilder::grid(columns, rows)
        .spacing(0.9 / (columns - 1) as f32)
        .total_mass(0.1)
        .layout(Layout::Hanging { top: 0.0 })
        .pinning(Pinning::List((0..rows).map(|r| r * columns).collect()))
        .build()?;
    let soft = Compliance {
        stretch: 2.0e-3,
        shear: 1.0e-2,
        bend: 0.1,
    };
    let centre = (side as f32 - 1.0) / 2.0;
    let mut out = Vec::with_capacity((side * side) as usize);
    for k in 0..side * side {
        let (i, j) = ((k % side) as f32, (k / side) as f32);
        // A turn that differs from flag to flag without looking random.
        let turn = ((k * 37) % 11) as f32 / 11.0 - 0.5;
        let transform = glam::Affine3A::from_rotation_translation(
            glam::Quat::from_rotation_y(turn),
            Vec3::new((i - centre) * 1.4, 2.2, (j - centre) * 1.4),
        );
        let mut options = crate::world::ClothOptions::new().transform(transform);
        if k % 2 == 1 {
            options = options.compliance(soft);
        }
        out.push((flag.clone(), options));
    }
    Ok(out)
}

/// The standard scene's parameters: the library's defaults (gravity −9.81 m/s², damping 0.5/s,
/// no colliders).
pub fn standard_params() -> SolverParams {
    SolverParams::default()
}

/// The demo's cloth: `grid`², 1 m wide, 0.2 kg, flat at y = 1 m, two corners pinned (or none).
pub fn demo_cloth(grid: u32, corners_pinned: bool) -> Result<Cloth> {
    ClothBuilder::grid(grid, grid)
        .layout(Layout::Flat { height: 1.0 })
        .pinning(if corners_pinned {
            Pinning::Corners
        } else {
            Pinning::None
        })
        .build()
}

/// A sphere the demo shows and moves (centre and radius, m).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DemoSphere {
    /// Centre (m).
    pub center: Vec3,
    /// Radius (m).
    pub radius: f32,
}

/// The demo's collider sphere, under the falling cloth.
pub const DEMO_SPHERE: DemoSphere = DemoSphere {
    center: Vec3::new(0.0, 0.45, 0.1),
    radius: 0.28,
};

/// Friction coefficient of the demo's ground and sphere.
pub const DEMO_FRICTION: f32 = 0.5;

/// The demo's colliders: the ground at `ground` (m) and the sphere, each when given.
pub fn demo_colliders(ground: Option<f32>, sphere: Option<DemoSphere>) -> Vec<Collider> {
    let ground = ground.map(Collider::ground);
    let sphere = sphere.map(|s| Collider::sphere(s.center, s.radius));
    ground
        .into_iter()
        .chain(sphere)
        .map(|c| c.friction(DEMO_FRICTION))
        .collect()
}

/// The demo's parameters: the library's defaults with the sphere and the ground at y = 0.
pub fn demo_params() -> SolverParams {
    SolverParams {
        colliders: demo_colliders(Some(0.0), Some(DEMO_SPHERE)),
        ..SolverParams::default()
    }
}

/// chiffon's settings before XPBD, kept for comparisons (the integrator study's cloth, the
/// quality tables): 1 substep × `iterations`, rigid constraints projected along the current
/// bond (Jakobsen), no tethers.
pub fn pbd_params(iterations: u32) -> SolverParams {
    SolverParams {
        iterations,
        substeps: Substeps::Fixed(1),
        compliance: Compliance::RIGID,
        projection: Projection::Jakobsen,
        tethers: None,
        ..SolverParams::default()
    }
}

/// The integrator study's cloth: a hanging 32×32 cloth, corners pinned, swinging at 1.5 m/s
/// into a sphere behind it, advanced by `integrator` with one step per frame
/// ([`pbd_params`]`(10)`), so each frame's dt reaches the integrator unchanged.
pub fn study_cloth(integrator: Integrator) -> Result<(Cloth, SolverParams)> {
    let cloth = ClothBuilder::grid(32, 32)
        .pinning(Pinning::Corners)
        .velocity(Vec3::new(0.0, 0.0, -1.5))
        .build()?;
    let params = SolverParams {
        integrator,
        colliders: vec![Collider::sphere(Vec3::new(0.0, 0.45, -0.4), 0.3)],
        ..pbd_params(10)
    };
    Ok((cloth, params))
}
