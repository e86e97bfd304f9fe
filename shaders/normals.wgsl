// Per-particle normals of any triangle mesh, for drawing and export (CPU twin:
// src/cpu/normals.rs). One thread per particle sums the area-weighted normals of the triangles
// that use it, found through a CSR list (offsets, incident); each thread writes only its own
// normal, so no float atomics are needed.

@group(0) @binding(0) var<uniform> mesh: MeshInfo;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;
// Three particle indices per triangle.
@group(0) @binding(2) var<storage, read> triangles: array<u32>;
// Particle p's triangles are incident[offsets[p]..offsets[p + 1]].
@group(0) @binding(3) var<storage, read> offsets: array<u32>;
@group(0) @binding(4) var<storage, read> incident: array<u32>;
@group(0) @binding(5) var<storage, read_write> normals: array<vec4<f32>>;

@compute @workgroup_size(WORKGROUP_SIZE)
fn compute_normals(thread: Thread) {
    let i = thread_index(thread);
    if (i >= mesh.particle_count) { return; }
    var sum = vec3<f32>(0.0);
    for (var k = offsets[i]; k < offsets[i + 1u]; k = k + 1u) {
        let t = incident[k] * 3u;
        let a = positions[triangles[t]].xyz;
        let b = positions[triangles[t + 1u]].xyz;
        let c = positions[triangles[t + 2u]].xyz;
        // |cross| is twice the area: larger triangles weigh more.
        sum = sum + cross3(b - a, c - a);
    }
    let len = length(sum);
    // A collapsed neighbourhood (or a particle with no triangle) has no normal; +y keeps the
    // lighting finite.
    var out = vec3<f32>(0.0, 1.0, 0.0);
    if (len > 1e-12) {
        out = sum / len;
    }
    normals[i] = vec4<f32>(out, 0.0);
}
