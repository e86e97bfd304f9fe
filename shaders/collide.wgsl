// Push particles out of the colliders, one thread per particle (CPU twin: src/cpu/collide.rs).
// The shapes and the response (sphere-traced relative paths, Coulomb friction, restitution by
// the previous position) are `collide_all` in colliders.wgsl, shared with the fused kernel.

// `params` and `positions` (bindings 0 and 1): particles.wgsl.
@group(0) @binding(2) var<storage, read_write> previous: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> collider_table: array<vec4<u32>>;  // records, broad phase
@group(0) @binding(4) var<storage, read> distance_grid: array<f32>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn collide(thread: Thread) {
    let i = free_particle(thread);
    if (i == NO_PARTICLE) { return; }
    let p = positions[i];
    let q = previous[i];
    let contact = collide_all(params.collider_count, params.t_from, params.t_to, p.xyz, q.xyz, substep_pull(params), substep_escape(params));
    // Write only on contact (or to clear a contact flag): most particles touch nothing, and
    // this saves their bandwidth.
    if (contact.hit) {
        positions[i] = vec4<f32>(contact.x, p.w);
        previous[i] = vec4<f32>(contact.x_prev, contact_flag(contact));
    } else if (q.w != 0.0) {
        previous[i] = vec4<f32>(q.xyz, 0.0);
    }
}
