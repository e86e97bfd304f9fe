//! Writing 8-bit PNG files, for the plots and the demo's screenshots (the `png` crate alone:
//! the `image` crate would compile a codec for every format to write one).

use std::path::Path;

/// Pixels of 8-bit channels, rows top to bottom, tightly packed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Channels {
    /// Red, green, blue.
    Rgb,
    /// Red, green, blue, alpha.
    Rgba,
}

/// Writes `pixels` (`size.0 × size.1` pixels of `channels`) to a PNG file at `path`: encoded
/// in memory, then written atomically ([`crate::export::write_atomic`]), so a full disk or a
/// failed encoding never leaves a truncated PNG in place of the old one.
pub fn write(
    path: &Path,
    size: (u32, u32),
    channels: Channels,
    pixels: &[u8],
) -> Result<(), png::EncodingError> {
    let bytes = encode(size, channels, pixels)?;
    crate::export::write_atomic(path, &bytes)
        .map_err(|e| png::EncodingError::IoError(std::io::Error::other(e.to_string())))
}

/// `pixels` (`size.0 × size.1` pixels of `channels`) as the bytes of a PNG file.
pub fn encode(
    size: (u32, u32),
    channels: Channels,
    pixels: &[u8],
) -> Result<Vec<u8>, png::EncodingError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, size.0, size.1);
    encoder.set_color(match channels {
        Channels::Rgb => png::ColorType::Rgb,
        Channels::Rgba => png::ColorType::Rgba,
    });
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(pixels)?;
    writer.finish()?;
    Ok(bytes)
}
