//! Contact: what the cloth touches. [`Collider`]s are kinematic bodies of any number and shape
//! (spheres, tapered capsules, planes, boxes, triangle meshes as [`DistanceGrid`]s), moved by
//! the caller between frames and interpolated across the substeps; each has a thickness,
//! Coulomb friction and restitution. Self-collision keeps a cloth (and, in a world, every
//! cloth) from passing through itself (`SolverParams::self_collision`).
//!
//! The kernels: `shaders/colliders.wgsl` + `shaders/collide.wgsl` (CPU twins
//! `src/cpu/colliders.rs`, `src/cpu/collide.rs`) and, inside the fused kernel, the same functions.

pub(crate) mod broadphase;
mod collider;
pub(crate) mod edges;
mod grid;

pub use collider::{
    Collider, DEFAULT_FRICTION, DEFAULT_RESTITUTION, DEFAULT_THICKNESS, MAX_FRICTION,
    MAX_THICKNESS, OPEN_MESH_MIN_THICKNESS_CELLS, Pose, Shape, THIN_CAPSULE_SPACINGS,
};
pub use grid::{BAND_CELLS, DEFAULT_RESOLUTION, DistanceGrid, MAX_RESOLUTION};

/// A box's eight corners in units of its half extents: corner `k` has x = +1 when bit 0 of `k`
/// is set (else −1), y by bit 1, z by bit 2. The kernels number them alike
/// (`box_corner` in `shaders/colliders.wgsl`).
pub const BOX_CORNERS: [glam::Vec3; 8] = {
    let mut out = [glam::Vec3::ZERO; 8];
    let mut k = 0;
    while k < 8 {
        let x = if k & 1 != 0 { 1.0 } else { -1.0 };
        let y = if k & 2 != 0 { 1.0 } else { -1.0 };
        let z = if k & 4 != 0 { 1.0 } else { -1.0 };
        out[k] = glam::Vec3::new(x, y, z);
        k += 1;
    }
    out
};

/// A box's twelve edges, as pairs of [`BOX_CORNERS`] indices (the corners that differ in one
/// bit): four along x, four along y, four along z.
pub const BOX_EDGES: [[usize; 2]; 12] = [
    [0, 1],
    [2, 3],
    [4, 5],
    [6, 7],
    [0, 2],
    [1, 3],
    [4, 6],
    [5, 7],
    [0, 4],
    [1, 5],
    [2, 6],
    [3, 7],
];
