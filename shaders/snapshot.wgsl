// Remember where every coarse-level particle is before the coarsest level is solved, one thread
// per snapshot slot (CPU twin: src/cpu/snapshot.rs). `prolong` moves the other particles by how
// far these have moved since (src/hierarchy/).

// The bindings: levels.wgsl.

@compute @workgroup_size(WORKGROUP_SIZE)
fn snapshot_nodes(thread: Thread) {
    let k = thread_index(thread);
    if (k >= range.count) { return; }
    snapshot[k] = positions[nodes[k]];
}
