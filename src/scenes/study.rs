//! The integrator study's scene and its PBD baseline's parameters.

use super::*;

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
