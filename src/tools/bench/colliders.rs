//! The colliders scene (`--scene colliders`): one sheet
//! ([`crate::tools::scenes::collider_sheet`]: N×N over 1 m², flat at 0.9 m, free) falling onto
//! bodies whose tops are at 0.8 m, the same frames with each set of colliders
//! ([`ColliderSet`]):
//! - `none`: no collider at all (the frame every other set is compared with);
//! - `sphere`: one sphere ([`crate::tools::scenes::collider_sphere`]);
//! - `box`: one box, a small turned table ([`crate::tools::scenes::collider_box`]): its edges
//!   and corners under the cloth run the box-edge kernels;
//! - `capsules`: 64 upright tapered capsules, a bed of posts
//!   ([`crate::tools::scenes::capsule_field`]`(8)`);
//! - `mesh`: a closed bumpy sphere of at least 100 000 triangles in place of the sphere
//!   ([`crate::tools::scenes::bumpy_sphere`]), as a signed distance grid built once before the
//!   cases (its build time is reported).
//!
//! Each record carries `ratio_vs_none` (its median frame over the median frame without a
//! collider, same backend and N), and the capsules' `ratio_vs_sphere` (64 capsules over one
//! sphere); with timestamps, `gpu_stage_ms["collide"]` is the collide stage alone. The warm-up
//! brings the sheet down onto the bodies, so the timed frames drape it. The bytes model of
//! [`super`] charges the collide stage its read of each position, not the colliders it tests.

use std::sync::Arc;
use std::time::Instant;

use anyhow::{Result, bail};
use plotters::style::{BLACK, BLUE, GREEN, RED};
use serde::Serialize;

use super::{BenchConfig, BenchRecord, Build, Case, Column, SceneBench, SceneFields};
use crate::Collider;
use crate::contact::{DistanceGrid, Pose};
use crate::params::SolverParams;
use crate::schedule::Stage;
use crate::tools::BackendKind as Backend;
use crate::tools::plot::{LogLog, Series};
use crate::tools::scenes::{
    CONTACT_FRICTION, bumpy_sphere, capsule_field, collider_box, collider_sheet, collider_sphere,
};

/// The capsules of the `capsules` set: 8 × 8.
pub const CAPSULES_PER_SIDE: u32 = 8;

/// Which colliders a case has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ColliderSet {
    /// None: the frame the others are compared with.
    None,
    /// One sphere.
    Sphere,
    /// One box (a turned table).
    Box,
    /// 64 tapered capsules.
    Capsules,
    /// A triangle mesh of at least 100 000 triangles (a distance grid).
    Mesh,
}

crate::names::named_enum!(ColliderSet "collider set" {
    None => "none",
    Sphere => "sphere",
    Box => "box",
    Capsules => "capsules",
    Mesh => "mesh",
});

/// The colliders scene's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct CollidersConfig {
    /// Sheet sizes N (N×N particles), each at least 2.
    pub sizes: Vec<u32>,
    /// The collider sets, each timed on every size. Default all five.
    pub sets: Vec<ColliderSet>,
    /// The mesh body's rings and slices ([`bumpy_sphere`]): `2 · slices · (rings − 1)`
    /// triangles.
    pub mesh: (u32, u32),
    /// Samples along the mesh's longest side in its distance grid.
    pub grid_resolution: u32,
}

/// The colliders scene's own record fields. Scripts read these names.
#[derive(Clone, Debug, Serialize)]
pub struct Fields {
    /// Sheet side N (N×N particles).
    pub n: u32,
    /// `none`, `sphere`, `box`, `capsules` or `mesh`.
    pub colliders: ColliderSet,
    /// Colliders in the case.
    pub collider_count: usize,
    /// Triangles of the mesh collider (the `mesh` set), else null.
    pub mesh_triangles: Option<usize>,
    /// Samples along the longest side of its distance grid (the `mesh` set), else null.
    pub grid_resolution: Option<u32>,
    /// Wall time to build its distance grid from the triangles (ms, once for every case; the
    /// `mesh` set), else null.
    pub grid_build_ms: Option<f64>,
    /// This case's median frame over the median frame without colliders (same backend and
    /// N); null for `none` itself, or where `none` did not run.
    pub ratio_vs_none: Option<f64>,
    /// The `capsules` case's median frame over the `sphere` case's (same backend and N): 64
    /// capsules against one sphere; null for the other sets.
    pub ratio_vs_sphere: Option<f64>,
}

scene_fields!(Colliders);

/// The mesh body's distance grid, its triangle count and the time it took to build (ms).
type BuiltGrid = std::result::Result<(Arc<DistanceGrid>, usize, f64), String>;

impl CollidersConfig {
    /// The mesh body's grid, built and timed once.
    fn grid(&self) -> BuiltGrid {
        let (rings, slices) = self.mesh;
        let mesh = bumpy_sphere(rings, slices);
        let start = Instant::now();
        let grid =
            DistanceGrid::from_mesh(&mesh, self.grid_resolution).map_err(|e| e.to_string())?;
        let ms = start.elapsed().as_secs_f64() * 1e3;
        Ok((Arc::new(grid), mesh.triangles.len(), ms))
    }

    /// The colliders of `set` (the mesh from `grid`).
    fn colliders(set: ColliderSet, grid: &BuiltGrid) -> std::result::Result<Vec<Collider>, String> {
        Ok(match set {
            ColliderSet::None => Vec::new(),
            ColliderSet::Sphere => vec![collider_sphere()],
            ColliderSet::Box => vec![collider_box()],
            ColliderSet::Capsules => capsule_field(CAPSULES_PER_SIDE),
            ColliderSet::Mesh => {
                let (grid, _, _) = grid.as_ref().map_err(Clone::clone)?;
                vec![Collider::mesh(grid.clone(), Pose::IDENTITY).friction(CONTACT_FRICTION)]
            }
        })
    }
}

impl SceneBench for CollidersConfig {
    fn describe(&self) -> String {
        let (rings, slices) = self.mesh;
        format!(
            "colliders scene (N×N sheet over 1 m² falling onto no collider, one sphere, a box, \
             {} capsules, or a mesh of {} triangles; 60 fps)",
            CAPSULES_PER_SIDE * CAPSULES_PER_SIDE,
            2 * slices * rings.saturating_sub(1)
        )
    }

    fn validate(&self) -> Result<()> {
        super::check_sizes(&self.sizes)?;
        if self.sets.is_empty() {
            bail!("--colliders: at least one collider set must run");
        }
        Ok(())
    }

    fn cases(&self, cfg: &BenchConfig, backends: &[Backend]) -> Vec<Case> {
        let grid: BuiltGrid = if self.sets.contains(&ColliderSet::Mesh) {
            self.grid()
        } else {
            Err("not built".into())
        };
        let mut cases = Vec::new();
        for &backend in backends {
            for &n in &self.sizes {
                let sheet = super::case::shared(collider_sheet(n));
                for &set in &self.sets {
                    let colliders = Self::colliders(set, &grid);
                    let params = SolverParams {
                        colliders: colliders.clone().unwrap_or_default(),
                        ..cfg.params.clone()
                    };
                    let build = sheet.clone().and_then(|cloth| {
                        colliders?;
                        Ok(Build::global_world(cloth, cfg.workgroup_size))
                    });
                    let mesh = grid.as_ref().ok().filter(|_| set == ColliderSet::Mesh);
                    cases.push(Case {
                        backend,
                        label: format!("{n}x{n} {}", set.name()),
                        fields: SceneFields::Colliders(Fields {
                            n,
                            colliders: set,
                            collider_count: params.colliders.len(),
                            mesh_triangles: mesh.map(|m| m.1),
                            grid_resolution: mesh.map(|_| self.grid_resolution),
                            grid_build_ms: mesh.map(|m| m.2),
                            ratio_vs_none: None,
                            ratio_vs_sphere: None,
                        }),
                        params,
                        build,
                        release: false,
                        warmup_at_least: 0,
                    });
                }
            }
        }
        cases
    }

    fn compare(&self, records: &mut [BenchRecord]) {
        let medians: Vec<(&'static str, u32, ColliderSet, f64)> = records
            .iter()
            .filter_map(|r| {
                let f = fields(r)?;
                Some((r.backend, f.n, f.colliders, r.ms_per_frame_median?))
            })
            .collect();
        let median = |backend: &str, n: u32, set: ColliderSet| {
            medians
                .iter()
                .find(|m| m.0 == backend && m.1 == n && m.2 == set)
                .map(|m| m.3)
        };
        for r in records.iter_mut() {
            let (backend, ms) = (r.backend, r.ms_per_frame_median);
            if let SceneFields::Colliders(f) = &mut r.fields {
                let over = |set| ms.zip(median(backend, f.n, set)).map(|(a, b)| a / b);
                if f.colliders != ColliderSet::None {
                    f.ratio_vs_none = over(ColliderSet::None);
                }
                if f.colliders == ColliderSet::Capsules {
                    f.ratio_vs_sphere = over(ColliderSet::Sphere);
                }
            }
        }
    }

    fn key_columns(&self) -> Vec<Column> {
        vec![
            Column::right("N", |r| fields(r).map_or("-".into(), |f| f.n.to_string())),
            Column::left("colliders", |r| {
                fields(r).map_or("-".into(), |f| f.colliders.name().into())
            }),
        ]
    }

    fn columns(&self) -> Vec<Column> {
        vec![
            Column::right("count", |r| {
                fields(r).map_or("-".into(), |f| f.collider_count.to_string())
            }),
            Column::right("collide ms", |r| super::heap::stage_cell(r, Stage::Collide)),
            Column::right("vs none", |r| {
                super::times(fields(r).and_then(|f| f.ratio_vs_none))
            }),
            Column::right("vs sphere", |r| {
                super::times(fields(r).and_then(|f| f.ratio_vs_sphere))
            }),
        ]
    }

    fn notes(&self, records: &[BenchRecord]) -> String {
        match records
            .iter()
            .filter_map(fields)
            .find(|f| f.grid_build_ms.is_some())
        {
            Some(f) => format!(
                "mesh collider: {} triangles, distance grid of {} samples along its longest \
                 side built in {:.0} ms\n",
                f.mesh_triangles.unwrap_or(0),
                f.grid_resolution.unwrap_or(0),
                f.grid_build_ms.unwrap_or(0.0)
            ),
            None => String::new(),
        }
    }

    fn plot(&self, records: &[BenchRecord]) -> (LogLog, (u32, u32)) {
        let mut series = Vec::new();
        for backend in Backend::ALL {
            for (set, color) in ColliderSet::ALL.into_iter().zip([BLACK, BLUE, GREEN, RED]) {
                series.push(Series {
                    name: format!("{} {}", backend.name(), set.name()),
                    color,
                    // The CPU reference is the thin line beside each set.
                    faint: backend == Backend::Cpu,
                    points: super::ms_points(records, backend, |r| {
                        fields(r).filter(|f| f.colliders == set)?;
                        Some(r.particles as f64)
                    }),
                });
            }
        }
        super::ms_plot("colliders: ms per frame", "particles", series)
    }
}
