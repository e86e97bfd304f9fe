// The divergence check, one thread per particle (CPU twin: src/cpu/health.rs): the lowest index
// of a particle whose position is non-finite or farther than max_distance from the origin, by
// an atomic minimum on a u32 (no float atomics). The test is `is_bad` (common.wgsl).

// `params` and `positions` (bindings 0 and 1): particles.wgsl.
@group(0) @binding(4) var<storage, read_write> health: Health;

@compute @workgroup_size(WORKGROUP_SIZE)
fn check_health(thread: Thread) {
    let i = thread_index(thread);
    if (i >= params.particle_count) { return; }
    if (is_bad(params, positions[i].xyz)) {
        // Both fields only go down: the lowest bad particle, the first frame that found one
        // (a storage pointer cannot be passed to a shared function, so this is written out
        // here and in solve_cloths; CPU twin: health::report_bad).
        atomicMin(&health.first_bad, i);
        atomicMin(&health.frame, params.frame);
    }
}
