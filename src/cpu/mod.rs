//! The CPU reference: each file here is the twin of the WGSL file of the same name in
//! `shaders/`: same entry point name, same bindings in the same order, same order of
//! arithmetic. "One thread" of a kernel is one closure call; the loops run in parallel with
//! rayon, race-free for the same reason the GPU is. `engine` runs a frame's passes by calling
//! them, as the GPU recorder (`gpu/engine.rs`) records the kernels.

pub(crate) mod engine;

pub(crate) mod air;
pub(crate) mod collide;
mod collide_edges;
pub(crate) mod colliders;
pub(crate) mod common;
mod health;
mod integrate;
mod normals;
mod prolong;
pub mod self_collision;
mod snapshot;
mod solve_cloths;
mod solve_color;
mod team;
mod tethers;

pub use air::{air_forces, air_winds, apply_air};
pub use collide::collide;
pub use collide_edges::{apply_edge_contacts, edge_contacts};
pub(crate) use colliders::grid_distance;
pub use health::check_health;
pub use integrate::integrate;
pub use normals::{cloth_normals, compute_normals};
pub use prolong::prolong;
pub use snapshot::snapshot_nodes;
pub use solve_cloths::solve_cloths;
pub use solve_color::{ColorPass, limit_color, solve_color, sweep_colors};
pub use tethers::solve_tethers;

/// Particles (or constraints) per rayon task: below this, splitting costs more than it saves.
const MIN_PER_TASK: usize = 2048;

/// The same for kernels that spend far longer on each particle (the self-collision search
/// and its pushes, `collide`): a small cloth's are worth both threads.
const MIN_PER_HEAVY_TASK: usize = 256;

/// A slice the threads of one kernel share, as the GPU's threads share a storage buffer: in
/// one call each thread writes only elements that no other thread reads or writes (the
/// kernel's invariant, which its caller checks: a checked coloring, a level's distinct
/// particles, anchors that are pinned). A team's run of colors (`sweep_colors`) keeps it one
/// color at a time: its members meet at a barrier between colors.
/// It holds the slice's exclusive borrow, so the slice itself cannot be touched meanwhile.
struct SharedSlice<'a, T>(*mut T, std::marker::PhantomData<&'a mut [T]>);

// SAFETY: elements are reached only through `at`, whose callers keep to the invariant above.
unsafe impl<T: Send> Sync for SharedSlice<'_, T> {}

impl<'a, T> SharedSlice<'a, T> {
    fn new(slice: &'a mut [T]) -> Self {
        Self(slice.as_mut_ptr(), std::marker::PhantomData)
    }

    /// Element `i`.
    ///
    /// # Safety
    /// `i` is within the slice, and no other thread touches element `i` in this call.
    unsafe fn at(&self, i: usize) -> *mut T {
        // SAFETY: in bounds, by the caller's contract.
        unsafe { self.0.add(i) }
    }
}
