//! GPU time of every stage of a frame, from timestamp queries where the adapter has them. Each
//! stage of the frame schedule is its own compute pass, with a timestamp at its start and end.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::context::{GpuContext, read_mapped};
use crate::error::Result;
use crate::schedule::Stage;

/// Bytes of one resolved timestamp.
const TIMESTAMP_BYTES: u64 = 8;
/// wgpu's limit on the queries of one set.
const MAX_QUERIES: u32 = 4096;

/// GPU times of one frame (ms).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StageTimes {
    /// From the start of the first pass to the end of the last.
    pub total_ms: f64,
    /// Summed over the frame's passes of each stage, in [`Stage::ALL`] order; stages that did
    /// not run are absent.
    pub stages: Vec<(Stage, f64)>,
}

impl StageTimes {
    /// The time of `stage` (ms), 0 when it did not run.
    pub fn stage(&self, stage: Stage) -> f64 {
        self.stages
            .iter()
            .find(|(s, _)| *s == stage)
            .map_or(0.0, |s| s.1)
    }
}

/// Timestamps around every stage pass of a frame, resolved into a readback buffer. Read it
/// blocking after a wait (the benchmark), or asynchronously on a later frame (the demo).
pub struct StageTimer {
    queries: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    capacity: u32,
    period_ns: f64,
    /// The stage of each pass recorded since [`StageTimer::begin_frame`].
    recorded: Vec<Stage>,
    /// The stages of the frame whose timestamps are in (or on their way to) `readback`.
    resolved: Vec<Stage>,
    pending: Option<Arc<AtomicBool>>,
}

impl StageTimer {
    /// A timer for frames of up to `max_passes` stage passes, or `None` when the device has no
    /// timestamp queries.
    pub fn new(ctx: &GpuContext, max_passes: u32) -> Option<Self> {
        let device = &ctx.device;
        let capacity = (2 * max_passes.max(1)).min(MAX_QUERIES);
        let bytes = capacity as u64 * TIMESTAMP_BYTES;
        ctx.has_timestamps().then(|| Self {
            queries: device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("stage timestamps"),
                ty: wgpu::QueryType::Timestamp,
                count: capacity,
            }),
            resolve: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamp resolve"),
                size: bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            }),
            readback: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("timestamp readback"),
                size: bytes,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            capacity,
            period_ns: ctx.queue.get_timestamp_period() as f64,
            recorded: Vec::new(),
            resolved: Vec::new(),
            pending: None,
        })
    }

    /// True when no asynchronous read is outstanding, so the timer may time another frame.
    pub fn is_idle(&self) -> bool {
        self.pending.is_none()
    }

    /// Forgets the passes of the last frame; call before recording a frame.
    pub fn begin_frame(&mut self) {
        self.recorded.clear();
    }

    /// The timestamp writes for the next pass, of `stage`; `None` once the query set is full
    /// (that pass then goes untimed).
    pub fn pass(&mut self, stage: Stage) -> Option<wgpu::ComputePassTimestampWrites<'_>> {
        let k = self.recorded.len() as u32;
        if 2 * k + 2 > self.capacity {
            return None;
        }
        self.recorded.push(stage);
        Some(wgpu::ComputePassTimestampWrites {
            query_set: &self.queries,
            beginning_of_pass_write_index: Some(2 * k),
            end_of_pass_write_index: Some(2 * k + 1),
        })
    }

    /// Records the resolve of the frame's timestamps into the readback buffer (after its passes).
    pub fn resolve(&mut self, encoder: &mut wgpu::CommandEncoder) {
        let queries = 2 * self.recorded.len() as u32;
        if queries == 0 {
            return;
        }
        encoder.resolve_query_set(&self.queries, 0..queries, &self.resolve, 0);
        let bytes = queries as u64 * TIMESTAMP_BYTES;
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, bytes);
        std::mem::swap(&mut self.resolved, &mut self.recorded);
    }

    fn times(&self, ticks: &[u64]) -> StageTimes {
        let ms = |t: u64| t as f64 * self.period_ns / 1e6;
        let mut out = StageTimes::default();
        let n = self.resolved.len();
        if n == 0 || ticks.len() < 2 * n {
            return out;
        }
        out.total_ms = ms(ticks[2 * n - 1].saturating_sub(ticks[0]));
        for stage in Stage::ALL {
            let passes = self
                .resolved
                .iter()
                .enumerate()
                .filter(|(_, s)| **s == stage);
            let mut total = None;
            for (k, _) in passes {
                *total.get_or_insert(0.0) += ms(ticks[2 * k + 1].saturating_sub(ticks[2 * k]));
            }
            if let Some(t) = total {
                out.stages.push((stage, t));
            }
        }
        out
    }

    /// Waits for the submitted frame and returns its GPU times.
    pub fn read_blocking(&self, device: &wgpu::Device) -> Result<StageTimes> {
        Ok(self.times(&read_mapped::<u64>(device, &self.readback)?))
    }

    /// Starts an asynchronous read of the submitted frame; [`StageTimer::collect`] finishes it.
    pub fn request(&mut self) {
        let done = Arc::new(AtomicBool::new(false));
        let flag = done.clone();
        self.readback.map_async(wgpu::MapMode::Read, .., move |r| {
            flag.store(r.is_ok(), Ordering::Release);
        });
        self.pending = Some(done);
    }

    /// The GPU times of the requested frame once the device has finished it (call after a
    /// poll); `None` while it is still in flight.
    pub fn collect(&mut self) -> Option<StageTimes> {
        let ready = self.pending.as_ref()?.load(Ordering::Acquire);
        if !ready {
            return None;
        }
        let times = self
            .readback
            .get_mapped_range(..)
            .ok()
            .map(|v| self.times(&super::context::pod_from_bytes::<u64>(&v)));
        self.readback.unmap();
        self.pending = None;
        times
    }
}
