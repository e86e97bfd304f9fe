// Carry a coarse level's correction to the particles it dropped, one thread per particle (CPU
// twin: src/cpu/prolong.rs): x += Σ weight · (x_parent − snapshot_parent) over its coarse
// neighbours. The parents belong to the level just solved and are never written here, so the
// threads do not race.

// The bindings: levels.wgsl.

@compute @workgroup_size(WORKGROUP_SIZE)
fn prolong(thread: Thread) {
    let k = thread_index(thread);
    if (k >= range.count) { return; }
    let e = prolongations[range.start + k];
    let p = positions[e.particle];
    // Pinned (and held) particles stay where they are.
    if (p.w == 0.0) { return; }
    var moved = vec3<f32>(0.0);
    for (var m = 0u; m < 4u; m++) {
        let s = e.parents[m];
        moved += (positions[nodes[s]].xyz - snapshot[s].xyz) * e.weights[m];
    }
    positions[e.particle] = vec4<f32>(p.xyz + moved, p.w);
}
