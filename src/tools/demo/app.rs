//! The demo's options and checks before the run, the winit event loop, and [`State`]: the
//! window and everything drawn in it, wired together. Each frame: simulate (drag, parameters,
//! step), draw the cloth and the panel, present; or, in screenshot mode, write the PNG and
//! exit.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Result, anyhow, bail};
use glam::Vec2;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::window::{Window, WindowId};

use super::input::{self, Pointer};
use super::panel::Panel;
use super::scene;
use super::screenshot;
use super::sim::Sim;
use crate::gpu::context::poll;
use crate::gpu::{GpuContext, StageTimer};
use crate::panel::{Action, HELP, Hud, Settings};
use crate::tools::scenes::DemoScene;
use crate::view::camera::OrbitCamera;
use crate::view::render::{ClothMesh, Renderer, SceneView, Solids, Targets};

/// How to run the demo.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// Grid resolution N (N×N); `None` picks by adapter (256 on a GPU, 64 on a CPU adapter).
    pub grid: Option<u32>,
    /// A cloth to show instead of the grid (a mesh from an OBJ file, with its pins and
    /// placement), rebuilt from this builder on reset.
    pub mesh: Option<crate::ClothBuilder>,
    /// What holds the cloths of every scene (the panel switches).
    pub membrane: crate::Membrane,
    /// The scene to start with (the panel switches).
    pub scene: DemoScene,
    /// Flags per side of the flags scene; `None` picks by adapter (8 on a GPU, 4 on a CPU
    /// adapter).
    pub flags: Option<u32>,
    /// Start with the air on and the wind at this speed (m/s).
    pub wind: Option<f32>,
    /// Start with self-collision on or off (`None`: the scene's choice, on for the heap).
    pub self_collision: Option<bool>,
    /// Write a PNG of the scene after `frames` frames, then exit.
    pub screenshot: Option<PathBuf>,
    /// Frames to run before the screenshot.
    pub frames: u32,
    /// Window (and screenshot) size in pixels.
    pub size: (u32, u32),
}

impl Default for DemoOptions {
    fn default() -> Self {
        Self {
            grid: None,
            mesh: None,
            membrane: crate::Membrane::Edges,
            scene: DemoScene::Cloth,
            flags: None,
            wind: None,
            self_collision: None,
            screenshot: None,
            frames: 120,
            size: (1280, 720),
        }
    }
}

/// Frame time of screenshot mode (s): a fixed 60 fps, so the picture does not depend on the
/// machine's speed.
const SCREENSHOT_DT: f64 = 1.0 / 60.0;

/// Frames between two stretch measurements in the HUD (each a small readback).
const STRETCH_EVERY: u32 = 15;

/// Opens the window and runs until it is closed (or the screenshot is written).
pub fn run(options: DemoOptions) -> Result<()> {
    let (w, h) = options.size;
    if !(64..=8192).contains(&w) || !(64..=8192).contains(&h) {
        bail!("--size {w}x{h} must be between 64x64 and 8192x8192");
    }
    if options.frames == 0 {
        bail!("--frames must be at least 1");
    }
    if let Some(path) = &options.screenshot {
        screenshot::check_path(path)?;
    }
    let event_loop = EventLoop::new().map_err(|e| {
        anyhow!(
            "cannot open a window ({}); without a display, run under Xvfb (xvfb-run -a chiffon \
             demo ...)",
            winit_message(&e)
        )
    })?;
    event_loop.set_control_flow(ControlFlow::Poll);
    let mut app = App {
        options,
        state: None,
        result: Ok(()),
    };
    event_loop
        .run_app(&mut app)
        .map_err(|e| anyhow!("window: {}", winit_message(&e)))?;
    app.result
}

/// A winit error as a plain message. winit writes its OS errors as `os error at FILE:LINE:
/// MESSAGE`, FILE being its source in the cargo registry (`~/.cargo/registry/src/...`): only
/// MESSAGE means anything to the user.
fn winit_message(e: &dyn std::fmt::Display) -> String {
    let text = e.to_string();
    match text
        .strip_prefix("os error at ")
        .and_then(|rest| rest.split_once(": "))
    {
        Some((_location, message)) => message.trim_end_matches('.').to_string(),
        None => text,
    }
}

/// The winit application: the state once the window exists, and the first error.
struct App {
    options: DemoOptions,
    state: Option<State>,
    result: Result<()>,
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        match State::new(event_loop, &self.options) {
            Ok(s) => self.state = Some(s),
            Err(e) => {
                self.result = Err(e);
                event_loop.exit();
            }
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _: WindowId, event: WindowEvent) {
        let Some(state) = self.state.as_mut() else {
            return;
        };
        let outcome = match event {
            WindowEvent::CloseRequested => {
                event_loop.exit();
                Ok(false)
            }
            WindowEvent::RedrawRequested => state.frame(&self.options),
            other => state.input(&other).map(|_| false),
        };
        match outcome {
            Ok(true) => event_loop.exit(),
            Ok(false) => {}
            Err(e) => {
                self.result = Err(e);
                event_loop.exit();
            }
        }
    }

    fn about_to_wait(&mut self, _: &ActiveEventLoop) {
        if let Some(s) = &self.state {
            s.window.request_redraw();
        }
    }
}

/// The window and everything drawn in it.
struct State {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    ctx: GpuContext,
    renderer: Renderer,
    targets: Targets,
    sim: Sim,
    /// The scene the world was built for (the panel's menu changes `settings.scene` first).
    shown: DemoScene,
    /// The world's surface on the GPU, drawn from its position buffer.
    mesh: ClothMesh,
    settings: Settings,
    camera: OrbitCamera,
    pointer: Pointer,
    panel: Panel,
    timer: Option<StageTimer>,
    solver_ms: Option<f64>,
    /// Stretch of the cloths, measured every [`STRETCH_EVERY`] frames.
    stretch: Option<crate::quality::Stretch>,
    last_frame: Instant,
    fps: f64,
    frames: u32,
    /// The jitter's frame times.
    rng: ChaCha8Rng,
    cpu_note: Option<String>,
    /// Adapter description for the HUD, made once.
    adapter_name: String,
}

impl State {
    fn new(event_loop: &ActiveEventLoop, options: &DemoOptions) -> Result<Self> {
        let attributes = Window::default_attributes()
            .with_title("chiffon")
            .with_inner_size(winit::dpi::PhysicalSize::new(
                options.size.0,
                options.size.1,
            ));
        let window = Arc::new(
            event_loop
                .create_window(attributes)
                .map_err(|e| anyhow!("window: {}", winit_message(&e)))?,
        );
        let instance = GpuContext::create_instance();
        let surface = instance
            .create_surface(window.clone())
            .map_err(|e| anyhow!("window: cannot create a surface: {e}"))?;
        let ctx = GpuContext::with_instance(instance, Some(&surface))?;
        let size = window.inner_size();
        let mut config = surface
            .get_default_config(&ctx.adapter, size.width.max(1), size.height.max(1))
            .ok_or_else(|| anyhow!("window: the adapter cannot present to this window"))?;
        // An sRGB target so the shaders' linear colors come out right.
        config.format = config.format.add_srgb_suffix();
        config.present_mode = wgpu::PresentMode::AutoVsync;
        if size.width > 0 && size.height > 0 {
            surface.configure(&ctx.device, &config);
        }
        let msaa = ctx
            .adapter
            .get_texture_format_features(config.format)
            .flags
            .sample_count_supported(4);
        let renderer = Renderer::new(&ctx.device, config.format, if msaa { 4 } else { 1 });
        let targets = Targets::new(
            &ctx.device,
            config.format,
            (config.width, config.height),
            renderer.samples(),
        );

        let on_cpu = ctx.info().device_type == wgpu::DeviceType::Cpu;
        let grid = options.grid.unwrap_or(if on_cpu { 64 } else { 256 });
        let cpu_note = (on_cpu && options.grid.is_none()).then(|| {
            "CPU adapter: 64x64 by default to stay interactive (raise it in the panel)".to_string()
        });
        // 64 flags of 640 particles on a GPU, 16 on a CPU adapter.
        let flags = options.flags.unwrap_or(if on_cpu { 4 } else { 8 });
        let mut settings = Settings::new(options.scene, grid, flags, options.mesh.clone());
        settings.membrane = options.membrane;
        if let Some(w) = options.wind {
            settings.wind_on = true;
            settings.wind_strength = w;
        }
        if let Some(on) = options.self_collision {
            settings.solver.self_collision = on.then(Default::default);
        }
        let sim = scene::build(crate::Backend::Gpu(&ctx), &settings)?;
        let camera = scene::camera(&settings, sim.surface());
        let mesh = renderer.cloth_mesh(&ctx.device, sim.surface(), sim.position_buffer()?)?;
        let panel = Panel::new(&window, &ctx, config.format);
        // Room for every stage of a frame of the most substeps the panel allows.
        let max_passes =
            crate::schedule::FrameSchedule::largest(crate::params::MAX_SUBSTEPS).stages();
        let timer = StageTimer::new(&ctx, max_passes);

        Ok(Self {
            window,
            surface,
            config,
            renderer,
            targets,
            sim,
            shown: options.scene,
            mesh,
            settings,
            camera,
            pointer: Pointer::default(),
            panel,
            timer,
            solver_ms: None,
            stretch: None,
            last_frame: Instant::now(),
            fps: 0.0,
            frames: 0,
            rng: ChaCha8Rng::seed_from_u64(1),
            cpu_note,
            adapter_name: ctx.describe(),
            ctx,
        })
    }

    fn viewport(&self) -> Vec2 {
        Vec2::new(
            self.config.width.max(1) as f32,
            self.config.height.max(1) as f32,
        )
    }

    /// Handles a window event other than close and redraw.
    fn input(&mut self, event: &WindowEvent) -> Result<()> {
        let consumed = self.panel.event(&self.window, event);
        match event {
            // Zero while minimized: keep the old surface and draw nothing until restored.
            WindowEvent::Resized(size) if size.width > 0 && size.height > 0 => {
                self.config.width = size.width;
                self.config.height = size.height;
                self.surface.configure(&self.ctx.device, &self.config);
                self.targets = Targets::new(
                    &self.ctx.device,
                    self.config.format,
                    (size.width, size.height),
                    self.renderer.samples(),
                );
            }
            WindowEvent::KeyboardInput { event, .. } if !consumed && event.state.is_pressed() => {
                if let Some(action) = input::key(event, &mut self.settings) {
                    self.apply(action)?;
                }
            }
            // The mouse (the pointer passes over the rest).
            other => {
                let viewport = self.viewport();
                self.pointer
                    .event(other, consumed, &mut self.sim, &mut self.camera, viewport)?;
            }
        }
        Ok(())
    }

    /// Carries out what a key or a panel button asked for.
    fn apply(&mut self, action: Action) -> Result<()> {
        match action {
            Action::Rebuild => self.rebuild(),
            Action::Reset => {
                self.pointer.forget_grab();
                self.sim.reset()
            }
            Action::TogglePins => self.sim.toggle_pins(),
        }
    }

    /// Builds the scene the settings name (another scene starts with its own colliders, wind
    /// and self-collision), and frames it anew if it is another scene or size.
    fn rebuild(&mut self) -> Result<()> {
        self.pointer.forget_grab();
        if self.settings.scene != self.shown {
            self.settings.enter(self.settings.scene);
        }
        let sim = scene::build(crate::Backend::Gpu(&self.ctx), &self.settings)?;
        self.shown = self.settings.scene;
        let (old, new) = (self.sim.counts(), sim.counts());
        if (old.particles, old.cloths) != (new.particles, new.cloths) {
            self.camera = scene::camera(&self.settings, sim.surface());
        }
        self.mesh =
            self.renderer
                .cloth_mesh(&self.ctx.device, sim.surface(), sim.position_buffer()?)?;
        self.sim = sim;
        Ok(())
    }

    /// Advances the simulation by one frame (unless paused).
    fn simulate(&mut self, wall_dt: f64, fixed_dt: Option<f64>) -> Result<()> {
        let uniform = self.rng.random::<f64>();
        let Some(dt) = self.settings.frame_dt(wall_dt, fixed_dt, uniform) else {
            return Ok(());
        };
        let viewport = self.viewport();
        self.pointer.drag(&mut self.sim, &self.camera, viewport)?;
        self.sim.world.set_params(self.settings.params())?;
        // Time this frame's stages unless the previous measurement is still being read.
        let timer = self.timer.as_mut().filter(|t| t.is_idle());
        let timed = timer.is_some();
        self.sim.step(dt, timer)?;
        if let Some(t) = self.timer.as_mut().filter(|_| timed) {
            t.request();
        }
        Ok(())
    }

    /// One frame: simulate, draw, present. Returns true when the demo should exit.
    fn frame(&mut self, options: &DemoOptions) -> Result<bool> {
        let now = Instant::now();
        let wall_dt = now.duration_since(self.last_frame).as_secs_f64();
        self.last_frame = now;
        if wall_dt > 0.0 {
            self.fps = 0.9 * self.fps + 0.1 / wall_dt;
        }
        let fixed = options.screenshot.as_ref().map(|_| SCREENSHOT_DT);
        self.simulate(wall_dt, fixed)?;
        poll(&self.ctx.device);
        if let Some(times) = self.timer.as_mut().and_then(StageTimer::collect) {
            self.solver_ms = Some(times.total_ms);
        }
        self.frames += 1;
        if self.frames.is_multiple_of(STRETCH_EVERY) {
            self.stretch = Some(self.sim.stretch()?);
        }

        if let Some(path) = &options.screenshot
            && self.frames >= options.frames
        {
            self.save_screenshot(path, options.size)?;
            return Ok(true);
        }
        if self.config.width == 0
            || self.config.height == 0
            || self.window.is_minimized() == Some(true)
        {
            return Ok(false);
        }
        let texture = match self.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(t)
            | wgpu::CurrentSurfaceTexture::Suboptimal(t) => t,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                // Reconfigure and try again next frame.
                self.surface.configure(&self.ctx.device, &self.config);
                return Ok(false);
            }
            _ => return Ok(false),
        };
        let view = texture.texture.create_view(&Default::default());
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        let scene = self.scene_view(self.viewport());
        self.renderer.draw(
            &self.ctx.device,
            &self.ctx.queue,
            &mut encoder,
            &self.targets,
            &view,
            &self.mesh,
            &scene,
        );
        let hud = Hud {
            fps: self.fps,
            solver_ms: self.solver_ms,
            stretch: self.stretch,
            counts: self.sim.counts(),
            pins_held: self.sim.pins_held(),
            adapter: &self.adapter_name,
            note: self.cpu_note.as_deref(),
            limits: None,
            help: &HELP,
        };
        let actions = self.panel.draw(
            &self.window,
            &self.ctx,
            &mut encoder,
            &view,
            (self.config.width, self.config.height),
            &mut self.settings,
            &hud,
        );
        self.ctx.queue.submit([encoder.finish()]);
        self.window.pre_present_notify();
        self.ctx.queue.present(texture);
        // After the frame that drew the old world is submitted.
        for action in actions {
            self.apply(action)?;
        }
        Ok(false)
    }

    /// The camera and the colliders where the world has them now, for the renderer.
    fn scene_view(&self, viewport: Vec2) -> SceneView {
        SceneView {
            view_proj: self.camera.view_projection(viewport.x / viewport.y),
            eye: self.camera.eye(),
            solids: Solids::of(&self.sim.world.params().colliders),
        }
    }

    /// Writes the screenshot and says what is in it.
    fn save_screenshot(&mut self, path: &std::path::Path, size: (u32, u32)) -> Result<()> {
        let scene = self.scene_view(Vec2::new(size.0 as f32, size.1 as f32));
        screenshot::save(
            &self.ctx,
            &mut self.renderer,
            &self.mesh,
            &scene,
            self.config.format,
            size,
            path,
        )?;
        let counts = self.sim.counts();
        println!(
            "wrote {} ({}x{}, frame {}, {} cloth(s) of {} particles in all on {})",
            path.display(),
            size.0,
            size.1,
            self.frames,
            counts.cloths,
            counts.particles,
            self.sim.world.backend_name()
        );
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: without a display, the error carried winit's source path in the cargo
    /// registry (`os error at /root/.cargo/registry/src/.../winit-0.30.13/src/...rs:765: ...`).
    #[test]
    fn a_window_error_names_no_cargo_registry_path() {
        let winit = "os error at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/\
                     winit-0.30.13/src/platform_impl/linux/mod.rs:765: neither WAYLAND_DISPLAY \
                     nor WAYLAND_SOCKET nor DISPLAY is set.";
        assert_eq!(
            winit_message(&winit),
            "neither WAYLAND_DISPLAY nor WAYLAND_SOCKET nor DISPLAY is set"
        );
        assert_eq!(
            winit_message(&"EventLoop can't be recreated"),
            "EventLoop can't be recreated"
        );
    }
}
