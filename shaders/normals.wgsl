// Per-particle normals of a grid cloth from central differences, for drawing
// (CPU twin: src/cpu/normals.rs). One thread per particle; reads neighbours
// only, so no atomics are needed.

@group(0) @binding(0) var<uniform> grid: Grid;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> normals: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn compute_normals(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(group, groups, local);
    if (i >= grid.columns * grid.rows) {
        return;
    }
    let c = i % grid.columns;
    let r = i / grid.columns;
    // Neighbours clamped at the border (one-sided differences there).
    let left = r * grid.columns + select(c - 1u, c, c == 0u);
    let right = r * grid.columns + min(c + 1u, grid.columns - 1u);
    let up = select(r - 1u, r, r == 0u) * grid.columns + c;
    let down = min(r + 1u, grid.rows - 1u) * grid.columns + c;
    let du = positions[right].xyz - positions[left].xyz;
    let dv = positions[down].xyz - positions[up].xyz;
    let n = cross(dv, du);
    let len = length(n);
    // A collapsed neighbourhood has no normal; +y keeps the lighting finite.
    var out = vec3<f32>(0.0, 1.0, 0.0);
    if (len > 1e-12) {
        out = n / len;
    }
    normals[i] = vec4<f32>(out, 0.0);
}
