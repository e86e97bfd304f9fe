//! Where every cloth of a world lives in the shared buffers, computed on the host whenever
//! cloths are added or removed. Both engines (GPU and CPU) load the same [`Layout`].
//!
//! ```text
//! particles:   [ global cloths ............ | fused cloths ................ ]
//! constraints: [ color 0 of every global cloth, color 1, ... | cloth A's colors, cloth B's ... ]
//! ```
//! The global cloths come first so the per-pass kernels cover `0..global_particles` with their
//! usual bounds guard; color c of every global cloth is one contiguous range (one dispatch),
//! and a fused cloth's constraints are one run its workgroup walks color by color.

use std::ops::Range;

use glam::Vec4;

use super::{ClothPath, PathChoice, WorldCapacity};
use crate::cloth::Cloth;
use crate::config::Prolongation;
use crate::config::{CLOTH_RECORD_ROWS, ClothRecord, ColorRange, FusedLevel, PROLONG_ROWS};
use crate::constraint::Constraint;
use crate::error::{ChiffonError, Result};
use crate::hierarchy::{Hierarchy, Part};
use crate::tethers::Tethers;

/// The most colors a cloth on the fused path may have (its color table has room for this many
/// per cloth); a cloth with more takes the global path. Full grids have 20, meshes about 27,
/// and a coloring at most 58: a fan's hub, past the bound, fills a serial color
/// ([`crate::coloring::MAX_DISTANCE_COLORS`]), one more per
/// [`crate::coloring::SERIAL_UNITS`] of overflow (a hub of tens of thousands of triangles).
pub const MAX_COLORS: usize = 64;

/// The most cloths a world holds: a cloth's material is its index, and a membrane triangle
/// keeps it in [`Constraint::TRIANGLE_MATERIAL_BITS`] bits.
pub const MAX_CLOTHS: u32 = 1 << Constraint::TRIANGLE_MATERIAL_BITS;

// A cloth's colors fit the fused table with a serial color of each kind.
const _: () = assert!(
    crate::coloring::MAX_DISTANCE_COLORS + crate::coloring::MAX_STENCIL_COLORS + 2 <= MAX_COLORS
);

/// One cloth's place.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Placed {
    /// Its slot in the world's table of cloths.
    pub slot: u32,
    /// Which path solves it.
    pub path: ClothPath,
    /// Its particles in the world's buffers.
    pub particles: Range<u32>,
}

/// What a cloth brings to a layout.
pub(crate) struct Member<'a> {
    pub slot: u32,
    pub cloth: &'a Cloth,
    /// Its constraints with its coarse levels (used on the global path).
    pub hierarchy: &'a Hierarchy,
    pub tethers: &'a Tethers,
}

/// The packed world.
pub(crate) struct Layout {
    /// Every cloth, global ones first, in slot order within each path. A cloth's material
    /// is its index here.
    pub placed: Vec<Placed>,
    /// Particles in all.
    pub particle_count: u32,
    /// Particles of the global cloths (`0..global_particles`).
    pub global_particles: u32,
    /// The global region: color c of every global cloth's constraints, then level ℓ of
    /// every global cloth's coarse levels, with their snapshot and prolongation tables.
    pub global: Hierarchy,
    /// All constraints (the global region, then the fused cloths' runs), world particle
    /// indices, each with its cloth's material.
    pub constraints: Vec<Constraint>,
    /// One record per fused cloth (α̃ and tethers filled in per frame).
    pub records: Vec<ClothRecord>,
    /// The fused cloths' colors, indices into `constraints`: each cloth's own, then its coarse
    /// levels' (limits).
    pub fused_colors: Vec<ColorRange>,
    /// The fused cloths' coarse levels, coarsest first within each cloth.
    pub fused_levels: Vec<FusedLevel>,
    /// The fused cloths' snapshot nodes (world particle indices), cloth after cloth.
    pub fused_nodes: Vec<u32>,
    /// The fused cloths' prolongation entries (world particle indices; parents are slots of
    /// their own cloth's nodes).
    pub fused_prolongations: Vec<Prolongation>,
    /// Every particle's tethers (world indices).
    pub tethers: Tethers,
    /// Every particle's rest position (xyz, as placed) and its cloth (w, the material index):
    /// self-collision leaves out pairs of one cloth that are near each other at rest.
    pub rest: Vec<Vec4>,
    /// Every cloth's triangles and each particle's (`contact::edges`): what keeps a box's
    /// edges and corners out of the cloth, and what the air blows on.
    pub triangle_table: Vec<u32>,
}

impl Layout {
    /// Packs `members` (in slot order). A cloth goes to the fused path unless `paths` is
    /// [`PathChoice::Global`] (the world resolves `Auto` first) when it has at most
    /// `fused_max_particles` particles and [`MAX_COLORS`] colors, into workgroup memory when it
    /// has at most `workgroup_capacity`.
    pub(crate) fn build(
        members: &[Member<'_>],
        paths: PathChoice,
        fused_max_particles: u32,
        workgroup_capacity: u32,
    ) -> Result<Self> {
        let path_of = |c: &Cloth| {
            let n = c.particle_count() as u32;
            if paths != PathChoice::Global && can_fuse(c, fused_max_particles) {
                ClothPath::Fused {
                    workgroup_memory: n <= workgroup_capacity,
                }
            } else {
                ClothPath::Global
            }
        };
        let mut order: Vec<(&Member, ClothPath)> =
            members.iter().map(|m| (m, path_of(m.cloth))).collect();
        // Global first; stable, so slot order within each path.
        order.sort_by_key(|(_, p)| matches!(p, ClothPath::Fused { .. }));

        let mut placed = Vec::with_capacity(order.len());
        let mut offset = 0u32;
        for (m, path) in &order {
            let n = m.cloth.particle_count() as u32;
            placed.push(Placed {
                slot: m.slot,
                path: *path,
                particles: offset..offset + n,
            });
            offset += n;
        }
        let particle_count = offset;
        let globals: Vec<usize> = (0..order.len())
            .filter(|&k| order[k].1 == ClothPath::Global)
            .collect();
        let global_particles = globals.last().map_or(0, |&k| placed[k].particles.end);
        let parts: Vec<Part> = globals
            .iter()
            .map(|&k| Part {
                base: placed[k].particles.start,
                material: k as u32,
                hierarchy: order[k].0.hierarchy,
            })
            .collect();
        let global = Hierarchy::concat(&parts, global_particles as usize)?;
        let mut constraints = global.constraints().constraints().to_vec();

        // Fused region: each cloth's own colors then its levels' colors, one run per cloth,
        // and its levels' snapshot nodes and prolongation entries.
        let mut records = Vec::new();
        let mut fused_colors = Vec::new();
        let (mut fused_levels, mut fused_nodes, mut fused_prolongations) =
            (Vec::new(), Vec::new(), Vec::new());
        for (k, (m, path)) in order.iter().enumerate() {
            let ClothPath::Fused { workgroup_memory } = path else {
                continue;
            };
            let base = placed[k].particles.start;
            let h = m.hierarchy;
            let color_offset = fused_colors.len() as u32;
            for (c, range) in h.constraints().colors().iter().enumerate() {
                let start = constraints.len() as u32;
                constraints.extend(
                    h.constraints().constraints()[range.start as usize..range.end as usize]
                        .iter()
                        .map(|c| c.shifted(base).with_material(k as u32)),
                );
                let range = ColorRange::new(&(start..constraints.len() as u32));
                fused_colors.push(range.serial(h.constraints().is_serial_color(c)));
            }
            let (level_offset, node_offset) = (fused_levels.len(), fused_nodes.len());
            let prolong_base = fused_prolongations.len() as u32;
            fused_nodes.extend(h.nodes().iter().map(|&p| p + base));
            fused_prolongations.extend(h.prolongations().iter().map(|e| Prolongation {
                particle: e.particle + base,
                ..*e
            }));
            fused_levels.extend(h.levels().iter().map(|l| FusedLevel {
                color_start: l.colors.start,
                color_count: l.colors.end - l.colors.start,
                prolong_start: prolong_base + l.prolong.start,
                prolong_count: l.prolong.end - l.prolong.start,
            }));
            records.push(ClothRecord {
                particle_offset: base,
                particle_count: m.cloth.particle_count() as u32,
                color_offset,
                color_count: h.cloth_colors() as u32,
                limit_colors: h.limit_colors() as u32,
                strain_first: h.strain_colors().start,
                strain_colors: h.strain_colors().len() as u32,
                shared_memory: *workgroup_memory as u32,
                level_count: h.levels().len() as u32,
                level_offset: level_offset as u32,
                node_offset: node_offset as u32,
                node_count: h.nodes().len() as u32,
                ..Default::default()
            });
        }
        // One row of tether slots per fused particle (the fused particles follow the global
        // ones), after the records and the colors.
        let tether_base = CLOTH_RECORD_ROWS * records.len() as u32 + fused_colors.len() as u32;
        for r in &mut records {
            r.tether_row = tether_base + (r.particle_offset - global_particles);
        }
        let rest = order
            .iter()
            .enumerate()
            .flat_map(|(k, (m, _))| m.cloth.positions().iter().map(move |p| p.extend(k as f32)))
            .collect();
        let tethers = Tethers::concat(
            particle_count as usize,
            order
                .iter()
                .zip(&placed)
                .map(|((m, _), p)| (p.particles.start, m.tethers)),
        );
        // Every cloth's triangles: the air acts on both paths; the box-edge kernels run only
        // when a box puts every cloth on the global path, so they see the same triangles.
        let triangle_table = crate::contact::edges::triangle_table(
            particle_count as usize,
            order
                .iter()
                .zip(&placed)
                .map(|((m, _), p)| (p.particles.start, m.cloth.triangles())),
        );
        Ok(Self {
            placed,
            particle_count,
            global_particles,
            global,
            constraints,
            records,
            fused_colors,
            fused_levels,
            fused_nodes,
            fused_prolongations,
            tethers,
            rest,
            triangle_table,
        })
    }

    /// The place of the cloth in `slot`, with its material (index in [`Layout::placed`]).
    pub(crate) fn find(&self, slot: u32) -> Option<(usize, &Placed)> {
        self.placed.iter().enumerate().find(|(_, p)| p.slot == slot)
    }

    /// Where each part of the fused kernel's table starts (rows of four words).
    pub(crate) fn fused_rows(&self) -> FusedRows {
        let tethers =
            CLOTH_RECORD_ROWS * self.records.len() as u32 + self.fused_colors.len() as u32;
        let levels = tethers + (self.particle_count - self.global_particles);
        let nodes = levels + self.fused_levels.len() as u32;
        let prolongations = nodes + self.fused_nodes.len().div_ceil(4) as u32;
        let end = prolongations + PROLONG_ROWS * self.fused_prolongations.len() as u32;
        FusedRows {
            tethers,
            levels,
            nodes,
            prolongations,
            end,
        }
    }

    /// The record of the cloth in `slot` among the fused cloths' (its rest state's index), if
    /// it takes the fused path.
    pub(crate) fn fused_index(&self, slot: u32) -> Option<u32> {
        self.placed
            .iter()
            .filter(|p| matches!(p.path, ClothPath::Fused { .. }))
            .position(|p| p.slot == slot)
            .map(|k| k as u32)
    }

    /// The fused cloths' records for a frame: `tethers(material)` when the cloth's tether
    /// stage runs, `alpha(material)` its α̃.
    pub(crate) fn frame_records(
        &self,
        tethers: impl Fn(usize) -> bool,
        alpha: impl Fn(usize) -> Vec4,
    ) -> Vec<ClothRecord> {
        let fused = self
            .placed
            .iter()
            .enumerate()
            .filter(|(_, p)| matches!(p.path, ClothPath::Fused { .. }));
        self.records
            .iter()
            .zip(fused)
            .map(|(r, (material, _))| ClothRecord {
                alpha: alpha(material).to_array(),
                tethers: tethers(material) as u32,
                ..*r
            })
            .collect()
    }
}

/// Where the parts of the fused kernel's table start, in rows of four words:
///
/// ```text
/// [ records | colors | tether slots (one row per fused particle) | levels | nodes (four a row) | prolongations ]
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FusedRows {
    pub tethers: u32,
    pub levels: u32,
    pub nodes: u32,
    pub prolongations: u32,
    /// Rows in all.
    pub end: u32,
}

/// Whether `cloth` may take the fused path: at most `fused_max_particles` particles, and colors
/// the fused table has room for. A cloth with more colors than it holds (only a hub's overflow
/// of more than `SERIAL_UNITS` makes one) is solved on the global path, which has no bound.
pub(crate) fn can_fuse(cloth: &Cloth, fused_max_particles: u32) -> bool {
    cloth.particle_count() as u32 <= fused_max_particles && fuses_colors(cloth)
}

/// Whether the fused path's color table has room for `cloth`'s colors ([`MAX_COLORS`]).
pub(crate) fn fuses_colors(cloth: &Cloth) -> bool {
    cloth.colors().len() <= MAX_COLORS
}

/// Checks that a world of `cloths` cloths with `particles` particles and `constraints`
/// constraints fits `capacity`.
pub(crate) fn check_capacity(
    capacity: &WorldCapacity,
    cloths: u64,
    particles: u64,
    constraints: u64,
) -> Result<()> {
    for (what, needed, cap) in [
        ("cloths", cloths, capacity.cloths as u64),
        ("particles", particles, capacity.particles as u64),
        ("constraints", constraints, capacity.constraints as u64),
    ] {
        if needed > cap {
            return Err(ChiffonError::WorldFull {
                what,
                needed,
                capacity: cap,
            });
        }
    }
    Ok(())
}
