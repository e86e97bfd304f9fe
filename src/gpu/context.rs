//! The one place that touches wgpu's instance, adapter, device and polling, so a wgpu upgrade
//! is a small diff here.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, mpsc};
use std::task::{Context, Poll, Waker};

use crate::error::{ChiffonError, Result};

/// An adapter, its device and queue. Cloning it clones handles to the same device.
#[derive(Clone)]
pub struct GpuContext {
    /// The wgpu instance (the demo makes its window surface from it).
    pub instance: wgpu::Instance,
    /// The chosen adapter.
    pub adapter: wgpu::Adapter,
    /// The device opened on it, with the adapter's full limits.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
}

/// Features chiffon uses when the adapter has them (GPU timing); none are required.
const OPTIONAL_FEATURES: wgpu::Features = wgpu::Features::TIMESTAMP_QUERY
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
    .union(wgpu::Features::TIMESTAMP_QUERY_INSIDE_PASSES);

impl GpuContext {
    /// An instance that can present to windows, honouring `WGPU_BACKEND` (e.g. `vulkan`) and
    /// the other `WGPU_*` variables (the demo's).
    pub fn create_instance() -> wgpu::Instance {
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env())
    }

    /// An instance for compute only, honouring the same variables; it cannot present to a
    /// window (see `headless_vulkan`).
    pub fn create_headless_instance() -> wgpu::Instance {
        let desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        #[cfg(target_os = "linux")]
        if let Some(instance) = headless_vulkan(&desc) {
            return instance;
        }
        wgpu::Instance::new(desc)
    }

    /// Picks an adapter (see [`GpuContext::with_instance`]) on a headless instance and opens a
    /// device on it. In a browser, use [`GpuContext::new_async`] (this returns
    /// [`ChiffonError::WouldBlock`] there).
    pub fn new() -> Result<Self> {
        Self::with_instance(Self::create_headless_instance(), None)
    }

    /// As [`GpuContext::new`], for a program that runs wherever it can: `None` where no device
    /// opens, after printing to stdout why and that it runs on the CPU reference. With
    /// `gpu.as_ref().map_or(Backend::Cpu, Backend::Gpu)` it picks the [`crate::Backend`], as
    /// the examples do.
    pub fn new_or_none() -> Option<Self> {
        match Self::new() {
            Ok(ctx) => Some(ctx),
            Err(e) => {
                println!("no GPU ({e}); running on the CPU reference");
                None
            }
        }
    }

    /// Picks an adapter that can present to `surface` (when given): the first whose name
    /// contains `WGPU_ADAPTER_NAME` (case-insensitive) if that is set, else wgpu's choice under
    /// `WGPU_POWER_PREF` (default high performance). Opens a device with the adapter's limits.
    /// Blocks on [`GpuContext::with_instance_async`]; in a browser, call that instead.
    pub fn with_instance(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self> {
        if cfg!(target_arch = "wasm32") {
            return Err(ChiffonError::WouldBlock {
                what: "GpuContext::new",
                instead: "GpuContext::new_async",
            });
        }
        pollster::block_on(Self::with_instance_async(instance, surface))
    }

    /// As [`GpuContext::new`], without blocking: what a browser needs (there the instance is
    /// the browser's WebGPU, and a browser without it is [`ChiffonError::NoWebGpu`]).
    pub async fn new_async() -> Result<Self> {
        #[cfg(target_arch = "wasm32")]
        if !wgpu::util::is_browser_webgpu_supported().await {
            return Err(ChiffonError::NoWebGpu("navigator.gpu is missing".into()));
        }
        Self::with_instance_async(Self::create_headless_instance(), None).await
    }

    /// As [`GpuContext::with_instance`], without blocking. The device gets every limit the
    /// adapter offers (a browser's defaults are smaller: 8 storage buffers per stage, 16 KiB of
    /// workgroup memory), so a cloth too large for them fails with the limit's name
    /// ([`ChiffonError::ExceedsDeviceLimit`]) only where the adapter itself is too small.
    pub async fn with_instance_async(
        instance: wgpu::Instance,
        surface: Option<&wgpu::Surface<'_>>,
    ) -> Result<Self> {
        let adapter = select_adapter(&instance, surface).await?;
        let features = adapter.features() & OPTIONAL_FEATURES;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("chiffon"),
                required_features: features,
                required_limits: adapter.limits(),
                ..Default::default()
            })
            .await?;
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
        })
    }

    /// The same adapter opened again as a second device with `limits` instead of the adapter's
    /// own, e.g. lowered to see what a smaller device refuses (the tests do, to reach the
    /// limit checks on any GPU). Limits above what the adapter offers are an error. Native only:
    /// it blocks.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn with_limits(&self, limits: wgpu::Limits) -> Result<Self> {
        let (device, queue) =
            pollster::block_on(self.adapter.request_device(&wgpu::DeviceDescriptor {
                label: Some("chiffon"),
                required_features: self.device.features(),
                required_limits: limits,
                ..Default::default()
            }))?;
        Ok(Self {
            instance: self.instance.clone(),
            adapter: self.adapter.clone(),
            device,
            queue,
        })
    }

    /// Name, backend and type of the adapter.
    pub fn info(&self) -> wgpu::AdapterInfo {
        self.adapter.get_info()
    }

    /// One line: `name (backend, device type)`.
    pub fn describe(&self) -> String {
        let i = self.info();
        format!("{} ({:?}, {:?})", i.name, i.backend, i.device_type)
    }

    /// The device's limits.
    pub fn limits(&self) -> wgpu::Limits {
        self.device.limits()
    }

    /// Whether this device can run the fused kernel (one workgroup per small cloth): it binds 8
    /// storage buffers per shader stage, WebGPU's default. Without it, every cloth of a
    /// [`crate::World`] takes the global path ([`crate::world::ClothPath`]).
    pub fn fuses_cloths(&self) -> bool {
        self.limits().max_storage_buffers_per_shader_stage
            >= super::kernels::fused_storage_buffers()
    }

    /// Whether the adapter runs on the CPU (lavapipe, SwiftShader, WARP): there
    /// [`crate::world::PathChoice::Auto`] guesses the global path until it has timed both, and
    /// tries the fused one only for cloths well under llvmpipe's loop cap.
    pub fn runs_on_cpu(&self) -> bool {
        self.adapter.get_info().device_type == wgpu::DeviceType::Cpu
    }

    /// Storage buffers per shader stage the fused kernel needs (see
    /// [`GpuContext::fuses_cloths`]).
    pub fn fused_storage_buffers() -> u32 {
        super::kernels::fused_storage_buffers()
    }

    /// The limits that bound a cloth, as `(name, value)` rows: what `chiffon info` prints and
    /// the demo page's panel shows. The last row is the largest square grid whose constraint
    /// buffer fits one storage binding (about ten 16-byte records a particle: four distances,
    /// three bending stencils of two records, and the coarse levels' limits).
    pub fn limit_rows(&self) -> Vec<(&'static str, String)> {
        let l = self.limits();
        let bytes = l.max_storage_buffer_binding_size.min(l.max_buffer_size);
        let record = size_of::<crate::constraint::Constraint>() as u64;
        let fits = |side: u32| {
            crate::geometry::grid::grid_constraint_records(side, side) * record <= bytes
        };
        // The largest side that fits, by bisection (a grid's records grow with its side).
        let (mut side, mut too_big) = (1u32, 1u32 << 16);
        while too_big - side > 1 {
            let mid = side + (too_big - side) / 2;
            if fits(mid) {
                side = mid;
            } else {
                too_big = mid;
            }
        }
        let fused = if self.fuses_cloths() {
            "yes"
        } else {
            "no, every cloth of a world takes the global path"
        };
        vec![
            (
                "max_storage_buffer_binding_size",
                format!("{} bytes", l.max_storage_buffer_binding_size),
            ),
            ("max_buffer_size", format!("{} bytes", l.max_buffer_size)),
            (
                "max_storage_buffers_per_stage",
                format!(
                    "{} (the fused path needs {}: {fused})",
                    l.max_storage_buffers_per_shader_stage,
                    Self::fused_storage_buffers()
                ),
            ),
            (
                "max_compute_workgroup_storage",
                format!("{} bytes", l.max_compute_workgroup_storage_size),
            ),
            (
                "max_compute_workgroups_per_dim",
                l.max_compute_workgroups_per_dimension.to_string(),
            ),
            (
                "max_compute_invocations_per_wg",
                l.max_compute_invocations_per_workgroup.to_string(),
            ),
            (
                "min_uniform_buffer_offset_align",
                format!("{} bytes", l.min_uniform_buffer_offset_alignment),
            ),
            (
                "largest square grid",
                format!("about {side} x {side} (all constraint kinds)"),
            ),
        ]
    }

    /// True when GPU timestamps can be written between passes.
    pub fn has_timestamps(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    /// Copies `buffer` (which needs `COPY_SRC`) into a staging buffer and returns its contents
    /// as `T`s. For tests and export; never inside a frame.
    pub fn read_buffer<T: bytemuck::Pod>(&self, buffer: &wgpu::Buffer) -> Result<Vec<T>> {
        read_buffer_on(&self.device, &self.queue, buffer)
    }

    /// As [`GpuContext::read_buffer`], without blocking (for the web).
    pub async fn read_buffer_async<T: bytemuck::Pod>(
        &self,
        buffer: &wgpu::Buffer,
    ) -> Result<Vec<T>> {
        start_read(&self.device, &self.queue, buffer, buffer.size())
            .finish()
            .await
    }
}

/// Copies `buffer` (which needs `COPY_SRC`) into a new staging buffer on `device` and returns
/// its contents as `T`s, waiting for the device.
pub fn read_buffer_on<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
) -> Result<Vec<T>> {
    read_prefix_on(device, queue, buffer, buffer.size())
}

/// As [`read_buffer_on`], for the first `bytes` bytes only (a buffer made at a capacity larger
/// than what it holds now).
pub fn read_prefix_on<T: bytemuck::Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    bytes: u64,
) -> Result<Vec<T>> {
    start_read(device, queue, buffer, bytes).wait()
}

/// A copy into a staging buffer, submitted: its values are had by blocking
/// ([`PendingRead::wait`], native) or by awaiting the map ([`PendingRead::finish`], also in a
/// browser).
pub struct PendingRead {
    device: wgpu::Device,
    /// `None` for an empty read.
    staging: Option<wgpu::Buffer>,
}

/// Copies the first `bytes` bytes of `buffer` (which needs `COPY_SRC`) into a new staging
/// buffer and submits the copy.
pub fn start_read(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    bytes: u64,
) -> PendingRead {
    start_read_range(device, queue, buffer, 0, bytes)
}

/// As [`start_read`], for the `bytes` bytes from `offset` on (both multiples of 4).
pub fn start_read_range(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    buffer: &wgpu::Buffer,
    offset: u64,
    bytes: u64,
) -> PendingRead {
    let staging = (bytes > 0).then(|| {
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_buffer_to_buffer(buffer, offset, &staging, 0, bytes);
        queue.submit([encoder.finish()]);
        staging
    });
    PendingRead {
        device: device.clone(),
        staging,
    }
}

impl PendingRead {
    /// The values, waiting for the device (not in a browser: [`ChiffonError::WouldBlock`]).
    pub fn wait<T: bytemuck::Pod>(self) -> Result<Vec<T>> {
        match &self.staging {
            Some(staging) => read_mapped(&self.device, staging),
            None => Ok(Vec::new()),
        }
    }

    /// The values, once the map completes. Natively this polls the device (blocking, as
    /// [`PendingRead::wait`] does); in a browser the map resolves as the page's event loop
    /// runs, so this only yields.
    pub async fn finish<T: bytemuck::Pod>(self) -> Result<Vec<T>> {
        let Some(staging) = &self.staging else {
            return Ok(Vec::new());
        };
        let mapped = MapFuture::default();
        let slot = mapped.slot.clone();
        staging.map_async(wgpu::MapMode::Read, .., move |r| {
            let mut s = slot.lock().unwrap_or_else(|e| e.into_inner());
            s.outcome = Some(r.map_err(|e| e.to_string()));
            if let Some(w) = s.waker.take() {
                w.wake();
            }
        });
        // Native devices run map callbacks inside `poll`; the browser's run them by itself.
        if !cfg!(target_arch = "wasm32") {
            wait(&self.device)?;
        }
        mapped.await.map_err(ChiffonError::Readback)?;
        take_mapped(staging)
    }
}

/// What a map callback says, and who waits for it.
#[derive(Default)]
struct MapSlot {
    outcome: Option<std::result::Result<(), String>>,
    waker: Option<Waker>,
}

/// Resolves when the map callback has run (a one-shot channel, so the library needs no
/// executor or futures crate).
#[derive(Default)]
struct MapFuture {
    slot: Arc<Mutex<MapSlot>>,
}

impl Future for MapFuture {
    type Output = std::result::Result<(), String>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut s = self.slot.lock().unwrap_or_else(|e| e.into_inner());
        match s.outcome.take() {
            Some(outcome) => Poll::Ready(outcome),
            None => {
                s.waker = Some(cx.waker().clone());
                Poll::Pending
            }
        }
    }
}

/// Blocks until all submitted work on `device` is done.
pub fn wait(device: &wgpu::Device) -> Result<()> {
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .map(|_| ())
        .map_err(|e| ChiffonError::Readback(e.to_string()))
}

/// Checks for finished GPU work without blocking (runs map callbacks that are ready).
pub fn poll(device: &wgpu::Device) {
    // A failed non-blocking poll only means nothing was ready; the next frame polls again.
    let _ = device.poll(wgpu::PollType::Poll);
}

/// Maps a `MAP_READ` buffer (after the copies into it were submitted), copies its contents out
/// as `T`s and unmaps it.
pub(crate) fn read_mapped<T: bytemuck::Pod>(
    device: &wgpu::Device,
    buffer: &wgpu::Buffer,
) -> Result<Vec<T>> {
    let (tx, rx) = mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    wait(device)?;
    // A browser runs the callback only once the page's event loop runs again: blocking here
    // would never end.
    #[cfg(target_arch = "wasm32")]
    let outcome = rx.try_recv().map_err(|_| ChiffonError::WouldBlock {
        what: "a GPU readback",
        instead: "the async method (positions_async, health_async, read_buffer_async)",
    });
    #[cfg(not(target_arch = "wasm32"))]
    let outcome = rx.recv().map_err(|e| ChiffonError::Readback(e.to_string()));
    outcome?.map_err(|e| ChiffonError::Readback(e.to_string()))?;
    take_mapped(buffer)
}

/// The contents of a `MAP_READ` buffer whose map has completed, as `T`s; unmaps it.
fn take_mapped<T: bytemuck::Pod>(buffer: &wgpu::Buffer) -> Result<Vec<T>> {
    let values = pod_from_bytes(
        &buffer
            .get_mapped_range(..)
            .map_err(|e| ChiffonError::Readback(e.to_string()))?,
    );
    buffer.unmap();
    Ok(values)
}

/// The first `T` of a `MAP_READ` buffer already mapped (its map callback said so); `None` when
/// the mapped range cannot be had.
pub(crate) fn read_pod<T: bytemuck::Pod>(buffer: &wgpu::Buffer) -> Option<T> {
    let bytes = buffer.get_mapped_range(..size_of::<T>() as u64).ok()?;
    pod_from_bytes::<T>(&bytes).first().copied()
}

/// Copies `bytes` into a vector of `T`. Unlike a cast of the byte slice, this does not need the
/// bytes to be aligned for `T` (a `Vec<u8>` is only promised 1-byte alignment); a trailing
/// partial element is an error of the caller and is dropped.
pub fn pod_from_bytes<T: bytemuck::Pod>(bytes: &[u8]) -> Vec<T> {
    let whole = bytes.len() - bytes.len() % size_of::<T>();
    bytemuck::pod_collect_to_vec(&bytes[..whole])
}

/// On Linux, a Vulkan instance without the window-system surface extensions, when Vulkan is
/// among the backends asked for and has an adapter; else `None` (the caller makes a plain one).
///
/// Why: wgpu enables every surface extension the loader offers. Mesa's implicit
/// `VK_LAYER_MESA_device_select` layer, seeing `VK_KHR_wayland_surface` enabled, connects to
/// Wayland while enumerating devices (to find the display's GPU), and libwayland prints
/// `error: XDG_RUNTIME_DIR is invalid or not set` twice on every headless run. A compute
/// context creates no surface, so it needs none of those extensions; wgpu-hal only uses them in
/// `create_surface`. The instance keeps every other backend option from the environment.
#[cfg(target_os = "linux")]
fn headless_vulkan(desc: &wgpu::InstanceDescriptor) -> Option<wgpu::Instance> {
    if !desc.backends.contains(wgpu::Backends::VULKAN) {
        return None;
    }
    const WINDOW_SYSTEM: [&std::ffi::CStr; 3] = [
        c"VK_KHR_wayland_surface",
        c"VK_KHR_xcb_surface",
        c"VK_KHR_xlib_surface",
    ];
    let hal_desc = wgpu::hal::InstanceDescriptor {
        name: "chiffon",
        flags: desc.flags,
        memory_budget_thresholds: desc.memory_budget_thresholds,
        backend_options: desc.backend_options.clone(),
        telemetry: None,
        display: None,
    };
    let strip: Box<wgpu::hal::vulkan::CreateInstanceCallback> = Box::new(|args| {
        args.extensions.retain(|e| !WINDOW_SYSTEM.contains(e));
    });
    // SAFETY: the descriptor is complete and the callback only leaves out extensions that a
    // context without surfaces never uses.
    let hal =
        unsafe { wgpu::hal::vulkan::Instance::init_with_callback(&hal_desc, Some(strip)) }.ok()?;
    // SAFETY: `hal` is a valid Vulkan instance, handed over whole.
    let instance = unsafe { wgpu::Instance::from_hal::<wgpu::hal::api::Vulkan>(hal) };
    let has_adapter =
        !pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN)).is_empty();
    has_adapter.then_some(instance)
}

async fn select_adapter(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<wgpu::Adapter> {
    // wgpu's own WGPU_ADAPTER_NAME helper panics when nothing matches; this names the choices.
    if let Ok(wanted) = std::env::var("WGPU_ADAPTER_NAME") {
        let adapters = instance.enumerate_adapters(wgpu::Backends::all()).await;
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        let wanted_lc = wanted.to_lowercase();
        return adapters
            .into_iter()
            .filter(|a| surface.is_none_or(|s| a.is_surface_supported(s)))
            .find(|a| a.get_info().name.to_lowercase().contains(&wanted_lc))
            .ok_or_else(|| ChiffonError::AdapterNotFound {
                wanted,
                available: if names.is_empty() {
                    "none".into()
                } else {
                    names.join(", ")
                },
            });
    }
    instance
        .request_adapter(&wgpu::RequestAdapterOptions {
            power_preference: wgpu::PowerPreference::from_env()
                .unwrap_or(wgpu::PowerPreference::HighPerformance),
            compatible_surface: surface,
            ..Default::default()
        })
        .await
        .map_err(|e| no_adapter(e.to_string()))
}

/// Why no adapter was found, naming `WGPU_BACKEND` when it is the likely cause: a value that
/// names no backend wgpu knows (wgpu then enables none and only logs a warning), or a backend
/// this machine does not have.
fn no_adapter(wgpu_says: String) -> ChiffonError {
    let Ok(value) = std::env::var("WGPU_BACKEND") else {
        return ChiffonError::NoAdapter(wgpu_says);
    };
    if wgpu::Backends::from_comma_list(&value).is_empty() {
        return ChiffonError::InvalidParameter {
            name: "WGPU_BACKEND",
            reason: format!(
                "{value:?} is not a backend wgpu knows: vulkan, metal, dx12 or gl (or a \
                 comma-separated list of them); unset it to let wgpu choose"
            ),
        };
    }
    ChiffonError::NoAdapter(format!(
        "WGPU_BACKEND={value:?} allows only those backends; {wgpu_says}"
    ))
}

#[cfg(test)]
mod tests {
    use super::{GpuContext, pod_from_bytes};

    /// The fallback opens a device exactly where [`GpuContext::new`] does.
    #[test]
    fn the_fallback_opens_what_new_opens() {
        assert_eq!(
            GpuContext::new_or_none().is_some(),
            GpuContext::new().is_ok()
        );
    }

    /// Regression: readback cast a `Vec<u8>` to `&[Vec4]` with `bytemuck::cast_slice`, which
    /// needs 16-byte alignment that the allocator does not promise for bytes.
    #[test]
    fn readback_does_not_assume_the_bytes_are_aligned() {
        let values = [glam::Vec4::new(1.0, 2.0, 3.0, 4.0), glam::Vec4::splat(-0.5)];
        // Start one or two bytes in, whichever is misaligned for Vec4 and u64 here.
        let mut bytes = vec![0u8; 2];
        let k = if (bytes.as_ptr() as usize + 1).is_multiple_of(16) {
            2
        } else {
            1
        };
        bytes.truncate(k);
        bytes.extend_from_slice(bytemuck::cast_slice(&values));
        let misaligned = &bytes[k..];
        assert!(bytemuck::try_cast_slice::<u8, glam::Vec4>(misaligned).is_err());
        assert_eq!(pod_from_bytes::<glam::Vec4>(misaligned), values);
        let ticks: Vec<u64> = pod_from_bytes(&misaligned[..16]);
        assert_eq!(ticks.len(), 2);
    }
}
