//! The CPU executor: a world's buffers as plain vectors, and a frame's passes run by calling
//! the twins, in the schedule's order (the twin of the GPU recorder in `gpu/engine.rs`).

use glam::Vec4;

use super::self_collision::{self as hash, SelfCollisionBuffers};
use super::{
    ColorPass, air_forces, air_winds, apply_air, apply_edge_contacts, check_health, collide,
    edge_contacts, integrate, prolong, snapshot_nodes, solve_cloths, solve_tethers, sweep_colors,
};
use crate::config::Prolongation;
use crate::config::{ClothRest, ColorRange, FusedLevel, Health, TetherSlot};
use crate::constraint::Constraint;
use crate::error::Result;
use crate::gpu::StageTimer;
use crate::hierarchy::Hierarchy;
use crate::schedule::{Executor, Pass, SelfStep, Stage};
use crate::tethers::Tethers;
use crate::world::engine::{Engine, SelfListsWatch, WorldFrame};
use crate::world::layout::Layout;

/// The world's buffers as plain vectors.
pub(crate) struct CpuEngine {
    positions: Vec<Vec4>,
    previous: Vec<Vec4>,
    multipliers: Vec<f32>,
    /// The global cloths' constraints and coarse levels.
    global: Hierarchy,
    /// Every constraint (the global region, then the fused cloths' runs).
    constraints: Vec<Constraint>,
    /// The global colors: the cloths', then the coarse levels'.
    colors: Vec<ColorRange>,
    /// The snapshot range, then each level's prolongation range.
    coarse_ranges: Vec<ColorRange>,
    snapshot: Vec<Vec4>,
    fused_colors: Vec<ColorRange>,
    fused_levels: Vec<FusedLevel>,
    fused_nodes: Vec<u32>,
    fused_prolongations: Vec<Prolongation>,
    tethers: Tethers,
    health: Health,
    /// Each fused cloth's rest state (the GPU keeps these after the health flag).
    rests: Vec<ClothRest>,
    /// Every mesh collider's distance samples.
    grid: Vec<f32>,
    /// Self-collision: rest positions (cloth in w), the hash table, the buckets, the pushed
    /// positions, the positions in bucket order; and the scan's block length (the GPU's workgroup size).
    rest: Vec<Vec4>,
    /// The box-edge contacts: the triangle table (`contact::edges`) and its pushes
    /// (`config::EDGE_PUSH_ROWS` a triangle).
    triangle_table: Vec<u32>,
    pushes: Vec<Vec4>,
    /// The wind at each particle this frame (the air's forces go in `pushes`).
    winds: Vec<Vec4>,
    table: Vec<u32>,
    hash: Vec<u32>,
    moved: Vec<Vec4>,
    sorted: Vec<Vec4>,
    workgroup_size: u32,
    lists: SelfListsWatch,
}

impl CpuEngine {
    /// An empty engine whose self-collision scan runs in blocks of `workgroup_size`.
    pub(crate) fn new(workgroup_size: u32) -> Self {
        Self {
            workgroup_size,
            ..Self::default()
        }
    }
}

impl Default for CpuEngine {
    fn default() -> Self {
        Self {
            positions: Vec::new(),
            previous: Vec::new(),
            multipliers: Vec::new(),
            global: Hierarchy::concat(&[], 0).expect("an empty hierarchy is valid"),
            constraints: Vec::new(),
            colors: Vec::new(),
            coarse_ranges: Vec::new(),
            snapshot: Vec::new(),
            fused_colors: Vec::new(),
            fused_levels: Vec::new(),
            fused_nodes: Vec::new(),
            fused_prolongations: Vec::new(),
            tethers: Tethers::none(0),
            health: Health::CLEAR,
            rests: Vec::new(),
            grid: Vec::new(),
            rest: Vec::new(),
            triangle_table: Vec::new(),
            pushes: Vec::new(),
            winds: Vec::new(),
            table: Vec::new(),
            hash: Vec::new(),
            moved: Vec::new(),
            sorted: Vec::new(),
            workgroup_size: crate::config::DEFAULT_WORKGROUP_SIZE,
            lists: SelfListsWatch::default(),
        }
    }
}

impl Engine for CpuEngine {
    fn name(&self) -> String {
        "cpu reference".into()
    }

    fn workgroup_capacity(&self) -> u32 {
        0
    }

    fn load(&mut self, layout: &Layout, positions: &[Vec4], previous: &[Vec4]) -> Result<()> {
        self.positions = positions.to_vec();
        self.previous = previous.to_vec();
        self.multipliers = vec![0.0; layout.constraints.len()];
        self.global = layout.global.clone();
        self.constraints = layout.constraints.clone();
        self.colors = layout.global.constraints().color_ranges();
        self.coarse_ranges = layout.global.ranges();
        self.snapshot = vec![Vec4::ZERO; layout.global.nodes().len()];
        self.fused_colors = layout.fused_colors.clone();
        self.fused_levels = layout.fused_levels.clone();
        self.fused_nodes = layout.fused_nodes.clone();
        self.fused_prolongations = layout.fused_prolongations.clone();
        // A new layout starts every cloth awake (as the GPU engine does).
        self.rests = vec![ClothRest::AWAKE; layout.records.len()];
        self.tethers = layout.tethers.clone();
        self.rest = layout.rest.clone();
        self.triangle_table = layout.triangle_table.clone();
        let triangles = self.triangle_table.first().copied().unwrap_or(0) as usize;
        self.pushes = vec![Vec4::ZERO; crate::config::EDGE_PUSH_ROWS * triangles];
        let n = layout.particle_count as usize;
        let cells = crate::config::hash_cells(layout.global_particles);
        self.table = vec![0; crate::config::self_table_len(cells, self.workgroup_size)];
        self.hash = vec![0; crate::config::self_hash_len(n)];
        self.moved = vec![Vec4::ZERO; crate::config::self_moved_len(n)];
        self.winds = vec![Vec4::ZERO; n];
        self.sorted = vec![Vec4::ZERO; n];
        self.lists.invalidate();
        Ok(())
    }

    fn state(&mut self) -> Result<(Vec<Vec4>, Vec<Vec4>)> {
        Ok((self.positions.clone(), self.previous.clone()))
    }

    fn positions(&mut self) -> Result<Vec<Vec4>> {
        Ok(self.positions.clone())
    }

    fn write_positions(&mut self, offset: u32, positions: &[Vec4]) {
        self.positions[offset as usize..][..positions.len()].copy_from_slice(positions);
    }

    fn write_previous(&mut self, offset: u32, previous: &[Vec4]) {
        self.previous[offset as usize..][..previous.len()].copy_from_slice(previous);
    }

    fn write_inverse_mass(&mut self, index: u32, inverse_mass: f32) {
        self.positions[index as usize].w = inverse_mass;
        self.lists.invalidate();
    }

    fn write_tethers(&mut self, offset: u32, slots: &[TetherSlot]) {
        self.tethers.write_slots(offset, slots);
    }

    fn load_grids(&mut self, samples: &[f32]) -> Result<()> {
        self.grid = samples.to_vec();
        Ok(())
    }

    fn frame(
        &mut self,
        frame: &WorldFrame<'_>,
        _timer: Option<&mut StageTimer>,
    ) -> Result<Option<Health>> {
        if self.lists.must_build(frame) {
            let word = crate::config::self_build_word(self.table.len());
            self.table[word] = 1;
        }
        // The frame runs on one of rayon's threads: its passes then split between that thread
        // and the pool's others without handing each pass to the pool and waiting for it (a
        // wake-up and a sleep of the calling thread per pass, dozens a substep).
        rayon::scope(|_| frame.schedule.run(&mut CpuFrame { frame, e: self }));
        Ok(Some(self.health))
    }

    fn health(&mut self) -> Result<Health> {
        Ok(self.health)
    }

    fn rests(&mut self) -> Result<Vec<ClothRest>> {
        Ok(self.rests.clone())
    }

    fn wake(&mut self, fused: std::ops::Range<u32>) {
        let end = (fused.end as usize).min(self.rests.len());
        for r in &mut self.rests[(fused.start as usize).min(end)..end] {
            *r = ClothRest::AWAKE;
        }
    }

    fn clear_health(&mut self) -> Result<()> {
        self.health = Health::CLEAR;
        Ok(())
    }

    fn wait(&mut self) -> Result<()> {
        Ok(())
    }

    fn position_buffer(&self) -> Option<&wgpu::Buffer> {
        None
    }

    fn gpu_bytes(&self) -> Option<u64> {
        None
    }

    fn hash_tables(&mut self) -> Result<Option<(Vec<u32>, Vec<u32>)>> {
        Ok((!self.table.is_empty()).then(|| (self.table.clone(), self.hash.clone())))
    }
}

/// Runs a frame's passes by calling the twins.
struct CpuFrame<'a> {
    frame: &'a WorldFrame<'a>,
    e: &'a mut CpuEngine,
}

impl Executor for CpuFrame<'_> {
    fn stage(&mut self, _: Stage, passes: &mut dyn Iterator<Item = Pass>) {
        let e = &mut *self.e;
        let f = self.frame;
        let plan = f.plan;
        // Consecutive sweeps over colors run together (`sweep_colors`: one team of threads
        // for the run, not a rayon call each).
        let mut sweeps: Vec<ColorPass> = Vec::new();
        let mut passes = passes.peekable();
        while let Some(pass) = passes.next() {
            match pass {
                Pass::SolveColor {
                    color,
                    first_sweep,
                    substep,
                } => {
                    let range = e.colors[color as usize];
                    let range = if first_sweep { range.first() } else { range };
                    sweeps.push(ColorPass::Solve(range, plan.step(substep)));
                }
                Pass::LimitColor { color, substep } => {
                    sweeps.push(ColorPass::Limit(
                        e.colors[color as usize],
                        plan.step(substep),
                    ));
                }
                _ => {}
            }
            let run_ends = !matches!(
                passes.peek(),
                Some(Pass::SolveColor { .. } | Pass::LimitColor { .. })
            );
            if !sweeps.is_empty() && run_ends {
                sweep_colors(
                    &sweeps,
                    e.global.constraints(),
                    &mut e.positions,
                    &e.previous,
                    &mut e.multipliers,
                    f.materials,
                );
                sweeps.clear();
            }
            match pass {
                Pass::AirWinds => air_winds(air(f), &e.positions, &mut e.winds),
                Pass::AirForces => air_forces(
                    air(f),
                    &e.positions,
                    &e.previous,
                    &e.triangle_table,
                    &e.winds,
                    &mut e.pushes,
                ),
                Pass::ApplyAir => apply_air(
                    air(f),
                    &e.positions,
                    &mut e.previous,
                    &e.triangle_table,
                    &e.winds,
                    &e.pushes,
                ),
                Pass::Integrate(s) => integrate(&plan.step(s), &mut e.positions, &mut e.previous),
                Pass::Snapshot => snapshot_nodes(
                    &e.coarse_ranges[0],
                    e.global.nodes(),
                    &e.positions,
                    &mut e.snapshot,
                ),
                // Gathered above.
                Pass::SolveColor { .. } | Pass::LimitColor { .. } => {}
                Pass::Prolong { level } => prolong(
                    &e.coarse_ranges[1 + level as usize],
                    &e.global,
                    &mut e.positions,
                    &e.snapshot,
                ),
                Pass::Tethers(s) => solve_tethers(&plan.step(s), &mut e.positions, &e.tethers),
                Pass::SelfCollision { step, substep } => {
                    let p = plan.step(substep);
                    let wg = e.workgroup_size;
                    let mut b = SelfCollisionBuffers {
                        positions: &mut e.positions,
                        previous: &e.previous,
                        rest: &e.rest,
                        table: &mut e.table,
                        hash: &mut e.hash,
                        moved: &mut e.moved,
                        sorted: &mut e.sorted,
                    };
                    match step {
                        SelfStep::Check => hash::self_check(&p, wg, &mut b),
                        SelfStep::Plan => hash::self_plan(&p, wg, &mut b),
                        SelfStep::Clear => hash::hash_clear(&p, wg, &mut b),
                        SelfStep::Count => hash::hash_count(&p, wg, &mut b),
                        SelfStep::ScanBlocks => hash::hash_scan_blocks(&p, wg, &mut b),
                        SelfStep::ScanSums => hash::hash_scan_sums(&p, wg, &mut b),
                        SelfStep::ScanAdd => hash::hash_scan_add(&p, wg, &mut b),
                        SelfStep::Scatter => hash::hash_scatter(&p, wg, &mut b),
                        SelfStep::Sort => hash::hash_sort(&p, wg, &mut b),
                        SelfStep::Candidates => hash::self_candidates(&p, wg, &mut b),
                        SelfStep::Collide => hash::self_collide(&p, &mut b),
                        SelfStep::Apply => hash::self_apply(&p, wg, &mut b),
                    }
                }
                Pass::Collide(s) => collide(
                    &plan.step(s),
                    &mut e.positions,
                    &mut e.previous,
                    f.colliders,
                    &e.grid,
                    f.collider_cells,
                ),
                Pass::EdgeContacts(s) => edge_contacts(
                    &plan.step(s),
                    &e.positions,
                    &e.previous,
                    f.colliders,
                    f.collider_cells,
                    &e.triangle_table,
                    &mut e.pushes,
                ),
                Pass::ApplyEdgeContacts(s) => apply_edge_contacts(
                    &plan.step(s),
                    &mut e.positions,
                    &mut e.previous,
                    &e.triangle_table,
                    &e.pushes,
                ),
                Pass::SolveCloths { workgroup_memory } => solve_cloths(
                    &f.fused,
                    &plan.first,
                    &plan.rest,
                    f.records,
                    workgroup_memory,
                    &e.fused_colors,
                    &e.fused_levels,
                    &e.fused_nodes,
                    &e.fused_prolongations,
                    &e.constraints,
                    &mut e.positions,
                    &mut e.previous,
                    &mut e.multipliers,
                    e.tethers.slots(),
                    &mut e.health,
                    &mut e.rests,
                    f.colliders,
                    &e.grid,
                    f.collider_cells,
                ),
                Pass::Health => check_health(&plan.step(0), &e.positions, &mut e.health),
            }
        }
    }
}

/// The frame's air block: a frame with the air stage always has one.
fn air<'a>(f: &'a WorldFrame<'_>) -> &'a crate::config::AirParams {
    f.air
        .as_ref()
        .expect("a frame with the air stage has its block")
}
