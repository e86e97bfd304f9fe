// The fused path: one workgroup solves one whole cloth for a whole frame, every substep's
// integrate, iterations × colors, tethers and collide, with a barrier between stages and
// between colors, so a world of small cloths costs one dispatch per frame instead of
// colors × iterations × substeps (CPU twin: src/cpu/solve_cloths.rs). The per-particle and
// per-constraint arithmetic is the same functions (common.wgsl) the per-pass kernels use.
//
// A cloth that fits (ClothRecord.shared_memory = 1) is copied into workgroup memory at the start
// and back at the end; a larger one stays in the storage buffer and the barriers cover storage.
// Per substep: integrate | barrier | the cloth's coarse levels (snapshot, barrier, per level its
// colors and its prolongation, each followed by a barrier) | per color: solve, barrier | tethers
// + collide, which (like the next integrate) touch only each thread's own particles, so they
// need no barrier between.
// Previous positions always stay in storage: only their owner thread writes them and SHAKE
// reads them, so they need no fast copy.
//
// Sleeping: a cloth whose fastest free particle stepped less than frame.sleep_step over the
// last substep, frame.sleep_frames frames in a row, sleeps: its workgroup returns at once, and
// the cloth costs nothing until a collider moving near its bounds wakes it here, or the host
// does (an edit, a parameter change: it zeroes the cloth's ClothRest). The decision is made
// here, from the kernel's own arithmetic, so the CPU twin sleeps on exactly the same frame.

@group(0) @binding(0) var<uniform> frame: FusedFrame;
@group(0) @binding(1) var<uniform> first: StepParams;    // the first substep (frame's dt ratio)
@group(0) @binding(2) var<uniform> rest: StepParams;     // every later substep
// The fused table, rows of four words (Rust: world::layout::FusedRows): frame.cloth_count
// ClothRecords (CLOTH_RECORD_ROWS each), every fused cloth's colors (a ColorRange a row), every
// fused particle's two tether slots (a row each; the host mirrors them from the tether buffer),
// then the cloths' coarse levels, snapshot nodes and prolongation entries (from frame.level_row,
// node_row, prolong_row). One buffer for all keeps the kernel within a browser's 8 storage
// buffers (cloth_record, fused_color, tether_slots, fused_level, ... read it).
@group(0) @binding(3) var<storage, read> fused_table: array<vec4<u32>>;
@group(0) @binding(4) var<storage, read> constraints: array<Constraint>;
@group(0) @binding(5) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(6) var<storage, read_write> previous: array<vec4<f32>>;
@group(0) @binding(7) var<storage, read_write> multipliers: array<f32>;
@group(0) @binding(8) var<storage, read_write> health: FusedHealth;
@group(0) @binding(9) var<storage, read> collider_table: array<vec4<u32>>;  // records, broad phase
@group(0) @binding(10) var<storage, read> distance_grid: array<f32>;

// Fused cloth k's record.
fn cloth_record(k: u32) -> ClothRecord {
    let a = fused_table[CLOTH_RECORD_ROWS * k];
    let b = fused_table[CLOTH_RECORD_ROWS * k + 1u];
    let c = fused_table[CLOTH_RECORD_ROWS * k + 2u];
    let d = fused_table[CLOTH_RECORD_ROWS * k + 3u];
    let e = fused_table[CLOTH_RECORD_ROWS * k + 4u];
    return ClothRecord(bitcast<vec4<f32>>(a), b.x, b.y, b.z, b.w, c.x, c.y, c.z, c.w, d.x, d.y, d.z, d.w, e.x, e.y, e.z, e.w);
}

fn fused_level(cloth: ClothRecord, l: u32) -> FusedLevel {
    let r = fused_table[frame.level_row + cloth.level_offset + l];
    return FusedLevel(r.x, r.y, r.z, r.w);
}

// Snapshot slot s of the cloth: the world index of the particle it holds (four a row).
fn fused_node(cloth: ClothRecord, s: u32) -> u32 {
    let n = cloth.node_offset + s;
    return fused_table[frame.node_row + n / 4u][n % 4u];
}

// Prolongation entry e (Rust: hierarchy::Prolongation; its parents are the cloth's slots).
fn fused_prolongation(e: u32) -> Prolongation {
    let row = frame.prolong_row + PROLONG_ROWS * e;
    let c = fused_table[row + 2u];
    return Prolongation(fused_table[row], bitcast<vec4<f32>>(fused_table[row + 1u]), c.x, c.y, c.z, c.w);
}

// Slot s of the cloth's snapshot: three floats a slot in the multiplier buffer, after every
// constraint's multiplier (the fused kernel has no storage buffer to spare for it).
fn snapshot_index(cloth: ClothRecord, s: u32) -> u32 {
    return frame.snapshot_base + 3u * (cloth.node_offset + s);
}

// The tether slots of particle i (a world index) of `cloth`: the nearest anchor, then the
// second (NO_ANCHOR where it has fewer).
fn tether_slots(cloth: ClothRecord, i: u32) -> array<TetherSlot, 2> {
    let r = fused_table[cloth.tether_row + (i - cloth.particle_offset)];
    return array<TetherSlot, 2>(TetherSlot(r.x, bitcast<f32>(r.y)), TetherSlot(r.z, bitcast<f32>(r.w)));
}

// Fused color c (cloth.color_offset + its own index), after the records.
fn fused_color(c: u32) -> ColorRange {
    let r = fused_table[CLOTH_RECORD_ROWS * frame.cloth_count + c];
    return ColorRange(r.x, r.y, r.z, r.w);
}

// The health buffer as this kernel sees it: the flag every kernel sees (Health, padded to 16
// bytes: config::REST_OFFSET), then one ClothRest per fused cloth. One buffer, so the kernel
// binds no more storage buffers than before.
struct FusedHealth {
    first_bad: atomic<u32>,
    frame: atomic<u32>,
    pad0: u32,
    pad1: u32,
    rests: array<ClothRest>,
}

// Particles per workgroup-memory cloth; the host sets it from the adapter's
// max_compute_workgroup_storage_size (16 bytes each).
override FUSED_CAPACITY: u32 = 1024u;
// The host builds two pipelines: one for cloths held in workgroup memory (true) and one for
// cloths that stay in the storage buffer (false). A constant, so each pipeline touches only its
// own kind of memory (a CPU driver would otherwise run both sides of every branch, masked).
override SHARED_MEMORY: bool = true;

var<workgroup> cloth_x: array<vec4<f32>, FUSED_CAPACITY>;
// Whether the cloth sleeps this frame (thread 0 decides), and the frame's end reduced over the
// threads: the largest step and the bounds, as order-preserving bits (ordered() in common.wgsl).
var<workgroup> asleep: u32;
var<workgroup> most_step: atomic<u32>;
var<workgroup> low: array<atomic<u32>, 3>;
var<workgroup> high: array<atomic<u32>, 3>;

// Particle `i` (an index into the world's buffers) from wherever its cloth keeps it.
fn load_x(offset: u32, i: u32) -> vec4<f32> {
    if (SHARED_MEMORY) {
        return cloth_x[i - offset];
    }
    return positions[i];
}

fn store_x(offset: u32, i: u32, p: vec4<f32>) {
    if (SHARED_MEMORY) {
        cloth_x[i - offset] = p;
    } else {
        positions[i] = p;
    }
}

// Every thread's writes, to workgroup memory and to storage, seen by every other thread.
fn sync() {
    storageBarrier();
    workgroupBarrier();
}

// One XPBD step of constraint `index` (solve_pair, as solve_color does), with its cloth's α̃ of
// its kind.
fn solve_constraint(params: StepParams, cloth: ClothRecord, index: u32, first_sweep: bool) {
    let offset = cloth.particle_offset;
    let con = constraints[index];
    let pi = load_x(offset, con.i);
    let pj = load_x(offset, con.j);
    // The substep's first sweep starts the multipliers at 0.
    var lambda0 = 0.0;
    if (!first_sweep) {
        lambda0 = multipliers[index];
    }
    let qi = previous[con.i];
    let qj = previous[con.j];
    let solved = solve_pair(params, con, pi, pj, qi.xyz - qj.xyz, vec2<f32>(qi.w, qj.w), constraint_alpha(cloth.alpha, con.packed), lambda0);
    multipliers[index] = solved.lambda;
    store_x(offset, con.i, solved.pi);
    store_x(offset, con.j, solved.pj);
}

// One bending stencil (records `index` and `index + 1`), as solve_color runs it.
fn solve_fused_stencil(params: StepParams, cloth: ClothRecord, index: u32, first_sweep: bool) {
    let offset = cloth.particle_offset;
    let head = constraints[index];
    let tail = constraints[index + 1u];
    var lambda0 = 0.0;
    if (!first_sweep) {
        lambda0 = multipliers[index];
    }
    let s = solve_stencil(params, stencil_weights(head, tail), load_x(offset, head.i), load_x(offset, head.j),
        load_x(offset, tail.i), load_x(offset, tail.j), cloth.alpha.w, lambda0);
    multipliers[index] = s.lambda;
    store_x(offset, head.i, s.p0);
    store_x(offset, head.j, s.p1);
    store_x(offset, tail.i, s.p2);
    store_x(offset, tail.j, s.p3);
}

// One membrane triangle (records `index` and `index + 1`), as solve_color runs it, with its
// cloth's α̃ of stretch and shear.
fn solve_fused_triangle(params: StepParams, cloth: ClothRecord, index: u32, first_sweep: bool) {
    let offset = cloth.particle_offset;
    let head = constraints[index];
    let tail = constraints[index + 1u];
    var lambda0 = vec2<f32>(0.0);
    if (!first_sweep) {
        lambda0 = vec2<f32>(multipliers[index], multipliers[index + 1u]);
    }
    let area_scale = triangle_area_scale(head, tail);
    let alpha = vec2<f32>(cloth.alpha.x * area_scale, cloth.alpha.y * area_scale);
    let s = solve_triangle(params, triangle_frame(head, tail), load_x(offset, head.i), load_x(offset, head.j),
        load_x(offset, tail.i), alpha, lambda0);
    multipliers[index] = s.lambda.x;
    multipliers[index + 1u] = s.lambda.y;
    store_x(offset, head.i, s.p0);
    store_x(offset, head.j, s.p1);
    store_x(offset, tail.i, s.p2);
}

// The cloth's coarse levels, as the global path's coarse stage runs them: the snapshot of every
// level's particles, then per level (coarsest first) one sweep of its colors and the
// prolongation of the particles it dropped. Called after integrate, before the fine sweeps.
fn coarse_levels(params: StepParams, cloth: ClothRecord, local: u32) {
    let offset = cloth.particle_offset;
    for (var s = local; s < cloth.node_count; s += WORKGROUP_SIZE) {
        let x = load_x(offset, fused_node(cloth, s)).xyz;
        let at = snapshot_index(cloth, s);
        multipliers[at] = x.x;
        multipliers[at + 1u] = x.y;
        multipliers[at + 2u] = x.z;
    }
    sync();
    for (var l = 0u; l < cloth.level_count; l++) {
        let level = fused_level(cloth, l);
        for (var c = 0u; c < level.color_count; c++) {
            let range = fused_color(cloth.color_offset + level.color_start + c);
            let walk = color_walk(range, local, 1u, WORKGROUP_SIZE);
            for (var t = walk.x; t < range.count; t += walk.y) {
                solve_constraint(params, cloth, range.start + t, true);
            }
            sync();
        }
        // x += Σ weight · (x_parent − snapshot_parent); pinned (and held) particles stay.
        for (var e = local; e < level.prolong_count; e += WORKGROUP_SIZE) {
            let entry = fused_prolongation(level.prolong_start + e);
            let p = load_x(offset, entry.particle);
            if (p.w == 0.0) {
                continue;
            }
            var moved = vec3<f32>(0.0);
            for (var m = 0u; m < 4u; m++) {
                let slot = entry.parents[m];
                let at = snapshot_index(cloth, slot);
                let before = vec3<f32>(multipliers[at], multipliers[at + 1u], multipliers[at + 2u]);
                moved += (load_x(offset, fused_node(cloth, slot)).xyz - before) * entry.weights[m];
            }
            store_x(offset, entry.particle, vec4<f32>(p.xyz + moved, p.w));
        }
        sync();
    }
}

// Integrate, then the solve (iterations × colors). Called with the substep's parameters by
// value, so they stay values (a `var` copy costs a CPU driver a masked struct copy).
fn integrate_and_solve(params: StepParams, s: u32, cloth: ClothRecord, local: u32) {
    let offset = cloth.particle_offset;
    let end = offset + cloth.particle_count;
    let t_to = f32(s + 1u) / f32(frame.substeps);
    // Integrate: each thread its own particles.
    for (var i = offset + local; i < end; i += WORKGROUP_SIZE) {
        let p = load_x(offset, i);
        let q = previous[i];
        if (p.w != 0.0) {
            let next = verlet(params, p.xyz, q.xyz);
            // w carries collide's contact flag into this substep's solve.
            previous[i] = vec4<f32>(p.xyz, q.w);
            store_x(offset, i, vec4<f32>(next, p.w));
        } else if (q.w != 0.0) {
            // A pinned particle the host carries over the frame (`World::move_pin`).
            previous[i] = vec4<f32>(p.xyz, pin_flag(t_to, q.w));
            store_x(offset, i, vec4<f32>(pin_step(t_to, p.xyz, q), p.w));
        }
    }
    sync();
    if (frame.coarse_levels == 1u && cloth.level_count > 0u) {
        coarse_levels(params, cloth, local);
    }
    // Solve: iterations × colors; within a color no two constraints share a particle.
    for (var k = 0u; k < frame.iterations; k++) {
        for (var c = 0u; c < cloth.color_count; c++) {
            let range = fused_color(cloth.color_offset + c);
            if ((constraints[range.start].packed & STENCIL) != 0u) {
                // A color of bending stencils or membrane triangles, two records each.
                let walk = color_walk(range, local, 2u, 2u * WORKGROUP_SIZE);
                for (var t = walk.x; t < range.count; t += walk.y) {
                    if (is_triangle(constraints[range.start + t])) {
                        solve_fused_triangle(params, cloth, range.start + t, k == 0u);
                    } else {
                        solve_fused_stencil(params, cloth, range.start + t, k == 0u);
                    }
                }
            } else {
                let walk = color_walk(range, local, 1u, WORKGROUP_SIZE);
                for (var t = walk.x; t < range.count; t += walk.y) {
                    solve_constraint(params, cloth, range.start + t, k == 0u);
                }
            }
            sync();
        }
    }
}

// The strain limit after contact (limit_color's sweeps, `limit_pair` in common.wgsl) over its
// own colors (a copy of the cloth's structural edges), or in frames that hold what static
// friction holds over the cloth's first `limit_colors` colors, `limit_sweeps` times (in the
// frame's last substep, `last`, `end_sweeps` times over-relaxed when there are any), when the
// frame has one: a barrier first (collide moved every thread's own particles) and after each
// color (the next color, or the next substep's integrate, reads particles this one moved).
fn limit_strain(params: StepParams, cloth: ClothRecord, local: u32, last: bool) {
    let sweeps = limit_sweeps_in(params, last);
    if (params.strain_limit <= 0.0 || sweeps == 0u) { return; }
    let relax = limit_relax(params, last);
    let offset = cloth.particle_offset;
    sync();
    var first = cloth.strain_first;
    var count = cloth.strain_colors;
    // A cloth whose first colors hold no structural edge (a membrane of triangles) sweeps its
    // own limit colors in those frames too.
    if (params.limit_holds != 0u && cloth.limit_colors > 0u) {
        first = 0u;
        count = cloth.limit_colors;
    }
    for (var sweep = 0u; sweep < sweeps; sweep++) {
        for (var c = first; c < first + count; c++) {
            let range = fused_color(cloth.color_offset + c);
            let walk = color_walk(range, local, 1u, WORKGROUP_SIZE);
            for (var t = walk.x; t < range.count; t += walk.y) {
                let con = constraints[range.start + t];
                if (!is_structural(con)) {
                    continue;
                }
                let held = limit_held(params, previous[con.i].w, previous[con.j].w);
                let limited = limit_pair(params.strain_limit, relax, con, load_x(offset, con.i), load_x(offset, con.j), held);
                if (limited.moved) {
                    store_x(offset, con.i, limited.pi);
                    store_x(offset, con.j, limited.pj);
                }
            }
            sync();
        }
    }
}

// Tethers and collide, each thread its own particles: no barrier is needed between them (a
// tether reads only its anchors, which are pinned and which collide never moves), nor before
// the next substep's integrate (own particles again). Substep s of the frame runs from
// fraction s/S to (s+1)/S (the per-pass kernels read these from their substep's StepParams).
// Without `tethers`, collide alone: the second collide of a frame's last substep, after the
// limit's last barrier (frame_end_collides).
fn tethers_and_collide(params: StepParams, s: u32, cloth: ClothRecord, local: u32, tethers: bool) {
    let t_from = f32(s) / f32(frame.substeps);
    let t_to = f32(s + 1u) / f32(frame.substeps);
    let offset = cloth.particle_offset;
    let end = offset + cloth.particle_count;
    for (var i = offset + local; i < end; i += WORKGROUP_SIZE) {
        let p = load_x(offset, i);
        if (p.w == 0.0) {
            continue;
        }
        var x = p.xyz;
        let tethered = tethers && cloth.tethers == 1u;
        if (tethered) {
            // As solve_tethers does: slots fill nearest first.
            let slots = tether_slots(cloth, i);
            let first = slots[0];
            var second = slots[1];
            if (second.anchor == NO_ANCHOR) {
                second = first;
            }
            if (first.anchor != NO_ANCHOR) {
                let a = load_x(offset, first.anchor).xyz;
                let b = load_x(offset, second.anchor).xyz;
                x = tether_pull(params, x, a, first.rest, b, second.rest);
            }
        }
        let q = previous[i];
        let contact = collide_all(params.collider_count, t_from, t_to, x, q.xyz, substep_pull(params), substep_escape(params));
        if (contact.hit) {
            store_x(offset, i, vec4<f32>(contact.x, p.w));
            previous[i] = vec4<f32>(contact.x_prev, contact_flag(contact));
        } else {
            if (tethered) {
                store_x(offset, i, vec4<f32>(x, p.w));
            }
            if (q.w != 0.0) {
                previous[i] = vec4<f32>(q.xyz, 0.0);
            }
        }
    }
}

// True in a frame's last substep when it has end sweeps and colliders: it collides again after
// the sweeps, as the schedule orders that substep, since they are over-relaxed and many, and
// what they pull into a collider must go back out before the frame is shown.
fn frame_end_collides(params: StepParams, last: bool) -> bool {
    return last && params.end_sweeps > 0u && params.collider_count > 0u;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn solve_cloths(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    // One workgroup per fused cloth; this pipeline takes only the cloths kept where it keeps
    // them (the other pipeline takes the rest).
    let cloth = cloth_record(group.x);
    if ((cloth.shared_memory == 1u) != SHARED_MEMORY) { return; }
    let sleeping = frame.sleep_frames > 0u;
    if (sleeping) {
        // Thread 0 reads the cloth's rest state (read_write storage: not uniform to the
        // workgroup) and shares the verdict; a moving collider near its bounds wakes it.
        if (local == 0u) {
            var rest_state = health.rests[group.x];
            var sleeps = rest_state.calm_frames >= frame.sleep_frames;
            if (sleeps) {
                for (var k = 0u; k < first.collider_count; k++) {
                    if (collider_wakes(k, rest_state.lo.xyz, rest_state.hi.xyz)) {
                        sleeps = false;
                        health.rests[group.x].calm_frames = 0u;
                        break;
                    }
                }
            }
            asleep = u32(sleeps);
            atomicStore(&most_step, 0u);
            for (var a = 0u; a < 3u; a++) {
                atomicStore(&low[a], 0xffffffffu);
                atomicStore(&high[a], 0u);
            }
        }
        if (workgroupUniformLoad(&asleep) == 1u) { return; }
    }
    let offset = cloth.particle_offset;
    let end = offset + cloth.particle_count;
    if (SHARED_MEMORY) {
        for (var i = offset + local; i < end; i += WORKGROUP_SIZE) {
            cloth_x[i - offset] = positions[i];
        }
    }
    for (var s = 0u; s < frame.substeps; s++) {
        let last = s + 1u == frame.substeps;
        // One call site per stage, the substep's parameters chosen first: with a call per
        // block each stage was inlined twice, and llvmpipe ran the frame 7 % slower.
        var params = rest;
        if (s == 0u) {
            params = first;
        }
        integrate_and_solve(params, s, cloth, local);
        tethers_and_collide(params, s, cloth, local, true);
        limit_strain(params, cloth, local, last);
        if (frame_end_collides(params, last)) { tethers_and_collide(params, s, cloth, local, false); }
    }
    // llvmpipe ends every loop of an invocation once its loops have run 65 535 iterations in
    // all, silently, so a long frame could stop part-way. A loop of substeps + 1 iterations
    // (at least two, and not unrollable) runs whole only if the frame did: one cut short says
    // so in the health flag rather than handing back a half-stepped cloth (the CPU twin's
    // loops never stop early).
    var probe = 0u;
    for (var k = 0u; k <= frame.substeps; k++) {
        probe++;
    }
    if (probe != frame.substeps + 1u) {
        atomicMin(&health.first_bad, STOPPED_EARLY);
        atomicMin(&health.frame, first.frame);
    }
    sync();
    // Health (the frame's divergence check for this cloth) and, from workgroup memory, home.
    // With sleeping on, each thread also measures its particles: the largest step of a free
    // one over the last substep, and the bounds of all.
    var step = 0.0;
    var lo = vec3<f32>(3.0e38);
    var hi = vec3<f32>(-3.0e38);
    for (var i = offset + local; i < end; i += WORKGROUP_SIZE) {
        let p = load_x(offset, i);
        if (is_bad(first, p.xyz)) {
            atomicMin(&health.first_bad, i);
            atomicMin(&health.frame, first.frame);
        }
        if (SHARED_MEMORY) {
            positions[i] = p;
        }
        if (sleeping) {
            if (p.w != 0.0) {
                step = max(step, length(p.xyz - previous[i].xyz));
            }
            lo = min(lo, p.xyz);
            hi = max(hi, p.xyz);
        }
    }
    if (sleeping) {
        atomicMax(&most_step, ordered(step));
        for (var a = 0u; a < 3u; a++) {
            atomicMin(&low[a], ordered(lo[a]));
            atomicMax(&high[a], ordered(hi[a]));
        }
        workgroupBarrier();
        if (local == 0u) {
            let most = unordered(atomicLoad(&most_step));
            var calm = 0u;
            if (most < frame.sleep_step) {
                calm = min(health.rests[group.x].calm_frames, frame.sleep_frames) + 1u;
            }
            let bound_lo = vec3<f32>(unordered(atomicLoad(&low[0])), unordered(atomicLoad(&low[1])), unordered(atomicLoad(&low[2])));
            let bound_hi = vec3<f32>(unordered(atomicLoad(&high[0])), unordered(atomicLoad(&high[1])), unordered(atomicLoad(&high[2])));
            health.rests[group.x] = ClothRest(calm, most, 0u, 0u, vec4<f32>(bound_lo, 0.0), vec4<f32>(bound_hi, 0.0));
        }
    }
}
