//! Frame-time sequences: a fixed rate, a seeded random rate, or a file of dts. A sequence is
//! drawn lazily, frame by frame ([`Dts`]), so a frame count costs no memory: `--frames
//! 4294967295` starts at once instead of allocating 34 GB of dts. Only a file's values are
//! held, and only as many as the run uses.

use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::params::validate_dt;

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

/// What `--dt` accepts.
const USAGE: &str = "wants fixed:FPS, random:MIN_FPS:MAX_FPS:SEED or file:PATH";

/// A frame rate whose frame (1/FPS s) is a dt the library accepts ([`validate_dt`]).
fn parse_fps(what: &str, s: &str) -> std::result::Result<f64, String> {
    let fps: f64 = s
        .trim()
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v > 0.0)
        .ok_or_else(|| format!("{USAGE}; its {what} {s:?} is not a positive frame rate"))?;
    validate_dt(1.0 / fps)
        .map_err(|e| format!("{what} {fps} gives frames of {} s: {e}", 1.0 / fps))?;
    Ok(fps)
}

impl std::str::FromStr for DtSpec {
    /// A message that follows the flag's name ("--dt wants ...").
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let usage = || format!("{USAGE}, not {s:?}");
        let (kind, rest) = s.split_once(':').ok_or_else(usage)?;
        match kind {
            "fixed" => Ok(DtSpec::Fixed {
                fps: parse_fps("fps", rest)?,
            }),
            "random" => {
                let parts: Vec<&str> = rest.split(':').collect();
                let [min, max, seed] = parts[..] else {
                    return Err(usage());
                };
                let (min_fps, max_fps) = (parse_fps("min fps", min)?, parse_fps("max fps", max)?);
                if min_fps > max_fps {
                    return Err(format!("min fps {min_fps} is above max fps {max_fps}"));
                }
                let seed = seed.trim().parse().map_err(|_| {
                    format!("{USAGE}; its seed {seed:?} is not a whole number of at least 0")
                })?;
                Ok(DtSpec::Random {
                    min_fps,
                    max_fps,
                    seed,
                })
            }
            "file" if !rest.is_empty() => Ok(DtSpec::File { path: rest.into() }),
            _ => Err(usage()),
        }
    }
}

impl DtSpec {
    /// The dts of `frames` frames, drawn as they are used. `frames` is required except for a
    /// file, where it defaults to every line and may not exceed the line count. A file is read
    /// (and every value used checked) here, before the run.
    pub fn frames(&self, frames: Option<u64>) -> Result<Dts> {
        let need_frames =
            || frames.ok_or_else(|| anyhow!("--frames is required unless --dt is a file"));
        Ok(match self {
            DtSpec::Fixed { fps } => Dts {
                source: Source::Fixed(1.0 / fps),
                left: need_frames()?,
            },
            DtSpec::Random {
                min_fps,
                max_fps,
                seed,
            } => Dts {
                source: Source::Random {
                    rng: Box::new(ChaCha8Rng::seed_from_u64(*seed)),
                    min_fps: *min_fps,
                    max_fps: *max_fps,
                },
                left: need_frames()?,
            },
            DtSpec::File { path } => {
                // Through the library's one way in: a pipe or a device is refused, not
                // waited on, and the size is bounded (the values are held for the run).
                let file = crate::files::open(path, "a dt file", crate::files::MAX_DT_FILE_BYTES)
                    .map_err(|e| anyhow!("--dt: {e}"))?;
                let dts =
                    read_dts(file, frames).map_err(|e| anyhow!("--dt: {}: {e}", path.display()))?;
                if let Some(f) = frames.filter(|&f| f > dts.len() as u64) {
                    bail!(
                        "--dt: {} has {} dt lines but --frames asks for {f}",
                        path.display(),
                        dts.len()
                    );
                }
                Dts {
                    left: dts.len() as u64,
                    source: Source::List(dts.into_iter()),
                }
            }
        })
    }

    /// The file of a `file:` sequence.
    pub fn path(&self) -> Option<&Path> {
        match self {
            DtSpec::File { path } => Some(path),
            _ => None,
        }
    }
}

/// Frame times (s), one per frame, drawn as they are used; see [`DtSpec::frames`].
#[derive(Clone, Debug)]
pub struct Dts {
    source: Source,
    /// Frames still to come.
    left: u64,
}

#[derive(Clone, Debug)]
enum Source {
    Fixed(f64),
    Random {
        rng: Box<ChaCha8Rng>,
        min_fps: f64,
        max_fps: f64,
    },
    List(std::vec::IntoIter<f64>),
}

impl Dts {
    /// Frames still to come.
    pub fn remaining(&self) -> u64 {
        self.left
    }
}

impl Iterator for Dts {
    type Item = f64;

    fn next(&mut self) -> Option<f64> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        match &mut self.source {
            Source::Fixed(dt) => Some(*dt),
            Source::Random {
                rng,
                min_fps,
                max_fps,
            } => Some(1.0 / rng.random_range(*min_fps..=*max_fps)),
            Source::List(values) => values.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.left).unwrap_or(usize::MAX);
        (n, usize::try_from(self.left).ok())
    }
}

/// Longest line of a dt file (bytes). A line holds one number and maybe a comment; the bound
/// stops a file with no line breaks (`file:/dev/zero`) from filling the memory.
const MAX_LINE_BYTES: usize = 4096;

/// Reads one dt (s) per line, at most `limit` of them; blank lines and lines starting with `#`
/// are skipped. Every value is checked with [`validate_dt`].
pub fn read_dts(source: impl Read, limit: Option<u64>) -> std::result::Result<Vec<f64>, String> {
    let mut reader = BufReader::new(source);
    let mut out = Vec::new();
    let mut line = Vec::new();
    for n in 1.. {
        if limit.is_some_and(|l| out.len() as u64 >= l) {
            break;
        }
        line.clear();
        let read = crate::files::read_line(&mut reader, &mut line, MAX_LINE_BYTES)
            .map_err(|e| e.to_string())?;
        if read == crate::files::Line::End {
            break;
        }
        if read == crate::files::Line::TooLong {
            return Err(format!(
                "line {n} is longer than {MAX_LINE_BYTES} bytes: not one dt per line"
            ));
        }
        let text = std::str::from_utf8(&line).map_err(|_| format!("line {n} is not text"))?;
        // A byte-order mark (Windows editors write one) is not part of the first number.
        let text = text.trim_start_matches('\u{feff}').trim();
        if text.is_empty() || text.starts_with('#') {
            continue;
        }
        let dt: f64 = text
            .parse()
            .map_err(|_| format!("line {n}: {text:?} is not a number"))?;
        validate_dt(dt).map_err(|e| format!("line {n}: {e}"))?;
        out.push(dt);
    }
    if out.is_empty() {
        return Err("no dt values".into());
    }
    Ok(out)
}

/// [`read_dts`] of a whole text.
pub fn parse_dt_lines(text: &str) -> std::result::Result<Vec<f64>, String> {
    read_dts(text.as_bytes(), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression (issue 22): `simulate --grid 2x2 --frames 4294967295` aborted allocating
    /// 34 GB, because the dts of every frame were built before the first step.
    #[test]
    fn a_huge_frame_count_costs_no_memory() {
        for spec in ["fixed:60", "random:30:144:7"] {
            let spec: DtSpec = spec.parse().unwrap();
            let mut dts = spec.frames(Some(u32::MAX as u64)).unwrap();
            // No buffer behind the sequence: its size does not depend on the frame count.
            assert!(size_of_val(&dts) < 512, "{}", size_of_val(&dts));
            assert_eq!(dts.remaining(), u32::MAX as u64);
            assert_eq!(dts.size_hint().0, u32::MAX as usize);
            let first: Vec<f64> = dts.by_ref().take(3).collect();
            assert!(
                first
                    .iter()
                    .all(|&dt| (1.0 / 144.0..=1.0 / 30.0).contains(&dt))
            );
            assert_eq!(dts.remaining(), u32::MAX as u64 - 3);
        }
        let spec: DtSpec = "fixed:60".parse().unwrap();
        assert_eq!(spec.frames(Some(u64::MAX)).unwrap().remaining(), u64::MAX);
    }

    #[test]
    fn sequences_are_what_they_say() {
        let fixed: Vec<f64> = DtSpec::Fixed { fps: 50.0 }
            .frames(Some(3))
            .unwrap()
            .collect();
        assert_eq!(fixed, [0.02; 3]);
        let spec: DtSpec = "random:30:144:3".parse().unwrap();
        let a: Vec<f64> = spec.frames(Some(5)).unwrap().collect();
        let b: Vec<f64> = spec.frames(Some(5)).unwrap().collect();
        assert_eq!(a, b, "seeded");
        assert!(a.windows(2).any(|w| w[0] != w[1]));
        assert!(DtSpec::Fixed { fps: 60.0 }.frames(None).is_err());
    }

    #[test]
    fn frame_rates_take_the_library_bounds_on_dt() {
        let refusal = |spec: &str| spec.parse::<DtSpec>().unwrap_err();
        assert!("fixed:1".parse::<DtSpec>().is_ok());
        assert!(refusal("fixed:0.5").contains("maximum"));
        assert!(refusal("fixed:0").contains("fps"));
        assert!("fixed:inf".parse::<DtSpec>().is_err());
        assert!("fixed:NaN".parse::<DtSpec>().is_err());
        assert!(refusal("random:144:30:1").contains("min fps"));
        assert!(refusal("random:30:144:-1").contains("seed"));
        assert!(refusal("sometimes").starts_with(USAGE));
        assert!("file:".parse::<DtSpec>().is_err());
    }

    #[test]
    fn dt_files_say_which_line_is_wrong() {
        assert_eq!(
            parse_dt_lines("# c\n\n0.01\r\n0.02\n"),
            Ok(vec![0.01, 0.02])
        );
        assert!(
            parse_dt_lines("0.01\nabc\n")
                .unwrap_err()
                .contains("line 2")
        );
        assert!(parse_dt_lines("0.01\n-1\n").unwrap_err().contains("line 2"));
        assert!(
            parse_dt_lines("\n# none\n")
                .unwrap_err()
                .contains("no dt values")
        );
        assert!(parse_dt_lines("\u{0}\u{ff}\n").is_err());
        assert_eq!(parse_dt_lines("\u{feff}0.01\n"), Ok(vec![0.01]));
        // Only what the run uses is read: a bad line after it does not matter.
        assert_eq!(
            read_dts("0.01\n0.02\nabc\n".as_bytes(), Some(2)),
            Ok(vec![0.01, 0.02])
        );
        // A file with no line breaks is refused without reading it all.
        let endless = std::io::repeat(b'0');
        assert!(read_dts(endless, None).unwrap_err().contains("longer than"));
    }
}
