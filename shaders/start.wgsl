// Start Verlet: x₋₁ = x₀ − v₀h + ½ah² for every free particle, from its *current* position, so
// edits made before the first step count; x₋₁ = x₀ for pinned ones. One thread per particle
// (CPU twin: src/cpu/start.rs). Runs once, on the first frame after construction or reset.

@group(0) @binding(0) var<uniform> params: StepParams;
@group(0) @binding(1) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(2) var<storage, read_write> previous: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn start(
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
        previous[i] = vec4<f32>(p.xyz, 0.0);
        return;
    }
    let h = params.h;
    previous[i] = vec4<f32>(p.xyz - params.start_velocity.xyz * h + params.accel.xyz * (h * h * 0.5), 0.0);
}
