//! The CPU reference solver: the same frame as the GPU, kernel for kernel, in plain Rust.

pub mod kernels;

use glam::{Vec3, Vec4};

use crate::cloth::Cloth;
use crate::cloth::ConstraintKind;
use crate::error::Result;
use crate::frame::{ColorRange, StepClock, start_previous_positions};
use crate::params::SolverParams;
use crate::solver::{Solver, apply_stiffness, check_particle_edit};

/// Steps a [`Cloth`] on the CPU; the reference the GPU is tested against.
pub struct CpuSolver {
    cloth: Cloth,
    params: SolverParams,
    clock: StepClock,
    positions: Vec<Vec4>,
    previous: Vec<Vec4>,
    colors: Vec<ColorRange>,
}

impl CpuSolver {
    /// Creates a solver at the cloth's initial state. Checks the cloth's coloring, which the
    /// parallel `solve_color` relies on.
    pub fn new(cloth: &Cloth, params: SolverParams) -> Result<Self> {
        params.validate()?;
        cloth.validate_coloring()?;
        let positions = initial_positions(cloth);
        Ok(Self {
            previous: positions.clone(),
            positions,
            colors: cloth.colors.iter().map(ColorRange::new).collect(),
            cloth: cloth.clone(),
            params,
            clock: StepClock::default(),
        })
    }

    /// Positions with inverse mass in w, exactly as the kernels see them.
    pub fn raw_positions(&self) -> &[Vec4] {
        &self.positions
    }
}

/// Packs positions with inverse masses into the kernels' vec4 layout.
pub(crate) fn initial_positions(cloth: &Cloth) -> Vec<Vec4> {
    cloth
        .positions
        .iter()
        .zip(&cloth.inverse_mass)
        .map(|(x, &w)| x.extend(w))
        .collect()
}

impl Solver for CpuSolver {
    fn step(&mut self, dt: f64) -> Result<()> {
        let plan = self
            .clock
            .plan(dt, &self.params, self.cloth.particle_count())?;
        if plan.starting {
            let accel = self.params.acceleration();
            self.previous = start_previous_positions(
                &self.positions,
                self.cloth.velocity,
                accel,
                plan.h as f32,
            );
        }
        // The same sequence the GPU records: integrate → iterations × colors → collide.
        for s in 0..self.params.substeps {
            let params = if s == 0 { &plan.first } else { &plan.rest };
            kernels::integrate(params, &mut self.positions, &mut self.previous);
            for _ in 0..self.params.iterations {
                for color in &self.colors {
                    kernels::solve_color(color, &self.cloth.constraints, &mut self.positions);
                }
            }
            kernels::collide(params, &mut self.positions, &mut self.previous);
        }
        Ok(())
    }

    fn positions(&mut self) -> Result<Vec<Vec3>> {
        Ok(self.positions.iter().map(|p| p.truncate()).collect())
    }

    fn params(&self) -> &SolverParams {
        &self.params
    }

    fn set_params(&mut self, params: SolverParams) -> Result<()> {
        params.validate()?;
        self.params = params;
        Ok(())
    }

    fn reset(&mut self) -> Result<()> {
        self.positions = initial_positions(&self.cloth);
        self.previous = self.positions.clone();
        self.clock.reset();
        Ok(())
    }

    fn cloth(&self) -> &Cloth {
        &self.cloth
    }

    fn backend_name(&self) -> String {
        "cpu reference".into()
    }

    fn set_particle(&mut self, index: usize, position: Vec3, inverse_mass: f32) -> Result<()> {
        check_particle_edit(&self.cloth, index, position, inverse_mass)?;
        self.positions[index] = position.extend(inverse_mass);
        self.previous[index] = position.extend(0.0);
        Ok(())
    }

    fn set_inverse_mass(&mut self, index: usize, inverse_mass: f32) -> Result<()> {
        let p = self
            .positions
            .get(index)
            .copied()
            .unwrap_or_default()
            .truncate();
        check_particle_edit(&self.cloth, index, p, inverse_mass)?;
        self.positions[index].w = inverse_mass;
        Ok(())
    }

    fn set_stiffness(&mut self, kind: ConstraintKind, stiffness: f32) -> Result<()> {
        apply_stiffness(&mut self.cloth, kind, stiffness)
    }
}
