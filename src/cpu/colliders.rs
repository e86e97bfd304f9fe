//! Twins of the collider functions of `shaders/colliders.wgsl`, the prelude of the kernels that
//! touch colliders, function for function, in the same order of arithmetic.
//!
//! One file, though long: the twin of one WGSL file, function for function (the twin rule:
//! `tests/shaders.rs`).

use glam::{UVec3, Vec3, Vec4, Vec4Swizzles};

use crate::config::{ColliderRecord, DISTANCE_SLOPE_BOUND};

const COLLIDER_SPHERE: u32 = 0;
const COLLIDER_CAPSULE: u32 = 1;
const COLLIDER_PLANE: u32 = 2;
const COLLIDER_CUBOID: u32 = 3;
const MARCH_STEPS: u32 = 12;

/// A rigid pose: `x_world = rotate(rotation, x_local) + position`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Pose {
    pub(super) position: Vec3,
    pub(super) rotation: Vec4,
}

/// Twin of `quat_rotate`: v + 2 (w c + q × c), c = q × v. Written with the 2 outside, as
/// lavapipe's compiler rewrites `v + w (2c) + q × (2c)` into it (measured: a third of the
/// results of the textbook form differ from Rust's by an ulp).
pub(super) fn quat_rotate(q: Vec4, v: Vec3) -> Vec3 {
    let c = q.xyz().cross(v);
    v + 2.0 * (q.w * c + q.xyz().cross(c))
}

pub(super) fn to_local(pose: Pose, x: Vec3) -> Vec3 {
    quat_rotate(
        Vec4::new(
            -pose.rotation.x,
            -pose.rotation.y,
            -pose.rotation.z,
            pose.rotation.w,
        ),
        x - pose.position,
    )
}

pub(super) fn to_world(pose: Pose, q: Vec3) -> Vec3 {
    quat_rotate(pose.rotation, q) + pose.position
}

pub(super) fn collider_pose(c: &ColliderRecord, t: f32) -> Pose {
    let from = Vec4::from_array(c.from_rotation);
    let mut to = Vec4::from_array(c.to_rotation);
    if from.dot(to) < 0.0 {
        to = -to;
    }
    let q = unit4(lerp4(from, to, t));
    let (p0, p1) = (
        Vec4::from_array(c.from_position).xyz(),
        Vec4::from_array(c.to_position).xyz(),
    );
    Pose {
        position: lerp3(p0, p1, t),
        rotation: q,
    }
}

/// Twin of `lerp1`: `a (1 − t) + b t`, the form lavapipe keeps.
#[inline]
fn lerp1(a: f32, b: f32, t: f32) -> f32 {
    a * (1.0 - t) + b * t
}

/// Twin of `lerp3`: `a (1 − t) + b t` (the form lavapipe keeps; glam's `lerp` is `a + (b − a) t`).
#[inline]
fn lerp3(a: Vec3, b: Vec3, t: f32) -> Vec3 {
    a * (1.0 - t) + b * t
}

/// Twin of `lerp4`: as [`lerp3`].
#[inline]
fn lerp4(a: Vec4, b: Vec4, t: f32) -> Vec4 {
    a * (1.0 - t) + b * t
}

/// Twin of `unit4`: `q / |q|` with the squares summed in order (glam sums a `Vec4`'s in
/// pairs, and WGSL's `normalize` may use an approximate inverse square root).
fn unit4(q: Vec4) -> Vec4 {
    q / (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt()
}

/// Where `q` falls in a distance grid (twin of `grid_cell`): `g` in cells from the origin,
/// `inside` the same clamped to the grid, `f` the fraction within the cell, and the cell's
/// eight corner values (`c` x y z: `c100` is one step along x from `c000`), which
/// [`grid_distance`] and [`grid_normal`] both read.
struct GridCell {
    g: Vec3,
    inside: Vec3,
    f: Vec3,
    c000: f32,
    c100: f32,
    c010: f32,
    c110: f32,
    c001: f32,
    c101: f32,
    c011: f32,
    c111: f32,
}

fn grid_cell(origin: Vec3, cell: f32, dims: UVec3, values: &[f32], q: Vec3) -> GridCell {
    let top = (dims - UVec3::ONE).as_vec3();
    let g = (q - origin) / cell;
    let inside = g.clamp(Vec3::ZERO, top);
    // `inside` is not negative, so truncating is the kernel's `floor` (without a libm call).
    let base = inside.as_uvec3().min(dims - UVec3::splat(2));
    let (row, layer) = (dims.x as usize, (dims.x * dims.y) as usize);
    let i = base.z as usize * layer + base.y as usize * row + base.x as usize;
    GridCell {
        g,
        inside,
        f: inside - base.as_vec3(),
        c000: values[i],
        c100: values[i + 1],
        c010: values[i + row],
        c110: values[i + row + 1],
        c001: values[i + layer],
        c101: values[i + layer + 1],
        c011: values[i + layer + row],
        c111: values[i + layer + row + 1],
    }
}

/// Trilinear sample of a distance grid at `q`; outside it, the distance to the grid's box plus
/// the value at its nearest point (twin of `grid_distance`).
pub(crate) fn grid_distance(origin: Vec3, cell: f32, dims: UVec3, values: &[f32], q: Vec3) -> f32 {
    let at = grid_cell(origin, cell, dims, values, q);
    let outside = (at.g - at.inside).length() * cell;
    let f = at.f;
    let x00 = lerp1(at.c000, at.c100, f.x);
    let x10 = lerp1(at.c010, at.c110, f.x);
    let x01 = lerp1(at.c001, at.c101, f.x);
    let x11 = lerp1(at.c011, at.c111, f.x);
    lerp1(lerp1(x00, x10, f.y), lerp1(x01, x11, f.y), f.z) + outside
}

/// Twin of `grid_normal`: the unit gradient of [`grid_distance`]'s trilinear sample at `q`, from
/// the same eight values, and outside the grid the way out of its box as well.
pub(crate) fn grid_normal(origin: Vec3, cell: f32, dims: UVec3, values: &[f32], q: Vec3) -> Vec3 {
    let at = grid_cell(origin, cell, dims, values, q);
    let (g, inside, f) = (at.g, at.inside, at.f);
    // In cells; an axis on which q is outside the box (clamped) does not move the sample.
    let along = Vec3::new(
        lerp1(
            lerp1(at.c100 - at.c000, at.c110 - at.c010, f.y),
            lerp1(at.c101 - at.c001, at.c111 - at.c011, f.y),
            f.z,
        ),
        lerp1(
            lerp1(at.c010 - at.c000, at.c110 - at.c100, f.x),
            lerp1(at.c011 - at.c001, at.c111 - at.c101, f.x),
            f.z,
        ),
        lerp1(
            lerp1(at.c001 - at.c000, at.c101 - at.c100, f.x),
            lerp1(at.c011 - at.c010, at.c111 - at.c110, f.x),
            f.y,
        ),
    );
    let mut grad = Vec3::select(g.cmpeq(inside), along, Vec3::ZERO);
    let out = g - inside;
    let away = out.length();
    if away > 0.0 {
        // The distance to the box grows by a cell per cell along `out`.
        grad += out / away * cell;
    }
    unit_or_up(grad)
}

fn capsule_distance(q: Vec3, a: Vec3, ra: f32, b: Vec3, rb: f32) -> f32 {
    let ba = b - a;
    let l2 = ba.dot(ba);
    let rr = ra - rb;
    let a2 = l2 - rr * rr;
    if a2 <= 1e-12 {
        return if ra >= rb {
            (q - a).length() - ra
        } else {
            (q - b).length() - rb
        };
    }
    let pa = q - a;
    let y = pa.dot(ba);
    let z = y - l2;
    let w = pa * l2 - ba * y;
    let x2 = w.dot(w);
    let y2 = y * y * l2;
    let z2 = z * z * l2;
    let k = sign(rr) * rr * rr * x2;
    if sign(z) * a2 * z2 > k {
        return (x2 + z2).sqrt() / l2 - rb;
    }
    if sign(y) * a2 * y2 < k {
        return (x2 + y2).sqrt() / l2 - ra;
    }
    ((x2 * a2 / l2).sqrt() + y * rr) / l2 - ra
}

/// WGSL's `sign`: 0 at 0 (Rust's `signum` gives ±1 there).
fn sign(v: f32) -> f32 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

fn shape_distance(c: &ColliderRecord, grid: &[f32], q: Vec3) -> f32 {
    let a = Vec4::from_array(c.shape_a);
    let b = Vec4::from_array(c.shape_b);
    match c.kind {
        COLLIDER_SPHERE => q.length() - a.w,
        COLLIDER_CAPSULE => capsule_distance(q, a.xyz(), a.w, b.xyz(), b.w),
        COLLIDER_PLANE => a.xyz().dot(q) - a.w,
        COLLIDER_CUBOID => {
            let d = q.abs() - a.xyz();
            d.max(Vec3::ZERO).length() + d.x.max(d.y.max(d.z)).min(0.0)
        }
        _ => {
            let dims = UVec3::new(c.grid_dims[0], c.grid_dims[1], c.grid_dims[2]);
            let n = (dims.x * dims.y * dims.z) as usize;
            let values = &grid[c.grid_offset as usize..][..n];
            grid_distance(a.xyz(), a.w, dims, values, q)
        }
    }
}

fn capsule_normal(q: Vec3, a: Vec3, ra: f32, b: Vec3, rb: f32) -> Vec3 {
    let ba = b - a;
    let l2 = ba.dot(ba);
    let rr = ra - rb;
    let a2 = l2 - rr * rr;
    if a2 <= 1e-12 {
        return if ra >= rb {
            unit_or_up(q - a)
        } else {
            unit_or_up(q - b)
        };
    }
    let pa = q - a;
    let y = pa.dot(ba);
    let z = y - l2;
    let w = pa * l2 - ba * y;
    let x2 = w.dot(w);
    let k = sign(rr) * rr * rr * x2;
    if sign(z) * a2 * z * z * l2 > k {
        return unit_or_up(q - b);
    }
    if sign(y) * a2 * y * y * l2 < k {
        return unit_or_up(q - a);
    }
    let mut radial = w / x2.sqrt().max(1e-30);
    if x2 < 1e-30 {
        let other = if ba.x.abs() > ba.y.abs() {
            Vec3::Y
        } else {
            Vec3::X
        };
        let side = ba.cross(other);
        radial = side / side.length();
    }
    (radial * a2.sqrt() + ba * (rr / l2.sqrt())) / l2.sqrt()
}

fn unit_or_up(v: Vec3) -> Vec3 {
    let len = v.length();
    if len < 1e-20 { Vec3::Y } else { v / len }
}

/// The signed distance from the world point `x` to collider `c` at its pose at the frame's
/// end, its thickness not counted ([`crate::Collider::distance`]; the collide pass's own
/// arithmetic, as each substep's end sees it).
pub(crate) fn distance_at(c: &ColliderRecord, grid: &[f32], x: Vec3) -> f32 {
    shape_distance(c, grid, to_local(collider_pose(c, 1.0), x))
}

/// Twin of `shape_normal`: exact for the analytic shapes, the trilinear sample's gradient for a
/// mesh ([`grid_normal`]).
fn shape_normal(c: &ColliderRecord, grid: &[f32], q: Vec3) -> Vec3 {
    let a = Vec4::from_array(c.shape_a);
    let b = Vec4::from_array(c.shape_b);
    match c.kind {
        COLLIDER_SPHERE => unit_or_up(q),
        COLLIDER_CAPSULE => capsule_normal(q, a.xyz(), a.w, b.xyz(), b.w),
        COLLIDER_PLANE => a.xyz(),
        COLLIDER_CUBOID => {
            let d = q.abs() - a.xyz();
            let s = Vec3::select(q.cmpge(Vec3::ZERO), Vec3::ONE, Vec3::NEG_ONE);
            if d.x.max(d.y.max(d.z)) > 0.0 {
                return unit_or_up(d.max(Vec3::ZERO) * s);
            }
            if d.x >= d.y && d.x >= d.z {
                Vec3::new(s.x, 0.0, 0.0)
            } else if d.y >= d.z {
                Vec3::new(0.0, s.y, 0.0)
            } else {
                Vec3::new(0.0, 0.0, s.z)
            }
        }
        _ => {
            let dims = UVec3::new(c.grid_dims[0], c.grid_dims[1], c.grid_dims[2]);
            let n = (dims.x * dims.y * dims.z) as usize;
            let values = &grid[c.grid_offset as usize..][..n];
            grid_normal(a.xyz(), a.w, dims, values, q)
        }
    }
}

/// A particle after meeting a collider.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Contact {
    pub x: Vec3,
    pub x_prev: Vec3,
    pub hit: bool,
    /// Static friction held it (it slid less than μ times the depth it was pushed out).
    pub stuck: bool,
}

impl Contact {
    /// The contact flag the previous position's w carries into the next substep: 1 for a
    /// particle held by static friction, else 0.
    pub fn contact_flag(&self) -> f32 {
        if self.hit && self.stuck { 1.0 } else { 0.0 }
    }
}

/// A collider over one substep as every particle of a pass sees it: its poses at the substep's
/// start and end, the ends of its bounding capsule at the end and how far they move in the
/// substep. The WGSL works these out per particle; here [`substep_colliders`] does once a pass,
/// with the same arithmetic, so the same bits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SubstepCollider {
    from: Pose,
    to: Pose,
    bound: (Vec3, Vec3),
    sweep: f32,
}

/// Each collider over the substep from `t_from` to `t_to` ([`SubstepCollider`]).
pub(crate) fn substep_colliders(
    colliders: &[ColliderRecord],
    t_from: f32,
    t_to: f32,
) -> Vec<SubstepCollider> {
    colliders
        .iter()
        .map(|c| {
            let v = |a: [f32; 4]| Vec4::from_array(a).xyz();
            let (from_a, from_b) = (v(c.bound_from_a), v(c.bound_from_b));
            let (to_a, to_b) = (v(c.bound_to_a), v(c.bound_to_b));
            SubstepCollider {
                from: collider_pose(c, t_from),
                to: collider_pose(c, t_to),
                bound: (lerp3(from_a, to_a, t_to), lerp3(from_b, to_b, t_to)),
                sweep: (to_a - from_a).length().max((to_b - from_b).length()) * (t_to - t_from),
            }
        })
        .collect()
}

/// One particle against one collider over the substep, from its pose `at.from` to `at.to`;
/// `pull` is the substep's acceleration displacement (`accel · accel_scale`), `escape` the most a
/// particle that starts within the thickness is pushed out ([`super::common::substep_escape`]).
/// Twin of `collide_with`; see it for the method.
fn collide_with(
    c: &ColliderRecord,
    grid: &[f32],
    at: &SubstepCollider,
    x: Vec3,
    x_prev: Vec3,
    pull: Vec3,
    escape: f32,
) -> Contact {
    let none = Contact {
        x,
        x_prev,
        hit: false,
        stuck: false,
    };
    let material = Vec4::from_array(c.material);
    let r = material.x;
    let (from, to) = (at.from, at.to);
    let q1 = to_local(to, x);
    let q0 = to_local(from, x_prev);
    let d1 = shape_distance(c, grid, q1);
    let path = q1 - q0;
    let len = path.length();
    // How close to the surface the march counts as there.
    let tolerance = 1e-6 * r.max(1e-3);
    // Outside by more than the relative path could have crossed: nothing entered, and the
    // start's distance is not read (most particles near a mesh, which reads its grid for it).
    if d1 - r > DISTANCE_SLOPE_BOUND * len + tolerance {
        return none;
    }
    let mut entered = false;
    let mut q_entry = q0;
    let d0 = shape_distance(c, grid, q0);
    if d0 >= r {
        let mut t = 0.0;
        for k in 0..MARCH_STEPS {
            let q = q0 + path * t;
            // The first step starts at q0, whose distance is known.
            let gap = if k == 0 {
                d0 - r
            } else {
                shape_distance(c, grid, q) - r
            };
            if gap <= tolerance {
                entered = true;
                q_entry = q;
                break;
            }
            if len < 1e-12 {
                break;
            }
            t += gap / len;
            if t >= 1.0 {
                break;
            }
        }
    }
    let n_entry = if entered {
        shape_normal(c, grid, q_entry)
    } else {
        Vec3::ZERO
    };
    let (q_out, n) = if d1 < r {
        let n = shape_normal(c, grid, q1);
        if entered && n.dot(n_entry) < 0.0 {
            let back = (r - shape_distance(c, grid, q_entry)).max(0.0);
            (q_entry + n_entry * back, n_entry)
        } else {
            // One that started within the thickness (a cloth set down inside a collider)
            // keeps all but `escape` of its start's depth, so that it is not thrown out at
            // once; one that came in from outside keeps none.
            let keep = ((r - d0) - escape).max(0.0).min(r - d1);
            (q1 + n * (r - d1 - keep), n)
        }
    } else if entered && shape_normal(c, grid, q1).dot(n_entry) < 0.0 {
        let back = (r - shape_distance(c, grid, q_entry)).max(0.0);
        (q_entry + n_entry * back, n_entry)
    } else {
        return none;
    };
    let mut x_out = to_world(to, q_out);
    let normal = quat_rotate(to.rotation, n);
    let depth = (x_out - x).length();
    let carried = x_out - to_world(from, q_out);
    let moved = x - x_prev - carried;
    let tangential = moved - normal * moved.dot(normal);
    let slide = tangential.length();
    let grip = material.y * depth;
    let stuck = slide <= grip;
    // Friction takes the sliding from the velocity (the previous position), never from the
    // position: the constraints' corrections stay, so friction cannot freeze a stretched
    // edge where it lands (NvCloth's friction impulse). Only a stuck particle gives back the
    // substep's pull along the surface (gravity, wind), as far as it moved that way, so
    // static friction holds it where it is, exactly.
    let pull_t = pull - normal * pull.dot(normal);
    let pull2 = pull_t.dot(pull_t);
    let mut held_back = Vec3::ZERO;
    if stuck && pull2 > 1e-30 {
        held_back = pull_t * (tangential.dot(pull_t) / pull2).clamp(0.0, 1.0);
        x_out -= held_back;
    }
    let braked = if stuck {
        tangential - held_back
    } else {
        tangential * (grip / slide)
    };
    let arriving = moved.dot(normal).min(0.0);
    let now = (x_out - x_prev - carried).dot(normal);
    let x_prev_out = x_prev + normal * (now + material.z * arriving) + braked;
    Contact {
        x: x_out,
        x_prev: x_prev_out,
        hit: true,
        stuck,
    }
}

/// Whether the collider moves this frame anywhere near the box `lo..hi`, a sleeping cloth's
/// bounds, and so wakes it (twin of `collider_wakes`): a collider that stays put never does, a
/// moving plane always does.
pub(crate) fn collider_wakes(c: &ColliderRecord, lo: Vec3, hi: Vec3) -> bool {
    if c.from_position == c.to_position && c.from_rotation == c.to_rotation {
        return false;
    }
    let v = |a: [f32; 4]| Vec4::from_array(a).xyz();
    if c.bound_from_a[3] < 0.0 {
        return true;
    }
    let reach = Vec3::splat(c.bound_from_a[3] + c.material[0]);
    let (fa, fb, ta, tb) = (
        v(c.bound_from_a),
        v(c.bound_from_b),
        v(c.bound_to_a),
        v(c.bound_to_b),
    );
    let box_lo = fa.min(fb).min(ta.min(tb)) - reach;
    let box_hi = fa.max(fb).max(ta.max(tb)) + reach;
    box_lo.cmple(hi).all() && box_hi.cmpge(lo).all()
}

/// Whether the particle's path over the substep can reach the capsule that holds the collider
/// over it (twin of `collider_reaches`).
fn collider_reaches(c: &ColliderRecord, at: &SubstepCollider, x: Vec3, x_prev: Vec3) -> bool {
    let from_a = Vec4::from_array(c.bound_from_a);
    if from_a.w < 0.0 {
        return true; // a plane reaches everywhere
    }
    let (a, b) = at.bound;
    let reach = from_a.w + c.material[0] + (x - x_prev).length() + at.sweep;
    let ab = b - a;
    let s = ((x - a).dot(ab) / ab.dot(ab).max(1e-30)).clamp(0.0, 1.0);
    (x - (a + ab * s)).length() <= reach
}

/// A free particle against every collider in turn that can reach it (twin of `collide_all`):
/// the colliders of its cell of the broad phase ([`crate::contact::broadphase`]) while it stays
/// in that cell, every collider from where it left it otherwise. Either way the result is the
/// one testing every collider gives. `at` is [`substep_colliders`] of `colliders`.
// The kernel's arguments, in its order, and the tables it reads from bindings.
#[allow(clippy::too_many_arguments)]
pub(crate) fn collide_all(
    colliders: &[ColliderRecord],
    at: &[SubstepCollider],
    grid: &[f32],
    cells: &[u32],
    x: Vec3,
    x_prev: Vec3,
    pull: Vec3,
    escape: f32,
) -> Contact {
    let mut result = Contact {
        x,
        x_prev,
        hit: false,
        stuck: false,
    };
    let mut next = 0;
    if let Some(cell) = collider_cell(cells, x, x_prev) {
        next = colliders.len();
        for &k in &cells[cell.0 as usize..cell.1 as usize] {
            let c = &colliders[k as usize];
            let at = &at[k as usize];
            if !collider_reaches(c, at, result.x, result.x_prev) {
                continue;
            }
            let hit = collide_with(c, grid, at, result.x, result.x_prev, pull, escape);
            if hit.hit {
                result = hit;
                // Moved out of the cell (or too far): the rest, one by one.
                if !still_in_cell(cells, cell, result.x, result.x_prev) {
                    next = k as usize + 1;
                    break;
                }
            }
        }
    }
    for (c, at) in colliders.iter().zip(at).skip(next) {
        if !collider_reaches(c, at, result.x, result.x_prev) {
            continue;
        }
        let hit = collide_with(c, grid, at, result.x, result.x_prev, pull, escape);
        if hit.hit {
            result = hit;
        }
    }
    result
}

/// The entries `[start, end)` of the cell a particle at `x` (moved from `x_prev` over the
/// substep) tests (outside the grid, the planes'), or `None` when it tests every collider: no
/// grid, or it moved more than the margin. Twin of `collider_cell` in
/// `shaders/colliders.wgsl`.
pub(crate) fn collider_cell(table: &[u32], x: Vec3, x_prev: Vec3) -> Option<(u32, u32)> {
    let dims = glam::UVec3::new(table[4], table[5], table[6]);
    if dims.x == 0 {
        return None;
    }
    let f = |i: usize| f32::from_bits(table[i]);
    let origin = Vec3::new(f(0), f(1), f(2));
    if (x - x_prev).length() > f(7) {
        return None;
    }
    let g = ((x - origin) / f(3)).floor();
    let i = if g.cmplt(Vec3::ZERO).any() || g.cmpge(dims.as_vec3()).any() {
        crate::config::BROADPHASE_HEADER_WORDS + (dims.x * dims.y * dims.z) as usize
    } else {
        let c = g.as_uvec3();
        crate::config::BROADPHASE_HEADER_WORDS + ((c.z * dims.y + c.y) * dims.x + c.x) as usize
    };
    Some((table[i], table[i + 1]))
}

/// Whether a particle that was in the cell `[start, end)` names may go on with that cell's list
/// after a collider moved it: it is still in the same cell and within the margin of where it
/// was. Twin of `still_in_cell` in `shaders/colliders.wgsl`.
pub(crate) fn still_in_cell(table: &[u32], cell: (u32, u32), x: Vec3, x_prev: Vec3) -> bool {
    collider_cell(table, x, x_prev) == Some(cell)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `grid_normal` reads the eight values `grid_distance` reads: inside a cell it must be
    /// the direction of the sample's own gradient (central differences far smaller than the
    /// cell agree), and outside the grid's box it must lead away from the box (as well as along
    /// the face's own gradient: these values are no distance field).
    #[test]
    fn the_grids_normal_is_its_samples_gradient() {
        let dims = UVec3::new(4, 5, 6);
        let values: Vec<f32> = (0..dims.x * dims.y * dims.z)
            .map(|k| ((k * 7919) % 101) as f32 * 0.01 - 0.5)
            .collect();
        let (origin, cell) = (Vec3::new(-1.0, 0.5, 2.0), 0.25);
        let d = |q: Vec3| grid_distance(origin, cell, dims, &values, q);
        for q in [
            Vec3::new(0.3, 0.3, 0.3),
            Vec3::new(1.7, 2.2, 3.6),
            Vec3::new(2.9, 0.6, 4.1),
        ] {
            let q = origin + q * cell;
            let e = 1e-3;
            let central = Vec3::new(
                d(q + Vec3::X * e) - d(q - Vec3::X * e),
                d(q + Vec3::Y * e) - d(q - Vec3::Y * e),
                d(q + Vec3::Z * e) - d(q - Vec3::Z * e),
            )
            .normalize();
            let n = grid_normal(origin, cell, dims, &values, q);
            assert!(n.dot(central) > 0.999, "at {q}: {n} against {central}");
        }
        let far = origin + Vec3::new(10.0, 1.0, 1.0);
        let n = grid_normal(origin, cell, dims, &values, far);
        assert!(n.x > 0.2, "beyond the box along +x: {n}");
    }
}
