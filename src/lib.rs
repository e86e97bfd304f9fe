//! # chiffon
//!
//! A cloth solver whose hot loop runs as WGSL compute shaders on wgpu: time-corrected Verlet
//! integration and graph-colored XPBD distance constraints, solved in parallel one color at a
//! time, on any GPU wgpu drives. A CPU reference runs the same kernels in plain Rust, and the
//! tests hold the GPU to it.
//!
//! ```no_run
//! use chiffon::{Backend, ClothBuilder, GpuContext, Pinning, Solver, SolverParams};
//! # fn main() -> chiffon::Result<()> {
//! let cloth = ClothBuilder::grid(128, 128).pinning(Pinning::Corners).build()?;
//! let ctx = GpuContext::new()?;
//! let mut solver = Solver::new(Backend::Gpu(&ctx), &cloth, SolverParams::default())?;
//! solver.step(1.0 / 60.0)?;
//! let positions = solver.positions()?;
//! # Ok(()) }
//! ```
//!
//! - Make a cloth with [`ClothBuilder`]: a grid, a triangle mesh, an OBJ file or a rope. It
//!   becomes a [`Cloth`]: validated, its constraints colored.
//! - Step it with a [`Solver`] on a [`Backend`]: the GPU ([`GpuContext`]) or the CPU
//!   reference. [`SolverParams`] holds every parameter, with units and defaults.
//! - Step many cloths at once in a [`World`] (a [`Solver`] is a world of one).
//! - Read back positions, export them ([`export`]), measure them ([`quality`],
//!   [`conformance`]).
//!
//! How it works, the frame's passes, and where each kernel and its CPU twin live:
//! `docs/architecture.md` in the repository.
//!
//! Features: `tools` (default) adds the `chiffon` command line, the benchmark and the study;
//! `demo` (default) the windowed demo; `serde` derives serialization on the parameter and
//! description types; `internals` makes the kernels' CPU twins, the GPU structs and the shader
//! registry public (for the conformance tests). With `default-features = false` the crate is
//! the solver alone.
#![warn(missing_docs)]

#[macro_use]
mod names;

mod backend;

pub mod builder;
pub mod cloth;
pub mod coloring;
pub mod conformance;
pub mod constraint;
pub mod contact;
pub mod error;
pub mod export;
pub mod files;
pub mod geometry;
pub mod gpu;
pub mod integrator;
pub mod params;
pub mod quality;
pub mod schedule;
pub mod solver;
pub mod tethers;
pub mod world;

// The modules below are public with the `internals` feature and crate-private without. They
// are declared twice, not by a macro: `cargo fmt` does not follow a module a macro declares, so
// these files went unformatted while `cargo fmt --check` passed.
/// The structs shared with WGSL, workgroup grids and buffer sizes.
#[cfg(feature = "internals")]
pub mod config;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod config;
/// The CPU twins of the kernels.
#[cfg(feature = "internals")]
pub mod cpu;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod cpu;
/// The coarse levels of grid cloths.
#[cfg(feature = "internals")]
pub mod hierarchy;
#[cfg(not(feature = "internals"))]
#[allow(dead_code, unused_imports)]
pub(crate) mod hierarchy;

/// README.md's and `docs/*.md`'s Rust code blocks, compiled and run as doc tests.
#[cfg(doctest)]
mod doctests;

/// The demo's, the benchmark's and the study's scenes, shared with the web page (feature
/// `scenes`, which `tools` turns on). Not part of the library's API.
#[cfg(feature = "scenes")]
#[doc(hidden)]
pub mod scenes;

/// The demo's control panel, shared with the web page (feature `panel`, which `demo` turns
/// on). Not part of the library's API.
#[cfg(feature = "panel")]
#[doc(hidden)]
pub mod panel;

#[cfg(feature = "view")]
#[doc(hidden)]
pub mod view;

/// The command line, the benchmark, the study and the demo (features `tools`, `demo`).
#[cfg(feature = "tools")]
#[doc(hidden)]
pub mod tools;

pub use builder::{ClothBuilder, Layout, Mass, Membrane, Pinning};
pub use cloth::{Cloth, ClothDesc, Constraint, ConstraintKind, GridShape, ParticleGroup};
pub use contact::{Collider, DistanceGrid, Pose, Shape};
pub use error::{ChiffonError, DivergenceCause, Result};
pub use geometry::{MeshStats, TriangleMesh};
pub use glam;
pub use gpu::GpuContext;
pub use integrator::Integrator;
pub use params::{Air, SelfCollision, SolverParams};
pub use solver::{Backend, Solver};
pub use world::{ClothHandle, ClothOptions, World, WorldConfig};
