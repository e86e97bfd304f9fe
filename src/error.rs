//! The one error type of the library. The command line wraps it with `anyhow`.

use thiserror::Error;

/// Everything that can go wrong in chiffon, each variant naming the problem in plain words.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ChiffonError {
    /// A number given by the caller is NaN, negative, zero where it must not be, or absurd.
    #[error("invalid {name}: {reason}")]
    InvalidParameter {
        /// The parameter, as the caller knows it.
        name: &'static str,
        /// What is wrong with its value.
        reason: String,
    },

    /// The cloth description cannot be built (e.g. a 0-column grid or an out-of-range pin).
    #[error("invalid cloth: {0}")]
    InvalidCloth(String),

    /// A mesh (an OBJ file or a [`crate::geometry::TriangleMesh`]) cannot become a cloth.
    #[error("invalid mesh {source_name}: {reason}")]
    InvalidMesh {
        /// The file name, or the name given to a mesh made in code.
        source_name: String,
        /// What is wrong with it.
        reason: String,
    },

    /// A coloring breaks the rule that no particle appears twice in one color.
    #[error("invalid coloring: {0}")]
    InvalidColoring(String),

    /// wgpu found no adapter at all.
    #[error(
        "no GPU adapter found ({0}); on a machine without a GPU install Mesa's lavapipe \
         (Debian: apt-get install mesa-vulkan-drivers) and set WGPU_BACKEND=vulkan"
    )]
    NoAdapter(String),

    /// The browser has no WebGPU (`navigator.gpu` is missing, or it gave no adapter). WebGL2
    /// has no compute shaders, so there is no fallback.
    #[error(
        "this browser has no WebGPU ({0}); open the page in a browser with WebGPU (Chrome or \
         Edge 113 and later, recent Safari and Firefox), over https or on localhost"
    )]
    NoWebGpu(String),

    /// A blocking call (a readback, a device request) was made where the thread must not
    /// block: in a browser, the GPU answers only once the page's event loop runs.
    #[error("{what} would block, which a browser cannot do; use {instead}")]
    WouldBlock {
        /// The blocking call.
        what: &'static str,
        /// The async method to use instead.
        instead: &'static str,
    },

    /// `WGPU_ADAPTER_NAME` was set but no adapter's name contains it.
    #[error("no adapter name contains WGPU_ADAPTER_NAME={wanted:?}; available: {available}")]
    AdapterNotFound {
        /// The value of `WGPU_ADAPTER_NAME`.
        wanted: String,
        /// The adapters there are.
        available: String,
    },

    /// The adapter refused to open a device.
    #[error("could not open a device on the adapter: {0}")]
    RequestDevice(#[from] wgpu::RequestDeviceError),

    /// A buffer the cloth needs is larger than the device allows.
    #[error(
        "{what} {} {bytes} bytes but this device allows at most {limit} bytes ({limit_name}); {}",
        if what.ends_with('s') { "need" } else { "needs" },
        device_limit_advice(what)
    )]
    ExceedsDeviceLimit {
        /// The buffer (a plural, "the mesh colliders' distance grids", takes "need").
        what: &'static str,
        /// Bytes it needs.
        bytes: u64,
        /// Bytes the device allows.
        limit: u64,
        /// The wgpu limit that says so.
        limit_name: &'static str,
    },

    /// Waiting for the GPU or mapping a readback buffer failed.
    #[error("GPU readback failed: {0}")]
    Readback(String),

    /// The simulation produced a non-finite position, or one beyond the divergence limit
    /// (reported, never silently propagated).
    #[error("simulation diverged: particle {particle}{} {cause} in frame {frame}; {}",
        cloth.map(|c| format!(" of cloth {c}")).unwrap_or_default(), cause.advice())]
    Diverged {
        /// The cloth's handle index ([`crate::world::ClothHandle::index`]) in a world; `None`
        /// for a lone [`crate::Solver`].
        cloth: Option<u32>,
        /// The first bad particle, in the cloth's own numbering.
        particle: usize,
        /// The frame it went bad in (1 = the first after construction or reset).
        frame: u64,
        /// What was wrong with it.
        cause: DivergenceCause,
    },

    /// The fused kernel's frame stopped before its last substep, on an adapter that ends a
    /// shader's loops early (llvmpipe: 65 535 loop iterations an invocation), so the cloths
    /// it carried were not stepped whole (reported, never handed back half-stepped).
    #[error(
        "frame {frame}: the fused kernel stopped before the frame's last substep (this adapter \
         ends a shader invocation's loops early: llvmpipe after 65 535 iterations); put the \
         cloths on the global path (PathChoice::Global, --path global), use more threads a \
         fused workgroup, or fewer substeps a frame"
    )]
    StoppedEarly {
        /// The frame it happened in (1 = the first after construction or reset).
        frame: u64,
    },

    /// A [`crate::world::ClothHandle`] whose cloth was removed (or that another world made).
    #[error(
        "cloth handle {index} (generation {generation}) names no cloth in this world; was it removed?"
    )]
    StaleHandle {
        /// The handle's slot.
        index: u32,
        /// The handle's generation.
        generation: u32,
    },

    /// A world cannot take a cloth: its buffers hold fewer than it would need.
    #[error(
        "the world cannot take this cloth: {what} would be {needed}, but the world holds at most \
         {capacity} (raise WorldCapacity::{what} when creating the world)"
    )]
    WorldFull {
        /// The capacity that would be exceeded (`cloths`, `particles`, `constraints`).
        what: &'static str,
        /// What the world would need with the cloth.
        needed: u64,
        /// What it holds.
        capacity: u64,
    },

    /// A file given to read is not one chiffon reads: not a regular file (a pipe, a device, a
    /// folder), or larger than the bound for what it holds ([`crate::files`]).
    #[error("{path}: {reason}")]
    UnreadableFile {
        /// The file, as it was given.
        path: String,
        /// Why it is refused.
        reason: String,
    },

    /// Reading or writing a file failed.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: String,
        /// What the operating system said (in the message, so not also a `source`).
        error: std::io::Error,
    },
}

/// What to make smaller when the buffer `what` does not fit the device: the mesh colliders'
/// grids grow with the colliders, not with the cloth.
fn device_limit_advice(what: &str) -> &'static str {
    if what.contains("distance grid") {
        "use fewer mesh colliders, or coarser grids (a lower DistanceGrid resolution): each mesh \
         collider's samples count, a grid shared between colliders too"
    } else {
        "use a smaller cloth"
    }
}

/// Why a particle counts as diverged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DivergenceCause {
    /// Its position is NaN or infinite.
    NonFinite,
    /// It is farther than the divergence limit from the scene's centre (the centre of the
    /// cloths' and colliders' bounding box at rest).
    TooFar {
        /// Its distance from the scene's centre (m).
        distance: f32,
        /// The limit ([`crate::SolverParams::max_distance`], or the automatic one) (m).
        limit: f32,
    },
}

impl DivergenceCause {
    /// What to do about it.
    fn advice(&self) -> &'static str {
        match self {
            DivergenceCause::NonFinite => {
                "lower dt, raise the solver frequency, or soften the constraints"
            }
            DivergenceCause::TooFar { .. } => {
                "if the scene really is that large, raise SolverParams::max_distance \
                 (--max-distance); otherwise lower dt or raise the solver frequency"
            }
        }
    }
}

impl std::fmt::Display for DivergenceCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DivergenceCause::NonFinite => f.write_str("became non-finite"),
            DivergenceCause::TooFar { distance, limit } => write!(
                f,
                "is {distance:.4e} m from the scene's centre, beyond the divergence limit of \
                 {limit:.4e} m"
            ),
        }
    }
}

/// Short alias used across the crate.
pub type Result<T, E = ChiffonError> = std::result::Result<T, E>;

/// A number a parameter check compares in its own type, so a value typed as `1e-6` into an
/// `f32` passes a minimum of `1e-6_f32` (compared in `f64`, the `f32` rounding of 1e-6 falls
/// just below the `f64` one).
pub(crate) trait Number: Copy + PartialOrd + std::fmt::Display {
    /// False for NaN and infinities.
    fn finite(self) -> bool;
}

impl Number for f32 {
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl Number for f64 {
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl Number for u32 {
    fn finite(self) -> bool {
        true
    }
}

/// Checks that `value` is finite and at least `min`; the error names the parameter.
pub(crate) fn check_at_least<T: Number>(name: &'static str, value: T, min: T) -> Result<()> {
    if !value.finite() {
        return Err(ChiffonError::InvalidParameter {
            name,
            reason: format!("{value} is not a finite number"),
        });
    }
    if value < min {
        return Err(ChiffonError::InvalidParameter {
            name,
            reason: format!("{value} is below the minimum {min}"),
        });
    }
    Ok(())
}

/// Checks that `value` is finite and inside `[min, max]`.
pub(crate) fn check_range<T: Number>(name: &'static str, value: T, min: T, max: T) -> Result<()> {
    check_at_least(name, value, min)?;
    if value > max {
        return Err(ChiffonError::InvalidParameter {
            name,
            reason: format!("{value} is above the maximum {max}"),
        });
    }
    Ok(())
}

/// A number for a message: as written when of ordinary size, in e-notation when huge or tiny
/// (`1e38`, not 39 digits).
pub(crate) fn shown(x: f32) -> String {
    if x != 0.0 && x.is_finite() && !(1e-4..1e7).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A vector for a message, its components as [`shown`] writes them.
pub(crate) fn shown3(v: glam::Vec3) -> String {
    format!("[{}, {}, {}]", shown(v.x), shown(v.y), shown(v.z))
}

/// Checks that every component of a vector is finite.
pub(crate) fn check_finite3(name: &'static str, v: glam::Vec3) -> Result<()> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(ChiffonError::InvalidParameter {
            name,
            reason: format!("{v} has a non-finite component"),
        })
    }
}

/// Checks that every component of a vector is finite (the error names `name`), then that its
/// length is at most `max` (the error names `length_name`). The length is taken in f64: the
/// f32 length of a huge vector overflows to infinity, and the error would say "not finite" of
/// a number the user typed.
pub(crate) fn check_magnitude(
    name: &'static str,
    length_name: &'static str,
    v: glam::Vec3,
    max: f32,
) -> Result<()> {
    check_finite3(name, v)?;
    check_range(length_name, v.as_dvec3().length(), 0.0, max as f64)
}
