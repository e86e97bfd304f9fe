// Declarations shared by the solver kernels. The host prepends this file to each kernel
// (src/gpu/shaders.rs); their Rust twins are listed in src/config.rs (GPU_STRUCTS), and tests/shaders.rs
// checks with naga that sizes and offsets agree.

// Threads per workgroup. The host always sets it (src/gpu/kernels.rs), to
// config::DEFAULT_WORKGROUP_SIZE (128) unless the benchmark asks for another size.
override WORKGROUP_SIZE: u32 = 128u;

// Per-substep parameters every solver kernel reads, one per substep (Rust: config::StepParams).
struct StepParams {
    accel: vec4<f32>,          // xyz: gravity (m/s²)
    center: vec4<f32>,         // xyz: the scene's centre (m); w: the divergence limit (m)
    ratio: f32,                // h / h_prev
    damping: f32,              // exp(-c h): velocity kept this substep
    accel_scale: f32,          // h² (or h (h + h_prev) / 2 for the exact form), s²
    h: f32,                    // substep length (s)
    t_from: f32,               // the substep's start as a fraction of the frame (colliders move 0 → 1)
    t_to: f32,                 // its end
    collider_count: u32,
    particle_count: u32,
    tether_scale: f32,         // slack on the geodesic distance (≥ 1)
    tether_stiffness: f32,     // fraction of a violation corrected per substep
    shake: u32,                // 1: correct along the bond at the start of the step (SHAKE)
    frame: u32,                // the frame's number (low 32 bits), recorded by the health check
    over_relaxation: f32,      // factor of every constraint correction (1 = plain XPBD)
    self_distance: f32,        // self-collision: distance kept between particles (m); 0 = off
    self_friction: f32,        // self-collision: Coulomb friction between particles
    hash_cells: u32,           // self-collision: cells of the spatial hash
    strain_limit: f32,         // what the strain limit shortens a structural edge to, × rest; 0 = none
    limit_sweeps: u32,         // sweeps of the strain limit over the colors in a substep with contact
    limit_holds: u32,          // 1: the limit holds what static friction holds (box frames)
    end_sweeps: u32,           // sweeps of the limit in the frame's last substep instead, over-relaxed; 0 = as the others
}

// The over-relaxation of the strain limit's frame-end sweeps (Rust: config::LIMIT_END_RELAX).
const LIMIT_END_RELAX: f32 = 1.8;

// The slice of the color-sorted constraint buffer one `solve_color` dispatch covers
// (Rust: config::ColorRange).
struct ColorRange {
    start: u32,
    count: u32,
    first_sweep: u32,  // 1 on the substep's first sweep: the multipliers start at 0
    serial: u32,       // 1: one thread solves every record in turn (they may share particles)
}

// A distance constraint (Rust: cloth::Constraint).
struct Constraint {
    i: u32,
    j: u32,
    rest: f32,   // m
    packed: u32, // bits 0-1: kind (0 stretch, 1 shear, 2 bend, 3 limit); bits 2-29: material (row of `materials`) or a limit's share; bit 31: a stencil's record, bit 30: its tail
}

// A coarse level's constraint (Rust: hierarchy::LIMIT_KIND): unilateral, and rigid (its α̃ is the
// material row's fourth entry, 0).
const LIMIT_KIND: u32 = 3u;

// The inverse masses a limit moves its ends with: the share of i (in 1/65536) is in bits 2..18 of `packed`
// (j has the rest), the ratio of the masses the two coarse particles stand for; a pinned or
// held end (inverse mass 0) stays (Rust: hierarchy::limit_weights).
fn limit_weights(packed: u32, wi: f32, wj: f32) -> vec2<f32> {
    let share = f32(packed >> 2u) / 65536.0;
    return vec2<f32>(select(share, 0.0, wi == 0.0), select(1.0 - share, 0.0, wj == 0.0));
}

// The inverse mass a coarse level's limit sees: 0 for a particle that a collider held by
// static friction at the end of the last substep (`collide` leaves 1 in its previous
// position's w; Rust: cpu::solve_color::unheld).
fn unheld(w: f32, held: f32) -> f32 {
    return select(w, 0.0, held > 0.0);
}

// The displacement the substep's acceleration (gravity, wind) gives a particle: what static
// friction holds a stuck particle against (Rust: cpu::collide::substep_pull).
fn substep_pull(params: StepParams) -> vec3<f32> {
    return params.accel.xyz * params.accel_scale;
}

// The fastest a collider pushes out a particle that starts a substep within its thickness
// (m/s; Rust: config::ESCAPE_SPEED).
const ESCAPE_SPEED: f32 = 3.0;

// How far a particle that starts the substep within a collider's thickness is pushed out at
// most, deeper to shallower than it started (Rust: cpu::common::substep_escape).
fn substep_escape(params: StepParams) -> f32 {
    return ESCAPE_SPEED * params.h;
}

// How one particle follows its coarse neighbours (Rust: hierarchy::Prolongation).
struct Prolongation {
    parents: vec4<u32>,  // snapshot slots of its coarse neighbours
    weights: vec4<f32>,  // their weights (sum 1; unused slots 0)
    particle: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

// The compliance a constraint reads from a material's α̃ (Rust: Constraint::alpha).
fn constraint_alpha(material: vec4<f32>, packed: u32) -> f32 {
    return material[packed & 3u];
}

// One tether of a particle (Rust: config::TetherSlot); config::TETHER_SLOTS per particle.
struct TetherSlot {
    anchor: u32,  // a pinned particle, or 0xffffffff for an unused slot
    rest: f32,    // geodesic distance to it (m)
}

const TETHER_SLOTS: u32 = 2u;
const NO_ANCHOR: u32 = 0xffffffffu;

// The health flag (Rust: config::Health): lowest index of a diverged particle, and the first
// frame that found one.
struct Health {
    first_bad: atomic<u32>,
    frame: atomic<u32>,
}

// In the health flag's first_bad: no bad particle, but a fused frame stopped before its last
// substep (Rust: config::Health::STOPPED_EARLY).
const STOPPED_EARLY: u32 = 4294967294u;

// The surface `compute_normals` walks (Rust: config::MeshInfo).
// The air kernels' block, written once a frame (Rust: config::AirParams).
struct AirParams {
    wind: vec4<f32>,        // xyz: mean wind (m/s); w: air density (kg/m³)
    gust_shift: vec4<f32>,  // xyz: the gusts' lattice shift (gust sizes); w: 1 / gust size (1/m)
    drag: f32,              // C_d
    lift: f32,              // C_l
    gust_speed: f32,        // the gusts' amplitude (m/s), over 1.5
    dt_third: f32,          // a third of the frame (s)
    h: f32,                 // the substep that position − previous spans (s)
    inv_h: f32,             // 1 / h
    inv_third_h: f32,       // 1 / (3 h)
    third: f32,             // 1 / 3, read rather than written as a constant a compiler may rewrite
    particle_count: u32,
    seed: u32,
    pad0: u32,
    pad1: u32,
}

struct MeshInfo {
    particle_count: u32,
    triangle_count: u32,
    pad0: u32,
    pad1: u32,
}

// An f32's bits as a u32 that orders as the f32 does (negatives flipped whole, positives'
// sign bit set), so atomicMin/atomicMax reduce floats, in any order, to the same bits
// (Rust: cpu::self_collision::ordered).
fn ordered(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    if ((b & 0x80000000u) != 0u) {
        return ~b;
    }
    return b | 0x80000000u;
}

fn unordered(u: u32) -> f32 {
    if ((u & 0x80000000u) != 0u) {
        return bitcast<f32>(u & 0x7fffffffu);
    }
    return bitcast<f32>(~u);
}

// Where a compute thread stands in a dispatch split over y: the one parameter of the kernels
// that index their threads across it, so each declares the builtins once, the same way.
struct Thread {
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
}

// Linear thread index. Large dispatches are split over y, because one dimension holds at most
// 65535 workgroups (2048² particles need 65536 groups of 64).
fn thread_index(thread: Thread) -> u32 {
    return (thread.group.y * thread.groups.x + thread.group.x) * WORKGROUP_SIZE + thread.local;
}

// Where thread `t` starts in a color and how far it steps (x, y), in records: `width` records
// a unit (2 for a bending stencil), `stride` records between a thread's units. A serial color
// (the overflow of a vertex of high valence, whose records may share particles) is walked by
// thread 0 alone, unit after unit; the other threads start past its end.
fn color_walk(range: ColorRange, t: u32, width: u32, stride: u32) -> vec2<u32> {
    if (range.serial != 0u) {
        return vec2<u32>(select(range.count, 0u, t == 0u), width);
    }
    return vec2<u32>(width * t, stride);
}

// One cloth of a world on the fused path (Rust: config::ClothRecord), one workgroup each.
struct ClothRecord {
    alpha: vec4<f32>,       // xyz: α̃ of stretch, shear, bend this frame (1/kg)
    particle_offset: u32,   // its first particle in the world's buffers
    particle_count: u32,
    color_offset: u32,      // its first color in the fused color table
    color_count: u32,
    shared_memory: u32,     // 1: its particles live in workgroup memory for the frame
    tethers: u32,           // 1: the tether stage runs for it
    tether_row: u32,        // the fused table's row of its first particle's tether slots
    limit_colors: u32,      // its first colors, those the strain limit sweeps in frames that hold
    level_count: u32,       // its coarse levels (0: none), FusedLevels from level_offset on
    level_offset: u32,
    node_offset: u32,       // its first snapshot node among the fused cloths'
    node_count: u32,
    strain_first: u32,      // the strain limit's own colors (from color_offset), swept in other frames
    strain_colors: u32,
    pad0: u32,
    pad1: u32,
}

// One coarse level of a fused cloth (Rust: config::FusedLevel), a row of the fused table from
// frame.level_row on: its colors (counted from the cloth's color_offset) and its prolongation
// entries (three rows each from frame.prolong_row on).
struct FusedLevel {
    color_start: u32,
    color_count: u32,
    prolong_start: u32,
    prolong_count: u32,
}

// A fused cloth's rest state (Rust: config::ClothRest).
struct ClothRest {
    calm_frames: u32,  // frames in a row it ended at rest; asleep from frame.sleep_frames on
    step: f32,         // m: its fastest free particle's step over the last substep it ran
    pad0: u32,
    pad1: u32,
    lo: vec4<f32>,     // xyz: its bounds at the end of the last frame it ran
    hi: vec4<f32>,
}

// Rows of four words a ClothRecord takes in the fused kernel's table (Rust: config::CLOTH_RECORD_ROWS).
const CLOTH_RECORD_ROWS: u32 = 5u;
// Rows a Prolongation takes there (Rust: config::PROLONG_ROWS).
const PROLONG_ROWS: u32 = 3u;

// What the fused kernel loops over this frame (Rust: config::FusedFrame).
struct FusedFrame {
    substeps: u32,
    iterations: u32,
    cloth_count: u32,
    sleep_frames: u32,  // frames at rest before a cloth sleeps; 0: never
    sleep_step: f32,    // m: the largest step over the last substep that counts as at rest
    coarse_levels: u32, // 1: the cloths' coarse levels run
    level_row: u32,     // the fused table's first row of FusedLevels,
    node_row: u32,      // of snapshot nodes (four a row)
    prolong_row: u32,   // and of Prolongations (three rows each)
    snapshot_base: u32, // the fused snapshots' first float in the multiplier buffer
    pad0: u32,
    pad1: u32,
}

// ---- Per-particle and per-constraint steps, shared by the per-pass kernels and the fused one,
// so both paths do the same arithmetic in the same order (CPU twins in src/cpu/*.rs). ----

// a × b, spelled out: WGSL's `cross` may round differently (llvmpipe lowers it to a fused
// multiply-add, which glam's does not), and the twins must round alike (Rust: glam's
// Vec3::cross, the same products in the same order).
fn cross3(a: vec3<f32>, b: vec3<f32>) -> vec3<f32> {
    return vec3<f32>(a.y * b.z - b.y * a.z, a.z * b.x - b.z * a.x, a.x * b.y - b.x * a.y);
}

// A pinned particle's previous position's w while the host carries it over a frame
// (`World::move_pin`; 0 for a pin that stands still): PIN_TO on the frame's first substep,
// with the target in xyz; PIN_MOVING on the substeps after it, when x − x_prev is its step.
// Rust: config::PIN_TO, config::PIN_MOVING.
const PIN_TO: f32 = 2.0;
const PIN_MOVING: f32 = 3.0;

// Where a pinned particle at x goes this substep (which ends at frame fraction t_to), `q` its
// previous position: a 1/S of the way to its target on the first substep (t_to = 1/S), then
// the same step each substep, so it reaches the target at the frame's end; a pin that stands
// still stays.
fn pin_step(t_to: f32, x: vec3<f32>, q: vec4<f32>) -> vec3<f32> {
    if (q.w == PIN_TO) {
        return x + (q.xyz - x) * t_to;
    }
    if (q.w == PIN_MOVING) {
        return x + (x - q.xyz);
    }
    return x;
}

// The flag a moving pin's previous position carries into the next substep: PIN_MOVING, and 0
// after the frame's last (it stops at its target unless the host moves it again).
fn pin_flag(t_to: f32, flag: f32) -> f32 {
    return select(0.0, PIN_MOVING, (flag == PIN_TO || flag == PIN_MOVING) && t_to < 1.0);
}

// Time-corrected Verlet: a free particle's next position (CPU: integrator::verlet_next).
fn verlet(params: StepParams, x: vec3<f32>, x_prev: vec3<f32>) -> vec3<f32> {
    return x + (x - x_prev) * (params.ratio * params.damping) + params.accel.xyz * params.accel_scale;
}

// One XPBD step of a distance constraint of rest length `rest` between pi and pj (xyz, w the
// inverse mass); `r` is the bond at the start of the step (for SHAKE), `alpha` its α̃ and
// `lambda0` its multiplier so far. Returns the direction to move along (xyz) and Δλ (w):
// x_i += w_i Δλ dir, x_j −= w_j Δλ dir. Δλ is 0 when nothing can move (or, for a `unilateral`
// constraint, when it is not stretched).
//   C = |x_i − x_j| − L,  Δλ = ω (−C − α̃ λ) / ((w_i + w_j)(n · dir) + α̃)   (ω: over-relaxation)
fn xpbd_step(params: StepParams, rest: f32, pi: vec4<f32>, pj: vec4<f32>, r: vec3<f32>, alpha: f32, lambda0: f32, unilateral: bool) -> vec4<f32> {
    let w_sum = pi.w + pj.w;
    // Both ends pinned: nothing can move.
    if (w_sum == 0.0) {
        return vec4<f32>(0.0);
    }
    let d = pi.xyz - pj.xyz;
    let len2 = dot(d, d);
    let len = sqrt(len2);
    // Coincident particles give no direction to push along.
    if (len < 1e-9) {
        return vec4<f32>(0.0);
    }
    let constraint = len - rest;
    // A limit (a coarse level's constraint) only keeps its ends from moving apart.
    if (unilateral && constraint <= 0.0) {
        return vec4<f32>(0.0);
    }
    // SHAKE corrects along the bond r at the start of the step. Its step along r shortens the
    // bond by C only to first order: the bond keeps its part across r, and a step longer than
    // the bond's length along r turns it inside out. So where the bond turned by more than 30°
    // in the step, or the step would move its ends along r by more than half that length, it
    // corrects along the current bond instead (Jakobsen). With the old bound alone (60°, no
    // length test), a cloth folding over a sphere at 128² and 256² fed energy into every
    // folded edge until the cloth flew apart (tests/contact.rs pins it). A limit always uses
    // the current bond: it spans several edges whose start-of-step chord turns with folds, and
    // SHAKE along it was measured to go unstable (a 256² cloth blew up). Without roots:
    //   cos²(turn) = (d·r)² / (|d|² |r|²) > ¾   ⇔  d·r > 0 and 4 (d·r)² > 3 |d|² |r|²;
    //   |step along r| = −numerator |r| |d| / (d·r) < ½ |d| cos(turn)  ⇔  −2 numerator |d| |r|² < (d·r)².
    let numerator = (-constraint - alpha * lambda0) * params.over_relaxation;
    let r2 = dot(r, r);
    let dr = dot(d, r);
    let along_start = r2 > 1e-18 && dr > 0.0 && 4.0 * dr * dr > 3.0 * len2 * r2 && -2.0 * numerator * len * r2 < dr * dr;
    if (params.shake == 1u && !unilateral && along_start) {
        // Along r/|r| with n·dir = d·r / (|d| |r|), the divisions folded into one.
        let r_len = sqrt(r2);
        let scale = r_len * len;
        return vec4<f32>(r * (1.0 / r_len), numerator * scale / (w_sum * dr + alpha * scale));
    }
    return vec4<f32>(d * (1.0 / len), numerator / (w_sum + alpha));
}

// Constraint `con` after one XPBD step: its ends (w: inverse mass) and its new multiplier (CPU:
// cpu::solve_color::solve_constraint). `r` is the bond at the start of the step; `alpha` the
// constraint's α̃, which a coarse level's limit ignores: a limit is rigid and moves its ends by
// the masses they stand for. Shared by solve_color and the fused kernel.
struct Solved {
    pi: vec4<f32>,
    pj: vec4<f32>,
    lambda: f32,
}

fn solve_pair(params: StepParams, con: Constraint, pi: vec4<f32>, pj: vec4<f32>, r: vec3<f32>, held: vec2<f32>, alpha: f32, lambda0: f32) -> Solved {
    let limit = (con.packed & 3u) == LIMIT_KIND;
    var w = vec2<f32>(pi.w, pj.w);
    var a = alpha;
    // A limit holds an end that contact holds (`held`: the previous positions' w) as it holds
    // a pin, so a level carries what hangs from a support to it.
    if (limit) {
        w = limit_weights(con.packed, unheld(pi.w, held.x), unheld(pj.w, held.y));
        a = 0.0;
    }
    let step = xpbd_step(params, con.rest, vec4<f32>(pi.xyz, w.x), vec4<f32>(pj.xyz, w.y), r, a, lambda0, limit);
    return Solved(
        vec4<f32>(pi.xyz + step.xyz * (step.w * w.x), pi.w),
        vec4<f32>(pj.xyz - step.xyz * (step.w * w.y), pj.w),
        lambda0 + step.w,
    );
}

// The strain limit (SolverParams::strain_limit) on one constraint (CPU:
// cpu::common::limit_pair): a structural edge (kind 0, not a stencil) longer than `limit` ×
// its rest length is shortened to it (by `relax` × its excess: `limit_relax`), its ends moving
// along it by their inverse masses. An end
// that contact holds stays (`held`, as a coarse level's limit reads it) in frames whose
// StepParams say so (`limit_held`); in others it moves too. `moved` is false when nothing
// changed (then the caller writes nothing). Shared by limit_color and the fused kernel.
struct Limited {
    pi: vec4<f32>,
    pj: vec4<f32>,
    moved: bool,
}

// Whether the strain limit applies to `con`: a structural edge (kind 0), not a stencil's
// record (CPU: cpu::solve_color::is_structural). Callers test it before they load the ends.
fn is_structural(con: Constraint) -> bool {
    return (con.packed & (STENCIL | 3u)) == 0u;
}

// What the strain limit reads as held of two particles' previous positions' w (CPU:
// cpu::common::limit_held): their contact flags in frames where the limit holds what static
// friction holds (StepParams::limit_holds, frames with a box), else nothing. A box's edge
// pushes run after the limit and need a corner's stuck particles to stay; elsewhere a stuck
// particle held fixed keeps the edges between two supports stretched past the limit for good.
fn limit_held(params: StepParams, wi: f32, wj: f32) -> vec2<f32> {
    return select(vec2<f32>(0.0), vec2<f32>(wi, wj), params.limit_holds != 0u);
}

// How many times the strain limit sweeps in a substep (CPU: cpu::common::limit_sweeps_in):
// `end_sweeps` in the frame's last substep (`last`) when the frame has them, else
// `limit_sweeps`.
fn limit_sweeps_in(params: StepParams, last: bool) -> u32 {
    return select(params.limit_sweeps, params.end_sweeps, last && params.end_sweeps > 0u);
}

// The factor of the strain limit's corrections in a substep (CPU: cpu::common::limit_relax):
// LIMIT_END_RELAX in the frame-end sweeps, 1 in any other.
fn limit_relax(params: StepParams, last: bool) -> f32 {
    return select(1.0, LIMIT_END_RELAX, last && params.end_sweeps > 0u);
}

fn limit_pair(limit: f32, relax: f32, con: Constraint, pi: vec4<f32>, pj: vec4<f32>, held: vec2<f32>) -> Limited {
    let unchanged = Limited(pi, pj, false);
    if (!is_structural(con)) {
        return unchanged;
    }
    let wi = unheld(pi.w, held.x);
    let wj = unheld(pj.w, held.y);
    let w_sum = wi + wj;
    if (w_sum == 0.0) {
        return unchanged;
    }
    let d = pi.xyz - pj.xyz;
    let len2 = dot(d, d);
    let longest = limit * con.rest;
    if (len2 <= longest * longest) {
        return unchanged;
    }
    let len = sqrt(len2);
    // Over-relaxed, never shorter than half its rest length: past 1.83 × it (at the aim of
    // 1.09, relaxed by 1.8) an edge shortened by 1.8 × its excess would end shorter, and past
    // 2.45 × inside out, which pumped a sheet without coarse levels to divergence.
    let k = min((len - longest) * relax, len - 0.5 * con.rest) / (len * w_sum);
    return Limited(vec4<f32>(pi.xyz - d * (k * wi), pi.w), vec4<f32>(pj.xyz + d * (k * wj), pj.w), true);
}

// A mesh's isometric bending stencil (Rust: Constraint::stencil) is two constraint records:
// the head (the edge's ends, weight k0, the material) and the tail (the opposite vertices,
// weight k1, and k2 in its datum). Both carry STENCIL; a color holds stencils only or none.
const STENCIL: u32 = 0x80000000u;
const DATUM_MASK: u32 = 0x0fffffffu;

// Its α̃'s index in `materials`: the material row's fourth entry (the curvature compliance).
fn stencil_slot(head: Constraint) -> u32 {
    return ((head.packed >> 2u) & DATUM_MASK) * 4u + 3u;
}

// A constraint's α̃ index in `materials` (four floats a material): its kind's, or for a
// stencil the fourth.
fn material_slot(con: Constraint) -> u32 {
    if ((con.packed & STENCIL) != 0u) {
        return stencil_slot(con);
    }
    return con.packed;
}

// The stencil's four weights (they sum to zero).
fn stencil_weights(head: Constraint, tail: Constraint) -> vec4<f32> {
    let k2 = bitcast<f32>(((tail.packed >> 2u) & DATUM_MASK) << 4u);
    return vec4<f32>(head.rest, tail.rest, k2, -(head.rest + tail.rest + k2));
}

// The four particles after one XPBD step of a stencil, and its new multiplier (CPU:
// cpu::solve_color::solve_stencil). C = |κ|, κ = Σ k_a x_a (the curvature vector, zero when
// the four lie flat as at rest), ∇_a C = k_a κ/|κ|:
//   Δλ = ω (−C − α̃ λ) / (Σ w_a k_a² + α̃),  x_a += w_a k_a (κ/|κ|) Δλ
struct SolvedStencil {
    p0: vec4<f32>,
    p1: vec4<f32>,
    p2: vec4<f32>,
    p3: vec4<f32>,
    lambda: f32,
}

fn solve_stencil(params: StepParams, k: vec4<f32>, p0: vec4<f32>, p1: vec4<f32>, p2: vec4<f32>, p3: vec4<f32>, alpha: f32, lambda0: f32) -> SolvedStencil {
    let kappa = k.x * p0.xyz + k.y * p1.xyz + k.z * p2.xyz + k.w * p3.xyz;
    let c = length(kappa);
    let w = vec4<f32>(p0.w, p1.w, p2.w, p3.w);
    let move_by = w * k;
    // Summed in order, not with dot(), so the CPU twin rounds alike.
    let denominator = move_by.x * k.x + move_by.y * k.y + move_by.z * k.z + move_by.w * k.w + alpha;
    // Flat (no direction to move along) or nothing can move.
    if (c < 1e-9 || denominator <= 0.0) {
        return SolvedStencil(p0, p1, p2, p3, lambda0);
    }
    let d_lambda = (-c - alpha * lambda0) * params.over_relaxation / denominator;
    let step = kappa * (d_lambda / c);
    return SolvedStencil(
        vec4<f32>(p0.xyz + step * move_by.x, p0.w),
        vec4<f32>(p1.xyz + step * move_by.y, p1.w),
        vec4<f32>(p2.xyz + step * move_by.z, p2.w),
        vec4<f32>(p3.xyz + step * move_by.w, p3.w),
        lambda0 + d_lambda,
    );
}

// A membrane triangle (Rust: Constraint::triangle) is two records, both with STENCIL and
// kind 0 (a bending stencil's are kind 2): the head (particles 0 and 1, m0, the material in
// the datum's low 18 bits and the warp's direction in its top 10), the tail (particle 2,
// particle 0 again, m2, and m1 in its datum). m is the inverse of the rest edges in a frame
// along the first edge, [[m0, m1], [0, m2]]; the warp is turned from that edge by the angle
// whose half has tangent t = (q − 512) / 512 (no sine, so both backends round alike).
const TRIANGLE_MATERIAL_MASK: u32 = 0x3ffffu;
// A warp or weft shorter than this (1 at rest) is a triangle collapsed onto a line or a
// point: no direction to move along, and its reciprocal would overflow.
const TRIANGLE_COLLAPSED: f32 = 1e-6;

fn is_triangle(con: Constraint) -> bool {
    return (con.packed & (STENCIL | 3u)) == STENCIL;
}

// The warp and weft as weights on the triangle's edges e1 = x1 − x0 and e2 = x2 − x0:
// f_u = e1 g.x + e2 g.y, f_v = e1 g.z + e2 g.w (Rust: cpu::common::triangle_frame).
fn triangle_frame(head: Constraint, tail: Constraint) -> vec4<f32> {
    let m1 = bitcast<f32>(((tail.packed >> 2u) & DATUM_MASK) << 4u);
    let q = ((head.packed >> 2u) & DATUM_MASK) >> 18u;
    let t = (f32(q) - 512.0) / 512.0;
    let t2 = t * t;
    let c = (1.0 - t2) / (1.0 + t2);
    let s = (2.0 * t) / (1.0 + t2);
    return vec4<f32>(head.rest * c + m1 * s, tail.rest * s, m1 * c - head.rest * s, tail.rest * c);
}

// Its α̃ factor: the edge compliance over twice its rest area (1 / det m = 2 A).
fn triangle_area_scale(head: Constraint, tail: Constraint) -> f32 {
    return head.rest * tail.rest;
}

// Its material row's first entry (the stretch α̃; the shear's is the next).
fn triangle_slot(head: Constraint) -> u32 {
    return (((head.packed >> 2u) & DATUM_MASK) & TRIANGLE_MATERIAL_MASK) * 4u;
}

// The three particles after one XPBD step of each of a triangle's two constraints, in turn
// (strain based dynamics, Müller et al. 2014), and their new multipliers (CPU:
// cpu::common::solve_triangle):
//   stretch  C = |(|f_u| − 1, |f_v| − 1)|, both directions' stretch as one constraint
//   shear    C = f_u · f_v, the cosine between warp and weft while they keep their length
//            (SBD's cosine proper has a gradient that vanishes as a triangle shears flat: its
//            steps threw particles metres, docs/quality.md)
// with ∇_a C = k_u[a] ∂C/∂f_u + k_v[a] ∂C/∂f_v (k the vertices' weights on f_u and f_v), then
//   Δλ = ω (−C − α̃ λ) / (Σ w_a |∇_a C|² + α̃),  x_a += w_a ∇_a C Δλ.
struct SolvedTriangle {
    p0: vec4<f32>,
    p1: vec4<f32>,
    p2: vec4<f32>,
    lambda: vec2<f32>,
}

// A triangle's three positions, and the multiplier change of the step that moved them.
struct TriangleStep {
    x0: vec3<f32>,
    x1: vec3<f32>,
    x2: vec3<f32>,
    d_lambda: f32,
}

// One XPBD step of one of a triangle's constraints: `c` its value, `du` and `dv` its gradient
// on f_u and f_v.
fn triangle_step(params: StepParams, g: vec4<f32>, w: vec3<f32>, x: TriangleStep, du: vec3<f32>, dv: vec3<f32>, c: f32, alpha: f32, lambda0: f32) -> TriangleStep {
    let g0 = du * (-(g.x + g.y)) + dv * (-(g.z + g.w));
    let g1 = du * g.x + dv * g.z;
    let g2 = du * g.y + dv * g.w;
    let denominator = w.x * dot(g0, g0) + w.y * dot(g1, g1) + w.z * dot(g2, g2) + alpha;
    if (denominator <= 0.0) {
        return TriangleStep(x.x0, x.x1, x.x2, 0.0);
    }
    let d = (-c - alpha * lambda0) * params.over_relaxation / denominator;
    return TriangleStep(x.x0 + g0 * (w.x * d), x.x1 + g1 * (w.y * d), x.x2 + g2 * (w.z * d), d);
}

fn solve_triangle(params: StepParams, g: vec4<f32>, p0: vec4<f32>, p1: vec4<f32>, p2: vec4<f32>, alpha: vec2<f32>, lambda0: vec2<f32>) -> SolvedTriangle {
    let w = vec3<f32>(p0.w, p1.w, p2.w);
    var x = TriangleStep(p0.xyz, p1.xyz, p2.xyz, 0.0);
    var lambda = lambda0;
    // Stretch.
    var fu = (x.x1 - x.x0) * g.x + (x.x2 - x.x0) * g.y;
    var fv = (x.x1 - x.x0) * g.z + (x.x2 - x.x0) * g.w;
    let lu = length(fu);
    let lv = length(fv);
    let su = lu - 1.0;
    let sv = lv - 1.0;
    let stretch = sqrt(su * su + sv * sv);
    if (stretch > 1e-9 && lu > TRIANGLE_COLLAPSED && lv > TRIANGLE_COLLAPSED) {
        x = triangle_step(params, g, w, x, fu * (su / (stretch * lu)), fv * (sv / (stretch * lv)), stretch, alpha.x, lambda.x);
        lambda.x += x.d_lambda;
    }
    // Shear, from where the stretch left them.
    fu = (x.x1 - x.x0) * g.x + (x.x2 - x.x0) * g.y;
    fv = (x.x1 - x.x0) * g.z + (x.x2 - x.x0) * g.w;
    x = triangle_step(params, g, w, x, fv, fu, dot(fu, fv), alpha.y, lambda.y);
    lambda.y += x.d_lambda;
    return SolvedTriangle(vec4<f32>(x.x0, p0.w), vec4<f32>(x.x1, p1.w), vec4<f32>(x.x2, p2.w), lambda);
}

// The point nearest x within distance r of c.
fn into_ball(x: vec3<f32>, c: vec3<f32>, r: f32) -> vec3<f32> {
    let d = x - c;
    let len2 = dot(d, d);
    if (len2 > r * r) {
        return c + d * (r / sqrt(len2));
    }
    return x;
}

// A particle's two tethers (a particle with one anchor passes it twice): x moved, by
// tether_stiffness, to the nearest point within tether_scale × rest of both anchors. That
// point is found in closed form, not by pulling towards each anchor in turn: next to the
// straight line between two pins at rest distance the two balls barely overlap, and pulls in
// turn converged so slowly there that the standard scene's top rows stayed stretched.
fn tether_pull(
    params: StepParams,
    x: vec3<f32>,
    a: vec3<f32>,
    rest_a: f32,
    b: vec3<f32>,
    rest_b: f32,
) -> vec3<f32> {
    let ra = params.tether_scale * rest_a;
    let rb = params.tether_scale * rest_b;
    // Unilateral: a point already within both is left alone (pa == x).
    let pa = into_ball(x, a, ra);
    var nearest = pa;
    if (dot(pa - b, pa - b) > rb * rb) {
        let pb = into_ball(x, b, rb);
        nearest = pb;
        if (dot(pb - a, pb - a) > ra * ra) {
            nearest = lens_rim(x, a, ra, b, rb);
        }
    }
    return x + (nearest - x) * params.tether_stiffness;
}

// The point nearest x on the circle where the spheres of radius ra about a and rb about b
// meet (where they do not, the point between them on the line of centres).
fn lens_rim(x: vec3<f32>, a: vec3<f32>, ra: f32, b: vec3<f32>, rb: f32) -> vec3<f32> {
    let ab = b - a;
    let d = length(ab);
    if (d < 1e-9) {
        return into_ball(x, a, min(ra, rb));
    }
    let u = ab / d;
    // Overlap along the line of centres. The circle's distance h from a and radius ρ come
    // from it, not from differences of squares of nearly equal lengths: f32 cancels all but
    // a few bits of those a metre from the pins, where ρ is one edge.
    let overlap = ra + rb - d;
    var h = 0.5 * (d + ra - rb);
    var rho = 0.0;
    if (overlap > 0.0) {
        let ra_minus_h = overlap * (rb + d - ra) / (2.0 * d);
        h = ra - ra_minus_h;
        rho = sqrt(max(ra_minus_h * (ra + h), 0.0));
    }
    let xa = x - a;
    let off_axis = xa - u * dot(xa, u);
    let off_len = length(off_axis);
    var rim = a + u * h;
    if (off_len > 1e-12) {
        rim += off_axis * (rho / off_len);
    }
    return rim;
}

fn non_finite(v: f32) -> bool {
    return (bitcast<u32>(v) & 0x7f800000u) == 0x7f800000u;
}

// The divergence test: non-finite (told from the exponent bits, since WGSL implementations may
// assume floats are finite and fold `x != x` away) or farther than the limit from the scene's
// centre.
fn is_bad(params: StepParams, x: vec3<f32>) -> bool {
    let d = x - params.center.xyz;
    return non_finite(x.x) || non_finite(x.y) || non_finite(x.z)
        || dot(d, d) > params.center.w * params.center.w;
}

