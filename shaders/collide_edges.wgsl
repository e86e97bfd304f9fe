// Box edges, and thin capsules' axes, against the cloth's triangles (CPU twin:
// src/cpu/collide_edges.rs). Particles alone cannot keep a box's corner or edge out of the
// cloth: one sharper than the spacing slips between them and pokes through a triangle (a
// table's corners through a tablecloth); nor a capsule thinner than about its spacing (a rod
// parts two rows of particles and the edges between them slip under it). So after `collide`,
// per substep:
//
//   edge_contacts        one thread per triangle: the deepest point of any box edge (its ends
//                        are the corners) or thin capsule's axis (with its radius) over the
//                        triangle and on its wrong side, closer than the thickness, becomes a
//                        push that moves the triangle off it whole (one with a pinned corner
//                        turns about it instead)
//   apply_edge_contacts  one thread per particle: the largest of its triangles' pushes (Jacobi:
//                        no two threads write one particle), and the velocity it had into it,
//                        against the surface's own motion, taken away through its previous
//                        position (a capsule's friction brakes its sliding too); a pushed
//                        particle is held by contact (the previous position's w), so in frames
//                        with a box the strain limit after it shortens its edges from the
//                        other end
//
// The triangle table (Rust: contact::edges): [T, N | offsets: N + 1 | incident: 3T |
// triangles: 3T]; particle p's triangles are incident[offsets[p]..offsets[p + 1]].

// `params` and `positions` (bindings 0 and 1): particles.wgsl.
@group(0) @binding(2) var<storage, read_write> previous: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> collider_table: array<vec4<u32>>;  // records, broad phase
@group(0) @binding(4) var<storage, read> distance_grid: array<f32>;
@group(0) @binding(5) var<storage, read> triangle_table: array<u32>;
// EDGE_PUSH_ROWS per triangle: the push (xyz its direction, w how far; 0: none), each
// corner's share of it (xyz) and the friction μ of what it pushes off (w: a thin capsule's; a
// box's none), and how far the surface it pushes off moved over the substep at the point.
@group(0) @binding(6) var<storage, read_write> pushes: array<vec4<f32>>;

const TRIANGLE_HEADER: u32 = 2u;
const EDGE_PUSH_ROWS: u32 = 3u;

fn incident_start() -> u32 {
    return TRIANGLE_HEADER + triangle_table[1] + 1u;
}

fn corners_start() -> u32 {
    return incident_start() + 3u * triangle_table[0];
}

// Corner k of a box in units of its half extents: x = +1 when bit 0 is set, y bit 1, z bit 2
// (Rust: contact::BOX_CORNERS).
fn box_sign(k: u32) -> vec3<f32> {
    return vec3<f32>(select(-1.0, 1.0, (k & 1u) != 0u), select(-1.0, 1.0, (k & 2u) != 0u), select(-1.0, 1.0, (k & 4u) != 0u));
}

// The corner box edge e starts from: edges 0–3 run along x, 4–7 along y, 8–11 along z
// (Rust: contact::BOX_EDGES).
fn edge_start(e: u32) -> u32 {
    let m = e % 4u;
    let axis = e / 4u;
    if (axis == 0u) {
        return m << 1u;
    }
    if (axis == 1u) {
        return (m & 1u) | ((m >> 1u) << 2u);
    }
    return m;
}

// The half extents `half` turned by the pose, one axis each (Rust: box_axes).
fn box_axes(pose: Pose, half: vec3<f32>) -> array<vec3<f32>, 3> {
    return array<vec3<f32>, 3>(
        quat_rotate(pose.rotation, vec3<f32>(half.x, 0.0, 0.0)),
        quat_rotate(pose.rotation, vec3<f32>(0.0, half.y, 0.0)),
        quat_rotate(pose.rotation, vec3<f32>(0.0, 0.0, half.z)),
    );
}

// The corner at `signs` (±1 each) of the box at `position` whose half axes are `axes`: a sum
// of the axes, not each corner turned by the pose, which lavapipe's compiler reassociates
// into a rounding of its own once the pose moves (Rust: box_corner).
fn box_corner(position: vec3<f32>, axes: array<vec3<f32>, 3>, signs: vec3<f32>) -> vec3<f32> {
    return position + axes[0] * signs.x + axes[1] * signs.y + axes[2] * signs.z;
}

// Below this cosine between a triangle's normal and a box edge's outward direction, the
// triangle's side is taken from where it was, not from the box (Rust: FACING).
const FACING: f32 = 0.3;

// A capsule the host marked thin for the cloth (material w): its axis is kept out of the
// triangles as a box's edges are (Rust: thin_capsule).
fn thin_capsule(c: ColliderRecord) -> bool {
    return c.kind == COLLIDER_CAPSULE && c.material.w != 0.0;
}

struct Axis {
    p: vec3<f32>,
    q: vec3<f32>,
    ra: f32,
    rb: f32,
}

// A capsule's axis ends at `pose`, and their radii (Rust: capsule_axis).
fn capsule_axis(c: ColliderRecord, pose: Pose) -> Axis {
    return Axis(to_world(pose, c.shape_a.xyz), to_world(pose, c.shape_b.xyz), c.shape_a.w, c.shape_b.w);
}

// A triangle's centre within its own size, the thickness and the larger radius of a thin
// capsule's axis (Rust: near_axis).
fn near_axis(c: ColliderRecord, pose: Pose, centre: vec3<f32>, reach: f32) -> bool {
    let ax = capsule_axis(c, pose);
    let d = ax.q - ax.p;
    let s = clamp(dot(centre - ax.p, d) / max(dot(d, d), 1e-30), 0.0, 1.0);
    return length(centre - (ax.p + d * s)) <= max(ax.ra, ax.rb) + c.material.x + reach;
}

// The part [t0, t1] of the segment p + d t, t in [0, 1], over the triangle x0 x1 x2 (its
// normal unnormalized `cr`), seen along its normal; t0 > t1 when none (Rust:
// clip_to_triangle).
fn clip_to_triangle(p: vec3<f32>, d: vec3<f32>, x0: vec3<f32>, x1: vec3<f32>, x2: vec3<f32>, cr: vec3<f32>) -> vec2<f32> {
    var t0 = 0.0;
    var t1 = 1.0;
    for (var side = 0u; side < 3u; side++) {
        var a = x0;
        var b = x1;
        if (side == 1u) {
            a = x1;
            b = x2;
        } else if (side == 2u) {
            a = x2;
            b = x0;
        }
        let inward = cross3(cr, b - a);
        let f0 = dot(p - a, inward);
        let fd = dot(d, inward);
        if (abs(fd) < 1e-30) {
            if (f0 < 0.0) {
                t0 = 2.0;
            }
        } else if (fd > 0.0) {
            t0 = max(t0, -f0 / fd);
        } else {
            t1 = min(t1, -f0 / fd);
        }
    }
    return vec2<f32>(t0, t1);
}

struct TrianglePush {
    push: vec4<f32>,
    shares: vec4<f32>,
    carried: vec4<f32>,
}

// The push that moves the triangle of particles i0, i1, i2 (p0, p1, p2 where they are; w:
// inverse mass) off the deepest point of any box collider's edges, or thin capsule's axis, on
// its wrong side. Where they were at the substep's start is read only for a triangle near one.
fn triangle_push(t_to: f32, p0: vec4<f32>, p1: vec4<f32>, p2: vec4<f32>, i0: u32, i1: u32, i2: u32) -> TrianglePush {
    let none = TrianglePush(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    let x0 = p0.xyz;
    let x1 = p1.xyz;
    let x2 = p2.xyz;
    let centre = (x0 + x1 + x2) / 3.0;
    // The farthest corner from the centre (one square root: it is monotonic).
    let a0 = x0 - centre;
    let a1 = x1 - centre;
    let a2 = x2 - centre;
    let reach = sqrt(max(max(dot(a0, a0), dot(a1, a1)), dot(a2, a2)));
    let e1 = x1 - x0;
    let e2 = x2 - x0;
    // The rest is worked out for a triangle near a box's edge or a thin axis only (most are
    // not).
    var ready = false;
    var cr = vec3<f32>(0.0);
    var n = vec3<f32>(0.0);
    var longest = 0.0;
    var start = vec3<f32>(0.0);
    var n_before = vec3<f32>(0.0);
    var best = 0.0;
    var at = vec3<f32>(0.0);
    var out = vec3<f32>(0.0);
    // The push's length over its depth (a thin capsule's, off its axis square to it), and
    // the friction of the collider pushed off: a capsule's own μ; a box's pushes none.
    var scale = 1.0;
    var mu = 0.0;
    // How far the point pushed off moved over the substep (a box's: none, as it has no
    // friction).
    var carried = vec3<f32>(0.0);
    // The colliders of the broad phase's cell of the triangle's centre, as for a particle
    // whose path is the triangle's reach long (a collider left out is one the culls below
    // would skip), or every collider (collider_cell's (1, 0)).
    let count = params.collider_count;
    let cell = collider_cell(count, centre, centre + vec3<f32>(reach, 0.0, 0.0));
    let every = cell.x > cell.y;
    let listed = select(cell.y - cell.x, count, every);
    for (var j = 0u; j < listed; j++) {
        var k = j;
        if (!every) {
            k = cell_word(count, cell.x + j);
        }
        let kind = collider_table[COLLIDER_ROWS * k].x;
        if (kind != COLLIDER_CUBOID && kind != COLLIDER_CAPSULE) {
            continue;
        }
        // A capsule that is not thin is skipped on its material row alone (a table's legs),
        // and a thin one far from the triangle on its bounding capsule's rows, before the
        // record is read whole: as a particle whose path is the triangle's reach long would
        // be (collider_reaches; the CPU twin, which places each capsule once a substep, has
        // no need of this cull, which changes no result).
        if (kind == COLLIDER_CAPSULE) {
            if (collider_row(k, ROW_MATERIAL).w == 0.0) {
                continue;
            }
            if (!collider_reaches(k, params.t_from, t_to, centre, centre + vec3<f32>(reach * 1.001 + 1e-6, 0.0, 0.0))) {
                continue;
            }
        }
        let c = collider(k);
        let capsule = thin_capsule(c);
        let r = c.material.x;
        let pose = collider_pose(c, t_to);
        let half = c.shape_a.xyz;
        let local_centre = to_local(pose, centre);
        if (capsule) {
            if (!near_axis(c, pose, centre, reach)) {
                continue;
            }
        } else {
            // A triangle near an edge is within the thickness and its own size of the box,
            // and near two of its faces' planes: most (those far, or over a face) are not.
            let excess = abs(local_centre) - half;
            let within = r + reach;
            if (max(max(excess.x, excess.y), excess.z) > within) {
                continue;
            }
            let near = select(vec3<u32>(0u), vec3<u32>(1u), excess > vec3<f32>(-within));
            if (near.x + near.y + near.z < 2u) {
                continue;
            }
        }
        if (!ready) {
            ready = true;
            cr = cross3(e1, e2);
            let area2 = length(cr);
            if (area2 < 1e-12) {
                return none;
            }
            n = cr / area2;
            longest = max(max(length(e1), length(e2)), length(x2 - x1));
            // The triangle at the substep's start (its normal unnormalized: only signs are
            // read).
            start = previous[i0].xyz;
            n_before = cross3(previous[i1].xyz - start, previous[i2].xyz - start);
        }
        if (capsule) {
            // The part of the axis over the triangle, kept on the side it was on at the
            // substep's start, its surface (the radius along it) the thickness off.
            let ax = capsule_axis(c, pose);
            let d = ax.q - ax.p;
            let tt = clip_to_triangle(ax.p, d, x0, x1, x2, cr);
            if (tt.x > tt.y) {
                continue;
            }
            // The side: the axis against the triangle, both at the substep's start (a rod
            // that moved more than its reach would otherwise be on the far side of where the
            // cloth was).
            let ax0 = capsule_axis(c, collider_pose(c, params.t_from));
            let side = -dot(ax0.p + (ax0.q - ax0.p) * ((tt.x + tt.y) * 0.5) - start, n_before);
            let no = select(-n, n, side > 0.0);
            let y0 = ax.p + d * tt.x;
            let y1 = ax.p + d * tt.y;
            let g0 = dot(y0 - x0, no) + (ax.ra + (ax.rb - ax.ra) * tt.x) + r;
            let g1 = dot(y1 - x0, no) + (ax.ra + (ax.rb - ax.ra) * tt.y) + r;
            var g = g0;
            var y = y0;
            var t = tt.x;
            if (g1 > g0) {
                g = g1;
                y = y1;
                t = tt.y;
            }
            // Deeper than half the triangle past the surface is the far side.
            if (g > best && g <= (ax.ra + (ax.rb - ax.ra) * t) + r + 0.5 * longest) {
                best = g;
                at = y;
                // Off the axis square to it, not along the triangle's normal, whose part
                // along a slanting rod slid the cloth along it and off its end; as far as
                // takes the triangle g off it (a normal within 60° of the axis keeps itself).
                out = no;
                scale = 1.0;
                let dl = length(d);
                if (dl > 0.0) {
                    let dh = d / dl;
                    let perp = no - dh * dot(no, dh);
                    let pl = length(perp);
                    if (pl >= 0.5) {
                        out = perp / pl;
                        scale = 1.0 / pl;
                    }
                }
                mu = c.material.y;
                carried = y - (ax0.p + (ax0.q - ax0.p) * t);
            }
            continue;
        }
        let axes = box_axes(pose, half);
        for (var e = 0u; e < 12u; e++) {
            let axis = e / 4u;
            let first = edge_start(e);
            let sa = box_sign(first);
            // Only the edges the triangle is near: its centre within the thickness and its
            // own size of the edge.
            var off = local_centre - half * sa;
            off[axis] = max(abs(local_centre[axis]) - half[axis], 0.0);
            if (length(off) > r + reach) {
                continue;
            }
            let sb = box_sign(first | (1u << axis));
            let p = box_corner(pose.position, axes, sa);
            let q = box_corner(pose.position, axes, sb);
            // The edge's outward direction: its two faces' normals summed.
            var local = sa;
            local[axis] = 0.0;
            let facing = dot(n, quat_rotate(pose.rotation, local) / length(local));
            // The part of the edge over the triangle: p + d t, t in [t0, t1].
            let d = q - p;
            let tt = clip_to_triangle(p, d, x0, x1, x2, cr);
            let t0 = tt.x;
            let t1 = tt.y;
            if (t0 > t1) {
                continue;
            }
            // Which side of the triangle the box belongs on: where the edge faces, when the
            // triangle faces it clearly; else (a fold edge-on to it) the side the edge was on
            // at the substep's start.
            var side = facing;
            if (abs(facing) < FACING) {
                side = -dot(p + d * ((t0 + t1) * 0.5) - start, n_before);
            }
            let no = select(-n, n, side > 0.0);
            let y0 = p + d * t0;
            let y1 = p + d * t1;
            let g0 = dot(y0 - x0, no) + r;
            let g1 = dot(y1 - x0, no) + r;
            var g = g0;
            var y = y0;
            if (g1 > g0) {
                g = g1;
                y = y1;
            }
            // Deeper than half the triangle is not a poke through it but the far side.
            if (g > best && g <= r + 0.5 * longest) {
                best = g;
                at = y;
                out = no;
                scale = 1.0;
                mu = 0.0;
                carried = vec3<f32>(0.0);
            }
        }
    }
    if (best <= 0.0) {
        return none;
    }
    // A free triangle moves off the point whole, each corner the push's full length: turned
    // about the point instead (a corner near it taking all the push), it would stretch the
    // corner's edges to the triangles beyond (a box's top corner, 1.87x at rest).
    if (p0.w > 0.0 && p1.w > 0.0 && p2.w > 0.0) {
        return TrianglePush(vec4<f32>(out, best * scale), vec4<f32>(1.0, 1.0, 1.0, mu), vec4<f32>(carried, 0.0));
    }
    // The deepest point's barycentric coordinates on the triangle.
    let v2 = at - x0;
    let d00 = dot(e1, e1);
    let d01 = dot(e1, e2);
    let d11 = dot(e2, e2);
    let d20 = dot(v2, e1);
    let d21 = dot(v2, e2);
    let denom = d00 * d11 - d01 * d01;
    if (denom <= 0.0) {
        return none;
    }
    let c1 = clamp((d11 * d20 - d01 * d21) / denom, 0.0, 1.0);
    let c2 = clamp((d00 * d21 - d01 * d20) / denom, 0.0, 1.0 - c1);
    let c0 = 1.0 - c1 - c2;
    // A triangle with a pinned corner turns: each free corner moves by w_k b_k / Σ w b² of
    // the push, so the point moves by all of it; but no corner farther than the push itself
    // (a point next to the pin would take a free corner 1 / b_k as far: a box round a pin
    // threw the cloth 10 times its length).
    let w0 = p0.w * c0;
    let w1 = p1.w * c1;
    let w2 = p2.w * c2;
    let s = w0 * c0 + w1 * c1 + w2 * c2;
    if (s <= 0.0) {
        return none;
    }
    let shares = min(vec3<f32>(w0 / s, w1 / s, w2 / s), vec3<f32>(1.0));
    return TrianglePush(vec4<f32>(out, best * scale), vec4<f32>(shares, mu), vec4<f32>(carried, 0.0));
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn edge_contacts(thread: Thread) {
    let t = thread_index(thread);
    if (t >= triangle_table[0]) { return; }
    let at = corners_start() + 3u * t;
    let i0 = triangle_table[at];
    let i1 = triangle_table[at + 1u];
    let i2 = triangle_table[at + 2u];
    let push = triangle_push(params.t_to, positions[i0], positions[i1], positions[i2], i0, i1, i2);
    pushes[EDGE_PUSH_ROWS * t] = push.push;
    pushes[EDGE_PUSH_ROWS * t + 1u] = push.shares;
    pushes[EDGE_PUSH_ROWS * t + 2u] = push.carried;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn apply_edge_contacts(thread: Thread) {
    let i = free_particle(thread);
    if (i == NO_PARTICLE) { return; }
    let p = positions[i];
    var moved = vec3<f32>(0.0);
    var largest = 0.0;
    var mu = 0.0;
    var carried = vec3<f32>(0.0);
    let incident = incident_start();
    let corners = corners_start();
    for (var s = triangle_table[TRIANGLE_HEADER + i]; s < triangle_table[TRIANGLE_HEADER + i + 1u]; s++) {
        let k = triangle_table[incident + s];
        let push = pushes[EDGE_PUSH_ROWS * k];
        if (push.w == 0.0) {
            continue;
        }
        var corner = 2u;
        if (triangle_table[corners + 3u * k] == i) {
            corner = 0u;
        } else if (triangle_table[corners + 3u * k + 1u] == i) {
            corner = 1u;
        }
        // The largest of its triangles' pushes: summed, pushes along the three faces at a
        // box's corner would carry it off the corner diagonally, well past each of them.
        let shares = pushes[EDGE_PUSH_ROWS * k + 1u];
        let want = push.w * shares[corner];
        if (want > largest) {
            largest = want;
            moved = push.xyz * want;
            mu = shares.w;
            carried = pushes[EDGE_PUSH_ROWS * k + 2u].xyz;
        }
    }
    let len = length(moved);
    if (len <= 0.0) { return; }
    let dir = moved / len;
    let q = previous[i];
    // Its motion over the substep against the surface's (a moving rod carries what it
    // touches, as collide carries a particle with a moving collider).
    let v = p.xyz - q.xyz - carried;
    let into = min(dot(v, dir), 0.0);
    // Coulomb friction off a thin capsule (a box's pushes carry none), as `collide` brakes:
    // the sliding along the surface taken from the velocity up to μ times the push.
    var braked = vec3<f32>(0.0);
    if (mu > 0.0) {
        let tangential = v - dir * dot(v, dir);
        let slide = length(tangential);
        let grip = mu * len;
        if (slide <= grip) {
            braked = tangential;
        } else {
            braked = tangential * (grip / slide);
        }
    }
    positions[i] = vec4<f32>(p.xyz + moved, p.w);
    // Held by contact (the flag collide leaves for static friction): the strain limit that
    // follows moves its neighbours to it, not it back onto the edge.
    previous[i] = vec4<f32>(q.xyz + moved + dir * into + braked, 1.0);
}
