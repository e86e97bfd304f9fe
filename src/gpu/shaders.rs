//! Registry of the WGSL files in `shaders/`. Every file there must be listed here; a test
//! parses and validates each with naga, without a GPU.

/// Declarations prepended to every solver kernel (`shaders/common.wgsl`).
pub const COMMON: &str = include_str!("../../shaders/common.wgsl");

/// The collider shapes and the contact response, prepended after [`COMMON`] to the kernels
/// that collide (`shaders/colliders.wgsl`; they declare the `colliders` and `distance_grid`
/// tables it reads).
pub const COLLIDERS: &str = include_str!("../../shaders/colliders.wgsl");

/// The bindings the kernels with a thread per particle declare first, and the particle such a
/// thread moves (`shaders/particles.wgsl`), prepended after [`COMMON`].
pub const PARTICLES: &str = include_str!("../../shaders/particles.wgsl");

/// The bindings of the hierarchy's kernels, [`SNAPSHOT`] and [`PROLONG`] (`shaders/levels.wgsl`),
/// prepended after [`COMMON`].
pub const LEVELS: &str = include_str!("../../shaders/levels.wgsl");

/// What most solver kernels are compiled with, before their own text.
const SOLVER: &[&str] = &[COMMON];
/// What the kernels with a thread per particle are compiled with.
const SOLVER_PARTICLES: &[&str] = &[COMMON, PARTICLES];
/// What the colliding kernels with a thread per particle are compiled with.
const SOLVER_PARTICLES_AND_COLLIDERS: &[&str] = &[COMMON, PARTICLES, COLLIDERS];
/// What the fused kernel is compiled with.
const SOLVER_AND_COLLIDERS: &[&str] = &[COMMON, COLLIDERS];
/// What the hierarchy's kernels are compiled with.
const SOLVER_LEVELS: &[&str] = &[COMMON, LEVELS];

/// One WGSL file and the entry points it defines.
#[derive(Clone, Copy, Debug)]
pub struct ShaderFile {
    /// File name inside `shaders/`.
    pub file: &'static str,
    /// Its compute or render entry point(s), comma-separated.
    pub entry_points: &'static str,
    /// The shared files prepended to it, in order ([`COMMON`], [`PARTICLES`] or [`LEVELS`],
    /// [`COLLIDERS`]).
    pub prelude: &'static [&'static str],
    /// The file's text.
    pub text: &'static str,
}

impl ShaderFile {
    /// The complete WGSL module the device compiles.
    pub fn source(&self) -> String {
        let mut s = self.prelude.join("\n");
        s.push('\n');
        s.push_str(self.text);
        s
    }
}

/// `integrate`: time-corrected Verlet (CPU twin: `src/cpu/integrate.rs`).
pub const INTEGRATE: ShaderFile = ShaderFile {
    file: "integrate.wgsl",
    entry_points: "integrate",
    prelude: SOLVER_PARTICLES,
    text: include_str!("../../shaders/integrate.wgsl"),
};

/// `solve_color`: one color of distance constraints; `limit_color`: the strain limit over one
/// color (CPU twins: `src/cpu/solve_color.rs`).
pub const SOLVE_COLOR: ShaderFile = ShaderFile {
    file: "solve_color.wgsl",
    entry_points: "solve_color,limit_color",
    prelude: SOLVER,
    text: include_str!("../../shaders/solve_color.wgsl"),
};

/// `snapshot_nodes`: where the coarse levels' particles are before they are solved (CPU twin:
/// `src/cpu/snapshot.rs`).
pub const SNAPSHOT: ShaderFile = ShaderFile {
    file: "snapshot.wgsl",
    entry_points: "snapshot_nodes",
    prelude: SOLVER_LEVELS,
    text: include_str!("../../shaders/snapshot.wgsl"),
};

/// `prolong`: a coarse level's correction carried to the particles it dropped (CPU twin:
/// `src/cpu/prolong.rs`).
pub const PROLONG: ShaderFile = ShaderFile {
    file: "prolong.wgsl",
    entry_points: "prolong",
    prelude: SOLVER_LEVELS,
    text: include_str!("../../shaders/prolong.wgsl"),
};

/// `solve_tethers`: long-range attachments (CPU twin: `src/cpu/tethers.rs`).
pub const TETHERS: ShaderFile = ShaderFile {
    file: "tethers.wgsl",
    entry_points: "solve_tethers",
    prelude: SOLVER_PARTICLES,
    text: include_str!("../../shaders/tethers.wgsl"),
};

/// Self-collision: the candidate lists (their check, the spatial hash by counting sort they are
/// built from) and the particle–particle pushes (CPU twins: `src/cpu/self_collision.rs`).
pub const SELF_COLLISION: ShaderFile = ShaderFile {
    file: "self_collision.wgsl",
    entry_points: "self_check,self_plan,hash_clear,hash_count,hash_scan_blocks,hash_scan_sums,hash_scan_add,hash_scatter,hash_sort,self_candidates,self_collide,self_apply",
    prelude: SOLVER_PARTICLES,
    text: include_str!("../../shaders/self_collision.wgsl"),
};

/// `check_health`: the divergence flag (CPU twin: `src/cpu/health.rs`).
pub const HEALTH: ShaderFile = ShaderFile {
    file: "health.wgsl",
    entry_points: "check_health",
    prelude: SOLVER_PARTICLES,
    text: include_str!("../../shaders/health.wgsl"),
};

/// `collide`: every collider, by projection with friction and restitution (CPU twin:
/// `src/cpu/collide.rs`).
pub const COLLIDE: ShaderFile = ShaderFile {
    file: "collide.wgsl",
    entry_points: "collide",
    prelude: SOLVER_PARTICLES_AND_COLLIDERS,
    text: include_str!("../../shaders/collide.wgsl"),
};

/// `edge_contacts` and `apply_edge_contacts`: the boxes' edges and corners, and thin
/// capsules' axes, kept out of the cloth's triangles (CPU twins: `src/cpu/collide_edges.rs`).
pub const COLLIDE_EDGES: ShaderFile = ShaderFile {
    file: "collide_edges.wgsl",
    entry_points: "edge_contacts,apply_edge_contacts",
    prelude: SOLVER_PARTICLES_AND_COLLIDERS,
    text: include_str!("../../shaders/collide_edges.wgsl"),
};

/// `solve_cloths`: the fused path, one workgroup per cloth for a whole frame (CPU twin:
/// `src/cpu/solve_cloths.rs`).
pub const SOLVE_CLOTHS: ShaderFile = ShaderFile {
    file: "solve_cloths.wgsl",
    entry_points: "solve_cloths",
    prelude: SOLVER_AND_COLLIDERS,
    text: include_str!("../../shaders/solve_cloths.wgsl"),
};

/// `air_winds`, `air_forces` and `apply_air`: wind, drag and lift on every triangle (CPU twins:
/// `src/cpu/air.rs`).
pub const AIR: ShaderFile = ShaderFile {
    file: "air.wgsl",
    entry_points: "air_winds,air_forces,apply_air",
    prelude: SOLVER,
    text: include_str!("../../shaders/air.wgsl"),
};

/// `compute_normals`: per-particle normals for drawing (CPU twin: `src/cpu/normals.rs`).
pub const NORMALS: ShaderFile = ShaderFile {
    file: "normals.wgsl",
    entry_points: "compute_normals",
    prelude: SOLVER,
    text: include_str!("../../shaders/normals.wgsl"),
};

/// The demo's vertex and fragment stages (cloth, ground, sphere).
pub const RENDER: ShaderFile = ShaderFile {
    file: "render.wgsl",
    entry_points: "cloth_vs,cloth_fs,ground_vs,ground_fs,sphere_vs,sphere_fs",
    prelude: &[],
    text: include_str!("../../shaders/render.wgsl"),
};

/// Every WGSL file chiffon ships with entry points ([`COMMON`] is validated on its own and as a
/// prelude; [`PARTICLES`], [`LEVELS`] and [`COLLIDERS`] as preludes).
pub const ALL: &[ShaderFile] = &[
    INTEGRATE,
    SNAPSHOT,
    PROLONG,
    SOLVE_COLOR,
    TETHERS,
    SELF_COLLISION,
    COLLIDE,
    COLLIDE_EDGES,
    HEALTH,
    SOLVE_CLOTHS,
    AIR,
    NORMALS,
    RENDER,
];
