//! GPU time of one compute pass, from timestamp queries where the adapter has them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::context::{GpuContext, read_mapped};
use crate::error::Result;

/// Timestamps written at the start and end of a pass, resolved into a readback buffer. Read it
/// blocking after a wait (the benchmark), or asynchronously on a later frame (the demo).
pub struct PassTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    period_ns: f64,
    pending: Option<Arc<AtomicBool>>,
}

impl PassTimer {
    /// A timer, or `None` when the device has no timestamp queries.
    pub fn new(ctx: &GpuContext) -> Option<Self> {
        let device = &ctx.device;
        ctx.has_timestamps().then(|| Self {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("pass timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamp resolve"),
                size: 16,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            readback: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamp readback"),
                size: 16,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            period_ns: ctx.queue.get_timestamp_period() as f64,
            pending: None,
        })
    }

    /// True when no asynchronous read is outstanding, so the timer may be used again.
    pub fn is_idle(&self) -> bool {
        self.pending.is_none()
    }

    /// The writes to put on the timed pass.
    pub fn timestamp_writes(&self) -> wgpu::ComputePassTimestampWrites<'_> {
        wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(0),
            end_of_pass_write_index: Some(1),
        }
    }

    /// Records the resolve of both timestamps into the readback buffer (after the timed pass).
    pub fn resolve(&self, encoder: &mut wgpu::CommandEncoder) {
        encoder.resolve_query_set(&self.queries, 0..2, &self.resolve, 0);
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, 16);
    }

    fn ms(&self, bytes: &[u8]) -> f64 {
        let ticks: &[u64] = bytemuck::cast_slice(bytes);
        ticks[1].saturating_sub(ticks[0]) as f64 * self.period_ns / 1e6
    }

    /// Waits for the submitted pass and returns its GPU time (ms).
    pub fn read_blocking(&self, device: &wgpu::Device) -> Result<f64> {
        Ok(self.ms(&read_mapped(device, &self.readback)?))
    }

    /// Starts an asynchronous read of the submitted pass; [`PassTimer::collect`] finishes it.
    pub fn request(&mut self) {
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        self.readback.map_async(wgpu::MapMode::Read, .., move |r| {
            flag.store(r.is_ok(), Ordering::Release);
        });
        self.pending = Some(done);
    }

    /// The GPU time (ms) of the requested pass once the device has finished it (call after a
    /// poll); `None` while it is still in flight.
    pub fn collect(&mut self) -> Option<f64> {
        let ready = self.pending.as_ref()?.load(Ordering::Acquire);
        if !ready {
            return None;
        }
        let ms = self.readback.get_mapped_range(..).ok().map(|v| self.ms(&v));
        self.readback.unmap();
        self.pending = None;
        ms
    }
}
