//! Twins of `air_forces` and `apply_air` in `shaders/air.wgsl`, function for function, in the
//! same order of arithmetic (the model: [`crate::params::Air`]). The table they read is
//! [`crate::contact::edges`]'s, over every cloth.

use glam::{IVec3, UVec3, Vec3, Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use super::common::cross3;
use crate::config::{AirParams, GUST_CELLS};

/// Twin of `gust_hash`: three values in [-1, 1) for a lattice cell and a seed, ten bits each
/// from one integer hash.
fn gust_hash(cell: IVec3, seed: u32) -> Vec3 {
    let c = cell.as_uvec3() & UVec3::splat(GUST_CELLS);
    let mut h = c.x.wrapping_mul(0x8da6b343)
        ^ c.y.wrapping_mul(0xd8163841)
        ^ c.z.wrapping_mul(0xcb1ab31f)
        ^ seed.wrapping_mul(0x165667b1);
    h = (h ^ (h >> 15)).wrapping_mul(0x2c1b3c6d);
    h = (h ^ (h >> 12)).wrapping_mul(0x297a2d39);
    h ^= h >> 15;
    let bits = UVec3::new(h, h >> 10, h >> 20) & UVec3::splat(1023);
    bits.as_vec3() * (2.0 / 1024.0) - Vec3::ONE
}

/// Twin of `gust_noise`: value noise, the cell corners blended smoothly across the cell.
fn gust_noise(p: Vec3, seed: u32) -> Vec3 {
    let floor_p = p.floor();
    let c = floor_p.as_ivec3();
    let f = p - floor_p;
    let s = f * f * (Vec3::splat(3.0) - 2.0 * f);
    let v = |x, y, z| gust_hash(c + IVec3::new(x, y, z), seed);
    let (v0, v1, v2, v3) = (v(0, 0, 0), v(1, 0, 0), v(0, 1, 0), v(1, 1, 0));
    let (v4, v5, v6, v7) = (v(0, 0, 1), v(1, 0, 1), v(0, 1, 1), v(1, 1, 1));
    let x0 = v0 + (v1 - v0) * s.x;
    let x1 = v2 + (v3 - v2) * s.x;
    let x2 = v4 + (v5 - v4) * s.x;
    let x3 = v6 + (v7 - v6) * s.x;
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
        let g = gust_noise(p, air.seed) + gust_noise(q, air.seed) * 0.5;
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

/// Each particle: the wind where it is, into `winds`.
pub fn air_winds(air: &AirParams, positions: &[Vec4], winds: &mut [Vec4]) {
    let n = air.particle_count as usize;
    winds[..n]
        .par_iter_mut()
        .zip(&positions[..n])
        .with_min_len(MIN_PER_TASK)
        .for_each(|(w, p)| *w = wind_at(air, p.xyz()).extend(0.0));
}

/// Each triangle: the air's force on it, from its corners' mean wind and mean velocity, into
/// `forces`.
pub fn air_forces(
    air: &AirParams,
    positions: &[Vec4],
    previous: &[Vec4],
    table: &[u32],
    winds: &[Vec4],
    forces: &mut [Vec4],
) {
    let triangles = table[0] as usize;
    let corners = 2 + table[1] as usize + 1 + 3 * triangles;
    forces[..triangles]
        .par_iter_mut()
        .enumerate()
        .with_min_len(MIN_PER_TASK)
        .for_each(|(t, out)| {
            let corner = corners + 3 * t;
            let [a, b, c] =
                [table[corner], table[corner + 1], table[corner + 2]].map(|v| v as usize);
            let (xa, xb, xc) = (positions[a].xyz(), positions[b].xyz(), positions[c].xyz());
            let moved =
                (xa - previous[a].xyz()) + (xb - previous[b].xyz()) + (xc - previous[c].xyz());
            let wind = (winds[a].xyz() + winds[b].xyz() + winds[c].xyz()) * air.third;
            let u = wind - moved * air.inv_third_h;
            *out = triangle_air(air, cross3(xb - xa, xc - xa) * 0.5, u).extend(0.0);
        });
}

/// Each free particle: a third of the force of each triangle it is a corner of, as a change of
/// velocity over the frame, at most its speed relative to the wind; its previous position
/// moves back by that change times the substep.
pub fn apply_air(
    air: &AirParams,
    positions: &[Vec4],
    previous: &mut [Vec4],
    table: &[u32],
    winds: &[Vec4],
    forces: &[Vec4],
) {
    let n = air.particle_count as usize;
    let incident = 2 + table[1] as usize + 1;
    previous[..n]
        .par_iter_mut()
        .enumerate()
        .with_min_len(MIN_PER_TASK)
        .for_each(|(i, q)| {
            let p = positions[i];
            // Pinned particles (inverse mass 0) never move.
            if p.w <= 0.0 {
                return;
            }
            let mut force = Vec3::ZERO;
            for k in table[2 + i]..table[3 + i] {
                force += forces[table[incident + k as usize] as usize].xyz();
            }
            let mut dv = force * (p.w * air.dt_third);
            let most = (winds[i].xyz() - (p.xyz() - q.xyz()) * air.inv_h).length();
            let got = dv.length();
            if got > most {
                dv *= most / got;
            }
            *q = (q.xyz() - dv * air.h).extend(q.w);
        });
}
