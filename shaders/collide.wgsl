// Push particles out of the ground plane and the sphere by projection, one thread per particle
// (CPU twin: src/cpu/collide.rs). Friction and the no-bounce response edit the
// previous position, i.e. the implied velocity, so the next integrate step sees them.

@group(0) @binding(0) var<uniform> params: StepParams;
@group(0) @binding(1) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(2) var<storage, read_write> previous: array<vec4<f32>>;

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
    if (p.w == 0.0) {
        return;
    }
    let contact = collide_particle(params, p.xyz, previous[i].xyz);
    // Write only on contact: most particles touch nothing, and this saves their bandwidth.
    if (contact[0].w == 1.0) {
        positions[i] = vec4<f32>(contact[0].xyz, p.w);
        previous[i] = contact[1];
    }
}
