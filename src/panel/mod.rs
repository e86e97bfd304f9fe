//! The demo's control panel, one for the native demo and the web page (feature `panel`): what
//! it edits ([`Settings`](crate::panel::Settings), with the colliders in
//! [`Colliders`](crate::panel::Colliders)) and its one mapping to [`crate::SolverParams`], its
//! rows and HUD ([`controls`](crate::panel::controls)), the keys ([`Key`](crate::panel::Key)),
//! and its draw pass ([`PanelRenderer`](crate::panel::PanelRenderer)). Each side feeds egui its own window system's events: winit in
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
