//! Contact: what the cloth touches. [`Collider`]s are kinematic bodies of any number and shape
//! (spheres, tapered capsules, planes, boxes, triangle meshes as [`DistanceGrid`]s), moved by
//! the caller between frames and interpolated across the substeps; each has a thickness,
//! Coulomb friction and restitution. Self-collision keeps a cloth (and, in a world, every
//! cloth) from passing through itself (`SolverParams::self_collision`).
//!
//! The kernels: `shaders/colliders.wgsl` + `shaders/collide.wgsl` (CPU twin
//! `src/cpu/collide.rs`) and, inside the fused kernel, the same functions.

pub(crate) mod broadphase;
mod collider;
mod grid;

pub use collider::{
    Collider, DEFAULT_FRICTION, DEFAULT_RESTITUTION, DEFAULT_THICKNESS, MAX_FRICTION,
    MAX_THICKNESS, Pose, Shape,
};
pub use grid::{BAND_CELLS, DEFAULT_RESOLUTION, DistanceGrid, MAX_RESOLUTION};
