// The colliders the demo draws (spheres, tapered capsules, boxes), appended to render.wgsl so
// they share its `scene` uniform and its `shade` (two-sided Blinn-Phong): the host builds
// their triangles in world space each frame, from the poses the solver was given.

struct SolidVertex {
    @location(0) position: vec3<f32>,  // world position (m)
    @location(1) normal: vec3<f32>,    // unit outward normal
}

struct SolidOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
}

@vertex
fn solid_vs(v: SolidVertex) -> SolidOut {
    var out: SolidOut;
    out.world = v.position;
    out.clip = scene.view_proj * vec4<f32>(v.position, 1.0);
    out.normal = v.normal;
    return out;
}

@fragment
fn solid_fs(in: SolidOut) -> @location(0) vec4<f32> {
    // The color render.wgsl gives its sphere, so every collider reads as one kind of thing.
    return vec4<f32>(shade(vec3<f32>(0.35, 0.55, 0.80), in.normal, in.world), 1.0);
}
