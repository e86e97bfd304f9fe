//! Drawing the cloth straight from the solver's buffers, plus the ground and the colliders
//! (spheres, tapered capsules and boxes: [`Solids`], drawn by `solids.wgsl` appended to
//! `shaders/render.wgsl`, so they share its lighting).
//!
//! One file, though long: one set of render pipelines and the buffers they draw from; the
//! camera is in `camera.rs` and the solids' shapes in `scenes/solids.rs`.

use glam::{Mat4, Vec3};

use std::borrow::Cow;
use std::collections::HashMap;

use crate::config::{DEFAULT_WORKGROUP_SIZE, MeshInfo};
use crate::error::{ChiffonError, Result};
use crate::geometry::{UvLayer, planar_uvs};
use crate::gpu::kernels::{Binding, Kernel, bind_group, bind_group_layout};
use crate::gpu::shaders;

pub use crate::scenes::solids::{SolidVertex, Solids};

/// The colliders' stages, appended to `shaders/render.wgsl` (whose uniform and shading they
/// use).
const SOLIDS_WGSL: &str = include_str!("solids.wgsl");

/// The WGSL the renderer builds its pipelines from: `shaders/render.wgsl`, then the colliders'
/// stages.
pub fn render_source() -> String {
    format!("{}\n{SOLIDS_WGSL}", shaders::RENDER.source())
}

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
    /// xyz: centre (m), w: radius (m) of `render.wgsl`'s one sphere; zero, since every
    /// collider is drawn by `solids.wgsl`.
    pub sphere: [f32; 4],
    /// x: height (m).
    pub ground: [f32; 4],
}

/// One corner of the drawn cloth (`cloth_vs`'s vertex input): a particle and a texture
/// coordinate. Particles with two UVs (at a seam) are drawn as two vertices.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ClothVertex {
    /// Index into the solver's positions.
    pub particle: u32,
    /// Padding so `uv` is 8-byte aligned.
    pub pad: u32,
    /// Texture coordinate.
    pub uv: [f32; 2],
}

/// The UVs `cloth` is drawn with: its own, or, for a cloth without, a planar projection of its
/// rest shape (which gives the checker its coordinates).
pub fn drawn_uvs(cloth: &crate::Cloth) -> Cow<'_, UvLayer> {
    match cloth.uvs() {
        Some(uvs) => Cow::Borrowed(uvs),
        None => Cow::Owned(planar_uvs(cloth.positions(), cloth.triangles())),
    }
}

/// The vertices and indices that draw `cloth`: one vertex per distinct (particle, UV) pair,
/// with the UVs of [`drawn_uvs`].
pub fn cloth_vertices(cloth: &crate::Cloth) -> (Vec<ClothVertex>, Vec<u32>) {
    let layer = drawn_uvs(cloth);
    let mut vertices = Vec::with_capacity(cloth.particle_count());
    let mut seen: HashMap<(u32, u32), u32> = HashMap::with_capacity(cloth.particle_count());
    let mut indices = Vec::with_capacity(cloth.triangles().len() * 3);
    for (t, uv_t) in cloth.triangles().iter().zip(&layer.triangles) {
        for (&p, &u) in t.iter().zip(uv_t) {
            let next = vertices.len() as u32;
            let v = *seen.entry((p, u)).or_insert_with(|| {
                vertices.push(ClothVertex {
                    particle: p,
                    pad: 0,
                    uv: layer.uvs[u as usize].to_array(),
                });
                next
            });
            indices.push(v);
        }
    }
    (vertices, indices)
}

/// What to draw this frame besides the cloth.
pub struct SceneView {
    /// Projection × view.
    pub view_proj: Mat4,
    /// Camera position (m).
    pub eye: Vec3,
    /// The colliders and the ground ([`Solids::of`] the world's colliders).
    pub solids: Solids,
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

/// Per-cloth GPU data: vertices, indices, the normals buffer and the bindings of the normals
/// kernel and of the cloth's draw.
pub struct ClothMesh {
    vertex_buffer: wgpu::Buffer,
    index_buffer: wgpu::Buffer,
    index_count: u32,
    normals: wgpu::Buffer,
    normals_bind_group: wgpu::BindGroup,
    draw_bind_group: wgpu::BindGroup,
    particle_count: u32,
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
    solid: wgpu::RenderPipeline,
    /// The colliders' vertices and indices, grown as a frame needs (rewritten each frame).
    solid_vertices: Option<wgpu::Buffer>,
    solid_indices: Option<wgpu::Buffer>,
    normals: Kernel,
    normals_layout: wgpu::BindGroupLayout,
    cloth_layout: wgpu::BindGroupLayout,
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
            source: wgpu::ShaderSource::Wgsl(render_source().into()),
        });
        // The cloth's particles and normals, read by the vertex shader.
        let storage_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let cloth_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("cloth draw layout"),
            entries: &[storage_entry(0), storage_entry(1)],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render layout"),
            bind_group_layouts: &[Some(&scene_layout)],
            immediate_size: 0,
        });
        let cloth_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("cloth render layout"),
                bind_group_layouts: &[Some(&scene_layout), Some(&cloth_layout)],
                immediate_size: 0,
            });
        let vertex_attrs = [
            wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Uint32,
                offset: 0,
                shader_location: 0,
            },
            wgpu::VertexAttribute {
                format: wgpu::VertexFormat::Float32x2,
                offset: 8,
                shader_location: 1,
            },
        ];
        let solid_attrs = wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
        let buffer = |stride, attributes| {
            Some(wgpu::VertexBufferLayout {
                array_stride: stride,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes,
            })
        };
        let pipeline = |name: &str,
                        layout: &wgpu::PipelineLayout,
                        vs,
                        fs,
                        buffers: &[Option<wgpu::VertexBufferLayout>]| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(name),
                layout: Some(layout),
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
        // The cloth's vertices name particles; positions and normals come from storage.
        let cloth = pipeline(
            "cloth",
            &cloth_pipeline_layout,
            "cloth_vs",
            "cloth_fs",
            &[buffer(size_of::<ClothVertex>() as u64, &vertex_attrs)],
        );
        let ground = pipeline("ground", &layout, "ground_vs", "ground_fs", &[]);
        let solid = pipeline(
            "colliders",
            &layout,
            "solid_vs",
            "solid_fs",
            &[buffer(size_of::<SolidVertex>() as u64, &solid_attrs)],
        );

        // The normals kernel: mesh uniform, positions, triangles, CSR offsets and incident
        // triangles (read), normals (write).
        let normals_layout = bind_group_layout(
            device,
            "compute_normals",
            &[
                Binding::Uniform {
                    size: size_of::<MeshInfo>() as u64,
                    dynamic: false,
                },
                Binding::StorageRead,
                Binding::StorageRead,
                Binding::StorageRead,
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
            &[],
        );

        Self {
            samples,
            scene_buffer,
            scene_bind_group,
            cloth,
            ground,
            solid,
            solid_vertices: None,
            solid_indices: None,
            normals,
            normals_layout,
            cloth_layout,
        }
    }

    /// Samples per pixel the pipelines were built for.
    pub fn samples(&self) -> u32 {
        self.samples
    }

    /// GPU data for drawing `cloth` (any mesh with triangles), whose positions live in
    /// `positions`.
    pub fn cloth_mesh(
        &self,
        device: &wgpu::Device,
        cloth: &crate::Cloth,
        positions: &wgpu::Buffer,
    ) -> Result<ClothMesh> {
        if cloth.triangles().is_empty() {
            return Err(ChiffonError::InvalidCloth(
                "the demo draws cloths with triangles (a rope has none)".into(),
            ));
        }
        let (vertices, indices) = cloth_vertices(cloth);
        let vertex_buffer = buffer_init(
            device,
            "cloth vertices",
            bytemuck::cast_slice(&vertices),
            wgpu::BufferUsages::VERTEX,
        );
        let index_buffer = buffer_init(
            device,
            "cloth indices",
            bytemuck::cast_slice(&indices),
            wgpu::BufferUsages::INDEX,
        );
        let normals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("cloth normals"),
            size: positions.size(),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let info = MeshInfo {
            particle_count: cloth.particle_count() as u32,
            triangle_count: cloth.triangles().len() as u32,
            pad0: 0,
            pad1: 0,
        };
        let csr = cloth.vertex_triangles();
        let storage =
            |label, bytes: &[u8]| buffer_init(device, label, bytes, wgpu::BufferUsages::STORAGE);
        let info_buffer = buffer_init(
            device,
            "mesh info",
            bytemuck::bytes_of(&info),
            wgpu::BufferUsages::UNIFORM,
        );
        let triangles = storage("triangles", bytemuck::cast_slice(cloth.triangles()));
        let offsets = storage(
            "vertex triangle offsets",
            bytemuck::cast_slice(&csr.offsets),
        );
        let incident = storage("vertex triangles", bytemuck::cast_slice(&csr.items));
        let normals_bind_group = bind_group(
            device,
            "compute_normals",
            &self.normals_layout,
            &[
                (&info_buffer, None),
                (positions, None),
                (&triangles, None),
                (&offsets, None),
                (&incident, None),
                (&normals, None),
            ],
        );
        let draw_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("cloth draw bindings"),
            layout: &self.cloth_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: positions.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: normals.as_entire_binding(),
                },
            ],
        });
        Ok(ClothMesh {
            vertex_buffer,
            index_buffer,
            index_count: indices.len() as u32,
            normals,
            normals_bind_group,
            draw_bind_group,
            particle_count: info.particle_count,
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
        self.normals.dispatch(&mut pass, mesh.particle_count);
    }

    /// Writes `bytes` into `slot`, first replacing it with a buffer of twice the size when it
    /// is missing or too small.
    fn upload(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        slot: &mut Option<wgpu::Buffer>,
        label: &str,
        usage: wgpu::BufferUsages,
        bytes: &[u8],
    ) {
        let size = bytes.len() as u64;
        if slot.as_ref().is_none_or(|b| b.size() < size) {
            *slot = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: (2 * size).next_multiple_of(wgpu::COPY_BUFFER_ALIGNMENT),
                usage: usage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        if let Some(buffer) = slot {
            queue.write_buffer(buffer, 0, bytes);
        }
    }

    /// Records normals, then the scene, into `encoder`, drawing onto `target` (resolving MSAA).
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        targets: &Targets,
        target: &wgpu::TextureView,
        mesh: &ClothMesh,
        view: &SceneView,
    ) {
        let uniform = SceneUniform {
            view_proj: view.view_proj.to_cols_array_2d(),
            eye: view.eye.extend(1.0).to_array(),
            light_dir: Vec3::new(0.4, 1.0, 0.6).normalize().extend(0.0).to_array(),
            sphere: [0.0; 4],
            ground: [view.solids.ground.unwrap_or(0.0), 0.0, 0.0, 0.0],
        };
        queue.write_buffer(&self.scene_buffer, 0, bytemuck::bytes_of(&uniform));
        let solids = &view.solids;
        let drawn_solids = !solids.indices.is_empty();
        if drawn_solids {
            Self::upload(
                device,
                queue,
                &mut self.solid_vertices,
                "collider vertices",
                wgpu::BufferUsages::VERTEX,
                bytemuck::cast_slice(&solids.vertices),
            );
            Self::upload(
                device,
                queue,
                &mut self.solid_indices,
                "collider indices",
                wgpu::BufferUsages::INDEX,
                bytemuck::cast_slice(&solids.indices),
            );
        }

        self.compute_normals(encoder, mesh);

        // The scene: cloth, ground, colliders, depth-tested, multisampled where enabled.
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
        pass.set_bind_group(1, &mesh.draw_bind_group, &[]);
        pass.set_vertex_buffer(0, mesh.vertex_buffer.slice(..));
        pass.set_index_buffer(mesh.index_buffer.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..mesh.index_count, 0, 0..1);
        if solids.ground.is_some() {
            pass.set_pipeline(&self.ground);
            pass.draw(0..6, 0..1);
        }
        if let (true, Some(vertices), Some(indices)) =
            (drawn_solids, &self.solid_vertices, &self.solid_indices)
        {
            pass.set_pipeline(&self.solid);
            pass.set_vertex_buffer(0, vertices.slice(..));
            pass.set_index_buffer(indices.slice(..), wgpu::IndexFormat::Uint32);
            pass.draw_indexed(0..solids.indices.len() as u32, 0, 0..1);
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

#[cfg(test)]
mod tests {
    /// The renderer's WGSL (`shaders/render.wgsl`, then the colliders' stages) parses and
    /// validates, and has every entry point its pipelines name.
    #[test]
    fn the_renderers_wgsl_validates_with_every_entry_point() {
        let module = naga::front::wgsl::parse_str(&super::render_source()).unwrap();
        naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::all(),
        )
        .validate(&module)
        .unwrap();
        for name in [
            "cloth_vs",
            "cloth_fs",
            "ground_vs",
            "ground_fs",
            "solid_vs",
            "solid_fs",
        ] {
            assert!(
                module.entry_points.iter().any(|e| e.name == name),
                "no entry point {name}"
            );
        }
    }
}
