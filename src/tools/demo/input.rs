//! Mouse and keyboard: grab and drag a particle, orbit and zoom the camera, and the keys
//! (Space pause, N step, R reset, W wind, P pins, arrows move the sphere).
//!
//! What a key shares with a panel button is an [`Action`], carried out in one place
//! (`State::apply` in app.rs), so the key and the button do the same thing, once.

use glam::{Vec2, Vec3};
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::keyboard::{KeyCode, PhysicalKey};

use super::camera::{OrbitCamera, ray_plane};
use super::settings::Settings;
use super::sim::Sim;
use crate::world::ClothHandle;
use anyhow::Result;

/// What a key or a panel button asks of the demo beyond a change of settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Build the scene again (another scene, resolution or flag count).
    Rebuild,
    /// Every cloth back to its start.
    Reset,
    /// Release the cloths' pins, or hold them again.
    TogglePins,
}

/// A grabbed particle, dragged in the plane through the grab point facing the camera.
struct Grab {
    cloth: ClothHandle,
    index: usize,
    plane_point: Vec3,
    plane_normal: Vec3,
    /// Its inverse mass before the grab, given back on release.
    inverse_mass: f32,
}

/// The mouse: where it is, and whether it orbits the camera or holds a particle.
#[derive(Default)]
pub(crate) struct Pointer {
    /// Cursor position (physical pixels from the top left).
    cursor: Vec2,
    orbiting: bool,
    grab: Option<Grab>,
}

impl Pointer {
    /// Handles a mouse event (`consumed` when the panel took it); other events pass through.
    pub(crate) fn event(
        &mut self,
        event: &WindowEvent,
        consumed: bool,
        sim: &mut Sim,
        camera: &mut OrbitCamera,
        viewport: Vec2,
    ) -> Result<()> {
        match event {
            WindowEvent::CursorMoved { position, .. } => {
                let p = Vec2::new(position.x as f32, position.y as f32);
                if self.orbiting {
                    camera.orbit(p - self.cursor);
                }
                self.cursor = p;
            }
            WindowEvent::MouseWheel { delta, .. } if !consumed => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                camera.zoom(steps);
            }
            WindowEvent::MouseInput { state, button, .. } => match (state, button) {
                // On the cloth: grab; elsewhere: orbit.
                (ElementState::Pressed, MouseButton::Left) if !consumed => {
                    self.orbiting = !self.try_grab(sim, camera, viewport)?;
                }
                (ElementState::Pressed, MouseButton::Right) if !consumed => self.orbiting = true,
                (ElementState::Released, _) => {
                    self.orbiting = false;
                    if let Some(g) = self.grab.take() {
                        sim.world
                            .set_inverse_mass(g.cloth, g.index, g.inverse_mass)?;
                    }
                }
                _ => {}
            },
            _ => {}
        }
        Ok(())
    }

    /// Picks the particle under the cursor (a readback, on click only) and holds it.
    fn try_grab(&mut self, sim: &mut Sim, camera: &OrbitCamera, viewport: Vec2) -> Result<bool> {
        let ray = camera.ray(self.cursor, viewport);
        let Some(picked) = sim.pick(&ray)? else {
            return Ok(false);
        };
        let (cloth, index) = (picked.cloth, picked.index);
        let inverse_mass = sim.world.raw_positions(cloth)?[index].w;
        sim.world.set_particle(cloth, index, picked.position, 0.0)?;
        self.grab = Some(Grab {
            cloth,
            index,
            plane_point: picked.position,
            plane_normal: camera.forward(),
            inverse_mass,
        });
        Ok(true)
    }

    /// Moves the held particle under the cursor (before each step).
    pub(crate) fn drag(&self, sim: &mut Sim, camera: &OrbitCamera, viewport: Vec2) -> Result<()> {
        let ray = camera.ray(self.cursor, viewport);
        if let Some(g) = &self.grab
            && let Some(p) = ray_plane(&ray, g.plane_point, g.plane_normal)
        {
            sim.world.set_particle(g.cloth, g.index, p, 0.0)?;
        }
        Ok(())
    }

    /// Lets go without restoring anything: the world was reset or rebuilt under the grab.
    pub(crate) fn forget_grab(&mut self) {
        self.grab = None;
    }
}

/// What a key press does: a setting changed here, or an [`Action`] for the demo to carry out.
pub(crate) fn key(event: &winit::event::KeyEvent, settings: &mut Settings) -> Option<Action> {
    let PhysicalKey::Code(key) = event.physical_key else {
        return None;
    };
    match key {
        KeyCode::Space => settings.paused = !settings.paused,
        KeyCode::KeyN => settings.step_once = true,
        KeyCode::KeyW => settings.wind_on = !settings.wind_on,
        KeyCode::KeyR => return Some(Action::Reset),
        KeyCode::KeyP => return Some(Action::TogglePins),
        other => {
            settings.colliders.key(other);
        }
    }
    None
}
