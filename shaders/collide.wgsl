// Push particles out of the ground plane and the sphere by projection, one thread per particle
// (CPU twin: src/cpu/collide.rs). Friction and the no-bounce response edit the
// previous position, i.e. the implied velocity, so the next integrate step sees them.

@group(0) @binding(0) var<uniform> params: StepParams;
@group(0) @binding(1) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(2) var<storage, read_write> previous: array<vec4<f32>>;

// The previous position that leaves, after contact with a surface of outward normal n:
// no motion into the surface, motion away from it kept, sliding reduced by `friction`.
fn contact_previous(x: vec3<f32>, x_prev: vec3<f32>, n: vec3<f32>, friction: f32) -> vec3<f32> {
    let d = x - x_prev;
    let dn = dot(d, n);
    let tangential = d - n * dn;
    let kept = tangential * (1.0 - friction) + n * max(dn, 0.0);
    return x - kept;
}

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
    var x = p.xyz;
    var x_prev = previous[i].xyz;
    var hit = false;
    if (params.ground_on == 1u && x.y < params.ground_y) {
        x.y = params.ground_y;
        x_prev = contact_previous(x, x_prev, vec3<f32>(0.0, 1.0, 0.0), params.friction);
        hit = true;
    }
    let radius = params.sphere.w;
    if (radius > 0.0) {
        let offset = x - params.sphere.xyz;
        let dist = length(offset);
        // A particle exactly at the centre has no way out to prefer; leave it.
        if (dist < radius && dist > 1e-9) {
            let n = offset / dist;
            x = params.sphere.xyz + n * radius;
            x_prev = contact_previous(x, x_prev, n, params.friction);
            hit = true;
        }
    }
    // Write only on contact: most particles touch nothing, and this saves their bandwidth.
    if (hit) {
        positions[i] = vec4<f32>(x, p.w);
        previous[i] = vec4<f32>(x_prev, 0.0);
    }
}
