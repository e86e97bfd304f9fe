// Air: wind (with gusts), drag and lift on every triangle of every cloth, once a frame, as a
// change of each particle's velocity (CPU twin: src/cpu/air.rs; the model and its defaults:
// params::Air). Two passes, one thread per particle each, so no two threads write one place:
// `air_forces` sums the forces of the triangles a particle is a corner of into `air_out`
// (reading positions and previous positions only), then `apply_air` moves each previous
// position by it, which is how Verlet changes a velocity.

@group(0) @binding(0) var<uniform> air: AirParams;
@group(0) @binding(1) var<storage, read> positions: array<vec4<f32>>;  // w: inverse mass
@group(0) @binding(2) var<storage, read_write> previous: array<vec4<f32>>;
// Every cloth's triangles and each particle's list of them (contact::edges::triangle_table).
@group(0) @binding(3) var<storage, read> table: array<u32>;
// Per particle: how far its previous position moves (m).
@group(0) @binding(4) var<storage, read_write> air_out: array<vec4<f32>>;

// The gusts' lattice repeats every 256 cells (so the host can keep its shift small).
const GUST_CELLS: u32 = 255u;

// A value in [-1, 1) for a lattice cell, a seed and a component k: an integer hash, exact on
// any GPU, so both backends draw the same gusts.
fn gust_hash(cell: vec3<i32>, seed: u32, k: u32) -> f32 {
    let c = bitcast<vec3<u32>>(cell) & vec3<u32>(GUST_CELLS);
    var h = (c.x * 0x8da6b343u) ^ (c.y * 0xd8163841u) ^ (c.z * 0xcb1ab31fu) ^ ((seed * 3u + k) * 0x165667b1u);
    h = (h ^ (h >> 15u)) * 0x2c1b3c6du;
    h = (h ^ (h >> 12u)) * 0x297a2d39u;
    h = h ^ (h >> 15u);
    return f32(h >> 8u) * (2.0 / 16777216.0) - 1.0;
}

// Value noise: the cell corners' values, blended smoothly (C¹) across the cell.
fn gust_noise(p: vec3<f32>, seed: u32, k: u32) -> f32 {
    let floor_p = floor(p);
    let c = vec3<i32>(floor_p);
    let f = p - floor_p;
    let s = f * f * (3.0 - 2.0 * f);
    var v: array<f32, 8>;
    for (var n = 0u; n < 8u; n = n + 1u) {
        let corner = vec3<i32>(vec3<u32>(n & 1u, (n >> 1u) & 1u, n >> 2u));
        v[n] = gust_hash(c + corner, seed, k);
    }
    let x0 = v[0] + (v[1] - v[0]) * s.x;
    let x1 = v[2] + (v[3] - v[2]) * s.x;
    let x2 = v[4] + (v[5] - v[4]) * s.x;
    let x3 = v[6] + (v[7] - v[6]) * s.x;
    let y0 = x0 + (x1 - x0) * s.y;
    let y1 = x2 + (x3 - x2) * s.y;
    return y0 + (y1 - y0) * s.z;
}

// The wind at x (m/s): the mean, plus two octaves of noise per component, carried downwind.
fn wind_at(x: vec3<f32>) -> vec3<f32> {
    var w = air.wind.xyz;
    if (air.gust_speed > 0.0) {
        let p = x * air.gust_shift.w + air.gust_shift.xyz;
        let q = p * 2.0 + vec3<f32>(17.0);
        var g: vec3<f32>;
        for (var k = 0u; k < 3u; k = k + 1u) {
            g[k] = (gust_noise(p, air.seed, k) + gust_noise(q, air.seed, k) * 0.5) / 1.5;
        }
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

// Each particle: a third of the force of each triangle it is a corner of, as a change of
// velocity over the frame, at most its speed relative to the wind.
@compute @workgroup_size(WORKGROUP_SIZE)
fn air_forces(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(group, groups, local);
    if (i >= air.particle_count) {
        return;
    }
    let p = positions[i];
    var dv = vec3<f32>(0.0);
    // Pinned particles (inverse mass 0) never move.
    if (p.w > 0.0) {
        let wind = wind_at(p.xyz);
        let n = table[1];
        let incident = 2u + n + 1u;
        let corners = incident + 3u * table[0];
        var force = vec3<f32>(0.0);
        for (var k = table[2u + i]; k < table[3u + i]; k = k + 1u) {
            let t = corners + 3u * table[incident + k];
            let a = table[t];
            let b = table[t + 1u];
            let c = table[t + 2u];
            let xa = positions[a].xyz;
            let xb = positions[b].xyz;
            let xc = positions[c].xyz;
            let moved = (xa - previous[a].xyz) + (xb - previous[b].xyz) + (xc - previous[c].xyz);
            let v = moved * (air.inv_h / 3.0);
            force = force + triangle_air(cross3(xb - xa, xc - xa) * 0.5, wind - v);
        }
        dv = force * (p.w * air.dt / 3.0);
        let most = length(wind - (p.xyz - previous[i].xyz) * air.inv_h);
        let got = length(dv);
        if (got > most) {
            dv = dv * (most / got);
        }
    }
    air_out[i] = vec4<f32>(dv * air.h, 0.0);
}

// Each particle's velocity changes by its share: its previous position moves back.
@compute @workgroup_size(WORKGROUP_SIZE)
fn apply_air(
    @builtin(workgroup_id) group: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(group, groups, local);
    if (i >= air.particle_count) {
        return;
    }
    if (positions[i].w > 0.0) {
        let q = previous[i];
        previous[i] = vec4<f32>(q.xyz - air_out[i].xyz, q.w);
    }
}
