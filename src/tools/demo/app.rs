//! The windowed demo: winit 0.30 event loop, wgpu surface, egui controls, mouse interaction,
//! and a screenshot mode for CI and the README.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use glam::{Vec2, Vec3};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use super::camera::{OrbitCamera, pick, ray_plane};
use super::render::{ClothMesh, Renderer, SceneView, Targets};
use super::sim::{Sim, WorldSim};
use crate::gpu::GpuContext;
use crate::gpu::StageTimer;
use crate::gpu::context::{poll, read_mapped};
use crate::integrator::Integrator;
use crate::params::{Projection, SolverParams, Substeps, TetherParams};
use crate::solver::Solver;
use crate::tools::scenes::{self, DemoScene};
use anyhow::{Result, anyhow, bail};

/// How to run the demo.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// Grid resolution N (N×N); `None` picks by adapter (256 on a GPU, 64 on a CPU adapter).
    pub grid: Option<u32>,
    /// A cloth to show instead of the grid (a mesh from an OBJ file, with its pins and
    /// placement), rebuilt from this builder on reset.
    pub mesh: Option<crate::ClothBuilder>,
    /// The scene to start with (the panel switches).
    pub scene: DemoScene,
    /// Flags per side of the flags scene; `None` picks by adapter (8 on a GPU, 4 on a CPU
    /// adapter).
    pub flags: Option<u32>,
    /// Start with the wind on at this strength (m/s²).
    pub wind: Option<f32>,
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
            scene: DemoScene::Cloth,
            flags: None,
            wind: None,
            screenshot: None,
            frames: 120,
            size: (1280, 720),
        }
    }
}

/// Opens the window and runs until it is closed (or the screenshot is written).
pub fn run(options: DemoOptions) -> Result<()> {
    let (w, h) = options.size;
    if !(64..=8192).contains(&w) || !(64..=8192).contains(&h) {
        bail!("--size {w}x{h} must be between 64x64 and 8192x8192");
    }
    if options.frames == 0 {
        bail!("--frames must be at least 1");
    }
    let event_loop = EventLoop::new().map_err(|e| {
        anyhow!(
            "cannot open a window ({e}); without a display, run under Xvfb (xvfb-run -a chiffon demo ...)"
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
        .map_err(|e| anyhow!("window: {e}"))?;
    app.result
}

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

/// A grabbed particle, dragged in the plane through the grab point facing the camera.
struct Grab {
    index: usize,
    plane_point: Vec3,
    plane_normal: Vec3,
    inverse_mass: f32,
}

/// Everything the control panel edits.
struct Settings {
    scene: DemoScene,
    grid: u32,
    /// Flags per side of the flags scene.
    flags: u32,
    /// The mesh shown instead of the grid, if any.
    mesh: Option<crate::ClothBuilder>,
    /// The solver's settings the panel edits directly (integrator, iterations, substeps or
    /// frequency, damping, compliance, projection, over-relaxation, coarse levels); the scene
    /// fields below override gravity, wind, tethers and the colliders.
    solver: SolverParams,
    /// The panel's frequency and fixed-substep values, kept while the other is in use.
    frequency: f32,
    fixed_substeps: u32,
    use_frequency: bool,
    tether_scale: f32,
    tethers_on: bool,
    wind_on: bool,
    wind_strength: f32,
    wind_heading_deg: f32,
    gravity: f32,
    jitter: bool,
    paused: bool,
    step_once: bool,
    sphere_on: bool,
    sphere: scenes::DemoSphere,
    ground_on: bool,
    ground: f32,
    /// Whether the cloth's pinned particles (the grid's corners, or the mesh's pins) are held.
    pins_held: bool,
}

impl Settings {
    fn params(&self) -> SolverParams {
        let heading = self.wind_heading_deg.to_radians();
        SolverParams {
            gravity: Vec3::new(0.0, -self.gravity, 0.0),
            wind: if self.wind_on {
                Vec3::new(heading.sin(), 0.0, heading.cos()) * self.wind_strength
            } else {
                Vec3::ZERO
            },
            substeps: if self.use_frequency {
                Substeps::Frequency(self.frequency)
            } else {
                Substeps::Fixed(self.fixed_substeps)
            },
            tethers: self.tethers_on.then_some(TetherParams {
                scale: self.tether_scale,
                ..TetherParams::default()
            }),
            colliders: scenes::demo_colliders(
                self.ground_on.then_some(self.ground),
                self.sphere_on.then_some(self.sphere),
            ),
            ..self.solver.clone()
        }
    }
}

struct Egui {
    ctx: egui::Context,
    state: egui_winit::State,
    renderer: egui_wgpu::Renderer,
}

struct State {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    ctx: GpuContext,
    renderer: Renderer,
    targets: Targets,
    solver: Sim,
    mesh: ClothMesh,
    settings: Settings,
    camera: OrbitCamera,
    egui: Egui,
    timer: Option<StageTimer>,
    solver_ms: Option<f64>,
    /// Stretch of the cloth, measured every [`STRETCH_EVERY`] frames (a small readback).
    stretch: Option<crate::quality::Stretch>,
    cursor: Vec2,
    orbiting: bool,
    grab: Option<Grab>,
    last_frame: Instant,
    fps: f64,
    frames: u32,
    rng: ChaCha8Rng,
    cpu_note: Option<String>,
    /// Adapter description for the HUD, made once.
    adapter_name: String,
}

/// The default scene ([`scenes::demo_cloth`], [`scenes::demo_params`]): a cloth held by two
/// corners, falling onto a sphere above the ground; or the flags ([`scenes::flag_field`]) in
/// the wind over the ground.
fn default_settings(grid: u32, mesh: Option<crate::ClothBuilder>, scene: DemoScene) -> Settings {
    let p = scenes::demo_params();
    let tethers = p.tethers.unwrap_or_default();
    let flags = scene == DemoScene::Flags;
    Settings {
        scene,
        grid,
        // 64 flags of 640 particles (State::new picks by adapter).
        flags: 8,
        mesh,
        frequency: match p.substeps {
            Substeps::Frequency(f) => f,
            Substeps::Fixed(_) => crate::params::DEFAULT_FREQUENCY,
        },
        fixed_substeps: p.substeps.count(1.0 / 60.0),
        use_frequency: matches!(p.substeps, Substeps::Frequency(_)),
        tether_scale: tethers.scale,
        tethers_on: p.tethers.is_some(),
        solver: p.clone(),
        wind_on: flags,
        wind_strength: if flags { 14.0 } else { 3.0 },
        wind_heading_deg: if flags { 70.0 } else { 30.0 },
        gravity: -p.gravity.y,
        jitter: false,
        paused: false,
        step_once: false,
        sphere_on: !flags,
        sphere: scenes::DEMO_SPHERE,
        ground_on: true,
        ground: 0.0,
        pins_held: true,
    }
}

/// The cloth the settings show: the mesh, or the demo's grid with its corners pinned.
fn demo_cloth(s: &Settings) -> Result<crate::Cloth> {
    match &s.mesh {
        Some(builder) => Ok(builder.clone().build()?),
        None => Ok(scenes::demo_cloth(s.grid, true)?),
    }
}

fn build_sim(ctx: &GpuContext, s: &Settings) -> Result<Sim> {
    Ok(match s.scene {
        DemoScene::Cloth => Sim::Cloth(Box::new(crate::Solver::new(
            crate::Backend::Gpu(ctx),
            &demo_cloth(s)?,
            s.params(),
        )?)),
        DemoScene::Flags => Sim::World(Box::new(WorldSim::new(
            ctx,
            &scenes::flag_field(s.flags)?,
            s.params(),
        )?)),
    })
}

/// Holds (inverse mass 0) or releases the particles the cloth was built with pinned.
fn set_pins_held(solver: &mut Solver, held: bool) -> Result<()> {
    let cloth = solver.cloth();
    let edits: Vec<(usize, f32)> = (0..cloth.particle_count())
        .filter(|&i| cloth.is_pinned(i))
        .map(|i| {
            (
                i,
                if held {
                    0.0
                } else {
                    cloth.free_inverse_masses()[i]
                },
            )
        })
        .collect();
    for (i, w) in edits {
        solver.set_inverse_mass(i, w)?;
    }
    Ok(())
}

/// Applies what the panel asked for that needs no rebuild: the pin toggle. Shared by the panel
/// and the P key, so both do the same thing once.
fn apply_panel_actions(
    actions: &UiActions,
    settings: &mut Settings,
    solver: &mut Solver,
) -> Result<()> {
    if actions.toggle_pins {
        settings.pins_held = !settings.pins_held;
        set_pins_held(solver, settings.pins_held)?;
    }
    Ok(())
}

/// A camera that frames the scene: the default for the grid, else the cloth's extent.
fn camera_for(settings: &Settings, sim: &Sim) -> OrbitCamera {
    match settings.scene {
        // A field is wide and low: closer than a single mesh's framing, so it fills the view.
        DemoScene::Flags => OrbitCamera {
            distance: OrbitCamera::framing(sim.cloth().positions()).distance * 0.65,
            ..OrbitCamera::framing(sim.cloth().positions())
        },
        DemoScene::Cloth if settings.mesh.is_some() => {
            OrbitCamera::framing(sim.cloth().positions())
        }
        DemoScene::Cloth => OrbitCamera::default(),
    }
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
                .map_err(|e| anyhow!("window: {e}"))?,
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
        let samples = if ctx
            .adapter
            .get_texture_format_features(config.format)
            .flags
            .sample_count_supported(4)
        {
            4
        } else {
            1
        };
        let renderer = Renderer::new(&ctx.device, config.format, samples);
        let targets = Targets::new(
            &ctx.device,
            config.format,
            (config.width, config.height),
            samples,
        );

        let on_cpu = ctx.info().device_type == wgpu::DeviceType::Cpu;
        let grid = options.grid.unwrap_or(if on_cpu { 64 } else { 256 });
        let cpu_note = (on_cpu && options.grid.is_none()).then(|| {
            "CPU adapter: 64x64 by default to stay interactive (raise it in the panel)".to_string()
        });
        let mut settings = default_settings(grid, options.mesh.clone(), options.scene);
        settings.flags = options.flags.unwrap_or(if on_cpu { 4 } else { 8 });
        if let Some(w) = options.wind {
            settings.wind_on = true;
            settings.wind_strength = w;
        }
        let solver = build_sim(&ctx, &settings)?;
        let camera = camera_for(&settings, &solver);
        let mesh = renderer.cloth_mesh(&ctx.device, solver.cloth(), solver.position_buffer())?;

        let egui_ctx = egui::Context::default();
        let egui_state = egui_winit::State::new(
            egui_ctx.clone(),
            egui::ViewportId::ROOT,
            &window,
            Some(window.scale_factor() as f32),
            None,
            Some(ctx.limits().max_texture_dimension_2d as usize),
        );
        let egui_renderer =
            egui_wgpu::Renderer::new(&ctx.device, config.format, Default::default());
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
            solver,
            mesh,
            settings,
            camera,
            egui: Egui {
                ctx: egui_ctx,
                state: egui_state,
                renderer: egui_renderer,
            },
            timer,
            solver_ms: None,
            stretch: None,
            cursor: Vec2::ZERO,
            orbiting: false,
            grab: None,
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
        let consumed = self
            .egui
            .state
            .on_window_event(&self.window, event)
            .consumed;
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
            WindowEvent::CursorMoved { position, .. } => {
                let p = Vec2::new(position.x as f32, position.y as f32);
                if self.orbiting {
                    self.camera.orbit(p - self.cursor);
                }
                self.cursor = p;
            }
            WindowEvent::MouseWheel { delta, .. } if !consumed => {
                let steps = match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.camera.zoom(steps);
            }
            WindowEvent::MouseInput { state, button, .. } => match (state, button) {
                (ElementState::Pressed, MouseButton::Left) if !consumed => {
                    self.orbiting = !self.try_grab()?;
                }
                (ElementState::Pressed, MouseButton::Right) if !consumed => self.orbiting = true,
                (ElementState::Released, _) => {
                    self.orbiting = false;
                    if let Some((g, s)) = self.grab.take().zip(self.solver.solver()) {
                        s.set_inverse_mass(g.index, g.inverse_mass)?;
                    }
                }
                _ => {}
            },
            WindowEvent::KeyboardInput { event, .. } if !consumed && event.state.is_pressed() => {
                let PhysicalKey::Code(key) = event.physical_key else {
                    return Ok(());
                };
                let s = &mut self.settings;
                match key {
                    KeyCode::Space => s.paused = !s.paused,
                    KeyCode::KeyN => s.step_once = true,
                    KeyCode::KeyR => self.reset()?,
                    KeyCode::KeyW => s.wind_on = !s.wind_on,
                    KeyCode::KeyP => self.toggle_pins()?,
                    KeyCode::ArrowLeft => s.sphere.center.x -= 0.05,
                    KeyCode::ArrowRight => s.sphere.center.x += 0.05,
                    KeyCode::ArrowUp => s.sphere.center.z -= 0.05,
                    KeyCode::ArrowDown => s.sphere.center.z += 0.05,
                    _ => {}
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Picks the particle under the cursor (a readback, on click only) and holds it; a world
    /// of cloths is not grabbed (the click orbits).
    fn try_grab(&mut self) -> Result<bool> {
        let viewport = self.viewport();
        let Some(solver) = self.solver.solver() else {
            return Ok(false);
        };
        let positions = solver.positions()?;
        let ray = self.camera.ray(self.cursor, viewport);
        let radius = 2.5 * solver.cloth().mean_edge_length().max(0.004);
        let Some((index, t)) = pick(&ray, &positions, radius) else {
            return Ok(false);
        };
        let point = ray.at(t);
        let inverse_mass = solver.raw_positions()?[index].w;
        solver.set_particle(index, positions[index], 0.0)?;
        self.grab = Some(Grab {
            index,
            plane_point: point,
            plane_normal: self.camera.forward(),
            inverse_mass,
        });
        Ok(true)
    }

    fn reset(&mut self) -> Result<()> {
        self.grab = None;
        self.solver.reset()?;
        self.settings.pins_held = true;
        Ok(())
    }

    fn toggle_pins(&mut self) -> Result<()> {
        let actions = UiActions {
            toggle_pins: true,
            ..Default::default()
        };
        match self.solver.solver() {
            Some(solver) => apply_panel_actions(&actions, &mut self.settings, solver),
            None => Ok(()),
        }
    }

    fn rebuild(&mut self) -> Result<()> {
        self.grab = None;
        self.settings.pins_held = true;
        let solver = build_sim(&self.ctx, &self.settings)?;
        if self.solver.cloth().particle_count() != solver.cloth().particle_count()
            || matches!(solver, Sim::World(_)) != matches!(self.solver, Sim::World(_))
        {
            self.camera = camera_for(&self.settings, &solver);
        }
        self.mesh =
            self.renderer
                .cloth_mesh(&self.ctx.device, solver.cloth(), solver.position_buffer())?;
        self.solver = solver;
        Ok(())
    }

    /// Advances the simulation by one frame (unless paused).
    fn simulate(&mut self, wall_dt: f64, fixed_dt: Option<f64>) -> Result<()> {
        if self.settings.paused && !self.settings.step_once {
            return Ok(());
        }
        self.settings.step_once = false;
        let dt = match fixed_dt {
            Some(dt) => dt,
            // Jitter: a random frame time, to show what each integrator does with it.
            None if self.settings.jitter => 1.0 / self.rng.random_range(30.0..=144.0),
            // The measured frame time, clamped so a stall does not become a huge step.
            None => wall_dt.clamp(1.0 / 240.0, 1.0 / 30.0),
        };
        let ray = self.camera.ray(self.cursor, self.viewport());
        if let Some((g, solver)) = self.grab.as_ref().zip(self.solver.solver())
            && let Some(p) = ray_plane(&ray, g.plane_point, g.plane_normal)
        {
            solver.set_particle(g.index, p, 0.0)?;
        }
        self.solver.set_params(self.settings.params())?;
        // Time this frame's stages unless the previous measurement is still being read.
        let timer = self.timer.as_mut().filter(|t| t.is_idle());
        let timed = timer.is_some();
        self.solver.step_timed(dt, timer)?;
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
        // Screenshots use a fixed 60 fps step so the picture does not depend on machine speed.
        let fixed = options.screenshot.as_ref().map(|_| 1.0 / 60.0);
        self.simulate(wall_dt, fixed)?;
        poll(&self.ctx.device);
        if let Some(times) = self.timer.as_mut().and_then(StageTimer::collect) {
            self.solver_ms = Some(times.total_ms);
        }
        self.frames += 1;
        if self.frames.is_multiple_of(STRETCH_EVERY) {
            self.stretch = Some(self.solver.stretch()?);
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
            &self.ctx.queue,
            &mut encoder,
            &self.targets,
            &view,
            &self.mesh,
            &scene,
        );
        self.draw_ui(&mut encoder, &view)?;
        self.ctx.queue.submit([encoder.finish()]);
        self.window.pre_present_notify();
        self.ctx.queue.present(texture);
        Ok(false)
    }

    fn scene_view(&self, viewport: Vec2) -> SceneView {
        let s = &self.settings;
        SceneView {
            view_proj: self.camera.view_projection(viewport.x / viewport.y),
            eye: self.camera.eye(),
            sphere: s.sphere_on.then_some((s.sphere.center, s.sphere.radius)),
            ground: s.ground_on.then_some(s.ground),
        }
    }

    /// Builds the control panel and draws it over the scene.
    fn draw_ui(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
    ) -> Result<()> {
        let raw = self.egui.state.take_egui_input(&self.window);
        let mut actions = UiActions::default();
        let (particles, constraints, colors, cloths) = self.solver.counts();
        let hud = Hud {
            fps: self.fps,
            solver_ms: self.solver_ms,
            stretch: self.stretch,
            particles,
            constraints,
            colors,
            cloths,
            adapter: &self.adapter_name,
            note: self.cpu_note.as_deref(),
        };
        let settings = &mut self.settings;
        let output = self.egui.ctx.run_pass(raw, |ctx| {
            controls(ctx, settings, &hud, &mut actions);
        });
        self.egui
            .state
            .handle_platform_output(&self.window, output.platform_output);
        if actions.rebuild {
            self.rebuild()?;
        }
        if actions.reset {
            self.reset()?;
        }
        if let Some(solver) = self.solver.solver() {
            apply_panel_actions(&actions, &mut self.settings, solver)?;
        }

        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [self.config.width, self.config.height],
            pixels_per_point: output.pixels_per_point,
        };
        let jobs = self
            .egui
            .ctx
            .tessellate(output.shapes, output.pixels_per_point);
        for (id, deltas) in &output.textures_delta.set {
            for delta in deltas {
                self.egui
                    .renderer
                    .update_texture(&self.ctx.device, &self.ctx.queue, *id, delta);
            }
        }
        let extra = self.egui.renderer.update_buffers(
            &self.ctx.device,
            &self.ctx.queue,
            encoder,
            &jobs,
            &screen,
        );
        if !extra.is_empty() {
            self.ctx.queue.submit(extra);
        }
        {
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("egui"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            self.egui
                .renderer
                .render(&mut pass.forget_lifetime(), &jobs, &screen);
        }
        for id in &output.textures_delta.free {
            self.egui.renderer.free_texture(id);
        }
        Ok(())
    }

    /// Draws the scene into an offscreen texture of `size` and writes it as PNG.
    fn save_screenshot(&mut self, path: &std::path::Path, size: (u32, u32)) -> Result<()> {
        let device = &self.ctx.device;
        let format = self.config.format;
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("screenshot"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&Default::default());
        let targets = Targets::new(device, format, size, self.renderer.samples());
        // Rows of a texture copy must be 256-byte aligned.
        let row = (size.0 * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("screenshot readback"),
            size: row as u64 * size.1 as u64,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        let scene = self.scene_view(Vec2::new(size.0 as f32, size.1 as f32));
        self.renderer.draw(
            &self.ctx.queue,
            &mut encoder,
            &targets,
            &view,
            &self.mesh,
            &scene,
        );
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: Some(size.1),
                },
            },
            wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
        );
        self.ctx.queue.submit([encoder.finish()]);
        let bytes: Vec<u8> = read_mapped(device, &readback)?;
        let bgra = matches!(
            format,
            wgpu::TextureFormat::Bgra8Unorm | wgpu::TextureFormat::Bgra8UnormSrgb
        );
        let mut rgba = Vec::with_capacity((size.0 * size.1 * 4) as usize);
        for y in 0..size.1 as usize {
            for px in bytes[y * row as usize..][..size.0 as usize * 4].chunks_exact(4) {
                if bgra {
                    rgba.extend_from_slice(&[px[2], px[1], px[0], 255]);
                } else {
                    rgba.extend_from_slice(&[px[0], px[1], px[2], 255]);
                }
            }
        }
        image::save_buffer(path, &rgba, size.0, size.1, image::ColorType::Rgba8)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?;
        println!(
            "wrote {} ({}x{}, frame {}, {} cloth(s) of {} particles in all on {})",
            path.display(),
            size.0,
            size.1,
            self.frames,
            self.solver.counts().3,
            self.solver.cloth().particle_count(),
            self.solver.backend_name()
        );
        Ok(())
    }
}

/// What the panel asked for this frame, applied after the UI pass.
#[derive(Default, Debug)]
struct UiActions {
    rebuild: bool,
    reset: bool,
    toggle_pins: bool,
}

/// Frames between two stretch measurements in the HUD.
const STRETCH_EVERY: u32 = 15;

struct Hud<'a> {
    fps: f64,
    solver_ms: Option<f64>,
    stretch: Option<crate::quality::Stretch>,
    particles: usize,
    constraints: usize,
    colors: usize,
    cloths: usize,
    adapter: &'a str,
    note: Option<&'a str>,
}

fn controls(ctx: &egui::Context, s: &mut Settings, hud: &Hud, actions: &mut UiActions) {
    egui::Window::new("chiffon")
        .default_pos([12.0, 12.0])
        .default_width(280.0)
        .show(ctx, |ui| {
            ui.label(format!("{:.0} fps", hud.fps));
            ui.label(match hud.solver_ms {
                Some(ms) => format!("solver: {ms:.2} ms/frame (GPU timestamps)"),
                None => "solver: no GPU timestamps on this adapter".into(),
            });
            if let Some(st) = hud.stretch {
                ui.label(format!(
                    "stretch: max {:.3}, p99 {:.3}, mean {:.4}",
                    st.max, st.p99, st.mean
                ));
            }
            if hud.cloths > 1 {
                ui.label(format!(
                    "{} cloths, {} particles, {} constraints, up to {} colors (one world)",
                    hud.cloths, hud.particles, hud.constraints, hud.colors
                ));
            } else {
                ui.label(format!(
                    "{} particles, {} constraints, {} colors",
                    hud.particles, hud.constraints, hud.colors
                ));
            }
            ui.label(format!("adapter: {}", hud.adapter));
            if let Some(note) = hud.note {
                ui.colored_label(egui::Color32::from_rgb(230, 180, 80), note);
            }
            ui.separator();
            ui.horizontal(|ui| {
                if ui.button(if s.paused { "Run" } else { "Pause" }).clicked() {
                    s.paused = !s.paused;
                }
                if ui.button("Step").clicked() {
                    s.step_once = true;
                }
                if ui.button("Reset").clicked() {
                    actions.reset = true;
                }
                if s.scene == DemoScene::Cloth
                    && ui
                        .button(match (s.pins_held, s.mesh.is_some()) {
                            (true, false) => "Unpin corners",
                            (false, false) => "Pin corners",
                            (true, true) => "Release pins",
                            (false, true) => "Pin again",
                        })
                        .clicked()
                {
                    actions.toggle_pins = true;
                }
            });
            egui::ComboBox::from_label("scene")
                .selected_text(s.scene.name())
                .show_ui(ui, |ui| {
                    for scene in DemoScene::ALL {
                        if ui
                            .selectable_value(&mut s.scene, scene, scene.name())
                            .changed()
                        {
                            actions.rebuild = true;
                        }
                    }
                });
            if s.scene == DemoScene::Flags {
                ui.add(egui::Slider::new(&mut s.flags, 1..=32).text("flags per side"));
                if ui.button("Rebuild the field").clicked() {
                    actions.rebuild = true;
                }
            }
            // A mesh has its own resolution.
            if s.mesh.is_none() && s.scene == DemoScene::Cloth {
                egui::ComboBox::from_label("resolution")
                    .selected_text(format!("{0}x{0}", s.grid))
                    .show_ui(ui, |ui| {
                        for n in [32, 64, 128, 256, 512, 1024] {
                            if ui
                                .selectable_value(&mut s.grid, n, format!("{n}x{n}"))
                                .changed()
                            {
                                actions.rebuild = true;
                            }
                        }
                    });
            }
            egui::ComboBox::from_label("integrator")
                .selected_text(s.solver.integrator.name())
                .show_ui(ui, |ui| {
                    for integrator in Integrator::ALL {
                        ui.selectable_value(
                            &mut s.solver.integrator,
                            integrator,
                            integrator.name(),
                        );
                    }
                });
            ui.checkbox(&mut s.jitter, "frame-time jitter (random dt, 30-144 fps)");
            ui.checkbox(&mut s.use_frequency, "substeps from a solver frequency");
            if s.use_frequency {
                ui.add(
                    egui::Slider::new(&mut s.frequency, 60.0..=2400.0)
                        .logarithmic(true)
                        .text("frequency (Hz)"),
                );
            } else {
                ui.add(egui::Slider::new(&mut s.fixed_substeps, 1..=32).text("substeps"));
            }
            ui.add(egui::Slider::new(&mut s.solver.iterations, 1..=50).text("iterations"));
            ui.add(egui::Slider::new(&mut s.solver.damping, 0.0..=5.0).text("damping (1/s)"));
            ui.label("compliance (m/N, 0 = rigid)");
            let c = &mut s.solver.compliance;
            for (value, name) in [
                (&mut c.stretch, "stretch"),
                (&mut c.shear, "shear"),
                (&mut c.bend, "bend"),
            ] {
                ui.add(
                    egui::Slider::new(value, 0.0..=1.0)
                        .logarithmic(true)
                        .smallest_positive(1e-6)
                        .text(name),
                );
            }
            egui::ComboBox::from_label("projection")
                .selected_text(s.solver.projection.name())
                .show_ui(ui, |ui| {
                    for p in Projection::ALL {
                        ui.selectable_value(&mut s.solver.projection, p, p.name());
                    }
                });
            ui.add(
                egui::Slider::new(&mut s.solver.over_relaxation, 1.0..=1.9).text("over-relaxation"),
            );
            ui.checkbox(&mut s.tethers_on, "tethers (long-range attachments)");
            ui.checkbox(&mut s.solver.coarse_levels, "coarse levels (grid cloths)");
            ui.add(egui::Slider::new(&mut s.tether_scale, 1.0..=1.5).text("tether scale"));
            ui.add(egui::Slider::new(&mut s.gravity, 0.0..=30.0).text("gravity (m/s²)"));
            ui.checkbox(&mut s.wind_on, "wind (W)");
            ui.add(egui::Slider::new(&mut s.wind_strength, 0.0..=20.0).text("wind (m/s²)"));
            ui.add(
                egui::Slider::new(&mut s.wind_heading_deg, -180.0..=180.0).text("wind heading (°)"),
            );
            ui.checkbox(&mut s.sphere_on, "sphere (arrow keys move it)");
            ui.add(egui::Slider::new(&mut s.sphere.center.x, -1.0..=1.0).text("sphere x"));
            ui.add(egui::Slider::new(&mut s.sphere.center.y, -0.5..=1.5).text("sphere y"));
            ui.add(egui::Slider::new(&mut s.sphere.center.z, -1.0..=1.0).text("sphere z"));
            ui.add(egui::Slider::new(&mut s.sphere.radius, 0.05..=0.6).text("sphere radius"));
            ui.checkbox(&mut s.ground_on, "ground");
            ui.separator();
            ui.small("drag cloth: grab  ·  drag elsewhere / right-drag: orbit  ·  wheel: zoom");
            ui.small("Space pause · N step · R reset · W wind · P pin corners");
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Backend, Solver};

    /// Regression: the panel's Pin/Unpin corners button flipped the state twice, so it did
    /// nothing (the P key worked).
    #[test]
    fn pin_button_toggles_the_corners_once() {
        let mut settings = default_settings(8, None, DemoScene::Cloth);
        let cloth = demo_cloth(&settings).unwrap();
        let free = [0, 7].map(|i| cloth.free_inverse_masses()[i]);
        assert!(free.iter().all(|&w| w > 0.0));
        let mut solver = Solver::new(Backend::Cpu, &cloth, settings.params()).unwrap();
        let corner_w = |s: &mut Solver| {
            let p = s.raw_positions().unwrap();
            [p[0].w, p[7].w]
        };
        assert_eq!(
            corner_w(&mut solver),
            [0.0, 0.0],
            "the corners start pinned"
        );
        let button = UiActions {
            toggle_pins: true,
            ..Default::default()
        };
        apply_panel_actions(&button, &mut settings, &mut solver).unwrap();
        assert!(!settings.pins_held);
        assert_eq!(corner_w(&mut solver), free, "one click frees the corners");
        apply_panel_actions(&button, &mut settings, &mut solver).unwrap();
        assert!(settings.pins_held);
        assert_eq!(
            corner_w(&mut solver),
            [0.0, 0.0],
            "a second click pins them again"
        );
    }

    #[test]
    fn the_pin_button_releases_a_meshs_group_pins() {
        let flag =
            crate::ClothBuilder::obj(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/flag.obj"))
                .unwrap()
                .pinning(crate::Pinning::Group("pole".into()));
        let mut settings = default_settings(8, Some(flag), DemoScene::Cloth);
        let cloth = demo_cloth(&settings).unwrap();
        let pinned: Vec<usize> = (0..cloth.particle_count())
            .filter(|&i| cloth.is_pinned(i))
            .collect();
        assert!(pinned.len() >= 2);
        let mut solver = Solver::new(Backend::Cpu, &cloth, settings.params()).unwrap();
        let button = UiActions {
            toggle_pins: true,
            ..Default::default()
        };
        apply_panel_actions(&button, &mut settings, &mut solver).unwrap();
        for &i in &pinned {
            assert_eq!(
                solver.raw_positions().unwrap()[i].w,
                cloth.free_inverse_masses()[i]
            );
        }
    }
}
