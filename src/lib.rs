//! # chiffon
//!
//! A cloth solver whose hot loop runs as WGSL compute shaders on wgpu: time-corrected Verlet
//! integration and graph-colored distance constraints, solved in parallel one color at a time.
//! A CPU reference runs the same kernels in plain Rust, and the tests hold the GPU to it.
//!
//! Where things are:
//! - [`integrator`]: the Verlet formulas (shared by the CPU kernel and the integrator study);
//! - [`coloring`]: greedy + balanced graph coloring of constraints;
//! - [`cloth`]: [`ClothBuilder`] for grids;
//! - [`frame`]: the per-frame plan (dt ratio) and the uniform layout both twins read;
//! - `shaders/*.wgsl` and [`cpu::kernels`]: each GPU kernel and its CPU twin;
//! - [`gpu`]: the device context (the one place that touches wgpu's device) and [`GpuSolver`];
//! - [`cpu`]: [`CpuSolver`], the reference.

pub mod bench;
pub mod cloth;
pub mod coloring;
pub mod conformance;
pub mod cpu;
pub mod demo;
pub mod dt;
pub mod error;
pub mod export;
pub mod frame;
pub mod gpu;
pub mod integrator;
pub mod params;
pub mod plot;
pub mod solver;
pub mod study;

pub use cloth::{Cloth, ClothBuilder, Constraint, ConstraintKind, Layout, Pinning};
pub use cpu::CpuSolver;
pub use error::{ChiffonError, Result};
pub use gpu::{GpuContext, GpuSolver};
pub use integrator::Integrator;
pub use params::{SolverParams, Sphere};
pub use solver::Solver;
