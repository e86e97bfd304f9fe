// Relax one color of distance constraints, one thread per constraint, one XPBD step each, or
// one color of a mesh's bending stencils or membrane triangles, one thread per stencil or
// triangle
// (CPU twin: src/cpu/solve_color.rs). Within a color no two constraints share a particle, so
// the read-modify-write of both ends needs no atomics; a serial color (a hub's overflow, whose
// records may share particles) is solved by one thread, record after record.
// The step itself is `xpbd_step` (common.wgsl): along the current bond (Jakobsen) or the bond at
// the start of the step (SHAKE, which keeps Verlet time-reversible and so conserves energy), with
// the compliance of the constraint's kind and material from `materials`.

@group(0) @binding(0) var<uniform> color: ColorRange;
@group(0) @binding(1) var<storage, read> constraints: array<Constraint>;
@group(0) @binding(2) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(3) var<storage, read> previous: array<vec4<f32>>;         // x at step start
@group(0) @binding(4) var<storage, read_write> multipliers: array<f32>;
@group(0) @binding(5) var<uniform> params: StepParams;
// α̃ per material and kind, four floats a material (stretch, shear, bend, a mesh's bending
// stencils): a distance constraint's `packed` (its material × 4 + its kind) is its index here,
// one load per solve.
@group(0) @binding(6) var<storage, read> materials: array<f32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn solve_color(thread: Thread) {
    let k = thread_index(thread);
    if (k >= color.count) { return; }
    // A color of bending stencils or membrane triangles: thread k takes the k-th (records 2k
    // and 2k + 1); a serial color, thread 0 every record in turn (`color_walk`).
    if ((constraints[color.start].packed & STENCIL) != 0u) {
        let walk = color_walk(color, k, 2u, color.count);
        for (var at = walk.x; at < color.count; at += walk.y) {
            // A world's merged color may hold both (one cloth's triangles, another's stencils).
            if (is_triangle(constraints[color.start + at])) {
                solve_triangle_record(color.start + at);
            } else {
                solve_stencil_record(color.start + at);
            }
        }
        return;
    }
    let walk = color_walk(color, k, 1u, color.count);
    for (var at = walk.x; at < color.count; at += walk.y) {
        solve_distance_record(color.start + at);
    }
}

// One bending stencil: records `head_index` (its head) and `head_index + 1` (its tail).
fn solve_stencil_record(head_index: u32) {
    let head = constraints[head_index];
    let tail = constraints[head_index + 1u];
    var lambda_s = 0.0;
    if (color.first_sweep == 0u) {
        lambda_s = multipliers[head_index];
    }
    let s = solve_stencil(params, stencil_weights(head, tail), positions[head.i], positions[head.j],
        positions[tail.i], positions[tail.j], materials[stencil_slot(head)], lambda_s);
    multipliers[head_index] = s.lambda;
    positions[head.i] = s.p0;
    positions[head.j] = s.p1;
    positions[tail.i] = s.p2;
    positions[tail.j] = s.p3;
}

// One membrane triangle: records `head_index` (its head, the stretch's multiplier) and
// `head_index + 1` (its tail, the shear's).
fn solve_triangle_record(head_index: u32) {
    let head = constraints[head_index];
    let tail = constraints[head_index + 1u];
    var lambda0 = vec2<f32>(0.0);
    if (color.first_sweep == 0u) {
        lambda0 = vec2<f32>(multipliers[head_index], multipliers[head_index + 1u]);
    }
    let slot = triangle_slot(head);
    let area_scale = triangle_area_scale(head, tail);
    let alpha = vec2<f32>(materials[slot] * area_scale, materials[slot + 1u] * area_scale);
    let s = solve_triangle(params, triangle_frame(head, tail), positions[head.i], positions[head.j],
        positions[tail.i], alpha, lambda0);
    multipliers[head_index] = s.lambda.x;
    multipliers[head_index + 1u] = s.lambda.y;
    positions[head.i] = s.p0;
    positions[head.j] = s.p1;
    positions[tail.i] = s.p2;
}

// One distance constraint (or a coarse level's limit): record `index`.
fn solve_distance_record(index: u32) {
    let c = constraints[index];
    let pi = positions[c.i];
    let pj = positions[c.j];
    var lambda0 = 0.0;
    if (color.first_sweep == 0u) {
        lambda0 = multipliers[index];
    }
    // Any constraint but a coarse level's limit (rigid) has its material's compliance (a
    // limit's packed bits are its share, not a row of the table).
    var alpha = 0.0;
    if ((c.packed & 3u) != LIMIT_KIND) {
        alpha = materials[c.packed];
    }
    let qi = previous[c.i];
    let qj = previous[c.j];
    let solved = solve_pair(params, c, pi, pj, qi.xyz - qj.xyz, vec2<f32>(qi.w, qj.w), alpha, lambda0);
    multipliers[index] = solved.lambda;
    positions[c.i] = solved.pi;
    positions[c.j] = solved.pj;
}

// The strain limit after contact (SolverParams::strain_limit): one thread per record of one
// of the cloths' colors; a structural edge longer than the limit is shortened to it
// (`limit_pair`, common.wgsl), any other record is left alone. Same bindings as solve_color
// (the multipliers and materials unused): within a color no two edges share a particle. The
// host sweeps the colors `limit_sweeps` times (`end_sweeps` in the frame's last substep, the one
// whose t_to is 1, over-relaxed).
@compute @workgroup_size(WORKGROUP_SIZE)
fn limit_color(thread: Thread) {
    let k = thread_index(thread);
    if (k >= color.count) { return; }
    let relax = limit_relax(params, params.t_to == 1.0);
    let walk = color_walk(color, k, 1u, color.count);
    for (var at = walk.x; at < color.count; at += walk.y) {
        let c = constraints[color.start + at];
        if (!is_structural(c)) {
            continue;
        }
        let held = limit_held(params, previous[c.i].w, previous[c.j].w);
        let limited = limit_pair(params.strain_limit, relax, c, positions[c.i], positions[c.j], held);
        if (limited.moved) {
            positions[c.i] = limited.pi;
            positions[c.j] = limited.pj;
        }
    }
}
