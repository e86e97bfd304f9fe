//! Mouse and keyboard: grab and drag a particle, orbit and zoom the camera, and the keys
//! (Space pause, N step, R reset, W wind, P pins, arrows move the sphere).
//!
//! What a key shares with a panel button is a [`crate::panel::Action`], carried out in one place
//! (`State::apply` in app.rs), so the key and the button do the same thing, once.

use glam::{Vec2, Vec3};
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::keyboard::{KeyCode, PhysicalKey};

use super::sim::Sim;
use crate::panel::{Action, Key, Settings};
use crate::view::camera::{OrbitCamera, ray_plane};
use crate::world::ClothHandle;
use anyhow::Result;

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
            // Carried over the frame's substeps, so a fast drag does not jerk the cloth.
            sim.world.move_pin(g.cloth, g.index, p)?;
        }
        Ok(())
    }

    /// Lets go without restoring anything: the world was reset or rebuilt under the grab.
    pub(crate) fn forget_grab(&mut self) {
        self.grab = None;
    }
}

/// What a key press does: [`Settings::key`] on the demo's key of winit's key code.
pub(crate) fn key(event: &winit::event::KeyEvent, settings: &mut Settings) -> Option<Action> {
    let PhysicalKey::Code(code) = event.physical_key else {
        return None;
    };
    settings.key(demo_key(code)?)
}

/// The demo's key of a winit key code, if it is one.
fn demo_key(code: KeyCode) -> Option<Key> {
    Some(match code {
        KeyCode::Space => Key::Space,
        KeyCode::KeyN => Key::N,
        KeyCode::KeyW => Key::W,
        KeyCode::KeyR => Key::R,
        KeyCode::KeyP => Key::P,
        KeyCode::ArrowLeft => Key::Left,
        KeyCode::ArrowRight => Key::Right,
        KeyCode::ArrowUp => Key::Up,
        KeyCode::ArrowDown => Key::Down,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The page maps the DOM's `KeyboardEvent.code` with `Key::from_code`, the native demo
    /// winit's key codes with `demo_key`; winit names its codes after the DOM's, so the two
    /// must agree on every key.
    #[test]
    fn winit_and_the_page_map_the_same_keys() {
        for code in [
            KeyCode::Space,
            KeyCode::KeyN,
            KeyCode::KeyW,
            KeyCode::KeyR,
            KeyCode::KeyP,
            KeyCode::ArrowLeft,
            KeyCode::ArrowRight,
            KeyCode::ArrowUp,
            KeyCode::ArrowDown,
            KeyCode::KeyQ,
            KeyCode::Enter,
            KeyCode::Digit1,
        ] {
            assert_eq!(
                demo_key(code),
                Key::from_code(&format!("{code:?}")),
                "{code:?}"
            );
        }
        assert!(demo_key(KeyCode::KeyP).is_some());
    }
}
