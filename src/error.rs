//! The one error type of the library. The command line wraps it with `anyhow`.

use thiserror::Error;

/// Everything that can go wrong in chiffon, each variant naming the problem in plain words.
#[derive(Debug, Error)]
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

    /// A `--dt` specification or dt file that cannot be read.
    #[error("invalid dt: {0}")]
    InvalidDt(String),

    /// wgpu found no adapter at all.
    #[error(
        "no GPU adapter found ({0}); on a machine without a GPU install Mesa's lavapipe \
         (Debian: apt-get install mesa-vulkan-drivers) and set WGPU_BACKEND=vulkan"
    )]
    NoAdapter(String),

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
        "{what} needs {bytes} bytes but this device allows at most {limit} bytes ({limit_name}); \
         use a smaller cloth"
    )]
    ExceedsDeviceLimit {
        /// The buffer.
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

    /// The simulation produced a non-finite or absurdly distant position (reported, never
    /// silently propagated).
    #[error(
        "simulation diverged: particle {particle} is non-finite or beyond the maximum distance \
         after frame {step}; lower dt, raise the solver frequency, or soften the constraints"
    )]
    Diverged {
        /// The first particle found non-finite.
        particle: usize,
        /// The step (frame) after which it was found.
        step: u64,
    },

    /// A cloth of a [`crate::world::World`] diverged (see [`ChiffonError::Diverged`]).
    #[error(
        "simulation diverged: particle {particle} of cloth {cloth} is non-finite or beyond the \
         maximum distance after frame {step}; lower dt, raise the solver frequency, or soften \
         the constraints"
    )]
    ClothDiverged {
        /// The cloth's handle index ([`crate::world::ClothHandle::index`]).
        cloth: u32,
        /// The first bad particle, in the cloth's own numbering.
        particle: usize,
        /// The frame after which it was found.
        step: u64,
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
         {capacity} (raise WorldCapacity::{what} when creating the world; a cloth's own colors \
         are bounded by chiffon)"
    )]
    WorldFull {
        /// The capacity that would be exceeded (`cloths`, `particles`, `constraints`), or
        /// `colors`: the cloth's own colors over [`crate::world::MAX_COLORS`].
        what: &'static str,
        /// What the world would need with the cloth.
        needed: u64,
        /// What it holds.
        capacity: u64,
    },

    /// The demo could not open or use its window.
    #[error("window: {0}")]
    Window(String),

    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },
}

/// Short alias used across the crate.
pub type Result<T, E = ChiffonError> = std::result::Result<T, E>;

/// Checks that `value` is finite and at least `min`; the error names the parameter.
pub(crate) fn check_at_least(name: &'static str, value: f64, min: f64) -> Result<()> {
    if !value.is_finite() {
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
pub(crate) fn check_range(name: &'static str, value: f64, min: f64, max: f64) -> Result<()> {
    check_at_least(name, value, min)?;
    if value > max {
        return Err(ChiffonError::InvalidParameter {
            name,
            reason: format!("{value} is above the maximum {max}"),
        });
    }
    Ok(())
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
