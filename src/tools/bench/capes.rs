//! The many-cloths scene (`--scene capes`): a field of capes, one per square metre, released
//! flat from their collars, solved three ways:
//! - `separate`: one lone [`crate::Solver`] per cape, each frame submitted per cape, one wait
//!   at the end of the frame (how chiffon ran many cloths before the world);
//! - `global`: one [`crate::World`] with every cape on the global path ([`PathChoice::Global`]);
//! - `fused`: one [`crate::World`] with [`PathChoice::Fused`] (each cape one workgroup);
//! - `auto`: one [`crate::World`] with [`PathChoice::Auto`], which times both paths over its
//!   first frames (in the warm-up) and keeps the faster: its row says which it kept, beside
//!   the two it chose between.
//!
//! Bytes moved per frame follow the module model of [`super`], cloth by cloth on its path.
//!
//! Sleeping (`--at-rest N --sleep on,off`): the first N capes of each count hang at rest
//! instead (they sleep once the warm-up outlasts [`crate::world::Sleep::frames`]), so the
//! saving of sleeping shows beside the same world with it off.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use glam::Affine3A;
use plotters::style::{BLACK, BLUE, GREEN, RED};
use serde::Serialize;

use super::{BenchConfig, BenchRecord, Build, Case, Column, Placed, Ran, SceneBench, SceneFields};
use crate::tools::BackendKind as Backend;
use crate::tools::plot::{LogLog, Series};
use crate::tools::scenes::{cape, cape_position, hanging_cape};
use crate::world::{PathChoice, Sleep, WorldCapacity, WorldConfig};

/// How the capes are solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BenchPath {
    /// One world, each cape on the fused path where it fits.
    Fused,
    /// One world, every cape on the global path.
    Global,
    /// One solver per cape.
    Separate,
    /// One world that times both paths and keeps the faster ([`PathChoice::Auto`]).
    Auto,
}

crate::names::named_enum!(BenchPath "path" {
    Fused => "fused",
    Global => "global",
    Separate => "separate",
    Auto => "auto",
});

/// The capes scene's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct CapesConfig {
    /// Numbers of capes, each at least 1.
    pub cloths: Vec<u32>,
    /// Particles of one cape (columns, rows).
    pub cloth_size: (u32, u32),
    /// Paths. Default all four.
    pub paths: Vec<BenchPath>,
    /// Threads per workgroup of the fused kernel (`None`: the world's default for the
    /// adapter).
    pub fused_workgroup_size: Option<u32>,
    /// Capes of each count that hang at rest from the start (the first ones); the others are
    /// released flat and swing. Default 0.
    pub at_rest: u32,
    /// Run each world with sleeping on ([`Sleep::default`]), off, or both. Default on.
    pub sleep: Vec<bool>,
}

/// The capes scene's own record fields. Scripts read these names.
#[derive(Clone, Debug, Serialize)]
pub struct Fields {
    /// Capes.
    pub cloths: u32,
    /// `fused`, `global`, `separate` or `auto`.
    pub path: BenchPath,
    /// One cape's particles, `columns x rows`.
    pub cloth_size: String,
    /// How many capes each path the world chose took, e.g. `{"fused (workgroup memory)": 100}`.
    pub cloth_paths: BTreeMap<&'static str, u32>,
    /// Capes that started hanging at rest.
    pub at_rest: u32,
    /// Whether the world let capes sleep (lone solvers never do).
    pub sleep: bool,
    /// `auto`: the least frame (ms) of each path in the world's trial, `[fused, global]`,
    /// waited for: what it chose by.
    pub auto_trial_ms: Option<[f64; 2]>,
    /// Capes asleep at the end of the run.
    pub asleep: u32,
    /// Capes solved per millisecond of wall time (cloths / ms per frame).
    pub cloths_per_ms: Option<f64>,
    /// This case's median over the `separate` median of the same backend and count.
    pub speedup_vs_separate: Option<f64>,
}

scene_fields!(Capes);

impl SceneBench for CapesConfig {
    fn describe(&self) -> String {
        format!(
            "capes scene ({}x{} capes released flat from their collars, one per m², 60 fps)",
            self.cloth_size.0, self.cloth_size.1
        )
    }

    fn validate(&self) -> Result<()> {
        if self.cloths.is_empty() || self.cloths.contains(&0) {
            bail!("--cloths {:?}: every count must be at least 1", self.cloths);
        }
        let (c, r) = self.cloth_size;
        if c < 2 || r < 2 {
            bail!("--cloth-size {c}x{r}: a cape needs at least 2x2 particles");
        }
        if self.paths.is_empty() {
            bail!("--path: at least one path must run");
        }
        if let Some(n) = self.cloths.iter().find(|&&n| n < self.at_rest) {
            bail!(
                "--at-rest {}: more than the {n} capes of --cloths",
                self.at_rest
            );
        }
        if self.sleep.is_empty() {
            bail!("--sleep: on, off or both");
        }
        Ok(())
    }

    fn cases(&self, cfg: &BenchConfig, backends: &[Backend]) -> Vec<Case> {
        let (c, r) = self.cloth_size;
        let one = super::case::shared(cape(c, r));
        let still = super::case::shared(hanging_cape(c, r));
        let both = one.and_then(|a| Ok((a, still?)));
        let mut cases = Vec::new();
        for &backend in backends {
            for &count in &self.cloths {
                for (&path, sleep) in self.paths.iter().flat_map(|p| {
                    // Lone solvers never sleep: one case for them.
                    let sleeps = if *p == BenchPath::Separate {
                        &self.sleep[..1]
                    } else {
                        &self.sleep[..]
                    };
                    sleeps.iter().map(move |&s| (p, s))
                }) {
                    let build = both.clone().map(|(cape, still)| {
                        let cloths: Vec<Placed> = (0..count as usize)
                            .map(|k| Placed {
                                cloth: if (k as u32) < self.at_rest {
                                    still.clone()
                                } else {
                                    cape.clone()
                                },
                                at: Affine3A::from_translation(cape_position(k, count as usize)),
                            })
                            .collect();
                        let world = |paths| Build::World {
                            config: WorldConfig {
                                capacity: WorldCapacity::for_cloths(count, &cape),
                                paths,
                                workgroup_size: cfg.workgroup_size,
                                fused_workgroup_size: self.fused_workgroup_size,
                                sleep: sleep.then(Sleep::default),
                                ..WorldConfig::default()
                            },
                            cloths: cloths.clone(),
                        };
                        match path {
                            BenchPath::Fused => world(PathChoice::Fused),
                            BenchPath::Global => world(PathChoice::Global),
                            BenchPath::Auto => world(PathChoice::Auto),
                            BenchPath::Separate => Build::Solvers {
                                workgroup_size: cfg.workgroup_size,
                                cloths: cloths.clone(),
                            },
                        }
                    });
                    let sleep = sleep && path != BenchPath::Separate;
                    let label = match (self.sleep.len() > 1, sleep) {
                        (true, true) => format!("{} x{count} sleep", path.name()),
                        _ => format!("{} x{count}", path.name()),
                    };
                    cases.push(Case {
                        backend,
                        label,
                        params: cfg.params.clone(),
                        build,
                        release: false,
                        // Auto's trial is its first frames, not the frames to time; every
                        // path warms up as long, so the rows end in the same state.
                        warmup_at_least: if self.paths.contains(&BenchPath::Auto) {
                            crate::world::AUTO_TRIAL_FRAMES as usize
                        } else {
                            0
                        },
                        fields: SceneFields::Capes(Fields {
                            cloths: count,
                            path,
                            cloth_size: format!("{c}x{r}"),
                            cloth_paths: BTreeMap::new(),
                            at_rest: self.at_rest.min(count),
                            sleep,
                            asleep: 0,
                            auto_trial_ms: None,
                            cloths_per_ms: None,
                            speedup_vs_separate: None,
                        }),
                    });
                }
            }
        }
        cases
    }

    fn measured(&self, record: &mut BenchRecord, ran: &Ran) {
        let median = record.ms_per_frame_median;
        if let SceneFields::Capes(f) = &mut record.fields {
            // Lone solvers have no path of their own to report.
            if f.path != BenchPath::Separate {
                for p in &ran.paths {
                    *f.cloth_paths.entry(p.name()).or_default() += 1;
                }
            }
            f.asleep = ran.asleep;
            f.auto_trial_ms = ran.path_times.map(|t| [t.fused * 1e3, t.global * 1e3]);
            f.cloths_per_ms = median.map(|ms| f.cloths as f64 / ms);
        }
    }

    fn compare(&self, records: &mut [BenchRecord]) {
        let separate: Vec<(&'static str, u32, f64)> = records
            .iter()
            .filter_map(|r| {
                let f = fields(r)?;
                (f.path == BenchPath::Separate).then_some((
                    r.backend,
                    f.cloths,
                    r.ms_per_frame_median?,
                ))
            })
            .collect();
        for r in records.iter_mut() {
            let (backend, median) = (r.backend, r.ms_per_frame_median);
            if let SceneFields::Capes(f) = &mut r.fields {
                let base = separate
                    .iter()
                    .find(|s| s.0 == backend && s.1 == f.cloths)
                    .map(|s| s.2);
                f.speedup_vs_separate = base.zip(median).map(|(b, m)| b / m);
            }
        }
    }

    fn key_columns(&self) -> Vec<Column> {
        vec![
            Column::right("cloths", |r| {
                fields(r).map_or("-".into(), |f| f.cloths.to_string())
            }),
            Column::left("path", |r| {
                fields(r).map_or("-".into(), |f| f.path.name().into())
            }),
            Column::right("asleep", |r| {
                fields(r).map_or("-".into(), |f| {
                    if f.sleep {
                        format!("{}/{}", f.asleep, f.cloths)
                    } else {
                        "off".into()
                    }
                })
            }),
        ]
    }

    fn columns(&self) -> Vec<Column> {
        vec![
            Column::right("cloth/ms", |r| {
                super::opt(fields(r).and_then(|f| f.cloths_per_ms), 3)
            }),
            Column::right("vs sep.", |r| {
                super::times(fields(r).and_then(|f| f.speedup_vs_separate))
            }),
            Column::left("paths", |r| {
                fields(r).map_or(String::new(), |f| {
                    let paths: Vec<String> = f
                        .cloth_paths
                        .iter()
                        .map(|(k, v)| format!("{v} {k}"))
                        .collect();
                    match f.auto_trial_ms {
                        Some([fused, global]) => format!(
                            "{} (trial: fused {fused:.3}, global {global:.3} ms)",
                            paths.join(", ")
                        ),
                        None => paths.join(", "),
                    }
                })
            }),
        ]
    }

    fn plot(&self, records: &[BenchRecord]) -> (LogLog, (u32, u32)) {
        let mut series = Vec::new();
        for backend in Backend::ALL {
            for (path, color) in BenchPath::ALL.into_iter().zip([BLUE, GREEN, RED, BLACK]) {
                series.push(Series {
                    name: format!("{} {}", backend.name(), path.name()),
                    color,
                    // The CPU reference is the thin line beside each path.
                    faint: backend == Backend::Cpu,
                    points: super::ms_points(records, backend, |r| {
                        Some(fields(r).filter(|f| f.path == path)?.cloths as f64)
                    }),
                });
            }
        }
        super::ms_plot("many capes: ms per frame", "number of capes", series)
    }
}
