// Self-collision (CPU twin: src/cpu/self_collision.rs): every particle keeps `self_distance`
// from every particle that is not its neighbour at rest, in its own cloth and in every other
// cloth of the world. Per substep:
//
//   self_check → self_plan → [hash_clear → hash_count → hash_scan_blocks → hash_scan_sums
//     → hash_scan_add → hash_scatter → hash_sort → self_candidates] → self_collide → self_apply
//
// The bracketed passes build each particle's list of candidates: the particles within
// `reach()` (the distance and a margin of a quarter of it) that are not its neighbours at rest.
// They run only when a list may have gone stale: `self_check` reduces every particle's move
// since the lists were built to the box that holds them all, and `self_plan` rebuilds when that
// box is wider than an eighth of the distance along any axis (then no two particles have closed
// by more than the margin: √3 / 8 < 1 / 4), when a list overflowed, or when the host set the
// overflow word because it changed what the lists rest on (a new layout, a pin, the distance:
// `SelfListsWatch` in src/world/engine.rs). A cloth at rest, or falling as one, keeps its lists
// from frame to frame; a move by the host is a move like any other.
//
// The lists come from a spatial hash by counting sort, with u32 atomics only (no float
// atomics): particles are counted into the buckets of cells 2 `reach()` wide, the counts
// scanned into each bucket's start, the particles scattered into their buckets, and each bucket
// sorted by particle index, so the order (and so every float sum) is the same on every run and
// in the CPU twin. Each particle's ball of radius `reach()` meets 8 of those cells. Then each
// substep every particle gathers the pushes of its candidates and moves by their mean (Jacobi:
// it reads old positions and writes `moved`, so no two threads race), and `self_apply` copies
// the result back. A particle with more candidates than a list holds searches the hash itself
// (its overflow rebuilds the hash every substep, so the hash is always fresh for it).

// `params` and `positions` (bindings 0 and 1): particles.wgsl.
@group(0) @binding(2) var<storage, read> previous: array<vec4<f32>>;        // x at step start
@group(0) @binding(3) var<storage, read> rest: array<vec4<f32>>;            // xyz: rest position, w: its cloth
// [counts: hash_cells | starts: hash_cells + 1 | block sums: hash_cells / WORKGROUP_SIZE |
//  the lists' state: STATE_WORDS (state())]
@group(0) @binding(4) var<storage, read_write> table: array<atomic<u32>>;
// [each particle's bucket: particle_count | the particles, bucket by bucket: particle_count |
//  each particle's list: LIST_STRIDE words (its length, then its candidates)]
@group(0) @binding(5) var<storage, read_write> hash: array<u32>;
// [the pushed positions: particle_count | the positions the lists were built at]
@group(0) @binding(6) var<storage, read_write> moved: array<vec4<f32>>;
// The particles' positions in bucket order, so the neighbour search reads them one after
// another (it reads dozens per particle; scattered, those loads were most of its time).
@group(0) @binding(7) var<storage, read_write> sorted: array<vec4<f32>>;

var<workgroup> scan: array<u32, WORKGROUP_SIZE>;
// self_check's box of moves within the workgroup, as ordered() bits.
var<workgroup> low: array<atomic<u32>, 3>;
var<workgroup> high: array<atomic<u32>, 3>;
// Whether this substep builds the lists, shared so barriers stay in uniform control flow.
var<workgroup> building: u32;

// Words of a particle's list: its length, then up to LIST_STRIDE - 1 candidates (Rust:
// config::LIST_STRIDE, which sizes the buffer).
const LIST_STRIDE: u32 = 32u;

// The lists' state after the block sums (Rust: config::STATE_WORDS): the box of moves since
// the lists were built (low xyz, high xyz, as ordered() bits), whether this substep builds
// them, and whether a list overflowed when they were last built.
const STATE_WORDS: u32 = 8u;
const STATE_BUILD: u32 = 6u;
const STATE_OVERFLOW: u32 = 7u;

// How far apart two particles may be and still enter each other's lists: the distance and a
// quarter of it (one rounding, the same on every device).
fn reach() -> f32 {
    return params.self_distance + params.self_distance * 0.25;
}

// The hash table's bucket of grid cell c.
fn bucket(c: vec3<i32>) -> u32 {
    let h = (u32(c.x) * 73856093u) ^ (u32(c.y) * 19349663u) ^ (u32(c.z) * 83492791u);
    return h & (params.hash_cells - 1u);
}

// The grid cell of x, cells twice `reach()` wide; far-away coordinates clamp (the divergence
// check reports those).
fn cell_of(x: vec3<f32>) -> vec3<i32> {
    let c = floor(x / (reach() * 2.0));
    return vec3<i32>(clamp(c, vec3<f32>(-1.0e9), vec3<f32>(1.0e9)));
}

fn starts() -> u32 {
    return params.hash_cells;
}

fn sums() -> u32 {
    return 2u * params.hash_cells + 1u;
}

fn state() -> u32 {
    return sums() + params.hash_cells / WORKGROUP_SIZE;
}

// Where particle i's list starts in `hash`.
fn list_start(i: u32) -> u32 {
    return 2u * params.particle_count + i * LIST_STRIDE;
}

// True when this substep builds the lists (self_plan decided).
fn builds() -> bool {
    return atomicLoad(&table[state() + STATE_BUILD]) != 0u;
}

// Each particle's move since the lists were built, reduced to the box that holds them all:
// within the workgroup first, then one atomic per workgroup and bound.
@compute @workgroup_size(WORKGROUP_SIZE)
fn self_check(thread: Thread) {
    if (thread.local == 0u) {
        for (var a = 0u; a < 3u; a++) {
            atomicStore(&low[a], 0xffffffffu);
            atomicStore(&high[a], 0u);
        }
    }
    workgroupBarrier();
    let i = thread_index(thread);
    if (i < params.particle_count) {
        let step = positions[i].xyz - moved[params.particle_count + i].xyz;
        for (var a = 0u; a < 3u; a++) {
            atomicMin(&low[a], ordered(step[a]));
            atomicMax(&high[a], ordered(step[a]));
        }
    }
    workgroupBarrier();
    if (thread.local == 0u) {
        let s = state();
        for (var a = 0u; a < 3u; a++) {
            atomicMin(&table[s + a], atomicLoad(&low[a]));
            atomicMax(&table[s + 3u + a], atomicLoad(&high[a]));
        }
    }
}

// One thread decides whether this substep builds the lists: after an overflow (or the host's
// request, in the same word), or when the box of moves is wider than an eighth of the distance
// on any axis.
@compute @workgroup_size(WORKGROUP_SIZE)
fn self_plan(thread: Thread) {
    if (thread_index(thread) != 0u) { return; }
    let s = state();
    var build = atomicLoad(&table[s + STATE_OVERFLOW]) != 0u;
    let most = params.self_distance * 0.125;
    for (var a = 0u; a < 3u; a++) {
        let spread = unordered(atomicLoad(&table[s + 3u + a])) - unordered(atomicLoad(&table[s + a]));
        // Not `spread > most`: a NaN (a diverged particle) must build them too.
        if (!(spread <= most)) {
            build = true;
        }
    }
    atomicStore(&table[s + STATE_BUILD], u32(build));
    if (build) {
        atomicStore(&table[s + STATE_OVERFLOW], 0u);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_clear(thread: Thread) {
    let c = thread_index(thread);
    if (c < params.hash_cells && builds()) {
        atomicStore(&table[c], 0u);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_count(thread: Thread) {
    let i = thread_index(thread);
    if (i >= params.particle_count || !builds()) { return; }
    let b = bucket(cell_of(positions[i].xyz));
    hash[i] = b;
    atomicAdd(&table[b], 1u);
}

// Hillis–Steele inclusive scan in workgroup memory: thread `local` brings `v`, and `scan[local]`
// ends as the sum of threads 0..=local's. Every thread of the workgroup calls it (barriers).
fn scan_workgroup(local: u32, v: u32) {
    scan[local] = v;
    workgroupBarrier();
    for (var step = 1u; step < WORKGROUP_SIZE; step *= 2u) {
        var add = 0u;
        if (local >= step) {
            add = scan[local - step];
        }
        workgroupBarrier();
        scan[local] += add;
        workgroupBarrier();
    }
}

// Each workgroup scans WORKGROUP_SIZE counts into exclusive starts and writes its total. Its
// builtins apart, not a `Thread`: the uniformity analysis takes a struct of them as non-uniform
// as a whole, and the block index below must be uniform for the barriers.
@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_scan_blocks(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    if (local == 0u) {
        building = u32(builds());
    }
    if (workgroupUniformLoad(&building) == 0u) { return; }
    // A dispatch split over y has padding workgroups past the last block: their totals would
    // land on the lists' state after the block sums.
    let block = group.y * groups.x + group.x;
    if (block >= params.hash_cells / WORKGROUP_SIZE) { return; }
    let c = block * WORKGROUP_SIZE + local;
    var v = 0u;
    if (c < params.hash_cells) {
        v = atomicLoad(&table[c]);
    }
    scan_workgroup(local, v);
    if (c < params.hash_cells) {
        atomicStore(&table[starts() + c], scan[local] - v);
    }
    if (local == WORKGROUP_SIZE - 1u) {
        atomicStore(&table[sums() + block], scan[local]);
    }
}

// One workgroup turns the block totals into exclusive block offsets, WORKGROUP_SIZE at a time.
@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_scan_sums(@builtin(local_invocation_index) local: u32) {
    if (local == 0u) {
        building = u32(builds());
    }
    if (workgroupUniformLoad(&building) == 0u) { return; }
    let blocks = params.hash_cells / WORKGROUP_SIZE;
    var carried = 0u;
    for (var base = 0u; base < blocks; base += WORKGROUP_SIZE) {
        let k = base + local;
        var v = 0u;
        if (k < blocks) {
            v = atomicLoad(&table[sums() + k]);
        }
        scan_workgroup(local, v);
        if (k < blocks) {
            atomicStore(&table[sums() + k], carried + scan[local] - v);
        }
        carried += scan[WORKGROUP_SIZE - 1u];
        workgroupBarrier();
    }
}

// Adds each block's offset to its starts; clears the counts (the scatter's cursors) and closes
// the table with the particle count.
@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_scan_add(thread: Thread) {
    let c = thread_index(thread);
    if (c >= params.hash_cells || !builds()) { return; }
    let offset = atomicLoad(&table[sums() + c / WORKGROUP_SIZE]);
    atomicAdd(&table[starts() + c], offset);
    atomicStore(&table[c], 0u);
    if (c == 0u) {
        atomicStore(&table[starts() + params.hash_cells], params.particle_count);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_scatter(thread: Thread) {
    let i = thread_index(thread);
    if (i >= params.particle_count || !builds()) { return; }
    let b = hash[i];
    let slot = atomicAdd(&table[b], 1u);
    hash[params.particle_count + atomicLoad(&table[starts() + b]) + slot] = i;
}

// Sorts each bucket by particle index (insertion sort: buckets hold a handful), so the order
// the atomics scattered them in does not matter, and copies their positions alongside.
@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_sort(thread: Thread) {
    let c = thread_index(thread);
    if (c >= params.hash_cells || !builds()) { return; }
    let n = params.particle_count;
    let start = n + atomicLoad(&table[starts() + c]);
    let end = n + atomicLoad(&table[starts() + c + 1u]);
    for (var k = start + 1u; k < end; k++) {
        let v = hash[k];
        var j = k;
        while (j > start && hash[j - 1u] > v) {
            hash[j] = hash[j - 1u];
            j -= 1u;
        }
        hash[j] = v;
    }
    for (var k = start; k < end; k++) {
        sorted[k - n] = positions[hash[k]];
    }
}

// The push on particle i from particle j, both as they are now, and whether they touch:
// apart along the line between them (or, if they crossed during the substep, along the line
// between where they started, so they go back to their own sides), i's share by inverse mass,
// plus Coulomb friction on their relative sliding. xyz: the push on i; w: 1 on contact.
fn pair_push(i: u32, j: u32, pi: vec4<f32>, pj: vec4<f32>) -> vec4<f32> {
    let d = params.self_distance;
    let w_sum = pi.w + pj.w;
    if (w_sum == 0.0) {
        return vec4<f32>(0.0);
    }
    let delta = pi.xyz - pj.xyz;
    let dist2 = dot(delta, delta);
    if (dist2 >= d * d) {
        return vec4<f32>(0.0);
    }
    let start = previous[i].xyz - previous[j].xyz;
    var n = vec3<f32>(0.0, 1.0, 0.0);
    var gap = sqrt(dist2);
    if (dot(delta, start) < 0.0 && dot(start, start) > 1e-24) {
        // They passed each other: the separation is measured along their old line.
        n = start / length(start);
        gap = dot(delta, n);
    } else if (gap > 1e-12) {
        n = delta / gap;
    } else if (dot(start, start) > 1e-24) {
        n = start / length(start);
    }
    let depth = d - gap;
    let share = pi.w / w_sum;
    var push = n * (depth * share);
    // Friction: the relative motion over the substep, less its part along n.
    let sliding = (pi.xyz - previous[i].xyz) - (pj.xyz - previous[j].xyz);
    let tangential = sliding - n * dot(sliding, n);
    let slide = length(tangential);
    let grip = params.self_friction * depth;
    if (slide > 0.0) {
        push -= tangential * (min(grip / slide, 1.0) * share);
    }
    return vec4<f32>(push, 1.0);
}

// The side of each axis whose neighbouring cell a ball about a point meets: the point's own
// cell is 2 `r` wide and `inside` it, and a ball of radius at most `r` reaches, along each
// axis, only the cell beside the nearer half. With the own cell: 8 cells.
fn near_side(inside: vec3<f32>, r: f32) -> vec3<i32> {
    return vec3<i32>(select(vec3<i32>(0), vec3<i32>(-1), inside < vec3<f32>(r)));
}

// Where a point sits in the hash: its cell, where it is inside that cell (cells `h` = 2
// `reach()` wide), and the side of each axis it is nearer.
struct Site {
    home: vec3<i32>,
    inside: vec3<f32>,
    side: vec3<i32>,
    h: f32,
}

fn site_of(x: vec3<f32>) -> Site {
    let r = reach();
    let h = r * 2.0;
    let home = cell_of(x);
    let inside = x - vec3<f32>(home) * h;
    return Site(home, inside, near_side(inside, r), h);
}

// Cell k (0–7) of the 8 about `at`: the range of `hash` its bucket holds, or an empty one when
// a ball of `radius` about the point cannot reach the cell.
fn cell_range(at: Site, k: u32, radius: f32) -> vec2<u32> {
    let o = at.side + vec3<i32>(i32(k % 2u), i32((k / 2u) % 2u), i32(k / 4u));
    // The gap from the point to that cell along each axis.
    let gap = max(max(vec3<f32>(o) * at.h - at.inside, at.inside - vec3<f32>(o + vec3<i32>(1)) * at.h), vec3<f32>(0.0));
    if (dot(gap, gap) >= radius * radius) {
        return vec2<u32>(0u);
    }
    let b = bucket(at.home + o);
    let n = params.particle_count;
    return vec2<u32>(n + atomicLoad(&table[starts() + b]), n + atomicLoad(&table[starts() + b + 1u]));
}

// Whether particle j (at pj) found in particle i's buckets is within `radius` of it (pi) and not
// its neighbour at rest (nearer than the distance in the same cloth; ri, rj their rest
// positions, cloth in w). Particles of other cells that share a bucket are told apart by
// distance.
fn near_pair(i: u32, j: u32, pi: vec4<f32>, pj: vec4<f32>, ri: vec4<f32>, radius: f32) -> bool {
    if (j == i) {
        return false;
    }
    let delta = pi.xyz - pj.xyz;
    if (dot(delta, delta) >= radius * radius) {
        return false;
    }
    // Neighbours at rest, by the squares (no square root: this runs for every particle the
    // distance test passes, a dozen per particle).
    let rj = rest[j];
    let apart = ri.xyz - rj.xyz;
    let d = params.self_distance;
    return !(ri.w == rj.w && dot(apart, apart) < d * d);
}

// Each particle's list, when this substep builds them: the particles within reach() that are
// not its neighbours at rest (nearer than the distance in the same cloth), in bucket order; and
// where it was, for self_check. A pinned particle gathers no pushes and lists none.
@compute @workgroup_size(WORKGROUP_SIZE)
fn self_candidates(thread: Thread) {
    let i = thread_index(thread);
    let n = params.particle_count;
    if (i >= n || !builds()) { return; }
    let pi = positions[i];
    moved[n + i] = pi;
    let row = list_start(i);
    var count = 0u;
    if (pi.w != 0.0) {
        let r = reach();
        let at = site_of(pi.xyz);
        let ri = rest[i];
        for (var k = 0u; k < 8u; k++) {
            let range = cell_range(at, k, r);
            for (var s = range.x; s < range.y; s++) {
                let j = hash[s];
                if (!near_pair(i, j, pi, sorted[s - n], ri, r)) {
                    continue;
                }
                if (count + 1u < LIST_STRIDE) {
                    hash[row + 1u + count] = j;
                }
                count += 1u;
            }
        }
        if (count >= LIST_STRIDE) {
            atomicStore(&table[state() + STATE_OVERFLOW], 1u);
        }
    }
    hash[row] = count;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn self_collide(thread: Thread) {
    let i = thread_index(thread);
    let n = params.particle_count;
    if (i >= n) { return; }
    let pi = positions[i];
    moved[i] = pi;
    // Pinned and held particles stay where they are (others are pushed off them).
    if (pi.w == 0.0) { return; }
    let row = list_start(i);
    let count = hash[row];
    var total = vec3<f32>(0.0);
    var touching = 0.0;
    if (count < LIST_STRIDE) {
        // Its candidates: every particle that can be within the distance now (pair_push
        // tells which are).
        for (var s = 0u; s < count; s++) {
            let j = hash[row + 1u + s];
            let push = pair_push(i, j, pi, positions[j]);
            total += push.xyz;
            touching += push.w;
        }
    } else {
        // Too many for its list: it searches the hash, which its overflow had built this
        // substep, at the distance itself.
        let d = params.self_distance;
        let at = site_of(pi.xyz);
        let ri = rest[i];
        for (var k = 0u; k < 8u; k++) {
            let range = cell_range(at, k, d);
            for (var s = range.x; s < range.y; s++) {
                let j = hash[s];
                let pj = sorted[s - n];
                if (!near_pair(i, j, pi, pj, ri, d)) {
                    continue;
                }
                let push = pair_push(i, j, pi, pj);
                total += push.xyz;
                touching += push.w;
            }
        }
    }
    if (touching > 0.0) {
        moved[i] = vec4<f32>(pi.xyz + total / touching, pi.w);
    }
}

// The pushed positions become the positions; thread 0 empties the box of moves for the next
// substep's self_check.
@compute @workgroup_size(WORKGROUP_SIZE)
fn self_apply(thread: Thread) {
    let i = thread_index(thread);
    if (i == 0u) {
        let s = state();
        for (var a = 0u; a < 3u; a++) {
            atomicStore(&table[s + a], 0xffffffffu);
            atomicStore(&table[s + 3u + a], 0u);
        }
    }
    if (i < params.particle_count) {
        positions[i] = moved[i];
    }
}
