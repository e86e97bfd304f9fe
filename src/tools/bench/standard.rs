//! The standard scene (`--scene standard`, the default): one N×N sheet per size, so results
//! compare with other cloth solvers. [`crate::tools::scenes::standard_cloth`]: an N×N grid over
//! 1 m × 1 m lying flat at y = 0, the two corners of one edge pinned, 0.2 kg, gravity
//! −9.81 m/s², 60 fps, structural + shear + bend constraints, no colliders, solved by one lone
//! [`crate::Solver`] per size. `--sheets irregular` adds the same sheet as an irregular mesh
//! ([`crate::tools::scenes::irregular_cloth`]: a Delaunay triangulation of jittered points, about
//! N×N particles), so a mesh's cost and stretch sit beside the grid's.

use anyhow::{Result, bail};
use plotters::style::{BLUE, RED};
use serde::Serialize;

use super::{BenchConfig, BenchRecord, Build, Case, Column, Placed, SceneBench, SceneFields};
use crate::Membrane;
use crate::tools::BackendKind as Backend;
use crate::tools::plot::{LogLog, Panel, Series};
use crate::tools::scenes::{irregular_builder, standard_builder};

/// Which sheet a case solves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sheet {
    /// The N×N grid.
    Grid,
    /// About N×N particles, a Delaunay triangulation of jittered points.
    Irregular,
}

crate::names::named_enum!(Sheet "sheet" {
    Grid => "grid",
    Irregular => "irregular",
});

/// The standard scene's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct StandardConfig {
    /// Grid sizes N (N×N particles), each at least 2.
    pub sizes: Vec<u32>,
    /// Structural, shear and bend constraints on or off. Default all on.
    pub kinds: [bool; 3],
    /// The sheets, each at every size. Default the grid only.
    pub sheets: Vec<Sheet>,
    /// Every sheet's membrane. Default [`Membrane::Edges`].
    pub membrane: Membrane,
}

/// The standard scene's own record fields.
#[derive(Clone, Debug, Serialize)]
pub struct Fields {
    /// Grid side N (N×N particles).
    pub n: u32,
    /// The sheet.
    pub sheet: Sheet,
    /// Its membrane: `edges` or `triangles`.
    pub membrane: &'static str,
    /// Colors of the constraints.
    pub colors: usize,
    /// Constraints per color, in solve order.
    pub color_sizes: Vec<u32>,
    /// CPU reference median / this backend's median, on the same N (GPU cases).
    pub speedup_vs_cpu: Option<f64>,
}

scene_fields!(Standard);

impl SceneBench for StandardConfig {
    fn describe(&self) -> String {
        "standard scene (N×N over 1 m², flat, corners pinned, 60 fps)".into()
    }

    fn validate(&self) -> Result<()> {
        super::check_sizes(&self.sizes)?;
        if self.sheets.is_empty() {
            bail!("--sheets: give at least one of grid, irregular");
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
        for (&n, &sheet) in self
            .sizes
            .iter()
            .flat_map(|n| self.sheets.iter().map(move |s| (n, s)))
        {
            // One cloth per size, shared by both backends; one too large for the library is
            // reported as skipped.
            let cloth = super::case::shared(
                match sheet {
                    Sheet::Grid => standard_builder(n, self.kinds),
                    Sheet::Irregular => irregular_builder(n, self.kinds),
                }
                .membrane(self.membrane)
                .build(),
            );
            let membrane = self.membrane.name();
            let fields = Fields {
                n,
                sheet,
                membrane,
                colors: cloth.as_ref().map_or(0, |c| c.colors().len()),
                color_sizes: cloth.as_ref().map_or(Vec::new(), |c| c.color_sizes()),
                speedup_vs_cpu: None,
            };
            for &backend in backends {
                cases.push(Case {
                    backend,
                    label: match (sheet, self.membrane) {
                        (Sheet::Grid, Membrane::Edges) => format!("{n}x{n}"),
                        (Sheet::Irregular, Membrane::Edges) => format!("{n}x{n} irregular"),
                        (_, Membrane::Triangles) => format!("{n}x{n} {sheet} triangles"),
                    },
                    params: cfg.params.clone(),
                    build: cloth.clone().map(|c| Build::Solvers {
                        workgroup_size: cfg.workgroup_size,
                        cloths: vec![Placed::unmoved(c)],
                    }),
                    release: false,
                    warmup_at_least: 0,
                    fields: SceneFields::Standard(fields.clone()),
                });
            }
        }
        cases
    }

    fn compare(&self, records: &mut [BenchRecord]) {
        let cpu: Vec<((u32, Sheet), f64)> = records
            .iter()
            .filter(|r| r.backend == "cpu")
            .filter_map(|r| {
                let f = fields(r)?;
                Some(((f.n, f.sheet), r.ms_per_frame_median?))
            })
            .collect();
        for r in records.iter_mut().filter(|r| r.backend == "gpu") {
            let median = r.ms_per_frame_median;
            if let SceneFields::Standard(f) = &mut r.fields {
                let base = cpu.iter().find(|c| c.0 == (f.n, f.sheet)).map(|c| c.1);
                f.speedup_vs_cpu = base.zip(median).map(|(c, g)| c / g);
            }
        }
    }

    fn key_columns(&self) -> Vec<Column> {
        vec![
            Column::right("N", |r| fields(r).map_or("-".into(), |f| f.n.to_string())),
            Column::right("sheet", |r| {
                fields(r).map_or("-".into(), |f| f.sheet.to_string())
            }),
        ]
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
            if !shown.contains(&(f.n, f.sheet)) {
                shown.push((f.n, f.sheet));
                s.push_str(&super::describe_colors(
                    &format!("{0}x{0} {1}", f.n, f.sheet),
                    &f.color_sizes,
                    &[],
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
                    .flat_map(|b| self.sheets.iter().map(move |&s| (b, s)))
                    .map(|((b, color), sheet)| Series {
                        name: match sheet {
                            Sheet::Grid => b.name().into(),
                            Sheet::Irregular => format!("{} irregular", b.name()),
                        },
                        color,
                        faint: sheet == Sheet::Irregular,
                        points: measured
                            .iter()
                            .filter(|r| r.backend == b.name())
                            .filter(|r| fields(r).is_some_and(|f| f.sheet == sheet))
                            .filter_map(|r| Some((r.particles as f64, metric(r)?)))
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        (LogLog { panels }, (1200, 500))
    }
}
