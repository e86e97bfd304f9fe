// Drawing the demo scene: the cloth (straight from the solver's position buffer and the normals
// kernel's output), the ground plane and the sphere collider. Two-sided Blinn-Phong lighting.

struct Scene {
    view_proj: mat4x4<f32>,
    eye: vec4<f32>,        // xyz: camera position (m)
    light_dir: vec4<f32>,  // xyz: unit vector towards the light
    sphere: vec4<f32>,     // xyz: centre (m), w: radius (m)
    ground: vec4<f32>,     // x: height (m)
}

@group(0) @binding(0) var<uniform> scene: Scene;
// The cloth's particles, straight from the solver (w: inverse mass), and the normals kernel's
// output. Read by particle index, so a vertex at a UV seam can share its particle.
@group(1) @binding(0) var<storage, read> positions: array<vec4<f32>>;
@group(1) @binding(1) var<storage, read> normals: array<vec4<f32>>;

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
}

fn shade(base: vec3<f32>, normal: vec3<f32>, world: vec3<f32>) -> vec3<f32> {
    var n = normalize(normal);
    let v = normalize(scene.eye.xyz - world);
    // Two-sided: light the side that faces the camera.
    if (dot(n, v) < 0.0) {
        n = -n;
    }
    let l = scene.light_dir.xyz;
    let diffuse = max(dot(n, l), 0.0);
    let h = normalize(l + v);
    let specular = pow(max(dot(n, h), 0.0), 48.0) * 0.12;
    let ambient = 0.30 + 0.10 * n.y;
    return base * (ambient + 0.75 * diffuse) + vec3<f32>(specular);
}

// A checker of `cells` squares per unit of uv: `even` on one square, `odd` on the next.
fn checker(uv: vec2<f32>, cells: f32, even: vec3<f32>, odd: vec3<f32>) -> vec3<f32> {
    let cell = floor(uv * cells);
    if (fract((cell.x + cell.y) * 0.5) > 0.25) {
        return odd;
    }
    return even;
}

@vertex
fn cloth_vs(
    @location(0) particle: u32,   // which particle this corner is
    @location(1) uv: vec2<f32>,   // its texture coordinate (the mesh's, or a planar one)
) -> VsOut {
    var out: VsOut;
    let position = positions[particle].xyz;
    out.clip = scene.view_proj * vec4<f32>(position, 1.0);
    out.world = position;
    out.normal = normals[particle].xyz;
    out.uv = uv;
    return out;
}

@fragment
fn cloth_fs(in: VsOut) -> @location(0) vec4<f32> {
    // A 10×10 checker so motion reads, with a fine weave so it looks like fabric.
    let base = checker(in.uv, 10.0, vec3<f32>(0.93, 0.86, 0.74), vec3<f32>(0.72, 0.16, 0.22));
    let weave = 0.9 + 0.1 * sin(in.uv.x * 1200.0) * sin(in.uv.y * 1200.0);
    return vec4<f32>(shade(base * weave, in.normal, in.world), 1.0);
}

@vertex
fn ground_vs(@builtin(vertex_index) index: u32) -> VsOut {
    // Two triangles spanning ±6 m around the origin.
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let xz = corners[index] * 6.0;
    var out: VsOut;
    // 2 mm low, so cloth resting on the ground does not z-fight with it.
    out.world = vec3<f32>(xz.x, scene.ground.x - 0.002, xz.y);
    out.clip = scene.view_proj * vec4<f32>(out.world, 1.0);
    out.normal = vec3<f32>(0.0, 1.0, 0.0);
    out.uv = xz;
    return out;
}

@fragment
fn ground_fs(in: VsOut) -> @location(0) vec4<f32> {
    let base = checker(in.uv, 2.0, vec3<f32>(0.55, 0.58, 0.62), vec3<f32>(0.45, 0.48, 0.52));
    // Fade into the background far away.
    let fade = clamp(length(in.uv) / 6.0, 0.0, 1.0);
    let color = mix(shade(base, in.normal, in.world), vec3<f32>(0.16, 0.18, 0.22), fade * fade);
    return vec4<f32>(color, 1.0);
}

@vertex
fn sphere_vs(@location(0) unit: vec3<f32>) -> VsOut {
    var out: VsOut;
    // Drawn a little inside the collision radius: cloth triangles between particles resting on
    // the surface are chords that would otherwise cut into the sphere.
    out.world = scene.sphere.xyz + unit * (scene.sphere.w * 0.96);
    out.clip = scene.view_proj * vec4<f32>(out.world, 1.0);
    out.normal = unit;
    out.uv = vec2<f32>(0.0);
    return out;
}

@fragment
fn sphere_fs(in: VsOut) -> @location(0) vec4<f32> {
    return vec4<f32>(shade(vec3<f32>(0.35, 0.55, 0.80), in.normal, in.world), 1.0);
}
