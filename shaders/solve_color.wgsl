// Relax one color of distance constraints, one thread per constraint, one XPBD step each
// (CPU twin: src/cpu/solve_color.rs). Within a color no two constraints share a particle, so
// the read-modify-write of both ends needs no atomics.
//   C = |x_i − x_j| − L,  Δλ = (−C − α̃ λ) / ((w_i + w_j)(n · dir) + α̃),  x_i += w_i Δλ dir,
//   x_j −= w_j Δλ dir, where dir is the current bond n (Jakobsen) or the bond at the start of
//   the step (SHAKE, which keeps Verlet time-reversible and so conserves energy).

@group(0) @binding(0) var<uniform> color: ColorRange;
@group(0) @binding(1) var<storage, read> constraints: array<Constraint>;
@group(0) @binding(2) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(3) var<storage, read> previous: array<vec4<f32>>;         // x at step start
@group(0) @binding(4) var<storage, read_write> multipliers: array<f32>;
@group(0) @binding(5) var<uniform> params: StepParams;

@compute @workgroup_size(WORKGROUP_SIZE)
fn solve_color(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let k = thread_index(group, groups, local);
    if (k >= color.count) {
        return;
    }
    let index = color.start + k;
    let c = constraints[index];
    let pi = positions[c.i];
    let pj = positions[c.j];
    let w_sum = pi.w + pj.w;
    // Both ends pinned: nothing can move.
    if (w_sum == 0.0) {
        return;
    }
    let d = pi.xyz - pj.xyz;
    let len = length(d);
    // Coincident particles give no direction to push along.
    if (len < 1e-9) {
        return;
    }
    let n = d / len;
    // SHAKE corrects along the bond at the start of the step; where that bond turned by more
    // than 60° in one step the linearization is poor, so fall back to the current bond.
    var dir = n;
    var along = 1.0;
    if (params.shake == 1u) {
        let r = previous[c.i].xyz - previous[c.j].xyz;
        let r_len = length(r);
        if (r_len > 1e-9) {
            let nr = r / r_len;
            let cos_turn = dot(n, nr);
            if (cos_turn > 0.5) {
                dir = nr;
                along = cos_turn;
            }
        }
    }
    let alpha = params.compliance[c.kind];
    let relaxation = params.compliance.w;
    var lambda0 = 0.0;
    if (color.first_sweep == 0u) {
        lambda0 = multipliers[index];
    }
    let constraint = len - c.rest;
    let d_lambda = (-constraint - alpha * lambda0) / (w_sum * along + alpha) * relaxation;
    multipliers[index] = lambda0 + d_lambda;
    positions[c.i] = vec4<f32>(pi.xyz + dir * (d_lambda * pi.w), pi.w);
    positions[c.j] = vec4<f32>(pj.xyz - dir * (d_lambda * pj.w), pj.w);
}
