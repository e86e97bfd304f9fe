//! Drawing the cloth straight from the solver's buffers, plus the ground and the sphere.

use glam::{Mat4, Vec3};

use crate::config::DEFAULT_WORKGROUP_SIZE;
use crate::config::Grid;
use crate::error::{ChiffonError, Result};
use crate::gpu::kernels::{Binding, Kernel, bind_group, bind_group_layout};
use crate::gpu::shaders;

/// Depth buffer format.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Background color (linear).
pub const BACKGROUND: wgpu::Color = wgpu::Color {
    r: 0.16,
    g: 0.18,
    b: 0.22,
    a: 1.0,
};

/// Uniform block of `shaders/render.wgsl` (`Scene`).
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SceneUniform {
    /// Projection × view.
    pub view_proj: [[f32; 4]; 4],
    /// xyz: camera position (m).
    pub eye: [f32; 4],
    /// xyz: unit vector towards the light.
    pub light_dir: [f32; 4],
    /// xyz: centre (m), w: radius (m).
    pub sphere: [f32; 4],
    /// x: height (m).
    pub ground: [f32; 4],
    /// x: columns, y: rows of the cloth.
    pub grid: [u32; 4],
}

/// What to draw this frame besides the cloth.
pub struct SceneView {
    /// Projection × view.
    pub view_proj: Mat4,
    /// Camera position (m).
    pub eye: Vec3,
    /// Centre and radius of the sphere, if shown.
    pub sphere: Option<(Vec3, f32)>,
    /// Ground height, if shown.
    pub ground: Option<f32>,
}

/// Color (multisampled where enabled) and depth targets of one size.
pub struct Targets {
    msaa: Option<wgpu::TextureView>,
    depth: wgpu::TextureView,
    /// Size in pixels.
    pub size: (u32, u32),
}

impl Targets {
    /// Targets for a `size` viewport with `samples` samples per pixel.
    pub fn new(
        device: &wgpu::Device,
        format: wgpu::TextureFormat,
        size: (u32, u32),
        samples: u32,
    ) -> Self {
        let texture = |label, format, samples| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: wgpu::Extent3d {
                        width: size.0.max(1),
                        height: size.1.max(1),
                        depth_or_array_layers: 1,
                    },
                    mip_level_count: 1,
                    sample_count: samples,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
                    view_formats: &[],
                })
                .create_view(&Default::default())
        };
        Self {
            msaa: (samples > 1).then(|| texture("msaa color", format, samples)),
            depth: texture("depth", DEPTH_FORMAT, samples),
            size,
        }
    }
}

/// Per-cloth GPU data: indices, the normals buffer and the normals kernel's bindings.
pub struct ClothMesh {
    index_buffer: wgpu::Buffer,
    index_count: u32,
    normals: wgpu::Buffer,
    normals_bind_group: wgpu::BindGroup,
    grid: Grid,
}

impl ClothMesh {
    /// The normals buffer (`vec4<f32>` per particle, w = 0), as the kernel writes it.
    pub fn normals(&self) -> &wgpu::Buffer {
        &self.normals
    }
}

/// Pipelines and shared buffers of the demo's renderer.
pub struct Renderer {
    samples: u32,
    scene_buffer: wgpu::Buffer,
    scene_bind_group: wgpu::BindGroup,
    cloth: wgpu::RenderPipeline,
    ground: wgpu::RenderPipeline,
    sphere: wgpu::RenderPipeline,
    sphere_vertices: wgpu::Buffer,
    sphere_indices: wgpu::Buffer,
    sphere_index_count: u32,
    normals: Kernel,
    normals_layout: wgpu::BindGroupLayout,
}

impl Renderer {
    /// Builds the pipelines for `format` targets with `samples` samples per pixel.
    pub fn new(device: &wgpu::Device, format: wgpu::TextureFormat, samples: u32) -> Self {
        let scene_buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("scene uniform"),
            size: size_of::<SceneUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let scene_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("scene layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let scene_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("scene bindings"),
            layout: &scene_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: scene_buffer.as_entire_binding(),
            }],
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(shaders::RENDER.file),
            source: wgpu::ShaderSource::Wgsl(shaders::RENDER.source().into()),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render layout"),
            bind_group_layouts: &[Some(&scene_layout)],
            immediate_size: 0,
        });
        let vec4_attr = |location| wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 0,
            shader_location: location,
        };
        let positions_attr = [vec4_attr(0)];
        let normals_attr = [vec4_attr(1)];
        let unit_attr = [wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x3,
            offset: 0,
            shader_location: 0,
        }];
        let buffer = |stride, attributes| {
            Some(wgpu::VertexBufferLayout {
                array_stride: stride,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes,
            })
        };
        let pipeline = |name: &str, vs, fs, buffers: &[Option<wgpu::VertexBufferLayout>]| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(name),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers,
                },
                // Cloth is two-sided, so nothing is culled.
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState {
                    count: samples,
                    ..Default::default()
                },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &[Some(format.into())],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        // The cloth reads the solver's position buffer and the normals as two vertex buffers.
        let cloth = pipeline(
            "cloth",
            "cloth_vs",
            "cloth_fs",
            &[buffer(16, &positions_attr), buffer(16, &normals_attr)],
        );
        let ground = pipeline("ground", "ground_vs", "ground_fs", &[]);
        let sphere = pipeline(
            "sphere",
            "sphere_vs",
            "sphere_fs",
            &[buffer(12, &unit_attr)],
        );

        let (vertices, indices) = unit_sphere(32, 48);
        let sphere_vertices = buffer_init(
            device,
            "sphere vertices",
            bytemuck::cast_slice(&vertices),
            wgpu::BufferUsages::VERTEX,
        );
        let sphere_indices = buffer_init(
            device,
            "sphere indices",
            bytemuck::cast_slice(&indices),
            wgpu::BufferUsages::INDEX,
        );

        // The normals kernel: grid uniform, positions (read), normals (write).
        let normals_layout = bind_group_layout(
            device,
            "compute_normals",
            &[
                Binding::Uniform {
                    size: size_of::<Grid>() as u64,
                    dynamic: false,
                },
                Binding::StorageRead,
                Binding::StorageReadWrite,
            ],
        );
        let normals = Kernel::new(
            device,
            shaders::NORMALS,
            "compute_normals",
            &normals_layout,
            DEFAULT_WORKGROUP_SIZE,
        );

        Self {
            samples,
            scene_buffer,
            scene_bind_group,
            cloth,
            ground,
            sphere,
            sphere_vertices,
            sphere_indices,
            sphere_index_count: indices.len() as u32,
            normals,
            normals_layout,
        }
    }

    /// Samples per pixel the pipelines were built for.
    pub fn samples(&self) -> u32 {
        self.samples
    }

    /// GPU data for drawing `cloth` (a grid), whose positions live in `positions`.
    pub fn cloth_mesh(
        &self,
        device: &wgpu::Device,
        cloth: &crate::Cloth,
        positions: &wgpu::Buffer,
    ) -> Result<ClothMesh> {
        let shape = cloth
            .grid()
            .ok_or_else(|| ChiffonError::InvalidCloth("the demo draws grid cloths only".into()))?;
        let grid = Grid {
            columns: shape.columns,
            rows: shape.rows,
            pad0: 0,
            pad1: 0,
        };
        let indices: Vec<u32> = cloth.triangles().iter().flatten().copied().collect();
        let index_buffer = buffer_init(
            device,
            "cloth indices",
            bytemuck::cast_slice(&indices),
            wgpu::BufferUsages::INDEX,
        );
        let normals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cloth normals"),
            size: positions.size(),
            usage: wgpu::BufferUsages::STORAGE
                | wgpu::BufferUsages::VERTEX
                | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let grid_buffer = buffer_init(
            device,
            "grid",
            bytemuck::bytes_of(&grid),
            wgpu::BufferUsages::UNIFORM,
        );
        let normals_bind_group = bind_group(
            device,
            "compute_normals",
            &self.normals_layout,
            &[(&grid_buffer, None), (positions, None), (&normals, None)],
        );
        Ok(ClothMesh {
            index_buffer,
            index_count: indices.len() as u32,
            normals,
            normals_bind_group,
            grid,
        })
    }

    /// Records the normals kernel: per-particle normals from the current positions.
    pub fn compute_normals(&self, encoder: &mut wgpu::CommandEncoder, mesh: &ClothMesh) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("normals"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&self.normals.pipeline);
        pass.set_bind_group(0, &mesh.normals_bind_group, &[]);
        self.normals
            .dispatch(&mut pass, mesh.grid.columns * mesh.grid.rows);
    }

    /// Records normals, then the scene, into `encoder`, drawing onto `target` (resolving MSAA).
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &self,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        target: &wgpu::TextureView,
        mesh: &ClothMesh,
        positions: &wgpu::Buffer,
        view: &SceneView,
    ) {
        let uniform = SceneUniform {
            view_proj: view.view_proj.to_cols_array_2d(),
            eye: view.eye.extend(1.0).to_array(),
            light_dir: Vec3::new(0.4, 1.0, 0.6).normalize().extend(0.0).to_array(),
            sphere: view
                .sphere
                .map_or([0.0; 4], |(c, r)| c.extend(r).to_array()),
            ground: [view.ground.unwrap_or(0.0), 0.0, 0.0, 0.0],
            grid: [mesh.grid.columns, mesh.grid.rows, 0, 0],
        };
        queue.write_buffer(&self.scene_buffer, 0, bytemuck::bytes_of(&uniform));

        self.compute_normals(encoder, mesh);

        // The scene: cloth, ground, sphere, depth-tested, multisampled where enabled.
        let (view_target, resolve) = match &targets.msaa {
            Some(msaa) => (msaa, Some(target)),
            None => (target, None),
        };
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: view_target,
                depth_slice: None,
                resolve_target: resolve,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(BACKGROUND),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &targets.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.scene_bind_group, &[]);
        pass.set_pipeline(&self.cloth);
        pass.set_vertex_buffer(0, positions.slice(..));
        pass.set_vertex_buffer(1, mesh.normals.slice(..));
        pass.set_index_buffer(mesh.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..mesh.index_count, 0, 0..1);
        if view.ground.is_some() {
            pass.set_pipeline(&self.ground);
            pass.draw(0..6, 0..1);
        }
        if view.sphere.is_some() {
            pass.set_pipeline(&self.sphere);
            pass.set_vertex_buffer(0, self.sphere_vertices.slice(..));
            pass.set_index_buffer(self.sphere_indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..self.sphere_index_count, 0, 0..1);
        }
    }
}

fn buffer_init(
    device: &wgpu::Device,
    label: &str,
    bytes: &[u8],
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    use wgpu::util::DeviceExt;
    device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some(label),
        contents: bytes,
        usage,
    })
}

/// A unit UV sphere: `stacks` × `slices` quads.
fn unit_sphere(stacks: u32, slices: u32) -> (Vec<[f32; 3]>, Vec<u32>) {
    let mut v = Vec::new();
    for i in 0..=stacks {
        let theta = std::f32::consts::PI * i as f32 / stacks as f32;
        for j in 0..=slices {
            let phi = std::f32::consts::TAU * j as f32 / slices as f32;
            v.push([
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            ]);
        }
    }
    let mut idx = Vec::new();
    for i in 0..stacks {
        for j in 0..slices {
            let a = i * (slices + 1) + j;
            let b = a + slices + 1;
            idx.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    (v, idx)
}
