//! The coarse levels of a cloth: hierarchical position-based dynamics (Müller 2008, "Hierarchical
//! Position Based Dynamics"), built once on the host, solved every substep before the cloth's own
//! constraints.
//!
//! Colored Gauss–Seidel moves a correction a few particles per sweep, so a fine cloth under load
//! (1024² particles hanging from two corners) stretches by its whole weight before the sweeps
//! can carry the pins' pull across it. Each coarse level is a subset of the finer level's
//! particles joined by **limits**: unilateral, rigid distance constraints whose rest length is
//! the distance between the two over the cloth at rest, so a level resists stretching and lets
//! the cloth fold and shear. A grid's levels are subgrids (`grid_levels`: every
//! [`FIRST_STRIDE`](crate::hierarchy::FIRST_STRIDE)th column and row for the first, then every other one, always with the first
//! and the last so edges and corner pins are on every level); any other cloth, a mesh or a rope,
//! is coarsened as a graph (`graph_levels`).
//! A substep solves the levels coarsest first; after each, the particles that first appear one
//! level finer move bilinearly by their cell's displacement since the snapshot taken before the
//! coarsest level (**prolongation**), so the correction reaches every particle. Then the cloth's
//! own constraints fix what is left, which is local. The levels are the same particles as the
//! cloth (no extra state), and the limits are ordinary constraints of kind [`LIMIT_KIND`](crate::constraint::LIMIT_KIND) solved
//! by `solve_color`.
//!
//! ```text
//! per substep:  integrate → snapshot → level L: solve colors, prolong to level L−1
//!                                    → …  → level 1: solve colors, prolong to the cloth
//!               → solve (the cloth's colors) → tethers → collide
//! ```
//!
//! One file, though long (500 lines and its tests): the hierarchy's types, its build and the
//! frame's view of it; what a grid's and a mesh's levels are made of is in `grid.rs` and
//! `graph.rs`.

use std::ops::Range;

use crate::cloth::Cloth;
use crate::coloring::{ColoredConstraints, SERIAL_UNITS};
use crate::config::{PARENTS, Prolongation};
use crate::constraint::{Constraint, LIMIT_KIND, LIMIT_SHARE_SCALE};
use crate::error::Result;
use crate::geometry::graph::SurfaceDistances;

mod graph;
mod grid;

pub use graph::*;
pub(crate) use grid::grid_limit_count;
use grid::*;

/// A limit between `i` and `j` of rest length `rest` whose first end takes `share` of the
/// correction.
fn limit(i: u32, j: u32, rest: f32, share: f32) -> Constraint {
    let q = (share.clamp(0.0, 1.0) * LIMIT_SHARE_SCALE).round() as u32;
    Constraint {
        i,
        j,
        rest,
        packed: LIMIT_KIND | (q << Constraint::DATUM_SHIFT),
    }
}

/// Most coarse levels built.
pub const MAX_LEVELS: usize = 12;

/// A level with fewer particles than this is not coarsened further: it is small enough that
/// its own sweep spans it.
pub const MIN_LEVEL_PARTICLES: usize = 64;

/// The first coarse level keeps every this-many-th column and row of the cloth; later levels
/// halve. The cloth's own sweep already carries a pull across a couple of edges per substep, so
/// a first level at stride 2 only repeated its work: measured on the standard scene (600 Hz,
/// 256² and 1024²), stride 4 gives the same stretch for half the coarse stage's cost at 1024²
/// and a quarter of its constraints at 256²; stride 8 stretches more at 1024².
pub const FIRST_STRIDE: usize = 4;

/// One coarse level, as the schedule runs it.
#[derive(Clone, Debug, PartialEq)]
pub struct Level {
    /// Its colors, as indices into [`Hierarchy::constraints`]' colors.
    pub colors: Range<u32>,
    /// The prolongation entries run after it: the particles that first appear one level finer.
    pub prolong: Range<u32>,
    /// Its particles.
    pub particles: usize,
}

/// A cloth's coarse levels, ready for the solvers.
#[derive(Clone, Debug)]
pub struct Hierarchy {
    constraints: ColoredConstraints,
    cloth_colors: usize,
    /// The strain limit's own colors, after the levels': a copy of the cloth's structural
    /// edges colored apart from the rest ([`Hierarchy::strain_colors`]).
    strain: Range<u32>,
    /// [`Hierarchy::limit_colors`], found once here rather than by a scan every frame.
    limit_colors: usize,
    levels: Vec<Level>,
    nodes: Vec<u32>,
    prolong: Vec<Prolongation>,
}

/// One cloth's share of a merged hierarchy ([`Hierarchy::concat`]).
pub(crate) struct Part<'a> {
    /// Its first particle in the merged numbering.
    pub base: u32,
    /// Its material (the row of the `materials` table its constraints read).
    pub material: u32,
    /// Its own constraints and levels.
    pub hierarchy: &'a Hierarchy,
}

impl Hierarchy {
    /// No coarse levels: the solvers' constraints are the cloth's (and the strain limit's
    /// copy of its structural edges).
    pub fn none(cloth: &Cloth) -> Result<Self> {
        Self::from_levels(cloth, Vec::new())
    }

    /// Builds the coarse levels of a cloth, at most `max_levels` (capped at [`MAX_LEVELS`]);
    /// a cloth too small to need them gets none.
    ///
    /// A grid's levels are subgrids (`grid_levels`); any other cloth (a mesh, a rope, a grid
    /// with holes) is coarsened as a graph (`graph_levels`). Both give each level its
    /// particles, its limits and how the particles it drops follow it; the rest is shared.
    pub fn new(cloth: &Cloth, max_levels: usize) -> Result<Self> {
        let max_levels = max_levels.min(MAX_LEVELS);
        let built = match cloth.grid() {
            Some(grid) => grid_levels(cloth, grid, max_levels),
            None => graph_levels(cloth, max_levels),
        };
        Self::from_levels(cloth, built)
    }

    /// A hierarchy from its levels, finest first.
    fn from_levels(cloth: &Cloth, built: Vec<Built>) -> Result<Self> {
        let n = cloth.particle_count();
        // Snapshot slots: every particle of any coarse level, once (level 1 holds them all).
        let snapshot_nodes = built.first().map(|b| b.0.clone()).unwrap_or_default();
        let mut slot = vec![u32::MAX; n];
        for (s, &p) in snapshot_nodes.iter().enumerate() {
            slot[p as usize] = s as u32;
        }
        // Solve order: coarsest level first; after level ℓ, the particles it dropped from level
        // ℓ − 1 follow it.
        let mut constraints: Vec<Constraint> = cloth.constraints().to_vec();
        let mut colors: Vec<(Range<u32>, bool)> = (cloth.colors().iter().cloned())
            .zip(cloth.colored().serial_colors().iter().copied())
            .collect();
        let mut levels = Vec::with_capacity(built.len());
        let mut prolong = Vec::new();
        for (particles, limits, follows) in built.iter().rev() {
            let level_colors = append_colored(&mut constraints, &mut colors, limits, n)?;
            let first_entry = prolong.len() as u32;
            for (particle, parents) in follows {
                let mut entry = Prolongation {
                    particle: *particle,
                    ..Default::default()
                };
                for (k, &(parent, weight)) in parents.iter().enumerate() {
                    entry.parents[k] = slot[parent as usize];
                    entry.weights[k] = weight;
                }
                // Unused slots read a valid slot with weight 0.
                for k in parents.len()..PARENTS {
                    entry.parents[k] = entry.parents[0];
                }
                prolong.push(entry);
            }
            levels.push(Level {
                colors: level_colors,
                prolong: first_entry..prolong.len() as u32,
                particles: particles.len(),
            });
        }
        let strain = append_colored(&mut constraints, &mut colors, &strain_records(cloth), n)?;
        Self::checked(
            constraints,
            colors,
            cloth.colors().len(),
            !cloth.membrane_edges().is_empty(),
            strain,
            levels,
            snapshot_nodes,
            prolong,
            n,
        )
    }

    /// Several cloths' constraints and coarse levels in one particle numbering (a world's
    /// global path), so the schedule solves them all with the dispatches of one: color c of
    /// every cloth's own constraints is one color, and the levels line up from the finest (a
    /// cloth with fewer levels joins at the finer ones), each merged color by color. `parts`
    /// are in ascending particle order; `particle_count` is the world's.
    pub(crate) fn concat(parts: &[Part<'_>], particle_count: usize) -> Result<Self> {
        // Color c of `of(part)` (a range of the part's colors) of every part, one after
        // another, becomes one merged color. A serial color (the last of a part's range) merges
        // only with serial ones, after the others, so it never makes a color that could run in
        // parallel serial; each part's serial colors, in order, go to the first merged serial
        // color after its previous one with room (`coloring::SERIAL_UNITS`), so none grows past
        // what one thread walks whole on every adapter.
        fn merge_colors(
            parts: &[Part<'_>],
            constraints: &mut Vec<Constraint>,
            colors: &mut Vec<(Range<u32>, bool)>,
            of: &dyn Fn(&Part<'_>) -> Option<Range<u32>>,
        ) {
            // Each part's colors of the range, parallel ones and serial ones.
            let own: Vec<(Vec<u32>, Vec<u32>)> = parts
                .iter()
                .map(|p| {
                    let h = &p.hierarchy.constraints;
                    of(p)
                        .unwrap_or_default()
                        .partition(|&c| !h.is_serial_color(c as usize))
                })
                .collect();
            // Which part's colors make each merged color, in order.
            let parallel = own.iter().map(|o| o.0.len()).max().unwrap_or(0);
            let mut merged: Vec<(Vec<(usize, u32)>, bool)> = (0..parallel)
                .map(|color| {
                    let from = (own.iter().enumerate())
                        .filter_map(|(k, o)| o.0.get(color).map(|&c| (k, c)))
                        .collect();
                    (from, false)
                })
                .collect();
            let mut room: Vec<u32> = Vec::new();
            for (k, (p, o)) in parts.iter().zip(&own).enumerate() {
                let mut after = 0;
                for &c in &o.1 {
                    let n = p.hierarchy.constraints.color_units(c as usize);
                    let bin = (after..room.len())
                        .find(|&b| room[b] >= n)
                        .unwrap_or_else(|| {
                            room.push(SERIAL_UNITS);
                            merged.push((Vec::new(), true));
                            room.len() - 1
                        });
                    room[bin] -= n.min(room[bin]);
                    merged[parallel + bin].0.push((k, c));
                    after = bin + 1;
                }
            }
            for (from, serial) in merged {
                let start = constraints.len() as u32;
                for (k, own) in from {
                    let part = &parts[k];
                    let r = &part.hierarchy.constraints.colors()[own as usize];
                    constraints.extend(
                        part.hierarchy.constraints.constraints()[r.start as usize..r.end as usize]
                            .iter()
                            .map(|c| c.shifted(part.base).with_material(part.material)),
                    );
                }
                colors.push((start..constraints.len() as u32, serial));
            }
        }
        let mut constraints = Vec::new();
        let mut colors = Vec::new();
        // A color holds distance constraints or bending stencils, never both: each part's
        // distance colors merge with the others', then its stencil colors (its last ones).
        let stencil_colors = |p: &Part<'_>| {
            let h = p.hierarchy;
            (0..h.cloth_colors)
                .filter(|&c| h.constraints.is_stencil_color(c))
                .count() as u32
        };
        let distance_colors = |p: &Part<'_>| p.hierarchy.cloth_colors as u32 - stencil_colors(p);
        merge_colors(parts, &mut constraints, &mut colors, &|p| {
            Some(0..distance_colors(p))
        });
        merge_colors(parts, &mut constraints, &mut colors, &|p| {
            Some(distance_colors(p)..p.hierarchy.cloth_colors as u32)
        });
        let cloth_colors = colors.len();
        let depth = parts
            .iter()
            .map(|p| p.hierarchy.levels.len())
            .max()
            .unwrap_or(0);
        // A part's level at merged level `w` (coarsest first): its own levels end at the finest.
        fn own_level<'a>(p: &Part<'a>, w: usize, depth: usize) -> Option<&'a Level> {
            (w + p.hierarchy.levels.len())
                .checked_sub(depth)
                .map(|l| &p.hierarchy.levels[l])
        }
        let mut nodes = Vec::new();
        let mut node_base = Vec::with_capacity(parts.len());
        for p in parts {
            node_base.push(nodes.len() as u32);
            nodes.extend(p.hierarchy.nodes.iter().map(|&n| n + p.base));
        }
        let mut levels = Vec::with_capacity(depth);
        let mut prolong = Vec::new();
        for w in 0..depth {
            let first_color = colors.len() as u32;
            merge_colors(parts, &mut constraints, &mut colors, &|p| {
                own_level(p, w, depth).map(|l| l.colors.clone())
            });
            let first_entry = prolong.len() as u32;
            let mut particles = 0;
            for (p, &nb) in parts.iter().zip(&node_base) {
                let Some(l) = own_level(p, w, depth) else {
                    continue;
                };
                particles += l.particles;
                prolong.extend(
                    p.hierarchy.prolong[l.prolong.start as usize..l.prolong.end as usize]
                        .iter()
                        .map(|e| Prolongation {
                            parents: e.parents.map(|s| s + nb),
                            particle: e.particle + p.base,
                            ..*e
                        }),
                );
            }
            levels.push(Level {
                colors: first_color..colors.len() as u32,
                prolong: first_entry..prolong.len() as u32,
                particles,
            });
        }
        // The strain limit's colors last, color c of every part's one merged color.
        let strain_start = colors.len() as u32;
        merge_colors(parts, &mut constraints, &mut colors, &|p| {
            Some(p.hierarchy.strain.clone())
        });
        let strain = strain_start..colors.len() as u32;
        // One cloth that keeps its structural edges only in the strain colors (a membrane of
        // triangles) sends every cloth's limit there in frames that hold: the merged colors
        // are one range each, and a cloth's edges must not be swept twice.
        let limits_in_strain = parts
            .iter()
            .any(|p| p.hierarchy.limit_colors == 0 && !p.hierarchy.strain.is_empty());
        Self::checked(
            constraints,
            colors,
            cloth_colors,
            limits_in_strain,
            strain,
            levels,
            nodes,
            prolong,
            particle_count,
        )
    }

    /// A hierarchy from its parts, after checking the coloring and what `prolong`'s parallel
    /// loop rests on: within a level the particles written are distinct and none is a parent
    /// read (checked once here rather than every call).
    #[allow(clippy::too_many_arguments)]
    fn checked(
        constraints: Vec<Constraint>,
        colors: Vec<(Range<u32>, bool)>,
        cloth_colors: usize,
        limits_in_strain: bool,
        strain: Range<u32>,
        levels: Vec<Level>,
        nodes: Vec<u32>,
        prolong: Vec<Prolongation>,
        particle_count: usize,
    ) -> Result<Self> {
        let mut written = vec![u32::MAX; particle_count];
        for (k, level) in levels.iter().enumerate() {
            let entries = &prolong[level.prolong.start as usize..level.prolong.end as usize];
            for e in entries {
                assert_ne!(written[e.particle as usize], k as u32, "prolonged twice");
                written[e.particle as usize] = k as u32;
            }
            for e in entries {
                for &s in &e.parents {
                    let parent = nodes[s as usize] as usize;
                    assert_ne!(
                        written[parent], k as u32,
                        "a parent is prolonged by its level"
                    );
                }
            }
        }
        let (colors, serial) = colors.into_iter().unzip();
        let constraints =
            ColoredConstraints::from_sorted(constraints, colors, serial, particle_count)?;
        Ok(Self {
            limit_colors: if limits_in_strain {
                0
            } else {
                constraints.limit_colors_below(cloth_colors)
            },
            constraints,
            cloth_colors,
            strain,
            levels,
            nodes,
            prolong,
        })
    }

    /// The prolongation entries of `range` when it is exactly one level's, else `None` (the
    /// only entries `prolong` takes, so its threads cannot race).
    pub fn level_entries(&self, range: &crate::config::ColorRange) -> Option<&[Prolongation]> {
        let r = range.start..range.start + range.count;
        self.levels
            .iter()
            .find(|l| l.prolong == r)
            .map(|_| &self.prolong[range.range()])
    }

    /// The cloth's constraints followed by every level's limits, with one checked coloring:
    /// what the solvers upload and `solve_color` reads.
    pub fn constraints(&self) -> &ColoredConstraints {
        &self.constraints
    }

    /// Colors of the cloth's own constraints (the first of [`Self::constraints`]' colors).
    pub fn cloth_colors(&self) -> usize {
        self.cloth_colors
    }

    /// The cloth's own colors the strain limit after contact sweeps in frames where it holds
    /// what static friction holds (`SolverParams::limit_holds`: frames with a box): the first,
    /// up to the last that holds a structural edge
    /// ([`ColoredConstraints::limit_colors_below`]); 0 when a cloth keeps its structural edges
    /// only in the strain colors (a membrane of triangles; in a merged hierarchy, any of its
    /// cloths), whose frames that hold then sweep [`Self::strain_colors`].
    pub fn limit_colors(&self) -> usize {
        self.limit_colors
    }

    /// The colors the strain limit after contact sweeps: [`Self::limit_colors`] from 0 in a
    /// frame where it `holds` what static friction holds, else (or when those hold no
    /// structural edge, as a membrane of triangles' do not) [`Self::strain_colors`].
    pub fn limit_sweep(&self, holds: bool) -> Range<u32> {
        if holds && self.limit_colors > 0 {
            0..self.limit_colors() as u32
        } else {
            self.strain_colors()
        }
    }

    /// The strain limit's own colors, which it sweeps in every frame that runs it but those
    /// with a box: a copy of the cloth's structural edges colored apart from the other
    /// constraints, so a sweep takes half of a grid's distance colors (4 of 8) and the limit's
    /// dispatches fall by half. Indices into [`Self::constraints`]' colors, after the levels'.
    pub fn strain_colors(&self) -> Range<u32> {
        self.strain.clone()
    }

    /// The coarse levels, coarsest first (the solve order).
    pub fn levels(&self) -> &[Level] {
        &self.levels
    }

    /// The particle of each snapshot slot (every particle of a coarse level).
    pub fn nodes(&self) -> &[u32] {
        &self.nodes
    }

    /// Every prolongation entry; [`Level::prolong`] says which follow which level.
    pub fn prolongations(&self) -> &[Prolongation] {
        &self.prolong
    }

    /// The uniform ranges of the coarse passes: the snapshot's (every slot), then each
    /// level's prolongation entries, coarsest first.
    pub fn ranges(&self) -> Vec<crate::config::ColorRange> {
        let snapshot = 0..self.nodes.len() as u32;
        std::iter::once(&snapshot)
            .chain(self.levels.iter().map(|l| &l.prolong))
            .map(crate::config::ColorRange::new)
            .collect()
    }

    /// Colors per level, coarsest first, for the schedule.
    pub fn level_colors(&self) -> LevelColors {
        let mut out = LevelColors::default();
        for (k, l) in self.levels.iter().enumerate() {
            out.counts[k] = (l.colors.end - l.colors.start) as u8;
        }
        out.levels = self.levels.len() as u8;
        out
    }
}

/// What the frame schedule needs of a hierarchy: how many levels and how many colors each has
/// (coarsest first). Fixed-size, so a schedule stays `Copy`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelColors {
    /// Levels in use.
    pub levels: u8,
    /// Colors of each level, coarsest first.
    pub counts: [u8; MAX_LEVELS],
}

/// A coarse level as it is built, finest first: its particles, its limits, and how each particle
/// it drops from the level below follows it (the particle, and its parents with weights).
type Built = (Vec<u32>, Vec<Constraint>, Vec<(u32, Vec<(u32, f32)>)>);

/// Colors `records` apart and appends them and their colors to `constraints` and `colors`;
/// returns the new colors' indices.
fn append_colored(
    constraints: &mut Vec<Constraint>,
    colors: &mut Vec<(Range<u32>, bool)>,
    records: &[Constraint],
    particle_count: usize,
) -> Result<Range<u32>> {
    let (colored, _) = ColoredConstraints::new(records, particle_count)?;
    let (base, first_color) = (constraints.len() as u32, colors.len() as u32);
    constraints.extend_from_slice(colored.constraints());
    colors.extend(
        (colored.colors().iter())
            .zip(colored.serial_colors())
            .map(|(r, &serial)| (r.start + base..r.end + base, serial)),
    );
    Ok(first_color..colors.len() as u32)
}

/// The strain limit's records of `cloth`: its structural edges, as the cloth has them.
fn strain_records(cloth: &Cloth) -> Vec<Constraint> {
    cloth.structural_constraints().copied().collect()
}

/// Every record [`Hierarchy::new`] puts in a solver's constraint buffer for `cloth`: its
/// constraints, its coarse levels' limits and the strain limit's copy of its structural edges
/// (for sizing buffers; a grid's levels are counted without building them).
pub fn solver_records(cloth: &Cloth) -> usize {
    cloth.constraint_count() + limit_count(cloth) + cloth.structural_constraints().count()
}

/// The limits [`Hierarchy::new`] gives `cloth` (for sizing buffers; a grid's are counted
/// without building its levels).
pub fn limit_count(cloth: &Cloth) -> usize {
    match cloth.grid() {
        Some(grid) => grid_limit_count(grid),
        None => graph_levels(cloth, MAX_LEVELS)
            .iter()
            .map(|level| level.1.len())
            .sum(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::common::limit_weights;
    use crate::{ClothBuilder, Pinning};

    /// The levels' limits: the records after the cloth's own, before the strain limit's.
    fn level_limits<'a>(h: &'a Hierarchy, cloth: &Cloth) -> &'a [Constraint] {
        let c = h.constraints();
        let strain_start = c.colors()[h.strain_colors().start as usize].start as usize;
        &c.constraints()[cloth.constraint_count()..strain_start]
    }

    /// The distinct rest lengths of `limits`, rounded to 0.1 mm, shortest first.
    fn distinct_rests(limits: &[Constraint]) -> Vec<f32> {
        let mut rests: Vec<f32> = limits
            .iter()
            .map(|c| (c.rest * 1e4).round() / 1e4)
            .collect();
        rests.sort_by(f32::total_cmp);
        rests.dedup();
        rests
    }

    #[test]
    fn a_grid_coarsens_by_four_then_two_keeping_its_edges_and_interpolates_bilinearly() {
        // 64 columns: every fourth is 0, 4, …, 60, and the last (63) is kept too; then every
        // other one of those.
        let cloth = ClothBuilder::grid(64, 64)
            .spacing(0.1)
            .pinning(Pinning::Corners)
            .build()
            .unwrap();
        let h = Hierarchy::new(&cloth, MAX_LEVELS).unwrap();
        // 64² → 17² → 9² (5² = 25 < 64 stops); coarsest first.
        let sizes: Vec<usize> = h.levels().iter().map(|l| l.particles).collect();
        assert_eq!(sizes, vec![81, 289]);
        // The first level's dropped particles follow their cell bilinearly: a quarter of the
        // way along an edge by ¾ and ¼, halfway by ½ and ½, a cell centre its corners by ¼.
        let r = &h.levels()[1].prolong;
        let fine = &h.prolongations()[r.start as usize..r.end as usize];
        assert_eq!(fine.len(), 64 * 64 - 289);
        let weights = |particle: u32| {
            fine.iter()
                .find(|p| p.particle == particle)
                .unwrap()
                .weights
        };
        assert_eq!(&weights(1)[..2], &[0.75, 0.25]);
        assert_eq!(&weights(2)[..2], &[0.5, 0.5]);
        assert_eq!(weights(2 * 64 + 2), [0.25; 4]);
        // Limits: rigid and one-sided, along columns and rows at the distance over the grid:
        // four columns (0.4 m) and the last, narrower column (0.3 m) on the first level, eight
        // (0.8 m) on the next; no diagonals. Each level's grid of limits takes four colors.
        let limits = level_limits(&h, &cloth);
        assert!(limits.iter().all(|c| c.is_limit()));
        assert_eq!(distinct_rests(limits), vec![0.3, 0.4, 0.7, 0.8]);
        assert_eq!(limits.len(), 2 * (17 * 16) + 2 * (9 * 8));
        let level_colors = h.level_colors();
        assert_eq!(&level_colors.counts[..2], &[4, 4]);
        // Interior coarse particles stand for equal masses: an even split.
        assert!(
            limits
                .iter()
                .any(|c| limit_weights(c.packed, 1.0, 1.0) == (0.5, 0.5))
        );
        // A pinned end never moves.
        assert_eq!(limit_weights(limits[0].packed, 0.0, 1.0).0, 0.0);
        // Both pinned corners are on every level.
        for pin in [0u32, 63] {
            assert!(h.nodes().contains(&pin));
        }
        // Every particle but the coarsest level's follows exactly one level.
        let mut prolonged = vec![0u32; cloth.particle_count()];
        for p in h.prolongations() {
            prolonged[p.particle as usize] += 1;
        }
        assert!(prolonged.iter().all(|&c| c <= 1));
        let coarsest = h.levels()[0].particles;
        assert_eq!(h.prolongations().len(), cloth.particle_count() - coarsest);
    }

    #[test]
    fn small_cloths_have_no_levels() {
        let small = ClothBuilder::grid(7, 7).build().unwrap();
        assert!(
            Hierarchy::new(&small, MAX_LEVELS)
                .unwrap()
                .levels()
                .is_empty()
        );
        // A rope of two points, and one of eight links: one sweep spans them.
        for points in [2, 9] {
            let line = (0..points).map(|k| glam::Vec3::new(k as f32 * 0.01, 0.0, 0.0));
            let rope = ClothBuilder::rope(line.collect()).build().unwrap();
            let h = Hierarchy::new(&rope, MAX_LEVELS).unwrap();
            assert!(h.levels().is_empty(), "{points} points");
            assert_eq!(limit_count(&rope), 0);
        }
    }

    /// The strain limit's own colors hold each structural edge of the cloth once and nothing
    /// else, in 4 colors on a grid (half its 8 distance colors, what the limit swept before),
    /// last; in frames that hold, the limit sweeps the cloth's distance colors instead.
    #[test]
    fn the_strain_limit_has_its_own_four_colors_of_the_structural_edges() {
        let cloth = ClothBuilder::grid(64, 48).build().unwrap();
        for h in [
            Hierarchy::new(&cloth, MAX_LEVELS).unwrap(),
            Hierarchy::none(&cloth).unwrap(),
        ] {
            let strain = h.strain_colors();
            assert_eq!(strain.len(), 4);
            assert_eq!(strain.end as usize, h.constraints().colors().len());
            let c = h.constraints();
            let records = &c.constraints()[c.colors()[strain.start as usize].start as usize..];
            assert!(records.iter().all(Constraint::is_structural));
            let pairs = |cs: &mut dyn Iterator<Item = &Constraint>| {
                let mut p: Vec<(u32, u32, u32)> =
                    cs.map(|c| (c.i, c.j, c.rest.to_bits())).collect();
                p.sort_unstable();
                p
            };
            assert_eq!(
                pairs(&mut records.iter()),
                pairs(&mut cloth.structural_constraints())
            );
            assert_eq!(h.limit_sweep(false), strain);
            assert_eq!(h.limit_sweep(true), 0..8);
        }
        let h = Hierarchy::new(&cloth, MAX_LEVELS).unwrap();
        assert_eq!(solver_records(&cloth), h.constraints().constraints().len());
    }

    #[test]
    fn a_rope_coarsens_every_fourth_then_every_other_link_and_interpolates_linearly() {
        // 201 points 1 cm apart, the first pinned.
        let line = (0..201).map(|k| glam::Vec3::new(k as f32 * 0.01, 0.0, 0.0));
        let rope = ClothBuilder::rope(line.collect())
            .pinning(Pinning::List(vec![0]))
            .build()
            .unwrap();
        let h = Hierarchy::new(&rope, MAX_LEVELS).unwrap();
        // Points 4 links apart (0, 4, …, 200: 51), then every other one (26, 13): the 13
        // of the coarsest span 12 links, the next one would span 6 (< MIN_LEVEL_DIAMETER).
        let sizes: Vec<usize> = h.levels().iter().map(|l| l.particles).collect();
        assert_eq!(sizes, vec![13, 26, 51]);
        assert!(h.nodes().contains(&0), "the pin is on every level");
        // Limits join neighbours along the chain at the length of the links between them.
        let limits = level_limits(&h, &rope);
        // (The coarsest keeps both ends, so its last limit spans three of its spacings.)
        assert_eq!(distinct_rests(limits), vec![0.04, 0.08, 0.16, 0.24]);
        assert_eq!(limits.len(), 50 + 25 + 12);
        assert_eq!(limit_count(&rope), limits.len());
        // A dropped particle follows its two coarse neighbours linearly: point 1 is ¾ of
        // point 0 and ¼ of point 4.
        let finest = &h.levels()[2].prolong;
        let entry = h.prolongations()[finest.start as usize..finest.end as usize]
            .iter()
            .find(|e| e.particle == 1)
            .unwrap();
        let parent = |k: usize| h.nodes()[entry.parents[k] as usize];
        let mut got = [(parent(0), entry.weights[0]), (parent(1), entry.weights[1])];
        got.sort_by_key(|g| g.0);
        assert_eq!(got[0].0, 0);
        assert_eq!(got[1].0, 4);
        assert!((got[0].1 - 0.75).abs() < 1e-6 && (got[1].1 - 0.25).abs() < 1e-6);
        assert_eq!(entry.weights[2..], [0.0, 0.0]);
    }

    #[test]
    fn a_mesh_of_two_pieces_coarsens_each_piece() {
        // Two 24×24 squares side by side that share no vertex, as one mesh.
        let square = ClothBuilder::grid(24, 24).spacing(0.01).build().unwrap();
        let mut positions = square.positions().to_vec();
        positions.extend(square.positions().iter().map(|p| *p + glam::Vec3::X));
        let mut triangles = square.triangles().to_vec();
        let n = square.particle_count() as u32;
        triangles.extend(square.triangles().iter().map(|t| t.map(|v| v + n)));
        let mesh = crate::TriangleMesh::new("two squares", positions, triangles);
        let cloth = ClothBuilder::mesh(mesh).build().unwrap();
        assert!(cloth.grid().is_none());
        let h = Hierarchy::new(&cloth, MAX_LEVELS).unwrap();
        assert!(!h.levels().is_empty());
        // No limit joins the two pieces, and both have particles on every level.
        let limits = level_limits(&h, &cloth);
        assert!(limits.iter().all(|c| (c.i < n) == (c.j < n)));
        for level in h.levels() {
            assert!(level.particles >= 2);
        }
        // The coarsest level: the snapshot's particles that no level moves.
        let prolonged: Vec<u32> = h.prolongations().iter().map(|e| e.particle).collect();
        let coarsest: Vec<u32> = h
            .nodes()
            .iter()
            .copied()
            .filter(|p| !prolonged.contains(p))
            .collect();
        assert!(coarsest.iter().any(|&p| p < n) && coarsest.iter().any(|&p| p >= n));
        // Every particle not on the coarsest level follows exactly one level.
        let mut prolonged = vec![0u32; cloth.particle_count()];
        for p in h.prolongations() {
            prolonged[p.particle as usize] += 1;
        }
        assert!(prolonged.iter().all(|&c| c <= 1));
        // Weights sum to one.
        for e in h.prolongations() {
            assert!((e.weights.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }
}
