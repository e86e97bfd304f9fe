//! The demo's control panel, one for the native demo and the web page (feature `panel`): what
//! it edits ([`Settings`], with the colliders in [`Colliders`]) and its one mapping to
//! [`crate::SolverParams`], its rows and HUD ([`controls`]), the keys ([`Key`]), and its draw
//! pass ([`PanelRenderer`]). Each side feeds egui its own window system's events: winit in
//! `tools/demo/panel.rs`, the browser's in the web crate's `demo.rs`.

mod colliders;
mod controls;
mod renderer;
mod settings;

pub use colliders::Colliders;
pub use controls::{Counts, HELP, Hud, controls};
pub use renderer::PanelRenderer;
pub use settings::Action;
pub use settings::{Key, Settings};
