// Push particles out of the colliders, one thread per particle (CPU twin: src/cpu/collide.rs).
// The shapes and the response (sphere-traced relative paths, Coulomb friction, restitution by
// the previous position) are `collide_all` in colliders.wgsl, shared with the fused kernel.

@group(0) @binding(0) var<uniform> params: StepParams;
@group(0) @binding(1) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(2) var<storage, read_write> previous: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> collider_table: array<vec4<u32>>;  // records, broad phase
@group(0) @binding(4) var<storage, read> distance_grid: array<f32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn collide(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(group, groups, local);
    if (i >= params.particle_count) {
        return;
    }
    let p = positions[i];
    // Pinned and held particles stay where they are.
    if (p.w == 0.0) {
        return;
    }
    let q = previous[i];
    let contact = collide_all(params.collider_count, params.t_from, params.t_to, p.xyz, q.xyz, substep_pull(params));
    // Write only on contact (or to clear a contact flag): most particles touch nothing, and
    // this saves their bandwidth.
    if (contact.hit) {
        positions[i] = vec4<f32>(contact.x, p.w);
        previous[i] = vec4<f32>(contact.x_prev, contact_flag(contact));
    } else if (q.w != 0.0) {
        previous[i] = vec4<f32>(q.xyz, 0.0);
    }
}
