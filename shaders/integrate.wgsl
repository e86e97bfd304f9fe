// Time-corrected Verlet, one thread per particle (CPU twin: src/cpu/integrate.rs); a pinned
// particle the host moves (`World::move_pin`) takes its step instead (`pin_step`).
//   x_next = x + (x - x_prev) * (ratio * damping) + accel * accel_scale   (`verlet`, common.wgsl)
// The host folds the integrator choice into `ratio` and `accel_scale` (src/integrator.rs).

// `params` and `positions` (bindings 0 and 1): particles.wgsl.
@group(0) @binding(2) var<storage, read_write> previous: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn integrate(thread: Thread) {
    let i = thread_index(thread);
    if (i >= params.particle_count) { return; }
    let p = positions[i];
    let q = previous[i];
    // A pinned particle (inverse mass 0) moves only while the host carries it over the frame
    // (its flag in the previous position's w); one that stands still is not even written.
    if (p.w == 0.0) {
        if (q.w != 0.0) {
            previous[i] = vec4<f32>(p.xyz, pin_flag(params.t_to, q.w));
            positions[i] = vec4<f32>(pin_step(params.t_to, p.xyz, q), p.w);
        }
        return;
    }
    let next = verlet(params, p.xyz, q.xyz);
    // w carries the contact flag `collide` left (held by static friction) into this substep's
    // solve, where the coarse levels hold such a particle as a pin.
    previous[i] = vec4<f32>(p.xyz, q.w);
    positions[i] = vec4<f32>(next, p.w);
}
