//! The windowed demo (`cargo run --release`, `chiffon demo`): the cloth drawn straight from the
//! solver's position buffer, with an egui control panel and mouse interaction.

mod app;
pub mod camera;
pub mod render;
mod sim;

pub use app::{DemoOptions, run};
