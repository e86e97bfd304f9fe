//! Twins of `air_forces` and `apply_air` in `shaders/air.wgsl`, function for function, in the
//! same order of arithmetic (the model: [`crate::params::Air`]). The table they read is
//! [`crate::contact::edges`]'s, over every cloth.

use glam::{IVec3, UVec3, Vec3, Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use crate::config::AirParams;

/// Twin of `GUST_CELLS`: the gusts' lattice repeats every 256 cells.
pub(crate) const GUST_CELLS: u32 = 255;

/// Twin of `gust_hash`: a value in [-1, 1) for a lattice cell, a seed and a component.
fn gust_hash(cell: IVec3, seed: u32, k: u32) -> f32 {
    let c = cell.as_uvec3() & UVec3::splat(GUST_CELLS);
    let mut h = c.x.wrapping_mul(0x8da6b343)
        ^ c.y.wrapping_mul(0xd8163841)
        ^ c.z.wrapping_mul(0xcb1ab31f)
        ^ seed.wrapping_mul(3).wrapping_add(k).wrapping_mul(0x165667b1);
    h = (h ^ (h >> 15)).wrapping_mul(0x2c1b3c6d);
    h = (h ^ (h >> 12)).wrapping_mul(0x297a2d39);
    h ^= h >> 15;
    (h >> 8) as f32 * (2.0 / 16777216.0) - 1.0
}

/// Twin of `gust_noise`: value noise, the cell corners blended smoothly across the cell.
fn gust_noise(p: Vec3, seed: u32, k: u32) -> f32 {
    let floor_p = p.floor();
    let c = floor_p.as_ivec3();
    let f = p - floor_p;
    let s = f * f * (Vec3::splat(3.0) - 2.0 * f);
    let v: [f32; 8] = std::array::from_fn(|n| {
        let n = n as i32;
        gust_hash(c + IVec3::new(n & 1, (n >> 1) & 1, n >> 2), seed, k)
    });
    let x0 = v[0] + (v[1] - v[0]) * s.x;
    let x1 = v[2] + (v[3] - v[2]) * s.x;
    let x2 = v[4] + (v[5] - v[4]) * s.x;
    let x3 = v[6] + (v[7] - v[6]) * s.x;
    let y0 = x0 + (x1 - x0) * s.y;
    let y1 = x2 + (x3 - x2) * s.y;
    y0 + (y1 - y0) * s.z
}

/// Twin of `wind_at`: the wind at `x` (m/s), the mean plus two octaves of gusts.
pub(crate) fn wind_at(air: &AirParams, x: Vec3) -> Vec3 {
    let mut w = Vec4::from_array(air.wind).xyz();
    if air.gust_speed > 0.0 {
        let shift = Vec4::from_array(air.gust_shift);
        let p = x * shift.w + shift.xyz();
        let q = p * 2.0 + Vec3::splat(17.0);
        let g = Vec3::from_array(std::array::from_fn(|k| {
            let k = k as u32;
            (gust_noise(p, air.seed, k) + gust_noise(q, air.seed, k) * 0.5) / 1.5
        }));
        w += g * air.gust_speed;
    }
    w
}

/// Twin of `triangle_air`: the air's force on a triangle (N) from its area vector (normal ×
/// area, m²) and the air's velocity relative to it (m/s).
pub(crate) fn triangle_air(air: &AirParams, area: Vec3, u: Vec3) -> Vec3 {
    let a = area.length();
    let speed = u.length();
    if a < 1e-12 || speed < 1e-9 {
        return Vec3::ZERO;
    }
    let un = area.dot(u);
    let drag = u * (air.drag * un.abs());
    let lift = (area * (speed / a) - u * (un / (a * speed))) * (air.lift * un);
    (drag + lift) * (0.5 * air.wind[3])
}

/// Twin of `cross3` (common.wgsl).
#[inline]
fn cross3(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(
        a.y * b.z - b.y * a.z,
        a.z * b.x - b.z * a.x,
        a.x * b.y - b.x * a.y,
    )
}

/// Each particle's change of previous position from the air this frame, into `air_out`:
/// a third of the force of each triangle it is a corner of, at most its speed relative to the
/// wind.
pub fn air_forces(
    air: &AirParams,
    positions: &[Vec4],
    previous: &[Vec4],
    table: &[u32],
    air_out: &mut [Vec4],
) {
    let n = air.particle_count as usize;
    let particles = table[1] as usize;
    let incident = 2 + particles + 1;
    let corners = incident + 3 * table[0] as usize;
    air_out[..n]
        .par_iter_mut()
        .enumerate()
        .with_min_len(MIN_PER_TASK)
        .for_each(|(i, out)| {
            let p = positions[i];
            let mut dv = Vec3::ZERO;
            // Pinned particles (inverse mass 0) never move.
            if p.w > 0.0 {
                let wind = wind_at(air, p.xyz());
                let mut force = Vec3::ZERO;
                for k in table[2 + i]..table[3 + i] {
                    let t = corners + 3 * table[incident + k as usize] as usize;
                    let [a, b, c] = [table[t], table[t + 1], table[t + 2]].map(|v| v as usize);
                    let (xa, xb, xc) = (positions[a].xyz(), positions[b].xyz(), positions[c].xyz());
                    let moved = (xa - previous[a].xyz())
                        + (xb - previous[b].xyz())
                        + (xc - previous[c].xyz());
                    let v = moved * (air.inv_h / 3.0);
                    force += triangle_air(air, cross3(xb - xa, xc - xa) * 0.5, wind - v);
                }
                dv = force * (p.w * air.dt / 3.0);
                let most = (wind - (p.xyz() - previous[i].xyz()) * air.inv_h).length();
                let got = dv.length();
                if got > most {
                    dv *= most / got;
                }
            }
            *out = (dv * air.h).extend(0.0);
        });
}

/// Each free particle's previous position moves back by its share: its velocity changes.
pub fn apply_air(air: &AirParams, positions: &[Vec4], previous: &mut [Vec4], air_out: &[Vec4]) {
    let n = air.particle_count as usize;
    previous[..n]
        .par_iter_mut()
        .enumerate()
        .with_min_len(MIN_PER_TASK)
        .for_each(|(i, q)| {
            if positions[i].w > 0.0 {
                *q = (q.xyz() - air_out[i].xyz()).extend(q.w);
            }
        });
}
