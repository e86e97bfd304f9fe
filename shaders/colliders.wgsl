// Colliders: shapes, their signed distances, and a particle's contact response (CPU twin:
// src/cpu/collide.rs). Prepended, after common.wgsl, to the kernels that collide (collide.wgsl,
// solve_cloths.wgsl); those declare the two tables this file reads:
//   collider_table: array<vec4<u32>>  rows of four words: each collider's ColliderRecord
//                                     (COLLIDER_ROWS rows, Rust: config::ColliderRecord), then
//                                     the broad phase's words (Rust: contact::broadphase), both
//                                     written every frame; one buffer, so the fused kernel fits
//                                     a browser's 8 storage buffers (collider, cell_word read it)
//   distance_grid:  array<f32>        every mesh collider's samples (Rust: contact::DistanceGrid)

// a (1 − t) + b t, spelled out: WGSL leaves `mix`'s rounding to the implementation, and
// SwiftShader rounds it unlike lavapipe and the CPU twin (which spells it so), and a moving sphere
// amplified that to 7 mm in 60 frames (web/test). Spelled out, every GPU rounds as the twin.
fn lerp1(a: f32, b: f32, t: f32) -> f32 {
    return a * (1.0 - t) + b * t;
}

fn lerp3(a: vec3<f32>, b: vec3<f32>, t: f32) -> vec3<f32> {
    return a * (1.0 - t) + b * t;
}

fn lerp4(a: vec4<f32>, b: vec4<f32>, t: f32) -> vec4<f32> {
    return a * (1.0 - t) + b * t;
}

// Shape kinds (Rust: contact::Shape::kind).
const COLLIDER_SPHERE: u32 = 0u;
const COLLIDER_CAPSULE: u32 = 1u;
const COLLIDER_PLANE: u32 = 2u;
const COLLIDER_CUBOID: u32 = 3u;
const COLLIDER_MESH: u32 = 4u;

// The shape kinds a frame's colliders have, bit k for kind k (Rust: config::collider_kinds;
// every kind by default, config::COLLIDER_KIND_COUNT bits); the host compiles the kernels that
// call shape_distance and shape_normal for the set it has (gpu::passes), and an arm
// whose bit is clear is compiled out. A shape switch costs every arm that any lane of a
// workgroup may take: on lavapipe a 128² sheet's collide stage with one sphere took 25 ms with
// every arm in, 9 with the sphere's and the plane's alone. The CPU twin has no such switch:
// the arms it leaves out are the ones no collider of the frame takes.
override COLLIDER_KINDS: u32 = 31u;

// False when no collider of the frame is of `kind` (its arm is compiled out).
fn kind_compiled(kind: u32) -> bool {
    return (COLLIDER_KINDS & (1u << kind)) != 0u;
}

// Steps of the sphere tracing that follows a particle's path relative to a collider.
const MARCH_STEPS: u32 = 12u;
// The most a collider's distance changes along a unit of path (Rust: config::DISTANCE_SLOPE_BOUND).
const DISTANCE_SLOPE_BOUND: f32 = 4.0;

// One collider, as the host writes it every frame: its shape in its own frame, its material,
// and its pose at the start and the end of the frame (interpolated per substep).
struct ColliderRecord {
    kind: u32,
    grid_offset: u32,      // mesh: its first sample in distance_grid
    pad0: u32,
    pad1: u32,
    grid_dims: vec4<u32>,  // mesh: samples along x, y, z
    material: vec4<f32>,   // thickness (m), friction μ, restitution e, 1 for a thin capsule (collide_edges)
    shape_a: vec4<f32>,    // sphere: (0,0,0,r); capsule: a, r_a; plane: n, d; cuboid: half extents; mesh: grid origin, cell
    shape_b: vec4<f32>,    // capsule: b, r_b
    bound_from_a: vec4<f32>, // a world capsule holding it at the frame's start: one end, its radius (< 0: a plane)
    bound_from_b: vec4<f32>, // the capsule's other end at the frame's start
    bound_to_a: vec4<f32>,   // its ends at the frame's end
    bound_to_b: vec4<f32>,
    from_position: vec4<f32>,
    from_rotation: vec4<f32>,  // a unit quaternion (x, y, z, w)
    to_position: vec4<f32>,
    to_rotation: vec4<f32>,
}

// Rows of the collider table a ColliderRecord takes (Rust: config::COLLIDER_ROWS), and the rows
// of the fields the broad phase's culling reads (their offsets / 16: tests/shaders.rs checks).
const COLLIDER_ROWS: u32 = 13u;
const ROW_MATERIAL: u32 = 2u;
const ROW_BOUND_FROM_A: u32 = 5u;
const ROW_BOUND_FROM_B: u32 = 6u;
const ROW_BOUND_TO_A: u32 = 7u;
const ROW_BOUND_TO_B: u32 = 8u;

// Row `row` of collider k's record, as floats.
fn collider_row(k: u32, row: u32) -> vec4<f32> {
    return bitcast<vec4<f32>>(collider_table[COLLIDER_ROWS * k + row]);
}

// Collider k's whole record.
fn collider(k: u32) -> ColliderRecord {
    let head = collider_table[COLLIDER_ROWS * k];
    return ColliderRecord(
        head.x, head.y, head.z, head.w,
        collider_table[COLLIDER_ROWS * k + 1u],
        collider_row(k, 2u), collider_row(k, 3u), collider_row(k, 4u),
        collider_row(k, 5u), collider_row(k, 6u), collider_row(k, 7u), collider_row(k, 8u),
        collider_row(k, 9u), collider_row(k, 10u), collider_row(k, 11u), collider_row(k, 12u),
    );
}

// Word i of the broad phase, which follows the `count` colliders' records.
fn cell_word(count: u32, i: u32) -> u32 {
    return collider_table[COLLIDER_ROWS * count + i / 4u][i % 4u];
}

// A rigid pose: x_world = rotate(rotation, x_local) + position.
struct Pose {
    position: vec3<f32>,
    rotation: vec4<f32>,
}

// v + 2 (w c + q × c), c = q × v: the 2 outside, as lavapipe's compiler would put it anyway
// (Rust twin: cpu::collide::quat_rotate).
fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let c = cross3(q.xyz, v);
    return v + 2.0 * (q.w * c + cross3(q.xyz, c));
}

fn to_local(pose: Pose, x: vec3<f32>) -> vec3<f32> {
    return quat_rotate(vec4<f32>(-pose.rotation.xyz, pose.rotation.w), x - pose.position);
}

fn to_world(pose: Pose, q: vec3<f32>) -> vec3<f32> {
    return quat_rotate(pose.rotation, q) + pose.position;
}

// The collider's pose at fraction t of the frame: position lerped, rotation nlerped along the
// shorter arc.
fn collider_pose(c: ColliderRecord, t: f32) -> Pose {
    var to = c.to_rotation;
    if (dot(c.from_rotation, to) < 0.0) {
        to = -to;
    }
    let q = unit4(lerp4(c.from_rotation, to, t));
    return Pose(lerp3(c.from_position.xyz, c.to_position.xyz, t), q);
}

// q / |q|, its squares summed in order: WGSL's normalize may take an approximate inverse
// square root (llvmpipe's does), which the CPU twin would not match bit for bit
// (Rust: cpu::collide::unit4).
fn unit4(q: vec4<f32>) -> vec4<f32> {
    return q / sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
}

// Where q falls in a collider's distance grid: g in cells from the grid's origin, inside the
// same clamped to the grid, f the fraction within the cell, and the cell's eight corner values
// (c x y z: c100 is one step along x from c000), which grid_distance and grid_normal both read.
struct GridCell {
    g: vec3<f32>,
    inside: vec3<f32>,
    f: vec3<f32>,
    // The corner values, x fastest: the cell's lower layer (z), then its upper one.
    c000: f32, c100: f32, c010: f32, c110: f32,
    c001: f32, c101: f32, c011: f32, c111: f32,
}

fn grid_cell(c: ColliderRecord, q: vec3<f32>) -> GridCell {
    let cell = c.shape_a.w;
    let dims = c.grid_dims.xyz;
    let top = vec3<f32>(dims - vec3<u32>(1u));
    let g = (q - c.shape_a.xyz) / cell;
    let inside = clamp(g, vec3<f32>(0.0), top);
    let base = min(vec3<u32>(floor(inside)), dims - vec3<u32>(2u));
    let row = dims.x;
    let layer = dims.x * dims.y;
    let i = c.grid_offset + base.z * layer + base.y * row + base.x;
    // The eight corners of the cell, x fastest (no local array: drivers keep those in memory).
    return GridCell(
        g, inside, inside - vec3<f32>(base),
        distance_grid[i], distance_grid[i + 1u],
        distance_grid[i + row], distance_grid[i + row + 1u],
        distance_grid[i + layer], distance_grid[i + layer + 1u],
        distance_grid[i + layer + row], distance_grid[i + layer + row + 1u],
    );
}

// Trilinear sample of a mesh collider's grid at q (its frame); outside the grid, the distance
// to the grid's box plus the value at its nearest point.
fn grid_distance(c: ColliderRecord, q: vec3<f32>) -> f32 {
    let at = grid_cell(c, q);
    let outside = length(at.g - at.inside) * c.shape_a.w;
    let f = at.f;
    let x00 = lerp1(at.c000, at.c100, f.x);
    let x10 = lerp1(at.c010, at.c110, f.x);
    let x01 = lerp1(at.c001, at.c101, f.x);
    let x11 = lerp1(at.c011, at.c111, f.x);
    return lerp1(lerp1(x00, x10, f.y), lerp1(x01, x11, f.y), f.z) + outside;
}

// The direction in which grid_distance grows fastest at q, as a unit vector: the gradient of
// the same trilinear sample, from the same eight values (central differences would read 48),
// and outside the grid the way out of its box as well.
fn grid_normal(c: ColliderRecord, q: vec3<f32>) -> vec3<f32> {
    let cell = c.shape_a.w;
    let at = grid_cell(c, q);
    let g = at.g;
    let inside = at.inside;
    let f = at.f;
    // In cells; an axis on which q is outside the box (clamped) does not move the sample.
    let along = vec3<f32>(
        lerp1(lerp1(at.c100 - at.c000, at.c110 - at.c010, f.y), lerp1(at.c101 - at.c001, at.c111 - at.c011, f.y), f.z),
        lerp1(lerp1(at.c010 - at.c000, at.c110 - at.c100, f.x), lerp1(at.c011 - at.c001, at.c111 - at.c101, f.x), f.z),
        lerp1(lerp1(at.c001 - at.c000, at.c101 - at.c100, f.x), lerp1(at.c011 - at.c010, at.c111 - at.c110, f.x), f.y),
    );
    var grad = select(vec3<f32>(0.0), along, g == inside);
    let out = g - inside;
    let away = length(out);
    if (away > 0.0) {
        // The distance to the box grows by a cell per cell along `out`.
        grad += out / away * cell;
    }
    return unit_or_up(grad);
}

// Distance from q (in the collider's frame) to a tapered capsule: the hull of the spheres
// (a, ra) and (b, rb) (Quílez's round cone; exact). A capsule whose one sphere holds the other
// is that sphere.
fn capsule_distance(q: vec3<f32>, a: vec3<f32>, ra: f32, b: vec3<f32>, rb: f32) -> f32 {
    let ba = b - a;
    let l2 = dot(ba, ba);
    let rr = ra - rb;
    let a2 = l2 - rr * rr;
    if (a2 <= 1e-12) {
        if (ra >= rb) {
            return length(q - a) - ra;
        }
        return length(q - b) - rb;
    }
    let pa = q - a;
    let y = dot(pa, ba);
    let z = y - l2;
    let w = pa * l2 - ba * y;
    let x2 = dot(w, w);
    let y2 = y * y * l2;
    let z2 = z * z * l2;
    let k = sign(rr) * rr * rr * x2;
    if (sign(z) * a2 * z2 > k) {
        return sqrt(x2 + z2) / l2 - rb;
    }
    if (sign(y) * a2 * y2 < k) {
        return sqrt(x2 + y2) / l2 - ra;
    }
    return (sqrt(x2 * a2 / l2) + y * rr) / l2 - ra;
}

// Signed distance from q (in the collider's frame) to its surface. (An arm compiled out, and the
// default, which no kind takes, return what no collider of the frame is given: COLLIDER_KINDS.)
fn shape_distance(c: ColliderRecord, q: vec3<f32>) -> f32 {
    switch (c.kind) {
        case COLLIDER_SPHERE: {
            if (!kind_compiled(COLLIDER_SPHERE)) {
                return 1e30;
            }
            return length(q) - c.shape_a.w;
        }
        case COLLIDER_CAPSULE: {
            if (!kind_compiled(COLLIDER_CAPSULE)) {
                return 1e30;
            }
            return capsule_distance(q, c.shape_a.xyz, c.shape_a.w, c.shape_b.xyz, c.shape_b.w);
        }
        case COLLIDER_PLANE: {
            if (!kind_compiled(COLLIDER_PLANE)) {
                return 1e30;
            }
            return dot(c.shape_a.xyz, q) - c.shape_a.w;
        }
        case COLLIDER_CUBOID: {
            if (!kind_compiled(COLLIDER_CUBOID)) {
                return 1e30;
            }
            let d = abs(q) - c.shape_a.xyz;
            return length(max(d, vec3<f32>(0.0))) + min(max(d.x, max(d.y, d.z)), 0.0);
        }
        case COLLIDER_MESH: {
            if (!kind_compiled(COLLIDER_MESH)) {
                return 1e30;
            }
            return grid_distance(c, q);
        }
        default: {
            return 1e30;
        }
    }
}

// The outward unit normal of a tapered capsule at q: the gradient of capsule_distance, branch
// by branch (towards the nearer end sphere's centre, or across the cone's slanted side).
fn capsule_normal(q: vec3<f32>, a: vec3<f32>, ra: f32, b: vec3<f32>, rb: f32) -> vec3<f32> {
    let ba = b - a;
    let l2 = dot(ba, ba);
    let rr = ra - rb;
    let a2 = l2 - rr * rr;
    if (a2 <= 1e-12) {
        if (ra >= rb) {
            return unit_or_up(q - a);
        }
        return unit_or_up(q - b);
    }
    let pa = q - a;
    let y = dot(pa, ba);
    let z = y - l2;
    let w = pa * l2 - ba * y;
    let x2 = dot(w, w);
    let k = sign(rr) * rr * rr * x2;
    if (sign(z) * a2 * z * z * l2 > k) {
        return unit_or_up(q - b);
    }
    if (sign(y) * a2 * y * y * l2 < k) {
        return unit_or_up(q - a);
    }
    // On the cone: the radial direction tilted by the taper.
    var radial = w / max(sqrt(x2), 1e-30);
    if (x2 < 1e-30) {
        let side = cross3(ba, select(vec3<f32>(1.0, 0.0, 0.0), vec3<f32>(0.0, 1.0, 0.0), abs(ba.x) > abs(ba.y)));
        radial = side / length(side);
    }
    return (radial * sqrt(a2) + ba * (rr / sqrt(l2))) / sqrt(l2);
}

fn unit_or_up(v: vec3<f32>) -> vec3<f32> {
    let len = length(v);
    if (len < 1e-20) {
        return vec3<f32>(0.0, 1.0, 0.0);
    }
    return v / len;
}

// The outward unit normal at q: exact for the analytic shapes; for a mesh, the gradient of the
// grid's trilinear sample (only contacts ask for it).
fn shape_normal(c: ColliderRecord, q: vec3<f32>) -> vec3<f32> {
    switch (c.kind) {
        case COLLIDER_SPHERE: {
            if (!kind_compiled(COLLIDER_SPHERE)) {
                return vec3<f32>(0.0, 1.0, 0.0);
            }
            return unit_or_up(q);
        }
        case COLLIDER_CAPSULE: {
            if (!kind_compiled(COLLIDER_CAPSULE)) {
                return vec3<f32>(0.0, 1.0, 0.0);
            }
            return capsule_normal(q, c.shape_a.xyz, c.shape_a.w, c.shape_b.xyz, c.shape_b.w);
        }
        case COLLIDER_PLANE: {
            if (!kind_compiled(COLLIDER_PLANE)) {
                return vec3<f32>(0.0, 1.0, 0.0);
            }
            return c.shape_a.xyz;
        }
        case COLLIDER_CUBOID: {
            if (!kind_compiled(COLLIDER_CUBOID)) {
                return vec3<f32>(0.0, 1.0, 0.0);
            }
            let d = abs(q) - c.shape_a.xyz;
            let s = select(vec3<f32>(-1.0), vec3<f32>(1.0), q >= vec3<f32>(0.0));
            if (max(d.x, max(d.y, d.z)) > 0.0) {
                return unit_or_up(max(d, vec3<f32>(0.0)) * s);
            }
            // Inside: out through the nearest face.
            if (d.x >= d.y && d.x >= d.z) {
                return vec3<f32>(s.x, 0.0, 0.0);
            }
            if (d.y >= d.z) {
                return vec3<f32>(0.0, s.y, 0.0);
            }
            return vec3<f32>(0.0, 0.0, s.z);
        }
        case COLLIDER_MESH: {
            if (!kind_compiled(COLLIDER_MESH)) {
                return vec3<f32>(0.0, 1.0, 0.0);
            }
            return grid_normal(c, q);
        }
        default: {
            return vec3<f32>(0.0, 1.0, 0.0);
        }
    }
}

// A particle after meeting one collider: its position and previous position, whether it
// touched, and whether static friction held it (it slid less than μ times its depth).
struct Contact {
    x: vec3<f32>,
    x_prev: vec3<f32>,
    hit: bool,
    stuck: bool,
}

// The contact flag the previous position's w carries into the next substep: 1 for a particle
// held by static friction, else 0 (Rust: cpu::collide::Contact::held).
fn contact_flag(c: Contact) -> f32 {
    return select(0.0, 1.0, c.hit && c.stuck);
}

// Moves a particle out of collider c over the substep from frame fraction t_from to t_to:
// x is where it is now (the end of the substep), x_prev where it was at the substep's start.
//
// Where: the particle's path relative to the collider (x_prev in the collider's frame at the
// start, x in it at the end) is sphere-traced for the point where it first comes within the
// thickness r. If the end is within r and on the side it entered from, it moves out along the
// normal there; if the path went past the middle of a thin part, or right through it, it goes
// back to the entry point. So a collider moving fast, or a particle falling fast, does not
// teleport cloth through it.
// Friction: the particle's tangential motion relative to the collider's surface over the
// substep is removed up to μ times the depth it was pushed out by (static), else reduced by
// that much (kinetic): Coulomb friction, taken from the velocity (the previous position)
// rather than the position, so the constraints' corrections stay and friction cannot freeze
// a stretched edge (NvCloth's friction impulse). A stuck particle also gives back the
// substep's `pull` along the surface (gravity, wind: accel · accel_scale), as far as it
// moved that way, so static friction holds it exactly where it is.
// Restitution: the previous position is set so the implied normal velocity relative to the
// collider is −e times the one it arrived with.
fn collide_with(c: ColliderRecord, t_from: f32, t_to: f32, x: vec3<f32>, x_prev: vec3<f32>, pull: vec3<f32>, escape: f32) -> Contact {
    let r = c.material.x;
    let to = collider_pose(c, t_to);
    let start = collider_pose(c, t_from);
    let q1 = to_local(to, x);
    let q0 = to_local(start, x_prev);
    let d1 = shape_distance(c, q1);
    let path = q1 - q0;
    let len = length(path);
    // How close to the surface the march counts as there.
    let tolerance = 1e-6 * max(r, 1e-3);
    // Outside by more than the relative path could have crossed (Rust:
    // config::DISTANCE_SLOPE_BOUND): nothing entered, and the start's distance is not read.
    if (d1 - r > DISTANCE_SLOPE_BOUND * len + tolerance) {
        return Contact(x, x_prev, false, false);
    }
    // Sphere-trace the relative path from q0 for the first point within r.
    var entered = false;
    var q_entry = q0;
    let d0 = shape_distance(c, q0);
    if (d0 >= r) {
        var t = 0.0;
        for (var k = 0u; k < MARCH_STEPS; k++) {
            let q = q0 + path * t;
            // The first step starts at q0, whose distance is known.
            var gap = d0 - r;
            if (k > 0u) {
                gap = shape_distance(c, q) - r;
            }
            if (gap <= tolerance) {
                entered = true;
                q_entry = q;
                break;
            }
            if (len < 1e-12) {
                break;
            }
            t += gap / len;
            if (t >= 1.0) {
                break;
            }
        }
    }
    var n_entry = vec3<f32>(0.0);
    if (entered) {
        n_entry = shape_normal(c, q_entry);
    }
    var q_out = q1;
    var n = vec3<f32>(0.0);
    if (d1 < r) {
        n = shape_normal(c, q1);
        // One that started within the thickness (a cloth set down inside a collider) keeps
        // all but `escape` of its start's depth, so that it is not thrown out at once; one
        // that came in from outside keeps none.
        let keep = min(max((r - d0) - escape, 0.0), r - d1);
        q_out = q1 + n * (r - d1 - keep);
        // Past the middle of a thin part: the nearest way out is the far side; go back.
        if (entered && dot(n, n_entry) < 0.0) {
            n = n_entry;
            q_out = q_entry + n * max(r - shape_distance(c, q_entry), 0.0);
        }
    } else if (entered && dot(shape_normal(c, q1), n_entry) < 0.0) {
        // Right through a thin part within the substep.
        n = n_entry;
        q_out = q_entry + n * max(r - shape_distance(c, q_entry), 0.0);
    } else {
        return Contact(x, x_prev, false, false);
    }
    var x_out = to_world(to, q_out);
    let normal = quat_rotate(to.rotation, n);
    let depth = length(x_out - x);
    // The collider's own motion at the contact over the substep, and the particle's relative
    // to it (as it arrived, before being pushed out).
    let carried = x_out - to_world(start, q_out);
    let moved = x - x_prev - carried;
    let tangential = moved - normal * dot(moved, normal);
    let slide = length(tangential);
    let grip = c.material.y * depth;
    let stuck = slide <= grip;
    let pull_t = pull - normal * dot(pull, normal);
    let pull2 = dot(pull_t, pull_t);
    var held_back = vec3<f32>(0.0);
    if (stuck && pull2 > 1e-30) {
        held_back = pull_t * clamp(dot(tangential, pull_t) / pull2, 0.0, 1.0);
        x_out -= held_back;
    }
    var braked = tangential - held_back;
    if (!stuck) {
        braked = tangential * (grip / slide);
    }
    // Restitution: relative normal motion after = −e × (approaching motion before).
    let arriving = min(dot(moved, normal), 0.0);
    let now = dot(x_out - x_prev - carried, normal);
    let x_prev_out = x_prev + normal * (now + c.material.z * arriving) + braked;
    return Contact(x_out, x_prev_out, true, stuck);
}

// Culling, before the collider's record is read whole or any pose interpolated: can the
// particle's path over the substep [t_from, t_to] reach the capsule that holds collider k over
// it? Reads five rows only (a whole record is 13; most colliders are far from most
// particles).
fn collider_reaches(k: u32, t_from: f32, t_to: f32, x: vec3<f32>, x_prev: vec3<f32>) -> bool {
    let from_a = collider_row(k, ROW_BOUND_FROM_A);
    if (from_a.w < 0.0) {
        return true; // a plane reaches everywhere
    }
    let from_b = collider_row(k, ROW_BOUND_FROM_B).xyz;
    let to_a = collider_row(k, ROW_BOUND_TO_A).xyz;
    let to_b = collider_row(k, ROW_BOUND_TO_B).xyz;
    // The capsule at the substep's end, and how far any point of it moved over the substep.
    let a = lerp3(from_a.xyz, to_a, t_to);
    let b = lerp3(from_b, to_b, t_to);
    let sweep = max(length(to_a - from_a.xyz), length(to_b - from_b)) * (t_to - t_from);
    let reach = from_a.w + collider_row(k, ROW_MATERIAL).x + length(x - x_prev) + sweep;
    let ab = b - a;
    let s = clamp(dot(x - a, ab) / max(dot(ab, ab), 1e-30), 0.0, 1.0);
    return length(x - (a + ab * s)) <= reach;
}

// Whether collider k moves this frame anywhere near the box [lo, hi] (a sleeping cloth's
// bounds): such a collider wakes the cloth. A collider that stays put never does (a cloth asleep
// on it stays asleep); a moving plane reaches every box.
fn collider_wakes(k: u32, lo: vec3<f32>, hi: vec3<f32>) -> bool {
    let c = collider(k);
    if (all(c.from_position == c.to_position) && all(c.from_rotation == c.to_rotation)) {
        return false;
    }
    if (c.bound_from_a.w < 0.0) {
        return true;
    }
    // The box around the bounding capsule at both ends of the frame, grown by its radius and
    // the collider's thickness.
    let reach = c.bound_from_a.w + c.material.x;
    let box_lo = min(min(c.bound_from_a.xyz, c.bound_from_b.xyz), min(c.bound_to_a.xyz, c.bound_to_b.xyz)) - vec3<f32>(reach);
    let box_hi = max(max(c.bound_from_a.xyz, c.bound_from_b.xyz), max(c.bound_to_a.xyz, c.bound_to_b.xyz)) + vec3<f32>(reach);
    return all(box_lo <= hi) && all(box_hi >= lo);
}

// The broad phase (Rust: contact::broadphase, where the table's layout is): the entries
// [start, end) of the cell a particle at x (moved from x_prev over the substep) tests (outside
// the grid, the planes'), or (1, 0) when it tests every collider: no grid, or it moved more
// than the margin.
const BROADPHASE_HEADER: u32 = 8u;

fn collider_cell(count: u32, x: vec3<f32>, x_prev: vec3<f32>) -> vec2<u32> {
    let dims = vec3<u32>(cell_word(count, 4u), cell_word(count, 5u), cell_word(count, 6u));
    if (dims.x == 0u || length(x - x_prev) > bitcast<f32>(cell_word(count, 7u))) {
        return vec2<u32>(1u, 0u);
    }
    let origin = vec3<f32>(
        bitcast<f32>(cell_word(count, 0u)),
        bitcast<f32>(cell_word(count, 1u)),
        bitcast<f32>(cell_word(count, 2u)),
    );
    let g = floor((x - origin) / bitcast<f32>(cell_word(count, 3u)));
    var i = BROADPHASE_HEADER + dims.x * dims.y * dims.z;
    if (all(g >= vec3<f32>(0.0)) && all(g < vec3<f32>(dims))) {
        let c = vec3<u32>(g);
        i = BROADPHASE_HEADER + (c.z * dims.y + c.y) * dims.x + c.x;
    }
    return vec2<u32>(cell_word(count, i), cell_word(count, i + 1u));
}

// A free particle against every collider that can reach it, over the substep [t_from, t_to]
// of the frame: the colliders of its cell of the broad phase while it stays in that cell,
// every collider from where it left it otherwise. Either way the result is the one testing
// every collider in turn gives.
fn collide_all(count: u32, t_from: f32, t_to: f32, x_in: vec3<f32>, x_prev_in: vec3<f32>, pull: vec3<f32>, escape: f32) -> Contact {
    var result = Contact(x_in, x_prev_in, false, false);
    var next = 0u;
    let cell = collider_cell(count, x_in, x_prev_in);
    if (cell.x <= cell.y) {
        next = count;
        for (var j = cell.x; j < cell.y; j++) {
            let k = cell_word(count, j);
            if (!collider_reaches(k, t_from, t_to, result.x, result.x_prev)) {
                continue;
            }
            let c = collide_with(collider(k), t_from, t_to, result.x, result.x_prev, pull, escape);
            if (c.hit) {
                result = c;
                // Moved out of the cell (or too far): the rest, one by one.
                let now = collider_cell(count, result.x, result.x_prev);
                if (now.x != cell.x || now.y != cell.y) {
                    next = k + 1u;
                    break;
                }
            }
        }
    }
    for (var k = next; k < count; k++) {
        if (!collider_reaches(k, t_from, t_to, result.x, result.x_prev)) {
            continue;
        }
        let c = collide_with(collider(k), t_from, t_to, result.x, result.x_prev, pull, escape);
        if (c.hit) {
            result = c;
        }
    }
    return result;
}
