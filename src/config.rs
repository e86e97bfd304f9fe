//! Every struct the GPU and the CPU twins share, and every workgroup grid and buffer size, in one
//! place (as vello_encoding's config does). `shaders/common.wgsl` declares the WGSL side; the
//! test `tests/shaders.rs` checks with naga that each WGSL struct has the size and field offsets
//! of its twin listed in [`GPU_STRUCTS`].

pub use crate::cloth::Constraint;
pub use crate::hierarchy::Prolongation;

/// Bytes of one particle record (`vec4<f32>`: xyz + inverse mass, or xyz + 0 for the previous
/// position).
pub const VEC4_BYTES: u64 = 16;

/// Threads per workgroup of every solver kernel (the `WORKGROUP_SIZE` override). 128 measured
/// ~8 % faster than 64 on lavapipe at 256² and is a whole number of warps/waves on every GPU.
pub const DEFAULT_WORKGROUP_SIZE: u32 = 128;

/// Per-substep parameters every kernel reads (`StepParams` in `shaders/common.wgsl`). 112 bytes;
/// field order and padding follow WGSL's uniform layout.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct StepParams {
    /// xyz: gravity + wind (m/s²); w unused.
    pub accel: [f32; 4],
    /// xyz: initial velocity of free particles (m/s), read by `start` only; w unused.
    pub start_velocity: [f32; 4],
    /// xyz: sphere centre (m); w: radius (m), 0 when there is no sphere.
    pub sphere: [f32; 4],
    /// dt ratio `h / h_prev` (1 for plain Verlet and for every substep after the first).
    pub ratio: f32,
    /// Velocity kept this substep, `exp(-c h)`.
    pub damping: f32,
    /// Factor of the acceleration (s²).
    pub accel_scale: f32,
    /// Substep length `h` (s).
    pub h: f32,
    /// Ground height (m); ignored unless `ground_on` is 1.
    pub ground_y: f32,
    /// 1 when the ground plane is on.
    pub ground_on: u32,
    /// Tangential motion removed on contact, [0, 1].
    pub friction: f32,
    /// Number of particles (the kernels' bounds guard).
    pub particle_count: u32,
    /// Tethers: slack on the geodesic distance (≥ 1).
    pub tether_scale: f32,
    /// Tethers: fraction of a violation corrected per substep, 0 when tethers are off.
    pub tether_stiffness: f32,
    /// 1: SHAKE direction (bond at the start of the step); 0: current bond (Jakobsen).
    pub shake: u32,
    /// The health check's limit on the distance from the origin (m).
    pub max_distance: f32,
    /// Over-relaxation factor of every constraint correction (1 = plain XPBD).
    pub over_relaxation: f32,
    /// Padding to a multiple of 16 bytes.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
    /// Padding.
    pub pad2: u32,
}

/// Uniform block of `solve_color` (`ColorRange` in `shaders/common.wgsl`): which slice of the
/// color-sorted constraint buffer one dispatch solves, and whether it is the substep's first
/// sweep (which starts the XPBD multipliers at 0 instead of reading them, so no pass is needed
/// to clear them).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ColorRange {
    /// First constraint of the color.
    pub start: u32,
    /// Constraints in the color.
    pub count: u32,
    /// 1 on the substep's first sweep: the multipliers start at 0.
    pub first_sweep: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

impl ColorRange {
    /// The uniform for one color's range of the sorted constraint list (a later sweep).
    pub fn new(range: &std::ops::Range<u32>) -> Self {
        Self {
            start: range.start,
            count: range.end - range.start,
            first_sweep: 0,
            pad: 0,
        }
    }

    /// The same range on the substep's first sweep.
    pub fn first(self) -> Self {
        Self {
            first_sweep: 1,
            ..self
        }
    }

    /// The constraint indices it covers.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..(self.start + self.count) as usize
    }
}

/// Uniform block of `compute_normals` (`MeshInfo` in `shaders/common.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MeshInfo {
    /// Particles (one normal each).
    pub particle_count: u32,
    /// Triangles.
    pub triangle_count: u32,
    /// Padding to 16 bytes.
    pub pad0: u32,
    /// Padding to 16 bytes.
    pub pad1: u32,
}

/// One cloth of a world on the fused path (`ClothRecord` in `shaders/common.wgsl`): the slice
/// of the world's buffers its workgroup owns for the frame. Rewritten every frame (α̃ depends
/// on the substep length).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ClothRecord {
    /// xyz: the cloth's α̃ of stretch, shear and bend this frame (1/kg); w unused.
    pub alpha: [f32; 4],
    /// Its first particle in the world's particle buffers.
    pub particle_offset: u32,
    /// Its particles.
    pub particle_count: u32,
    /// Its first color in the fused color table.
    pub color_offset: u32,
    /// Its colors.
    pub color_count: u32,
    /// 1 when its particles live in workgroup memory for the frame, 0 when they stay in the
    /// storage buffer.
    pub shared_memory: u32,
    /// 1 when the tether stage runs for it (tethers on, and it has some).
    pub tethers: u32,
    /// Padding to 16 bytes.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
}

/// The fused kernel's loop bounds for a frame (`FusedFrame` in `shaders/common.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FusedFrame {
    /// Substeps in the frame (the first reads the first [`StepParams`] slot).
    pub substeps: u32,
    /// Sweeps over the colors per substep.
    pub iterations: u32,
    /// Cloths on the fused path (workgroups dispatched).
    pub cloth_count: u32,
    /// Padding to 16 bytes.
    pub pad: u32,
}

/// Tether slots per particle: each free particle is tied to up to this many of its nearest
/// pinned particles, filled nearest first (an empty first slot means no tethers).
pub const TETHER_SLOTS: usize = 2;
// `tether_pull` finds the nearest point within both of a particle's tethers in closed form,
// which it can for two balls; more slots need another solver there and in its CPU twin.
const _: () = assert!(TETHER_SLOTS == 2);

/// One tether of a particle (`TetherSlot` in `shaders/common.wgsl`): an anchor (a pinned
/// particle) and the geodesic distance to it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TetherSlot {
    /// The anchor particle, or [`TetherSlot::NONE`].
    pub anchor: u32,
    /// Geodesic distance to the anchor through the constraint graph (m).
    pub rest: f32,
}

impl TetherSlot {
    /// The anchor of an unused slot.
    pub const NONE: u32 = u32::MAX;
    /// An unused slot.
    pub const EMPTY: TetherSlot = TetherSlot {
        anchor: Self::NONE,
        rest: 0.0,
    };
}

/// Output of `check_health` (`Health` in `shaders/common.wgsl`): the lowest index of a
/// particle whose position is non-finite or beyond the limit, or `u32::MAX` when all are well.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Health {
    /// First bad particle, or [`Health::OK`].
    pub first_bad: u32,
}

impl Health {
    /// No bad particle.
    pub const OK: u32 = u32::MAX;
}

/// The Rust side of one struct shared with WGSL: its name there, its size and its fields'
/// names and byte offsets, as `repr(C)` lays them out.
#[derive(Clone, Copy, Debug)]
pub struct GpuStructLayout {
    /// Name of the WGSL struct (and of the Rust one).
    pub name: &'static str,
    /// `size_of` the Rust struct (bytes).
    pub size: usize,
    /// `(field, offset)` in declaration order.
    pub fields: &'static [(&'static str, usize)],
}

macro_rules! layout {
    ($ty:ident { $($field:ident),* $(,)? }) => {
        GpuStructLayout {
            name: stringify!($ty),
            size: size_of::<$ty>(),
            fields: &[$((stringify!($field), std::mem::offset_of!($ty, $field))),*],
        }
    };
}

/// Every struct shared with WGSL. A field added on one side only fails `tests/shaders.rs`.
pub const GPU_STRUCTS: &[GpuStructLayout] = &[
    layout!(StepParams {
        accel,
        start_velocity,
        sphere,
        ratio,
        damping,
        accel_scale,
        h,
        ground_y,
        ground_on,
        friction,
        particle_count,
        tether_scale,
        tether_stiffness,
        shake,
        max_distance,
        over_relaxation,
        pad0,
        pad1,
        pad2
    }),
    layout!(ColorRange {
        start,
        count,
        first_sweep,
        pad
    }),
    layout!(Constraint { i, j, rest, kind }),
    layout!(TetherSlot { anchor, rest }),
    layout!(Prolongation {
        parents,
        weights,
        particle,
        pad0,
        pad1,
        pad2
    }),
    layout!(Health { first_bad }),
    layout!(ClothRecord {
        alpha,
        particle_offset,
        particle_count,
        color_offset,
        color_count,
        shared_memory,
        tethers,
        pad0,
        pad1
    }),
    layout!(FusedFrame {
        substeps,
        iterations,
        cloth_count,
        pad
    }),
    layout!(MeshInfo {
        particle_count,
        triangle_count,
        pad0,
        pad1
    }),
];

/// Workgroup grid `(x, y)` for `threads` threads in groups of `size`, split over y past the
/// per-dimension limit `max_per_dim`; kernels rebuild the linear index with `thread_index`
/// (`shaders/common.wgsl`). 2048² particles need 65536 groups of 64, one more than a dimension
/// holds.
pub fn workgroups(threads: u32, size: u32, max_per_dim: u32) -> (u32, u32) {
    let groups = threads.div_ceil(size);
    if groups <= max_per_dim {
        (groups, 1)
    } else {
        (max_per_dim, groups.div_ceil(max_per_dim))
    }
}

/// Byte sizes of the buffers a cloth needs on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferSizes {
    /// Positions (and, equally, previous positions): one vec4 per particle.
    pub particles: u64,
    /// The color-sorted constraints.
    pub constraints: u64,
    /// One XPBD multiplier (f32) per constraint.
    pub multipliers: u64,
    /// [`TETHER_SLOTS`] [`TetherSlot`]s per particle.
    pub tethers: u64,
    /// Two [`ColorRange`]s per color (first sweep, later sweeps), each in its own slot.
    pub color_table: u64,
    /// One material row (`vec4`: α̃ of each kind) per material.
    pub materials: u64,
    /// The [`StepParams`] slots (first substep, later substeps).
    pub step_params: u64,
    /// The coarse levels' snapshot slots: the particle of each (`u32`).
    pub nodes: u64,
    /// The snapshot: one vec4 per slot.
    pub snapshot: u64,
    /// The [`Prolongation`] entries.
    pub prolongations: u64,
    /// The coarse passes' ranges (the snapshot's, then one per level), each in its own slot.
    pub coarse_table: u64,
    /// Distance between dynamic-offset uniform slots.
    pub uniform_stride: u64,
}

/// Number of [`StepParams`] slots: the first substep's (with the frame's dt ratio) and the one
/// every later substep uses.
pub const STEP_PARAM_SLOTS: u64 = 2;

impl BufferSizes {
    /// Sizes for `particles` particles, `constraints` constraints in `colors` colors and
    /// `materials` materials, with uniform slots aligned to `min_uniform_alignment` bytes.
    pub fn new(
        particles: u64,
        constraints: u64,
        colors: u64,
        materials: u64,
        min_uniform_alignment: u64,
    ) -> Self {
        // Each slot must start on the device's alignment and hold the largest uniform block.
        let uniform_stride =
            (size_of::<StepParams>() as u64).next_multiple_of(min_uniform_alignment.max(1));
        Self {
            particles: particles * VEC4_BYTES,
            // wgpu refuses zero-sized bindings; a cloth without constraints still binds one.
            constraints: (constraints * size_of::<Constraint>() as u64).max(VEC4_BYTES),
            multipliers: (constraints * 4).max(VEC4_BYTES),
            tethers: particles * (TETHER_SLOTS * size_of::<TetherSlot>()) as u64,
            color_table: 2 * colors.max(1) * uniform_stride,
            materials: materials.max(1) * VEC4_BYTES,
            step_params: STEP_PARAM_SLOTS * uniform_stride,
            nodes: VEC4_BYTES,
            snapshot: VEC4_BYTES,
            prolongations: size_of::<Prolongation>() as u64,
            coarse_table: uniform_stride,
            uniform_stride,
        }
    }

    /// The same sizes for a cloth with coarse levels ([`crate::hierarchy::Hierarchy`]):
    /// `nodes` snapshot slots, `prolongations` entries, `levels` levels.
    pub fn with_hierarchy(self, nodes: u64, prolongations: u64, levels: u64) -> Self {
        Self {
            nodes: (nodes * 4).max(VEC4_BYTES),
            snapshot: (nodes * VEC4_BYTES).max(VEC4_BYTES),
            prolongations: prolongations.max(1) * size_of::<Prolongation>() as u64,
            coarse_table: (1 + levels) * self.uniform_stride,
            ..self
        }
    }

    /// Total bytes on the device.
    pub fn total(&self) -> u64 {
        2 * self.particles
            + self.constraints
            + self.multipliers
            + self.tethers
            + self.color_table
            + self.materials
            + self.step_params
            + self.nodes
            + self.snapshot
            + self.prolongations
            + self.coarse_table
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_slots_respect_the_device_alignment() {
        for align in [16, 32, 64, 256] {
            let s = BufferSizes::new(100, 500, 12, 1, align);
            assert_eq!(s.uniform_stride % align, 0, "alignment {align}");
            assert!(s.uniform_stride >= size_of::<StepParams>() as u64);
        }
    }
}
