//! The scenes chiffon's tools share, each defined once: the benchmark's standard scene, the
//! demo's scene and the integrator study's cloth scene.

use glam::Vec3;

use crate::cloth::{Cloth, ClothBuilder, ConstraintKind, Layout, Pinning};
use crate::error::Result;
use crate::integrator::Integrator;
use crate::params::{SolverParams, Sphere};

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
        b = b.constraint(kind, on.then_some(1.0));
    }
    b.build()
}

/// The standard scene's parameters: the library's defaults (gravity −9.81 m/s², damping 0.5/s,
/// no colliders) with `iterations` × `substeps`.
pub fn standard_params(iterations: u32, substeps: u32) -> SolverParams {
    SolverParams {
        iterations,
        substeps,
        ..SolverParams::default()
    }
}

/// Stiffness of the demo's structural, shear and bend constraints (bend softer, so it folds).
pub const DEMO_STIFFNESS: [f32; 3] = [1.0, 1.0, 0.6];

/// The demo's cloth: `grid`², 1 m wide, flat at y = 1 m, two corners pinned (or none).
pub fn demo_cloth(grid: u32, stiffness: [f32; 3], corners_pinned: bool) -> Result<Cloth> {
    let mut b = ClothBuilder::grid(grid, grid)
        .layout(Layout::Flat { height: 1.0 })
        .pinning(if corners_pinned {
            Pinning::Corners
        } else {
            Pinning::None
        });
    for (kind, s) in ConstraintKind::ALL.into_iter().zip(stiffness) {
        b = b.constraint(kind, Some(s));
    }
    b.build()
}

/// The demo's collider sphere, under the falling cloth.
pub const DEMO_SPHERE: Sphere = Sphere {
    center: Vec3::new(0.0, 0.45, 0.1),
    radius: 0.28,
};

/// The demo's parameters: 2 substeps × 10 iterations, the sphere, ground at y = 0, friction 0.5.
pub fn demo_params() -> SolverParams {
    SolverParams {
        substeps: 2,
        ground: Some(0.0),
        sphere: Some(DEMO_SPHERE),
        friction: 0.5,
        ..SolverParams::default()
    }
}

/// The integrator study's cloth: a hanging 32×32 cloth, corners pinned, swinging at 1.5 m/s
/// into a sphere behind it, advanced by `integrator`.
pub fn study_cloth(integrator: Integrator) -> Result<(Cloth, SolverParams)> {
    let cloth = ClothBuilder::grid(32, 32)
        .pinning(Pinning::Corners)
        .velocity(Vec3::new(0.0, 0.0, -1.5))
        .build()?;
    let params = SolverParams {
        integrator,
        sphere: Some(Sphere {
            center: Vec3::new(0.0, 0.45, -0.4),
            radius: 0.3,
        }),
        ..SolverParams::default()
    };
    Ok((cloth, params))
}
