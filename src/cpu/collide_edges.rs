//! Twins of `edge_contacts` and `apply_edge_contacts` in `shaders/collide_edges.wgsl`, function
//! for function, in the same order of arithmetic. The table they read is
//! [`crate::contact::edges`]'s.

use glam::{Vec3, Vec4, Vec4Swizzles};
use rayon::prelude::*;

use super::MIN_PER_TASK;
use super::colliders::{Pose, collider_cell, collider_pose, quat_rotate, to_local, to_world};
use crate::config::EDGE_TABLE_HEADER_WORDS as HEADER_WORDS;
use crate::config::{ColliderRecord, EDGE_PUSH_ROWS, StepParams};

const COLLIDER_CAPSULE: u32 = 1;
const COLLIDER_CUBOID: u32 = 3;
/// Twin of `FACING`: below this cosine between a triangle's normal and a box edge's outward
/// direction, the triangle's side is taken from where it was, not from the box.
const FACING: f32 = 0.3;

/// The table's parts: triangle count, particle count, offsets, incident triangles, triangles.
struct Table<'a> {
    triangles: usize,
    offsets: &'a [u32],
    incident: &'a [u32],
    corners: &'a [u32],
}

/// Twin of `incident_start`: where the particles' incident triangles begin.
fn incident_start(table: &[u32]) -> usize {
    HEADER_WORDS + table[1] as usize + 1
}

/// Twin of `corners_start`: where the triangles' corners begin.
fn corners_start(table: &[u32]) -> usize {
    incident_start(table) + 3 * table[0] as usize
}

/// The table's parts.
fn split(table: &[u32]) -> Table<'_> {
    let (t, n) = (table[0] as usize, table[1] as usize);
    let offsets = &table[HEADER_WORDS..][..n + 1];
    let incident = &table[incident_start(table)..][..3 * t];
    let corners = &table[corners_start(table)..][..3 * t];
    Table {
        triangles: t,
        offsets,
        incident,
        corners,
    }
}

/// Twin of `box_sign`: corner `k` of a box in units of its half extents
/// ([`crate::contact::BOX_CORNERS`]).
fn box_sign(k: u32) -> Vec3 {
    let s = |bit: u32| if k & bit != 0 { 1.0 } else { -1.0 };
    Vec3::new(s(1), s(2), s(4))
}

/// Twin of `edge_start`: the corner box edge `e` starts from (edges 0–3 run along x, 4–7 along
/// y, 8–11 along z; [`crate::contact::BOX_EDGES`]).
fn edge_start(e: u32) -> u32 {
    let m = e % 4;
    match e / 4 {
        0 => m << 1,
        1 => (m & 1) | ((m >> 1) << 2),
        _ => m,
    }
}

/// A collider at the substep's end: its pose, for a box its half axes, for a capsule its
/// axis, and the axis at the substep's start too (what each thread of the kernel works out
/// for itself; worked out once here, by the same arithmetic).
#[derive(Clone, Copy)]
struct Placed {
    pose: Pose,
    axes: [Vec3; 3],
    axis: Axis,
    axis_from: Axis,
}

fn placed(c: &ColliderRecord, t_from: f32, t_to: f32) -> Placed {
    let pose = collider_pose(c, t_to);
    Placed {
        pose,
        axes: box_axes(pose, Vec4::from_array(c.shape_a).xyz()),
        axis: capsule_axis(c, pose),
        axis_from: capsule_axis(c, collider_pose(c, t_from)),
    }
}

/// Twin of `box_axes`: the half extents `half` turned by the pose, one axis each.
fn box_axes(pose: Pose, half: Vec3) -> [Vec3; 3] {
    [
        quat_rotate(pose.rotation, Vec3::new(half.x, 0.0, 0.0)),
        quat_rotate(pose.rotation, Vec3::new(0.0, half.y, 0.0)),
        quat_rotate(pose.rotation, Vec3::new(0.0, 0.0, half.z)),
    ]
}

/// Twin of `box_corner`: the corner at `signs` (±1 each) of the box at `position` whose half
/// axes are `axes`.
fn box_corner(position: Vec3, axes: [Vec3; 3], signs: Vec3) -> Vec3 {
    position + axes[0] * signs.x + axes[1] * signs.y + axes[2] * signs.z
}

/// Twin of `triangle_push`: the push that moves the triangle `x` (w: inverse mass) off the
/// deepest point of any box collider's edges, or thin capsule's axis, on its wrong side: xyz
/// its direction, w how far (0: none); each corner's share of it (xyz) with the friction
/// of what it pushes off (w); and how far the surface it pushes off moved over the substep at
/// the point (xyz: friction and the velocity into the push are taken relative to it; w 0).
/// `before` gives where its corners were at the substep's start, read only for a triangle
/// near an edge. Most triangles are near none: they are told apart first, by the kernel's own
/// tests, and only the others take the whole search ([`deepest_push`]), which keeps this hot
/// path small.
fn triangle_push(
    colliders: &[ColliderRecord],
    placements: &[Placed],
    cells: &[u32],
    every: &[u32],
    x: [Vec4; 3],
    before: impl Fn() -> [Vec4; 3],
) -> [Vec4; EDGE_PUSH_ROWS] {
    let (x0, x1, x2) = (x[0].xyz(), x[1].xyz(), x[2].xyz());
    let centre = (x0 + x1 + x2) / 3.0;
    let reach = (x0 - centre)
        .length_squared()
        .max((x1 - centre).length_squared())
        .max((x2 - centre).length_squared())
        .sqrt();
    // The colliders of the broad phase's cell of the centre, as for a particle whose path is
    // the triangle's reach long, or `every` one (the kernel's walk, in the same order).
    let listed = match collider_cell(cells, centre, centre + Vec3::new(reach, 0.0, 0.0)) {
        Some((start, end)) => &cells[start as usize..end as usize],
        None => every,
    };
    let near_an_edge = listed.iter().any(|&k| {
        let (c, here) = (&colliders[k as usize], &placements[k as usize]);
        (c.kind == COLLIDER_CUBOID
            && near_edges(
                c.material[0],
                Vec4::from_array(c.shape_a).xyz(),
                to_local(here.pose, centre),
                reach,
            ))
            || (thin_capsule(c) && near_axis(c, here.axis, centre, reach))
    });
    if !near_an_edge {
        return [Vec4::ZERO; EDGE_PUSH_ROWS];
    }
    deepest_push(colliders, placements, listed, x, before(), centre, reach)
}

/// The kernel's test of a triangle against one box: its centre (`local_centre`, in the box's
/// frame) within the thickness `r` and its own size `reach` of the box of half extents `half`,
/// and near two of its faces' planes. Most (those far, or over a face) are not.
fn near_edges(r: f32, half: Vec3, local_centre: Vec3, reach: f32) -> bool {
    let excess = local_centre.abs() - half;
    let within = r + reach;
    if excess.max_element() > within {
        return false;
    }
    let near = excess.cmpgt(Vec3::splat(-within));
    (near.x as u32) + (near.y as u32) + (near.z as u32) >= 2
}

/// Twin of `thin_capsule`: a capsule the host marked thin for the cloth (material w), whose
/// axis the triangles keep out as they keep a box's edges.
fn thin_capsule(c: &ColliderRecord) -> bool {
    c.kind == COLLIDER_CAPSULE && c.material[3] != 0.0
}

/// Twin of `Axis`: a capsule's axis, its ends and their radii.
type Axis = (Vec3, Vec3, f32, f32);

/// Twin of `capsule_axis`: a capsule's axis ends at `pose`, and their radii.
fn capsule_axis(c: &ColliderRecord, pose: Pose) -> Axis {
    let a = Vec4::from_array(c.shape_a);
    let b = Vec4::from_array(c.shape_b);
    (to_world(pose, a.xyz()), to_world(pose, b.xyz()), a.w, b.w)
}

/// Twin of `near_axis`: a triangle's centre within its own size, the thickness and the larger
/// radius of a thin capsule's axis (`axis`: [`capsule_axis`] at the substep's end).
fn near_axis(c: &ColliderRecord, axis: Axis, centre: Vec3, reach: f32) -> bool {
    let (p, q, ra, rb) = axis;
    let d = q - p;
    let s = ((centre - p).dot(d) / d.dot(d).max(1e-30)).clamp(0.0, 1.0);
    (centre - (p + d * s)).length() <= ra.max(rb) + c.material[0] + reach
}

/// Twin of `clip_to_triangle`: the part `[t0, t1]` of the segment `p + d t`, t in [0, 1], over
/// the triangle `x` (its normal unnormalized `cr`), seen along its normal; t0 > t1 when none.
fn clip_to_triangle(p: Vec3, d: Vec3, x: [Vec3; 3], cr: Vec3) -> (f32, f32) {
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (a, b) in [(x[0], x[1]), (x[1], x[2]), (x[2], x[0])] {
        let inward = cr.cross(b - a);
        let f0 = (p - a).dot(inward);
        let fd = d.dot(inward);
        if fd.abs() < 1e-30 {
            if f0 < 0.0 {
                t0 = 2.0;
            }
        } else if fd > 0.0 {
            t0 = t0.max(-f0 / fd);
        } else {
            t1 = t1.min(-f0 / fd);
        }
    }
    (t0, t1)
}

/// The rest of `triangle_push`, for a triangle near some box's edge or thin capsule's axis
/// (`centre` and `reach` as it worked them out: the farthest corner from the centre, with one
/// square root since it is monotonic).
#[inline(never)]
fn deepest_push(
    colliders: &[ColliderRecord],
    placements: &[Placed],
    listed: &[u32],
    x: [Vec4; 3],
    before: [Vec4; 3],
    centre: Vec3,
    reach: f32,
) -> [Vec4; EDGE_PUSH_ROWS] {
    let none = [Vec4::ZERO; EDGE_PUSH_ROWS];
    let (x0, x1, x2) = (x[0].xyz(), x[1].xyz(), x[2].xyz());
    let e1 = x1 - x0;
    let e2 = x2 - x0;
    // The rest is worked out for a triangle near a box's edge only (most are not).
    let mut ready = false;
    let (mut cr, mut n, mut longest) = (Vec3::ZERO, Vec3::ZERO, 0.0);
    let (mut start, mut n_before) = (Vec3::ZERO, Vec3::ZERO);
    let mut best = 0.0f32;
    let mut at = Vec3::ZERO;
    let mut out = Vec3::ZERO;
    // The push's length over its depth (a thin capsule's, off its axis square to it), and
    // the friction of the collider pushed off: a capsule's own μ; a box's pushes none.
    let mut scale = 1.0f32;
    let mut mu = 0.0f32;
    // How far the point pushed off moved over the substep (a box's: none, as it has no
    // friction).
    let mut carried = Vec3::ZERO;
    for &k in listed {
        let (c, here) = (&colliders[k as usize], &placements[k as usize]);
        let capsule = thin_capsule(c);
        if c.kind != COLLIDER_CUBOID && !capsule {
            continue;
        }
        let r = c.material[0];
        let pose = here.pose;
        let half = Vec4::from_array(c.shape_a).xyz();
        let local_centre = to_local(pose, centre);
        if capsule {
            if !near_axis(c, here.axis, centre, reach) {
                continue;
            }
        } else if !near_edges(r, half, local_centre, reach) {
            continue;
        }
        if !ready {
            ready = true;
            cr = e1.cross(e2);
            let area2 = cr.length();
            if area2 < 1e-12 {
                return none;
            }
            n = cr / area2;
            longest = e1.length().max(e2.length()).max((x2 - x1).length());
            // The triangle at the substep's start (its normal unnormalized: only signs are
            // read).
            start = before[0].xyz();
            n_before = (before[1].xyz() - start).cross(before[2].xyz() - start);
        }
        if capsule {
            // The part of the axis over the triangle, kept on the side it was on at the
            // substep's start, its surface (the radius along it) the thickness off.
            let (p, q, ra, rb) = here.axis;
            let d = q - p;
            let (t0, t1) = clip_to_triangle(p, d, [x0, x1, x2], cr);
            if t0 > t1 {
                continue;
            }
            // The side: the axis against the triangle, both at the substep's start.
            let (p0, q0, _, _) = here.axis_from;
            let side = -(p0 + (q0 - p0) * ((t0 + t1) * 0.5) - start).dot(n_before);
            let no = if side > 0.0 { n } else { -n };
            let y0 = p + d * t0;
            let y1 = p + d * t1;
            let g0 = (y0 - x0).dot(no) + (ra + (rb - ra) * t0) + r;
            let g1 = (y1 - x0).dot(no) + (ra + (rb - ra) * t1) + r;
            let (g, y, t) = if g1 > g0 { (g1, y1, t1) } else { (g0, y0, t0) };
            // Deeper than half the triangle past the surface is the far side.
            if g > best && g <= (ra + (rb - ra) * t) + r + 0.5 * longest {
                best = g;
                at = y;
                // Off the axis square to it (the kernel says why).
                out = no;
                scale = 1.0;
                let dl = d.length();
                if dl > 0.0 {
                    let dh = d / dl;
                    let perp = no - dh * no.dot(dh);
                    let pl = perp.length();
                    if pl >= 0.5 {
                        out = perp / pl;
                        scale = 1.0 / pl;
                    }
                }
                mu = c.material[1];
                carried = y - (p0 + (q0 - p0) * t);
            }
            continue;
        }
        for e in 0..12u32 {
            let axis = e / 4;
            let first = edge_start(e);
            let sa = box_sign(first);
            // Only the edges the triangle is near: its centre within the thickness and its
            // own size of the edge.
            let mut off = local_centre - half * sa;
            off[axis as usize] = (local_centre[axis as usize].abs() - half[axis as usize]).max(0.0);
            if off.length() > r + reach {
                continue;
            }
            let sb = box_sign(first | (1 << axis));
            let p = box_corner(pose.position, here.axes, sa);
            let q = box_corner(pose.position, here.axes, sb);
            // The edge's outward direction: its two faces' normals summed.
            let mut local = sa;
            local[axis as usize] = 0.0;
            let facing = n.dot(quat_rotate(pose.rotation, local) / local.length());
            // The part of the edge over the triangle: p + d t, t in [t0, t1].
            let d = q - p;
            let (t0, t1) = clip_to_triangle(p, d, [x0, x1, x2], cr);
            if t0 > t1 {
                continue;
            }
            // Which side of the triangle the box belongs on: where the edge faces, when the
            // triangle faces it clearly; else (a fold edge-on to it) the side the edge was on
            // at the substep's start.
            let side = if facing.abs() >= FACING {
                facing
            } else {
                -(p + d * ((t0 + t1) * 0.5) - start).dot(n_before)
            };
            let no = if side > 0.0 { n } else { -n };
            let y0 = p + d * t0;
            let y1 = p + d * t1;
            let g0 = (y0 - x0).dot(no) + r;
            let g1 = (y1 - x0).dot(no) + r;
            let (g, y) = if g1 > g0 { (g1, y1) } else { (g0, y0) };
            // Deeper than half the triangle is not a poke through it but the far side.
            if g > best && g <= r + 0.5 * longest {
                best = g;
                at = y;
                out = no;
                scale = 1.0;
                mu = 0.0;
                carried = Vec3::ZERO;
            }
        }
    }
    if best <= 0.0 {
        return none;
    }
    // A free triangle moves off the point whole, each corner the push's full length: turned
    // about the point instead (a corner near it taking all the push), it would stretch the
    // corner's edges to the triangles beyond (a box's top corner, 1.87× at rest).
    if x[0].w > 0.0 && x[1].w > 0.0 && x[2].w > 0.0 {
        return [
            out.extend(best * scale),
            Vec4::new(1.0, 1.0, 1.0, mu),
            carried.extend(0.0),
        ];
    }
    // The deepest point's barycentric coordinates on the triangle.
    let v2 = at - x0;
    let d00 = e1.dot(e1);
    let d01 = e1.dot(e2);
    let d11 = e2.dot(e2);
    let d20 = v2.dot(e1);
    let d21 = v2.dot(e2);
    let denom = d00 * d11 - d01 * d01;
    if denom <= 0.0 {
        return none;
    }
    let c1 = ((d11 * d20 - d01 * d21) / denom).clamp(0.0, 1.0);
    let c2 = ((d00 * d21 - d01 * d20) / denom).clamp(0.0, 1.0 - c1);
    let c0 = 1.0 - c1 - c2;
    // A triangle with a pinned corner turns: each free corner moves by w_k b_k / Σ w b² of
    // the push, so the point moves by all of it; but no corner farther than the push itself
    // (a point next to the pin would take a free corner 1 / b_k as far).
    let (w0, w1, w2) = (x[0].w * c0, x[1].w * c1, x[2].w * c2);
    let s = w0 * c0 + w1 * c1 + w2 * c2;
    if s <= 0.0 {
        return none;
    }
    let shares = Vec3::new(w0 / s, w1 / s, w2 / s).min(Vec3::ONE);
    [
        out.extend(best * scale),
        shares.extend(mu),
        carried.extend(0.0),
    ]
}

/// Twin of `edge_contacts`: every triangle's push, [`EDGE_PUSH_ROWS`] `Vec4`s a triangle, in
/// parallel.
pub fn edge_contacts(
    params: &StepParams,
    positions: &[Vec4],
    previous: &[Vec4],
    colliders: &[ColliderRecord],
    cells: &[u32],
    table: &[u32],
    pushes: &mut [Vec4],
) {
    let t = split(table);
    let colliders = &colliders[..params.collider_count as usize];
    let placements: Vec<Placed> = colliders
        .iter()
        .map(|c| placed(c, params.t_from, params.t_to))
        .collect();
    let every: Vec<u32> = (0..colliders.len() as u32).collect();
    pushes[..EDGE_PUSH_ROWS * t.triangles]
        .par_chunks_mut(EDGE_PUSH_ROWS)
        .enumerate()
        .with_min_len(MIN_PER_TASK)
        .for_each(|(k, out)| {
            let corners = [0, 1, 2].map(|c| t.corners[3 * k + c] as usize);
            let x = corners.map(|i| positions[i]);
            let before = || corners.map(|i| previous[i]);
            out.copy_from_slice(&triangle_push(
                colliders,
                &placements,
                cells,
                &every,
                x,
                before,
            ));
        });
}

/// Twin of `apply_edge_contacts`: each free particle moves by the largest of its share of its
/// triangles' pushes (the first, of equals), and loses the velocity it had into it, relative
/// to the surface pushed off (its previous position moves with it).
pub fn apply_edge_contacts(
    params: &StepParams,
    positions: &mut [Vec4],
    previous: &mut [Vec4],
    table: &[u32],
    pushes: &[Vec4],
) {
    let t = split(table);
    let n = params.particle_count as usize;
    // Each particle reads only its own triangles' pushes, so only the corners of pushed
    // triangles can move: where they are few (most substeps), visit them alone. The same
    // arithmetic per particle either way, so the result is the kernel's.
    let mut touched: Vec<u32> = (0..t.triangles)
        .filter(|&k| pushes[EDGE_PUSH_ROWS * k].w != 0.0)
        .flat_map(|k| t.corners[3 * k..3 * k + 3].iter().copied())
        .collect();
    if touched.len() < n / 4 {
        touched.sort_unstable();
        touched.dedup();
        for i in touched {
            let i = i as usize;
            apply_to(&t, pushes, i, &mut positions[i], &mut previous[i]);
        }
        return;
    }
    positions[..n]
        .par_iter_mut()
        .zip(&mut previous[..n])
        .enumerate()
        .with_min_len(MIN_PER_TASK)
        .for_each(|(i, (p, prev))| apply_to(&t, pushes, i, p, prev));
}

/// One thread of `apply_edge_contacts`: particle `i`, at `p` (its previous position `prev`).
fn apply_to(t: &Table<'_>, pushes: &[Vec4], i: usize, p: &mut Vec4, prev: &mut Vec4) {
    if p.w == 0.0 {
        return;
    }
    let mut moved = Vec3::ZERO;
    let mut largest = 0.0f32;
    let mut mu = 0.0f32;
    let mut carried = Vec3::ZERO;
    for s in t.offsets[i]..t.offsets[i + 1] {
        let k = t.incident[s as usize] as usize;
        let push = pushes[EDGE_PUSH_ROWS * k];
        if push.w == 0.0 {
            continue;
        }
        let corner = if t.corners[3 * k] == i as u32 {
            0
        } else if t.corners[3 * k + 1] == i as u32 {
            1
        } else {
            2
        };
        // The largest of its triangles' pushes: summed, pushes along the three faces at a
        // box's corner would carry it off the corner diagonally, well past each of them.
        let shares = pushes[EDGE_PUSH_ROWS * k + 1];
        let want = push.w * shares[corner];
        if want > largest {
            largest = want;
            moved = push.xyz() * want;
            mu = shares.w;
            carried = pushes[EDGE_PUSH_ROWS * k + 2].xyz();
        }
    }
    let len = moved.length();
    if len <= 0.0 {
        return;
    }
    let dir = moved / len;
    // Its motion over the substep against the surface's (a moving rod carries what it
    // touches, as `collide` carries a particle with a moving collider).
    let v = p.xyz() - prev.xyz() - carried;
    let into = v.dot(dir).min(0.0);
    // Coulomb friction off a thin capsule (a box's pushes carry none), as `collide` brakes:
    // the sliding along the surface taken from the velocity up to μ times the push.
    let mut braked = Vec3::ZERO;
    if mu > 0.0 {
        let tangential = v - dir * v.dot(dir);
        let slide = tangential.length();
        let grip = mu * len;
        braked = if slide <= grip {
            tangential
        } else {
            tangential * (grip / slide)
        };
    }
    *p = (p.xyz() + moved).extend(p.w);
    // Held by contact: the strain limit after it moves its neighbours, not it.
    *prev = (prev.xyz() + moved + dir * into + braked).extend(1.0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Collider;
    use glam::Quat;

    /// The kernel numbers corners and edges by arithmetic; the library's tables
    /// (`contact::BOX_CORNERS`, `contact::BOX_EDGES`, which the quality check reads) are the
    /// same numbering.
    #[test]
    fn the_kernels_box_numbering_is_the_librarys() {
        for (k, c) in crate::contact::BOX_CORNERS.iter().enumerate() {
            assert_eq!(box_sign(k as u32), *c, "corner {k}");
        }
        for (e, [a, b]) in crate::contact::BOX_EDGES.iter().enumerate() {
            let first = edge_start(e as u32);
            assert_eq!(first as usize, *a, "edge {e}");
            assert_eq!((first | (1 << (e / 4))) as usize, *b, "edge {e}");
        }
    }

    /// A triangle around a box's vertical edge, as a draped cloth leaves one: pushed once, the
    /// edge is behind it by the thickness.
    #[test]
    fn one_push_takes_a_triangle_off_the_edge_it_wraps() {
        let half = Vec3::new(0.45, 0.4, 0.3);
        let c = Collider::cuboid(Vec3::new(0.0, 0.4, 0.0), half, Quat::from_rotation_y(0.3));
        let rec = c.record(c.pose, 0);
        let local = [
            Vec3::new(1.0111111, 0.60993904, 0.88061714),
            Vec3::new(0.99266243, 0.7244489, 1.0165176),
            Vec3::new(1.0111111, 0.64550513, 0.9781619),
        ];
        let x = local.map(|l| c.pose.transform_point(l * half).extend(1.0));
        let crossing = |x: &[Vec4; 3]| {
            let p: Vec<Vec3> = x.iter().map(|v| v.xyz()).collect();
            crate::quality::box_edges_through_cloth(&[[0, 1, 2]], &p, std::slice::from_ref(&c))
        };
        assert_eq!(crossing(&x), 1);
        let placements = [placed(&rec, 0.0, 1.0)];
        // No broad phase (its header's zero cells): the one collider.
        let no_cells = [0; crate::config::BROADPHASE_HEADER_WORDS];
        let [push, shares, _] = triangle_push(
            std::slice::from_ref(&rec),
            &placements,
            &no_cells,
            &[0],
            x,
            || x,
        );
        assert!(push.w > 0.0, "no push: {push:?}");
        let moved = [0, 1, 2].map(|k| (x[k].xyz() + push.xyz() * (push.w * shares[k])).extend(1.0));
        assert_eq!(crossing(&moved), 0, "push {push:?} shares {shares:?}");
    }
}
