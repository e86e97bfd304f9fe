//! The scenes chiffon's tools share, each defined once: the benchmark's standard, capes, heap
//! and colliders scenes, the demo's scenes (cloth, flags, heap, character, table: the native
//! demo and the web page build them here) and the integrator study's cloth scene. Where the
//! benchmark and the demo show the same scene (the heap), both build it here. The irregular
//! sheet (random points, Delaunay) needs the `tools` feature's crates.
//!
//! One file a scene: `bench.rs` (the benchmark's standard, capes and colliders scenes),
//! `demo.rs` (the demo's catalogue: what each scene starts with, and its motion), `flags.rs`,
//! `heap.rs`, `table.rs`, `walker.rs` (the character: the figure's rig and its cape),
//! `study.rs` (the integrator study's), and `solids.rs` (the colliders' drawn meshes). Every
//! item is re-exported here: `scenes::flag_field`, `scenes::DemoScene`, ...

pub mod solids;

use std::f32::consts::{PI, TAU};

use glam::{Affine3A, Quat, Vec2, Vec3};

use crate::Collider;
use crate::cloth::Cloth;
use crate::constraint::ConstraintKind;
use crate::contact::Pose;
use crate::error::Result;
use crate::geometry::{TriangleMesh, UvLayer};
use crate::integrator::Integrator;
use crate::params::{Compliance, Projection, SelfCollision, SolverParams, Substeps};
use crate::{ClothBuilder, Layout, Membrane, Pinning};

mod bench;
mod demo;
mod flags;
mod heap;
mod study;
mod table;
mod walker;

pub use bench::*;
pub use demo::*;
pub use flags::*;
pub use heap::*;
pub use study::*;
pub use table::*;
pub use walker::*;
