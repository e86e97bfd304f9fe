//! What the demo steps: one [`World`] for every scene (the cloth scene is a world of one cloth,
//! as a [`crate::Solver`] is), what the scene moves by itself ([`Motion`]), and the one surface
//! that draws all its cloths straight from the world's position buffer.

use anyhow::{Context, Result};
use glam::Vec3;

use crate::Backend;
use crate::cloth::Cloth;
use crate::panel::Counts;
use crate::quality::Stretch;
use crate::tools::scenes::{self, Motion};
use crate::view::camera::{Ray, pick};
use crate::world::{ClothHandle, ClothOptions, World, WorldCapacity, WorldConfig};

/// A world, its cloths and the surface that draws them.
pub(crate) struct Sim {
    /// Stepped, reset and given its parameters directly by the demo.
    pub(crate) world: World,
    /// Every cloth's triangles (and UVs) in the world's particle numbering, for drawing only:
    /// it has no constraints, so its masses and pins mean nothing (ask `world.cloth`).
    surface: Cloth,
    /// Whether the particles each cloth was built with pinned are held (the pin toggle).
    pins_held: bool,
    /// What the scene moves by itself before each step.
    pub(crate) motion: Motion,
    /// Simulated time since the start or the last reset (s): the motion's clock.
    elapsed: f64,
}

/// A particle under the cursor: its cloth, its index in that cloth, and where it is (m).
pub(crate) struct Picked {
    pub(crate) cloth: ClothHandle,
    pub(crate) index: usize,
    pub(crate) position: Vec3,
}

impl Sim {
    /// A world of `cloths` on `backend` (the demo's is a GPU; the tests use the CPU), with
    /// room for exactly these cloths, coarse levels included.
    pub(crate) fn new(
        backend: Backend<'_>,
        cloths: &[(Cloth, ClothOptions)],
        params: crate::SolverParams,
        paths: crate::world::PathChoice,
    ) -> Result<Self> {
        let capacity = cloths
            .iter()
            .map(|(c, _)| WorldCapacity::for_cloths(1, c))
            .fold(
                WorldCapacity {
                    cloths: 0,
                    particles: 0,
                    constraints: 0,
                },
                |a, c| WorldCapacity {
                    cloths: a.cloths + c.cloths,
                    particles: a.particles + c.particles,
                    constraints: a.constraints + c.constraints,
                },
            );
        let config = WorldConfig {
            capacity,
            paths,
            ..WorldConfig::default()
        };
        let mut world = World::new(backend, params, config)?;
        for (cloth, options) in cloths {
            world.add(cloth, *options)?;
        }
        let surface = crate::view::world_surface(&mut world)?;
        Ok(Self {
            world,
            surface,
            pins_held: true,
            motion: Motion::Still,
            elapsed: 0.0,
        })
    }

    /// Advances one frame of `dt` seconds: the scene's motion to the frame's end, then the
    /// world's step (timed per stage with `timer` where given).
    pub(crate) fn step(
        &mut self,
        dt: f64,
        timer: Option<&mut crate::gpu::StageTimer>,
    ) -> Result<()> {
        let (from, to) = (self.elapsed, self.elapsed + dt);
        if self
            .motion
            .before_step(&mut self.world, from, to, self.pins_held)?
        {
            self.toggle_pins()?;
        }
        self.world.step_timed(dt, timer)?;
        self.elapsed = to;
        Ok(())
    }

    /// The surface drawn: every cloth of the world, in its position buffer's numbering.
    pub(crate) fn surface(&self) -> &Cloth {
        &self.surface
    }

    /// The buffer the renderer reads positions from.
    pub(crate) fn position_buffer(&self) -> Result<&wgpu::Buffer> {
        self.world
            .position_buffer()
            .context("the demo draws from a GPU world; this one is on the CPU")
    }

    /// Returns every cloth to its start, its pins held again.
    pub(crate) fn reset(&mut self) -> Result<()> {
        self.world.reset()?;
        self.pins_held = true;
        self.elapsed = 0.0;
        Ok(())
    }

    /// Whether the cloths' own pins are held (false after [`Sim::toggle_pins`] released them).
    pub(crate) fn pins_held(&self) -> bool {
        self.pins_held
    }

    /// Releases the particles every cloth was built with pinned (the grid's corners, a mesh's
    /// pins, the flags' poles), or holds them again where they are now.
    pub(crate) fn toggle_pins(&mut self) -> Result<()> {
        self.pins_held = !self.pins_held;
        scenes::set_pins_held(&mut self.world, self.pins_held)?;
        Ok(())
    }

    /// The particle nearest the camera within a few edge lengths of `ray`, over every cloth
    /// (one readback: on a click only).
    pub(crate) fn pick(&mut self, ray: &Ray) -> Result<Option<Picked>> {
        let mut best: Option<(Picked, f32)> = None;
        for (h, positions) in self.world.all_positions()? {
            let radius = 2.5 * self.world.cloth(h)?.mean_edge_length().max(0.004);
            if let Some((index, t)) = pick(ray, &positions, radius)
                && best.as_ref().is_none_or(|(_, bt)| t < *bt)
            {
                let position = positions[index];
                let picked = Picked {
                    cloth: h,
                    index,
                    position,
                };
                best = Some((picked, t));
            }
        }
        Ok(best.map(|(p, _)| p))
    }

    /// Stretch over every cloth ([`crate::quality::stretch_of_cloths`]).
    pub(crate) fn stretch(&mut self) -> Result<Stretch> {
        let all = self.world.all_positions()?;
        let cloths = all
            .iter()
            .map(|(h, p)| Ok((self.world.cloth(*h)?, p.as_slice())))
            .collect::<Result<Vec<_>>>()?;
        Ok(crate::quality::stretch_of_cloths(cloths))
    }

    /// For the HUD: particles and constraints of all cloths, the most colors of one, and how
    /// many cloths.
    pub(crate) fn counts(&self) -> Counts {
        Counts::of(&self.world)
    }
}

#[cfg(test)]
mod tests {
    use super::super::scene;
    use super::*;
    use crate::panel::Settings;
    use crate::tools::scenes::DemoScene;

    /// A CPU world of the scene `settings` show.
    fn cpu_sim(settings: &Settings) -> Sim {
        scene::build(Backend::Cpu, settings).unwrap()
    }

    /// The inverse masses of `sim`'s first cloth, as the kernels see them.
    fn inverse_masses(sim: &mut Sim) -> Vec<f32> {
        let h = sim.world.handles()[0];
        let p = sim.world.raw_positions(h).unwrap();
        p.iter().map(|p| p.w).collect()
    }

    /// Regression: the panel's Pin/Unpin corners button flipped the state twice, so it did
    /// nothing (the P key worked). Both now send one `Action::TogglePins`, and only the `Sim`
    /// holds the state.
    #[test]
    fn pin_button_toggles_the_corners_once() {
        let settings = Settings::new(DemoScene::Cloth, 8, 1, None);
        let mut sim = cpu_sim(&settings);
        let h = sim.world.handles()[0];
        let free = [0, 7].map(|i| sim.world.cloth(h).unwrap().free_inverse_masses()[i]);
        assert!(free.iter().all(|&w| w > 0.0));
        let corners = |sim: &mut Sim| {
            let w = inverse_masses(sim);
            [w[0], w[7]]
        };
        assert_eq!(corners(&mut sim), [0.0, 0.0], "the corners start pinned");
        sim.toggle_pins().unwrap();
        assert!(!sim.pins_held());
        assert_eq!(corners(&mut sim), free, "one click frees the corners");
        sim.toggle_pins().unwrap();
        assert!(sim.pins_held());
        assert_eq!(corners(&mut sim), [0.0, 0.0], "a second click pins them");
        sim.toggle_pins().unwrap();
        sim.reset().unwrap();
        assert!(sim.pins_held(), "a reset holds the pins again");
        assert_eq!(corners(&mut sim), [0.0, 0.0]);
    }

    #[test]
    fn the_pin_button_releases_a_meshs_group_pins() {
        let flag =
            crate::ClothBuilder::obj(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/flag.obj"))
                .unwrap()
                .pinning(crate::Pinning::Group("pole".into()));
        let settings = Settings::new(DemoScene::Cloth, 8, 1, Some(flag));
        let mut sim = cpu_sim(&settings);
        let cloth = sim.world.cloth(sim.world.handles()[0]).unwrap().clone();
        let pinned: Vec<usize> = (0..cloth.particle_count())
            .filter(|&i| cloth.is_pinned(i))
            .collect();
        assert!(pinned.len() >= 2);
        sim.toggle_pins().unwrap();
        let w = inverse_masses(&mut sim);
        for &i in &pinned {
            assert_eq!(w[i], cloth.free_inverse_masses()[i]);
        }
    }

    /// The cloth scene is a world of one cloth, drawn as that cloth: same particles, same
    /// triangles, and the same UVs where it has them.
    #[test]
    fn the_cloth_scene_draws_its_one_cloth_as_built() {
        let settings = Settings::new(DemoScene::Cloth, 8, 1, None);
        let sim = cpu_sim(&settings);
        let cloth = crate::tools::scenes::demo_cloth(8, true, crate::Membrane::Edges).unwrap();
        let surface = sim.surface();
        assert_eq!(surface.positions(), cloth.positions());
        assert_eq!(surface.triangles(), cloth.triangles());
        assert_eq!(surface.uvs(), cloth.uvs());
        assert_eq!(sim.counts().cloths, 1);
        assert_eq!(sim.counts().constraints, cloth.constraint_count());
    }

    /// Grab works on any cloth of the world: a click on one flag of the field picks that flag,
    /// at the particle clicked.
    #[test]
    fn a_click_on_any_flag_picks_it() {
        let settings = Settings::new(DemoScene::Flags, 8, 2, None);
        let mut sim = cpu_sim(&settings);
        let all = sim.world.all_positions().unwrap();
        // The last flag, in the front row; looked at square on from in front of the field.
        let (h, p) = &all[3];
        let columns = crate::tools::scenes::FLAG_PARTICLES.0 as usize;
        let normal = (p[1] - p[0]).cross(p[columns] - p[0]).normalize();
        let normal = if normal.z < 0.0 { -normal } else { normal };
        let target = p[3 * columns + 4];
        let ray = Ray {
            origin: target + 0.5 * normal,
            dir: -normal,
        };
        let picked = sim.pick(&ray).unwrap().expect("the ray meets the flag");
        assert_eq!(picked.cloth, *h);
        // Within the pick radius (2.5 edge lengths) of the click: seen square on, the flat flag's
        // particles there are all equally near the camera.
        let edge = sim.world.cloth(*h).unwrap().mean_edge_length();
        assert!((picked.position - target).length() <= 2.5 * edge);
        assert_eq!(picked.position, p[picked.index]);
    }
}
