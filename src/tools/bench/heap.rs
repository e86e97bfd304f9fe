//! The heap scene (`--scene heap`): a towel dropped by a corner
//! ([`crate::tools::scenes::heap_sheet`]: N×N over 0.8 m, flat at 1.2 m, held by one corner;
//! [`crate::tools::scenes::heap_params`]: the floor at y = 0), the same frames with
//! self-collision on and off, side by side on each backend. The warm-up is the hold (the towel
//! hangs from its corner); the corner is let go at the first timed frame, so the timed frames
//! are the fall and the fold, where the self-collision stage has the most to do.
//!
//! Each case is one [`crate::World`] of the towel. Its records carry the GPU time of the
//! collision stages (`gpu_stage_ms["self-collide"]`, `gpu_stage_ms["collide"]`, with
//! timestamps) and, on the self-collision-on record, `on_off_ratio`: its median frame over the
//! median frame with it off (same backend and N). The bytes model of [`super`] does not count
//! the self-collision stage (a hash and a neighbour search, whose traffic depends on how the
//! cloth lies), so `gbps` compares only the rest of the frame.
//!
//! Crossing triangles are the tests' business (`tests/self_collision.rs`); here, stretch and
//! the mean height say the frames did what the scene is for.

use anyhow::Result;
use plotters::style::{BLUE, RED};
use serde::Serialize;

use super::{BenchConfig, BenchRecord, Build, Case, Column, SceneBench, SceneFields};
use crate::params::SolverParams;
use crate::schedule::Stage;
use crate::tools::BackendKind as Backend;
use crate::tools::plot::{LogLog, Series};
use crate::tools::scenes::heap_sheet;

/// The heap scene's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct HeapConfig {
    /// Towel sizes N (N×N particles), each at least 2.
    pub sizes: Vec<u32>,
}

/// The heap scene's own record fields. Scripts read these names.
#[derive(Clone, Debug, Serialize)]
pub struct Fields {
    /// Towel side N (N×N particles).
    pub n: u32,
    /// Self-collision on (true) or off.
    pub self_collision: bool,
    /// On the self-collision-on record: its median frame over the median frame with it off
    /// (same backend and N); null on the off record.
    pub on_off_ratio: Option<f64>,
    /// The same over the GPU time per frame (timestamps), where both have it.
    pub gpu_on_off_ratio: Option<f64>,
}

scene_fields!(Heap);

/// The GPU time of `stage` in `r` (ms), or `-`.
pub(super) fn stage_cell(r: &BenchRecord, stage: Stage) -> String {
    super::opt(r.gpu_stage_ms.get(stage.name()).copied(), 3)
}

/// `params` with the heap's floor and self-collision on or off: the scene's parameters
/// ([`crate::tools::scenes::heap_params`]) under the solver flags given.
fn heap_case_params(params: &SolverParams, self_collision: bool) -> SolverParams {
    let heap = crate::tools::scenes::heap_params(self_collision);
    SolverParams {
        colliders: heap.colliders,
        self_collision: heap.self_collision,
        ..params.clone()
    }
}

impl SceneBench for HeapConfig {
    fn describe(&self) -> String {
        "heap scene (N×N towel over 0.8 m held by a corner through the warm-up, then dropped \
         on the floor; self-collision on and off; 60 fps)"
            .into()
    }

    fn validate(&self) -> Result<()> {
        super::check_sizes(&self.sizes)?;
        Ok(())
    }

    fn cases(&self, cfg: &BenchConfig, backends: &[Backend]) -> Vec<Case> {
        let mut cases = Vec::new();
        for &backend in backends {
            for &n in &self.sizes {
                let towel = super::case::shared(heap_sheet(n, crate::Membrane::Edges));
                for on in [false, true] {
                    let params = heap_case_params(&cfg.params, on);
                    let build = towel
                        .clone()
                        .map(|cloth| Build::global_world(cloth, cfg.workgroup_size));
                    cases.push(Case {
                        backend,
                        label: format!("{n}x{n} self-collision {}", if on { "on" } else { "off" }),
                        params,
                        build,
                        release: true,
                        warmup_at_least: 0,
                        fields: SceneFields::Heap(Fields {
                            n,
                            self_collision: on,
                            on_off_ratio: None,
                            gpu_on_off_ratio: None,
                        }),
                    });
                }
            }
        }
        cases
    }

    fn compare(&self, records: &mut [BenchRecord]) {
        let off: Vec<(&'static str, u32, Option<f64>, Option<f64>)> = records
            .iter()
            .filter_map(|r| {
                let f = fields(r).filter(|f| !f.self_collision)?;
                Some((r.backend, f.n, r.ms_per_frame_median, r.gpu_ms_per_frame))
            })
            .collect();
        for r in records.iter_mut() {
            let (backend, ms, gpu) = (r.backend, r.ms_per_frame_median, r.gpu_ms_per_frame);
            if let SceneFields::Heap(f) = &mut r.fields
                && f.self_collision
                && let Some(o) = off.iter().find(|o| o.0 == backend && o.1 == f.n)
            {
                f.on_off_ratio = ms.zip(o.2).map(|(on, off)| on / off);
                f.gpu_on_off_ratio = gpu.zip(o.3).map(|(on, off)| on / off);
            }
        }
    }

    fn key_columns(&self) -> Vec<Column> {
        vec![
            Column::right("N", |r| fields(r).map_or("-".into(), |f| f.n.to_string())),
            Column::left("self-col", |r| {
                fields(r).map_or("-".into(), |f| {
                    (if f.self_collision { "on" } else { "off" }).into()
                })
            }),
        ]
    }

    fn columns(&self) -> Vec<Column> {
        vec![
            Column::right("self-col ms", |r| stage_cell(r, Stage::SelfCollide)),
            Column::right("collide ms", |r| stage_cell(r, Stage::Collide)),
            Column::right("on/off", |r| {
                super::times(fields(r).and_then(|f| f.on_off_ratio))
            }),
            Column::right("gpu on/off", |r| {
                super::times(fields(r).and_then(|f| f.gpu_on_off_ratio))
            }),
        ]
    }

    fn notes(&self, _records: &[BenchRecord]) -> String {
        "on/off: the frame with self-collision (automatic thickness, 1.5 mean edges) over the \
         same frame without; the timed frames are the fall and the fold\n"
            .into()
    }

    fn plot(&self, records: &[BenchRecord]) -> (LogLog, (u32, u32)) {
        let mut series = Vec::new();
        for (backend, color) in [(Backend::Gpu, BLUE), (Backend::Cpu, RED)] {
            for on in [true, false] {
                series.push(Series {
                    name: format!(
                        "{} self-collision {}",
                        backend.name(),
                        if on { "on" } else { "off" }
                    ),
                    color,
                    // The frame without self-collision is the thin line beside each.
                    faint: !on,
                    points: super::ms_points(records, backend, |r| {
                        fields(r).filter(|f| f.self_collision == on)?;
                        Some(r.particles as f64)
                    }),
                });
            }
        }
        super::ms_plot("heap: ms per frame, fall and fold", "particles", series)
    }
}
