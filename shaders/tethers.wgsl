// Long-range attachments, one thread per particle (CPU twin: src/cpu/tethers.rs): a free
// particle farther than tether_scale × its geodesic distance from either of its two anchors is
// moved to the nearest point within both. Only the particle moves; its anchors are pinned, so
// no thread writes what another reads and no coloring is needed.

// `params` and `positions` (bindings 0 and 1): particles.wgsl.
@group(0) @binding(3) var<storage, read> tethers: array<TetherSlot>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn solve_tethers(thread: Thread) {
    let i = free_particle(thread);
    if (i == NO_PARTICLE) { return; }
    let p = positions[i];
    // Slots fill nearest first: no first anchor, no tethers; no second, the first twice.
    let first = tethers[i * TETHER_SLOTS];
    if (first.anchor == NO_ANCHOR) { return; }
    var second = tethers[i * TETHER_SLOTS + 1u];
    if (second.anchor == NO_ANCHOR) {
        second = first;
    }
    let a = positions[first.anchor].xyz;
    let b = positions[second.anchor].xyz;
    positions[i] = vec4<f32>(tether_pull(params, p.xyz, a, first.rest, b, second.rest), p.w);
}
