//! Polygons into triangles: ear clipping on the polygon projected to its best-fit plane.
//!
//! A fan from one corner would put every triangle of an n-gon on that corner, so all of the
//! polygon's constraints would meet there and the coloring would need about n colors (a
//! 2000-sided cap: 1999 colors). Here ears are clipped alternately at the two ends of a strip
//! that grows from corner 1: on a convex polygon every corner keeps at most four edges, and a
//! quad is split on its 0-2 diagonal, as a fan would split it. A concave polygon gets, at each
//! step, the first ear found from there on. A polygon that is not simple (it crosses itself,
//! or has no area seen along its normal) is still split into n − 2 triangles, its shape
//! disregarded where no ear exists, and reported.

use glam::{DVec2, DVec3, Vec3};

/// Ear tests (point-in-triangle checks) one polygon may spend before the rest of it is split
/// as a strip without looking at its shape: a hostile 100 000-corner spiral would otherwise
/// take hours. About a second of work in a release build; a concave polygon of a few thousand
/// corners needs less.
const MAX_CHECKS: u64 = 100_000_000;

/// Turns (the sine of the angle between two edges) at or below this count as straight, and
/// points within this distance (a fraction of the polygon's size) of a line count as on it:
/// a straight corner is never clipped as an ear, nor an ear with another corner on its edge.
/// Far below any real corner (a 100 000-gon turns by 6e-5), far above f64 rounding.
const EPS: f64 = 1.0e-12;

/// Scratch space for splitting polygons, reused from one polygon to the next.
pub(crate) struct Triangulator {
    /// Ear tests one polygon may spend ([`MAX_CHECKS`]).
    max_checks: u64,
    p: Vec<DVec2>,
    prev: Vec<u32>,
    next: Vec<u32>,
    alive: Vec<bool>,
    reflex: Vec<bool>,
    /// Corners that were reflex when last looked at (some may have been clipped or become
    /// convex since): the only ones that can lie inside an ear.
    reflex_list: Vec<u32>,
}

impl Default for Triangulator {
    fn default() -> Self {
        Self {
            max_checks: MAX_CHECKS,
            p: Vec::new(),
            prev: Vec::new(),
            next: Vec::new(),
            alive: Vec::new(),
            reflex: Vec::new(),
            reflex_list: Vec::new(),
        }
    }
}

impl Triangulator {
    /// Splits the polygon whose corners are `points`, in order (at least 3), into
    /// `points.len() - 2` triangles of corner numbers (0-based, wound as the polygon is),
    /// appended to `triangles`, and appends the diagonals it draws (edges that are not sides)
    /// to `diagonals`. Returns false when the polygon is not simple and was split without
    /// regard to its shape somewhere (its triangles may overlap).
    pub fn split(
        &mut self,
        points: &[Vec3],
        triangles: &mut Vec<[u32; 3]>,
        diagonals: &mut Vec<[u32; 2]>,
    ) -> bool {
        let n = points.len();
        debug_assert!(n >= 3);
        if n == 3 {
            triangles.push([0, 1, 2]);
            return true;
        }
        let simple = self.project(points);
        self.prev.clear();
        self.next.clear();
        self.prev.extend((0..n).map(|i| ((i + n - 1) % n) as u32));
        self.next.extend((0..n).map(|i| ((i + 1) % n) as u32));
        self.alive.clear();
        self.alive.resize(n, true);
        self.reflex.clear();
        self.reflex_list.clear();
        for i in 0..n {
            let r = simple && self.orient(i as u32) <= EPS;
            self.reflex.push(r);
            if r {
                self.reflex_list.push(i as u32);
            }
        }
        // Without a plane to work in, every corner counts as an ear: a strip in corner order.
        let mut regular = simple;
        let mut shaped = simple;
        let mut checks = 0u64;
        let mut remaining = n;
        let mut v = 1u32;
        let mut take_prev = true;
        let mut misses = 0;
        while remaining > 3 {
            let ear = !shaped || self.is_ear(v, &mut checks);
            if shaped && checks > self.max_checks {
                shaped = false;
                regular = false;
            }
            if !ear {
                misses += 1;
                if misses < remaining {
                    v = self.next[v as usize];
                    continue;
                }
                // No ear anywhere: the polygon is not simple. Clip its most convex corner.
                regular = false;
                v = self.most_convex(v, &mut checks);
            }
            let (a, c) = (self.prev[v as usize], self.next[v as usize]);
            triangles.push([a, v, c]);
            diagonals.push([a, c]);
            self.alive[v as usize] = false;
            self.next[a as usize] = c;
            self.prev[c as usize] = a;
            remaining -= 1;
            misses = 0;
            if shaped {
                for u in [a, c] {
                    let r = self.orient(u) <= EPS;
                    if r && !self.reflex[u as usize] {
                        self.reflex_list.push(u);
                    }
                    self.reflex[u as usize] = r;
                }
                let (alive, reflex) = (&self.alive, &self.reflex);
                self.reflex_list
                    .retain(|&r| alive[r as usize] && reflex[r as usize]);
            }
            // Alternate between the strip's two ends.
            v = if take_prev { a } else { c };
            take_prev = !take_prev;
        }
        // The last three, from the lowest corner number (a quad ends as a fan's (0, 2, 3)).
        let (b, c) = (
            self.next[v as usize],
            self.next[self.next[v as usize] as usize],
        );
        let mut last = [v, b, c];
        let lowest = (0..3).min_by_key(|&k| last[k]).unwrap_or(0);
        last.rotate_left(lowest);
        triangles.push(last);
        regular
    }

    /// Projects `points` onto their best-fit plane (Newell's normal, which follows the
    /// winding, so the projection is counter-clockwise), scaled to unit size. False when the
    /// polygon has (almost) no area along any normal.
    fn project(&mut self, points: &[Vec3]) -> bool {
        let n = points.len();
        let centre = points.iter().map(|p| p.as_dvec3()).sum::<DVec3>() / n as f64;
        let local = |k: usize| points[k % n].as_dvec3() - centre;
        let mut normal = DVec3::ZERO;
        let mut size = 0.0f64;
        for k in 0..n {
            normal += local(k).cross(local(k + 1));
            size = size.max(local(k).length());
        }
        self.p.clear();
        if size <= 0.0 || normal.length() <= 1.0e-9 * size * size {
            return false;
        }
        let w = normal.normalize();
        let u = w.any_orthonormal_vector();
        let v = w.cross(u);
        self.p
            .extend((0..n).map(|k| DVec2::new(local(k).dot(u), local(k).dot(v)) / size));
        true
    }

    /// How much the polygon turns at a corner (the sine of the turn): positive where it turns
    /// left (convex).
    fn orient(&self, v: u32) -> f64 {
        let (a, c) = (self.prev[v as usize], self.next[v as usize]);
        turn(self.p[a as usize], self.p[v as usize], self.p[c as usize])
    }

    /// Whether corner `v` is an ear: convex, and no other corner inside or on the triangle it
    /// makes with its neighbours (corners at the same place as one of the three, where a
    /// polygon with a hole is joined to it by a bridge, do not count).
    fn is_ear(&self, v: u32, checks: &mut u64) -> bool {
        if self.orient(v) <= EPS {
            return false;
        }
        let (a, c) = (self.prev[v as usize], self.next[v as usize]);
        let [pa, pv, pc] = [a, v, c].map(|k| self.p[k as usize]);
        // Each side as a point and a unit normal pointing out of the triangle: a point is
        // inside or on it when no side has it more than EPS (of the polygon's size) outside.
        let sides = [(pa, pv), (pv, pc), (pc, pa)]
            .map(|(from, to)| (from, (to - from).perp().normalize_or_zero()));
        *checks += 1 + self.reflex_list.len() as u64;
        !self.reflex_list.iter().any(|&r| {
            let q = self.p[r as usize];
            r != a
                && r != c
                && self.alive[r as usize]
                && q != pa
                && q != pv
                && q != pc
                && sides
                    .iter()
                    .all(|&(from, inward)| (q - from).dot(inward) >= -EPS)
        })
    }

    /// The live corner turning most to the left, starting the search at `from` (which wins
    /// ties).
    fn most_convex(&self, from: u32, checks: &mut u64) -> u32 {
        let mut best = (from, self.orient(from));
        let mut k = self.next[from as usize];
        while k != from {
            *checks += 1;
            let o = self.orient(k);
            if o > best.1 {
                best = (k, o);
            }
            k = self.next[k as usize];
        }
        best.0
    }
}

/// The sine of the turn from a→b to a→c: positive when c is left of the line a→b. Zero when
/// two of the points coincide.
fn turn(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    let lengths = (b - a).length() * (c - a).length();
    if lengths > 0.0 {
        (b - a).perp_dot(c - a) / lengths
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(points: &[Vec3]) -> (Vec<[u32; 3]>, Vec<[u32; 2]>, bool) {
        let (mut t, mut d) = (Vec::new(), Vec::new());
        let simple = Triangulator::default().split(points, &mut t, &mut d);
        (t, d, simple)
    }

    /// Signed area in the x-y plane.
    fn area(points: &[Vec3], t: [u32; 3]) -> f64 {
        let [a, b, c] = t.map(|k| points[k as usize].as_dvec3().truncate());
        0.5 * (b - a).perp_dot(c - a)
    }

    fn polygon_area(points: &[Vec3]) -> f64 {
        let n = points.len();
        (0..n)
            .map(|k| {
                let (a, b) = (points[k], points[(k + 1) % n]);
                0.5 * (a.x as f64 * b.y as f64 - b.x as f64 * a.y as f64)
            })
            .sum()
    }

    #[test]
    fn a_convex_quad_is_split_on_its_first_diagonal_as_a_fan_would() {
        let quad = [Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
        assert_eq!(
            split(&quad),
            (vec![[0, 1, 2], [0, 2, 3]], vec![[0, 2]], true)
        );
    }

    #[test]
    fn a_quad_concave_at_corner_1_is_split_on_the_other_diagonal() {
        // An arrowhead: corner 1 points inwards, so 0-2 would run outside the quad.
        let quad = [
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(0.5, 0.5, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
            Vec3::ZERO,
        ];
        let (t, d, simple) = split(&quad);
        assert!(simple);
        assert_eq!(d, vec![[1, 3]]);
        for &tri in &t {
            assert!(area(&quad, tri) > 0.0, "{t:?}");
        }
    }

    #[test]
    fn a_comb_is_covered_once_with_every_triangle_inside() {
        // A comb with 6 teeth: 4 corners per tooth plus the base, deeply concave.
        let mut p = vec![Vec3::new(6.0, -1.0, 0.0), Vec3::new(6.0, 0.0, 0.0)];
        for k in (0..6).rev() {
            let x = k as f32;
            p.extend([
                Vec3::new(x + 0.8, 0.0, 0.0),
                Vec3::new(x + 0.8, 3.0, 0.0),
                Vec3::new(x + 0.2, 3.0, 0.0),
                Vec3::new(x + 0.2, 0.0, 0.0),
            ]);
        }
        p.push(Vec3::new(0.0, -1.0, 0.0));
        let (t, d, simple) = split(&p);
        assert!(simple);
        assert_eq!((t.len(), d.len()), (p.len() - 2, p.len() - 3));
        let total: f64 = t.iter().map(|&tri| area(&p, tri)).sum();
        assert!(t.iter().all(|&tri| area(&p, tri) > 0.0));
        assert!((total - polygon_area(&p)).abs() < 1e-4, "{total}");
    }

    #[test]
    fn a_tilted_non_planar_polygon_is_split_in_its_best_fit_plane() {
        // A hexagon in a plane tilted about x, its corners lifted alternately by 1 mm.
        let p: Vec<Vec3> = (0..6)
            .map(|k| {
                let a = std::f32::consts::TAU * k as f32 / 6.0;
                let lift = if k % 2 == 0 { 0.001 } else { -0.001 };
                Vec3::new(a.cos(), a.sin() * 0.6, a.sin() * 0.8 + lift)
            })
            .collect();
        let (t, _, simple) = split(&p);
        assert!(simple);
        assert_eq!(t.len(), 4);
        // Every triangle faces the way the polygon winds.
        let normal = Vec3::new(0.0, -0.8, 0.6);
        for tri in t {
            let [a, b, c] = tri.map(|k| p[k as usize]);
            assert!((b - a).cross(c - a).dot(normal) > 0.0);
        }
    }

    fn circle(n: usize) -> Vec<Vec3> {
        (0..n)
            .map(|k| {
                let a = std::f64::consts::TAU * k as f64 / n as f64;
                Vec3::new(a.cos() as f32, a.sin() as f32, 0.0)
            })
            .collect()
    }

    #[test]
    fn a_4000_gon_is_split_as_a_strip_with_no_corner_in_more_than_three_triangles() {
        let p = circle(4000);
        let (t, _, simple) = split(&p);
        assert!(simple);
        assert_eq!(t.len(), p.len() - 2);
        assert!(t.iter().all(|&tri| area(&p, tri) > 0.0));
        let mut uses = vec![0; p.len()];
        for &k in t.iter().flatten() {
            uses[k as usize] += 1;
        }
        assert!(uses.iter().all(|&u| u <= 3), "{:?}", uses.iter().max());
    }

    #[test]
    fn a_100000_gon_with_f32_rounding_for_curvature_is_split_within_the_work_cap() {
        // Its corners turn by 6e-5 rad, less than f32 rounding moves them: about half of them
        // turn the wrong way, and checking each ear against all of those is quadratic. Past
        // the cap (here a small one, to run fast in a debug build) the rest is a strip, and the
        // polygon is reported, still as n − 2 triangles.
        let p = circle(100_000);
        let mut splitter = Triangulator {
            max_checks: 1_000_000,
            ..Triangulator::default()
        };
        let (mut t, mut d) = (Vec::new(), Vec::new());
        let simple = splitter.split(&p, &mut t, &mut d);
        assert!(!simple);
        assert_eq!((t.len(), d.len()), (p.len() - 2, p.len() - 3));
        let mut uses = vec![0; p.len()];
        for &k in t.iter().flatten() {
            uses[k as usize] += 1;
        }
        assert!(uses.iter().all(|&u| u > 0), "a corner in no triangle");
    }

    #[test]
    fn a_polygon_with_no_area_or_crossing_itself_is_split_and_reported() {
        let line: Vec<Vec3> = (0..5).map(|k| Vec3::X * k as f32).collect();
        let (t, d, simple) = split(&line);
        assert!(!simple);
        assert_eq!((t.len(), d.len()), (3, 2));
        // A bow tie: 0-1 and 2-3 cross.
        let bow = [
            Vec3::ZERO,
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(-0.5, 0.5, 0.0),
        ];
        let (t, _, _) = split(&bow);
        assert_eq!(t.len(), 3);
        assert!(t.iter().flatten().all(|&k| k < 5));
    }
}
