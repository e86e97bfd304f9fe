//! The control panel on winit: egui's input from the window's events, and its frame run and
//! drawn over the scene. The panel itself (its rows, what it edits, its draw pass) is
//! `crate::panel`, shared with the web page.

use winit::event::WindowEvent;
use winit::window::Window;

use crate::gpu::GpuContext;
use crate::panel::{Action, Hud, PanelRenderer, Settings, controls};

/// egui's context, its winit input state and the panel's renderer.
pub(crate) struct Panel {
    ctx: egui::Context,
    state: egui_winit::State,
    renderer: PanelRenderer,
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
        Self {
            ctx,
            state,
            renderer: PanelRenderer::new(gpu, format),
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
        let platform = self
            .renderer
            .paint(gpu, &self.ctx, output, encoder, view, size);
        self.state.handle_platform_output(window, platform);
        actions
    }
}
