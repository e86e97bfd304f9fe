//! # chiffon
//!
//! A cloth solver whose hot loop runs as WGSL compute shaders on wgpu: time-corrected Verlet
//! integration and graph-colored distance constraints, solved in parallel one color at a time.
//! A CPU reference runs the same kernels in plain Rust, and the tests hold the GPU to it.
//!
//! ```no_run
//! use chiffon::{ClothBuilder, GpuContext, GpuSolver, Pinning, Solver, SolverParams};
//! # fn main() -> chiffon::Result<()> {
//! let cloth = ClothBuilder::grid(128, 128).pinning(Pinning::Corners).build()?;
//! let ctx = GpuContext::new()?;
//! let mut solver = GpuSolver::new(&ctx, &cloth, SolverParams::default())?;
//! solver.step(1.0 / 60.0)?;
//! let positions = solver.positions()?;
//! # Ok(()) }
//! ```
//!
//! Where things are:
//! - [`cloth`]: [`Cloth`] (validated, colored); [`builder`]: [`ClothBuilder`] for grids,
//!   triangle meshes, OBJ files and ropes, one path for all; [`geometry`]: meshes, OBJ
//!   reading, welding, a mesh's edges and bending pairs;
//! - [`coloring`]: greedy + balanced graph coloring, and [`coloring::ColoredConstraints`], the
//!   only form in which constraints reach a solver;
//! - [`integrator`]: the Verlet formulas (shared by the CPU kernel and the integrator study);
//! - [`schedule`]: one frame described once (dt ratio, uniform block, Verlet start, the
//!   sequence of passes) and executed by both solvers;
//! - [`config`]: the structs shared with WGSL, workgroup grids and buffer sizes;
//! - `shaders/NAME.wgsl` and `src/cpu/NAME.rs`: each GPU kernel and its CPU twin;
//! - [`gpu`]: the device context (the one place that touches wgpu's device), kernels,
//!   [`GpuSolver`] and the per-stage timer; [`cpu`]: [`CpuSolver`], the reference;
//! - [`world`]: many cloths stepped together, on a fused path (one workgroup per cloth,
//!   `shaders/solve_cloths.wgsl` / `cpu::solve_cloths`) and a global path (color c of every
//!   cloth in one dispatch);
//! - [`scenes`]: the scenes the benchmark, the study and the demo share.
//!
//! Features: `tools` (default) adds the command line, the benchmark and the study; `demo`
//! (default) the windowed demo; `serde` derives serialization on the description types. With
//! `default-features = false` the crate is the solver alone.
#![warn(missing_docs)]

pub mod builder;
pub mod cloth;
pub mod coloring;
pub mod config;
pub mod conformance;
pub mod cpu;
pub mod error;
pub mod export;
pub mod geometry;
pub mod gpu;
pub mod hierarchy;
pub mod integrator;
pub mod params;
pub mod quality;
pub mod scenes;
pub mod schedule;
pub mod solver;
pub mod tethers;
pub mod world;

#[cfg(feature = "tools")]
pub mod bench;
#[cfg(feature = "tools")]
pub mod cli;
#[cfg(feature = "demo")]
pub mod demo;
#[cfg(feature = "tools")]
pub mod dt;
#[cfg(feature = "tools")]
pub mod plot;
#[cfg(feature = "tools")]
pub mod study;

pub use builder::{ClothBuilder, Layout, Mass, Pinning};
pub use cloth::{Cloth, ClothDesc, Constraint, ConstraintKind, GridShape, ParticleGroup};
pub use cpu::CpuSolver;
pub use error::{ChiffonError, Result};
pub use geometry::{MeshStats, TriangleMesh};
pub use gpu::{GpuContext, GpuSolver};
pub use integrator::Integrator;
pub use params::{SolverParams, Sphere};
pub use solver::{Backend, Solver};
pub use world::{ClothHandle, ClothOptions, World, WorldConfig};
