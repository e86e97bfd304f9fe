// Time-corrected Verlet, one thread per particle (CPU twin: src/cpu/integrate.rs).
//   x_next = x + (x - x_prev) * (ratio * damping) + accel * accel_scale   (`verlet`, common.wgsl)
// The host folds the integrator choice into `ratio` and `accel_scale` (src/integrator.rs).

@group(0) @binding(0) var<uniform> params: StepParams;
@group(0) @binding(1) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(2) var<storage, read_write> previous: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn integrate(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(group, groups, local);
    if (i >= params.particle_count) {
        return;
    }
    let p = positions[i];
    // Pinned particles (inverse mass 0) never move.
    if (p.w == 0.0) {
        return;
    }
    let q = previous[i];
    let next = verlet(params, p.xyz, q.xyz);
    // w carries the contact flag `collide` left (held by static friction) into this substep's
    // solve, where the coarse levels hold such a particle as a pin.
    previous[i] = vec4<f32>(p.xyz, q.w);
    positions[i] = vec4<f32>(next, p.w);
}
