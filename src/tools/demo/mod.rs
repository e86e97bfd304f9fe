//! The windowed demo (`cargo run --release`, `chiffon demo`): the cloths drawn straight from the
//! solver's position buffer, with an egui control panel and mouse interaction.
//!
//! One concern per file:
//! - `app.rs`: the options and the checks before the run, the winit event loop, and the
//!   window's state wired together (simulate, draw, present);
//! - `sim.rs`: what is stepped: one [`crate::World`] for every scene (the cloth scene is a world
//!   of one cloth), what the scene moves by itself, and the one surface that draws all its
//!   cloths;
//! - `scene.rs`: what differs from scene to scene (cloth, flags, heap, character, table), and
//!   how to add one;
//! - `input.rs`: grab and drag, orbit and zoom, the keys;
//! - `panel.rs`: the egui panel on winit; the panel itself (what it edits and its one mapping
//!   to [`crate::SolverParams`], its rows, the colliders' handling, its draw pass) is
//!   [`crate::panel`], which the web page shows too;
//! - `screenshot.rs`: `--screenshot`: the path checked before the run, readback, PNG;
//!
//! The renderer, the orbit camera and the surface they draw are [`crate::view`], which the web
//! page draws with too.

mod app;
mod input;
mod panel;
mod scene;
mod screenshot;
mod sim;

pub use app::{DemoOptions, run};
