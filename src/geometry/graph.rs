//! The cloth as a graph: its constraints as weighted edges, its triangles as fans, and
//! distances over its surface. Tethers (src/tethers.rs) and coarse levels (src/hierarchy/)
//! both measure how far apart two particles are over the cloth.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use glam::DVec3;

use crate::cloth::Cloth;
use crate::constraint::Constraint;

/// For each particle, the other two corners of every triangle it belongs to.
pub(crate) struct Fans {
    start: Vec<u32>,
    pairs: Vec<[u32; 2]>,
}

impl Fans {
    pub(crate) fn new(cloth: &Cloth) -> Self {
        let n = cloth.particle_count();
        let mut start = vec![0u32; n + 1];
        for t in cloth.triangles() {
            for &v in t {
                start[v as usize + 1] += 1;
            }
        }
        for k in 1..=n {
            start[k] += start[k - 1];
        }
        let mut cursor = start.clone();
        let mut pairs = vec![[0u32; 2]; start[n] as usize];
        for &[a, b, c] in cloth.triangles() {
            for (v, others) in [(a, [b, c]), (b, [c, a]), (c, [a, b])] {
                pairs[cursor[v as usize] as usize] = others;
                cursor[v as usize] += 1;
            }
        }
        Self { start, pairs }
    }

    pub(crate) fn opposite(&self, p: usize) -> &[[u32; 2]] {
        &self.pairs[self.start[p] as usize..self.start[p + 1] as usize]
    }
}

/// The constraint graph in compressed rows: each particle's neighbours and rest lengths.
pub(crate) struct Adjacency {
    start: Vec<u32>,
    edges: Vec<(u32, f32)>,
}

impl Adjacency {
    pub(crate) fn new(cloth: &Cloth) -> Self {
        let n = cloth.particle_count();
        let mut degree = vec![0u32; n + 1];
        // Every distance constraint (a membrane of triangles' edges too), and across each
        // bending stencil its two opposite vertices (its tail's pair) at their distance at
        // rest, as a distance bend would join them.
        let x = cloth.positions();
        let distances = || {
            (cloth.constraints().iter().chain(cloth.membrane_edges())).filter_map(|c| {
                if c.is_distance() {
                    Some(*c)
                } else if c.is_stencil_tail() && !c.is_triangle() {
                    let rest = x[c.i as usize].distance(x[c.j as usize]);
                    Some(Constraint { rest, ..*c })
                } else {
                    None
                }
            })
        };
        for c in distances() {
            degree[c.i as usize + 1] += 1;
            degree[c.j as usize + 1] += 1;
        }
        for k in 1..=n {
            degree[k] += degree[k - 1];
        }
        let mut cursor = degree.clone();
        let mut edges = vec![(0u32, 0f32); degree[n] as usize];
        for c in distances() {
            for (a, b) in [(c.i, c.j), (c.j, c.i)] {
                edges[cursor[a as usize] as usize] = (b, c.rest);
                cursor[a as usize] += 1;
            }
        }
        Self {
            start: degree,
            edges,
        }
    }

    pub(crate) fn neighbours(&self, p: usize) -> &[(u32, f32)] {
        &self.edges[self.start[p] as usize..self.start[p + 1] as usize]
    }
}

/// The distance to `r` from a virtual source at distance `dp` from `p` and `dq` from `q`, with
/// the triangle (p, q, r) unfolded into the plane and the source on the far side of edge pq
/// (the planar update of fast marching on triangle meshes). `None` when the distances do not
/// fit the edge, or the straight line from the source to r misses the edge (then the path
/// bends at p or q, and the edge-wise update already covers it).
pub(crate) fn unfold(p: DVec3, dp: f64, q: DVec3, dq: f64, r: DVec3) -> Option<f64> {
    let l = p.distance(q);
    if l <= 0.0 {
        return None;
    }
    // Planar frame: p at the origin, q at (l, 0), r above the axis, the source below it.
    let (lpr, lqr) = (p.distance(r), q.distance(r));
    let rx = (lpr * lpr - lqr * lqr + l * l) / (2.0 * l);
    let ry = (lpr * lpr - rx * rx).max(0.0).sqrt();
    let sx = (dp * dp - dq * dq + l * l) / (2.0 * l);
    let sy2 = dp * dp - sx * sx;
    if sy2 < 0.0 || ry <= 0.0 {
        return None;
    }
    let sy = -sy2.sqrt();
    // Where the line from the source to r crosses the edge's line.
    let t = -sy / (ry - sy);
    let cross = sx + t * (rx - sx);
    if !(0.0..=l).contains(&cross) {
        return None;
    }
    Some(((rx - sx).powi(2) + (ry - sy).powi(2)).sqrt())
}

/// The A* estimate's share of the straight line to the target. The whole line is the fastest
/// search but a narrow band often lacks the settled triangle corners the unfolding needs, so
/// its distances come out long by the zigzag of the edges; half the line widens the band enough.
/// Measured on the 384² irregular sheet's levels: plain Dijkstra 11.5 s, 1.0 → 0.98 s, 0.8 →
/// 1.5 s, 0.5 → 3.3 s; the 192² sheet's mean stretch after 60 frames 1.0124, 1.0101 and 1.0087
/// (measured before a flat sheet with a convex border took the chord instead: a curved mesh
/// still searches).
const ESTIMATE_WEIGHT: f64 = 0.5;

/// Distances over a cloth's surface between particles (the rest lengths of a coarse level's
/// limits): shortest paths over the constraint graph with the triangle unfolding the tethers
/// use ([`unfold`]), never shorter than the straight line; on a flat sheet with a convex border
/// ([`flat_and_convex`]) the straight line itself, with no search. Scratch space is kept
/// between calls, so a search costs what it visits.
pub(crate) struct SurfaceDistances<'a> {
    graph: Adjacency,
    fans: Fans,
    positions: &'a [glam::Vec3],
    settled: Vec<f64>,
    touched: Vec<u32>,
    /// A flat sheet with a convex border ([`flat_and_convex`]): every distance is the chord.
    flat: bool,
}

impl<'a> SurfaceDistances<'a> {
    pub(crate) fn new(cloth: &'a Cloth) -> Self {
        Self {
            graph: Adjacency::new(cloth),
            fans: Fans::new(cloth),
            positions: cloth.positions(),
            settled: vec![f64::NAN; cloth.particle_count()],
            touched: Vec::new(),
            flat: flat_and_convex(cloth),
        }
    }

    /// The distance from `source` to each of `targets` (in their order); a target the source
    /// cannot reach gets its straight-line distance.
    pub(crate) fn between(&mut self, source: u32, targets: &[u32]) -> Vec<f64> {
        targets.iter().map(|&t| self.to(source, t)).collect()
    }

    /// The distance from `source` to `target`: an A* search whose estimate is the straight
    /// line to the target (never more than the distance over the surface), so on a nearly flat
    /// cloth it visits a narrow band along the line instead of a disc around the source.
    fn to(&mut self, source: u32, target: u32) -> f64 {
        let x = |i: u32| self.positions[i as usize].as_dvec3();
        let goal = x(target);
        let chord = |i: u32| x(i).distance(x(source));
        if self.flat {
            // Exact, where the unfolding below comes out slightly long over obtuse triangles.
            return chord(target);
        }
        let estimate = |i: u32| ESTIMATE_WEIGHT * x(i).distance(goal);
        let mut heap = BinaryHeap::new();
        let push = |heap: &mut BinaryHeap<_>, d: f64, p: u32| {
            // Non-negative f64s order like their bits.
            heap.push(Reverse(((d + estimate(p)).to_bits(), d.to_bits(), p)));
        };
        push(&mut heap, 0.0, source);
        let mut found = None;
        while let Some(Reverse((_, bits, p))) = heap.pop() {
            let pu = p as usize;
            if !self.settled[pu].is_nan() {
                continue;
            }
            let d = f64::from_bits(bits);
            self.settled[pu] = d;
            self.touched.push(p);
            if p == target {
                found = Some(d);
                break;
            }
            for &(q, w) in self.graph.neighbours(pu) {
                if self.settled[q as usize].is_nan() {
                    push(&mut heap, (d + w as f64).max(chord(q)), q);
                }
            }
            for &[q, r] in self.fans.opposite(pu) {
                for (q, r) in [(q, r), (r, q)] {
                    let dq = self.settled[q as usize];
                    if dq.is_nan() || !self.settled[r as usize].is_nan() {
                        continue;
                    }
                    if let Some(dr) = unfold(x(p), d, x(q), dq, x(r)) {
                        push(&mut heap, dr.max(chord(r)), r);
                    }
                }
            }
        }
        for &p in &self.touched {
            self.settled[p as usize] = f64::NAN;
        }
        self.touched.clear();
        found.unwrap_or_else(|| chord(target))
    }
}

/// Whether `cloth` is a flat sheet covering a convex region once: every particle in one plane,
/// every triangle wound the same way round, their areas adding up to the area inside the
/// border, and the border one loop that never turns the other way. Then the straight segment
/// between any two particles lies on the cloth, and the distance over it is the chord. False
/// for anything else: curved, holed, in pieces, concave, or folded flat onto itself.
pub(crate) fn flat_and_convex(cloth: &Cloth) -> bool {
    let x: Vec<DVec3> = cloth.positions().iter().map(|p| p.as_dvec3()).collect();
    let triangles = cloth.triangles();
    let Some(first) = triangles.first() else {
        return false;
    };
    let (lo, hi) = x.iter().fold(
        (DVec3::splat(f64::INFINITY), DVec3::splat(f64::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    let size = (hi - lo).max_element();
    let doubled_area = |t: &[u32; 3]| {
        let [a, b, c] = t.map(|i| x[i as usize]);
        (b - a).cross(c - a)
    };
    // The plane of the largest triangle (the most reliable normal), facing it.
    let normal = triangles
        .iter()
        .map(doubled_area)
        .max_by(|a, b| a.length_squared().total_cmp(&b.length_squared()))
        .unwrap_or_default();
    // (Written so that a NaN also says no.)
    let has_area = normal.length() > 0.0 && size > 0.0;
    if !has_area {
        return false;
    }
    let normal = normal.normalize();
    let origin = x[first[0] as usize];
    // f32 positions: a flat sheet is flat to their rounding.
    if x.iter()
        .any(|p| (*p - origin).dot(normal).abs() > 1e-6 * size)
    {
        return false;
    }
    // Wound alike: no triangle faces away (a sheet folded flat onto itself has some that do).
    let mut area = 0.0;
    for t in triangles {
        let a = 0.5 * doubled_area(t).dot(normal);
        if a < -1e-12 * size * size {
            return false;
        }
        area += a;
    }
    // The border: edges of one triangle, directed as that triangle winds them, so the cloth is
    // on their left seen from the normal.
    let mut next = std::collections::HashMap::new();
    for group in super::sorted_sides(triangles).chunk_by(|x, y| x.0 == y.0) {
        if let [(_, side)] = group {
            let (t, k) = (*side as usize / 3, *side as usize % 3);
            let (a, b) = (triangles[t][k], triangles[t][(k + 1) % 3]);
            if next.insert(a, b).is_some() {
                // Two border edges leave one particle: the border is not one simple loop.
                return false;
            }
        }
    }
    let Some(&start) = next.keys().min() else {
        return false;
    };
    // Walk the loop: it must take in every border edge, turn left or go straight on at every
    // corner, and enclose the triangles' area (more means layers over each other).
    let (mut at, mut steps, mut enclosed) = (start, 0usize, 0.0);
    loop {
        let (Some(&b), Some(&c)) = (next.get(&at), next.get(&at).and_then(|b| next.get(b))) else {
            return false;
        };
        let (e1, e2) = (
            x[b as usize] - x[at as usize],
            x[c as usize] - x[b as usize],
        );
        let turn = e1.cross(e2).dot(normal);
        let straight = turn.abs() <= 1e-9 * e1.length() * e2.length();
        if (straight && e1.dot(e2) <= 0.0) || (!straight && turn < 0.0) {
            return false;
        }
        enclosed += 0.5
            * (x[at as usize] - origin)
                .cross(x[b as usize] - origin)
                .dot(normal);
        at = b;
        steps += 1;
        if at == start || steps > next.len() {
            break;
        }
    }
    at == start && steps == next.len() && (enclosed - area).abs() <= 1e-6 * area
}
