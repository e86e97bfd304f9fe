// The divergence check, one thread per particle (CPU twin: src/cpu/health.rs): the lowest index
// of a particle whose position is non-finite or farther than max_distance from the origin, by
// an atomic minimum on a u32 (no float atomics). The test is `is_bad` (common.wgsl).

@group(0) @binding(0) var<uniform> params: StepParams;
@group(0) @binding(1) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(4) var<storage, read_write> health: Health;

@compute @workgroup_size(WORKGROUP_SIZE)
fn check_health(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(group, groups, local);
    if (i >= params.particle_count) {
        return;
    }
    if (is_bad(params, positions[i].xyz)) {
        // Both fields only go down: the lowest bad particle, the first frame that found one
        // (a storage pointer cannot be passed to a shared function, so this is written out
        // here and in solve_cloths; CPU twin: health::report_bad).
        atomicMin(&health.first_bad, i);
        atomicMin(&health.frame, params.frame);
    }
}
