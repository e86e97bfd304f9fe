//! A world on the CPU reference: the twins of the per-pass kernels over the global cloths and
//! the twin of the fused kernel over the others, in the schedule's order.

use glam::Vec4;

use super::layout::Layout;
use super::{Engine, WorldFrame};
use crate::coloring::ColoredConstraints;
use crate::config::{ColorRange, Constraint, Health};
use crate::cpu::{check_health, collide, integrate, solve_cloths, solve_color, solve_tethers};
use crate::error::Result;
use crate::schedule::{Executor, Pass, Stage};
use crate::tethers::Tethers;

/// The world's buffers as plain vectors.
pub(crate) struct CpuEngine {
    positions: Vec<Vec4>,
    previous: Vec<Vec4>,
    multipliers: Vec<f32>,
    global: ColoredConstraints,
    constraints: Vec<Constraint>,
    colors: Vec<ColorRange>,
    fused_colors: Vec<ColorRange>,
    tethers: Tethers,
    health: Health,
}

impl Default for CpuEngine {
    fn default() -> Self {
        Self {
            positions: Vec::new(),
            previous: Vec::new(),
            multipliers: Vec::new(),
            global: ColoredConstraints::from_sorted(Vec::new(), Vec::new(), 0)
                .expect("an empty coloring is valid"),
            constraints: Vec::new(),
            colors: Vec::new(),
            fused_colors: Vec::new(),
            tethers: Tethers::none(0),
            health: Health {
                first_bad: Health::OK,
            },
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
        self.colors = layout.global.colors().iter().map(ColorRange::new).collect();
        self.fused_colors = layout.fused_colors.clone();
        self.tethers = layout.tethers.clone();
        Ok(())
    }

    fn state(&mut self) -> Result<(Vec<Vec4>, Vec<Vec4>)> {
        Ok((self.positions.clone(), self.previous.clone()))
    }

    fn positions(&mut self) -> Result<Vec<Vec4>> {
        Ok(self.positions.clone())
    }

    fn write_previous(&mut self, offset: u32, previous: &[Vec4]) {
        self.previous[offset as usize..][..previous.len()].copy_from_slice(previous);
    }

    fn frame(
        &mut self,
        frame: &WorldFrame<'_>,
        _timer: Option<&mut crate::gpu::StageTimer>,
    ) -> Result<Option<Health>> {
        frame.schedule.run(&mut CpuWorldFrame { frame, e: self });
        Ok(Some(self.health))
    }

    fn health(&mut self) -> Result<Health> {
        Ok(self.health)
    }

    fn clear_health(&mut self) -> Result<()> {
        self.health.first_bad = Health::OK;
        Ok(())
    }

    fn wait(&mut self) -> Result<()> {
        Ok(())
    }

    fn position_buffer(&self) -> Option<&wgpu::Buffer> {
        None
    }
}

/// Runs a world frame's passes by calling the twins.
struct CpuWorldFrame<'a> {
    frame: &'a WorldFrame<'a>,
    e: &'a mut CpuEngine,
}

impl Executor for CpuWorldFrame<'_> {
    fn stage(&mut self, _: Stage, passes: &mut dyn Iterator<Item = Pass>) {
        let e = &mut *self.e;
        let f = self.frame;
        let plan = f.plan;
        for pass in passes {
            match pass {
                Pass::Start => crate::cpu::start(&plan.first, &e.positions, &mut e.previous),
                Pass::Integrate(slot) => {
                    integrate(plan.slot(slot), &mut e.positions, &mut e.previous)
                }
                Pass::SolveColor {
                    color,
                    first_sweep,
                    slot,
                } => {
                    let range = e.colors[color as usize];
                    solve_color(
                        &if first_sweep { range.first() } else { range },
                        &e.global,
                        &mut e.positions,
                        &e.previous,
                        &mut e.multipliers,
                        plan.slot(slot),
                        f.materials,
                    )
                }
                Pass::Tethers(slot) => solve_tethers(plan.slot(slot), &mut e.positions, &e.tethers),
                Pass::Collide(slot) => collide(plan.slot(slot), &mut e.positions, &mut e.previous),
                Pass::SolveCloths { workgroup_memory } => solve_cloths(
                    &f.fused,
                    &plan.first,
                    &plan.rest,
                    f.records,
                    workgroup_memory,
                    &e.fused_colors,
                    &e.constraints,
                    &mut e.positions,
                    &mut e.previous,
                    &mut e.multipliers,
                    e.tethers.slots(),
                    &mut e.health,
                ),
                Pass::Health => check_health(&plan.first, &e.positions, &mut e.health),
                Pass::Snapshot | Pass::Prolong { .. } => {
                    unreachable!("a world's cloths have no coarse levels")
                }
            }
        }
    }
}
