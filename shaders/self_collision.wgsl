// Self-collision (CPU twin: src/cpu/self_collision.rs): every particle keeps `self_distance`
// from every particle that is not its neighbour at rest, in its own cloth and in every other
// cloth of the world. Per substep:
//
//   hash_clear → hash_count → hash_scan_blocks → hash_scan_sums → hash_scan_add
//     → hash_scatter → hash_sort → self_collide → self_apply
//
// A spatial hash by counting sort, with u32 atomics only (no float atomics): particles are
// counted into the buckets of cells 2 `self_distance` wide, the counts scanned into each
// bucket's start, the particles scattered into their buckets, and each bucket sorted by
// particle index, so the order (and so every float sum) is the same on every run and in the
// CPU twin. Then each particle gathers the pushes of the particles in the 8 cells its ball of
// radius `self_distance` reaches (27 cells `self_distance` wide, more bucket lookups, cost the
// CPU twin's frame about a fifth more), and moves by their mean
// (Jacobi: it reads old positions and writes `moved`, so no two threads race), and
// `self_apply` copies the result back.

@group(0) @binding(0) var<uniform> params: StepParams;
@group(0) @binding(1) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(2) var<storage, read> previous: array<vec4<f32>>;        // x at step start
@group(0) @binding(3) var<storage, read> rest: array<vec4<f32>>;            // xyz: rest position, w: its cloth
// [counts: hash_cells | starts: hash_cells + 1 | block sums: hash_cells / WORKGROUP_SIZE]
@group(0) @binding(4) var<storage, read_write> table: array<atomic<u32>>;
// [each particle's bucket: particle_count | the particles, bucket by bucket: particle_count]
@group(0) @binding(5) var<storage, read_write> hash: array<u32>;
@group(0) @binding(6) var<storage, read_write> moved: array<vec4<f32>>;
// The particles' positions in bucket order, so the neighbour search reads them one after
// another (it reads dozens per particle; scattered, those loads were most of its time).
@group(0) @binding(7) var<storage, read_write> sorted: array<vec4<f32>>;

var<workgroup> scan: array<u32, WORKGROUP_SIZE>;

// The hash table's bucket of grid cell c (the cells are `self_distance` wide).
fn bucket(c: vec3<i32>) -> u32 {
    let h = (u32(c.x) * 73856093u) ^ (u32(c.y) * 19349663u) ^ (u32(c.z) * 83492791u);
    return h & (params.hash_cells - 1u);
}

// The grid cell of x, cells twice `self_distance` wide; far-away coordinates clamp (the
// divergence check reports those).
fn cell_of(x: vec3<f32>) -> vec3<i32> {
    let c = floor(x / (params.self_distance * 2.0));
    return vec3<i32>(clamp(c, vec3<f32>(-1.0e9), vec3<f32>(1.0e9)));
}

fn starts() -> u32 {
    return params.hash_cells;
}

fn sums() -> u32 {
    return 2u * params.hash_cells + 1u;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_clear(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let c = thread_index(group, groups, local);
    if (c < params.hash_cells) {
        atomicStore(&table[c], 0u);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_count(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(group, groups, local);
    if (i >= params.particle_count) {
        return;
    }
    let b = bucket(cell_of(positions[i].xyz));
    hash[i] = b;
    atomicAdd(&table[b], 1u);
}

// Each workgroup scans WORKGROUP_SIZE counts into exclusive starts and writes its total.
@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_scan_blocks(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let block = group.y * groups.x + group.x;
    let c = block * WORKGROUP_SIZE + local;
    var v = 0u;
    if (c < params.hash_cells) {
        v = atomicLoad(&table[c]);
    }
    scan[local] = v;
    workgroupBarrier();
    // Hillis–Steele inclusive scan in workgroup memory.
    for (var step = 1u; step < WORKGROUP_SIZE; step *= 2u) {
        var add = 0u;
        if (local >= step) {
            add = scan[local - step];
        }
        workgroupBarrier();
        scan[local] += add;
        workgroupBarrier();
    }
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
    let blocks = params.hash_cells / WORKGROUP_SIZE;
    var carried = 0u;
    for (var base = 0u; base < blocks; base += WORKGROUP_SIZE) {
        let k = base + local;
        var v = 0u;
        if (k < blocks) {
            v = atomicLoad(&table[sums() + k]);
        }
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
fn hash_scan_add(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let c = thread_index(group, groups, local);
    if (c >= params.hash_cells) {
        return;
    }
    let offset = atomicLoad(&table[sums() + c / WORKGROUP_SIZE]);
    atomicAdd(&table[starts() + c], offset);
    atomicStore(&table[c], 0u);
    if (c == 0u) {
        atomicStore(&table[starts() + params.hash_cells], params.particle_count);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_scatter(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(group, groups, local);
    if (i >= params.particle_count) {
        return;
    }
    let b = hash[i];
    let slot = atomicAdd(&table[b], 1u);
    hash[params.particle_count + atomicLoad(&table[starts() + b]) + slot] = i;
}

// Sorts each bucket by particle index (insertion sort: buckets hold a handful), so the order
// the atomics scattered them in does not matter, and copies their positions alongside.
@compute @workgroup_size(WORKGROUP_SIZE)
fn hash_sort(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let c = thread_index(group, groups, local);
    if (c >= params.hash_cells) {
        return;
    }
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

@compute @workgroup_size(WORKGROUP_SIZE)
fn self_collide(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(group, groups, local);
    let n = params.particle_count;
    if (i >= n) {
        return;
    }
    let pi = positions[i];
    moved[i] = pi;
    // Pinned and held particles stay where they are (others are pushed off them).
    if (pi.w == 0.0) {
        return;
    }
    let d = params.self_distance;
    let h = d * 2.0;
    let home = cell_of(pi.xyz);
    // Where pi sits in its cell. A ball of radius d about it reaches, along each axis, its own
    // cell (2d wide) and the one on the side of the cell's nearer half: 8 cells in all.
    let inside = pi.xyz - vec3<f32>(home) * h;
    let side = vec3<i32>(select(vec3<i32>(0), vec3<i32>(-1), inside < vec3<f32>(d)));
    var total = vec3<f32>(0.0);
    var touching = 0.0;
    for (var k = 0u; k < 8u; k++) {
        let o = side + vec3<i32>(i32(k % 2u), i32((k / 2u) % 2u), i32(k / 4u));
        // The gap from pi to that cell along each axis: a cell it cannot reach is skipped.
        let gap = max(max(vec3<f32>(o) * h - inside, inside - vec3<f32>(o + vec3<i32>(1)) * h), vec3<f32>(0.0));
        if (dot(gap, gap) >= d * d) {
            continue;
        }
        let c = home + o;
        let b = bucket(c);
        let start = n + atomicLoad(&table[starts() + b]);
        let end = n + atomicLoad(&table[starts() + b + 1u]);
        for (var s = start; s < end; s++) {
            let j = hash[s];
            let pj = sorted[s - n];
            // Particles of other cells that share the bucket are told apart by distance.
            if (j == i) {
                continue;
            }
            let delta = pi.xyz - pj.xyz;
            if (dot(delta, delta) >= d * d) {
                continue;
            }
            // Neighbours at rest (nearer than the distance, in the same cloth) are excluded.
            let ri = rest[i];
            let rj = rest[j];
            if (ri.w == rj.w && distance(ri.xyz, rj.xyz) < d) {
                continue;
            }
            let push = pair_push(i, j, pi, pj);
            total += push.xyz;
            touching += push.w;
        }
    }
    if (touching > 0.0) {
        moved[i] = vec4<f32>(pi.xyz + total / touching, pi.w);
    }
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn self_apply(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(group, groups, local);
    if (i < params.particle_count) {
        positions[i] = moved[i];
    }
}
