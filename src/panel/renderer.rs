//! The panel's draw pass: egui's shapes, tessellated and drawn by `egui_wgpu` over the scene
//! already in the target. The same on the native demo and the web page.

use crate::gpu::GpuContext;

/// egui's wgpu renderer, with its textures (the font atlas) kept from frame to frame.
pub struct PanelRenderer {
    renderer: egui_wgpu::Renderer,
}

impl PanelRenderer {
    /// A renderer drawing into targets of `format`.
    pub fn new(gpu: &GpuContext, format: wgpu::TextureFormat) -> Self {
        Self {
            renderer: egui_wgpu::Renderer::new(&gpu.device, format, Default::default()),
        }
    }

    /// Records the drawing of egui's `output` into `encoder`, over what `view` (`size` in
    /// pixels) holds, and gives back what egui asks of the window system (cursor, links).
    pub fn paint(
        &mut self,
        gpu: &GpuContext,
        ctx: &egui::Context,
        output: egui::FullOutput,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        size: (u32, u32),
    ) -> egui::PlatformOutput {
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [size.0, size.1],
            pixels_per_point: output.pixels_per_point,
        };
        let jobs = ctx.tessellate(output.shapes, output.pixels_per_point);
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
        output.platform_output
    }
}
