//! Graph coloring of distance constraints.
//!
//! Two constraints conflict when they share a particle. A color is a set of constraints with no
//! conflicts, so one dispatch can solve a whole color in parallel without races. Colors run one
//! after another (Gauss-Seidel across colors). Coloring is greedy (lowest free color, tracked as
//! a per-particle bit set), then balanced: tiny colors are dissolved where their constraints fit
//! elsewhere, and oversized colors hand constraints to undersized ones, because every color costs
//! one dispatch per iteration whatever its size.
//!
//! The colors are bounded, whatever the mesh: a vertex where many triangles meet (a fan's hub, a
//! UV sphere's pole) would need as many colors as it has constraints, one dispatch each, and more
//! than a fused workgroup's table holds. So greedy coloring stops at [`MAX_DISTANCE_COLORS`]
//! (bending stencils at [`MAX_STENCIL_COLORS`]), and what does not fit goes into one *serial*
//! color after them (one per [`SERIAL_UNITS`]), which one thread solves record after record
//! (Gauss–Seidel within the color, so a hub converges as well as its colored neighbours do).
//! Meshes of ordinary valence (a grid takes 8 and 12, a Delaunay sheet about 9 and 18) never
//! reach the bound.

use std::ops::Range;

use crate::config::ColorRange;
use crate::constraint::Constraint;
use crate::error::{ChiffonError, Result};

/// Constraints sorted by color, with a coloring that has been checked: the only form in which
/// constraints reach a solver. Its invariant (every index below `particle_count`, no particle
/// twice within a color that is not serial) is what makes the parallel `solve_color` race-free
/// on both backends; a serial color is solved by one thread.
#[derive(Clone, Debug, PartialEq)]
pub struct ColoredConstraints {
    constraints: Vec<Constraint>,
    colors: Vec<Range<u32>>,
    /// Per color: solved by one thread, record after record (its records may share particles).
    serial: Vec<bool>,
    particle_count: usize,
}

/// The most colors of distance constraints one coloring makes before the rest go into one
/// serial color (solved by one thread): a bound on the dispatches (or a fused workgroup's
/// barriers) per sweep, whatever a mesh's valence.
pub const MAX_DISTANCE_COLORS: usize = 24;

/// As [`MAX_DISTANCE_COLORS`], for bending stencils (four particles each, so more conflicts).
pub const MAX_STENCIL_COLORS: usize = 32;

/// The most units (constraints, or bending stencils) of one serial color: a larger overflow
/// takes several, one after another. One thread walks a serial color, and llvmpipe (lavapipe)
/// ends an invocation's loops after 65 535 iterations in all, silently: a serial color within
/// this bound runs whole there, as it does on a GPU.
pub const SERIAL_UNITS: u32 = 16384;

// The greedy colorings keep a particle's colors in one 64-bit word.
const _: () = assert!(MAX_DISTANCE_COLORS <= 64 && MAX_STENCIL_COLORS <= 64);

impl ColoredConstraints {
    /// Colors `constraints` (in any order) over `particle_count` particles, balances the colors
    /// and sorts by color. Returns them with `order`: `order[k]` is the input index of the
    /// constraint stored at `k`.
    pub fn new(constraints: &[Constraint], particle_count: usize) -> Result<(Self, Vec<u32>)> {
        let (pairs, moves_one) = record_pairs(constraints);
        // The greedy coloring indexes per-particle masks: check indices before it runs.
        for (k, &[i, j]) in pairs.iter().enumerate() {
            if i as usize >= particle_count || j as usize >= particle_count || i == j {
                return Err(ChiffonError::InvalidCloth(format!(
                    "constraint {k} joins particles {i} and {j}, but there are {particle_count} \
                     particles and its two ends must differ"
                )));
            }
        }
        // Distance constraints and bending stencils are colored apart (a color holds one or
        // the other; the kernels read its first record to know which), stencils last.
        let distances: Vec<u32> = (0..constraints.len() as u32)
            .filter(|&k| constraints[k as usize].is_distance())
            .collect();
        let heads: Vec<u32> = (0..constraints.len() as u32)
            .filter(|&k| {
                constraints[k as usize].is_stencil() && !constraints[k as usize].is_stencil_tail()
            })
            .collect();
        let paired = heads.iter().all(|&k| {
            constraints
                .get(k as usize + 1)
                .is_some_and(Constraint::is_stencil_tail)
        });
        if !paired || distances.len() + 2 * heads.len() != constraints.len() {
            return Err(ChiffonError::InvalidCloth(
                "a bending stencil's records must come in pairs, head then tail".into(),
            ));
        }
        let distance_pairs: Vec<[u32; 2]> = distances.iter().map(|&k| pairs[k as usize]).collect();
        let mut coloring = color_constraints(&distance_pairs, particle_count);
        for k in &mut coloring.order {
            *k = distances[*k as usize];
        }
        // Membrane triangles, then bending stencils: two-record groups alike, colored apart
        // so that a color's threads take one branch of the kernel.
        let (triangles, bends): (Vec<u32>, Vec<u32>) = heads
            .iter()
            .partition(|&&k| constraints[k as usize].is_triangle());
        for group in [triangles, bends] {
            let quads: Vec<[u32; 4]> = group
                .iter()
                .map(|&k| group_particles(&constraints[k as usize], &constraints[k as usize + 1]))
                .collect();
            for (q, &k) in quads.iter().zip(&group) {
                if !distinct(constraints[k as usize].is_triangle(), q) {
                    return Err(ChiffonError::InvalidCloth(format!(
                        "the bending stencil or membrane triangle at constraint {k} names a \
                         particle twice: {q:?}"
                    )));
                }
            }
            let stencils = color_stencils(&quads, particle_count);
            let base = coloring.order.len() as u32;
            for r in &stencils.ranges {
                coloring.ranges.push(base + 2 * r.start..base + 2 * r.end);
            }
            coloring.serial.extend(&stencils.serial);
            for &s in &stencils.order {
                let head = group[s as usize];
                coloring.order.extend([head, head + 1]);
            }
        }
        coloring.validate_moving(&pairs, &moves_one, particle_count)?;
        validate_stencils(constraints, &coloring)?;
        let sorted = coloring
            .order
            .iter()
            .map(|&k| constraints[k as usize])
            .collect();
        Ok((
            Self {
                constraints: sorted,
                colors: coloring.ranges,
                serial: coloring.serial,
                particle_count,
            },
            coloring.order,
        ))
    }

    /// Takes constraints already sorted by color, with one range per color and which colors
    /// are serial, after checking the coloring ([`Coloring::validate`]).
    pub fn from_sorted(
        constraints: Vec<Constraint>,
        colors: Vec<Range<u32>>,
        serial: Vec<bool>,
        particle_count: usize,
    ) -> Result<Self> {
        let (pairs, moves_one) = record_pairs(&constraints);
        let coloring = Coloring {
            order: (0..pairs.len() as u32).collect(),
            ranges: colors.clone(),
            serial: serial.clone(),
        };
        coloring.validate_moving(&pairs, &moves_one, particle_count)?;
        validate_stencils(&constraints, &coloring)?;
        Ok(Self {
            constraints,
            colors,
            serial,
            particle_count,
        })
    }

    /// Every rest length times `scale` (a cloth scaled uniformly; the coloring is unchanged).
    /// A bending stencil's weights, scaled by √(3 / area), and a membrane triangle's inverse
    /// rest matrix go as 1 / `scale`.
    pub(crate) fn scale_rest(&mut self, scale: f32) {
        let mut k = 0;
        while k < self.constraints.len() {
            if self.constraints[k].is_triangle() {
                let (head, tail) = (self.constraints[k], self.constraints[k + 1]);
                let (_, m, _) = Constraint::triangle_parts(&head, &tail);
                let [_, t] = Constraint::triangle([0, 1, 2], m.map(|m| m / scale), 0.0);
                self.constraints[k].rest = m[0] / scale;
                self.constraints[k + 1] = Constraint {
                    i: tail.i,
                    j: tail.j,
                    ..t
                };
                k += 2;
            } else if self.constraints[k].is_stencil() {
                let (head, tail) = (self.constraints[k], self.constraints[k + 1]);
                let (p, w) = Constraint::stencil_parts(&head, &tail);
                let [h, t] = Constraint::stencil(p, [w[0], w[1], w[2]].map(|w| w / scale));
                self.constraints[k] = Constraint {
                    packed: head.packed,
                    ..h
                };
                self.constraints[k + 1] = t;
                k += 2;
            } else {
                self.constraints[k].rest *= scale;
                k += 1;
            }
        }
    }

    /// True when color `c` holds bending stencils (a cloth's stencil colors are its last).
    pub fn is_stencil_color(&self, c: usize) -> bool {
        self.constraints[self.colors[c].start as usize].is_stencil()
    }

    /// How many of the first `colors` colors the strain limit after contact sweeps: up to
    /// the last that holds a structural edge ([`Constraint::is_structural`]; 0 when none
    /// does), so it skips the stencil colors after them.
    pub fn limit_colors_below(&self, colors: usize) -> usize {
        (0..colors.min(self.colors.len()))
            .rev()
            .find(|&c| {
                let r = &self.colors[c];
                self.constraints[r.start as usize..r.end as usize]
                    .iter()
                    .any(Constraint::is_structural)
            })
            .map_or(0, |c| c + 1)
    }

    /// The constraints, sorted by color.
    pub fn constraints(&self) -> &[Constraint] {
        &self.constraints
    }

    /// One range of [`Self::constraints`] per color, in solve order.
    pub fn colors(&self) -> &[Range<u32>] {
        &self.colors
    }

    /// True when color `c` is serial: one thread solves its records one after another, as
    /// they may share particles (the overflow of a vertex of high valence).
    pub fn is_serial_color(&self, c: usize) -> bool {
        self.serial[c]
    }

    /// Per color, whether it is serial ([`Self::is_serial_color`]).
    pub fn serial_colors(&self) -> &[bool] {
        &self.serial
    }

    /// Color `c`'s uniform (a later sweep's): its range, and whether it is serial.
    pub fn color_range(&self, c: usize) -> ColorRange {
        ColorRange::new(&self.colors[c]).serial(self.serial[c])
    }

    /// Every color's uniform, in solve order ([`Self::color_range`]).
    pub fn color_ranges(&self) -> Vec<ColorRange> {
        (0..self.colors.len())
            .map(|c| self.color_range(c))
            .collect()
    }

    /// Units of color `c`: its constraints, a bending stencil (two records) counting once.
    pub fn color_units(&self, c: usize) -> u32 {
        let n = self.colors[c].end - self.colors[c].start;
        if self.is_stencil_color(c) { n / 2 } else { n }
    }

    /// Threads one dispatch of color `c` takes: one a unit ([`Self::color_units`]), one for a
    /// serial color.
    pub fn color_threads(&self, c: usize) -> u32 {
        if self.serial[c] {
            1
        } else {
            self.color_units(c)
        }
    }

    /// Constraints per color, in solve order.
    pub fn color_sizes(&self) -> Vec<u32> {
        self.colors.iter().map(|r| r.end - r.start).collect()
    }

    /// The particle count the indices were checked against.
    pub fn particle_count(&self) -> usize {
        self.particle_count
    }

    /// The constraints of `range` when it is exactly one of the colors, serial as that color
    /// is, else `None` (so a serial color's records, which may share particles, are never
    /// solved in parallel).
    pub fn color(&self, range: &ColorRange) -> Option<&[Constraint]> {
        let r = range.start..range.start + range.count;
        self.colors
            .binary_search_by_key(&r.start, |c| c.start)
            .ok()
            .filter(|&c| self.colors[c] == r && self.serial[c] == range.is_serial())
            .map(|_| &self.constraints[range.range()])
    }
}

/// A coloring of a constraint list: a permutation that sorts constraints by color, and the
/// contiguous range each color occupies in that sorted order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coloring {
    /// `order[k]` is the index, in the input list, of the constraint stored at position `k`.
    pub order: Vec<u32>,
    /// One range of sorted positions per color, in solve order; together they cover `0..len`.
    pub ranges: Vec<Range<u32>>,
    /// Per color: serial (one thread solves it, so its constraints may share particles).
    pub serial: Vec<bool>,
}

impl Coloring {
    /// Constraints per color, in solve order.
    pub fn sizes(&self) -> Vec<u32> {
        self.ranges.iter().map(|r| r.end - r.start).collect()
    }

    /// Checks that the coloring is valid for `pairs` (the input list it was made from): every
    /// constraint appears in exactly one color, colors are contiguous and non-empty, and no
    /// particle appears twice within one color that is not serial.
    pub fn validate(&self, pairs: &[[u32; 2]], particle_count: usize) -> Result<()> {
        self.validate_moving(pairs, &[], particle_count)
    }

    /// [`Self::validate`], where `moves_one[k]` says that record `k` moves only its first
    /// particle (a membrane triangle's tail: its second index repeats its head's first
    /// particle, which the head moves); a shorter list means false for the rest.
    fn validate_moving(
        &self,
        pairs: &[[u32; 2]],
        moves_one: &[bool],
        particle_count: usize,
    ) -> Result<()> {
        let fail = |msg: String| Err(ChiffonError::InvalidColoring(msg));
        let m = pairs.len();
        if self.order.len() != m {
            return fail(format!(
                "{} constraints stored, {} expected",
                self.order.len(),
                m
            ));
        }
        let mut seen = vec![false; m];
        for &k in &self.order {
            match seen.get_mut(k as usize) {
                None => return fail(format!("constraint index {k} is out of range")),
                Some(true) => return fail(format!("constraint {k} appears twice")),
                Some(s) => *s = true,
            }
        }
        let mut expected_start = 0u32;
        for (c, r) in self.ranges.iter().enumerate() {
            if r.start != expected_start || r.end <= r.start {
                return fail(format!(
                    "color {c} covers {r:?}; colors must be contiguous and non-empty"
                ));
            }
            expected_start = r.end;
        }
        if expected_start as usize != m {
            return fail(format!("colors cover {expected_start} of {m} constraints"));
        }
        if self.serial.len() != self.ranges.len() {
            return fail(format!(
                "{} serial flags for {} colors",
                self.serial.len(),
                self.ranges.len()
            ));
        }
        // stamp[p] = 1 + the last color that used particle p.
        let mut stamp = vec![0u32; particle_count];
        for (c, r) in self.ranges.iter().enumerate() {
            for pos in r.clone() {
                let k = self.order[pos as usize] as usize;
                let [i, j] = pairs[k];
                if i == j {
                    return fail(format!("constraint {k} joins particle {i} to itself"));
                }
                let moved = if moves_one.get(k).copied().unwrap_or(false) {
                    &[i][..]
                } else {
                    &[i, j][..]
                };
                for &p in moved {
                    let Some(s) = stamp.get_mut(p as usize) else {
                        return fail(format!(
                            "constraint {k} names particle {p} of {particle_count}"
                        ));
                    };
                    if *s == c as u32 + 1 && !self.serial[c] {
                        return fail(format!("particle {p} appears twice in color {c}"));
                    }
                    *s = c as u32 + 1;
                }
            }
        }
        Ok(())
    }
}

/// Each record's two indices, and whether it moves only the first: a membrane triangle's
/// tail, whose second index repeats its head's first particle (which the head moves).
fn record_pairs(constraints: &[Constraint]) -> (Vec<[u32; 2]>, Vec<bool>) {
    let pairs = constraints.iter().map(|c| [c.i, c.j]).collect();
    let moves_one = (constraints.iter())
        .map(|c| c.is_triangle() && c.is_stencil_tail())
        .collect();
    (pairs, moves_one)
}

/// Checks what the kernels assume of bending stencils: a color holds stencils only or none,
/// each a head and then its tail.
fn validate_stencils(constraints: &[Constraint], coloring: &Coloring) -> Result<()> {
    for (c, r) in coloring.ranges.iter().enumerate() {
        let records: Vec<&Constraint> = r
            .clone()
            .map(|pos| &constraints[coloring.order[pos as usize] as usize])
            .collect();
        let stencil = records[0].is_stencil();
        // A stencil's four particles differ, a triangle's three (in a serial color too, where
        // the per-color check allows a particle twice).
        let whole = |p: &[&Constraint]| {
            let triangle = p[0].is_triangle();
            p[1].is_triangle() == triangle && distinct(triangle, &group_particles(p[0], p[1]))
        };
        let ok = if stencil {
            records.len().is_multiple_of(2)
                && records.chunks_exact(2).all(|p| {
                    !p[0].is_stencil_tail()
                        && p[0].is_stencil()
                        && p[1].is_stencil_tail()
                        && whole(p)
                })
        } else {
            records.iter().all(|x| x.is_distance())
        };
        if !ok {
            return Err(ChiffonError::InvalidColoring(format!(
                "color {c} mixes bending stencils with distance constraints, splits a stencil or \
                 has a stencil that names a particle twice"
            )));
        }
    }
    Ok(())
}

/// The particles of a two-record group (its head and tail): a bending stencil's four, or a
/// membrane triangle's three with the third twice.
fn group_particles(head: &Constraint, tail: &Constraint) -> [u32; 4] {
    if head.is_triangle() {
        [head.i, head.j, tail.i, tail.i]
    } else {
        [head.i, head.j, tail.i, tail.j]
    }
}

/// True when a group's particles (`group_particles`) differ: all four of a stencil's, the
/// first three of a triangle's.
fn distinct(triangle: bool, q: &[u32; 4]) -> bool {
    let n = if triangle { 3 } else { 4 };
    (1..n).all(|a| !q[..a].contains(&q[a]))
}

/// Colors bending stencils (four particles each), greedily: no particle twice in a color, at
/// most [`MAX_STENCIL_COLORS`] colors, the stencils that fit none of them in serial colors
/// after them.
fn color_stencils(quads: &[[u32; 4]], particle_count: usize) -> Coloring {
    let cap = MAX_STENCIL_COLORS;
    let mut masks = ColorMasks::new(particle_count);
    let mut color = Vec::with_capacity(quads.len());
    let mut counts: Vec<u32> = Vec::new();
    let mut overflow = 0;
    for q in quads {
        let [a, b, c, d] = *q;
        let used = masks.row(a) | masks.row(b) | masks.row(c) | masks.row(d);
        let k = (!used).trailing_zeros();
        if k as usize >= cap {
            color.push(cap as u32);
            overflow += 1;
            continue;
        }
        masks.set([a, b], k, true);
        masks.set([c, d], k, true);
        if k as usize >= counts.len() {
            counts.resize(k as usize + 1, 0);
        }
        counts[k as usize] += 1;
        color.push(k);
    }
    // Level, as for distances: every color is one dispatch whatever its size, so move
    // stencils out of colors above the mean into ones below it where all four are free.
    let target = (quads.len() as u32 - overflow).div_ceil(counts.len().max(1) as u32);
    for (k, q) in quads.iter().enumerate() {
        let from = color[k];
        if from as usize >= cap || counts[from as usize] <= target {
            continue;
        }
        let [a, b, c, d] = *q;
        let free =
            |masks: &ColorMasks, to: u32| masks.is_free([a, b], to) && masks.is_free([c, d], to);
        if let Some(to) =
            (0..counts.len() as u32).find(|&to| counts[to as usize] < target && free(&masks, to))
        {
            masks.set([a, b], from, false);
            masks.set([c, d], from, false);
            masks.set([a, b], to, true);
            masks.set([c, d], to, true);
            counts[from as usize] -= 1;
            counts[to as usize] += 1;
            color[k] = to;
        }
    }
    with_serial(color, counts, cap, overflow)
}

/// Sorts by color, the `overflow` constraints of color `cap` (those greedy coloring found no
/// free color for) last, as serial colors of at most [`SERIAL_UNITS`] each.
fn with_serial(color: Vec<u32>, mut counts: Vec<u32>, cap: usize, overflow: u32) -> Coloring {
    if overflow > 0 {
        counts.resize(cap + 1, 0);
        counts[cap] = overflow;
    }
    let mut coloring = sort_by_color(&color, &counts);
    coloring.serial = vec![false; coloring.ranges.len()];
    if overflow > 0 {
        let last = coloring.ranges.pop().expect("the overflow's range");
        coloring.serial.pop();
        for start in (last.start..last.end).step_by(SERIAL_UNITS as usize) {
            coloring
                .ranges
                .push(start..(start + SERIAL_UNITS).min(last.end));
            coloring.serial.push(true);
        }
    }
    coloring
}

/// Per-particle bit sets of the colors already touching each particle: one word each, as a
/// coloring has at most 64 colors before its serial ones.
struct ColorMasks {
    bits: Vec<u64>,
}

impl ColorMasks {
    fn new(particle_count: usize) -> Self {
        Self {
            bits: vec![0; particle_count],
        }
    }
    fn row(&self, p: u32) -> u64 {
        self.bits[p as usize]
    }
    fn is_free(&self, [i, j]: [u32; 2], c: u32) -> bool {
        (self.row(i) | self.row(j)) & (1u64 << c) == 0
    }
    /// The lowest color below `cap` free at both particles, if any.
    fn lowest_free(&self, [i, j]: [u32; 2], cap: usize) -> Option<u32> {
        let c = (!(self.row(i) | self.row(j))).trailing_zeros();
        ((c as usize) < cap).then_some(c)
    }
    fn set(&mut self, [i, j]: [u32; 2], c: u32, on: bool) {
        for p in [i, j] {
            let slot = &mut self.bits[p as usize];
            if on {
                *slot |= 1u64 << c
            } else {
                *slot &= !(1u64 << c)
            }
        }
    }
}

/// Colors `pairs` (particle index pairs, each `< particle_count`) and returns the sorted order:
/// at most [`MAX_DISTANCE_COLORS`] colors, then the pairs that fit none of them as serial
/// colors.
///
/// Panics only on malformed input (an index out of range), which the cloth builder rules out.
pub fn color_constraints(pairs: &[[u32; 2]], particle_count: usize) -> Coloring {
    let cap = MAX_DISTANCE_COLORS;
    let mut masks = ColorMasks::new(particle_count);
    let mut color = Vec::with_capacity(pairs.len());
    let mut counts: Vec<u32> = Vec::new();
    let mut overflow = 0;
    for &pair in pairs {
        let Some(c) = masks.lowest_free(pair, cap) else {
            color.push(cap as u32);
            overflow += 1;
            continue;
        };
        masks.set(pair, c, true);
        if c as usize >= counts.len() {
            counts.resize(c as usize + 1, 0);
        }
        counts[c as usize] += 1;
        color.push(c);
    }

    balance(pairs, &mut masks, &mut color, &mut counts);
    with_serial(color, counts, cap, overflow)
}

/// Moves constraints between colors so that sizes even out and tiny colors disappear (the
/// serial color's overflow, the constraints whose color is `counts.len()` or more, stays where
/// it is).
fn balance(pairs: &[[u32; 2]], masks: &mut ColorMasks, color: &mut [u32], counts: &mut [u32]) {
    let m = counts.iter().sum::<u32>();
    let colors = counts.len() as u32;
    if colors < 2 {
        return;
    }
    let move_to =
        |k: usize, to: u32, masks: &mut ColorMasks, color: &mut [u32], counts: &mut [u32]| {
            let from = color[k];
            masks.set(pairs[k], from, false);
            masks.set(pairs[k], to, true);
            counts[from as usize] -= 1;
            counts[to as usize] += 1;
            color[k] = to;
        };

    // 1. Dissolve small colors (under a quarter of the mean) into any color that can take them.
    let mean = m.div_ceil(colors);
    for _ in 0..2 {
        for k in 0..pairs.len() {
            let from = color[k];
            if from >= colors || counts[from as usize] * 4 >= mean {
                continue;
            }
            let target = (0..colors)
                .filter(|&c| c != from && counts[c as usize] * 4 >= mean)
                .find(|&c| masks.is_free(pairs[k], c));
            if let Some(to) = target {
                move_to(k, to, masks, color, counts);
            }
        }
    }

    // 2. Level: move constraints out of colors above the target size into ones below it.
    let live = counts.iter().filter(|&&n| n > 0).count() as u32;
    let target = m.div_ceil(live.max(1));
    for k in 0..pairs.len() {
        let from = color[k];
        if from >= colors || counts[from as usize] <= target {
            continue;
        }
        let to = (0..colors).find(|&c| {
            counts[c as usize] > 0 && counts[c as usize] < target && masks.is_free(pairs[k], c)
        });
        if let Some(to) = to {
            move_to(k, to, masks, color, counts);
        }
    }
}

/// Sorts constraint indices by color (stable, so equal colors keep input order) and drops empty
/// colors.
fn sort_by_color(color: &[u32], counts: &[u32]) -> Coloring {
    // Counting sort: start offset of every color in the sorted order.
    let mut start = Vec::with_capacity(counts.len());
    let mut acc = 0u32;
    for &n in counts {
        start.push(acc);
        acc += n;
    }
    let mut cursor = start.clone();
    let mut order = vec![0u32; color.len()];
    for (k, &c) in color.iter().enumerate() {
        order[cursor[c as usize] as usize] = k as u32;
        cursor[c as usize] += 1;
    }
    let ranges = counts
        .iter()
        .zip(&start)
        .filter(|(n, _)| **n > 0)
        .map(|(&n, &s)| s..s + n)
        .collect();
    Coloring {
        order,
        ranges,
        serial: Vec::new(),
    }
}
