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
use crate::geometry::graph::{Adjacency, Fans, unfold};

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
        let slots = labels
            .iter()
            .map(|l| TetherSlot {
                anchor: l.anchor,
                rest: l.distance as f32,
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
        let pinned: Vec<bool> = (0..25).map(|i| cloth.is_pinned(i)).collect();
        let t = Tethers::build(&cloth, &pinned);
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
        let pinned: Vec<bool> = (0..cloth.particle_count())
            .map(|i| cloth.is_pinned(i))
            .collect();
        let t = Tethers::build(&cloth, &pinned);
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
