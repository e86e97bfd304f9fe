//! The demo page: the native demo's five scenes, `cloth` (a grid flat at 1 m, corners pinned,
//! falling onto a sphere and the ground), `flags` (a field of flags in the wind, one world of
//! many cloths on the fused path), `heap` (a towel let go onto the floor, folding onto itself
//! with self-collision), `character` (a cape on a walking figure of capsules) and `table` (a
//! tablecloth dropped on a table), built, moved and framed by the same code as the native
//! demo's (`chiffon::scenes`: builders, `Motion`, `demo_view`), stepped on the browser's WebGPU
//! and drawn straight from the solver's position buffer into a canvas, the colliders as the
//! native demo draws them (`chiffon::scenes::solids`), with an orbit camera, grab, and the
//! native demo's egui panel (`chiffon::panel`: the same rows, settings and mapping to the
//! solver's parameters), fed the browser's pointer, wheel and key events, which the page
//! (`web/static/index.html`) passes to the methods here.
//!
//! One file, though long: the page's state and its browser event handlers, which share that
//! state; the scenes, camera and renderer are the library's.

use std::cell::RefCell;
use std::rc::Rc;

use chiffon::panel::{self, Action, Counts, Hud, Key, PanelRenderer, Settings};
use chiffon::quality::Stretch;
use chiffon::scenes::{self, DemoScene, Motion};
use chiffon::view::camera::OrbitCamera;
use chiffon::view::render::{ClothMesh, Renderer, SceneView, Solids, Targets};
use chiffon::{Backend, ClothBuilder, ClothHandle, GpuContext, World, WorldConfig};
use glam::{Vec2, Vec3, Vec4};
use wasm_bindgen::prelude::*;

/// Where a dropped mesh's lowest point starts (m): the height of the demo's grid.
const CLOTH_HEIGHT: f32 = 1.0;
/// Flags per side of the flags scene at the start: 16 flags of 640 particles, light enough for
/// a software adapter (the panel's slider sets it).
const FLAGS: u32 = 4;
/// Seconds between two readbacks of the stretch for the HUD (as the native demo's 30 frames).
const STRETCH_EVERY_S: f64 = 0.5;
/// How to use the page: the native demo's lines, and dropping a mesh file.
const HELP: [&str; 3] = [
    panel::HELP[0],
    panel::HELP[1],
    "drop an OBJ file on the page: drape it over the sphere",
];

/// The shared state; the page's callbacks each borrow it briefly (never across an await).
struct State {
    ctx: GpuContext,
    /// The canvas; `None` when drawing offscreen.
    surface: Option<wgpu::Surface<'static>>,
    /// What is drawn into instead of the canvas, when offscreen.
    offscreen: Option<wgpu::Texture>,
    config: wgpu::SurfaceConfiguration,
    /// The native demo's renderer (`chiffon::view`), its depth target and the world's cloths
    /// as one surface drawn from the world's position buffer.
    renderer: Renderer,
    targets: Targets,
    mesh: ClothMesh,
    world: World,
    /// What the panel edits: the scene, its resolution, the solver's settings, the colliders.
    settings: Settings,
    /// What the world was built from (the panel may already name another scene or size).
    shown: Shown,
    /// What the scene moves by itself (the heap's release, the figure's walk).
    motion: Motion,
    /// Simulated time since the scene was built (s): the motion's clock.
    elapsed: f64,
    /// Whether the cloths' own pins are held (false once the heap let its towel go).
    pins_held: bool,
    /// The world's cloths, each with its particles' free inverse masses (to release a grab).
    cloths: Vec<(ClothHandle, Vec<f32>)>,
    /// The world's cloths as placed (for the stretch readout, read without the world).
    placed: Rc<Vec<(ClothHandle, chiffon::Cloth)>>,
    camera: OrbitCamera,
    /// The panel: egui's context, the events the page gave it since the last frame, and its
    /// draw pass.
    egui: egui::Context,
    events: Vec<egui::Event>,
    panel: PanelRenderer,
    /// CSS pixels per canvas pixel (the page's `devicePixelRatio`): egui's points per pixel.
    pixels_per_point: f32,
    /// Seconds since the page started (egui's clock) and the frame rate, smoothed.
    clock: f64,
    fps: f64,
    /// The stretch the HUD shows (read back every [`STRETCH_EVERY_S`], without blocking),
    /// when it was asked for, and whether a readback is under way.
    stretch: Rc<RefCell<Option<Stretch>>>,
    stretch_asked: f64,
    /// A line for the HUD: a mesh file that could not be read, a scene that could not be built.
    note: Option<String>,
    /// The adapter, as the native demo names it, and its limits, as `chiffon info` prints
    /// them (the HUD folds them).
    adapter: String,
    limits: String,
    /// The grabbed particle (its cloth's index in `cloths`, its own index) and the distance
    /// from the eye of the plane it is dragged in.
    grab: Option<(usize, usize, f32)>,
    /// Where the pointer is, in normalized device coordinates.
    pointer: (f32, f32),
    /// GPU timestamps around each stage, where the browser grants them (Chromium does with
    /// `--enable-unsafe-webgpu`); read back without blocking, a few frames late.
    timer: Option<chiffon::gpu::StageTimer>,
    /// The last GPU times read: the frame's total and each stage's (ms).
    gpu_times: Option<chiffon::gpu::StageTimes>,
    /// WebGPU's validation errors, as the device reports them (events, not return values).
    errors: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

/// The settings a world was built from: what a failed rebuild goes back to.
#[derive(Clone)]
struct Shown {
    scene: DemoScene,
    grid: u32,
    flags: u32,
    mesh: Option<ClothBuilder>,
}

impl Shown {
    fn of(s: &Settings) -> Self {
        Self {
            scene: s.scene,
            grid: s.grid,
            flags: s.flags,
            mesh: s.mesh.clone(),
        }
    }
}

/// The cloth a dropped mesh makes: scaled so its largest side is 1 m, its middle over the
/// origin and its lowest point 1 m up, so it falls onto the sphere as the grid does; no pins.
fn mesh_cloth(mesh: &chiffon::TriangleMesh) -> ClothBuilder {
    let (lo, hi) = chiffon::geometry::bounds(&mesh.positions);
    let scale = 1.0 / (hi - lo).max_element().max(1e-6);
    let middle = 0.5 * (lo + hi) * scale;
    ClothBuilder::mesh(mesh.clone())
        .scale(scale)
        .translate(Vec3::new(-middle.x, CLOTH_HEIGHT - lo.y * scale, -middle.z))
}

/// A built scene: its world, each cloth's handle and cloth as placed, and what it moves.
type Built = (World, Vec<(ClothHandle, chiffon::Cloth)>, Motion);

/// A world holding the scene `settings` show (`Settings::cloths`: the scene's cloths, or a
/// dropped mesh's), with the solver's parameters they ask for.
fn scene(ctx: &GpuContext, settings: &Settings) -> chiffon::Result<Built> {
    let (cloths, collar) = settings.cloths()?;
    let mut capacity = chiffon::world::WorldCapacity::for_cloths(1, &cloths[0].0);
    capacity.cloths = cloths.len() as u32;
    capacity.particles *= cloths.len() as u32;
    capacity.constraints *= cloths.len() as u32;
    let config = WorldConfig {
        capacity,
        paths: scenes::demo_paths(settings.scene),
        ..WorldConfig::default()
    };
    let mut world = World::new(Backend::Gpu(ctx), settings.params(), config)?;
    let mut placed = Vec::with_capacity(cloths.len());
    for (cloth, options) in cloths {
        let handle = world.add(&cloth, options)?;
        placed.push((handle, world.cloth(handle)?.clone()));
    }
    let motion = Motion::of(settings.scene, placed[0].0, collar);
    Ok((world, placed, motion))
}

/// The camera the native demo starts `scene` with (`chiffon::scenes::demo_view`).
fn camera(scene: DemoScene, cloths: &[(ClothHandle, chiffon::Cloth)], mesh: bool) -> OrbitCamera {
    let rest: Vec<Vec3> = cloths
        .iter()
        .flat_map(|(_, c)| c.positions().iter().copied())
        .collect();
    OrbitCamera::from(scenes::demo_view(scene, &rest, mesh))
}

/// What the renderer draws for `world`: its cloths as one surface over its position buffer.
fn cloth_mesh(
    ctx: &GpuContext,
    renderer: &Renderer,
    world: &mut World,
) -> chiffon::Result<ClothMesh> {
    let surface = chiffon::view::world_surface(world)?;
    let positions = world.position_buffer().ok_or_else(|| {
        chiffon::ChiffonError::InvalidCloth(
            "the page draws a GPU world; this one is on the CPU".into(),
        )
    })?;
    renderer.cloth_mesh(&ctx.device, &surface, positions)
}

/// The demo, as the page holds it.
#[wasm_bindgen]
pub struct Demo {
    state: Rc<RefCell<State>>,
}

fn js_error(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

#[wasm_bindgen]
impl Demo {
    /// Opens the browser's WebGPU on `canvas` and builds `scene` (`cloth`, `flags`, `heap`,
    /// `character` or `table`) at resolution `grid`; `adapter` names the adapter (the page
    /// reads `GPUAdapter.info`, which wgpu leaves mostly empty); `pixels_per_point` is the page's
    /// `devicePixelRatio` (the canvas's pixels per CSS pixel); `offscreen` draws into a texture
    /// of the canvas's size instead (headless Chromium on SwiftShader cannot present a WebGPU
    /// canvas). Fails with a message for the page: no WebGPU, an unknown scene, or a cloth too
    /// large for the adapter's limits (naming the limit).
    pub async fn start(
        canvas: web_sys::HtmlCanvasElement,
        scene_name: &str,
        grid: u32,
        adapter: &str,
        pixels_per_point: f32,
        offscreen: bool,
    ) -> Result<Demo, JsError> {
        let scene_kind: DemoScene = scene_name.parse().map_err(js_error)?;
        let (width, height) = (canvas.width().max(1), canvas.height().max(1));
        if !wgpu::util::is_browser_webgpu_supported().await {
            return Err(js_error(chiffon::ChiffonError::NoWebGpu(
                "navigator.gpu is missing or gives no adapter".into(),
            )));
        }
        let instance = GpuContext::create_instance();
        let surface = if offscreen {
            None
        } else {
            let target = wgpu::SurfaceTarget::Canvas(canvas);
            Some(instance.create_surface(target).map_err(js_error)?)
        };
        let ctx = GpuContext::with_instance_async(instance, surface.as_ref())
            .await
            .map_err(js_error)?;
        let mut config = match &surface {
            Some(surface) => surface
                .get_default_config(&ctx.adapter, width, height)
                .ok_or_else(|| js_error("the adapter cannot draw into this canvas"))?,
            None => wgpu::SurfaceConfiguration {
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                format: wgpu::TextureFormat::Rgba8UnormSrgb,
                width,
                height,
                present_mode: wgpu::PresentMode::Fifo,
                desired_maximum_frame_latency: 2,
                alpha_mode: wgpu::CompositeAlphaMode::Opaque,
                view_formats: Vec::new(),
                color_space: Default::default(),
            },
        };
        // The renderer writes linear colours, as on the native demo, into an sRGB view: a
        // canvas cannot be sRGB itself, but its texture can be viewed as one.
        let format = config.format.add_srgb_suffix();
        if format != config.format {
            config.view_formats.push(format);
        }
        if let Some(surface) = &surface {
            surface.configure(&ctx.device, &config);
        }
        let offscreen = surface.is_none().then(|| color_texture(&ctx, &config));
        let errors = crate::keep_errors(&ctx.device);
        let renderer = Renderer::new(&ctx.device, format, 1);
        let targets = Targets::new(&ctx.device, format, (width, height), renderer.samples());
        // Room for every stage of a frame of the most substeps the solver allows.
        let max_passes =
            chiffon::schedule::FrameSchedule::largest(chiffon::params::MAX_SUBSTEPS).stages();
        let timer = chiffon::gpu::StageTimer::new(&ctx, max_passes);
        let settings = Settings::new(scene_kind, grid, FLAGS, None);
        let (mut world, placed, motion) = scene(&ctx, &settings).map_err(js_error)?;
        let mesh = cloth_mesh(&ctx, &renderer, &mut world).map_err(js_error)?;
        let adapter = crate::adapter_name(adapter, &ctx);
        let limits = limits(&ctx, &adapter);
        let panel = PanelRenderer::new(&ctx, format);
        let state = State {
            cloths: placed
                .iter()
                .map(|(h, c)| (*h, c.free_inverse_masses().to_vec()))
                .collect(),
            camera: camera(scene_kind, &placed, false),
            placed: Rc::new(placed),
            shown: Shown::of(&settings),
            settings,
            motion,
            elapsed: 0.0,
            pins_held: true,
            ctx,
            surface,
            offscreen,
            config,
            renderer,
            targets,
            mesh,
            world,
            grab: None,
            pointer: (0.0, 0.0),
            timer,
            gpu_times: None,
            errors,
            egui: egui::Context::default(),
            events: Vec::new(),
            panel,
            pixels_per_point: pixels_per_point.max(0.25),
            clock: 0.0,
            fps: 0.0,
            stretch: Rc::new(RefCell::new(None)),
            stretch_asked: f64::NEG_INFINITY,
            note: None,
            adapter,
            limits,
        };
        Ok(Demo {
            state: Rc::new(RefCell::new(state)),
        })
    }

    /// One frame, `wall_dt` seconds after the last: the panel's settings given to the world,
    /// a step (unless paused; of `wall_dt` exactly when `fixed`, else as the panel's
    /// frame-time settings say), the scene and the panel drawn, and what the panel's buttons
    /// asked for carried out.
    pub fn frame(&self, wall_dt: f64, fixed: bool) -> Result<(), JsError> {
        let mut s = self.state.borrow_mut();
        let s = &mut *s;
        s.clock += wall_dt;
        if wall_dt > 0.0 {
            s.fps = 0.9 * s.fps + 0.1 / wall_dt;
        }
        let dt = s
            .settings
            .frame_dt(wall_dt, fixed.then_some(wall_dt), js_sys::Math::random());
        if let Some(dt) = dt {
            if let Some((c, i, depth)) = s.grab {
                let aspect = s.config.width as f32 / s.config.height as f32;
                let ray = s.camera.ray_ndc(Vec2::from(s.pointer), aspect);
                let to = ray.at(depth);
                let cloth = s.cloths[c].0;
                // Carried over the frame's substeps, so a fast drag does not jerk the cloth.
                s.world.move_pin(cloth, i, to).map_err(js_error)?;
            }
            s.world.set_params(s.settings.params()).map_err(js_error)?;
            // Time this frame's stages unless the previous measurement is still being read.
            let timed = s.timer.as_ref().is_some_and(|t| t.is_idle());
            s.advance(dt, timed).map_err(js_error)?;
            if let Some(t) = s.timer.as_mut()
                && timed
            {
                t.request();
            }
        }
        if let Some(times) = s.timer.as_mut().and_then(|t| t.collect()) {
            s.gpu_times = Some(times);
        }
        if s.clock - s.stretch_asked >= STRETCH_EVERY_S {
            s.stretch_asked = s.clock;
            let (into, read) = (s.stretch.clone(), s.read_stretch());
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(st) = read.await {
                    *into.borrow_mut() = Some(st);
                }
            });
        }
        let actions = s.render()?;
        for action in actions {
            s.apply(action)?;
        }
        Ok(())
    }

    /// The GPU time of a recent frame, in total and per stage, as text; `None` where the
    /// browser grants no timestamps (or none has arrived yet).
    pub fn gpu_times(&self) -> Option<String> {
        let s = self.state.borrow();
        let times = s.gpu_times.as_ref()?;
        let stages: Vec<String> = times
            .stages
            .iter()
            .map(|(stage, ms)| format!("{} {ms:.1}", stage.name()))
            .collect();
        Some(format!(
            "GPU {:.1} ms ({})",
            times.total_ms,
            stages.join(", ")
        ))
    }

    /// The last frame drawn offscreen, as RGBA bytes row by row (width × height × 4); fails
    /// when drawing to the canvas. For a picture of the page where no canvas can be shown.
    pub fn pixels(&self) -> js_sys::Promise {
        let state = self.state.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let (ctx, buffer, width, height, row) = {
                let s = state.borrow();
                let texture = s
                    .offscreen
                    .as_ref()
                    .ok_or_else(|| js_error("pixels: the demo draws to the canvas"))?;
                let (width, height) = (s.config.width, s.config.height);
                let row = (width * 4).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
                let buffer = s.ctx.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("pixels"),
                    size: row as u64 * height as u64,
                    usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                });
                let mut encoder = s.ctx.device.create_command_encoder(&Default::default());
                encoder.copy_texture_to_buffer(
                    texture.as_image_copy(),
                    wgpu::TexelCopyBufferInfo {
                        buffer: &buffer,
                        layout: wgpu::TexelCopyBufferLayout {
                            offset: 0,
                            bytes_per_row: Some(row),
                            rows_per_image: None,
                        },
                    },
                    wgpu::Extent3d {
                        width,
                        height,
                        depth_or_array_layers: 1,
                    },
                );
                s.ctx.queue.submit([encoder.finish()]);
                (s.ctx.clone(), buffer, width, height, row)
            };
            let bytes: Vec<u8> = ctx.read_buffer_async(&buffer).await.map_err(js_error)?;
            let mut rgba = Vec::with_capacity((width * height * 4) as usize);
            for y in 0..height as usize {
                let start = y * row as usize;
                rgba.extend_from_slice(&bytes[start..start + width as usize * 4]);
            }
            Ok(js_sys::Uint8Array::from(rgba.as_slice()).into())
        })
    }

    /// Steps the world `dt` seconds without drawing (the page's compute-only timing).
    pub fn step(&self, dt: f64) -> Result<(), JsError> {
        let mut s = self.state.borrow_mut();
        let params = s.settings.params();
        s.world.set_params(params).map_err(js_error)?;
        s.advance(dt, false).map_err(js_error)
    }

    /// Resolves once the GPU has finished every frame submitted so far (the page's frame
    /// timing).
    pub fn frame_done(&self) -> js_sys::Promise {
        let queue = self.state.borrow().ctx.queue.clone();
        js_sys::Promise::new(&mut |resolve, _| {
            queue.on_submitted_work_done(move || {
                let _ = resolve.call0(&JsValue::NULL);
            });
        })
    }

    /// Resolves once the cloth's positions are back on the host, so after every frame
    /// submitted so far (a readback waits for the GPU's queue, whatever the browser's
    /// `onSubmittedWorkDone` does).
    pub fn settle(&self) -> js_sys::Promise {
        let (ctx, buffer) = {
            let s = self.state.borrow();
            (s.ctx.clone(), s.world.position_buffer().cloned())
        };
        wasm_bindgen_futures::future_to_promise(async move {
            if let Some(buffer) = buffer {
                ctx.read_buffer_async::<f32>(&buffer)
                    .await
                    .map_err(js_error)?;
            }
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The canvas was resized to `width` × `height` pixels, `pixels_per_point` of them per
    /// CSS pixel.
    pub fn resize(&self, width: u32, height: u32, pixels_per_point: f32) {
        let mut s = self.state.borrow_mut();
        s.pixels_per_point = pixels_per_point.max(0.25);
        s.config.width = width.max(1);
        s.config.height = height.max(1);
        if let Some(surface) = &s.surface {
            surface.configure(&s.ctx.device, &s.config);
        }
        if s.offscreen.is_some() {
            s.offscreen = Some(color_texture(&s.ctx, &s.config));
        }
        let size = (s.config.width, s.config.height);
        let format = s.config.format.add_srgb_suffix();
        s.targets = Targets::new(&s.ctx.device, format, size, s.renderer.samples());
    }

    /// Turns the camera by a pointer drag of `(dx, dy)` pixels.
    pub fn orbit(&self, dx: f32, dy: f32) {
        self.state.borrow_mut().camera.orbit(Vec2::new(dx, dy));
    }

    /// Zooms by `factor` (above 1: away).
    pub fn zoom(&self, factor: f32) {
        self.state.borrow_mut().camera.scale_distance(factor);
    }

    /// The pointer moved to normalized device coordinates `(x, y)`.
    pub fn pointer(&self, x: f32, y: f32) {
        self.state.borrow_mut().pointer = (x, y);
    }

    /// Grabs the particle under the pointer at `(x, y)` (normalized device coordinates), if
    /// any: resolves to whether one was grabbed. Reads the positions back without blocking.
    pub fn grab(&self, x: f32, y: f32) -> js_sys::Promise {
        let state = self.state.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            let (ctx, buffer, ranges, ray) = {
                let mut s = state.borrow_mut();
                s.pointer = (x, y);
                let aspect = s.config.width as f32 / s.config.height as f32;
                let handles: Vec<ClothHandle> = s.cloths.iter().map(|c| c.0).collect();
                let ranges = handles
                    .into_iter()
                    .map(|h| s.world.particle_range(h))
                    .collect::<chiffon::Result<Vec<_>>>()
                    .map_err(js_error)?;
                let buffer = s.world.position_buffer().cloned();
                let ray = s.camera.ray_ndc(Vec2::new(x, y), aspect);
                (s.ctx.clone(), buffer, ranges, ray)
            };
            let Some(buffer) = buffer else {
                return Ok(JsValue::FALSE);
            };
            let positions: Vec<Vec4> = ctx.read_buffer_async(&buffer).await.map_err(js_error)?;
            let (origin, dir) = (ray.origin, ray.dir);
            let mut best: Option<(usize, usize, f32)> = None;
            for (c, range) in ranges.iter().enumerate() {
                for (k, p) in positions[range.start as usize..range.end as usize]
                    .iter()
                    .enumerate()
                {
                    let to = p.truncate() - origin;
                    let along = to.dot(dir);
                    let off = (to - dir * along).length();
                    // Within 2 % of the distance along the ray, the nearest to the eye.
                    if along > 0.0 && off < 0.02 * along && best.is_none_or(|(_, _, b)| along < b) {
                        best = Some((c, k, along));
                    }
                }
            }
            let Some(grab) = best else {
                return Ok(JsValue::FALSE);
            };
            state.borrow_mut().grab = Some(grab);
            Ok(JsValue::TRUE)
        })
    }

    /// The stretch of every cloth (`chiffon::quality::stretch_of_cloths`, as the HUD shows
    /// it) as text, from a readback that does not block.
    pub fn stretch(&self) -> js_sys::Promise {
        let read = self.state.borrow_mut().read_stretch();
        wasm_bindgen_futures::future_to_promise(async move {
            let st = read.await.map_err(js_error)?;
            Ok(JsValue::from_str(&format!(
                "stretch mean {:.4}, p99 {:.3}, max {:.3}",
                st.mean, st.p99, st.max
            )))
        })
    }

    /// Lets the grabbed particle go (with its own mass again).
    pub fn release(&self) -> Result<(), JsError> {
        let mut s = self.state.borrow_mut();
        if let Some((c, i, _)) = s.grab.take() {
            let (cloth, w) = (s.cloths[c].0, s.cloths[c].1[i]);
            s.world.set_inverse_mass(cloth, i, w).map_err(js_error)?;
        }
        Ok(())
    }

    /// Shows the cloth of an OBJ file dropped onto the page (`bytes`, named `name`) in the
    /// cloth scene. A file that is not a usable mesh is an error naming it and the reason
    /// (the HUD shows it too), and the scene stays as it was.
    pub fn load_obj(&self, bytes: &[u8], name: &str) -> Result<(), JsError> {
        let mut s = self.state.borrow_mut();
        let built = chiffon::geometry::obj::parse(bytes, name)
            .map(|mesh| mesh_cloth(&mesh))
            .and_then(|builder| builder.clone().build().map(|_| builder));
        let builder = match built {
            Ok(builder) => builder,
            Err(e) => {
                s.note = Some(format!("{name}: {e}"));
                return Err(js_error(e));
            }
        };
        s.settings.scene = DemoScene::Cloth;
        s.settings.mesh = Some(builder);
        s.build()?;
        s.note = Some(format!("showing {name}"));
        Ok(())
    }

    /// A line the HUD shows (empty: none).
    pub fn set_note(&self, note: &str) {
        self.state.borrow_mut().note = (!note.is_empty()).then(|| note.to_string());
    }

    /// The line the HUD shows, if any.
    pub fn note(&self) -> Option<String> {
        self.state.borrow().note.clone()
    }

    /// The pointer moved to `(x, y)` CSS pixels from the canvas's top left. Gives egui the
    /// move; the camera and a held particle follow through [`Demo::pointer`].
    pub fn pointer_moved(&self, x: f32, y: f32) {
        let mut s = self.state.borrow_mut();
        s.events.push(egui::Event::PointerMoved(egui::pos2(x, y)));
    }

    /// The pointer left the canvas.
    pub fn pointer_gone(&self) {
        self.state
            .borrow_mut()
            .events
            .push(egui::Event::PointerGone);
    }

    /// A mouse button (0 left, 1 middle, 2 right, as the DOM numbers them) went down or up at
    /// `(x, y)` CSS pixels. True when the panel takes it: a press on the panel is not a grab.
    pub fn pointer_button(&self, x: f32, y: f32, button: u32, pressed: bool) -> bool {
        let mut s = self.state.borrow_mut();
        let button = match button {
            1 => egui::PointerButton::Middle,
            2 => egui::PointerButton::Secondary,
            _ => egui::PointerButton::Primary,
        };
        s.events.push(egui::Event::PointerButton {
            pos: egui::pos2(x, y),
            button,
            pressed,
            modifiers: Default::default(),
        });
        s.egui.egui_wants_pointer_input()
    }

    /// The wheel turned by `(dx, dy)` CSS pixels over the canvas. True when the panel takes it
    /// (it scrolls); else the page zooms.
    pub fn wheel(&self, dx: f32, dy: f32) -> bool {
        let mut s = self.state.borrow_mut();
        s.events.push(egui::Event::MouseWheel {
            unit: egui::MouseWheelUnit::Point,
            delta: egui::vec2(-dx, -dy),
            phase: egui::TouchPhase::Move,
            source: egui::MouseWheelSource::Unknown,
            modifiers: Default::default(),
        });
        s.egui.egui_wants_pointer_input()
    }

    /// A key went down (`pressed`) or up: `code` is the DOM's `KeyboardEvent.code` (the key's
    /// place), `key` its `KeyboardEvent.key` (what it types). While the panel edits text, egui
    /// gets it; otherwise the demo's keys act (`chiffon::panel::Key`: Space, N, R, W, P, the
    /// arrows). True when either used it (the page then keeps the browser from scrolling).
    pub fn key(&self, code: &str, key: &str, pressed: bool) -> Result<bool, JsError> {
        let mut s = self.state.borrow_mut();
        if s.egui.egui_wants_keyboard_input() {
            if let Some(k) = egui::Key::from_name(key) {
                s.events.push(egui::Event::Key {
                    key: k,
                    physical_key: None,
                    pressed,
                    repeat: false,
                    modifiers: Default::default(),
                });
            }
            if pressed && key.chars().count() == 1 {
                s.events.push(egui::Event::Text(key.to_string()));
            }
            return Ok(true);
        }
        let Some(demo_key) = Key::from_code(code).filter(|_| pressed) else {
            return Ok(false);
        };
        if let Some(action) = s.settings.key(demo_key) {
            s.apply(action)?;
        }
        Ok(true)
    }

    /// Particles of the scene's cloths.
    pub fn particles(&self) -> u32 {
        self.state.borrow().world.particle_count() as u32
    }

    /// The first WebGPU error the device reported, if any (the page shows it and stops).
    pub fn error(&self) -> Option<String> {
        let s = self.state.borrow();
        let errors = s.errors.lock().unwrap_or_else(|e| e.into_inner());
        errors.first().cloned()
    }

    /// The adapter and the limits that bound a cloth, as `chiffon info` prints them, as text
    /// (the HUD folds it under "adapter and limits").
    pub fn info(&self) -> String {
        self.state.borrow().limits.clone()
    }
}

impl State {
    /// Builds the scene the settings show (another scene starts with its own wind, colliders
    /// and self-collision, as on the native demo), and frames it anew if it is another scene
    /// or the mesh came or went. On an error the old scene stays, the panel names it again,
    /// and the HUD says why.
    fn build(&mut self) -> Result<(), JsError> {
        let old = self.shown.clone();
        if self.settings.scene != old.scene {
            let scene = self.settings.scene;
            self.settings.enter(scene);
        }
        let built = scene(&self.ctx, &self.settings).and_then(|(mut world, placed, motion)| {
            let mesh = cloth_mesh(&self.ctx, &self.renderer, &mut world)?;
            Ok((world, placed, motion, mesh))
        });
        let (world, placed, motion, mesh) = match built {
            Ok(built) => built,
            Err(e) => {
                let s = &mut self.settings;
                if s.scene != old.scene {
                    s.enter(old.scene);
                }
                (s.grid, s.flags, s.mesh) = (old.grid, old.flags, old.mesh);
                self.note = Some(format!("could not build that scene: {e}"));
                return Err(js_error(e));
            }
        };
        self.mesh = mesh;
        let shown = Shown::of(&self.settings);
        if (shown.scene, shown.mesh.is_some()) != (old.scene, old.mesh.is_some()) {
            self.camera = camera(shown.scene, &placed, shown.mesh.is_some());
        }
        self.cloths = placed
            .iter()
            .map(|(h, c)| (*h, c.free_inverse_masses().to_vec()))
            .collect();
        self.placed = Rc::new(placed);
        self.world = world;
        self.shown = shown;
        self.motion = motion;
        self.elapsed = 0.0;
        self.pins_held = true;
        self.grab = None;
        self.note = None;
        *self.stretch.borrow_mut() = None;
        Ok(())
    }

    /// Carries out what a key or a panel button asked for.
    fn apply(&mut self, action: Action) -> Result<(), JsError> {
        match action {
            Action::Rebuild | Action::Reset => self.build(),
            Action::TogglePins => {
                self.pins_held = !self.pins_held;
                scenes::set_pins_held(&mut self.world, self.pins_held).map_err(js_error)
            }
        }
    }

    /// A readback of every cloth's stretch that does not block (nor hold the state).
    fn read_stretch(
        &mut self,
    ) -> impl std::future::Future<Output = chiffon::Result<Stretch>> + 'static {
        let ranges: chiffon::Result<Vec<_>> = self
            .placed
            .iter()
            .map(|(h, _)| self.world.particle_range(*h))
            .collect();
        let (ctx, buffer, placed) = (
            self.ctx.clone(),
            self.world.position_buffer().cloned(),
            self.placed.clone(),
        );
        async move {
            let ranges = ranges?;
            let all: Vec<Vec4> = match buffer {
                Some(buffer) => ctx.read_buffer_async(&buffer).await?,
                None => Vec::new(),
            };
            let positions: Vec<Vec<Vec3>> = ranges
                .iter()
                .map(|r| {
                    all.get(r.start as usize..r.end as usize)
                        .unwrap_or_default()
                        .iter()
                        .map(|p| p.truncate())
                        .collect()
                })
                .collect();
            Ok(chiffon::quality::stretch_of_cloths(
                placed
                    .iter()
                    .zip(&positions)
                    .map(|((_, c), p)| (c, p.as_slice())),
            ))
        }
    }

    /// One frame of `dt` seconds: the scene's motion to the frame's end (the heap's release,
    /// the figure's walk, whose capsules are drawn where they go), then the world's step, its
    /// stages timed when `timed`.
    fn advance(&mut self, dt: f64, timed: bool) -> chiffon::Result<()> {
        let (from, to) = (self.elapsed, self.elapsed + dt);
        if self
            .motion
            .before_step(&mut self.world, from, to, self.pins_held)?
        {
            self.pins_held = false;
            scenes::set_pins_held(&mut self.world, false)?;
        }
        let timer = self.timer.as_mut().filter(|_| timed);
        self.world.step_timed(dt, timer)?;
        self.elapsed = to;
        Ok(())
    }

    /// Draws the scene and the panel over it; returns what the panel's buttons asked for.
    fn render(&mut self) -> Result<Vec<Action>, JsError> {
        let frame = match (&self.surface, &self.offscreen) {
            (Some(surface), _) => match surface.get_current_texture() {
                wgpu::CurrentSurfaceTexture::Success(t)
                | wgpu::CurrentSurfaceTexture::Suboptimal(t) => Some(t),
                // Hidden or resized between frames: skip drawing this one.
                _ => return Ok(Vec::new()),
            },
            _ => None,
        };
        let view = match (&frame, &self.offscreen) {
            (Some(frame), _) => frame.texture.create_view(&wgpu::TextureViewDescriptor {
                format: Some(self.config.format.add_srgb_suffix()),
                ..Default::default()
            }),
            (None, Some(texture)) => texture.create_view(&Default::default()),
            (None, None) => return Ok(Vec::new()),
        };
        // The colliders where the world has them now (the walk moves them, the panel's sliders
        // move the sphere), drawn by the native demo's renderer.
        let aspect = self.config.width as f32 / self.config.height as f32;
        let scene = SceneView {
            view_proj: self.camera.view_projection(aspect),
            eye: self.camera.eye(),
            solids: Solids::of(&self.world.params().colliders),
        };
        let mut encoder = self.ctx.device.create_command_encoder(&Default::default());
        let (device, queue) = (&self.ctx.device, &self.ctx.queue);
        self.renderer.draw(
            device,
            queue,
            &mut encoder,
            &self.targets,
            &view,
            &self.mesh,
            &scene,
        );
        let actions = self.panel_pass(&mut encoder, &view);
        self.ctx.queue.submit([encoder.finish()]);
        if let Some(frame) = frame {
            self.ctx.queue.present(frame);
        }
        Ok(actions)
    }

    /// Runs the panel on the events the page gave since the last frame and records its
    /// drawing over `view`.
    fn panel_pass(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
    ) -> Vec<Action> {
        let size = (self.config.width, self.config.height);
        let ppp = self.pixels_per_point;
        let mut raw = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(size.0 as f32, size.1 as f32) / ppp,
            )),
            max_texture_side: Some(self.ctx.limits().max_texture_dimension_2d as usize),
            time: Some(self.clock),
            events: std::mem::take(&mut self.events),
            focused: true,
            ..Default::default()
        };
        if let Some(viewport) = raw.viewports.get_mut(&egui::ViewportId::ROOT) {
            viewport.native_pixels_per_point = Some(ppp);
        } else {
            raw.viewports.insert(
                egui::ViewportId::ROOT,
                egui::ViewportInfo {
                    native_pixels_per_point: Some(ppp),
                    ..Default::default()
                },
            );
        }
        let stretch = *self.stretch.borrow();
        let hud = Hud {
            fps: self.fps,
            solver_ms: self.gpu_times.as_ref().map(|t| t.total_ms),
            stretch,
            counts: Counts::of(&self.world),
            pins_held: self.pins_held,
            adapter: &self.adapter,
            note: self.note.as_deref(),
            limits: Some(&self.limits),
            help: &HELP,
        };
        let mut actions = Vec::new();
        let settings = &mut self.settings;
        let output = self.egui.run_pass(raw, |ctx| {
            panel::controls(ctx, settings, &hud, &mut actions);
        });
        self.panel
            .paint(&self.ctx, &self.egui, output, encoder, view, size);
        actions
    }
}

/// The adapter (`adapter`) and the limits that bound a cloth, as `chiffon info` prints them
/// (`GpuContext::limit_rows`), as text.
fn limits(ctx: &GpuContext, adapter: &str) -> String {
    let timestamps = if ctx.has_timestamps() { "yes" } else { "no" };
    let mut out = format!(
        "{:<32} {adapter}\n{:<32} {timestamps}\n",
        "adapter", "timestamps"
    );
    for (name, value) in ctx.limit_rows() {
        out.push_str(&format!("{name:<32} {value}\n"));
    }
    out
}

fn color_texture(ctx: &GpuContext, config: &wgpu::SurfaceConfiguration) -> wgpu::Texture {
    ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some("offscreen"),
        size: wgpu::Extent3d {
            width: config.width,
            height: config.height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: config.format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}
