//! Long-range attachments ("tethers", Kim, Chentanez & Müller 2012; NvCloth's tether cooker).
//!
//! Every free particle is tied to its two (`TETHER_SLOTS`) nearest pinned particles by geodesic
//! distance through the constraint graph (shortest path, edge weight = rest length), refined
//! across the cloth's triangles: a path along edges overestimates the distance over the surface
//! (by up to 8 % on a grid, whose paths follow the grid's directions), and that overestimate is
//! slack the cloth can stretch into. So, as fast marching does, when two corners of a triangle
//! have their distances the third gets the distance from the unfolded virtual source too,
//! which is exact on a flat sheet and a true surface distance on a curved one. A tether
//! is unilateral: it only pulls a particle back when it is farther than `scale` × that distance
//! from its anchor, and moves the particle alone (the anchor is pinned), so one thread per
//! particle solves all of that particle's tethers and no coloring is needed. However fine the
//! cloth, tethers bound how far it can stretch away from its pins.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::cloth::Cloth;
use crate::config::{TETHER_SLOTS, TetherSlot};
use crate::geometry::graph::{Adjacency, Fans, flat_and_convex, unfold};

/// The tethers of a cloth for one set of anchors, two slots (`TETHER_SLOTS`) per particle.
#[derive(Clone, Debug, PartialEq)]
pub struct Tethers {
    slots: Vec<TetherSlot>,
    anchors: Vec<u32>,
}

impl Tethers {
    /// No tethers for `particle_count` particles.
    pub fn none(particle_count: usize) -> Self {
        Self {
            slots: vec![TetherSlot::EMPTY; particle_count * TETHER_SLOTS],
            anchors: Vec::new(),
        }
    }

    /// Tethers from every particle that is not an anchor to its nearest anchors (`pinned[i]`
    /// true), by a multi-source Dijkstra from all anchors at once that keeps the
    /// two (`TETHER_SLOTS`) nearest distinct anchors per particle. Particles the anchors cannot
    /// reach get no tether.
    pub fn build(cloth: &Cloth, pinned: &[bool]) -> Self {
        let n = cloth.particle_count();
        let graph = Adjacency::new(cloth);
        let fans = Fans::new(cloth);
        // Settled labels per particle: (anchor, distance), nearest first. Distances are summed
        // in f64 and rounded once at the end: a tether across a 1024² cloth adds up a thousand
        // steps, and summed in f32 the two tethers of a particle next to the line between two
        // pins fell short of its true distances by a thousandth of an edge, which is most of the
        // room their intersection leaves it (the second row of a 1024² cloth hung at two
        // thirds of an edge below the first, its vertical edges 30 % stretched).
        let mut labels = vec![Label::EMPTY; n * TETHER_SLOTS];
        let mut settled = vec![0u8; n];
        // Best tentative distance per (particle, anchor) is not stored: a push is skipped once a
        // particle has all its labels, or already has a label from that anchor.
        let has = |labels: &[Label], p: usize, a: u32, count: u8| {
            labels[p * TETHER_SLOTS..p * TETHER_SLOTS + count as usize]
                .iter()
                .any(|l| l.anchor == a)
        };
        let label = |labels: &[Label], p: usize, a: u32, count: u8| {
            labels[p * TETHER_SLOTS..p * TETHER_SLOTS + count as usize]
                .iter()
                .find(|l| l.anchor == a)
                .map(|l| l.distance)
        };
        // No path over the surface is shorter than the straight line. The unfolding can come
        // out shorter where its inputs are themselves slightly long (a source nearly in line
        // with an edge), and a tether shorter than the chord pulls the cloth taut.
        let x = |i: usize| cloth.positions()[i].as_dvec3();
        let chord = |i: usize, a: u32| x(i).distance(x(a as usize));
        let mut heap = BinaryHeap::new();
        let anchors: Vec<u32> = (0..n as u32).filter(|&i| pinned[i as usize]).collect();
        for &a in &anchors {
            heap.push(Reverse((0.0f64.to_bits(), a, a)));
        }
        // Non-negative f64s order like their bits, so the heap needs no float ordering.
        while let Some(Reverse((bits, p, a))) = heap.pop() {
            let (pu, d) = (p as usize, f64::from_bits(bits));
            let count = settled[pu];
            if count as usize == TETHER_SLOTS || has(&labels, pu, a, count) {
                continue;
            }
            labels[pu * TETHER_SLOTS + count as usize] = Label {
                anchor: a,
                distance: d,
            };
            settled[pu] = count + 1;
            let open = |labels: &[Label], q: usize| {
                (settled[q] as usize) < TETHER_SLOTS && !has(labels, q, a, settled[q])
            };
            for &(q, w) in graph.neighbours(pu) {
                if open(&labels, q as usize) {
                    let dq = (d + w as f64).max(chord(q as usize, a));
                    heap.push(Reverse((dq.to_bits(), q, a)));
                }
            }
            // Across each triangle of p whose second corner q already has its distance from a.
            for &[q, r] in fans.opposite(pu) {
                for (q, r) in [(q, r), (r, q)] {
                    let (qu, ru) = (q as usize, r as usize);
                    let Some(dq) = label(&labels, qu, a, settled[qu]) else {
                        continue;
                    };
                    if !open(&labels, ru) {
                        continue;
                    }
                    if let Some(dr) = unfold(x(pu), d, x(qu), dq, x(ru)) {
                        let dr = dr.max(chord(ru, a));
                        heap.push(Reverse((dr.to_bits(), r, a)));
                    }
                }
            }
        }
        // Anchors need no tethers of their own (they do not move).
        for &a in &anchors {
            labels[a as usize * TETHER_SLOTS..][..TETHER_SLOTS].fill(Label::EMPTY);
        }
        // On a flat cloth whose border is one convex loop every straight segment between two
        // particles lies on the cloth, so the distance over it is the chord, exactly. The
        // unfolding above comes out a few tens of micrometres long over obtuse triangles,
        // and next to the line between two pins that decides how far below it the cloth may
        // hang: the tethers' circle about that line has a radius² of about its rest radius²
        // plus half the error, so an irregular sheet's second row, 3.8 mm below the line at
        // rest, hung 5.7 mm below it, its edges to the first row stretched 1.5×.
        let flat = flat_and_convex(cloth);
        let slots = labels
            .iter()
            .enumerate()
            .map(|(k, l)| TetherSlot {
                anchor: l.anchor,
                rest: if flat && l.anchor != TetherSlot::NONE {
                    chord(k / TETHER_SLOTS, l.anchor) as f32
                } else {
                    l.distance as f32
                },
            })
            .collect();
        Self { slots, anchors }
    }

    /// Two slots (`TETHER_SLOTS`) per particle, in particle order.
    pub fn slots(&self) -> &[TetherSlot] {
        &self.slots
    }

    /// The anchors, ascending.
    pub fn anchors(&self) -> &[u32] {
        &self.anchors
    }

    /// True when no particle has a tether (no anchors, or nothing reachable from them).
    pub fn is_empty(&self) -> bool {
        self.slots.iter().all(|s| s.anchor == TetherSlot::NONE)
    }

    /// Particles the slots cover.
    pub fn particle_count(&self) -> usize {
        self.slots.len() / TETHER_SLOTS
    }

    /// The slots with every anchor moved up by `offset` (a cloth placed at particle `offset`
    /// of a world's buffers).
    pub(crate) fn shifted_slots(&self, offset: u32) -> Vec<TetherSlot> {
        self.slots
            .iter()
            .map(|s| match s.anchor {
                TetherSlot::NONE => *s,
                a => TetherSlot {
                    anchor: a + offset,
                    rest: s.rest,
                },
            })
            .collect()
    }

    /// Overwrites the slots of the particles from `offset` on with `slots` (already in this
    /// numbering: one cloth's tethers changed), and the anchors among those particles.
    pub(crate) fn write_slots(&mut self, offset: u32, slots: &[TetherSlot]) {
        let particles = offset..offset + (slots.len() / TETHER_SLOTS) as u32;
        self.slots[particles.start as usize * TETHER_SLOTS..][..slots.len()].copy_from_slice(slots);
        self.anchors.retain(|a| !particles.contains(a));
        self.anchors.extend(
            slots
                .iter()
                .map(|s| s.anchor)
                .filter(|&a| a != TetherSlot::NONE),
        );
        self.anchors.sort_unstable();
        self.anchors.dedup();
    }

    /// Several cloths' tethers in one particle numbering: `parts` are `(offset, tethers)` in
    /// ascending, non-overlapping particle order, each cloth's particles starting at `offset`,
    /// over `particle_count` particles in all (a world's buffers).
    pub fn concat<'a>(
        particle_count: usize,
        parts: impl IntoIterator<Item = (u32, &'a Tethers)>,
    ) -> Self {
        let mut all = Self::none(particle_count);
        for (offset, t) in parts {
            let start = offset as usize * TETHER_SLOTS;
            all.slots[start..start + t.slots.len()].copy_from_slice(&t.shifted_slots(offset));
            all.anchors.extend(t.anchors.iter().map(|a| a + offset));
        }
        all.anchors.sort_unstable();
        all
    }
}

/// A settled distance from an anchor while the tethers are built (f64; see [`Tethers::build`]).
#[derive(Clone, Copy)]
struct Label {
    anchor: u32,
    distance: f64,
}

impl Label {
    const EMPTY: Label = Label {
        anchor: TetherSlot::NONE,
        distance: 0.0,
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ClothBuilder, Pinning};

    #[test]
    fn grid_tethers_reach_the_nearest_pins_by_geodesic_distance() {
        let cloth = ClothBuilder::grid(5, 5)
            .spacing(1.0)
            .pinning(Pinning::Corners)
            .build()
            .unwrap();
        let t = tethers_to_pins(&cloth);
        assert_eq!(t.anchors(), &[0, 4]);
        // Particle 2 (top row, middle): 2 m from both corners along the row.
        let s = &t.slots()[2 * TETHER_SLOTS..][..TETHER_SLOTS];
        assert_eq!(s.iter().map(|s| s.rest).collect::<Vec<_>>(), [2.0, 2.0]);
        // Particle 24 (bottom right): 4 m down the column from corner 4, 4√2 m diagonally
        // from corner 0.
        let s = &t.slots()[24 * TETHER_SLOTS..][..TETHER_SLOTS];
        assert_eq!(s[0].anchor, 4);
        assert!((s[0].rest - 4.0).abs() < 1e-6, "{s:?}");
        assert_eq!(s[1].anchor, 0);
        assert!((s[1].rest - 4.0 * 2f32.sqrt()).abs() < 1e-5, "{s:?}");
        // Off the grid's directions, the distance over the flat sheet is the straight line,
        // not a path of edges: particle 23 (row 4, column 3) is √(9 + 16) = 5 m from corner 0,
        // where the best path of edges is 3√2 + 1 ≈ 5.24 m.
        let s = &t.slots()[23 * TETHER_SLOTS..][..TETHER_SLOTS];
        let from0 = s.iter().find(|s| s.anchor == 0).unwrap();
        assert!((from0.rest - 5.0).abs() < 1e-4, "{s:?}");
        // Anchors carry no tethers.
        assert!(
            t.slots()[..TETHER_SLOTS]
                .iter()
                .all(|s| s.anchor == TetherSlot::NONE)
        );
        assert!(Tethers::build(&cloth, &[false; 25]).is_empty());
    }

    /// A flat mesh on an `n`×`n` lattice of unit spacing whose points `keep` admits, its
    /// interior points moved by `jitter(c, r)`, each kept cell cut along its diagonal.
    fn lattice(
        n: u32,
        keep: impl Fn(u32, u32) -> bool,
        jitter: impl Fn(u32, u32) -> glam::Vec3,
    ) -> crate::TriangleMesh {
        let mut index = vec![u32::MAX; (n * n) as usize];
        let mut positions = Vec::new();
        for r in 0..n {
            for c in 0..n {
                if keep(c, r) {
                    index[(r * n + c) as usize] = positions.len() as u32;
                    positions.push(glam::Vec3::new(c as f32, 0.0, r as f32) + jitter(c, r));
                }
            }
        }
        let mut triangles = Vec::new();
        for r in 0..n - 1 {
            for c in 0..n - 1 {
                let [a, b, d, e] = [(c, r), (c + 1, r), (c, r + 1), (c + 1, r + 1)]
                    .map(|(c, r)| index[(r * n + c) as usize]);
                if [a, b, d, e].contains(&u32::MAX) {
                    continue;
                }
                triangles.push([a, d, b]);
                triangles.push([b, d, e]);
            }
        }
        crate::TriangleMesh::new("lattice", positions, triangles)
    }

    /// The tethers of `cloth` to its own pins.
    fn tethers_to_pins(cloth: &Cloth) -> Tethers {
        let pinned: Vec<bool> = (0..cloth.particle_count())
            .map(|i| cloth.is_pinned(i))
            .collect();
        Tethers::build(cloth, &pinned)
    }

    fn tethers_of(mesh: crate::TriangleMesh, pins: Vec<u32>) -> (Cloth, Tethers) {
        let cloth = ClothBuilder::mesh(mesh)
            .pinning(Pinning::List(pins))
            .build()
            .unwrap();
        let t = tethers_to_pins(&cloth);
        (cloth, t)
    }

    /// Regression: on an irregular flat sheet (a garment's triangulation, not a grid) the
    /// unfolding made tethers a few tens of micrometres longer than the straight line, and
    /// next to the line between two pins that let the row below it hang half as far again
    /// below the line as its rest shape puts it (`tests/shapes.rs` measures the edges). On a
    /// flat sheet with a convex border every tether is now the straight line, to f32 rounding.
    #[test]
    fn tethers_on_a_flat_convex_irregular_sheet_are_straight_lines() {
        let n = 12;
        // Interior points moved by up to 0.35 of a spacing, deterministically.
        let jitter = |c: u32, r: u32| {
            if c == 0 || r == 0 || c == n - 1 || r == n - 1 {
                return glam::Vec3::ZERO;
            }
            let s = ((c * 7 + r * 13) % 11) as f32 / 10.0 - 0.5;
            let t = ((c * 5 + r * 3) % 7) as f32 / 6.0 - 0.5;
            glam::Vec3::new(0.7 * s, 0.0, 0.7 * t)
        };
        let mesh = lattice(n, |_, _| true, jitter);
        let (cloth, t) = tethers_of(mesh, vec![0, n - 1]);
        assert!(flat_and_convex(&cloth));
        let x = cloth.positions();
        for (i, slots) in t.slots().chunks(TETHER_SLOTS).enumerate() {
            for s in slots.iter().filter(|s| s.anchor != TetherSlot::NONE) {
                let chord = x[i].as_dvec3().distance(x[s.anchor as usize].as_dvec3()) as f32;
                assert_eq!(s.rest, chord, "particle {i}, anchor {}", s.anchor);
            }
        }
    }

    /// Where the straight line leaves the cloth, a tether goes around: an L-shaped sheet's
    /// tether from the end of one arm to the end of the other bends at the inner corner.
    /// And a cloth that is not flat keeps its distances over the surface.
    #[test]
    fn tethers_go_around_a_concave_corner_and_over_a_curved_cloth() {
        // The L: a 5 × 5 lattice without the cells beyond (2, 2).
        let mesh = lattice(5, |c, r| c <= 2 || r <= 2, |_, _| glam::Vec3::ZERO);
        let at = |mesh: &crate::TriangleMesh, p: glam::Vec3| {
            mesh.positions.iter().position(|q| *q == p).unwrap() as u32
        };
        let pin = at(&mesh, glam::Vec3::new(4.0, 0.0, 1.0));
        let end = at(&mesh, glam::Vec3::new(1.0, 0.0, 4.0)) as usize;
        let (cloth, t) = tethers_of(mesh, vec![pin]);
        assert!(!flat_and_convex(&cloth));
        // Around the corner (2, 2): 2 √5 ≈ 4.47 m, where the straight line is 3 √2 ≈ 4.24 m.
        let rest = t.slots()[end * TETHER_SLOTS].rest;
        assert!((rest - 2.0 * 5f32.sqrt()).abs() < 1e-3, "{rest}");

        // A square with its middle lifted: not flat, so its tethers come from the surface.
        let lifted = lattice(
            5,
            |_, _| true,
            |c, r| glam::Vec3::new(0.0, if (c, r) == (2, 2) { 0.5 } else { 0.0 }, 0.0),
        );
        let (cloth, _) = tethers_of(lifted, vec![0]);
        assert!(!flat_and_convex(&cloth));
    }

    /// The straight-line rule only where it holds: a sheet folded flat onto itself (its
    /// folded half faces the other way, and the chord between the layers is no path over the
    /// cloth) and a sheet with a hole keep their distances over the surface.
    #[test]
    fn a_sheet_folded_flat_onto_itself_or_with_a_hole_is_not_taken_for_convex() {
        // A 2 × 1 strip folded along x = 1 back over its first half (to x = 0.2, so that no
        // corner lands on another and is welded to it).
        // Its second half reaches from x = 1 to `far` (x = 2 unfolded).
        let strip = |far: f32| {
            let p = |x: f32, z: f32| glam::Vec3::new(x, 0.0, z);
            let positions = vec![
                p(0.0, 0.0),
                p(1.0, 0.0),
                p(1.0, 1.0),
                p(0.0, 1.0),
                p(far, 0.0),
                p(far, 1.0),
            ];
            let triangles = vec![[0, 3, 1], [1, 3, 2], [1, 2, 4], [4, 2, 5]];
            tethers_of(
                crate::TriangleMesh::new("strip", positions, triangles),
                vec![0],
            )
            .0
        };
        assert!(!flat_and_convex(&strip(0.2)));
        // The same strip unfolded is a flat convex sheet.
        assert!(flat_and_convex(&strip(2.0)));
        // A 5 × 5 lattice without its middle cell's two triangles: two border loops.
        let holed = lattice(5, |_, _| true, |_, _| glam::Vec3::ZERO);
        let triangles = holed
            .triangles
            .iter()
            .copied()
            .filter(|t| *t != [12, 17, 13] && *t != [13, 17, 18])
            .collect();
        let holed = crate::TriangleMesh::new("holed", holed.positions, triangles);
        let (cloth, _) = tethers_of(holed, vec![0]);
        assert!(!flat_and_convex(&cloth));
    }

    #[test]
    fn tethers_beside_the_line_between_two_pins_are_not_short() {
        // Regression: summed in f32, and unfolded from sources nearly in line with an edge,
        // the tethers of a 1024-wide cloth's second row fell a thousandth of an edge short of
        // the straight line to the far pin. Between two pins their width apart that is most of
        // the room the two tethers leave a particle, and the second row hung at two thirds of
        // an edge below the first with its vertical edges 30 % stretched.
        let (w, h) = (1024u32, 3u32);
        let cloth = ClothBuilder::grid(w, h)
            .pinning(Pinning::Corners)
            .build()
            .unwrap();
        let t = tethers_to_pins(&cloth);
        let x = cloth.positions();
        let edge = 1.0 / (w - 1) as f64;
        let mut worst = 0.0f64;
        for (i, slots) in t.slots().chunks(TETHER_SLOTS).enumerate() {
            for s in slots.iter().filter(|s| s.anchor != TetherSlot::NONE) {
                let chord = x[i].as_dvec3().distance(x[s.anchor as usize].as_dvec3());
                worst = worst.max((chord - s.rest as f64).abs() / edge);
            }
        }
        // The flat sheet's distance is the chord; f32 rounding of a 1 m rest is 6e-5 edge.
        assert!(worst < 2e-4, "a tether is {worst} edges off its chord");
    }
}
