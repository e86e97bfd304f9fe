// Remember where every coarse-level particle is before the coarsest level is solved, one thread
// per snapshot slot (CPU twin: src/cpu/snapshot.rs). `prolong` moves the other particles by how
// far these have moved since (src/hierarchy/).

@group(0) @binding(0) var<uniform> range: ColorRange;                      // slots 0..count
@group(0) @binding(1) var<storage, read> nodes: array<u32>;                 // slot → particle
@group(0) @binding(2) var<storage, read> prolongations: array<Prolongation>;
@group(0) @binding(3) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(4) var<storage, read_write> snapshot: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn snapshot_nodes(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let k = thread_index(group, groups, local);
    if (k >= range.count) {
        return;
    }
    snapshot[k] = positions[nodes[k]];
}
