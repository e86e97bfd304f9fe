// The bindings every kernel with a thread per particle of the solver's buffers declares first
// (integrate, collide, collide_edges, tethers, health, self_collision), and the particle such a
// thread moves. Prepended after common.wgsl (and before colliders.wgsl) to those kernels.

@group(0) @binding(0) var<uniform> params: StepParams;
@group(0) @binding(1) var<storage, read_write> positions: array<vec4<f32>>;  // w: inverse mass

const NO_PARTICLE: u32 = 0xffffffffu;

// The particle this thread moves: its index, or NO_PARTICLE past the last particle and for a
// pinned or held one (inverse mass 0), which stays where it is.
fn free_particle(thread: Thread) -> u32 {
    let i = thread_index(thread);
    if (i >= params.particle_count || positions[i].w == 0.0) {
        return NO_PARTICLE;
    }
    return i;
}
