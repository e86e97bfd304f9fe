// Long-range attachments, one thread per particle (CPU twin: src/cpu/tethers.rs): a free
// particle farther than tether_scale × its geodesic distance from either of its two anchors is
// moved to the nearest point within both. Only the particle moves; its anchors are pinned, so
// no thread writes what another reads and no coloring is needed.

@group(0) @binding(0) var<uniform> params: StepParams;
@group(0) @binding(1) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(3) var<storage, read> tethers: array<TetherSlot>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn solve_tethers(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(group, groups, local);
    if (i >= params.particle_count) {
        return;
    }
    let p = positions[i];
    if (p.w == 0.0) {
        return;
    }
    // Slots fill nearest first: no first anchor, no tethers; no second, the first twice.
    let first = tethers[i * TETHER_SLOTS];
    if (first.anchor == NO_ANCHOR) {
        return;
    }
    var second = tethers[i * TETHER_SLOTS + 1u];
    if (second.anchor == NO_ANCHOR) {
        second = first;
    }
    let a = positions[first.anchor].xyz;
    let b = positions[second.anchor].xyz;
    positions[i] = vec4<f32>(tether_pull(params, p.xyz, a, first.rest, b, second.rest), p.w);
}
