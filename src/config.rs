//! Every struct the GPU and the CPU twins share, and every workgroup grid and buffer size, in one
//! place (as vello_encoding's config does). `shaders/common.wgsl` declares the WGSL side; the
//! test `tests/shaders.rs` checks with naga that each WGSL struct has the size and field offsets
//! of its twin listed in [`GPU_STRUCTS`](crate::config::GPU_STRUCTS).
//!
//! One file, though long: it is the whole contract with the kernels, and a size kept apart from
//! the struct it counts is how a buffer ends up too small.

use crate::constraint::Constraint;

/// Bytes of one particle record (`vec4<f32>`: xyz + inverse mass, or xyz + 0 for the previous
/// position).
pub const VEC4_BYTES: u64 = 16;

/// Largest cloth the builder accepts, in particles (4096 × 4096); the GPU may allow fewer.
pub const MAX_PARTICLES: u64 = 1 << 24;

/// Largest coordinate accepted (m), on any axis: a collider's position, size, capsule ends,
/// plane offset and mesh vertices, a cloth's translation and a mesh cloth's vertices; the
/// same bound as a grid's layout height ([`crate::builder::MAX_LAYOUT_HEIGHT`]). Positions are
/// `f32`, held to 2⁻²⁴ of their size: at 10⁶ m that is 6 cm, and past it a collider is lost
/// rather than imprecise (a capsule from x = −10⁷ to 10⁷ m let a cloth at the origin fall
/// through, its nearest point off by a metre; at ±10¹⁹ m its length squared overflows).
pub const MAX_COORDINATE: f32 = 1.0e6;

/// Words before the offsets in the table of triangles near a box's edges
/// (`src/contact/edges.rs`).
pub const EDGE_TABLE_HEADER_WORDS: usize = 2;

/// `vec4`s a triangle in the edge contacts' pushes (`shaders/collide_edges.wgsl`): the push,
/// its corners' shares with the friction, and the motion of the surface pushed off.
pub const EDGE_PUSH_ROWS: usize = 3;

/// A bound on how much a collider's distance changes along a unit of a particle's path
/// (`collide_with`): 1 for the analytic shapes (exact distances); inside a mesh's distance grid
/// about 2.7 (its samples are exact within 1.5 cells of the surface and a lower bound beyond,
/// `contact::grid`, and its sample is trilinear), and under 2 outside the grid's box. A
/// particle that ends a substep farther outside a collider than this times its path (relative
/// to the collider), plus the march's own tolerance, cannot have entered it, so its start is not
/// tested: the same result but where rounding decides, without reading the grid twice. A grid
/// whose signs disagree (a pocket of outside flooded as inside) can change faster; the march's
/// steps assume the same of it. `DISTANCE_SLOPE_BOUND` in colliders.wgsl.
pub const DISTANCE_SLOPE_BOUND: f32 = 4.0;

/// The fastest a collider pushes out a particle that starts a substep closer to it than its
/// thickness, in m/s (`collide_with`): such a particle is pushed at most this × the substep's
/// length deeper-to-shallower than it started, the rest in the next substeps. A particle that
/// comes in from outside during the substep is pushed out whole, as before; this bounds only
/// what a cloth that starts inside a collider (or a collider set down over one) is thrown
/// with: pushed out at once, 19 cm at one substep, its edges threw the cloth 32 cm over a
/// sphere, and a 1 m thickness threw it 10 m. At 3 m/s the particles that limit sweeps, edge
/// pushes or self-collision leave within the thickness do not reach it in any
/// `contact_quality` scene; the towel, which starts through its sphere, does. A frame's last
/// substep, which collides twice after the limit's end sweeps, can take two steps.
/// `ESCAPE_SPEED` in common.wgsl.
pub const ESCAPE_SPEED: f32 = 3.0;

/// Words before the cells' starts in the colliders' broad-phase table
/// (`src/contact/broadphase.rs`).
pub const BROADPHASE_HEADER_WORDS: usize = 8;

/// Threads per workgroup of every solver kernel (the `WORKGROUP_SIZE` override). 128 measured
/// ~8 % faster than 64 on lavapipe at 256² and is a whole number of warps/waves on every GPU.
pub const DEFAULT_WORKGROUP_SIZE: u32 = 128;

/// The largest workgroup chiffon uses (the self-collision hash's scan blocks are at most this
/// long, so its table is a whole number of them).
pub const MAX_WORKGROUP_SIZE: u32 = 1024;

/// Per-substep parameters every kernel reads (`StepParams` in `shaders/common.wgsl`). 96 bytes;
/// field order and padding follow WGSL's uniform layout. One per substep of a frame.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct StepParams {
    /// xyz: gravity (m/s²); w unused.
    pub accel: [f32; 4],
    /// xyz: the scene's centre (m); w: the divergence limit, the distance from it beyond which
    /// a particle counts as diverged (m).
    pub center: [f32; 4],
    /// dt ratio `h / h_prev` (1 for plain Verlet and for every substep after the first).
    pub ratio: f32,
    /// Velocity kept this substep, `exp(-c h)`.
    pub damping: f32,
    /// Factor of the acceleration (s²).
    pub accel_scale: f32,
    /// Substep length `h` (s).
    pub h: f32,
    /// Where the substep starts, as a fraction of the frame (colliders move from their pose
    /// at 0 to their pose at 1).
    pub t_from: f32,
    /// Where the substep ends, as a fraction of the frame.
    pub t_to: f32,
    /// Colliders in the collider table.
    pub collider_count: u32,
    /// Number of particles (the kernels' bounds guard).
    pub particle_count: u32,
    /// Tethers: slack on the geodesic distance (≥ 1).
    pub tether_scale: f32,
    /// Tethers: fraction of a violation corrected per substep, 0 when tethers are off.
    pub tether_stiffness: f32,
    /// 1: SHAKE direction (bond at the start of the step); 0: current bond (Jakobsen).
    pub shake: u32,
    /// The frame's number (low 32 bits; 1 = the first since construction or reset), which the
    /// health check records.
    pub frame: u32,
    /// Over-relaxation factor of every constraint correction (1 = plain XPBD).
    pub over_relaxation: f32,
    /// Self-collision: the distance kept between two particles that are not neighbours at
    /// rest (m); 0 when self-collision is off.
    pub self_distance: f32,
    /// Self-collision: Coulomb friction between touching particles.
    pub self_friction: f32,
    /// Self-collision: cells of the spatial hash table.
    pub hash_cells: u32,
    /// What the strain limit's sweeps shorten a structural edge to, as a multiple of its rest
    /// length (`SolverParams::limit_aim`); 0 when there is no limit.
    pub strain_limit: f32,
    /// Sweeps of the strain limit over the colors in each substep with contact
    /// (`SolverParams::limit_sweeps`; 0 in a frame without).
    pub limit_sweeps: u32,
    /// 1 when the strain limit holds the particles static friction holds
    /// (`SolverParams::limit_holds`), else 0.
    pub limit_holds: u32,
    /// Sweeps of the strain limit in the frame's last substep instead, each correction
    /// over-relaxed by [`LIMIT_END_RELAX`] (`SolverParams::end_sweeps`; 0: that substep sweeps
    /// as the others).
    pub end_sweeps: u32,
}

/// How far the strain limit's frame-end sweeps ([`StepParams::end_sweeps`]) over-relax each
/// correction: an edge past the aim is shortened by 1.8 × its excess, which a run of edges
/// stretched one after another needs (plain sweeps carry a correction one edge a sweep; 20
/// sweeps brought the irregular sheet's worst frame to 1.150, over-relaxed 1.080:
/// docs/quality.md, "The limit at the frame's end"). `LIMIT_END_RELAX` in common.wgsl.
pub const LIMIT_END_RELAX: f32 = 1.8;

/// Uniform block of `solve_color` (`ColorRange` in `shaders/common.wgsl`): which slice of the
/// color-sorted constraint buffer one dispatch solves, whether it is the substep's first
/// sweep (which starts the XPBD multipliers at 0 instead of reading them, so no pass is needed
/// to clear them), and whether one thread solves it all (a serial color: the overflow of a
/// vertex of high valence, [`crate::coloring::MAX_DISTANCE_COLORS`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ColorRange {
    /// First constraint of the color.
    pub start: u32,
    /// Constraints in the color.
    pub count: u32,
    /// 1 on the substep's first sweep: the multipliers start at 0.
    pub first_sweep: u32,
    /// 1 when one thread solves the records one after another (they may share particles).
    pub serial: u32,
}

impl ColorRange {
    /// The uniform for one color's range of the sorted constraint list (a later sweep).
    pub fn new(range: &std::ops::Range<u32>) -> Self {
        Self {
            start: range.start,
            count: range.end - range.start,
            first_sweep: 0,
            serial: 0,
        }
    }

    /// The same range, solved by one thread when `serial`.
    pub fn serial(self, serial: bool) -> Self {
        Self {
            serial: serial as u32,
            ..self
        }
    }

    /// True when one thread solves the range ([`Self::serial`]).
    pub fn is_serial(&self) -> bool {
        self.serial != 0
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

/// The gusts' noise lattice repeats every `GUST_CELLS + 1` (256) cells, so the host keeps the
/// lattice's shift below that (`GUST_CELLS` in `shaders/air.wgsl`, a mask).
pub const GUST_CELLS: u32 = 255;

/// Uniform block of the air kernels, `air_forces` and `apply_air` (`AirParams` in
/// `shaders/common.wgsl`), written once a frame from [`crate::params::Air`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct AirParams {
    /// xyz: the mean wind (m/s); w: the air's density (kg/m³).
    pub wind: [f32; 4],
    /// xyz: where the gusts' noise lattice is this frame, in gust sizes: the mean wind carried
    /// over the time so far, modulo the lattice's period (on the host, in f64); w: 1 / the
    /// gust size (1/m).
    pub gust_shift: [f32; 4],
    /// Drag coefficient C_d.
    pub drag: f32,
    /// Lift coefficient C_l.
    pub lift: f32,
    /// The gusts' amplitude (m/s): their strength times the mean wind's speed, over 1.5
    /// (the two octaves' largest sum).
    pub gust_speed: f32,
    /// A third of the frame's length (s): a particle's share of a triangle's force changes its
    /// velocity by force × dt / 3 / mass.
    pub dt_third: f32,
    /// The length of the substep that `position − previous` spans (s): the last one.
    pub h: f32,
    /// 1 / `h`.
    pub inv_h: f32,
    /// 1 / (3 `h`): a triangle's mean velocity from its corners' moves.
    pub inv_third_h: f32,
    /// 1 / 3, as an f32 the kernels read rather than a constant a compiler may rewrite (no
    /// constant divisor or reciprocal factor is kept the same by every GPU's compiler; a
    /// uniform is).
    pub third: f32,
    /// Particles of the world (all paths).
    pub particle_count: u32,
    /// The gusts' seed.
    pub seed: u32,
    /// Padding to 16 bytes.
    pub pad0: u32,
    /// Padding to 16 bytes.
    pub pad1: u32,
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
    /// The fused table's row of its first particle's tether slots (one row per particle).
    pub tether_row: u32,
    /// Its first colors, those the strain limit after contact sweeps in frames that hold what
    /// static friction holds (up to the last that holds a structural edge,
    /// `Hierarchy::limit_colors`).
    pub limit_colors: u32,
    /// Its coarse levels (0: none), coarsest first: [`FusedLevel`]s from `level_offset` on.
    pub level_count: u32,
    /// Its first [`FusedLevel`] among the world's fused levels.
    pub level_offset: u32,
    /// Its first snapshot node among the world's fused nodes (each a world particle index).
    pub node_offset: u32,
    /// Its snapshot nodes (every particle of its coarse levels).
    pub node_count: u32,
    /// The strain limit's own colors (`Hierarchy::strain_colors`), which it sweeps in frames
    /// that do not hold what static friction holds: the first, counted from `color_offset`.
    pub strain_first: u32,
    /// How many.
    pub strain_colors: u32,
    /// Padding to 16 bytes.
    pub pad0: u32,
    /// Padding to 16 bytes.
    pub pad1: u32,
}

/// One coarse level of a fused cloth (`FusedLevel` in `shaders/solve_cloths.wgsl`), coarsest
/// first: its colors (limits) follow the cloth's own colors in the fused color table, and its
/// prolongation entries say how the particles it dropped follow it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FusedLevel {
    /// Its first color, counted from the cloth's `color_offset`.
    pub color_start: u32,
    /// Its colors.
    pub color_count: u32,
    /// Its first entry among the world's fused prolongation entries.
    pub prolong_start: u32,
    /// Its entries (their parents are slots of the cloth's own snapshot nodes).
    pub prolong_count: u32,
}

/// Rows of four words a [`ClothRecord`] takes in the fused kernel's table (the records, the
/// fused colors, then the fused particles' tethers, one buffer: `shaders/solve_cloths.wgsl`).
pub const CLOTH_RECORD_ROWS: u32 = (size_of::<ClothRecord>() / 16) as u32;
const _: () = assert!(
    size_of::<ClothRecord>().is_multiple_of(16)
        && size_of::<ColorRange>() == 16
        && TETHER_SLOTS * size_of::<TetherSlot>() == 16
);

/// Coarse neighbours a particle interpolates from (the prolongation's fixed width).
pub const PARENTS: usize = 4;

/// How one particle follows its coarse neighbours (`Prolongation` in `shaders/common.wgsl`):
/// it moves by Σ weight·(x − snapshot) over `parents` (snapshot slots).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Prolongation {
    /// Snapshot slots of its coarse neighbours (unused ones repeat slot 0 with weight 0).
    pub parents: [u32; PARENTS],
    /// Their weights, summing to 1.
    pub weights: [f32; PARENTS],
    /// The particle that moves.
    pub particle: u32,
    /// Padding to 16 bytes.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
    /// Padding.
    pub pad2: u32,
}

/// Rows of four words a [`Prolongation`] takes in the fused kernel's table.
pub const PROLONG_ROWS: u32 = (size_of::<Prolongation>() / 16) as u32;

/// Rows of four words a [`ColliderRecord`] takes in the collider table (the records, then the
/// broad phase, one buffer: `shaders/colliders.wgsl`).
pub const COLLIDER_ROWS: u32 = (size_of::<ColliderRecord>() / 16) as u32;
const _: () = assert!(size_of::<ColliderRecord>().is_multiple_of(16));

/// Bytes of workgroup memory the fused kernel takes besides its cloth's particles (its sleep
/// verdict and end-of-frame reduction), as WebGPU counts them: each variable rounded up to 16
/// bytes. The particles get the adapter's limit less this (`tests/shaders.rs` checks it against
/// the kernel's variables; Chromium refused the pipeline when it was not reserved).
pub const FUSED_WORKGROUP_RESERVED: u64 = 64;

/// The fused kernel's loop bounds for a frame (`FusedFrame` in `shaders/common.wgsl`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct FusedFrame {
    /// Substeps in the frame (the first reads the first [`StepParams`] slot).
    pub substeps: u32,
    /// Sweeps over the colors per substep.
    pub iterations: u32,
    /// Cloths on the fused path (workgroups dispatched).
    pub cloth_count: u32,
    /// Frames in a row a cloth must stay at rest before it sleeps; 0: cloths never sleep
    /// ([`crate::world::Sleep`]).
    pub sleep_frames: u32,
    /// The step (m) over a frame's last substep under which a cloth's fastest particle counts
    /// as at rest: the sleep speed times the substep length.
    pub sleep_step: f32,
    /// 1: the cloths' coarse levels run ([`crate::SolverParams::coarse_levels`]).
    pub coarse_levels: u32,
    /// The fused table's first row of [`FusedLevel`]s, of snapshot nodes (four a row) and of
    /// prolongation entries (three rows each).
    pub level_row: u32,
    /// See `level_row`.
    pub node_row: u32,
    /// See `level_row`.
    pub prolong_row: u32,
    /// Where the fused cloths' snapshots start in the multiplier buffer (three floats a node,
    /// after every constraint's multiplier).
    pub snapshot_base: u32,
    /// Padding to 48 bytes.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
}

/// A fused cloth's rest state (`ClothRest` in `shaders/solve_cloths.wgsl`), kept by the fused
/// kernel after the health flag in the same buffer ([`REST_OFFSET`]): how long the cloth has
/// been at rest, and its bounds, which a moving collider must reach to wake it. The host only
/// ever writes [`ClothRest::AWAKE`] (an edit wakes the cloth).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ClothRest {
    /// Frames in a row the cloth ended at rest; asleep from [`FusedFrame::sleep_frames`] on.
    pub calm_frames: u32,
    /// Its fastest free particle's step over the last substep it ran (m).
    pub step: f32,
    /// Padding to 16 bytes.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
    /// xyz: the low corner of its particles' bounding box at the end of the last frame it ran.
    pub lo: [f32; 4],
    /// xyz: the high corner.
    pub hi: [f32; 4],
}

impl ClothRest {
    /// Awake, nothing measured.
    pub const AWAKE: ClothRest = ClothRest {
        calm_frames: 0,
        step: 0.0,
        pad0: 0,
        pad1: 0,
        lo: [0.0; 4],
        hi: [0.0; 4],
    };

    /// Whether a cloth in this state sleeps under `frame`'s settings.
    pub fn asleep(&self, frame: &FusedFrame) -> bool {
        frame.sleep_frames > 0 && self.calm_frames >= frame.sleep_frames
    }
}

/// One collider as the kernels read it (`Collider` in `shaders/colliders.wgsl`): its shape in
/// its own frame, its material, and its pose at the start and the end of the frame. Written
/// every frame (colliders move).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ColliderRecord {
    /// The shape's kind (`COLLIDER_*` in the WGSL).
    pub kind: u32,
    /// A mesh collider's first sample in the distance-grid table.
    pub grid_offset: u32,
    /// Padding.
    pub pad0: u32,
    /// Padding.
    pub pad1: u32,
    /// A mesh collider's samples along x, y, z; w unused.
    pub grid_dims: [u32; 4],
    /// Thickness (m), friction coefficient, restitution; w 1 for a capsule thin for the
    /// cloth, whose axis `collide_edges` keeps out of the triangles (else 0).
    pub material: [f32; 4],
    /// Sphere: (0, 0, 0, radius); capsule: first end, its radius; plane: unit normal, offset;
    /// cuboid: half extents; mesh: the grid's origin, its cell size.
    pub shape_a: [f32; 4],
    /// Capsule: second end, its radius.
    pub shape_b: [f32; 4],
    /// A capsule holding the collider at the frame's start, in the world: one end (xyz) and
    /// its radius with room for the frame's rotation (w); radius −1 for a plane (never culled).
    pub bound_from_a: [f32; 4],
    /// That capsule's other end at the frame's start (xyz); w unused.
    pub bound_from_b: [f32; 4],
    /// The capsule's first end at the frame's end (xyz); w unused.
    pub bound_to_a: [f32; 4],
    /// Its other end at the frame's end (xyz); w unused.
    pub bound_to_b: [f32; 4],
    /// Its position at the start of the frame (m).
    pub from_position: [f32; 4],
    /// Its rotation at the start of the frame (unit quaternion x, y, z, w).
    pub from_rotation: [f32; 4],
    /// Its position at the end of the frame (m).
    pub to_position: [f32; 4],
    /// Its rotation at the end of the frame.
    pub to_rotation: [f32; 4],
}

/// Shape kinds ([`ColliderRecord::kind`]: 0 sphere, 1 capsule, 2 plane, 3 box, 4 mesh).
pub const COLLIDER_KIND_COUNT: u32 = 5;

/// The shape kinds among `colliders`, bit k for kind k: the set the GPU's contact kernels are
/// compiled for (`COLLIDER_KINDS` in shaders/colliders.wgsl leaves the other shapes' code out).
pub fn collider_kinds(colliders: &[ColliderRecord]) -> u32 {
    colliders.iter().fold(0, |kinds, c| kinds | 1 << c.kind)
}

/// A pinned particle's previous position's w on the first substep of a frame that carries it
/// to the target in its xyz ([`crate::World::move_pin`]; `PIN_TO` in `shaders/common.wgsl`).
/// A free particle's w there is its contact flag (0 or 1); a still pin's is 0.
pub const PIN_TO: f32 = 2.0;
/// A pinned particle's previous position's w on the substeps after that: it moves by
/// `x − x_prev` again (`PIN_MOVING` in `shaders/common.wgsl`).
pub const PIN_MOVING: f32 = 3.0;

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
/// particle whose position is non-finite or beyond the limit, or `u32::MAX` when all are well,
/// and the first frame that found one. Both only ever go down (atomic minimum), so a copy read
/// back frames later still names the frame it went bad in.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Health {
    /// First bad particle, or [`Health::OK`].
    pub first_bad: u32,
    /// Low 32 bits of the first frame that found a bad particle, or [`Health::OK`].
    pub frame: u32,
}

impl Health {
    /// No bad particle (either field).
    pub const OK: u32 = u32::MAX;
    /// In `first_bad`: no bad particle, but a fused workgroup's frame stopped before its last
    /// substep (llvmpipe ends an invocation's loops once they have run 65 535 iterations in
    /// all). Above every particle index, so a bad particle still wins the minimum.
    pub const STOPPED_EARLY: u32 = u32::MAX - 1;
    /// All well.
    pub const CLEAR: Health = Health {
        first_bad: Self::OK,
        frame: Self::OK,
    };
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
    layout!(AirParams {
        wind,
        gust_shift,
        drag,
        lift,
        gust_speed,
        dt_third,
        h,
        inv_h,
        inv_third_h,
        third,
        particle_count,
        seed,
        pad0,
        pad1
    }),
    layout!(StepParams {
        accel,
        center,
        ratio,
        damping,
        accel_scale,
        h,
        t_from,
        t_to,
        collider_count,
        particle_count,
        tether_scale,
        tether_stiffness,
        shake,
        frame,
        over_relaxation,
        self_distance,
        self_friction,
        hash_cells,
        strain_limit,
        limit_sweeps,
        limit_holds,
        end_sweeps
    }),
    layout!(ColliderRecord {
        kind,
        grid_offset,
        pad0,
        pad1,
        grid_dims,
        material,
        shape_a,
        shape_b,
        bound_from_a,
        bound_from_b,
        bound_to_a,
        bound_to_b,
        from_position,
        from_rotation,
        to_position,
        to_rotation
    }),
    layout!(ColorRange {
        start,
        count,
        first_sweep,
        serial
    }),
    layout!(Constraint { i, j, rest, packed }),
    layout!(TetherSlot { anchor, rest }),
    layout!(Prolongation {
        parents,
        weights,
        particle,
        pad0,
        pad1,
        pad2
    }),
    layout!(Health { first_bad, frame }),
    layout!(ClothRecord {
        alpha,
        particle_offset,
        particle_count,
        color_offset,
        color_count,
        shared_memory,
        tethers,
        tether_row,
        limit_colors,
        level_count,
        level_offset,
        node_offset,
        node_count,
        strain_first,
        strain_colors,
        pad0,
        pad1
    }),
    layout!(FusedLevel {
        color_start,
        color_count,
        prolong_start,
        prolong_count
    }),
    layout!(FusedFrame {
        substeps,
        iterations,
        cloth_count,
        sleep_frames,
        sleep_step,
        coarse_levels,
        level_row,
        node_row,
        prolong_row,
        snapshot_base,
        pad0,
        pad1
    }),
    layout!(ClothRest {
        calm_frames,
        step,
        pad0,
        pad1,
        lo,
        hi
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

/// Number of [`StepParams`] slots: one per substep of a frame, at most
/// [`crate::params::MAX_SUBSTEPS`], which is this.
pub const STEP_PARAM_SLOTS: u64 = 256;

/// Bytes of the health flag ([`Health`], rounded up to a whole `vec4`): the part of the health
/// buffer every kernel sees and the host reads back each frame.
pub const HEALTH_BYTES: u64 = VEC4_BYTES;
const _: () = assert!(size_of::<Health>() as u64 <= HEALTH_BYTES);

/// Byte offset of the fused cloths' [`ClothRest`] states in the health buffer (after the flag).
pub const REST_OFFSET: u64 = HEALTH_BYTES;

/// Byte offset of the inverse mass (w) within a particle's `vec4` record, for writing it alone.
pub const INVERSE_MASS_OFFSET: u64 = 12;

/// Buckets of the self-collision hash for `particles` particles: a power of two, at least twice
/// the particles (few collisions) and at least one scan block.
pub fn hash_cells(particles: u32) -> u32 {
    (2 * particles).max(MAX_WORKGROUP_SIZE).next_power_of_two()
}

/// Words of a particle's self-collision candidate list: its length, then up to
/// `LIST_STRIDE - 1` candidates (`LIST_STRIDE` in shaders/self_collision.wgsl).
pub const LIST_STRIDE: usize = 32;

/// Words of the candidate lists' state at the end of the self-collision table (`STATE_WORDS`
/// in shaders/self_collision.wgsl; cpu::self_collision says what each holds).
pub const STATE_WORDS: usize = 8;

/// The lists' state word that says a list overflowed when they were last built, and so makes
/// the next substep build them again (`STATE_OVERFLOW` in shaders/self_collision.wgsl).
pub const STATE_OVERFLOW: usize = 7;

/// Entries (u32) of the self-collision table for `cells` buckets scanned `workgroup` at a
/// time: counts, starts and their end, block sums, the lists' state.
pub fn self_table_len(cells: u32, workgroup: u32) -> usize {
    (2 * cells + 1 + cells / workgroup) as usize + STATE_WORDS
}

/// The word of a self-collision table of `table_len` entries ([`self_table_len`]) that makes
/// the next substep build the candidate lists: [`STATE_OVERFLOW`] of the lists' state (the
/// table's last [`STATE_WORDS`]). The engines set it when the host changed what the lists rest
/// on (`world::engine::SelfListsWatch`).
pub fn self_build_word(table_len: usize) -> usize {
    table_len - STATE_WORDS + STATE_OVERFLOW
}

/// Entries (u32) of the self-collision buckets for `particles` particles: each particle's
/// bucket, the particles bucket by bucket, then each particle's candidate list.
pub fn self_hash_len(particles: usize) -> usize {
    particles * (2 + LIST_STRIDE)
}

/// Entries (vec4) of self-collision's pushed positions for `particles` particles, then the
/// positions its lists were built at.
pub fn self_moved_len(particles: usize) -> usize {
    2 * particles
}

/// Byte sizes of a world's buffers on the GPU. The particle buffers are made once at the
/// world's capacity (a renderer binds the position buffer, so it must stay the same buffer);
/// the topology buffers grow with the layout ([`BufferSizes::topology_for`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferSizes {
    /// Positions (and, equally, previous positions): one vec4 per particle.
    pub particles: u64,
    /// [`TETHER_SLOTS`] [`TetherSlot`]s per particle.
    pub tethers: u64,
    /// The [`StepParams`] slots (first substep, later substeps).
    pub step_params: u64,
    /// The health flag, then one [`ClothRest`] per cloth the world can hold.
    pub health: u64,
    /// Distance between dynamic-offset uniform slots.
    pub uniform_stride: u64,
    /// The topology: what grows with the cloths in the world.
    pub topology: TopologySizes,
}

/// Byte sizes of the buffers that hold a layout's topology.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TopologySizes {
    /// The color-sorted constraints.
    pub constraints: u64,
    /// One XPBD multiplier (f32) per constraint, then three floats per fused snapshot node.
    pub multipliers: u64,
    /// Two [`ColorRange`]s per global color (first sweep, later sweeps), each in its own
    /// uniform slot.
    pub color_table: u64,
    /// One material row (`vec4`: α̃ of each kind) per material.
    pub materials: u64,
    /// The coarse levels' snapshot slots: the particle of each (`u32`).
    pub nodes: u64,
    /// The snapshot: one vec4 per slot.
    pub snapshot: u64,
    /// The [`Prolongation`] entries.
    pub prolongations: u64,
    /// The coarse passes' ranges (the snapshot's, then one per level), each in its own slot.
    pub coarse_table: u64,
    /// The fused kernel's table, rows of four words: [`CLOTH_RECORD_ROWS`] per fused cloth's
    /// [`ClothRecord`], one per fused color ([`ColorRange`]), one per fused particle (its two
    /// [`TetherSlot`]s), then the fused cloths' coarse levels (`world::layout::FusedRows`).
    pub fused_table: u64,
    /// One [`ColliderRecord`] per collider.
    pub colliders: u64,
    /// Every mesh collider's distance samples (`f32`).
    pub grid: u64,
    /// The colliders' broad phase (`u32`, `contact::broadphase`).
    pub collider_cells: u64,
}

/// What a layout holds, counted: the input of [`BufferSizes::topology_for`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TopologyCounts {
    /// Constraints in all (global region and fused runs).
    pub constraints: u64,
    /// Global colors (the cloths' and the coarse levels').
    pub colors: u64,
    /// Materials (one per cloth).
    pub materials: u64,
    /// Coarse snapshot slots.
    pub nodes: u64,
    /// Prolongation entries.
    pub prolongations: u64,
    /// Coarse levels.
    pub levels: u64,
    /// Rows of the fused table (records, colors, tether slots, levels, nodes, prolongations).
    pub fused_rows: u64,
    /// Snapshot nodes of the fused cloths (three floats each after the multipliers).
    pub fused_nodes: u64,
    /// Colliders.
    pub colliders: u64,
    /// Distance-grid samples of the mesh colliders.
    pub grid_samples: u64,
    /// Words of the colliders' broad phase.
    pub collider_cells: u64,
}

impl BufferSizes {
    /// Sizes for `particles` particles and `cloths` cloths with uniform slots aligned to
    /// `min_uniform_alignment` bytes, and an empty topology.
    pub fn new(particles: u64, cloths: u64, min_uniform_alignment: u64) -> Self {
        // Each slot must start on the device's alignment and hold the largest uniform block.
        let uniform_stride =
            (size_of::<StepParams>() as u64).next_multiple_of(min_uniform_alignment.max(1));
        let mut sizes = Self {
            particles: particles.max(1) * VEC4_BYTES,
            tethers: particles.max(1) * (TETHER_SLOTS * size_of::<TetherSlot>()) as u64,
            step_params: STEP_PARAM_SLOTS * uniform_stride,
            health: REST_OFFSET + cloths.max(1) * size_of::<ClothRest>() as u64,
            uniform_stride,
            topology: TopologySizes {
                constraints: 0,
                multipliers: 0,
                color_table: 0,
                materials: 0,
                nodes: 0,
                snapshot: 0,
                prolongations: 0,
                coarse_table: 0,
                fused_table: 0,
                colliders: 0,
                grid: 0,
                collider_cells: 0,
            },
        };
        sizes.topology = sizes.topology_for(&TopologyCounts::default());
        sizes
    }

    /// The topology buffers' sizes for a layout of `counts`. wgpu refuses zero-sized
    /// bindings, so an empty table still takes one element.
    pub fn topology_for(&self, c: &TopologyCounts) -> TopologySizes {
        let stride = self.uniform_stride;
        TopologySizes {
            constraints: c.constraints.max(1) * size_of::<Constraint>() as u64,
            multipliers: ((c.constraints + 3 * c.fused_nodes) * 4).max(VEC4_BYTES),
            color_table: 2 * c.colors.max(1) * stride,
            materials: c.materials.max(1) * VEC4_BYTES,
            nodes: (c.nodes * 4).max(VEC4_BYTES),
            snapshot: c.nodes.max(1) * VEC4_BYTES,
            prolongations: c.prolongations.max(1) * size_of::<Prolongation>() as u64,
            coarse_table: (1 + c.levels) * stride,
            fused_table: c.fused_rows.max(1) * VEC4_BYTES,
            colliders: c.colliders.max(1) * size_of::<ColliderRecord>() as u64,
            grid: c.grid_samples.max(4) * 4,
            collider_cells: c.collider_cells.max(BROADPHASE_HEADER_WORDS as u64) * 4,
        }
    }

    /// Total bytes on the device.
    pub fn total(&self) -> u64 {
        let t = &self.topology;
        2 * self.particles
            + self.tethers
            + self.step_params
            + self.health
            + t.constraints
            + t.multipliers
            + t.color_table
            + t.materials
            + t.nodes
            + t.snapshot
            + t.prolongations
            + t.coarse_table
            + t.fused_table
            + t.colliders
            + t.grid
            + t.collider_cells
    }
}

impl TopologySizes {
    /// True when every buffer of `self` holds at least what `need` asks.
    pub fn holds(&self, need: &TopologySizes) -> bool {
        self.fields()
            .iter()
            .zip(need.fields())
            .all(|(h, n)| *h >= n)
    }

    /// Each buffer at the larger of the two sizes.
    pub fn max(&self, other: &TopologySizes) -> TopologySizes {
        let [a, b, c, d, e, f, g, h, i, k, l, m] = self.fields();
        let [a2, b2, c2, d2, e2, f2, g2, h2, i2, k2, l2, m2] = other.fields();
        TopologySizes {
            constraints: a.max(a2),
            multipliers: b.max(b2),
            color_table: c.max(c2),
            materials: d.max(d2),
            nodes: e.max(e2),
            snapshot: f.max(f2),
            prolongations: g.max(g2),
            coarse_table: h.max(h2),
            fused_table: i.max(i2),
            colliders: k.max(k2),
            grid: l.max(l2),
            collider_cells: m.max(m2),
        }
    }

    fn fields(&self) -> [u64; 12] {
        [
            self.constraints,
            self.multipliers,
            self.color_table,
            self.materials,
            self.nodes,
            self.snapshot,
            self.prolongations,
            self.coarse_table,
            self.fused_table,
            self.colliders,
            self.grid,
            self.collider_cells,
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The GPU keeps a `collide` and a fused kernel per set of shape kinds, indexed by
    /// [`collider_kinds`] (`gpu::passes`), and the WGSL's default compiles every kind: a shape
    /// added without raising [`COLLIDER_KIND_COUNT`] would index past them.
    #[test]
    fn every_shape_kind_is_among_the_kinds_the_kernels_are_compiled_for() {
        use crate::contact::{Collider, DistanceGrid, Pose, Shape};
        use glam::{Quat, Vec3};
        let tetrahedron = crate::geometry::TriangleMesh::new(
            "tetrahedron",
            vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
            vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
        );
        let grid = std::sync::Arc::new(DistanceGrid::from_mesh(&tetrahedron, 8).unwrap());
        let colliders = [
            Collider::sphere(Vec3::ZERO, 1.0),
            Collider::capsule(Vec3::ZERO, Vec3::X, 0.5, 0.5),
            Collider::plane(Vec3::Y, 0.0),
            Collider::cuboid(Vec3::ZERO, Vec3::ONE, Quat::IDENTITY),
            Collider::mesh(grid, Pose::IDENTITY),
        ];
        // A new variant fails to compile here until it is listed above.
        let _listed = |s: &Shape| match s {
            Shape::Sphere { .. }
            | Shape::Capsule { .. }
            | Shape::Plane { .. }
            | Shape::Cuboid { .. }
            | Shape::Mesh(_) => (),
        };
        let kinds: Vec<u32> = colliders.iter().map(|c| c.shape.kind()).collect();
        assert_eq!(kinds, (0..COLLIDER_KIND_COUNT).collect::<Vec<_>>());
        let records: Vec<ColliderRecord> = kinds
            .iter()
            .map(|&kind| ColliderRecord {
                kind,
                ..Default::default()
            })
            .collect();
        let all = (1u32 << COLLIDER_KIND_COUNT) - 1;
        assert_eq!(collider_kinds(&records), all);
        let default = format!("override COLLIDER_KINDS: u32 = {all}u;");
        assert!(
            crate::gpu::shaders::COLLIDERS.contains(&default),
            "{default}"
        );
    }

    #[test]
    fn uniform_slots_respect_the_device_alignment() {
        for align in [16, 32, 64, 256] {
            let s = BufferSizes::new(100, 4, align);
            assert_eq!(s.uniform_stride % align, 0, "alignment {align}");
            assert!(s.uniform_stride >= size_of::<StepParams>() as u64);
        }
    }
}
