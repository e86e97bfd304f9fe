// Declarations shared by the solver kernels. The host prepends this file to each kernel
// (src/gpu/shaders.rs); the CPU twins of these structs live in src/frame.rs and src/cloth.rs.

// Threads per workgroup; the host may override it (the benchmark measures several sizes).
override WORKGROUP_SIZE: u32 = 64u;

// Per-substep parameters of `integrate` and `collide` (Rust: frame::StepParams).
struct StepParams {
    accel: vec4<f32>,      // xyz: gravity + wind (m/s²)
    sphere: vec4<f32>,     // xyz: centre (m), w: radius (m); 0 = no sphere
    ratio: f32,            // dt_i / dt_{i-1}
    damping: f32,          // exp(-c h): velocity kept this substep
    accel_scale: f32,      // h² (or h (h + h_prev) / 2 for the exact form), s²
    ground_y: f32,         // ground height (m)
    ground_on: u32,        // 1 when the ground plane exists
    friction: f32,         // tangential motion removed on contact, [0, 1]
    particle_count: u32,
    pad: u32,
}

// The slice of the color-sorted constraint buffer one `solve_color` dispatch covers
// (Rust: frame::ColorRange).
struct ColorRange {
    start: u32,
    count: u32,
    pad0: u32,
    pad1: u32,
}

// A distance constraint (Rust: cloth::Constraint).
struct Constraint {
    i: u32,
    j: u32,
    rest: f32,        // m
    stiffness: f32,   // (0, 1]
}

// Linear thread index. Large dispatches are split over y, because one dimension holds at most
// 65535 workgroups (2048² particles need 65536 groups of 64).
fn thread_index(group: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    return (group.y * groups.x + group.x) * WORKGROUP_SIZE + local;
}
