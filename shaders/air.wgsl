// Air: wind (with gusts), drag and lift on every triangle of every cloth, once a frame, as a
// change of each particle's velocity (CPU twin: src/cpu/air.rs; the model and its defaults:
// params::Air). Three passes, so no two threads write one place: `air_winds` (a thread per
// particle) writes the wind where each particle is; `air_forces` (a thread per triangle) the
// air's force on each triangle, from the mean of its corners' winds and velocities; then
// `apply_air` (a thread per particle) sums a third of each of its triangles' forces and moves
// its own previous position, which is how Verlet changes a velocity.

@group(0) @binding(0) var<uniform> air: AirParams;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(2) var<storage, read_write> previous: array<vec4<f32>>;
// Every cloth's triangles and each particle's list of them (contact::edges::triangle_table).
@group(0) @binding(3) var<storage, read> table: array<u32>;
// Per particle: the wind where it is (m/s).
@group(0) @binding(4) var<storage, read_write> winds: array<vec4<f32>>;
// Per triangle: the air's force on it (N).
@group(0) @binding(5) var<storage, read_write> forces: array<vec4<f32>>;

// The gusts' lattice repeats every 256 cells (so the host can keep its shift small).
const GUST_CELLS: u32 = 255u;

// Three values in [-1, 1) for a lattice cell and a seed, ten bits each from one integer hash,
// exact on any GPU, so both backends draw the same gusts.
fn gust_hash(cell: vec3<i32>, seed: u32) -> vec3<f32> {
    let c = bitcast<vec3<u32>>(cell) & vec3<u32>(GUST_CELLS);
    var h = (c.x * 0x8da6b343u) ^ (c.y * 0xd8163841u) ^ (c.z * 0xcb1ab31fu) ^ (seed * 0x165667b1u);
    h = (h ^ (h >> 15u)) * 0x2c1b3c6du;
    h = (h ^ (h >> 12u)) * 0x297a2d39u;
    h = h ^ (h >> 15u);
    let bits = vec3<u32>(h, h >> 10u, h >> 20u) & vec3<u32>(1023u);
    return vec3<f32>(bits) * (2.0 / 1024.0) - vec3<f32>(1.0);
}

// Value noise: the cell corners' values, blended smoothly (C¹) across the cell.
fn gust_noise(p: vec3<f32>, seed: u32) -> vec3<f32> {
    let floor_p = floor(p);
    let c = vec3<i32>(floor_p);
    let f = p - floor_p;
    let s = f * f * (3.0 - 2.0 * f);
    let v0 = gust_hash(c, seed);
    let v1 = gust_hash(c + vec3<i32>(1, 0, 0), seed);
    let v2 = gust_hash(c + vec3<i32>(0, 1, 0), seed);
    let v3 = gust_hash(c + vec3<i32>(1, 1, 0), seed);
    let v4 = gust_hash(c + vec3<i32>(0, 0, 1), seed);
    let v5 = gust_hash(c + vec3<i32>(1, 0, 1), seed);
    let v6 = gust_hash(c + vec3<i32>(0, 1, 1), seed);
    let v7 = gust_hash(c + vec3<i32>(1, 1, 1), seed);
    let x0 = v0 + (v1 - v0) * s.x;
    let x1 = v2 + (v3 - v2) * s.x;
    let x2 = v4 + (v5 - v4) * s.x;
    let x3 = v6 + (v7 - v6) * s.x;
    let y0 = x0 + (x1 - x0) * s.y;
    let y1 = x2 + (x3 - x2) * s.y;
    return y0 + (y1 - y0) * s.z;
}

// The wind at x (m/s): the mean, plus two octaves of noise, carried downwind.
fn wind_at(x: vec3<f32>) -> vec3<f32> {
    var w = air.wind.xyz;
    if (air.gust_speed > 0.0) {
        let p = x * air.gust_shift.w + air.gust_shift.xyz;
        let q = p * 2.0 + vec3<f32>(17.0);
        let g = gust_noise(p, air.seed) + gust_noise(q, air.seed) * 0.5;
        w = w + g * air.gust_speed;
    }
    return w;
}

// The air's force on a triangle (N) from its area vector (normal × area, m²) and the air's
// velocity relative to it (m/s): drag along the flow, lift across it (params::Air).
fn triangle_air(area: vec3<f32>, u: vec3<f32>) -> vec3<f32> {
    let a = length(area);
    let speed = length(u);
    if (a < 1e-12 || speed < 1e-9) {
        return vec3<f32>(0.0);
    }
    let un = dot(area, u); // A |u| cos θ
    let drag = u * (air.drag * abs(un));
    let lift = (area * (speed / a) - u * (un / (a * speed))) * (air.lift * un);
    return (drag + lift) * (0.5 * air.wind.w);
}

// Each particle: the wind where it is.
@compute @workgroup_size(WORKGROUP_SIZE)
fn air_winds(thread: Thread) {
    let i = thread_index(thread);
    if (i >= air.particle_count) { return; }
    winds[i] = vec4<f32>(wind_at(positions[i].xyz), 0.0);
}

// Each triangle: the air's force on it, from its corners' mean wind and mean velocity.
@compute @workgroup_size(WORKGROUP_SIZE)
fn air_forces(thread: Thread) {
    let t = thread_index(thread);
    if (t >= table[0]) { return; }
    let corner = 2u + table[1] + 1u + 3u * table[0] + 3u * t;
    let a = table[corner];
    let b = table[corner + 1u];
    let c = table[corner + 2u];
    let xa = positions[a].xyz;
    let xb = positions[b].xyz;
    let xc = positions[c].xyz;
    let moved = (xa - previous[a].xyz) + (xb - previous[b].xyz) + (xc - previous[c].xyz);
    let wind = (winds[a].xyz + winds[b].xyz + winds[c].xyz) * air.third;
    let u = wind - moved * air.inv_third_h;
    forces[t] = vec4<f32>(triangle_air(cross3(xb - xa, xc - xa) * 0.5, u), 0.0);
}

// Each free particle: a third of the force of each triangle it is a corner of, as a change of
// velocity over the frame, at most its speed relative to the wind; its previous position moves
// back by that change times the substep.
@compute @workgroup_size(WORKGROUP_SIZE)
fn apply_air(thread: Thread) {
    let i = thread_index(thread);
    if (i >= air.particle_count) { return; }
    let p = positions[i];
    // Pinned particles (inverse mass 0) never move.
    if (p.w <= 0.0) { return; }
    let incident = 2u + table[1] + 1u;
    var force = vec3<f32>(0.0);
    for (var k = table[2u + i]; k < table[3u + i]; k = k + 1u) {
        force = force + forces[table[incident + k]].xyz;
    }
    let q = previous[i];
    var dv = force * (p.w * air.dt_third);
    let most = length(winds[i].xyz - (p.xyz - q.xyz) * air.inv_h);
    let got = length(dv);
    if (got > most) {
        dv = dv * (most / got);
    }
    previous[i] = vec4<f32>(q.xyz - dv * air.h, q.w);
}
