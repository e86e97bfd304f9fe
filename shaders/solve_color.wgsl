// Relax one color of distance constraints, one thread per constraint
// (CPU twin: src/cpu/solve_color.rs). Within a color no two constraints share a
// particle, so the read-modify-write of both ends needs no atomics.

@group(0) @binding(0) var<uniform> color: ColorRange;
@group(0) @binding(1) var<storage, read> constraints: array<Constraint>;
@group(0) @binding(2) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass

@compute @workgroup_size(WORKGROUP_SIZE)
fn solve_color(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let k = thread_index(group, groups, local);
    if (k >= color.count) {
        return;
    }
    let c = constraints[color.start + k];
    let pi = positions[c.i];
    let pj = positions[c.j];
    let w_sum = pi.w + pj.w;
    // Both ends pinned: nothing can move.
    if (w_sum == 0.0) {
        return;
    }
    let d = pj.xyz - pi.xyz;
    let len = length(d);
    // Coincident particles give no direction to push along; the next iteration separates them.
    if (len < 1e-9) {
        return;
    }
    let n = d / len;
    let s = c.stiffness * (len - c.rest) / w_sum;
    positions[c.i] = vec4<f32>(pi.xyz + n * (s * pi.w), pi.w);
    positions[c.j] = vec4<f32>(pj.xyz - n * (s * pj.w), pj.w);
}
