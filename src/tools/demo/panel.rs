//! The egui control panel: the HUD, the rows that edit [`Settings`], and its draw pass over the
//! scene. Buttons that need more than a setting changed return an [`Action`].

use winit::event::WindowEvent;
use winit::window::Window;

use super::input::Action;
use super::settings::Settings;
use super::sim::Counts;
use crate::gpu::GpuContext;
use crate::integrator::Integrator;
use crate::params::Projection;
use crate::quality::Stretch;
use crate::tools::scenes::DemoScene;

/// What the HUD shows at the top of the panel.
pub(crate) struct Hud<'a> {
    pub(crate) fps: f64,
    /// Solver time per frame from GPU timestamps, where the adapter has them.
    pub(crate) solver_ms: Option<f64>,
    pub(crate) stretch: Option<Stretch>,
    pub(crate) counts: Counts,
    /// Whether the cloths' own pins are held (the pin button's label).
    pub(crate) pins_held: bool,
    pub(crate) adapter: &'a str,
    /// A warning line (the CPU adapter's smaller default grid).
    pub(crate) note: Option<&'a str>,
}

/// egui's context, its winit input state and its wgpu renderer.
pub(crate) struct Panel {
    ctx: egui::Context,
    state: egui_winit::State,
    renderer: egui_wgpu::Renderer,
}

impl Panel {
    pub(crate) fn new(window: &Window, gpu: &GpuContext, format: wgpu::TextureFormat) -> Self {
        let ctx = egui::Context::default();
        let state = egui_winit::State::new(
            ctx.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            None,
            Some(gpu.limits().max_texture_dimension_2d as usize),
        );
        let renderer = egui_wgpu::Renderer::new(&gpu.device, format, Default::default());
        Self {
            ctx,
            state,
            renderer,
        }
    }

    /// Gives the panel a window event; true when it took it (a click on the panel is not a
    /// grab).
    pub(crate) fn event(&mut self, window: &Window, event: &WindowEvent) -> bool {
        self.state.on_window_event(window, event).consumed
    }

    /// Runs the panel for this frame over `settings` and records its drawing into `encoder`
    /// on top of `view` (`size` in pixels). Returns what its buttons asked for.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn draw(
        &mut self,
        window: &Window,
        gpu: &GpuContext,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        size: (u32, u32),
        settings: &mut Settings,
        hud: &Hud,
    ) -> Vec<Action> {
        let raw = self.state.take_egui_input(window);
        let mut actions = Vec::new();
        let output = self.ctx.run_pass(raw, |ctx| {
            controls(ctx, settings, hud, &mut actions);
        });
        self.state
            .handle_platform_output(window, output.platform_output);

        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [size.0, size.1],
            pixels_per_point: output.pixels_per_point,
        };
        let jobs = self.ctx.tessellate(output.shapes, output.pixels_per_point);
        for (id, deltas) in &output.textures_delta.set {
            for delta in deltas {
                self.renderer
                    .update_texture(&gpu.device, &gpu.queue, *id, delta);
            }
        }
        let extra = self
            .renderer
            .update_buffers(&gpu.device, &gpu.queue, encoder, &jobs, &screen);
        if !extra.is_empty() {
            gpu.queue.submit(extra);
        }
        {
            let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("egui"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    // Over the scene already drawn.
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
            self.renderer
                .render(&mut pass.forget_lifetime(), &jobs, &screen);
        }
        for id in &output.textures_delta.free {
            self.renderer.free_texture(id);
        }
        actions
    }
}

/// The panel's window, top to bottom.
fn controls(ctx: &egui::Context, s: &mut Settings, hud: &Hud, actions: &mut Vec<Action>) {
    egui::Window::new("chiffon")
        .default_pos([12.0, 12.0])
        .default_width(280.0)
        .show(ctx, |ui| {
            hud_rows(ui, hud);
            ui.separator();
            run_rows(ui, s, hud, actions);
            scene_rows(ui, s, actions);
            solver_rows(ui, s);
            force_rows(ui, s);
            s.colliders.rows(ui);
            ui.separator();
            ui.small("drag cloth: grab  ·  drag elsewhere / right-drag: orbit  ·  wheel: zoom");
            ui.small("Space pause · N step · R reset · W wind · P pins");
        });
}

fn hud_rows(ui: &mut egui::Ui, hud: &Hud) {
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
    let c = hud.counts;
    if c.cloths > 1 {
        ui.label(format!(
            "{} cloths, {} particles, {} constraints, up to {} colors (one world)",
            c.cloths, c.particles, c.constraints, c.colors
        ));
    } else {
        ui.label(format!(
            "{} particles, {} constraints, {} colors",
            c.particles, c.constraints, c.colors
        ));
    }
    ui.label(format!("adapter: {}", hud.adapter));
    if let Some(note) = hud.note {
        ui.colored_label(egui::Color32::from_rgb(230, 180, 80), note);
    }
}

/// Pause, step, reset and the pin toggle.
fn run_rows(ui: &mut egui::Ui, s: &mut Settings, hud: &Hud, actions: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        if ui.button(if s.paused { "Run" } else { "Pause" }).clicked() {
            s.paused = !s.paused;
        }
        if ui.button("Step").clicked() {
            s.step_once = true;
        }
        if ui.button("Reset").clicked() {
            actions.push(Action::Reset);
        }
        let grid = s.scene == DemoScene::Cloth && s.mesh.is_none();
        let pins = match (hud.pins_held, grid) {
            (true, true) => "Unpin corners",
            (false, true) => "Pin corners",
            (true, false) => "Release pins",
            (false, false) => "Pin again",
        };
        if ui.button(pins).clicked() {
            actions.push(Action::TogglePins);
        }
    });
}

/// The scene menu and the knobs of the scene shown.
fn scene_rows(ui: &mut egui::Ui, s: &mut Settings, actions: &mut Vec<Action>) {
    egui::ComboBox::from_label("scene")
        .selected_text(s.scene.name())
        .show_ui(ui, |ui| {
            for scene in DemoScene::ALL {
                if ui
                    .selectable_value(&mut s.scene, scene, scene.name())
                    .changed()
                {
                    actions.push(Action::Rebuild);
                }
            }
        });
    match s.scene {
        // A mesh has its own resolution.
        DemoScene::Cloth if s.mesh.is_some() => {}
        // The grid, the towel, the cape and the tablecloth take the resolution.
        DemoScene::Cloth | DemoScene::Heap | DemoScene::Character | DemoScene::Table => {
            egui::ComboBox::from_label("resolution")
                .selected_text(format!("{0}x{0}", s.grid))
                .show_ui(ui, |ui| {
                    for n in [32, 64, 128, 256, 512, 1024] {
                        if ui
                            .selectable_value(&mut s.grid, n, format!("{n}x{n}"))
                            .changed()
                        {
                            actions.push(Action::Rebuild);
                        }
                    }
                });
        }
        DemoScene::Flags => {
            ui.add(egui::Slider::new(&mut s.flags, 1..=32).text("flags per side"));
            if ui.button("Rebuild the field").clicked() {
                actions.push(Action::Rebuild);
            }
        }
    }
}

/// How the solver solves: integrator, frame time, substeps, iterations, damping, compliance,
/// projection, over-relaxation, tethers, coarse levels, self-collision.
fn solver_rows(ui: &mut egui::Ui, s: &mut Settings) {
    egui::ComboBox::from_label("integrator")
        .selected_text(s.solver.integrator.name())
        .show_ui(ui, |ui| {
            for integrator in Integrator::ALL {
                ui.selectable_value(&mut s.solver.integrator, integrator, integrator.name());
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
    ui.add(egui::Slider::new(&mut s.solver.over_relaxation, 1.0..=1.9).text("over-relaxation"));
    ui.checkbox(&mut s.tethers_on, "tethers (long-range attachments)");
    ui.checkbox(&mut s.solver.coarse_levels, "coarse levels (grid cloths)");
    ui.add(egui::Slider::new(&mut s.tether_scale, 1.0..=1.5).text("tether scale"));
    // On: every particle keeps the automatic thickness from the others (every cloth then takes
    // the global path).
    let mut self_collision = s.solver.self_collision.is_some();
    if ui
        .checkbox(&mut self_collision, "self-collision (and between cloths)")
        .changed()
    {
        s.solver.self_collision = self_collision.then(Default::default);
    }
}

/// Gravity and wind.
fn force_rows(ui: &mut egui::Ui, s: &mut Settings) {
    ui.add(egui::Slider::new(&mut s.gravity, 0.0..=30.0).text("gravity (m/s²)"));
    ui.checkbox(&mut s.wind_on, "wind (W)");
    ui.add(egui::Slider::new(&mut s.wind_strength, 0.0..=20.0).text("wind (m/s²)"));
    ui.add(egui::Slider::new(&mut s.wind_heading_deg, -180.0..=180.0).text("wind heading (°)"));
}
