//! Frame-time sequences: a fixed rate, a seeded random rate, or a file of dts.

use std::path::PathBuf;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::params::validate_dt;
use anyhow::{Result, anyhow};

/// Where each frame's dt comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum DtSpec {
    /// `fixed:FPS`: every frame lasts 1/FPS s.
    Fixed {
        /// Frames per second.
        fps: f64,
    },
    /// `random:MIN:MAX:SEED`: each frame's fps is drawn uniformly in [MIN, MAX].
    Random {
        /// Lowest frame rate.
        min_fps: f64,
        /// Highest frame rate.
        max_fps: f64,
        /// Seed of the generator.
        seed: u64,
    },
    /// `file:PATH`: one dt in seconds per line (blank lines and `#` comments ignored).
    File {
        /// The file.
        path: PathBuf,
    },
}

fn bad(msg: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("invalid --dt: {msg}")
}

fn parse_fps(what: &str, s: &str) -> Result<f64> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| bad(format!("{what} {s:?} is not a number")))?;
    if !(1.0..=1.0e6).contains(&v) {
        return Err(bad(format!(
            "{what} {v} must be a frame rate in [1, 1000000] fps"
        )));
    }
    Ok(v)
}

impl std::str::FromStr for DtSpec {
    type Err = anyhow::Error;
    fn from_str(s: &str) -> Result<Self> {
        let usage = "expected fixed:FPS, random:MIN:MAX:SEED or file:PATH";
        let (kind, rest) = s
            .split_once(':')
            .ok_or_else(|| bad(format!("{s:?}: {usage}")))?;
        match kind {
            "fixed" => Ok(DtSpec::Fixed {
                fps: parse_fps("fps", rest)?,
            }),
            "random" => {
                let parts: Vec<&str> = rest.split(':').collect();
                let [min, max, seed] = parts[..] else {
                    return Err(bad(format!("{s:?}: {usage}")));
                };
                let (min_fps, max_fps) = (parse_fps("min fps", min)?, parse_fps("max fps", max)?);
                if min_fps > max_fps {
                    return Err(bad(format!("min fps {min_fps} is above max fps {max_fps}")));
                }
                let seed = seed
                    .parse()
                    .map_err(|_| bad(format!("seed {seed:?} is not a non-negative integer")))?;
                Ok(DtSpec::Random {
                    min_fps,
                    max_fps,
                    seed,
                })
            }
            "file" if !rest.is_empty() => Ok(DtSpec::File { path: rest.into() }),
            _ => Err(bad(format!("{s:?}: {usage}"))),
        }
    }
}

impl DtSpec {
    /// The dt of each frame (s). `frames` is required except for files, where it defaults to
    /// every line and may not exceed the line count.
    pub fn sequence(&self, frames: Option<usize>) -> Result<Vec<f64>> {
        let need_frames =
            || frames.ok_or_else(|| bad("--frames is required unless --dt is a file"));
        match self {
            DtSpec::Fixed { fps } => Ok(vec![1.0 / fps; need_frames()?]),
            DtSpec::Random {
                min_fps,
                max_fps,
                seed,
            } => {
                let mut rng = ChaCha8Rng::seed_from_u64(*seed);
                Ok((0..need_frames()?)
                    .map(|_| 1.0 / rng.random_range(*min_fps..=*max_fps))
                    .collect())
            }
            DtSpec::File { path } => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| anyhow!("{}: {e}", path.display()))?;
                let dts =
                    parse_dt_lines(&text).map_err(|e| bad(format!("{}: {e}", path.display())))?;
                match frames {
                    Some(f) if f > dts.len() => Err(bad(format!(
                        "{} has {} dt lines but --frames asks for {f}",
                        path.display(),
                        dts.len()
                    ))),
                    Some(f) => Ok(dts[..f].to_vec()),
                    None => Ok(dts),
                }
            }
        }
    }
}

/// Parses one dt (s) per line; blank lines and lines starting with `#` are skipped.
pub fn parse_dt_lines(text: &str) -> std::result::Result<Vec<f64>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let dt: f64 = line
            .parse()
            .map_err(|_| format!("line {}: {line:?} is not a number", n + 1))?;
        validate_dt(dt).map_err(|e| format!("line {}: {e}", n + 1))?;
        out.push(dt);
    }
    if out.is_empty() {
        return Err("no dt values".into());
    }
    Ok(out)
}
