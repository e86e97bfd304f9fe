// Declarations shared by the solver kernels. The host prepends this file to each kernel
// (src/gpu/shaders.rs); their Rust twins are listed in src/config.rs (GPU_STRUCTS), and tests/shaders.rs
// checks with naga that sizes and offsets agree.

// Threads per workgroup. The host always sets it (src/gpu/kernels.rs), to
// config::DEFAULT_WORKGROUP_SIZE (128) unless the benchmark asks for another size.
override WORKGROUP_SIZE: u32 = 128u;

// Per-substep parameters of `start`, `integrate` and `collide` (Rust: config::StepParams).
struct StepParams {
    accel: vec4<f32>,          // xyz: gravity + wind (m/s²)
    start_velocity: vec4<f32>, // xyz: initial velocity of free particles (m/s), for `start`
    sphere: vec4<f32>,         // xyz: centre (m), w: radius (m); 0 = no sphere
    compliance: vec4<f32>,     // xyz: α / h² of stretch, shear, bend (1/kg); w: over-relaxation
    ratio: f32,                // h / h_prev
    damping: f32,              // exp(-c h): velocity kept this substep
    accel_scale: f32,          // h² (or h (h + h_prev) / 2 for the exact form), s²
    h: f32,                    // substep length (s)
    ground_y: f32,             // ground height (m)
    ground_on: u32,            // 1 when the ground plane exists
    friction: f32,             // tangential motion removed on contact, [0, 1]
    particle_count: u32,
    tether_scale: f32,         // slack on the geodesic distance (≥ 1)
    tether_stiffness: f32,     // fraction of a violation corrected per substep
    shake: u32,                // 1: correct along the bond at the start of the step (SHAKE)
    max_distance: f32,         // health check: farther from the origin than this is diverged (m)
}

// The slice of the color-sorted constraint buffer one `solve_color` dispatch covers
// (Rust: config::ColorRange).
struct ColorRange {
    start: u32,
    count: u32,
    first_sweep: u32,  // 1 on the substep's first sweep: the multipliers start at 0
    pad: u32,
}

// A distance constraint (Rust: cloth::Constraint).
struct Constraint {
    i: u32,
    j: u32,
    rest: f32,   // m
    kind: u32,   // 0 stretch, 1 shear, 2 bend: which compliance applies
}

// One tether of a particle (Rust: config::TetherSlot); config::TETHER_SLOTS per particle.
struct TetherSlot {
    anchor: u32,  // a pinned particle, or 0xffffffff for an unused slot
    rest: f32,    // geodesic distance to it (m)
}

const TETHER_SLOTS: u32 = 2u;
const NO_ANCHOR: u32 = 0xffffffffu;

// The health flag (Rust: config::Health): lowest index of a diverged particle.
struct Health {
    first_bad: atomic<u32>,
}

// The surface `compute_normals` walks (Rust: config::MeshInfo).
struct MeshInfo {
    particle_count: u32,
    triangle_count: u32,
    pad0: u32,
    pad1: u32,
}

// Linear thread index. Large dispatches are split over y, because one dimension holds at most
// 65535 workgroups (2048² particles need 65536 groups of 64).
fn thread_index(group: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    return (group.y * groups.x + group.x) * WORKGROUP_SIZE + local;
}
