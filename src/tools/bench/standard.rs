//! The standard scene (`--scene standard`, the default): one N×N sheet per size, so results
//! compare with other cloth solvers. [`crate::tools::scenes::standard_cloth`]: an N×N grid over
//! 1 m × 1 m lying flat at y = 0, the two corners of one edge pinned, 0.2 kg, gravity
//! −9.81 m/s², 60 fps, structural + shear + bend constraints, no colliders, solved by one lone
//! [`crate::Solver`] per size.

use std::sync::Arc;

use anyhow::{Result, bail};
use glam::Affine3A;
use plotters::style::{BLUE, RED};
use serde::Serialize;

use super::{BenchConfig, BenchRecord, Build, Case, Column, Placed, SceneBench, SceneFields};
use crate::tools::BackendKind as Backend;
use crate::tools::plot::{LogLog, Panel, Series};
use crate::tools::scenes::standard_cloth;

/// The standard scene's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct StandardConfig {
    /// Grid sizes N (N×N particles), each at least 2.
    pub sizes: Vec<u32>,
    /// Structural, shear and bend constraints on or off. Default all on.
    pub kinds: [bool; 3],
}

/// The standard scene's own record fields.
#[derive(Clone, Debug, Serialize)]
pub struct Fields {
    /// Grid side N (N×N particles).
    pub n: u32,
    /// Colors of the constraints.
    pub colors: usize,
    /// Constraints per color, in solve order.
    pub color_sizes: Vec<u32>,
    /// CPU reference median / this backend's median, on the same N (GPU cases).
    pub speedup_vs_cpu: Option<f64>,
}

fn fields(r: &BenchRecord) -> Option<&Fields> {
    match &r.fields {
        SceneFields::Standard(f) => Some(f),
        _ => None,
    }
}

impl SceneBench for StandardConfig {
    fn describe(&self) -> String {
        "standard scene (N×N over 1 m², flat, corners pinned, 60 fps)".into()
    }

    fn validate(&self) -> Result<()> {
        if self.sizes.is_empty() || self.sizes.iter().any(|&n| n < 2) {
            bail!("--sizes {:?}: every N must be at least 2", self.sizes);
        }
        if self.kinds == [false; 3] {
            bail!(
                "--no-structural --no-shear --no-bend: at least one constraint kind must stay on"
            );
        }
        Ok(())
    }

    fn cases(&self, cfg: &BenchConfig, backends: &[Backend]) -> Vec<Case> {
        let mut cases = Vec::new();
        for &n in &self.sizes {
            // One cloth per size, shared by both backends; one too large for the library is
            // reported as skipped.
            let cloth = standard_cloth(n, self.kinds).map(Arc::new);
            let fields = Fields {
                n,
                colors: cloth.as_ref().map_or(0, |c| c.colors().len()),
                color_sizes: cloth.as_ref().map_or(Vec::new(), |c| c.color_sizes()),
                speedup_vs_cpu: None,
            };
            for &backend in backends {
                cases.push(Case {
                    backend,
                    label: format!("{n}x{n}"),
                    params: cfg.params.clone(),
                    build: match &cloth {
                        Ok(c) => Ok(Build::Solvers {
                            workgroup_size: cfg.workgroup_size,
                            cloths: vec![Placed {
                                cloth: c.clone(),
                                at: Affine3A::IDENTITY,
                            }],
                        }),
                        Err(e) => Err(e.to_string()),
                    },
                    release: false,
                    fields: SceneFields::Standard(fields.clone()),
                });
            }
        }
        cases
    }

    fn compare(&self, records: &mut [BenchRecord]) {
        let cpu: Vec<(u32, f64)> = records
            .iter()
            .filter(|r| r.backend == "cpu")
            .filter_map(|r| Some((fields(r)?.n, r.ms_per_frame_median?)))
            .collect();
        for r in records.iter_mut().filter(|r| r.backend == "gpu") {
            let median = r.ms_per_frame_median;
            if let SceneFields::Standard(f) = &mut r.fields {
                let base = cpu.iter().find(|c| c.0 == f.n).map(|c| c.1);
                f.speedup_vs_cpu = base.zip(median).map(|(c, g)| c / g);
            }
        }
    }

    fn key_columns(&self) -> Vec<Column> {
        vec![Column::right("N", |r| {
            fields(r).map_or("-".into(), |f| f.n.to_string())
        })]
    }

    fn columns(&self) -> Vec<Column> {
        vec![
            Column::right("colors", |r| {
                fields(r).map_or("-".into(), |f| f.colors.to_string())
            }),
            Column::right("speedup", |r| {
                super::times(fields(r).and_then(|f| f.speedup_vs_cpu))
            }),
        ]
    }

    fn notes(&self, records: &[BenchRecord]) -> String {
        let mut shown = Vec::new();
        let mut s = String::new();
        for f in records.iter().filter_map(fields).filter(|f| f.colors > 0) {
            if !shown.contains(&f.n) {
                shown.push(f.n);
                s.push_str(&super::describe_colors(
                    &format!("{0}x{0}", f.n),
                    &f.color_sizes,
                ));
                s.push('\n');
            }
        }
        s
    }

    fn plot(&self, records: &[BenchRecord]) -> (LogLog, (u32, u32)) {
        type Metric = fn(&BenchRecord) -> Option<f64>;
        let measured: Vec<&BenchRecord> = records.iter().filter(|r| r.skipped.is_none()).collect();
        let charts: [(&str, Metric); 2] = [
            ("ms per frame", |r| r.ms_per_frame_median),
            ("constraint solves per s", |r| r.constraint_solves_per_s),
        ];
        let panels = charts
            .into_iter()
            .map(|(title, metric)| Panel {
                title: title.into(),
                x_desc: "particles".into(),
                y_desc: title.into(),
                series: [(Backend::Gpu, BLUE), (Backend::Cpu, RED)]
                    .into_iter()
                    .map(|(b, color)| Series {
                        name: b.name().into(),
                        color,
                        faint: false,
                        points: measured
                            .iter()
                            .filter(|r| r.backend == b.name())
                            .filter_map(|r| Some((r.particles as f64, metric(r)?)))
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        (LogLog { panels }, (1200, 500))
    }
}
