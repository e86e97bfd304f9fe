//! Saving plots as SVG or PNG (by extension) with plotters. Text uses a font embedded in the
//! binary (egui's Ubuntu Light), so PNGs need no system fonts.

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;

use crate::error::{ChiffonError, Result};

fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // The font is valid TTF shipped by egui; a failure here would be a packaging bug.
        let _ = plotters::style::register_font(
            "sans-serif",
            FontStyle::Normal,
            epaint_default_fonts::UBUNTU_LIGHT,
        );
    });
}

fn plot_error(path: &Path, e: impl std::fmt::Display) -> ChiffonError {
    ChiffonError::InvalidParameter {
        name: "plot",
        reason: format!("{}: {e}", path.display()),
    }
}

/// Result of drawing a figure.
pub type DrawResult = std::result::Result<(), Box<dyn std::error::Error>>;

/// Something that can draw itself on any plotters backend.
pub trait Figure {
    /// Draws onto `area`.
    fn draw<DB: DrawingBackend>(&self, area: DrawingArea<DB, plotters::coord::Shift>) -> DrawResult
    where
        DB::ErrorType: 'static;
}

/// Draws `figure` onto an SVG or PNG file at `path` (chosen by extension) of `size` pixels.
pub fn save(path: &Path, size: (u32, u32), figure: &impl Figure) -> Result<()> {
    register_font();
    let drawn = match path.extension().and_then(|e| e.to_str()) {
        Some("svg") => figure.draw(SVGBackend::new(path, size).into_drawing_area()),
        Some("png") => figure.draw(BitMapBackend::new(path, size).into_drawing_area()),
        _ => return Err(plot_error(path, "a plot must end in .svg or .png")),
    };
    drawn.map_err(|e| plot_error(path, e))
}
