//! What the windowed demo and the web page both draw with (feature `view`): the orbit camera
//! (`camera.rs`), the renderer that draws the cloths straight from the solver's position
//! buffer with the colliders and the ground (`render.rs`, with `shaders/render.wgsl` and
//! `solids.wgsl`), and the one surface of a world's cloths it draws (`surface.rs`). One
//! renderer and one camera, so the page shows what `chiffon demo` shows.

pub mod camera;
pub mod render;
mod surface;

pub use surface::world_surface;
