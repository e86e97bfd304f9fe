// Carry a coarse level's correction to the particles it dropped, one thread per particle (CPU
// twin: src/cpu/prolong.rs): x += Σ weight · (x_parent − snapshot_parent) over its coarse
// neighbours. The parents belong to the level just solved and are never written here, so the
// threads do not race.

@group(0) @binding(0) var<uniform> range: ColorRange;                      // this level's entries
@group(0) @binding(1) var<storage, read> nodes: array<u32>;                 // slot → particle
@group(0) @binding(2) var<storage, read> prolongations: array<Prolongation>;
@group(0) @binding(3) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(4) var<storage, read_write> snapshot: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn prolong(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let k = thread_index(group, groups, local);
    if (k >= range.count) {
        return;
    }
    let e = prolongations[range.start + k];
    let p = positions[e.particle];
    // Pinned (and held) particles stay where they are.
    if (p.w == 0.0) {
        return;
    }
    var moved = vec3<f32>(0.0);
    for (var m = 0u; m < 4u; m++) {
        let s = e.parents[m];
        moved += (positions[nodes[s]].xyz - snapshot[s].xyz) * e.weights[m];
    }
    positions[e.particle] = vec4<f32>(p.xyz + moved, p.w);
}
