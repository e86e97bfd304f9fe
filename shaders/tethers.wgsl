// Long-range attachments, one thread per particle (CPU twin: src/cpu/tethers.rs): a free
// particle farther than tether_scale × its geodesic distance from one of its anchors is pulled
// back towards it. Only the particle moves; its anchors are pinned, so no thread writes what
// another reads and no coloring is needed.

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
    var x = p.xyz;
    for (var s = 0u; s < TETHER_SLOTS; s++) {
        let slot = tethers[i * TETHER_SLOTS + s];
        if (slot.anchor == NO_ANCHOR) {
            continue;
        }
        x = tether_pull(params, x, positions[slot.anchor].xyz, slot.rest);
    }
    positions[i] = vec4<f32>(x, p.w);
}
