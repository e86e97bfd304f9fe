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

/// Named series of (x, y) points drawn as lines on linear axes.
pub struct Lines<'a> {
    /// Caption.
    pub title: &'a str,
    /// X axis label.
    pub x_desc: &'a str,
    /// Y axis label.
    pub y_desc: &'a str,
    /// (name, points), one line each.
    pub series: Vec<(String, Vec<(f64, f64)>)>,
}

impl Figure for Lines<'_> {
    fn draw<DB: DrawingBackend>(&self, area: DrawingArea<DB, plotters::coord::Shift>) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        area.fill(&WHITE)?;
        let all = self.series.iter().flat_map(|s| s.1.iter());
        let (x0, x1, y0, y1) = all.fold(
            (f64::MAX, f64::MIN, f64::MAX, f64::MIN),
            |(a, b, c, d), p| (a.min(p.0), b.max(p.0), c.min(p.1), d.max(p.1)),
        );
        if x0 > x1 {
            return Ok(());
        }
        let pad = ((y1 - y0) * 0.08).max(1e-9);
        let mut chart = ChartBuilder::on(&area)
            .caption(self.title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(x0..x1, y0 - pad..y1 + pad)?;
        chart
            .configure_mesh()
            .x_desc(self.x_desc)
            .y_desc(self.y_desc)
            .label_style(("sans-serif", 13))
            .draw()?;
        let colors = [&BLUE, &RED, &GREEN, &MAGENTA, &BLACK, &CYAN];
        for (k, (name, points)) in self.series.iter().enumerate() {
            let color = colors[k % colors.len()];
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    color.stroke_width(2),
                ))?
                .label(name.as_str())
                .legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 14))
            .draw()?;
        area.present()?;
        Ok(())
    }
}
