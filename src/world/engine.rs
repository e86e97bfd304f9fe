//! What runs a world's kernels: the GPU recorder ([`crate::gpu::engine`]) or the CPU executor
//! ([`crate::cpu::engine`]). Both take the same [`Layout`] and run the same
//! [`FrameSchedule`](crate::schedule::FrameSchedule); this trait is all the world knows of
//! them. `make_engine` in `world/mod.rs`, above both, is the one place that picks one.

use glam::Vec4;

use super::layout::Layout;
use crate::config::{
    AirParams, ClothRecord, ClothRest, ColliderRecord, FusedFrame, Health, TetherSlot,
};
use crate::error::Result;
use crate::gpu::StageTimer;
use crate::schedule::{FramePlan, FrameSchedule};

/// One frame as the engines run it.
pub(crate) struct WorldFrame<'a> {
    pub plan: &'a FramePlan,
    pub schedule: FrameSchedule,
    /// α̃ per material (one per cloth, in layout order).
    pub materials: &'a [Vec4],
    /// The fused cloths' records with this frame's α̃.
    pub records: &'a [ClothRecord],
    pub fused: FusedFrame,
    /// The colliders, moving from their poses at the frame's start to those at its end.
    pub colliders: &'a [ColliderRecord],
    /// Their broad phase ([`crate::contact::broadphase`]).
    pub collider_cells: &'a [u32],
    /// The air kernels' block, when the schedule has the air stage.
    pub air: Option<AirParams>,
}

/// Whether self-collision's candidate lists, which the kernels keep from substep to substep and
/// frame to frame, still rest on what they were built from: the layout, the rest positions
/// (which pairs are neighbours), each particle's inverse mass (a pinned particle keeps no list)
/// and the distance. Moves need no note: the kernels build the lists again once particles have
/// moved against each other by more than their margin, whoever moved them (`self_plan`). Each
/// engine keeps one and, when [`SelfListsWatch::must_build`] says so, sets the table's word that
/// makes the frame's first substep build them ([`crate::config::self_build_word`]).
#[derive(Debug, Default)]
pub(crate) struct SelfListsWatch {
    stale: bool,
    distance: f32,
}

impl SelfListsWatch {
    /// The host changed what the lists rest on.
    pub(crate) fn invalidate(&mut self) {
        self.stale = true;
    }

    /// True when this frame must build the lists on its first substep (a change since they
    /// were built, or another distance); a frame without self-collision keeps the note.
    pub(crate) fn must_build(&mut self, frame: &WorldFrame<'_>) -> bool {
        if !frame.schedule.self_collision {
            return false;
        }
        let distance = frame.plan.step(0).self_distance;
        let build = self.stale || distance != self.distance;
        self.stale = false;
        self.distance = distance;
        build
    }
}

/// A world's buffers and the executor of its passes.
pub(crate) trait Engine: wgpu::WasmNotSend {
    /// What runs the kernels.
    fn name(&self) -> String;
    /// Particles one workgroup can hold in workgroup memory (0: none).
    fn workgroup_capacity(&self) -> u32;
    /// Whether the fused kernel runs here at all (the GPU's needs more storage buffers per
    /// shader stage than a browser may allow); when not, every cloth takes the global path.
    fn fuses(&self) -> bool {
        true
    }
    /// Whether [`super::PathChoice::Auto`] guesses the fused path here until its trial has
    /// measured both (see there).
    fn prefers_fused(&self) -> bool {
        true
    }
    /// Whether `Auto`'s trial may run a cloth of `particles` on the fused path for a frame of
    /// `substeps` here without meeting a cap on the kernel's loops (see the GPU engine's).
    fn fused_trial_fits(&self, _particles: u32, _substeps: u32) -> bool {
        true
    }
    /// Loads a new layout with these positions and previous positions.
    fn load(&mut self, layout: &Layout, positions: &[Vec4], previous: &[Vec4]) -> Result<()>;
    /// Positions (inverse mass in w) and previous positions of the layout's particles (the
    /// GPU waits for the device).
    fn state(&mut self) -> Result<(Vec<Vec4>, Vec<Vec4>)>;
    /// Positions of the layout's particles (the GPU waits for the device).
    fn positions(&mut self) -> Result<Vec<Vec4>>;
    /// Overwrites positions from particle `offset` on.
    fn write_positions(&mut self, offset: u32, positions: &[Vec4]);
    /// Overwrites previous positions from particle `offset` on.
    fn write_previous(&mut self, offset: u32, previous: &[Vec4]);
    /// Overwrites the inverse mass of particle `index` only (its position stays wherever the
    /// kernels have it).
    fn write_inverse_mass(&mut self, index: u32, inverse_mass: f32);
    /// Overwrites tether slots from particle `offset` on.
    fn write_tethers(&mut self, offset: u32, slots: &[TetherSlot]);
    /// Replaces the mesh colliders' distance samples (every grid, one after another).
    fn load_grids(&mut self, samples: &[f32]) -> Result<()>;
    /// Runs one frame; returns a health flag when one is known (the GPU's arrives later).
    fn frame(
        &mut self,
        frame: &WorldFrame<'_>,
        timer: Option<&mut StageTimer>,
    ) -> Result<Option<Health>>;
    /// The health flag now (the GPU waits).
    fn health(&mut self) -> Result<Health>;
    /// Clears the health flag.
    fn clear_health(&mut self) -> Result<()>;
    /// The fused cloths' rest states, in record order (the GPU waits).
    fn rests(&mut self) -> Result<Vec<ClothRest>>;
    /// Wakes the fused cloths of these records (a new layout wakes them all by itself).
    fn wake(&mut self, fused: std::ops::Range<u32>);
    /// Blocks until the submitted frames are done.
    fn wait(&mut self) -> Result<()>;
    /// The position buffer, on the GPU.
    fn position_buffer(&self) -> Option<&wgpu::Buffer>;
    /// Bytes of device memory the buffers hold, on the GPU.
    fn gpu_bytes(&self) -> Option<u64>;
    /// The self-collision hash as the last frame left it: the table (counts, starts, block
    /// sums) and the buckets; `None` before self-collision has run (the GPU waits).
    #[cfg_attr(not(feature = "internals"), allow(dead_code))]
    fn hash_tables(&mut self) -> Result<Option<(Vec<u32>, Vec<u32>)>>;
    /// Starts reading the layout's positions, for the async readers (the web's): the CPU has
    /// them at once, the GPU submits a copy.
    fn start_positions(&mut self) -> Result<Started<Vec4>> {
        Ok(Started::Ready(self.positions()?))
    }
    /// Starts reading the fused cloths' rest states, as [`Engine::start_positions`] does.
    fn start_rests(&mut self) -> Result<Started<ClothRest>> {
        Ok(Started::Ready(self.rests()?))
    }
    /// Starts reading the health flag, as [`Engine::start_positions`] does.
    fn start_health(&mut self) -> Result<Started<Health>> {
        Ok(Started::Ready(vec![self.health()?]))
    }
}

/// A readback an engine started: the values already (the CPU), or a GPU copy in flight.
pub(crate) enum Started<T> {
    Ready(Vec<T>),
    Gpu(crate::gpu::context::PendingRead),
}

impl<T: bytemuck::Pod> Started<T> {
    /// The values, awaiting the GPU's map without blocking in a browser.
    pub(crate) async fn finish(self) -> Result<Vec<T>> {
        match self {
            Started::Ready(values) => Ok(values),
            Started::Gpu(pending) => pending.finish().await,
        }
    }
}
