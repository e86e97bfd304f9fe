//! What the demo steps: one [`GpuSolver`] (the grid or a mesh), or a [`World`] of many cloths
//! drawn as one mesh straight from the world's position buffer.

use glam::Vec3;

use crate::cloth::{Cloth, ClothDesc};
use crate::error::Result;
use crate::geometry::UvLayer;
use crate::gpu::{GpuContext, StageTimer};
use crate::params::SolverParams;
use crate::quality::Stretch;
use crate::solver::Solver;
use crate::world::{ClothHandle, ClothOptions, World, WorldCapacity, WorldConfig};

/// The demo's simulation.
pub(crate) enum Sim {
    /// One cloth: grab, pins and the per-cloth panel apply.
    Cloth(Box<Solver>),
    /// Many cloths in one world.
    World(Box<WorldSim>),
}

/// A world and the one surface that draws all its cloths.
pub(crate) struct WorldSim {
    world: World,
    handles: Vec<ClothHandle>,
    /// Every cloth's triangles (and UVs) in the world's particle numbering, for drawing.
    surface: Cloth,
}

impl WorldSim {
    /// A GPU world of `cloths`, and its drawing surface.
    pub(crate) fn new(
        ctx: &GpuContext,
        cloths: &[(Cloth, ClothOptions)],
        params: SolverParams,
    ) -> Result<Self> {
        let capacity = WorldCapacity {
            cloths: cloths.len() as u32,
            particles: cloths.iter().map(|c| c.0.particle_count() as u32).sum(),
            constraints: cloths.iter().map(|c| c.0.constraint_count() as u32).sum(),
        };
        let config = WorldConfig {
            capacity,
            ..WorldConfig::default()
        };
        let mut world = World::new(crate::Backend::Gpu(ctx), params, config)?;
        let handles = cloths
            .iter()
            .map(|(c, o)| world.add(c, *o))
            .collect::<Result<Vec<_>>>()?;
        let n = world.particle_count();
        let mut desc = ClothDesc {
            positions: vec![Vec3::ZERO; n],
            inverse_mass: vec![0.0; n],
            velocity: Vec3::ZERO,
            constraints: Vec::new(),
            triangles: Vec::new(),
            uvs: Some(UvLayer::default()),
            groups: Vec::new(),
        };
        for &h in &handles {
            let range = world.particle_range(h)?;
            let (start, end) = (range.start as usize, range.end as usize);
            let cloth = world.cloth(h)?;
            desc.positions[start..end].copy_from_slice(cloth.positions());
            desc.inverse_mass[start..end].copy_from_slice(cloth.inverse_masses());
            let shift = |t: &[u32; 3], by: u32| t.map(|v| v + by);
            desc.triangles
                .extend(cloth.triangles().iter().map(|t| shift(t, range.start)));
            let uvs = desc.uvs.as_mut().expect("made with a layer");
            let base = uvs.uvs.len() as u32;
            match cloth.uvs() {
                Some(layer) => {
                    uvs.uvs.extend_from_slice(&layer.uvs);
                    uvs.triangles
                        .extend(layer.triangles.iter().map(|t| shift(t, base)));
                }
                // A cloth without UVs: one UV per corner at the origin (a plain colour).
                None => {
                    uvs.uvs.push(glam::Vec2::ZERO);
                    uvs.triangles
                        .extend(cloth.triangles().iter().map(|_| [base; 3]));
                }
            }
        }
        Ok(Self {
            surface: Cloth::new(desc)?,
            world,
            handles,
        })
    }
}

impl Sim {
    /// The surface drawn: the cloth, or every cloth of the world in its buffer's numbering.
    pub(crate) fn cloth(&self) -> &Cloth {
        match self {
            Sim::Cloth(s) => s.cloth(),
            Sim::World(w) => &w.surface,
        }
    }

    /// The buffer the renderer reads positions from.
    pub(crate) fn position_buffer(&self) -> &wgpu::Buffer {
        match self {
            Sim::Cloth(s) => s
                .position_buffer()
                .expect("a GPU solver has a position buffer"),
            Sim::World(w) => w
                .world
                .position_buffer()
                .expect("a GPU world has a position buffer"),
        }
    }

    /// The lone cloth's solver (grab and pins), `None` for a world.
    pub(crate) fn solver(&mut self) -> Option<&mut Solver> {
        match self {
            Sim::Cloth(s) => Some(s),
            Sim::World(_) => None,
        }
    }

    /// Advances one frame, timing its stages with `timer` when given.
    pub(crate) fn step_timed(&mut self, dt: f64, timer: Option<&mut StageTimer>) -> Result<()> {
        match self {
            Sim::Cloth(s) => s.step_timed(dt, timer),
            Sim::World(w) => w.world.step_timed(dt, timer),
        }
    }

    pub(crate) fn set_params(&mut self, params: SolverParams) -> Result<()> {
        match self {
            Sim::Cloth(s) => s.set_params(params),
            Sim::World(w) => w.world.set_params(params),
        }
    }

    pub(crate) fn reset(&mut self) -> Result<()> {
        match self {
            Sim::Cloth(s) => s.reset(),
            Sim::World(w) => w.world.reset(),
        }
    }

    /// Stretch over every cloth: the largest max and p99, the mean of the means.
    pub(crate) fn stretch(&mut self) -> Result<Stretch> {
        match self {
            Sim::Cloth(s) => {
                let positions = s.positions()?;
                Ok(crate::quality::stretch(s.cloth(), &positions))
            }
            Sim::World(w) => {
                let all = w.world.all_positions()?;
                let mut total = Stretch {
                    mean: 0.0,
                    p99: 0.0,
                    max: 0.0,
                };
                for (h, positions) in &all {
                    let one = crate::quality::stretch(w.world.cloth(*h)?, positions);
                    total.mean += one.mean / all.len() as f64;
                    total.p99 = total.p99.max(one.p99);
                    total.max = total.max.max(one.max);
                }
                Ok(total)
            }
        }
    }

    /// Particles, constraints and colors (of one cloth) for the HUD, and how many cloths.
    pub(crate) fn counts(&self) -> (usize, usize, usize, usize) {
        match self {
            Sim::Cloth(s) => {
                let c = s.cloth();
                (
                    c.particle_count(),
                    c.constraint_count(),
                    c.colors().len(),
                    1,
                )
            }
            Sim::World(w) => {
                let cloths = w.handles.iter().filter_map(|&h| w.world.cloth(h).ok());
                let (constraints, colors) = cloths.fold((0, 0), |(m, c), cloth| {
                    (m + cloth.constraint_count(), c.max(cloth.colors().len()))
                });
                (
                    w.surface.particle_count(),
                    constraints,
                    colors,
                    w.handles.len(),
                )
            }
        }
    }

    pub(crate) fn backend_name(&self) -> String {
        match self {
            Sim::Cloth(s) => s.backend_name(),
            Sim::World(w) => w.world.backend_name(),
        }
    }
}
